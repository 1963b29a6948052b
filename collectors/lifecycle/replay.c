/* replay.c — the lifecycle collector's part of the timeline (analyze/replay_model.h:
 * replay_series.events): each fork, exec (file and argv) and exit (code, or signal and core
 * dump) of lifecycle_event, about its process. The processes there at the start ('present')
 * are no event. It keeps no series. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "analyze/replay_model.h"

static int lifecycle_events(struct replay_model *m, const void *state)
{
	static const char sql[] =
	    "SELECT time_ns - ?2, kind, pid, ppid, comm, filename, "
	    "(SELECT group_concat(value, ' ') FROM json_each(argv)), argv_truncated, exit_code, "
	    "signal, core_dumped FROM lifecycle_event WHERE cap = ?1 AND kind != 'present' "
	    "ORDER BY time_ns, rowid";
	sqlite3_stmt *st = NULL;
	int err, rc = SQLITE_DONE;

	(void)state;
	err = replay_model__prepare(m, sql, &st);
	while (!err && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		char kind[16], comm[64], file[256], argv[160], sig[40];
		int64_t t = rm_col(st, 0), pid = rm_col(st, 2), ppid = rm_col(st, 3),
			code = rm_col(st, 8), signo = rm_col(st, 9);
		const char *a;

		rm_col_str(st, 1, kind, sizeof(kind));
		rm_col_str(st, 4, comm, sizeof(comm));
		rm_col_str(st, 5, file, sizeof(file));
		rm_col_str(st, 6, argv, sizeof(argv));
		if (!strcmp(kind, "fork")) {
			err = replay_model__event_pid(m, t, false, "fork", pid,
						      "pid %lld forked by %lld (%s)", (long long)pid,
						      (long long)ppid, comm);
		} else if (!strcmp(kind, "exec")) {
			err = replay_model__event_pid(m, t, false, "exec", pid, "%s [%s]%s", file,
						      argv, rm_col(st, 7) > 0 ? " (argv cut)" : "");
		} else if (!strcmp(kind, "exit") && signo > 0) {
			a = signo < 32 ? sigabbrev_np((int)signo) : NULL;
			if (a)
				snprintf(sig, sizeof(sig), "SIG%s", a);
			else
				snprintf(sig, sizeof(sig), "signal %lld", (long long)signo);
			err = replay_model__event_pid(m, t, false, "exit", pid, "%s killed by %s%s",
						      comm, sig,
						      rm_col(st, 10) > 0 ? " (core dumped)" : "");
		} else if (!strcmp(kind, "exit")) {
			char c[24] = "unknown";

			if (code != RM_NULL)
				snprintf(c, sizeof(c), "%lld", (long long)code);
			err = replay_model__event_pid(m, t, false, "exit", pid,
						      "%s exited with code %s", comm, c);
		}
	}
	if (!err && rc != SQLITE_DONE)
		err = -EIO;
	sqlite3_finalize(st);
	return err;
}

const struct replay_series lifecycle_replay = {
    .what = "process events",
    .events = lifecycle_events,
};
