// SPDX-License-Identifier: GPL-2.0
/* bench_uprobe_noop.bpf.c — the bare-trap floor for the heap bench: programs for the
 * allocator's probe points (uprobes on malloc, calloc, realloc, free, posix_memalign,
 * aligned_alloc, memalign, valloc, pvalloc and uretprobes on those that return a
 * pointer) that only count their hits. What a target pays with these attached is the
 * price of the traps themselves; bench/bench_uprobe_floor.c attaches them. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "GPL";

/* one counter per program, read by bench_uprobe_floor when it detaches */
__u64 hits_malloc, hits_malloc_ret;
__u64 hits_calloc, hits_calloc_ret;
__u64 hits_realloc, hits_realloc_ret;
__u64 hits_free;
__u64 hits_posix_memalign, hits_posix_memalign_ret;
__u64 hits_aligned_alloc, hits_aligned_alloc_ret;
__u64 hits_memalign, hits_memalign_ret;
__u64 hits_valloc, hits_valloc_ret;
__u64 hits_pvalloc, hits_pvalloc_ret;

#define COUNTER(prog, sec, var)                                                                    \
	SEC(sec)                                                                                   \
	int prog(struct pt_regs *ctx)                                                              \
	{                                                                                          \
		__sync_fetch_and_add(&var, 1);                                                     \
		return 0;                                                                          \
	}

COUNTER(malloc_entry, "uprobe", hits_malloc)
COUNTER(malloc_ret, "uretprobe", hits_malloc_ret)
COUNTER(calloc_entry, "uprobe", hits_calloc)
COUNTER(calloc_ret, "uretprobe", hits_calloc_ret)
COUNTER(realloc_entry, "uprobe", hits_realloc)
COUNTER(realloc_ret, "uretprobe", hits_realloc_ret)
COUNTER(free_entry, "uprobe", hits_free)
COUNTER(posix_memalign_entry, "uprobe", hits_posix_memalign)
COUNTER(posix_memalign_ret, "uretprobe", hits_posix_memalign_ret)
COUNTER(aligned_alloc_entry, "uprobe", hits_aligned_alloc)
COUNTER(aligned_alloc_ret, "uretprobe", hits_aligned_alloc_ret)
COUNTER(memalign_entry, "uprobe", hits_memalign)
COUNTER(memalign_ret, "uretprobe", hits_memalign_ret)
COUNTER(valloc_entry, "uprobe", hits_valloc)
COUNTER(valloc_ret, "uretprobe", hits_valloc_ret)
COUNTER(pvalloc_entry, "uprobe", hits_pvalloc)
COUNTER(pvalloc_ret, "uretprobe", hits_pvalloc_ret)
