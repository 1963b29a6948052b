/* cpuprof.h — structs and constants shared by collectors/cpuprof/cpuprof.bpf.c and collectors/cpuprof/record.c. */
#ifndef PTOP_BPF_CPUPROF_H
#define PTOP_BPF_CPUPROF_H

#include "bpf/stackmap.h"
#include "bpf/stackcopy.h"

/* How the user stack is taken: cp_user_stacks, set before load. */
#define CP_USER_FP 0		/* bpf_get_stack: a frame-pointer walk */
#define CP_USER_COPY 1		/* a copy of the stack's top (bpf/stackcopy.h) */
/* Stack copies remembered as sent (an LRU: one forgotten is sent again) and the ring
 * buffer that carries them to user space (a copy is at most ~16 KiB). */
#define CP_COPIED_ENTRIES 16384
#define CP_COPY_RING_BYTES (8u << 20)
/* Processes whose VMAs the copies remember (bpf/stackcopy.h struct sc_vmas). */
#define CP_VMAS_ENTRIES 1024

struct cp_copied_key {
	__u64 hash;
	__u32 tgid;
	__u32 pad;
};

/* Deepest stack kept. */
#define CP_MAX_DEPTH SM_MAX_DEPTH
/* Entries of each stack map and of the count map. Each stack map preallocates
 * CP_STACK_ENTRIES x (CP_MAX_DEPTH x 8 + its key) bytes, ~8.4 MB; two of them. */
#define CP_STACK_ENTRIES 8192
#define CP_COUNT_ENTRIES 16384

/* Two sets of maps take turns: the BPF program adds into set `cp_active`
 * (a .bss global) and user space, once per poll, switches cp_active, waits
 * until no program can still be adding to the old set (an RCU grace period),
 * then reads and clears the old set at leisure. See collectors/cpuprof/record.c. */
#define CP_SETS 2

/* Key of the count map: one (user stack, kernel stack) pair of one set. */
struct cp_key {
	__u32 set;		/* 0 or 1 */
	__u32 tgid;		/* cgroup mode: the process sampled (counts per process);
				 * 0 otherwise */
	struct sm_key user;	/* hash 0: no user stack */
	struct sm_key kern;	/* hash 0: none (user mode or unusable) */
};

/* Cgroup mode: the processes named, by tgid (an LRU map: the latest CP_COMM_ENTRIES). */
#define CP_COMM_ENTRIES 8192
struct cp_comm {
	char comm[16];		/* the thread group leader's, at the latest sample */
};

/* Per set, one copy per CPU (sum them). */
struct cp_counters {
	__u64 ticks;		/* timer samples on this CPU, target or not */
	__u64 samples;		/* of those, on a target thread */
	__u64 no_user_stack;	/* target samples with no usable user stack (fault, empty) */
	__u64 no_kernel_stack;	/* target samples in kernel mode with no usable kernel stack */
	__u64 lost_collision;	/* samples lost: the set's stack map was full */
	__u64 lost_map_full;	/* samples lost: the count map was full */
	__u64 lost_copy;	/* samples lost: their stack copy found the ring full */
	__u64 copies;		/* stack copies sent */
};

#endif
