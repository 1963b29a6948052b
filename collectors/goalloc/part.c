/* part.c — the analyzer side of the goalloc collector (analyze/part.h). */
#include <stddef.h>

#include "analyze/part.h"

const struct an_part goalloc_part = {
	.name = "goalloc",
	/* loader: collectors/goalloc/load.c */
	.load = NULL,
	/* reports: collectors/goalloc/report.c */
	.reports = NULL,
	/* replay views: collectors/goalloc/view.c */
	.views = NULL,
	/* figures (issue 14): collectors/goalloc/figures.c */
	.figures = NULL,
};
