/* figures.c — the memory collector's figures (analyze/figures.h): RSS, PSS and USS at their
 * peak and at the window's end, and their growth per minute, from mem_summary__load
 * (report.c), the summary `report mem` prints. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "analyze/figures.h"
#include "analyze/part.h"
#include "collectors/memory/report.h"

/* "mem.pss_peak" -> column "pss" and what of it: peak, last or growth. */
static int compute(struct fig_ctx *c, const struct an_figure *f, struct fig_family *fam)
{
	const char *name = f->name + strlen("mem."), *us = strchr(name, '_');
	struct mem_summary s;
	char col[16];
	int err;

	snprintf(col, sizeof(col), "%.*s", us ? (int)(us - name) : 0, name);
	err = mem_summary__load(c->db, c->m, &c->w, col, &s);
	if (err)
		return err;
	if (!s.samples) {
		fig_family__not_measured(fam, "no %s sample in the window", col);
		return 0;
	}
	/* the last is a state at one moment, and the peak is over the samples up to it: diff
	 * compares them only when the series reaches about as near the end on both sides (a
	 * growing target last read at 0.75 s of a 1 s run, its final poll missed at its exit,
	 * was 26% below one read at 1 s) */
	/* each is also as exact as the samples are near it: a peak at a series' last sample
	 * while it still rose (the target's final poll missed at its exit) may be a step short
	 * (fig_value.spread) */
	if (!strcmp(us, "_peak")) {
		fam->before_end_s = fig_ctx__before_end_s(c, s.t_last);
		err = fig_family__add(fam, NULL, (double)s.max, s.samples);
		if (!err)
			fam->val[fam->n - 1].spread = (double)s.max_spread;
		return err;
	}
	if (!strcmp(us, "_last")) {
		fam->before_end_s = fig_ctx__before_end_s(c, s.t_last);
		err = fig_family__add(fam, NULL, (double)s.last, s.samples);
		if (!err)
			fam->val[fam->n - 1].spread = (double)s.last_spread;
		return err;
	}
	if (!s.has_growth) {
		fig_family__not_measured(fam, "growth needs two %s samples at different times",
					 col);
		return 0;
	}
	return fig_family__add(fam, NULL, (double)s.growth, s.samples);
}

/* A peak or last value from fewer samples is not compared by diff: the first sample falls at
 * the target's start, so with two the last is a moment of the run whose neighbour says nothing
 * of how far it may be from the same moment of another run (two identical runs read 19.4 and
 * 17.3 MiB at 1 s, their starts apart by a loaded machine's delays). */
#define STATE_MIN_SAMPLES 3
/* A growth from fewer samples is not compared by diff: over a short run (a few intervals)
 * where the samples fall against the target's phases moves it by more than 10%. */
#define GROWTH_MIN_SAMPLES 10
/* Between identical runs the resident pages vary: a page touched or not, and for a file the
 * kernel's fault-around mapping up to 64 KiB (fault_around_bytes) at a fault. A change of
 * less than four such is not claimed. */
#define PROC_RESOLUTION (256 << 10)

#define MEM_FIGS(col, what)                                                                        \
	static const struct an_figure col##_peak = {                                               \
		"mem." #col "_peak", "memory", FIG_BYTES, true, false, FIG_TEST_NONE,              \
		"the largest " what " of the window", compute,                                     \
		.resolution = PROC_RESOLUTION, .min_count = STATE_MIN_SAMPLES,                     \
	};                                                                                         \
	static const struct an_figure col##_last = {                                               \
		"mem." #col "_last", "memory", FIG_BYTES, true, false, FIG_TEST_NONE,              \
		what " at the window's last sample", compute,                                      \
		.resolution = PROC_RESOLUTION, .min_count = STATE_MIN_SAMPLES,                     \
	};                                                                                         \
	static const struct an_figure col##_growth = {                                             \
		"mem." #col "_growth", "memory", FIG_BYTES_PER_MIN, true, false, FIG_TEST_NONE,    \
		what " growth per minute, first to last sample", compute,                          \
		.min_count = GROWTH_MIN_SAMPLES,                                                   \
	};

MEM_FIGS(rss, "RSS")
MEM_FIGS(pss, "PSS")
MEM_FIGS(uss, "USS")

const struct an_figure *const memory_figures[] = {
	&rss_peak, &rss_last, &rss_growth, &pss_peak, &pss_last,
	&pss_growth, &uss_peak, &uss_last, &uss_growth, NULL,
};
