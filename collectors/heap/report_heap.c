/* report_heap.c — `report heap`: allocations by allocating function (live bytes, bytes and
 * count allocated, rate, lifetime, with the census of the sites left out), from the loader
 * (report_load.c). */
#include "collectors/heap/report_int.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- report heap */

enum heap_by hr_heap_by(const struct heap *h, enum heap_by by)
{
	if (by == HEAP_BY_DEFAULT)
		return h->live_measured ? HEAP_BY_LIVE : HEAP_BY_BYTES;
	return by;
}

static const char *by_name(enum heap_by by)
{
	return by == HEAP_BY_LIVE ? "live" : by == HEAP_BY_COUNT ? "count" : "bytes";
}

int hr_cmp_fn_name(const struct hfn *x, const struct hfn *y)
{
	int c = strcmp(x->name, y->name);

	return c ? c : strcmp(x->module, y->module);
}


static int cmp_live(const void *a, const void *b)
{
	const struct hfn *x = a, *y = b;

	CMP_DESC(x->live_bytes, y->live_bytes);
	CMP_DESC(x->alloc_bytes, y->alloc_bytes);
	return hr_cmp_fn_name(x, y);
}

static int cmp_bytes(const void *a, const void *b)
{
	const struct hfn *x = a, *y = b;

	CMP_DESC(x->alloc_bytes, y->alloc_bytes);
	CMP_DESC(x->alloc_count, y->alloc_count);
	return hr_cmp_fn_name(x, y);
}

static int cmp_count(const void *a, const void *b)
{
	const struct hfn *x = a, *y = b;

	CMP_DESC(x->alloc_count, y->alloc_count);
	CMP_DESC(x->alloc_bytes, y->alloc_bytes);
	return hr_cmp_fn_name(x, y);
}

int hr_cmp_suspect(const void *a, const void *b)
{
	const struct hfn *x = a, *y = b;

	CMP_DESC(x->trend.score, y->trend.score);
	CMP_DESC(x->live_bytes, y->live_bytes);
	CMP_DESC(-x->oldest_live_ns, -y->oldest_live_ns);
	return hr_cmp_fn_name(x, y);
}

static double span_s(const struct heap *h)
{
	return h->t1_ns > h->t0_ns ? (double)(h->t1_ns - h->t0_ns) / 1e9 : NAN;
}

static double mean_lifetime(const struct hfn *f)
{
	return f->freed_count ? (double)f->lifetime_sum / (double)f->freed_count : NAN;
}

void hr_loc_text(const char *file, unsigned line, char *buf, size_t len)
{
	if (!file)
		snprintf(buf, len, "%s", "");
	else if (line)
		snprintf(buf, len, "%s:%u", file, line);
	else
		snprintf(buf, len, "%s", file);
}

const char *hr_why_not_measured(const struct heap *h)
{
	const char *go = capture_heap_lane_name(PTOP__V1__HEAP_LANE__HEAP_LANE_GO);

	for (size_t k = 0; k < h->n_snap; k++)
		if (!h->snap[k].live_measured && !strcmp(h->snap[k].lane, go))
			return "the go lane counts allocations, not frees";
	return "the snapshots say live bytes were not measured";
}

/* The heap drops that cost the sites events (the totals are counted apart, in the lanes'
 * counters): the per-function figures are then lower bounds. Sets H's sites_lost and
 * sites_lost_why ("lower bounds: N events lost (KIND N, ...)"). */
void hr_sites_lost(struct heap *h, const struct drop_line *d, size_t n)
{
	static const char *const kinds[] = { "ring_full", "site_map_full" };
	uint64_t by[2] = { 0, 0 };
	char a[32], b[32];
	size_t i, k, len = sizeof(h->sites_lost_why);
	int at;

	for (i = 0; i < n; i++)
		for (k = 0; k < 2; k++)
			if (!strcmp(d[i].kind, kinds[k]))
				by[k] += d[i].lost;
	h->sites_lost = by[0] + by[1];
	h->sites_lost_why[0] = 0;
	if (!h->sites_lost)
		return;
	at = snprintf(h->sites_lost_why, len, "lower bounds: %s events lost (",
		      fmt_count(a, sizeof(a), h->sites_lost));
	for (k = 0; k < 2; k++)
		if (by[k] && at > 0 && (size_t)at < len)
			at += snprintf(h->sites_lost_why + at, len - (size_t)at, "%s%s %s",
				       h->sites_lost_why[at - 1] == '(' ? "" : ", ", kinds[k],
				       fmt_count(b, sizeof(b), by[k]));
	if (at > 0 && (size_t)at < len)
		snprintf(h->sites_lost_why + at, len - (size_t)at, ")");
}

static void sampling_text(const struct heap *h, char *buf, size_t len)
{
	char b[32];

	if (!h->sample_bytes_max)
		snprintf(buf, len, "every allocation with its stack (sample_bytes 0): %s",
			 h->sites_lost ? h->sites_lost_why : "exact");
	else
		snprintf(buf, len,
			 "one stack per %s allocated on average (randomized)%s; totals exact, the "
			 "split between functions estimated%s%s",
			 fmt_bytes(b, sizeof(b), h->sample_bytes_max),
			 h->mixed_sampling ? " at most" : "", h->sites_lost ? "; " : "",
			 h->sites_lost_why);
}

void hr_census_text(const struct heap *h, FILE *out)
{
	char a[32], b[32], c[32], d[32], e[32];

	if (!h->cut_intervals && h->sample_bytes_max) {
		/* every sampled site is listed, but a function no sample fell on is not one */
		fprintf(out,
			"census: every sampled site is listed (%s sites in the last interval); "
			"with sampling (one stack per %s) a function that allocated less may have "
			"no sample: a function not shown may still have allocated\n",
			fmt_count(a, sizeof(a), h->last_total),
			fmt_bytes(b, sizeof(b), h->sample_bytes_max));
		return;
	}
	if (!h->cut_intervals) {
		fprintf(out,
			"census: the site lists are complete (%s sites in the last interval): a "
			"function not shown allocated nothing\n",
			fmt_count(a, sizeof(a), h->last_total));
		return;
	}
	fprintf(out,
		"census: %s of %s sites shown (last interval); the other %s carried %s, %s "
		"allocations over the window",
		fmt_count(a, sizeof(a), h->last_sites), fmt_count(b, sizeof(b), h->last_total),
		fmt_count(c, sizeof(c), h->last_total - h->last_sites),
		fmt_bytes(d, sizeof(d), h->omitted_alloc_bytes),
		fmt_count(e, sizeof(e), h->omitted_alloc_count));
	if (h->omitted_live_bytes >= 0)
		fprintf(out, ", %s live at the end",
			fmt_bytes(a, sizeof(a), (uint64_t)h->omitted_live_bytes));
	fprintf(out, " (%" PRIu64 " of %zu intervals cut)%s\n", h->cut_intervals, h->n_snap,
		h->sample_bytes_max ? "; with sampling, a function not shown may have had no "
				      "sample"
				    : "");
}

static void census_json(struct json *j, const struct heap *h)
{
	json__key(j, "census");
	json__begin_object(j);
	json__kv_int(j, "sites_shown", (int64_t)h->last_sites);
	json__kv_int(j, "total_call_sites", (int64_t)h->last_total);
	/* complete: a function not listed allocated nothing; never so with sampling */
	json__kv_bool(j, "complete", !h->cut_intervals && !h->sample_bytes_max);
	json__kv_bool(j, "sampled", h->sample_bytes_max != 0);
	json__kv_int(j, "intervals", (int64_t)h->n_snap);
	json__kv_int(j, "intervals_cut", (int64_t)h->cut_intervals);
	json__kv_int(j, "omitted_sites", (int64_t)(h->last_total - h->last_sites));
	json__kv_int(j, "omitted_alloc_count", (int64_t)h->omitted_alloc_count);
	json__kv_int(j, "omitted_alloc_bytes", (int64_t)h->omitted_alloc_bytes);
	json__key(j, "omitted_live_bytes");
	if (h->omitted_live_bytes >= 0)
		json__int(j, h->omitted_live_bytes);
	else
		json__null(j);
	json__end_object(j);
}

/* ", lane LANE, allocator MODULE" for one lane; for several ", lanes: LANE (MODULE)
 * FROM–TO s, then LANE (MODULE) FROM–TO s" ("and" for lanes side by side). */
static void lanes_text(const struct heap *h, FILE *out)
{
	char a[32], b[32];

	if (h->n_lane == 1) {
		fprintf(out, ", lane %s, allocator %s", h->lane[0].lane,
			h->lane[0].module[0] ? h->lane[0].module : "(not named)");
		return;
	}
	fputs(", lanes: ", out);
	for (size_t k = 0; k < h->n_lane; k++) {
		const struct hlane *l = &h->lane[k];

		if (k)
			fputs(l->first_ns > h->lane[k - 1].last_ns ? ", then " : " and ", out);
		fprintf(out, "%s (%s) %s\u2013%s s", l->lane,
			l->module[0] ? l->module : "not named",
			fmt_secs(a, sizeof(a), l->from_ns - h->base_ns),
			fmt_secs(b, sizeof(b), l->last_ns - h->base_ns));
	}
}

static void lanes_json(struct json *j, const struct heap *h)
{
	json__key(j, "lanes");
	json__begin_array(j);
	for (size_t k = 0; k < h->n_lane; k++) {
		const struct hlane *l = &h->lane[k];

		json__begin_object(j);
		json__kv_string(j, "lane", l->lane);
		json__kv_string(j, "module", l->module);
		json__kv_real(j, "from_s", (double)(l->from_ns - h->base_ns) / 1e9);
		json__kv_real(j, "to_s", (double)(l->last_ns - h->base_ns) / 1e9);
		json__end_object(j);
	}
	json__end_array(j);
}

/* "COLLECTOR not measured from FROM s to TO s (or the end): STATE after CAUSE: REASON",
 * one line per gap. */
static void gaps_text(const struct heap *h, FILE *out)
{
	char a[32], b[32], dbi[768];

	if (symstore_run__debuginfod_text(&h->sym, dbi, sizeof(dbi))[0])
		fprintf(out, "%s\n", dbi);
	for (size_t k = 0; k < h->n_gap; k++) {
		const struct hgap *g = &h->gap[k];

		fprintf(out, "%s not measured from %s s to %s%s: %s%s%s%s%s\n", g->name,
			fmt_secs(a, sizeof(a), g->from_ns - h->base_ns),
			g->to_ns < 0 ? "the end" : fmt_secs(b, sizeof(b), g->to_ns - h->base_ns),
			g->to_ns < 0 ? "" : " s", g->state, g->cause[0] ? " after " : "", g->cause,
			g->reason[0] ? ": " : "", g->reason);
	}
}

static void gaps_json(struct json *j, const struct heap *h)
{
	json__key(j, "not_measured");
	json__begin_array(j);
	for (size_t k = 0; k < h->n_gap; k++) {
		const struct hgap *g = &h->gap[k];

		json__begin_object(j);
		json__kv_string(j, "collector", g->name);
		json__kv_real(j, "from_s", (double)(g->from_ns - h->base_ns) / 1e9);
		if (g->to_ns < 0)
			json__kv_null(j, "to_s");
		else
			json__kv_real(j, "to_s", (double)(g->to_ns - h->base_ns) / 1e9);
		json__kv_string(j, "state", g->state);
		json__kv_string(j, "reason", g->reason[0] ? g->reason : NULL);
		json__kv_string(j, "cause", g->cause[0] ? g->cause : NULL);
		json__end_object(j);
	}
	json__end_array(j);
}

void hr_head_json(struct json *j, const struct heap *h)
{
	json__kv_bool(j, "collected", true);
	json__kv_string(j, "lane", h->n_snap ? h->snap[h->n_snap - 1].lane : NULL);
	json__kv_string(j, "module", h->n_snap ? h->snap[h->n_snap - 1].module : NULL);
	lanes_json(j, h);
	gaps_json(j, h);
	symstore_run__debuginfod_json(&h->sym, j);
	json__kv_int(j, "intervals", (int64_t)h->n_snap);
	json__kv_int(j, "sample_bytes", (int64_t)h->sample_bytes_max);
	json__kv_bool(j, "exact", h->n_snap && !h->sample_bytes_max && !h->sites_lost);
	json__kv_int(j, "sites_events_lost", (int64_t)h->sites_lost);
	json__kv_string(j, "sites_lost_note", h->sites_lost ? h->sites_lost_why : NULL);
	json__kv_bool(j, "live_measured", h->live_measured);
	if (!h->live_measured)
		json__kv_string(j, "live_not_measured_reason", hr_why_not_measured(h));
	json__key(j, "totals");
	json__begin_object(j);
	json__kv_int(j, "alloc_count", (int64_t)h->alloc_count);
	json__kv_int(j, "alloc_bytes", (int64_t)h->alloc_bytes);
	json__kv_real(j, "rate_bytes_per_s", (double)h->alloc_bytes / span_s(h));
	report__json_opt_int(j, "live_bytes", h->live_bytes);
	report__json_opt_int(j, "live_count", h->live_count);
	report__json_opt_int(j, "leak_bytes", h->leak_bytes);
	report__json_opt_int(j, "leak_age_ns", h->leak_age_ns);
	json__end_object(j);
	census_json(j, h);
	report__json_opt_int(j, "live_untracked", h->live_untracked);
	report__json_opt_int(j, "free_untracked", h->free_untracked);
	json__kv_int(j, "stack_failures", (int64_t)h->stack_failures);
	json__kv_int(j, "stacks_cut", (int64_t)h->stacks_cut);
	json__kv_int(j, "stacks", (int64_t)h->stacks_used);
}


const char *const hr_site_cols[LC_N] = {
    "func",
    "named",
    "file",
    "line",
    "module",
    "live_measured",
    "live_bytes",
    "live_count",
    "alloc_bytes",
    "alloc_count",
    "rate_bytes_per_s",
    "mean_lifetime_ns",
    "freed_count",
    "stacks",
    /* leak_col */
    "oldest_live_age_ns",
    "growth_bytes_per_min",
    "score",
    "r2",
    "grew",
    "snapshots",
    "confidence",
};
_Static_assert(sizeof(hr_site_cols) / sizeof(hr_site_cols[0]) == LC_N, "hr_site_cols");

/* Fill the site columns of the last row of T with function F of H, text displays
 * included. 0 or -ENOMEM. */
int hr_site_row(struct table *t, const struct heap *h, const struct hfn *f)
{
	bool live = h->live_measured;
	char buf[32];
	int err;

	err = table__set_text(t, SC_FUNC, f->name);
	err = err ?: table__set_bool(t, SC_NAMED, f->named, NULL);
	err = err ?: table__set_text(t, SC_FILE, f->file);
	if (f->line)
		err = err ?: table__set_int(t, SC_LINE, f->line, NULL);
	err = err ?: table__set_text(t, SC_MODULE, f->module);
	err = err ?: table__set_display(t, SC_MODULE, hr_base_of(f->module));
	err = err ?: table__set_bool(t, SC_LIVE_MEASURED, live, NULL);
	if (live) {
		err = err
			  ?: table__set_int(t, SC_LIVE_BYTES, (int64_t)f->live_bytes,
					    fmt_bytes(buf, sizeof(buf), f->live_bytes));
		err = err
			  ?: table__set_int(t, SC_LIVE_COUNT, (int64_t)f->live_count,
					    fmt_count(buf, sizeof(buf), f->live_count));
	}
	err = err ?: table__set_int(t, SC_ALLOC_BYTES, (int64_t)f->alloc_bytes, NULL);
	err = err ?: table__set_int(t, SC_ALLOC_COUNT, (int64_t)f->alloc_count, NULL);
	err = err ?: table__set_real(t, SC_RATE, (double)f->alloc_bytes / span_s(h), NULL);
	err = err ?: table__set_real(t, SC_LIFETIME, live ? mean_lifetime(f) : NAN, NULL);
	if (live)
		err = err ?: table__set_int(t, SC_FREED, (int64_t)f->freed_count, NULL);
	err = err ?: table__set_int(t, SC_STACKS, (int64_t)f->n_stacks, NULL);
	return err;
}

/* The site columns of F as keys of the object J has open. 0 or -ENOMEM. */
static int site_json_common(struct json *j, const struct heap *h, const struct hfn *f)
{
	struct table *t = table__new(SC_N, hr_site_cols);
	int err;

	if (!t)
		return -ENOMEM;
	err = table__add_row(t);
	err = err ?: hr_site_row(t, h, f);
	if (!err)
		table__json_fields(t, j, 0, NULL, SC_N);
	table__free(t);
	return err;
}

static int heap_table(const struct heap *h, size_t top, FILE *out, enum out_format fmt)
{
	static const char *const cols[] = {"live",   "live#",	      "allocated", "allocs",
					   "rate/s", "mean lifetime", "stacks",	   "function",
					   "file:line", "module"};
	static const char *const ccols[] = {"live_bytes",	"live_count", "alloc_bytes",
					    "alloc_count",	"rate_bytes_per_s",
					    "mean_lifetime_ns", "stacks",     "func",
					    "file_line",	"module"};
	static const char *const tcols[] = {"live",	 "live#",	"allocated", "allocs",
					    "temporary", "rate/s",	"mean lifetime",
					    "stacks",	 "function",	"file:line", "module"};
	static const char *const tccols[] = {"live_bytes",	 "live_count", "alloc_bytes",
					     "alloc_count",	 "temporary_count",
					     "rate_bytes_per_s", "mean_lifetime_ns",
					     "stacks",		 "func",       "file_line",
					     "module"};
	/* the temporaries' column when they were measured: the columns after it move by o */
	int o = h->temp_count >= 0;
	struct table *t = o ? table__new(11, fmt == OUT_TEXT ? tcols : tccols)
			    : table__new(10, fmt == OUT_TEXT ? cols : ccols);
	bool human = fmt == OUT_TEXT;
	char buf[64], loc[512];
	double span = span_s(h);
	int err = 0;

	if (!t)
		return -ENOMEM;
	if (!h->live_measured && human)
		err = table__set_null_text(t, "not measured");
	for (size_t k = 0; k < h->n_fn && k < top && !err; k++) {
		const struct hfn *f = &h->fn[k];
		double rate = (double)f->alloc_bytes / span, life = mean_lifetime(f);

		err = table__add_row(t);
		if (h->live_measured) {
			err = err ?: table__set_int(t, 0, (int64_t)f->live_bytes,
						    human ? fmt_bytes(buf, sizeof(buf), f->live_bytes)
							  : NULL);
			err = err ?: table__set_int(t, 1, (int64_t)f->live_count,
						    human ? fmt_count(buf, sizeof(buf), f->live_count)
							  : NULL);
		}
		err = err ?: table__set_int(t, 2, (int64_t)f->alloc_bytes,
					    human ? fmt_bytes(buf, sizeof(buf), f->alloc_bytes) : NULL);
		err = err ?: table__set_int(t, 3, (int64_t)f->alloc_count,
					    human ? fmt_count(buf, sizeof(buf), f->alloc_count) : NULL);
		if (o)
			err = err ?: table__set_int(t, 4, (int64_t)f->temp_count,
						    human ? fmt_count(buf, sizeof(buf), f->temp_count)
							  : NULL);
		if (isfinite(rate))
			err = err ?: table__set_real(t, 4 + o, round(rate),
						     human ? fmt_bytes(buf, sizeof(buf),
								       (uint64_t)llround(rate))
							   : NULL);
		if (h->live_measured && isfinite(life))
			err = err ?: table__set_real(t, 5 + o, round(life),
						     human ? fmt_ns(buf, sizeof(buf),
								    (uint64_t)llround(life))
							   : NULL);
		else if (h->live_measured && human)
			err = err ?: table__set_text(t, 5 + o, "none freed");
		err = err ?: table__set_int(t, 6 + o, (int64_t)f->n_stacks, NULL);
		err = err ?: table__set_text(t, 7 + o, f->name);
		hr_loc_text(f->file, f->line, loc, sizeof(loc));
		if (loc[0])
			err = err ?: table__set_text(t, 8 + o, loc);
		err = err ?: table__set_text(t, 9 + o, human ? hr_base_of(f->module) : f->module);
	}
	err = err ?: table__print(t, out, fmt);
	table__free(t);
	return err;
}

/* Allocator calls of the target the probes fired for but did not count, from the heap's
 * drops (collectors/heap/record.c, emit_drops): with any, the totals are a lower bound. Calls in
 * flight while the probes were attached count too: at an exec followed, that is in the
 * middle of the recording. */
static uint64_t uncounted_calls(const struct drop_line *d, size_t n)
{
	static const char *const kinds[] = { "unmatched_entry", "unmatched_return", "attaching",
					     "inflight_full", "recursion_miss" };
	uint64_t sum = 0;
	size_t i, k;

	for (i = 0; i < n; i++)
		for (k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++)
			if (!strcmp(d[i].kind, kinds[k]))
				sum += d[i].lost;
	return sum;
}

/* Why the peak and the temporaries were not measured in H's window. */
static const char *why_no_peak(const struct heap *h)
{
	const char *go = capture_heap_lane_name(PTOP__V1__HEAP_LANE__HEAP_LANE_GO);

	for (size_t k = 0; k < h->n_snap; k++)
		if (h->snap[k].peak_bytes < 0 && !strcmp(h->snap[k].lane, go))
			return "the go lane counts allocations, not frees: no live heap to peak, "
			       "no temporaries";
	return "the capture was made by a ptop-record that did not measure them yet";
}

/* "exact: tracked at every allocation and free" or what it lacks, for the peak of H. */
static void peak_how(const struct heap *h, char *buf, size_t len)
{
	char a[32];

	if (h->peak_untracked)
		snprintf(buf, len, "at least: %s allocator calls not tracked, see drops",
			 fmt_count(a, sizeof(a), h->peak_untracked));
	else
		snprintf(buf, len, "exact: tracked at every allocation and free");
	if (h->since_attach)
		snprintf(buf + strlen(buf), len - strlen(buf),
			 "; since the probes attached: the heap allocated before is not seen");
}

/* The allocations per second of snapshot X; NAN when its interval is unknown. */
static double snap_rate(const struct hsnap *x)
{
	return x->interval_ns > 0 ? (double)x->alloc_count * 1e9 / (double)x->interval_ns : NAN;
}

/* "peak: ...", the sites at it, "temporary allocations: ...", "allocations per second:
 * ..." lines of report heap's text. */
static void figures_text(const struct heap *h, FILE *out)
{
	bool sampled = h->sample_bytes_max, exact = !sampled && !h->sites_lost;
	char a[32], b[32], c[32], loc[512], how[200];
	double best = NAN;
	size_t at = 0;

	if (h->peak_bytes < 0) {
		fprintf(out, "peak, temporary allocations: not measured (%s)\n", why_no_peak(h));
	} else {
		peak_how(h, how, sizeof(how));
		if (h->peak_time_ns >= 0)
			fprintf(out, "peak: %s live at %s s (%s)\n",
				fmt_bytes(a, sizeof(a), (uint64_t)h->peak_bytes),
				fmt_secs(b, sizeof(b), h->peak_time_ns - h->base_ns), how);
		else
			fprintf(out, "peak: %s live (%s)\n",
				fmt_bytes(a, sizeof(a), (uint64_t)h->peak_bytes), how);
		if (h->n_peak && !sampled && h->sites_at_peak)
			fprintf(out, "  held at the peak (%s, %s live then), by function:\n",
				exact ? "exact" : h->sites_lost_why,
				fmt_bytes(a, sizeof(a), (uint64_t)h->peak_sites_bytes));
		else if (h->n_peak)
			fprintf(out, "  held at the peak (estimated%s: taken at the last peak mark, "
				"%s live at %s s), by function:\n",
				!sampled ? "" : " from the samples",
				fmt_bytes(a, sizeof(a), (uint64_t)h->peak_sites_bytes),
				fmt_secs(b, sizeof(b), h->peak_sites_time_ns - h->base_ns));
		else if (h->peak_bytes > 0)
			fprintf(out, "  held at the peak: no sampled allocation was live then\n");
		for (size_t k = 0; k < h->n_peak && k < 10; k++) {
			const struct hpeak *x = &h->peak[k];

			hr_loc_text(x->file, x->line, loc, sizeof(loc));
			fprintf(out, "  %10s %8s  %s%s%s  %s\n",
				fmt_bytes(a, sizeof(a), x->live_bytes),
				fmt_count(b, sizeof(b), x->live_count), x->name, loc[0] ? "  " : "",
				loc, hr_base_of(x->module));
		}
		fprintf(out, "temporary allocations (freed before their thread's next allocation "
			"or free): %s of %s (%.1f%%), %s; by function %s\n",
			fmt_count(a, sizeof(a), (uint64_t)h->temp_count),
			fmt_count(b, sizeof(b), h->alloc_count),
			h->alloc_count ? 100.0 * (double)h->temp_count / (double)h->alloc_count : 0.0,
			h->peak_untracked ? "at least" : "exact",
			exact	   ? "exact"
			: !sampled ? h->sites_lost_why
				   : "estimated from the samples, scaled to the total (less the sites "
				     "left out)");
	}
	for (size_t k = 0; k < h->n_snap; k++) {
		double r = snap_rate(&h->snap[k]);

		if (isfinite(r) && (isnan(best) || r > best)) {
			best = r;
			at = k;
		}
	}
	if (isfinite(best) && isfinite(span_s(h)))
		fprintf(out, "allocations per second: %s on average, at most %s (over the %s "
			"interval ending at %s s); %s\n",
			fmt_count(a, sizeof(a), (uint64_t)llround((double)h->alloc_count / span_s(h))),
			fmt_count(b, sizeof(b), (uint64_t)llround(best)),
			fmt_ns(how, sizeof(how), (uint64_t)h->snap[at].interval_ns),
			fmt_secs(c, sizeof(c), h->snap[at].time_ns - h->base_ns),
			h->uncounted ? "at least" : "exact");
}

/* The figures that are not a column of report heap's CSV (the table of functions), said
 * on stderr beside its other notes: the peak and its time, the temporaries' total. */
static void figures_csv_note(const struct heap *h)
{
	char how[200];

	if (h->peak_bytes < 0) {
		fprintf(stderr, "heap: peak, temporary allocations: not measured (%s)\n",
			why_no_peak(h));
		return;
	}
	peak_how(h, how, sizeof(how));
	fprintf(stderr, "heap: peak %" PRId64 " bytes", h->peak_bytes);
	if (h->peak_time_ns >= 0)
		fprintf(stderr, " at %.3f s", (double)(h->peak_time_ns - h->base_ns) / 1e9);
	fprintf(stderr, " (%s); temporary allocations %" PRId64 " (column temporary_count)\n",
		how, h->temp_count);
}

static void figures_json(struct json *j, const struct heap *h)
{
	bool exact = !h->sample_bytes_max && !h->sites_lost;

	json__key(j, "peak");
	if (h->peak_bytes < 0) {
		json__null(j);
		json__kv_string(j, "peak_not_measured_reason", why_no_peak(h));
	} else {
		json__begin_object(j);
		json__kv_int(j, "live_bytes", h->peak_bytes);
		if (h->peak_time_ns >= 0)
			json__kv_real(j, "time_s", (double)(h->peak_time_ns - h->base_ns) / 1e9);
		else
			json__kv_null(j, "time_s");
		json__kv_bool(j, "exact", !h->peak_untracked);
		json__kv_int(j, "untracked_calls", (int64_t)h->peak_untracked);
		json__kv_string(j, "since", h->since_attach ? "attach" : "start");
		json__kv_bool(j, "sites_exact", exact && h->sites_at_peak);
		report__json_opt_int(j, "sites_live_bytes", h->peak_sites_bytes);
		if (h->peak_sites_time_ns >= 0)
			json__kv_real(j, "sites_time_s",
				      (double)(h->peak_sites_time_ns - h->base_ns) / 1e9);
		else
			json__kv_null(j, "sites_time_s");
		json__key(j, "sites");
		json__begin_array(j);
		for (size_t k = 0; k < h->n_peak; k++) {
			const struct hpeak *x = &h->peak[k];

			json__begin_object(j);
			json__kv_string(j, "func", x->name);
			json__kv_string(j, "file", x->file);
			if (x->line)
				json__kv_int(j, "line", x->line);
			else
				json__kv_null(j, "line");
			json__kv_string(j, "module", x->module);
			json__kv_int(j, "stack_id", x->stack_id);
			json__kv_int(j, "live_bytes", (int64_t)x->live_bytes);
			json__kv_int(j, "live_count", (int64_t)x->live_count);
			json__end_object(j);
		}
		json__end_array(j);
		json__end_object(j);
	}
	json__key(j, "temporary");
	if (h->temp_count < 0) {
		json__null(j);
		json__kv_string(j, "temporary_not_measured_reason", why_no_peak(h));
	} else {
		json__begin_object(j);
		json__kv_int(j, "count", h->temp_count);
		json__kv_bool(j, "exact", !h->peak_untracked);
		json__kv_bool(j, "by_function_exact", exact);
		json__end_object(j);
	}
	json__key(j, "alloc_rate_series");
	json__begin_array(j);
	for (size_t k = 0; k < h->n_snap; k++) {
		const struct hsnap *x = &h->snap[k];
		double r = snap_rate(x);

		json__begin_object(j);
		json__kv_real(j, "t_s", (double)(x->time_ns - h->base_ns) / 1e9);
		if (x->pid)
			json__kv_int(j, "pid", x->pid);
		if (x->interval_ns > 0)
			json__kv_real(j, "interval_s", (double)x->interval_ns / 1e9);
		else
			json__kv_null(j, "interval_s");
		json__kv_int(j, "alloc_count", (int64_t)x->alloc_count);
		if (isfinite(r))
			json__kv_real(j, "allocs_per_s", r);
		else
			json__kv_null(j, "allocs_per_s");
		json__end_object(j);
	}
	json__end_array(j);
}

void hr_sort_by(struct heap *h, enum heap_by by)
{
	if (h->n_fn) /* qsort's array may not be NULL, even empty */
		qsort(h->fn, h->n_fn, sizeof(*h->fn),
		      by == HEAP_BY_LIVE ? cmp_live : by == HEAP_BY_COUNT ? cmp_count : cmp_bytes);
}

static int heap_body(const struct report_ctx *ctx)
{
	sqlite3 *db = ctx->db;
	const struct report_opts *o = ctx->o;
	FILE *out = ctx->out;
	const struct capture_meta m = *ctx->m;
	struct json *j = ctx->j;
	struct heap h;
	size_t top = o->top ? o->top : HEAP_TOP_DEFAULT;
	uint64_t uncounted;
	enum heap_by by;
	char w[96], a[32], b[32], c[32], samp[512];
	int err;

	memset(&h, 0, sizeof(h));
	err = hr_load(db, &m, o, &h, "heap");
	if (err)
		goto cleanup;
	if (!h.collected) { /* neither the heap probe nor the Go lane's ran */
		err = report__not_collected(j, out, o, "heap", &h.probe);
		goto cleanup;
	}
	uncounted = uncounted_calls(ctx->drops, ctx->ndrops);
	h.uncounted = uncounted;
	hr_sites_lost(&h, ctx->drops, ctx->ndrops);
	h.peak_untracked = uncounted + (h.live_untracked > 0 ? (uint64_t)h.live_untracked : 0);
	for (size_t k = 0; k < ctx->ndrops; k++)
		if (!strcmp(ctx->drops[k].kind, "peak_race") ||
		    !strcmp(ctx->drops[k].kind, "temporary_untracked"))
			h.peak_untracked += ctx->drops[k].lost;
	by = hr_heap_by(&h, REPORT_OWN(o, struct heap_opts)->by);
	if (by == HEAP_BY_LIVE && !h.live_measured)
		by = HEAP_BY_BYTES; /* said below: live bytes were not measured */
	hr_sort_by(&h, by);
	sampling_text(&h, samp, sizeof(samp));
	switch (o->fmt) {
	case OUT_TEXT:
		window__describe(&o->win, w, sizeof(w));
		fprintf(out, "heap (%s): %zu intervals", w, h.n_snap);
		if (h.n_snap)
			lanes_text(&h, out);
		fputc('\n', out);
		gaps_text(&h, out);
		if (!h.n_snap) {
			fprintf(out, "no heap snapshot in the window\n");
			report__drops(NULL, out, o, "heap", ctx->drops, ctx->ndrops);
			break;
		}
		fprintf(out, "sampling: %s\n", samp);
		fprintf(out, "allocated: %s in %s allocations ",
			fmt_bytes(a, sizeof(a), h.alloc_bytes),
			fmt_count(b, sizeof(b), h.alloc_count));
		if (uncounted)
			fprintf(out, "(at least: %s allocator calls seen but not counted, "
				"see drops)", fmt_count(c, sizeof(c), uncounted));
		else
			fprintf(out, "(exact)");
		if (isfinite(span_s(&h)))
			fprintf(out, ", %s/s",
				fmt_bytes(c, sizeof(c),
					  (uint64_t)llround((double)h.alloc_bytes / span_s(&h))));
		fputc('\n', out);
		if (h.live_measured) {
			fprintf(out, "live at the end: %s in %s allocations",
				fmt_bytes(a, sizeof(a), (uint64_t)(h.live_bytes > 0 ? h.live_bytes : 0)),
				fmt_count(b, sizeof(b),
					  (uint64_t)(h.live_count > 0 ? h.live_count : 0)));
			if (h.leak_bytes >= 0 && h.leak_age_ns > 0)
				fprintf(out, "; older than %s: %s",
					fmt_ns(c, sizeof(c), (uint64_t)h.leak_age_ns),
					fmt_bytes(a, sizeof(a), (uint64_t)h.leak_bytes));
			fputc('\n', out);
		} else {
			fprintf(out, "live, lifetime, leaks: not measured (%s)\n",
				hr_why_not_measured(&h));
		}
		figures_text(&h, out);
		hr_census_text(&h, out);
		if (h.live_measured)
			fprintf(out, "not tracked (live map full): %s allocations; ",
				fmt_count(a, sizeof(a), (uint64_t)(h.live_untracked > 0
									  ? h.live_untracked
									  : 0)));
		fprintf(out, "stack failures: %s\n",
			fmt_count(a, sizeof(a), h.stack_failures));
		if (h.stacks_cut)
			fprintf(out,
				"stacks cut short: %s of %s sites' stacks end where the walk read a "
				"return address in no executable mapping: frame pointers missing in "
				"%s; the frames after it are left out (record with --user-stacks "
				"dwarf for whole stacks)\n",
				fmt_count(a, sizeof(a), h.stacks_cut),
				fmt_count(b, sizeof(b), h.stacks_used), h.cut_module);
		if (h.free_untracked > 0)
			fprintf(out,
				"frees of untracked blocks: %s (allocated before the probes "
				"attached, or not tracked; not errors)\n",
				fmt_count(a, sizeof(a), (uint64_t)h.free_untracked));
		report__drops(NULL, out, o, "heap", ctx->drops, ctx->ndrops);
		if (REPORT_OWN(o, struct heap_opts)->by == HEAP_BY_LIVE && !h.live_measured)
			fprintf(out, "note: --by live: live bytes were not measured; by bytes\n");
		fprintf(out,
			"\ntop functions by %s (the allocating function: the first frame outside "
			"the allocator;\n%zu functions from the sites listed):\n",
			by == HEAP_BY_LIVE    ? "live bytes at the end"
			: by == HEAP_BY_COUNT ? "allocation count"
					      : "bytes allocated",
			h.n_fn);
		err = heap_table(&h, top, out, OUT_TEXT);
		break;
	case OUT_CSV:
		report__drops(NULL, out, o, "heap", ctx->drops, ctx->ndrops);
		if (!h.live_measured)
			fprintf(stderr, "heap: live, lifetime: not measured (%s)\n",
				hr_why_not_measured(&h));
		figures_csv_note(&h);
		if (h.sites_lost)
			fprintf(stderr, "heap: per-function figures are %s\n", h.sites_lost_why);
		err = heap_table(&h, top, out, OUT_CSV);
		break;
	case OUT_JSON:
		hr_head_json(j, &h);
		json__kv_string(j, "sampling", samp);
		json__kv_string(j, "by", by_name(by));
		report__drops(j, out, o, "heap", ctx->drops, ctx->ndrops);
		json__kv_int(j, "uncounted_calls", (int64_t)uncounted);
		figures_json(j, &h);
		json__kv_int(j, "functions", (int64_t)h.n_fn);
		json__key(j, "sites");
		json__begin_array(j);
		for (size_t k = 0; k < h.n_fn && k < top && !err; k++) {
			json__begin_object(j);
			err = site_json_common(j, &h, &h.fn[k]);
			if (h.temp_count >= 0)
				json__kv_int(j, "temporary_count", (int64_t)h.fn[k].temp_count);
			else
				json__kv_null(j, "temporary_count");
			json__end_object(j);
		}
		json__end_array(j);
		json__end_object(j);
		err = err ?: json__end(j);
		break;
	}
cleanup:
	hr_free(&h);
	return err;
}

/* ------------------------------------------------------------------ its report */

static int parse_by(void *settings, const char *arg, char *err, size_t len)
{
	static const char *const words[] = {[HEAP_BY_LIVE] = "live",
					    [HEAP_BY_BYTES] = "bytes",
					    [HEAP_BY_COUNT] = "count"};

	for (size_t k = HEAP_BY_LIVE; k < sizeof(words) / sizeof(words[0]); k++)
		if (!strcmp(arg, words[k])) {
			((struct heap_opts *)settings)->by = (enum heap_by)k;
			return 0;
		}
	snprintf(err, len, "--by takes live, bytes or count, not '%s'", arg);
	return -EINVAL;
}

static const struct report_option heap_options[] = {
    {"by", "live|bytes|count",
     "heap: order by live bytes at the end (default when\n"
     "measured), bytes allocated, or allocation count",
     parse_by},
    {0},
};

static const struct an_report heap_report = {
	.name = "heap",
	.order = 50,
	.summary = "allocations by allocating function (the first frame outside the\n"
		   "allocator): live bytes, bytes and count allocated, rate, mean\n"
		   "lifetime, temporaries; the peak of the live heap, its time and\n"
		   "the functions at it; allocations per second; the census of the\n"
		   "sites left out; sampling; drops",
	.tables = "heap_snapshot",
	.options = heap_options,
	.settings_size = sizeof(struct heap_opts),
	.top = "the first N functions (default 20)",
	.drops = "heap",
	.body = heap_body,
};

int report_heap(sqlite3 *db, const char *capture_id, const struct report_opts *o, FILE *out)
{
	return report__run(&heap_report, db, capture_id, o, out);
}

/* What part.c's .reports points to: `report heap` and `report leaks` (report_leaks.c). */
const struct an_report *const heap_reports[] = {
	&heap_report,
	&heap__leaks_report,
	NULL,
};
