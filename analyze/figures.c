/* figures.c — the figures core: the parts' declared figures, computed for a window of a
 * capture (analyze/figures.h); their names, units, and the tests diff reads them with. */
#include "analyze/figures.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/part.h"
#include "common/array.h"

/* ------------------------------------------------------------------ the context */

void *fig_ctx__get(struct fig_ctx *c, const char *key)
{
	for (size_t k = 0; k < c->n_cache; k++)
		if (!strcmp(c->cache[k].key, key))
			return c->cache[k].data;
	return NULL;
}

int fig_ctx__put(struct fig_ctx *c, const char *key, void *data, void (*free_fn)(void *))
{
	if (c->n_cache == sizeof(c->cache) / sizeof(c->cache[0]) ||
	    strlen(key) >= sizeof(c->cache[0].key)) {
		if (free_fn)
			free_fn(data);
		return -ENOMEM;
	}
	snprintf(c->cache[c->n_cache].key, sizeof(c->cache[0].key), "%s", key);
	c->cache[c->n_cache].data = data;
	c->cache[c->n_cache].free = free_fn;
	c->n_cache++;
	return 0;
}

static void fig_ctx__release(struct fig_ctx *c)
{
	for (size_t k = 0; k < c->n_cache; k++)
		if (c->cache[k].free)
			c->cache[k].free(c->cache[k].data);
	c->n_cache = 0;
}

double fig_ctx__before_end_s(const struct fig_ctx *c, int64_t t_ns)
{
	int64_t lo, hi, end;

	window__bounds(&c->w, c->m, &lo, &hi);
	end = c->m->last_event_ns >= 0 && hi > c->m->last_event_ns ? c->m->last_event_ns : hi;
	return end > t_ns ? (double)(end - t_ns) / 1e9 : 0;
}

/* ------------------------------------------------------------------ families */

int fig_family__add(struct fig_family *fam, const char *arg, double v, uint64_t count)
{
	struct fig_value *x;

	if (array__grow((void **)&fam->val, &fam->cap, fam->n, sizeof(*fam->val)))
		return -ENOMEM;
	x = &fam->val[fam->n];
	memset(x, 0, sizeof(*x));
	if (arg && !(x->arg = strdup(arg)))
		return -ENOMEM;
	x->v = v;
	x->count = count;
	fam->n++;
	return 0;
}

const struct fig_value *fig_family__find(const struct fig_family *fam, const char *arg)
{
	for (size_t k = 0; k < fam->n; k++) {
		const char *a = fam->val[k].arg;

		if ((!a && !arg) || (a && arg && !strcmp(a, arg)))
			return &fam->val[k];
	}
	return NULL;
}

void fig_family__not_measured(struct fig_family *fam, const char *fmt, ...)
{
	va_list ap;

	for (size_t k = 0; k < fam->n; k++) {
		free(fam->val[k].arg);
		free(fam->val[k].hist);
	}
	fam->n = 0;
	fam->measured = false;
	va_start(ap, fmt);
	vsnprintf(fam->reason, sizeof(fam->reason), fmt, ap);
	va_end(ap);
}

static void family_free(struct fig_family *fam)
{
	for (size_t k = 0; k < fam->n; k++) {
		free(fam->val[k].arg);
		free(fam->val[k].hist);
	}
	free(fam->val);
}

/* ------------------------------------------------------------------ the declared figures */

const struct an_figure *an_figure__next(const struct an_figure *prev)
{
	bool after = !prev;

	for (const struct an_part *const *p = an_parts; *p; p++)
		for (const struct an_figure *const *f = (*p)->figures; f && *f; f++) {
			if (after)
				return *f;
			if (*f == prev)
				after = true;
		}
	return NULL;
}

const struct an_figure *an_figure__find(const char *name)
{
	for (const struct an_figure *f = an_figure__next(NULL); f; f = an_figure__next(f))
		if (!strcmp(f->name, name))
			return f;
	return NULL;
}

char *an_figure__instance(const struct an_figure *f, const char *arg, char *buf, size_t len)
{
	const char *star = strstr(f->name, "(*)");

	if (!arg || !star)
		snprintf(buf, len, "%s", f->name);
	else
		snprintf(buf, len, "%.*s(%s)%s", (int)(star - f->name), f->name, arg, star + 3);
	return buf;
}

int fig_name__split(const char *s, char *pattern, size_t plen, char *arg, size_t alen,
		    bool *has_arg)
{
	const char *open = strchr(s, '('), *close;
	int n;

	*has_arg = false;
	if (alen)
		arg[0] = '\0';
	if (!open) {
		if (strchr(s, ')') || !s[0])
			return -EINVAL;
		n = snprintf(pattern, plen, "%s", s);
		return n < 0 || (size_t)n >= plen ? -EINVAL : 0;
	}
	/* the argument runs to the last ')' (a function name may hold parentheses: C++) */
	close = strrchr(s, ')');
	if (!close || close < open || close == open + 1)
		return -EINVAL;
	n = snprintf(arg, alen, "%.*s", (int)(close - open - 1), open + 1);
	if (n < 0 || (size_t)n >= alen)
		return -EINVAL;
	n = snprintf(pattern, plen, "%.*s(*)%s", (int)(open - s), s, close + 1);
	if (n < 0 || (size_t)n >= plen)
		return -EINVAL;
	*has_arg = true;
	return 0;
}

const char *fig_unit__name(enum fig_unit u)
{
	switch (u) {
	case FIG_BYTES:
		return "bytes";
	case FIG_COUNT:
		return "count";
	case FIG_RATE:
		return "/s";
	case FIG_PCT:
		return "%";
	case FIG_NS:
		return "ns";
	case FIG_BYTES_PER_MIN:
		return "bytes/min";
	case FIG_HZ:
		return "Hz";
	}
	return "?";
}

char *fig_unit__format(enum fig_unit u, double v, char *buf, size_t len)
{
	char t[48];

	if (!isfinite(v)) {
		snprintf(buf, len, "-");
		return buf;
	}
	switch (u) {
	case FIG_BYTES:
		if (v < 0)
			fmt_bytes_signed(buf, len, (int64_t)llround(v));
		else
			fmt_bytes(buf, len, (uint64_t)llround(v));
		break;
	case FIG_BYTES_PER_MIN:
		snprintf(buf, len, "%s/min", fmt_bytes_signed(t, sizeof(t), (int64_t)llround(v)));
		break;
	case FIG_COUNT:
		if (v < 0)
			snprintf(buf, len, "-%s", fmt_count(t, sizeof(t), (uint64_t)llround(-v)));
		else
			fmt_count(buf, len, (uint64_t)llround(v));
		break;
	case FIG_RATE:
		if (fabs(v) >= 100)
			snprintf(buf, len, "%s%s/s", v < 0 ? "-" : "",
				 fmt_count(t, sizeof(t), (uint64_t)llround(fabs(v))));
		else
			snprintf(buf, len, "%.2f/s", v);
		break;
	case FIG_PCT:
		snprintf(buf, len, "%.2f%%", v);
		break;
	case FIG_NS:
		if (v < 0)
			snprintf(buf, len, "-%s", fmt_ns(t, sizeof(t), (uint64_t)llround(-v)));
		else
			fmt_ns(buf, len, (uint64_t)llround(v));
		break;
	case FIG_HZ:
		snprintf(buf, len, "%.0f Hz", v);
		break;
	}
	return buf;
}

/* ------------------------------------------------------------------ a capture's figures */

static int load_header(sqlite3 *db, struct fig_capture *c)
{
	static const char sql[] = "SELECT recorder_version, recorder_commit, kernel_release, "
				  "machine, cpus, interval_ns, vma_interval_ns FROM capture "
				  "WHERE cap = ?1";
	sqlite3_stmt *s = NULL;
	const char *v, *commit;
	int err = 0;

	c->cpus = c->interval_ns = c->vma_interval_ns = -1;
	if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK)
		return -EIO;
	sqlite3_bind_int64(s, 1, c->m.cap);
	if (sqlite3_step(s) == SQLITE_ROW) {
		v = (const char *)sqlite3_column_text(s, 0);
		commit = (const char *)sqlite3_column_text(s, 1);
		snprintf(c->recorder, sizeof(c->recorder), "%s%s%s%s", v ? v : "unknown",
			 commit ? " (commit " : "", commit ? commit : "", commit ? ")" : "");
		v = (const char *)sqlite3_column_text(s, 2);
		snprintf(c->kernel, sizeof(c->kernel), "%s", v ? v : "unknown");
		v = (const char *)sqlite3_column_text(s, 3);
		snprintf(c->machine, sizeof(c->machine), "%s", v ? v : "unknown");
		c->cpus = report__col(s, 4, -1);
		c->interval_ns = report__col(s, 5, -1);
		c->vma_interval_ns = report__col(s, 6, -1);
	} else {
		err = -EIO;
	}
	sqlite3_finalize(s);
	return err;
}

int fig_capture__compute(sqlite3 *db, const char *capture_id, const struct window *w,
			 struct fig_capture **out)
{
	struct fig_capture *c = calloc(1, sizeof(*c));
	struct fig_ctx ctx = {0};
	const struct an_figure *f;
	struct probe_info p;
	int64_t lo, hi, t0, t1;
	size_t n = 0;
	int err;

	*out = NULL;
	if (!c)
		return -ENOMEM;
	c->w = *w;
	err = capture_meta__load(db, capture_id, &c->m);
	err = err ?: load_header(db, c);
	if (err)
		goto cleanup;
	window__bounds(w, &c->m, &lo, &hi);
	t0 = lo > c->m.base_ns ? lo : c->m.base_ns;
	t1 = c->m.last_event_ns >= 0 && hi > c->m.last_event_ns ? c->m.last_event_ns : hi;
	c->span_s = t1 > t0 ? (double)(t1 - t0) / 1e9 : 0;
	for (f = an_figure__next(NULL); f; f = an_figure__next(f))
		n++;
	c->fam = calloc(n ? n : 1, sizeof(*c->fam));
	if (!c->fam) {
		err = -ENOMEM;
		goto cleanup;
	}
	ctx.db = db;
	ctx.m = &c->m;
	ctx.w = *w;
	ctx.span_s = c->span_s;
	for (f = an_figure__next(NULL); f && !err; f = an_figure__next(f)) {
		struct fig_family *fam = &c->fam[c->n++];

		fam->fig = f;
		err = probe__lookup(db, c->m.cap, f->probe, &p);
		if (err)
			break;
		if (!probe__active(&p)) {
			fig_family__not_measured(fam, "%s %s: %s", f->probe, p.state,
						 p.reason[0] ? p.reason : "no reason recorded");
			fam->before_end_s = NAN;
			continue;
		}
		fam->measured = true;
		fam->complete = true;
		fam->before_end_s = NAN;
		err = f->compute(&ctx, f, fam);
	}
cleanup:
	fig_ctx__release(&ctx);
	if (err)
		fig_capture__free(c);
	else
		*out = c;
	return err;
}

void fig_capture__free(struct fig_capture *c)
{
	if (!c)
		return;
	for (size_t k = 0; k < c->n; k++)
		family_free(&c->fam[k]);
	free(c->fam);
	free(c);
}

const struct fig_family *fig_capture__find(const struct fig_capture *c, const char *name)
{
	for (size_t k = 0; k < c->n; k++)
		if (!strcmp(c->fam[k].fig->name, name))
			return &c->fam[k];
	return NULL;
}

/* ------------------------------------------------------------------ statistics */

double fig_z_crit(double confidence)
{
	double alpha = 1 - confidence, lo = 0, hi = 40;

	if (!(alpha > 0))
		return INFINITY;
	/* P(|Z| > z) = erfc(z / sqrt 2), decreasing in z: bisect */
	for (int k = 0; k < 200; k++) {
		double mid = (lo + hi) / 2;

		if (erfc(mid / M_SQRT2) > alpha)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

int fig_two_proportion(uint64_t x1, uint64_t n1, uint64_t x2, uint64_t n2, double *z)
{
	double p, se;

	if (!n1 || !n2 || x1 > n1 || x2 > n2)
		return -EDOM;
	p = (double)(x1 + x2) / (double)(n1 + n2);
	if (p * (double)n1 < 5 || p * (double)n2 < 5 || (1 - p) * (double)n1 < 5 ||
	    (1 - p) * (double)n2 < 5)
		return -EDOM;
	se = sqrt(p * (1 - p) * (1.0 / (double)n1 + 1.0 / (double)n2));
	*z = ((double)x2 / (double)n2 - (double)x1 / (double)n1) / se;
	return 0;
}

int fig_poisson_rates(uint64_t c1, double t1, uint64_t c2, double t2, double *z)
{
	double n = (double)c1 + (double)c2, p;

	if (!(t1 > 0) || !(t2 > 0))
		return -EDOM;
	p = t2 / (t1 + t2); /* C2's expected share of the events when the rates are equal */
	if (n * p < 5 || n * (1 - p) < 5)
		return -EDOM;
	*z = ((double)c2 - n * p) / sqrt(n * p * (1 - p));
	return 0;
}

/* ------------------------------------------------------------------ identities */

static const char *base_name(const char *path)
{
	const char *b = path ? strrchr(path, '/') : NULL;

	return b ? b + 1 : path && path[0] ? path : "[unknown]";
}

static bool same_str(const char *a, const char *b)
{
	return !strcmp(a ? a : "", b ? b : "");
}

int fig_site__names(const struct fig_site *s, size_t n, char **names)
{
	int len;

	for (size_t k = 0; k < n; k++) {
		bool other_module = false, other_place = false;

		if (!s[k].named) {
			len = asprintf(&names[k], "[unnamed %s]", base_name(s[k].module));
			goto check;
		}
		for (size_t j = 0; j < n; j++) {
			if (j == k || !s[j].named || strcmp(s[j].func, s[k].func))
				continue;
			if (strcmp(base_name(s[j].module), base_name(s[k].module)))
				other_module = true;
			else if (!same_str(s[j].file, s[k].file))
				other_place = true;
		}
		if (other_place)
			len = asprintf(&names[k], "%s@%s:%s:%u", s[k].func, base_name(s[k].module),
				       s[k].file ? s[k].file : "?", s[k].line);
		else if (other_module)
			len = asprintf(&names[k], "%s@%s", s[k].func, base_name(s[k].module));
		else
			len = asprintf(&names[k], "%s", s[k].func);
check:
		if (len < 0) {
			names[k] = NULL;
			for (size_t j = 0; j < k; j++) {
				free(names[j]);
				names[j] = NULL;
			}
			return -ENOMEM;
		}
	}
	return 0;
}

int fig_family__set_hist(struct fig_family *fam, const uint64_t *h, unsigned pct)
{
	struct fig_value *x = fam->n ? &fam->val[fam->n - 1] : NULL;

	if (!x)
		return -EINVAL;
	x->hist = malloc(HIST_BUCKETS * sizeof(*x->hist));
	if (!x->hist)
		return -ENOMEM;
	memcpy(x->hist, h, HIST_BUCKETS * sizeof(*x->hist));
	x->pct = pct;
	return 0;
}

int fig_family__accumulate(struct fig_family *fam, const char *arg, double v, uint64_t count)
{
	for (size_t k = 0; k < fam->n; k++)
		if (fam->val[k].arg && arg && !strcmp(fam->val[k].arg, arg)) {
			fam->val[k].v += v;
			fam->val[k].count += count;
			return 0;
		}
	return fig_family__add(fam, arg, v, count);
}

void fig_series__add(struct fig_series *s, double v)
{
	if (!s->n) {
		s->peak = s->prev = v;
		s->peak_spread = s->last_spread = 0;
		s->after_peak = true;
		s->n = 1;
		return;
	}
	if (s->after_peak) { /* V is the peak's next neighbour */
		double gap = s->peak - v;

		if (s->n == 1 || gap < s->peak_spread)
			s->peak_spread = gap > 0 ? gap : 0;
		s->after_peak = false;
	}
	s->last_spread = fabs(v - s->prev);
	if (v > s->peak) { /* a new peak: its previous neighbour is PREV */
		s->peak = v;
		s->peak_spread = v - s->prev;
		s->after_peak = true;
	}
	s->prev = v;
	s->n++;
}

int fig_family__accumulate_est(struct fig_family *fam, const char *arg, double v, double basis)
{
	int err = fig_family__accumulate(fam, arg, v, 0);

	for (size_t k = 0; !err && k < fam->n; k++)
		if ((!arg && !fam->val[k].arg) ||
		    (arg && fam->val[k].arg && !strcmp(fam->val[k].arg, arg))) {
			fam->val[k].basis += basis;
			break;
		}
	return err;
}

double fig_expected_samples(double basis, double sample_bytes)
{
	return sample_bytes > 0 ? basis / sample_bytes : INFINITY;
}

int fig_sampled_estimates(double vb, double basis_b, double pb, double vn, double basis_n,
			  double pn, double *z)
{
	double basis = (basis_b + basis_n) / 2, v = (vb + vn) / 2, var = 0;
	const double p[2] = {pb, pn};

	*z = NAN;
	if (!(pb > 0) && !(pn > 0))
		return -EDOM;
	for (int i = 0; i < 2; i++) {
		double lambda = fig_expected_samples(basis, p[i]);

		if (!(p[i] > 0))
			continue;
		if (!(lambda >= FIG_MIN_SAMPLES))
			return -EDOM;
		var += 2 * v * v / lambda;
	}
	*z = var > 0 ? (vn - vb) / sqrt(var) : 0;
	return 0;
}

/* The bucket of H holding the value of rank RANK (1-based), or -1. */
static int bucket_of_rank(const uint64_t *h, size_t n, uint64_t rank)
{
	uint64_t cum = 0;

	for (size_t b = 0; b < n; b++) {
		cum += h[b];
		if (cum >= rank)
			return (int)b;
	}
	return -1;
}

int fig_hist_percentile_ci(const uint64_t *h, size_t n, unsigned pct, double z, int *lo, int *hi)
{
	double total = 0, p = pct / 100.0, mid, half;
	double r_lo, r_hi;

	if (pct < 1 || pct > 99)
		return -EDOM;
	for (size_t b = 0; b < n; b++)
		total += (double)h[b];
	mid = total * p;
	half = z * sqrt(total * p * (1 - p));
	r_lo = floor(mid - half);
	r_hi = ceil(mid + half) + 1;
	if (r_lo < 1 || r_hi > total)
		return -EDOM;
	*lo = bucket_of_rank(h, n, (uint64_t)r_lo);
	*hi = bucket_of_rank(h, n, (uint64_t)r_hi);
	return *lo < 0 || *hi < 0 ? -EDOM : 0;
}
