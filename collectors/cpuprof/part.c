/* part.c — the analyzer side of the cpuprof collector (analyze/part.h). */
#include <stddef.h>

#include "analyze/part.h"

const struct an_part cpuprof_part = {
	.name = "cpuprof",
	/* loader: collectors/cpuprof/load.c */
	.load = NULL,
	/* reports: collectors/cpuprof/report.c */
	.reports = NULL,
	/* replay views: collectors/cpuprof/view.c */
	.views = NULL,
	/* figures (issue 14): collectors/cpuprof/figures.c */
	.figures = NULL,
};
