/* report_mem.c — `report mem`: RSS/PSS/USS and friends, first/min/max/last and growth per minute.
 */
#include "analyze/report.h"

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
    {"statm_rss", "statm resident"},
    {"vsize", "statm size"},
};
#define METRICS (sizeof(metric) / sizeof(metric[0]))

/* One row per sample time; in cgroup mode the pids' figures add up. */
static const char mem_sql[] =
    "SELECT time_ns, SUM(rss), SUM(pss), SUM(uss), SUM(anon), SUM(pss_anon), "
    "SUM(pss_file), SUM(pss_shmem), SUM(swap), SUM(statm_rss), SUM(vsize), "
    "SUM(minflt), SUM(majflt) FROM memory_sample WHERE cap = ?1 "
    "AND time_ns BETWEEN ?2 AND ?3 GROUP BY time_ns ORDER BY time_ns";

struct mem_row {
	int64_t time_ns;
	int64_t v[METRICS];	/* -1: not measured */
	int64_t minflt, majflt; /* -1: not measured */
};

struct mem_stat {
	uint64_t samples;
	int64_t first, min, max, last;
	int64_t t_first, t_last;
	bool has_growth;
	int64_t growth; /* bytes per minute */
};

static int64_t col_or(sqlite3_stmt *st, int c)
{
	return sqlite3_column_type(st, c) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, c);
}

static int load_rows(sqlite3 *db, const struct capture_meta *m, const struct window *w,
		     struct mem_row **out, size_t *n)
{
	struct mem_row *rows = NULL, *r;
	size_t nr = 0, cap = 0, k;
	sqlite3_stmt *st = NULL;
	int64_t lo, hi;
	int err = 0, rc;

	window__bounds(w, m, &lo, &hi);
	if (sqlite3_prepare_v2(db, mem_sql, -1, &st, NULL) != SQLITE_OK) {
		err = -EIO;
		goto cleanup;
	}
	sqlite3_bind_int64(st, 1, m->cap);
	sqlite3_bind_int64(st, 2, lo);
	sqlite3_bind_int64(st, 3, hi);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (nr == cap) {
			cap = cap ? cap * 2 : 256;
			r = realloc(rows, cap * sizeof(*rows));
			if (!r) {
				err = -ENOMEM;
				goto cleanup;
			}
			rows = r;
		}
		r = &rows[nr++];
		r->time_ns = sqlite3_column_int64(st, 0);
		for (k = 0; k < METRICS; k++)
			r->v[k] = col_or(st, 1 + (int)k);
		r->minflt = col_or(st, 1 + METRICS);
		r->majflt = col_or(st, 2 + METRICS);
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

static void summarize(const struct mem_row *rows, size_t n, size_t k, struct mem_stat *s)
{
	size_t i;

	memset(s, 0, sizeof(*s));
	for (i = 0; i < n; i++) {
		int64_t v = rows[i].v[k];

		if (v < 0)
			continue;
		if (!s->samples++) {
			s->first = s->min = s->max = v;
			s->t_first = rows[i].time_ns;
		}
		if (v < s->min)
			s->min = v;
		if (v > s->max)
			s->max = v;
		s->last = v;
		s->t_last = rows[i].time_ns;
	}
	if (s->samples >= 2)
		s->has_growth =
		    growth_per_minute(s->first, s->last, s->t_first, s->t_last, &s->growth);
}

static int print_summary_text(const struct mem_row *rows, size_t n, FILE *out)
{
	static const char *const cols[] = {"figure", "first",	   "min",    "max",
					   "last",   "growth/min", "samples"};
	struct table *t = table__new(7, cols);
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
	err = err ?: table__print(t, out, OUT_TEXT);
	table__free(t);
	return err;
}

static int print_series_csv(const struct mem_row *rows, size_t n, const struct capture_meta *m,
			    FILE *out)
{
	const char *cols[1 + METRICS + 2];
	struct table *t;
	size_t i, k;
	int err = 0;

	cols[0] = "t_s";
	for (k = 0; k < METRICS; k++)
		cols[1 + k] = metric[k].name;
	cols[1 + METRICS] = "minflt";
	cols[2 + METRICS] = "majflt";
	t = table__new(3 + METRICS, cols);
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
	}
	err = err ?: table__print(t, out, OUT_CSV);
	table__free(t);
	return err;
}

static void json_opt(struct json *j, const char *key, int64_t v)
{
	json__key(j, key);
	if (v >= 0)
		json__int(j, v);
	else
		json__null(j);
}

static void print_json_body(struct json *j, const struct mem_row *rows, size_t n,
			    const struct capture_meta *m)
{
	int64_t minflt = -1, majflt = -1;
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
	json__end_object(j);
	for (i = 0; i < n; i++) {
		if (rows[i].minflt >= 0)
			minflt = (minflt < 0 ? 0 : minflt) + rows[i].minflt;
		if (rows[i].majflt >= 0)
			majflt = (majflt < 0 ? 0 : majflt) + rows[i].majflt;
	}
	json__key(j, "faults");
	json__begin_object(j);
	json_opt(j, "minor", minflt);
	json_opt(j, "major", majflt);
	json__end_object(j);
	json__key(j, "series");
	json__begin_array(j);
	for (i = 0; i < n; i++) {
		json__begin_object(j);
		json__kv_real(j, "t_s",
			      (double)llround((double)(rows[i].time_ns - m->base_ns) / 1e6) / 1000);
		for (k = 0; k < METRICS; k++)
			json_opt(j, metric[k].name, rows[i].v[k]);
		json_opt(j, "minflt", rows[i].minflt);
		json_opt(j, "majflt", rows[i].majflt);
		json__end_object(j);
	}
	json__end_array(j);
}

int report_mem(sqlite3 *db, const char *capture_id, const struct report_opts *o, FILE *out)
{
	struct drop_line *drops = NULL;
	struct mem_row *rows = NULL;
	struct capture_meta m;
	struct probe_info p;
	size_t n = 0, nd = 0, i;
	int64_t minflt = -1, majflt = -1;
	char w[96], c1[32], c2[32];
	struct json j;
	int err;

	err = capture_meta__load(db, capture_id, &m);
	err = err ?: probe__lookup(db, m.cap, "memory", &p);
	if (err)
		goto cleanup;
	report__begin(&j, out, o, "mem", &m);
	if (!probe__active(&p)) {
		err = report__not_collected(&j, out, o, "mem", &p);
		goto cleanup;
	}
	err = load_rows(db, &m, &o->win, &rows, &n);
	err = err ?: drops__load(db, &m, "memory", &o->win, &drops, &nd);
	if (err)
		goto cleanup;
	switch (o->fmt) {
	case OUT_TEXT:
		window__describe(&o->win, w, sizeof(w));
		fprintf(out, "mem (%s): %zu samples", w, n);
		if (n)
			fprintf(out, " from %s s to %s s",
				fmt_secs(c1, sizeof(c1), rows[0].time_ns - m.base_ns),
				fmt_secs(c2, sizeof(c2), rows[n - 1].time_ns - m.base_ns));
		fputc('\n', out);
		report__drops(NULL, out, o, "memory", drops, nd);
		if (!n)
			break;
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
		fprintf(out,
			"\nrss..swap: /proc/PID/smaps_rollup; statm_rss, vsize: /proc/PID/statm. "
			"uss: Private_Clean +\nPrivate_Dirty. growth/min: (last - first) / "
			"(time of last - time of first). \"-\": not measured.\n");
		break;
	case OUT_CSV:
		report__drops(NULL, out, o, "memory", drops, nd);
		err = print_series_csv(rows, n, &m, out);
		break;
	case OUT_JSON:
		json__kv_bool(&j, "collected", true);
		json__kv_string(&j, "source", p.source[0] ? p.source : NULL);
		report__drops(&j, out, o, "memory", drops, nd);
		print_json_body(&j, rows, n, &m);
		json__end_object(&j);
		err = json__end(&j);
		break;
	}
	if (!err && (fflush(out) || ferror(out)))
		err = -EIO;
cleanup:
	free(rows);
	free(drops);
	return err;
}
