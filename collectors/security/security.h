/* security.h — structs and constants shared by collectors/security/security.bpf.c and
 * collectors/security/record.c. */
#ifndef PTOP_BPF_SECURITY_H
#define PTOP_BPF_SECURITY_H

#include "bpf/stackmap.h"

/* What an event is. */
enum sec_kind {
	SEC_K_MMAP = 1,	    /* mmap with PROT_EXEC */
	SEC_K_MPROTECT = 2, /* mprotect or pkey_mprotect with PROT_EXEC */
	SEC_K_PTRACE = 3,   /* ptrace PTRACE_ATTACH or PTRACE_SEIZE */
	SEC_K_EXEC = 4,	    /* an exec that changed the credentials (set-user-ID, file caps) */
};

/* How the user stacks are taken: sec_user_stacks, set before load (--user-stacks). */
#define SEC_USER_FP 0	/* bpf_get_stack: a frame-pointer walk */
#define SEC_USER_COPY 1 /* a copy of the stack's top (bpf/stackcopy.h), unwound offline */

#define SEC_STACKS 4096		  /* frame-pointer stacks kept */
#define SEC_PENDING 4096	  /* threads between a call's entry and exit at once */
#define SEC_RING_BYTES (1u << 20) /* the events' ring */
#define SEC_COPIED_ENTRIES 4096
#define SEC_COPY_RING_BYTES (4u << 20)
#define SEC_CAPS 64 /* capabilities counted (the last slot: any beyond) */
#define SEC_COMPS 16	/* path components kept */
#define SEC_COMP_LEN 64 /* bytes of each */
#define SEC_NAME 64 /* bytes of a file's name (its dentry's) or a program's path */

/* A call's arguments from its entry, by thread until its exit. */
struct sec_pending {
	__u32 kind;
	__u32 prot;   /* mmap, mprotect: the protection asked for */
	__u32 flags;  /* mmap: its flags; ptrace: the request */
	__s32 fd;     /* mmap: its fd; ptrace: the tracee's pid */
	__u64 addr;
	__u64 len;
};

/* One event, through the ring. */
struct sec_event {
	__u64 time_ns; /* bpf_ktime_get_ns at the call's exit (CLOCK_MONOTONIC) */
	__u32 kind;    /* enum sec_kind */
	__u32 pid, tid;
	__u32 prot, flags;
	__s32 fd;      /* mmap: its fd (-1: none); ptrace: the tracee's pid */
	__s64 ret;     /* the call's result: an address, 0, or -errno */
	__u64 addr, len;
	/* mmap, mprotect that succeeded: the VMA at addr after the call */
	__u64 vm_start, vm_end;
	__u64 ino;		/* its file's inode; 0: none */
	__u32 has_vma;		/* 1: the VMA was found (vm_*, ino, file) */
	__u32 anon;		/* 1: no file backs it */
	char file[SEC_NAME];	/* its file's name (dentry), "" when anonymous */
	char comm[16];
	/* exec: the credentials after it (uid, euid, gid, egid), its capabilities and
	 * whether the kernel made it a secure exec (AT_SECURE) */
	__u32 uid, euid, gid, egid;
	__u64 cap_permitted, cap_effective;
	__u32 secureexec;
	__u32 pad;
	struct sm_key stack; /* the user stack (hash 0: none) */
	/* its file's path from the kernel's dentries, the file's own name first, up
	 * through the mounts to the root: comps components (SEC_COMPS at most; complete
	 * when path_done), so that the path is known even when the mapping is gone by the
	 * time user space reads the event */
	__u32 comps;
	__u32 path_done;
	char comp[SEC_COMPS][SEC_COMP_LEN];
	/* (comp is last: the kernel side zeroes what comes before it; comp's entries from
	 * comps on are not written) */
};

/* Indexes of the per-CPU counter array sec_counters: what could not be followed. */
enum sec_counter {
	SEC_CNT_RING_FULL = 0,	  /* an event the ring had no room for */
	SEC_CNT_PENDING_FULL = 1, /* a call's entry not kept: its event lost */
	SEC_CNT_STACK_FAIL = 2,	  /* an event without its stack */
	SEC_CNT_COPY_LOST = 3,	  /* a stack copy the ring had no room for */
	SEC_CNT_MAX = 4,
};

#endif
