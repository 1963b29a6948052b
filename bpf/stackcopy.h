/* stackcopy.h — a copy of the top of a thread's user stack and its registers, taken in
 * the kernel where a frame-pointer walk is not enough (--user-stacks dwarf|auto), for
 * ptop-analyze to finish the walk offline from the modules' CFI (analyze/unwind.c), as
 * `perf --call-graph dwarf` does. Shared by bpf/stackcopy.bpf.h, the collectors that
 * take stacks (cpuprof, heap) and record/stackcopy.c, which writes the copies out.
 *
 * Only the words an unwinder can need are kept: a word holding an address in an
 * executable mapping of the thread (a return address), or an address inside the copy
 * itself (a saved frame pointer, a pointer to a local); every other word is zeroed in
 * the kernel. So the copy carries no data of the target's (captures are sensitive),
 * compresses well, and is keyed by a 64-bit hash of exactly what it holds (the kept
 * words at their offsets, stack addresses relative to sp, ip, the size): two samples
 * with one key unwind to one stack, and a copy is sent once per key, not per sample.
 *
 * sc_take (bpf/stackcopy.bpf.h) needs only the thread's user registers and its task, so
 * any program that takes stacks can use it: a perf_event sample (cpuprof: the registers
 * from bpf_task_pt_regs, whichever mode the timer hit), a uprobe (heap: its pt_regs),
 * and the off-CPU stacks to come from sched_switch (the switched-out task's
 * bpf_task_pt_regs; interrupts are off there too: SC_LOOKUPS_PERF). Each program keeps
 * its own "sent" map and ring; user space gives every copy a capture stack id
 * (record/stackcopy.h), whichever collector sent it.
 */
#ifndef PTOP_BPF_STACKCOPY_H
#define PTOP_BPF_STACKCOPY_H

/* Bytes copied from the user sp at most (the first 16 KiB of the stack). */
#define SC_MAX_BYTES 16384
#define SC_MAX_WORDS (SC_MAX_BYTES / 8)
/* VMAs remembered per process (struct sc_vmas), and the bpf_find_vma calls a copy
 * may make in a context that allows several (a uprobe: in a perf_event program, whose
 * interrupts are off, the mm lock's release waits for an irq_work, so one call per
 * run is all there is). A word in no remembered VMA once the calls are spent is kept
 * (SC_F_UNKNOWN): it may be a return address, and zeroing one would cut the stack. */
#define SC_VMAS 24
#define SC_LOOKUPS_UPROBE 32
#define SC_LOOKUPS_PERF 1
/* The kind of a struct sm_key (bpf/stackmap.h) that names a stack copy: its hash is
 * the copy's key, nr its words. */
#define SM_KIND_COPY 2

/* sc_copy.flags */
#define SC_F_SHORT 1		/* less than SC_MAX_BYTES could be read (end of the stack) */
#define SC_F_UNKNOWN 2		/* words in no VMA known yet were kept unclassified */
#define SC_F_VMA_BUSY 4		/* a VMA lookup found the mm locked */

/* The VMAs of one process the copies have met (an LRU per-CPU hash by tgid in each
 * program; user space forgets each process's every interval, so that a change of its
 * mappings is seen). */
struct sc_vmas {
	__u64 start[SC_VMAS];
	__u64 end[SC_VMAS];
	__u32 exec;		/* bit k: VMA k is executable */
	__u32 next;		/* learned VMAs so far: the next goes to slot fixed + next %
				 * (SC_VMAS - fixed) */
	__u32 fixed;		/* slots user space filled that learning keeps (the
				 * executable ones), < SC_VMAS */
	__u32 map_count;	/* complete: the process's VMAs when filled */
	__u32 complete;		/* 1: user space filled every executable mapping; while
				 * the process still has map_count VMAs (nothing mapped
				 * or unmapped since), a word in none of them is no
				 * return address and is zeroed without a lookup */
	__u32 pad2;
	__u64 ino;		/* the inode of the process's executable when filled */
	__u64 mm;		/* its address space (the kernel's mm); 0: filled by user
				 * space, not checked yet. Another mm (an exec) or, when
				 * filled, another executable: the table starts afresh */
};

/* One copy, as the ring buffer carries it: the header, then `bytes` of stack
 * (only those are sent). */
struct sc_copy {
	__u64 hash;		/* the key (never 0) */
	__u32 tgid;
	__u32 tid;
	__u64 ip;		/* user registers at the sample (or the probe) */
	__u64 sp;
	__u64 bp;		/* 0 unless it pointed into the copy */
	__u64 time_ns;		/* bpf_ktime_get_ns() */
	__u32 bytes;		/* of stack that follow, from sp */
	__u32 flags;		/* SC_F_* */
	__u64 words[SC_MAX_WORDS];
};

#define SC_HDR_BYTES 56		/* offsetof(struct sc_copy, words) */

#endif
