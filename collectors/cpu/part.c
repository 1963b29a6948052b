/* part.c — the analyzer side of the cpu collector (analyze/part.h): loader (load.c),
 * reports (report.c), replay tabs (view.c) and series (replay.c). */
#include "analyze/part.h"

const struct an_part cpu_part = { "cpu", &cpu_load, cpu_reports, cpu_views, NULL, .replay = &cpu_replay };
