// SPDX-License-Identifier: GPL-2.0
/* bench_sched_noop.bpf.c — the threads collector's overhead floor for bench/: programs on
 * the tracepoints it uses at every context switch and wakeup (tp_btf sched_switch and
 * sched_wakeup) that only return. What a target pays with these attached is the cost of
 * the tracepoints themselves (bench/overhead_threads.sh). */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "GPL";

SEC("tp_btf/sched_switch")
int BPF_PROG(noop_sched_switch)
{
	return 0;
}

SEC("tp_btf/sched_wakeup")
int BPF_PROG(noop_sched_wakeup)
{
	return 0;
}
