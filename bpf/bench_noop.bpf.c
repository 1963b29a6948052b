// SPDX-License-Identifier: GPL-2.0
/* bench_noop.bpf.c — the overhead floor for bench/: programs on the same tracepoints
 * as the syscalls collector (raw_tp sys_enter/sys_exit) that only return. What a
 * target pays with these attached is the cost of the tracepoints themselves; the
 * collectors are measured against it. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "GPL";

SEC("raw_tp/sys_enter")
int noop_sys_enter(struct bpf_raw_tracepoint_args *ctx)
{
	return 0;
}

SEC("raw_tp/sys_exit")
int noop_sys_exit(struct bpf_raw_tracepoint_args *ctx)
{
	return 0;
}
