/* part.c — the analyzer side of the heap collector (analyze/part.h): loader (load.c),
 * reports (report.c), replay tabs (view.c) and series (replay.c), figures (figures.c). */
#include "analyze/part.h"

const struct an_part heap_part = { "heap", &heap_load, heap_reports, heap_views, heap_figures,
				    .stack_cols = heap_stack_cols, .profiles = heap_profiles,
				    .replay = &heap_replay };
