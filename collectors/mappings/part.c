/* part.c — the analyzer side of the mappings collector (analyze/part.h): nothing of its
 * own: its mappings are the capture's own records, loaded by the core for every
 * collector's stacks. */
#include "analyze/part.h"

const struct an_part mappings_part = { "mappings", NULL, NULL, NULL, NULL, .replay = &mappings_replay };
