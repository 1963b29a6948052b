/* part.c — the analyzer side of the proccontext collector (analyze/part.h): loader
 * (load.c). */
#include "analyze/part.h"

const struct an_part proccontext_part = { "proccontext", &proccontext_load, NULL, NULL, NULL };
