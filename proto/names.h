/* names.h — the words ptop prints and stores for the capture schema's enums.
 *
 * One spelling for the recorder's messages, the analyzer's tables and the man
 * pages: lower-case, the enum's prefix dropped ("active", "ebpf", "target_exit").
 * The strings are static.
 */
#ifndef PTOP_NAMES_H
#define PTOP_NAMES_H

#include "proto/capture.h"

/* "pid", "cgroup", "command"; "unspecified" for any other value. */
const char *capture_mode_name(Ptop__V1__TargetMode mode);

/* "active", "disabled", "failed", "unsupported"; "unspecified" otherwise. */
const char *capture_probe_state_name(Ptop__V1__ProbeState state);

/* "ebpf", "proc", "preload"; NULL when the source is unspecified (the probe never chose one). */
const char *capture_probe_source_name(Ptop__V1__ProbeSource source);

/* "target_exit", "signal", "duration", "error", "salvaged"; "unspecified" otherwise. */
const char *capture_end_reason_name(Ptop__V1__EndReason reason);

/* Which note a build-id is: "go" for the Go build ID note; "gnu" for NT_GNU_BUILD_ID
 * (kind 0) and for any kind this build does not know. */
const char *capture_build_id_kind_name(Ptop__V1__BuildIdKind kind);

/* Why a Mapping record was written: "start", "new", "gone", "end"; NULL otherwise. */
const char *capture_mapping_event_name(Ptop__V1__MappingEvent event);

/* How reading a file ended: "clean", "truncated", "corrupt", "io"; "none" while reading. */
const char *capture_end_name(enum capture_end end);

#endif
