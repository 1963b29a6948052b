/* report.h — the syscalls collector's report (report.c) and the per-syscall sums it
 * shares with its figures and with `report io` (collectors/io/report.c). */
#ifndef PTOP_SYSCALLS_REPORT_H
#define PTOP_SYSCALLS_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <sqlite3.h>

#include "analyze/report.h"

/* `report syscalls`' own options (o->own): --sort */
enum report_sort {
	SORT_COUNT = 0,
	SORT_TOTAL,
};

struct syscalls_opts {
	enum report_sort sort; /* --sort count|total */
};

struct syscall_agg {
	int64_t nr;
	char name[64];
	bool name_known; /* false: "sys_N", a number unknown to ptop's table and the recorder's */
	bool probe;	 /* a syscall of the uprobe trampolines (syscall_table__is_probe):
			  * probe overhead, not the target's own */
	uint64_t count, completed, errors, total_ns;
	uint64_t hist[HIST_BUCKETS];
};

/* Sum syscall_stat and syscall_hist per syscall over the window. Names come from
 * ptop's syscall table for the capture's machine when it knows the number (else
 * the stored name); probe is set from the same table. *OUT is malloc'd (caller
 * frees), sorted by SORT (ties by name), probe rows included. 0 or -errno. */
int syscalls__aggregate(sqlite3 *db, const struct capture_meta *m, const struct window *w,
			enum report_sort sort, struct syscall_agg **out, size_t *n);

/* Reorder A[0..N) so the target's own syscalls come first and the probe overhead
 * rows (probe set) after them, each part keeping its order. Returns the number of
 * the target's rows. */
size_t syscalls__split_probe(struct syscall_agg *a, size_t n);

/* The report: print to OUT in o->fmt. Returns 0, or -errno for an internal
 * failure (the caller maps it to the exit code); -EBADMSG for figures no capture can
 * hold (a corrupt DB, said on stderr: "corrupt DB: ..."). A probe that was not active
 * makes the report say "not collected" (JSON: "collected": false) and return 0. */
int report_syscalls(sqlite3 *db, const char *capture_id, const struct report_opts *o, FILE *out);

#endif
