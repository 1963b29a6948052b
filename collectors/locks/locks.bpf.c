// SPDX-License-Identifier: GPL-2.0
/* locks.bpf.c — the locks collector's kernel side: the target's futex waits and wakes per
 * futex word, at raw_tp/sys_enter and sys_exit (this kernel has no per-syscall tracepoint
 * without tracefs): at entry, the word, the time and (for a wait) the user stack of the
 * call are kept by thread; at exit the call is counted on its word (waits, time inside,
 * log2 histogram, wakes and threads woken), on its thread, and a wait on its call site
 * (word, stack: a frame-pointer walk, or a copy of the stack's top unwound offline, sent
 * once per key through lk_copies). Nothing else is sent per call: user space reads the
 * totals at each poll and sends what grew; the longest wait is kept per reading's epoch
 * (struct lk_word).
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
#include "stackmap.bpf.h"
#include "stackcopy.bpf.h"

char LICENSE[] SEC("license") = "GPL";

/* how the waiters' user stacks are taken: LK_USER_FP or LK_USER_COPY */
const volatile __u32 lk_user_stacks = LK_USER_FP;

/* the reading's epoch: user space adds one before each reading (struct lk_word) */
__u64 lk_epoch = 0;

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
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, LK_SITES);
	__type(key, struct lk_site_key);
	__type(value, struct lk_site);
} lk_sites SEC(".maps");

SM_STACK_MAP(LK_SITES, BPF_F_NO_PREALLOC) lk_stack_map SEC(".maps");

/* the frame-pointer walk's buffer, one per CPU */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct sm_ips);
} lk_walk SEC(".maps");

/* LK_USER_COPY: where a wait's stack copy is made, one per CPU */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct sc_copy);
} lk_copy_buf SEC(".maps");

/* the copies sent already, by key: a copy goes out once */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, LK_COPIED_ENTRIES);
	__type(key, __u64);
	__type(value, __u8);
} lk_copied SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, LK_COPY_RING_BYTES);
} lk_copies SEC(".maps");

/* the target's VMAs the copies have met (user space seeds them at the start) */
SC_VMAS_MAP(4) lk_vmas SEC(".maps");

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

/* Copy the user stack of the call (REGS: the registers it was made with), key *SK by the
 * copy and send it once per key (sc_take_send). */
static __always_inline long take_copy(struct pt_regs *regs, __u64 id, struct sm_key *sk)
{
	__u32 zero = 0;
	struct sc_copy *c = bpf_map_lookup_elem(&lk_copy_buf, &zero);
	long err;

	if (!c)
		return -ENOENT;
	err = sc_take_send(c, &lk_vmas, &lk_copied, &lk_copies, regs, id, sk);
	if (err == -ENOSPC)
		counter_inc(LK_CNT_COPY_LOST);
	return err;
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
	if (in.role == LK_ROLE_WAIT) {
		long err;

		if (lk_user_stacks == LK_USER_COPY) {
			err = take_copy(regs, id, &in.stack);
		} else {
			__u32 zero = 0;
			struct sm_ips *buf = bpf_map_lookup_elem(&lk_walk, &zero);

			err = buf ? sm_take(ctx, &lk_stack_map, buf, BPF_F_USER_STACK, &in.stack)
				  : -ENOENT;
		}
		if (err && err != -ENOSPC) {
			in.stack.hash = 0;
			counter_inc(LK_CNT_STACK_FAIL);
		}
	}
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
		__u64 e = *(volatile __u64 *)&lk_epoch, slot = e & 1;

		__sync_fetch_and_add(&w->waits, 1);
		__sync_fetch_and_add(&w->wait_ns, dur);
		if (w->max_epoch[slot] != e) { /* the first wait of epoch E: its slot starts again */
			w->max_epoch[slot] = e;
			w->max_ns[slot] = dur;
		} else if (dur > w->max_ns[slot]) {
			w->max_ns[slot] = dur;
		}
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

	if (in.role == LK_ROLE_WAIT && in.stack.hash) {
		struct lk_site_key sk = {};
		struct lk_site *s, ns = {};

		sk.uaddr = in.uaddr;
		sk.tgid = tgid;
		sk.stack = in.stack;
		s = bpf_map_lookup_elem(&lk_sites, &sk);
		if (!s) {
			bpf_map_update_elem(&lk_sites, &sk, &ns, BPF_NOEXIST);
			s = bpf_map_lookup_elem(&lk_sites, &sk);
		}
		if (s) {
			__sync_fetch_and_add(&s->waits, 1);
			__sync_fetch_and_add(&s->ns, dur);
		} else {
			counter_inc(LK_CNT_SITE_FULL);
		}
	}

	return 0;
}
