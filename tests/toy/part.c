/* part.c — the analyzer side of the toy collector (analyze/part.h): what
 * collectors.def's COLLECTOR(toy) names for ptop-analyze (analyze/parts.c).
 * Each member points into the file of this folder that owns it; NULL: none.
 */
#include <stddef.h>

#include "analyze/part.h"

extern const struct an_load toy_load;
extern const struct an_report *const toy_reports[];
extern const struct replay_view *const toy_views[];

const struct an_part toy_part = {
	.name = "toy", /* as its collector_ops.name: the probe in the capture's probe set */
	/* loader: load.c */
	.load = &toy_load,
	/* reports: report.c */
	.reports = toy_reports,
	/* replay views: view.c */
	.views = toy_views,
	/* figures (issue 14): figures.c */
	.figures = NULL,
};
