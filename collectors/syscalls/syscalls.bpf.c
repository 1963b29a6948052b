// SPDX-License-Identifier: GPL-2.0
/* syscalls.bpf.c — per-syscall count, latency and log2 histogram of the target,
 * aggregated in the kernel.
 *
 * raw_tp/sys_enter counts the call (exact) and stamps the entry time in a per-CPU
 * slot; raw_tp/sys_exit turns the stamp into a latency; tp_btf/sched_switch moves
 * the stamp of a thread that leaves the CPU mid-syscall into its task storage
 * (struct sc_start says why: it keeps task storage off the hot path). Both
 * syscall programs run for every syscall of every process once attached, so the
 * first thing each does is the target filter (one helper call). A per-CPU cache
 * of "the task on this CPU is the target", kept at context switch, saved that
 * call but lost counts under CPU load (541 of 1000 getppid calls counted with
 * two busy loops beside the test): exact counts come first. The stats
 * are cumulative per-CPU arrays indexed by syscall number; collectors/syscalls/record.c
 * sums the CPUs and diffs against its previous read.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>

#include "collectors/syscalls/syscalls.h"
#include "filter.bpf.h"
#include "sysregs.bpf.h"

char LICENSE[] SEC("license") = "GPL";

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, SC_MAX_NR);
	__type(key, __u32);
	__type(value, struct sc_stat);
} sc_stats SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, SC_CNT_MAX);
	__type(key, __u32);
	__type(value, __u64);
} sc_counters SEC(".maps");

/* The stamp of the target's syscall in flight on this CPU (struct sc_start). */
struct sc_cpu {
	struct sc_start slot;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct sc_cpu);
} sc_cpus SEC(".maps");

/* Stamps of threads switched out in a syscall. Freed with the thread: no cleanup,
 * nothing to fill with dead tids. */
struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct sc_start);
} sc_starts SEC(".maps");

static __always_inline void counter_inc(__u32 idx)
{
	__u64 *v = bpf_map_lookup_elem(&sc_counters, &idx);

	if (v)
		*v += 1;
}

/* True in a 32-bit syscall of an x86_64 kernel (int 0x80, or an ia32 process): its
 * number is the i386 table's (i386 20 is getpid, x86_64 20 is writev), so it is never
 * counted under a 64-bit number. TS_COMPAT (0x0002, arch/x86/include/asm/thread_info.h)
 * is set at entry and cleared on the way back to user mode, after sys_exit. */
static __always_inline bool in_compat_syscall(struct task_struct *t)
{
#if defined(__TARGET_ARCH_x86)
	return t->thread_info.status & 0x0002;
#else
	return false; /* arm64: AArch32 tasks are not told apart yet */
#endif
}

/* Per-CPU counters need no atomics: syscall tracepoints run their BPF programs
 * with preemption disabled, and a program never nests on its own CPU (a nested
 * run is skipped by the kernel and counted in the program's recursion_misses,
 * which collectors/syscalls/record.c reports). */
SEC("raw_tp/sys_enter")
int sys_enter(struct bpf_raw_tracepoint_args *ctx)
{
	struct task_struct *t;
	struct sc_stat *s;
	struct sc_cpu *c;
	__u32 key = 0;
	__u64 nr;

	/* With a pid filter, the task pointer the compat test needs gives the tgid too
	 * (a plain load): one helper call, as bpf_get_current_pid_tgid was. The cgroup
	 * filter runs first and the task is fetched only for the target's calls. */
	if (targ_tgid) {
		t = bpf_get_current_task_btf();
		if (!ptop_task_is_target(t))
			return 0;
	} else {
		if (!ptop_current_is_target(bpf_get_current_pid_tgid()))
			return 0;
		t = bpf_get_current_task_btf();
	}
	c = bpf_map_lookup_elem(&sc_cpus, &key);
	if (!c)
		return 0;

	nr = ctx->args[1];
	if (nr >= SC_MAX_NR) {
		counter_inc(SC_CNT_NR_RANGE);
		c->slot.ts = 0;
		return 0;
	}
	if (in_compat_syscall(t)) {
		counter_inc(SC_CNT_COMPAT);
		c->slot.ts = 0;
		return 0;
	}
	key = nr;
	s = bpf_map_lookup_elem(&sc_stats, &key);
	if (s)
		s->count++;
	c->slot.nr = nr;
	c->slot.ts = bpf_ktime_get_ns();
	return 0;
}

/* Every context switch: a stamp in the slot belongs to prev (only the task on the
 * CPU stamps, and every switch empties the slot), so if prev leaves mid-syscall
 * its stamp moves into its task storage (freed with the thread). */
SEC("tp_btf/sched_switch")
int BPF_PROG(sc_switch, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	struct sc_start *st;
	struct sc_cpu *c;
	__u32 key = 0;

	c = bpf_map_lookup_elem(&sc_cpus, &key);
	if (!c)
		return 0;
	if (c->slot.ts) {
		st = bpf_task_storage_get(&sc_starts, prev, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
		if (st) {
			st->ts = c->slot.ts;
			st->nr = c->slot.nr;
		} else {
			counter_inc(SC_CNT_STAMP_FAIL);
		}
		c->slot.ts = 0;
	}
	return 0;
}

/* The hot path of a target thread is the slot: if this CPU's slot holds a stamp,
 * its owner is the current thread (sc_switch empties the slot whenever its owner
 * leaves the CPU, and collectors/syscalls/record.c attaches sc_switch before sys_enter), so a
 * matched exit costs the filter and one clock read. The filter comes first all the
 * same: a stamp is only ever the target's, never credited to another process. */
SEC("raw_tp/sys_exit")
int sys_exit(struct bpf_raw_tracepoint_args *ctx)
{
	struct sc_start *st;
	struct sc_stat *s;
	struct sc_cpu *c;
	__u64 ts, delta, now;
	__u32 key = 0, nr;
	long ret;

	if (!ptop_current_is_target(bpf_get_current_pid_tgid()))
		return 0;
	c = bpf_map_lookup_elem(&sc_cpus, &key);
	if (!c)
		return 0;
	if (c->slot.ts) {
		now = bpf_ktime_get_ns();
		ts = c->slot.ts;
		nr = c->slot.nr;
		c->slot.ts = 0;
	} else {
		now = bpf_ktime_get_ns();
		st = bpf_task_storage_get(&sc_starts, bpf_get_current_task_btf(), 0, 0);
		if (!st || !st->ts) {
			/* No stamp: entered before attach, a new thread returning from
			 * clone, or the stamp could not be stored. Count it, invent no
			 * latency. */
			__u64 rnr = ptop_sys_nr((struct pt_regs *)ctx->args[0]);

			if (rnr >= SC_MAX_NR || in_compat_syscall(bpf_get_current_task_btf()))
				return 0; /* no 64-bit number to count it under */
			key = rnr;
			s = bpf_map_lookup_elem(&sc_stats, &key);
			if (!s)
				return 0;
			s->unmatched++;
			ret = (long)ctx->args[1];
			if (ret >= -4095 && ret <= -1)
				s->errors++;
			return 0;
		}
		ts = st->ts;
		nr = st->nr;
		st->ts = 0;
	}
	key = nr & (SC_MAX_NR - 1);
	s = bpf_map_lookup_elem(&sc_stats, &key);
	if (!s)
		return 0;
	delta = now - ts;
	s->completed++;
	s->total_ns += delta;
	s->hist[ptop_log2_bucket(delta, SC_HIST_BUCKETS)]++;
	ret = (long)ctx->args[1];
	if (ret >= -4095 && ret <= -1)
		s->errors++;
	return 0;
}
