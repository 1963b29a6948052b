/* part.c — the analyzer side of the threads collector (analyze/part.h): loader (load.c),
 * `report threads` (report.c), figures (figures.c), the Threads tab (view.c), the off-CPU
 * stack columns and `export --profile offcpu` (stacks.c). */
#include "analyze/part.h"

const struct an_part threads_part = { "threads", &threads_load, threads_reports, threads_views, threads_figures, .stack_cols = threads_stack_cols, .profiles = threads_profiles, .replay = &threads_replay };
