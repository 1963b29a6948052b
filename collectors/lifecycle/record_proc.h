/* record_proc.h — the lifecycle collector's /proc lane (record_proc.c), and what it shares
 * with record.c. */
#ifndef PTOP_LIFECYCLE_RECORD_PROC_H
#define PTOP_LIFECYCLE_RECORD_PROC_H

#include <stddef.h>
#include <stdint.h>

#include "collectors/lifecycle/lifecycle.pb-c.h"
#include "record/collector.h"

#define LC_ARGV_MAX 256 /* arguments kept of one exec (the bytes are capped at LC_ARGS) */

/* record.c: one LifecycleEvent at time T. */
int lc_emit(struct collector *c, Ptop__V1__LifecycleEvent *le, uint64_t t);
/* record.c: the NUL-ended strings of BUF (LEN bytes) into ARGV (at most MAX). */
size_t lc_split_args(char *buf, size_t len, char **argv, size_t max);

struct lc_proc_lane;

/* Start the /proc lane on c->ctx->pid's subtree as it is now (what it reads is the
 * baseline: present processes are record.c's "present" events). 0 or -errno. */
int lc_proc__start(struct collector *c, struct lc_proc_lane **out);
/* One poll at NOW: new processes as forks, changed exe/cmdline as execs, processes gone
 * as exits (status unknown but for the recorder's own launched command), all at_poll. */
int lc_proc__poll(struct collector *c, struct lc_proc_lane *pl, uint64_t now);
/* New processes not followed so far (the table of LC_PROCS was full). */
uint64_t lc_proc__untracked(const struct lc_proc_lane *pl);
void lc_proc__free(struct lc_proc_lane *pl);

#endif
