/* report_int.h — what the heap collector's report files share (not for other folders):
 * the loader (report_load.c: struct heap, hr_load, the sites and stacks of heap_sites__load
 * and heap_stacks__load), `report heap` (report_heap.c) and `report leaks`
 * (report_leaks.c). The public side is report.h. */
#ifndef PTOP_HEAP_REPORT_INT_H
#define PTOP_HEAP_REPORT_INT_H

#include "analyze/report.h"
#include "common/array.h"
#include "analyze/symbolize.h"
#include "collectors/heap/names.h"
#include "collectors/heap/report.h"
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define HEAP_TOP_DEFAULT 20
#define LEAK_AGE_DEFAULT_NS (30 * 1000000000ll) /* the recorder's --leak-age default */
#define STACK_PRINT_MAX 16			 /* frames shown per suspect */

#define CMP_DESC(a, b)                                                                             \
	if ((a) != (b))                                                                            \
	return (a) > (b) ? -1 : 1

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

/* The columns of a site row (hr_site_row), in the order JSON writes them; a leak suspect's row
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
/* the column names of the sites table and of the suspects' (report_heap.c) */
extern const char *const hr_site_cols[LC_N];

void hr_free(struct heap *h);

const char *hr_base_of(const char *p);

/* The index of the allocating frame of stack ST: the first frame outside the
 * allocator. When every frame is in the allocator's module (the allocator's own
 * library calling malloc, e.g. stdio's buffer, and a walk that stopped there):
 * the first frame not named as an allocator function, else the outermost. */
size_t hr_caller_frame(const struct heap *h, const char *exe, const struct prof_stack *st);

/* With sampling, a site's live figures count the sampled allocations still live;
 * the snapshot's live bytes are exact (every allocation is tracked). Scale each
 * sampled snapshot's site figures so that the sites add up to its live bytes less
 * what the omitted sites held: the split between sites stays the samples'. So too
 * the temporaries: a sampled temporary is credited with the allocations since the
 * previous sample, so the sites' estimates need not add up to the snapshot's exact
 * count; they are scaled to it less the omitted sites' share (taken as their share
 * of the allocations). */
int hr_scale_sampled_live(struct heap *h);

/* Load everything for capture M in window W: snapshots, sites, names, folding. */
int hr_load(sqlite3 *db, const struct capture_meta *m, const struct report_opts *o,
		     struct heap *h, const char *cmd);

/* ---------------------------------------------------------------- report heap */
enum heap_by hr_heap_by(const struct heap *h, enum heap_by by);

int hr_cmp_fn_name(const struct hfn *x, const struct hfn *y);

int hr_cmp_suspect(const void *a, const void *b);

void hr_loc_text(const char *file, unsigned line, char *buf, size_t len);

const char *hr_why_not_measured(const struct heap *h);

/* The heap drops that cost the sites events (the totals are counted apart, in the lanes'
 * counters): the per-function figures are then lower bounds. Sets H's sites_lost and
 * sites_lost_why ("lower bounds: N events lost (KIND N, ...)"). */
void hr_sites_lost(struct heap *h, const struct drop_line *d, size_t n);

void hr_census_text(const struct heap *h, FILE *out);

void hr_head_json(struct json *j, const struct heap *h);

/* Fill the site columns of the last row of T with function F of H, text displays
 * included. 0 or -ENOMEM. */
int hr_site_row(struct table *t, const struct heap *h, const struct hfn *f);

void hr_sort_by(struct heap *h, enum heap_by by);

void hr_stack_text(FILE *out, const struct heap *h, const char *exe, int64_t sid);

int hr_rank_suspects(struct heap *h, int64_t leak_age, const struct suppressions *sup,
			 size_t *n_sus_out, size_t *n_supp_out);

/* Load everything for capture M in window W: snapshots, sites, names, folding; CMD names the
 * report in messages. */
int hr_load(sqlite3 *db, const struct capture_meta *m, const struct report_opts *o,
	    struct heap *h, const char *cmd);

/* Rank H's suspects as `report leaks` does (leak age LEAK_AGE, suppressions SUP or NULL):
 * *N_SUS_OUT suspects, *N_SUPP_OUT suppressed. 0 or -ENOMEM. */
int hr_rank_suspects(struct heap *h, int64_t leak_age, const struct suppressions *sup,
		     size_t *n_sus_out, size_t *n_supp_out);

/* report_leaks.c's kind, listed in heap_reports (report_heap.c) */
extern const struct an_report heap__leaks_report;

#endif
