/* names.c — the heap collector's wire words (collectors/heap/names.h). */
#include "collectors/heap/names.h"

const char *capture_heap_lane_name(Ptop__V1__HeapLane lane)
{
	switch (lane) {
	case PTOP__V1__HEAP_LANE__HEAP_LANE_UPROBE:
		return "uprobe";
	case PTOP__V1__HEAP_LANE__HEAP_LANE_PRELOAD:
		return "preload";
	case PTOP__V1__HEAP_LANE__HEAP_LANE_GO:
		return "go";
	default:
		return NULL;
	}
}

const char *capture_heap_snapshot_lane(const Ptop__V1__HeapSnapshot *hs)
{
	if (hs->lane_kind != PTOP__V1__HEAP_LANE__HEAP_LANE_UNSPECIFIED)
		return capture_heap_lane_name(hs->lane_kind);
	return hs->lane;
}
