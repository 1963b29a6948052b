/* syscalls.h — structs and constants shared by collectors/syscalls/syscalls.bpf.c and collectors/syscalls/record.c. */
#ifndef PTOP_BPF_SYSCALLS_H
#define PTOP_BPF_SYSCALLS_H

#define SC_MAX_NR 1024		/* syscall numbers counted: [0, SC_MAX_NR) */
#define SC_HIST_BUCKETS 64	/* log2 latency buckets: [2^i, 2^(i+1)) ns, 0 ns in bucket 0 */

/* Cumulative per syscall number, one copy per CPU (sum them). */
struct sc_stat {
	__u64 count;		/* sys_enter of the target */
	__u64 completed;	/* sys_exit matched to a sys_enter stamp: has a latency */
	__u64 errors;		/* sys_exit (matched or not) with ret in [-4095, -1] */
	__u64 total_ns;		/* summed latency of the completed calls */
	__u64 unmatched;	/* sys_exit with no stamp: entered before attach, or a
				 * new thread returning from clone; no latency */
	__u64 hist[SC_HIST_BUCKETS];
};

/* An entry stamp. ts == 0: no syscall in flight.
 *
 * sys_enter writes it into the CPU's slot (cheap); sys_exit on the same CPU with
 * no switch in between (the common case) reads it back from there. When a thread
 * is switched out with a syscall in flight (it blocked, or was preempted), the
 * sched_switch program moves the stamp from the CPU slot into the thread's task
 * storage, where sys_exit finds it on whichever CPU the thread returns. */
struct sc_start {
	__u64 ts;		/* bpf_ktime_get_ns() at sys_enter */
	__u64 nr;
};

/* Indexes of the per-CPU counter array `sc_counters`: what could not be counted. */
enum sc_counter {
	SC_CNT_NR_RANGE = 0,	/* sys_enter with nr outside [0, SC_MAX_NR): not counted */
	SC_CNT_STAMP_FAIL = 1,	/* no task storage to move an in-flight stamp to at a
				 * switch-out: latency lost (its exit counts as unmatched) */
	SC_CNT_COMPAT = 2,	/* a 32-bit (x86 ia32 compat) syscall: its number is in
				 * another table, so it is counted here, not per syscall */
	SC_CNT_MAX = 3,
};

#endif
