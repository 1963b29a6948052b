/* report.h — the locks collector's totals, which `report locks` prints and its figures
 * (figures.c) give. */
#ifndef PTOP_LOCKS_REPORT_H
#define PTOP_LOCKS_REPORT_H

#include <stdbool.h>
#include <stdint.h>

#include "analyze/report.h"

struct locks_sum {
	uint64_t words, waits, wait_ns, wakes, woken;
};

/* The totals of capture M over window W (its intervals: report.h) into S. 0, -EIO. */
int locks_sum__load(sqlite3 *db, const struct capture_meta *m, const struct window *w,
		    struct locks_sum *s);

#endif
