/* replay.c — the memory collector's replay series (replay.h): memory_sample summed per interval
 * end, whose ends the arrows step through. */
#include <stdlib.h>

#include "collectors/memory/replay.h"

static void memory_row(sqlite3_stmt *st, void *element)
{
	struct rm_mem *x = element;

	x->t = sqlite3_column_int64(st, 0);
	x->rss = rm_col(st, 1);
	x->pss = rm_col(st, 2);
	x->uss = rm_col(st, 3);
	x->pss_anon = rm_col(st, 4);
	x->pss_file = rm_col(st, 5);
	x->pss_shmem = rm_col(st, 6);
	x->swap = rm_col(st, 7);
	x->vsize = rm_col(st, 8);
	x->minflt = rm_col(st, 9);
	x->majflt = rm_col(st, 10);
}

static int memory_open(struct replay_model *m, void *state)
{
	/* SUM keeps NULL when every pid's value is NULL: not measured stays not measured */
	static const char sql[] =
	    "SELECT time_ns - ?2, SUM(rss), SUM(pss), SUM(uss), SUM(pss_anon), SUM(pss_file), "
	    "SUM(pss_shmem), SUM(swap), SUM(vsize), SUM(minflt), SUM(majflt) FROM memory_sample "
	    "WHERE cap = ?1 GROUP BY time_ns ORDER BY time_ns";
	struct memory_series *r = state;

	return replay_model__read(m, sql, &r->s, &r->n, sizeof(*r->s), memory_row);
}

static void memory_free(void *state)
{
	free(((struct memory_series *)state)->s);
}

static struct rm_times memory_ends(const void *state)
{
	const struct memory_series *r = state;

	return RM_TIMES(r->s, r->n);
}

ssize_t memory_series__at(const struct memory_series *r, int64_t t)
{
	return rm_times__at(RM_TIMES(r->s, r->n), t);
}

const struct replay_series memory_replay = {
    .what = "memory samples",
    .state_size = sizeof(struct memory_series),
    .open = memory_open,
    .free = memory_free,
    .ends = memory_ends,
};
