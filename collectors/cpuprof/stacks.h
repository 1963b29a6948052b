/* stacks.h — the cpuprof collector's CPU profile: its model (stacks_load.c), for
 * `report cpu` and its figures, and its export (stacks.c). */
#ifndef PTOP_CPUPROF_STACKS_H
#define PTOP_CPUPROF_STACKS_H

#include <stdint.h>

#include "analyze/export.h"
#include "analyze/symbolize.h"

/* Read the CPU profile of capture M in window W (the intervals whose midpoint
 * is in it) with the names the store holds. *OUT is the caller's
 * (profile__free). When the cpuprof probe was not active, collected is false
 * and probe says why. 0 or -errno (-EIO, -ENOMEM). */
int profile__load(sqlite3 *db, const struct capture_meta *m, const struct window *w,
		  struct profile **out);

/* profile__load with only the stacks of process PID (0: all): a stack's process
 * is cpu_profile_stack.pid, else cpu_profile.pid. The interval figures
 * (intervals, samples, no_user_stack, lost...) stay the whole profile's, and
 * procs lists every process. 0 or -errno (-EIO, -ENOMEM). */
int profile__load_pid(sqlite3 *db, const struct capture_meta *m, const struct window *w,
		      int32_t pid, struct profile **out);

/* Whether the CPU profile of capture CAP holds samples of process PID (at any
 * time; a stack's process as for profile__load_pid): 0 when it does; -ENOENT
 * when not, with a one-line message for `--pid PID` in ERR naming the processes
 * it has; -EIO. */
int profile__check_pid(sqlite3 *db, int64_t cap, int32_t pid, char *err, size_t errlen);

/* P as the samples `export --profile cpu` writes: folded weights its samples; pprof's
 * sample types samples/count and cpu/nanoseconds (count x 1e9 / requested_hz), period
 * cpu/nanoseconds. S->p is P (prof_samples__free frees it with the values). 0, -ENOMEM, or
 * -EOVERFLOW when a stack's CPU time passes 2^63 ns (a corrupt DB). */
int cpu_samples(struct profile *p, struct prof_samples *s);

/* P as a gzipped pprof Profile (prof_samples__pprof of cpu_samples) in *OUT (malloc'd),
 * *OUTLEN bytes; TIME_NANOS is the wall time of the first interval. 0, -ENOMEM or
 * -EOVERFLOW. */
int export_pprof(struct profile *p, int64_t time_nanos, uint8_t **out, size_t *outlen);

#endif
