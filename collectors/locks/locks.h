/* locks.h — what collectors/locks/locks.bpf.c and collectors/locks/record.c share. */
#ifndef PTOP_LOCKS_H
#define PTOP_LOCKS_H

#include "bpf/stackmap.h"

#define LK_MAX_NR 1024	  /* syscall numbers classified: [0, LK_MAX_NR) */
#define LK_INFLIGHT 16384 /* threads inside a futex call at once */
#define LK_WORDS 4096	  /* futex words kept (per process) */
#define LK_TIDS 16384	  /* (word, thread, role) kept */
#define LK_SITES 4096	  /* (word, the waiter's user stack) kept */
/* How the waiters' user stacks are taken (lk_user_stacks, set before load, from
 * --user-stacks as fds does): a frame-pointer walk, or a copy of the stack's top
 * (bpf/stackcopy.h) unwound offline: through glibc's lock code, which keeps no frame
 * pointers, only a copy names pthread_mutex_lock's caller. */
#define LK_USER_FP 0
#define LK_USER_COPY 1
#define LK_COPIED_ENTRIES 8192
#define LK_COPY_RING_BYTES (4u << 20)
#define LK_HIST 32	  /* log2 buckets of wait time in ns: bucket b holds [2^b, 2^(b+1)) */

/* lk_kind, by syscall number (user space fills it from the syscall table's names). */
enum lk_kind {
	LK_K_NONE = 0,
	LK_K_FUTEX = 1,	 /* futex(uaddr, op, ...): a wait or a wake by op */
	LK_K_WAITV = 2,	 /* futex_waitv(waiters, n, ...): a wait, on its first word */
	LK_K_WAIT2 = 3,	 /* futex_wait(uaddr, ...) (futex2, Linux 6.7) */
	LK_K_WAKE2 = 4,	 /* futex_wake(uaddr, ...) (futex2) */
};

#define LK_ROLE_WAIT 1
#define LK_ROLE_WAKE 2

/* A thread inside a futex call, by tid. */
struct lk_inflight {
	__u64 uaddr;
	__u64 start_ns;
	struct sm_key stack; /* waits: the user stack's key (hash 0: none) */
	__u32 role;
	__u32 pad;
};

struct lk_word_key {
	__u64 uaddr; /* the futex word's address in the process */
	__u32 tgid;
	__u32 pad;
};

/* Per futex word, cumulative (user space sends each interval's growth), but for the
 * longest wait, which is per interval: user space counts the intervals in lk_epoch
 * (locks.bpf.c), adding one before each reading; a wait that ends in epoch E is kept in
 * max_ns[E & 1], which starts again (max_epoch[E & 1] != E) at the first wait of E. The
 * reading after the epoch E + 1 began takes slot E & 1 (max_epoch E: the longest wait
 * that ended in E; else none did), which no wait changes until E + 2. */
struct lk_word {
	__u64 waits;	/* wait calls (all of them: those that found the value changed too) */
	__u64 wait_ns;	/* time inside them */
	__u64 max_ns[2];
	__u64 max_epoch[2];
	__u64 eagain;	/* waits that returned at once: the word had changed (EAGAIN) */
	__u64 timeouts; /* waits that timed out (ETIMEDOUT) */
	__u64 wakes;	/* wake calls */
	__u64 woken;	/* threads they woke (their return values) */
	__u64 hist[LK_HIST];
};

struct lk_tid_key {
	__u64 uaddr;
	__u32 tgid;
	__u32 tid;
	__u32 role; /* LK_ROLE_WAIT or LK_ROLE_WAKE */
	__u32 pad;
};

struct lk_tid {
	__u64 calls;
	__u64 ns;
};

struct lk_site_key {
	__u64 uaddr;
	__u32 tgid;
	__u32 pad;
	struct sm_key stack;
};

struct lk_site {
	__u64 waits;
	__u64 ns;
};

/* Indexes of the per-CPU counter array lk_counters: what could not be followed. */
enum lk_counter {
	LK_CNT_INFLIGHT_FULL = 0, /* lk_inflight full: a call not timed */
	LK_CNT_WORD_FULL = 1,	  /* lk_words full: a call not counted */
	LK_CNT_TID_FULL = 2,	  /* lk_tids full: a thread's share not counted */
	LK_CNT_SITE_FULL = 3,	  /* lk_sites full: a wait not credited to its site */
	LK_CNT_STACK_FAIL = 4,	  /* no user stack for a wait (walk failed, or the map full) */
	LK_CNT_COPY_LOST = 5,	  /* a stack copy found the ring full: its site may be stackless */
	LK_CNT_MAX = 6,
};

#endif
