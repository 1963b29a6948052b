/* part.c — the analyzer side of the lifecycle collector (analyze/part.h): loader (load.c),
 * report tree (report.c), figures (figures.c), its timeline events (replay.c). */
#include "analyze/part.h"

const struct an_part lifecycle_part = { "lifecycle", &lifecycle_load, lifecycle_reports, NULL,
					lifecycle_figures, .replay = &lifecycle_replay };
