// SPDX-License-Identifier: GPL-2.0
/* bench_proc_noop.bpf.c — the overhead floor of the signals and lifecycle collectors
 * (bench/overhead_proc.sh): programs on the tracepoints they use (tp_btf signal_generate,
 * signal_deliver, sched_process_fork, sched_process_exec, sched_process_exit) that only
 * return. What a target pays with these attached is the price of the tracepoints. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "GPL";

SEC("tp_btf/signal_generate")
int BPF_PROG(noop_sig_generate)
{
	return 0;
}

SEC("tp_btf/signal_deliver")
int BPF_PROG(noop_sig_deliver)
{
	return 0;
}

SEC("tp_btf/sched_process_fork")
int BPF_PROG(noop_fork)
{
	return 0;
}

SEC("tp_btf/sched_process_exec")
int BPF_PROG(noop_exec)
{
	return 0;
}

SEC("tp_btf/sched_process_exit")
int BPF_PROG(noop_exit)
{
	return 0;
}
