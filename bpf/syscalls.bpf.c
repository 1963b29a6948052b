// SPDX-License-Identifier: GPL-2.0
/* syscalls.bpf.c — per-syscall count, latency and log2 histogram of the target,
 * aggregated in the kernel.
 *
 * raw_tp/sys_enter counts the call (exact) and stamps the entry time in task
 * storage; raw_tp/sys_exit turns the stamp into a latency. Both run for every
 * syscall of every process once attached, so the first thing each does is the
 * target filter: other processes pay one helper call and a compare. The stats
 * are cumulative per-CPU arrays indexed by syscall number; record/syscalls.c
 * sums the CPUs and diffs against its previous read.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>

#include "syscalls.h"
#include "filter.bpf.h"

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

/* Freed with the thread: no cleanup, nothing to fill with dead tids. */
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

/* floor(log2(v)), 0 for v == 0; branch-light (libbpf-tools' bits.bpf.h). */
static __always_inline __u64 log2_u64(__u64 v)
{
	__u64 r, shift;

	r = (v > 0xFFFFFFFFULL) << 5;
	v >>= r;
	shift = (v > 0xFFFF) << 4;
	v >>= shift;
	r |= shift;
	shift = (v > 0xFF) << 3;
	v >>= shift;
	r |= shift;
	shift = (v > 0xF) << 2;
	v >>= shift;
	r |= shift;
	shift = (v > 0x3) << 1;
	v >>= shift;
	r |= shift;
	r |= (v >> 1);
	return r;
}

/* The syscall number of the current thread's pt_regs, read only on the rare path. */
static __always_inline __u64 regs_nr(struct pt_regs *regs)
{
#if defined(__TARGET_ARCH_x86)
	return BPF_CORE_READ(regs, orig_ax);
#elif defined(__TARGET_ARCH_arm64)
	return BPF_CORE_READ(regs, syscallno);
#else
#error "syscalls.bpf.c: add the syscall number register of this architecture"
#endif
}

/* Per-CPU counters need no atomics: syscall tracepoints run their BPF programs
 * with preemption disabled, and a program never nests on its own CPU (a nested
 * run is skipped by the kernel and counted in the program's recursion_misses,
 * which record/syscalls.c reports). */
SEC("raw_tp/sys_enter")
int sys_enter(struct bpf_raw_tracepoint_args *ctx)
{
	struct sc_start *st;
	struct sc_stat *s;
	__u64 id = bpf_get_current_pid_tgid();
	__u64 nr;
	__u32 key;

	if (!ptop_current_is_target(id))
		return 0;

	nr = ctx->args[1];
	st = bpf_task_storage_get(&sc_starts, bpf_get_current_task_btf(), 0,
				  BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (nr >= SC_MAX_NR) {
		counter_inc(SC_CNT_NR_RANGE);
		if (st)
			st->ts = 0;
		return 0;
	}
	key = nr;
	s = bpf_map_lookup_elem(&sc_stats, &key);
	if (s)
		s->count++;
	if (!st) {
		counter_inc(SC_CNT_STAMP_FAIL);
		return 0;
	}
	st->nr = nr;
	st->ts = bpf_ktime_get_ns();
	return 0;
}

SEC("raw_tp/sys_exit")
int sys_exit(struct bpf_raw_tracepoint_args *ctx)
{
	struct sc_start *st;
	struct sc_stat *s;
	__u64 id = bpf_get_current_pid_tgid();
	__u64 nr, ts, delta, now;
	long ret;
	__u32 key;

	if (!ptop_current_is_target(id))
		return 0;

	now = bpf_ktime_get_ns();
	ret = (long)ctx->args[1];
	st = bpf_task_storage_get(&sc_starts, bpf_get_current_task_btf(), 0, 0);
	ts = st ? st->ts : 0;
	if (!ts) {
		/* No stamp: entered before attach, a new thread returning from clone,
		 * or the stamp could not be stored. Count it, invent no latency. */
		nr = regs_nr((struct pt_regs *)ctx->args[0]);
		if (nr >= SC_MAX_NR)
			return 0;
		key = nr;
		s = bpf_map_lookup_elem(&sc_stats, &key);
		if (!s)
			return 0;
		s->unmatched++;
		if (ret >= -4095 && ret <= -1)
			s->errors++;
		return 0;
	}
	nr = st->nr;
	st->ts = 0;
	key = nr & (SC_MAX_NR - 1);
	s = bpf_map_lookup_elem(&sc_stats, &key);
	if (!s)
		return 0;
	delta = now - ts;
	s->completed++;
	s->total_ns += delta;
	s->hist[log2_u64(delta) & (SC_HIST_BUCKETS - 1)]++;
	if (ret >= -4095 && ret <= -1)
		s->errors++;
	return 0;
}
