/* report.c — `report cpu`: CPU % per interval from the eBPF and /proc lanes (in cgroup
 * mode the cgroup lane, cpu.stat, in place of /proc), a summary, cpu.max throttling, and
 * the CPU profile: top functions by self and total samples. */
#include "analyze/report.h"
#include "common/array.h"
#include "analyze/symbolize.h"
#include "collectors/cpuprof/stacks.h" /* the CPU profile model: profile__load_pid */
#include "common/hash.h"
#include "common/hindex.h"
#include "common/probe_mapping.h"
#include "analyze/analyze.h"
#include "collectors/cpu/report.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* One row per interval end; in cgroup mode several pids share an interval. */
static const char cpu_sql[] =
    "SELECT s.time_ns, MAX(s.interval_ns), SUM(s.oncpu_ns), SUM(s.user_ns), "
    "SUM(s.system_ns), SUM(s.cg_usage_ns), SUM(s.cg_user_ns), SUM(s.cg_system_ns), "
    "SUM(s.cg_periods), SUM(s.cg_throttled_periods), SUM(s.cg_throttled_ns) "
    "FROM cpu_sample s WHERE s.cap = ?1 AND "
    "(s.time_ns - COALESCE(s.interval_ns, 0) / 2) >= ?2 AND "
    "(s.time_ns - COALESCE(s.interval_ns, 0) / 2) < ?3 "
    "GROUP BY s.time_ns ORDER BY s.time_ns";

/* Which lanes the capture has: the cgroup lane anywhere in it (not only in the window, so
 * the lane names do not change with the window), and the target's mode. */
static const char kind_sql[] =
    "SELECT EXISTS (SELECT 1 FROM cpu_sample WHERE cap = ?1 AND cg_usage_ns IS NOT NULL), "
    "(SELECT mode FROM target WHERE cap = ?1) = 'cgroup'";

enum { LANE_ONCPU, LANE_USER, LANE_SYSTEM, LANE_USER_SYSTEM, LANES };

static const char *const lane_name[LANES] = {"oncpu", "user", "system", "user_system"};
static const char *const lane_source[LANES] = {
    "ebpf: sched_switch on-CPU time",
    "proc: /proc/PID/stat utime",
    "proc: /proc/PID/stat stime",
    "proc: /proc/PID/stat utime+stime",
};
/* the capture has the cgroup lane: user, system and user+system come from cpu.stat */
static const char *const lane_source_cg[LANES] = {
    "ebpf: sched_switch on-CPU time",
    "cgroup: cpu.stat user_usec",
    "cgroup: cpu.stat system_usec",
    "cgroup: cpu.stat usage_usec",
};

struct cpu_kind {
	bool cg;     /* some sample has the cgroup lane (cg_* columns) */
	bool cgroup; /* target.mode is cgroup */
};

static const char *lane_src(const struct cpu_kind *k, int l)
{
	return k->cg ? lane_source_cg[l] : lane_source[l];
}

struct cpu_row {
	int64_t time_ns, interval_ns; /* interval_ns -1 when unknown */
	int64_t v[LANES];	      /* ns on CPU; -1 when the lane has no value */
	/* cpu.max throttling (cgroup lane); -1 when not read */
	int64_t periods, throttled_periods, throttled_ns;
};

struct lane_sum {
	uint64_t samples;
	int64_t ns;	     /* summed CPU time */
	int64_t interval_ns; /* summed length of the intervals with a value */
	double max_pct;
	uint64_t over; /* eBPF lane: intervals above what the host's CPUs allow */
};

/* cpu.max throttling over the intervals that read it */
struct throttle_sum {
	uint64_t samples;
	int64_t periods, throttled_periods, throttled_ns;
	int64_t interval_ns; /* summed length of those intervals */
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

static int load_kind(sqlite3 *db, const struct capture_meta *m, struct cpu_kind *k)
{
	sqlite3_stmt *st = NULL;
	int err = 0;

	memset(k, 0, sizeof(*k));
	if (sqlite3_prepare_v2(db, kind_sql, -1, &st, NULL) != SQLITE_OK)
		return -EIO;
	sqlite3_bind_int64(st, 1, m->cap);
	if (sqlite3_step(st) == SQLITE_ROW) {
		k->cg = sqlite3_column_int(st, 0) != 0;
		k->cgroup = sqlite3_column_int(st, 1) != 0;
	} else {
		err = -EIO;
	}
	sqlite3_finalize(st);
	return err;
}

static int64_t col_or_none(sqlite3_stmt *st, int i)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, i);
}

static int load_rows(sqlite3 *db, const struct capture_meta *m, const struct window *w,
		     const struct cpu_kind *k, struct cpu_row **out, size_t *n)
{
	struct cpu_row *rows = NULL, *r;
	size_t nr = 0, cap = 0;
	sqlite3_stmt *st = NULL;
	int64_t lo, hi;
	int err = 0, rc;

	window__bounds(w, m, &lo, &hi);
	if (report__prepare_at(db, cpu_sql, m, lo, hi, &st)) {
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
		r->interval_ns = col_or_none(st, 1);
		r->v[LANE_ONCPU] = col_or_none(st, 2);
		if (k->cg) {
			/* cpu.stat: usage_usec is the total, not user + system added here */
			r->v[LANE_USER] = col_or_none(st, 6);
			r->v[LANE_SYSTEM] = col_or_none(st, 7);
			r->v[LANE_USER_SYSTEM] = col_or_none(st, 5);
		} else {
			r->v[LANE_USER] = col_or_none(st, 3);
			r->v[LANE_SYSTEM] = col_or_none(st, 4);
			r->v[LANE_USER_SYSTEM] = -1;
			if (r->v[LANE_USER] >= 0 && r->v[LANE_SYSTEM] >= 0 &&
			    __builtin_add_overflow(r->v[LANE_USER], r->v[LANE_SYSTEM],
						   &r->v[LANE_USER_SYSTEM])) {
				err = -EOVERFLOW;
				goto cleanup;
			}
		}
		r->periods = col_or_none(st, 8);
		r->throttled_periods = col_or_none(st, 9);
		r->throttled_ns = col_or_none(st, 10);
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

/* Sum the lanes and the throttling of ROWS into S and T. 0, or -EOVERFLOW when a sum
 * passes 2^63 (no recording holds that much: the DB is corrupt). */
static int summarize(const struct cpu_row *rows, size_t n, int64_t cpus, struct lane_sum *s,
		     struct throttle_sum *t)
{
	bool over = false;

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
			over |= __builtin_add_overflow(s[l].ns, rows[i].v[l], &s[l].ns);
			if (rows[i].interval_ns > 0)
				over |= __builtin_add_overflow(s[l].interval_ns, rows[i].interval_ns,
							       &s[l].interval_ns);
			if (isfinite(pct) && (!isfinite(s[l].max_pct) || pct > s[l].max_pct))
				s[l].max_pct = pct;
			if (l == LANE_ONCPU && cpus > 0 && isfinite(pct) &&
			    pct > (double)cpus * 100.0 * OVER_CAPACITY_SLACK)
				s[l].over++;
		}
	}
	memset(t, 0, sizeof(*t));
	for (i = 0; i < n; i++) {
		const struct cpu_row *r = &rows[i];

		if (r->periods < 0 || r->throttled_periods < 0 || r->throttled_ns < 0)
			continue;
		t->samples++;
		over |= __builtin_add_overflow(t->periods, r->periods, &t->periods);
		over |= __builtin_add_overflow(t->throttled_periods, r->throttled_periods,
					       &t->throttled_periods);
		over |= __builtin_add_overflow(t->throttled_ns, r->throttled_ns, &t->throttled_ns);
		if (r->interval_ns > 0)
			over |= __builtin_add_overflow(t->interval_ns, r->interval_ns,
						       &t->interval_ns);
	}
	return over ? -EOVERFLOW : 0;
}

/* mean % over the intervals where the lane has a value, weighted by their length */
static double lane_mean(const struct lane_sum *s)
{
	return s->interval_ns > 0 ? (double)s->ns * 100.0 / (double)s->interval_ns : NAN;
}

static double pct_of(int64_t n, int64_t of)
{
	return of > 0 ? (double)n * 100.0 / (double)of : NAN;
}

/* Why a lane has no value anywhere, for "not collected (...)". */
static void lane_reason(int l, const struct cpu_kind *k, const struct probe_info *p, char *buf,
			size_t len)
{
	if (l == LANE_ONCPU && k->cg && strcmp(p->source, "ebpf"))
		snprintf(buf, len, "the cpu probe read the cgroup's cpu.stat only%s%.200s",
			 p->detail[0] ? ": " : "", p->detail);
	else if (l == LANE_ONCPU && !strcmp(p->source, "proc"))
		snprintf(buf, len, "the cpu probe ran from /proc only%s%.200s",
			 p->detail[0] ? ": " : "", p->detail);
	else if (l != LANE_ONCPU && k->cg)
		snprintf(buf, len, "no cgroup cpu.stat values in the samples");
	else if (l != LANE_ONCPU && k->cgroup)
		snprintf(buf, len, "cgroup mode: this capture has no cpu.stat lane");
	else
		snprintf(buf, len, "no %s values in the %s", l == LANE_ONCPU ? "eBPF" : "/proc",
			 "samples");
}

/* Text and CSV: t, [interval_ns, oncpu_ns, user_ns, system_ns, (user_system_ns)], oncpu%,
 * user%, system%, (user+system%), (CSV: periods, throttled_periods, throttled_ns,
 * throttled_pct). The parenthesized columns only with the cgroup lane, so a
 * single-process capture's series stays as it was. */
static int print_series(const struct cpu_row *rows, size_t n, const struct capture_meta *m,
			const struct cpu_kind *k, bool human, FILE *out, enum out_format fmt)
{
	static const char *const cols[] = {"t_s",	"interval_ns", "oncpu_ns", "user_ns",
					   "system_ns", "oncpu_pct",   "user_pct", "system_pct"};
	static const char *const cols_cg[] = {
	    "t_s",	    "interval_ns",     "oncpu_ns",  "user_ns",
	    "system_ns",    "user_system_ns",  "oncpu_pct", "user_pct",
	    "system_pct",   "user_system_pct", "periods",   "throttled_periods",
	    "throttled_ns", "throttled_pct"};
	static const char *const hcols[] = {"t (s)", "oncpu%", "user%", "system%"};
	static const char *const hcols_cg[] = {"t (s)", "oncpu%", "user%", "system%",
					       "user+system%"};
	int lanes = k->cg ? LANES : LANE_USER_SYSTEM; /* the lanes in the series */
	struct table *t;
	char buf[32];
	size_t i, c;
	int err = 0, l;

	if (human)
		t = k->cg ? table__new(5, hcols_cg) : table__new(4, hcols);
	else
		t = k->cg ? table__new(14, cols_cg) : table__new(8, cols);
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
			for (l = 0; l < lanes; l++, c++)
				if (r->v[l] >= 0)
					err = err ?: table__set_int(t, c, r->v[l], NULL);
		}
		for (l = 0; l < lanes; l++, c++) {
			double pct = round2(row_pct(r, l));

			if (isfinite(pct))
				err = err
					  ?: table__set_real(t, c, pct,
							     human ? fmt_pct(buf, sizeof(buf), pct)
								   : NULL);
		}
		if (human || !k->cg || r->periods < 0 || r->throttled_periods < 0 ||
		    r->throttled_ns < 0)
			continue;
		err = err ?: table__set_int(t, c++, r->periods, NULL);
		err = err ?: table__set_int(t, c++, r->throttled_periods, NULL);
		err = err ?: table__set_int(t, c++, r->throttled_ns, NULL);
		if (isfinite(pct_of(r->throttled_ns, r->interval_ns)))
			err =
			    err
				?: table__set_real(
				       t, c, round2(pct_of(r->throttled_ns, r->interval_ns)), NULL);
	}
	err = err ?: table__print(t, out, fmt);
	table__free(t);
	return err;
}

/* The summary's columns: the text table shows the first six, JSON a lane's object. */
enum {
	SUM_FIGURE,
	SUM_MEAN,
	SUM_MAX,
	SUM_CPU_S,
	SUM_SAMPLES,
	SUM_LANE,
	SUM_COLLECTED,
	SUM_CPU_NS,
	SUM_OVER,
	SUM_REASON,
	SUM_N
};

/* One row per lane: its figures, or why it was not collected (the text's lane column shows
 * that instead of the lane). Free *OUT with table__free. 0 or -ENOMEM. */
static int summary_rows(const struct lane_sum *s, const struct cpu_kind *k,
			const struct probe_info *p, struct table **out)
{
	static const char *const cols[] = {"figure",	  "mean",    "max",
					   "cpu seconds", "samples", "lane",
					   "collected",	  "cpu_ns",  "over_capacity_intervals",
					   "reason"};
	static const char *const keys[] = {"figure",	"mean_pct", "max_pct",
					   "cpu_s",	"samples",  "lane",
					   "collected", "cpu_ns",   "over_capacity_intervals",
					   "reason"};
	struct table *t = table__new(SUM_N, cols);
	char buf[32], why[256];
	int err = 0, l;

	if (!t)
		return -ENOMEM;
	for (size_t c = 0; c < SUM_N && !err; c++)
		err = table__set_key(t, c, keys[c]);
	for (l = 0; l < LANES && !err; l++) {
		err = table__add_row(t);
		err = err
			  ?: table__set_text(t, SUM_FIGURE,
					     l == LANE_USER_SYSTEM ? "user+system" : lane_name[l]);
		err = err ?: table__set_text(t, SUM_LANE, lane_src(k, l));
		err = err ?: table__set_bool(t, SUM_COLLECTED, s[l].samples > 0, NULL);
		if (!err && s[l].samples) {
			double mean = round2(lane_mean(&s[l])), max = round2(s[l].max_pct);

			err = table__set_real(t, SUM_MEAN, mean, fmt_pct(buf, sizeof(buf), mean));
			err =
			    err ?: table__set_real(t, SUM_MAX, max, fmt_pct(buf, sizeof(buf), max));
			snprintf(buf, sizeof(buf), "%.3f", (double)s[l].ns / 1e9);
			err = err ?: table__set_real(t, SUM_CPU_S, (double)s[l].ns / 1e9, buf);
			err = err ?: table__set_int(t, SUM_SAMPLES, (int64_t)s[l].samples, NULL);
			err = err ?: table__set_int(t, SUM_CPU_NS, s[l].ns, NULL);
			err = err ?: table__set_int(t, SUM_OVER, (int64_t)s[l].over, NULL);
		} else if (!err) {
			char text[320];

			lane_reason(l, k, p, why, sizeof(why));
			snprintf(text, sizeof(text), "not collected (%s)", why);
			err = table__set_int(t, SUM_SAMPLES, 0, NULL);
			err = err ?: table__set_display(t, SUM_LANE, text);
			err = err ?: table__set_text(t, SUM_REASON, why);
		}
	}
	if (err) {
		table__free(t);
		return err;
	}
	*out = t;
	return 0;
}

static int print_summary_text(const struct table *sum, FILE *out)
{
	static const size_t cols[] = {SUM_FIGURE, SUM_MEAN,    SUM_MAX,
				      SUM_CPU_S,  SUM_SAMPLES, SUM_LANE};

	return table__print_cols(sum, out, OUT_TEXT, cols, sizeof(cols) / sizeof(cols[0]));
}

/* The note under the figure table: where each figure comes from, for this kind of capture. */
static void print_lanes_note(const struct cpu_kind *k, FILE *out)
{
	if (k->cg)
		fprintf(out, "\noncpu: eBPF lane (sched_switch, the cgroup subtree); user, system, "
			     "user+system: cgroup lane\n(the subtree's cpu.stat: usage_usec is the "
			     "scheduler's run time, user_usec and system_usec\nsplit it by clock "
			     "ticks). mean: CPU time / length of the intervals with a value.\n");
	else if (k->cgroup)
		fprintf(out, "\noncpu: eBPF lane (sched_switch, the cgroup subtree); user, system: "
			     "no lane in this capture\n(the /proc lane reads one process; cpu.stat "
			     "was not read). mean: CPU time / length of the\nintervals with a "
			     "value.\n");
	else
		fprintf(out,
			"\noncpu: eBPF lane (sched_switch); user, system: /proc lane "
			"(utime/stime, clock-tick\nresolution). mean: CPU time / length of the "
			"intervals with a value.\n");
}

/* Text: cpu.max throttling of a capture with the cgroup lane. */
static void print_throttling_text(const struct throttle_sum *t, FILE *out)
{
	double pp = pct_of(t->throttled_periods, t->periods);
	double tp = pct_of(t->throttled_ns, t->interval_ns);

	if (!t->samples) {
		fprintf(out,
			"\nthrottling: not read (no nr_periods in cpu.stat: the cpu controller "
			"is not enabled for the cgroup)\n");
		return;
	}
	fprintf(out, "\nthrottling (cpu.max): %" PRId64 " periods, %" PRId64 " throttled",
		t->periods, t->throttled_periods);
	if (isfinite(pp))
		fprintf(out, " (%.1f%%)", pp);
	fprintf(out, "; throttled %.3f s", (double)t->throttled_ns / 1e9);
	if (isfinite(tp))
		fprintf(out, " = %.1f%% of the %.3f s recorded", tp, (double)t->interval_ns / 1e9);
	fprintf(out, "\n(throttled time is summed over the CPUs the cgroup was throttled on: it "
		     "can pass 100%%)\n");
}

static void print_throttling_json(struct json *j, const struct throttle_sum *t)
{
	json__key(j, "throttling");
	if (!t->samples) {
		json__null(j);
		return;
	}
	json__begin_object(j);
	json__kv_int(j, "samples", (int64_t)t->samples);
	json__kv_int(j, "periods", t->periods);
	json__kv_int(j, "throttled_periods", t->throttled_periods);
	json__kv_real(j, "throttled_periods_pct", round2(pct_of(t->throttled_periods, t->periods)));
	json__kv_int(j, "throttled_ns", t->throttled_ns);
	json__kv_real(j, "throttled_s", (double)t->throttled_ns / 1e9);
	json__kv_int(j, "recorded_ns", t->interval_ns);
	json__kv_real(j, "throttled_pct", round2(pct_of(t->throttled_ns, t->interval_ns)));
	json__end_object(j);
}

static void print_summary_json(struct json *j, const struct table *sum)
{
	/* a lane's object: its figures (the on-CPU lane's over-capacity count last), or why not */
	static const size_t got[] = {SUM_LANE, SUM_COLLECTED, SUM_SAMPLES, SUM_MEAN,
				     SUM_MAX,  SUM_CPU_NS,    SUM_CPU_S,   SUM_OVER};
	static const size_t not [] = {SUM_LANE, SUM_COLLECTED, SUM_REASON};
	const size_t ngot = sizeof(got) / sizeof(got[0]);

	json__key(j, "summary");
	json__begin_object(j);
	for (int l = 0; l < LANES; l++) {
		bool collected = !strcmp(table__value(sum, (size_t)l, SUM_COLLECTED), "true");

		json__key(j, lane_name[l]);
		json__begin_object(j);
		if (collected)
			table__json_fields(sum, j, (size_t)l, got,
					   l == LANE_ONCPU ? ngot : ngot - 1);
		else
			table__json_fields(sum, j, (size_t)l, not, sizeof(not ) / sizeof(not [0]));
		json__end_object(j);
	}
	json__end_object(j);
}

static void json_ns_or_null(struct json *j, const char *key, int64_t v)
{
	json__key(j, key);
	if (v >= 0)
		json__int(j, v);
	else
		json__null(j);
}

static void print_series_json(struct json *j, const struct cpu_row *rows, size_t n,
			      const struct capture_meta *m, const struct cpu_kind *k)
{
	int lanes = k->cg ? LANES : LANE_USER_SYSTEM;
	size_t i;
	int l;

	json__key(j, "intervals");
	json__begin_array(j);
	for (i = 0; i < n; i++) {
		const struct cpu_row *r = &rows[i];

		json__begin_object(j);
		json__kv_real(j, "t_s",
			      (double)llround((double)(r->time_ns - m->base_ns) / 1e6) / 1000);
		json_ns_or_null(j, "interval_ns", r->interval_ns);
		for (l = 0; l < lanes; l++) {
			char key[32];

			snprintf(key, sizeof(key), "%s_ns", lane_name[l]);
			json_ns_or_null(j, key, r->v[l]);
			snprintf(key, sizeof(key), "%s_pct", lane_name[l]);
			json__kv_real(j, key, round2(row_pct(r, l)));
		}
		if (k->cg) {
			bool read = r->periods >= 0 && r->throttled_periods >= 0 &&
				    r->throttled_ns >= 0;

			json_ns_or_null(j, "periods", read ? r->periods : -1);
			json_ns_or_null(j, "throttled_periods", read ? r->throttled_periods : -1);
			json_ns_or_null(j, "throttled_ns", read ? r->throttled_ns : -1);
			json__kv_real(j, "throttled_pct",
				      read ? round2(pct_of(r->throttled_ns, r->interval_ns)) : NAN);
		}
		json__end_object(j);
	}
	json__end_array(j);
}

/* --pid: the process whose profile alone is asked for; 0: all */
static int32_t pid_of(const struct report_opts *o)
{
	return REPORT_OWN(o, struct cpu_opts)->pid;
}

/* ---------------------------------------------------------------- the profile */

#define PROFILE_FEW_SAMPLES 200 /* fewer: shares are rough, said so */
#define PROFILE_TOP_DEFAULT 20

struct fn_map {
	struct prof_fn *fn;
	size_t n, cap;
	struct hindex ix;
};

static uint64_t hash_str(const char *a, const char *b)
{
	/* A, a unit separator (0x1f), B */
	return fnv1a64_str(fnv1a64_bytes(fnv1a64_str(FNV1A64_INIT, a), "\x1f", 1), b);
}

static uint64_t fn_hash(const void *fn, size_t k)
{
	const struct prof_fn *f = (const struct prof_fn *)fn + k;

	return hash_str(f->module, f->name);
}

/* The function of MODULE named NAME (created when new), or NULL on ENOMEM. */
static struct prof_fn *fn_get(struct fn_map *m, const char *module, const char *name, bool named)
{
	size_t i;

	if (hindex__reserve(&m->ix, m->n, 256, fn_hash, m->fn))
		return NULL;
	for (i = hindex__home(&m->ix, hash_str(module, name)); m->ix.slot[i];
	     i = hindex__next(&m->ix, i)) {
		struct prof_fn *f = &m->fn[m->ix.slot[i] - 1];

		if (!strcmp(f->name, name) &&
		    !strcmp(f->module ? f->module : "", module ? module : ""))
			return f;
	}
	if (array__grow((void **)&m->fn, &m->cap, m->n, sizeof(*m->fn)))
		return NULL;
	memset(&m->fn[m->n], 0, sizeof(m->fn[0]));
	m->fn[m->n].name = strdup(name);
	if (!m->fn[m->n].name)
		return NULL;
	m->fn[m->n].module = module;
	m->fn[m->n].named = named;
	m->ix.slot[i] = ++m->n;
	return &m->fn[m->n - 1];
}

static int cmp_self(const void *a, const void *b)
{
	const struct prof_fn *x = a, *y = b;

	if (x->self != y->self)
		return x->self > y->self ? -1 : 1;
	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	return strcmp(x->name, y->name);
}

static int cmp_total(const void *a, const void *b)
{
	const struct prof_fn *x = a, *y = b;

	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	return cmp_self(a, b);
}

void prof_top__free(struct prof_top *t)
{
	if (!t)
		return;
	for (size_t k = 0; k < t->n; k++)
		free(t->fn[k].name);
	free(t->fn);
	memset(t, 0, sizeof(*t));
}

int prof_top__build(const struct profile *p, struct prof_top *t)
{
	struct fn_map m = {0};
	uint64_t stamp = 0;
	char name[512];
	int err = 0;

	memset(t, 0, sizeof(*t));
	for (size_t k = 0; k < p->n_stacks && !err; k++) {
		const struct prof_stack *st = &p->stacks[k];

		t->samples += st->count;
		if (!st->n) {
			t->no_frames += st->count;
			t->unnamed += st->count;
			continue;
		}
		if (!st->loc[0]->n)
			t->unnamed += st->count;
		stamp++;
		for (size_t d = 0; d < st->n && !err; d++) {
			const struct prof_loc *l = st->loc[d];
			size_t names = l->n ? l->n : 1;

			for (size_t i = 0; i < names; i++) {
				struct prof_fn *f;

				prof_loc__name(l, i, name, sizeof(name));
				f = fn_get(&m, l->module, name, l->n > 0);
				if (!f) {
					err = -ENOMEM;
					break;
				}
				if (d == 0 && i == 0)
					f->self += st->count;
				if (f->stamp != stamp) { /* once per stack: recursion counts once */
					f->stamp = stamp;
					f->total += st->count;
				}
				if (st->count > f->best && l->n) {
					f->best = st->count;
					f->file = l->f[i].file;
					f->line = l->f[i].line;
				}
			}
		}
	}
	hindex__free(&m.ix);
	t->fn = m.fn;
	t->n = m.n;
	if (err) {
		prof_top__free(t);
		return err;
	}
	if (t->n) /* qsort's array may not be NULL, even empty */
		qsort(t->fn, t->n, sizeof(*t->fn), cmp_self);
	return 0;
}

static double share(uint64_t n, uint64_t of)
{
	return of ? round2(100.0 * (double)n / (double)of) : NAN;
}

static const char *short_module(const char *m)
{
	const char *b = m ? strrchr(m, '/') : NULL;

	return b ? b + 1 : m ? m : "";
}

static int print_fn_table(const struct prof_fn *fn, size_t n, size_t top, uint64_t samples,
			  FILE *out)
{
	static const char *const cols[] = {"self",     "self%",	    "total", "total%",
					   "function", "file:line", "module"};
	struct table *t = table__new(7, cols);
	char buf[64], loc[512];
	int err = 0;

	if (!t)
		return -ENOMEM;
	for (size_t k = 0; k < n && k < top && !err; k++) {
		const struct prof_fn *f = &fn[k];

		err = table__add_row(t);
		err = err ?: table__set_int(t, 0, (int64_t)f->self, NULL);
		err = err
			  ?: table__set_real(t, 1, share(f->self, samples),
					     fmt_pct(buf, sizeof(buf), share(f->self, samples)));
		err = err ?: table__set_int(t, 2, (int64_t)f->total, NULL);
		err = err
			  ?: table__set_real(t, 3, share(f->total, samples),
					     fmt_pct(buf, sizeof(buf), share(f->total, samples)));
		err = err ?: table__set_text(t, 4, f->name);
		if (f->file) {
			if (f->line)
				snprintf(loc, sizeof(loc), "%s:%u", f->file, f->line);
			else
				snprintf(loc, sizeof(loc), "%s", f->file);
			err = err ?: table__set_text(t, 5, loc);
		}
		err = err ?: table__set_text(t, 6, short_module(f->module));
	}
	err = err ?: table__print(t, out, OUT_TEXT);
	table__free(t);
	return err;
}

static void fn_json(struct json *j, const char *key, const struct prof_fn *fn, size_t n, size_t top,
		    uint64_t samples)
{
	json__key(j, key);
	json__begin_array(j);
	for (size_t k = 0; k < n && k < top; k++) {
		const struct prof_fn *f = &fn[k];

		json__begin_object(j);
		json__kv_string(j, "function", f->name);
		json__kv_bool(j, "named", f->named);
		json__kv_string(j, "module", f->module);
		json__kv_string(j, "file", f->file);
		json__key(j, "line");
		if (f->line)
			json__int(j, f->line);
		else
			json__null(j);
		json__kv_int(j, "self", (int64_t)f->self);
		json__kv_real(j, "self_pct", share(f->self, samples));
		json__kv_int(j, "total", (int64_t)f->total);
		json__kv_real(j, "total_pct", share(f->total, samples));
		json__end_object(j);
	}
	json__end_array(j);
}

/* A per-process profile's processes (cgroup mode), by samples: the first TOP
 * rows, and a line for the rest. */
static int print_procs(const struct profile *p, size_t top, FILE *out)
{
	static const char *const cols[] = {"pid", "comm", "exe", "samples", "share"};
	struct table *t = table__new(5, cols);
	uint64_t rest = 0;
	char buf[32];
	int err = 0;

	if (!t)
		return -ENOMEM;
	for (size_t k = 0; k < p->n_procs && !err; k++) {
		const struct prof_proc *pr = &p->procs[k];
		double pct = share(pr->samples, p->all_stacked);

		if (k >= top) {
			rest += pr->samples;
			continue;
		}
		err = table__add_row(t);
		err = err ?: table__set_int(t, 0, pr->pid, NULL);
		if (pr->comm)
			err = err ?: table__set_text(t, 1, pr->comm);
		if (pr->exe)
			err = err ?: table__set_text(t, 2, pr->exe);
		err = err ?: table__set_int(t, 3, (int64_t)pr->samples, NULL);
		err = err ?: table__set_real(t, 4, pct, fmt_pct(buf, sizeof(buf), pct));
	}
	if (!err) {
		fprintf(out, "\nprocesses by samples (%zu):\n", p->n_procs);
		err = table__print(t, out, OUT_TEXT);
	}
	if (!err && p->n_procs > top)
		fprintf(out, "(%zu more processes: %" PRIu64 " samples; --top N shows more)\n",
			p->n_procs - top, rest);
	table__free(t);
	return err;
}

static void procs_json(struct json *j, const struct profile *p)
{
	json__key(j, "processes");
	json__begin_array(j);
	for (size_t k = 0; k < p->n_procs; k++) {
		const struct prof_proc *pr = &p->procs[k];

		json__begin_object(j);
		json__kv_int(j, "pid", pr->pid);
		json__kv_string(j, "comm", pr->comm);
		json__kv_string(j, "exe", pr->exe);
		json__kv_int(j, "samples", (int64_t)pr->samples);
		json__kv_real(j, "share_pct", share(pr->samples, p->all_stacked));
		json__end_object(j);
	}
	json__end_array(j);
}

/* The profile section: text after the CPU % tables, JSON as "profile". */
static int print_profile(sqlite3 *db, const struct capture_meta *m, const struct report_opts *o,
			 struct json *j, FILE *out)
{
	struct profile *p = NULL;
	struct prof_top t = {0};
	struct symstore_run run = {0};
	size_t top = o->top ? o->top : PROFILE_TOP_DEFAULT;
	char err_msg[512] = "", hz[32], warn[160] = "", dbi[768], cut[512] = "";
	int err;

	err = profile__load_pid(db, m, &o->win, pid_of(o), &p);
	if (err)
		return err;
	if (p->collected) {
		/* name what is not named yet: the same code as `symbolize`, no network
		 * unless --debuginfod; a symbol source given now may name what an
		 * earlier run could not, so misses are tried again then */
		struct symstore_opts so = { .cache_dir = o->symbol_cache,
					    .debuginfod = o->debuginfod,
					    .debuginfod_urls = o->debuginfod_urls,
					    .retry_misses = o->symbol_cache || o->debuginfod };

		err = symstore__ensure(db, m->cap, &so, &run, err_msg, sizeof(err_msg));
		if (err) {
			fprintf(stderr, "ptop-analyze report cpu: symbolizing: %s\n", err_msg);
			goto cleanup;
		}
		profile__free(p);
		p = NULL;
		err = profile__load_pid(db, m, &o->win, pid_of(o), &p);
		err = err ?: prof_top__build(p, &t);
		if (err)
			goto cleanup;
		err = profile__cut_note(p, t.samples, "samples", cut, sizeof(cut));
		if (err)
			goto cleanup;
		if (t.samples < PROFILE_FEW_SAMPLES)
			snprintf(warn, sizeof(warn),
				 "only %" PRIu64 " samples: shares are rough (counts are exact)",
				 t.samples);
	}
	if (o->fmt == OUT_JSON) {
		procs_json(j, p); /* always there: [] for one process or no profile */
		json__key(j, "profile");
		json__begin_object(j);
		json__kv_bool(j, "collected", p->collected);
		if (!p->collected) {
			json__kv_string(j, "state", p->probe.state);
			json__kv_string(j, "reason", p->probe.reason[0] ? p->probe.reason : NULL);
			json__end_object(j);
			goto cleanup;
		}
		json__kv_int(j, "intervals", (int64_t)p->intervals);
		json__key(j, "requested_hz");
		if (p->requested_hz)
			json__int(j, p->requested_hz);
		else
			json__null(j);
		json__kv_real(j, "delivered_hz", round2(p->delivered_hz));
		json__kv_int(j, "samples", (int64_t)t.samples);
		json__kv_int(j, "samples_counted", (int64_t)p->samples);
		json__kv_int(j, "unnamed_samples", (int64_t)t.unnamed);
		json__kv_real(j, "unnamed_pct", share(t.unnamed, t.samples));
		json__kv_int(j, "no_user_stack", (int64_t)p->no_user_stack);
		json__kv_int(j, "no_kernel_stack", (int64_t)p->no_kernel_stack);
		json__kv_int(j, "lost", (int64_t)p->lost);
		json__kv_int(j, "cut_samples", (int64_t)p->cut);
		json__kv_real(j, "cut_pct", share(p->cut, t.samples));
		json__kv_string(j, "cut_note", cut[0] ? cut : NULL);
		json__key(j, "probe_overhead"); /* out of samples and of every share */
		json__begin_object(j);
		json__kv_int(j, "samples", (int64_t)p->overhead);
		json__kv_real(j, "pct", share(p->overhead, t.samples + p->overhead));
		json__kv_string(j, "module", PTOP_PRELOAD_LIB_NAME);
		json__end_object(j);
		json__kv_string(j, "warning", warn[0] ? warn : NULL);
		symstore_run__debuginfod_json(&run, j);
		json__key(j, "pid");
		if (pid_of(o))
			json__int(j, pid_of(o));
		else
			json__null(j);
		json__kv_int(j, "samples_all_processes", (int64_t)p->all_stacked);
		fn_json(j, "top_self", t.fn, t.n, top, t.samples);
		if (t.n)
			qsort(t.fn, t.n, sizeof(*t.fn), cmp_total);
		fn_json(j, "top_total", t.fn, t.n, top, t.samples);
		json__end_object(j);
		goto cleanup;
	}
	if (o->fmt != OUT_TEXT)
		goto cleanup;
	if (!p->collected) {
		fprintf(out, "\nprofile: not collected (%s: %s)\n", p->probe.state,
			p->probe.reason[0] ? p->probe.reason : "no reason recorded");
		goto cleanup;
	}
	if (isfinite(p->delivered_hz))
		snprintf(hz, sizeof(hz), "%.1f Hz", p->delivered_hz);
	else
		snprintf(hz, sizeof(hz), "unknown rate");
	if (pid_of(o)) {
		const struct prof_proc *pr = profile__proc(p, pid_of(o));

		fprintf(out, "\nprofile of process %d%s%s%s: %" PRIu64 " of %" PRIu64 " samples",
			(int)pid_of(o), pr && pr->comm ? " (" : "", pr && pr->comm ? pr->comm : "",
			pr && pr->comm ? ")" : "", t.samples, p->all_stacked);
	} else {
		fprintf(out, "\nprofile: %" PRIu64 " samples", t.samples);
	}
	fprintf(out,
		" in %" PRIu64 " intervals, %" PRIu32 " Hz requested, %s delivered; unnamed %" PRIu64
		" (%.1f%%)",
		p->intervals, p->requested_hz, hz, t.unnamed,
		t.samples ? 100.0 * (double)t.unnamed / (double)t.samples : 0.0);
	if (p->no_user_stack || p->lost)
		fprintf(out, "; no user stack %" PRIu64 ", lost %" PRIu64, p->no_user_stack,
			p->lost);
	fputc('\n', out);
	if (warn[0])
		fprintf(out, "warning: %s\n", warn);
	if (cut[0])
		fprintf(out, "note: %s\n", cut);
	if (p->overhead)
		fprintf(out,
			"probe overhead: %" PRIu64 " samples (%.1f%% of %" PRIu64
			") in ptop's own code in the target (" PTOP_PRELOAD_LIB_NAME
			"), left out of the samples and shares here\n",
			p->overhead,
			100.0 * (double)p->overhead / (double)(t.samples + p->overhead),
			t.samples + p->overhead);
	if (symstore_run__debuginfod_text(&run, dbi, sizeof(dbi))[0])
		fprintf(out, "%s\n", dbi);
	if (p->n_procs) {
		err = print_procs(p, top, out);
		if (err)
			goto cleanup;
	}
	if (!t.samples)
		goto cleanup;
	fprintf(out, "\ntop functions by self samples:\n");
	err = print_fn_table(t.fn, t.n, top, t.samples, out);
	if (t.n)
		qsort(t.fn, t.n, sizeof(*t.fn), cmp_total);
	if (!err) {
		fprintf(out,
			"\ntop functions by total samples (a function counted once per stack):\n");
		err = print_fn_table(t.fn, t.n, top, t.samples, out);
	}
cleanup:
	prof_top__free(&t);
	profile__free(p);
	return err;
}

/* --pid: a process the capture's profile has samples of; else a usage error
 * said on stderr (-EPROTO). 0 or -errno. */
static int check_pid(sqlite3 *db, const struct capture_meta *m, const struct report_opts *o)
{
	struct probe_info pi;
	char msg[512];
	int err;

	if (!pid_of(o))
		return 0;
	err = probe__lookup(db, m->cap, "cpuprof", &pi);
	if (err)
		return err;
	if (!probe__active(&pi)) {
		fprintf(stderr,
			"ptop-analyze report cpu: --pid %d: the CPU profile was not collected in "
			"this capture (%s: %s)\n",
			(int)pid_of(o), pi.state, pi.reason[0] ? pi.reason : "no reason recorded");
		return -EPROTO;
	}
	err = profile__check_pid(db, m->cap, pid_of(o), msg, sizeof(msg));
	if (err == -ENOENT) {
		fprintf(stderr, "ptop-analyze report cpu: %s\n", msg);
		return -EPROTO;
	}
	return err;
}

static int cpu_body(const struct report_ctx *ctx)
{
	sqlite3 *db = ctx->db;
	const struct report_opts *o = ctx->o;
	FILE *out = ctx->out;
	const struct capture_meta m = *ctx->m;
	struct json *j = ctx->j;
	struct cpu_row *rows = NULL;
	struct table *sum = NULL;
	struct lane_sum s[LANES];
	struct throttle_sum ts;
	struct cpu_kind k;
	struct probe_info p;
	size_t n = 0;
	char w[96];
	int err;

	/* not "probe": the profile (cpuprof) is reported when the cpu probe did not run */
	err = probe__lookup(db, m.cap, "cpu", &p);
	err = err ?: check_pid(db, &m, o);
	if (err)
		goto cleanup;
	if (!probe__active(&p)) {
		if (o->fmt != OUT_JSON) {
			err = report__not_collected(j, out, o, "cpu", &p);
			err = err ?: print_profile(db, &m, o, NULL, out);
			goto cleanup;
		}
		json__kv_bool(j, "collected", false);
		json__kv_string(j, "state", p.state);
		json__kv_string(j, "reason", p.reason[0] ? p.reason : NULL);
		err = print_profile(db, &m, o, j, out);
		json__end_object(j);
		err = err ?: json__end(j);
		goto cleanup;
	}
	err = load_kind(db, &m, &k);
	err = err ?: load_rows(db, &m, &o->win, &k, &rows, &n);
	err = err ?: summarize(rows, n, m.cpus, s, &ts);
	if (err == -EOVERFLOW) {
		fprintf(stderr, "ptop-analyze report cpu: corrupt DB: the cpu_sample figures add up "
				"past 2^63 ns (292 years), which no recording holds; load the "
				"capture again\n");
		err = -EBADMSG;
	}
	if (!err && o->fmt != OUT_CSV)
		err = summary_rows(s, &k, &p, &sum);
	if (err)
		goto cleanup;
	switch (o->fmt) {
	case OUT_TEXT:
		window__describe(&o->win, w, sizeof(w));
		fprintf(out, "cpu (%s): %zu intervals; 100%% = one CPU busy all the interval", w,
			n);
		if (m.cpus > 0)
			fprintf(out, " (the host has %" PRId64 " CPUs)", m.cpus);
		fputc('\n', out);
		report__drops(NULL, out, o, "cpu", ctx->drops, ctx->ndrops);
		if (!n) {
			err = print_profile(db, &m, o, NULL, out);
			break;
		}
		fputc('\n', out);
		err = print_series(rows, n, &m, &k, true, out, OUT_TEXT);
		if (err)
			break;
		fputc('\n', out);
		err = print_summary_text(sum, out);
		print_lanes_note(&k, out);
		if (s[LANE_ONCPU].over)
			fprintf(out,
				"note: %" PRIu64 " of %" PRIu64 " intervals show more on-CPU time "
				"than the host's %" PRId64 " CPUs allow (max %.1f%%):\nthe eBPF "
				"lane over-counted there; the %s lane is the check.\n",
				s[LANE_ONCPU].over, s[LANE_ONCPU].samples, m.cpus,
				s[LANE_ONCPU].max_pct, k.cg ? "cgroup" : "/proc");
		if (k.cg)
			print_throttling_text(&ts, out);
		err = err ?: print_profile(db, &m, o, NULL, out);
		break;
	case OUT_CSV:
		report__drops(NULL, out, o, "cpu", ctx->drops, ctx->ndrops);
		err = print_series(rows, n, &m, &k, false, out, OUT_CSV);
		break;
	case OUT_JSON:
		json__kv_bool(j, "collected", true);
		json__kv_string(j, "source", p.source[0] ? p.source : NULL);
		json__key(j, "cpus");
		if (m.cpus > 0)
			json__int(j, m.cpus);
		else
			json__null(j);
		report__drops(j, out, o, "cpu", ctx->drops, ctx->ndrops);
		print_summary_json(j, sum);
		if (k.cg) /* a single-process capture's JSON stays as it was */
			print_throttling_json(j, &ts);
		print_series_json(j, rows, n, &m, &k);
		err = print_profile(db, &m, o, j, out);
		json__end_object(j);
		err = err ?: json__end(j);
		break;
	}
cleanup:
	table__free(sum);
	free(rows);
	return err;
}

/* ------------------------------------------------------------------ its reports */

static int parse_pid(void *settings, const char *arg, char *err, size_t len)
{
	if (!analyze_parse_pid(arg, &((struct cpu_opts *)settings)->pid))
		return 0;
	snprintf(err, len, "--pid takes a process id, not '%s'", arg);
	return -EINVAL;
}

static const struct report_option cpu_options[] = {
    {"pid", "PID",
     "cpu: the profile's functions of this process only\n"
     "(a --cgroup capture profiles each process)",
     parse_pid},
    {0},
};

static const struct an_report cpu_report = {
	.name = "cpu",
	.order = 20,
	.summary = "CPU % per interval (eBPF on-CPU lane, /proc user/system lane)\n"
		   "and the mean, max and CPU seconds of each; the CPU profile: top\n"
		   "functions by self and total samples (names from the symbol store,\n"
		   "symbolized on demand without network); a --cgroup capture's\n"
		   "processes by samples",
	.tables = "cpu_sample,cpu_profile,cpu_profile_stack",
	.options = cpu_options,
	.settings_size = sizeof(struct cpu_opts),
	.top = "the first N functions of the profile (default 20)",
	.drops = "cpu",
	.body = cpu_body,
};

int report_cpu(sqlite3 *db, const char *capture_id, const struct report_opts *o, FILE *out)
{
	return report__run(&cpu_report, db, capture_id, o, out);
}

const struct an_report *const cpu_reports[] = {
	&cpu_report,
	NULL,
};
