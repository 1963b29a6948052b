/* part.c — the analyzer side of the cpuprof collector (analyze/part.h): loader (load.c),
 * figures (figures.c). */
#include "analyze/part.h"

const struct an_part cpuprof_part = { "cpuprof", &cpuprof_load, NULL, NULL, cpuprof_figures, .stack_cols = cpuprof_stack_cols, .profiles = cpuprof_profiles };
