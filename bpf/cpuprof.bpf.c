// SPDX-License-Identifier: GPL-2.0
/* cpuprof.bpf.c — the CPU profile: on each cpu-clock timer sample, the target thread's
 * user stack (and its kernel stack when the timer hit kernel mode), counted in the
 * kernel by (user stack id, kernel stack id).
 *
 * record/cpuprof.c opens one PERF_COUNT_SW_CPU_CLOCK event per online CPU at
 * --cpu-sample-hz and attaches cp_sample to each. Every run counts a tick; runs on
 * a target thread take the stacks with bpf_get_stackid() (frame-pointer walk,
 * deduplicated by the stack map itself: one id per distinct stack, compared in
 * full, no BPF_F_FAST_STACK_CMP and no BPF_F_REUSE_STACKID, so an id never changes
 * meaning while user space may still read it) and add one to the count of the pair.
 *
 * The user stack's first ip is the sampled ip itself (regs->ip, exact); the frames
 * after it are return addresses (the analyzer subtracts 1 before symbolizing them).
 * For a sample in kernel mode the user stack starts at the ip where the thread
 * entered the kernel.
 *
 * Everything a sample touches belongs to one of two sets (stack map, count-map keys,
 * counters), chosen by cp_active once at the start of the run; user space flips
 * cp_active each poll and reads the other set after an RCU grace period, when no run
 * can still be writing to it.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>

#include "cpuprof.h"
#include "filter.bpf.h"

char LICENSE[] SEC("license") = "GPL";

#ifndef ENOMEM
#define ENOMEM 12
#endif
#ifndef EEXIST
#define EEXIST 17
#endif

/* The set samples go into now: 0 or 1. Written by user space (mmapped .bss). */
__u32 cp_active = 0;

struct stack_map {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(max_entries, CP_STACK_ENTRIES);
	__type(key, __u32);
	__uint(value_size, CP_MAX_DEPTH * sizeof(__u64));
};

struct stack_map cp_stacks0 SEC(".maps");
struct stack_map cp_stacks1 SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, CP_COUNT_ENTRIES);
	__type(key, struct cp_key);
	__type(value, __u64);
} cp_counts SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, CP_SETS);
	__type(key, __u32);
	__type(value, struct cp_counters);
} cp_counters SEC(".maps");

/* Did the timer interrupt kernel mode? */
static __always_inline int sample_in_kernel(struct bpf_perf_event_data *ctx)
{
#if defined(__TARGET_ARCH_x86)
	/* the context allows only 8-byte loads of the registers: read cs as a word */
	__u64 cs = *(volatile __u64 *)((char *)&ctx->regs + __builtin_offsetof(struct pt_regs, cs));

	return (cs & 3) == 0;
#else
	return -1;	/* unknown: try the kernel stack and take its absence as user mode */
#endif
}

/* The stack id of this sample in set SET's map (user or kernel), or -errno. Two call
 * sites, one per map: the helper's map argument must be a known map. */
static __always_inline long get_stack(struct bpf_perf_event_data *ctx, __u32 set, __u64 flags)
{
	if (set)
		return bpf_get_stackid(ctx, &cp_stacks1, flags);
	return bpf_get_stackid(ctx, &cp_stacks0, flags);
}

SEC("perf_event")
int cp_sample(struct bpf_perf_event_data *ctx)
{
	struct cp_counters *cnt;
	struct cp_key key = {};
	long uid, kid = -1;
	__u64 one = 1, *val;
	__u32 set;
	int kmode;
	long err;

	set = *(volatile __u32 *)&cp_active & 1;
	cnt = bpf_map_lookup_elem(&cp_counters, &set);
	if (!cnt)
		return 0;
	cnt->ticks++;
	if (!ptop_current_is_target(bpf_get_current_pid_tgid()))
		return 0;
	cnt->samples++;

	uid = get_stack(ctx, set, BPF_F_USER_STACK);
	if (uid == -EEXIST || uid == -ENOMEM) {
		cnt->lost_collision++;
		return 0;
	}
	if (uid < 0) {
		cnt->no_user_stack++;	/* -EFAULT: no user regs, or an empty walk */
		uid = -1;
	}

	kmode = sample_in_kernel(ctx);
	if (kmode) {
		kid = get_stack(ctx, set, 0);
		if (kid == -EEXIST || kid == -ENOMEM) {
			cnt->lost_collision++;
			return 0;
		}
		if (kid < 0) {
			if (kmode > 0)
				cnt->no_kernel_stack++;
			kid = -1;
		}
	}

	key.set = set;
	key.user_id = (__s32)uid;
	key.kernel_id = (__s32)kid;
	val = bpf_map_lookup_elem(&cp_counts, &key);
	if (val) {
		__sync_fetch_and_add(val, 1);
		return 0;
	}
	err = bpf_map_update_elem(&cp_counts, &key, &one, BPF_NOEXIST);
	if (err == -EEXIST) {
		/* another CPU inserted the same pair just now */
		val = bpf_map_lookup_elem(&cp_counts, &key);
		if (val) {
			__sync_fetch_and_add(val, 1);
			return 0;
		}
	}
	if (err)
		cnt->lost_map_full++;
	return 0;
}
