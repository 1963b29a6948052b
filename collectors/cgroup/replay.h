/* replay.h — the cgroup collector's replay series (replay.c): the cgroup samples of the whole
 * capture, read once when the replay model opens (as `report cgroup` reads them); the state at
 * one sample (memory.stat, OOM events, the processes in it), read when shown, with checkpoints
 * of the processes seen so that a seek reads few samples. Its view reads it.
 */
#ifndef PTOP_COLLECTORS_CGROUP_REPLAY_H
#define PTOP_COLLECTORS_CGROUP_REPLAY_H

#include "analyze/replay_model.h"
#include "analyze/report.h"
#include "collectors/cgroup/report.h"

/* The cgroup collector's state at one of its samples (cgroup_series__at_sample), read with
 * report.c's loaders. */
struct rm_cgroup {
	size_t at;	       /* the sample: index into cg.s */
	struct cg_stat stat;   /* memory.stat at it (stat.at NULL: no memory lane read) */
	struct cg_oom oom;     /* OOM events summed from the start to it */
	struct cg_proc *procs; /* the processes in that sample (their last covered read), by PSS */
	size_t nprocs;
};

#define RM_CG_CP 256 /* samples between two checkpoints of the cgroup processes seen */

struct rm_cg_checkpoint {
	struct cg_proc *seen; /* NULL: not taken yet */
	size_t n;
};

struct cgroup_series {
	struct cg_data cg; /* the cgroup samples of the whole capture (probe cgroup active) */
	/* the cgroup state at one sample, cached (cgroup_series__state) */
	int64_t cg_cached; /* sample index cached, RM_NULL: none */
	struct rm_cgroup cgs;
	/* every process seen up to sample cg_seen_to, with its last covered read, by pid: moving
	 * forward reads only the samples after it; going back starts from the checkpoint before */
	struct cg_proc *cg_seen;
	size_t ncg_seen;
	int64_t cg_seen_to;		 /* sample index; RM_NULL: none read */
	struct rm_cg_checkpoint *cg_cps; /* cg_cps[k]: cg_seen at sample (k + 1) * RM_CG_CP - 1 */
	size_t ncg_cps;
};

/* M's cgroup series (never NULL: the model holds one for every capture). */
static inline struct cgroup_series *cgroup_series(const struct replay_model *m)
{
	return replay_model__state(m, "cgroup");
}

/* Index of the last sample at or before T (relative to the capture start) in r->cg.s; -1 when
 * none. */
ssize_t cgroup_series__at(const struct replay_model *m, const struct cgroup_series *r, int64_t t);

/* The cgroup state at sample index CI: *OUT points into R (valid until the next call with
 * another CI). Reads the process rows of the samples after the last CI asked for (all up to CI
 * when it goes back). 0, -EINVAL (no such sample), -ENOMEM, -EIO. */
int cgroup_series__state(const struct replay_model *m, struct cgroup_series *r, size_t ci,
			 const struct rm_cgroup **out);

#endif
