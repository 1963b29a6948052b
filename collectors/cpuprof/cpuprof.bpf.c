// SPDX-License-Identifier: GPL-2.0
/* cpuprof.bpf.c — the CPU profile: on each cpu-clock timer sample, the target thread's
 * user stack (and its kernel stack when the timer hit kernel mode), counted in the
 * kernel by (user stack id, kernel stack id) and, in --cgroup mode, by the sampled
 * process (its tgid: the same user ips mean another thing in another process).
 *
 * collectors/cpuprof/record.c opens one PERF_COUNT_SW_CPU_CLOCK event per online CPU at
 * --cpu-sample-hz and attaches cp_sample to each. Every run counts a tick; runs on
 * a target thread copy the stacks with bpf_get_stack() (frame-pointer walk) into a
 * per-CPU buffer, key each by a 64-bit hash of its ips (bpf/stackmap.h says why not
 * bpf_get_stackid), store it in the set's stack map the first time, and add one to
 * the count of the pair.
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

#include "collectors/cpuprof/cpuprof.h"
#include "filter.bpf.h"
#include "stackmap.bpf.h"
#include "stackcopy.bpf.h"

char LICENSE[] SEC("license") = "GPL";

/* How user stacks are taken (set before load): CP_USER_FP, a frame-pointer walk, or
 * CP_USER_COPY, a copy of the stack's top unwound offline (bpf/stackcopy.h). */
const volatile __u32 cp_user_stacks = CP_USER_FP;

/* The set samples go into now: 0 or 1. Written by user space (mmapped .bss). */
__u32 cp_active = 0;

SM_STACK_MAP(CP_STACK_ENTRIES, 0) cp_stacks0 SEC(".maps");
SM_STACK_MAP(CP_STACK_ENTRIES, 0) cp_stacks1 SEC(".maps");

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

/* cgroup mode: each sampled process's name, so that one gone before a poll is named */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, CP_COMM_ENTRIES);
	__type(key, __u32);
	__type(value, struct cp_comm);
} cp_comms SEC(".maps");

/* Where a sample's stack is walked into, one per CPU (too big for the BPF stack). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct sm_ips);
} cp_scratch SEC(".maps");

/* --user-stacks dwarf: where a sample's stack copy is made, one per CPU */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct sc_copy);
} cp_copy_scratch SEC(".maps");

/* the copies sent already, by key: a copy goes out once, its samples are counted by key */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, CP_COPIED_ENTRIES);
	__type(key, struct cp_copied_key);
	__type(value, __u8);
} cp_copied SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, CP_COPY_RING_BYTES);
} cp_copies SEC(".maps");

/* the VMAs the copies have met, per process (user space forgets them each interval) */
SC_VMAS_MAP(CP_VMAS_ENTRIES) cp_vmas SEC(".maps");

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

/* Walk this sample's stack (user with BPF_F_USER_STACK, else kernel) into the per-CPU
 * scratch buffer (a perf_event program is not preempted), key it, and store it in set
 * SET's stack map unless it is there. Returns 0 with *SK set, -ENOENT for an empty
 * walk, -ENOMEM when the stack map is full, or the helper's -errno. */
static __always_inline long take_stack(struct bpf_perf_event_data *ctx, __u32 set, __u64 flags,
				       struct sm_key *sk)
{
	struct sm_ips *buf;
	__u32 zero = 0;

	buf = bpf_map_lookup_elem(&cp_scratch, &zero);
	if (!buf)
		return -ENOMEM;
	if (set)
		return sm_take(ctx, &cp_stacks1, buf, flags, sk);
	return sm_take(ctx, &cp_stacks0, buf, flags, sk);
}

/* Copy the current thread's user stack (its user registers are in its pt_regs whether
 * the timer hit user or kernel mode), key it in *SK (kind SM_KIND_COPY) and send the
 * copy unless its key was sent before. 0; -ENOSPC when the ring had no room (the key
 * is forgotten, so that the next sample sends it); or sc_take's -errno. */
static __always_inline long take_copy(struct cp_counters *cnt, __u64 id, struct sm_key *sk)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct pt_regs *regs = (struct pt_regs *)bpf_task_pt_regs(task);
	struct cp_copied_key ck = {};
	struct sc_copy *c;
	__u32 zero = 0, n;
	__u8 one = 1;
	long err;

	c = bpf_map_lookup_elem(&cp_copy_scratch, &zero);
	if (!c || !regs)
		return -ENOENT;
	err = sc_take(c, sc_vmas_of(&cp_vmas, (__u32)(id >> 32), task), SC_LOOKUPS_PERF, task,
		      BPF_CORE_READ(regs, ip), BPF_CORE_READ(regs, sp), BPF_CORE_READ(regs, bp),
		      (__u32)(id >> 32), (__u32)id);
	if (err)
		return err;
	sk->hash = c->hash;
	sk->nr = c->bytes / 8;
	sk->kernel = SM_KIND_COPY;
	ck.hash = c->hash;
	ck.tgid = (__u32)(id >> 32);
	if (bpf_map_update_elem(&cp_copied, &ck, &one, BPF_NOEXIST))
		return 0;	/* sent before */
	n = c->bytes;
	if (n > SC_MAX_BYTES)
		return -EFAULT;
	if (bpf_ringbuf_output(&cp_copies, c, SC_HDR_BYTES + n, 0)) {
		bpf_map_delete_elem(&cp_copied, &ck);
		cnt->lost_copy++;
		return -ENOSPC;
	}
	cnt->copies++;
	return 0;
}

SEC("perf_event")
int cp_sample(struct bpf_perf_event_data *ctx)
{
	struct cp_counters *cnt;
	struct cp_key key = {};
	__u64 one = 1, *val, id;
	__u32 set;
	int kmode;
	long err;

	set = *(volatile __u32 *)&cp_active & 1;
	cnt = bpf_map_lookup_elem(&cp_counters, &set);
	if (!cnt)
		return 0;
	cnt->ticks++;
	id = bpf_get_current_pid_tgid();
	if (!ptop_current_is_target(id))
		return 0;
	cnt->samples++;
	/* cgroup mode (the filter's cgroup branch): counts per process, whose own
	 * mappings place its user stack; with a pid filter the key's tgid stays 0 */
	if (!targ_tgid && targ_cgid) {
		struct task_struct *task = (struct task_struct *)bpf_get_current_task();
		struct cp_comm name = {};

		key.tgid = (__u32)(id >> 32);
		BPF_CORE_READ_STR_INTO(&name.comm, task, group_leader, comm);
		bpf_map_update_elem(&cp_comms, &key.tgid, &name, BPF_ANY);
	}

	if (cp_user_stacks == CP_USER_COPY) {
		err = take_copy(cnt, id, &key.user);
		if (err == -ENOSPC)
			return 0;	/* counted in lost_copy */
	} else {
		err = take_stack(ctx, set, BPF_F_USER_STACK, &key.user);
	}
	if (err == -ENOMEM) {
		cnt->lost_collision++;
		return 0;
	}
	if (err) {
		cnt->no_user_stack++;	/* -EFAULT: no user regs, or an empty walk */
		key.user.hash = 0;
	}

	kmode = sample_in_kernel(ctx);
	if (kmode) {
		err = take_stack(ctx, set, 0, &key.kern);
		if (err == -ENOMEM) {
			cnt->lost_collision++;
			return 0;
		}
		if (err) {
			if (kmode > 0)
				cnt->no_kernel_stack++;
			key.kern.hash = 0;
		}
	}

	key.set = set;
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
