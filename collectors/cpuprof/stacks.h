/* stacks.h — the cpuprof collector's profile for `export` (stacks.c). */
#ifndef PTOP_CPUPROF_STACKS_H
#define PTOP_CPUPROF_STACKS_H

#include <stdint.h>

#include "analyze/export.h"

/* P as the samples `export --profile cpu` writes: folded weights its samples; pprof's
 * sample types samples/count and cpu/nanoseconds (count x 1e9 / requested_hz), period
 * cpu/nanoseconds. S->p is P (not owned: S->p is left to the caller). 0, -ENOMEM, or
 * -EOVERFLOW when a stack's CPU time passes 2^63 ns (a corrupt DB). */
int cpu_samples(struct profile *p, struct prof_samples *s);

/* P as a gzipped pprof Profile (prof_samples__pprof of cpu_samples) in *OUT (malloc'd),
 * *OUTLEN bytes; TIME_NANOS is the wall time of the first interval. 0, -ENOMEM or
 * -EOVERFLOW. */
int export_pprof(struct profile *p, int64_t time_nanos, uint8_t **out, size_t *outlen);

#endif
