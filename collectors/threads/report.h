/* report.h — the threads collector's loaders, shared by its report (report.c), its
 * figures (figures.c), and the off-CPU profile export (threads_offcpu__load). */
#ifndef PTOP_COLLECTORS_THREADS_REPORT_H
#define PTOP_COLLECTORS_THREADS_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <sqlite3.h>

#include "analyze/report.h"

/* One thread over a window. A figure of a lane that did not run is -1 (not measured). */
struct thr_row {
	int64_t tid;
	char comm[64];
	int64_t oncpu_ns, off_ns, runnable_ns, sleep_ns, blocked_ns; /* eBPF lane */
	int64_t voluntary, involuntary, migrations, cpu;
	int64_t proc_cpu_ns;  /* /proc lane: utime + stime growth */
	char states[256];     /* the /proc state letter of each interval, in order ('-': none) */
	char wchan[64];	      /* the last wchan /proc showed ("" none) */
	int64_t created_ns, exited_ns; /* relative to the capture start; -1: not in it */
};

struct thr_rows {
	struct thr_row *v;
	size_t n;
	bool ebpf;		 /* some interval of the window had the eBPF lane */
	bool proc;		 /* one process recorded (not cgroup mode): the /proc lane */
	int64_t offcpu_min_ns;	 /* -1: no off-CPU stacks */
	uint64_t skipped, skipped_ns;
	double span_s;		 /* the window's time covered by intervals */
};

/* The threads of capture M over window W, by on-CPU time (then /proc CPU time),
 * descending. 0, -ENOMEM or -EIO. Free with thr_rows__free. */
int thr_rows__load(sqlite3 *db, const struct capture_meta *m, const struct window *w,
		   struct thr_rows *out);
void thr_rows__free(struct thr_rows *r);

/* One (user stack, kernel stack) of the off-CPU profile over a window: the time blocked
 * there and the blocks, summed over threads and reasons (by TID and REASON when asked). */
struct offcpu_row {
	int64_t user_stack_id;	 /* 0: none */
	int64_t kernel_stack_id; /* 0: none */
	int64_t tid;		 /* -1: summed over threads */
	char reason[8];		 /* "" when summed over reasons */
	uint64_t total_ns;
	uint64_t count;
};

/* The off-CPU profile of capture M over window W (offcpu_stack rows whose interval's
 * midpoint is in it), by total_ns descending: per (user, kernel) stack when BY_THREAD is
 * false (what `export --profile offcpu` takes: weights total_ns, in microseconds for
 * folded, nanoseconds for pprof; and count), else per (tid, reason, user, kernel).
 * *OUT is the caller's (free). 0, -ENOMEM or -EIO. */
int threads_offcpu__load(sqlite3 *db, const struct capture_meta *m, const struct window *w,
			 bool by_thread, struct offcpu_row **out, size_t *n);

/* Whether the kernel frame named NAME is the tracing's own (the BPF program, the
 * tracepoint's caller): the first frames of every kernel stack taken at sched_switch,
 * left out when a stack is shown or exported. */
bool threads_frame_is_tracing(const char *name);

#endif
