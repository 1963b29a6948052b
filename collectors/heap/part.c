/* part.c — the analyzer side of the heap collector (analyze/part.h). */
#include <stddef.h>

#include "analyze/part.h"

const struct an_part heap_part = {
	.name = "heap",
	/* loader: collectors/heap/load.c */
	.load = NULL,
	/* reports: collectors/heap/report.c */
	.reports = NULL,
	/* replay views: collectors/heap/view.c */
	.views = NULL,
	/* figures (issue 14): collectors/heap/figures.c */
	.figures = NULL,
};
