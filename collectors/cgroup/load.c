/* load.c — the cgroup collector's loader (analyze/load.h): each CgroupSample is a
 * cgroup_sample row (seq in file order) with its memory.stat lines (cgroup_stat),
 * pressure lines (cgroup_psi) and processes (cgroup_proc).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyze/load.h"
#include "proto/names.h"
#include "collectors/cgroup/names.h"

enum { ST_SAMPLE, ST_STAT, ST_PSI, ST_PROC, ST_N };

static const char stat_sql[] =
	"INSERT INTO cgroup_stat (cap, seq, key, value)";

/* memory.stat lines of cgroup sample SEQ. */
static int load_cgroup_stat(struct load_ctx *l, int64_t seq, Ptop__V1__StatEntry *const *st,
			    size_t n)
{
	sqlite3_stmt *s = l->st[ST_STAT];
	int err;

	for (size_t k = 0; k < n; k++) {
		if (!st[k] || !st[k]->key || !*st[k]->key)
			continue;
		bind_cap(l, s);
		bind_i64(s, 2, seq);
		bind_text(s, 3, st[k]->key);
		bind_u64(s, 4, st[k]->value);
		err = load__step(l, ST_STAT);
		if (err)
			return err;
	}
	return 0;
}

static const char psi_sql[] =
	"INSERT INTO cgroup_psi (cap, seq, resource, kind, avg10, avg60, avg300, total_us, "
	"total_delta_us)";

static int load_cgroup_psi(struct load_ctx *l, int64_t seq, const Ptop__V1__Psi *p)
{
	sqlite3_stmt *s = l->st[ST_PSI];
	const Ptop__V1__PsiLine *line[2] = { p->some, p->full };
	static const char *const kind[2] = { "some", "full" };
	int err;

	for (int k = 0; k < 2; k++) {
		if (!line[k])
			continue; /* a file without a "full" line */
		bind_cap(l, s);
		bind_i64(s, 2, seq);
		bind_text(s, 3, p->resource);
		bind_text(s, 4, kind[k]);
		sqlite3_bind_double(s, 5, line[k]->avg10);
		sqlite3_bind_double(s, 6, line[k]->avg60);
		sqlite3_bind_double(s, 7, line[k]->avg300);
		bind_u64(s, 8, line[k]->total_us);
		bind_u64(s, 9, line[k]->total_delta_us);
		err = load__step(l, ST_PSI);
		if (err)
			return err;
	}
	return 0;
}

static const char proc_sql[] =
	"INSERT INTO cgroup_proc (cap, seq, pid, comm, exe, unit, cgroup_path, state, rss, "
	"pss, uss, swap, read_ns)";

static int load_cgroup_proc(struct load_ctx *l, int64_t seq, const Ptop__V1__ProcMem *p)
{
	sqlite3_stmt *s = l->st[ST_PROC];
	bool covered = p->state == PTOP__V1__PROC_MEM_STATE__PROC_MEM_STATE_COVERED;

	bind_cap(l, s);
	bind_i64(s, 2, seq);
	bind_i64(s, 3, p->pid);
	bind_opt_text(s, 4, p->comm);
	bind_opt_text(s, 5, p->exe);
	bind_opt_text(s, 6, p->unit);
	bind_opt_text(s, 7, p->cgroup_path);
	bind_text(s, 8, capture_proc_mem_state_name(p->state));
	bind_measured(s, 9, covered, p->rss); /* not read: NULL, not 0 */
	bind_measured(s, 10, covered, p->pss);
	bind_measured(s, 11, covered, p->uss);
	bind_measured(s, 12, covered, p->swap);
	bind_nz(s, 13, p->read_ns);
	return load__step(l, ST_PROC);
}

static const char sample_sql[] =
	"INSERT INTO cgroup_sample (cap, seq, time_ns, interval_ns, path, lane, v1_path, "
	"current, limit_bytes, peak, oom_delta, oom_kill_delta, oom_kill_total, "
	"high_delta, max_delta, failcnt_delta, under_oom, processes, covered, denied, "
	"gone, skipped, walk_ns, budget_ns)";

/* One CgroupSample: a cgroup_sample row (seq in file order), its memory.stat,
 * pressure lines and processes. The lane is the memory controller present (v2
 * when both are); the columns of the other lane stay NULL. */
static int load_cgroup(struct load_ctx *l, const Ptop__V1__Event *ev)
{
	const Ptop__V1__CgroupSample *c = ev->cgroup;
	sqlite3_stmt *s = l->st[ST_SAMPLE];
	const Ptop__V1__CgroupMemV2 *v2;
	const Ptop__V1__CgroupMemV1 *v1;
	const Ptop__V1__ProcCoverage *cov;
	int64_t *next = l->state, seq;
	int err, i;

	if (!c)
		return 0;
	v2 = c->v2;
	v1 = v2 ? NULL : c->v1;
	cov = c->coverage;
	seq = (*next)++;
	bind_cap(l, s);
	bind_i64(s, 2, seq);
	bind_u64(s, 3, ev->time_ns);
	bind_nz(s, 4, ev->interval_ns);
	bind_opt_text(s, 5, c->path);
	bind_opt_text(s, 6, v2 ? "v2" : v1 ? "v1" : NULL);
	bind_opt_text(s, 7, c->v1_path);
	for (i = 8; i <= 17; i++)
		sqlite3_bind_null(s, i);
	if (v2) {
		bind_u64(s, 8, v2->current);
		bind_measured(s, 9, !v2->max_unlimited, v2->max);
		bind_measured(s, 10, v2->has_peak, v2->peak);
		bind_u64(s, 11, v2->oom_delta);
		bind_u64(s, 12, v2->oom_kill_delta);
		bind_u64(s, 13, v2->oom_kill_total);
		bind_u64(s, 14, v2->high_delta);
		bind_u64(s, 15, v2->max_delta);
	} else if (v1) {
		bind_u64(s, 8, v1->usage);
		bind_measured(s, 9, !v1->limit_unlimited, v1->limit);
		bind_nz(s, 10, v1->max_usage); /* 0: not read */
		bind_u64(s, 12, v1->oom_kill_delta);
		bind_u64(s, 13, v1->oom_kill_total);
		bind_u64(s, 16, v1->failcnt_delta);
		bind_i64(s, 17, !!v1->under_oom);
	}
	if (cov) {
		bind_u64(s, 18, cov->processes);
		bind_u64(s, 19, cov->covered);
		bind_u64(s, 20, cov->denied);
		bind_u64(s, 21, cov->gone);
		bind_u64(s, 22, cov->skipped);
		bind_u64(s, 23, cov->walk_ns);
		bind_nz(s, 24, cov->budget_ns);
	} else {
		for (i = 18; i <= 24; i++)
			sqlite3_bind_null(s, i);
	}
	err = load__step(l, ST_SAMPLE);
	if (err)
		return err;

	if (v2)
		err = load_cgroup_stat(l, seq, v2->stat, v2->n_stat);
	else if (v1)
		err = load_cgroup_stat(l, seq, v1->stat, v1->n_stat);
	for (size_t k = 0; k < c->n_psi && !err; k++)
		if (c->psi[k] && c->psi[k]->resource && *c->psi[k]->resource)
			err = load_cgroup_psi(l, seq, c->psi[k]);
	for (size_t k = 0; k < c->n_procs && !err; k++)
		if (c->procs[k])
			err = load_cgroup_proc(l, seq, c->procs[k]);
	return err;
}

const struct an_load cgroup_load = {
	AN_LOAD_PAYLOADS({ PTOP__V1__EVENT__PAYLOAD_CGROUP, "event:cgroup", load_cgroup }),
	AN_LOAD_STMTS([ST_SAMPLE] = sample_sql, [ST_STAT] = stat_sql, [ST_PSI] = psi_sql,
		      [ST_PROC] = proc_sql),
	.state_size = sizeof(int64_t), /* the next cgroup_sample.seq */
	AN_LOAD_CHECKS({ "cgroup_sample", true, true, "seq", "NULL",
			 "current,processes,covered,walk_ns" }),
};
