/* lifecycle.h — what collectors/lifecycle/lifecycle.bpf.c and collectors/lifecycle/record.c
 * share. */
#ifndef PTOP_LIFECYCLE_H
#define PTOP_LIFECYCLE_H

#define LC_PROCS 16384		/* processes of the target's subtree followed at once */
#define LC_FILENAME 256		/* exec: the file name as given, at most this (with its NUL) */
#define LC_ARGS 1024		/* exec: the argument strings, at most this many bytes */
#define LC_RING_BYTES (2u << 20) /* the event ring: ~2,300 execs, ~40,000 forks a poll */

enum lc_kind {
	LC_FORK = 1, /* a process of the subtree made a new process (not a thread) */
	LC_EXEC = 2, /* a process of the subtree exec'd */
	LC_EXIT = 3, /* the last thread of a process of the subtree exited */
};

/* Every event starts with this; an LC_EXEC is a struct lc_exec. */
struct lc_event {
	__u64 time_ns;	/* bpf_ktime_get_ns (CLOCK_MONOTONIC) */
	__u32 kind;	/* enum lc_kind */
	__u32 pid;	/* the process (tgid; root pid namespace): fork: the new one */
	__u32 tid;	/* fork: the thread that forked; exec: the task; exit: the last thread */
	__u32 ppid;	/* fork: the forking process; exec: the thread id before the exec
			 * (another than tid when a thread other than the leader exec'd) */
	__s32 status;	/* exit: the wait status (code << 8, or the signal | 0x80 for a core) */
	__u32 pad;
	__u64 cpu_ns;	/* exit: the on-CPU time of the process's threads */
	char comm[16];	/* the task's name (fork: the new process's, its parent's name) */
};

struct lc_exec {
	struct lc_event h;
	__u32 argc;	 /* the argument count */
	__u32 args_len;	 /* bytes of args read */
	__u64 args_size; /* the size of the argument area (args_len < it: cut) */
	char filename[LC_FILENAME];
	char args[LC_ARGS]; /* the argument strings, each ended by a NUL */
};

#endif
