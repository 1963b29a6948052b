/* part.c — the analyzer side of the heap collector (analyze/part.h). */
#include <stddef.h>

#include "analyze/part.h"

extern const struct an_load heap_load;
extern const struct an_report *const heap_reports[];
extern const struct replay_view *const heap_views[]; /* view.c */

const struct an_part heap_part = {
	.name = "heap",
	/* loader: collectors/heap/load.c */
	.load = &heap_load,
	/* reports: collectors/heap/report.c */
	.reports = heap_reports,
	/* replay views: collectors/heap/view.c */
	.views = heap_views,
	/* figures (issue 14): collectors/heap/figures.c */
	.figures = NULL,
};
