/* exec_watch.h — what bpf/exec_watch.bpf.h (the exec watch's kernel half, run by the
 * one program of the run on sched_process_exec) and record/exec_watch.c share. */
#ifndef PTOP_BPF_EXEC_WATCH_H
#define PTOP_BPF_EXEC_WATCH_H

/* The names of its maps in the BPF object that includes it: record/exec_watch.c finds
 * them by name in the object the provider gives (struct exec_feed). */
#define EXEC_WATCH_STATE_MAP "ew_state"
#define EXEC_WATCH_EVENTS_MAP "ew_events"

/* The target exec'd a program (one ring buffer record per exec). */
struct exec_watch_event {
	__u64 time_ns;		/* bpf_ktime_get_ns() (CLOCK_MONOTONIC) at the exec */
	__u32 tgid;
	__u32 held;		/* 1: SIGSTOP was sent; the recorder sends SIGCONT */
	__u64 seq;		/* when held: the hold's number (hold_seq after it) */
};

/* The one entry of ew_state, an array map user space mmaps (BPF_F_MMAPABLE): the
 * recorder writes tgid and hold before the target runs, and release_seq; the program
 * writes the rest. The guard process (record/exec_watch.c) keeps the mapping. */
struct exec_watch_state {
	__u32 tgid;		/* the target; 0: nothing watched (no event, no hold) */
	__u32 hold;		/* 1: stop the new program (SIGSTOP) until the recorder continues it */
	__u64 hold_seq;		/* holds so far; only the program writes it (one exec at a time) */
	__u64 release_seq;	/* the last hold the recorder continued (user space writes it) */
	__u64 lost;		/* events the ring buffer had no room for (target not held) */
	__u64 send_failed;	/* bpf_send_signal() failures (target not held) */
};

#endif
