/* stacks.c — the cpuprof collector's stack columns (analyze/symbolize.h) and its profile,
 * `export --profile cpu` (analyze/export.h). The stack columns: the user and
 * kernel stack of each cpu_profile_stack row, taken in the interval of its cpu_profile row.
 * A user stack of a per-process profile (cgroup mode) is its process's alone
 * (cpu_profile_stack.pid), else the event's; kernel frames belong to no process. */
#include "collectors/cpuprof/stacks.h"

#include <errno.h>
#include <stdlib.h>

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

/* ------------------------------------------------------------ export --profile cpu */

int cpu_samples(struct profile *p, struct prof_samples *s)
{
	int64_t *v = calloc(2 * (p->n_stacks + 1), sizeof(*v));

	*s = (struct prof_samples){
	    .p = p,
	    .n_types = 2,
	    .type = {"samples", "cpu"},
	    .unit = {"count", "nanoseconds"},
	    .period_type = "cpu",
	    .period_unit = "nanoseconds",
	    .period = p->requested_hz ? 1000000000LL / p->requested_hz : 0,
	    .t0_ns = p->t0_ns,
	    .t1_ns = p->t1_ns,
	    .values = v,
	};
	if (!v)
		return -ENOMEM;
	for (size_t k = 0; k < p->n_stacks; k++) {
		uint64_t c = p->stacks[k].count;

		v[2 * k] = (int64_t)c;
		/* a CPU time past 2^63 ns: no recording holds it (a corrupt DB) */
		if (c > INT64_MAX || __builtin_mul_overflow((int64_t)c, s->period, &v[2 * k + 1]))
			return -EOVERFLOW;
	}
	return 0;
}

int export_pprof(struct profile *p, int64_t time_nanos, uint8_t **out, size_t *outlen)
{
	struct prof_samples s;
	int err = cpu_samples(p, &s);

	*out = NULL;
	*outlen = 0;
	if (!err)
		err = prof_samples__pprof(&s, time_nanos, out, outlen);
	free(s.values);
	return err;
}

/* The profile of R's capture, its frames named, or why not (said). */
static int cpu_export_load(const struct prof_req *r, struct prof_samples *s)
{
	struct profile *p = NULL;
	char msg[512];
	int rc = profile__load_pid(r->db, r->m, r->w, r->pid, &p);

	if (rc)
		return rc;
	if (!p->collected) {
		export__say("the CPU profile was not collected in this capture (%s: %s): nothing "
			    "to export",
			    p->probe.state, p->probe.reason[0] ? p->probe.reason : "no reason recorded");
		profile__free(p);
		return -ENODATA;
	}
	rc = r->pid ? profile__check_pid(r->db, r->m->cap, r->pid, msg, sizeof(msg)) : 0;
	if (rc) {
		export__say("%s", msg);
		profile__free(p);
		return rc == -ENOENT ? -ENODATA : rc; /* a usage error */
	}
	profile__free(p);
	p = NULL;
	rc = export__symbolize(r);
	rc = rc ?: profile__load_pid(r->db, r->m, r->w, r->pid, &p);
	/* walks cut short: their stacks end early in the profile too; said beside it */
	rc = rc ?: profile__cut_note(p, p->stacked, "samples", msg, sizeof(msg));
	if (!rc && msg[0])
		export__say("note: %s", msg);
	if (rc) {
		profile__free(p);
		return rc;
	}
	return cpu_samples(p, s);
}

static void cpu_export_done(const struct prof_req *r, const struct prof_samples *s)
{
	if (!s->p->stacked)
		export__say("warning: the profile holds no samples%s%s",
			    r->pid ? " of this process" : "",
			    r->w->has_start || r->w->has_end ? " in this window" : "");
}

static int cpu_whole(sqlite3 *db, const struct capture_meta *m, struct profile **out)
{
	struct window all = {0};

	return profile__load(db, m, &all, out);
}

static const struct an_profile cpu_profile = {
	.name = "cpu",
	.help = "the CPU profile: pprof with samples/count and\n"
		"cpu/nanoseconds; folded in samples",
	.tables = "cpu_profile,cpu_profile_stack",
	.pid_help = "cpu: the stacks of this process only (a --cgroup capture\n"
		    "profiles each process)",
	.overflow = "a stack's samples x 1e9 / Hz pass 2^63 ns of CPU time, which no "
		    "recording holds; load the capture again",
	.load = cpu_export_load,
	.done = cpu_export_done,
	.whole = cpu_whole,
};

const struct an_profile *const cpuprof_profiles[] = { &cpu_profile, NULL };
