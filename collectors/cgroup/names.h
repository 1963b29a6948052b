/* names.h — the cgroup collector's wire words (collectors/cgroup/names.c): a process's
 * smaps_rollup read,
 * spelled as proto/names.h spells the core's (lower-case, the enum's prefix dropped,
 * static strings), for its recorder, its loader and its reports. The enums are its
 * own (collectors/cgroup/cgroup.proto); proto/ names no collector.
 */
#ifndef PTOP_CGROUP_NAMES_H
#define PTOP_CGROUP_NAMES_H

#include <stdint.h>

#include "proto/capture.h"

/* A cgroup process's smaps_rollup read: "covered", "denied", "gone", "skipped";
 * "unspecified" otherwise. */
const char *capture_proc_mem_state_name(Ptop__V1__ProcMemState state);

#endif
