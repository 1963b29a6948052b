/* part.c — the analyzer side of the mappings collector (analyze/part.h). */
#include <stddef.h>

#include "analyze/part.h"

const struct an_part mappings_part = {
	.name = "mappings",
	/* loader: collectors/mappings/load.c */
	.load = NULL,
	/* reports: collectors/mappings/report.c */
	.reports = NULL,
	/* replay views: collectors/mappings/view.c */
	.views = NULL,
	/* figures (issue 14): collectors/mappings/figures.c */
	.figures = NULL,
};
