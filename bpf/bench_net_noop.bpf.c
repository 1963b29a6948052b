// SPDX-License-Identifier: GPL-2.0
/* bench_net_noop.bpf.c — the overhead floor of the net collector for bench/: programs on
 * the tracepoints it uses on every send and receive (tp_btf sock_send_length,
 * sock_recv_length) that only return. What a target pays with them attached is the cost
 * of the tracepoints themselves. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "GPL";

SEC("tp_btf/sock_send_length")
int BPF_PROG(noop_send, struct sock *sk, int ret, int flags)
{
	return 0;
}

SEC("tp_btf/sock_recv_length")
int BPF_PROG(noop_recv, struct sock *sk, int ret, int flags)
{
	return 0;
}
