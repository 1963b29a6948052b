/* part.c — the analyzer side of the proccontext collector (analyze/part.h). */
#include <stddef.h>

#include "analyze/part.h"

extern const struct an_load proccontext_load;

const struct an_part proccontext_part = {
	.name = "proccontext",
	/* loader: collectors/proccontext/load.c */
	.load = &proccontext_load,
	/* reports: collectors/proccontext/report.c */
	.reports = NULL,
	/* replay views: collectors/proccontext/view.c */
	.views = NULL,
	/* figures (issue 14): collectors/proccontext/figures.c */
	.figures = NULL,
};
