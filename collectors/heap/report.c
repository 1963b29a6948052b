/* report_heap.c — `report heap` (allocations by allocating function: live bytes, bytes and
 * count allocated, rate, lifetime, with the census of the sites left out) and `report leaks`
 * (functions holding allocations older than the leak age, ranked by how steadily their live
 * bytes grow), from the heap_snapshot and heap_site tables, named through the symbol store. */
#include "analyze/report.h"
#include "common/array.h"
#include "analyze/symbolize.h"
#include "collectors/heap/report.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* the report's own options (report.h) */
static const struct leaks_opts *leaks_own(const struct report_opts *o)
{
	return REPORT_OWN(o, struct leaks_opts);
}

#define HEAP_TOP_DEFAULT 20
#define LEAK_AGE_DEFAULT_NS (30 * 1000000000ll) /* the recorder's --leak-age default */
#define STACK_PRINT_MAX 16			 /* frames shown per suspect */

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

struct hsnap {
	int64_t seq, time_ns, interval_ns; /* interval_ns -1 when unknown */
	int64_t pid;
	char *lane, *module;
	uint64_t sample_bytes;
	bool live_measured;
	uint64_t alloc_count, alloc_bytes;
	int64_t live_bytes, live_count, leak_bytes, leak_count, leak_age_ns; /* -1: NULL */
	uint64_t sites, total_call_sites, omitted_alloc_count, omitted_alloc_bytes;
	int64_t omitted_live_bytes, live_untracked, free_untracked; /* -1: NULL */
	uint64_t stack_failures;
	int64_t peak_bytes, peak_time_ns, temp_count; /* -1: NULL (not measured) */
	bool last;    /* the last snapshot of its pid in the window */
	size_t point; /* index of its time among the distinct snapshot times */
};

struct hrow {
	size_t snap;
	int64_t stack_id; /* 0: none */
	uint64_t alloc_count, alloc_bytes;
	int64_t live_count, live_bytes, freed_count, lifetime_sum, oldest_live_ns; /* -1: NULL */
	int64_t temp_count; /* -1: NULL */
	size_t fn;
};

struct hfn {
	char *name;
	const char *module; /* owned by the stacks profile, or a literal */
	const char *file;
	unsigned line;
	bool named;
	uint64_t alloc_count, alloc_bytes, freed_count, lifetime_sum;
	uint64_t live_bytes, live_count;
	uint64_t temp_count;	/* temporaries (when the heap's temp_measured) */
	int64_t oldest_live_ns; /* -1: none live */
	uint64_t best;		/* bytes of the stack that gave file:line */
	int64_t stack;		/* the stack with the most live (else allocated) bytes */
	uint64_t stack_weight;
	size_t n_stacks;
	double *series;	  /* per point: live bytes; NAN unknown */
	struct heap_trend trend;
	bool suspect, suppressed;
};

/* A lane that took the window's snapshots (heap_snapshot.lane and .module): one
 * normally; more when the target exec'd a program another lane probes (preload,
 * then uprobe for a static program; a Go program's go lane). */
struct hlane {
	const char *lane, *module; /* owned by the snapshots */
	int64_t from_ns;	   /* start of its first interval (not before the capture's) */
	int64_t first_ns, last_ns; /* its first and last snapshot */
};

/* A time the heap went unmeasured: a probe change took an active heap or goalloc
 * collector to another state (the target exec'd a program it cannot probe). */
struct hgap {
	char *name, *state, *reason, *cause; /* reason, cause: "" when none */
	int64_t from_ns, to_ns;		     /* to_ns -1: to the end */
};

/* A site at the heap's peak (heap_peak_site), named by its allocating function. */
struct hpeak {
	int64_t stack_id;
	char *name;
	const char *module; /* owned by the stacks profile, or a literal */
	const char *file;
	unsigned line;
	uint64_t live_bytes, live_count;
};

struct heap {
	bool collected;
	struct probe_info probe;
	struct symstore_run sym; /* what naming the stacks did (debuginfod asked) */
	struct hsnap *snap;
	size_t n_snap;
	struct hrow *row;
	size_t n_row;
	struct hfn *fn;
	size_t n_fn;
	struct profile *stacks;
	uint64_t stacks_used, stacks_cut; /* the window's site stacks; of those, walks cut
					   * short (struct prof_stack cut_module) */
	const char *cut_module;		  /* the first cut stack's (NULL: none cut) */
	struct hlane *lane; /* in the order they started */
	size_t n_lane;
	struct hgap *gap; /* those that overlap the window, in time order */
	size_t n_gap;
	size_t n_points;
	double *point_t;    /* seconds since the capture start */
	bool *point_full;   /* every snapshot at that time lists all its sites */
	bool live_measured; /* every snapshot of the window */
	int64_t t0_ns, t1_ns;
	int64_t base_ns; /* the capture's start: lanes are shown in seconds from it */
	/* sums */
	uint64_t alloc_count, alloc_bytes, stack_failures, omitted_alloc_count,
	    omitted_alloc_bytes, cut_intervals, sample_bytes_max;
	int64_t live_bytes, live_count, leak_bytes, omitted_live_bytes, live_untracked,
	    free_untracked;
	uint64_t last_sites, last_total;
	int64_t leak_age_ns, last_ns;
	bool mixed_sampling;
	char exe[4096]; /* the target's executable ("" unknown): where the allocating frame is */
	char **execd;	/* the programs it exec'd during the recording (probe_change causes) */
	size_t n_execd;
	/* the peak of the live heap: measured by every snapshot of the window (else -1) */
	int64_t peak_bytes, peak_time_ns;
	int64_t peak_sites_bytes, peak_sites_time_ns; /* -1: no sites taken */
	struct hpeak *peak;
	size_t n_peak;
	/* temporaries: measured by every snapshot of the window (else -1) */
	int64_t temp_count;
	bool sites_at_peak;	  /* the lane takes the sites at the peak itself when it sees
				   * every allocation (preload); else at the last peak mark */
	bool since_attach;	  /* the heap before the probes attached is not seen (a --pid
				   * or --cgroup target, or probes that became active later) */
	uint64_t peak_untracked;  /* allocator calls not tracked in the window (drops, live
				   * map full, peaks given up): the peak is at least, not exact */
	uint64_t uncounted;	  /* allocator calls seen but not counted: counts at least */
	uint64_t sites_lost;	  /* sampled allocations and frees the sites never got (heap
				   * drops ring_full, site_map_full): per-function figures are
				   * lower bounds, never exact */
	char sites_lost_why[160]; /* "lower bounds: N events lost (ring_full ...)", or "" */
};

static void heap_free(struct heap *h)
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

static const char *base_of(const char *p)
{
	const char *b = p ? strrchr(p, '/') : NULL;

	return b ? b + 1 : p ? p : "";
}

/* Whether MOD is the target's executable EXE, or a program it exec'd during the
 * recording: a module that also holds the program's own code. */
static bool program_module(const struct heap *h, const char *exe, const char *mod)
{
	if (exe && exe[0] && !strcmp(base_of(exe), base_of(mod)))
		return true;
	for (size_t k = 0; k < h->n_execd; k++)
		if (!strcmp(base_of(h->execd[k]), base_of(mod)))
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
		if (!strcmp(mod, l->module) || !strcmp(base_of(mod), base_of(l->module)))
			return true;
	}
	return false;
}

/* The index of the allocating frame of stack ST: the first frame outside the
 * allocator. When every frame is in the allocator's module (the allocator's own
 * library calling malloc, e.g. stdio's buffer, and a walk that stopped there):
 * the first frame not named as an allocator function, else the outermost. */
static size_t caller_frame(const struct heap *h, const char *exe, const struct prof_stack *st)
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
			d = caller_frame(h, exe, st);
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
			const struct prof_loc *l = st->loc[caller_frame(h, exe, st)];

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
static int scale_sampled_live(struct heap *h)
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
			const struct prof_loc *l = st->loc[caller_frame(h, h->exe, st)];

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
static int heap_load(sqlite3 *db, const struct capture_meta *m, const struct report_opts *o,
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
	ret = ret ?: scale_sampled_live(h);
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

/* ---------------------------------------------------------------- report heap */

static enum heap_by heap_by(const struct heap *h, enum heap_by by)
{
	if (by == HEAP_BY_DEFAULT)
		return h->live_measured ? HEAP_BY_LIVE : HEAP_BY_BYTES;
	return by;
}

static const char *by_name(enum heap_by by)
{
	return by == HEAP_BY_LIVE ? "live" : by == HEAP_BY_COUNT ? "count" : "bytes";
}

static int cmp_fn_name(const struct hfn *x, const struct hfn *y)
{
	int c = strcmp(x->name, y->name);

	return c ? c : strcmp(x->module, y->module);
}

#define CMP_DESC(a, b)                                                                             \
	if ((a) != (b))                                                                            \
	return (a) > (b) ? -1 : 1

static int cmp_live(const void *a, const void *b)
{
	const struct hfn *x = a, *y = b;

	CMP_DESC(x->live_bytes, y->live_bytes);
	CMP_DESC(x->alloc_bytes, y->alloc_bytes);
	return cmp_fn_name(x, y);
}

static int cmp_bytes(const void *a, const void *b)
{
	const struct hfn *x = a, *y = b;

	CMP_DESC(x->alloc_bytes, y->alloc_bytes);
	CMP_DESC(x->alloc_count, y->alloc_count);
	return cmp_fn_name(x, y);
}

static int cmp_count(const void *a, const void *b)
{
	const struct hfn *x = a, *y = b;

	CMP_DESC(x->alloc_count, y->alloc_count);
	CMP_DESC(x->alloc_bytes, y->alloc_bytes);
	return cmp_fn_name(x, y);
}

static int cmp_suspect(const void *a, const void *b)
{
	const struct hfn *x = a, *y = b;

	CMP_DESC(x->trend.score, y->trend.score);
	CMP_DESC(x->live_bytes, y->live_bytes);
	CMP_DESC(-x->oldest_live_ns, -y->oldest_live_ns);
	return cmp_fn_name(x, y);
}

static double span_s(const struct heap *h)
{
	return h->t1_ns > h->t0_ns ? (double)(h->t1_ns - h->t0_ns) / 1e9 : NAN;
}

static double mean_lifetime(const struct hfn *f)
{
	return f->freed_count ? (double)f->lifetime_sum / (double)f->freed_count : NAN;
}

static void loc_text(const char *file, unsigned line, char *buf, size_t len)
{
	if (!file)
		snprintf(buf, len, "%s", "");
	else if (line)
		snprintf(buf, len, "%s:%u", file, line);
	else
		snprintf(buf, len, "%s", file);
}

static const char *why_not_measured(const struct heap *h)
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
static void sites_lost__set(struct heap *h, const struct drop_line *d, size_t n)
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

static void census_text(const struct heap *h, FILE *out)
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

static void head_json(struct json *j, const struct heap *h)
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
		json__kv_string(j, "live_not_measured_reason", why_not_measured(h));
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

/* The columns of a site row (site_row), in the order JSON writes them; a leak suspect's row
 * (report leaks) goes on with the columns of leak_col. */
enum site_col {
	SC_FUNC,
	SC_NAMED,
	SC_FILE,
	SC_LINE,
	SC_MODULE, /* text: its base name */
	SC_LIVE_MEASURED,
	SC_LIVE_BYTES,
	SC_LIVE_COUNT,
	SC_ALLOC_BYTES,
	SC_ALLOC_COUNT,
	SC_RATE,
	SC_LIFETIME,
	SC_FREED,
	SC_STACKS,
	SC_N,
};

static const char *const site_cols[] = {
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

/* Fill the site columns of the last row of T with function F of H, text displays
 * included. 0 or -ENOMEM. */
static int site_row(struct table *t, const struct heap *h, const struct hfn *f)
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
	err = err ?: table__set_display(t, SC_MODULE, base_of(f->module));
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
	struct table *t = table__new(SC_N, site_cols);
	int err;

	if (!t)
		return -ENOMEM;
	err = table__add_row(t);
	err = err ?: site_row(t, h, f);
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
		loc_text(f->file, f->line, loc, sizeof(loc));
		if (loc[0])
			err = err ?: table__set_text(t, 8 + o, loc);
		err = err ?: table__set_text(t, 9 + o, human ? base_of(f->module) : f->module);
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

			loc_text(x->file, x->line, loc, sizeof(loc));
			fprintf(out, "  %10s %8s  %s%s%s  %s\n",
				fmt_bytes(a, sizeof(a), x->live_bytes),
				fmt_count(b, sizeof(b), x->live_count), x->name, loc[0] ? "  " : "",
				loc, base_of(x->module));
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

static void sort_by(struct heap *h, enum heap_by by)
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
	const struct drop_line *drops = ctx->drops;
	const size_t nd = ctx->ndrops;
	struct json *j = ctx->j;
	struct heap h;
	size_t top = o->top ? o->top : HEAP_TOP_DEFAULT;
	uint64_t uncounted;
	enum heap_by by;
	char w[96], a[32], b[32], c[32], samp[512];
	int err;

	memset(&h, 0, sizeof(h));
	err = heap_load(db, &m, o, &h, "heap");
	if (err)
		goto cleanup;
	if (!h.collected) { /* neither the heap probe nor the Go lane's ran */
		err = report__not_collected(j, out, o, "heap", &h.probe);
		goto cleanup;
	}
	uncounted = uncounted_calls(drops, nd);
	h.uncounted = uncounted;
	sites_lost__set(&h, drops, nd);
	h.peak_untracked = uncounted + (h.live_untracked > 0 ? (uint64_t)h.live_untracked : 0);
	for (size_t k = 0; k < nd; k++)
		if (!strcmp(drops[k].kind, "peak_race") ||
		    !strcmp(drops[k].kind, "temporary_untracked"))
			h.peak_untracked += drops[k].lost;
	by = heap_by(&h, REPORT_OWN(o, struct heap_opts)->by);
	if (by == HEAP_BY_LIVE && !h.live_measured)
		by = HEAP_BY_BYTES; /* said below: live bytes were not measured */
	sort_by(&h, by);
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
			report__drops(NULL, out, o, "heap", drops, nd);
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
				why_not_measured(&h));
		}
		figures_text(&h, out);
		census_text(&h, out);
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
		report__drops(NULL, out, o, "heap", drops, nd);
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
		report__drops(NULL, out, o, "heap", drops, nd);
		if (!h.live_measured)
			fprintf(stderr, "heap: live, lifetime: not measured (%s)\n",
				why_not_measured(&h));
		figures_csv_note(&h);
		if (h.sites_lost)
			fprintf(stderr, "heap: per-function figures are %s\n", h.sites_lost_why);
		err = heap_table(&h, top, out, OUT_CSV);
		break;
	case OUT_JSON:
		head_json(j, &h);
		json__kv_string(j, "sampling", samp);
		json__kv_string(j, "by", by_name(by));
		report__drops(j, out, o, "heap", drops, nd);
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
	heap_free(&h);
	return err;
}

/* ---------------------------------------------------------------- report leaks */

/* Does any frame of stack SID match a suppression: function names (each
 * inlined name too), file names, module paths. Returns the pattern or NULL. */
static const char *stack_suppressed(const struct heap *h, int64_t sid,
				    const struct suppressions *sup)
{
	const struct prof_stack *st = sid > 0 ? profile__stack(h->stacks, sid) : NULL;
	char name[512];

	if (!st)
		return NULL;
	for (size_t d = 0; d < st->n; d++) {
		const struct prof_loc *l = st->loc[d];

		for (size_t p = 0; p < sup->n; p++) {
			if (suppression__match(sup->pattern[p], l->module))
				return sup->pattern[p];
			if (!l->n) {
				prof_loc__name(l, 0, name, sizeof(name));
				if (suppression__match(sup->pattern[p], name))
					return sup->pattern[p];
			}
			for (size_t i = 0; i < l->n; i++)
				if (suppression__match(sup->pattern[p], l->f[i].func) ||
				    suppression__match(sup->pattern[p], l->f[i].file))
					return sup->pattern[p];
		}
	}
	return NULL;
}

static int read_suppressions(const char *path, struct suppressions *sup)
{
	char *text = NULL, err[256];
	size_t len = 0, cap = 0;
	FILE *f = fopen(path, "r");
	int ret = 0;

	if (!f) {
		fprintf(stderr, "ptop-analyze report leaks: cannot read --suppressions %s: %s\n",
			path, strerror(errno));
		return -EINVAL;
	}
	for (;;) {
		size_t n;

		if (len + 4096 + 1 > cap) {
			char *t;

			cap = cap ? 2 * cap : 8192;
			t = realloc(text, cap);
			if (!t) {
				ret = -ENOMEM;
				goto cleanup;
			}
			text = t;
		}
		n = fread(text + len, 1, 4096, f);
		len += n;
		if (n < 4096)
			break;
	}
	if (ferror(f)) {
		fprintf(stderr, "ptop-analyze report leaks: reading --suppressions %s failed\n",
			path);
		ret = -EINVAL;
		goto cleanup;
	}
	text[len] = 0;
	if (strlen(text) != len) {
		fprintf(stderr, "ptop-analyze report leaks: --suppressions %s is not a text file\n",
			path);
		ret = -EINVAL;
		goto cleanup;
	}
	ret = suppressions__parse(text, sup, err, sizeof(err));
	if (ret == -EINVAL)
		fprintf(stderr, "ptop-analyze report leaks: --suppressions %s: %s\n", path, err);
cleanup:
	free(text);
	fclose(f);
	return ret;
}

static void stack_json(struct json *j, const struct heap *h, const char *exe, int64_t sid)
{
	const struct prof_stack *st = sid > 0 ? profile__stack(h->stacks, sid) : NULL;
	char name[512];

	json__key(j, "stack");
	json__begin_array(j);
	for (size_t d = st ? caller_frame(h, exe, st) : 0; st && d < st->n; d++) {
		const struct prof_loc *l = st->loc[d];
		size_t names = l->n ? l->n : 1;

		for (size_t i = 0; i < names; i++) {
			prof_loc__name(l, i, name, sizeof(name));
			json__begin_object(j);
			json__kv_string(j, "func", name);
			json__kv_string(j, "file", l->n ? l->f[i].file : NULL);
			json__key(j, "line");
			if (l->n && l->f[i].line)
				json__int(j, l->f[i].line);
			else
				json__null(j);
			json__kv_string(j, "module", l->module);
			json__kv_bool(j, "inlined", l->n && l->f[i].inlined);
			json__end_object(j);
		}
	}
	json__end_array(j);
}

static void stack_text(FILE *out, const struct heap *h, const char *exe, int64_t sid)
{
	const struct prof_stack *st = sid > 0 ? profile__stack(h->stacks, sid) : NULL;
	char name[512], loc[512];
	size_t shown = 0;

	if (!st) {
		fprintf(out, "      (no stack)\n");
		return;
	}
	for (size_t d = caller_frame(h, exe, st); d < st->n; d++) {
		const struct prof_loc *l = st->loc[d];
		size_t names = l->n ? l->n : 1;

		for (size_t i = 0; i < names; i++) {
			if (shown++ == STACK_PRINT_MAX) {
				fprintf(out, "      ... %zu more frames\n", st->n - d);
				return;
			}
			prof_loc__name(l, i, name, sizeof(name));
			loc_text(l->n ? l->f[i].file : NULL, l->n ? l->f[i].line : 0, loc,
				 sizeof(loc));
			fprintf(out, "      %s%s%s%s  (%s)\n", l->n && l->f[i].inlined ? "[inlined] " : "",
				name, loc[0] ? " at " : "", loc, base_of(l->module));
		}
	}
}

static int cmp_leaked(const void *a, const void *b)
{
	const struct hfn *x = a, *y = b;

	CMP_DESC(x->live_bytes, y->live_bytes);
	CMP_DESC(x->live_count, y->live_count);
	return cmp_fn_name(x, y);
}

/* Mark the suspects of H (functions holding live allocations older than LEAK_AGE at the last
 * snapshot; AT_EXIT: every function holding live allocations, what the target did not free
 * before it exited, heaptrack's "leaked"), their trend, those SUP suppresses (*N_SUPP); the
 * *N_SUS that stay are moved first in h->fn, ranked by trend score (AT_EXIT: by live
 * bytes). 0 or -ENOMEM. */
static int rank_suspects_as(struct heap *h, int64_t leak_age, bool at_exit,
			    const struct suppressions *sup, size_t *n_sus_out, size_t *n_supp_out)
{
	size_t n_sus = 0, n_supp = 0;
	double *t = malloc((h->n_points + 1) * sizeof(*t));
	double *y = malloc((h->n_points + 1) * sizeof(*y));

	if (!t || !y) {
		free(t);
		free(y);
		return -ENOMEM;
	}
	/* suspects: live allocations older than the leak age at the last snapshot */
	for (size_t k = 0; k < h->n_fn; k++) {
		struct hfn *f = &h->fn[k];
		size_t n = 0;

		f->suspect = at_exit ? f->live_bytes > 0
				     : f->oldest_live_ns > 0 && f->live_bytes &&
					   h->last_ns - f->oldest_live_ns >= leak_age;
		if (!f->suspect)
			continue;
		for (size_t p = 0; p < h->n_points; p++)
			if (!isnan(f->series[p])) {
				t[n] = h->point_t[p];
				y[n++] = f->series[p];
			}
		heap_trend__compute(t, y, n, &f->trend);
	}
	/* suppressed: a frame of any stack folded into the function matches */
	for (size_t r = 0; sup && sup->n && r < h->n_row; r++) {
		struct hfn *f = &h->fn[h->row[r].fn];

		if (f->suspect && !f->suppressed && h->row[r].stack_id > 0 &&
		    stack_suppressed(h, h->row[r].stack_id, sup))
			f->suppressed = true;
	}
	/* the suspects that stay, first in the array */
	for (size_t k = 0; k < h->n_fn; k++) {
		struct hfn *f = &h->fn[k];

		if (!f->suspect)
			continue;
		if (f->suppressed) {
			n_supp++;
			continue;
		}
		if (k != n_sus) {
			struct hfn tmp = h->fn[n_sus];

			h->fn[n_sus] = *f;
			h->fn[k] = tmp;
		}
		n_sus++;
	}
	if (n_sus)
		qsort(h->fn, n_sus, sizeof(*h->fn), at_exit ? cmp_leaked : cmp_suspect);
	free(t);
	free(y);
	*n_sus_out = n_sus;
	*n_supp_out = n_supp;
	return 0;
}

static int rank_suspects(struct heap *h, int64_t leak_age, const struct suppressions *sup,
			 size_t *n_sus_out, size_t *n_supp_out)
{
	return rank_suspects_as(h, leak_age, false, sup, n_sus_out, n_supp_out);
}

/* Whether capture CAP's target exited while recorded (the trailer says so): its heap at
 * the last snapshot is what it did not free. */
static bool target_exited(sqlite3 *db, int64_t cap)
{
	sqlite3_stmt *s = NULL;
	bool yes = false;

	if (sqlite3_prepare_v2(db,
			       "SELECT target_exited = 1 OR end_reason = 'target_exit' FROM "
			       "capture WHERE cap = ?1",
			       -1, &s, NULL) == SQLITE_OK) {
		sqlite3_bind_int64(s, 1, cap);
		yes = sqlite3_step(s) == SQLITE_ROW && sqlite3_column_int(s, 0) == 1;
	}
	sqlite3_finalize(s);
	return yes;
}

/* A leak suspect's columns after the site columns (enum site_col). */
enum leak_col {
	LC_AGE = SC_N, /* text: the age as a duration */
	LC_GROWTH,     /* text: "+1.5 MiB/min", "unknown (one snapshot)" */
	LC_SCORE,      /* text: two decimals */
	LC_R2,	       /* text: two decimals */
	LC_GREW,       /* text: a percentage without decimals */
	LC_SNAPSHOTS,
	LC_CONFIDENCE,
	LC_N,
};
_Static_assert(sizeof(site_cols) / sizeof(site_cols[0]) == LC_N, "site_cols");

/* The columns of `report leaks --format csv`. */
static const size_t leak_csv_cols[] = {
    SC_FUNC,   SC_FILE,	 SC_LINE, SC_MODULE, SC_LIVE_BYTES, SC_LIVE_COUNT, LC_AGE,
    LC_GROWTH, LC_SCORE, LC_R2,	  LC_GREW,   LC_SNAPSHOTS,  LC_CONFIDENCE};

/* The rows of report leaks: one per suspect, the first N of h->fn (ranked by rank_suspects),
 * their site columns and leak columns, with the displays the text report shows. Free *OUT
 * with table__free. 0 or -ENOMEM. */
static int leak_rows(const struct heap *h, size_t n, struct table **out)
{
	struct table *t = table__new(LC_N, site_cols);
	char buf[64];
	int err = 0;

	if (!t)
		return -ENOMEM;
	for (size_t k = 0; k < n && !err; k++) {
		const struct hfn *f = &h->fn[k];
		const struct heap_trend *tr = &f->trend;
		int64_t age = h->last_ns - f->oldest_live_ns;

		err = table__add_row(t);
		err = err ?: site_row(t, h, f);
		if (f->oldest_live_ns > 0) /* else unknown: the cell stays null */
			err = err ?: table__set_int(t, LC_AGE, age,
						    fmt_ns(buf, sizeof(buf), (uint64_t)age));
		else
			err = err ?: table__set_display(t, LC_AGE, "unknown");
		if (tr->n >= 2) {
			fmt_bytes_signed(buf, sizeof(buf), (int64_t)llround(tr->slope * 60));
			strcat(buf, "/min");
			err = err ?: table__set_real(t, LC_GROWTH, round(tr->slope * 60), buf);
		} else {
			err = err ?: table__set_display(t, LC_GROWTH, "unknown (one snapshot)");
		}
		snprintf(buf, sizeof(buf), "%.2f", tr->score);
		err = err ?: table__set_real(t, LC_SCORE, tr->score, buf);
		snprintf(buf, sizeof(buf), "%.2f", tr->r2);
		err = err ?: table__set_real(t, LC_R2, tr->r2, buf);
		snprintf(buf, sizeof(buf), "%.0f%%", tr->grew * 100);
		err = err ?: table__set_real(t, LC_GREW, tr->grew, buf);
		err = err ?: table__set_int(t, LC_SNAPSHOTS, (int64_t)tr->n, NULL);
		err = err ?: table__set_text(t, LC_CONFIDENCE, tr->confidence);
	}
	if (err) {
		table__free(t);
		return err;
	}
	*out = t;
	return 0;
}

static int leaks_body(const struct report_ctx *ctx)
{
	sqlite3 *db = ctx->db;
	const struct report_opts *o = ctx->o;
	FILE *out = ctx->out;
	const struct capture_meta m = *ctx->m;
	const struct drop_line *drops = ctx->drops;
	const size_t nd = ctx->ndrops;
	struct json *j = ctx->j;
	struct suppressions sup = {0};
	struct table *rows = NULL;
	struct heap h;
	size_t n_sus = 0, n_supp = 0, top = o->top ? o->top : HEAP_TOP_DEFAULT;
	char a[32], c[32], d[32], w[96], exe[4096] = "", dbi[768];
	int64_t leak_age;
	uint64_t leaked_bytes = 0, leaked_count = 0;
	bool at_exit;
	sqlite3_stmt *s = NULL;
	int err;

	memset(&h, 0, sizeof(h));
	if (leaks_own(o)->suppressions) {
		err = read_suppressions(leaks_own(o)->suppressions, &sup);
		if (err)
			return err == -EINVAL ? -EPROTO : err; /* said: exit 2 */
	}
	err = heap_load(db, &m, o, &h, "leaks");
	if (err)
		goto cleanup;
	if (!h.collected) { /* neither the heap probe nor the Go lane's ran */
		err = report__not_collected(j, out, o, "leaks", &h.probe);
		goto cleanup;
	}
	sites_lost__set(&h, drops, nd); /* events the sites lost: not exact (head_json) */
	if (!h.live_measured || !h.n_snap) {
		const char *why = h.n_snap ? why_not_measured(&h) : "no heap snapshot in the window";

		switch (o->fmt) {
		case OUT_TEXT:
		case OUT_CSV: /* a CSV file holds rows only */
			fprintf(o->fmt == OUT_TEXT ? out : stderr, "leaks: not measured (%s)\n",
				why);
			break;
		case OUT_JSON:
			json__kv_bool(j, "collected", true);
			json__kv_bool(j, "live_measured", false);
			json__kv_string(j, "reason", why);
			json__key(j, "suspects");
			json__null(j);
			json__end_object(j);
			err = json__end(j);
			break;
		}
		goto cleanup;
	}
	if (sqlite3_prepare_v2(db, "SELECT exe FROM target WHERE cap = ?1", -1, &s, NULL) ==
	    SQLITE_OK) {
		sqlite3_bind_int64(s, 1, m.cap);
		if (sqlite3_step(s) == SQLITE_ROW && sqlite3_column_text(s, 0))
			snprintf(exe, sizeof(exe), "%s", (const char *)sqlite3_column_text(s, 0));
	}
	sqlite3_finalize(s);

	leak_age = h.leak_age_ns > 0 ? h.leak_age_ns : LEAK_AGE_DEFAULT_NS;
	/* the target exited: its last snapshot holds what it never freed (heaptrack's
	 * "leaked"), whatever its age; a window that ends earlier is a running target */
	at_exit = target_exited(db, m.cap) && !o->win.has_end;
	err = rank_suspects_as(&h, leak_age, at_exit, &sup, &n_sus, &n_supp);
	if (err)
		goto cleanup;
	for (size_t k = 0; k < n_sus; k++) {
		leaked_bytes += h.fn[k].live_bytes;
		leaked_count += h.fn[k].live_count;
	}

	err = leak_rows(&h, n_sus < top ? n_sus : top, &rows);
	if (err)
		goto cleanup;
	switch (o->fmt) {
	case OUT_TEXT:
		window__describe(&o->win, w, sizeof(w));
		if (at_exit)
			fprintf(out,
				"leaks (%s): %zu snapshots; the target exited: leaked (not freed "
				"before it exited, heaptrack's \"leaked\"): %s in %s allocations, "
				"by function,\nranked by live bytes at the last snapshot (%s s)\n",
				w, h.n_points, fmt_bytes(a, sizeof(a), leaked_bytes),
				fmt_count(c, sizeof(c), leaked_count),
				fmt_secs(d, sizeof(d), h.last_ns - m.base_ns));
		else
			fprintf(out,
				"leaks (%s): %zu snapshots; the target was still running: suspects: "
				"functions holding allocations older than %s at the last snapshot,"
				"\nranked by trend score (how steadily their live bytes grew; see "
				"ptop-analyze(1))\n",
				w, h.n_points, fmt_ns(a, sizeof(a), (uint64_t)leak_age));
		if (symstore_run__debuginfod_text(&h.sym, dbi, sizeof(dbi))[0])
			fprintf(out, "%s\n", dbi);
		census_text(&h, out);
		if (leaks_own(o)->suppressions)
			fprintf(out, "suppressed: %zu suspects (%zu patterns in %s)\n", n_supp,
				sup.n, leaks_own(o)->suppressions);
		if (!n_sus && at_exit) {
			fprintf(out, "\nno leak: every allocation was freed before the target "
				     "exited\n");
			break;
		}
		if (!n_sus) {
			fprintf(out, "\nno suspect: no function holds an allocation older than %s\n",
				fmt_ns(a, sizeof(a), (uint64_t)leak_age));
			break;
		}
		for (size_t k = 0; k < table__rows(rows); k++) {
			const char *line = table__value(rows, k, SC_LINE);
			char loc[512];

#define SHOWN(col) table__shown(rows, k, col)
			loc_text(table__value(rows, k, SC_FILE),
				 line ? (unsigned)strtoul(line, NULL, 10) : 0, loc, sizeof(loc));
			fprintf(out, "\n#%zu %s%s%s (%s)\n", k + 1, SHOWN(SC_FUNC),
				loc[0] ? " at " : "", loc, SHOWN(SC_MODULE));
			fprintf(out, "    live %s in %s allocations, oldest %s old; growth %s\n",
				SHOWN(SC_LIVE_BYTES), SHOWN(SC_LIVE_COUNT), SHOWN(LC_AGE),
				SHOWN(LC_GROWTH));
			fprintf(out,
				"    score %s (R^2 %s x grew in %s of steps), confidence %s (%s "
				"snapshots)\n",
				SHOWN(LC_SCORE), SHOWN(LC_R2), SHOWN(LC_GREW), SHOWN(LC_CONFIDENCE),
				SHOWN(LC_SNAPSHOTS));
#undef SHOWN
			fprintf(out, "    stack:\n");
			stack_text(out, &h, exe, h.fn[k].stack);
		}
		break;
	case OUT_CSV:
		if (leaks_own(o)->suppressions)
			fprintf(stderr, "suppressed: %zu suspects\n", n_supp);
		err = table__print_cols(rows, out, OUT_CSV, leak_csv_cols,
					sizeof(leak_csv_cols) / sizeof(leak_csv_cols[0]));
		break;
	case OUT_JSON:
		head_json(j, &h);
		json__kv_int(j, "snapshots", (int64_t)h.n_points);
		json__kv_string(j, "mode", at_exit ? "at_exit" : "age");
		json__key(j, "leaked_bytes");
		if (at_exit)
			json__int(j, (int64_t)leaked_bytes);
		else
			json__null(j);
		json__key(j, "leaked_count");
		if (at_exit)
			json__int(j, (int64_t)leaked_count);
		else
			json__null(j);
		json__kv_int(j, "leak_age_ns_used", leak_age);
		json__kv_string(j, "suppressions_file", leaks_own(o)->suppressions);
		json__kv_int(j, "suppressed", (int64_t)n_supp);
		json__kv_int(j, "suspect_count", (int64_t)n_sus);
		json__key(j, "suspects");
		json__begin_array(j);
		for (size_t k = 0; k < table__rows(rows); k++) {
			json__begin_object(j);
			table__json_fields(rows, j, k, NULL, LC_N);
			stack_json(j, &h, exe, h.fn[k].stack);
			json__end_object(j);
		}
		json__end_array(j);
		json__end_object(j);
		err = json__end(j);
		break;
	}
cleanup:
	table__free(rows);
	suppressions__free(&sup);
	heap_free(&h);
	return err;
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
		heap_free(hs->priv);
	free(hs->priv);
	free(hs->site);
	free(hs->suspect);
	free(hs);
}

int heap_sites__load(sqlite3 *db, const struct capture_meta *m, const struct window *w,
		     bool suspects, struct heap_sites **out)
{
	struct report_opts o = {.win = *w};
	struct heap_sites *hs = calloc(1, sizeof(*hs));
	struct heap *h = calloc(1, sizeof(*h));
	char *text = NULL;
	size_t len = 0, n_sus = 0, n_supp = 0;
	FILE *f;
	int err;

	*out = NULL;
	if (!hs || !h) {
		free(h);
		err = -ENOMEM;
		goto cleanup;
	}
	hs->priv = h;
	err = heap_load(db, m, &o, h, "heap");
	if (err)
		goto cleanup;
	hs->collected = h->collected;
	hs->probe = h->probe;
	hs->live_measured = h->live_measured;
	hs->n_snap = h->n_snap;
	hs->leak_age_ns = h->leak_age_ns > 0 ? h->leak_age_ns : LEAK_AGE_DEFAULT_NS;
	hs->live_bytes = h->live_measured ? h->live_bytes : -1;
	hs->live_count = h->live_measured ? h->live_count : -1;
	hs->alloc_bytes = h->alloc_bytes;
	hs->alloc_count = h->alloc_count;
	hs->complete = !h->cut_intervals;
	hs->sample_bytes = h->sample_bytes_max;
	if (!h->collected || !h->n_snap)
		goto cleanup;
	f = open_memstream(&text, &len);
	if (!f) {
		err = -ENOMEM;
		goto cleanup;
	}
	census_text(h, f);
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
		err = rank_suspects(h, hs->leak_age_ns, NULL, &n_sus, &n_supp);
		if (err)
			goto cleanup;
		for (size_t k = 0; k < n_sus; k++)
			site_from(h, &h->fn[k], &hs->suspect[k]);
		hs->n_suspect = n_sus;
	}
	if (h->n_fn)
		sort_by(h, heap_by(h, HEAP_BY_DEFAULT));
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
	stack_text(out, h, h->exe, stack);
	return ferror(out) ? -EIO : 0;
}

/* ---------------------------------------------------------------- for export */

void heap_stacks__free(struct heap_stacks *hs)
{
	if (!hs)
		return;
	if (hs->priv)
		heap_free(hs->priv);
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
	struct report_opts o = {.win = *w};
	struct heap_stacks *hs = calloc(1, sizeof(*hs));
	struct heap *h = calloc(1, sizeof(*h));
	double *sum = NULL; /* per snapshot: its sites' allocations, count and bytes */
	size_t *ix = NULL;  /* per stack of h->stacks: its entry + 1 */
	uint64_t ac = 0, ab = 0, lc = 0, lb = 0;
	size_t cap = 0;
	struct heap_stack *rest;
	int err;

	*out = NULL;
	if (!hs || !h) {
		free(h);
		err = -ENOMEM;
		goto cleanup;
	}
	hs->priv = h;
	err = heap_load(db, m, &o, h, "heap");
	if (err)
		goto cleanup;
	hs->collected = h->collected;
	hs->probe = h->probe;
	hs->live_measured = h->live_measured;
	hs->n_snap = h->n_snap;
	hs->sample_bytes = h->sample_bytes_max;
	hs->t0_ns = h->t0_ns;
	hs->t1_ns = h->t1_ns;
	if (!h->collected || !h->n_snap)
		goto cleanup;
	hs->alloc_count = h->alloc_count;
	hs->alloc_bytes = h->alloc_bytes;
	hs->live_count = h->live_measured && h->live_count > 0 ? (uint64_t)h->live_count : 0;
	hs->live_bytes = h->live_measured && h->live_bytes > 0 ? (uint64_t)h->live_bytes : 0;
	/* a sampled snapshot's sites estimate its allocations: scaled, as its live figures
	 * are (scale_sampled_live), to what the snapshot counted less the sites left out */
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

/* ------------------------------------------------------------------ its reports */

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

static int parse_suppressions(void *settings, const char *arg, char *err, size_t len)
{
	(void)err, (void)len;
	((struct leaks_opts *)settings)->suppressions = arg;
	return 0;
}

static const struct report_option heap_options[] = {
    {"by", "live|bytes|count",
     "heap: order by live bytes at the end (default when\n"
     "measured), bytes allocated, or allocation count",
     parse_by},
    {0},
};

static const struct report_option leaks_options[] = {
    {"suppressions", "FILE",
     "leaks: drop suspects a LeakSanitizer leak:PATTERN\n"
     "line matches (function, file or module of a frame)",
     parse_suppressions},
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

static const struct an_report leaks_report = {
	.name = "leaks",
	.order = 60,
	.summary = "functions holding allocations older than the leak age, ranked by\n"
		   "how steadily their live bytes grow (trend score, confidence), with\n"
		   "the stack",
	.tables = "heap_snapshot",
	.options = leaks_options,
	.settings_size = sizeof(struct leaks_opts),
	.top = "the first N functions (default 20)",
	.drops = "heap",
	.body = leaks_body,
};

int report_leaks(sqlite3 *db, const char *capture_id, const struct report_opts *o, FILE *out)
{
	return report__run(&leaks_report, db, capture_id, o, out);
}

const struct an_report *const heap_reports[] = {
	&heap_report,
	&leaks_report,
	NULL,
};
