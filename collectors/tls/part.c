/* part.c — the analyzer side of the tls collector (analyze/part.h): loader (load.c),
 * report (report.c), figures (figures.c). */
#include "analyze/part.h"

const struct an_part tls_part = { "tls", &tls_load, tls_reports, NULL, tls_figures };
