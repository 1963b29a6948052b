/* diff.h — `ptop-analyze diff BASE NEW`: the figures of two captures compared (analyze/figures.h),
 * and the CI gates (--fail-on EXPR) over them.
 *
 * The comparison is a list of rows, one per figure instance of either side, built once
 * (diff__compare) and rendered as text, JSON, markdown or JUnit (diff.c). The parts here
 * are public so the unit tests can reach them: the gate grammar, --min-delta, and the
 * verdict of one pair of values.
 */
#ifndef PTOP_ANALYZE_DIFF_H
#define PTOP_ANALYZE_DIFF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyze/figures.h"

/* ------------------------------------------------------------------ --min-delta */

/* What a change must reach to be reported: relative (10%), and for figures in bytes also
 * absolute (50M). Unset sides do not filter. */
struct min_delta {
	bool has_rel, has_abs;
	double rel_pct;	  /* percent of the BASE value */
	double abs_bytes; /* bytes (figures in bytes and bytes/min only) */
};

/* Parse one --min-delta value into MD (adds to what it holds): "10%", "50M", "1.5G", "4096".
 * Sizes: B, K, M, G, T (powers of 1024; KiB, MiB... too). 0 or -EINVAL with a reason in ERR. */
int min_delta__parse(const char *s, struct min_delta *md, char *err, size_t errlen);

/* ------------------------------------------------------------------ gates */

enum gate_op { GATE_GT, GATE_GE, GATE_LT, GATE_LE };

enum gate_kind {
	GATE_REL,   /* "+10%": the change relative to BASE, in percent */
	GATE_PP,    /* "+5pp": the change of a share, in percentage points */
	GATE_DELTA, /* "+50M", "+2ms", "+100": the change, in the figure's unit */
	GATE_LEVEL, /* "1G", "500": NEW's value itself (no sign) */
};

/* One --fail-on EXPR: FIGURE OP THRESHOLD (blanks optional):
 *   FIGURE     a figure's name (`figures` lists them), an instance's argument in
 *              parentheses or * for every instance: heap.site(*).live_bytes
 *   OP         > >= < <=
 *   THRESHOLD  a signed number is a change from BASE to NEW: +10% relative, +5pp for a
 *              share (%), +50M for bytes (K M G T, powers of 1024), +2ms for a latency
 *              (ns us ms s), or a plain number in the figure's unit; unsigned it is NEW's
 *              value itself (mem.pss_peak > 1G). */
struct gate {
	char expr[256];	   /* as given */
	char pattern[256]; /* the figure's name, argument as (*) */
	char arg[192];	   /* the argument; "*": every instance; "" with has_arg false */
	bool has_arg;
	const struct an_figure *fig;
	enum gate_op op;
	enum gate_kind kind;
	double threshold; /* percent, pp, or the figure's unit (bytes, ns...) */
};

/* Parse EXPR into G and check it against the declared figures (a figure that exists, a
 * unit its figure takes: pp for a share, sizes for bytes, times for latencies). 0, or
 * -EINVAL with a one-line reason in ERR. */
int gate__parse(const char *expr, struct gate *g, char *err, size_t errlen);

/* Whether X OP THRESHOLD holds. */
bool gate__holds(const struct gate *g, double x);

/* ------------------------------------------------------------------ units of work */

/* Make the rates of C (the figures in FIG_RATE: per second) rates per call of mark NAME
 * (instance NAME of the figure whose work_unit is set: mark.count(NAME), ptop-record --mark
 * NAME=FUNC): each value times its seconds
 * over the mark's calls, the exposure of a counted rate the calls. 0, or -ENOENT (C has
 * no such mark: the mark collector did not run, or NAME was not given to it) or -EDOM
 * (the mark counted no call), with the reason in ERR. */
int fig_capture__per(struct fig_capture *c, const char *name, char *err, size_t errlen);

/* ------------------------------------------------------------------ rows */

enum diff_status {
	DIFF_CHANGED = 0,      /* a change past --min-delta that its test says is real */
	DIFF_UNCHANGED,	       /* no change, or within --min-delta */
	DIFF_NOT_SIGNIFICANT,  /* past --min-delta but within the noise its test allows */
	DIFF_TOO_FEW,	       /* too few samples (or events) to test */
	DIFF_NOT_COMPARABLE,   /* not measured on a side: reason */
	DIFF_NOT_REPORTED,     /* an instance absent from a side whose list was cut: reason */
};

struct diff_row {
	const struct an_figure *fig;
	char *name; /* the instance's full name */
	const char *arg;
	enum diff_status status;
	char reason[640];     /* NOT_COMPARABLE, NOT_REPORTED: why; TOO_FEW: why, when not
			       * the count (the states taken at different moments) */
	bool in_base, in_new; /* listed on that side (else 0, proven by a complete list) */
	double base, new;
	uint64_t base_count, new_count, base_of, new_of;
	double delta, rel_pct; /* rel_pct: INFINITY from 0 to more; NAN: both 0 */
	double z;	       /* the test's statistic; NAN: none */
	int base_bucket, new_bucket;
	const struct fig_value *base_hist, *new_hist; /* BUCKET: the values with histograms */
	bool worse; /* the change is in the direction the figure calls worse */
	bool noise; /* its test could not tell the change from noise (or had too few) */
	bool estimated;	      /* the values are estimates from sampling (fig_family.sample_bytes) */
	double base_basis, new_basis; /* estimated: fig_value.basis of each side */
	double base_period, new_period; /* estimated: each side's sample_bytes (0: exact) */
	double base_spread, new_spread; /* fig_value.spread of each side */
	bool same_count;      /* a rate whose count is equal on both sides: unchanged */
};

struct diff_opts {
	double confidence; /* two-sided, 0.99 */
	struct min_delta md;
};

/* Fill the comparison of one pair of values in R (base, new and the counts set, fig set):
 * delta, rel_pct, z, status (CHANGED, UNCHANGED, NOT_SIGNIFICANT or TOO_FEW) and worse.
 * ZCRIT is the critical value for this figure (the confidence corrected for its instances).
 * FB and FN are the two families (of, exposure_s). */
void diff_row__judge(struct diff_row *r, const struct fig_family *fb, const struct fig_family *fn,
		     const struct diff_opts *o, double zcrit);

struct diff {
	struct diff_row *row;
	size_t n, cap;
};

/* Compare every figure of BASE and NEW into D (zeroed first): one row per family not
 * comparable, else one per instance of either side. 0 or -ENOMEM. */
int diff__compare(const struct fig_capture *base, const struct fig_capture *new,
		  const struct diff_opts *o, struct diff *d);
void diff__free(struct diff *d);

#endif
