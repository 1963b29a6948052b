/* figures.h — the named figures of a capture, as `figures`, `diff` and the CI gates read them.
 *
 * Each collector's part declares its figures (analyze/part.h, member figures) in its folder,
 * collectors/NAME/figures.c: a dotted name ("heap.live_bytes"; a parameterized one names its
 * instances with (*): "heap.site(*).live_bytes", "syscalls.rate(*)"), the probe that measures
 * it, its unit, whether up is worse, how a change of it is tested, and how to compute it for a
 * window of a capture. compute() reuses the loading code of the collector's reports
 * (collectors/NAME/report.c), so a figure is the number its report prints.
 *
 * A figure whose probe was not active is not measured (fig_family.measured false, the reason
 * from the probe set), never 0; compute() is not called then.
 */
#ifndef PTOP_ANALYZE_FIGURES_H
#define PTOP_ANALYZE_FIGURES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <sqlite3.h>

#include "analyze/report.h"

enum fig_unit {
	FIG_BYTES = 0,
	FIG_COUNT,
	FIG_RATE,	   /* per second of capture */
	FIG_PCT,	   /* a share, in percent; its changes in percentage points (pp) */
	FIG_NS,		   /* a duration */
	FIG_BYTES_PER_MIN, /* a growth */
	FIG_HZ,		   /* a setting: a sampling rate */
};

/* How a change of the figure between two captures is told from noise (diff). */
enum fig_test {
	FIG_TEST_NONE = 0,   /* exact, or no model of its noise: --min-delta only */
	FIG_TEST_PROPORTION, /* sampled: count hits of the family's `of` samples; two-proportion */
	FIG_TEST_POISSON,    /* count events over the family's exposure_s seconds; rate ratio */
	FIG_TEST_BUCKET,     /* a histogram percentile: claimed only when the buckets its confidence
			      * interval spans on each side are two buckets or more apart */
};

/* One instance's value (a plain figure has one, arg NULL). */
struct fig_value {
	char *arg;	/* the instance: F of heap.site(F).live_bytes; NULL for a plain figure */
	double v;	/* in the family's unit */
	uint64_t count; /* PROPORTION: the samples it holds; POISSON: the events counted */
	int bucket;	/* BUCKET: the log2 bucket v is the estimate of */
	uint64_t *hist; /* BUCKET: the histogram (HIST_BUCKETS, malloc'd) and the percentile */
	unsigned pct;
	/* an estimate (fig_family.sample_bytes > 0): the bytes the samples behind it stand for,
	 * so about basis / sample_bytes samples (the allocated or live bytes of the site whose
	 * figure it is); diff's test of an estimate reads it */
	double basis;
	/* a state read from a series of samples (a peak, a last value): how far it may be from
	 * the state it stands for, in its unit, because the samples are an interval apart: the
	 * step from the value to its nearer neighbour in the series (a peak held over two samples:
	 * 0; the last sample of a series still rising: that rise). diff claims no change within
	 * the larger of the two sides' (too few samples); 0: none known */
	double spread;
};

/* A figure of one capture's window: measured or not (why), its instances. */
struct fig_family {
	const struct an_figure *fig;
	bool measured;	  /* false: reason says why, and there are no values */
	char reason[512]; /* "heap disabled: off by default" */
	/* parameterized: every instance with a non-zero value is listed, so one absent is
	 * zero (proven); false: the list was cut (note says where), absent is unknown */
	bool complete;
	char note[600];
	/* a state at one moment (the last VMA snapshot): how long before the end of the
	 * window's capture time it was taken, in seconds; diff compares two such only when
	 * they are about as far from their ends (10% of the longer span). NAN (set by the
	 * core): a figure of the whole window */
	double before_end_s;
	/* > 0: the values are estimates from sampling one allocation per this many bytes on
	 * average (the heap's --heap-sample-bytes): `figures` says "estimated", and diff tells
	 * a change from the sampling error (about sqrt(2 / samples) of the value, the samples
	 * from fig_value.basis), or says too few samples; 0: exact */
	double sample_bytes;
	/* > 0: the samples (snapshots) the family's values are over, which an instance absent
	 * from a complete list is over too (diff's min_count reads it) */
	uint64_t samples;
	uint64_t of;	   /* PROPORTION: the samples the shares are of */
	double exposure_s; /* POISSON: the seconds the counts cover */
	struct fig_value *val;
	size_t n, cap;
};

struct fig_ctx;

struct an_figure {
	const char *name;  /* "heap.site(*).live_bytes": unique over every part */
	const char *probe; /* the probe that measures it, as the probe set names it */
	enum fig_unit unit;
	bool up_is_worse;
	bool setting;	    /* a setting of the recording (sampling rate): diff prints it at
			     * the top when it differs, not as a change */
	enum fig_test test; /* PROPORTION: the figure is sampled (counts carried) */
	const char *what;   /* one line for the man page and `figures --help` */
	/* Fill FAM (measured, complete, of, exposure_s, values by fig_family__add) for the
	 * capture and window of C. Called only when the probe was active; FAM->measured is
	 * true on entry and may be set false with a reason (nothing in the window). Loads
	 * shared by a part's figures go through fig_ctx__get/put. 0 or -errno (-ENOMEM, -EIO;
	 * a message for the user, when any, printed on stderr). */
	int (*compute)(struct fig_ctx *c, const struct an_figure *f, struct fig_family *fam);
	/* the count (fig_value.count: samples) each side needs for diff to compare it; fewer
	 * is "too few samples" (a growth from a few samples is noise); 0: no minimum */
	unsigned min_count;
	/* the smallest change diff claims, in the figure's unit (memory read from /proc moves
	 * by a few pages between identical runs); 0: any */
	double resolution;
	/* its instances count units of work (mark.count(NAME)): `diff --per NAME` divides the
	 * rates by the count of instance NAME */
	bool work_unit;
};

/* The capture and window a computation is for, and what its figures loaded. */
struct fig_ctx {
	sqlite3 *db;
	const struct capture_meta *m;
	struct window w;
	double span_s; /* the window's seconds of capture (its events' times clipped to it) */
	struct {
		char key[32];
		void *data;
		void (*free)(void *);
	} cache[16];
	size_t n_cache;
};

/* What a part's figures share, loaded once per capture (the heap's sites, the profile):
 * the data stored under KEY, or NULL. fig_ctx__put stores DATA (owned by C from then on,
 * freed with FREE even on failure). 0 or -ENOMEM (too many keys). */
void *fig_ctx__get(struct fig_ctx *c, const char *key);
int fig_ctx__put(struct fig_ctx *c, const char *key, void *data, void (*free)(void *));

/* How long before the end of C's window (its events' times clipped to it) the absolute
 * monotonic time T_NS is, in seconds (0 when at or after it): fig_family.before_end_s of a
 * state taken at T_NS. */
double fig_ctx__before_end_s(const struct fig_ctx *c, int64_t t_ns);

/* Add an instance to FAM: ARG (copied; NULL for a plain figure), value V, COUNT. 0 or
 * -ENOMEM. */
int fig_family__add(struct fig_family *fam, const char *arg, double v, uint64_t count);

/* The value of instance ARG (NULL: the plain figure's), or NULL. */
const struct fig_value *fig_family__find(const struct fig_family *fam, const char *arg);

/* Set FAM not measured, with the reason printf'd. */
void fig_family__not_measured(struct fig_family *fam, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Every figure of a capture's window. */
struct fig_capture {
	struct capture_meta m;
	struct window w;
	double span_s;
	struct fig_family *fam; /* every part's figures, in collectors.def order */
	size_t n;
	/* the header, for diff: recorder version, kernel, CPUs, intervals */
	char recorder[96], kernel[128], machine[32];
	int64_t cpus, interval_ns, vma_interval_ns; /* -1: unknown */
};

/* Compute every figure of capture CAPTURE_ID in DB over window W. *OUT is malloc'd (free
 * with fig_capture__free, which accepts NULL). 0, -ENOENT (no such capture), -ENOMEM, -EIO,
 * or a part's error. */
int fig_capture__compute(sqlite3 *db, const char *capture_id, const struct window *w,
			 struct fig_capture **out);
void fig_capture__free(struct fig_capture *c);

/* The family of figure NAME ("heap.site(*).live_bytes") in C, or NULL. */
const struct fig_family *fig_capture__find(const struct fig_capture *c, const char *name);

/* Every declared figure in order: the first when PREV is NULL, else the one after; NULL
 * after the last. */
const struct an_figure *an_figure__next(const struct an_figure *prev);

/* The figure named NAME (the pattern, "syscalls.rate(*)"), or NULL. */
const struct an_figure *an_figure__find(const char *name);

/* The name of instance ARG of F into BUF: F's name with (*) replaced by (ARG); F's name
 * when ARG is NULL. Returns BUF. */
char *an_figure__instance(const struct an_figure *f, const char *arg, char *buf, size_t len);

/* Split a figure's name as written ("syscalls.rate(openat)", "heap.site(*).live_bytes",
 * "mem.pss_peak") into its pattern (the argument replaced by *) and its argument (NULL when
 * none; "*" for every instance). 0, or -EINVAL (unbalanced parentheses, an empty argument,
 * too long). */
int fig_name__split(const char *s, char *pattern, size_t plen, char *arg, size_t alen,
		    bool *has_arg);

/* The unit's short name: "bytes", "count", "/s", "%", "ns", "bytes/min", "Hz". */
const char *fig_unit__name(enum fig_unit u);

/* V in unit U for people: "1.5 MiB", "1,234/s", "12.3%", "4.56 ms". Returns BUF. */
char *fig_unit__format(enum fig_unit u, double v, char *buf, size_t len);

/* ------------------------------------------------------------------ statistics */

/* The two-sided critical value of the standard normal for CONFIDENCE (0.5 .. 1 - 1e-12):
 * z with P(|Z| > z) = 1 - CONFIDENCE. 1.959964 for 0.95, 2.575829 for 0.99. */
double fig_z_crit(double confidence);

/* The two-proportion z statistic for X1 of N1 against X2 of N2 (pooled): positive when the
 * second proportion is higher. -EDOM when the normal approximation does not hold (a side
 * with no samples, or fewer than 5 expected hits or misses on a side): too few samples. */
int fig_two_proportion(uint64_t x1, uint64_t n1, uint64_t x2, uint64_t n2, double *z);

/* The z statistic of a rate change: C1 events over T1 seconds against C2 over T2, from the
 * binomial of C2 given C1 + C2 (the conditional test of two Poisson rates). -EDOM when fewer
 * than 5 events are expected on a side (too few to tell), or a time is not positive. */
int fig_poisson_rates(uint64_t c1, double t1, uint64_t c2, double t2, double *z);

/* The buckets of histogram H[0..N) that hold the PCT-th percentile (1..99) with confidence
 * Z (its two-sided critical value): the order statistics of ranks n p -+ Z sqrt(n p (1 - p))
 * bound it whatever the distribution. *LO and *HI get their buckets. -EDOM when the
 * histogram holds too few values for a bound on a side (the rank falls outside 1..n). */
int fig_hist_percentile_ci(const uint64_t *h, size_t n, unsigned pct, double z, int *lo, int *hi);


/* ------------------------------------------------------------------ identities */

/* A function (a heap site's allocating function, a profile's function) as the instances of
 * a parameterized figure name it, so that captures of different builds and address layouts
 * match: by symbolized identity, never by address. */
struct fig_site {
	const char *func;   /* the function; for an unnamed one "MODULE+0xOFFSET" */
	const char *module; /* its module's path; NULL: unknown */
	const char *file;   /* NULL: unknown */
	unsigned line;
	bool named;
};

/* The instance name of each of S[0..N) into NAMES[k] (malloc'd; the caller frees each):
 * FUNC for a named function; FUNC@MODULE (MODULE the path's base name) when functions of that
 * name are in several modules; FUNC@MODULE:FILE:LINE when that still names several sites
 * (a static function of one name in two files); "[unnamed MODULE]" for every unnamed address
 * of a module (their offsets change with a rebuild: one instance per module, values summed by
 * the caller). 0 or -ENOMEM (NAMES then all NULL). */
int fig_site__names(const struct fig_site *s, size_t n, char **names);

/* Attach histogram H (HIST_BUCKETS counts, copied) and its percentile PCT to the last value
 * added to FAM. 0 or -ENOMEM. */
int fig_family__set_hist(struct fig_family *fam, const uint64_t *h, unsigned pct);

/* Add V and COUNT to instance ARG of FAM, created when new. 0 or -ENOMEM. */
int fig_family__accumulate(struct fig_family *fam, const char *arg, double v, uint64_t count);

/* The spread (fig_value.spread) of a series' peak and last value, fed one sample at a time
 * (fig_series__add) in time order. */
struct fig_series {
	size_t n;
	double prev;	   /* the previous sample */
	double peak;	   /* the largest so far */
	double peak_spread; /* peak minus its nearer neighbour so far */
	bool after_peak;   /* the sample after the peak is still to come */
	double last_spread; /* |last - the one before| */
};

void fig_series__add(struct fig_series *s, double v);

/* An estimate: add V, and BASIS to its fig_value.basis, to instance ARG of FAM (whose
 * sample_bytes is set), created when new. 0 or -ENOMEM. */
int fig_family__accumulate_est(struct fig_family *fam, const char *arg, double v, double basis);

/* The samples an estimate of BASIS bytes rests on, on average, when one allocation is sampled
 * per SAMPLE_BYTES: BASIS / SAMPLE_BYTES (INFINITY when exact, SAMPLE_BYTES 0). */
double fig_expected_samples(double basis, double sample_bytes);

/* The z statistic of a change from VB to VN of two estimates (analyze/figures.h, sample_bytes):
 * each side's sampling error is about sqrt(2 / lambda) of the value (a sum of Poisson many
 * exponential credits of mean P: variance 2 P B), lambda its expected samples, both taken
 * under "no change" from the mean of the two sides (BASIS_B, BASIS_N: the bytes behind
 * them; PB, PN: the periods, 0 for an exact side). -EDOM when a sampled side expects fewer
 * than FIG_MIN_SAMPLES samples (too few to tell), or neither is sampled. */
#define FIG_MIN_SAMPLES 10
int fig_sampled_estimates(double vb, double basis_b, double pb, double vn, double basis_n,
			  double pn, double *z);

#endif
