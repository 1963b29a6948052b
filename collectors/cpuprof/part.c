/* part.c — the analyzer side of the cpuprof collector (analyze/part.h). */
#include <stddef.h>

#include "analyze/part.h"

extern const struct an_load cpuprof_load;

const struct an_part cpuprof_part = {
	.name = "cpuprof",
	/* loader: collectors/cpuprof/load.c */
	.load = &cpuprof_load,
	/* reports: collectors/cpuprof/report.c */
	.reports = NULL,
	/* replay views: collectors/cpuprof/view.c */
	.views = NULL,
	/* figures (issue 14): collectors/cpuprof/figures.c */
	.figures = NULL,
};
