/* part.c — the analyzer side of the fds collector (analyze/part.h): loader (load.c), report
 * (report.c), replay tab and its series (view.c), figures (figures.c). */
#include "analyze/part.h"

const struct an_part fds_part = {"fds", &fds_load, fds_reports, fds_views, fds_figures, .replay = &fds_replay};
