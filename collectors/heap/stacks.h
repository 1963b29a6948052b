/* stacks.h — the heap collector's profile for `export` (stacks.c). */
#ifndef PTOP_HEAP_STACKS_H
#define PTOP_HEAP_STACKS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "analyze/export.h"
#include "collectors/heap/report.h" /* struct heap_stacks */

/* The heap figures HS (heap_stacks__load) as a gzipped pprof Profile, a Go heap profile:
 * sample types alloc_objects/count, alloc_space/bytes, inuse_objects/count,
 * inuse_space/bytes (the inuse ones only when the live heap was measured), period
 * space/bytes the mean bytes between stack samples (0: every allocation), default
 * inuse_space; a stackless entry is one frame named as it is ("[sites left out]"...).
 * Stacks whose figures are all 0 are left out. 0, -ENOMEM, -EOVERFLOW. */
int export_heap_pprof(const struct heap_stacks *hs, int64_t time_nanos, uint8_t **out,
		      size_t *outlen);

/* HS as folded stacks (export_folded) weighted by live bytes (LIVE) or bytes allocated in
 * the window. 0 or -errno. */
int export_heap_folded(const struct heap_stacks *hs, bool live, FILE *f);

#endif
