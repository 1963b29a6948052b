/* report.h — what the tls collector's figures (figures.c) take from its report (report.c):
 * the totals `report tls` prints, over a window. */
#ifndef PTOP_TLS_REPORT_H
#define PTOP_TLS_REPORT_H

#include <stdbool.h>
#include <stdint.h>

#include "analyze/report.h"

struct tls_totals {
	bool attached;	      /* a libssl was attached (tls_attach has a row) */
	uint64_t conns;	      /* SSL objects with calls in the window */
	uint64_t calls[2];    /* [0] written, [1] read */
	uint64_t bytes[2];
	uint64_t lat_ns[2];   /* summed */
};

/* The totals of window W of capture M, from the rows `report tls` prints. 0 or -errno. */
int tls_rows__totals(sqlite3 *db, const struct capture_meta *m, const struct window *w,
		     struct tls_totals *tt);

#endif
