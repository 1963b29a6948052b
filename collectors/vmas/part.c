/* part.c — the analyzer side of the vmas collector (analyze/part.h): loader (load.c),
 * reports (report.c), figures (figures.c), its replay series (replay.c: snapshots for the
 * Memory tab, on the timeline). */
#include "analyze/part.h"

const struct an_part vmas_part = { "vmas", &vmas_load, vmas_reports, NULL, vmas_figures, .replay = &vmas_replay };
