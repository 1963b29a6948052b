/* report.c — `report syscalls`: per syscall count, errors, latency and percentiles. */
#include "analyze/report.h"
#include "common/array.h"
#include "proto/syscall_table.h"
#include "collectors/syscalls/report.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* An interval sample is in the window when its midpoint is in [?2, ?3). */
#define MIDPOINT_IN_WINDOW(t)                                                                      \
	"(" t ".time_ns - COALESCE(" t ".interval_ns, 0) / 2) >= ?2 AND "                          \
	"(" t ".time_ns - COALESCE(" t ".interval_ns, 0) / 2) < ?3"

static const char stat_sql[] =
    "SELECT s.nr, MAX(s.name), SUM(s.count), SUM(s.completed), SUM(s.errors), "
    "SUM(s.total_ns) FROM syscall_stat s WHERE s.cap = ?1 AND " MIDPOINT_IN_WINDOW(
	"s") " GROUP BY s.nr";

/* Histogram rows carry no interval: their window comes from the stat row of the
 * same interval. Without a window every row counts. */
static const char hist_all_sql[] =
    "SELECT h.nr, h.bucket, SUM(h.count) FROM syscall_hist h WHERE h.cap = ?1 "
    "GROUP BY h.nr, h.bucket";
static const char hist_window_sql[] =
    "SELECT h.nr, h.bucket, SUM(h.count) FROM syscall_hist h JOIN syscall_stat s "
    "ON s.cap = h.cap AND s.time_ns = h.time_ns AND s.nr = h.nr "
    "AND s.pid IS h.pid WHERE h.cap = ?1 AND " MIDPOINT_IN_WINDOW(
	"s") " GROUP BY h.nr, h.bucket";

static enum report_sort sort_key;

static int cmp_agg(const void *pa, const void *pb)
{
	const struct syscall_agg *a = pa, *b = pb;
	uint64_t ka = sort_key == SORT_TOTAL ? a->total_ns : a->count;
	uint64_t kb = sort_key == SORT_TOTAL ? b->total_ns : b->count;
	uint64_t sa = sort_key == SORT_TOTAL ? a->count : a->total_ns;
	uint64_t sb = sort_key == SORT_TOTAL ? b->count : b->total_ns;

	if (ka != kb)
		return ka > kb ? -1 : 1;
	if (sa != sb)
		return sa > sb ? -1 : 1;
	return strcmp(a->name, b->name);
}

int syscalls__aggregate(sqlite3 *db, const struct capture_meta *m, const struct window *w,
			enum report_sort sort, struct syscall_agg **out, size_t *n)
{
	bool whole = !w->has_start && !w->has_end;
	const struct syscall_table *tab = syscall_table__find(m->machine[0] ? m->machine : NULL);
	struct syscall_agg *a = NULL;
	size_t na = 0, cap = 0, i;
	sqlite3_stmt *st = NULL;
	int err = 0, rc;

	*out = NULL;
	*n = 0;
	err = report__prepare(db, stat_sql, m, w, &st);
	if (err)
		goto cleanup;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct syscall_agg *r;
		const unsigned char *name = sqlite3_column_text(st, 1);
		const char *known;
		char fallback[32];

		if (array__grow((void **)&a, &cap, na, sizeof(*a))) {
			err = -ENOMEM;
			goto cleanup;
		}
		r = &a[na++];
		memset(r, 0, sizeof(*r));
		r->nr = sqlite3_column_int64(st, 0);
		known = r->nr >= 0 && r->nr <= UINT32_MAX
			    ? syscall_table__name(tab, (uint32_t)r->nr)
			    : NULL;
		snprintf(fallback, sizeof(fallback), "sys_%" PRId64, r->nr);
		if (!known && name && *name)
			known = (const char *)name;
		snprintf(r->name, sizeof(r->name), "%s", known ? known : fallback);
		/* a stored "sys_N" is the recorder's fallback: no table named N */
		r->name_known = strcmp(r->name, fallback) != 0;
		r->probe = r->nr >= 0 && r->nr <= UINT32_MAX &&
			   syscall_table__is_probe(tab, (uint32_t)r->nr);
		r->count = (uint64_t)sqlite3_column_int64(st, 2);
		r->completed = (uint64_t)sqlite3_column_int64(st, 3);
		r->errors = (uint64_t)sqlite3_column_int64(st, 4);
		r->total_ns = (uint64_t)sqlite3_column_int64(st, 5);
	}
	if (rc != SQLITE_DONE) {
		err = -EIO;
		goto cleanup;
	}
	sqlite3_finalize(st);
	st = NULL;

	if (whole) /* the query of every row takes the capture alone */
		err = sqlite3_prepare_v2(db, hist_all_sql, -1, &st, NULL) != SQLITE_OK ||
			      sqlite3_bind_int64(st, 1, m->cap) != SQLITE_OK
			  ? -EIO
			  : 0;
	else
		err = report__prepare(db, hist_window_sql, m, w, &st);
	if (err)
		goto cleanup;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t nr = sqlite3_column_int64(st, 0), b = sqlite3_column_int64(st, 1);

		if (b < 0 || b >= HIST_BUCKETS)
			continue; /* outside the log2 range of a u64: cannot be stored */
		for (i = 0; i < na; i++)
			if (a[i].nr == nr) {
				a[i].hist[b] += (uint64_t)sqlite3_column_int64(st, 2);
				break;
			}
	}
	if (rc != SQLITE_DONE) {
		err = -EIO;
		goto cleanup;
	}
	sort_key = sort;
	if (na)
		qsort(a, na, sizeof(*a), cmp_agg);
	*out = a;
	*n = na;
	a = NULL;
cleanup:
	sqlite3_finalize(st);
	free(a);
	return err;
}

size_t syscalls__split_probe(struct syscall_agg *a, size_t n)
{
	struct syscall_agg t;
	size_t i, k = 0;

	for (i = 0; i < n; i++) {
		if (a[i].probe)
			continue;
		if (i != k) { /* move row i in front of the probe rows, keeping their order */
			t = a[i];
			memmove(&a[k + 1], &a[k], (i - k) * sizeof(*a));
			a[k] = t;
		}
		k++;
	}
	return k;
}

/* mean latency of the completed calls, rounded; false when none completed */
static bool agg_mean(const struct syscall_agg *a, uint64_t *mean)
{
	if (!a->completed)
		return false;
	*mean = (a->total_ns + a->completed / 2) / a->completed;
	return true;
}

struct agg_sums {
	uint64_t calls, completed, errors, total_ns;
};

static void sums(const struct syscall_agg *a, size_t n, struct agg_sums *s)
{
	size_t i;

	memset(s, 0, sizeof(*s));
	for (i = 0; i < n; i++) {
		s->calls += a[i].count;
		s->completed += a[i].completed;
		s->errors += a[i].errors;
		s->total_ns += a[i].total_ns;
	}
}

static const char probe_what[] =
    "syscalls the kernel's uprobe trampolines made in the target for the uprobes "
    "attached to it (ptop's heap lane's, or another tool's): the probes' cost, not the "
    "target's work";

static void print_summary(FILE *out, const struct report_opts *o, const struct syscall_agg *a,
			  size_t n)
{
	uint64_t calls = 0, errors = 0, total = 0;
	char w[96], c1[32], c2[32], c3[32];
	size_t i;

	for (i = 0; i < n; i++) {
		calls += a[i].count;
		errors += a[i].errors;
		total += a[i].total_ns;
	}
	window__describe(&o->win, w, sizeof(w));
	fprintf(out, "syscalls (%s): %zu distinct, %s calls, %s errors, %s total latency\n", w, n,
		fmt_count(c1, sizeof(c1), calls), fmt_count(c2, sizeof(c2), errors),
		fmt_ns(c3, sizeof(c3), total));
}

/* The table of A[0..SHOWN); time% is each row's share of SUM ns. */
static int build_table(const struct syscall_agg *a, size_t shown, uint64_t sum, bool human,
		       struct table **tp)
{
	static const char *const cols[] = {
	    "name",	"nr",	   "count",  "completed", "errors",
	    "total_ns", "mean_ns", "p50_ns", "p99_ns",	  "time_share_pct"};
	/* text: the name, then the count (nr last: it matters least to a reader) */
	static const char *const hcols[] = {"syscall", "count", "errors", "total", "mean",
					    "p50",     "p99",	"time%",  "nr"};
	struct table *t = table__new(human ? 9 : 10, human ? hcols : cols);
	uint64_t v;
	char buf[32];
	size_t i, c;
	int err = 0;

	if (!t)
		return -ENOMEM;
	for (i = 0; i < shown && !err; i++) {
		const struct syscall_agg *r = &a[i];

		c = 0;
		err = table__add_row(t);
		err = err ?: table__set_text(t, c++, r->name);
		if (!human)
			err = err ?: table__set_int(t, c++, r->nr, NULL);
		err = err
			  ?: table__set_int(t, c++, (int64_t)r->count,
					    human ? fmt_count(buf, sizeof(buf), r->count) : NULL);
		if (!human)
			err = err ?: table__set_int(t, c++, (int64_t)r->completed, NULL);
		err = err
			  ?: table__set_int(t, c++, (int64_t)r->errors,
					    human ? fmt_count(buf, sizeof(buf), r->errors) : NULL);
		/* no completed call (exit_group, or every exit unmatched): no latency was
		 * measured, so the total and its share are empty, not 0 */
		if (!err && r->completed)
			err = table__set_int(t, c, (int64_t)r->total_ns,
					     human ? fmt_ns(buf, sizeof(buf), r->total_ns) : NULL);
		c++;
		if (err)
			break;
		if (agg_mean(r, &v))
			err = table__set_int(t, c, (int64_t)v,
					     human ? fmt_ns(buf, sizeof(buf), v) : NULL);
		c++;
		if (!err && !hist_percentile(r->hist, HIST_BUCKETS, 50, &v, NULL, NULL))
			err = table__set_int(t, c, (int64_t)v,
					     human ? fmt_ns(buf, sizeof(buf), v) : NULL);
		c++;
		if (!err && !hist_percentile(r->hist, HIST_BUCKETS, 99, &v, NULL, NULL))
			err = table__set_int(t, c, (int64_t)v,
					     human ? fmt_ns(buf, sizeof(buf), v) : NULL);
		c++;
		if (!err && sum && r->completed) {
			double pct = (double)r->total_ns * 100.0 / (double)sum;

			pct = (double)llround(pct * 100) / 100; /* two decimals */
			err = table__set_real(t, c, pct,
					      human ? fmt_pct(buf, sizeof(buf), pct) : NULL);
		}
		c++;
		if (!err && human)
			err = table__set_int(t, c, r->nr, NULL);
	}
	if (err) {
		table__free(t);
		return err;
	}
	*tp = t;
	return 0;
}

static void json_percentile(struct json *j, const char *key, const char *bkey,
			    const struct syscall_agg *r, unsigned pct)
{
	uint64_t est, lo, hi;

	if (hist_percentile(r->hist, HIST_BUCKETS, pct, &est, &lo, &hi)) {
		json__kv_null(j, key);
		json__kv_null(j, bkey);
		return;
	}
	json__key(j, key);
	json__uint(j, est);
	json__key(j, bkey);
	json__begin_array(j);
	json__uint(j, lo);
	json__uint(j, hi);
	json__end_array(j);
}

static void json_row(struct json *j, const struct syscall_agg *r, uint64_t sum)
{
	uint64_t v;

	json__begin_object(j);
	json__kv_string(j, "name", r->name);
	json__kv_int(j, "nr", r->nr);
	json__key(j, "count");
	json__uint(j, r->count);
	json__key(j, "completed");
	json__uint(j, r->completed);
	json__key(j, "errors");
	json__uint(j, r->errors);
	json__key(j, "total_ns");
	if (r->completed)
		json__uint(j, r->total_ns);
	else
		json__null(j); /* no latency measured */
	json__key(j, "mean_ns");
	if (agg_mean(r, &v))
		json__uint(j, v);
	else
		json__null(j);
	json_percentile(j, "p50_ns", "p50_bucket_ns", r, 50);
	json_percentile(j, "p99_ns", "p99_bucket_ns", r, 99);
	json__key(j, "time_share_pct");
	if (sum && r->completed)
		json__real(j, (double)llround((double)r->total_ns * 10000.0 / (double)sum) / 100);
	else
		json__null(j);
	json__kv_bool(j, "name_known", r->name_known);
	json__end_object(j);
}

static void json_sums(struct json *j, const struct agg_sums *s)
{
	json__key(j, "count");
	json__uint(j, s->calls);
	json__key(j, "completed");
	json__uint(j, s->completed);
	json__key(j, "errors");
	json__uint(j, s->errors);
	json__key(j, "total_ns");
	json__uint(j, s->total_ns);
}

/* A[0..N) the target's rows (SHOWN of them printed), P[0..NP) the probe overhead;
 * TAB the capture's syscall table (NULL: none, probe overhead not told apart). */
static void print_json_rows(struct json *j, const struct syscall_agg *a, size_t n, size_t shown,
			    const struct syscall_agg *p, size_t np,
			    const struct syscall_table *tab)
{
	struct agg_sums ts, ps;
	size_t i;

	sums(a, n, &ts);
	sums(p, np, &ps);
	json__key(j, "totals");
	json__begin_object(j);
	json__kv_int(j, "syscalls", (int64_t)n);
	json_sums(j, &ts);
	json__end_object(j);
	json__key(j, "syscalls");
	json__begin_array(j);
	for (i = 0; i < shown; i++)
		json_row(j, &a[i], ts.total_ns);
	json__end_array(j);
	json__key(j, "probe_overhead");
	if (!tab) { /* no table for this machine: the probes' syscalls cannot be told apart */
		json__null(j);
		return;
	}
	json__begin_object(j);
	json__kv_string(j, "what", probe_what);
	json__kv_int(j, "syscalls", (int64_t)np);
	json_sums(j, &ps);
	json__key(j, "time_share_pct"); /* of all syscall time, the probes' included */
	if (ts.total_ns + ps.total_ns)
		json__real(j, (double)llround((double)ps.total_ns * 10000.0 /
					      (double)(ts.total_ns + ps.total_ns)) /
				  100);
	else
		json__null(j);
	json__key(j, "rows");
	json__begin_array(j);
	for (i = 0; i < np; i++)
		json_row(j, &p[i], ts.total_ns + ps.total_ns);
	json__end_array(j);
	json__end_object(j);
}

/* The syscalls of A[0..N) whose name is unknown, one line to OUT: what they are,
 * why they have no name and what to do. Nothing when every name is known. */
static void print_unknown(FILE *out, const struct syscall_agg *a, size_t n, const char *machine,
			  const struct syscall_table *tab)
{
	size_t i, k = 0;

	for (i = 0; i < n; i++) {
		if (a[i].name_known)
			continue;
		fprintf(out, "%s%s", k++ ? ", " : "names unknown to this ptop version: ", a[i].name);
	}
	if (!k)
		return;
	if (tab)
		fprintf(out, " (numbers past its table, %s: the recording kernel is newer; a "
			     "newer ptop-analyze names them)\n",
			syscall_table__describe(tab));
	else
		fprintf(out, " (this ptop has no syscall table for machine '%s', and the "
			     "recorder stored no name)\n",
			*machine ? machine : "unknown");
}

/* The probe overhead in text: a line of totals and the table of P[0..NP), time%
 * of ALL_NS (all syscall time, the probes' included). */
static int print_probe_text(FILE *out, const struct syscall_agg *p, size_t np, uint64_t all_ns)
{
	struct table *t = NULL;
	struct agg_sums ps;
	char c1[32], c2[32];
	int err;

	sums(p, np, &ps);
	fprintf(out, "\nprobe overhead, not in the figures above: %s calls, %s total latency\n",
		fmt_count(c1, sizeof(c1), ps.calls), fmt_ns(c2, sizeof(c2), ps.total_ns));
	err = build_table(p, np, all_ns, true, &t);
	err = err ?: table__print(t, out, OUT_TEXT);
	table__free(t);
	return err;
}

static int syscalls_body(const struct report_ctx *ctx)
{
	sqlite3 *db = ctx->db;
	const struct report_opts *o = ctx->o;
	FILE *out = ctx->out;
	const struct capture_meta m = *ctx->m;
	struct json *j = ctx->j;
	const struct syscall_table *tab;
	struct syscall_agg *a = NULL, *pr;
	struct table *t = NULL;
	size_t n = 0, shown, all, np;
	struct agg_sums ts, ps;
	char c1[32], c2[32];
	const enum report_sort sort = REPORT_OWN(o, struct syscalls_opts)->sort;
	int err;

	err = syscalls__aggregate(db, &m, &o->win, sort, &a, &all);
	if (err)
		goto cleanup;
	tab = syscall_table__find(m.machine[0] ? m.machine : NULL);
	/* the target's own syscalls a[0..n), the probe overhead pr[0..np) */
	n = syscalls__split_probe(a, all);
	pr = a ? a + n : NULL; /* NULL + 0 is undefined: no syscall at all */
	np = all - n;
	sums(a, n, &ts);
	sums(pr, np, &ps);
	shown = o->top && o->top < n ? o->top : n;
	switch (o->fmt) {
	case OUT_TEXT:
		print_summary(out, o, a, n);
		report__drops(NULL, out, o, "syscalls", ctx->drops, ctx->ndrops);
		if (n) {
			fputc('\n', out);
			err = build_table(a, shown, ts.total_ns, true, &t);
			err = err ?: table__print(t, out, OUT_TEXT);
			if (!err && shown < n)
				fprintf(out, "(%zu more; --top 0 shows all)\n", n - shown);
		}
		if (!err && np)
			err = print_probe_text(out, pr, np, ts.total_ns + ps.total_ns);
		if (!err && !tab)
			fprintf(out, "\nthis ptop has no syscall table for machine '%s': names are "
				     "the recorder's, probe overhead is not told apart\n",
				m.machine[0] ? m.machine : "unknown");
		if (!err && (n || np)) {
			fputc('\n', out);
			print_unknown(out, a, all, m.machine, tab);
			fprintf(out,
				"mean: total latency / completed calls. p50, p99: geometric midpoint "
				"of the log2 latency\nbucket holding that rank (within a factor of "
				"1.41 of the true value). time%%: share of\nthe summed latency of all "
				"the target's syscalls. Sorted by %s.\n",
				sort == SORT_TOTAL ? "total latency" : "count");
			if (np)
				fprintf(out,
					"probe overhead: syscalls that only the kernel's uprobe "
					"trampolines make, here for the\nuprobes attached to the "
					"target (ptop's heap lane's, or another tool's): the probes'\n"
					"cost, not the target's work. Its time%%: share of all "
					"syscalls, the probes' included.\n");
		}
		break;
	case OUT_CSV:
		report__drops(NULL, out, o, "syscalls", ctx->drops, ctx->ndrops);
		/* stdout holds the target's table only; the probe overhead goes to stderr */
		for (size_t i = 0; i < np; i++)
			fprintf(stderr,
				"probe overhead (uprobe trampolines, not in the table): %s (%" PRId64
				"): %s calls, %s total latency\n",
				pr[i].name, pr[i].nr, fmt_count(c1, sizeof(c1), pr[i].count),
				fmt_ns(c2, sizeof(c2), pr[i].total_ns));
		print_unknown(stderr, a, all, m.machine, tab);
		err = build_table(a, shown, ts.total_ns, false, &t);
		err = err ?: table__print(t, out, OUT_CSV);
		break;
	case OUT_JSON:
		json__kv_bool(j, "collected", true);
		json__kv_string(j, "source", ctx->probe->source[0] ? ctx->probe->source : NULL);
		json__kv_string(j, "sort", sort == SORT_TOTAL ? "total" : "count");
		report__drops(j, out, o, "syscalls", ctx->drops, ctx->ndrops);
		print_json_rows(j, a, n, shown, pr, np, tab);
		json__end_object(j);
		err = json__end(j);
		break;
	}
cleanup:
	table__free(t);
	free(a);
	return err;
}

/* ------------------------------------------------------------------ its reports */

static int parse_sort(void *settings, const char *arg, char *err, size_t len)
{
	struct syscalls_opts *s = settings;

	if (!strcmp(arg, "count") || !strcmp(arg, "total")) {
		s->sort = !strcmp(arg, "total") ? SORT_TOTAL : SORT_COUNT;
		return 0;
	}
	snprintf(err, len, "--sort takes count or total, not '%s'", arg);
	return -EINVAL;
}

static const struct report_option syscalls_options[] = {
    {"sort", "count|total",
     "syscalls: order by call count (default) or by total\n"
     "latency",
     parse_sort},
    {0},
};

static const struct an_report syscalls_report = {
	.name = "syscalls",
	.order = 10,
	.summary = "per syscall: count, errors, total and mean latency, p50 and p99\n"
		   "from the log2 latency histogram, share of the syscall time",
	.tables = "syscall_stat,syscall_hist",
	.options = syscalls_options,
	.settings_size = sizeof(struct syscalls_opts),
	.top = "only the first N (default all)",
	.probe = "syscalls",
	.drops = "syscalls",
	.body = syscalls_body,
};

int report_syscalls(sqlite3 *db, const char *capture_id, const struct report_opts *o, FILE *out)
{
	return report__run(&syscalls_report, db, capture_id, o, out);
}

const struct an_report *const syscalls_reports[] = {
	&syscalls_report,
	NULL,
};
