/* part.c — the analyzer side of the heap collector (analyze/part.h). */
#include <stddef.h>

#include "analyze/part.h"

extern const struct replay_view *const heap_views[]; /* view.c */

const struct an_part heap_part = {
	.name = "heap",
	/* loader: collectors/heap/load.c */
	.load = NULL,
	/* reports: collectors/heap/report.c */
	.reports = NULL,
	/* replay views: collectors/heap/view.c */
	.views = heap_views,
	/* figures (issue 14): collectors/heap/figures.c */
	.figures = NULL,
};
