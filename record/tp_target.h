/* tp_target.h — the checks every tracepoint collector (eBPF programs on the sched,
 * signal or syscall tracepoints, filtered to the target process or cgroup) makes first,
 * alike; the uprobe collectors' are in record/uprobe_target.h.
 *
 * A collector's check(): tp_target__precheck(); when it says PROBE_STATE_UNSPECIFIED,
 * go on with the collector's own checks and detail.
 */
#ifndef PTOP_RECORD_TP_TARGET_H
#define PTOP_RECORD_TP_TARGET_H

#include "record/collector.h"

/* Sets the source (eBPF) and clears the reason; then not with --no-ebpf (the reason
 * NO_EBPF_WHY), the privileges to trace, and a process or a cgroup to follow (or
 * --caps). Returns PROBE_STATE_UNSUPPORTED with c->reason when one of these fails, else
 * PROBE_STATE_UNSPECIFIED. */
Ptop__V1__ProbeState tp_target__precheck(struct collector *c, const char *no_ebpf_why);

#endif
