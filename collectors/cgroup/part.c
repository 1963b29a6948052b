/* part.c — the analyzer side of the cgroup collector (analyze/part.h). */
#include <stddef.h>

#include "analyze/part.h"

extern const struct an_load cgroup_load;
extern const struct an_report *const cgroup_reports[];
extern const struct replay_view *const cgroup_views[]; /* view.c */

const struct an_part cgroup_part = {
	.name = "cgroup",
	/* loader: collectors/cgroup/load.c */
	.load = &cgroup_load,
	/* reports: collectors/cgroup/report.c */
	.reports = cgroup_reports,
	/* replay views: collectors/cgroup/view.c */
	.views = cgroup_views,
	/* figures (issue 14): collectors/cgroup/figures.c */
	.figures = NULL,
};
