/* report_cpu.c — `report cpu`: CPU % per interval from the eBPF and /proc lanes, and a summary */
#include "analyze/report.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* One row per interval end; in cgroup mode several pids share an interval. */
static const char cpu_sql[] =
    "SELECT s.time_ns, MAX(s.interval_ns), SUM(s.oncpu_ns), SUM(s.user_ns), "
    "SUM(s.system_ns) FROM cpu_sample s WHERE s.cap = ?1 AND "
    "(s.time_ns - COALESCE(s.interval_ns, 0) / 2) >= ?2 AND "
    "(s.time_ns - COALESCE(s.interval_ns, 0) / 2) < ?3 "
    "GROUP BY s.time_ns ORDER BY s.time_ns";

enum { LANE_ONCPU, LANE_USER, LANE_SYSTEM, LANE_USER_SYSTEM, LANES };

static const char *const lane_name[LANES] = {"oncpu", "user", "system", "user_system"};
static const char *const lane_source[LANES] = {
    "ebpf: sched_switch on-CPU time",
    "proc: /proc/PID/stat utime",
    "proc: /proc/PID/stat stime",
    "proc: /proc/PID/stat utime+stime",
};

struct cpu_row {
	int64_t time_ns, interval_ns; /* interval_ns -1 when unknown */
	int64_t v[LANES];	      /* ns on CPU; -1 when the lane has no value */
};

struct lane_sum {
	uint64_t samples;
	int64_t ns;	     /* summed CPU time */
	int64_t interval_ns; /* summed length of the intervals with a value */
	double max_pct;
	uint64_t over;       /* eBPF lane: intervals above what the host's CPUs allow */
};

static double row_pct(const struct cpu_row *r, int lane)
{
	if (r->v[lane] < 0 || r->interval_ns <= 0)
		return NAN;
	return (double)r->v[lane] * 100.0 / (double)r->interval_ns;
}

static double round2(double v)
{
	return isfinite(v) ? (double)llround(v * 100) / 100 : v;
}

static int load_rows(sqlite3 *db, const struct capture_meta *m, const struct window *w,
		     struct cpu_row **out, size_t *n)
{
	struct cpu_row *rows = NULL, *r;
	size_t nr = 0, cap = 0;
	sqlite3_stmt *st = NULL;
	int64_t lo, hi;
	int err = 0, rc, l;

	window__bounds(w, m, &lo, &hi);
	if (sqlite3_prepare_v2(db, cpu_sql, -1, &st, NULL) != SQLITE_OK) {
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
		r->interval_ns =
		    sqlite3_column_type(st, 1) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 1);
		for (l = 0; l < LANE_USER_SYSTEM; l++)
			r->v[l] = sqlite3_column_type(st, 2 + l) == SQLITE_NULL
				      ? -1
				      : sqlite3_column_int64(st, 2 + l);
		r->v[LANE_USER_SYSTEM] = r->v[LANE_USER] >= 0 && r->v[LANE_SYSTEM] >= 0
					     ? r->v[LANE_USER] + r->v[LANE_SYSTEM]
					     : -1;
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

/* An on-CPU figure above cpus x 100% (with 10% slack for interval jitter) cannot
 * be measured: it is shown as recorded, and counted so the report can say so. */
#define OVER_CAPACITY_SLACK 1.10

static void summarize(const struct cpu_row *rows, size_t n, int64_t cpus, struct lane_sum *s)
{
	size_t i;
	int l;

	memset(s, 0, sizeof(*s) * LANES);
	for (l = 0; l < LANES; l++) {
		s[l].max_pct = NAN;
		for (i = 0; i < n; i++) {
			double pct = row_pct(&rows[i], l);

			if (rows[i].v[l] < 0)
				continue;
			s[l].samples++;
			s[l].ns += rows[i].v[l];
			if (rows[i].interval_ns > 0)
				s[l].interval_ns += rows[i].interval_ns;
			if (isfinite(pct) && (!isfinite(s[l].max_pct) || pct > s[l].max_pct))
				s[l].max_pct = pct;
			if (l == LANE_ONCPU && cpus > 0 && isfinite(pct) &&
			    pct > (double)cpus * 100.0 * OVER_CAPACITY_SLACK)
				s[l].over++;
		}
	}
}

/* mean % over the intervals where the lane has a value, weighted by their length */
static double lane_mean(const struct lane_sum *s)
{
	return s->interval_ns > 0 ? (double)s->ns * 100.0 / (double)s->interval_ns : NAN;
}

/* Why a lane has no value anywhere, for "not collected (...)". */
static void lane_reason(int l, const struct probe_info *p, char *buf, size_t len)
{
	if (l == LANE_ONCPU && !strcmp(p->source, "proc"))
		snprintf(buf, len, "the cpu probe ran from /proc only%s%.200s",
			 p->detail[0] ? ": " : "", p->detail);
	else
		snprintf(buf, len, "no %s values in the %s", l == LANE_ONCPU ? "eBPF" : "/proc",
			 "samples");
}

static int print_series(const struct cpu_row *rows, size_t n, const struct capture_meta *m,
			bool human, FILE *out, enum out_format fmt)
{
	static const char *const cols[] = {"t_s",	"interval_ns", "oncpu_ns", "user_ns",
					   "system_ns", "oncpu_pct",   "user_pct", "system_pct"};
	static const char *const hcols[] = {"t (s)", "oncpu%", "user%", "system%"};
	struct table *t = table__new(human ? 4 : 8, human ? hcols : cols);
	char buf[32];
	size_t i, c;
	int err = 0, l;

	if (!t)
		return -ENOMEM;
	for (i = 0; i < n && !err; i++) {
		const struct cpu_row *r = &rows[i];
		double ts = (double)(r->time_ns - m->base_ns) / 1e9;

		c = 0;
		err = table__add_row(t);
		err =
		    err
			?: table__set_real(
			       t, c++, (double)llround(ts * 1000) / 1000,
			       human ? fmt_secs(buf, sizeof(buf), r->time_ns - m->base_ns) : NULL);
		if (!human) {
			if (r->interval_ns >= 0)
				err = err ?: table__set_int(t, c, r->interval_ns, NULL);
			c++;
			for (l = 0; l < LANE_USER_SYSTEM; l++, c++)
				if (r->v[l] >= 0)
					err = err ?: table__set_int(t, c, r->v[l], NULL);
		}
		for (l = 0; l < LANE_USER_SYSTEM; l++, c++) {
			double pct = round2(row_pct(r, l));

			if (isfinite(pct))
				err = err
					  ?: table__set_real(t, c, pct,
							     human ? fmt_pct(buf, sizeof(buf), pct)
								   : NULL);
		}
	}
	err = err ?: table__print(t, out, fmt);
	table__free(t);
	return err;
}

static int print_summary_text(const struct lane_sum *s, const struct probe_info *p, FILE *out)
{
	static const char *const cols[] = {"figure",	  "mean",    "max",
					   "cpu seconds", "samples", "lane"};
	struct table *t = table__new(6, cols);
	char buf[32], why[256];
	int err = 0, l;

	if (!t)
		return -ENOMEM;
	for (l = 0; l < LANES && !err; l++) {
		err = table__add_row(t);
		err = err
			  ?: table__set_text(t, 0,
					     l == LANE_USER_SYSTEM ? "user+system" : lane_name[l]);
		if (!err && s[l].samples) {
			double mean = round2(lane_mean(&s[l])), max = round2(s[l].max_pct);

			err = table__set_real(t, 1, mean, fmt_pct(buf, sizeof(buf), mean));
			err = err ?: table__set_real(t, 2, max, fmt_pct(buf, sizeof(buf), max));
			snprintf(buf, sizeof(buf), "%.3f", (double)s[l].ns / 1e9);
			err = err ?: table__set_real(t, 3, (double)s[l].ns / 1e9, buf);
			err = err ?: table__set_int(t, 4, (int64_t)s[l].samples, NULL);
			err = err ?: table__set_text(t, 5, lane_source[l]);
		} else if (!err) {
			char text[320];

			lane_reason(l, p, why, sizeof(why));
			snprintf(text, sizeof(text), "not collected (%s)", why);
			err = table__set_int(t, 4, 0, NULL);
			err = err ?: table__set_text(t, 5, text);
		}
	}
	err = err ?: table__print(t, out, OUT_TEXT);
	table__free(t);
	return err;
}

static void print_summary_json(struct json *j, const struct lane_sum *s, const struct probe_info *p)
{
	char why[256];
	int l;

	json__key(j, "summary");
	json__begin_object(j);
	for (l = 0; l < LANES; l++) {
		json__key(j, lane_name[l]);
		json__begin_object(j);
		json__kv_string(j, "lane", lane_source[l]);
		json__kv_bool(j, "collected", s[l].samples > 0);
		if (s[l].samples) {
			json__kv_int(j, "samples", (int64_t)s[l].samples);
			json__kv_real(j, "mean_pct", round2(lane_mean(&s[l])));
			json__kv_real(j, "max_pct", round2(s[l].max_pct));
			json__kv_int(j, "cpu_ns", s[l].ns);
			json__kv_real(j, "cpu_s", (double)s[l].ns / 1e9);
			if (l == LANE_ONCPU)
				json__kv_int(j, "over_capacity_intervals", (int64_t)s[l].over);
		} else {
			lane_reason(l, p, why, sizeof(why));
			json__kv_string(j, "reason", why);
		}
		json__end_object(j);
	}
	json__end_object(j);
}

static void print_series_json(struct json *j, const struct cpu_row *rows, size_t n,
			      const struct capture_meta *m)
{
	size_t i;
	int l;

	json__key(j, "intervals");
	json__begin_array(j);
	for (i = 0; i < n; i++) {
		const struct cpu_row *r = &rows[i];

		json__begin_object(j);
		json__kv_real(j, "t_s",
			      (double)llround((double)(r->time_ns - m->base_ns) / 1e6) / 1000);
		json__key(j, "interval_ns");
		if (r->interval_ns >= 0)
			json__int(j, r->interval_ns);
		else
			json__null(j);
		for (l = 0; l < LANE_USER_SYSTEM; l++) {
			char key[32];

			snprintf(key, sizeof(key), "%s_ns", lane_name[l]);
			json__key(j, key);
			if (r->v[l] >= 0)
				json__int(j, r->v[l]);
			else
				json__null(j);
			snprintf(key, sizeof(key), "%s_pct", lane_name[l]);
			json__kv_real(j, key, round2(row_pct(r, l)));
		}
		json__end_object(j);
	}
	json__end_array(j);
}

int report_cpu(sqlite3 *db, const char *capture_id, const struct report_opts *o, FILE *out)
{
	struct drop_line *drops = NULL;
	struct cpu_row *rows = NULL;
	struct lane_sum s[LANES];
	struct capture_meta m;
	struct probe_info p;
	size_t n = 0, nd = 0;
	char w[96];
	struct json j;
	int err;

	err = capture_meta__load(db, capture_id, &m);
	err = err ?: probe__lookup(db, m.cap, "cpu", &p);
	if (err)
		goto cleanup;
	report__begin(&j, out, o, "cpu", &m);
	if (!probe__active(&p)) {
		err = report__not_collected(&j, out, o, "cpu", &p);
		goto cleanup;
	}
	err = load_rows(db, &m, &o->win, &rows, &n);
	err = err ?: drops__load(db, &m, "cpu", &o->win, &drops, &nd);
	if (err)
		goto cleanup;
	summarize(rows, n, m.cpus, s);
	switch (o->fmt) {
	case OUT_TEXT:
		window__describe(&o->win, w, sizeof(w));
		fprintf(out, "cpu (%s): %zu intervals; 100%% = one CPU busy all the interval", w,
			n);
		if (m.cpus > 0)
			fprintf(out, " (the host has %" PRId64 " CPUs)", m.cpus);
		fputc('\n', out);
		report__drops(NULL, out, o, "cpu", drops, nd);
		if (!n)
			break;
		fputc('\n', out);
		err = print_series(rows, n, &m, true, out, OUT_TEXT);
		if (err)
			break;
		fputc('\n', out);
		err = print_summary_text(s, &p, out);
		fprintf(out,
			"\noncpu: eBPF lane (sched_switch); user, system: /proc lane "
			"(utime/stime, clock-tick\nresolution). mean: CPU time / length of the "
			"intervals with a value.\n");
		if (s[LANE_ONCPU].over)
			fprintf(out,
				"note: %" PRIu64 " of %" PRIu64 " intervals show more on-CPU time "
				"than the host's %" PRId64 " CPUs allow (max %.1f%%):\nthe eBPF "
				"lane over-counted there; the /proc lane is the check.\n",
				s[LANE_ONCPU].over, s[LANE_ONCPU].samples, m.cpus,
				s[LANE_ONCPU].max_pct);
		break;
	case OUT_CSV:
		report__drops(NULL, out, o, "cpu", drops, nd);
		err = print_series(rows, n, &m, false, out, OUT_CSV);
		break;
	case OUT_JSON:
		json__kv_bool(&j, "collected", true);
		json__kv_string(&j, "source", p.source[0] ? p.source : NULL);
		json__key(&j, "cpus");
		if (m.cpus > 0)
			json__int(&j, m.cpus);
		else
			json__null(&j);
		report__drops(&j, out, o, "cpu", drops, nd);
		print_summary_json(&j, s, &p);
		print_series_json(&j, rows, n, &m);
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
