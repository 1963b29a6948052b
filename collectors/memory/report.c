/* report.c — `report mem`: RSS/PSS/USS and the PSS composition, first/min/max/last, growth
 * per minute and PSS/RSS; how many samples the smaps budget let read (coverage); and, when the
 * heap collector measured live bytes, the live heap set beside the anonymous PSS over time, with
 * the gap between them named ("RSS grew but did the heap?").
 */
#include "analyze/report.h"
#include "analyze/figures.h"
#include "common/array.h"
#include "collectors/memory/report.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The figures, as memory_sample columns. */
static const struct {
	const char *name; /* column and JSON key */
	const char *what; /* for the man page and the text footnote */
} metric[] = {
    {"rss", "smaps_rollup Rss"},
    {"pss", "smaps_rollup Pss"},
    {"uss", "smaps_rollup Private_Clean + Private_Dirty"},
    {"anon", "smaps_rollup Anonymous"},
    {"pss_anon", "smaps_rollup Pss_Anon"},
    {"pss_file", "smaps_rollup Pss_File"},
    {"pss_shmem", "smaps_rollup Pss_Shmem"},
    {"swap", "smaps_rollup Swap"},
    {"swap_pss", "smaps_rollup SwapPss"},
    {"statm_rss", "statm resident"},
    {"vsize", "statm size"},
};
#define METRICS (sizeof(metric) / sizeof(metric[0]))

/* One row per sample time; in cgroup mode the pids' figures add up. */
static const char mem_sql[] =
    "SELECT time_ns, SUM(rss), SUM(pss), SUM(uss), SUM(anon), SUM(pss_anon), "
    "SUM(pss_file), SUM(pss_shmem), SUM(swap), SUM(swap_pss), SUM(statm_rss), SUM(vsize), "
    "SUM(minflt), SUM(majflt), MAX(rollup_skipped), SUM(smaps_spent_ns), MAX(smaps_budget_ns) "
    "FROM memory_sample WHERE cap = ?1 "
    "AND time_ns BETWEEN ?2 AND ?3 GROUP BY time_ns ORDER BY time_ns";

enum { M_RSS = 0, M_PSS = 1, M_PSS_ANON = 4 }; /* indexes into metric[] */

struct mem_row {
	int64_t time_ns;
	int64_t v[METRICS];	/* -1: not measured */
	int64_t minflt, majflt; /* -1: not measured */
	int64_t skipped;	/* rollup_skipped: 1, 0, or -1 (no budget group) */
	int64_t spent_ns;	/* smaps reads in the interval; -1: no budget group */
	int64_t budget_ns;	/* -1: no budget group */
	int64_t heap_live;	/* live heap bytes at the same time; -1: none measured */
};

/* The heap collectors' snapshots of the window, as report mem sets them beside PSS. */
struct heap_side {
	size_t snaps;	       /* heap_snapshot times in the window */
	size_t measured;       /* of which live bytes were measured */
	char lanes[64];	       /* their lanes, comma-separated */
	size_t pairs;	       /* samples with both live heap and pss_anon */
	struct mem_row *first; /* the first and last such sample */
	struct mem_row *last;
	/* the last VMA snapshot of the window: PSS of [heap] and anonymous mappings */
	int64_t vma_t, vma_pss, vma_live; /* -1: none */
};

struct mem_stat {
	uint64_t samples;
	int64_t first, min, max, last;
	int64_t t_first, t_last, t_max;
	bool has_growth;
	int64_t growth; /* bytes per minute */
	int64_t max_spread, last_spread; /* fig_series */
};

static int load_rows(sqlite3 *db, const struct capture_meta *m, const struct window *w,
		     struct mem_row **out, size_t *n)
{
	struct mem_row *rows = NULL, *r;
	size_t nr = 0, cap = 0, k;
	sqlite3_stmt *st = NULL;
	int64_t lo, hi;
	int err = 0, rc;

	window__bounds(w, m, &lo, &hi);
	if (report__prepare_at(db, mem_sql, m, lo, hi, &st)) {
		err = -EIO;
		goto cleanup;
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (array__grow((void **)&rows, &cap, nr, sizeof(*rows))) {
			err = -ENOMEM;
			goto cleanup;
		}
		r = &rows[nr++];
		r->time_ns = sqlite3_column_int64(st, 0);
		for (k = 0; k < METRICS; k++)
			r->v[k] = report__col(st, 1 + (int)k, -1);
		r->minflt = report__col(st, 1 + METRICS, -1);
		r->majflt = report__col(st, 2 + METRICS, -1);
		r->skipped = report__col(st, 3 + METRICS, -1);
		r->spent_ns = report__col(st, 4 + METRICS, -1);
		r->budget_ns = report__col(st, 5 + METRICS, -1);
		r->heap_live = -1;
	}
	if (rc != SQLITE_DONE) {
		err = -EIO;
		goto cleanup;
	}
	*out = rows;
	*n = nr;
	rows = NULL;
cleanup:
	sqlite3_finalize(st);
	free(rows);
	return err;
}

/* ptop's own memory in the target (memory_sample.probe_*: the preload lane's memfd), kept out
 * of every figure above: probe overhead, shown apart (DESIGN.md principle 9). */
struct probe_mem {
	int64_t samples;	   /* samples that measured it; 0: none mapped (or an old capture) */
	int64_t rss, pss, uss;	   /* at their largest */
	int64_t rss_last, pss_last; /* at the last sample */
};

static int load_probe(sqlite3 *db, const struct capture_meta *m, const struct window *w,
		      struct probe_mem *pm)
{
	static const char sql[] =
	    "SELECT COUNT(probe_rss), MAX(probe_rss), MAX(probe_pss), MAX(probe_uss), "
	    "(SELECT SUM(probe_rss) FROM memory_sample WHERE cap = ?1 AND time_ns = MAX(s.time_ns)), "
	    "(SELECT SUM(probe_pss) FROM memory_sample WHERE cap = ?1 AND time_ns = MAX(s.time_ns)) "
	    "FROM memory_sample s WHERE cap = ?1 AND time_ns BETWEEN ?2 AND ?3 "
	    "AND probe_rss IS NOT NULL";
	sqlite3_stmt *st = NULL;
	int64_t lo, hi;
	int err = 0;

	memset(pm, 0, sizeof(*pm));
	window__bounds(w, m, &lo, &hi);
	if (report__prepare_at(db, sql, m, lo, hi, &st))
		return -EIO;
	if (sqlite3_step(st) == SQLITE_ROW) {
		pm->samples = sqlite3_column_int64(st, 0);
		pm->rss = report__col(st, 1, -1);
		pm->pss = report__col(st, 2, -1);
		pm->uss = report__col(st, 3, -1);
		pm->rss_last = report__col(st, 4, -1);
		pm->pss_last = report__col(st, 5, -1);
	} else {
		err = -EIO;
	}
	sqlite3_finalize(st);
	return err;
}

static void print_probe_text(const struct probe_mem *pm, FILE *out)
{
	char a[32], b[32], c[32];

	if (!pm->samples)
		return;
	fprintf(out,
		"\nprobe overhead (ptop's own mappings in the target: the heap preload lane's memfd),\n"
		"not in the figures above: RSS %s, PSS %s, USS %s at their largest (%" PRId64
		" samples)\n",
		fmt_bytes(a, sizeof(a), (uint64_t)pm->rss), fmt_bytes(b, sizeof(b), (uint64_t)pm->pss),
		fmt_bytes(c, sizeof(c), (uint64_t)pm->uss), pm->samples);
}

static void json_probe(struct json *j, const struct probe_mem *pm)
{
	if (!pm->samples)
		return; /* none mapped: no key, as in captures from before it was measured */
	json__key(j, "probe_overhead");
	json__begin_object(j);
	json__kv_int(j, "samples", pm->samples);
	report__json_opt_int(j, "rss_max", pm->rss);
	report__json_opt_int(j, "pss_max", pm->pss);
	report__json_opt_int(j, "uss_max", pm->uss);
	report__json_opt_int(j, "rss_last", pm->rss_last);
	report__json_opt_int(j, "pss_last", pm->pss_last);
	json__end_object(j);
}

/* The live heap of each heap snapshot time in the window (lanes summed), set on the sample of
 * the same time (both are taken at the same poll); the heap side's counts. 0 or -EIO. */
static int load_heap(sqlite3 *db, const struct capture_meta *m, const struct window *w,
		     struct mem_row *rows, size_t n, struct heap_side *h)
{
	static const char sql[] =
	    "SELECT time_ns, SUM(live_bytes), MIN(live_measured), GROUP_CONCAT(DISTINCT lane) "
	    "FROM heap_snapshot WHERE cap = ?1 AND time_ns BETWEEN ?2 AND ?3 "
	    "GROUP BY time_ns ORDER BY time_ns";
	static const char vma_sql[] =
	    "SELECT s.time_ns, SUM(v.pss) FROM vma_snapshot s JOIN vma v "
	    "ON v.cap = s.cap AND v.snapshot_id = s.snapshot_id "
	    "WHERE s.cap = ?1 AND s.time_ns BETWEEN ?2 AND ?3 AND s.snapshot_id = "
	    "(SELECT MAX(snapshot_id) FROM vma_snapshot WHERE cap = ?1 AND time_ns BETWEEN ?2 AND ?3) "
	    "AND (v.path IS NULL OR v.path = '' OR v.path = '[heap]' OR v.path LIKE '[anon:%') "
	    "GROUP BY s.time_ns";
	sqlite3_stmt *st = NULL;
	size_t i = 0;
	int64_t lo, hi;
	int err = 0, rc;

	memset(h, 0, sizeof(*h));
	h->vma_t = h->vma_pss = h->vma_live = -1;
	window__bounds(w, m, &lo, &hi);
	if (report__prepare_at(db, sql, m, lo, hi, &st))
		return -EIO;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t t = sqlite3_column_int64(st, 0), live = report__col(st, 1, -1);
		const char *lanes = (const char *)sqlite3_column_text(st, 3);
		bool measured = sqlite3_column_int64(st, 2) != 0 && live >= 0;

		h->snaps++;
		if (lanes && !strstr(h->lanes, lanes) &&
		    strlen(h->lanes) + strlen(lanes) + 3 < sizeof(h->lanes))
			snprintf(h->lanes + strlen(h->lanes), sizeof(h->lanes) - strlen(h->lanes),
				 "%s%s", h->lanes[0] ? ", " : "", lanes);
		if (!measured)
			continue;
		h->measured++;
		while (i < n && rows[i].time_ns < t)
			i++;
		if (i < n && rows[i].time_ns == t)
			rows[i].heap_live = live;
	}
	if (rc != SQLITE_DONE)
		err = -EIO;
	sqlite3_finalize(st);
	if (err || !h->measured)
		return err;
	for (i = 0; i < n; i++) {
		if (rows[i].heap_live < 0 || rows[i].v[M_PSS_ANON] < 0)
			continue;
		if (!h->pairs++)
			h->first = &rows[i];
		h->last = &rows[i];
	}
	/* the last VMA snapshot: [heap] + anonymous mappings, and the live heap at or before it */
	if (report__prepare_at(db, vma_sql, m, lo, hi, &st))
		return -EIO;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		h->vma_t = sqlite3_column_int64(st, 0);
		h->vma_pss = report__col(st, 1, -1);
	} else if (rc != SQLITE_DONE) {
		err = -EIO;
	}
	sqlite3_finalize(st);
	h->vma_live = -1;
	for (i = 0; i < n && h->vma_t >= 0; i++)
		if (rows[i].heap_live >= 0 && rows[i].time_ns <= h->vma_t)
			h->vma_live = rows[i].heap_live;
	return err;
}

/* PSS / RSS of a sample; NAN when either is not measured or RSS is 0. */
static double pss_rss(const struct mem_row *r)
{
	if (r->v[M_PSS] < 0 || r->v[M_RSS] <= 0)
		return NAN;
	return (double)r->v[M_PSS] / (double)r->v[M_RSS];
}

struct ratio_stat {
	size_t samples;
	double first, min, max, last;
};

static void ratio_summarize(const struct mem_row *rows, size_t n, struct ratio_stat *s)
{
	memset(s, 0, sizeof(*s));
	for (size_t i = 0; i < n; i++) {
		double v = pss_rss(&rows[i]);

		if (isnan(v))
			continue;
		if (!s->samples++)
			s->first = s->min = s->max = v;
		s->min = v < s->min ? v : s->min;
		s->max = v > s->max ? v : s->max;
		s->last = v;
	}
}

/* How many samples read smaps_rollup, how many the budget skipped, and what the reads cost. */
struct coverage {
	size_t read, skipped, budgeted; /* budgeted: samples with a budget group */
	int64_t budget_ns;		/* the largest budget seen; -1: none */
	int64_t spent_ns, max_spent_ns;
};

static void coverage_of(const struct mem_row *rows, size_t n, struct coverage *c)
{
	memset(c, 0, sizeof(*c));
	c->budget_ns = -1;
	for (size_t i = 0; i < n; i++) {
		if (rows[i].v[M_RSS] >= 0)
			c->read++;
		if (rows[i].skipped > 0)
			c->skipped++;
		if (rows[i].budget_ns < 0)
			continue;
		c->budgeted++;
		c->budget_ns = rows[i].budget_ns > c->budget_ns ? rows[i].budget_ns : c->budget_ns;
		if (rows[i].spent_ns >= 0) {
			c->spent_ns += rows[i].spent_ns;
			if (rows[i].spent_ns > c->max_spent_ns)
				c->max_spent_ns = rows[i].spent_ns;
		}
	}
}

static void print_coverage_text(const struct coverage *c, size_t n, FILE *out)
{
	char b1[32], b2[32], b3[32];

	fprintf(out, "smaps coverage: %zu of %zu samples read smaps_rollup", c->read, n);
	if (c->budget_ns >= 0)
		fprintf(out, ", %zu skipped by the smaps budget (%s per interval)", c->skipped,
			fmt_ns(b1, sizeof(b1), (uint64_t)c->budget_ns));
	else
		fprintf(out, " (no smaps budget recorded)");
	if (c->read + c->skipped < n)
		fprintf(out, ", %zu unread (see the drops)", n - c->read - c->skipped);
	fputc('\n', out);
	if (c->budget_ns >= 0)
		fprintf(out, "smaps reads (they hold the target's mmap lock): %s in all, at most %s "
			     "in one interval\n",
			fmt_ns(b2, sizeof(b2), (uint64_t)c->spent_ns),
			fmt_ns(b3, sizeof(b3), (uint64_t)c->max_spent_ns));
}

/* The reconcile's verdict: did the heap grow with the anonymous PSS? */
static const char *heap_verdict(const struct heap_side *h, int64_t *d_anon, int64_t *d_live)
{
	*d_anon = h->last->v[M_PSS_ANON] - h->first->v[M_PSS_ANON];
	*d_live = h->last->heap_live - h->first->heap_live;
	if (h->pairs < 2)
		return "one sample: nothing to compare over time";
	if (*d_anon < (1 << 20) && *d_anon > -(1 << 20))
		return "anonymous PSS held within 1 MiB";
	if (*d_anon < 0)
		return "anonymous PSS shrank";
	if (*d_live >= *d_anon / 2)
		return "the heap grew: live heap bytes account for most of the anonymous PSS growth";
	return "RSS grew but the heap did not: most of the anonymous PSS growth is not in live "
	       "allocations (memory the allocator keeps after frees, fragmentation, or anonymous "
	       "mappings outside the heap)";
}

static void print_heap_text(const struct heap_side *h, const struct capture_meta *m, FILE *out)
{
	char b1[32], b2[32], b3[32], b4[32], c1[32], c2[32];
	int64_t d_anon, d_live;
	const char *v;

	if (!h->snaps)
		return;
	fprintf(out, "\nheap vs memory:\n");
	if (!h->measured) {
		fprintf(out,
			"  live heap bytes not measured (lane %s: frees are not seen), so the heap "
			"cannot be set\n  beside PSS; `report heap` has the bytes allocated per "
			"interval\n",
			h->lanes[0] ? h->lanes : "unknown");
		return;
	}
	if (!h->pairs) {
		fprintf(out, "  no sample has both live heap bytes and Pss_Anon\n");
		return;
	}
	v = heap_verdict(h, &d_anon, &d_live);
	fprintf(out, "  %-28s %12s -> %-12s (%s)\n", "live heap",
		fmt_bytes(b1, sizeof(b1), (uint64_t)h->first->heap_live),
		fmt_bytes(b2, sizeof(b2), (uint64_t)h->last->heap_live),
		fmt_bytes_signed(b3, sizeof(b3), d_live));
	fprintf(out, "  %-28s %12s -> %-12s (%s)\n", "anonymous PSS (Pss_Anon)",
		fmt_bytes(b1, sizeof(b1), (uint64_t)h->first->v[M_PSS_ANON]),
		fmt_bytes(b2, sizeof(b2), (uint64_t)h->last->v[M_PSS_ANON]),
		fmt_bytes_signed(b3, sizeof(b3), d_anon));
	fprintf(out, "  %-28s %12s -> %-12s (%s)\n", "gap: anonymous PSS - live",
		fmt_bytes_signed(b1, sizeof(b1), h->first->v[M_PSS_ANON] - h->first->heap_live),
		fmt_bytes_signed(b2, sizeof(b2), h->last->v[M_PSS_ANON] - h->last->heap_live),
		fmt_bytes_signed(b4, sizeof(b4), d_anon - d_live));
	fprintf(out, "  from %s s to %s s, %zu samples with both (lane %s)\n",
		fmt_secs(c1, sizeof(c1), h->first->time_ns - m->base_ns),
		fmt_secs(c2, sizeof(c2), h->last->time_ns - m->base_ns), h->pairs, h->lanes);
	if (h->vma_pss >= 0 && h->vma_live >= 0)
		fprintf(out, "  at the last VMA snapshot (%s s): [heap] + anonymous mappings PSS %s,\n"
			     "  live heap %s, gap %s\n",
			fmt_secs(c1, sizeof(c1), h->vma_t - m->base_ns),
			fmt_bytes(b1, sizeof(b1), (uint64_t)h->vma_pss),
			fmt_bytes(b2, sizeof(b2), (uint64_t)h->vma_live),
			fmt_bytes_signed(b3, sizeof(b3), h->vma_pss - h->vma_live));
	fprintf(out, "  %s\n", v);
	fprintf(out, "  The gap is anonymous memory not in live allocations: what the allocator "
		     "keeps after frees,\n  fragmentation and its own metadata, thread stacks and "
		     "other anonymous mappings.\n");
}

static void json_heap(struct json *j, const struct heap_side *h)
{
	int64_t d_anon, d_live;

	json__key(j, "heap");
	if (!h->snaps) {
		json__null(j);
		return;
	}
	json__begin_object(j);
	json__kv_string(j, "lanes", h->lanes);
	json__kv_bool(j, "live_measured", h->measured > 0);
	json__kv_int(j, "samples_with_both", (int64_t)h->pairs);
	if (h->measured && h->pairs) {
		const char *v = heap_verdict(h, &d_anon, &d_live);

		json__kv_int(j, "live_first", h->first->heap_live);
		json__kv_int(j, "live_last", h->last->heap_live);
		json__kv_int(j, "pss_anon_first", h->first->v[M_PSS_ANON]);
		json__kv_int(j, "pss_anon_last", h->last->v[M_PSS_ANON]);
		json__kv_int(j, "gap_first", h->first->v[M_PSS_ANON] - h->first->heap_live);
		json__kv_int(j, "gap_last", h->last->v[M_PSS_ANON] - h->last->heap_live);
		json__kv_string(j, "verdict", v);
	}
	if (h->vma_pss >= 0 && h->vma_live >= 0) {
		json__kv_int(j, "vma_heap_anon_pss", h->vma_pss);
		json__kv_int(j, "vma_live", h->vma_live);
	}
	json__end_object(j);
}

static void summarize(const struct mem_row *rows, size_t n, size_t k, struct mem_stat *s)
{
	struct fig_series fs = {0};
	size_t i;

	memset(s, 0, sizeof(*s));
	for (i = 0; i < n; i++) {
		int64_t v = rows[i].v[k];

		if (v < 0)
			continue;
		fig_series__add(&fs, (double)v);
		if (!s->samples++) {
			s->first = s->min = s->max = v;
			s->t_first = s->t_max = rows[i].time_ns;
		}
		if (v < s->min)
			s->min = v;
		if (v > s->max) {
			s->max = v;
			s->t_max = rows[i].time_ns;
		}
		s->last = v;
		s->t_last = rows[i].time_ns;
	}
	if (s->samples >= 2)
		s->has_growth =
		    growth_per_minute(s->first, s->last, s->t_first, s->t_last, &s->growth);
	s->max_spread = (int64_t)fs.peak_spread;
	s->last_spread = (int64_t)fs.last_spread;
}

static int print_summary_text(const struct mem_row *rows, size_t n, FILE *out)
{
	static const char *const cols[] = {"figure", "first",	   "min",    "max",
					   "last",   "growth/min", "samples"};
	struct table *t = table__new(7, cols);
	struct ratio_stat r;
	struct mem_stat s;
	char buf[32];
	size_t k;
	int err = 0;

	if (!t)
		return -ENOMEM;
	for (k = 0; k < METRICS && !err; k++) {
		summarize(rows, n, k, &s);
		err = table__add_row(t);
		err = err ?: table__set_text(t, 0, metric[k].name);
		err = err ?: table__set_int(t, 6, (int64_t)s.samples, NULL);
		if (err || !s.samples)
			continue; /* not measured: "-" */
		err = table__set_int(t, 1, s.first, fmt_bytes(buf, sizeof(buf), (uint64_t)s.first));
		err = err
			  ?: table__set_int(t, 2, s.min,
					    fmt_bytes(buf, sizeof(buf), (uint64_t)s.min));
		err = err
			  ?: table__set_int(t, 3, s.max,
					    fmt_bytes(buf, sizeof(buf), (uint64_t)s.max));
		err = err
			  ?: table__set_int(t, 4, s.last,
					    fmt_bytes(buf, sizeof(buf), (uint64_t)s.last));
		if (!err && s.has_growth)
			err = table__set_int(t, 5, s.growth,
					     fmt_bytes_signed(buf, sizeof(buf), s.growth));
	}
	ratio_summarize(rows, n, &r);
	err = err ?: table__add_row(t);
	err = err ?: table__set_text(t, 0, "pss/rss");
	err = err ?: table__set_int(t, 6, (int64_t)r.samples, NULL);
	if (!err && r.samples) {
		const double v[4] = {r.first, r.min, r.max, r.last};

		for (k = 0; k < 4 && !err; k++) {
			snprintf(buf, sizeof(buf), "%.3f", v[k]);
			err = table__set_real(t, 1 + k, v[k], buf);
		}
	}
	err = err ?: table__print(t, out, OUT_TEXT);
	table__free(t);
	return err;
}

static int print_series_csv(const struct mem_row *rows, size_t n, const struct capture_meta *m,
			    FILE *out)
{
	const char *cols[1 + METRICS + 8];
	struct table *t;
	size_t i, k;
	int err = 0;

	cols[0] = "t_s";
	for (k = 0; k < METRICS; k++)
		cols[1 + k] = metric[k].name;
	cols[1 + METRICS] = "minflt";
	cols[2 + METRICS] = "majflt";
	cols[3 + METRICS] = "pss_rss";
	cols[4 + METRICS] = "rollup_skipped";
	cols[5 + METRICS] = "smaps_spent_ns";
	cols[6 + METRICS] = "heap_live";
	cols[7 + METRICS] = "heap_gap";
	t = table__new(8 + METRICS, cols);
	if (!t)
		return -ENOMEM;
	for (i = 0; i < n && !err; i++) {
		err = table__add_row(t);
		err =
		    err
			?: table__set_real(
			       t, 0,
			       (double)llround((double)(rows[i].time_ns - m->base_ns) / 1e6) / 1000,
			       NULL);
		for (k = 0; k < METRICS && !err; k++)
			if (rows[i].v[k] >= 0)
				err = table__set_int(t, 1 + k, rows[i].v[k], NULL);
		if (!err && rows[i].minflt >= 0)
			err = table__set_int(t, 1 + METRICS, rows[i].minflt, NULL);
		if (!err && rows[i].majflt >= 0)
			err = table__set_int(t, 2 + METRICS, rows[i].majflt, NULL);
		if (!err)
			err = table__set_real(t, 3 + METRICS, round(pss_rss(&rows[i]) * 1e4) / 1e4,
					      NULL);
		if (!err && rows[i].skipped >= 0)
			err = table__set_int(t, 4 + METRICS, rows[i].skipped, NULL);
		if (!err && rows[i].spent_ns >= 0)
			err = table__set_int(t, 5 + METRICS, rows[i].spent_ns, NULL);
		if (!err && rows[i].heap_live >= 0)
			err = table__set_int(t, 6 + METRICS, rows[i].heap_live, NULL);
		if (!err && rows[i].heap_live >= 0 && rows[i].v[M_PSS_ANON] >= 0)
			err = table__set_int(t, 7 + METRICS,
					     rows[i].v[M_PSS_ANON] - rows[i].heap_live, NULL);
	}
	err = err ?: table__print(t, out, OUT_CSV);
	table__free(t);
	return err;
}

static void print_json_body(struct json *j, const struct mem_row *rows, size_t n,
			    const struct capture_meta *m, const struct heap_side *h)
{
	int64_t minflt = -1, majflt = -1;
	struct ratio_stat r;
	struct coverage c;
	struct mem_stat s;
	size_t i, k;

	json__kv_int(j, "samples", (int64_t)n);
	json__key(j, "summary");
	json__begin_object(j);
	for (k = 0; k < METRICS; k++) {
		summarize(rows, n, k, &s);
		json__key(j, metric[k].name);
		json__begin_object(j);
		json__kv_string(j, "source", metric[k].what);
		json__kv_int(j, "samples", (int64_t)s.samples);
		if (s.samples) {
			json__kv_int(j, "first", s.first);
			json__kv_int(j, "min", s.min);
			json__kv_int(j, "max", s.max);
			json__kv_int(j, "last", s.last);
		} else {
			json__kv_null(j, "first");
			json__kv_null(j, "min");
			json__kv_null(j, "max");
			json__kv_null(j, "last");
		}
		json__key(j, "growth_per_min");
		if (s.has_growth)
			json__int(j, s.growth);
		else
			json__null(j);
		json__end_object(j);
	}
	ratio_summarize(rows, n, &r);
	json__key(j, "pss_rss");
	json__begin_object(j);
	json__kv_int(j, "samples", (int64_t)r.samples);
	json__kv_real(j, "first", r.samples ? r.first : NAN);
	json__kv_real(j, "min", r.samples ? r.min : NAN);
	json__kv_real(j, "max", r.samples ? r.max : NAN);
	json__kv_real(j, "last", r.samples ? r.last : NAN);
	json__end_object(j);
	json__end_object(j);
	coverage_of(rows, n, &c);
	json__key(j, "coverage");
	json__begin_object(j);
	json__kv_int(j, "samples", (int64_t)n);
	json__kv_int(j, "rollup_read", (int64_t)c.read);
	json__kv_int(j, "rollup_skipped", (int64_t)c.skipped);
	report__json_opt_int(j, "budget_ns", c.budget_ns);
	report__json_opt_int(j, "spent_ns", c.budget_ns >= 0 ? c.spent_ns : -1);
	report__json_opt_int(j, "max_spent_ns", c.budget_ns >= 0 ? c.max_spent_ns : -1);
	json__end_object(j);
	json_heap(j, h);
	for (i = 0; i < n; i++) {
		if (rows[i].minflt >= 0)
			minflt = (minflt < 0 ? 0 : minflt) + rows[i].minflt;
		if (rows[i].majflt >= 0)
			majflt = (majflt < 0 ? 0 : majflt) + rows[i].majflt;
	}
	json__key(j, "faults");
	json__begin_object(j);
	report__json_opt_int(j, "minor", minflt);
	report__json_opt_int(j, "major", majflt);
	json__end_object(j);
	json__key(j, "series");
	json__begin_array(j);
	for (i = 0; i < n; i++) {
		json__begin_object(j);
		json__kv_real(j, "t_s",
			      (double)llround((double)(rows[i].time_ns - m->base_ns) / 1e6) / 1000);
		for (k = 0; k < METRICS; k++)
			report__json_opt_int(j, metric[k].name, rows[i].v[k]);
		report__json_opt_int(j, "minflt", rows[i].minflt);
		report__json_opt_int(j, "majflt", rows[i].majflt);
		json__kv_real(j, "pss_rss", round(pss_rss(&rows[i]) * 1e4) / 1e4);
		json__key(j, "rollup_skipped");
		if (rows[i].skipped >= 0)
			json__bool(j, rows[i].skipped > 0);
		else
			json__null(j);
		report__json_opt_int(j, "smaps_spent_ns", rows[i].spent_ns);
		report__json_opt_int(j, "heap_live", rows[i].heap_live);
		report__json_opt_int(j, "heap_gap", rows[i].heap_live >= 0 && rows[i].v[M_PSS_ANON] >= 0
					    ? rows[i].v[M_PSS_ANON] - rows[i].heap_live
					    : -1);
		json__end_object(j);
	}
	json__end_array(j);
}

static int mem_body(const struct report_ctx *ctx)
{
	sqlite3 *db = ctx->db;
	const struct report_opts *o = ctx->o;
	FILE *out = ctx->out;
	const struct capture_meta m = *ctx->m;
	struct json *j = ctx->j;
	struct mem_row *rows = NULL;
	struct heap_side heap;
	struct probe_mem pm;
	struct coverage cov;
	size_t n = 0, i;
	int64_t minflt = -1, majflt = -1;
	char w[96], c1[32], c2[32];
	int err;

	err = load_rows(db, &m, &o->win, &rows, &n);
	err = err ?: load_heap(db, &m, &o->win, rows, n, &heap);
	err = err ?: load_probe(db, &m, &o->win, &pm);
	if (err)
		goto cleanup;
	coverage_of(rows, n, &cov);
	switch (o->fmt) {
	case OUT_TEXT:
		window__describe(&o->win, w, sizeof(w));
		fprintf(out, "mem (%s): %zu samples", w, n);
		if (n)
			fprintf(out, " from %s s to %s s",
				fmt_secs(c1, sizeof(c1), rows[0].time_ns - m.base_ns),
				fmt_secs(c2, sizeof(c2), rows[n - 1].time_ns - m.base_ns));
		fputc('\n', out);
		report__drops(NULL, out, o, "memory", ctx->drops, ctx->ndrops);
		if (!n)
			break;
		print_coverage_text(&cov, n, out);
		for (i = 0; i < n; i++) {
			if (rows[i].minflt >= 0)
				minflt = (minflt < 0 ? 0 : minflt) + rows[i].minflt;
			if (rows[i].majflt >= 0)
				majflt = (majflt < 0 ? 0 : majflt) + rows[i].majflt;
		}
		fputc('\n', out);
		err = print_summary_text(rows, n, out);
		if (err)
			break;
		if (minflt >= 0 || majflt >= 0)
			fprintf(out, "\npage faults: %s minor, %s major\n",
				minflt >= 0 ? fmt_count(c1, sizeof(c1), (uint64_t)minflt) : "-",
				majflt >= 0 ? fmt_count(c2, sizeof(c2), (uint64_t)majflt) : "-");
		print_heap_text(&heap, &m, out);
		print_probe_text(&pm, out);
		fprintf(out,
			"\nrss..swap_pss: /proc/PID/smaps_rollup; statm_rss, vsize: /proc/PID/statm. "
			"uss: Private_Clean +\nPrivate_Dirty. growth/min: (last - first) / "
			"(time of last - time of first). \"-\": not measured\n(or not read: "
			"the smaps budget was spent).\n");
		break;
	case OUT_CSV:
		report__drops(NULL, out, o, "memory", ctx->drops, ctx->ndrops);
		err = print_series_csv(rows, n, &m, out);
		break;
	case OUT_JSON:
		json__kv_bool(j, "collected", true);
		json__kv_string(j, "source", ctx->probe->source[0] ? ctx->probe->source : NULL);
		report__drops(j, out, o, "memory", ctx->drops, ctx->ndrops);
		print_json_body(j, rows, n, &m, &heap);
		json_probe(j, &pm);
		json__end_object(j);
		err = json__end(j);
		break;
	}
cleanup:
	free(rows);
	return err;
}

int mem_summary__load(sqlite3 *db, const struct capture_meta *m, const struct window *w,
		      const char *metric_name, struct mem_summary *s)
{
	struct mem_row *rows = NULL;
	struct mem_stat st;
	size_t n = 0, k;
	int err;

	memset(s, 0, sizeof(*s));
	for (k = 0; k < METRICS && strcmp(metric[k].name, metric_name); k++)
		;
	if (k == METRICS)
		return -EINVAL;
	err = load_rows(db, m, w, &rows, &n);
	if (err)
		return err;
	summarize(rows, n, k, &st);
	free(rows);
	*s = (struct mem_summary){st.samples, st.first,	 st.min,      st.max,
				  st.last,    st.t_max,	 st.t_last,   st.has_growth,
				  st.growth,  st.max_spread, st.last_spread};
	return 0;
}

/* ------------------------------------------------------------------ its reports */

static const struct an_report mem_report = {
	.name = "mem",
	.order = 30,
	.summary = "RSS, PSS, USS, anon, file, shmem, swap: first, min, max, last and\n"
		   "growth per minute, PSS/RSS; smaps coverage; live heap beside the\n"
		   "anonymous PSS when the heap was measured (csv and json add the\n"
		   "series)",
	.tables = "memory_sample,heap_snapshot",
	.probe = "memory",
	.drops = "memory",
	.body = mem_body,
};

int report_mem(sqlite3 *db, const char *capture_id, const struct report_opts *o, FILE *out)
{
	return report__run(&mem_report, db, capture_id, o, out);
}

const struct an_report *const memory_reports[] = {
	&mem_report,
	NULL,
};
