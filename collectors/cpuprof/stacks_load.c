/* stacks_load.c — the cpuprof collector's CPU profile model: its intervals (cpu_profile)
 * and stack counts (cpu_profile_stack) in a window as a struct profile (analyze/symbolize.h)
 * with the frames the symbol store placed and named, for `report cpu`, its figures and
 * `export --profile cpu` (stacks.c). A --cgroup capture profiles each process apart: its
 * processes' comm and exe come from the cgroup collector's cgroup_proc (and this one's
 * cpu_profile_process, the kernel's name at the samples).
 */
#include "collectors/cpuprof/stacks.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/report.h"
#include "analyze/symbolize.h"
#include "common/array.h"
#include "common/probe_mapping.h"

/* The statement's ?1 the capture CAP, ?2 and ?3 the window [LO, HI). */
static void bind_window(sqlite3_stmt *s, int64_t cap, int64_t lo, int64_t hi)
{
	sqlite3_bind_int64(s, 1, cap);
	sqlite3_bind_int64(s, 2, lo);
	sqlite3_bind_int64(s, 3, hi);
}

/* The processes of a per-process profile in the window [LO, HI) with their
 * samples, comm and exe (see struct prof_proc), most samples first; and the
 * samples of every stack, pid or not (all_stacked). 0 or -errno. */
static int load_procs(sqlite3 *db, struct profile *p, int64_t cap, int64_t lo, int64_t hi)
{
	sqlite3_stmt *s = NULL;
	size_t capp = 0;
	int rc, ret = 0;

	rc = sqlite3_prepare_v2(
	    db,
	    "WITH s AS (SELECT ps.pid AS pid, SUM(ps.count) AS n "
	    " FROM cpu_profile_stack ps JOIN cpu_profile p USING (cap, seq) "
	    " WHERE p.cap = ?1 AND (p.time_ns - COALESCE(p.interval_ns, 0) / 2) >= ?2 AND "
	    " (p.time_ns - COALESCE(p.interval_ns, 0) / 2) < ?3 GROUP BY ps.pid), "
	    "c AS (SELECT pid, comm, MAX(seq) FROM cgroup_proc WHERE cap = ?1 AND "
	    " comm IS NOT NULL AND pid IN (SELECT pid FROM s) GROUP BY pid), "
	    /* the name the kernel had at the samples: for a process gone before a poll */
	    "k AS (SELECT pid, comm, MAX(seq) FROM cpu_profile_process WHERE cap = ?1 AND "
	    " comm IS NOT NULL AND pid IN (SELECT pid FROM s) GROUP BY pid), "
	    "e AS (SELECT pid, exe, MAX(seq) FROM cgroup_proc WHERE cap = ?1 AND "
	    " exe IS NOT NULL AND exe <> '' AND pid IN (SELECT pid FROM s) GROUP BY pid), "
	    "x AS (SELECT pid, path, MIN(start) FROM mapping WHERE cap = ?1 AND "
	    " path LIKE '/%' AND pid IN (SELECT pid FROM s) GROUP BY pid) "
	    "SELECT s.pid, s.n, COALESCE(c.comm, k.comm), COALESCE(e.exe, x.path), "
	    "SUM(s.n) OVER () FROM s LEFT JOIN c USING (pid) LEFT JOIN k USING (pid) "
	    "LEFT JOIN e USING (pid) LEFT JOIN x USING (pid) "
	    "ORDER BY s.n DESC, s.pid",
	    -1, &s, NULL);
	if (rc != SQLITE_OK)
		return -EIO;
	bind_window(s, cap, lo, hi);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		struct prof_proc *pr;

		p->all_stacked = (uint64_t)sqlite3_column_int64(s, 4);
		if (sqlite3_column_type(s, 0) == SQLITE_NULL) /* the event's process */
			continue;
		if (array__grow((void **)&p->procs, &capp, p->n_procs, sizeof(*p->procs))) {
			ret = -ENOMEM;
			goto cleanup;
		}
		pr = &p->procs[p->n_procs++];
		pr->pid = sqlite3_column_int(s, 0);
		pr->samples = (uint64_t)sqlite3_column_int64(s, 1);
		pr->comm = profile__keep(p, (const char *)sqlite3_column_text(s, 2));
		pr->exe = profile__keep(p, (const char *)sqlite3_column_text(s, 3));
		if ((!pr->comm && sqlite3_column_type(s, 2) != SQLITE_NULL) ||
		    (!pr->exe && sqlite3_column_type(s, 3) != SQLITE_NULL)) {
			ret = -ENOMEM;
			goto cleanup;
		}
	}
	if (rc != SQLITE_DONE)
		ret = -EIO;
cleanup:
	sqlite3_finalize(s);
	return ret;
}

int profile__check_pid(sqlite3 *db, int64_t cap, int32_t pid, char *err, size_t errlen)
{
	sqlite3_stmt *s = NULL;
	size_t len = 0, n = 0;
	bool found = false;
	int rc;

	/* the processes of the profile, most samples first */
	if (sqlite3_prepare_v2(db,
			       "SELECT COALESCE(ps.pid, p.pid) AS pp FROM cpu_profile_stack ps "
			       "JOIN cpu_profile p USING (cap, seq) WHERE ps.cap = ?1 AND "
			       "pp IS NOT NULL GROUP BY pp ORDER BY SUM(ps.count) DESC, pp",
			       -1, &s, NULL) != SQLITE_OK) {
		snprintf(err, errlen, "reading the profile: %s", sqlite3_errmsg(db));
		return -EIO;
	}
	sqlite3_bind_int64(s, 1, cap);
	err[0] = 0;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		int32_t q = sqlite3_column_int(s, 0);

		found = found || q == pid;
		if (n < 8 && len < errlen)
			len += (size_t)snprintf(err + len, errlen - len, "%s%d", n ? ", " : "",
						(int)q);
		else if (n == 8 && len < errlen)
			len += (size_t)snprintf(err + len, errlen - len, "...");
		n++;
	}
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE) {
		snprintf(err, errlen, "reading the profile: %s", sqlite3_errmsg(db));
		return -EIO;
	}
	if (found) {
		err[0] = 0;
		return 0;
	}
	if (!n) {
		snprintf(err, errlen,
			 "--pid %d: the capture's CPU profile holds no samples of any process",
			 (int)pid);
	} else {
		char *list = strdup(err);

		snprintf(err, errlen,
			 "--pid %d: the capture's CPU profile has no samples of process %d; it "
			 "has %zu process%s: %s",
			 (int)pid, (int)pid, n, n == 1 ? "" : "es", list ? list : "?");
		free(list);
	}
	return -ENOENT;
}

/* Whether stack ST's innermost user frame (past the kernel's, innermost first) is in
 * ptop's own code in the target: the kernel's work above it is then ptop's too. */
static bool stack__in_probe_code(const struct prof_stack *st)
{
	for (size_t d = 0; d < st->n; d++)
		if (st->loc[d]->kind != FRAME_KERNEL)
			return st->loc[d]->kind == FRAME_USER && probe_code__is(st->loc[d]->module);
	return false;
}

int profile__load(sqlite3 *db, const struct capture_meta *m, const struct window *w,
		  struct profile **out)
{
	return profile__load_pid(db, m, w, 0, out);
}

int profile__load_pid(sqlite3 *db, const struct capture_meta *m, const struct window *w,
		      int32_t pid, struct profile **out)
{
	struct profile *p = calloc(1, sizeof(*p));
	sqlite3_stmt *s = NULL;
	struct loc_ix *ix = NULL;
	size_t nix = 0, cap = 0;
	double tick_sum = 0, cpu_s = 0;
	int64_t lo, hi;
	int rc, ret = 0;

	*out = NULL;
	if (!p)
		return -ENOMEM;
	p->delivered_hz = NAN;
	p->t0_ns = p->t1_ns = -1;
	ret = probe__lookup(db, m->cap, "cpuprof", &p->probe);
	if (ret)
		goto cleanup;
	p->collected = probe__active(&p->probe);
	p->pid = pid;
	window__bounds(w, m, &lo, &hi);

#define IN_WINDOW                                                                                  \
	"(p.time_ns - COALESCE(p.interval_ns, 0) / 2) >= ?2 AND "                                  \
	"(p.time_ns - COALESCE(p.interval_ns, 0) / 2) < ?3"
	rc = sqlite3_prepare_v2(db,
				"SELECT count(*), MAX(requested_hz), SUM(ticks), "
				"SUM(cpus * COALESCE(interval_ns, 0) / 1e9), SUM(samples), "
				"SUM(no_user_stack), SUM(no_kernel_stack), SUM(lost), "
				"MIN(time_ns - COALESCE(interval_ns, 0)), MAX(time_ns) "
				"FROM cpu_profile p WHERE p.cap = ?1 AND " IN_WINDOW,
				-1, &s, NULL);
	if (rc != SQLITE_OK) {
		ret = -EIO;
		goto cleanup;
	}
	bind_window(s, m->cap, lo, hi);
	if (sqlite3_step(s) == SQLITE_ROW) {
		p->intervals = (uint64_t)sqlite3_column_int64(s, 0);
		p->requested_hz = (uint32_t)sqlite3_column_int64(s, 1);
		tick_sum = sqlite3_column_double(s, 2);
		cpu_s = sqlite3_column_double(s, 3);
		p->samples = (uint64_t)sqlite3_column_int64(s, 4);
		p->no_user_stack = (uint64_t)sqlite3_column_int64(s, 5);
		p->no_kernel_stack = (uint64_t)sqlite3_column_int64(s, 6);
		p->lost = (uint64_t)sqlite3_column_int64(s, 7);
		if (p->intervals) {
			p->t0_ns = sqlite3_column_int64(s, 8);
			p->t1_ns = sqlite3_column_int64(s, 9);
		}
		if (cpu_s > 0)
			p->delivered_hz = tick_sum / cpu_s;
	}
	sqlite3_finalize(s);
	s = NULL;

	ret = profile__load_locs(db, p, m->cap, &ix, &nix);
	if (ret)
		goto cleanup;

	rc = sqlite3_prepare_v2(db,
				"SELECT ps.user_stack_id, ps.kernel_stack_id, SUM(ps.count), ps.pid "
				"FROM cpu_profile_stack ps JOIN cpu_profile p USING (cap, seq) "
				"WHERE p.cap = ?1 AND " IN_WINDOW
				" AND (?4 = 0 OR COALESCE(ps.pid, p.pid) = ?4)"
				" GROUP BY 1, 2, 4 ORDER BY 3 DESC, 1, 2, 4",
				-1, &s, NULL);
#undef IN_WINDOW
	if (rc != SQLITE_OK) {
		ret = -EIO;
		goto cleanup;
	}
	bind_window(s, m->cap, lo, hi);
	sqlite3_bind_int(s, 4, pid);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		struct prof_stack *st;

		if (array__grow((void **)&p->stacks, &cap, p->n_stacks, sizeof(*p->stacks))) {
			ret = -ENOMEM;
			goto cleanup;
		}
		st = &p->stacks[p->n_stacks++];
		memset(st, 0, sizeof(*st));
		st->count = (uint64_t)sqlite3_column_int64(s, 2);
		st->no_user_stack = sqlite3_column_type(s, 0) == SQLITE_NULL;
		st->pid = sqlite3_column_int(s, 3); /* NULL: 0 */
		if (sqlite3_column_type(s, 1) != SQLITE_NULL)
			ret = profile__add_stack_locs(p, st, ix, nix, sqlite3_column_int64(s, 1));
		if (!ret && !st->no_user_stack)
			ret = profile__add_stack_locs(p, st, ix, nix, sqlite3_column_int64(s, 0));
		if (ret)
			goto cleanup;
		if (stack__in_probe_code(st)) { /* ptop's own cost, not the target's */
			p->overhead += st->count;
			p->overhead_stacks++;
			free(st->loc);
			p->n_stacks--;
			continue;
		}
		p->stacked += st->count;
		if (st->cut_module)
			p->cut += st->count;
	}
	if (rc != SQLITE_DONE) {
		ret = -EIO;
		goto cleanup;
	}
	p->all_stacked = p->stacked + p->overhead;
	ret = load_procs(db, p, m->cap, lo, hi);
cleanup:
	sqlite3_finalize(s);
	free(ix);
	if (ret)
		profile__free(p);
	else
		*out = p;
	return ret;
}
