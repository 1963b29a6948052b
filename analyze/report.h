/* report.h — the reports of ptop-analyze (syscalls, cpu, mem) over an open DB.
 *
 * The `report` command (report.c) parses options and opens the input; the
 * functions here take an open sqlite3 handle and a capture id, so tests can run
 * them on a DB they built by hand. Times in a window are nanoseconds relative to
 * the capture start (capture.start_monotonic_ns).
 *
 * Which samples a window holds: an interval sample (cpu, syscalls) covers
 * (time_ns - interval_ns, time_ns] and is in the window when its midpoint
 * time_ns - interval_ns/2 is in [START, END); a point sample (memory) is in it
 * when time_ns is in [START, END]. An open side is unbounded.
 */
#ifndef PTOP_REPORT_H
#define PTOP_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <sqlite3.h>

#include "analyze/output.h"
#include "proto/names.h"

/* ------------------------------------------------------------------ windows */

struct window {
	bool has_start, has_end;  /* false: that side is open */
	int64_t start_ns, end_ns; /* relative to the capture start */
};

/* Parse "START..END": each side optional, a non-negative decimal number with an
 * optional unit ns, us, ms, s (the default), m or h: "2..5", "2s..5s",
 * "500ms..", "..1m", "1.5..2.25". Digits below a nanosecond are dropped.
 * Returns 0, or -EINVAL with a one-line reason in ERR (no "..", a bad number or
 * unit, START after END, an empty window, overflow). */
int window__parse(const char *s, struct window *w, char *err, size_t errlen);

/* ------------------------------------------------------------------ capture facts */

struct capture_meta {
	char capture_id[33];
	int64_t cap;		/* capture.cap: the key every other table's rows carry */
	int64_t base_ns;	/* start_monotonic_ns (else first event, else 0) */
	int64_t first_event_ns; /* -1 when the capture holds no event */
	int64_t last_event_ns;
	int64_t cpus;		 /* -1 when unknown */
	bool complete;		 /* ended with a trailer, read cleanly */
	char read_end[16];	 /* clean | truncated | corrupt | io */
	int64_t read_stopped_at; /* -1 when reading did not stop early */
	char read_message[256];
	char machine[32];	 /* uname -m of the recording host; "" when unknown */
};

/* Read the capture row for CAPTURE_ID, its key cap included (queries filter
 * on m->cap). 0, -ENOENT when there is none, -EIO on an SQLite error. */
int capture_meta__load(sqlite3 *db, const char *capture_id, struct capture_meta *m);

/* The one-line warning for an incomplete capture into BUF ("" when complete):
 * "warning: capture incomplete (truncated): READ_MESSAGE; figures cover only what was
 * read", or without a message "... (truncated) at byte N: the recording was cut short; ...". */
void capture_meta__warning(const struct capture_meta *m, char *buf, size_t len);

struct probe_info {
	bool found;	/* the probe set names it */
	char state[16]; /* active | disabled | failed | unsupported | absent */
	char source[8]; /* ebpf | proc | "" */
	char reason[512];
	char detail[512];
};

/* Look probe NAME up in the capture's probe set. Not found: found=false,
 * state "absent" and a reason saying so. 0 or -EIO. */
int probe__lookup(sqlite3 *db, int64_t cap, const char *name, struct probe_info *p);

static inline bool probe__active(const struct probe_info *p)
{
	const char *active = capture_probe_state_name(PTOP__V1__PROBE_STATE__PROBE_STATE_ACTIVE);

	return p->found && !strcmp(p->state, active);
}

struct drop_line {
	char collector[64];
	char kind[64];
	uint64_t lost;
	bool from_trailer; /* the trailer's total (else the sum of drop notices) */
};

/* Drops of COLLECTOR: without a window, per kind the trailer's total when the
 * trailer has one, else the sum of the drop notices; with a window, the sum of
 * the notices whose time is in it. *OUT is malloc'd (caller frees). 0 or -errno. */
int drops__load(sqlite3 *db, const struct capture_meta *m, const char *collector,
		const struct window *w, struct drop_line **out, size_t *n);

/* ------------------------------------------------------------------ histograms */

#define HIST_BUCKETS 64

/* The estimate for a latency in log2 bucket B ([2^B, 2^(B+1)) ns; bucket 0 is
 * [0, 2)): the geometric midpoint 2^(B+0.5) rounded to the nearest ns, 1 for
 * bucket 0. So the estimate is within a factor of sqrt(2) of the truth. */
uint64_t hist_bucket_estimate(unsigned b);

/* The PCT-th percentile (1..100) of the histogram H[0..N): the bucket holding
 * the value of nearest rank ceil(total * PCT / 100). *EST gets
 * hist_bucket_estimate of it, *LO and *HI (may be NULL) its bounds [LO, HI).
 * Returns 0, -ENODATA when the histogram is empty, -EINVAL for a bad PCT. */
int hist_percentile(const uint64_t *h, size_t n, unsigned pct, uint64_t *est, uint64_t *lo,
		    uint64_t *hi);

/* ------------------------------------------------------------------ reports */

enum report_sort {
	SORT_COUNT = 0,
	SORT_TOTAL,
};

enum heap_by {
	HEAP_BY_DEFAULT = 0, /* live bytes when measured, else bytes allocated */
	HEAP_BY_LIVE,
	HEAP_BY_BYTES,
	HEAP_BY_COUNT,
};

enum apps_by {
	APPS_BY_DEFAULT = 0, /* pss */
	APPS_BY_PSS,
	APPS_BY_USS,
	APPS_BY_RSS,
};

struct report_opts {
	enum out_format fmt;
	struct window win;     /* all open: the whole capture */
	const char *mapping;   /* vma: --mapping NAME, one group's VMAs; NULL: the groups */
	bool growth;	       /* vma: --growth, the first and last snapshots compared */
	enum report_sort sort; /* syscalls */
	size_t top;	       /* syscalls: at most this many rows; 0 = all */
	/* cpu: where to find symbols (as for `symbolize`) */
	const char *symbol_cache;    /* --symbol-cache DIR; NULL: none */
	bool debuginfod;	     /* --debuginfod: ask servers (else no network) */
	const char *debuginfod_urls; /* --debuginfod-urls; NULL: $DEBUGINFOD_URLS */
	enum heap_by by;	     /* heap: --by */
	const char *suppressions;    /* leaks: --suppressions FILE; NULL: none */
	enum apps_by apps_by;	     /* apps: --by pss|uss|rss */
	int32_t pid;		     /* cpu: --pid, the profile of this process only; 0: all */
	const char *table;	     /* io: --table NAME, the table CSV prints; NULL: default */
	const char *file;	     /* io: --file PATH|MAJ:MIN:INO, one file's intervals */
};

struct syscall_agg {
	int64_t nr;
	char name[64];
	bool name_known; /* false: "sys_N", a number unknown to ptop's table and the recorder's */
	bool probe;	 /* a syscall of the uprobe trampolines (syscall_table__is_probe):
			  * probe overhead, not the target's own */
	uint64_t count, completed, errors, total_ns;
	uint64_t hist[HIST_BUCKETS];
};

/* Sum syscall_stat and syscall_hist per syscall over the window. Names come from
 * ptop's syscall table for the capture's machine when it knows the number (else
 * the stored name); probe is set from the same table. *OUT is malloc'd (caller
 * frees), sorted by SORT (ties by name), probe rows included. 0 or -errno. */
int syscalls__aggregate(sqlite3 *db, const struct capture_meta *m, const struct window *w,
			enum report_sort sort, struct syscall_agg **out, size_t *n);

/* Reorder A[0..N) so the target's own syscalls come first and the probe overhead
 * rows (probe set) after them, each part keeping its order. Returns the number of
 * the target's rows. */
size_t syscalls__split_probe(struct syscall_agg *a, size_t n);

/* Growth in bytes per minute from FIRST at time T0 to LAST at T1 (ns), rounded
 * to the nearest byte (half away from zero). Returns false (no growth defined)
 * when T1 <= T0 or the result does not fit in an int64. */
bool growth_per_minute(int64_t first, int64_t last, int64_t t0_ns, int64_t t1_ns, int64_t *out);

/* The reports: print to OUT in o->fmt. Returns 0, or -errno for an internal
 * failure (the caller maps it to the exit code); -EBADMSG for figures no capture can
 * hold (a corrupt DB, said on stderr: "corrupt DB: ..."). A probe that was not active
 * makes the report say "not collected" (JSON: "collected": false) and return 0. */
int report_syscalls(sqlite3 *db, const char *capture_id, const struct report_opts *o, FILE *out);
int report_cpu(sqlite3 *db, const char *capture_id, const struct report_opts *o, FILE *out);
int report_mem(sqlite3 *db, const char *capture_id, const struct report_opts *o, FILE *out);
int report_heap(sqlite3 *db, const char *capture_id, const struct report_opts *o, FILE *out);
int report_leaks(sqlite3 *db, const char *capture_id, const struct report_opts *o, FILE *out);
/* report_cgroup.c: the cgroup collector's memory, OOM, pressure and processes (probe cgroup);
 * the processes grouped into applications (apps: a single-process capture's one process from
 * memory_sample when the cgroup probe did not run). */
int report_cgroup(sqlite3 *db, const char *capture_id, const struct report_opts *o, FILE *out);
int report_apps(sqlite3 *db, const char *capture_id, const struct report_opts *o, FILE *out);

/* ------------------------------------------------------------------ report kinds */

/* The options of `report` that only some kinds take (an_report.takes). Given to a kind
 * that does not take it, one is a usage error naming the kinds that do ("--pid is for
 * report cpu"). The other options (--format, --window, --sort, --top, --capture and the
 * symbol options) go to every kind; a kind with no use for one ignores it. */
enum report_opt {
	REPORT_OPT_HEAP_BY = 1 << 0,	  /* --by live|bytes|count: o->by */
	REPORT_OPT_APPS_BY = 1 << 1,	  /* --by pss|uss|rss: o->apps_by */
	REPORT_OPT_SUPPRESSIONS = 1 << 2, /* --suppressions FILE */
	REPORT_OPT_MAPPING = 1 << 3,	  /* --mapping NAME */
	REPORT_OPT_GROWTH = 1 << 4,	  /* --growth */
	REPORT_OPT_PID = 1 << 5,	  /* --pid PID */
	REPORT_OPT_TABLE = 1 << 6,	  /* --table NAME: o->table */
	REPORT_OPT_FILE = 1 << 7,	  /* --file PATH: o->file */
};

/* One `report KIND`, declared by the collector whose data it shows: at the bottom of
 * collectors/NAME/report.c, in its NULL-terminated list NAME_reports, which its part
 * points to (analyze/part.h, member reports). The `report` command (report.c) looks
 * KIND up among the reports of every part, and its usage, help and messages list them
 * all (report_kind__next); no core file names a kind.
 *
 * For KIND the command parses the options into a struct report_opts, refuses an option
 * of enum report_opt the kind does not take, asks check(), opens FILE (a capture through
 * its cache DB, or a DB), checks the DB has the tables, and calls run() with a memory
 * stream: the report is written to stdout whole or not at all. run() returns as the
 * report_* functions above do (-EPROTO and -EBADMSG said by run() itself: exit 2). */
struct an_report {
	const char *name; /* the KIND word: "syscalls"; unique over every part */
	/* its place in the kinds' list (usage, help, messages): by order, ascending; unique.
	 * Parts come in start order (collectors.def); this keeps the list as users know it. */
	unsigned order;
	/* what it shows, for `report --help`: lines of at most 66 characters (79 columns
	 * there) joined by '\n', none at the end; printed after "  KIND", the others
	 * indented under the first */
	const char *summary;
	/* the sample tables it reads, comma-separated (db__check_tables): an older DB without
	 * one is refused before run() */
	const char *tables;
	unsigned takes; /* the enum report_opt options it takes; 0: none */
	/* Optional: a rule of its own on the options O ("--mapping and --growth do not go
	 * together"), after those of takes: NULL when O is fine, else the usage error, one
	 * line, a static string. */
	const char *(*check)(const struct report_opts *o);
	/* Print the report of capture CAPTURE_ID in DB to OUT, in o->fmt. 0 or -errno. */
	int (*run)(sqlite3 *db, const char *capture_id, const struct report_opts *o, FILE *out);
};

/* The kinds of every part's reports in order: the first when PREV is NULL, else the
 * one after PREV; NULL after the last. */
const struct an_report *report_kind__next(const struct an_report *prev);

/* The report named NAME, or NULL. */
const struct an_report *report_kind__find(const char *name);

/* Write the names of the kinds that take every option of TAKES (enum report_opt; 0:
 * every kind) into BUF, in order, separated by SEP, the last two by LAST: "a, b or c"
 * with ", " and " or "; "a|b|c" with "|" twice. BUF is always NUL-terminated; when LEN
 * is too small, the list stops after the last name that fits. */
void report_kind__list(char *buf, size_t len, unsigned takes, const char *sep, const char *last);

/* ------------------------------------------------------------------ heap (report_heap.c) */

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

/* ------------------------------------------------------------------ vma (report_vma.c) */

int report_vma(sqlite3 *db, const char *capture_id, const struct report_opts *o, FILE *out);

/* One row of vma_snapshot. Figures NULL in the DB are -1. */
struct vma_snap {
	int64_t id, time_ns;
	bool final;
	int64_t vma_count, walk_ns, budget_ns, skipped_walks;
};

/* The VMA snapshots of capture M in window W, by time. *OUT is malloc'd (caller
 * frees). 0, -ENOMEM, -EIO. */
int vma_snaps__load(sqlite3 *db, const struct capture_meta *m, const struct window *w,
		    struct vma_snap **out, size_t *n);

enum vma_fig { VMA_SIZE, VMA_RSS, VMA_PSS, VMA_USS, VMA_ANON, VMA_SWAP, VMA_FIGS };

/* The mappings of one snapshot aggregated by name: the path as smaps prints it
 * (a file, [heap], [stack], [vdso], [anon:NAME]...), [anon] for an anonymous
 * mapping without a name. v[] by enum vma_fig, bytes summed over its VMAs. */
struct vma_group {
	char *name;
	int64_t vmas;
	int64_t v[VMA_FIGS];
};

/* The groups of snapshot SNAPSHOT_ID of capture CAP, by PSS descending (then
 * RSS, then name). *OUT is malloc'd: free with vma_groups__free(*OUT, *N)
 * (accepts NULL). 0, -ENOMEM, -EIO. */
int vma_groups__load(sqlite3 *db, int64_t cap, int64_t snapshot_id, struct vma_group **out,
		     size_t *n);
void vma_groups__free(struct vma_group *g, size_t n);

/* A group that changed between two snapshots. */
struct vma_growth {
	const char *name;		      /* points into the groups compared */
	const char *change;		      /* grew | shrank | resized | appeared | vanished */
	const struct vma_group *first, *last; /* NULL where absent */
	int64_t d_size, d_rss, d_pss;	      /* last - first, absent as 0 */
};

/* Compare groups A (the first snapshot) with B (the last): one entry per name
 * that grew (PSS, else RSS up), shrank, only changed its size or VMA count
 * (resized), appeared or vanished; unchanged names are left out. By |PSS delta|
 * descending, then |RSS delta|, then name. *OUT (malloc'd, caller frees) points
 * into A and B. 0 or -ENOMEM. */
int vma_growth__compute(const struct vma_group *a, size_t na, const struct vma_group *b,
			size_t nb, struct vma_growth **out, size_t *n);

/* ------------------------------------------------------------------ cgroup (report_cgroup.c) */

/* The cgroup collector's samples as `report cgroup` reads them, for the replay viewer too.
 * Figures NULL in the DB (not measured) are -1. */

#define CG_PSI_N 6 /* PSI lines: resource x kind, slot = resource * 2 + kind */
extern const char *const cg_psi_resource[3]; /* memory, cpu, io */
extern const char *const cg_psi_kind[2];     /* some, full */

struct cg_sample {
	int64_t seq, time_ns; /* time_ns: absolute monotonic */
	char lane[4];	      /* "v2", "v1", "" (no memory controller read) */
	int64_t current;      /* -1: NULL */
	int64_t limit;	      /* -1: NULL (no limit, or not read) */
	int64_t peak;
	int64_t oom, oom_kill, oom_kill_total, high, max, failcnt, under_oom; /* deltas; -1 */
	int64_t processes, covered, denied, gone, skipped, walk_ns, budget_ns;
	double psi_avg10[CG_PSI_N]; /* NAN: no such line */
};

struct cg_psi_agg {
	size_t samples;
	double avg10_max, avg10_last, avg60_last, avg300_last;
	uint64_t stall_us; /* sum of total_delta_us */
};

struct cg_data {
	struct cg_sample *s; /* by seq */
	size_t n;
	char path[512], v1_path[512]; /* of the last sample that names one */
	struct cg_psi_agg psi[CG_PSI_N];
};

/* The samples of capture M in window W (a sample is in it when its time is), their PSI lines.
 * D must be zeroed; free with cg_data__free. 0, -ENOMEM, -EIO. */
int cg_data__load(sqlite3 *db, const struct capture_meta *m, const struct window *w,
		  struct cg_data *d);
void cg_data__free(struct cg_data *d);

struct cg_proc {
	int64_t pid;
	char comm[64], exe[512], unit[256];
	char state[16];		     /* covered | denied | gone | skipped, at its last appearance */
	int64_t last_seen_ns;	     /* time of the last sample it was in (absolute) */
	int64_t value_ns;	     /* time of its last covered read; -1: never covered */
	int64_t rss, pss, uss, swap; /* of that read; -1: never covered */
	bool in_last;		     /* in the window's last sample */
};

/* Every pid of the cgroup_proc rows in window W: its last state and the values of its last
 * covered read; LAST_SEQ is the window's last sample (sets in_last). By pid; *OUT malloc'd
 * (caller frees). 0, -ENOMEM, -EIO. */
int cg_procs__load(sqlite3 *db, const struct capture_meta *m, const struct window *w,
		   int64_t last_seq, struct cg_proc **out, size_t *n);

/* An application of `report apps`: the processes of the cgroup's last sample grouped by their
 * systemd app-*.scope unit, else their executable, else their comm. */
struct cg_app {
	char name[512];
	const char *kind; /* "unit", "exe", "comm", "others" */
	int64_t processes, covered;
	int64_t rss, pss, uss, swap; /* sums over the covered processes; -1: none covered */
	int64_t folded;		     /* others: apps folded in */
};

/* The applications of capture M's window W as `report apps` groups them (the cgroup probe's
 * processes in the window's last sample, gone ones left out), unsorted; *AT_NS that sample's
 * time (-1: none). *OUT malloc'd (caller frees). 0, -ENOMEM, -EIO. */
int cg_apps__load(sqlite3 *db, const struct capture_meta *m, const struct window *w,
		  struct cg_app **out, size_t *n, int64_t *at_ns);

/* qsort order: PSS descending, not measured last, then pid. */
int cg_proc__cmp_pss(const void *x, const void *y);

#define CG_STAT_FIGS 21

struct cg_stat_kv {
	char key[64];
	int64_t value;
};

/* memory.stat of the last sample with a memory lane: the breakdown figures (anon, file, shmem,
 * ... named by cg_stat__fig_name) from the v2 key, or on v1 the hierarchical total_* key. */
struct cg_stat {
	const struct cg_sample *at; /* that sample; NULL: none */
	struct cg_stat_kv *kv;	    /* its memory.stat, by key */
	size_t n;
	int64_t fig[CG_STAT_FIGS];	   /* -1: not in memory.stat */
	const char *fig_key[CG_STAT_FIGS]; /* the key it came from */
};

/* Fill CS from D's last sample with a lane (CS->at points into D). Free CS->kv. 0, -ENOMEM,
 * -EIO. */
int cg_stat__load(sqlite3 *db, const struct capture_meta *m, const struct cg_data *d,
		  struct cg_stat *cs);
const char *cg_stat__fig_name(size_t k); /* NULL past CG_STAT_FIGS */

/* OOM events summed over D's samples. */
struct cg_oom {
	int64_t oom, oom_kill, high, max, failcnt; /* sums; -1: not in the lane */
	int64_t oom_kill_total;			   /* last; -1 */
	int64_t under_oom_samples, under_oom_last; /* v1; -1 */
};
void cg_oom__of(const struct cg_data *d, struct cg_oom *o);

/* Coverage of the per-process reads summed over D's samples. */
struct cg_cov {
	size_t intervals; /* samples with coverage */
	int64_t processes, covered, denied, gone, skipped, walk_ns, walk_max_ns, budget_ns;
};
void cg_cov__of(const struct cg_data *d, struct cg_cov *c);

/* ------------------------------------------------------------------ mem (memory/report.c) */

/* One figure of memory_sample (rss, pss, uss, anon, swap...: a column `report mem` shows)
 * over the window, as its table prints it: first, min, max, last (bytes, the pids of a sample
 * summed), growth per minute from first to last. */
struct mem_summary {
	uint64_t samples; /* samples that measured it; 0: the rest is unset */
	int64_t first, min, max, last;
	int64_t t_max, t_last; /* the times of the (first) max and of the last (absolute ns) */
	bool has_growth;
	int64_t growth; /* bytes per minute */
	/* how far the max and the last value may be from the state they stand for, the samples
	 * being an interval apart (analyze/figures.h, fig_value.spread) */
	int64_t max_spread, last_spread;
};

/* Summarize figure METRIC_NAME of capture M over window W into S. 0, -EINVAL (no such figure),
 * -ENOMEM, -EIO. */
int mem_summary__load(sqlite3 *db, const struct capture_meta *m, const struct window *w,
		      const char *metric_name, struct mem_summary *s);

/* ------------------------------------------------------------------ shared by the reports */

/* Absolute monotonic bounds of W for capture M: [*lo, *hi], open sides
 * INT64_MIN/INT64_MAX. */
void window__bounds(const struct window *w, const struct capture_meta *m, int64_t *lo, int64_t *hi);

/* "whole capture" or "window 2.000 s .. 5.000 s" into BUF. */
void window__describe(const struct window *w, char *buf, size_t len);

/* Column COL of the current row of ST as an integer, DFLT when it is NULL (not
 * measured). */
int64_t report__col(sqlite3_stmt *st, int col, int64_t dflt);

/* KEY: V in J, or KEY: null when V < 0 (the reports' "not measured"). */
void report__json_opt_int(struct json *j, const char *key, int64_t v);

/* The common head of a report: in text, the incomplete-capture warning line (on
 * stdout); in CSV, the same on stderr; in JSON, opens the top-level object and
 * writes "report", "capture_id", "complete", "read_end", "read_message",
 * "warning" and "window". */
void report__begin(struct json *j, FILE *out, const struct report_opts *o, const char *kind,
		   const struct capture_meta *m);

/* Print that KIND was not collected, and why (text: "KIND: not collected
 * (STATE: REASON)"; CSV: the same on stderr; JSON: "collected": false, "state",
 * "reason"). J must have been opened by report__begin for JSON; it is closed. */
int report__not_collected(struct json *j, FILE *out, const struct report_opts *o, const char *kind,
			  const struct probe_info *p);

/* Print the drops: text "drops: COLLECTOR KIND: N lost" lines (or "drops: none
 * recorded for COLLECTOR"); JSON a "drops" array; CSV on stderr when any. */
void report__drops(struct json *j, FILE *out, const struct report_opts *o, const char *collector,
		   const struct drop_line *d, size_t n);

#endif
