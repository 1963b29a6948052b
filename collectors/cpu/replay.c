/* replay.c — the cpu collector's replay series (replay.h): cpu_sample summed per interval end,
 * whose ends the arrows step through. */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>

#include "collectors/cpu/replay.h"

static void cpu_row(sqlite3_stmt *st, void *element)
{
	struct rm_cpu *c = element;

	c->t = sqlite3_column_int64(st, 0);
	c->interval = rm_col(st, 1);
	c->oncpu = rm_col(st, 2);
	c->user = rm_col(st, 3);
	c->system = rm_col(st, 4);
	c->threads = rm_col(st, 5);
}

/* the CPU series, summed over the target's pids per interval end */
static int cpu_open(struct replay_model *m, void *state)
{
	static const char sql[] =
	    "SELECT time_ns - ?2, MAX(interval_ns), SUM(oncpu_ns), "
	    /* a cgroup capture's user and system time are its cpu.stat lane's */
	    "SUM(COALESCE(user_ns, cg_user_ns)), SUM(COALESCE(system_ns, cg_system_ns)), "
	    "SUM(threads) FROM cpu_sample WHERE cap = ?1 GROUP BY time_ns ORDER BY time_ns";
	struct cpu_series *r = state;

	return replay_model__read(m, sql, &r->s, &r->n, sizeof(*r->s), cpu_row);
}

static void cpu_free(void *state)
{
	free(((struct cpu_series *)state)->s);
}

static struct rm_times cpu_ends(const void *state)
{
	const struct cpu_series *c = state;

	return RM_TIMES(c->s, c->n);
}

ssize_t cpu_series__at(const struct cpu_series *c, int64_t t)
{
	return rm_times__at(RM_TIMES(c->s, c->n), t);
}

double cpu_series__pct(const struct replay_model *m, const struct cpu_series *r, size_t i)
{
	const struct rm_cpu *c = &r->s[i];
	int64_t iv = c->interval > 0 ? c->interval : m->interval_ns;

	if (c->oncpu >= 0)
		return 100.0 * (double)c->oncpu / (double)iv;
	if (c->user >= 0 && c->system >= 0)
		return 100.0 * (double)(c->user + c->system) / (double)iv;
	return NAN;
}

const struct replay_series cpu_replay = {
    .what = "cpu samples",
    .state_size = sizeof(struct cpu_series),
    .open = cpu_open,
    .free = cpu_free,
    .ends = cpu_ends,
};
