/* stacks.c — the cpuprof collector's stack columns (analyze/symbolize.h): the user and
 * kernel stack of each cpu_profile_stack row, taken in the interval of its cpu_profile row.
 * A user stack of a per-process profile (cgroup mode) is its process's alone
 * (cpu_profile_stack.pid), else the event's; kernel frames belong to no process. */
#include "analyze/part.h"
#include "analyze/symbolize.h"

#define FROM_INTERVAL "cpu_profile_stack JOIN cpu_profile p USING (cap, seq)"
#define INTERVAL_START "p.time_ns - COALESCE(p.interval_ns, 0)"

static const struct an_stack_col user_stack = {
	.table = "cpu_profile_stack",
	.column = "user_stack_id",
	.kind = "user",
	.from = FROM_INTERVAL,
	.pid = "COALESCE(cpu_profile_stack.pid, p.pid)",
	.time = INTERVAL_START,
	.own = "cpu_profile_stack.pid IS NOT NULL",
};

static const struct an_stack_col kernel_stack = {
	.table = "cpu_profile_stack",
	.column = "kernel_stack_id",
	.kind = "kernel",
	.from = FROM_INTERVAL,
	.pid = "p.pid",
	.time = INTERVAL_START,
};

const struct an_stack_col *const cpuprof_stack_cols[] = { &user_stack, &kernel_stack, NULL };
