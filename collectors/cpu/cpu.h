/* cpu.h — structs shared by collectors/cpu/cpu.bpf.c and collectors/cpu/record.c. */
#ifndef PTOP_BPF_CPU_H
#define PTOP_BPF_CPU_H

/* The target thread on CPU now, one per CPU (per-CPU array, key 0). A thread runs
 * on the CPU that switched it in until that CPU switches it out, so one slot per
 * CPU is all the state needed: nothing to allocate, nothing that can fill. */
struct cpu_slot {
	__u64 ts;		/* bpf_ktime_get_ns() at switch-in; 0: no target thread */
	__u64 tid;
};

/* Cumulative, one copy per CPU (sum them). */
struct cpu_total {
	__u64 oncpu_ns;		/* on-CPU time of finished slices */
	__u64 switches;		/* switch-outs of a target thread */
	__u64 from_attach;	/* switch-outs with no stamp (the thread was on CPU when
				 * recording started): the scheduler's slice was counted,
				 * bounded by the time since attach_ns */
};

#endif
