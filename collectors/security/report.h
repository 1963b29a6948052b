/* report.h — what `report security` loads (collectors/security/report.c), shared with its
 * figures (figures.c) so that a figure is the number the report prints. */
#ifndef PTOP_SECURITY_REPORT_H
#define PTOP_SECURITY_REPORT_H

#include <stdint.h>

#include <sqlite3.h>

#include "analyze/report.h"

/* The security events of capture M in window W, counted. */
struct security_counts {
	int64_t exec_calls; /* mmap/mprotect with PROT_EXEC that succeeded */
	int64_t wx;	    /* of them, writable and executable at once */
	int64_t anon;	    /* of them, of anonymous memory (not W^X) */
	int64_t file;	    /* of them, of a file */
	int64_t failed;	    /* those that failed */
	int64_t ptrace;	    /* ptrace attaches (every result) */
	int64_t setid;	    /* set-user-ID / file-capability execs */
	int64_t cap_denied; /* failed capability checks; -1: not collected */
};

/* The counts of capture M in W into *S. 0 or -EIO. */
int security_counts__load(sqlite3 *db, const struct capture_meta *m, const struct window *w,
			  struct security_counts *s);

#endif
