/* replay.h — the syscalls collector's replay series (replay.c): syscall_stat per interval end
 * and syscall, read once when the replay model opens; the latency histograms of the interval on
 * screen, read when shown. Its view and the tests read it.
 */
#ifndef PTOP_COLLECTORS_SYSCALLS_REPLAY_H
#define PTOP_COLLECTORS_SYSCALLS_REPLAY_H

#include "analyze/replay_model.h"

struct rm_sys { /* one syscall in one interval (summed over the target's pids) */
	int64_t nr;
	const char *name; /* points into the series' name table */
	bool probe; /* a syscall of the uprobe trampolines: probe overhead, not the target's */
	uint64_t count, completed, errors, total_ns;
	uint32_t hist_off; /* its log2 latency buckets: hist[hist_off .. + hist_n) */
	uint32_t hist_n;
};

struct rm_bucket {
	uint8_t bucket;
	uint64_t count;
};

struct rm_sys_interval {
	int64_t t, interval;
	size_t first, n; /* sys[first .. first + n) */
};

struct syscalls_series {
	struct rm_sys *sys;
	size_t nsys;
	struct rm_sys_interval *sysi; /* by time */
	size_t nsysi;
	struct rm_bucket *hist; /* the buckets of one interval's rows (hist_iv), read on demand */
	size_t nhist, hist_cap;
	int64_t hist_iv;       /* the interval whose buckets hist holds; RM_NULL: none */
	sqlite3_stmt *hist_st; /* one syscall's buckets in one interval, prepared at open */
	char **names;	       /* syscall names, one per distinct nr */
	size_t nnames;
	bool sys_probe; /* some row is probe overhead (rm_sys.probe) */
};

/* M's syscalls series (never NULL: the model holds one for every capture). */
static inline struct syscalls_series *syscalls_series(const struct replay_model *m)
{
	return replay_model__state(m, "syscalls");
}

/* Index of the last interval ending at or before T; -1 when none. */
ssize_t syscalls_series__at(const struct syscalls_series *r, int64_t t);

/* The PCT-th percentile latency estimate of syscall row S (hist_percentile over its buckets, as
 * `report syscalls` computes it); reads the histograms of S's interval when they are not the ones
 * in memory (one indexed query per syscall of the interval). 0 with *EST set, -ENODATA when it
 * has no histogram, -EIO on an SQLite error. */
int syscalls_series__pct(const struct replay_model *m, struct syscalls_series *r,
			 const struct rm_sys *s, unsigned pct, uint64_t *est);

#endif
