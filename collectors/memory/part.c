/* part.c — the analyzer side of the memory collector (analyze/part.h). */
#include <stddef.h>

#include "analyze/part.h"

extern const struct an_load memory_load;
extern const struct an_report *const memory_reports[];
extern const struct replay_view *const memory_views[]; /* view.c */

const struct an_part memory_part = {
	.name = "memory",
	/* loader: collectors/memory/load.c */
	.load = &memory_load,
	/* reports: collectors/memory/report.c */
	.reports = memory_reports,
	/* replay views: collectors/memory/view.c */
	.views = memory_views,
	/* figures (issue 14): collectors/memory/figures.c */
	.figures = NULL,
};
