/* exec_watch.h — what bpf/exec_watch.bpf.c tells record/exec_watch.c. */
#ifndef PTOP_BPF_EXEC_WATCH_H
#define PTOP_BPF_EXEC_WATCH_H

/* The target exec'd a program (one ring buffer record per exec). */
struct exec_watch_event {
	__u64 time_ns;		/* bpf_ktime_get_ns() (CLOCK_MONOTONIC) at the exec */
	__u32 tgid;
	__u32 held;		/* 1: SIGSTOP was sent; the recorder sends SIGCONT */
	__u64 seq;		/* when held: the hold's number (hold_seq after it) */
};

#endif
