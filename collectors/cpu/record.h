/* record.h — the pure parts of the cpu collector (collectors/cpu/record.c), public so that
 * collectors/cpu/test_cpu.c can check them without BPF or a target. */
#ifndef PTOP_RECORD_CPU_H
#define PTOP_RECORD_CPU_H

#include <stdbool.h>
#include <stdint.h>

#include "proto/ptop.pb-c.h"
#include "record/procfs.h"

/* Clock ticks to nanoseconds at CLK_TCK ticks per second (> 0). */
uint64_t cpu__ticks_to_ns(uint64_t ticks, long clk_tck);

/* Fill OUT (initialised by the caller) with the /proc lane of one interval: the
 * utime/stime and context-switch deltas between (PREV_ST, PREV_SS) and (ST, SS),
 * the cumulative ticks and the thread count of ST. A counter that went backwards
 * (it should not) gives a delta of 0. */
void cpu__proc_sample(const struct proc_stat *prev_st, const struct proc_status *prev_ss,
		      const struct proc_stat *st, const struct proc_status *ss, long clk_tck,
		      Ptop__V1__CpuProc *out);

/* The eBPF lane's on-CPU delta for an interval. EST is this poll's estimate of the
 * target's total on-CPU time since attach (finished slices + slices in progress);
 * *EMITTED the total emitted so far. An estimate can read low when a slice ends
 * between the reads, never high, so the emitted total never goes back: returns
 * max(EST - *EMITTED, 0) and advances *EMITTED by it. */
uint64_t cpu__oncpu_advance(uint64_t *emitted, uint64_t est);

/* A cgroup v2 cpu.stat: the totals the cgroup lane reads. THROTTLING: the v2 cpu
 * controller is enabled, so nr_periods, nr_throttled and throttled_usec were there. */
struct cpu_cg_stat {
	uint64_t usage_us, user_us, system_us;
	bool throttling;
	uint64_t periods, throttled, throttled_us;
};

/* Parse cpu.stat TEXT into S. 0, -EINVAL when a line is not "key number" or
 * usage_usec, user_usec or system_usec is missing, -ENOMEM. */
int cpu__parse_cg_stat(const char *text, struct cpu_cg_stat *s);

/* Fill OUT (initialised by the caller) with the cgroup lane of one interval: the
 * deltas from PREV to CUR in ns; throttling only when both readings have it. A
 * counter that went backwards gives 0. */
void cpu__cg_sample(const struct cpu_cg_stat *prev, const struct cpu_cg_stat *cur,
		    Ptop__V1__CpuCgroup *out);

#endif
