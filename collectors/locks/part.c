/* part.c — the analyzer side of the locks collector (analyze/part.h): loader (load.c),
 * report locks (report.c), figures (figures.c). */
#include "analyze/part.h"

const struct an_part locks_part = { "locks", &locks_load, locks_reports, NULL, locks_figures };
