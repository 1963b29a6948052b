/* part.c — the analyzer side of the memory collector (analyze/part.h): loader (load.c),
 * reports (report.c), replay tabs (view.c) and series (replay.c), figures (figures.c). */
#include "analyze/part.h"

const struct an_part memory_part = { "memory", &memory_load, memory_reports, memory_views, memory_figures, .replay = &memory_replay };
