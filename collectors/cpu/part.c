/* part.c — the analyzer side of the cpu collector (analyze/part.h). */
#include <stddef.h>

#include "analyze/part.h"

extern const struct an_load cpu_load;
extern const struct an_report *const cpu_reports[];
extern const struct replay_view *const cpu_views[]; /* view.c */

const struct an_part cpu_part = {
	.name = "cpu",
	/* loader: collectors/cpu/load.c */
	.load = &cpu_load,
	/* reports: collectors/cpu/report.c */
	.reports = cpu_reports,
	/* replay views: collectors/cpu/view.c */
	.views = cpu_views,
	/* figures (issue 14): collectors/cpu/figures.c */
	.figures = NULL,
};
