/* names.c — the words for the capture schema's enums (see names.h). */
#include <stddef.h>
#include <stdint.h>
#include <strings.h>

#include "proto/names.h"

const char *capture_mode_name(Ptop__V1__TargetMode mode)
{
	switch (mode) {
	case PTOP__V1__TARGET_MODE__TARGET_MODE_PID:
		return "pid";
	case PTOP__V1__TARGET_MODE__TARGET_MODE_CGROUP:
		return "cgroup";
	case PTOP__V1__TARGET_MODE__TARGET_MODE_COMMAND:
		return "command";
	default:
		return "unspecified";
	}
}

const char *capture_probe_state_name(Ptop__V1__ProbeState state)
{
	switch (state) {
	case PTOP__V1__PROBE_STATE__PROBE_STATE_ACTIVE:
		return "active";
	case PTOP__V1__PROBE_STATE__PROBE_STATE_DISABLED:
		return "disabled";
	case PTOP__V1__PROBE_STATE__PROBE_STATE_FAILED:
		return "failed";
	case PTOP__V1__PROBE_STATE__PROBE_STATE_UNSUPPORTED:
		return "unsupported";
	case PTOP__V1__PROBE_STATE__PROBE_STATE_STANDBY:
		return "standby";
	default:
		return "unspecified";
	}
}

const char *capture_probe_source_name(Ptop__V1__ProbeSource source)
{
	switch (source) {
	case PTOP__V1__PROBE_SOURCE__PROBE_SOURCE_EBPF:
		return "ebpf";
	case PTOP__V1__PROBE_SOURCE__PROBE_SOURCE_PROC:
		return "proc";
	case PTOP__V1__PROBE_SOURCE__PROBE_SOURCE_PRELOAD:
		return "preload";
	default:
		return NULL;
	}
}

const char *capture_end_reason_name(Ptop__V1__EndReason reason)
{
	switch (reason) {
	case PTOP__V1__END_REASON__END_REASON_TARGET_EXIT:
		return "target_exit";
	case PTOP__V1__END_REASON__END_REASON_SIGNAL:
		return "signal";
	case PTOP__V1__END_REASON__END_REASON_DURATION:
		return "duration";
	case PTOP__V1__END_REASON__END_REASON_ERROR:
		return "error";
	case PTOP__V1__END_REASON__END_REASON_SALVAGED:
		return "salvaged";
	default:
		return "unspecified";
	}
}

const char *capture_proc_mem_state_name(Ptop__V1__ProcMemState state)
{
	switch (state) {
	case PTOP__V1__PROC_MEM_STATE__PROC_MEM_STATE_COVERED:
		return "covered";
	case PTOP__V1__PROC_MEM_STATE__PROC_MEM_STATE_DENIED:
		return "denied";
	case PTOP__V1__PROC_MEM_STATE__PROC_MEM_STATE_GONE:
		return "gone";
	case PTOP__V1__PROC_MEM_STATE__PROC_MEM_STATE_SKIPPED:
		return "skipped";
	default:
		return "unspecified";
	}
}

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

const char *capture_build_id_kind_name(Ptop__V1__BuildIdKind kind)
{
	return kind == PTOP__V1__BUILD_ID_KIND__BUILD_ID_KIND_GO ? "go" : "gnu";
}

const char *capture_mapping_event_name(Ptop__V1__MappingEvent event)
{
	switch (event) {
	case PTOP__V1__MAPPING_EVENT__MAPPING_EVENT_START:
		return "start";
	case PTOP__V1__MAPPING_EVENT__MAPPING_EVENT_NEW:
		return "new";
	case PTOP__V1__MAPPING_EVENT__MAPPING_EVENT_GONE:
		return "gone";
	case PTOP__V1__MAPPING_EVENT__MAPPING_EVENT_END:
		return "end";
	default:
		return NULL;
	}
}

/* Each SmapsField's /proc key, and the memory_sample column name that captures may
 * also carry in SmapsRollup.missing (where it is not the key in another case). */
static const struct {
	Ptop__V1__SmapsField field;
	const char *key, *column;
} smaps_fields[] = {
	{ PTOP__V1__SMAPS_FIELD__SMAPS_FIELD_PSS_ANON, "Pss_Anon", NULL },
	{ PTOP__V1__SMAPS_FIELD__SMAPS_FIELD_PSS_FILE, "Pss_File", NULL },
	{ PTOP__V1__SMAPS_FIELD__SMAPS_FIELD_PSS_SHMEM, "Pss_Shmem", NULL },
	{ PTOP__V1__SMAPS_FIELD__SMAPS_FIELD_SHARED_CLEAN, "Shared_Clean", NULL },
	{ PTOP__V1__SMAPS_FIELD__SMAPS_FIELD_SHARED_DIRTY, "Shared_Dirty", NULL },
	{ PTOP__V1__SMAPS_FIELD__SMAPS_FIELD_PRIVATE_CLEAN, "Private_Clean", NULL },
	{ PTOP__V1__SMAPS_FIELD__SMAPS_FIELD_PRIVATE_DIRTY, "Private_Dirty", NULL },
	{ PTOP__V1__SMAPS_FIELD__SMAPS_FIELD_ANONYMOUS, "Anonymous", "anon" },
	{ PTOP__V1__SMAPS_FIELD__SMAPS_FIELD_SWAP, "Swap", NULL },
	{ PTOP__V1__SMAPS_FIELD__SMAPS_FIELD_SWAP_PSS, "SwapPss", "swap_pss" },
	{ PTOP__V1__SMAPS_FIELD__SMAPS_FIELD_LOCKED, "Locked", NULL },
};

#define N_SMAPS_FIELDS (sizeof(smaps_fields) / sizeof(smaps_fields[0]))

const char *capture_smaps_field_name(Ptop__V1__SmapsField field)
{
	for (size_t i = 0; i < N_SMAPS_FIELDS; i++)
		if (smaps_fields[i].field == field)
			return smaps_fields[i].key;
	return NULL;
}

uint32_t capture_smaps_missing(const Ptop__V1__SmapsRollup *r)
{
	uint32_t set = 0;

	for (size_t k = 0; k < r->n_missing_fields; k++)
		if (capture_smaps_field_name(r->missing_fields[k]))
			set |= 1u << r->missing_fields[k];
	if (r->n_missing_fields)
		return set;
	for (size_t k = 0; k < r->n_missing; k++) {
		if (!r->missing[k])
			continue;
		for (size_t i = 0; i < N_SMAPS_FIELDS; i++)
			if (!strcasecmp(r->missing[k], smaps_fields[i].key) ||
			    (smaps_fields[i].column &&
			     !strcasecmp(r->missing[k], smaps_fields[i].column)))
				set |= 1u << smaps_fields[i].field;
	}
	return set;
}

const char *capture_end_name(enum capture_end end)
{
	switch (end) {
	case CAPTURE_END_CLEAN:
		return "clean";
	case CAPTURE_END_TRUNCATED:
		return "truncated";
	case CAPTURE_END_CORRUPT:
		return "corrupt";
	case CAPTURE_END_IO:
		return "io";
	default:
		return "none";
	}
}
