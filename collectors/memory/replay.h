/* replay.h — the memory collector's replay series (replay.c): memory_sample summed over the
 * target's pids per interval end, read once when the replay model opens. Its view and the tests
 * read it.
 */
#ifndef PTOP_COLLECTORS_MEMORY_REPLAY_H
#define PTOP_COLLECTORS_MEMORY_REPLAY_H

#include "analyze/replay_model.h"

struct rm_mem {
	int64_t t;
	int64_t rss, pss, uss, pss_anon, pss_file, pss_shmem, swap, vsize; /* bytes or RM_NULL */
	int64_t minflt, majflt;						   /* deltas or RM_NULL */
};

struct memory_series {
	struct rm_mem *s; /* by time */
	size_t n;
};

/* M's memory series (never NULL: the model holds one for every capture). */
static inline struct memory_series *memory_series(const struct replay_model *m)
{
	return replay_model__state(m, "memory");
}

/* Index of the last sample ending at or before T; -1 when none. */
ssize_t memory_series__at(const struct memory_series *r, int64_t t);

#endif
