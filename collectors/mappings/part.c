/* part.c — the analyzer side of the mappings collector (analyze/part.h): its mappings are
 * the capture's own records, loaded by the core for every collector's stacks; it lists the
 * mappings that came or went on the replay timeline (replay.c). */
#include "analyze/part.h"

const struct an_part mappings_part = { "mappings", NULL, NULL, NULL, NULL, .replay = &mappings_replay };
