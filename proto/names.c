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
