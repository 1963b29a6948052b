/* load.c — the syscalls collector's loader (analyze/load.h): each SyscallStat of a
 * SyscallStats event is one syscall_stat row, its latency histogram a JSON array in
 * the row (the view syscall_hist makes it rows), its name from ptop's table for the
 * recording machine.
 */
#include <inttypes.h>
#include <stdio.h>

#include "analyze/load.h"
#include "proto/syscall_table.h"

enum { ST_STAT, ST_N };

struct syscalls_state {
	const struct syscall_table *sc_table; /* of the header's Host.machine; NULL: none */
};

/* Picks the syscall table of the machine that recorded the capture. */
static int start(struct load_ctx *l, const Ptop__V1__CaptureHeader *h)
{
	struct syscalls_state *st = l->state;

	st->sc_table = syscall_table__find(h->host ? h->host->machine : NULL);
	return 0;
}

/* Bind the latency histogram of ST to parameter I (syscall_stat.latency_hist:
 * element i is bucket i, trailing zeros cut), NULL when every bucket is 0.
 * *BUCKETS gets the non-zero buckets: the syscall_hist rows it makes. */
static int bind_hist(struct load_ctx *l, sqlite3_stmt *s, int i, const Ptop__V1__SyscallStat *st,
		     uint64_t *buckets)
{
	size_t n = st->n_latency_log2_hist;

	*buckets = 0;
	while (n && !st->latency_log2_hist[n - 1])
		n--;
	if (!n) {
		sqlite3_bind_null(s, i);
		return 0;
	}
	for (size_t b = 0; b < n; b++)
		*buckets += st->latency_log2_hist[b] != 0;
	return load__bind_json_u64s(l->run, s, i, st->latency_log2_hist, n);
}

static const char stat_sql[] =
	"INSERT INTO syscall_stat (cap, time_ns, interval_ns, pid, nr, name, count, "
	"completed, errors, total_ns, unmatched, latency_hist)";

static int load_syscalls(struct load_ctx *l, const Ptop__V1__Event *ev)
{
	const Ptop__V1__SyscallStats *ss = ev->syscalls;
	const struct syscalls_state *state = l->state;
	sqlite3_stmt *s = l->st[ST_STAT];
	char fallback[24];
	uint64_t buckets;
	int err;

	if (!ss)
		return 0;
	for (size_t k = 0; k < ss->n_stats; k++) {
		const Ptop__V1__SyscallStat *st = ss->stats[k];
		const char *known;

		if (!st)
			continue;
		bind_envelope(l, s, ev, true);
		bind_u64(s, 5, st->nr);
		/* ptop's table for the recording machine names the number, whatever the
		 * recorder's own table knew (a recorder built on older headers stored
		 * "sys_335"); else the recorder's name, else "sys_N" */
		known = syscall_table__name(state->sc_table, st->nr);
		if (known) {
			bind_text(s, 6, known);
		} else if (st->name && *st->name) {
			bind_text(s, 6, st->name);
		} else {
			snprintf(fallback, sizeof(fallback), "sys_%" PRIu32, st->nr);
			sqlite3_bind_text(s, 6, fallback, -1, SQLITE_TRANSIENT);
		}
		bind_u64(s, 7, st->count);
		bind_u64(s, 8, st->completed);
		bind_u64(s, 9, st->errors);
		bind_u64(s, 10, st->total_ns);
		bind_u64(s, 11, st->unmatched);
		err = bind_hist(l, s, 12, st, &buckets);
		if (err)
			return err;
		err = load__step(l, ST_STAT);
		if (err)
			return err;
		l->run->rows += buckets; /* the syscall_hist rows of the view */
	}
	return 0;
}

const struct an_load syscalls_load = {
	AN_LOAD_PAYLOADS({ PTOP__V1__EVENT__PAYLOAD_SYSCALLS, "event:syscalls", load_syscalls }),
	AN_LOAD_STMTS([ST_STAT] = stat_sql),
	.state_size = sizeof(struct syscalls_state),
	.start = start,
	AN_LOAD_CHECKS({ "syscall_stat", true, true, "rowid", "pid, nr",
			 "count,completed,errors,total_ns,unmatched" },
		       { "syscall_hist", false, false, NULL, NULL, "count" }),
};
