/* report.h — the memory collector's `report mem` (report.c) and the summary of a figure it
 * shares with its figures (figures.c). */
#ifndef PTOP_MEMORY_REPORT_H
#define PTOP_MEMORY_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <sqlite3.h>

#include "analyze/report.h"

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

/* The report: print to OUT in o->fmt. Returns 0, or -errno for an internal
 * failure (the caller maps it to the exit code); -EBADMSG for figures no capture can
 * hold (a corrupt DB, said on stderr: "corrupt DB: ..."). A probe that was not active
 * makes the report say "not collected" (JSON: "collected": false) and return 0. */
int report_mem(sqlite3 *db, const char *capture_id, const struct report_opts *o, FILE *out);

#endif
