/* report.h — the cpu collector's report (report.c). */
#ifndef PTOP_CPU_REPORT_H
#define PTOP_CPU_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <sqlite3.h>

#include "analyze/report.h"
#include "analyze/symbolize.h" /* struct prof_fn */

struct profile;

/* `report cpu`'s own options (o->own): --pid */
struct cpu_opts {
	int32_t pid; /* the profile of this process only; 0: all */
};

/* The report: print to OUT in o->fmt. Returns 0, or -errno for an internal
 * failure (the caller maps it to the exit code); -EBADMSG for figures no capture can
 * hold (a corrupt DB, said on stderr: "corrupt DB: ..."). A probe that was not active
 * makes the report say "not collected" (JSON: "collected": false) and return 0. */
int report_cpu(sqlite3 *db, const char *capture_id, const struct report_opts *o, FILE *out);

struct prof_top {
	struct prof_fn *fn; /* sorted by self (then total, then name) */
	size_t n;
	uint64_t samples;   /* samples with a stack (the shares' denominator) */
	uint64_t unnamed;   /* of those, samples whose innermost frame has no name */
	uint64_t no_frames; /* samples whose stacks held no frame at all */
};

/* Self and total samples per function of profile P (report.c). Inlined
 * functions count as functions of their own; a function appearing several
 * times in one stack (recursion) is counted once in its total. 0 or -ENOMEM;
 * free with prof_top__free. */
int prof_top__build(const struct profile *p, struct prof_top *t);
void prof_top__free(struct prof_top *t);

#endif
