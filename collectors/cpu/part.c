/* part.c — the analyzer side of the cpu collector (analyze/part.h). */
#include <stddef.h>

#include "analyze/part.h"

extern const struct replay_view *const cpu_views[]; /* view.c */

const struct an_part cpu_part = {
	.name = "cpu",
	/* loader: collectors/cpu/load.c */
	.load = NULL,
	/* reports: collectors/cpu/report.c */
	.reports = NULL,
	/* replay views: collectors/cpu/view.c */
	.views = cpu_views,
	/* figures (issue 14): collectors/cpu/figures.c */
	.figures = NULL,
};
