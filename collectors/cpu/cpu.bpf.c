// SPDX-License-Identifier: GPL-2.0
/* cpu.bpf.c — on-CPU time and switch count of the target's threads from sched_switch.
 *
 * When a target thread is switched in, the CPU's slot gets the time; when it is
 * switched out on that CPU, the slice goes into the CPU's cumulative total. A
 * switch-out with no stamp (the thread was on CPU when recording started) is
 * counted in from_attach, and its slice is what the scheduler says it was —
 * se.sum_exec_runtime - se.prev_sum_exec_runtime, the run time since the task was
 * last picked (update_curr() has run for prev before this tracepoint) — but no
 * more than the time since attach. Without that bound, one missed switch-in would
 * add the whole recording so far. collectors/cpu/record.c reads the totals each poll and
 * adds the slices still in progress from the slots.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>

#include "collectors/cpu/cpu.h"
#include "filter.bpf.h"

char LICENSE[] SEC("license") = "GPL";

/* CLOCK_MONOTONIC ns, written by collectors/cpu/record.c just before attaching. */
__u64 attach_ns = 0;

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct cpu_slot);
} cpu_slots SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct cpu_total);
} cpu_totals SEC(".maps");

SEC("tp_btf/sched_switch")
int BPF_PROG(sched_switch, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	bool out = ptop_task_is_target(prev);
	bool in = ptop_task_is_target(next);
	struct cpu_total *tot;
	struct cpu_slot *slot;
	__u32 zero = 0;
	__u64 now, slice;

	if (!out && !in)
		return 0;

	slot = bpf_map_lookup_elem(&cpu_slots, &zero);
	tot = bpf_map_lookup_elem(&cpu_totals, &zero);
	if (!slot || !tot)
		return 0;
	now = bpf_ktime_get_ns();

	/* switch-out: close the slice of prev */
	if (out) {
		if (slot->ts && slot->tid == (__u64)prev->pid) {
			if (now > slot->ts)
				tot->oncpu_ns += now - slot->ts;
		} else {
			/* no stamp: the scheduler's slice, at most since attach */
			slice = prev->se.sum_exec_runtime - prev->se.prev_sum_exec_runtime;
			if (attach_ns && now > attach_ns && slice > now - attach_ns)
				slice = now - attach_ns;
			tot->oncpu_ns += slice;
			tot->from_attach++;
		}
		tot->switches++;
		slot->ts = 0;
	}
	/* switch-in: open the slice of next */
	if (in) {
		slot->ts = now;
		slot->tid = next->pid;
	}
	return 0;
}
