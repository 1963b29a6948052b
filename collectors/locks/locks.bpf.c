// SPDX-License-Identifier: GPL-2.0
/* locks.bpf.c — the locks collector's kernel side: the target's futex waits and wakes per
 * futex word, at raw_tp/sys_enter and sys_exit (this kernel has no per-syscall tracepoint
 * without tracefs): at entry, the word and the time of the call are kept by thread; at
 * exit the call is counted on its word (waits, time inside, log2 histogram, wakes and
 * threads woken) and on its thread. Nothing is sent per call: user space reads the totals.
 *
 * Every other process pays the target filter first at each syscall (one helper call); the
 * target's other syscalls one array look-up.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>

#include "collectors/locks/locks.h"
#include "filter.bpf.h"
#include "sysregs.bpf.h"

char LICENSE[] SEC("license") = "GPL";

#define FUTEX_CMD_MASK 0x7f /* op without FUTEX_PRIVATE_FLAG (128), FUTEX_CLOCK_REALTIME (256) */
#define E_AGAIN 11
#define E_TIMEDOUT 110

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, LK_MAX_NR);
	__type(key, __u32);
	__type(value, __u32);
} lk_kind SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, LK_INFLIGHT);
	__type(key, __u32);
	__type(value, struct lk_inflight);
} lk_inflight SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, LK_WORDS);
	__type(key, struct lk_word_key);
	__type(value, struct lk_word);
} lk_words SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, LK_TIDS);
	__type(key, struct lk_tid_key);
	__type(value, struct lk_tid);
} lk_tids SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, LK_CNT_MAX);
	__type(key, __u32);
	__type(value, __u64);
} lk_counters SEC(".maps");

static __always_inline void counter_inc(__u32 idx)
{
	__u64 *v = bpf_map_lookup_elem(&lk_counters, &idx);

	if (v)
		__sync_fetch_and_add(v, 1);
}

/* The role of futex(2) operation OP: a wait, a wake, or neither (0). */
static __always_inline __u32 futex_role(__u64 op)
{
	switch (op & FUTEX_CMD_MASK) {
	case 0:	 /* FUTEX_WAIT */
	case 6:	 /* FUTEX_LOCK_PI */
	case 9:	 /* FUTEX_WAIT_BITSET */
	case 11: /* FUTEX_WAIT_REQUEUE_PI */
	case 13: /* FUTEX_LOCK_PI2 */
		return LK_ROLE_WAIT;
	case 1:	 /* FUTEX_WAKE */
	case 3:	 /* FUTEX_REQUEUE */
	case 4:	 /* FUTEX_CMP_REQUEUE */
	case 5:	 /* FUTEX_WAKE_OP */
	case 7:	 /* FUTEX_UNLOCK_PI */
	case 10: /* FUTEX_WAKE_BITSET */
		return LK_ROLE_WAKE;
	default:
		return 0;
	}
}

SEC("raw_tp/sys_enter")
int lk_enter(struct bpf_raw_tracepoint_args *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct pt_regs *regs;
	struct lk_inflight in = {};
	__u32 nr, *kind, tid = (__u32)id;

	if (!ptop_current_is_target(id))
		return 0;
	nr = (__u32)ctx->args[1];
	if (nr >= LK_MAX_NR)
		return 0;
	kind = bpf_map_lookup_elem(&lk_kind, &nr);
	if (!kind || *kind == LK_K_NONE)
		return 0;
	regs = (struct pt_regs *)ctx->args[0];
	switch (*kind) {
	case LK_K_FUTEX:
		in.role = futex_role(ptop_sys_arg(regs, 2));
		in.uaddr = ptop_sys_arg(regs, 1);
		break;
	case LK_K_WAITV: { /* struct futex_waitv { u64 val; u64 uaddr; u32 flags, rsvd; } */
		__u64 w = ptop_sys_arg(regs, 1);

		in.role = LK_ROLE_WAIT;
		if (bpf_probe_read_user(&in.uaddr, sizeof(in.uaddr), (void *)(w + 8)))
			in.uaddr = 0;
		break;
	}
	case LK_K_WAIT2:
		in.role = LK_ROLE_WAIT;
		in.uaddr = ptop_sys_arg(regs, 1);
		break;
	default:
		in.role = LK_ROLE_WAKE;
		in.uaddr = ptop_sys_arg(regs, 1);
		break;
	}
	if (!in.role)
		return 0;
	in.start_ns = bpf_ktime_get_ns();
	if (bpf_map_update_elem(&lk_inflight, &tid, &in, BPF_ANY))
		counter_inc(LK_CNT_INFLIGHT_FULL);
	return 0;
}

SEC("raw_tp/sys_exit")
int lk_exit(struct bpf_raw_tracepoint_args *ctx)
{
	__u64 id = bpf_get_current_pid_tgid(), dur;
	__u32 tid = (__u32)id, tgid = (__u32)(id >> 32);
	struct lk_inflight *ip, in;
	struct lk_word_key wk = {};
	struct lk_tid_key tk = {};
	struct lk_word *w, nw = {};
	struct lk_tid *t, nt = {};
	long ret;

	if (!ptop_current_is_target(id))
		return 0;
	ip = bpf_map_lookup_elem(&lk_inflight, &tid);
	if (!ip)
		return 0;
	in = *ip;
	bpf_map_delete_elem(&lk_inflight, &tid);
	ret = (long)ctx->args[1];
	dur = bpf_ktime_get_ns() - in.start_ns;

	wk.uaddr = in.uaddr;
	wk.tgid = tgid;
	w = bpf_map_lookup_elem(&lk_words, &wk);
	if (!w) {
		bpf_map_update_elem(&lk_words, &wk, &nw, BPF_NOEXIST);
		w = bpf_map_lookup_elem(&lk_words, &wk);
	}
	if (!w) {
		counter_inc(LK_CNT_WORD_FULL);
		return 0;
	}
	if (in.role == LK_ROLE_WAIT) {
		__u64 b = ptop_log2_bucket(dur, LK_HIST);

		__sync_fetch_and_add(&w->waits, 1);
		__sync_fetch_and_add(&w->wait_ns, dur);
		if (dur > w->wait_max_ns)
			w->wait_max_ns = dur;
		if (ret == -E_AGAIN)
			__sync_fetch_and_add(&w->eagain, 1);
		else if (ret == -E_TIMEDOUT)
			__sync_fetch_and_add(&w->timeouts, 1);
		__sync_fetch_and_add(&w->hist[b], 1);
	} else {
		__sync_fetch_and_add(&w->wakes, 1);
		if (ret > 0)
			__sync_fetch_and_add(&w->woken, (__u64)ret);
	}

	tk.uaddr = in.uaddr;
	tk.tgid = tgid;
	tk.tid = tid;
	tk.role = in.role;
	t = bpf_map_lookup_elem(&lk_tids, &tk);
	if (!t) {
		bpf_map_update_elem(&lk_tids, &tk, &nt, BPF_NOEXIST);
		t = bpf_map_lookup_elem(&lk_tids, &tk);
	}
	if (t) {
		__sync_fetch_and_add(&t->calls, 1);
		__sync_fetch_and_add(&t->ns, dur);
	} else {
		counter_inc(LK_CNT_TID_FULL);
	}

	return 0;
}
