/* part.c — the analyzer side of the goalloc collector (analyze/part.h): nothing of its
 * own: its snapshots are heap payloads, loaded and shown by heap. */
#include "analyze/part.h"

const struct an_part goalloc_part = { "goalloc", NULL, NULL, NULL, NULL };
