/* stacks.c — the toy collector's stack column and profile: toy_wait.stack_id, the place
 * (one frame: the user address a system call returns to) where threads of the target were
 * waiting at a poll, which `symbolize` places and names like any other stack
 * (analyze/symbolize.h); and `export --profile toy` (analyze/export.h), those places
 * weighted by the threads found there over the window: folded in threads, pprof
 * threads/count. */
#include <errno.h>
#include <string.h>

#include "analyze/export.h"
#include "analyze/part.h"

static const struct an_stack_col wait_stack = {
	.table = "toy_wait",
	.column = "stack_id",
	.kind = "user",
	.pid = "toy_wait.pid",
	.time = "toy_wait.time_ns",
};

const struct an_stack_col *const toy_stack_cols[] = { &wait_stack, NULL };

/* Per place in the window: its stack, no pid label (one process), the threads (folded's
 * weight and pprof's one value). */
static const char waits_sql[] =
	"SELECT stack_id, NULL, SUM(threads), SUM(threads) FROM toy_wait "
	"WHERE cap = ?1 AND time_ns >= ?2 AND time_ns < ?3 "
	"GROUP BY stack_id ORDER BY 3 DESC, 1";

static int toy_export_load(const struct prof_req *r, struct prof_samples *s)
{
	struct probe_info probe;
	int rc = probe__lookup(r->db, r->m->cap, "toy", &probe);

	if (rc)
		return rc;
	if (!probe__active(&probe)) {
		export__say("toy: not collected in this capture (%s: %s): nothing to export",
			    probe.state, probe.reason[0] ? probe.reason : "no reason recorded");
		return -ENODATA;
	}
	rc = export__symbolize(r);
	if (rc)
		return rc;
	*s = (struct prof_samples){
	    .n_types = 1,
	    .type = {"threads"},
	    .unit = {"count"},
	    .period_type = "threads",
	    .period_unit = "count",
	    .period = 1,
	    .t0_ns = -1,
	};
	return prof_samples__load_sql(r, waits_sql, s);
}

static const struct an_profile toy_profile = {
	.name = "toy",
	.help = "the toy's waits: where the target's threads were in a\n"
		"system call at each poll; pprof threads/count, folded in threads",
	.tables = "toy_wait",
	.overflow = "a toy_wait row holds a negative thread count",
	.load = toy_export_load,
};

const struct an_profile *const toy_profiles[] = { &toy_profile, NULL };
