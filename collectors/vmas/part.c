/* part.c — the analyzer side of the vmas collector (analyze/part.h). */
#include <stddef.h>

#include "analyze/part.h"

extern const struct an_load vmas_load;
extern const struct an_report *const vmas_reports[];

const struct an_part vmas_part = {
	.name = "vmas",
	/* loader: collectors/vmas/load.c */
	.load = &vmas_load,
	/* reports: collectors/vmas/report.c */
	.reports = vmas_reports,
	/* replay views: collectors/vmas/view.c */
	.views = NULL,
	/* figures (issue 14): collectors/vmas/figures.c */
	.figures = NULL,
};
