/* heap.h — structs and constants shared by collectors/heap/heap.bpf.c,
 * collectors/goalloc/goalloc.bpf.c and collectors/heap/record*.c. */
#ifndef PTOP_BPF_HEAP_H
#define PTOP_BPF_HEAP_H

#include "bpf/stackmap.h"
#include "bpf/stackcopy.h"
#include "common/alloc_funcs.h"

/* How the uprobe lane takes stacks: hp_user_stacks, set before load. */
#define HP_USER_FP 0		/* bpf_get_stack: a frame-pointer walk */
#define HP_USER_COPY 1		/* a copy of the stack's top (bpf/stackcopy.h) */
/* Copies remembered as sent, and the ring that carries them (~16 KiB each). */
#define HP_COPIED_ENTRIES 16384
#define HP_COPY_RING_BYTES (8u << 20)

/* Deepest stack kept. */
#define HP_MAX_DEPTH SM_MAX_DEPTH
/* Stacks the stack map holds (never cleared: live allocations refer to its keys;
 * allocated as they come, not preallocated: about 1 KiB each). */
#define HP_STACK_ENTRIES 16384
/* Distinct call sites counted in the kernel. */
#define HP_SITE_ENTRIES 16384
/* Default bound of the live set (allocated on demand, not preallocated). */
#define HP_LIVE_MAX (1u << 20)
/* Allocations of this size or more always take a stack. */
#define HP_BIG_ALLOC (32u << 10)
/* Entries of the exponential-interval table (a power of two). */
#define HP_EXP_TABLE 1024
/* Ring buffer for --heap-events, bytes: the BPF object's size, which the recorder sizes
 * from --interval (heap_events_ring_bytes, collectors/heap/record.h). */
#define HP_RINGBUF_BYTES (4u << 20)
/* the rate of --heap-events records the buffers are sized to carry, per second */
#define HP_EVENTS_RATE 1000000ull
#define HP_RINGBUF_MAX_BYTES (64u << 20)

/* A call site: the user stack walked at the allocator's entry, and the caller's
 * return address that walk skips (read from the top of the stack at entry). */
struct hp_site_key {
	struct sm_key stack;	/* its key in the lane's stack map; hash 0: not sampled */
	__u64 caller;		/* return address into the caller; 0: unknown */
};

/* Cumulative per site since the start (user space takes the deltas). Every figure is
 * weighted by the samples' credits: exact with sampling off, estimates with it on. */
struct hp_site {
	__u64 alloc_count;	/* credited with the allocations since the last sample */
	__u64 alloc_bytes;	/* credited with the bytes since the last sample */
	__u64 live_count;	/* the credits of the sampled allocations still live */
	__u64 live_bytes;
	__u64 freed_count;	/* the credits of the sampled allocations freed */
	__u64 lifetime_ns_sum;	/* their lifetimes, each times its credited count */
	__u64 temporary_count;	/* the credits of the sampled allocations freed as
				 * temporaries (see struct hp_peak) */
	__u64 peak_live_count;	/* live_count and live_bytes at the last peak mark */
	__u64 peak_live_bytes;
};

/* One live allocation, keyed by address. */
struct hp_live {
	__u64 size;
	__u64 time_ns;		/* bpf_ktime_get_ns() at the allocation */
	struct hp_site_key site;	/* stack.hash 0: not sampled */
	__u64 credit_count;	/* what the sample stands for in its site's figures */
	__u64 credit_bytes;
};

/* A thread inside an allocator function, between entry and return. */
struct hp_inflight {
	__u64 size;
	__u64 arg;		/* realloc: the old pointer; posix_memalign: memptr */
	struct hp_site_key site;	/* stack.hash 0: not sampled */
	__u64 credit_count;	/* what the sample is credited with */
	__u64 credit_bytes;
	__u64 sp;		/* the stack pointer at the entry: at the return address */
	__u64 ra;		/* that return address as it was then; 0: unreadable */
	__u32 func;
	__u16 depth;		/* nested allocator calls inside this one (ignored) */
	__u16 active;		/* between an entry and its return */
	__u32 seen;		/* an entry of this thread was seen */
	__u32 pad;
};

/* Per-CPU cumulative counters (sum the CPUs; live_* may wrap per CPU, the sum is right). */
struct hp_counters {
	__u64 alloc_count;	/* exact: every successful allocation */
	__u64 alloc_bytes;
	__u64 free_count;	/* frees of tracked allocations */
	__u64 free_bytes;
	__u64 live_count;	/* tracked live allocations (signed per CPU) */
	__u64 live_bytes;
	__u64 free_untracked;	/* frees of pointers not in the live set */
	__u64 live_untracked;	/* allocations not tracked: the live map was full */
	__u64 stack_failures;	/* sampled allocations whose stack could not be taken */
	__u64 site_full;	/* sampled allocations whose site did not fit the site map */
	__u64 inflight_lost;	/* entries not followed: no per-thread storage could be made */
	__u64 events_lost;	/* --heap-events records the ring buffer had no room for */
	__u64 samples;		/* allocations that took a stack */
	__u64 unmatched_entry;	/* entries whose return was never seen (not counted) */
	__u64 unmatched_return;	/* returns without the entry seen (not counted) */
	__u64 attaching;	/* returns of calls in flight at the attach (a thread's
				 * first return, its entry not seen) */
	__u64 filtered;		/* probe hits in processes other than the target */
	__u64 temporary_count;	/* tracked allocations freed by the next allocation or free
				 * call of their thread (heaptrack's rule): exact */
	__u64 stack_clobbered;	/* sampled allocations whose stack copy was dropped: another
				 * scan on the CPU took over its per-CPU state meanwhile */
};

/* The peak of the live heap, kept at every allocation and free the lane tracks (one
 * global, user space reads it from the .bss): live_total the tracked live bytes of all
 * threads (an atomic add each), peak_bytes the most it held, peak_time_ns when
 * (bpf_ktime_get_ns() of the allocation that made it). A new peak is stored by a
 * compare-and-swap, tried up to HP_PEAK_TRIES times against other CPUs raising it too;
 * peak_lost counts the peaks given up (then the peak is at least peak_bytes, not exact).
 * The sites at the peak: when the live total passes the last mark (mark_bytes, at
 * mark_ns) by 1/HP_PEAK_MARGIN of it, or at all HP_PEAK_MARK_NS after it, the CPU that
 * moves the mark copies every site's live figures into its peak_live_* (marks counts
 * the copies): the sites at the peak are those of the last mark, within 1/64 of the
 * peak or taken at most a second before it. */
struct hp_peak {
	__s64 live_total;
	__u64 pad0[7];		/* live_total alone on its cache line */
	__u64 peak_bytes;
	__u64 peak_time_ns;
	__u64 peak_lost;
	__u64 mark_bytes;
	__u64 mark_ns;
	__u64 marks;
	__u64 last_lost;	/* allocations whose thread got no hp_last storage: their
				 * temporaries are not counted */
	__u64 pad1;
};
#define HP_PEAK_TRIES 8
#define HP_PEAK_MARGIN 64
#define HP_PEAK_MARK_NS 1000000000ull

/* Per-CPU sampling state. */
struct hp_sampler {
	__s64 countdown;	/* bytes until the next sample */
	__u64 acc_count;	/* allocations since the last sample */
	__u64 acc_bytes;
	__u64 seeded;
};

/* --heap-events: one sampled allocation or free. */
struct hp_event {
	__u64 time_ns;
	__u64 addr;
	__u64 size;
	struct hp_site_key site;
	__u32 kind;		/* 1 alloc, 2 free (HeapEvent.Kind) */
	__u32 func;		/* enum alloc_func */
};

#endif
