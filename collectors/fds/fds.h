/* fds.h — structs and constants shared by collectors/fds/fds.bpf.c and collectors/fds/record.c. */
#ifndef PTOP_BPF_FDS_H
#define PTOP_BPF_FDS_H

#include "bpf/stackmap.h"

#define FDS_MAX_NR 1024	 /* syscall numbers classified: [0, FDS_MAX_NR) */
#define FDS_OWNERS 65536 /* fds whose opening site is kept (--fd-stacks) */
/* close_range: the words of the open-fd bitmap read at its entry (64 fds each): fds up to
 * 2^20 (fs.nr_open's default); a wider range's closes are not counted (a drop) */
#define FDS_RANGE_WORDS (1u << 14)
#define FDS_RANGING 1024 /* threads inside close_range at once */
#define FDS_SITES 4096	 /* opening sites (stacks) kept */

/* How the opening sites' user stacks are taken: fd_user_stacks, set before load
 * (--user-stacks, record/stackcopy.h). */
#define FDS_USER_FP 0	/* bpf_get_stack: a frame-pointer walk */
#define FDS_USER_COPY 1 /* a copy of the stack's top (bpf/stackcopy.h), unwound offline */
/* Copies remembered as sent (an LRU: one forgotten is sent again), and the ring that
 * carries them (~16 KiB each at most), under FDS_USER_COPY. */
#define FDS_COPIED_ENTRIES 8192
#define FDS_COPY_RING_BYTES (4u << 20)
/* In the fds probe's detail when the sites' stacks are frame-pointer walks through a
 * target whose modules keep no frame pointers (report fds looks for it). */
#define FDS_FP_UNTRUSTED "frame-pointer walks through code without frame pointers"

/* What a syscall does to the fd table, by number (fd_kind, filled by user space from
 * the syscall table's names, so the kernel side names no number). */
enum fds_kind {
	FDS_K_NONE = 0,
	FDS_K_RET = 1,	       /* returns a new fd: open, openat, socket, accept, dup, ... */
	FDS_K_PAIR_A1 = 2,     /* writes two new fds to int[2] at arg 1: pipe, pipe2 */
	FDS_K_PAIR_A4 = 3,     /* writes two new fds to int[2] at arg 4: socketpair */
	FDS_K_FCNTL = 4,       /* fcntl: a new fd when cmd (arg 2) is F_DUPFD or F_DUPFD_CLOEXEC */
	FDS_K_CLOSE = 5,       /* close(fd): 0 closes arg 1 */
	FDS_K_CLOSE_RANGE = 6, /* close_range: the fds open in its range at entry, closed */
	FDS_K_DUP2 = 7,	       /* dup2, dup3: as FDS_K_RET, closing the fd it returns if open */
};

/* Cumulative per syscall number, one copy per CPU (sum them). */
struct fds_stat {
	__u64 opened; /* new fds (two for a pipe or socketpair) */
	__u64 failed; /* calls that returned an error */
	__u64 closed; /* fds closed (close returning 0; close_range: those open in its range) */
	__u64 emfile; /* failed with EMFILE or ENFILE: the fd table is full */
};

/* An fd's opening site (fd_owner's value, by fd): its stack key, and when it was opened
 * (bpf_ktime_get_ns, CLOCK_MONOTONIC). User space takes off their sites an fd the
 * kernel closed without a close call (exec, close_range), from /proc/PID/fd; the time
 * keeps it from taking off an fd opened after its read of the fd table. */
struct fds_owner {
	struct sm_key key;
	__u64 opened_ns;
};

/* An opening site's figures (--fd-stacks), by its stack key. */
struct fds_site {
	__u64 opened; /* fds opened here */
	__u64 live;   /* of them, not closed yet (as far as close and dup2 tell; user space
		       * takes off those the fd table no longer has) */
	__u64 closed_unseen; /* of them, found closed without a close call when their
			      * number was given to a new fd (not by dup2 or dup3) */
};

/* Indexes of the per-CPU counter array fd_counters: what could not be followed. */
enum fds_counter {
	FDS_CNT_OWNER_FULL = 0, /* fd_owner full: an fd's site not kept */
	FDS_CNT_STACK_FAIL = 1, /* no stack for an open (walk failed or stack map full) */
	FDS_CNT_SITE_FULL = 2,	/* fd_sites full: an open not credited to its site */
	FDS_CNT_COPY_LOST = 3,	/* a stack copy found the ring full: its site may stay stackless */
	FDS_CNT_RANGE_LOST = 4, /* a close_range whose fds were not counted (see fd_ranging) */
	FDS_CNT_STACK_CLOBBERED = 5, /* a stack copy dropped: its scan's per-CPU state was
				      * another scan's meanwhile (bpf/stackcopy.bpf.h) */
	FDS_CNT_MAX = 6,
};

#endif
