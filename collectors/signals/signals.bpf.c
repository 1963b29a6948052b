// SPDX-License-Identifier: GPL-2.0
/* signals.bpf.c — the signals collector's kernel side: every signal sent to a thread of the
 * target (tp_btf/signal_generate, filtered on the receiving task) and every signal a thread
 * of the target takes (tp_btf/signal_deliver, filtered on the current task), counted in a
 * hash by (stage, signal, si_code, result, sender, receiving thread). Nothing is sent per
 * signal: the recorder reads the counts at each poll and sends what grew (record.c).
 *
 * The tracepoints fire only when a signal is sent or taken, so a target that is not
 * signalled costs nothing; every other process's signals cost one filter each.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>

#include "collectors/signals/signals.h"
#include "filter.bpf.h"

char LICENSE[] SEC("license") = "GPL";

__u64 signals_lost = 0; /* counts not kept: the hash was full */

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, SIGNALS_KEYS);
	__type(key, struct signals_key);
	__type(value, struct signals_val);
} signals_counts SEC(".maps");

/* si_code of INFO, which may be one of the kernel's two markers instead of a pointer. */
static __always_inline __s32 siginfo_code(struct kernel_siginfo *info)
{
	__u64 v = (__u64)info;
	__s32 code = 0;

	if (v == 0) /* SEND_SIG_NOINFO */
		return SIGNALS_SI_USER;
	if (v == 1) /* SEND_SIG_PRIV */
		return SIGNALS_SI_KERNEL;
	if (bpf_probe_read_kernel(&code, sizeof(code), &info->si_code))
		return SIGNALS_SI_KERNEL;
	return code;
}

static __always_inline void bump(struct signals_key *k, bool comm)
{
	struct signals_val *v = bpf_map_lookup_elem(&signals_counts, k), nv = {};
	__u64 now = bpf_ktime_get_ns();

	if (v) {
		__sync_fetch_and_add(&v->count, 1);
		v->last_ns = now;
		return;
	}
	nv.count = 1;
	nv.first_ns = now;
	nv.last_ns = now;
	if (comm)
		bpf_get_current_comm(nv.sender_comm, sizeof(nv.sender_comm));
	if (bpf_map_update_elem(&signals_counts, k, &nv, BPF_NOEXIST)) {
		/* another CPU made it between the lookup and here: count on it */
		v = bpf_map_lookup_elem(&signals_counts, k);
		if (v) {
			__sync_fetch_and_add(&v->count, 1);
			v->last_ns = now;
		} else {
			__sync_fetch_and_add(&signals_lost, 1);
		}
	}
}

SEC("tp_btf/signal_generate")
int BPF_PROG(sig_generate, int sig, struct kernel_siginfo *info, struct task_struct *task,
	     int group, int result)
{
	struct signals_key k = {};
	__u64 id, blocked = 0;

	if (!task || !ptop_task_is_target(task))
		return 0;
	id = bpf_get_current_pid_tgid();
	k.stage = SIGNALS_GENERATE;
	k.sig = sig;
	k.code = siginfo_code(info);
	k.result = (__u32)result;
	/* queued, but the receiving thread blocks it: it waits until unblocked */
	if (result == 0 && sig >= 1 && sig <= 64) {
		blocked = BPF_CORE_READ(task, blocked.sig[0]);
		if (blocked & (1ULL << (sig - 1)))
			k.result = SIGNALS_R_BLOCKED;
	}
	k.sender_tgid = (__u32)(id >> 32);
	k.sender_tid = (__u32)id;
	k.tgid = (__u32)BPF_CORE_READ(task, tgid);
	k.tid = (__u32)BPF_CORE_READ(task, pid);
	bump(&k, true);
	return 0;
}

SEC("tp_btf/signal_deliver")
int BPF_PROG(sig_deliver, int sig, struct kernel_siginfo *info, struct k_sigaction *ka)
{
	struct signals_key k = {};
	__u64 id = bpf_get_current_pid_tgid(), handler = 0;

	if (!ptop_current_is_target(id))
		return 0;
	if (ka)
		handler = (__u64)BPF_CORE_READ(ka, sa.sa_handler);
	k.stage = SIGNALS_DELIVER;
	k.sig = sig;
	k.code = siginfo_code(info);
	k.result = handler == 0	  ? SIGNALS_D_DEFAULT
		   : handler == 1 ? SIGNALS_D_IGNORE
				  : SIGNALS_D_HANDLER;
	k.tgid = (__u32)(id >> 32);
	k.tid = (__u32)id;
	bump(&k, false);
	return 0;
}
