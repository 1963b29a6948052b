/* replay.c — the heap collector's replay series (replay.h): heap_snapshot summed per interval
 * end, whose ends the arrows step through; one snapshot's call sites, cached. */
#include <errno.h>
#include <stdlib.h>

#include "analyze/report.h"
#include "collectors/heap/report.h"
#include "collectors/heap/replay.h"
#include "common/array.h"

static int heap_open(struct replay_model *m, void *state)
{
	static const char sql[] =
	    "SELECT time_ns - ?2, MAX(interval_ns), SUM(alloc_count), SUM(alloc_bytes), "
	    "SUM(live_bytes), SUM(leak_bytes), MAX(lane), MAX(sample_bytes) FROM heap_snapshot "
	    "WHERE cap = ?1 "
	    "GROUP BY time_ns ORDER BY time_ns";
	struct heap_series *r = state;
	sqlite3_stmt *st = NULL;
	size_t cap = 0;
	int err, rc;

	r->sites_hi = RM_NULL;
	if (replay_model__prepare(m, sql, &st))
		return 0; /* a DB from before the heap collector: nothing to show */
	err = 0;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct rm_heap *h;

		err = array__grow((void **)&r->s, &cap, r->n, sizeof(*r->s));
		if (err)
			break;
		h = &r->s[r->n++];
		h->t = sqlite3_column_int64(st, 0);
		h->interval = rm_col(st, 1);
		h->alloc_count = rm_col(st, 2);
		h->alloc_bytes = rm_col(st, 3);
		h->live_bytes = rm_col(st, 4);
		h->leak_bytes = rm_col(st, 5);
		rm_col_str(st, 6, h->lane, sizeof(h->lane));
		h->sample_bytes = rm_col(st, 7);
	}
	if (!err && rc != SQLITE_DONE)
		err = -EIO;
	sqlite3_finalize(st);
	return err;
}

int heap_series__sites(const struct replay_model *m, struct heap_series *r, size_t hi,
		       struct heap_sites **iv, struct heap_sites **hist)
{
	struct window w = {0};
	int err;

	if (hi >= r->n)
		return -EINVAL;
	if (r->sites_hi != (int64_t)hi || !r->sites_iv || !r->sites_hist) {
		heap_sites__free(r->sites_iv);
		heap_sites__free(r->sites_hist);
		r->sites_iv = r->sites_hist = NULL;
		r->sites_hi = RM_NULL;
		/* a snapshot is in a window when its midpoint is: [t - interval, t] holds
		 * this one only, [.., t] every one up to it */
		w.has_end = true;
		w.end_ns = r->s[hi].t + 1;
		err = heap_sites__load(m->db, &m->meta, &w, true, &r->sites_hist);
		if (err)
			return err;
		w.has_start = true;
		w.start_ns = r->s[hi].t - (r->s[hi].interval > 0 ? r->s[hi].interval : 0);
		err = heap_sites__load(m->db, &m->meta, &w, false, &r->sites_iv);
		if (err)
			return err;
		r->sites_hi = (int64_t)hi;
	}
	*iv = r->sites_iv;
	*hist = r->sites_hist;
	return 0;
}

static void heap_free(void *state)
{
	struct heap_series *r = state;

	free(r->s);
	heap_sites__free(r->sites_iv);
	heap_sites__free(r->sites_hist);
}

static struct rm_times heap_ends(const void *state)
{
	const struct heap_series *r = state;

	return RM_TIMES(r->s, r->n);
}

ssize_t heap_series__at(const struct heap_series *r, int64_t t)
{
	return rm_times__at(RM_TIMES(r->s, r->n), t);
}

const struct replay_series heap_replay = {
    .what = "heap snapshots",
    .state_size = sizeof(struct heap_series),
    .open = heap_open,
    .free = heap_free,
    .ends = heap_ends,
};
