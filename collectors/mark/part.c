/* part.c — the analyzer side of the mark collector (analyze/part.h): loader (load.c),
 * figures (figures.c). */
#include "analyze/part.h"

const struct an_part mark_part = { "mark", &mark_load, NULL, NULL, mark_figures };
