/* load.c — the cpuprof collector's loader (analyze/load.h): each CpuProfile is a
 * cpu_profile row (seq in file order), a cpu_profile_stack row per stack counted and,
 * in cgroup mode, a cpu_profile_process row per process named.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "analyze/load.h"

enum { ST_PROFILE, ST_STACK, ST_PROCESS, ST_N };

static const char profile_sql[] =
	"INSERT INTO cpu_profile (cap, seq, time_ns, interval_ns, pid, requested_hz, "
	"ticks, delivered_hz, cpus, samples, no_user_stack, no_kernel_stack, lost, "
	"user_stacks, stack_copies)";

static const char stack_sql[] =
	"INSERT INTO cpu_profile_stack (cap, seq, user_stack_id, kernel_stack_id, count, "
	"pid)";

/* OR IGNORE: a pid named twice in one event keeps its first name */
static const char process_sql[] =
	"INSERT OR IGNORE INTO cpu_profile_process (cap, seq, pid, comm)";

static int load_cpuprof(struct load_ctx *l, const Ptop__V1__Event *ev)
{
	const Ptop__V1__CpuProfile *p = ev->cpuprof;
	sqlite3_stmt *s = l->st[ST_PROFILE];
	int64_t *next = l->state, seq;
	int err;

	if (!p)
		return 0;
	seq = (*next)++;
	bind_cap(l, s);
	bind_i64(s, 2, seq);
	bind_u64(s, 3, ev->time_ns);
	bind_nz(s, 4, ev->interval_ns);
	bind_pid(s, 5, ev->pid);
	bind_u64(s, 6, p->requested_hz);
	bind_u64(s, 7, p->ticks);
	sqlite3_bind_double(s, 8, p->delivered_hz);
	bind_u64(s, 9, p->cpus);
	bind_u64(s, 10, p->samples);
	bind_u64(s, 11, p->no_user_stack);
	bind_u64(s, 12, p->no_kernel_stack);
	bind_u64(s, 13, p->lost);
	bind_opt_text(s, 14, p->user_stacks);	/* empty before --user-stacks: NULL */
	if (p->user_stacks && !strcmp(p->user_stacks, "dwarf"))
		bind_u64(s, 15, p->stack_copies);
	else
		sqlite3_bind_null(s, 15);
	err = load__step(l, ST_PROFILE);
	if (err)
		return err;

	s = l->st[ST_STACK];
	for (size_t k = 0; k < p->n_stacks; k++) {
		const Ptop__V1__StackCount *c = p->stacks[k];

		if (!c)
			continue;
		bind_cap(l, s);
		bind_i64(s, 2, seq);
		bind_nz(s, 3, c->user_stack_id); /* 0: no such stack */
		bind_nz(s, 4, c->kernel_stack_id);
		bind_u64(s, 5, c->count);
		bind_pid(s, 6, c->pid); /* 0: the event's pid (NULL) */
		err = load__step(l, ST_STACK);
		if (err)
			return err;
	}

	s = l->st[ST_PROCESS];
	for (size_t k = 0; k < p->n_processes; k++) {
		const Ptop__V1__ProcessName *n = p->processes[k];

		if (!n || n->pid <= 0)
			continue;	/* nothing to name */
		bind_cap(l, s);
		bind_i64(s, 2, seq);
		sqlite3_bind_int64(s, 3, n->pid);
		bind_opt_text(s, 4, n->comm);
		err = load__step(l, ST_PROCESS);
		if (err)
			return err;
	}
	return 0;
}

const struct an_load cpuprof_load = {
	AN_LOAD_PAYLOADS({ PTOP__V1__EVENT__PAYLOAD_CPUPROF, "event:cpuprof", load_cpuprof }),
	AN_LOAD_STMTS([ST_PROFILE] = profile_sql, [ST_STACK] = stack_sql,
		      [ST_PROCESS] = process_sql),
	.state_size = sizeof(int64_t), /* the next cpu_profile.seq */
	AN_LOAD_CHECKS({ "cpu_profile", true, true, "seq", "pid",
			 "ticks,cpus,samples,no_user_stack,no_kernel_stack,lost" },
		       { "cpu_profile_stack", false, false, NULL, NULL, "count" }),
};
