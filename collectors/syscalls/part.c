/* part.c — the analyzer side of the syscalls collector (analyze/part.h). */
#include <stddef.h>

#include "analyze/part.h"

extern const struct an_load syscalls_load;
extern const struct an_report *const syscalls_reports[];
extern const struct replay_view *const syscalls_views[]; /* view.c */

const struct an_part syscalls_part = {
	.name = "syscalls",
	/* loader: collectors/syscalls/load.c */
	.load = &syscalls_load,
	/* reports: collectors/syscalls/report.c */
	.reports = syscalls_reports,
	/* replay views: collectors/syscalls/view.c */
	.views = syscalls_views,
	/* figures (issue 14): collectors/syscalls/figures.c */
	.figures = NULL,
};
