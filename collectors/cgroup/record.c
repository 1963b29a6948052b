/* record.c — the cgroup collector (--cgroup mode only): each interval one CgroupSample
 * with the cgroup's memory controller, its pressure, and the processes of its subtree.
 *
 * Memory, from one of two lanes, whichever this host has (the probe detail names it):
 *  - v2: memory.current, .max, .peak, .stat and .events (oom, oom_kill, high and max
 *    as deltas over the interval) of the recorded cgroup v2 directory;
 *  - v1, on a hybrid host whose memory controller is mounted as cgroup v1:
 *    memory.usage_in_bytes, .limit_in_bytes, .max_usage_in_bytes, .stat, .failcnt
 *    and .oom_control of the v1 memory cgroup at the same path when there is one,
 *    else of the one all the subtree's processes share (CgroupSample.v1_path says
 *    which; when they share none, the interval has no v1 block).
 * PSI: memory, cpu and io .pressure of the v2 directory (some, and full when the file
 * has it), with the stall time over the interval.
 *
 * Processes: cgroup.procs of every directory of the subtree; each gets comm, exe, the
 * systemd unit of its cgroup, and RSS/PSS/USS/swap from /proc/PID/smaps_rollup. Those
 * reads hold the process's mmap lock, so they stop once the interval's reads took
 * --smaps-budget (at least one is read each interval); the rest are marked skipped,
 * and the next interval starts with the first one skipped, so every process is
 * covered over time. ProcCoverage counts covered, denied, gone and skipped.
 *
 * The recording of a cgroup that becomes empty goes on (processes may be moved in
 * again); it ends at --duration, on a signal, or when the cgroup directory is removed
 * (record/target.c).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "record/cgroupfs.h"
#include "record/collector.h"
#include "record/procfs.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static const char *const psi_names[] = { "memory", "cpu", "io" };
#define N_PSI ARRAY_SIZE(psi_names)

/* One process of the subtree, for one interval. */
struct cg_proc {
	pid_t pid;
	char *cgpath;                /* its cgroup, root-relative; owned */
	char comm[64];
	char unit[256];
	char *exe;                   /* owned; "" when unreadable */
	Ptop__V1__ProcMem pm;
};

struct cg_priv {
	struct cgroupfs_mounts m;
	long page_size;
	bool v2_mem;                 /* the v2 directory has memory.current */
	char v1_dir[PATH_MAX];       /* v1 memory cgroup read this interval; "" none */
	char v1_path[PATH_MAX];      /* its root-relative path */
	bool v1_same;                /* v1_dir is at the recorded cgroup's own path */
	char v1_prev[PATH_MAX];      /* the v1 path of the baselines below */
	/* baselines of the counters emitted as deltas */
	bool have_ev;
	uint64_t ev_oom, ev_oom_kill, ev_high, ev_max;
	bool have_v1;
	uint64_t v1_failcnt, v1_oom_kill;
	bool have_psi[N_PSI][2];
	uint64_t psi_total[N_PSI][2];
	pid_t rotate;                /* the first process to read next interval */
	uint64_t prev_ns;
	/* per interval */
	char *buf;
	size_t cap;
	struct cgroupfs_kvs stat, kv;
	struct cg_proc *procs;
	size_t n, pcap;
};

/* ------------------------------------------------------------------ helpers */

static uint64_t delta(uint64_t cur, uint64_t prev)
{
	return cur >= prev ? cur - prev : 0;
}

static bool is_dir(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISDIR(st.st_mode);
}

/* DIR under the hierarchy mounted at MNT (showing ROOT) of root-relative PATH.
 * 0, or -ENOENT when PATH is outside what the mount shows. */
static int dir_of(const char *mnt, const char *root, const char *path, char *dir, size_t len)
{
	size_t rl = strlen(root);

	if (strcmp(root, "/")) {
		if (strncmp(path, root, rl) || (path[rl] != '/' && path[rl] != '\0'))
			return -ENOENT;
		path += rl;
	}
	if ((size_t)snprintf(dir, len, "%s%s", mnt, strcmp(path, "/") ? path : "") >= len)
		return -ENAMETOOLONG;
	return 0;
}

static void procs_clear(struct cg_priv *p)
{
	for (size_t i = 0; i < p->n; i++) {
		free(p->procs[i].cgpath);
		free(p->procs[i].exe);
	}
	p->n = 0;
}

struct collect {
	struct cg_priv *p;
	const char *base;            /* the recorded cgroup's root-relative path */
	int err;                     /* -ENOMEM */
};

/* cgroupfs_walk callback: the processes of one directory of the subtree. */
static int collect_dir(const char *dir, const char *rel, void *arg)
{
	struct collect *cl = arg;
	struct cg_priv *p = cl->p;
	pid_t *pids = NULL;
	size_t n = 0, cap = 0, len = 0, i;
	char path[PATH_MAX];

	if (cgroupfs_read(dir, "cgroup.procs", &p->buf, &p->cap, &len) ||
	    cgroupfs_parse_procs(p->buf, &pids, &n, &cap)) {
		free(pids);
		return 0; /* vanished (or unreadable) meanwhile: its processes are elsewhere */
	}
	snprintf(path, sizeof(path), "%s%s%s", strcmp(cl->base, "/") ? cl->base : "",
		 *rel || !strcmp(cl->base, "/") ? "/" : "", rel);
	for (i = 0; i < n; i++) {
		struct cg_proc *e;

		if (p->n == p->pcap) {
			size_t ncap = p->pcap ? p->pcap * 2 : 64;
			struct cg_proc *np = realloc(p->procs, ncap * sizeof(*np));

			if (!np)
				goto nomem;
			p->procs = np;
			p->pcap = ncap;
		}
		e = &p->procs[p->n];
		memset(e, 0, sizeof(*e));
		e->pid = pids[i];
		e->cgpath = strdup(path);
		if (!e->cgpath)
			goto nomem;
		p->n++;
	}
	free(pids);
	return 0;
nomem:
	free(pids);
	cl->err = -ENOMEM;
	return -ENOMEM;
}

static int cmp_proc(const void *a, const void *b)
{
	const struct cg_proc *x = a, *y = b;

	return (x->pid > y->pid) - (x->pid < y->pid);
}

/* comm, exe and unit of E. False if the process is gone. */
static bool describe(struct cg_priv *p, struct cg_proc *e)
{
	char link[64], exe[PATH_MAX];
	size_t len = 0;
	ssize_t n;
	int err;

	err = procfs_read_file(e->pid, "comm", &p->buf, &p->cap, &len);
	if (err)
		return !procfs_is_gone(e->pid, err);
	while (len && p->buf[len - 1] == '\n')
		p->buf[--len] = '\0';
	snprintf(e->comm, sizeof(e->comm), "%s", p->buf);
	snprintf(link, sizeof(link), "/proc/%d/exe", (int)e->pid);
	n = readlink(link, exe, sizeof(exe) - 1);
	exe[n > 0 ? n : 0] = '\0';
	e->exe = strdup(exe);
	cgroupfs_unit(e->cgpath, e->unit, sizeof(e->unit));
	return true;
}

/* Read E's smaps_rollup into its ProcMem. Returns the read's duration in ns. */
static uint64_t read_rollup(struct collector *c, struct cg_priv *p, struct cg_proc *e)
{
	struct proc_smaps_counters sc;
	uint64_t t0 = rec_now_ns(), took;
	size_t len = 0;
	char detail[96];
	int err;

	err = procfs_read_file(e->pid, "smaps_rollup", &p->buf, &p->cap, &len);
	took = rec_now_ns() - t0;
	e->pm.read_ns = took;
	if (!err && !len)
		err = -ESRCH; /* a zombie's is empty */
	if (!err && procfs_parse_smaps_rollup(p->buf, &sc)) {
		snprintf(detail, sizeof(detail), "/proc/%d/smaps_rollup does not parse",
			 (int)e->pid);
		rec_emit_drop(c, "proc_malformed", 1, detail);
		err = -EINVAL;
	}
	if (err) {
		e->pm.state = procfs_is_gone(e->pid, err) ?
				      PTOP__V1__PROC_MEM_STATE__PROC_MEM_STATE_GONE :
				      PTOP__V1__PROC_MEM_STATE__PROC_MEM_STATE_DENIED;
		return took;
	}
	e->pm.state = PTOP__V1__PROC_MEM_STATE__PROC_MEM_STATE_COVERED;
	e->pm.rss = sc.rss;
	e->pm.pss = sc.pss;
	e->pm.uss = sc.private_clean + sc.private_dirty;
	e->pm.swap = sc.swap;
	return took;
}

/* The processes of the subtree, described and (within the budget) measured. */
static int poll_procs(struct collector *c, struct cg_priv *p, Ptop__V1__ProcCoverage *cov)
{
	struct collect cl = { .p = p, .base = c->ctx->cgroup_path };
	size_t k, start = 0;
	bool skipped_first = false;
	int err;

	procs_clear(p);
	err = cgroupfs_walk(c->ctx->cgroup_dir, collect_dir, &cl);
	if (cl.err)
		return cl.err;
	if (err && err != -ENOENT)
		return err;
	if (p->n) /* an empty cgroup: procs may be NULL, and qsort's arguments must not be */
		qsort(p->procs, p->n, sizeof(*p->procs), cmp_proc);
	while (start < p->n && p->procs[start].pid < p->rotate)
		start++;
	if (start == p->n)
		start = 0;
	cov->budget_ns = c->ctx->smaps_budget_ns;
	cov->processes = (uint32_t)p->n;
	for (k = 0; k < p->n; k++) {
		struct cg_proc *e = &p->procs[(start + k) % p->n];
		Ptop__V1__ProcMem init = PTOP__V1__PROC_MEM__INIT;

		e->pm = init;
		e->pm.pid = e->pid;
		if (!describe(p, e)) {
			e->pm.state = PTOP__V1__PROC_MEM_STATE__PROC_MEM_STATE_GONE;
		} else if (cov->covered + cov->denied + cov->gone > 0 &&
			   cov->walk_ns >= c->ctx->smaps_budget_ns) {
			e->pm.state = PTOP__V1__PROC_MEM_STATE__PROC_MEM_STATE_SKIPPED;
			if (!skipped_first) {
				p->rotate = e->pid; /* next interval starts here */
				skipped_first = true;
			}
		} else {
			cov->walk_ns += read_rollup(c, p, e);
		}
		switch (e->pm.state) {
		case PTOP__V1__PROC_MEM_STATE__PROC_MEM_STATE_COVERED:
			cov->covered++;
			break;
		case PTOP__V1__PROC_MEM_STATE__PROC_MEM_STATE_DENIED:
			cov->denied++;
			break;
		case PTOP__V1__PROC_MEM_STATE__PROC_MEM_STATE_GONE:
			cov->gone++;
			break;
		default:
			cov->skipped++;
			break;
		}
		e->pm.comm = e->comm;
		e->pm.exe = e->exe ? e->exe : "";
		e->pm.unit = e->unit;
		e->pm.cgroup_path = e->cgpath;
	}
	return 0;
}

/* ------------------------------------------------------------------ memory */

/* Point SAMPLE's stat at P->stat. */
static Ptop__V1__StatEntry **stat_entries(struct cg_priv *p, size_t *n)
{
	Ptop__V1__StatEntry *v, **ptrs;
	Ptop__V1__StatEntry init = PTOP__V1__STAT_ENTRY__INIT;

	*n = 0;
	if (!p->stat.n)
		return NULL;
	ptrs = calloc(p->stat.n, sizeof(*ptrs) + sizeof(*v));
	if (!ptrs)
		return NULL;
	v = (Ptop__V1__StatEntry *)(ptrs + p->stat.n);
	for (size_t i = 0; i < p->stat.n; i++) {
		v[i] = init;
		v[i].key = p->stat.v[i].key;
		v[i].value = p->stat.v[i].value;
		ptrs[i] = &v[i];
	}
	*n = p->stat.n;
	return ptrs;
}

static int read_u64(struct cg_priv *p, const char *dir, const char *name, uint64_t *v)
{
	size_t len;
	int err = cgroupfs_read(dir, name, &p->buf, &p->cap, &len);

	return err ? err : cgroupfs_parse_u64(p->buf, v);
}

static int read_kv(struct cg_priv *p, const char *dir, const char *name,
		   struct cgroupfs_kvs *kv)
{
	size_t len;
	int err = cgroupfs_read(dir, name, &p->buf, &p->cap, &len);

	return err ? err : cgroupfs_parse_kv(p->buf, kv);
}

/* Count an unreadable cgroup file as a drop. Returns the writer's error, if any. */
static int lost(struct collector *c, const char *dir, const char *name, int err)
{
	char detail[PATH_MAX + 64];

	snprintf(detail, sizeof(detail), "%s/%s: %s", dir, name,
		 err == -EINVAL ? "does not parse" : strerror(-err));
	return rec_emit_drop(c, err == -EINVAL ? "cgroup_malformed" : "cgroup_unreadable", 1,
			     detail);
}

/* Fill V2 from the v2 directory. 1 if filled, 0 if memory.current could not be read. */
static int poll_v2(struct collector *c, struct cg_priv *p, Ptop__V1__CgroupMemV2 *v2)
{
	const char *dir = c->ctx->cgroup_dir;
	uint64_t oom = 0, kill = 0, high = 0, max = 0;
	bool unl = false;
	size_t len;
	int err;

	err = read_u64(p, dir, "memory.current", &v2->current);
	if (err)
		return lost(c, dir, "memory.current", err) ?: 0;
	err = cgroupfs_read(dir, "memory.max", &p->buf, &p->cap, &len);
	if (!err)
		err = cgroupfs_parse_max(p->buf, &v2->max, &unl);
	v2->max_unlimited = unl;
	if (err && (err = lost(c, dir, "memory.max", err)))
		return err;
	v2->has_peak = read_u64(p, dir, "memory.peak", &v2->peak) == 0;
	err = read_kv(p, dir, "memory.stat", &p->stat);
	if (err) {
		p->stat.n = 0;
		if ((err = lost(c, dir, "memory.stat", err)))
			return err;
	}
	err = read_kv(p, dir, "memory.events", &p->kv);
	if (err)
		return lost(c, dir, "memory.events", err) ?: 1;
	cgroupfs_kv_get(&p->kv, "oom", &oom);
	cgroupfs_kv_get(&p->kv, "oom_kill", &kill);
	cgroupfs_kv_get(&p->kv, "high", &high);
	cgroupfs_kv_get(&p->kv, "max", &max);
	v2->oom_total = oom;
	v2->oom_kill_total = kill;
	if (p->have_ev) {
		v2->oom_delta = delta(oom, p->ev_oom);
		v2->oom_kill_delta = delta(kill, p->ev_oom_kill);
		v2->high_delta = delta(high, p->ev_high);
		v2->max_delta = delta(max, p->ev_max);
	}
	p->ev_oom = oom;
	p->ev_oom_kill = kill;
	p->ev_high = high;
	p->ev_max = max;
	p->have_ev = true;
	return 1;
}

/* The v1 memory cgroup to read: the one at the recorded path, else the one every
 * process of the subtree is in. Sets p->v1_dir ("" when none). */
static void pick_v1(struct collector *c, struct cg_priv *p)
{
	char path[PATH_MAX], first[PATH_MAX] = "";
	size_t len;
	bool same = true;

	p->v1_dir[0] = '\0';
	if (!p->m.v1_mem[0])
		return;
	if (p->v1_same) {
		snprintf(p->v1_path, sizeof(p->v1_path), "%s", c->ctx->cgroup_path);
		dir_of(p->m.v1_mem, p->m.v1_mem_root, p->v1_path, p->v1_dir, sizeof(p->v1_dir));
		return;
	}
	for (size_t i = 0; i < p->n && same; i++) {
		if (p->procs[i].pm.state == PTOP__V1__PROC_MEM_STATE__PROC_MEM_STATE_GONE)
			continue;
		if (procfs_read_file(p->procs[i].pid, "cgroup", &p->buf, &p->cap, &len) ||
		    cgroupfs_proc_path(p->buf, "memory", path, sizeof(path)))
			continue;
		if (!first[0])
			snprintf(first, sizeof(first), "%s", path);
		else if (strcmp(first, path))
			same = false;
	}
	if (!same || !first[0])
		return;
	snprintf(p->v1_path, sizeof(p->v1_path), "%s", first);
	if (dir_of(p->m.v1_mem, p->m.v1_mem_root, p->v1_path, p->v1_dir, sizeof(p->v1_dir)) ||
	    !is_dir(p->v1_dir))
		p->v1_dir[0] = '\0';
}

/* Fill V1 from p->v1_dir. 1 if filled, 0 if usage could not be read. */
static int poll_v1(struct collector *c, struct cg_priv *p, Ptop__V1__CgroupMemV1 *v1)
{
	const char *dir = p->v1_dir;
	uint64_t failcnt = 0, kill = 0, v;
	bool unl = false;
	size_t len;
	int err;

	if (strcmp(p->v1_prev, p->v1_path)) {
		p->have_v1 = false; /* another cgroup: its counters are no delta of these */
		snprintf(p->v1_prev, sizeof(p->v1_prev), "%s", p->v1_path);
	}
	err = read_u64(p, dir, "memory.usage_in_bytes", &v1->usage);
	if (err)
		return lost(c, dir, "memory.usage_in_bytes", err) ?: 0;
	err = cgroupfs_read(dir, "memory.limit_in_bytes", &p->buf, &p->cap, &len);
	if (!err)
		err = cgroupfs_parse_v1_limit(p->buf, p->page_size, &v1->limit, &unl);
	v1->limit_unlimited = unl;
	if (err && (err = lost(c, dir, "memory.limit_in_bytes", err)))
		return err;
	err = read_u64(p, dir, "memory.max_usage_in_bytes", &v1->max_usage);
	if (err && (err = lost(c, dir, "memory.max_usage_in_bytes", err)))
		return err;
	err = read_kv(p, dir, "memory.stat", &p->stat);
	if (err) {
		p->stat.n = 0;
		if ((err = lost(c, dir, "memory.stat", err)))
			return err;
	}
	err = read_u64(p, dir, "memory.failcnt", &failcnt);
	if (err && (err = lost(c, dir, "memory.failcnt", err)))
		return err;
	err = read_kv(p, dir, "memory.oom_control", &p->kv);
	if (err) {
		if ((err = lost(c, dir, "memory.oom_control", err)))
			return err;
	} else {
		v1->under_oom = cgroupfs_kv_get(&p->kv, "under_oom", &v) && v;
		v1->oom_kill_disable = cgroupfs_kv_get(&p->kv, "oom_kill_disable", &v) && v;
		cgroupfs_kv_get(&p->kv, "oom_kill", &kill);
	}
	v1->failcnt_total = failcnt;
	v1->oom_kill_total = kill;
	if (p->have_v1) {
		v1->failcnt_delta = delta(failcnt, p->v1_failcnt);
		v1->oom_kill_delta = delta(kill, p->v1_oom_kill);
	}
	p->v1_failcnt = failcnt;
	p->v1_oom_kill = kill;
	p->have_v1 = true;
	return 1;
}

/* Fill PSI[0..) from the v2 directory's pressure files; returns how many. */
static size_t poll_psi(struct collector *c, struct cg_priv *p, Ptop__V1__Psi *psi,
		       Ptop__V1__PsiLine lines[][2])
{
	Ptop__V1__Psi pinit = PTOP__V1__PSI__INIT;
	Ptop__V1__PsiLine linit = PTOP__V1__PSI_LINE__INIT;
	struct cgroupfs_psi ps;
	char name[32];
	size_t n = 0, len;

	for (size_t r = 0; r < N_PSI; r++) {
		const struct cgroupfs_psi_line *src[2] = { &ps.some, &ps.full };
		bool has[2];

		snprintf(name, sizeof(name), "%s.pressure", psi_names[r]);
		if (cgroupfs_read(c->ctx->cgroup_dir, name, &p->buf, &p->cap, &len) ||
		    cgroupfs_parse_psi(p->buf, &ps))
			continue; /* no PSI in this kernel, or off (psi=0): not collected */
		has[0] = ps.has_some;
		has[1] = ps.has_full;
		psi[n] = pinit;
		psi[n].resource = (char *)psi_names[r];
		for (int k = 0; k < 2; k++) {
			Ptop__V1__PsiLine *l = &lines[n][k];

			if (!has[k])
				continue;
			*l = linit;
			l->avg10 = src[k]->avg10;
			l->avg60 = src[k]->avg60;
			l->avg300 = src[k]->avg300;
			l->total_us = src[k]->total_us;
			if (p->have_psi[r][k])
				l->total_delta_us = delta(src[k]->total_us, p->psi_total[r][k]);
			p->psi_total[r][k] = src[k]->total_us;
			p->have_psi[r][k] = true;
			if (k == 0)
				psi[n].some = l;
			else
				psi[n].full = l;
		}
		n++;
	}
	return n;
}

/* ------------------------------------------------------------------ collector */

static Ptop__V1__ProbeState cg_check(struct collector *c)
{
	struct rec_ctx *ctx = c->ctx;
	struct cgroupfs_mounts *m;
	char dir[PATH_MAX + 32];
	Ptop__V1__ProbeState st = PTOP__V1__PROBE_STATE__PROBE_STATE_ACTIVE;

	c->source = PTOP__V1__PROBE_SOURCE__PROBE_SOURCE_PROC;
	c->reason[0] = '\0';
	if (ctx->caps_only) {
		snprintf(c->detail, sizeof(c->detail),
			 "with --cgroup: memory.* (v2, or v1 on a hybrid host), *.pressure, "
			 "cgroup.procs and each process's /proc/PID/smaps_rollup");
		return st;
	}
	if (ctx->mode != PTOP__V1__TARGET_MODE__TARGET_MODE_CGROUP || !ctx->cgroup_dir) {
		snprintf(c->reason, sizeof(c->reason),
			 "needs --cgroup: it records a whole cgroup (its memory, pressure and "
			 "processes)");
		return PTOP__V1__PROBE_STATE__PROBE_STATE_UNSUPPORTED;
	}
	m = calloc(1, sizeof(*m));
	if (!m) {
		snprintf(c->reason, sizeof(c->reason), "out of memory");
		return PTOP__V1__PROBE_STATE__PROBE_STATE_FAILED;
	}
	cgroupfs_read_mounts(m);
	snprintf(dir, sizeof(dir), "%s/memory.current", ctx->cgroup_dir);
	if (!access(dir, R_OK)) {
		snprintf(c->detail, sizeof(c->detail),
			 "v2 lane: %.120s/memory.{current,max,peak,stat,events}; PSI; processes' "
			 "smaps_rollup within %.3g ms per interval", ctx->cgroup_dir,
			 (double)ctx->smaps_budget_ns / 1e6);
	} else if (m->v1_mem[0] && !dir_of(m->v1_mem, m->v1_mem_root, ctx->cgroup_path, dir,
					   sizeof(dir)) && is_dir(dir)) {
		snprintf(c->detail, sizeof(c->detail),
			 "v1 lane: %.120s/memory.{usage_in_bytes,limit_in_bytes,stat,failcnt,"
			 "oom_control} (same path); PSI; processes' smaps_rollup within %.3g ms",
			 dir, (double)ctx->smaps_budget_ns / 1e6);
	} else if (m->v1_mem[0]) {
		snprintf(c->detail, sizeof(c->detail),
			 "v1 lane: the v1 memory cgroup (under %.60s) the subtree's processes "
			 "share (no %.60s there); PSI; processes' smaps_rollup within %.3g ms",
			 m->v1_mem, ctx->cgroup_path, (double)ctx->smaps_budget_ns / 1e6);
	} else {
		snprintf(c->detail, sizeof(c->detail),
			 "no memory controller (none on cgroup v2 for %.100s, no v1 memory mount): "
			 "PSI and processes' smaps_rollup only", ctx->cgroup_path);
	}
	free(m);
	return st;
}

static void cg_stop(struct collector *c)
{
	struct cg_priv *p = c->priv;

	if (!p)
		return;
	procs_clear(p);
	free(p->procs);
	free(p->buf);
	cgroupfs_kvs_free(&p->stat);
	cgroupfs_kvs_free(&p->kv);
	free(p);
	c->priv = NULL;
}

static int cg_start(struct collector *c)
{
	struct rec_ctx *ctx = c->ctx;
	struct cg_priv *p = calloc(1, sizeof(*p));
	char file[PATH_MAX + 32];

	if (!p) {
		snprintf(c->reason, sizeof(c->reason), "out of memory");
		return -ENOMEM;
	}
	c->priv = p;
	p->page_size = sysconf(_SC_PAGESIZE);
	if (p->page_size <= 0)
		p->page_size = 4096;
	cgroupfs_read_mounts(&p->m);
	snprintf(file, sizeof(file), "%s/memory.current", ctx->cgroup_dir);
	p->v2_mem = !access(file, R_OK);
	if (!p->v2_mem && p->m.v1_mem[0] &&
	    !dir_of(p->m.v1_mem, p->m.v1_mem_root, ctx->cgroup_path, file, sizeof(file)) &&
	    is_dir(file))
		p->v1_same = true;
	p->prev_ns = rec_now_ns();
	return 0;
}

static int cg_poll(struct collector *c, uint64_t now_ns, unsigned flags)
{
	struct cg_priv *p = c->priv;
	Ptop__V1__Event ev = PTOP__V1__EVENT__INIT;
	Ptop__V1__CgroupSample s = PTOP__V1__CGROUP_SAMPLE__INIT;
	Ptop__V1__CgroupMemV2 v2 = PTOP__V1__CGROUP_MEM_V2__INIT;
	Ptop__V1__CgroupMemV1 v1 = PTOP__V1__CGROUP_MEM_V1__INIT;
	Ptop__V1__ProcCoverage cov = PTOP__V1__PROC_COVERAGE__INIT;
	Ptop__V1__Psi psi[N_PSI], *psi_ptrs[N_PSI];
	Ptop__V1__PsiLine lines[N_PSI][2];
	Ptop__V1__ProcMem **pms = NULL;
	Ptop__V1__StatEntry **stat = NULL;
	uint64_t interval;
	size_t i;
	int err;

	(void)flags;
	if (!p)
		return -EINVAL;
	err = poll_procs(c, p, &cov);
	if (err) {
		snprintf(c->reason, sizeof(c->reason), "listing the cgroup's processes: %s",
			 strerror(-err));
		return err;
	}
	s.path = (char *)c->ctx->cgroup_path;
	p->stat.n = 0;
	if (p->v2_mem) {
		err = poll_v2(c, p, &v2);
		if (err < 0)
			return err;
		if (err)
			s.v2 = &v2;
	} else {
		pick_v1(c, p);
		if (p->v1_dir[0]) {
			err = poll_v1(c, p, &v1);
			if (err < 0)
				return err;
			if (err) {
				s.v1 = &v1;
				s.v1_path = p->v1_path;
			}
		}
	}
	stat = stat_entries(p, &i);
	if (p->stat.n && !stat)
		return -ENOMEM;
	if (s.v2) {
		v2.stat = stat;
		v2.n_stat = i;
	} else if (s.v1) {
		v1.stat = stat;
		v1.n_stat = i;
	}
	s.n_psi = poll_psi(c, p, psi, lines);
	for (i = 0; i < s.n_psi; i++)
		psi_ptrs[i] = &psi[i];
	s.psi = psi_ptrs;
	if (p->n) {
		pms = calloc(p->n, sizeof(*pms));
		if (!pms) {
			free(stat);
			return -ENOMEM;
		}
		for (i = 0; i < p->n; i++)
			pms[i] = &p->procs[i].pm;
	}
	s.procs = pms;
	s.n_procs = p->n;
	s.coverage = &cov;

	interval = now_ns > p->prev_ns ? now_ns - p->prev_ns : 0;
	p->prev_ns = now_ns;
	ev.payload_case = PTOP__V1__EVENT__PAYLOAD_CGROUP;
	ev.cgroup = &s;
	err = rec_emit_event(c->ctx, &ev, PTOP__V1__CATEGORY__CATEGORY_CGROUP, now_ns, interval);
	free(pms);
	free(stat);
	return err;
}

const struct collector_ops cgroup_collector = {
	.name = "cgroup",
	.summary = "--cgroup: the cgroup's memory (v2, or v1 on a hybrid host), PSI, and each "
		   "process's RSS/PSS/USS (smaps_rollup, within --smaps-budget)",
	.check = cg_check,
	.start = cg_start,
	.poll = cg_poll,
	.stop = cg_stop,
};
