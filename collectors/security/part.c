/* part.c — the analyzer side of the security collector (analyze/part.h): loader (load.c). */
#include "analyze/part.h"

const struct an_part security_part = {"security", &security_load, NULL, NULL, NULL};
