/* report.h — the heap collector's reports (`report heap`, `report leaks`) and the loaders
 * they share with its replay view, its figures, `export --profile heap` and the memory report. */
#ifndef PTOP_HEAP_REPORT_H
#define PTOP_HEAP_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <sqlite3.h>

#include "analyze/report.h"

/* How steadily a series of live-byte figures grows (report leaks; the formula
 * is in ptop-analyze(1)): over the N points (T_S seconds, Y bytes) in time
 * order, the least-squares slope (bytes/s), its R^2 (0 when Y is constant),
 * the fraction of steps that grew, and score = R^2 x grew when the slope is
 * positive, else 0. Confidence by the number of points: "none" (< 3: score 0),
 * "low" (3-5), "medium" (6-11), "high" (12 or more). */
struct heap_trend {
	size_t n;
	double slope;	/* bytes per second */
	double r2;	/* in [0, 1] */
	double grew;	/* fraction of the n - 1 steps where the value rose */
	double score;	/* in [0, 1] */
	const char *confidence;
};

void heap_trend__compute(const double *t_s, const double *y, size_t n, struct heap_trend *tr);

/* LeakSanitizer suppressions: "leak:PATTERN" lines, '#' comments, blank lines. */
struct suppressions {
	char **pattern;
	size_t n;
};

/* Parse TEXT (NUL-terminated). A line of another type or an empty pattern is an
 * error: -EINVAL with "line N: ..." in ERR. 0, -EINVAL or -ENOMEM. Free with
 * suppressions__free (accepts NULL and a zeroed struct). */
int suppressions__parse(const char *text, struct suppressions *s, char *err, size_t errlen);
void suppressions__free(struct suppressions *s);

/* LeakSanitizer's matching: PATTERN occurs in S, '*' matching any run of
 * characters; a leading '^' anchors it at the start of S, a trailing '$' at
 * the end. */
bool suppression__match(const char *pattern, const char *s);


/* The heap figures of a window folded by allocating function, as `report heap` and `report leaks`
 * compute them, for the replay viewer. */
struct heap_site {
	const char *func, *file, *module; /* owned by the heap_sites; file NULL when unknown */
	unsigned line;			  /* 0: unknown */
	bool named;			  /* false: func is "MODULE+0xOFFSET", no symbol */
	int64_t live_bytes, live_count;	  /* at the last snapshot of the window; -1: not measured */
	uint64_t alloc_bytes, alloc_count; /* over the window */
	int64_t stack;			   /* the stack shown for it (stack_id); <= 0: none */
	int64_t oldest_age_ns;		   /* its oldest live allocation's age; -1: none */
	struct heap_trend trend;	   /* suspects only */
};

struct heap_sites {
	bool collected;		  /* false: probe says why */
	struct probe_info probe;
	bool live_measured;
	size_t n_snap;		  /* snapshots in the window */
	int64_t leak_age_ns;	  /* the age a suspect's allocations are older than */
	char census[512];	  /* the census line of `report heap` (no newline) */
	struct heap_site *site;	  /* by live bytes when measured, else bytes allocated */
	size_t n;
	/* the totals of the window, as `report heap` prints them (figures, analyze/figures.h) */
	int64_t live_bytes, live_count;	   /* at the last snapshots; -1: not measured */
	uint64_t alloc_bytes, alloc_count; /* over the window */
	bool complete;			   /* the census: every site listed in every interval */
	uint64_t sample_bytes;		   /* the largest sampling period; 0: every allocation */
	struct heap_site *suspect; /* when asked for: as `report leaks` ranks them */
	size_t n_suspect;
	void *priv;
};

/* Load capture M's heap figures in window W (names from the symbol store, no network), the
 * suspects too when SUSPECTS. *OUT is malloc'd: free with heap_sites__free (accepts NULL).
 * 0, -ENOMEM, -EIO, -EPROTO (a DB made before the heap tables were as they are). */
int heap_sites__load(sqlite3 *db, const struct capture_meta *m, const struct window *w,
		     bool suspects, struct heap_sites **out);
void heap_sites__free(struct heap_sites *hs);

/* Print the frames of stack STACK (as `report leaks` does: from the allocating function out, one
 * line each, "      FUNC at FILE:LINE  (MODULE)") to OUT. 0 or -EIO. */
int heap_sites__stack(const struct heap_sites *hs, int64_t stack, FILE *out);

/* The heap figures of a window per stack, for `export --profile heap`: the same data and
 * scaling as `report heap` (sampled live figures scaled to the snapshots' exact live bytes,
 * live from the last snapshot of each pid, allocations summed over the window), so the
 * stacks add up to its totals: what the snapshots counted and no listed stack carries (the
 * sites left out, the rest of a sampled count) is one stack of its own, stack NULL. */
struct prof_stack;

struct heap_stack {
	const struct prof_stack *stack; /* NULL: not a placed stack; what says which */
	const char *what; /* for stack NULL: "[no stack]", "[stack not placed]", "[sites left out]"
			   * (the census's), "[not sampled]" (sampled snapshots: what the exact
			   * totals hold beyond the sampled sites' estimates) */
	uint64_t alloc_count, alloc_bytes, live_count, live_bytes;
};

struct heap_stacks {
	bool collected; /* false: probe says why */
	struct probe_info probe;
	bool live_measured;	     /* false: the live figures are 0, not measured (Go lane) */
	size_t n_snap;		     /* snapshots in the window */
	uint64_t alloc_count, alloc_bytes; /* report heap's totals */
	uint64_t live_count, live_bytes;
	uint64_t sample_bytes;		   /* the largest mean bytes between samples; 0: exact */
	uint64_t unsampled_alloc_bytes;	   /* the [not sampled] entry's bytes (0: none) */
	uint64_t unsampled_live_bytes;
	int64_t t0_ns, t1_ns;		   /* the first interval's start, the last snapshot */
	struct heap_stack *stack;	   /* by stack id, the stackless ones last */
	size_t n;
	void *priv;
};

/* Load capture M's heap figures per stack in window W (names from the store, no network).
 * *OUT: free with heap_stacks__free (accepts NULL). 0, -ENOMEM, -EIO, -EPROTO. */
int heap_stacks__load(sqlite3 *db, const struct capture_meta *m, const struct window *w,
		      struct heap_stacks **out);
void heap_stacks__free(struct heap_stacks *hs);

/* `report heap`'s own options (o->own): --by */
enum heap_by {
	HEAP_BY_DEFAULT = 0, /* live bytes when measured, else bytes allocated */
	HEAP_BY_LIVE,
	HEAP_BY_BYTES,
	HEAP_BY_COUNT,
};

struct heap_opts {
	enum heap_by by;
};

/* `report leaks`' own options (o->own): --suppressions */
struct leaks_opts {
	const char *suppressions; /* --suppressions FILE; NULL: none */
};

/* The report: print to OUT in o->fmt. Returns 0, or -errno for an internal
 * failure (the caller maps it to the exit code); -EBADMSG for figures no capture can
 * hold (a corrupt DB, said on stderr: "corrupt DB: ..."). A probe that was not active
 * makes the report say "not collected" (JSON: "collected": false) and return 0. */
int report_heap(sqlite3 *db, const char *capture_id, const struct report_opts *o, FILE *out);
int report_leaks(sqlite3 *db, const char *capture_id, const struct report_opts *o, FILE *out);

#endif
