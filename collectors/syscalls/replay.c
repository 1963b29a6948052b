/* replay.c — the syscalls collector's replay series (replay.h): syscall_stat per interval end
 * and syscall, whose ends the arrows step through; an interval's latency histograms on demand. */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/report.h"
#include "collectors/syscalls/report.h"
#include "collectors/syscalls/replay.h"
#include "common/array.h"
#include "proto/syscall_table.h"

/* one syscall's buckets in one interval (?1, the capture, bound at open; ?2 unused) */
static const char hist_sql[] = "SELECT bucket, count FROM syscall_hist "
			       "WHERE cap = ?1 AND nr = ?3 AND time_ns = ?4";

static const char *intern_name(struct syscalls_series *r, const char *name, size_t *cap, int *err)
{
	size_t i;

	for (i = 0; i < r->nnames; i++)
		if (!strcmp(r->names[i], name))
			return r->names[i];
	*err = array__grow((void **)&r->names, cap, r->nnames, sizeof(*r->names));
	if (*err)
		return NULL;
	r->names[r->nnames] = strdup(name);
	if (!r->names[r->nnames]) {
		*err = -ENOMEM;
		return NULL;
	}
	return r->names[r->nnames++];
}

static int cmp_sys_nr(const void *pa, const void *pb)
{
	const struct rm_sys *a = pa, *b = pb;

	return a->nr < b->nr ? -1 : a->nr > b->nr;
}

/* add COUNT to bucket B of row S, whose buckets are the last ones in model.hist (moved there when
 * they are not: several pids' rows arrive one after the other, not interleaved) */
static int add_bucket(struct syscalls_series *r, struct rm_sys *s, int b, uint64_t count,
		      size_t *hcap)
{
	uint32_t i;
	int err;

	for (i = 0; i < s->hist_n; i++)
		if (r->hist[s->hist_off + i].bucket == b) {
			r->hist[s->hist_off + i].count += count;
			return 0;
		}
	if (s->hist_n && s->hist_off + s->hist_n != r->nhist) {
		for (i = 0; i < s->hist_n; i++) { /* move its buckets to the end */
			err = array__grow((void **)&r->hist, hcap, r->nhist, sizeof(*r->hist));
			if (err)
				return err;
			r->hist[r->nhist++] = r->hist[s->hist_off + i];
		}
		s->hist_off = (uint32_t)(r->nhist - s->hist_n);
	}
	err = array__grow((void **)&r->hist, hcap, r->nhist, sizeof(*r->hist));
	if (err)
		return err;
	if (!s->hist_n)
		s->hist_off = (uint32_t)r->nhist;
	r->hist[r->nhist++] = (struct rm_bucket){.bucket = (uint8_t)b, .count = count};
	s->hist_n++;
	return 0;
}

/* syscall_stat per (interval end, nr), several pids' rows summed, read in the order of its index
 * (no sort in SQLite). The histograms are read per interval when shown (load_hist). */
static int syscalls_open(struct replay_model *m, void *state)
{
	static const char sql[] =
	    "SELECT time_ns - ?2, interval_ns, nr, name, count, completed, errors, total_ns "
	    "FROM syscall_stat WHERE cap = ?1 ORDER BY time_ns";
	const struct syscall_table *tab =
	    syscall_table__find(m->meta.machine[0] ? m->meta.machine : NULL);
	size_t cap = 0, icap = 0, ncap = 0, i;
	struct syscalls_series *r = state;
	sqlite3_stmt *st = NULL;
	int err, rc;

	r->hist_iv = RM_NULL;
	err = replay_model__prepare(m, sql, &st);
	while (!err && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t t = sqlite3_column_int64(st, 0), nr = sqlite3_column_int64(st, 2);
		const unsigned char *name = sqlite3_column_text(st, 3);
		struct rm_sys_interval *iv;
		struct rm_sys *s = NULL;

		if (!r->nsysi || r->sysi[r->nsysi - 1].t != t) {
			err = array__grow((void **)&r->sysi, &icap, r->nsysi, sizeof(*r->sysi));
			if (err)
				break;
			r->sysi[r->nsysi++] = (struct rm_sys_interval){
			    .t = t, .interval = rm_col(st, 1), .first = r->nsys, .n = 0};
		}
		iv = &r->sysi[r->nsysi - 1];
		for (i = iv->first; i < r->nsys; i++) /* another pid's row of the same syscall */
			if (r->sys[i].nr == nr) {
				s = &r->sys[i];
				break;
			}
		if (!s) {
			err = array__grow((void **)&r->sys, &cap, r->nsys, sizeof(*r->sys));
			if (err)
				break;
			const char *known = nr >= 0 && nr <= UINT32_MAX
						? syscall_table__name(tab, (uint32_t)nr)
						: NULL;

			s = &r->sys[r->nsys++];
			memset(s, 0, sizeof(*s));
			s->nr = nr;
			/* ptop's table names a DB's "sys_335" too, as `report syscalls` does */
			if (!known)
				known = name ? (const char *)name : "?";
			s->name = intern_name(r, known, &ncap, &err);
			s->probe = nr >= 0 && nr <= UINT32_MAX &&
				   syscall_table__is_probe(tab, (uint32_t)nr);
			r->sys_probe |= s->probe;
			if (err)
				break;
			iv->n++;
		}
		s->count += (uint64_t)sqlite3_column_int64(st, 4);
		s->completed += (uint64_t)sqlite3_column_int64(st, 5);
		s->errors += (uint64_t)sqlite3_column_int64(st, 6);
		s->total_ns += (uint64_t)sqlite3_column_int64(st, 7);
	}
	if (!err && rc != SQLITE_DONE)
		err = -EIO;
	sqlite3_finalize(st);
	st = NULL;
	if (err)
		return err;
	for (i = 0; i < r->nsysi; i++)
		if (r->sysi[i].n > 1)
			qsort(r->sys + r->sysi[i].first, r->sysi[i].n, sizeof(*r->sys), cmp_sys_nr);
	/* the histograms' query, run per syscall of the interval shown (load_hist) */
	return replay_model__prepare(m, hist_sql, &r->hist_st);
}

/* read the histograms of interval II (summed over pids) into model.hist, replacing the last */
static int load_hist(const struct replay_model *m, struct syscalls_series *r, size_t ii)
{
	const struct rm_sys_interval *iv = &r->sysi[ii];
	sqlite3_stmt *st = r->hist_st;
	size_t hcap = r->hist_cap, i;
	int err = 0, rc = SQLITE_DONE;

	r->nhist = 0;
	r->hist_iv = RM_NULL;
	for (i = 0; i < iv->n && !err; i++) {
		struct rm_sys *s = &r->sys[iv->first + i];

		s->hist_n = 0;
		sqlite3_reset(st);
		sqlite3_bind_int64(st, 3, s->nr);
		sqlite3_bind_int64(st, 4, iv->t + m->meta.base_ns);
		while (!err && (rc = sqlite3_step(st)) == SQLITE_ROW) {
			int64_t b = sqlite3_column_int64(st, 0);

			if (b < 0 || b >= HIST_BUCKETS)
				continue; /* outside the log2 range of a u64 */
			err =
			    add_bucket(r, s, (int)b, (uint64_t)sqlite3_column_int64(st, 1), &hcap);
		}
		if (!err && rc != SQLITE_DONE)
			err = -EIO;
	}
	sqlite3_reset(st);
	r->hist_cap = hcap;
	if (!err)
		r->hist_iv = (int64_t)ii;
	return err;
}

int syscalls_series__pct(const struct replay_model *m, struct syscalls_series *r,
			 const struct rm_sys *s, unsigned pct, uint64_t *est)
{
	uint64_t h[HIST_BUCKETS] = {0};
	size_t row = (size_t)(s - r->sys), lo = 0, hi = r->nsysi;
	uint32_t i;
	int err;

	if (row >= r->nsys)
		return -EINVAL;
	while (hi - lo > 1) { /* the interval of the row */
		size_t mid = (lo + hi) / 2;

		if (r->sysi[mid].first <= row)
			lo = mid;
		else
			hi = mid;
	}
	if (r->hist_iv != (int64_t)lo) {
		err = load_hist(m, r, lo);
		if (err)
			return err;
	}
	if (!s->hist_n)
		return -ENODATA;
	for (i = 0; i < s->hist_n; i++)
		h[r->hist[s->hist_off + i].bucket] += r->hist[s->hist_off + i].count;
	return hist_percentile(h, HIST_BUCKETS, pct, est, NULL, NULL);
}

static void syscalls_free(void *state)
{
	struct syscalls_series *r = state;
	size_t i;

	for (i = 0; i < r->nnames; i++)
		free(r->names[i]);
	free(r->names);
	free(r->sys);
	free(r->sysi);
	free(r->hist);
	sqlite3_finalize(r->hist_st);
}

static struct rm_times syscalls_ends(const void *state)
{
	const struct syscalls_series *r = state;

	return RM_TIMES(r->sysi, r->nsysi);
}

ssize_t syscalls_series__at(const struct syscalls_series *r, int64_t t)
{
	return rm_times__at(RM_TIMES(r->sysi, r->nsysi), t);
}

const struct replay_series syscalls_replay = {
    .what = "syscall samples",
    .state_size = sizeof(struct syscalls_series),
    .open = syscalls_open,
    .free = syscalls_free,
    .ends = syscalls_ends,
};
