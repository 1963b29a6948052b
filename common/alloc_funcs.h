/* alloc_funcs.h — the allocator functions ptop follows, numbered as both sides of the
 * heap lanes exchange them: the uprobe lane's BPF program (its events' func), the
 * preload library (preload/ptop_preload.c, its ring records' func) and the recorder
 * that reads both. Outside any collector so that the preload library and the kernel
 * side share it without including a collector's header. Plain C: BPF includes it.
 */
#ifndef PTOP_COMMON_ALLOC_FUNCS_H
#define PTOP_COMMON_ALLOC_FUNCS_H

enum alloc_func {
	ALLOC_MALLOC = 0,
	ALLOC_CALLOC,
	ALLOC_REALLOC,
	ALLOC_FREE,
	ALLOC_POSIX_MEMALIGN,
	ALLOC_ALIGNED_ALLOC,
	ALLOC_MEMALIGN,
	ALLOC_VALLOC,
	ALLOC_PVALLOC,
	ALLOC_NFUNCS,
};

#endif
