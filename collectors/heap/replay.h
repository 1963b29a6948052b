/* replay.h — the heap collector's replay series (replay.c): heap_snapshot summed per interval
 * end, read once when the replay model opens; the call sites of one snapshot, read when shown.
 * Its view reads it.
 */
#ifndef PTOP_COLLECTORS_HEAP_REPLAY_H
#define PTOP_COLLECTORS_HEAP_REPLAY_H

#include "analyze/replay_model.h"

struct heap_sites;

struct rm_heap {
	int64_t t, interval;
	int64_t alloc_count, alloc_bytes;
	int64_t live_bytes, leak_bytes; /* RM_NULL when not measured */
	int64_t sample_bytes;		/* mean bytes between stack samples; 0: every allocation */
	char lane[16];
};

struct heap_series {
	struct rm_heap *s; /* by time */
	size_t n;
	/* the call sites of one snapshot, cached (heap_series__sites) */
	int64_t sites_hi; /* snapshot index cached, RM_NULL: none */
	struct heap_sites *sites_iv, *sites_hist;
};

/* M's heap series (never NULL: the model holds one for every capture). */
static inline struct heap_series *heap_series(const struct replay_model *m)
{
	return replay_model__state(m, "heap");
}

/* Index of the last snapshot ending at or before T; -1 when none. */
ssize_t heap_series__at(const struct heap_series *r, int64_t t);

/* The heap call sites at snapshot index HI, folded by allocating function as `report heap`
 * does (collectors/heap/report.c): *IV over that snapshot's interval (live bytes at it, bytes and
 * count allocated in it), *HIST from the capture start to it, with the leak suspects as
 * `report leaks` ranks them. Both point into R (valid until the next call with another HI).
 * 0, -EINVAL (no such snapshot), or -errno of heap_sites__load. */
int heap_series__sites(const struct replay_model *m, struct heap_series *r, size_t hi,
		       struct heap_sites **iv, struct heap_sites **hist);

#endif
