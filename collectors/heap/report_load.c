/* report_load.c — the heap collector's loader, shared by `report heap`, `report leaks`, the
 * replay viewer (heap_sites__load) and `export --profile heap` (heap_stacks__load): the
 * heap_snapshot and heap_site rows of a window folded by allocating function (the first frame
 * outside the allocator), named through the symbol store; the trend and the suppressions of
 * `report leaks`. */
#include "collectors/heap/report_int.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- trend */

void heap_trend__compute(const double *t_s, const double *y, size_t n, struct heap_trend *tr)
{
	double mt = 0, my = 0, sxx = 0, sxy = 0, syy = 0;
	size_t up = 0;

	memset(tr, 0, sizeof(*tr));
	tr->n = n;
	tr->confidence = n < 3 ? "none" : n < 6 ? "low" : n < 12 ? "medium" : "high";
	if (n < 2)
		return;
	for (size_t i = 0; i < n; i++) {
		mt += t_s[i];
		my += y[i];
		if (i && y[i] > y[i - 1])
			up++;
	}
	mt /= (double)n;
	my /= (double)n;
	for (size_t i = 0; i < n; i++) {
		sxx += (t_s[i] - mt) * (t_s[i] - mt);
		sxy += (t_s[i] - mt) * (y[i] - my);
		syy += (y[i] - my) * (y[i] - my);
	}
	tr->grew = (double)up / (double)(n - 1);
	if (sxx > 0)
		tr->slope = sxy / sxx;
	if (sxx > 0 && syy > 0)
		tr->r2 = sxy * sxy / (sxx * syy);
	if (tr->r2 > 1)
		tr->r2 = 1;
	if (n >= 3 && tr->slope > 0)
		tr->score = tr->r2 * tr->grew;
}

/* ---------------------------------------------------------------- suppressions */

void suppressions__free(struct suppressions *s)
{
	if (!s)
		return;
	for (size_t k = 0; k < s->n; k++)
		free(s->pattern[k]);
	free(s->pattern);
	memset(s, 0, sizeof(*s));
}

int suppressions__parse(const char *text, struct suppressions *s, char *err, size_t errlen)
{
	const char *p = text;
	unsigned lineno = 0;
	int ret = 0;

	memset(s, 0, sizeof(*s));
	while (p && *p) {
		const char *e = strchr(p, '\n'), *b = p, *end = e ? e : p + strlen(p);
		char **n;

		lineno++;
		p = e ? e + 1 : NULL;
		while (b < end && (*b == ' ' || *b == '\t' || *b == '\r'))
			b++;
		while (end > b && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
			end--;
		if (b == end || *b == '#')
			continue;
		if ((size_t)(end - b) < 5 || strncmp(b, "leak:", 5)) {
			const char *colon = memchr(b, ':', (size_t)(end - b));

			snprintf(err, errlen,
				 "line %u: '%.*s' is not a leak:PATTERN line%s", lineno,
				 (int)(end - b > 80 ? 80 : end - b), b,
				 colon ? " (only the leak type applies to leaks)" : "");
			ret = -EINVAL;
			goto cleanup;
		}
		b += 5;
		if (b == end) {
			snprintf(err, errlen, "line %u: leak: with an empty pattern", lineno);
			ret = -EINVAL;
			goto cleanup;
		}
		n = realloc(s->pattern, (s->n + 1) * sizeof(*n));
		if (!n) {
			ret = -ENOMEM;
			goto cleanup;
		}
		s->pattern = n;
		s->pattern[s->n] = strndup(b, (size_t)(end - b));
		if (!s->pattern[s->n]) {
			ret = -ENOMEM;
			goto cleanup;
		}
		s->n++;
	}
cleanup:
	if (ret)
		suppressions__free(s);
	return ret;
}

/* Does P[0..pn) match S from its start ('*' any run), to S's end when ANCHOR_END? */
static bool match_here(const char *p, size_t pn, const char *s, bool anchor_end)
{
	while (pn) {
		if (*p == '*') {
			while (pn && *p == '*')
				p++, pn--;
			if (!pn)
				return true;
			for (; *s; s++)
				if (match_here(p, pn, s, anchor_end))
					return true;
			return match_here(p, pn, s, anchor_end);
		}
		if (!*s || *s != *p)
			return false;
		p++, pn--, s++;
	}
	return !anchor_end || !*s;
}

bool suppression__match(const char *pattern, const char *s)
{
	size_t pn;
	bool start = false, end = false;

	if (!pattern || !s)
		return false;
	pn = strlen(pattern);
	if (pn && pattern[0] == '^') {
		start = true;
		pattern++, pn--;
	}
	if (pn && pattern[pn - 1] == '$') {
		end = true;
		pn--;
	}
	if (start)
		return match_here(pattern, pn, s, end);
	for (const char *c = s;; c++) {
		if (match_here(pattern, pn, c, end))
			return true;
		if (!*c)
			return false;
	}
}

/* ---------------------------------------------------------------- loading */

void hr_free(struct heap *h)
{
	for (size_t k = 0; k < h->n_snap; k++) {
		free(h->snap[k].lane);
		free(h->snap[k].module);
	}
	for (size_t k = 0; k < h->n_fn; k++) {
		free(h->fn[k].name);
		free(h->fn[k].series);
	}
	free(h->snap);
	free(h->lane);
	for (size_t k = 0; k < h->n_execd; k++)
		free(h->execd[k]);
	free(h->execd);
	for (size_t k = 0; k < h->n_gap; k++) {
		free(h->gap[k].name);
		free(h->gap[k].state);
		free(h->gap[k].reason);
		free(h->gap[k].cause);
	}
	free(h->gap);
	free(h->row);
	free(h->fn);
	free(h->point_t);
	free(h->point_full);
	for (size_t k = 0; k < h->n_peak; k++)
		free(h->peak[k].name);
	free(h->peak);
	profile__free(h->stacks);
	memset(h, 0, sizeof(*h));
}

static char *col_str(sqlite3_stmt *s, int i)
{
	const char *t = (const char *)sqlite3_column_text(s, i);

	return strdup(t ? t : "");
}

#define IN_WINDOW                                                                                  \
	"(h.time_ns - COALESCE(h.interval_ns, 0) / 2) >= ?2 AND "                                  \
	"(h.time_ns - COALESCE(h.interval_ns, 0) / 2) < ?3"

static const char snaps_sql[] =
    "SELECT seq, time_ns, interval_ns, COALESCE(pid, 0), lane, module, sample_bytes, "
    "live_measured, alloc_count, alloc_bytes, live_bytes, live_count, leak_bytes, "
    "leak_count, leak_age_ns, sites, total_call_sites, omitted_alloc_count, "
    "omitted_alloc_bytes, omitted_live_bytes, live_untracked, stack_failures, "
    "free_untracked, peak_live_bytes, peak_time_ns, temporary_count FROM heap_snapshot h "
    "WHERE h.cap = ?1 AND "
    IN_WINDOW
    " ORDER BY time_ns, seq";

static int load_snaps(sqlite3 *db, const struct capture_meta *m, const struct window *w,
		      struct heap *h)
{
	sqlite3_stmt *s = NULL;
	size_t cap = 0;
	int64_t lo, hi;
	int rc, ret = 0;

	window__bounds(w, m, &lo, &hi);
	if (report__prepare_at(db, snaps_sql, m, lo, hi, &s))
		return -EIO;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		struct hsnap *x;

		if (array__grow((void **)&h->snap, &cap, h->n_snap, sizeof(*h->snap))) {
			ret = -ENOMEM;
			goto cleanup;
		}
		x = &h->snap[h->n_snap++];
		memset(x, 0, sizeof(*x));
		x->seq = sqlite3_column_int64(s, 0);
		x->time_ns = sqlite3_column_int64(s, 1);
		x->interval_ns = report__col(s, 2, -1);
		x->pid = sqlite3_column_int64(s, 3);
		x->lane = col_str(s, 4);
		x->module = col_str(s, 5);
		if (!x->lane || !x->module) {
			ret = -ENOMEM;
			goto cleanup;
		}
		x->sample_bytes = (uint64_t)sqlite3_column_int64(s, 6);
		x->live_measured = sqlite3_column_int(s, 7) != 0;
		x->alloc_count = (uint64_t)sqlite3_column_int64(s, 8);
		x->alloc_bytes = (uint64_t)sqlite3_column_int64(s, 9);
		x->live_bytes = report__col(s, 10, -1);
		x->live_count = report__col(s, 11, -1);
		x->leak_bytes = report__col(s, 12, -1);
		x->leak_count = report__col(s, 13, -1);
		x->leak_age_ns = report__col(s, 14, -1);
		x->sites = (uint64_t)sqlite3_column_int64(s, 15);
		x->total_call_sites = (uint64_t)sqlite3_column_int64(s, 16);
		x->omitted_alloc_count = (uint64_t)sqlite3_column_int64(s, 17);
		x->omitted_alloc_bytes = (uint64_t)sqlite3_column_int64(s, 18);
		x->omitted_live_bytes = report__col(s, 19, -1);
		x->live_untracked = report__col(s, 20, -1);
		x->stack_failures = (uint64_t)sqlite3_column_int64(s, 21);
		x->free_untracked = report__col(s, 22, -1);
		x->peak_bytes = report__col(s, 23, -1);
		x->peak_time_ns = report__col(s, 24, -1);
		x->temp_count = report__col(s, 25, -1);
	}
	if (rc != SQLITE_DONE)
		ret = -EIO;
cleanup:
	sqlite3_finalize(s);
	return ret;
}

static const char rows_sql[] =
    "SELECT hs.seq, COALESCE(hs.stack_id, 0), hs.alloc_count, hs.alloc_bytes, "
    "hs.live_count, hs.live_bytes, hs.freed_count, hs.lifetime_ns_sum, hs.oldest_live_ns, "
    "hs.temporary_count FROM heap_site hs JOIN heap_snapshot h USING (cap, seq) "
    "WHERE h.cap = ?1 AND "
    IN_WINDOW
    " ORDER BY h.time_ns, h.seq";

static int load_rows(sqlite3 *db, const struct capture_meta *m, const struct window *w,
		     struct heap *h)
{
	sqlite3_stmt *s = NULL;
	size_t cap = 0, j = 0;
	int64_t lo, hi;
	int rc, ret = 0;

	window__bounds(w, m, &lo, &hi);
	if (report__prepare_at(db, rows_sql, m, lo, hi, &s))
		return -EIO;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		int64_t seq = sqlite3_column_int64(s, 0);
		struct hrow *r;

		/* rows come in snapshot order: find the snapshot by walking forward */
		while (j < h->n_snap && h->snap[j].seq != seq)
			j++;
		if (j == h->n_snap) { /* not in order (should not happen): search all */
			for (j = 0; j < h->n_snap && h->snap[j].seq != seq; j++)
				;
			if (j == h->n_snap) {
				j = 0;
				continue;
			}
		}
		if (array__grow((void **)&h->row, &cap, h->n_row, sizeof(*h->row))) {
			ret = -ENOMEM;
			goto cleanup;
		}
		r = &h->row[h->n_row++];
		r->snap = j;
		r->stack_id = sqlite3_column_int64(s, 1);
		r->alloc_count = (uint64_t)sqlite3_column_int64(s, 2);
		r->alloc_bytes = (uint64_t)sqlite3_column_int64(s, 3);
		r->live_count = report__col(s, 4, -1);
		r->live_bytes = report__col(s, 5, -1);
		r->freed_count = report__col(s, 6, -1);
		r->lifetime_sum = report__col(s, 7, -1);
		r->oldest_live_ns = report__col(s, 8, -1);
		r->temp_count = report__col(s, 9, -1);
		r->fn = 0;
	}
	if (rc != SQLITE_DONE)
		ret = -EIO;
cleanup:
	sqlite3_finalize(s);
	return ret;
}

/* ---------------------------------------------------------------- folding */

/* Functions of the allocator itself: the stack walk starts inside them. */
static const char *const alloc_names[] = {
    "malloc",	      "calloc",		 "realloc",	     "free",
    "reallocarray",   "posix_memalign",	 "aligned_alloc",    "memalign",
    "valloc",	      "pvalloc",	 "__libc_malloc",    "__libc_calloc",
    "__libc_realloc", "__libc_memalign", "__libc_valloc",    "__libc_pvalloc",
    "_int_malloc",    "_int_realloc",	 "_int_memalign",    "__malloc_hook_ini",
    "operator new",   "_Znwm",		 "_Znam",	     "runtime.mallocgc",
    "runtime.newobject", "runtime.makeslice", "runtime.growslice", "runtime.makemap",
    "runtime.makemap_small", "runtime.newarray", "runtime.rawstring", "runtime.rawbyteslice",
    "runtime.rawruneslice", "runtime.mallocgc_", "runtime.mallocgcSmall",
    "runtime.mallocgcLarge", "runtime.mallocgcTiny",
};

static bool alloc_name_is(const char *f)
{
	for (size_t k = 0; k < sizeof(alloc_names) / sizeof(alloc_names[0]); k++) {
		size_t n = strlen(alloc_names[k]);

		/* "operator new(unsigned long)", "runtime.mallocgcSmallNoscan" */
		if (!strncmp(f, alloc_names[k], n) &&
		    (!f[n] || f[n] == '(' || alloc_names[k][n - 1] == '_' ||
		     !strncmp(alloc_names[k], "runtime.mallocgc", 16)))
			return true;
	}
	return false;
}

static bool alloc_name(const char *f)
{
	if (!strncmp(f, "__GI_", 5)) /* glibc's internal aliases: __GI___libc_malloc */
		f += 5;
	/* glibc's own names for its public functions, which a static executable's
	 * symbol table may give instead: __calloc, __posix_memalign */
	return alloc_name_is(f) || (!strncmp(f, "__", 2) && alloc_name_is(f + 2));
}

const char *hr_base_of(const char *p)
{
	const char *b = p ? strrchr(p, '/') : NULL;

	return b ? b + 1 : p ? p : "";
}

/* Whether MOD is the target's executable EXE, or a program it exec'd during the
 * recording: a module that also holds the program's own code. */
static bool program_module(const struct heap *h, const char *exe, const char *mod)
{
	if (exe && exe[0] && !strcmp(hr_base_of(exe), hr_base_of(mod)))
		return true;
	for (size_t k = 0; k < h->n_execd; k++)
		if (!strcmp(hr_base_of(h->execd[k]), hr_base_of(mod)))
			return true;
	return false;
}

/* Is frame L inside the allocator: in an allocator module (one the snapshots
 * name, unless it is the executable or a program exec'd, which also hold the
 * program's own code), or named as an allocator function. */
static bool alloc_frame(const struct heap *h, const char *exe, const struct prof_loc *l)
{
	if (l->n && l->f[0].func && alloc_name(l->f[0].func))
		return true;
	if (l->n && l->f[l->n - 1].func && alloc_name(l->f[l->n - 1].func))
		return true;
	for (size_t k = 0; k < h->n_snap; k++) {
		const char *mod = h->snap[k].module;

		if (!mod[0] || (k && !strcmp(mod, h->snap[k - 1].module)))
			continue;
		if (program_module(h, exe, mod))
			continue;
		if (!strcmp(mod, l->module) || !strcmp(hr_base_of(mod), hr_base_of(l->module)))
			return true;
	}
	return false;
}

/* The index of the allocating frame of stack ST: the first frame outside the
 * allocator. When every frame is in the allocator's module (the allocator's own
 * library calling malloc, e.g. stdio's buffer, and a walk that stopped there):
 * the first frame not named as an allocator function, else the outermost. */
size_t hr_caller_frame(const struct heap *h, const char *exe, const struct prof_stack *st)
{
	for (size_t d = 0; d < st->n; d++)
		if (!alloc_frame(h, exe, st->loc[d]))
			return d;
	for (size_t d = 0; d < st->n; d++) {
		const struct prof_loc *l = st->loc[d];

		if (l->n && l->f[0].func && !alloc_name(l->f[0].func) && l->f[l->n - 1].func &&
		    !alloc_name(l->f[l->n - 1].func))
			return d;
	}
	return st->n ? st->n - 1 : 0;
}

struct stack_fn {
	int64_t sid;
	size_t fn;
};

static int cmp_stack_fn(const void *a, const void *b)
{
	const struct stack_fn *x = a, *y = b;

	return x->sid < y->sid ? -1 : x->sid > y->sid;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

static int fn_index(struct heap *h, const char *module, const char *name, bool named, size_t *ix)
{
	struct hfn *n;

	for (size_t k = 0; k < h->n_fn; k++)
		if (!strcmp(h->fn[k].name, name) && !strcmp(h->fn[k].module, module)) {
			*ix = k;
			return 0;
		}
	n = realloc(h->fn, (h->n_fn + 1) * sizeof(*n));
	if (!n)
		return -ENOMEM;
	h->fn = n;
	n = &h->fn[h->n_fn];
	memset(n, 0, sizeof(*n));
	n->name = strdup(name);
	if (!n->name)
		return -ENOMEM;
	n->module = module;
	n->named = named;
	n->oldest_live_ns = -1;
	n->stack = -1;
	*ix = h->n_fn++;
	return 0;
}

/* Fold the rows by allocating function; sums over the window, live figures
 * from the last snapshot of each pid, the series per distinct snapshot time. */
static int fold(struct heap *h, const char *exe)
{
	struct stack_fn *map = NULL;
	int64_t *ids = NULL;
	uint64_t *weight = NULL;
	size_t n_ids = 0, n_map = 0;
	char name[512];
	int ret = 0;

	ids = malloc((h->n_row + 1) * sizeof(*ids));
	if (!ids)
		return -ENOMEM;
	for (size_t k = 0; k < h->n_row; k++)
		ids[n_ids++] = h->row[k].stack_id;
	qsort(ids, n_ids, sizeof(*ids), cmp_i64);
	map = malloc((n_ids + 1) * sizeof(*map));
	if (!map) {
		ret = -ENOMEM;
		goto cleanup;
	}
	for (size_t k = 0; k < n_ids; k++) {
		const struct prof_stack *st;
		const struct prof_loc *l;
		const char *module = "";
		bool named = false;
		size_t d;

		if (k && ids[k] == ids[k - 1])
			continue;
		st = ids[k] ? profile__stack(h->stacks, ids[k]) : NULL;
		if (!st || !st->n) {
			snprintf(name, sizeof(name), "%s", ids[k] ? "[stack not placed]" : "[no stack]");
		} else {
			d = hr_caller_frame(h, exe, st);
			l = st->loc[d];
			prof_loc__name(l, 0, name, sizeof(name));
			module = l->module;
			named = l->n > 0;
		}
		map[n_map].sid = ids[k];
		ret = fn_index(h, module, name, named, &map[n_map].fn);
		if (ret)
			goto cleanup;
		h->fn[map[n_map].fn].n_stacks++;
		n_map++;
	}
	weight = calloc(n_map + 1, sizeof(*weight));
	if (!weight) {
		ret = -ENOMEM;
		goto cleanup;
	}
	for (size_t k = 0; k < h->n_fn; k++) {
		h->fn[k].series = malloc((h->n_points + 1) * sizeof(double));
		if (!h->fn[k].series) {
			ret = -ENOMEM;
			goto cleanup;
		}
		for (size_t p = 0; p < h->n_points; p++)
			h->fn[k].series[p] = h->point_full[p] ? 0 : NAN;
	}
	for (size_t k = 0; k < h->n_row; k++) {
		struct hrow *r = &h->row[k];
		const struct hsnap *sn = &h->snap[r->snap];
		struct stack_fn key = {.sid = r->stack_id}, *e;
		struct hfn *f;

		e = n_map ? bsearch(&key, map, n_map, sizeof(key), cmp_stack_fn) : NULL;
		if (!e)
			continue;
		r->fn = e->fn;
		f = &h->fn[e->fn];
		f->alloc_count += r->alloc_count;
		f->alloc_bytes += r->alloc_bytes;
		if (r->freed_count > 0 && r->lifetime_sum >= 0) {
			f->freed_count += (uint64_t)r->freed_count;
			f->lifetime_sum += (uint64_t)r->lifetime_sum;
		}
		weight[e - map] += r->alloc_bytes;
		if (r->temp_count > 0)
			f->temp_count += (uint64_t)r->temp_count;
		if (r->live_bytes >= 0) {
			double *v = &f->series[sn->point];

			*v = isnan(*v) ? (double)r->live_bytes : *v + (double)r->live_bytes;
		}
		if (sn->last && r->live_bytes >= 0) {
			f->live_bytes += (uint64_t)r->live_bytes;
			f->live_count += r->live_count > 0 ? (uint64_t)r->live_count : 0;
			if (r->oldest_live_ns > 0 &&
			    (f->oldest_live_ns < 0 || r->oldest_live_ns < f->oldest_live_ns))
				f->oldest_live_ns = r->oldest_live_ns;
			if (r->live_bytes > 0 && (uint64_t)r->live_bytes >= f->stack_weight) {
				f->stack_weight = (uint64_t)r->live_bytes;
				f->stack = r->stack_id;
			}
		}
	}
	/* file:line from the stack that allocated the most bytes; the stack shown
	 * is the one holding the most live bytes, else that one too; in a window where
	 * the function allocated nothing, the first stack that gives one */
	for (size_t k = 0; k < n_map; k++) {
		struct hfn *f = &h->fn[map[k].fn];
		const struct prof_stack *st =
		    map[k].sid ? profile__stack(h->stacks, map[k].sid) : NULL;

		if (f->stack >= 0 && weight[k] <= f->best && f->file)
			continue;
		f->best = weight[k];
		if (!f->stack_weight)
			f->stack = map[k].sid;
		if (st && st->n) {
			const struct prof_loc *l = st->loc[hr_caller_frame(h, exe, st)];

			f->file = l->n ? l->f[0].file : NULL;
			f->line = l->n ? l->f[0].line : 0;
		}
	}
cleanup:
	free(ids);
	free(map);
	free(weight);
	return ret;
}

/* With sampling, a site's live figures count the sampled allocations still live;
 * the snapshot's live bytes are exact (every allocation is tracked). Scale each
 * sampled snapshot's site figures so that the sites add up to its live bytes less
 * what the omitted sites held: the split between sites stays the samples'. So too
 * the temporaries: a sampled temporary is credited with the allocations since the
 * previous sample, so the sites' estimates need not add up to the snapshot's exact
 * count; they are scaled to it less the omitted sites' share (taken as their share
 * of the allocations). */
int hr_scale_sampled_live(struct heap *h)
{
	double *sum = calloc(3 * (h->n_snap + 1), sizeof(*sum)), *sumc = sum + h->n_snap + 1;
	double *sumt = sumc + h->n_snap + 1;

	if (!sum)
		return -ENOMEM;
	for (size_t k = 0; k < h->n_row; k++) {
		if (h->row[k].live_bytes > 0)
			sum[h->row[k].snap] += (double)h->row[k].live_bytes;
		if (h->row[k].live_count > 0)
			sumc[h->row[k].snap] += (double)h->row[k].live_count;
		if (h->row[k].temp_count > 0)
			sumt[h->row[k].snap] += (double)h->row[k].temp_count;
	}
	for (size_t k = 0; k < h->n_row; k++) {
		struct hrow *r = &h->row[k];
		const struct hsnap *x = &h->snap[r->snap];
		double want, share;

		if (x->sample_bytes && x->temp_count >= 0 && r->temp_count > 0 &&
		    sumt[r->snap] > 0) {
			want = (double)x->temp_count;
			if (x->alloc_count && x->omitted_alloc_count <= x->alloc_count)
				want *= 1.0 - (double)x->omitted_alloc_count / (double)x->alloc_count;
			r->temp_count = (int64_t)llround((double)r->temp_count * want / sumt[r->snap]);
		}

		if (!x->sample_bytes || !x->live_measured || x->live_bytes <= 0 ||
		    r->live_bytes <= 0 || sum[r->snap] <= 0)
			continue;
		want = (double)x->live_bytes -
		       (double)(x->omitted_live_bytes > 0 ? x->omitted_live_bytes : 0);
		if (want <= 0)
			continue;
		/* the omitted sites' live count is not recorded: their share of the
		 * live bytes is taken as their share of the count */
		share = want / (double)x->live_bytes;
		r->live_bytes = (int64_t)llround((double)r->live_bytes * want / sum[r->snap]);
		if (r->live_count > 0 && x->live_count > 0 && sumc[r->snap] > 0)
			r->live_count = (int64_t)llround((double)r->live_count *
							 (double)x->live_count * share /
							 sumc[r->snap]);
	}
	free(sum);
	return 0;
}

/* The lanes of the window's snapshots (in time order), as runs: a snapshot joins the
 * latest run of its lane and module unless another lane started after that run's last
 * snapshot (it came back after a handover: a new run). Lanes taking snapshots side by
 * side (a cgo program's uprobe and go lanes) stay one run each. 0 or -ENOMEM. */
static int heap_lanes(struct heap *h)
{
	size_t cap = 0;

	for (size_t k = 0; k < h->n_snap; k++) {
		const struct hsnap *x = &h->snap[k];
		struct hlane *l = NULL;
		size_t i = h->n_lane;

		while (i-- > 0)
			if (!strcmp(h->lane[i].lane, x->lane) &&
			    !strcmp(h->lane[i].module, x->module))
				break;
		if (i < h->n_lane) {
			l = &h->lane[i];
			for (size_t j = i + 1; j < h->n_lane; j++)
				if (h->lane[j].first_ns > l->last_ns)
					l = NULL; /* another lane took over after it */
		}
		if (!l) {
			if (array__grow((void **)&h->lane, &cap, h->n_lane, sizeof(*h->lane)))
				return -ENOMEM;
			l = &h->lane[h->n_lane++];
			l->lane = x->lane;
			l->module = x->module;
			l->from_ns = x->time_ns - (x->interval_ns > 0 ? x->interval_ns : 0);
			if (l->from_ns < h->base_ns)
				l->from_ns = h->base_ns; /* not before the capture started */
			l->first_ns = x->time_ns;
		}
		l->last_ns = x->time_ns;
	}
	return 0;
}

/* The programs the target exec'd during the recording, as the probe changes name
 * them ("exec PATH") into H->execd. 0, -ENOMEM or -EIO. */
static int load_execd(sqlite3 *db, int64_t cap, struct heap *h)
{
	sqlite3_stmt *s = NULL;
	size_t cap_ = 0;
	int rc, ret = 0;

	if (sqlite3_prepare_v2(db,
			       "SELECT DISTINCT substr(cause, 6) FROM probe_change WHERE cap = ?1 "
			       "AND cause LIKE 'exec _%'",
			       -1, &s, NULL) != SQLITE_OK)
		return -EIO;
	sqlite3_bind_int64(s, 1, cap);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		if (array__grow((void **)&h->execd, &cap_, h->n_execd, sizeof(*h->execd))) {
			ret = -ENOMEM;
			goto cleanup;
		}
		h->execd[h->n_execd] = col_str(s, 0);
		if (!h->execd[h->n_execd]) {
			ret = -ENOMEM;
			goto cleanup;
		}
		h->n_execd++;
	}
	if (rc != SQLITE_DONE)
		ret = -EIO;
cleanup:
	sqlite3_finalize(s);
	return ret;
}

/* The gaps in window W: each probe change that took the heap or goalloc collector
 * from active (HEAP_ACTIVE, GO_ACTIVE at the start) to another state opens one, the
 * next that makes it active again closes it. 0, -ENOMEM or -EIO. */
static int load_gaps(sqlite3 *db, const struct capture_meta *m, const struct window *w,
		     bool heap_active, bool go_active, struct heap *h)
{
	static const char changes_sql[] =
	    "SELECT name = 'goalloc', time_ns, name, state, reason, cause FROM probe_change "
	    "WHERE cap = ?1 AND name IN ('heap', 'goalloc') ORDER BY seq";
	const char *now_active =
	    capture_probe_state_name(PTOP__V1__PROBE_STATE__PROBE_STATE_ACTIVE);
	sqlite3_stmt *s = NULL;
	bool active[2] = {heap_active, go_active};
	size_t open[2] = {0}, cap = 0; /* open[i]: 1 + the gap open for collector i */
	int64_t lo, hi;
	int rc, ret = 0;

	window__bounds(w, m, &lo, &hi);
	if (sqlite3_prepare_v2(db, changes_sql, -1, &s, NULL) != SQLITE_OK)
		return -EIO;
	sqlite3_bind_int64(s, 1, m->cap);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		int i = sqlite3_column_int(s, 0);
		int64_t t = sqlite3_column_int64(s, 1);
		bool now = !strcmp((const char *)sqlite3_column_text(s, 3), now_active);
		struct hgap *g;

		if (now && open[i]) {
			h->gap[open[i] - 1].to_ns = t;
			open[i] = 0;
		}
		if (!now && active[i]) {
			if (array__grow((void **)&h->gap, &cap, h->n_gap, sizeof(*h->gap))) {
				ret = -ENOMEM;
				goto cleanup;
			}
			g = &h->gap[h->n_gap++];
			g->from_ns = t;
			g->to_ns = -1;
			g->name = col_str(s, 2);
			g->state = col_str(s, 3);
			g->reason = col_str(s, 4);
			g->cause = col_str(s, 5);
			if (!g->name || !g->state || !g->reason || !g->cause) {
				ret = -ENOMEM;
				goto cleanup;
			}
			open[i] = h->n_gap;
		}
		active[i] = now;
	}
	if (rc != SQLITE_DONE)
		ret = -EIO;
	/* only those that overlap the window */
	for (size_t k = 0, n = h->n_gap; !ret && k < n; k++) {
		struct hgap *g = &h->gap[n - 1 - k];

		if (g->from_ns < hi && (g->to_ns < 0 || g->to_ns > lo))
			continue;
		free(g->name);
		free(g->state);
		free(g->reason);
		free(g->cause);
		memmove(g, g + 1, (size_t)(&h->gap[h->n_gap] - (g + 1)) * sizeof(*g));
		h->n_gap--;
	}
cleanup:
	sqlite3_finalize(s);
	return ret;
}

/* Whether a probe change made the heap or goalloc collector active during the recording. */
static bool heap_started_later(sqlite3 *db, int64_t cap)
{
	const char *active = capture_probe_state_name(PTOP__V1__PROBE_STATE__PROBE_STATE_ACTIVE);
	sqlite3_stmt *s = NULL;
	bool yes = false;

	if (sqlite3_prepare_v2(db,
			       "SELECT 1 FROM probe_change WHERE cap = ?1 AND name IN ('heap', "
			       "'goalloc') AND state = ?2 LIMIT 1",
			       -1, &s, NULL) == SQLITE_OK) {
		sqlite3_bind_int64(s, 1, cap);
		sqlite3_bind_text(s, 2, active, -1, SQLITE_STATIC);
		yes = sqlite3_step(s) == SQLITE_ROW;
	}
	sqlite3_finalize(s);
	return yes;
}

static const char peak_sql[] =
    "SELECT COALESCE(p.stack_id, 0), p.live_bytes, p.live_count, h.peak_sites_live_bytes, "
    "h.peak_sites_time_ns FROM heap_peak_site p JOIN heap_snapshot h USING (cap, seq) "
    "WHERE h.cap = ?1 AND "
    IN_WINDOW
    " AND h.seq = (SELECT max(h.seq) FROM heap_snapshot "
    "h WHERE h.cap = ?1 AND h.peak_sites_live_bytes IS NOT NULL AND "
    IN_WINDOW
    ") "
    "ORDER BY p.live_bytes DESC, p.stack_id";

/* The sites at the peak: the heap_peak_site rows of the last snapshot in window W that
 * took them (the peak only grows: the last taken are the peak's), each named by its
 * allocating function as fold() names the sites. */
static int load_peak(sqlite3 *db, const struct capture_meta *m, const struct window *w,
		     struct heap *h)
{
	sqlite3_stmt *s = NULL;
	size_t cap = 0;
	int64_t lo, hi;
	int rc, ret = 0;
	char name[512];

	if (h->peak_bytes <= 0)
		return 0;
	window__bounds(w, m, &lo, &hi);
	if (report__prepare_at(db, peak_sql, m, lo, hi, &s))
		return -EIO;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		int64_t sid = sqlite3_column_int64(s, 0);
		const struct prof_stack *st = sid ? profile__stack(h->stacks, sid) : NULL;
		struct hpeak *x;

		if (array__grow((void **)&h->peak, &cap, h->n_peak, sizeof(*h->peak))) {
			ret = -ENOMEM;
			break;
		}
		x = &h->peak[h->n_peak];
		memset(x, 0, sizeof(*x));
		x->stack_id = sid;
		x->live_bytes = (uint64_t)sqlite3_column_int64(s, 1);
		x->live_count = (uint64_t)sqlite3_column_int64(s, 2);
		h->peak_sites_bytes = sqlite3_column_int64(s, 3);
		h->peak_sites_time_ns = sqlite3_column_int64(s, 4);
		x->module = "";
		if (!st || !st->n) {
			snprintf(name, sizeof(name), "%s", sid ? "[stack not placed]" : "[no stack]");
		} else {
			const struct prof_loc *l = st->loc[hr_caller_frame(h, h->exe, st)];

			prof_loc__name(l, 0, name, sizeof(name));
			x->module = l->module;
			x->file = l->n ? l->f[0].file : NULL;
			x->line = l->n ? l->f[0].line : 0;
		}
		x->name = strdup(name);
		if (!x->name) {
			ret = -ENOMEM;
			break;
		}
		h->n_peak++;
	}
	if (!ret && rc != SQLITE_DONE)
		ret = -EIO;
	sqlite3_finalize(s);
	return ret;
}

#undef IN_WINDOW

/* Whether capture CAP's target was attached to (--pid, --cgroup) rather than launched. */
static bool target_attached(sqlite3 *db, int64_t cap)
{
	sqlite3_stmt *s = NULL;
	bool yes = false;

	if (sqlite3_prepare_v2(db, "SELECT 1 FROM target WHERE cap = ?1 AND mode <> 'command'",
			       -1, &s, NULL) == SQLITE_OK) {
		sqlite3_bind_int64(s, 1, cap);
		yes = sqlite3_step(s) == SQLITE_ROW;
	}
	sqlite3_finalize(s);
	return yes;
}

/* The window's distinct site stacks and, of those, the ones whose walk was cut short. */
static int count_cut(struct heap *h)
{
	bool *seen;

	if (!h->stacks || !h->stacks->n_stacks)
		return 0;
	seen = calloc(h->stacks->n_stacks, sizeof(*seen));
	if (!seen)
		return -ENOMEM;
	for (size_t k = 0; k < h->n_row; k++) {
		const struct prof_stack *st =
		    h->row[k].stack_id ? profile__stack(h->stacks, h->row[k].stack_id) : NULL;

		if (!st || seen[st - h->stacks->stacks])
			continue;
		seen[st - h->stacks->stacks] = true;
		h->stacks_used++;
		if (st->cut_module) {
			h->stacks_cut++;
			if (!h->cut_module)
				h->cut_module = st->cut_module;
		}
	}
	free(seen);
	return 0;
}

/* Load everything for capture M in window W: snapshots, sites, names, folding. */
int hr_load(sqlite3 *db, const struct capture_meta *m, const struct report_opts *o,
		     struct heap *h, const char *cmd)
{
	struct probe_info go;
	char err_msg[512] = "";
	sqlite3_stmt *s = NULL;
	int ret;

	memset(h, 0, sizeof(*h));
	h->t0_ns = h->t1_ns = -1;
	h->base_ns = m->base_ns;
	ret = probe__lookup(db, m->cap, "heap", &h->probe);
	ret = ret ?: probe__lookup(db, m->cap, "goalloc", &go);
	if (ret)
		return ret;
	h->since_attach = heap_started_later(db, m->cap);
	h->collected = probe__active(&h->probe) || probe__active(&go) || h->since_attach;
	if (!h->collected)
		return 0;
	h->since_attach |= target_attached(db, m->cap);
	ret = load_gaps(db, m, &o->win, probe__active(&h->probe), probe__active(&go), h);
	if (ret)
		return ret;
	/* the tables and their latest column: a DB made by an older ptop-analyze
	 * (the schema version did not change when they were added) */
	ret = sqlite3_prepare_v2(db,
				 "SELECT h.temporary_count, s.temporary_count, p.live_bytes FROM "
				 "heap_snapshot h, heap_site s, heap_peak_site p LIMIT 0",
				 -1, &s, NULL) == SQLITE_OK
		  ? 0
		  : -EPROTO;
	sqlite3_finalize(s);
	s = NULL;
	if (ret) {
		const char *file = sqlite3_db_filename(db, "main");

		fprintf(stderr,
			"ptop-analyze report %s: %s was made before ptop-analyze had its heap "
			"tables as they are now: load the capture into a new DB (`ptop-analyze "
			"load FILE --db NEW.db`; a .ptop file's cache DB can be deleted)\n",
			cmd, file && *file ? file : "the DB");
		return ret;
	}
	ret = load_snaps(db, m, &o->win, h);
	ret = ret ?: load_rows(db, m, &o->win, h);
	ret = ret ?: hr_scale_sampled_live(h);
	ret = ret ?: heap_lanes(h);
	if (ret)
		return ret;

	/* points: the distinct snapshot times; the last snapshot of each pid */
	h->point_t = malloc((h->n_snap + 1) * sizeof(*h->point_t));
	h->point_full = malloc((h->n_snap + 1) * sizeof(*h->point_full));
	if (!h->point_t || !h->point_full)
		return -ENOMEM;
	h->live_measured = h->n_snap > 0;
	h->peak_bytes = h->peak_time_ns = h->temp_count = -1;
	h->peak_sites_bytes = h->peak_sites_time_ns = -1;
	h->sites_at_peak = true;
	for (size_t k = 0; k < h->n_snap; k++) {
		if (h->snap[k].peak_bytes < 0 || h->snap[k].temp_count < 0)
			break;
		/* the uprobe lane copies the sites' figures at its peak marks only */
		if (strcmp(h->snap[k].lane,
			   capture_heap_lane_name(PTOP__V1__HEAP_LANE__HEAP_LANE_PRELOAD)))
			h->sites_at_peak = false;
		if (k == h->n_snap - 1)
			h->peak_bytes = h->temp_count = 0;
	}
	for (size_t k = 0; k < h->n_snap; k++) {
		struct hsnap *x = &h->snap[k];
		bool full = x->sites >= x->total_call_sites;

		if (!k || x->time_ns != h->snap[k - 1].time_ns) {
			h->point_t[h->n_points] = (double)(x->time_ns - m->base_ns) / 1e9;
			h->point_full[h->n_points] = full;
			h->n_points++;
		} else if (!full) {
			h->point_full[h->n_points - 1] = false;
		}
		x->point = h->n_points - 1;
		x->last = true;
		for (size_t j = k + 1; j < h->n_snap; j++)
			if (h->snap[j].pid == x->pid) {
				x->last = false;
				break;
			}
		if (!x->live_measured)
			h->live_measured = false;
		if (x->sample_bytes != h->snap[0].sample_bytes)
			h->mixed_sampling = true;
		if (x->sample_bytes > h->sample_bytes_max)
			h->sample_bytes_max = x->sample_bytes;
		h->alloc_count += x->alloc_count;
		h->alloc_bytes += x->alloc_bytes;
		h->stack_failures += x->stack_failures;
		if (h->temp_count >= 0)
			h->temp_count += x->temp_count;
		if (h->peak_bytes >= 0 && x->peak_bytes > h->peak_bytes) {
			h->peak_bytes = x->peak_bytes;
			h->peak_time_ns = x->peak_time_ns;
		}
		h->omitted_alloc_count += x->omitted_alloc_count;
		h->omitted_alloc_bytes += x->omitted_alloc_bytes;
		if (!full)
			h->cut_intervals++;
		if (x->free_untracked >= 0)
			h->free_untracked = (h->free_untracked > 0 ? h->free_untracked : 0) +
					    x->free_untracked;
		if (x->live_untracked >= 0)
			h->live_untracked = (h->live_untracked > 0 ? h->live_untracked : 0) +
					    x->live_untracked;
		if (h->t0_ns < 0 || x->time_ns - (x->interval_ns > 0 ? x->interval_ns : 0) < h->t0_ns)
			h->t0_ns = x->time_ns - (x->interval_ns > 0 ? x->interval_ns : 0);
		if (x->time_ns > h->t1_ns)
			h->t1_ns = x->time_ns;
	}
	h->live_bytes = h->live_count = h->leak_bytes = h->omitted_live_bytes = -1;
	if (!h->n_snap)
		h->live_untracked = -1;
	if (!h->n_snap || !h->live_measured)
		h->free_untracked = -1;
	h->leak_age_ns = -1;
	for (size_t k = 0; k < h->n_snap; k++) {
		struct hsnap *x = &h->snap[k];

		if (!x->last)
			continue;
		h->last_sites += x->sites;
		h->last_total += x->total_call_sites;
		if (x->time_ns > h->last_ns)
			h->last_ns = x->time_ns;
		if (x->leak_age_ns > 0)
			h->leak_age_ns = x->leak_age_ns;
		if (!h->live_measured)
			continue;
#define ADD(dst, v)                                                                                \
	if ((v) >= 0)                                                                              \
	(dst) = ((dst) > 0 ? (dst) : 0) + (v)
		ADD(h->live_bytes, x->live_bytes);
		ADD(h->live_count, x->live_count);
		ADD(h->leak_bytes, x->leak_bytes);
		ADD(h->omitted_live_bytes, x->omitted_live_bytes);
#undef ADD
	}
	if (!h->live_measured)
		h->live_untracked = -1;

	/* names: what is not named yet, as report cpu does */
	{
		struct symstore_opts so = {.cache_dir = o->symbol_cache,
					   .debuginfod = o->debuginfod,
					   .debuginfod_urls = o->debuginfod_urls,
					   .retry_misses = o->symbol_cache || o->debuginfod};

		ret = symstore__ensure(db, m->cap, &so, &h->sym, err_msg, sizeof(err_msg));
		if (ret) {
			fprintf(stderr, "ptop-analyze report %s: symbolizing: %s\n", cmd, err_msg);
			return ret;
		}
	}
	ret = stacks__load(db, m->cap, &h->stacks);
	if (ret)
		return ret;
	ret = count_cut(h);
	if (ret)
		return ret;
	if (sqlite3_prepare_v2(db, "SELECT exe FROM target WHERE cap = ?1", -1, &s, NULL) ==
	    SQLITE_OK) {
		sqlite3_bind_int64(s, 1, m->cap);
		if (sqlite3_step(s) == SQLITE_ROW && sqlite3_column_text(s, 0))
			snprintf(h->exe, sizeof(h->exe), "%s",
				 (const char *)sqlite3_column_text(s, 0));
	}
	sqlite3_finalize(s);
	ret = load_execd(db, m->cap, h);
	ret = ret ?: fold(h, h->exe);
	return ret ?: load_peak(db, m, &o->win, h);
}

/* ---------------------------------------------------------------- for the replay viewer */

static void site_from(const struct heap *h, const struct hfn *f, struct heap_site *o)
{
	memset(o, 0, sizeof(*o));
	o->func = f->name;
	o->file = f->file;
	o->line = f->line;
	o->module = f->module;
	o->named = f->named;
	o->live_bytes = h->live_measured ? (int64_t)f->live_bytes : -1;
	o->live_count = h->live_measured ? (int64_t)f->live_count : -1;
	o->alloc_bytes = f->alloc_bytes;
	o->alloc_count = f->alloc_count;
	o->stack = f->stack;
	o->oldest_age_ns = f->oldest_live_ns > 0 ? h->last_ns - f->oldest_live_ns : -1;
	o->trend = f->trend;
}

void heap_sites__free(struct heap_sites *hs)
{
	if (!hs)
		return;
	if (hs->priv)
		hr_free(hs->priv);
	free(hs->priv);
	free(hs->site);
	free(hs->suspect);
	free(hs);
}

/* The heap figures of capture M in window W as the reports load them (hr_load), for
 * heap_sites__load and heap_stacks__load: into *H, which *PRIV keeps (their __free frees it).
 * 0, -ENOMEM, or hr_load's error. */
static int load_window(sqlite3 *db, const struct capture_meta *m, const struct window *w,
		       void **priv, struct heap **h)
{
	struct report_opts o = {.win = *w};

	*h = calloc(1, sizeof(**h));
	if (!*h)
		return -ENOMEM;
	*priv = *h;
	return hr_load(db, m, &o, *h, "heap");
}

/* load_window into HS->priv and H, then the members heap_sites and heap_stacks share (HS of
 * either type) from H. 0 or load_window's error. */
#define load_head(db, m, w, hs, h)                                                         \
	({                                                                                 \
		int err_ = load_window(db, m, w, &(hs)->priv, &(h));                       \
		if (!err_) {                                                               \
			(hs)->collected = (h)->collected;                                  \
			(hs)->probe = (h)->probe;                                          \
			(hs)->live_measured = (h)->live_measured;                          \
			(hs)->n_snap = (h)->n_snap;                                        \
			(hs)->sample_bytes = (h)->sample_bytes_max;                        \
		}                                                                          \
		err_;                                                                      \
	})

int heap_sites__load(sqlite3 *db, const struct capture_meta *m, const struct window *w,
		     bool suspects, struct heap_sites **out)
{
	struct heap_sites *hs = calloc(1, sizeof(*hs));
	struct heap *h = NULL;
	char *text = NULL;
	size_t len = 0, n_sus = 0, n_supp = 0;
	FILE *f;
	int err;

	*out = NULL;
	if (!hs)
		return -ENOMEM;
	err = load_head(db, m, w, hs, h);
	if (err)
		goto cleanup;
	hs->leak_age_ns = h->leak_age_ns > 0 ? h->leak_age_ns : LEAK_AGE_DEFAULT_NS;
	hs->live_bytes = h->live_measured ? h->live_bytes : -1;
	hs->live_count = h->live_measured ? h->live_count : -1;
	hs->alloc_bytes = h->alloc_bytes;
	hs->alloc_count = h->alloc_count;
	hs->complete = !h->cut_intervals;
	if (!h->collected || !h->n_snap)
		goto cleanup;
	f = open_memstream(&text, &len);
	if (!f) {
		err = -ENOMEM;
		goto cleanup;
	}
	hr_census_text(h, f);
	if (fclose(f)) {
		err = -ENOMEM;
		goto cleanup;
	}
	snprintf(hs->census, sizeof(hs->census), "%s", text ? text : "");
	hs->census[strcspn(hs->census, "\n")] = 0;
	hs->site = calloc(h->n_fn + 1, sizeof(*hs->site));
	hs->suspect = calloc(h->n_fn + 1, sizeof(*hs->suspect));
	if (!hs->site || !hs->suspect) {
		err = -ENOMEM;
		goto cleanup;
	}
	if (suspects && h->live_measured) {
		err = hr_rank_suspects(h, hs->leak_age_ns, NULL, &n_sus, &n_supp);
		if (err)
			goto cleanup;
		for (size_t k = 0; k < n_sus; k++)
			site_from(h, &h->fn[k], &hs->suspect[k]);
		hs->n_suspect = n_sus;
	}
	if (h->n_fn)
		hr_sort_by(h, hr_heap_by(h, HEAP_BY_DEFAULT));
	for (size_t k = 0; k < h->n_fn; k++)
		site_from(h, &h->fn[k], &hs->site[k]);
	hs->n = h->n_fn;
cleanup:
	free(text);
	if (err)
		heap_sites__free(hs);
	else
		*out = hs;
	return err;
}

int heap_sites__stack(const struct heap_sites *hs, int64_t stack, FILE *out)
{
	const struct heap *h = hs ? hs->priv : NULL;

	if (!h)
		return -EINVAL;
	hr_stack_text(out, h, h->exe, stack);
	return ferror(out) ? -EIO : 0;
}

/* ---------------------------------------------------------------- for export */

void heap_stacks__free(struct heap_stacks *hs)
{
	if (!hs)
		return;
	if (hs->priv)
		hr_free(hs->priv);
	free(hs->priv);
	free(hs->stack);
	free(hs);
}

static int cmp_heap_stack(const void *a, const void *b)
{
	const struct heap_stack *x = a, *y = b;
	int64_t i = x->stack ? x->stack->stack_id : INT64_MAX;
	int64_t j = y->stack ? y->stack->stack_id : INT64_MAX;

	if (i != j)
		return i < j ? -1 : 1;
	return strcmp(x->what ? x->what : "", y->what ? y->what : "");
}

/* The entry of HS for stack ST (NULL: the stackless WHAT), added when new. IX: per stack
 * of the stacks profile P, its entry + 1 (0: none yet). */
static struct heap_stack *heap_stack_of(struct heap_stacks *hs, size_t *cap, size_t *ix,
					const struct profile *p, const struct prof_stack *st,
					const char *what)
{
	size_t *slot = st ? &ix[st - p->stacks] : NULL;

	if (slot && *slot)
		return &hs->stack[*slot - 1];
	if (!st)
		for (size_t k = 0; k < hs->n; k++) /* a few stackless entries at most */
			if (!hs->stack[k].stack && !strcmp(hs->stack[k].what, what))
				return &hs->stack[k];
	if (array__grow((void **)&hs->stack, cap, hs->n, sizeof(*hs->stack)))
		return NULL;
	if (slot)
		*slot = hs->n + 1;
	memset(&hs->stack[hs->n], 0, sizeof(hs->stack[hs->n]));
	hs->stack[hs->n].stack = st;
	hs->stack[hs->n].what = st ? NULL : what;
	return &hs->stack[hs->n++];
}

/* Add V (possibly negative: rounding) to *DST, not below 0. */
static void add_clamped(uint64_t *dst, int64_t v)
{
	*dst = v < 0 && (uint64_t)-v > *dst ? 0 : *dst + (uint64_t)v;
}

int heap_stacks__load(sqlite3 *db, const struct capture_meta *m, const struct window *w,
		      struct heap_stacks **out)
{
	struct heap_stacks *hs = calloc(1, sizeof(*hs));
	struct heap *h = NULL;
	double *sum = NULL; /* per snapshot: its sites' allocations, count and bytes */
	size_t *ix = NULL;  /* per stack of h->stacks: its entry + 1 */
	uint64_t ac = 0, ab = 0, lc = 0, lb = 0;
	size_t cap = 0;
	struct heap_stack *rest;
	int err;

	*out = NULL;
	if (!hs)
		return -ENOMEM;
	err = load_head(db, m, w, hs, h);
	if (err)
		goto cleanup;
	hs->t0_ns = h->t0_ns;
	hs->t1_ns = h->t1_ns;
	if (!h->collected || !h->n_snap)
		goto cleanup;
	hs->alloc_count = h->alloc_count;
	hs->alloc_bytes = h->alloc_bytes;
	hs->live_count = h->live_measured && h->live_count > 0 ? (uint64_t)h->live_count : 0;
	hs->live_bytes = h->live_measured && h->live_bytes > 0 ? (uint64_t)h->live_bytes : 0;
	/* a sampled snapshot's sites estimate its allocations: scaled, as its live figures
	 * are (hr_scale_sampled_live), to what the snapshot counted less the sites left out */
	sum = calloc(2 * (h->n_snap + 1), sizeof(*sum));
	ix = calloc(h->stacks->n_stacks + 1, sizeof(*ix));
	if (!sum || !ix) {
		err = -ENOMEM;
		goto cleanup;
	}
	for (size_t k = 0; k < h->n_row; k++) {
		sum[2 * h->row[k].snap] += (double)h->row[k].alloc_count;
		sum[2 * h->row[k].snap + 1] += (double)h->row[k].alloc_bytes;
	}
	for (size_t k = 0; k < h->n_row; k++) {
		const struct hrow *r = &h->row[k];
		const struct hsnap *x = &h->snap[r->snap];
		const struct prof_stack *st = r->stack_id ? profile__stack(h->stacks, r->stack_id)
							  : NULL;
		struct heap_stack *e;
		uint64_t c = r->alloc_count, b = r->alloc_bytes;

		if (st && !st->n)
			st = NULL;
		e = heap_stack_of(hs, &cap, ix, h->stacks, st,
				  r->stack_id ? "[stack not placed]" : "[no stack]");
		if (!e) {
			err = -ENOMEM;
			goto cleanup;
		}
		if (x->sample_bytes && sum[2 * r->snap] > 0 &&
		    x->alloc_count > x->omitted_alloc_count)
			c = (uint64_t)llround((double)c *
					      (double)(x->alloc_count - x->omitted_alloc_count) /
					      sum[2 * r->snap]);
		if (x->sample_bytes && sum[2 * r->snap + 1] > 0 &&
		    x->alloc_bytes > x->omitted_alloc_bytes)
			b = (uint64_t)llround((double)b *
					      (double)(x->alloc_bytes - x->omitted_alloc_bytes) /
					      sum[2 * r->snap + 1]);
		e->alloc_count += c;
		e->alloc_bytes += b;
		ac += c;
		ab += b;
		if (x->last && h->live_measured) {
			e->live_count += r->live_count > 0 ? (uint64_t)r->live_count : 0;
			e->live_bytes += r->live_bytes > 0 ? (uint64_t)r->live_bytes : 0;
			lc += r->live_count > 0 ? (uint64_t)r->live_count : 0;
			lb += r->live_bytes > 0 ? (uint64_t)r->live_bytes : 0;
		}
	}
	if (hs->n) /* ix is of no use past here */
		qsort(hs->stack, hs->n, sizeof(*hs->stack), cmp_heap_stack);
	/* what the snapshots counted beyond the listed stacks: the sites left out (the
	 * census's figures), with the rounding of the scaling (taken back from the largest
	 * stack when negative); with sampling, what is more than the sites left out and the
	 * rounding is what no sample fell on (a live heap of a few unsampled blocks): not a
	 * site left out, an entry of its own, [not sampled] */
	if (ac != hs->alloc_count || ab != hs->alloc_bytes || lc != hs->live_count ||
	    lb != hs->live_bytes) {
		int64_t d[4] = {(int64_t)(hs->alloc_count - ac), (int64_t)(hs->alloc_bytes - ab),
				(int64_t)(hs->live_count - lc), (int64_t)(hs->live_bytes - lb)};
		int64_t left[4] = {(int64_t)h->omitted_alloc_count, (int64_t)h->omitted_alloc_bytes,
				   0, h->omitted_live_bytes > 0 ? h->omitted_live_bytes : 0};
		int64_t part[2][4] = {{0}}; /* [0] left out, [1] not sampled */
		int64_t rounding = (int64_t)h->n_row + 1; /* at most 1/2 per row scaled */
		size_t big = 0;

		/* the live count of the sites left out is not recorded: their share of the
		 * live bytes */
		if (d[3] > 0 && d[2] > 0 && left[3] > 0)
			left[2] = (int64_t)llround((double)d[2] * (double)left[3] / (double)d[3]);
		for (int i = 0; i < 4; i++) {
			if (!h->sample_bytes_max || d[i] <= 0) {
				part[0][i] = d[i];
				continue;
			}
			part[0][i] = d[i] < left[i] ? d[i] : left[i];
			part[1][i] = d[i] - part[0][i];
			if (part[1][i] <= rounding && (i < 2 ? ac : lc) > 0) {
				part[0][i] += part[1][i]; /* rounding: with the sites left out */
				part[1][i] = 0;
			}
		}
		for (size_t k = 0; k < hs->n; k++)
			if (hs->stack[k].alloc_bytes + hs->stack[k].live_bytes >
			    hs->stack[big].alloc_bytes + hs->stack[big].live_bytes)
				big = k;
		for (int g = 0; g < 2; g++) {
			if (!part[g][0] && !part[g][1] && !part[g][2] && !part[g][3])
				continue;
			rest = heap_stack_of(hs, &cap, ix, h->stacks, NULL,
					     g ? "[not sampled]" : "[sites left out]");
			if (!rest) {
				err = -ENOMEM;
				goto cleanup;
			}
			for (int i = 0; i < 4; i++) {
				uint64_t *dst = i == 0	 ? &rest->alloc_count
						: i == 1 ? &rest->alloc_bytes
						: i == 2 ? &rest->live_count
							 : &rest->live_bytes;
				uint64_t *bd = i == 0	? &hs->stack[big].alloc_count
					       : i == 1 ? &hs->stack[big].alloc_bytes
					       : i == 2 ? &hs->stack[big].live_count
							: &hs->stack[big].live_bytes;

				if (part[g][i] >= 0)
					*dst += (uint64_t)part[g][i];
				else
					add_clamped(bd, part[g][i]);
			}
			if (g) {
				hs->unsampled_alloc_bytes = rest->alloc_bytes;
				hs->unsampled_live_bytes = rest->live_bytes;
			}
			if (!rest->alloc_count && !rest->alloc_bytes && !rest->live_count &&
			    !rest->live_bytes)
				hs->n--; /* it is the last: only rounding taken back */
		}
	}
cleanup:
	free(sum);
	free(ix);
	if (err)
		heap_stacks__free(hs);
	else
		*out = hs;
	return err;
}
