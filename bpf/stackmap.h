/* stackmap.h — a stack map keyed by a 64-bit hash of the stack's ips: the key and the
 * value shared by the collectors that take stacks (cpuprof, heap, goalloc) and by
 * record/stack_table.c, which reads them back (stackmap__read).
 *
 * Why not BPF_MAP_TYPE_STACK_TRACE and bpf_get_stackid: that map keys a stack by its
 * hash & (buckets - 1) and keeps one stack per bucket, so a second stack landing in a
 * taken bucket is lost (-EEXIST), at about k^2/2 x 1/buckets for k stacks. Here two
 * distinct stacks share a key only if their 64-bit hashes and depths are equal (about
 * k^2/2^65); the map is a plain hash map, full only when it holds max_entries stacks.
 */
#ifndef PTOP_BPF_STACKMAP_H
#define PTOP_BPF_STACKMAP_H

/* Deepest stack kept (the kernel's default kernel.perf_event_max_stack). */
#define SM_MAX_DEPTH 127

/* The key of a stack in a stack map. */
struct sm_key {
	__u64 hash;		/* of the ips, in order; never 0 for a stack (0: no stack) */
	__u32 nr;		/* ips in the stack, 1..SM_MAX_DEPTH */
	__u32 kernel;		/* 1: kernel addresses */
};

/* The ips of a stack, innermost first; only the first nr (of its key) count. */
struct sm_ips {
	__u64 ips[SM_MAX_DEPTH];
};

#endif
