/* part.c — the analyzer side of the threads collector (analyze/part.h): loader (load.c),
 * `report threads` (report.c), figures (figures.c), the Threads tab (view.c). */
#include "analyze/part.h"

const struct an_part threads_part = { "threads", &threads_load, threads_reports, threads_views, threads_figures };
