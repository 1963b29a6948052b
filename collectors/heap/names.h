/* names.h — the heap collector's wire words (collectors/heap/names.c): its lanes,
 * spelled as proto/names.h spells the core's (lower-case, the enum's prefix dropped,
 * static strings), for its recorder, its loader and its reports. The enums are its
 * own (collectors/heap/heap.proto); proto/ names no collector.
 */
#ifndef PTOP_HEAP_NAMES_H
#define PTOP_HEAP_NAMES_H

#include <stdint.h>

#include "proto/capture.h"

/* The word of a heap lane: "uprobe", "preload", "go"; NULL when unspecified. */
const char *capture_heap_lane_name(Ptop__V1__HeapLane lane);

/* The lane of heap snapshot HS: the word of its lane_kind, or, in a capture written
 * before lane_kind (unspecified), its lane string as written; NULL when it has neither. */
const char *capture_heap_snapshot_lane(const Ptop__V1__HeapSnapshot *hs);

#endif
