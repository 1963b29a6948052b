/* threads.h — structs and constants shared by collectors/threads/threads.bpf.c and
 * collectors/threads/record.c. Fixed-width types, no includes but bpf/stackmap.h. */
#ifndef PTOP_BPF_THREADS_H
#define PTOP_BPF_THREADS_H

#include "bpf/stackmap.h"

/* Why a thread is off CPU (the state it left the CPU in, sched_switch's prev_state). */
#define THR_RUNNABLE 0 /* preempted, or woken and waiting for a CPU (TASK_RUNNING) */
#define THR_SLEEP 1    /* sleeping: interruptible, stopped, traced, idle waits */
#define THR_BLOCKED 2  /* blocked uninterruptibly (TASK_UNINTERRUPTIBLE: D, often I/O) */
#define THR_REASONS 3

/* Threads followed at once (hash map by TID). */
#define THR_MAX_THREADS 16384
/* Distinct (set, tid, reason, user stack, kernel stack) of one interval. */
#define THR_OFF_ENTRIES 16384
/* Stacks kept (hash map by stack key, never cleared during a recording; preallocated:
 * 8192 x ~1 KiB). */
#define THR_STACK_ENTRIES 8192
#define THR_RING_BYTES (256u << 10)
#define THR_SETS 2
/* --user-stacks dwarf|auto: the stack copies of the blocks (bpf/stackcopy.h). Each copy
 * is sent once per (process, key) through their ring (up to its size per poll: the rate
 * of new copies is bounded by it, the rest counted as copy_lost); the copies sent, by key,
 * are remembered in an LRU of THR_COPIED_ENTRIES. */
#define THR_COPY_RING_BYTES (4u << 20)
#define THR_COPIED_ENTRIES 8192
/* thr_user_stacks */
#define THR_USER_FP 0
#define THR_USER_COPY 1

/* One thread, cumulative since it was first seen (hash map by TID). */
struct thr_stat {
	__u64 oncpu_ns;               /* finished slices */
	__u64 off_ns[THR_REASONS];    /* finished off-CPU periods, by reason */
	__u64 voluntary;              /* switch-outs: !preempt && prev_state != 0 */
	__u64 involuntary;            /* preempted (or switched out runnable) */
	__u64 migrations;             /* switch-ins on another CPU than the last one */
	__u64 in_ts;                  /* switch-in time of the slice running; 0: off CPU */
	__u64 in_exec;                /* its se.sum_exec_runtime then: a slice is the growth
				       * of the scheduler's own account (what
				       * CLOCK_THREAD_CPUTIME_ID reads, IRQ time left out
				       * where the kernel accounts it apart) */
	__u64 out_ts;                 /* switch-out time of the period off CPU; 0: none */
	__u64 wake_ts;                /* sched_wakeup during that period; 0: not woken yet */
	__u64 exit_ts;                /* sched_process_exit; 0: alive */
	struct sm_key ustack;         /* stacks of the period off CPU (hash 0: none) */
	struct sm_key kstack;
	__u32 out_reason;             /* THR_* of that period */
	__s32 cpu;                    /* CPU of the last switch-in; -1: unknown */
	__u32 tgid;
	__u32 pad;
};

/* Key of the off-CPU aggregation: one thread blocked at one pair of stacks, per set. */
struct thr_off_key {
	__u32 set;
	__u32 tid;
	__u32 reason;                 /* THR_SLEEP or THR_BLOCKED */
	__u32 tgid;
	struct sm_key user;           /* hash 0: no user stack */
	struct sm_key kern;           /* hash 0: no kernel stack */
};

struct thr_off_val {
	__u64 total_ns;               /* time blocked: switch-out to wakeup (to switch-in
				       * when no wakeup was seen) */
	__u64 count;
};

/* Per set, one copy per CPU (sum them). */
struct thr_counters {
	__u64 skipped;                /* blocks shorter than --offcpu-min: not aggregated */
	__u64 skipped_ns;             /* their time (counted in the threads' off-CPU time) */
	__u64 off_map_full;           /* blocks lost: the aggregation map was full */
	__u64 stack_lost;             /* stacks not kept: the stack map was full */
	__u64 thread_map_full;        /* switches of threads the thread map had no room for */
	__u64 ring_full;              /* thread events lost: the ring buffer was full */
	/* THR_USER_COPY */
	__u64 copy_lost;              /* new copies the copies' ring had no room for (their
				       * blocks are aggregated without a user stack) */
	__u64 copy_failed;            /* blocks whose user stack could not be copied (no
				       * user sp, nothing readable there) */
	__u64 copy_clobbered;         /* copies dropped: another scan took their per-CPU
				       * state meanwhile (bpf/stackcopy.bpf.h, sc_take) */
	__u64 copies;                 /* copies taken (each voluntary block) */
	__u64 copies_sent;            /* of those, new keys sent through the ring */
};

/* The key of the copies sent already (a copy's key is its process's). */
struct thr_copied_key {
	__u64 hash;
	__u32 tgid;
	__u32 pad;
};

/* A thread created, exited or renamed (ring buffer). */
#define THR_EV_CREATE 1
#define THR_EV_EXIT 2
#define THR_EV_RENAME 3
struct thr_event {
	__u64 ts;                     /* bpf_ktime_get_ns (CLOCK_MONOTONIC) */
	__u32 type;                   /* THR_EV_* */
	__u32 tid;
	__u32 tgid;
	__u32 by;                     /* create: the creating thread's TID */
	char comm[16];                /* the name (rename: the new one) */
};

#endif
