/* part.c — the analyzer side of the toy collector (analyze/part.h): loader (load.c),
 * report (report.c), replay tab and series (view.c), figures (figures.c), stack column and profile
 * (stacks.c). */
#include "analyze/part.h"

const struct an_part toy_part = { "toy", &toy_load, toy_reports, toy_views, toy_figures,
				   .stack_cols = toy_stack_cols, .profiles = toy_profiles,
				   .replay = &toy_replay };
