/* load.c — the lifecycle collector's loader (analyze/load.h): each LifecycleEvent becomes
 * one lifecycle_event row (schema.sql), its argv a JSON array. */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/load.h"
#include "analyze/output.h" /* json__write_string */
#include "collectors/lifecycle/lifecycle.pb-c.h"
#include "proto/capture.h"

enum { ST_EVENT };

static const char event_sql[] =
	"INSERT INTO lifecycle_event (cap, time_ns, kind, pid, ppid, tid, comm, filename, argv, "
	"argv_truncated, argc, exit_code, signal, core_dumped, cpu_ns)";

/* ARGV as a JSON array of strings (malloc'd), or NULL when out of memory. */
static char *argv_json(char **argv, size_t n)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	fputc('[', f);
	for (size_t i = 0; i < n; i++) {
		if (i)
			fputc(',', f);
		json__write_string(f, argv[i] ? argv[i] : "");
	}
	fputc(']', f);
	if (fclose(f)) {
		free(buf);
		return NULL;
	}
	return buf;
}

static int load_event(struct load_ctx *l, const Ptop__V1__Event *ev)
{
	sqlite3_stmt *s = l->st[ST_EVENT];
	Ptop__V1__LifecycleEvent *le;
	const char *kind;
	bool fork, present, exec, exit;
	char *argv = NULL;
	int err;

	le = (Ptop__V1__LifecycleEvent *)capture_payload__unpack(
		ev, "lifecycle", &ptop__v1__lifecycle_event__descriptor);
	if (!le && errno == ENOENT)
		return 0;
	if (!le) {
		snprintf(l->run->err, l->run->errlen,
			 "loading %s: a LifecycleEvent does not unpack: the capture is corrupt",
			 l->run->path);
		return -EBADMSG;
	}
	kind = le->kind ? le->kind : "";
	fork = !strcmp(kind, "fork");
	present = !strcmp(kind, "present");
	exec = !strcmp(kind, "exec");
	exit = !strcmp(kind, "exit");
	if ((exec || (present && le->n_argv)) && !(argv = argv_json(le->argv, le->n_argv))) {
		protobuf_c_message_free_unpacked(&le->base, NULL);
		return -ENOMEM;
	}
	bind_cap(l, s);
	bind_u64(s, 2, ev->time_ns);
	bind_text(s, 3, kind);
	bind_u64(s, 4, le->pid);
	if (fork || present)
		bind_u64(s, 5, le->ppid);
	else
		sqlite3_bind_null(s, 5);
	if (present)
		sqlite3_bind_null(s, 6);
	else
		bind_u64(s, 6, le->tid);
	bind_opt_text(s, 7, le->comm && le->comm[0] ? le->comm : NULL);
	bind_opt_text(s, 8, exec ? le->filename : NULL);
	bind_opt_text(s, 9, argv);
	if (argv)
		bind_i64(s, 10, le->argv_truncated);
	else
		sqlite3_bind_null(s, 10);
	if (exec)
		bind_u64(s, 11, le->argc);
	else
		sqlite3_bind_null(s, 11);
	if (exit && le->has_status) {
		if (le->signal) {
			sqlite3_bind_null(s, 12);
			bind_i64(s, 13, le->signal);
		} else {
			bind_i64(s, 12, le->exit_code);
			sqlite3_bind_null(s, 13);
		}
		bind_i64(s, 14, le->core_dumped);
	} else {
		sqlite3_bind_null(s, 12);
		sqlite3_bind_null(s, 13);
		sqlite3_bind_null(s, 14);
	}
	if (exit && le->has_cpu)
		bind_u64(s, 15, le->cpu_ns);
	else
		sqlite3_bind_null(s, 15);
	err = load__step(l, ST_EVENT);
	free(argv);
	protobuf_c_message_free_unpacked(&le->base, NULL);
	return err;
}

const struct an_load lifecycle_load = {
	AN_LOAD_PAYLOADS({
		.payload = PTOP__V1__EVENT__PAYLOAD_COLLECTOR_PAYLOAD,
		.kind = "event:lifecycle",
		.load = load_event,
		.type = "ptop.v1.LifecycleEvent",
		.desc = &ptop__v1__lifecycle_event__descriptor,
	}),
	AN_LOAD_STMTS([ST_EVENT] = event_sql),
	/* per process and kind, times increasing; no interval; CPU never negative */
	AN_LOAD_CHECKS({ "lifecycle_event", true, false, "rowid", "pid,kind", "cpu_ns" }),
};
