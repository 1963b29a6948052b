/* diff.c — two captures' figures compared (analyze/diff.h): the rows and their verdicts,
 * --min-delta, and the grammar of the --fail-on gates. The command is in diff_cmd.c. */
#include "analyze/diff.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/array.h"
#include "common/duration.h"
#include "common/units.h"

/* ------------------------------------------------------------------ numbers with units */

/* A number at *S (no sign), advancing *S past it. -EINVAL when there is none. */
static int number(const char **s, double *v)
{
	char *end;

	if (!isdigit((unsigned char)**s) && **s != '.')
		return -EINVAL;
	errno = 0;
	*v = strtod(*s, &end);
	if (errno || end == *s || !isfinite(*v))
		return -EINVAL;
	*s = end;
	return 0;
}

/* S is a whole number (strtod read it all) into *V. */
static bool plain_number(const char *s, double *v)
{
	const char *p = s;

	return !number(&p, v) && !*p;
}

int min_delta__parse(const char *s, struct min_delta *md, char *err, size_t errlen)
{
	size_t len = strlen(s);
	uint64_t bytes;
	char num[64];
	double v;

	if (len > 1 && len < sizeof(num) && s[len - 1] == '%') {
		snprintf(num, sizeof(num), "%.*s", (int)(len - 1), s);
		if (plain_number(num, &v)) {
			md->has_rel = true;
			md->rel_pct = v;
			return 0;
		}
	} else if (!units__parse_bytes(s, UINT64_MAX >> 1, &bytes)) {
		md->has_abs = true;
		md->abs_bytes = (double)bytes;
		return 0;
	}
	snprintf(err, errlen,
		 "--min-delta takes a percentage (10%%) or a size (50M: B, K, M, G, T), not '%s'",
		 s);
	return -EINVAL;
}

/* ------------------------------------------------------------------ gates */

int gate__parse(const char *expr, struct gate *g, char *err, size_t errlen)
{
	const char *p = expr, *op = NULL, *t;
	char name[256], rest[64];
	size_t len;
	int depth = 0, n;
	bool sign = false, neg = false;
	uint64_t bytes, ns;
	double v;

	memset(g, 0, sizeof(*g));
	if (snprintf(g->expr, sizeof(g->expr), "%s", expr) >= (int)sizeof(g->expr)) {
		snprintf(err, errlen, "--fail-on '%.40s...': too long", expr);
		return -EINVAL;
	}
	/* the operator: the first < or > outside the figure's parentheses */
	for (; *p; p++) {
		if (*p == '(')
			depth++;
		else if (*p == ')')
			depth--;
		else if (!depth && (*p == '<' || *p == '>')) {
			op = p;
			break;
		}
	}
	if (!op) {
		/* the example: the first plain figure (no instances, not a setting) of the parts' list */
		const struct an_figure *ex = an_figure__next(NULL);

		while (ex && (strchr(ex->name, '(') || ex->setting))
			ex = an_figure__next(ex);

		snprintf(err, errlen,
			 "--fail-on '%s': no comparison; write FIGURE OP THRESHOLD, OP one of > >= "
			 "< <= (%s > +10%%; `ptop-analyze figures --help` lists the figures)",
			 expr, ex ? ex->name : "FIGURE");
		return -EINVAL;
	}
	/* the figure, blanks trimmed */
	for (t = expr; isspace((unsigned char)*t); t++)
		;
	len = (size_t)(op - t);
	while (len && isspace((unsigned char)t[len - 1]))
		len--;
	if (!len || len >= sizeof(name)) {
		snprintf(err, errlen, "--fail-on '%s': no figure before the comparison", expr);
		return -EINVAL;
	}
	snprintf(name, sizeof(name), "%.*s", (int)len, t);
	if (fig_name__split(name, g->pattern, sizeof(g->pattern), g->arg, sizeof(g->arg),
			    &g->has_arg)) {
		snprintf(err, errlen, "--fail-on '%s': '%s' is not a figure's name", expr, name);
		return -EINVAL;
	}
	g->fig = an_figure__find(g->pattern);
	if (!g->fig) {
		snprintf(err, errlen,
			 "--fail-on '%s': no figure %s (`ptop-analyze figures FILE` lists them)",
			 expr, g->pattern);
		return -EINVAL;
	}
	g->op = op[0] == '>' ? (op[1] == '=' ? GATE_GE : GATE_GT)
			     : (op[1] == '=' ? GATE_LE : GATE_LT);
	p = op + (op[1] == '=' ? 2 : 1);
	while (isspace((unsigned char)*p))
		p++;
	if (*p == '+' || *p == '-') {
		sign = true;
		neg = *p == '-';
		p++;
	}
	len = strlen(p);
	while (len && isspace((unsigned char)p[len - 1]))
		len--;
	n = snprintf(rest, sizeof(rest), "%.*s", (int)len, p);
	if (!len || n < 0 || (size_t)n >= sizeof(rest)) {
		snprintf(err, errlen, "--fail-on '%s': no threshold after the comparison", expr);
		return -EINVAL;
	}
	if (rest[len - 1] == '%' || (len > 2 && !strcmp(rest + len - 2, "pp"))) {
		bool pp = rest[len - 1] != '%';

		rest[len - (pp ? 2 : 1)] = '\0';
		if (!plain_number(rest, &v)) {
			snprintf(err, errlen, "--fail-on '%s': '%s' is not a number", expr, rest);
			return -EINVAL;
		}
		if (!sign) {
			snprintf(err, errlen,
				 "--fail-on '%s': a %s threshold is a change: write +%s%s (or -)",
				 expr, pp ? "pp" : "relative", rest, pp ? "pp" : "%");
			return -EINVAL;
		}
		if (pp && g->fig->unit != FIG_PCT) {
			snprintf(err, errlen,
				 "--fail-on '%s': pp (percentage points) is a change of a share "
				 "(%%): %s is in %s",
				 expr, g->pattern, fig_unit__name(g->fig->unit));
			return -EINVAL;
		}
		g->kind = pp ? GATE_PP : GATE_REL;
		g->threshold = neg ? -v : v;
		return 0;
	}
	g->kind = sign ? GATE_DELTA : GATE_LEVEL;
	if (plain_number(rest, &v)) { /* the figure's own unit */
		g->threshold = neg ? -v : v;
		return 0;
	}
	if ((g->fig->unit == FIG_BYTES || g->fig->unit == FIG_BYTES_PER_MIN) &&
	    !units__parse_bytes(rest, UINT64_MAX >> 1, &bytes)) {
		g->threshold = neg ? -(double)bytes : (double)bytes;
		return 0;
	}
	if (g->fig->unit == FIG_NS && isalpha((unsigned char)rest[len - 1]) &&
	    !duration__parse(rest, UINT64_MAX >> 1, 0, &ns)) {
		g->threshold = neg ? -(double)ns : (double)ns;
		return 0;
	}
	snprintf(err, errlen,
		 "--fail-on '%s': '%s' is not a threshold of %s (in %s): a number, +N%% or -N%%%s",
		 expr, rest, g->pattern, fig_unit__name(g->fig->unit),
		 g->fig->unit == FIG_PCT		? ", +Npp"
		 : g->fig->unit == FIG_BYTES || g->fig->unit == FIG_BYTES_PER_MIN ? ", a size (50M: B K M G T)"
		 : g->fig->unit == FIG_NS					    ? ", a time (2ms: ns us ms s)"
										    : "");
	return -EINVAL;
}

bool gate__holds(const struct gate *g, double x)
{
	if (isnan(x))
		return false;
	switch (g->op) {
	case GATE_GT:
		return x > g->threshold;
	case GATE_GE:
		return x >= g->threshold;
	case GATE_LT:
		return x < g->threshold;
	case GATE_LE:
		return x <= g->threshold;
	}
	return false;
}

/* ------------------------------------------------------------------ units of work */

int fig_capture__per(struct fig_capture *c, const char *name, char *err, size_t errlen)
{
	const struct fig_family *marks = NULL;
	const struct fig_value *m;
	double calls;

	for (size_t k = 0; k < c->n && !marks; k++) /* the figure counting units of work */
		if (c->fam[k].fig->work_unit)
			marks = &c->fam[k];
	m = marks ? fig_family__find(marks, name) : NULL;

	if (!marks || !marks->measured) {
		snprintf(err, errlen, "no marks were counted (%s)",
			 marks ? marks->reason : "no figure counts units of work");
		return -ENOENT;
	}
	if (!m) {
		snprintf(err, errlen,
			 "no mark '%s' was counted (record it with ptop-record --mark %s=FUNC)",
			 name, name);
		return -ENOENT;
	}
	if (!m->count) {
		snprintf(err, errlen, "mark '%s' counted no call in the window", name);
		return -EDOM;
	}
	calls = (double)m->count;
	for (size_t k = 0; k < c->n; k++) {
		struct fig_family *fam = &c->fam[k];
		double seconds = fam->exposure_s > 0 ? fam->exposure_s : c->span_s;

		if (fam->fig->unit != FIG_RATE || !fam->measured)
			continue;
		for (size_t i = 0; i < fam->n; i++)
			fam->val[i].v = fam->val[i].v * seconds / calls;
		if (fam->exposure_s > 0)
			fam->exposure_s = calls;
	}
	return 0;
}

/* ------------------------------------------------------------------ rows */

static bool past_min_delta(const struct diff_row *r, const struct min_delta *md)
{
	bool bytes = r->fig->unit == FIG_BYTES || r->fig->unit == FIG_BYTES_PER_MIN;

	if (r->delta == 0 || fabs(r->delta) < r->fig->resolution)
		return false;
	if (md->has_rel && !(fabs(r->rel_pct) >= md->rel_pct))
		return false;
	if (md->has_abs && bytes && fabs(r->delta) < md->abs_bytes)
		return false;
	return true;
}

void diff_row__judge(struct diff_row *r, const struct fig_family *fb, const struct fig_family *fn,
		     const struct diff_opts *o, double zcrit)
{
	bool significant = true;
	int err = 0;

	r->delta = r->new - r->base;
	r->rel_pct = r->base != 0 ? 100.0 * r->delta / fabs(r->base)
		     : r->new != 0 ? (r->new > 0 ? INFINITY : -INFINITY)
				   : NAN;
	r->z = NAN;
	r->estimated = r->same_count = false;
	r->reason[0] = '\0';
	r->worse = r->fig->up_is_worse ? r->delta > 0 : r->delta < 0;
	switch (r->fig->test) {
	case FIG_TEST_PROPORTION:
		r->base_of = fb->of;
		r->new_of = fn->of;
		err = fig_two_proportion(r->base_count, fb->of, r->new_count, fn->of, &r->z);
		significant = !err && fabs(r->z) > zcrit;
		break;
	case FIG_TEST_POISSON:
		err = fig_poisson_rates(r->base_count, fb->exposure_s, r->new_count,
					fn->exposure_s, &r->z);
		significant = !err && fabs(r->z) > zcrit;
		break;
	case FIG_TEST_BUCKET: {
		/* each side's percentile lies (at the confidence) in the buckets lo..hi of
		 * its interval; buckets are a factor of 2 wide, so only when those of the two
		 * sides are two buckets apart is the change surely a bucket or more */
		int blo, bhi, nlo, nhi;
		const struct fig_value *vb = r->base_hist, *vn = r->new_hist;

		if (!vb || !vn || !vb->hist || !vn->hist ||
		    fig_hist_percentile_ci(vb->hist, HIST_BUCKETS, vb->pct, zcrit, &blo, &bhi) ||
		    fig_hist_percentile_ci(vn->hist, HIST_BUCKETS, vn->pct, zcrit, &nlo, &nhi)) {
			err = -EDOM;
			break;
		}
		significant = nlo - bhi >= 2 || blo - nhi >= 2;
		break;
	}
	case FIG_TEST_NONE:
		/* estimates from sampling (a sampled heap's sites): told from their sampling
		 * error, or too few samples */
		if (fb->sample_bytes > 0 || fn->sample_bytes > 0) {
			r->estimated = true;
			r->base_period = fb->sample_bytes;
			r->new_period = fn->sample_bytes;
			err = fig_sampled_estimates(r->base, r->base_basis, fb->sample_bytes, r->new,
						    r->new_basis, fn->sample_bytes, &r->z);
			significant = !err && fabs(r->z) > zcrit;
		}
		break;
	}
	/* a rate of a count equal on both sides: the same work over runs of different
	 * lengths, not a change of it (3,232,723 allocations in 1.20 s and in 0.94 s) */
	if (r->fig->unit == FIG_RATE && r->fig->test == FIG_TEST_POISSON && r->in_base &&
	    r->in_new && r->base_count == r->new_count && r->base_count) {
		r->same_count = true;
		r->noise = true;
		r->status = DIFF_UNCHANGED;
		return;
	}
	if (r->fig->min_count &&
	    (r->base_count < r->fig->min_count || r->new_count < r->fig->min_count))
		err = -EDOM; /* too few samples for this figure */
	/* a state read from samples an interval apart: a change within how far either side's
	 * may be from its state (and the figure's resolution besides: the two errors add) is
	 * not told from where the samples fell */
	if (!err && fmax(r->base_spread, r->new_spread) > 0 &&
	    fabs(r->delta) <= fmax(r->base_spread, r->new_spread) + r->fig->resolution) {
		err = -EDOM;
		snprintf(r->reason, sizeof(r->reason),
			 "within a step of the series next to the value (%.0f on BASE, %.0f on NEW, "
			 "in %s) and the figure's resolution (%.0f): the samples are too few to tell "
			 "(a shorter interval samples closer)",
			 r->base_spread, r->new_spread, fig_unit__name(r->fig->unit),
			 r->fig->resolution);
	}
	/* a change under the figure's resolution is no change a gate may fire on either */
	r->noise = err || !significant || fabs(r->delta) < r->fig->resolution;
	if (!past_min_delta(r, &o->md))
		r->status = DIFF_UNCHANGED;
	else if (err)
		r->status = DIFF_TOO_FEW;
	else if (!significant)
		r->status = DIFF_NOT_SIGNIFICANT;
	else
		r->status = DIFF_CHANGED;
}

static int add_row(struct diff *d, const struct an_figure *f, const char *arg,
		   struct diff_row **out)
{
	char name[512];
	struct diff_row *r;

	if (array__grow((void **)&d->row, &d->cap, d->n, sizeof(*d->row)))
		return -ENOMEM;
	r = &d->row[d->n];
	memset(r, 0, sizeof(*r));
	r->fig = f;
	r->name = strdup(an_figure__instance(f, arg, name, sizeof(name)));
	if (!r->name)
		return -ENOMEM;
	d->n++;
	r->z = r->rel_pct = NAN;
	*out = r;
	return 0;
}

/* "heap disabled: off by default" said of SIDE: "heap disabled on NEW: off by default". */
static void on_side(char *buf, size_t len, const char *reason, const char *side)
{
	const char *colon = strstr(reason, ": ");

	if (colon)
		snprintf(buf, len, "%.*s on %s%s", (int)(colon - reason), reason, side, colon);
	else
		snprintf(buf, len, "%s on %s", reason, side);
}

static void not_comparable(struct diff_row *r, const struct fig_family *fb,
			   const struct fig_family *fn)
{
	char a[320] = "", b[320] = "";

	r->status = DIFF_NOT_COMPARABLE;
	if (!fb->measured && !fn->measured && !strcmp(fb->reason, fn->reason)) {
		snprintf(r->reason, sizeof(r->reason), "not measured on either side: %s",
			 fb->reason);
		return;
	}
	if (!fb->measured)
		on_side(a, sizeof(a), fb->reason, "BASE");
	if (!fn->measured)
		on_side(b, sizeof(b), fn->reason, "NEW");
	snprintf(r->reason, sizeof(r->reason), "%s%s%s", a, a[0] && b[0] ? "; " : "", b);
}

/* One instance ARG: from its values on each side (NULL: absent). */
static int compare_instance(struct diff *d, const struct fig_family *fb,
			    const struct fig_family *fn, const char *arg, const struct fig_value *vb,
			    const struct fig_value *vn, const struct diff_opts *o, double zcrit)
{
	struct diff_row *r;
	int err = add_row(d, fb->fig, arg, &r);

	if (err)
		return err;
	r->arg = arg;
	r->in_base = vb != NULL;
	r->in_new = vn != NULL;
	if ((!vb && !fb->complete) || (!vn && !fn->complete)) {
		const struct fig_family *cut = !vb && !fb->complete ? fb : fn;

		r->status = DIFF_NOT_REPORTED;
		snprintf(r->reason, sizeof(r->reason), "not reported on %s (%s)",
			 cut == fb ? "BASE" : "NEW", cut->note[0] ? cut->note : "its list was cut");
		if (vb)
			r->base = vb->v;
		if (vn)
			r->new = vn->v;
		return 0;
	}
	r->base_count = fb->samples; /* absent (0, proven): over the side's samples */
	r->new_count = fn->samples;
	if (vb) {
		r->base = vb->v;
		r->base_basis = vb->basis;
		r->base_spread = vb->spread;
		r->base_count = vb->count;
		r->base_bucket = vb->bucket;
		r->base_hist = vb;
	}
	if (vn) {
		r->new = vn->v;
		r->new_basis = vn->basis;
		r->new_spread = vn->spread;
		r->new_count = vn->count;
		r->new_bucket = vn->bucket;
		r->new_hist = vn;
	}
	diff_row__judge(r, fb, fn, o, zcrit);
	return 0;
}

static int compare_family(struct diff *d, const struct fig_family *fb, const struct fig_family *fn,
			  const struct diff_opts *o, double bspan, double nspan)
{
	struct diff_row *r;
	size_t k, instances, first;
	char moment[200] = "";
	double zcrit;
	int err = 0;

	if (!fb->measured || !fn->measured) {
		err = add_row(d, fb->fig, NULL, &r);
		if (!err)
			not_comparable(r, fb, fn);
		return err;
	}
	/* states at one moment each (a snapshot): compared only when taken about as far from
	 * the end of each side's window, else a growing state would differ by the time alone */
	if (!isnan(fb->before_end_s) && !isnan(fn->before_end_s) &&
	    fabs(fb->before_end_s - fn->before_end_s) > 0.1 * (bspan > nspan ? bspan : nspan))
		snprintf(moment, sizeof(moment),
			 "taken %.3f s before the end on BASE, %.3f s on NEW: not the same moment "
			 "(more than 10%% of the capture apart; a shorter interval samples closer)",
			 fb->before_end_s, fn->before_end_s);
	/* the confidence holds for the family: each of its K instances is tested at
	 * 1 - (1 - confidence) / K (Bonferroni), so a profile of many functions does not
	 * raise false alarms by its size */
	instances = fb->n;
	for (k = 0; k < fn->n; k++)
		if (!fig_family__find(fb, fn->val[k].arg))
			instances++;
	zcrit = fig_z_crit(1 - (1 - o->confidence) / (double)(instances ? instances : 1));
	first = d->n;
	for (k = 0; k < fb->n && !err; k++)
		err = compare_instance(d, fb, fn, fb->val[k].arg, &fb->val[k],
				       fig_family__find(fn, fb->val[k].arg), o, zcrit);
	for (k = 0; k < fn->n && !err; k++)
		if (!fig_family__find(fb, fn->val[k].arg))
			err = compare_instance(d, fb, fn, fn->val[k].arg, NULL, &fn->val[k], o,
					       zcrit);
	/* below the resolution of the series: a change is not told from when the states
	 * were taken (too few samples, the reason says why); one within --min-delta and the
	 * figure's resolution is still unchanged */
	for (k = first; moment[0] && k < d->n; k++) {
		struct diff_row *x = &d->row[k];

		x->noise = true; /* no change gate fires on it */
		if (x->status != DIFF_CHANGED && x->status != DIFF_NOT_SIGNIFICANT &&
		    x->status != DIFF_TOO_FEW)
			continue;
		x->status = DIFF_TOO_FEW;
		snprintf(x->reason, sizeof(x->reason), "%s", moment);
	}
	return err;
}

int diff__compare(const struct fig_capture *base, const struct fig_capture *new,
		  const struct diff_opts *o, struct diff *d)
{
	int err = 0;

	memset(d, 0, sizeof(*d));
	for (size_t k = 0; k < base->n && !err; k++) {
		const struct fig_family *fn = fig_capture__find(new, base->fam[k].fig->name);

		if (fn)
			err = compare_family(d, &base->fam[k], fn, o, base->span_s, new->span_s);
	}
	if (err)
		diff__free(d);
	return err;
}

void diff__free(struct diff *d)
{
	for (size_t k = 0; k < d->n; k++)
		free(d->row[k].name);
	free(d->row);
	memset(d, 0, sizeof(*d));
}
