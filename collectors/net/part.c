/* part.c — the analyzer side of the net collector (analyze/part.h): loader (load.c),
 * report (report.c), replay tab and its series (view.c), figures (figures.c). */
#include "analyze/part.h"

const struct an_part net_part = {"net", &net_load, net_reports, net_views, net_figures, .replay = &net_replay};
