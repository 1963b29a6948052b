/* part.c — the analyzer side of the signals collector (analyze/part.h): loader (load.c),
 * report (report.c), figures (figures.c), its timeline events (replay.c). */
#include "analyze/part.h"

const struct an_part signals_part = { "signals", &signals_load, signals_reports, NULL,
				      signals_figures, .replay = &signals_replay };
