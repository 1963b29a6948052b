/* names.h — the memory collector's wire words (collectors/memory/names.c): smaps_rollup
 * counters by /proc key,
 * spelled as proto/names.h spells the core's (lower-case, the enum's prefix dropped,
 * static strings), for its recorder, its loader and its reports. The enums are its
 * own (collectors/memory/memory.proto); proto/ names no collector.
 */
#ifndef PTOP_MEMORY_NAMES_H
#define PTOP_MEMORY_NAMES_H

#include <stdint.h>

#include "proto/capture.h"

/* A smaps_rollup counter by its /proc key: "Pss_Anon", ..., "SwapPss", "Locked"; NULL
 * for a field this build does not know. */
const char *capture_smaps_field_name(Ptop__V1__SmapsField field);

/* The counters smaps_rollup did not print, from SmapsRollup R, as a set of fields
 * (bit 1u << FIELD for each): its missing_fields, or, in a capture written before
 * them (none), its missing /proc keys (any case; the memory_sample column names
 * "anon" and "swap_pss" too). Names and fields this build does not know are left out. */
uint32_t capture_smaps_missing(const Ptop__V1__SmapsRollup *r);

#endif
