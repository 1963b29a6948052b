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

/* A cgroup process's smaps_rollup read: "covered", "denied", "gone", "skipped";
 * "unspecified" otherwise. */
const char *capture_proc_mem_state_name(Ptop__V1__ProcMemState state);

/* The word of a heap lane: "uprobe", "preload", "go"; NULL when unspecified. */
const char *capture_heap_lane_name(Ptop__V1__HeapLane lane);

/* The lane of heap snapshot HS: the word of its lane_kind, or, in a capture written
 * before lane_kind (unspecified), its lane string as written; NULL when it has neither. */
const char *capture_heap_snapshot_lane(const Ptop__V1__HeapSnapshot *hs);

/* Which note a build-id is: "go" for the Go build ID note; "gnu" for NT_GNU_BUILD_ID
 * (kind 0) and for any kind this build does not know. */
const char *capture_build_id_kind_name(Ptop__V1__BuildIdKind kind);

/* Why a Mapping record was written: "start", "new", "gone", "end"; NULL otherwise. */
const char *capture_mapping_event_name(Ptop__V1__MappingEvent event);

/* A smaps_rollup counter by its /proc key: "Pss_Anon", ..., "SwapPss", "Locked"; NULL
 * for a field this build does not know. */
const char *capture_smaps_field_name(Ptop__V1__SmapsField field);

/* The counters smaps_rollup did not print, from SmapsRollup R, as a set of fields
 * (bit 1u << FIELD for each): its missing_fields, or, in a capture written before
 * them (none), its missing /proc keys (any case; the memory_sample column names
 * "anon" and "swap_pss" too). Names and fields this build does not know are left out. */
uint32_t capture_smaps_missing(const Ptop__V1__SmapsRollup *r);

/* How reading a file ended: "clean", "truncated", "corrupt", "io"; "none" while reading. */
const char *capture_end_name(enum capture_end end);

#endif
