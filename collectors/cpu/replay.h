/* replay.h — the cpu collector's replay series (replay.c): its samples summed over the target's
 * pids per interval end, read once when the replay model opens; its view and the tests read it.
 */
#ifndef PTOP_COLLECTORS_CPU_REPLAY_H
#define PTOP_COLLECTORS_CPU_REPLAY_H

#include "analyze/replay_model.h"

struct rm_cpu {
	int64_t t, interval;  /* end of the interval, its length (ns) */
	int64_t oncpu;	      /* eBPF lane, ns; RM_NULL when absent */
	int64_t user, system; /* /proc lane, ns; RM_NULL when absent */
	int64_t threads;
};

struct cpu_series {
	struct rm_cpu *s; /* by time */
	size_t n;
};

/* M's cpu series (never NULL: the model holds one for every capture). */
static inline struct cpu_series *cpu_series(const struct replay_model *m)
{
	return replay_model__state(m, "cpu");
}

/* Index of the last sample ending at or before T; -1 when none. */
ssize_t cpu_series__at(const struct cpu_series *c, int64_t t);

/* CPU use of sample I as a percentage of one CPU: the eBPF lane when measured, else the /proc
 * lane; NAN when neither was. */
double cpu_series__pct(const struct replay_model *m, const struct cpu_series *c, size_t i);

#endif
