/* part.c — the analyzer side of the io collector (analyze/part.h): loader (load.c), report
 * (report.c), replay tab and its series (view.c), figures (figures.c). */
#include "analyze/part.h"

const struct an_part io_part = {"io", &io_load, io_reports, io_views, io_figures, .replay = &io_replay};
