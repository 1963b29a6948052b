/* part.c — the analyzer side of the fds collector (analyze/part.h): loader (load.c), report
 * (report.c), replay tab and its series (view.c), figures (figures.c). */
#include "analyze/part.h"

const struct an_part fds_part = {"fds", &fds_load, fds_reports, fds_views, fds_figures,
				  .stack_cols = fds_stack_cols, .replay = &fds_replay};
