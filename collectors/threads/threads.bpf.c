// SPDX-License-Identifier: GPL-2.0
/* threads.bpf.c — the threads collector's eBPF lane: per thread of the target, on-CPU and
 * off-CPU time by reason, voluntary and involuntary switches, its CPU and migrations
 * (tp_btf/sched_switch, tp_btf/sched_wakeup), threads created, exited and renamed
 * (sched_process_fork, sched_process_exit, task_rename, through a ring buffer), and where
 * threads block: at each switch-out of a target thread that leaves the CPU to sleep or
 * to block (not preempted), its user and kernel stacks are taken (kernel: a frame-pointer
 * walk, bpf/stackmap.bpf.h; user: the same, or under --user-stacks dwarf|auto a copy of
 * the top of its user stack from its user registers, bpf/stackcopy.bpf.h, unwound
 * offline); at its switch-in the time blocked (switch-out to wakeup) is added to the
 * (thread, reason, user stack, kernel stack) entry of the aggregation map, unless it is
 * shorter than offcpu_min_ns (--offcpu-min: then counted as skipped).
 *
 * Copies: sched_switch runs in the switched-out thread's context (prev is current), so
 * its user memory is readable there and only there (reading another task's needs a
 * sleepable program): the copy is taken at every voluntary switch-out, before the
 * block's length is known. A copy's key is a hash of the words an unwinder needs
 * (return addresses, stack addresses relative to sp; every other word zeroed), so the
 * blocks of one call path share a key and are aggregated in the kernel as the walks
 * are; each key is sent once (thr_copied), through thr_copies, whose size bounds the
 * new copies per poll (the rest: copy_lost, aggregated without a user stack). Where
 * each block's copy differs, each is its own entry (the map's size bounds them:
 * off_map_full) and ptop-analyze merges them by frames after unwinding.
 *
 * The aggregation map has two sets that take turns, as cpuprof's: the program adds into
 * set thr_set, user space switches it at each poll, waits an RCU grace period, then
 * reads and deletes the old set's entries (collectors/threads/record.c).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>

#include "collectors/threads/threads.h"
#include "filter.bpf.h"
#include "stackmap.bpf.h"
#include "stackcopy.bpf.h"

char LICENSE[] SEC("license") = "GPL";

#define TASK_UNINTERRUPTIBLE_ 0x2
#define TASK_DEAD_ 0x80
#define TASK_NOLOAD_ 0x400

const volatile __u64 offcpu_min_ns = 0; /* --offcpu-min */
const volatile bool take_stacks = true;	/* false: --offcpu-min off (no stacks) */
const volatile __u32 thr_user_stacks = THR_USER_FP; /* or THR_USER_COPY */
/* bpf_find_vma calls a copy may make (bpf/stackcopy.h): interrupts are off in
 * sched_switch, so each call's unlock is an irq_work, a self-IPI (a VM exit on a
 * virtual machine: about 10 us per switch measured, bench/README.md). 0 for a pid, whose
 * VMA table user space fills at each poll (a word in no VMA of a complete table is
 * zeroed without a lookup; one in no VMA known is kept); SC_LOOKUPS_PERF for a cgroup,
 * whose processes' tables are learned. */
const volatile __u32 thr_lookups = 0;

__u64 attach_ns = 0; /* CLOCK_MONOTONIC, written by record.c before attaching */
__u32 thr_set = 0;   /* the aggregation set the program adds into (0 or 1) */

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, THR_MAX_THREADS);
	__type(key, __u32);
	__type(value, struct thr_stat);
} thr_stats SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, THR_OFF_ENTRIES);
	__type(key, struct thr_off_key);
	__type(value, struct thr_off_val);
} thr_off SEC(".maps");

/* preallocated: sched_switch runs with the runqueue locked, where an allocation of a
 * map that is not preallocated fails when its per-CPU cache is empty */
SM_STACK_MAP(THR_STACK_ENTRIES, 0) thr_stacks SEC(".maps");

/* the stack walk buffer: sched_switch runs with preemption off */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct sm_ips);
} thr_walk SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct thr_counters);
} thr_cnt SEC(".maps");

/* THR_USER_COPY: where a block's stack copy is made, one per CPU (interrupts are off
 * in sched_switch) */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct sc_copy);
} thr_copy_buf SEC(".maps");

/* the copies sent already, by (process, key): a copy goes out once */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, THR_COPIED_ENTRIES);
	__type(key, struct thr_copied_key);
	__type(value, __u8);
} thr_copied SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, THR_COPY_RING_BYTES);
} thr_copies SEC(".maps");

/* the target's VMAs the copies have met (user space seeds them at the start) */
SC_VMAS_MAP(64) thr_vmas SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, THR_RING_BYTES);
} thr_events SEC(".maps");

static __always_inline struct thr_counters *counters(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&thr_cnt, &zero);
}

/* The entry of thread T, made when it has none; NULL when the map is full. */
static __always_inline struct thr_stat *stat_of(struct task_struct *t)
{
	__u32 tid = (__u32)t->pid;
	struct thr_stat *s = bpf_map_lookup_elem(&thr_stats, &tid), zero = {};
	struct thr_counters *cnt;

	if (s)
		return s;
	zero.cpu = -1;
	zero.tgid = (__u32)t->tgid;
	bpf_map_update_elem(&thr_stats, &tid, &zero, BPF_NOEXIST);
	s = bpf_map_lookup_elem(&thr_stats, &tid);
	if (!s && (cnt = counters()))
		__sync_fetch_and_add(&cnt->thread_map_full, 1);
	return s;
}

/* Take the current thread's stack (user with BPF_F_USER_STACK in FLAGS) into *SK;
 * hash 0 when there is none or it could not be kept. */
static __always_inline void take(void *ctx, __u64 flags, struct sm_key *sk)
{
	struct thr_counters *cnt;
	struct sm_ips *buf;
	__u32 zero = 0;
	long err;

	__builtin_memset(sk, 0, sizeof(*sk));
	buf = bpf_map_lookup_elem(&thr_walk, &zero);
	if (!buf)
		return;
	err = sm_take(ctx, &thr_stacks, buf, flags, sk);
	if (err) {
		sk->hash = 0;
		sk->nr = 0;
		if (err == -ENOMEM && (cnt = counters()))
			__sync_fetch_and_add(&cnt->stack_lost, 1);
	}
}

/* Copy the user stack of PREV (the current task: it is being switched out) from its user
 * registers, key *SK by the copy (kind SM_KIND_COPY) and send the copy unless its key
 * was sent before; hash 0 when there is none. */
static __always_inline void take_copy(struct task_struct *prev, struct sm_key *sk)
{
	struct pt_regs *regs = (struct pt_regs *)bpf_task_pt_regs(prev);
	struct thr_copied_key ck = {};
	struct thr_counters *cnt = counters();
	__u32 zero = 0, n, tgid = (__u32)prev->tgid;
	struct sc_copy *c;
	__u8 one = 1;
	long err;

	__builtin_memset(sk, 0, sizeof(*sk));
	c = bpf_map_lookup_elem(&thr_copy_buf, &zero);
	if (!c || !regs || !cnt)
		return;
	err = sc_take(c, sc_vmas_of(&thr_vmas, tgid, prev), thr_lookups, prev,
		      BPF_CORE_READ(regs, ip), BPF_CORE_READ(regs, sp), BPF_CORE_READ(regs, bp),
		      tgid, (__u32)prev->pid);
	if (err) {
		if (err == -EAGAIN)
			__sync_fetch_and_add(&cnt->copy_clobbered, 1);
		else
			__sync_fetch_and_add(&cnt->copy_failed, 1);
		return;
	}
	__sync_fetch_and_add(&cnt->copies, 1);
	ck.hash = c->hash;
	ck.tgid = tgid;
	if (!bpf_map_update_elem(&thr_copied, &ck, &one, BPF_NOEXIST)) {
		n = c->bytes;
		if (n > SC_MAX_BYTES)
			return;
		/* no wakeup: user space drains the ring at each poll */
		if (bpf_ringbuf_output(&thr_copies, c, SC_HDR_BYTES + n, BPF_RB_NO_WAKEUP)) {
			bpf_map_delete_elem(&thr_copied, &ck);
			__sync_fetch_and_add(&cnt->copy_lost, 1);
			return;
		}
		__sync_fetch_and_add(&cnt->copies_sent, 1);
	}
	sk->hash = c->hash;
	sk->nr = c->bytes / 8;
	sk->kernel = SM_KIND_COPY;
}

static __always_inline void switch_out(void *ctx, bool preempt, struct task_struct *prev,
				       __u32 prev_state, __u64 now)
{
	struct thr_stat *s;
	struct sm_key uk, kk;
	__u64 slice;
	__u32 reason;

	if ((prev_state & TASK_DEAD_) && !bpf_map_lookup_elem(&thr_stats, &(__u32){ prev->pid }))
		return; /* its last switch, and nothing to close */
	s = stat_of(prev);
	if (!s)
		return;
	if (s->in_ts) {
		/* the scheduler's account of the slice (update_curr() has run for prev
		 * before this tracepoint); the clock's when it reads back */
		slice = prev->se.sum_exec_runtime;
		if (slice >= s->in_exec)
			s->oncpu_ns += slice - s->in_exec;
		else if (now > s->in_ts)
			s->oncpu_ns += now - s->in_ts;
	} else {
		/* no stamp (on CPU when recording started): the scheduler's slice, at most
		 * since attach (as collectors/cpu/cpu.bpf.c) */
		slice = prev->se.sum_exec_runtime - prev->se.prev_sum_exec_runtime;
		if (attach_ns && now > attach_ns && slice > now - attach_ns)
			slice = now - attach_ns;
		s->oncpu_ns += slice;
	}
	s->in_ts = 0;
	if (!preempt && prev_state)
		s->voluntary++;
	else
		s->involuntary++;
	if (prev_state & TASK_DEAD_) {
		s->out_ts = 0;
		return;
	}
	if (preempt || !prev_state)
		reason = THR_RUNNABLE;
	else if ((prev_state & TASK_UNINTERRUPTIBLE_) && !(prev_state & TASK_NOLOAD_))
		reason = THR_BLOCKED;
	else
		reason = THR_SLEEP;
	s->out_ts = now;
	s->wake_ts = 0;
	s->out_reason = reason;
	s->ustack.hash = 0;
	s->kstack.hash = 0;
	if (reason != THR_RUNNABLE && take_stacks) {
		if (thr_user_stacks == THR_USER_COPY)
			take_copy(prev, &uk);
		else
			take(ctx, BPF_F_USER_STACK, &uk);
		take(ctx, 0, &kk);
		s->ustack = uk;
		s->kstack = kk;
	}
}

static __always_inline void switch_in(struct task_struct *next, __u64 now)
{
	struct thr_counters *cnt;
	struct thr_off_key key = {};
	struct thr_off_val *v, zero = {};
	struct thr_stat *s = stat_of(next);
	__u64 blocked, total;
	__u32 reason;
	__s32 cpu = (__s32)bpf_get_smp_processor_id();

	if (!s)
		return;
	if (s->cpu >= 0 && s->cpu != cpu)
		s->migrations++;
	s->cpu = cpu;
	if (s->out_ts && now > s->out_ts) {
		total = now - s->out_ts;
		reason = s->out_reason;
		blocked = total;
		if (reason != THR_RUNNABLE && s->wake_ts > s->out_ts && s->wake_ts <= now) {
			blocked = s->wake_ts - s->out_ts;
			s->off_ns[THR_RUNNABLE] += now - s->wake_ts;
		}
		if (reason == THR_SLEEP)
			s->off_ns[THR_SLEEP] += blocked;
		else if (reason == THR_BLOCKED)
			s->off_ns[THR_BLOCKED] += blocked;
		else
			s->off_ns[THR_RUNNABLE] += blocked;
		if (reason != THR_RUNNABLE && take_stacks && (cnt = counters())) {
			if (blocked < offcpu_min_ns) {
				__sync_fetch_and_add(&cnt->skipped, 1);
				__sync_fetch_and_add(&cnt->skipped_ns, blocked);
			} else {
				key.set = thr_set & 1;
				key.tid = (__u32)next->pid;
				key.tgid = (__u32)next->tgid;
				key.reason = reason;
				key.user = s->ustack;
				key.kern = s->kstack;
				v = bpf_map_lookup_elem(&thr_off, &key);
				if (!v) {
					bpf_map_update_elem(&thr_off, &key, &zero, BPF_NOEXIST);
					v = bpf_map_lookup_elem(&thr_off, &key);
				}
				if (v) {
					__sync_fetch_and_add(&v->total_ns, blocked);
					__sync_fetch_and_add(&v->count, 1);
				} else {
					__sync_fetch_and_add(&cnt->off_map_full, 1);
				}
			}
		}
	}
	s->out_ts = 0;
	s->wake_ts = 0;
	s->in_ts = now;
	s->in_exec = next->se.sum_exec_runtime;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(thr_switch, bool preempt, struct task_struct *prev, struct task_struct *next,
	     unsigned int prev_state)
{
	__u64 now;

	if (ptop_task_is_target(prev)) {
		now = bpf_ktime_get_ns();
		switch_out(ctx, preempt, prev, prev_state, now);
		if (ptop_task_is_target(next))
			switch_in(next, now);
	} else if (ptop_task_is_target(next)) {
		switch_in(next, bpf_ktime_get_ns());
	}
	return 0;
}

SEC("tp_btf/sched_wakeup")
int BPF_PROG(thr_wakeup, struct task_struct *p)
{
	__u32 tid;
	struct thr_stat *s;

	if (!ptop_task_is_target(p))
		return 0;
	tid = (__u32)p->pid;
	s = bpf_map_lookup_elem(&thr_stats, &tid);
	if (s && s->out_ts && !s->wake_ts)
		s->wake_ts = bpf_ktime_get_ns();
	return 0;
}

static __always_inline void emit(__u32 type, struct task_struct *t, __u32 by, const char *comm,
				 bool user_comm)
{
	struct thr_counters *cnt;
	struct thr_event *e = bpf_ringbuf_reserve(&thr_events, sizeof(*e), 0);

	if (!e) {
		if ((cnt = counters()))
			__sync_fetch_and_add(&cnt->ring_full, 1);
		return;
	}
	e->ts = bpf_ktime_get_ns();
	e->type = type;
	e->tid = (__u32)t->pid;
	e->tgid = (__u32)t->tgid;
	e->by = by;
	if (user_comm)
		bpf_probe_read_kernel_str(e->comm, sizeof(e->comm), comm);
	else
		bpf_probe_read_kernel_str(e->comm, sizeof(e->comm), t->comm);
	bpf_ringbuf_submit(e, 0);
}

SEC("tp_btf/sched_process_fork")
int BPF_PROG(thr_fork, struct task_struct *parent, struct task_struct *child)
{
	if (ptop_task_is_target(child))
		emit(THR_EV_CREATE, child, (__u32)parent->pid, NULL, false);
	return 0;
}

SEC("tp_btf/sched_process_exit")
int BPF_PROG(thr_exit, struct task_struct *p)
{
	struct thr_stat *s;
	__u32 tid;

	if (!ptop_task_is_target(p))
		return 0;
	tid = (__u32)p->pid;
	s = bpf_map_lookup_elem(&thr_stats, &tid);
	if (s)
		s->exit_ts = bpf_ktime_get_ns();
	emit(THR_EV_EXIT, p, 0, NULL, false);
	return 0;
}

SEC("tp_btf/task_rename")
int BPF_PROG(thr_rename, struct task_struct *task, const char *comm)
{
	if (ptop_task_is_target(task))
		emit(THR_EV_RENAME, task, 0, comm, true);
	return 0;
}
