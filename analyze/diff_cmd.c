/* diff_cmd.c — the `diff` command: options, the two inputs, the --fail-on gates, and the
 * comparison rendered as text, JSON, markdown (a pull-request comment) or JUnit XML (one
 * test case per gate). The comparison itself is diff.c. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/analyze.h"
#include "analyze/diff.h"

enum diff_format { DF_TEXT, DF_JSON, DF_MARKDOWN, DF_JUNIT };

#define GATES_MAX 64
/* diff's exit status for an internal error (out of memory, SQLite, output): not 1, which
 * says a gate fired */
#define DIFF_EXIT_INTERNAL 3
#define TOP_DEFAULT 25

/* One side: the file, the capture, its figures. */
struct side {
	const char *label; /* BASE | NEW */
	const char *path;
	const char *capture_opt;
	struct window w;
	sqlite3 *db;
	char cid[DB_CAPTURE_ID_LEN];
	struct fig_capture *fc;
};

enum gate_status { GS_PASS, GS_FAIL, GS_MISSING, GS_SKIPPED };

struct gate_result {
	struct gate g;
	enum gate_status status;
	size_t fired[32], n_fired; /* rows of the diff that fired it */
	size_t missing[8], n_missing;
	size_t matched;		/* instances compared */
	char message[1024];	/* the first line said of it */
};

/* ------------------------------------------------------------------ values as shown */

/* --per NAME: the rates are per call of mark NAME, not per second (one diff a run). */
static const char *rate_per;

/* V in unit U, a rate per --per's unit when given. */
static char *show_unit(enum fig_unit u, double v, char *buf, size_t len)
{
	if (u != FIG_RATE || !rate_per)
		return fig_unit__format(u, v, buf, len);
	if (!isfinite(v))
		snprintf(buf, len, "-");
	else if (fabs(v) >= 100)
		snprintf(buf, len, "%.0f/%s", v, rate_per);
	else
		snprintf(buf, len, "%.3g/%s", v, rate_per);
	return buf;
}

/* The name of unit U as the values are shown: a rate per --per's unit when given
 * ("/requests", as text shows it), not "/s". */
static const char *show_unit_name(enum fig_unit u, char *buf, size_t len)
{
	if (u != FIG_RATE || !rate_per)
		return fig_unit__name(u);
	snprintf(buf, len, "/%s", rate_per);
	return buf;
}

static char *show_value(const struct diff_row *r, bool new, char *buf, size_t len)
{
	bool present = new ? r->in_new : r->in_base;

	if (r->status == DIFF_NOT_COMPARABLE && !present)
		return snprintf(buf, len, "-"), buf;
	if (!present && r->status == DIFF_NOT_REPORTED)
		return snprintf(buf, len, "not reported"), buf;
	if (!present)
		return snprintf(buf, len, r->fig->test == FIG_TEST_NONE ? "none" : "0"), buf;
	return show_unit(r->fig->unit, new ? r->new : r->base, buf, len);
}

static char *show_change(const struct diff_row *r, char *buf, size_t len)
{
	char t[64];

	if (r->status == DIFF_NOT_COMPARABLE || r->status == DIFF_NOT_REPORTED)
		return snprintf(buf, len, "-"), buf;
	if (r->fig->unit == FIG_PCT)
		snprintf(buf, len, "%+.2fpp", r->delta);
	else if (r->fig->unit == FIG_BYTES || r->fig->unit == FIG_BYTES_PER_MIN)
		snprintf(buf, len, "%s%s", fmt_bytes_signed(t, sizeof(t), (int64_t)llround(r->delta)),
			 r->fig->unit == FIG_BYTES_PER_MIN ? "/min" : "");
	else
		snprintf(buf, len, "%s%s", r->delta >= 0 ? "+" : "",
			 show_unit(r->fig->unit, r->delta, t, sizeof(t)));
	return buf;
}

static char *show_rel(const struct diff_row *r, char *buf, size_t len)
{
	if (isnan(r->rel_pct) || r->status == DIFF_NOT_COMPARABLE ||
	    r->status == DIFF_NOT_REPORTED)
		snprintf(buf, len, "-");
	else if (isinf(r->rel_pct))
		snprintf(buf, len, "%s", r->rel_pct > 0 ? "new" : "gone");
	else
		snprintf(buf, len, "%+.1f%%", r->rel_pct);
	return buf;
}

static const char *verdict(const struct diff_row *r)
{
	switch (r->status) {
	case DIFF_CHANGED:
		if (!r->in_base && r->base == 0)
			return "new";
		if (!r->in_new && r->new == 0)
			return "gone";
		return r->worse ? "worse" : "better";
	case DIFF_UNCHANGED:
		return "unchanged";
	case DIFF_NOT_SIGNIFICANT:
		return "not significant";
	case DIFF_TOO_FEW:
		return "too few samples";
	case DIFF_NOT_COMPARABLE:
		return "not comparable";
	case DIFF_NOT_REPORTED:
		return "not reported";
	}
	return "?";
}

static const char *status_key(enum diff_status s)
{
	static const char *const k[] = {"changed",	  "unchanged",	    "not_significant",
					"too_few_samples", "not_comparable", "not_reported"};

	return k[s];
}

static char *evidence(const struct diff_row *r, char *buf, size_t len)
{
	buf[0] = '\0';
	if (r->status == DIFF_NOT_COMPARABLE || r->status == DIFF_NOT_REPORTED ||
	    (r->status == DIFF_TOO_FEW && r->reason[0]))
		return snprintf(buf, len, "%s", r->reason), buf;
	if (r->estimated) { /* sampled: the samples each side's estimate rests on */
		char pb[32], pn[32];

		snprintf(buf, len, "estimated: about %.0f vs %.0f samples (of %s vs %s)",
			 fmin(fig_expected_samples(r->base_basis, r->base_period), 1e15),
			 fmin(fig_expected_samples(r->new_basis, r->new_period), 1e15),
			 r->base_period > 0 ? fmt_bytes(pb, sizeof(pb), (uint64_t)r->base_period)
					    : "every allocation",
			 r->new_period > 0 ? fmt_bytes(pn, sizeof(pn), (uint64_t)r->new_period)
					   : "every allocation");
		if (isfinite(r->z)) {
			size_t at = strlen(buf);

			snprintf(buf + at, len - at, ", z = %.2f", r->z);
		}
		return buf;
	}
	switch (r->fig->test) {
	case FIG_TEST_PROPORTION:
		snprintf(buf, len, "%" PRIu64 " of %" PRIu64 " vs %" PRIu64 " of %" PRIu64 " samples%s",
			 r->base_count, r->base_of, r->new_count, r->new_of,
			 r->status == DIFF_TOO_FEW ? "" : "");
		break;
	case FIG_TEST_POISSON:
		snprintf(buf, len, "%" PRIu64 " vs %" PRIu64 " events%s", r->base_count, r->new_count,
			 r->same_count ? ", the same count over runs of different lengths" : "");
		break;
	case FIG_TEST_BUCKET:
		snprintf(buf, len, "histogram bucket %d vs %d", r->base_bucket, r->new_bucket);
		break;
	case FIG_TEST_NONE:
		break;
	}
	if (isfinite(r->z)) {
		size_t at = strlen(buf);

		snprintf(buf + at, len - at, "%sz = %.2f", at ? ", " : "", r->z);
	}
	return buf;
}

/* ------------------------------------------------------------------ gates */

/* The gate's message, printf'd (cut at its size). */
static void say(struct gate_result *gr, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(struct gate_result *gr, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(gr->message, sizeof(gr->message), fmt, ap);
	va_end(ap);
}

static bool gate_matches(const struct gate *g, const struct diff_row *r)
{
	if (r->fig != g->fig)
		return false;
	if (!g->has_arg || !strcmp(g->arg, "*") || r->status == DIFF_NOT_COMPARABLE)
		return true;
	return r->arg && !strcmp(r->arg, g->arg);
}

static void gate_evaluate(struct gate_result *gr, const struct diff *d, const struct side *b,
			  const struct side *n, bool allow_missing)
{
	const struct gate *g = &gr->g;
	char v1[64], v2[64], ch[64], rel[32];

	gr->status = GS_PASS;
	for (size_t k = 0; k < d->n; k++) {
		const struct diff_row *r = &d->row[k];
		double x;

		if (!gate_matches(g, r))
			continue;
		gr->matched++;
		/* a level (NEW's value) needs only NEW's; a change needs both sides */
		if (g->kind == GATE_LEVEL
			    ? (r->status == DIFF_NOT_COMPARABLE || r->status == DIFF_NOT_REPORTED) &&
				      !r->in_new
			    : r->status == DIFF_NOT_COMPARABLE || r->status == DIFF_NOT_REPORTED) {
			if (gr->n_missing < sizeof(gr->missing) / sizeof(gr->missing[0]))
				gr->missing[gr->n_missing++] = k;
			else
				gr->n_missing++;
			continue;
		}
		x = g->kind == GATE_REL	 ? r->rel_pct
		  : g->kind == GATE_LEVEL ? r->new
					  : r->delta;
		if (!gate__holds(g, x))
			continue;
		if (g->kind != GATE_LEVEL && r->noise)
			continue; /* its test cannot tell this change from noise */
		if (gr->n_fired < sizeof(gr->fired) / sizeof(gr->fired[0]))
			gr->fired[gr->n_fired++] = k;
		else
			gr->n_fired++;
	}
	if (!gr->matched && g->has_arg && strcmp(g->arg, "*")) {
		const struct fig_family *fb = fig_capture__find(b->fc, g->pattern);
		const struct fig_family *fn = fig_capture__find(n->fc, g->pattern);

		if (!fb || !fn || !fb->complete || !fn->complete) {
			gr->status = allow_missing ? GS_SKIPPED : GS_MISSING;
			say(gr,
				 "%s: %s(%s) not reported on either side (%s)", g->expr,
				 g->pattern, g->arg,
				 fb && !fb->complete ? fb->note : fn ? fn->note : "");
			return;
		}
		say(gr,
			 "%s: passed (instance %s is 0 on both sides)", g->expr, g->arg);
		return;
	}
	if (gr->n_fired) {
		const struct diff_row *r = &d->row[gr->fired[0]];

		gr->status = GS_FAIL;
		if (g->kind == GATE_LEVEL) {
			say(gr, "%s: FAILED: %s is %s on NEW (%s on BASE)%s", g->expr, r->name,
			    show_value(r, true, v2, sizeof(v2)), show_value(r, false, v1, sizeof(v1)),
			    gr->n_fired > 1 ? " and more below" : "");
			return;
		}
		say(gr, "%s: FAILED: %s %s -> %s (%s, %s)%s",
			 g->expr, r->name, show_value(r, false, v1, sizeof(v1)),
			 show_value(r, true, v2, sizeof(v2)), show_change(r, ch, sizeof(ch)),
			 show_rel(r, rel, sizeof(rel)),
			 gr->n_fired > 1 ? " and more below" : "");
		return;
	}
	if (gr->n_missing) {
		const struct diff_row *r = &d->row[gr->missing[0]];

		gr->status = allow_missing ? GS_SKIPPED : GS_MISSING;
		say(gr, "%s: %s: %s: %s%s", g->expr,
			 allow_missing ? "skipped (--allow-missing)" : "FAILED, not comparable",
			 r->name, r->reason,
			 allow_missing ? "" : " (--allow-missing lets a missing figure pass)");
		return;
	}
	say(gr, "%s: passed (%zu compared)", g->expr,
		 gr->matched);
}

/* ------------------------------------------------------------------ the header */

struct hdr_diff {
	char field[32], base[160], new[160];
};

static size_t header_diffs(const struct side *b, const struct side *n, struct hdr_diff *out,
			   size_t max)
{
	const struct fig_capture *x = b->fc, *y = n->fc;
	size_t k = 0;
	char t1[48], t2[48];

#define HDR(name, a, c)                                                                            \
	do {                                                                                       \
		if (strcmp(a, c) && k < max) {                                                     \
			snprintf(out[k].field, sizeof(out[k].field), "%s", name);                  \
			snprintf(out[k].base, sizeof(out[k].base), "%s", a);                       \
			snprintf(out[k].new, sizeof(out[k].new), "%s", c);                         \
			k++;                                                                       \
		}                                                                                  \
	} while (0)
	HDR("recorder", x->recorder, y->recorder);
	HDR("kernel", x->kernel, y->kernel);
	HDR("machine", x->machine, y->machine);
	snprintf(t1, sizeof(t1), "%" PRId64, x->cpus);
	snprintf(t2, sizeof(t2), "%" PRId64, y->cpus);
	HDR("cpus", t1, t2);
	fmt_ns(t1, sizeof(t1), (uint64_t)(x->interval_ns > 0 ? x->interval_ns : 0));
	fmt_ns(t2, sizeof(t2), (uint64_t)(y->interval_ns > 0 ? y->interval_ns : 0));
	HDR("interval", t1, t2);
	fmt_ns(t1, sizeof(t1), (uint64_t)(x->vma_interval_ns > 0 ? x->vma_interval_ns : 0));
	fmt_ns(t2, sizeof(t2), (uint64_t)(y->vma_interval_ns > 0 ? y->vma_interval_ns : 0));
	HDR("vma interval", t1, t2);
	/* the parts' settings (sampling rates) */
	for (size_t i = 0; i < x->n; i++) {
		const struct fig_family *fa = &x->fam[i];
		const struct fig_family *fb = fig_capture__find(y, fa->fig->name);

		if (!fa->fig->setting || !fb || !fa->measured || !fb->measured || !fa->n ||
		    !fb->n || fa->val[0].v == fb->val[0].v)
			continue;
		fig_unit__format(fa->fig->unit, fa->val[0].v, t1, sizeof(t1));
		fig_unit__format(fb->fig->unit, fb->val[0].v, t2, sizeof(t2));
		HDR(fa->fig->name, t1, t2);
	}
#undef HDR
	return k;
}

/* ------------------------------------------------------------------ the rows shown */

/* Changed rows by |relative change| (new and gone first), then name. */
static const struct diff *sort_d;
static int cmp_changed(const void *a, const void *b)
{
	const struct diff_row *x = &sort_d->row[*(const size_t *)a];
	const struct diff_row *y = &sort_d->row[*(const size_t *)b];
	double rx = fabs(x->rel_pct), ry = fabs(y->rel_pct);

	if (isnan(rx))
		rx = 0;
	if (isnan(ry))
		ry = 0;
	if (rx != ry)
		return rx > ry ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* The indexes of the rows of status S (all when S < 0), changed ones sorted. *OUT malloc'd. */
static size_t pick(const struct diff *d, int s, size_t **out)
{
	size_t *ix = calloc(d->n + 1, sizeof(*ix)), n = 0;

	*out = ix;
	if (!ix)
		return 0;
	for (size_t k = 0; k < d->n; k++)
		if (s < 0 || (int)d->row[k].status == s)
			ix[n++] = k;
	if (s == DIFF_CHANGED && n) {
		sort_d = d;
		qsort(ix, n, sizeof(*ix), cmp_changed);
	}
	return n;
}

static struct table *changes_table(const struct diff *d, const size_t *ix, size_t n, size_t top)
{
	static const char *const cols[] = {"figure",  "base",	 "new",
					   "change",  "relative", "verdict", "evidence"};
	struct table *t = table__new(7, cols);
	char b1[64], b2[64], b3[64], b4[32], b5[700];
	int err = 0;

	if (!t)
		return NULL;
	for (size_t k = 0; k < n && k < top && !err; k++) {
		const struct diff_row *r = &d->row[ix[k]];

		err = table__add_row(t);
		err = err ?: table__set_text(t, 0, r->name);
		err = err ?: table__set_text(t, 1, show_value(r, false, b1, sizeof(b1)));
		err = err ?: table__set_text(t, 2, show_value(r, true, b2, sizeof(b2)));
		err = err ?: table__set_text(t, 3, show_change(r, b3, sizeof(b3)));
		err = err ?: table__set_text(t, 4, show_rel(r, b4, sizeof(b4)));
		err = err ?: table__set_text(t, 5, verdict(r));
		err = err ?: table__set_text(t, 6, evidence(r, b5, sizeof(b5)));
	}
	if (err) {
		table__free(t);
		return NULL;
	}
	return t;
}

struct render {
	const struct side *b, *n;
	const struct diff *d;
	const struct diff_opts *o;
	struct gate_result *gates;
	size_t n_gates;
	bool allow_missing;
	size_t top;
	bool all;
	int exit_code;
	char min_delta[64];
};

static void describe_side(const struct side *s, char *buf, size_t len)
{
	char w[96];

	window__describe(&s->w, w, sizeof(w));
	snprintf(buf, len, "%s (capture %.8s, %s, %.3f s%s)", s->path, s->cid, w, s->fc->span_s,
		 s->fc->m.complete ? "" : ", INCOMPLETE");
}

static int render_text(const struct render *rd, FILE *out)
{
	struct hdr_diff h[16];
	size_t nh = header_diffs(rd->b, rd->n, h, 16), *ix = NULL, n, compared = 0;
	char b1[640], b2[640];
	int err = 0;

	describe_side(rd->b, b1, sizeof(b1));
	describe_side(rd->n, b2, sizeof(b2));
	fprintf(out, "diff: BASE %s\n      NEW  %s\n", b1, b2);
	if (rate_per)
		fprintf(out, "rates per call of mark %s (--per), not per second\n", rate_per);
	if (nh) {
		fprintf(out, "\nthe recordings differ (a figure's meaning may change with them):\n");
		for (size_t k = 0; k < nh; k++)
			fprintf(out, "  %s: %s on BASE, %s on NEW\n", h[k].field, h[k].base,
				h[k].new);
	}
	for (size_t k = 0; k < rd->d->n; k++)
		if (rd->d->row[k].status != DIFF_NOT_COMPARABLE)
			compared++;
	n = pick(rd->d, DIFF_NOT_COMPARABLE, &ix);
	if (!ix)
		return -ENOMEM;
	if (n)
		fprintf(out, "\nnot comparable:\n");
	for (size_t k = 0, same; k < n; k += same) {
		const struct diff_row *r = &rd->d->row[ix[k]];

		/* rows not comparable for one reason (a probe on neither side, snapshots of
		 * other moments): on one line */
		for (same = 1;
		     k + same < n && !strcmp(rd->d->row[ix[k + same]].reason, r->reason); same++)
			;
		fprintf(out, "  %s", r->name);
		for (size_t i = 1; i < same; i++)
			fprintf(out, ", %s", rd->d->row[ix[k + i]].name);
		fprintf(out, ": not comparable (%s)\n", r->reason);
	}
	free(ix);
	n = pick(rd->d, rd->all ? -1 : DIFF_CHANGED, &ix);
	if (!ix)
		return -ENOMEM;
	fprintf(out, "\n");
	if (!n) {
		fprintf(out,
			"no significant change: %zu figures compared (--min-delta %s, confidence "
			"%g%%)\n",
			compared, rd->min_delta, rd->o->confidence * 100);
	} else {
		struct table *t = changes_table(rd->d, ix, n, rd->all ? n : rd->top);

		if (rd->all)
			fprintf(out, "every figure compared (%zu):\n", n);
		else
			fprintf(out,
				"changes: %zu of %zu figures compared (--min-delta %s, confidence "
				"%g%%):\n",
				n, compared, rd->min_delta, rd->o->confidence * 100);
		err = t ? table__print(t, out, OUT_TEXT) : -ENOMEM;
		table__free(t);
		if (!rd->all && n > rd->top)
			fprintf(out, "(%zu more changes; --top N shows more)\n", n - rd->top);
	}
	free(ix);
	if (!rd->all) {
		n = pick(rd->d, DIFF_TOO_FEW, &ix);
		if (!ix)
			return -ENOMEM;
		if (n)
			fprintf(out,
				"%zu more figures changed past --min-delta with too few samples to "
				"tell (--all lists them)\n",
				n);
		free(ix);
		n = pick(rd->d, DIFF_NOT_REPORTED, &ix);
		if (!ix)
			return -ENOMEM;
		for (size_t k = 0; k < n && k < 3; k++)
			fprintf(out, "%s: %s\n", rd->d->row[ix[k]].name, rd->d->row[ix[k]].reason);
		if (n > 3)
			fprintf(out, "%zu more instances listed on one side only, not compared "
				     "(--all lists them)\n", n - 3);
		free(ix);
	}
	if (rd->n_gates) {
		size_t failed = 0;

		fprintf(out, "\ngates:\n");
		for (size_t k = 0; k < rd->n_gates; k++) {
			const struct gate_result *g = &rd->gates[k];

			failed += g->status == GS_FAIL || g->status == GS_MISSING;
			fprintf(out, "  %s %s\n",
				g->status == GS_FAIL	  ? "FAIL"
				: g->status == GS_MISSING ? "FAIL"
				: g->status == GS_SKIPPED ? "skip"
							  : "pass",
				g->message);
			for (size_t i = 1; i < g->n_fired && i < 32; i++) {
				const struct diff_row *r = &rd->d->row[g->fired[i]];

				fprintf(out, "       also %s %s -> %s (%s, %s)\n", r->name,
					show_value(r, false, b1, 64), show_value(r, true, b2, 64),
					show_change(r, b1 + 64, 64), show_rel(r, b2 + 64, 64));
			}
		}
		fprintf(out, "%zu of %zu gates failed\n", failed, rd->n_gates);
	}
	return err;
}

static void json_side(struct json *j, const char *key, const struct side *s)
{
	json__key(j, key);
	json__begin_object(j);
	json__kv_string(j, "path", s->path);
	json__kv_string(j, "capture_id", s->cid);
	json__kv_bool(j, "complete", s->fc->m.complete);
	json__kv_real(j, "span_s", s->fc->span_s);
	json__key(j, "window");
	if (!s->w.has_start && !s->w.has_end) {
		json__null(j);
	} else {
		json__begin_object(j);
		json__key(j, "start_s");
		if (s->w.has_start)
			json__real(j, (double)s->w.start_ns / 1e9);
		else
			json__null(j);
		json__key(j, "end_s");
		if (s->w.has_end)
			json__real(j, (double)s->w.end_ns / 1e9);
		else
			json__null(j);
		json__end_object(j);
	}
	json__kv_string(j, "recorder", s->fc->recorder);
	json__kv_string(j, "kernel", s->fc->kernel);
	json__kv_int(j, "cpus", s->fc->cpus);
	json__end_object(j);
}

static void json_num_or_null(struct json *j, const char *key, bool has, double v)
{
	json__key(j, key);
	if (has && isfinite(v))
		json__real(j, v);
	else
		json__null(j);
}

static int render_json(const struct render *rd, FILE *out)
{
	struct hdr_diff h[16];
	size_t nh = header_diffs(rd->b, rd->n, h, 16);
	struct json j;

	json__init(&j, out, true);
	json__begin_object(&j);
	json__kv_string(&j, "report", "diff");
	json_side(&j, "base", rd->b);
	json_side(&j, "new", rd->n);
	json__kv_real(&j, "confidence", rd->o->confidence);
	json__kv_string(&j, "min_delta", rd->min_delta);
	json__kv_string(&j, "per", rate_per);
	json__key(&j, "header_differences");
	json__begin_array(&j);
	for (size_t k = 0; k < nh; k++) {
		json__begin_object(&j);
		json__kv_string(&j, "field", h[k].field);
		json__kv_string(&j, "base", h[k].base);
		json__kv_string(&j, "new", h[k].new);
		json__end_object(&j);
	}
	json__end_array(&j);
	json__key(&j, "figures");
	json__begin_array(&j);
	for (size_t k = 0; k < rd->d->n; k++) {
		char unit[96];
		const struct diff_row *r = &rd->d->row[k];
		bool cmp = r->status != DIFF_NOT_COMPARABLE;
		bool sampled = r->fig->test == FIG_TEST_PROPORTION;
		bool counted = sampled || r->fig->test == FIG_TEST_POISSON;

		json__begin_object(&j);
		json__kv_string(&j, "figure", r->name);
		json__kv_string(&j, "pattern", r->fig->name);
		json__kv_string(&j, "unit", show_unit_name(r->fig->unit, unit, sizeof(unit)));
		json__kv_bool(&j, "up_is_worse", r->fig->up_is_worse);
		json__kv_string(&j, "status", status_key(r->status));
		json__kv_string(&j, "verdict", verdict(r));
		json_num_or_null(&j, "base", r->in_base || (cmp && r->status != DIFF_NOT_REPORTED),
				 r->base);
		json_num_or_null(&j, "new", r->in_new || (cmp && r->status != DIFF_NOT_REPORTED),
				 r->new);
		json_num_or_null(&j, "delta", cmp && r->status != DIFF_NOT_REPORTED, r->delta);
		json_num_or_null(&j, "relative_pct", cmp && r->status != DIFF_NOT_REPORTED,
				 r->rel_pct);
		json__kv_bool(&j, "in_base", r->in_base);
		json__kv_bool(&j, "in_new", r->in_new);
		json__kv_bool(&j, "estimated", r->estimated);
		json_num_or_null(&j, "base_count", cmp && counted, (double)r->base_count);
		json_num_or_null(&j, "new_count", cmp && counted, (double)r->new_count);
		json_num_or_null(&j, "base_of", cmp && sampled, (double)r->base_of);
		json_num_or_null(&j, "new_of", cmp && sampled, (double)r->new_of);
		json_num_or_null(&j, "z", true, r->z);
		json__kv_string(&j, "reason", r->reason[0] ? r->reason : NULL);
		json__end_object(&j);
	}
	json__end_array(&j);
	json__key(&j, "gates");
	json__begin_array(&j);
	for (size_t k = 0; k < rd->n_gates; k++) {
		const struct gate_result *g = &rd->gates[k];
		static const char *const st[] = {"pass", "fail", "missing", "skipped"};

		json__begin_object(&j);
		json__kv_string(&j, "expr", g->g.expr);
		json__kv_string(&j, "status", st[g->status]);
		json__kv_string(&j, "message", g->message);
		json__key(&j, "fired");
		json__begin_array(&j);
		for (size_t i = 0; i < g->n_fired && i < 32; i++) {
			const struct diff_row *r = &rd->d->row[g->fired[i]];

			json__begin_object(&j);
			json__kv_string(&j, "figure", r->name);
			json__kv_real(&j, "base", r->base);
			json__kv_real(&j, "new", r->new);
			json__kv_real(&j, "delta", r->delta);
			json_num_or_null(&j, "relative_pct", true, r->rel_pct);
			json__end_object(&j);
		}
		json__end_array(&j);
		json__end_object(&j);
	}
	json__end_array(&j);
	json__kv_int(&j, "exit", rd->exit_code);
	json__end_object(&j);
	return json__end(&j);
}

/* S in a markdown table cell: | escaped, newlines as spaces. */
static void md_cell(FILE *out, const char *s)
{
	for (; *s; s++) {
		if (*s == '|')
			fputs("\\|", out);
		else if (*s == '\n' || *s == '\r')
			fputc(' ', out);
		else
			fputc(*s, out);
	}
}

/* A pull request comment leads with the verdict: the gates (fired or passed), then the
 * changes, then the rest (the captures, how the recordings differ, the figures not
 * comparable) folded in a <details> block. */
static int render_markdown(const struct render *rd, FILE *out)
{
	struct hdr_diff h[16];
	size_t nh = header_diffs(rd->b, rd->n, h, 16), *ix = NULL, n, nc, fired = 0;
	struct table *t = NULL;

	for (size_t k = 0; k < rd->n_gates; k++)
		fired += rd->gates[k].status != GS_PASS && rd->gates[k].status != GS_SKIPPED;
	fprintf(out, "### ptop diff\n\n");
	if (!rd->n_gates)
		fprintf(out, "**No gate** (--fail-on): nothing to pass or fail.\n");
	else if (fired)
		fprintf(out, "**FAILED: %zu of %zu gate%s fired.**\n\n", fired, rd->n_gates,
			rd->n_gates == 1 ? "" : "s");
	else
		fprintf(out, "**Passed: %s%zu gate%s, none fired.**\n\n",
			rd->n_gates == 1 ? "" : "all ", rd->n_gates, rd->n_gates == 1 ? "" : "s");
	for (size_t k = 0; k < rd->n_gates; k++) {
		const struct gate_result *g = &rd->gates[k];

		fprintf(out, "- %s ",
			g->status == GS_PASS	  ? "pass"
			: g->status == GS_SKIPPED ? "skipped"
						  : "**FAIL**");
		md_cell(out, g->message);
		fputc('\n', out);
	}
	n = pick(rd->d, rd->all ? -1 : DIFF_CHANGED, &ix);
	if (!ix)
		return -ENOMEM;
	if (!n) {
		fprintf(out, "\nNo significant change (--min-delta %s, confidence %g%%).\n",
			rd->min_delta, rd->o->confidence * 100);
	} else {
		t = changes_table(rd->d, ix, n, rd->all ? n : rd->top);
		if (!t) {
			free(ix);
			return -ENOMEM;
		}
		fprintf(out, "\n**Changes:**\n\n"
			     "| figure | BASE | NEW | change | relative | verdict | evidence |\n"
			     "|---|---:|---:|---:|---:|---|---|\n");
		for (size_t r = 0; r < table__rows(t); r++) {
			fputs("|", out);
			for (size_t c = 0; c < 7; c++) {
				fputs(" ", out);
				if (c == 0)
					fputc('`', out);
				md_cell(out, table__shown(t, r, c));
				if (c == 0)
					fputc('`', out);
				fputs(" |", out);
			}
			fputc('\n', out);
		}
		if (!rd->all && n > rd->top)
			fprintf(out, "\n%zu more changes not shown (--top).\n", n - rd->top);
		table__free(t);
	}
	free(ix);
	nc = pick(rd->d, DIFF_NOT_COMPARABLE, &ix);
	if (!ix)
		return -ENOMEM;
	fprintf(out, "\n<details><summary>The captures%s%s</summary>\n\n",
		nh ? ", how the recordings differ" : "",
		nc ? ", the figures not comparable" : "");
	fprintf(out, "BASE `%s` (capture `%.8s`, %.3f s) → NEW `%s` (capture `%.8s`, %.3f s)\n",
		rd->b->path, rd->b->cid, rd->b->fc->span_s, rd->n->path, rd->n->cid,
		rd->n->fc->span_s);
	if (nh) {
		fprintf(out, "\nThe recordings differ:\n\n| | BASE | NEW |\n|---|---|---|\n");
		for (size_t k = 0; k < nh; k++) {
			fputs("| ", out);
			md_cell(out, h[k].field);
			fputs(" | ", out);
			md_cell(out, h[k].base);
			fputs(" | ", out);
			md_cell(out, h[k].new);
			fputs(" |\n", out);
		}
	}
	if (nc) {
		fprintf(out, "\n**Not comparable** (%zu):\n\n", nc);
		for (size_t k = 0; k < nc; k++)
			fprintf(out, "- `%s`: %s\n", rd->d->row[ix[k]].name, rd->d->row[ix[k]].reason);
	}
	fprintf(out, "\n</details>\n");
	free(ix);
	return 0;
}

/* S as XML character data: markup escaped, control characters as spaces, and bytes that
 * are not UTF-8 as U+FFFD (as JSON has them), so that the document stays well-formed. */
static void xml_text(FILE *out, const char *s)
{
	for (; *s; s++) {
		size_t n;

		if ((unsigned char)*s >= 0x80) {
			n = utf8_seq((const unsigned char *)s);
			if (n)
				fwrite(s, 1, n, out);
			else
				fputs("\xef\xbf\xbd", out); /* U+FFFD */
			s += n ? n - 1 : 0;
			continue;
		}
		switch (*s) {
		case '<':
			fputs("&lt;", out);
			break;
		case '>':
			fputs("&gt;", out);
			break;
		case '&':
			fputs("&amp;", out);
			break;
		case '"':
			fputs("&quot;", out);
			break;
		default:
			if ((unsigned char)*s < 0x20 && *s != '\n' && *s != '\t')
				fputc(' ', out);
			else
				fputc(*s, out);
		}
	}
}

static int render_junit(const struct render *rd, FILE *out)
{
	size_t failures = 0, skipped = 0;
	char b1[64], b2[64], b3[64], b4[32];

	for (size_t k = 0; k < rd->n_gates; k++) {
		failures += rd->gates[k].status == GS_FAIL || rd->gates[k].status == GS_MISSING;
		skipped += rd->gates[k].status == GS_SKIPPED;
	}
	fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	fprintf(out, "<testsuites name=\"ptop diff\" tests=\"%zu\" failures=\"%zu\" errors=\"0\">\n",
		rd->n_gates, failures);
	fprintf(out,
		"  <testsuite name=\"ptop diff gates\" tests=\"%zu\" failures=\"%zu\" errors=\"0\" "
		"skipped=\"%zu\">\n",
		rd->n_gates, failures, skipped);
	for (size_t k = 0; k < rd->n_gates; k++) {
		const struct gate_result *g = &rd->gates[k];

		fprintf(out, "    <testcase classname=\"ptop.diff\" name=\"");
		xml_text(out, g->g.expr);
		fprintf(out, "\"");
		if (g->status == GS_PASS) {
			fprintf(out, "/>\n");
			continue;
		}
		fprintf(out, ">\n      <%s message=\"", g->status == GS_SKIPPED ? "skipped" : "failure");
		xml_text(out, g->message);
		if (g->status == GS_SKIPPED) {
			fprintf(out, "\"/>\n    </testcase>\n");
			continue;
		}
		fprintf(out, "\" type=\"%s\">", g->status == GS_MISSING ? "not_comparable" : "regression");
		for (size_t i = 0; i < g->n_fired && i < 32; i++) {
			const struct diff_row *r = &rd->d->row[g->fired[i]];
			char line[512];

			snprintf(line, sizeof(line), "%s: %s -> %s (%s, %s)\n", r->name,
				 show_value(r, false, b1, sizeof(b1)),
				 show_value(r, true, b2, sizeof(b2)), show_change(r, b3, sizeof(b3)),
				 show_rel(r, b4, sizeof(b4)));
			xml_text(out, line);
		}
		for (size_t i = 0; i < g->n_missing && i < 8; i++) {
			const struct diff_row *r = &rd->d->row[g->missing[i]];

			xml_text(out, r->name);
			xml_text(out, ": ");
			xml_text(out, r->reason);
			xml_text(out, "\n");
		}
		fprintf(out, "</failure>\n    </testcase>\n");
	}
	fprintf(out, "  </testsuite>\n</testsuites>\n");
	return ferror(out) ? -EIO : 0;
}

/* ------------------------------------------------------------------ the command */

static int open_side(struct side *s)
{
	int rc = analyze_open_checked("diff", s->path, s->capture_opt, NULL, &s->db, s->cid);

	if (rc)
		return rc;
	rc = fig_capture__compute(s->db, s->cid, &s->w, &s->fc);
	if (!rc)
		return 0;
	if (rc == -EIO && sqlite3_errcode(s->db) != SQLITE_OK)
		fprintf(stderr, "ptop-analyze diff: reading %s (%s): %s\n", s->path, s->label,
			sqlite3_errmsg(s->db));
	else if (rc != -EPROTO && rc != -EBADMSG)
		fprintf(stderr, "ptop-analyze diff: %s (%s): %s\n", s->path, s->label,
			strerror(-rc));
	return rc == -ENOMEM ? ANALYZE_EXIT_INTERNAL
	       : rc == -EIO  ? ANALYZE_EXIT_INTERNAL
			     : ANALYZE_EXIT_USAGE;
}

/* What diff's command line asks for besides the two sides (parse_args). */
struct diff_args {
	struct diff_opts o;
	enum diff_format fmt;
	const char *captures[2]; /* --capture, BASE's then NEW's */
	size_t n_captures;
	struct gate_result *gates; /* --fail-on, GATES_MAX of them */
	size_t n_gates;
	size_t top;
	char md_text[64]; /* --min-delta as given ("10%" by default) */
	bool allow_missing, all;
	const char *per; /* --per NAME; NULL: per second */
};

/* ARGV into A and the sides B and N (windows, paths, captures). -1 to go on, else the exit
 * code (--help, a usage error). */
static int parse_args(int argc, char **argv, struct diff_args *a, struct side *b, struct side *n)
{
	static const struct option longopts[] = {
	    {"format", required_argument, NULL, 'f'},
	    {"window", required_argument, NULL, 'w'},
	    {"base-window", required_argument, NULL, 'B'},
	    {"new-window", required_argument, NULL, 'N'},
	    {"capture", required_argument, NULL, 'c'},
	    {"min-delta", required_argument, NULL, 'm'},
	    {"confidence", required_argument, NULL, 'C'},
	    {"top", required_argument, NULL, 't'},
	    {"all", no_argument, NULL, 'a'},
	    {"fail-on", required_argument, NULL, 'F'},
	    {"allow-missing", no_argument, NULL, 'A'},
	    {"per", required_argument, NULL, 'P'},
	    {"help", no_argument, NULL, 'h'},
	    {0},
	};
	char err[512];
	int c;

	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		switch (c) {
		case 'f':
			if (!strcmp(optarg, "text"))
				a->fmt = DF_TEXT;
			else if (!strcmp(optarg, "json"))
				a->fmt = DF_JSON;
			else if (!strcmp(optarg, "markdown"))
				a->fmt = DF_MARKDOWN;
			else if (!strcmp(optarg, "junit"))
				a->fmt = DF_JUNIT;
			else
				return analyze_usage(
				    "diff", "--format takes text, json, markdown or junit, not '%s'",
				    optarg);
			break;
		case 'w':
		case 'B':
		case 'N':
			if (c != 'N' && window__parse(optarg, &b->w, err, sizeof(err)))
				return analyze_usage("diff", "%s", err);
			if (c != 'B' && window__parse(optarg, &n->w, err, sizeof(err)))
				return analyze_usage("diff", "%s", err);
			break;
		case 'c':
			if (a->n_captures == 2)
				return analyze_usage("diff", "--capture is given at most twice (BASE's, "
							     "then NEW's)");
			a->captures[a->n_captures++] = optarg;
			break;
		case 'm':
			if (min_delta__parse(optarg, &a->o.md, err, sizeof(err)))
				return analyze_usage("diff", "%s", err);
			snprintf(a->md_text + strlen(a->md_text), sizeof(a->md_text) - strlen(a->md_text),
				 "%s%s", a->md_text[0] ? " and " : "", optarg);
			break;
		case 'C': {
			char *end;
			double v = strtod(optarg, &end);

			if (end != optarg && *end == '%')
				v /= 100, end++;
			if (end == optarg || *end || !(v >= 0.5 && v < 1))
				return analyze_usage("diff",
						     "--confidence takes 50%% to 99.99..%% (99%%, "
						     "0.995), not '%s'",
						     optarg);
			a->o.confidence = v;
			break;
		}
		case 't': {
			char *end;
			unsigned long long v = strtoull(optarg, &end, 10);

			if (end == optarg || *end || optarg[0] == '-' || !v)
				return analyze_usage("diff", "--top takes a positive number, not '%s'",
						     optarg);
			a->top = (size_t)v;
			break;
		}
		case 'a':
			a->all = true;
			break;
		case 'F':
			if (a->n_gates == GATES_MAX)
				return analyze_usage("diff", "at most %d --fail-on", GATES_MAX);
			memset(&a->gates[a->n_gates], 0, sizeof(a->gates[0]));
			if (gate__parse(optarg, &a->gates[a->n_gates].g, err, sizeof(err)))
				return analyze_usage("diff", "%s", err);
			a->n_gates++;
			break;
		case 'A':
			a->allow_missing = true;
			break;
		case 'P':
			a->per = optarg;
			break;
		case 'h':
			analyze_cmd_help("diff", stdout);
			return ANALYZE_EXIT_OK;
		case ':':
			return analyze_usage("diff", "%s needs a value", argv[optind - 1]);
		default:
			return analyze_usage("diff", "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (!a->o.md.has_rel && !a->o.md.has_abs) { /* the default: 10% */
		a->o.md.has_rel = true;
		a->o.md.rel_pct = 10;
		snprintf(a->md_text, sizeof(a->md_text), "10%%");
	}
	if (argc - optind == 1 && a->n_captures == 2) {
		b->path = n->path = argv[optind];
	} else if (argc - optind == 2) {
		b->path = argv[optind];
		n->path = argv[optind + 1];
	} else {
		return analyze_usage("diff", argc - optind < 2
						 ? "which captures? BASE and NEW (or one DB and "
						   "--capture twice)"
						 : "too many arguments: BASE and NEW");
	}
	b->capture_opt = a->captures[0];
	n->capture_opt = a->captures[1];
	return -1;
}

/* RD in FMT on stdout, whole or not at all. 0, or -errno (said on stderr). */
static int write_output(const struct render *rd, enum diff_format fmt)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *out;
	int rc;

	out = open_memstream(&buf, &len);
	if (!out)
		return -ENOMEM;
	rc = fmt == DF_JSON	  ? render_json(rd, out)
	     : fmt == DF_MARKDOWN ? render_markdown(rd, out)
	     : fmt == DF_JUNIT	  ? render_junit(rd, out)
				  : render_text(rd, out);
	if (fclose(out) && !rc)
		rc = -ENOMEM;
	errno = 0;
	if (!rc && len && (fwrite(buf, 1, len, stdout) != len || fflush(stdout)))
		rc = errno ? -errno : -EIO;
	free(buf);
	return rc;
}

int cmd_diff(int argc, char **argv)
{
	static struct gate_result gates[GATES_MAX];
	struct side b = {.label = "BASE"}, n = {.label = "NEW"};
	struct diff_args a = {.o = {.confidence = 0.99}, .fmt = DF_TEXT, .gates = gates,
			      .top = TOP_DEFAULT};
	struct render rd = {0};
	bool verdict = false; /* rc is the gates' verdict */
	struct diff d = {0};
	char err[512];
	int rc;

	rc = parse_args(argc, argv, &a, &b, &n);
	if (rc >= 0)
		return rc;
	rc = open_side(&b);
	rc = rc ?: open_side(&n);
	if (rc)
		goto cleanup;
	/* --a.per NAME: on both sides, or it is an error (never a silent a.per-second) */
	rate_per = a.per;
	for (int side = 0; a.per && side < 2; side++) {
		struct side *x = side ? &n : &b;

		if (fig_capture__per(x->fc, a.per, err, sizeof(err))) {
			fprintf(stderr, "ptop-analyze diff: --per %s: %s (%s): %s\n", a.per, x->path,
				x->label, err);
			rc = ANALYZE_EXIT_USAGE;
			goto cleanup;
		}
	}
	rc = diff__compare(b.fc, n.fc, &a.o, &d);
	if (rc) {
		fprintf(stderr, "ptop-analyze diff: %s\n", strerror(-rc));
		rc = ANALYZE_EXIT_INTERNAL;
		goto cleanup;
	}
	rd.exit_code = ANALYZE_EXIT_OK;
	for (size_t k = 0; k < a.n_gates; k++) {
		gate_evaluate(&a.gates[k], &d, &b, &n, a.allow_missing);
		if (a.gates[k].status == GS_FAIL || a.gates[k].status == GS_MISSING)
			rd.exit_code = ANALYZE_EXIT_GATE;
	}
	rd.b = &b;
	rd.n = &n;
	rd.d = &d;
	rd.o = &a.o;
	rd.gates = a.gates;
	rd.n_gates = a.n_gates;
	rd.allow_missing = a.allow_missing;
	rd.top = a.top;
	rd.all = a.all;
	snprintf(rd.min_delta, sizeof(rd.min_delta), "%s", a.md_text);
	rc = write_output(&rd, a.fmt);
	if (rc) {
		fprintf(stderr, "ptop-analyze diff: writing the output: %s\n", strerror(-rc));
		rc = ANALYZE_EXIT_INTERNAL;
		goto cleanup;
	}
	/* the a.gates' verdict on stderr too, whatever the format, so a log shows why */
	for (size_t k = 0; k < a.n_gates; k++)
		if (a.gates[k].status != GS_PASS && a.fmt != DF_TEXT)
			fprintf(stderr, "ptop-analyze diff: %s\n", a.gates[k].message);
	rc = rd.exit_code;
	verdict = true;
cleanup:
	diff__free(&d);
	fig_capture__free(b.fc);
	fig_capture__free(n.fc);
	sqlite3_close(b.db);
	sqlite3_close(n.db);
	/* 1 is a gate's verdict here: an internal error must not read as one in CI */
	return rc == ANALYZE_EXIT_INTERNAL && !verdict ? DIFF_EXIT_INTERNAL : rc;
}
