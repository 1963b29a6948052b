/* report.h — the lifecycle collector's process model, which `report tree` prints and its
 * figures (figures.c) count. */
#ifndef PTOP_LIFECYCLE_REPORT_H
#define PTOP_LIFECYCLE_REPORT_H

#include <stdbool.h>
#include <stdint.h>

#include "analyze/report.h"

/* One process of the subtree: from its fork (or the start, 'present') to its exit. */
struct lc_proc {
	int64_t pid, ppid;	 /* ppid -1: not known */
	int64_t start_ns;	 /* its fork; -1: there at the start */
	int64_t end_ns;		 /* its exit; -1: not seen to exit */
	int64_t exit_code;	 /* -1: none (running, a signal, or not known) */
	bool status_unknown;	 /* it exited with a status not known (the /proc lane) */
	int64_t signal;		 /* 0: none */
	bool core;
	int64_t cpu_ns;		 /* -1: not measured */
	unsigned execs;
	char comm[32];		 /* its latest name: at its fork, exec or exit */
	char *cmd;		 /* the last exec's argv (or the start's cmdline) joined by spaces;
				  * NULL: not known */
	bool cmd_cut;		 /* argv was cut */
	long parent;		 /* index of its parent process; -1: a root */
	unsigned depth;
};

struct lc_model {
	struct lc_proc *p; /* in order of their start */
	size_t n;
	/* the events of the window */
	uint64_t forks, execs, exits, killed, failed, unknown;
};

/* The processes of capture M whose lifetime meets window W, and the window's events, into
 * MD (free it with lc_model__free). 0, -ENOMEM, -EIO. */
int lc_model__load(sqlite3 *db, const struct capture_meta *m, const struct window *w,
		   struct lc_model *md);
void lc_model__free(struct lc_model *md);

#endif
