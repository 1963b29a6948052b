/* report.h — what the signals collector's report computes for its figures (figures.c). */
#ifndef PTOP_SIGNALS_REPORT_H
#define PTOP_SIGNALS_REPORT_H

#include <stdint.h>

#include "analyze/report.h"

/* The window's signals by name: sent (generated to a target thread), taken (delivered to
 * one), of those handled by the program, and fatal by the default action. */
struct signals_by {
	char name[32];
	uint64_t sent, taken, handled, fatal;
};

struct signals_sum {
	uint64_t sent, taken;
	struct signals_by *by; /* in order of the report's rows (malloc'd) */
	size_t n;
};

/* The sums `report signals` prints for window W of capture M into S (free it with
 * signals_sum__free). 0, -ENOMEM, -EIO. */
int signals_sum__load(sqlite3 *db, const struct capture_meta *m, const struct window *w,
		      struct signals_sum *s);
void signals_sum__free(struct signals_sum *s);

#endif
