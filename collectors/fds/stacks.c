/* stacks.c — the fds collector's stack columns (analyze/symbolize.h): the opening site of
 * each fd_site row (--fd-stacks), in its process. The row is written at the end of the
 * recording, not when the site first opened an fd: the time is unknown, and the mappings
 * still there at the end place it. */
#include "analyze/part.h"
#include "analyze/symbolize.h"

static const struct an_stack_col site_stack = {
	.table = "fd_site",
	.column = "stack_id",
	.kind = "user",
	.pid = "fd_site.pid",
};

const struct an_stack_col *const fds_stack_cols[] = { &site_stack, NULL };
