/* part.c — the analyzer side of the cgroup collector (analyze/part.h): loader (load.c),
 * reports (report.c), replay tabs (view.c) and series (replay.c), figures (figures.c). */
#include "analyze/part.h"

const struct an_part cgroup_part = { "cgroup", &cgroup_load, cgroup_reports, cgroup_views, cgroup_figures, .replay = &cgroup_replay };
