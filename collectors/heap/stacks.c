/* stacks.c — the heap collector's stack columns (analyze/symbolize.h): the allocation
 * stacks of its call sites, each taken in the interval of its snapshot. */
#include "analyze/part.h"
#include "analyze/symbolize.h"

static const struct an_stack_col site_stack = {
	.table = "heap_site",
	.column = "stack_id",
	.kind = "user",
	.from = "heap_site JOIN heap_snapshot h USING (cap, seq)",
	.pid = "h.pid",
	.time = "h.time_ns - COALESCE(h.interval_ns, 0)",
};

const struct an_stack_col *const heap_stack_cols[] = { &site_stack, NULL };
