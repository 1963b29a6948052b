/* report.c — `report cgroup` (a whole cgroup's memory, OOM events, pressure and its
 * processes by PSS) and `report apps` (those processes grouped into applications), from the
 * cgroup collector's tables (cgroup_sample, cgroup_stat, cgroup_psi, cgroup_proc).
 */
#include "analyze/report.h"
#include "collectors/cgroup/names.h"
#include "common/array.h"
#include "collectors/cgroup/report.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define TOP_PROCS 20 /* report cgroup: processes shown without --top */
#define TOP_APPS 10  /* report apps: applications shown before the rest fold into others */

/* ------------------------------------------------------------------ samples */

/* PSI lines: resource x kind, in this order. */
const char *const cg_psi_resource[3] = {"memory", "cpu", "io"};
const char *const cg_psi_kind[2] = {"some", "full"};

static void col_copy(sqlite3_stmt *st, int c, char *dst, size_t len)
{
	const unsigned char *s = sqlite3_column_text(st, c);

	if (s && *s)
		snprintf(dst, len, "%s", (const char *)s);
}

static int psi_slot(const char *resource, const char *kind)
{
	for (int r = 0; r < 3; r++)
		for (int k = 0; k < 2; k++)
			if (!strcmp(resource, cg_psi_resource[r]) && !strcmp(kind, cg_psi_kind[k]))
				return r * 2 + k;
	return -1;
}

/* The samples in the window, for a query of cgroup_psi or cgroup_proc: their (cap, seq) index
 * then reads only those rows (a filter on the joined sample's time would read them all). */
#define WINDOW_SEQS "(SELECT seq FROM cgroup_sample WHERE cap = ?1 AND time_ns BETWEEN ?2 AND ?3)"

int cg_data__load(sqlite3 *db, const struct capture_meta *m, const struct window *w,
		  struct cg_data *d)
{
	static const char sql[] =
	    "SELECT seq, time_ns, lane, current, limit_bytes, peak, oom_delta, oom_kill_delta, "
	    "oom_kill_total, high_delta, max_delta, failcnt_delta, under_oom, processes, covered, "
	    "denied, gone, skipped, walk_ns, budget_ns, path, v1_path FROM cgroup_sample "
	    "WHERE cap = ?1 AND time_ns BETWEEN ?2 AND ?3 ORDER BY seq";
	static const char psi_sql[] =
	    "SELECT p.seq, p.resource, p.kind, p.avg10, p.avg60, p.avg300, p.total_delta_us "
	    "FROM cgroup_psi p JOIN cgroup_sample s ON s.cap = p.cap AND s.seq = p.seq "
	    "WHERE p.cap = ?1 AND p.seq IN " WINDOW_SEQS " ORDER BY p.seq";
	sqlite3_stmt *st = NULL;
	size_t cap = 0, at = 0;
	int rc, err = 0;

	if (report__prepare(db, sql, m, w, &st))
		return -EIO;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct cg_sample *s;

		if (array__grow((void **)&d->s, &cap, d->n, sizeof(*d->s))) {
			err = -ENOMEM;
			goto cleanup;
		}
		s = &d->s[d->n++];
		memset(s, 0, sizeof(*s));
		s->seq = sqlite3_column_int64(st, 0);
		s->time_ns = sqlite3_column_int64(st, 1);
		col_copy(st, 2, s->lane, sizeof(s->lane));
		s->current = report__col(st, 3, -1);
		s->limit = report__col(st, 4, -1);
		s->peak = report__col(st, 5, -1);
		s->oom = report__col(st, 6, -1);
		s->oom_kill = report__col(st, 7, -1);
		s->oom_kill_total = report__col(st, 8, -1);
		s->high = report__col(st, 9, -1);
		s->max = report__col(st, 10, -1);
		s->failcnt = report__col(st, 11, -1);
		s->under_oom = report__col(st, 12, -1);
		s->processes = report__col(st, 13, -1);
		s->covered = report__col(st, 14, -1);
		s->denied = report__col(st, 15, -1);
		s->gone = report__col(st, 16, -1);
		s->skipped = report__col(st, 17, -1);
		s->walk_ns = report__col(st, 18, -1);
		s->budget_ns = report__col(st, 19, -1);
		col_copy(st, 20, d->path, sizeof(d->path));
		col_copy(st, 21, d->v1_path, sizeof(d->v1_path));
		for (int k = 0; k < CG_PSI_N; k++)
			s->psi_avg10[k] = NAN;
	}
	if (rc != SQLITE_DONE) {
		err = -EIO;
		goto cleanup;
	}
	sqlite3_finalize(st);
	st = NULL;

	if (report__prepare(db, psi_sql, m, w, &st))
		return -EIO;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t seq = sqlite3_column_int64(st, 0);
		const char *res = (const char *)sqlite3_column_text(st, 1);
		const char *kind = (const char *)sqlite3_column_text(st, 2);
		int k = psi_slot(res ? res : "", kind ? kind : "");
		struct cg_psi_agg *a;
		double avg10;

		if (k < 0)
			continue;
		while (at < d->n && d->s[at].seq < seq)
			at++;
		a = &d->psi[k];
		avg10 = sqlite3_column_double(st, 3);
		if (at < d->n && d->s[at].seq == seq)
			d->s[at].psi_avg10[k] = avg10;
		if (!a->samples++ || avg10 > a->avg10_max)
			a->avg10_max = avg10;
		a->avg10_last = avg10;
		a->avg60_last = sqlite3_column_double(st, 4);
		a->avg300_last = sqlite3_column_double(st, 5);
		if (report__col(st, 6, -1) > 0)
			a->stall_us += (uint64_t)report__col(st, 6, -1);
	}
	if (rc != SQLITE_DONE)
		err = -EIO;
cleanup:
	sqlite3_finalize(st);
	return err;
}

/* ------------------------------------------------------------------ processes */

/* Every pid of the cgroup_proc rows in the window: its last state, and the values of its last
 * covered read. LAST_SEQ is the window's last sample. */
int cg_procs__load(sqlite3 *db, const struct capture_meta *m, const struct window *w,
		   int64_t last_seq, struct cg_proc **out, size_t *n)
{
	static const char sql[] =
	    "SELECT p.pid, p.seq, s.time_ns, p.comm, p.exe, p.unit, p.state, p.rss, p.pss, "
	    "p.uss, p.swap FROM cgroup_proc p JOIN cgroup_sample s ON s.cap = p.cap AND "
	    "s.seq = p.seq WHERE p.cap = ?1 AND p.seq IN " WINDOW_SEQS " "
	    "ORDER BY p.pid, p.seq";
	struct cg_proc *v = NULL, *p = NULL;
	size_t nv = 0, cap = 0;
	sqlite3_stmt *st = NULL;
	int rc, err = 0;

	if (report__prepare(db, sql, m, w, &st))
		return -EIO;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t pid = sqlite3_column_int64(st, 0);

		if (!p || p->pid != pid) {
			if (array__grow((void **)&v, &cap, nv, sizeof(*v))) {
				err = -ENOMEM;
				goto cleanup;
			}
			p = &v[nv++];
			memset(p, 0, sizeof(*p));
			p->pid = pid;
			p->value_ns = p->rss = p->pss = p->uss = p->swap = -1;
		}
		p->in_last = sqlite3_column_int64(st, 1) == last_seq;
		p->last_seen_ns = sqlite3_column_int64(st, 2);
		col_copy(st, 3, p->comm, sizeof(p->comm));
		col_copy(st, 4, p->exe, sizeof(p->exe));
		col_copy(st, 5, p->unit, sizeof(p->unit));
		p->state[0] = 0;
		col_copy(st, 6, p->state, sizeof(p->state));
		if (!strcmp(p->state, "covered")) {
			p->value_ns = p->last_seen_ns;
			p->rss = report__col(st, 7, -1);
			p->pss = report__col(st, 8, -1);
			p->uss = report__col(st, 9, -1);
			p->swap = report__col(st, 10, -1);
		}
	}
	if (rc != SQLITE_DONE) {
		err = -EIO;
		goto cleanup;
	}
	*out = v;
	*n = nv;
	v = NULL;
cleanup:
	sqlite3_finalize(st);
	free(v);
	return err;
}

/* Larger first, not measured (-1) last; 0 when equal. */
static int cmp_measure(int64_t a, int64_t b)
{
	if (a != b)
		return a > b ? -1 : 1;
	return 0;
}

int cg_proc__cmp_pss(const void *x, const void *y)
{
	const struct cg_proc *a = x, *b = y;
	int c = cmp_measure(a->pss, b->pss);

	return c ? c : (a->pid > b->pid) - (a->pid < b->pid);
}

/* ------------------------------------------------------------------ output helpers */

static double rel_s(const struct capture_meta *m, int64_t ns)
{
	return (double)llround((double)(ns - m->base_ns) / 1e6) / 1000;
}

static void json_opt_str(struct json *j, const char *key, const char *s)
{
	json__kv_string(j, key, s && *s ? s : NULL);
}

static int set_bytes(struct table *t, size_t col, int64_t v)
{
	char buf[32];

	if (v < 0)
		return 0; /* NULL: "-" */
	return table__set_int(t, col, v, fmt_bytes(buf, sizeof(buf), (uint64_t)v));
}

static int set_text(struct table *t, size_t col, const char *s)
{
	return s && *s ? table__set_text(t, col, s) : 0;
}

/* ------------------------------------------------------------------ report cgroup */

/* The memory.stat breakdown: one figure per row, from the v2 key, or on v1 the hierarchical
 * total_* key (the subtree), else the cgroup's own key. */
static const struct {
	const char *name, *v2, *v1_total, *v1;
} stat_fig[] = {
    {"anon", "anon", "total_rss", "rss"},
    {"file", "file", "total_cache", "cache"},
    {"shmem", "shmem", "total_shmem", "shmem"},
    {"file_mapped", "file_mapped", "total_mapped_file", "mapped_file"},
    {"file_dirty", "file_dirty", "total_dirty", "dirty"},
    {"file_writeback", "file_writeback", "total_writeback", "writeback"},
    {"anon_thp", "anon_thp", "total_rss_huge", "rss_huge"},
    {"swap", NULL, "total_swap", "swap"},
    {"kernel", "kernel", NULL, NULL},
    {"kernel_stack", "kernel_stack", NULL, NULL},
    {"pagetables", "pagetables", NULL, NULL},
    {"percpu", "percpu", NULL, NULL},
    {"sock", "sock", NULL, NULL},
    {"slab", "slab", NULL, NULL},
    {"slab_reclaimable", "slab_reclaimable", NULL, NULL},
    {"slab_unreclaimable", "slab_unreclaimable", NULL, NULL},
    {"active_anon", "active_anon", "total_active_anon", "active_anon"},
    {"inactive_anon", "inactive_anon", "total_inactive_anon", "inactive_anon"},
    {"active_file", "active_file", "total_active_file", "active_file"},
    {"inactive_file", "inactive_file", "total_inactive_file", "inactive_file"},
    {"unevictable", "unevictable", "total_unevictable", "unevictable"},
};
_Static_assert(sizeof(stat_fig) / sizeof(stat_fig[0]) == CG_STAT_FIGS, "CG_STAT_FIGS");

const char *cg_stat__fig_name(size_t k)
{
	return k < CG_STAT_FIGS ? stat_fig[k].name : NULL;
}

int cg_stat__load(sqlite3 *db, const struct capture_meta *m, const struct cg_data *d,
		  struct cg_stat *cs)
{
	static const char sql[] =
	    "SELECT key, value FROM cgroup_stat WHERE cap = ?1 AND seq = ?2 ORDER BY key";
	sqlite3_stmt *st = NULL;
	size_t cap = 0, i, k;
	int rc, err = 0;

	memset(cs, 0, sizeof(*cs));
	for (k = 0; k < CG_STAT_FIGS; k++)
		cs->fig[k] = -1;
	for (i = d->n; i-- > 0;)
		if (d->s[i].lane[0]) {
			cs->at = &d->s[i];
			break;
		}
	if (!cs->at)
		return 0;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return -EIO;
	sqlite3_bind_int64(st, 1, m->cap);
	sqlite3_bind_int64(st, 2, cs->at->seq);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (array__grow((void **)&cs->kv, &cap, cs->n, sizeof(*cs->kv))) {
			err = -ENOMEM;
			goto cleanup;
		}
		cs->kv[cs->n].key[0] = 0;
		col_copy(st, 0, cs->kv[cs->n].key, sizeof(cs->kv[cs->n].key));
		cs->kv[cs->n].value = sqlite3_column_int64(st, 1);
		cs->n++;
	}
	if (rc != SQLITE_DONE) {
		err = -EIO;
		goto cleanup;
	}
	for (k = 0; k < CG_STAT_FIGS; k++) {
		bool v2 = !strcmp(cs->at->lane, "v2");
		const char *want[2] = {v2 ? stat_fig[k].v2 : stat_fig[k].v1_total,
				       v2 ? NULL : stat_fig[k].v1};

		for (int w = 0; w < 2 && cs->fig[k] < 0; w++) {
			if (!want[w])
				continue;
			for (i = 0; i < cs->n; i++)
				if (!strcmp(cs->kv[i].key, want[w])) {
					cs->fig[k] = cs->kv[i].value;
					cs->fig_key[k] = want[w];
					break;
				}
		}
	}
cleanup:
	sqlite3_finalize(st);
	return err;
}

/* first, max and last of one column over the samples that have it; the limit's NULL is "no
 * limit" and wins max. */
struct fml {
	size_t samples;
	int64_t first, max, last; /* -1: NULL */
};

enum cg_field { F_CURRENT, F_LIMIT, F_PEAK };

static int64_t field(const struct cg_sample *s, enum cg_field f)
{
	return f == F_CURRENT ? s->current : f == F_LIMIT ? s->limit : s->peak;
}

static void fml_of(const struct cg_data *d, enum cg_field f, struct fml *r)
{
	bool unlimited = false;

	memset(r, 0, sizeof(*r));
	r->first = r->max = r->last = -1;
	for (size_t i = 0; i < d->n; i++) {
		int64_t v = field(&d->s[i], f);

		if (!d->s[i].lane[0])
			continue; /* the memory controller was not read */
		if (v < 0 && f != F_LIMIT)
			continue;
		if (!r->samples++)
			r->first = v;
		if (v < 0)
			unlimited = true;
		else if (v > r->max)
			r->max = v;
		r->last = v;
	}
	if (unlimited)
		r->max = -1;
}

static void sum_opt(int64_t *acc, int64_t v)
{
	if (v >= 0)
		*acc = (*acc < 0 ? 0 : *acc) + v;
}

void cg_oom__of(const struct cg_data *d, struct cg_oom *o)
{
	o->oom = o->oom_kill = o->high = o->max = o->failcnt = -1;
	o->oom_kill_total = o->under_oom_samples = o->under_oom_last = -1;
	for (size_t i = 0; i < d->n; i++) {
		const struct cg_sample *s = &d->s[i];

		sum_opt(&o->oom, s->oom);
		sum_opt(&o->oom_kill, s->oom_kill);
		sum_opt(&o->high, s->high);
		sum_opt(&o->max, s->max);
		sum_opt(&o->failcnt, s->failcnt);
		if (s->oom_kill_total >= 0)
			o->oom_kill_total = s->oom_kill_total;
		if (s->under_oom >= 0) {
			sum_opt(&o->under_oom_samples, s->under_oom ? 1 : 0);
			o->under_oom_last = s->under_oom;
		}
	}
}

void cg_cov__of(const struct cg_data *d, struct cg_cov *c)
{
	memset(c, 0, sizeof(*c));
	c->budget_ns = -1;
	for (size_t i = 0; i < d->n; i++) {
		const struct cg_sample *s = &d->s[i];

		if (s->processes < 0)
			continue;
		c->intervals++;
		c->processes += s->processes;
		c->covered += s->covered > 0 ? s->covered : 0;
		c->denied += s->denied > 0 ? s->denied : 0;
		c->gone += s->gone > 0 ? s->gone : 0;
		c->skipped += s->skipped > 0 ? s->skipped : 0;
		if (s->walk_ns > 0) {
			c->walk_ns += s->walk_ns;
			if (s->walk_ns > c->walk_max_ns)
				c->walk_max_ns = s->walk_ns;
		}
		if (s->budget_ns >= 0)
			c->budget_ns = s->budget_ns;
	}
}

static const char *lanes_of(const struct cg_data *d)
{
	bool v1 = false, v2 = false;

	for (size_t i = 0; i < d->n; i++) {
		v1 |= !strcmp(d->s[i].lane, "v1");
		v2 |= !strcmp(d->s[i].lane, "v2");
	}
	return v1 && v2 ? "v2+v1" : v2 ? "v2" : v1 ? "v1" : NULL;
}

/* The rows of report cgroup, built once (cg_rows__build) and rendered as text, JSON and CSV. */
struct cg_rows {
	struct table *mem;	    /* current, limit, peak: first, max, last, samples */
	struct table *stat;	    /* the memory.stat figures found, in stat_fig order */
	int stat_row[CG_STAT_FIGS]; /* the row of each figure in stat, -1: not found */
	struct table *psi;	    /* one row per PSI file read */
	struct table *procs;	    /* the processes shown */
};

enum { MEM_NAME, MEM_FIRST, MEM_MAX, MEM_LAST, MEM_SAMPLES, MEM_UNLIMITED, MEM_N };
enum { STAT_NAME, STAT_BYTES, STAT_PCT, STAT_KEY, STAT_N };
enum {
	PSI_RESOURCE,
	PSI_KIND,
	PSI_A10MAX,
	PSI_A10,
	PSI_A60,
	PSI_A300,
	PSI_STALL,
	PSI_SAMPLES,
	PSI_N
};
enum {
	PR_PID,
	PR_COMM,
	PR_UNIT,
	PR_RSS,
	PR_PSS,
	PR_USS,
	PR_SWAP,
	PR_STATE,
	PR_LAST_SEEN,
	PR_EXE,
	PR_VALUE,
	PR_N
};

/* The renderings' columns: text (and CSV for the processes) and JSON. */
static const size_t mem_text_cols[] = {MEM_NAME, MEM_FIRST, MEM_MAX, MEM_LAST, MEM_SAMPLES};
static const size_t mem_json_cols[] = {MEM_SAMPLES, MEM_FIRST, MEM_MAX, MEM_LAST, MEM_UNLIMITED};
static const size_t stat_text_cols[] = {STAT_NAME, STAT_BYTES, STAT_PCT, STAT_KEY};
static const size_t stat_json_cols[] = {STAT_BYTES, STAT_KEY};
static const size_t psi_json_cols[] = {PSI_RESOURCE, PSI_KIND, PSI_SAMPLES, PSI_A10MAX,
				       PSI_A10,	     PSI_A60,  PSI_A300,    PSI_STALL};
static const size_t procs_text_cols[] = {PR_PID, PR_COMM, PR_UNIT,  PR_RSS,	  PR_PSS,
					 PR_USS, PR_SWAP, PR_STATE, PR_LAST_SEEN, PR_EXE};
static const size_t procs_json_cols[] = {PR_PID, PR_COMM, PR_EXE,  PR_UNIT,  PR_STATE,	  PR_RSS,
					 PR_PSS, PR_USS,  PR_SWAP, PR_VALUE, PR_LAST_SEEN};
#define NCOLS(a) (sizeof(a) / sizeof((a)[0]))

static void cg_rows__free(struct cg_rows *r)
{
	table__free(r->mem);
	table__free(r->stat);
	table__free(r->psi);
	table__free(r->procs);
	memset(r, 0, sizeof(*r));
}

/* Current, limit and peak over the samples: the limit's NULL is no limit ("none" in text,
 * null in JSON, with unlimited true at the end). */
static int mem_rows(const struct cg_data *d, struct table *t)
{
	static const char *const fname[] = {"current", "limit", "peak"};
	struct fml f;
	int err = 0;

	for (int k = 0; k < 3 && !err; k++) {
		int64_t fv[3];

		fml_of(d, (enum cg_field)k, &f);
		fv[0] = f.first;
		fv[1] = f.max;
		fv[2] = f.last;
		err = table__add_row(t);
		err = err ?: table__set_text(t, MEM_NAME, fname[k]);
		err = err ?: table__set_int(t, MEM_SAMPLES, (int64_t)f.samples, NULL);
		if (k == F_LIMIT)
			err =
			    err ?: table__set_bool(t, MEM_UNLIMITED, f.samples && f.last < 0, NULL);
		for (int c = 0; c < 3 && !err && f.samples; c++) {
			if (fv[c] >= 0)
				err = set_bytes(t, (size_t)(MEM_FIRST + c), fv[c]);
			else if (k == F_LIMIT)
				err = table__set_display(t, (size_t)(MEM_FIRST + c), "none");
		}
	}
	return err;
}

/* The memory.stat figures found at the last sample, with their share of memory.current. */
static int stat_rows(const struct cg_stat *cs, struct cg_rows *r)
{
	char b[32];
	int err = 0;

	for (size_t k = 0; k < CG_STAT_FIGS; k++)
		r->stat_row[k] = -1;
	for (size_t k = 0; cs->at && k < CG_STAT_FIGS && !err; k++) {
		int64_t cur = cs->at->current;

		if (cs->fig[k] < 0)
			continue;
		r->stat_row[k] = (int)table__rows(r->stat);
		err = table__add_row(r->stat);
		err = err ?: table__set_text(r->stat, STAT_NAME, stat_fig[k].name);
		err = err ?: set_bytes(r->stat, STAT_BYTES, cs->fig[k]);
		if (!err && cur > 0)
			err = table__set_real(
			    r->stat, STAT_PCT, 100.0 * (double)cs->fig[k] / (double)cur,
			    fmt_pct(b, sizeof(b), 100.0 * (double)cs->fig[k] / (double)cur));
		err = err ?: table__set_text(r->stat, STAT_KEY, cs->fig_key[k]);
	}
	return err;
}

static int psi_rows(const struct cg_data *d, struct table *t)
{
	char b[32];
	int err = 0;

	for (int k = 0; k < CG_PSI_N && !err; k++) {
		const struct cg_psi_agg *a = &d->psi[k];
		const double avg[4] = {a->avg10_max, a->avg10_last, a->avg60_last, a->avg300_last};

		if (!a->samples)
			continue;
		err = table__add_row(t);
		err = err ?: table__set_text(t, PSI_RESOURCE, cg_psi_resource[k / 2]);
		err = err ?: table__set_text(t, PSI_KIND, cg_psi_kind[k % 2]);
		for (int c = 0; c < 4 && !err; c++) {
			snprintf(b, sizeof(b), "%.2f%%", avg[c]);
			err = table__set_real(t, (size_t)(PSI_A10MAX + c), avg[c], b);
		}
		err = err
			  ?: table__set_int(t, PSI_STALL, (int64_t)a->stall_us,
					    fmt_ns(b, sizeof(b), a->stall_us * 1000));
		err = err ?: table__set_int(t, PSI_SAMPLES, (int64_t)a->samples, NULL);
	}
	return err;
}

static int procs_rows(const struct cg_proc *p, size_t n, const struct capture_meta *m,
		      struct table *t)
{
	int err = 0;

	for (size_t i = 0; i < n && !err; i++) {
		err = table__add_row(t);
		err = err ?: table__set_int(t, PR_PID, p[i].pid, NULL);
		err = err ?: set_text(t, PR_COMM, p[i].comm);
		err = err ?: set_text(t, PR_UNIT, p[i].unit);
		err = err ?: set_bytes(t, PR_RSS, p[i].rss);
		err = err ?: set_bytes(t, PR_PSS, p[i].pss);
		err = err ?: set_bytes(t, PR_USS, p[i].uss);
		err = err ?: set_bytes(t, PR_SWAP, p[i].swap);
		err = err ?: set_text(t, PR_STATE, p[i].state);
		err = err ?: table__set_real(t, PR_LAST_SEEN, rel_s(m, p[i].last_seen_ns), NULL);
		err = err ?: set_text(t, PR_EXE, p[i].exe);
		if (p[i].value_ns >= 0)
			err = err ?: table__set_real(t, PR_VALUE, rel_s(m, p[i].value_ns), NULL);
	}
	return err;
}

/* Build R from the cgroup's samples D, its memory.stat CS and the first N of its processes
 * P. Free with cg_rows__free, on error too. 0 or -ENOMEM. */
static int cg_rows__build(struct cg_rows *r, const struct cg_data *d, const struct cg_stat *cs,
			  const struct cg_proc *p, size_t n, const struct capture_meta *m)
{
	static const char *const mcols[] = {"memory", "first",	 "max",
					    "last",   "samples", "unlimited"};
	static const char *const scols[] = {"memory.stat", "bytes", "of current", "key"};
	static const char *const pcols[] = {"pressure",	  "kind",	 "avg10 max", "avg10 last",
					    "avg60 last", "avg300 last", "stall",     "samples"};
	static const char *const pkeys[] = {"resource",	  "kind",	 "avg10_max", "avg10_last",
					    "avg60_last", "avg300_last", "stall_us",  "samples"};
	static const char *const prcols[] = {"pid",  "comm",  "unit",	     "rss", "pss",    "uss",
					     "swap", "state", "last_seen_s", "exe", "value_s"};
	int err = 0;

	memset(r, 0, sizeof(*r));
	r->mem = table__new(MEM_N, mcols);
	r->stat = table__new(STAT_N, scols);
	r->psi = table__new(PSI_N, pcols);
	r->procs = table__new(PR_N, prcols);
	if (!r->mem || !r->stat || !r->psi || !r->procs)
		return -ENOMEM;
	for (size_t c = 0; c < PSI_N && !err; c++)
		err = table__set_key(r->psi, c, pkeys[c]);
	err = err ?: mem_rows(d, r->mem);
	err = err ?: stat_rows(cs, r);
	err = err ?: psi_rows(d, r->psi);
	err = err ?: procs_rows(p, n, m, r->procs);
	return err;
}

static int print_cgroup_text(const struct cg_data *d, const struct cg_stat *cs,
			     const struct cg_rows *r, size_t np, size_t shown,
			     const struct capture_meta *m, FILE *out)
{
	char b1[32], b2[32], b3[32];
	struct cg_oom oom;
	struct cg_cov cov;
	int err = 0;

	/* memory: current, limit, peak */
	fputc('\n', out);
	err = table__print_cols(r->mem, out, OUT_TEXT, mem_text_cols, NCOLS(mem_text_cols));
	if (err)
		return err;

	/* memory.stat at the last sample */
	if (cs->at) {
		fprintf(out, "\nmemory.stat at %s s (%s lane):\n",
			fmt_secs(b1, sizeof(b1), cs->at->time_ns - m->base_ns), cs->at->lane);
		if (table__rows(r->stat))
			err = table__print_cols(r->stat, out, OUT_TEXT, stat_text_cols,
						NCOLS(stat_text_cols));
		else
			fprintf(out, "  (none of the figures shown here was in memory.stat)\n");
		if (err)
			return err;
	}

	/* OOM events */
	cg_oom__of(d, &oom);
	if (oom.oom >= 0 || oom.high >= 0)
		fprintf(out,
			"\nOOM (memory.events, over the capture): oom %" PRId64
			", oom_kill %" PRId64 ", max %" PRId64 ", high %" PRId64 "\n",
			oom.oom < 0 ? 0 : oom.oom, oom.oom_kill < 0 ? 0 : oom.oom_kill,
			oom.max < 0 ? 0 : oom.max, oom.high < 0 ? 0 : oom.high);
	if (oom.failcnt >= 0 || oom.under_oom_samples >= 0)
		fprintf(out,
			"\nOOM (v1 memory.oom_control, memory.failcnt, over the capture): oom_kill "
			"%" PRId64 ", failcnt %" PRId64 ", under_oom in %" PRId64
			" of %zu samples (at the end: %s)\n",
			oom.oom_kill < 0 ? 0 : oom.oom_kill, oom.failcnt < 0 ? 0 : oom.failcnt,
			oom.under_oom_samples < 0 ? 0 : oom.under_oom_samples, d->n,
			oom.under_oom_last > 0 ? "yes" : "no");

	/* pressure */
	if (table__rows(r->psi)) {
		fputc('\n', out);
		err = table__print(r->psi, out, OUT_TEXT);
		if (err)
			return err;
	} else {
		fprintf(out, "\npressure: no PSI file was readable\n");
	}

	/* processes */
	fprintf(out, "\nprocesses by PSS (%zu seen; the last covered read of each", np);
	if (shown < np)
		fprintf(out, "; the first %zu shown", shown);
	fprintf(out, "):\n");
	if (np) {
		err = table__print_cols(r->procs, out, OUT_TEXT, procs_text_cols,
					NCOLS(procs_text_cols));
		if (err)
			return err;
	}
	cg_cov__of(d, &cov);
	if (cov.intervals) {
		fprintf(out,
			"coverage: %" PRId64 " process reads due over %zu intervals: %" PRId64
			" covered, %" PRId64 " denied, %" PRId64 " gone, %" PRId64 " skipped",
			cov.processes, cov.intervals, cov.covered, cov.denied, cov.gone,
			cov.skipped);
		fprintf(out, ";\n          smaps_rollup reads took %s (at most %s in an interval)",
			fmt_ns(b1, sizeof(b1), (uint64_t)cov.walk_ns),
			fmt_ns(b2, sizeof(b2), (uint64_t)cov.walk_max_ns));
		if (cov.budget_ns > 0)
			fprintf(out, "; budget %s per interval",
				fmt_ns(b3, sizeof(b3), (uint64_t)cov.budget_ns));
		fputc('\n', out);
	} else {
		fprintf(out, "coverage: not recorded\n");
	}
	fprintf(out, "\ncurrent, limit, peak: v2 memory.current, memory.max, memory.peak; v1 "
		     "memory.usage_in_bytes,\nmemory.limit_in_bytes, memory.max_usage_in_bytes. "
		     "limit none: no limit. rss, pss, uss, swap:\n/proc/PID/smaps_rollup; \"-\": "
		     "not measured (see state).\n");
	return 0;
}

static void print_cgroup_json(struct json *j, const struct cg_data *d, const struct cg_stat *cs,
			      const struct cg_rows *r, size_t np, const struct capture_meta *m)
{
	struct cg_oom oom;
	struct cg_cov cov;

	json_opt_str(j, "path", d->path);
	json_opt_str(j, "lane", lanes_of(d));
	json_opt_str(j, "v1_path", d->v1_path);
	json__kv_int(j, "samples", (int64_t)d->n);
	json__key(j, "memory");
	json__begin_object(j);
	for (size_t k = 0; k < table__rows(r->mem); k++) {
		json__key(j, table__value(r->mem, k, MEM_NAME));
		json__begin_object(j);
		/* unlimited: the limit's only */
		table__json_fields(r->mem, j, k, mem_json_cols,
				   NCOLS(mem_json_cols) - (k == F_LIMIT ? 0 : 1));
		json__end_object(j);
	}
	json__end_object(j);

	json__key(j, "stat");
	if (!cs->at) {
		json__null(j);
	} else {
		json__begin_object(j);
		json__kv_real(j, "t_s", rel_s(m, cs->at->time_ns));
		json__kv_string(j, "lane", cs->at->lane);
		json__key(j, "breakdown");
		json__begin_object(j);
		for (size_t k = 0; k < CG_STAT_FIGS; k++) {
			json__key(j, stat_fig[k].name);
			if (r->stat_row[k] < 0) {
				json__null(j);
				continue;
			}
			json__begin_object(j);
			table__json_fields(r->stat, j, (size_t)r->stat_row[k], stat_json_cols,
					   NCOLS(stat_json_cols));
			json__end_object(j);
		}
		json__end_object(j);
		json__key(j, "keys");
		json__begin_object(j);
		for (size_t i = 0; i < cs->n; i++)
			json__kv_int(j, cs->kv[i].key, cs->kv[i].value);
		json__end_object(j);
		json__end_object(j);
	}

	cg_oom__of(d, &oom);
	json__key(j, "oom");
	json__begin_object(j);
	report__json_opt_int(j, "oom", oom.oom);
	report__json_opt_int(j, "oom_kill", oom.oom_kill);
	report__json_opt_int(j, "oom_kill_total", oom.oom_kill_total);
	report__json_opt_int(j, "high", oom.high);
	report__json_opt_int(j, "max", oom.max);
	report__json_opt_int(j, "failcnt", oom.failcnt);
	report__json_opt_int(j, "under_oom_samples", oom.under_oom_samples);
	json__key(j, "under_oom_last");
	if (oom.under_oom_last >= 0)
		json__bool(j, oom.under_oom_last > 0);
	else
		json__null(j);
	json__end_object(j);

	json__key(j, "psi");
	table__json(r->psi, j, psi_json_cols, NCOLS(psi_json_cols));

	json__kv_int(j, "processes_seen", (int64_t)np);
	json__key(j, "processes");
	table__json(r->procs, j, procs_json_cols, NCOLS(procs_json_cols));

	cg_cov__of(d, &cov);
	json__key(j, "coverage");
	json__begin_object(j);
	json__kv_int(j, "intervals", (int64_t)cov.intervals);
	json__kv_int(j, "processes", cov.processes);
	json__kv_int(j, "covered", cov.covered);
	json__kv_int(j, "denied", cov.denied);
	json__kv_int(j, "gone", cov.gone);
	json__kv_int(j, "skipped", cov.skipped);
	json__kv_int(j, "walk_ns", cov.walk_ns);
	json__kv_int(j, "walk_max_ns", cov.walk_max_ns);
	report__json_opt_int(j, "budget_ns", cov.budget_ns);
	json__end_object(j);

	json__key(j, "series");
	json__begin_array(j);
	for (size_t i = 0; i < d->n; i++) {
		const struct cg_sample *s = &d->s[i];
		char key[32];

		json__begin_object(j);
		json__kv_real(j, "t_s", rel_s(m, s->time_ns));
		json_opt_str(j, "lane", s->lane);
		report__json_opt_int(j, "current", s->current);
		report__json_opt_int(j, "limit", s->limit);
		report__json_opt_int(j, "peak", s->peak);
		report__json_opt_int(j, "oom_kill", s->oom_kill);
		for (int k = 0; k < CG_PSI_N; k++) {
			snprintf(key, sizeof(key), "%s_%s_avg10", cg_psi_resource[k / 2],
				 cg_psi_kind[k % 2]);
			json__kv_real(j, key, s->psi_avg10[k]); /* NAN: null */
		}
		report__json_opt_int(j, "processes", s->processes);
		report__json_opt_int(j, "covered", s->covered);
		json__end_object(j);
	}
	json__end_array(j);
}

void cg_data__free(struct cg_data *d)
{
	free(d->s);
	memset(d, 0, sizeof(*d));
}

static int cgroup_body(const struct report_ctx *ctx)
{
	sqlite3 *db = ctx->db;
	const struct report_opts *o = ctx->o;
	FILE *out = ctx->out;
	const struct capture_meta m = *ctx->m;
	struct json *j = ctx->j;
	struct cg_proc *procs = NULL;
	struct cg_data d = {0};
	struct cg_stat cs = {0};
	struct cg_rows rows = {0};
	size_t np = 0, shown;
	char w[96], c1[32], c2[32];
	int err;

	err = cg_data__load(db, &m, &o->win, &d);
	err = err ?: cg_procs__load(db, &m, &o->win, d.n ? d.s[d.n - 1].seq : -1, &procs, &np);
	err = err ?: cg_stat__load(db, &m, &d, &cs);
	if (err)
		goto cleanup;
	if (np)
		qsort(procs, np, sizeof(*procs), cg_proc__cmp_pss);
	shown = o->top ? o->top : TOP_PROCS;
	if (shown > np || o->fmt == OUT_CSV)
		shown = np;
	err = cg_rows__build(&rows, &d, &cs, procs, shown, &m);
	if (err)
		goto cleanup;
	switch (o->fmt) {
	case OUT_TEXT:
		window__describe(&o->win, w, sizeof(w));
		fprintf(out, "cgroup %s (%s): memory lane %s, %zu samples",
			d.path[0] ? d.path : "(path not recorded)", w,
			lanes_of(&d) ? lanes_of(&d) : "none (no memory controller read)", d.n);
		if (d.n)
			fprintf(out, " from %s s to %s s",
				fmt_secs(c1, sizeof(c1), d.s[0].time_ns - m.base_ns),
				fmt_secs(c2, sizeof(c2), d.s[d.n - 1].time_ns - m.base_ns));
		fputc('\n', out);
		if (d.v1_path[0] && strcmp(d.v1_path, d.path))
			fprintf(out,
				"v1 memory cgroup: %s, not %s: the memory figures below cover every "
				"process in it\n(no v1 memory cgroup %s was found; the process table "
				"is the recorded cgroup's)\n",
				d.v1_path, d.path[0] ? d.path : "the recorded cgroup",
				d.path[0] ? d.path : "such cgroup");
		else if (d.v1_path[0])
			fprintf(out, "v1 memory cgroup: %s\n", d.v1_path);
		report__drops(NULL, out, o, "cgroup", ctx->drops, ctx->ndrops);
		if (d.n)
			err = print_cgroup_text(&d, &cs, &rows, np, shown, &m, out);
		break;
	case OUT_CSV:
		report__drops(NULL, out, o, "cgroup", ctx->drops, ctx->ndrops);
		err = table__print_cols(rows.procs, out, OUT_CSV, procs_text_cols,
					NCOLS(procs_text_cols));
		break;
	case OUT_JSON:
		json__kv_bool(j, "collected", true);
		json__kv_string(j, "source", ctx->probe->source[0] ? ctx->probe->source : NULL);
		report__drops(j, out, o, "cgroup", ctx->drops, ctx->ndrops);
		print_cgroup_json(j, &d, &cs, &rows, np, &m);
		json__end_object(j);
		err = json__end(j);
		break;
	}
cleanup:
	cg_rows__free(&rows);
	free(cs.kv);
	cg_data__free(&d);
	free(procs);
	return err;
}

/* ------------------------------------------------------------------ report apps */

/* The application a process belongs to: its systemd app-*.scope unit, else its executable,
 * else its comm. */
static void app_of(const char *unit, const char *exe, const char *comm, char *name, size_t len,
		   const char **kind)
{
	size_t ul = unit ? strlen(unit) : 0;

	if (ul > strlen("app-.scope") && !strncmp(unit, "app-", 4) &&
	    !strcmp(unit + ul - 6, ".scope")) {
		snprintf(name, len, "%s", unit);
		*kind = "unit";
	} else if (exe && *exe) {
		snprintf(name, len, "%s", exe);
		*kind = "exe";
	} else {
		snprintf(name, len, "%s", comm && *comm ? comm : "?");
		*kind = "comm";
	}
}

static enum apps_by apps_by_of(const struct report_opts *o)
{
	enum apps_by by = REPORT_OWN(o, struct apps_opts)->by;

	return by ? by : APPS_BY_PSS;
}

static int64_t app_measure(const struct cg_app *a, enum apps_by by)
{
	return by == APPS_BY_RSS ? a->rss : by == APPS_BY_USS ? a->uss : a->pss;
}

static int cmp_app(const void *x, const void *y, void *by_)
{
	const struct cg_app *a = x, *b = y;
	enum apps_by by = *(const enum apps_by *)by_;
	int c = cmp_measure(app_measure(a, by), app_measure(b, by));

	return c ? c : strcmp(a->name, b->name);
}

static int app_add(struct cg_app **v, size_t *n, size_t *cap, const char *unit, const char *exe,
		   const char *comm, int64_t rss, int64_t pss, int64_t uss, int64_t swap)
{
	char name[512];
	const char *kind;
	struct cg_app *a = NULL;

	app_of(unit, exe, comm, name, sizeof(name), &kind);
	for (size_t i = 0; i < *n; i++)
		if (!strcmp((*v)[i].name, name) && !strcmp((*v)[i].kind, kind)) {
			a = &(*v)[i];
			break;
		}
	if (!a) {
		if (array__grow((void **)v, cap, *n, sizeof(**v)))
			return -ENOMEM;
		a = &(*v)[(*n)++];
		memset(a, 0, sizeof(*a));
		snprintf(a->name, sizeof(a->name), "%s", name);
		a->kind = kind;
		a->rss = a->pss = a->uss = a->swap = -1;
	}
	a->processes++;
	if (pss >= 0 || rss >= 0) {
		a->covered++;
		sum_opt(&a->rss, rss);
		sum_opt(&a->pss, pss);
		sum_opt(&a->uss, uss);
		sum_opt(&a->swap, swap);
	}
	return 0;
}

/* Sort the apps, and fold those after the first TOP into one "others (N)" row (kept at the end
 * of *V, *N updated). */
static void apps_fold(struct cg_app *v, size_t *n, size_t top, enum apps_by by)
{
	struct cg_app o;

	if (*n) /* qsort's array may not be NULL, even empty */
		qsort_r(v, *n, sizeof(*v), cmp_app, &by);
	if (*n <= top)
		return;
	memset(&o, 0, sizeof(o));
	o.kind = "others";
	o.rss = o.pss = o.uss = o.swap = -1;
	for (size_t i = top; i < *n; i++) {
		o.processes += v[i].processes;
		o.covered += v[i].covered;
		sum_opt(&o.rss, v[i].rss);
		sum_opt(&o.pss, v[i].pss);
		sum_opt(&o.uss, v[i].uss);
		sum_opt(&o.swap, v[i].swap);
		o.folded++;
	}
	snprintf(o.name, sizeof(o.name), "others (%" PRId64 ")", o.folded);
	v[top] = o;
	*n = top + 1;
}

/* The target of a single-process capture, from memory_sample: one app. */
static int apps_from_memory(sqlite3 *db, const struct capture_meta *m, const struct window *w,
			    struct cg_app **v, size_t *n, size_t *cap, int64_t *at_ns)
{
	static const char sql[] =
	    "SELECT t.comm, t.exe, t.cgroup_path, s.time_ns, s.rss, s.pss, s.uss, s.swap "
	    "FROM target t LEFT JOIN (SELECT time_ns, rss, pss, uss, swap FROM memory_sample "
	    "WHERE cap = ?1 AND time_ns BETWEEN ?2 AND ?3 AND (rss IS NOT NULL OR pss IS NOT "
	    "NULL) ORDER BY time_ns DESC LIMIT 1) s WHERE t.cap = ?1";
	sqlite3_stmt *st = NULL;
	char comm[64] = "", exe[512] = "", cg[512] = "";
	const char *unit;
	int rc, err = 0;

	if (report__prepare(db, sql, m, w, &st))
		return -EIO;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		col_copy(st, 0, comm, sizeof(comm));
		col_copy(st, 1, exe, sizeof(exe));
		col_copy(st, 2, cg, sizeof(cg));
		unit = strrchr(cg, '/'); /* the unit is the last component of its cgroup */
		*at_ns = report__col(st, 3, -1);
		err = app_add(v, n, cap, unit ? unit + 1 : NULL, exe, comm, report__col(st, 4, -1),
			      report__col(st, 5, -1), report__col(st, 6, -1), report__col(st, 7, -1));
	} else if (rc != SQLITE_DONE) {
		err = -EIO;
	}
	sqlite3_finalize(st);
	return err;
}

static int print_apps_table(const struct cg_app *v, size_t n, FILE *out, enum out_format fmt)
{
	static const char *const cols[] = {"app", "by",	 "processes", "covered",
					   "rss", "pss", "uss",	      "swap"};
	struct table *t = table__new(8, cols);
	int err = 0;

	if (!t)
		return -ENOMEM;
	for (size_t i = 0; i < n && !err; i++) {
		err = table__add_row(t);
		err = err ?: table__set_text(t, 0, v[i].name);
		err = err ?: table__set_text(t, 1, v[i].kind);
		err = err ?: table__set_int(t, 2, v[i].processes, NULL);
		err = err ?: table__set_int(t, 3, v[i].covered, NULL);
		err = err ?: set_bytes(t, 4, v[i].rss);
		err = err ?: set_bytes(t, 5, v[i].pss);
		err = err ?: set_bytes(t, 6, v[i].uss);
		err = err ?: set_bytes(t, 7, v[i].swap);
	}
	err = err ?: table__print(t, out, fmt);
	table__free(t);
	return err;
}

static const char *const by_name[] = {
    [APPS_BY_PSS] = "pss", [APPS_BY_USS] = "uss", [APPS_BY_RSS] = "rss"};

int cg_apps__load(sqlite3 *db, const struct capture_meta *m, const struct window *w,
		  struct cg_app **out, size_t *n, int64_t *at_ns)
{
	const char *gone =
	    capture_proc_mem_state_name(PTOP__V1__PROC_MEM_STATE__PROC_MEM_STATE_GONE);
	struct cg_proc *procs = NULL;
	struct cg_data d = {0};
	size_t np = 0, cap = 0;
	int err;

	*out = NULL;
	*n = 0;
	*at_ns = -1;
	err = cg_data__load(db, m, w, &d);
	if (!err && d.n) {
		*at_ns = d.s[d.n - 1].time_ns;
		err = cg_procs__load(db, m, w, d.s[d.n - 1].seq, &procs, &np);
	}
	for (size_t i = 0; i < np && !err; i++) /* there at the end, and not gone */
		if (procs[i].in_last && strcmp(procs[i].state, gone))
			err = app_add(out, n, &cap, procs[i].unit, procs[i].exe, procs[i].comm,
				      procs[i].rss, procs[i].pss, procs[i].uss, procs[i].swap);
	free(procs);
	cg_data__free(&d);
	if (err) {
		free(*out);
		*out = NULL;
		*n = 0;
	}
	return err;
}

static int apps_body(const struct report_ctx *ctx)
{
	sqlite3 *db = ctx->db;
	const struct report_opts *o = ctx->o;
	FILE *out = ctx->out;
	const struct capture_meta m = *ctx->m;
	struct json *j = ctx->j;
	struct cg_app *apps = NULL;
	struct probe_info p, pm;
	size_t na = 0, cap = 0, napps;
	enum apps_by by = apps_by_of(o);
	int64_t at_ns = -1, total_procs = 0, total_cov = 0;
	int64_t tot[4] = {-1, -1, -1, -1};
	const char *source;
	char w[96], c1[32];
	int err;

	err = probe__lookup(db, m.cap, "cgroup", &p);
	err = err ?: probe__lookup(db, m.cap, "memory", &pm);
	if (err)
		goto cleanup;
	if (probe__active(&p)) {
		source = "cgroup_proc";
		err = cg_apps__load(db, &m, &o->win, &apps, &na, &at_ns);
	} else if (probe__active(&pm)) {
		source = "memory_sample"; /* a single-process capture: its one process */
		err = apps_from_memory(db, &m, &o->win, &apps, &na, &cap, &at_ns);
	} else {
		struct probe_info both = p;

		snprintf(both.reason, sizeof(both.reason),
			 "needs the cgroup probe (--cgroup), or the memory probe for one process; "
			 "cgroup: %.60s; memory: %.11s: %.60s",
			 p.reason[0] ? p.reason : "no reason recorded", pm.state,
			 pm.reason[0] ? pm.reason : "no reason recorded");
		err = report__not_collected(j, out, o, "apps", &both);
		goto cleanup;
	}
	if (err)
		goto cleanup;
	napps = na;
	for (size_t i = 0; i < na; i++) {
		total_procs += apps[i].processes;
		total_cov += apps[i].covered;
		sum_opt(&tot[0], apps[i].rss);
		sum_opt(&tot[1], apps[i].pss);
		sum_opt(&tot[2], apps[i].uss);
		sum_opt(&tot[3], apps[i].swap);
	}
	apps_fold(apps, &na, o->top ? o->top : TOP_APPS, by);

	switch (o->fmt) {
	case OUT_TEXT:
		window__describe(&o->win, w, sizeof(w));
		fprintf(out, "apps by %s (%s): %zu application%s, %" PRId64 " process%s",
			by_name[by], w, napps, napps == 1 ? "" : "s", total_procs,
			total_procs == 1 ? "" : "es");
		if (at_ns >= 0)
			fprintf(out, " at %s s", fmt_secs(c1, sizeof(c1), at_ns - m.base_ns));
		fprintf(out, " (from %s)\n",
			!strcmp(source, "cgroup_proc")
			    ? "the cgroup's processes in its last sample"
			    : "memory_sample: a single-process capture holds one process");
		if (!na)
			break;
		fputc('\n', out);
		err = print_apps_table(apps, na, out, OUT_TEXT);
		if (err)
			break;
		fprintf(out,
			"\napps: the systemd app-*.scope unit of a process, else its executable, "
			"else its comm.\nrss, pss, uss, swap: the last covered smaps_rollup "
			"read of each process, summed;\ncovered: processes that have one. "
			"\"-\": none covered.\n");
		break;
	case OUT_CSV:
		err = print_apps_table(apps, na, out, OUT_CSV);
		break;
	case OUT_JSON:
		json__kv_bool(j, "collected", true);
		json__kv_string(j, "source", source);
		json__kv_string(j, "by", by_name[by]);
		json__key(j, "t_s");
		if (at_ns >= 0)
			json__real(j, rel_s(&m, at_ns));
		else
			json__null(j);
		json__kv_int(j, "applications", (int64_t)napps);
		json__key(j, "total");
		json__begin_object(j);
		json__kv_int(j, "processes", total_procs);
		json__kv_int(j, "covered", total_cov);
		report__json_opt_int(j, "rss", tot[0]);
		report__json_opt_int(j, "pss", tot[1]);
		report__json_opt_int(j, "uss", tot[2]);
		report__json_opt_int(j, "swap", tot[3]);
		json__end_object(j);
		json__key(j, "apps");
		json__begin_array(j);
		for (size_t i = 0; i < na; i++) {
			json__begin_object(j);
			json__kv_string(j, "app", apps[i].name);
			json__kv_string(j, "kind", apps[i].kind);
			json__kv_int(j, "processes", apps[i].processes);
			json__kv_int(j, "covered", apps[i].covered);
			report__json_opt_int(j, "rss", apps[i].rss);
			report__json_opt_int(j, "pss", apps[i].pss);
			report__json_opt_int(j, "uss", apps[i].uss);
			report__json_opt_int(j, "swap", apps[i].swap);
			if (!strcmp(apps[i].kind, "others"))
				json__kv_int(j, "folded", apps[i].folded);
			json__end_object(j);
		}
		json__end_array(j);
		json__end_object(j);
		err = json__end(j);
		break;
	}
cleanup:
	free(apps);
	return err;
}

/* ------------------------------------------------------------------ its reports */

static int parse_apps_by(void *settings, const char *arg, char *err, size_t len)
{
	static const char *const words[] = {[APPS_BY_PSS] = "pss",
					    [APPS_BY_USS] = "uss",
					    [APPS_BY_RSS] = "rss"};

	for (size_t k = APPS_BY_PSS; k < sizeof(words) / sizeof(words[0]); k++)
		if (!strcmp(arg, words[k])) {
			((struct apps_opts *)settings)->by = (enum apps_by)k;
			return 0;
		}
	snprintf(err, len, "--by takes pss, uss or rss, not '%s'", arg);
	return -EINVAL;
}

static const struct report_option apps_options[] = {
    {"by", "pss|uss|rss", "apps: order the applications by (default pss)", parse_apps_by},
    {0},
};

static const struct an_report cgroup_report = {
	.name = "cgroup",
	.order = 70,
	.summary = "a whole cgroup (--cgroup capture): memory current, limit, peak;\n"
		   "the memory.stat breakdown; OOM events; PSI (memory, cpu, io); its\n"
		   "processes by PSS and their smaps_rollup coverage (csv: processes)",
	.tables = "cgroup_sample,cpu_sample",
	.top = "the first N processes (default 20)",
	.probe = "cgroup",
	.drops = "cgroup",
	.body = cgroup_body,
};

int report_cgroup(sqlite3 *db, const char *capture_id, const struct report_opts *o, FILE *out)
{
	return report__run(&cgroup_report, db, capture_id, o, out);
}

static const struct an_report apps_report = {
	.name = "apps",
	.order = 80,
	.summary = "the cgroup's processes grouped into applications (the systemd\n"
		   "app-*.scope unit, else executable, else comm) by PSS, USS or RSS,\n"
		   "the rest folded into others (N); a single-process capture: its\n"
		   "one process",
	.tables = "cgroup_sample,memory_sample",
	.options = apps_options,
	.settings_size = sizeof(struct apps_opts),
	.top = "N applications before others (N) (default 10)",
	.body = apps_body,
};

int report_apps(sqlite3 *db, const char *capture_id, const struct report_opts *o, FILE *out)
{
	return report__run(&apps_report, db, capture_id, o, out);
}

const struct an_report *const cgroup_reports[] = {
	&cgroup_report,
	&apps_report,
	NULL,
};
