/* report.h — the cpu collector's report (report.c). */
#ifndef PTOP_CPU_REPORT_H
#define PTOP_CPU_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <sqlite3.h>

#include "analyze/report.h"

/* `report cpu`'s own options (o->own): --pid */
struct cpu_opts {
	int32_t pid; /* the profile of this process only; 0: all */
};

/* The report: print to OUT in o->fmt. Returns 0, or -errno for an internal
 * failure (the caller maps it to the exit code); -EBADMSG for figures no capture can
 * hold (a corrupt DB, said on stderr: "corrupt DB: ..."). A probe that was not active
 * makes the report say "not collected" (JSON: "collected": false) and return 0. */
int report_cpu(sqlite3 *db, const char *capture_id, const struct report_opts *o, FILE *out);

#endif
