/* report.c — `report security`: memory the target made executable at run time (each call
 * with its range, backing, W^X, result, origin and calling function), ptrace attaches,
 * set-user-ID or file-capability execs, failed capability checks, and the lanes that did
 * not run with their reasons; text, JSON and CSV (the executable-memory table).
 *
 * The origin of executable memory is told by its backing and its stack: "library" when a
 * file's mapping was made by the dynamic loader (a frame in ld-linux: dlopen, or the start),
 * "file" for a file mapped executable by the program itself, "jit" for anonymous memory
 * (or a memfd). The calling function is the first frame of the stack outside the C library
 * and the loader (the code that asked for it, past the syscall's wrapper and dlopen).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/output.h"
#include "analyze/report.h"
#include "analyze/symbolize.h"
#include "collectors/security/report.h"

/* the window's bounds as absolute times (open sides: the whole capture) */
static void bounds(const struct capture_meta *m, const struct window *w, int64_t *lo, int64_t *hi)
{
	*lo = w->has_start ? m->base_ns + w->start_ns : INT64_MIN;
	*hi = w->has_end ? m->base_ns + w->end_ns : INT64_MAX;
}

static int64_t count(sqlite3 *db, const char *sql, int64_t cap, int64_t lo, int64_t hi, int *err)
{
	sqlite3_stmt *st = NULL;
	int64_t v = 0;

	if (*err)
		return 0;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
		*err = -EIO;
		return 0;
	}
	sqlite3_bind_int64(st, 1, cap);
	sqlite3_bind_int64(st, 2, lo);
	sqlite3_bind_int64(st, 3, hi);
	if (sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int64(st, 0);
	else
		*err = -EIO;
	sqlite3_finalize(st);
	return v;
}

#define IN_W " WHERE cap = ?1 AND time_ns >= ?2 AND time_ns <= ?3"

int security_counts__load(sqlite3 *db, const struct capture_meta *m, const struct window *w,
			  struct security_counts *s)
{
	int64_t lo, hi;
	int err = 0;

	bounds(m, w, &lo, &hi);
	s->exec_calls = count(db, "SELECT count(*) FROM sec_exec_mem" IN_W " AND ok", m->cap,
			      lo, hi, &err);
	s->wx = count(db, "SELECT count(*) FROM sec_exec_mem" IN_W " AND ok AND wx", m->cap, lo,
		      hi, &err);
	s->anon = count(db,
			"SELECT count(*) FROM sec_exec_mem" IN_W
			" AND ok AND NOT wx AND backing = 'anonymous'",
			m->cap, lo, hi, &err);
	s->file = count(db,
			"SELECT count(*) FROM sec_exec_mem" IN_W
			" AND ok AND backing IS NOT NULL AND backing <> 'anonymous'",
			m->cap, lo, hi, &err);
	s->failed = count(db, "SELECT count(*) FROM sec_exec_mem" IN_W " AND NOT ok", m->cap, lo,
			  hi, &err);
	s->ptrace = count(db, "SELECT count(*) FROM sec_ptrace" IN_W, m->cap, lo, hi, &err);
	s->setid = count(db, "SELECT count(*) FROM sec_setid_exec" IN_W, m->cap, lo, hi, &err);
	/* the lane ran when it is active in probe_lane */
	if (count(db,
		  "SELECT count(*) FROM probe_lane WHERE cap = ?1 AND probe = 'security' AND "
		  "lane = 'cap_denied' AND state = 'active' AND ?2 <= ?3",
		  m->cap, lo, hi, &err))
		s->cap_denied = count(db, "SELECT coalesce(sum(failed), 0) FROM sec_cap_denied" IN_W,
				      m->cap, lo, hi, &err);
	else
		s->cap_denied = -1;
	return err;
}

enum {
	MCOL_T,
	MCOL_CALL,
	MCOL_START,
	MCOL_END,
	MCOL_LEN,
	MCOL_PROT,
	MCOL_WX,
	MCOL_BACKING,
	MCOL_ORIGIN,
	MCOL_CALLER,
	MCOL_RESULT,
	MCOL_TID,
	MCOL_STACK_ID,
	MCOL_STACK,
	MCOLS
};
static const char *const mem_names[MCOLS] = {
    "t_s",	"call",	  "start",  "end", "len",   "prot",	"wx",
    "backing", "origin", "caller", "result", "tid", "stack_id", "stack"};

static const char mem_sql[] =
    "SELECT time_ns, call, coalesce(vm_start, addr), coalesce(vm_end, addr + len), len, prot, "
    "wx, backing, ret, ok, tid, stack_id, name_only FROM sec_exec_mem" IN_W
    " ORDER BY time_ns, rowid";

/* The C library's and the loader's modules: the calling function is past them. */
static bool runtime_module(const char *path)
{
	const char *b = path ? strrchr(path, '/') : NULL;

	b = b ? b + 1 : path;
	return b && (!strncmp(b, "libc.so", 7) || !strncmp(b, "libc-", 5) ||
		     !strncmp(b, "ld-linux", 8) || !strncmp(b, "ld-2.", 5) ||
		     !strncmp(b, "libdl", 5) || !strncmp(b, "libpthread", 10));
}

static bool loader_module(const char *path)
{
	const char *b = path ? strrchr(path, '/') : NULL;

	b = b ? b + 1 : path;
	return b && (!strncmp(b, "ld-linux", 8) || !strncmp(b, "ld-2.", 5));
}

static int add_mem_row(struct table *t, sqlite3_stmt *st, const struct capture_meta *m,
		       const struct prof_stack *ps, char *buf, size_t len)
{
	const char *backing = (const char *)sqlite3_column_text(st, 7);
	int64_t ret = sqlite3_column_int64(st, 8), prot = sqlite3_column_int64(st, 5);
	bool ok = sqlite3_column_int64(st, 9), loader = false;
	char p[4], name[512];
	const char *origin;
	size_t at = 0, d;
	int err;

	err = table__add_row(t);
	err = err ?: table__set_real(t, MCOL_T,
				     (double)(sqlite3_column_int64(st, 0) - m->base_ns) / 1e9, NULL);
	err = err ?: table__set_text(t, MCOL_CALL, (const char *)sqlite3_column_text(st, 1));
	snprintf(name, sizeof(name), "0x%" PRIx64, (uint64_t)sqlite3_column_int64(st, 2));
	err = err ?: table__set_int(t, MCOL_START, sqlite3_column_int64(st, 2), name);
	snprintf(name, sizeof(name), "0x%" PRIx64, (uint64_t)sqlite3_column_int64(st, 3));
	err = err ?: table__set_int(t, MCOL_END, sqlite3_column_int64(st, 3), name);
	err = err ?: table__set_int(t, MCOL_LEN, sqlite3_column_int64(st, 4), NULL);
	p[0] = prot & 1 ? 'r' : '-';
	p[1] = prot & 2 ? 'w' : '-';
	p[2] = prot & 4 ? 'x' : '-';
	p[3] = '\0';
	err = err ?: table__set_text(t, MCOL_PROT, p);
	err = err ?: table__set_int(t, MCOL_WX, sqlite3_column_int64(st, 6), NULL);
	if (backing)
		err = err ?: table__set_text(t, MCOL_BACKING, backing);
	snprintf(name, sizeof(name), "%s", ok ? "ok" : strerror((int)-ret));
	err = err ?: table__set_text(t, MCOL_RESULT, name);
	err = err ?: table__set_int(t, MCOL_TID, sqlite3_column_int64(st, 10), NULL);
	if (sqlite3_column_type(st, 11) != SQLITE_NULL)
		err = err ?: table__set_int(t, MCOL_STACK_ID, sqlite3_column_int64(st, 11), NULL);
	buf[0] = '\0';
	for (d = 0; ps && d < ps->n; d++) {
		prof_loc__name(ps->loc[d], 0, name, sizeof(name));
		loader = loader || loader_module(ps->loc[d]->module);
		if (at < len)
			at += (size_t)snprintf(buf + at, len - at, "%s%s", d ? " < " : "", name);
	}
	if (ps)
		err = err ?: table__set_text(t, MCOL_STACK, buf);
	for (d = 0; ps && d < ps->n; d++)
		if (!runtime_module(ps->loc[d]->module)) {
			prof_loc__name(ps->loc[d], 0, name, sizeof(name));
			err = err ?: table__set_text(t, MCOL_CALLER, name);
			break;
		}
	if (!backing)
		origin = NULL; /* the VMA was not read (a failed call) */
	else if (!strcmp(backing, "anonymous") || !strncmp(backing, "/memfd:", 7))
		origin = "jit";
	else
		origin = loader ? "library" : "file";
	if (origin)
		err = err ?: table__set_text(t, MCOL_ORIGIN, origin);
	return err;
}

static int build_mem(sqlite3 *db, const struct capture_meta *m, const struct report_opts *o,
		     struct table *t)
{
	struct profile *stacks = NULL;
	sqlite3_stmt *st = NULL;
	int64_t lo, hi;
	char *buf;
	int err, rc;

	err = report__stacks(db, m, o, "security", &stacks);
	if (err)
		return err;
	buf = malloc(65536);
	if (!buf || sqlite3_prepare_v2(db, mem_sql, -1, &st, NULL) != SQLITE_OK) {
		free(buf);
		profile__free(stacks);
		return buf ? -EIO : -ENOMEM;
	}
	bounds(m, &o->win, &lo, &hi);
	sqlite3_bind_int64(st, 1, m->cap);
	sqlite3_bind_int64(st, 2, lo);
	sqlite3_bind_int64(st, 3, hi);
	while (!err && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t sid = sqlite3_column_type(st, 11) == SQLITE_NULL ? 0
									 : sqlite3_column_int64(st, 11);

		err = add_mem_row(t, st, m, sid > 0 ? profile__stack(stacks, sid) : NULL, buf,
				  65536);
	}
	if (!err && rc != SQLITE_DONE)
		err = -EIO;
	sqlite3_finalize(st);
	free(buf);
	profile__free(stacks);
	return err;
}

/* The rows of SQL (cap, window bounds bound) into T, every column as it is. */
static int build_plain(sqlite3 *db, const char *sql, const struct capture_meta *m,
		       const struct window *w, struct table *t, size_t ncols)
{
	sqlite3_stmt *st = NULL;
	int64_t lo, hi;
	int err = 0, rc;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return -EIO;
	bounds(m, w, &lo, &hi);
	sqlite3_bind_int64(st, 1, m->cap);
	sqlite3_bind_int64(st, 2, lo);
	sqlite3_bind_int64(st, 3, hi);
	while (!err && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		err = table__add_row(t);
		for (size_t i = 0; !err && i < ncols; i++) {
			if (sqlite3_column_type(st, (int)i) == SQLITE_NULL)
				continue;
			if (i == 0)
				err = table__set_real(
				    t, 0, (double)(sqlite3_column_int64(st, 0) - m->base_ns) / 1e9,
				    NULL);
			else if (sqlite3_column_type(st, (int)i) == SQLITE_INTEGER)
				err = table__set_int(t, i, sqlite3_column_int64(st, (int)i), NULL);
			else
				err = table__set_text(t, i,
						      (const char *)sqlite3_column_text(st, (int)i));
		}
	}
	if (!err && rc != SQLITE_DONE)
		err = -EIO;
	sqlite3_finalize(st);
	return err;
}

static const char *const ptrace_names[] = {"t_s",	  "tracer_pid", "tracer_comm", "tracee",
					   "request",	  "ret",	"by_target"};
static const char ptrace_sql[] = "SELECT time_ns, tracer_pid, tracer_comm, tracee, request, "
				 "ret, by_target FROM sec_ptrace" IN_W " ORDER BY time_ns, rowid";
static const char *const setid_names[] = {"t_s",  "pid",  "path",	   "uid",
					  "euid", "gid",  "egid",	   "cap_permitted",
					  "secureexec"};
static const char setid_sql[] =
    "SELECT time_ns, pid, path, uid, euid, gid, egid, printf('0x%x', cap_permitted), "
    "secureexec FROM sec_setid_exec" IN_W " ORDER BY time_ns, rowid";
static const char *const caps_names[] = {"capability", "name", "failed"};
static const char caps_sql[] =
    "SELECT capability, name, sum(failed) FROM sec_cap_denied" IN_W
    " GROUP BY capability ORDER BY 3 DESC, 1";
static const char *const lane_names[] = {"lane", "state", "reason"};
static const char lane_sql[] = "SELECT lane, state, coalesce(reason, '') FROM probe_lane "
			       "WHERE cap = ?1 AND probe = 'security' AND ?2 <= ?3 ORDER BY seq";

/* The capability table: its first column is no time. */
static int build_caps(sqlite3 *db, const struct capture_meta *m, const struct window *w,
		      struct table *t)
{
	sqlite3_stmt *st = NULL;
	int64_t lo, hi;
	int err = 0, rc;

	if (sqlite3_prepare_v2(db, caps_sql, -1, &st, NULL) != SQLITE_OK)
		return -EIO;
	bounds(m, w, &lo, &hi);
	sqlite3_bind_int64(st, 1, m->cap);
	sqlite3_bind_int64(st, 2, lo);
	sqlite3_bind_int64(st, 3, hi);
	while (!err && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		err = table__add_row(t);
		err = err ?: table__set_int(t, 0, sqlite3_column_int64(st, 0), NULL);
		err = err ?: table__set_text(t, 1, (const char *)sqlite3_column_text(st, 1));
		err = err ?: table__set_int(t, 2, sqlite3_column_int64(st, 2), NULL);
	}
	if (!err && rc != SQLITE_DONE)
		err = -EIO;
	sqlite3_finalize(st);
	return err;
}

#define N(a) (sizeof(a) / sizeof((a)[0]))

static int report_security(const struct report_ctx *ctx)
{
	struct table *mt = NULL, *pt = NULL, *st = NULL, *ct = NULL, *lt = NULL;
	const struct capture_meta *mp = ctx->m;
	const struct report_opts *o = ctx->o;
	const struct probe_info *pp = ctx->probe;
	struct json *jp = ctx->j;
	sqlite3 *db = ctx->db;
	FILE *out = ctx->out;
	struct security_counts sc;
	char w[96];
	int err = 0;

	mt = table__new(MCOLS, mem_names);
	pt = table__new(N(ptrace_names), ptrace_names);
	st = table__new(N(setid_names), setid_names);
	ct = table__new(N(caps_names), caps_names);
	lt = table__new(N(lane_names), lane_names);
	if (!mt || !pt || !st || !ct || !lt) {
		err = -ENOMEM;
		goto cleanup;
	}
	err = security_counts__load(db, mp, &o->win, &sc);
	err = err ?: build_mem(db, mp, o, mt);
	err = err ?: build_plain(db, ptrace_sql, mp, &o->win, pt, N(ptrace_names));
	err = err ?: build_plain(db, setid_sql, mp, &o->win, st, N(setid_names));
	err = err ?: build_caps(db, mp, &o->win, ct);
	if (err)
		goto cleanup;
	{ /* the lanes at the start, whatever the window */
		sqlite3_stmt *q = NULL;

		if (sqlite3_prepare_v2(db, lane_sql, -1, &q, NULL) != SQLITE_OK) {
			err = -EIO;
			goto cleanup;
		}
		sqlite3_bind_int64(q, 1, mp->cap);
		sqlite3_bind_int64(q, 2, 0);
		sqlite3_bind_int64(q, 3, 0);
		while (!err && sqlite3_step(q) == SQLITE_ROW) {
			err = table__add_row(lt);
			for (int i = 0; !err && i < 3; i++)
				err = table__set_text(lt, (size_t)i,
						      (const char *)sqlite3_column_text(q, i));
		}
		sqlite3_finalize(q);
		if (err)
			goto cleanup;
	}
	switch (o->fmt) {
	case OUT_TEXT:
		window__describe(&o->win, w, sizeof(w));
		fprintf(out,
			"security (%s): %" PRId64 " executable mappings (%" PRId64
			" W^X, %" PRId64 " anonymous, %" PRId64 " of a file), %" PRId64
			" refused; %" PRId64 " ptrace attaches; %" PRId64
			" set-user-ID/capability execs; failed capability checks: ",
			w, sc.exec_calls, sc.wx, sc.anon, sc.file, sc.failed, sc.ptrace, sc.setid);
		if (sc.cap_denied >= 0)
			fprintf(out, "%" PRId64 "\n", sc.cap_denied);
		else
			fprintf(out, "not collected\n");
		report__drops(NULL, out, o, "security", ctx->drops, ctx->ndrops);
		fprintf(out, "\nmemory made executable (the stack innermost first):\n");
		if (strstr(pp->detail, "user stacks fp"))
			fprintf(out, "note: user stacks are frame-pointer walks: from a syscall "
				     "wrapper that keeps no frame they skip the function that "
				     "called it (record with --user-stacks dwarf to name it)\n");
		if (table__rows(mt))
			err = table__print(mt, out, OUT_TEXT);
		else
			fprintf(out, "none\n");
		fprintf(out, "\nptrace attaches:\n");
		if (!err && table__rows(pt))
			err = table__print(pt, out, OUT_TEXT);
		else if (!err)
			fprintf(out, "none\n");
		fprintf(out, "\nset-user-ID, set-group-ID and file-capability execs:\n");
		if (!err && table__rows(st))
			err = table__print(st, out, OUT_TEXT);
		else if (!err)
			fprintf(out, "none\n");
		if (!err && sc.cap_denied >= 0) {
			fprintf(out, "\nfailed capability checks:\n");
			if (table__rows(ct))
				err = table__print(ct, out, OUT_TEXT);
			else
				fprintf(out, "none\n");
		}
		fprintf(out, "\nlanes:\n");
		err = err ?: table__print(lt, out, OUT_TEXT);
		break;
	case OUT_CSV:
		report__drops(NULL, out, o, "security", ctx->drops, ctx->ndrops);
		err = table__print(mt, out, OUT_CSV);
		break;
	case OUT_JSON:
		json__kv_bool(jp, "collected", true);
		report__drops(jp, out, o, "security", ctx->drops, ctx->ndrops);
		json__key(jp, "counts");
		json__begin_object(jp);
		json__kv_int(jp, "exec_mappings", sc.exec_calls);
		json__kv_int(jp, "wx", sc.wx);
		json__kv_int(jp, "anonymous", sc.anon);
		json__kv_int(jp, "file", sc.file);
		json__kv_int(jp, "refused", sc.failed);
		json__kv_int(jp, "ptrace_attaches", sc.ptrace);
		json__kv_int(jp, "setid_execs", sc.setid);
		report__json_opt_int(jp, "cap_denied", sc.cap_denied);
		json__end_object(jp);
		json__key(jp, "exec_memory");
		table__json(mt, jp, NULL, 0);
		json__key(jp, "ptrace");
		table__json(pt, jp, NULL, 0);
		json__key(jp, "setid_execs");
		table__json(st, jp, NULL, 0);
		json__key(jp, "cap_denied");
		if (sc.cap_denied >= 0)
			table__json(ct, jp, NULL, 0);
		else
			json__null(jp);
		json__key(jp, "lanes");
		table__json(lt, jp, NULL, 0);
		json__end_object(jp);
		err = json__end(jp);
		break;
	}
cleanup:
	table__free(mt);
	table__free(pt);
	table__free(st);
	table__free(ct);
	table__free(lt);
	return err;
}

static const struct an_report security_report = {
    .name = "security",
    .order = 860,
    .summary = "memory made executable (mmap/mprotect PROT_EXEC, W^X)\n"
	       "with its backing, origin and calling function; ptrace\n"
	       "attaches, set-user-ID execs, failed capability checks",
    .tables = "sec_exec_mem,sec_ptrace,sec_setid_exec,sec_cap_denied",
    .probe = "security",
    .drops = "security",
    .body = report_security,
};

const struct an_report *const security_reports[] = {
    &security_report,
    NULL,
};
