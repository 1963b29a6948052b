/* report.h — what `report fds` loads (collectors/fds/report.c), shared with the fds figures
 * (figures.c) so that a figure is the number the report prints.
 */
#ifndef PTOP_FDS_REPORT_H
#define PTOP_FDS_REPORT_H

#include <stddef.h>
#include <stdint.h>

#include <sqlite3.h>

#include "analyze/figures.h" /* struct fig_series */
#include "analyze/report.h"

#define FDS_NTYPES 9

/* The types as the capture names them, in fd_sample's column order. */
extern const char *const fds_type_col[FDS_NTYPES];

/* A window's fd samples (those whose interval's middle lies in it), in time order. Index 0
 * of first, last and peak_at is the total, 1..FDS_NTYPES the types. */
struct fds_span {
	size_t n;	/* samples */
	int64_t t0, t1; /* the first's and the last's time (absolute ns) */
	int64_t first[FDS_NTYPES + 1], last[FDS_NTYPES + 1];
	int64_t peak; /* the largest total */
	/* each column's series (fig_value.spread of its peak and last value), and how far the
	 * second sample is from the first (the first falls at a random point of the target's
	 * start-up: a growth is no more exact than that step) */
	struct fig_series ser[FDS_NTYPES + 1];
	int64_t first_step[FDS_NTYPES + 1];
};

/* The samples of capture M in window W into *SP (n 0: none). 0 or -EIO. */
int fds_span__load(sqlite3 *db, const struct capture_meta *m, const struct window *w,
		   struct fds_span *sp);

/* The eBPF lane's (--fd-stacks) opens, failures, closes and EMFILE/ENFILE failures over
 * window W, every syscall summed. */
struct fds_ops_sum {
	int64_t opened, failed, closed, emfile;
};

/* The sums of capture M in W into *S (zeros: none in W). Meaningful only when the probe's
 * source is ebpf: the /proc lane writes no fd_op rows. 0 or -EIO. */
int fds_ops__sum(sqlite3 *db, const struct capture_meta *m, const struct window *w,
		 struct fds_ops_sum *s);

/* Why the opens and closes of probe P were not collected (from its detail, else "the
 * eBPF lane did not run: it needs --fd-stacks"). Points into P or a constant. */
const char *fds__opens_reason(const struct probe_info *p);

#endif
