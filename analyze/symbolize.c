/* symbolize.c — the symbol store (frame -> module -> name, kept in the DB), where each
 * stack is placed (the parts' stack columns, struct an_stack_col), the stacks model the
 * collectors' profiles are built on (struct profile: stacks__load, profile__load_locs), and
 * the `symbolize` command.
 */
#include "analyze/symbolize.h"
#include "analyze/unwind.h"
#include "common/array.h"
#include "common/probe_mapping.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/analyze.h"
#include "analyze/export.h"
#include "analyze/part.h"
#include "proto/names.h"
#include "symbol/symbolizer.h"

/* ------------------------------------------------------------- helpers */

static int fail(sqlite3 *db, char *err, size_t errlen, const char *what)
{
	snprintf(err, errlen, "%s: %s", what, sqlite3_errmsg(db));
	return sqlite3_errcode(db) == SQLITE_NOMEM ? -ENOMEM : -EIO;
}

static char *col_dup(sqlite3_stmt *s, int i)
{
	const char *t = (const char *)sqlite3_column_text(s, i);

	return t ? strdup(t) : NULL;
}

static int hex_to_bytes(const char *hex, uint8_t *out, size_t cap, size_t *len)
{
	size_t n = hex ? strlen(hex) : 0;

	if (n % 2 || n / 2 > cap)
		return -EINVAL;
	for (size_t k = 0; k < n / 2; k++) {
		unsigned v;

		if (sscanf(hex + 2 * k, "%2x", &v) != 1)
			return -EINVAL;
		out[k] = (uint8_t)v;
	}
	*len = n / 2;
	return 0;
}

long mapping__find(const struct map_entry *m, size_t n, int32_t pid, int64_t t, uint64_t addr)
{
	long best = -1, earliest = -1;

	for (size_t k = 0; k < n; k++) {
		if (pid && m[k].pid && m[k].pid != pid)
			continue;
		if (addr < m[k].start || addr >= m[k].end)
			continue;
		if (earliest < 0 || m[k].time_ns < m[earliest].time_ns)
			earliest = (long)k;
		if (t && m[k].time_ns > t)
			continue;
		if (!t && m[k].gone) /* time unknown: the latest mapping still there */
			continue;
		if (best < 0 || m[k].time_ns >= m[best].time_ns)
			best = (long)k;
	}
	if (best >= 0)
		return m[best].gone ? -1 : best;
	return earliest >= 0 && !m[earliest].gone ? earliest : -1;
}

/* ------------------------------------------------------- placing frames */

struct stack_when {
	int64_t sid;
	int32_t pid;
	int64_t t;
	bool own; /* pid is the StackCount's (cgroup mode): the stack is that process's alone */
};

static int cmp_when(const void *a, const void *b)
{
	const struct stack_when *x = a, *y = b;

	return x->sid < y->sid ? -1 : x->sid > y->sid;
}

struct jit_range {
	int32_t pid;
	uint64_t start, end;
};

struct placer {
	sqlite3 *db;
	int64_t cap;
	struct map_entry *maps;
	size_t n_maps;
	int32_t *jit_pids; /* pids with a perf map */
	size_t n_jit;
	struct jit_range *jr; /* the ranges their maps name */
	size_t n_jr, cap_jr;
	struct stack_when *when;
	size_t n_when;
	int32_t target_pid;
	char boot_id[64];
};

static void placer_free(struct placer *p)
{
	for (size_t k = 0; k < p->n_maps; k++) {
		free((char *)p->maps[k].path);
		free((char *)p->maps[k].build_id);
	}
	free(p->maps);
	free(p->jit_pids);
	free(p->jr);
	free(p->when);
}

/* Whether a perf map of PID (0: any) names a range holding ADDR. */
static bool jit_covers(const struct placer *p, int32_t pid, uint64_t addr)
{
	for (size_t k = 0; k < p->n_jr; k++)
		if ((!pid || p->jr[k].pid == pid) && addr >= p->jr[k].start && addr < p->jr[k].end)
			return true;
	return false;
}

/* Add the "START SIZE NAME" lines of perf map TEXT[0..LEN) of PID. */
static int add_jit_ranges(struct placer *p, int32_t pid, const char *text, size_t len)
{
	const char *e = text + len;

	while (text && text < e) {
		const char *nl = memchr(text, '\n', (size_t)(e - text));
		char line[64];
		size_t n = (size_t)((nl ? nl : e) - text);
		unsigned long long a, sz;

		snprintf(line, sizeof(line), "%.*s", (int)(n < 63 ? n : 63), text);
		if (sscanf(line, "%llx %llx", &a, &sz) == 2 && sz && a + sz > a) {
			if (p->n_jr == p->cap_jr) {
				size_t cap = p->cap_jr ? 2 * p->cap_jr : 64;
				struct jit_range *r = realloc(p->jr, cap * sizeof(*r));

				if (!r)
					return -ENOMEM;
				p->jr = r;
				p->cap_jr = cap;
			}
			p->jr[p->n_jr].pid = pid;
			p->jr[p->n_jr].start = a;
			p->jr[p->n_jr].end = a + sz;
			p->n_jr++;
		}
		text = nl ? nl + 1 : e;
	}
	return 0;
}

static bool has_perf_map(const struct placer *p, int32_t pid)
{
	for (size_t k = 0; k < p->n_jit; k++)
		if (p->jit_pids[k] == pid || !pid)
			return true;
	return false;
}

/* Whether FROM (a table, or tables joined) can be read in DB: a DB made before a
 * collector's tables has none of its stack columns. */
static bool from_readable(sqlite3 *db, const char *from)
{
	char *q = sqlite3_mprintf("SELECT 1 FROM %s WHERE 0", from);
	sqlite3_stmt *s = NULL;
	bool ok = q && sqlite3_prepare_v2(db, q, -1, &s, NULL) == SQLITE_OK;

	sqlite3_finalize(s);
	sqlite3_free(q);
	return ok;
}

/* The query giving, per stack id of the capture (?1), the pid it was taken in, the first
 * time a row used it and whether that pid is its own: the UNION of the stack columns the
 * parts declare (struct an_stack_col) that DB has, in *SQL (sqlite3_free; NULL when
 * none). 0 or -ENOMEM. */
static int when_sql(sqlite3 *db, char **sql)
{
	char *q = sqlite3_mprintf("SELECT sid, MIN(pid), MIN(t), MAX(own) FROM (");
	bool any = false;

	*sql = NULL;
	for (const struct an_part *const *pp = an_parts; *pp && q; pp++)
		for (const struct an_stack_col *const *cp = (*pp)->stack_cols; cp && *cp && q;
		     cp++) {
			const struct an_stack_col *c = *cp;
			const char *from = c->from ? c->from : c->table;
			char *n;

			if (!from_readable(db, from))
				continue;
			n = sqlite3_mprintf("%s%s SELECT %s.%s AS sid, %s AS pid, %s AS t, %s AS own "
					    "FROM %s WHERE %s.cap = ?1 AND %s.%s IS NOT NULL",
					    q, any ? " UNION ALL" : "", c->table, c->column,
					    c->pid ? c->pid : "NULL", c->time ? c->time : "NULL",
					    c->own ? c->own : "0", from, c->table, c->table,
					    c->column);
			sqlite3_free(q);
			q = n;
			any = true;
		}
	if (q && any)
		*sql = sqlite3_mprintf("%s) GROUP BY sid ORDER BY sid", q);
	sqlite3_free(q);
	return !q || (any && !*sql) ? -ENOMEM : 0;
}

static int placer_load(struct placer *p, char *err, size_t errlen)
{
	sqlite3_stmt *s = NULL;
	char *sql = NULL;
	size_t cap = 0;
	int rc, ret = 0;

	/* the capture's facts */
	rc = sqlite3_prepare_v2(
	    p->db,
	    "SELECT c.boot_id, t.pid FROM capture c LEFT JOIN target t USING (cap) "
	    "WHERE c.cap = ?1",
	    -1, &s, NULL);
	if (rc != SQLITE_OK)
		return fail(p->db, err, errlen, "reading the capture");
	sqlite3_bind_int64(s, 1, p->cap);
	if (sqlite3_step(s) == SQLITE_ROW) {
		const char *b = (const char *)sqlite3_column_text(s, 0);

		snprintf(p->boot_id, sizeof(p->boot_id), "%s", b ? b : "");
		p->target_pid = sqlite3_column_int(s, 1);
	}
	sqlite3_finalize(s);

	/* mappings */
	rc = sqlite3_prepare_v2(
	    p->db,
	    "SELECT pid, time_ns, start, end, offset, path, build_id, event, "
	    "build_id_kind FROM mapping WHERE cap = ?1 ORDER BY pid, start, time_ns",
	    -1, &s, NULL);
	if (rc != SQLITE_OK)
		return fail(p->db, err, errlen, "reading mappings");
	sqlite3_bind_int64(s, 1, p->cap);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		struct map_entry *e;
		const char *ev = (const char *)sqlite3_column_text(s, 7);

		if (array__grow((void **)&p->maps, &cap, p->n_maps, sizeof(*p->maps))) {
			ret = -ENOMEM;
			goto cleanup;
		}
		e = &p->maps[p->n_maps++];
		memset(e, 0, sizeof(*e));
		e->pid = sqlite3_column_int(s, 0);
		e->time_ns = sqlite3_column_int64(s, 1);
		e->start = (uint64_t)sqlite3_column_int64(s, 2);
		e->end = (uint64_t)sqlite3_column_int64(s, 3);
		e->offset = (uint64_t)sqlite3_column_int64(s, 4);
		e->path = sqlite3_column_text(s, 5) ? col_dup(s, 5) : strdup("");
		e->build_id = col_dup(s, 6);
		e->gone = ev && !strcmp(ev, capture_mapping_event_name(
						PTOP__V1__MAPPING_EVENT__MAPPING_EVENT_GONE));
		e->go_build_id = sqlite3_column_text(s, 8) &&
				 !strcmp((const char *)sqlite3_column_text(s, 8),
					 capture_build_id_kind_name(
						 PTOP__V1__BUILD_ID_KIND__BUILD_ID_KIND_GO));
		if (!e->path || (sqlite3_column_text(s, 6) && !e->build_id)) {
			ret = -ENOMEM;
			goto cleanup;
		}
	}
	if (rc != SQLITE_DONE) {
		ret = fail(p->db, err, errlen, "reading mappings");
		goto cleanup;
	}
	sqlite3_finalize(s);
	s = NULL;

	/* pids with a perf map, and the ranges the maps name */
	rc = sqlite3_prepare_v2(p->db,
				"SELECT COALESCE(pid, 0), content FROM perf_map WHERE cap = ?1 "
				"ORDER BY pid, time_ns",
				-1, &s, NULL);
	if (rc != SQLITE_OK)
		return fail(p->db, err, errlen, "reading perf maps");
	sqlite3_bind_int64(s, 1, p->cap);
	cap = 0;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		if (array__grow((void **)&p->jit_pids, &cap, p->n_jit, sizeof(*p->jit_pids))) {
			ret = -ENOMEM;
			goto cleanup;
		}
		p->jit_pids[p->n_jit++] = sqlite3_column_int(s, 0);
		ret = add_jit_ranges(p, sqlite3_column_int(s, 0),
				     (const char *)sqlite3_column_blob(s, 1),
				     (size_t)sqlite3_column_bytes(s, 1));
		if (ret)
			goto cleanup;
	}
	sqlite3_finalize(s);
	s = NULL;

	/* per stack: the pid and the first time a row of the collectors' stack columns
	 * used it (when_sql) */
	ret = when_sql(p->db, &sql);
	if (ret)
		goto cleanup;
	if (!sql) /* no stack column in this DB: every stack is the target's */
		goto cleanup;
	rc = sqlite3_prepare_v2(p->db, sql, -1, &s, NULL);
	sqlite3_free(sql);
	if (rc != SQLITE_OK)
		return fail(p->db, err, errlen, "reading the stacks' processes");
	sqlite3_bind_int64(s, 1, p->cap);
	cap = 0;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		if (array__grow((void **)&p->when, &cap, p->n_when, sizeof(*p->when))) {
			ret = -ENOMEM;
			goto cleanup;
		}
		p->when[p->n_when].sid = sqlite3_column_int64(s, 0);
		p->when[p->n_when].pid = sqlite3_column_int(s, 1);
		p->when[p->n_when].t = sqlite3_column_int64(s, 2);
		p->when[p->n_when].own = sqlite3_column_int(s, 3) != 0;
		p->n_when++;
	}
	if (rc != SQLITE_DONE)
		ret = fail(p->db, err, errlen, "reading the stacks' processes");
cleanup:
	sqlite3_finalize(s);
	return ret;
}

static const char *base_name(const char *path)
{
	const char *b = path ? strrchr(path, '/') : NULL;

	return b ? b + 1 : path ? path : "";
}

/* The symbol store's key for the module of M: its build-id in hex, "go:" before a
 * Go build ID (the same bytes as a GNU build-id name another module). */
static void bind_sym_key(sqlite3_stmt *s, int i, const struct map_entry *m)
{
	if (m->go_build_id)
		sqlite3_bind_text(s, i, sqlite3_mprintf("go:%s", m->build_id), -1, sqlite3_free);
	else
		sqlite3_bind_text(s, i, m->build_id, -1, SQLITE_STATIC);
}

/* Place the frames of every stack of the capture that has none placed yet. */
static int place_frames(struct placer *p, uint64_t *placed, char *err, size_t errlen)
{
	sqlite3_stmt *q = NULL, *ins = NULL;
	char key[64];
	int rc, ret = 0;

	rc = sqlite3_prepare_v2(p->db,
				"SELECT st.stack_id, st.kernel, f.depth, f.ip FROM stack st "
				"JOIN stack_frame f ON f.cap = st.cap AND f.stack_id = st.stack_id "
				"WHERE st.cap = ?1 AND NOT EXISTS (SELECT 1 FROM frame_module fm "
				" WHERE fm.cap = st.cap AND fm.stack_id = st.stack_id) "
				"ORDER BY st.stack_id, f.depth",
				-1, &q, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_prepare_v2(
		    p->db,
		    "INSERT OR REPLACE INTO frame_module (cap, stack_id, depth, pid, ip, addr, "
		    "kind, module, build_id, file_offset, sym_space, sym_key, sym_addr, miss) "
		    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)",
		    -1, &ins, NULL);
	if (rc != SQLITE_OK) {
		ret = fail(p->db, err, errlen, "placing frames");
		goto cleanup;
	}
	sqlite3_bind_int64(q, 1, p->cap);
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		int64_t sid = sqlite3_column_int64(q, 0);
		bool kernel = sqlite3_column_int(q, 1) != 0;
		unsigned depth = (unsigned)sqlite3_column_int(q, 2);
		uint64_t ip = (uint64_t)sqlite3_column_int64(q, 3);
		uint64_t addr = frame_lookup_addr(ip, depth);
		struct stack_when k = {.sid = sid}, *w;
		int32_t pid = p->target_pid;
		int64_t t = 0;
		bool own = false;
		long mi = -1;

		w = p->n_when ? bsearch(&k, p->when, p->n_when, sizeof(k), cmp_when) : NULL;
		if (w) {
			pid = w->pid ? w->pid : pid;
			t = w->t;
			own = w->own && w->pid;
		}
		for (int i = 1; i <= 14; i++)
			sqlite3_bind_null(ins, i);
		sqlite3_bind_int64(ins, 1, p->cap);
		sqlite3_bind_int64(ins, 2, sid);
		sqlite3_bind_int(ins, 3, (int)depth);
		if (pid)
			sqlite3_bind_int(ins, 4, pid);
		sqlite3_bind_int64(ins, 5, (int64_t)ip);
		sqlite3_bind_int64(ins, 6, (int64_t)addr);
		if (kernel) {
			sqlite3_bind_text(ins, 7, "kernel", -1, SQLITE_STATIC);
			sqlite3_bind_text(ins, 8, "[kernel]", -1, SQLITE_STATIC);
			sqlite3_bind_text(ins, 11, "kernel", -1, SQLITE_STATIC);
			sqlite3_bind_text(ins, 12, p->boot_id, -1, SQLITE_TRANSIENT);
			sqlite3_bind_int64(ins, 13, (int64_t)addr);
		} else {
			const struct map_entry *m;

			mi = mapping__find(p->maps, p->n_maps, pid, t, addr);
			/* another process's mapping would give a wrong name: a stack
			 * sampled in a known process of a cgroup stays unplaced */
			if (mi < 0 && pid && !own)
				mi = mapping__find(p->maps, p->n_maps, 0, t, addr);
			m = mi >= 0 ? &p->maps[mi] : NULL;
			if (m && m->path[0] == '/') {
				uint64_t off = addr - m->start + m->offset;

				sqlite3_bind_text(ins, 7, "user", -1, SQLITE_STATIC);
				sqlite3_bind_text(ins, 8, m->path, -1, SQLITE_STATIC);
				sqlite3_bind_int64(ins, 10, (int64_t)off);
				if (m->build_id) {
					sqlite3_bind_text(ins, 9, m->build_id, -1, SQLITE_STATIC);
					sqlite3_bind_text(ins, 11, "elf", -1, SQLITE_STATIC);
					bind_sym_key(ins, 12, m);
					sqlite3_bind_int64(ins, 13, (int64_t)off);
				} else {
					sqlite3_bind_text(ins, 14, "no_build_id", -1,
							  SQLITE_STATIC);
				}
			} else if ((m && has_perf_map(p, pid)) || jit_covers(p, pid, addr)) {
				/* in an anonymous mapping of a pid with a perf map, or named by
				 * one: JIT code */
				snprintf(key, sizeof(key), "%" PRId64 ":%d", p->cap, (int)pid);
				sqlite3_bind_text(ins, 7, "jit", -1, SQLITE_STATIC);
				sqlite3_bind_text(ins, 8, "[jit]", -1, SQLITE_STATIC);
				sqlite3_bind_text(ins, 11, "jit", -1, SQLITE_STATIC);
				sqlite3_bind_text(ins, 12, key, -1, SQLITE_TRANSIENT);
				sqlite3_bind_int64(ins, 13, (int64_t)addr);
			} else if (m) { /* [vdso], an anonymous mapping without perf map */
				sqlite3_bind_text(ins, 7, "user", -1, SQLITE_STATIC);
				sqlite3_bind_text(ins, 8, m->path[0] ? m->path : "[anon]", -1,
						  SQLITE_STATIC);
				sqlite3_bind_int64(ins, 10, (int64_t)(addr - m->start + m->offset));
				if (m->build_id) {
					sqlite3_bind_text(ins, 9, m->build_id, -1, SQLITE_STATIC);
					sqlite3_bind_text(ins, 11, "elf", -1, SQLITE_STATIC);
					bind_sym_key(ins, 12, m);
					sqlite3_bind_int64(ins, 13,
							   (int64_t)(addr - m->start + m->offset));
				} else {
					sqlite3_bind_text(ins, 14, "no_build_id", -1,
							  SQLITE_STATIC);
				}
			} else {
				sqlite3_bind_text(ins, 7, "unknown", -1, SQLITE_STATIC);
				sqlite3_bind_text(ins, 8, "[unknown]", -1, SQLITE_STATIC);
				sqlite3_bind_text(ins, 14, "no_mapping", -1, SQLITE_STATIC);
			}
		}
		rc = sqlite3_step(ins);
		sqlite3_reset(ins);
		if (rc != SQLITE_DONE) {
			ret = fail(p->db, err, errlen, "storing frames");
			goto cleanup;
		}
		(*placed)++;
	}
	if (rc != SQLITE_DONE)
		ret = fail(p->db, err, errlen, "placing frames");
cleanup:
	sqlite3_finalize(q);
	sqlite3_finalize(ins);
	return ret;
}

/* ------------------------------------------------------------- naming */

struct want {
	char *space, *key, *module;
	int64_t addr;
};

static void wants_free(struct want *w, size_t n)
{
	for (size_t k = 0; k < n; k++) {
		free(w[k].space);
		free(w[k].key);
		free(w[k].module);
	}
	free(w);
}

/* Give the symbolizer the capture's perf maps (the latest of each pid) and
 * the embedded ELFs of the build-ids it will be asked about (DWARF ones first). */
static int feed_symbolizer(sqlite3 *db, int64_t cap, struct symbolizer *sz, char *err,
			   size_t errlen)
{
	sqlite3_stmt *s = NULL;
	int32_t last_pid = -1;
	int rc;

	rc = sqlite3_prepare_v2(db,
				"SELECT COALESCE(pid, 0), content FROM perf_map WHERE cap = ?1 "
				"ORDER BY pid, time_ns DESC",
				-1, &s, NULL);
	if (rc != SQLITE_OK)
		return fail(db, err, errlen, "reading perf maps");
	sqlite3_bind_int64(s, 1, cap);
	while (sqlite3_step(s) == SQLITE_ROW) {
		int32_t pid = sqlite3_column_int(s, 0);

		if (pid == last_pid)
			continue;
		last_pid = pid;
		rc = symbolizer__add_perf_map(sz, pid, (const char *)sqlite3_column_blob(s, 1),
					      (size_t)sqlite3_column_bytes(s, 1));
		if (rc == -ENOMEM) {
			sqlite3_finalize(s);
			return rc;
		}
	}
	sqlite3_finalize(s);

	rc = sqlite3_prepare_v2(
	    db,
	    "SELECT m.build_id, m.elf FROM module_symbols m WHERE m.complete = 1 AND "
	    "m.build_id IN (SELECT DISTINCT build_id FROM frame_module WHERE cap = ?1) "
	    "ORDER BY m.build_id, m.debug DESC, m.cap = ?1 DESC",
	    -1, &s, NULL);
	if (rc != SQLITE_OK)
		return fail(db, err, errlen, "reading embedded symbols");
	sqlite3_bind_int64(s, 1, cap);
	{
		char last[2 * SYM_MAX_BUILD_ID + 1] = "";

		while (sqlite3_step(s) == SQLITE_ROW) {
			const char *hex = (const char *)sqlite3_column_text(s, 0);
			uint8_t id[SYM_MAX_BUILD_ID];
			size_t len;

			if (!hex || !strcmp(hex, last) || hex_to_bytes(hex, id, sizeof(id), &len))
				continue;
			rc = symbolizer__add_embedded(sz, id, len, sqlite3_column_blob(s, 1),
						      (size_t)sqlite3_column_bytes(s, 1));
			if (rc == -ENOMEM) {
				sqlite3_finalize(s);
				return rc;
			}
			if (!rc) /* the first one accepted is used */
				snprintf(last, sizeof(last), "%s", hex);
		}
	}
	sqlite3_finalize(s);

	/* where each mapping sat in its ELF: lets a debug file alone name code */
	rc = sqlite3_prepare_v2(db,
				"SELECT DISTINCT build_id, build_id_kind, offset, end - start, elf_vaddr "
				"FROM mapping WHERE cap = ?1 AND build_id IS NOT NULL "
				"AND elf_vaddr IS NOT NULL AND end > start",
				-1, &s, NULL);
	if (rc != SQLITE_OK)
		return fail(db, err, errlen, "reading mappings");
	sqlite3_bind_int64(s, 1, cap);
	while (sqlite3_step(s) == SQLITE_ROW) {
		const char *kind = (const char *)sqlite3_column_text(s, 1);
		uint8_t id[SYM_MAX_BUILD_ID];
		struct sym_module_key mk = { .build_id = id };

		if (hex_to_bytes((const char *)sqlite3_column_text(s, 0), id, sizeof(id),
				 &mk.build_id_len))
			continue;
		mk.kind = kind && !strcmp(kind, capture_build_id_kind_name(
						 PTOP__V1__BUILD_ID_KIND__BUILD_ID_KIND_GO))
				  ? SYM_BUILD_ID_GO
				  : SYM_BUILD_ID_GNU;
		rc = symbolizer__add_mapping(sz, &mk, (uint64_t)sqlite3_column_int64(s, 2),
					     (uint64_t)sqlite3_column_int64(s, 3),
					     (uint64_t)sqlite3_column_int64(s, 4));
		if (rc == -ENOMEM) {
			sqlite3_finalize(s);
			return rc;
		}
	}
	sqlite3_finalize(s);
	return 0;
}

static int store_result(sqlite3_stmt *ins, sqlite3_stmt *del, sqlite3_stmt *insf,
			const struct want *w, const struct sym_result *r)
{
	int rc;

	sqlite3_bind_text(del, 1, w->space, -1, SQLITE_STATIC);
	sqlite3_bind_text(del, 2, w->key, -1, SQLITE_STATIC);
	sqlite3_bind_int64(del, 3, w->addr);
	rc = sqlite3_step(del);
	sqlite3_reset(del);
	if (rc != SQLITE_DONE)
		return -EIO;

	sqlite3_bind_text(ins, 1, w->space, -1, SQLITE_STATIC);
	sqlite3_bind_text(ins, 2, w->key, -1, SQLITE_STATIC);
	sqlite3_bind_int64(ins, 3, w->addr);
	if (r->miss == SYM_MISS_NONE && r->n) {
		sqlite3_bind_text(ins, 4, sym_source_name(r->source), -1, SQLITE_STATIC);
		sqlite3_bind_null(ins, 5);
		sqlite3_bind_int64(ins, 6, (int64_t)r->func_offset);
	} else {
		sqlite3_bind_null(ins, 4);
		sqlite3_bind_text(ins, 5, sym_miss_name(r->miss ? r->miss : SYM_MISS_NOT_COVERED),
				  -1, SQLITE_STATIC);
		sqlite3_bind_null(ins, 6);
	}
	rc = sqlite3_step(ins);
	sqlite3_reset(ins);
	if (rc != SQLITE_DONE)
		return -EIO;
	if (r->miss != SYM_MISS_NONE)
		return 0;
	for (size_t k = 0; k < r->n && k < SYM_MAX_FRAMES; k++) {
		const struct sym_frame *f = &r->frames[k];

		if (!f->func)
			continue;
		sqlite3_bind_text(insf, 1, w->space, -1, SQLITE_STATIC);
		sqlite3_bind_text(insf, 2, w->key, -1, SQLITE_STATIC);
		sqlite3_bind_int64(insf, 3, w->addr);
		sqlite3_bind_int(insf, 4, (int)k);
		sqlite3_bind_text(insf, 5, f->func, -1, SQLITE_STATIC);
		if (f->file)
			sqlite3_bind_text(insf, 6, f->file, -1, SQLITE_STATIC);
		else
			sqlite3_bind_null(insf, 6);
		if (f->line)
			sqlite3_bind_int(insf, 7, (int)f->line);
		else
			sqlite3_bind_null(insf, 7);
		sqlite3_bind_int(insf, 8, f->inlined);
		rc = sqlite3_step(insf);
		sqlite3_reset(insf);
		if (rc != SQLITE_DONE)
			return -EIO;
	}
	return 0;
}

static int name_frames(sqlite3 *db, int64_t cap, const struct symstore_opts *o,
		       struct symstore_run *run, char *err, size_t errlen)
{
	sqlite3_stmt *q = NULL, *ins = NULL, *del = NULL, *insf = NULL;
	struct symbolizer_opts so = {0};
	struct symbolizer *sz = NULL;
	struct want *w = NULL;
	size_t n = 0, capw = 0;
	int rc, ret = 0;

	rc = sqlite3_prepare_v2(
	    db,
	    "SELECT fm.sym_space, fm.sym_key, fm.sym_addr, MIN(fm.module), MIN(fm.pid) "
	    "FROM frame_module fm LEFT JOIN symbol s ON s.space = fm.sym_space AND "
	    "s.key = fm.sym_key AND s.addr = fm.sym_addr "
	    "WHERE fm.cap = ?1 AND fm.sym_space IS NOT NULL AND "
	    "(s.space IS NULL OR (?2 AND s.source IS NULL)) GROUP BY 1, 2, 3",
	    -1, &q, NULL);
	if (rc != SQLITE_OK)
		return fail(db, err, errlen, "finding frames to name");
	sqlite3_bind_int64(q, 1, cap);
	sqlite3_bind_int(q, 2, o && o->retry_misses);
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		if (array__grow((void **)&w, &capw, n, sizeof(*w))) {
			ret = -ENOMEM;
			goto cleanup;
		}
		w[n].space = col_dup(q, 0);
		w[n].key = col_dup(q, 1);
		w[n].addr = sqlite3_column_int64(q, 2);
		w[n].module = col_dup(q, 3);
		n++;
		if (!w[n - 1].space || !w[n - 1].key) {
			ret = -ENOMEM;
			goto cleanup;
		}
	}
	if (rc != SQLITE_DONE) {
		ret = fail(db, err, errlen, "finding frames to name");
		goto cleanup;
	}
	sqlite3_finalize(q);
	q = NULL;
	if (!n)
		goto cleanup;

	if (o) {
		so.cache_dir = o->cache_dir;
		so.debuginfod = o->debuginfod;
		so.debuginfod_urls = o->debuginfod_urls;
	}
	sz = symbolizer__new(&so);
	if (!sz) {
		ret = -errno;
		snprintf(err, errlen, "cannot start the symbolizer: %s", strerror(errno));
		goto cleanup;
	}
	ret = feed_symbolizer(db, cap, sz, err, errlen);
	if (ret)
		goto cleanup;

	rc = sqlite3_prepare_v2(db,
				"INSERT OR REPLACE INTO symbol (space, key, addr, source, miss, "
				"func_offset) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
				-1, &ins, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_prepare_v2(db,
					"DELETE FROM symbol_frame WHERE space = ?1 AND key = ?2 "
					"AND addr = ?3",
					-1, &del, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_prepare_v2(
		    db,
		    "INSERT INTO symbol_frame (space, key, addr, depth, func, "
		    "file, line, inlined) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
		    -1, &insf, NULL);
	if (rc != SQLITE_OK) {
		ret = fail(db, err, errlen, "storing symbols");
		goto cleanup;
	}
	for (size_t k = 0; k < n; k++) {
		struct sym_result r;

		memset(&r, 0, sizeof(r));
		if (!strcmp(w[k].space, "elf")) {
			uint8_t id[SYM_MAX_BUILD_ID];
			struct sym_module_key mk = {.build_id = id, .path = w[k].module};
			const char *hex = w[k].key;

			if (!strncmp(hex, "go:", 3)) {
				mk.kind = SYM_BUILD_ID_GO;
				hex += 3;
			}
			if (hex_to_bytes(hex, id, sizeof(id), &mk.build_id_len)) {
				r.miss = SYM_MISS_NO_BUILD_ID;
			} else {
				rc = symbolizer__resolve(sz, &mk, (uint64_t)w[k].addr, &r);
				if (rc) {
					ret = rc;
					snprintf(err, errlen, "symbolizing %s: %s", w[k].module,
						 strerror(-rc));
					goto cleanup;
				}
			}
		} else if (!strcmp(w[k].space, "jit")) {
			const char *colon = strchr(w[k].key, ':');
			int pid = colon ? atoi(colon + 1) : 0;

			rc = symbolizer__resolve_jit(sz, pid, (uint64_t)w[k].addr, &r);
			if (rc) {
				ret = rc;
				snprintf(err, errlen, "naming JIT frames: %s", strerror(-rc));
				goto cleanup;
			}
		} else {
			rc = symbolizer__resolve_kernel(sz, w[k].key, (uint64_t)w[k].addr, &r);
			if (rc) {
				ret = rc;
				snprintf(err, errlen, "naming kernel frames: %s", strerror(-rc));
				goto cleanup;
			}
		}
		run->resolved++;
		if (store_result(ins, del, insf, &w[k], &r)) {
			ret = fail(db, err, errlen, "storing symbols");
			goto cleanup;
		}
	}
cleanup:
	sqlite3_finalize(q);
	sqlite3_finalize(ins);
	sqlite3_finalize(del);
	sqlite3_finalize(insf);
	if (sz)
		run->debuginfod = *symbolizer__debuginfod(sz);
	symbolizer__free(sz);
	wants_free(w, n);
	return ret;
}

/* The stack copies of CAP not unwound yet, unwound (analyze/unwind.h) before their
 * frames are placed, with a symbolizer of O's to find the modules' files. */
static int unwind_pending(sqlite3 *db, int64_t cap, const struct symstore_opts *o, char *err,
			  size_t errlen)
{
	struct symbolizer_opts so = {0};
	struct symbolizer *sz;
	int ret;

	if (!unwind__pending(db, cap))
		return 0;
	if (o) {
		so.cache_dir = o->cache_dir;
		so.debuginfod = o->debuginfod;
		so.debuginfod_urls = o->debuginfod_urls;
	}
	sz = symbolizer__new(&so);
	if (!sz) {
		snprintf(err, errlen, "cannot start the symbolizer: %s", strerror(errno));
		return -errno;
	}
	ret = feed_symbolizer(db, cap, sz, err, errlen);
	ret = ret ?: unwind__copies(db, cap, sz, NULL, err, errlen);
	symbolizer__free(sz);
	return ret;
}

int symstore__update(sqlite3 *db, int64_t cap, const struct symstore_opts *o,
		     struct symstore_run *run, char *err, size_t errlen)
{
	struct placer p = {.db = db, .cap = cap};
	struct symstore_run r = {0};
	bool in_tx = false;
	int ret;

	if (errlen)
		err[0] = 0;
	if (sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK) {
		ret = fail(db, err, errlen, "starting a transaction");
		goto cleanup;
	}
	in_tx = true;
	if (o && o->debuginfod) { /* what it would ask, even when nothing is left to name */
		const char *urls = o->debuginfod_urls ? o->debuginfod_urls : getenv("DEBUGINFOD_URLS");

		r.debuginfod.asked_for = true;
		snprintf(r.debuginfod.servers, sizeof(r.debuginfod.servers), "%s", urls ? urls : "");
	}
	ret = unwind_pending(db, cap, o, err, errlen);
	ret = ret ?: placer_load(&p, err, errlen);
	ret = ret ?: place_frames(&p, &r.placed, err, errlen);
	ret = ret ?: name_frames(db, cap, o, &r, err, errlen);
	if (ret)
		goto cleanup;
	if (sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
		ret = fail(db, err, errlen, "storing symbols");
		goto cleanup;
	}
	in_tx = false;
	r.stored = true;
cleanup:
	if (in_tx)
		sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
	if (ret == -ENOMEM && err && errlen && !err[0])
		snprintf(err, errlen, "out of memory");
	placer_free(&p);
	if (run)
		*run = r;
	return ret;
}

int symstore__ensure(sqlite3 *db, int64_t cap, const struct symstore_opts *o,
		     struct symstore_run *run, char *err, size_t errlen)
{
	const char *file = sqlite3_db_filename(db, "main");
	sqlite3 *rw = NULL;
	int ret;

	if (run)
		memset(run, 0, sizeof(*run));
	if (!sqlite3_db_readonly(db, "main"))
		return symstore__update(db, cap, o, run, err, errlen);
	if (!file || !*file)
		return 0;
	if (sqlite3_open_v2(file, &rw, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL) !=
	    SQLITE_OK) {
		sqlite3_close(rw);
		return 0; /* not ours to write: the names already stored are shown */
	}
	sqlite3_busy_timeout(rw, 5000);
	ret = symstore__update(rw, cap, o, run, err, errlen);
	sqlite3_close(rw);
	if (ret == -EIO) { /* e.g. a read-only file system: report with what is stored */
		if (run)
			run->stored = false;
		return 0;
	}
	return ret;
}

char *symstore_run__debuginfod_text(const struct symstore_run *r, char *buf, size_t len)
{
	const struct sym_debuginfod_stats *d = &r->debuginfod;

	buf[0] = 0;
	if (!d->asked_for)
		return buf;
	if (!d->servers[0])
		snprintf(buf, len,
			 "debuginfod: no server was asked: DEBUGINFOD_URLS is not set and "
			 "--debuginfod-urls was not given (%u file%s wanted)",
			 d->wanted, d->wanted == 1 ? "" : "s");
	else if (!d->lookups)
		snprintf(buf, len, "debuginfod: %s: nothing to look up (every frame needed is "
			 "named or has no GNU build-id)", d->servers);
	else
		snprintf(buf, len,
			 "debuginfod: %s: %u lookup%s, %u found, %u not found, %u failed%s%s%s",
			 d->servers, d->lookups, d->lookups == 1 ? "" : "s", d->found,
			 d->not_found, d->failed, d->first_error ? " (first error: " : "",
			 d->first_error ? (d->first_error == EILSEQ ? "a file of another build"
								    : strerror(d->first_error))
					: "",
			 d->first_error ? ")" : "");
	return buf;
}

void symstore_run__debuginfod_json(const struct symstore_run *r, struct json *j)
{
	const struct sym_debuginfod_stats *d = &r->debuginfod;

	json__key(j, "debuginfod");
	if (!d->asked_for) {
		json__null(j);
		return;
	}
	json__begin_object(j);
	json__kv_string(j, "servers", d->servers[0] ? d->servers : NULL);
	json__kv_int(j, "wanted", d->wanted);
	json__kv_int(j, "lookups", d->lookups);
	json__kv_int(j, "found", d->found);
	json__kv_int(j, "not_found", d->not_found);
	json__kv_int(j, "failed", d->failed);
	json__kv_string(j, "first_error",
			!d->first_error		     ? NULL
			: d->first_error == EILSEQ ? "a file of another build"
						   : strerror(d->first_error));
	json__end_object(j);
}

/* ------------------------------------------------------------ the profile */

const char *profile__keep(struct profile *p, const char *s)
{
	char *d;

	if (!s)
		return NULL;
	if (p->n_strs == p->cap_strs) {
		size_t cap = p->cap_strs ? 2 * p->cap_strs : 256;
		char **n = realloc(p->strs, cap * sizeof(*n));

		if (!n)
			return NULL;
		p->strs = n;
		p->cap_strs = cap;
	}
	d = strdup(s);
	if (d)
		p->strs[p->n_strs++] = d;
	return d;
}

void profile__free(struct profile *p)
{
	if (!p)
		return;
	for (size_t k = 0; k < p->n_locs; k++)
		free(p->locs[k].f);
	free(p->locs);
	for (size_t k = 0; k < p->n_stacks; k++)
		free(p->stacks[k].loc);
	free(p->stacks);
	free(p->procs);
	for (size_t k = 0; k < p->n_strs; k++)
		free(p->strs[k]);
	free(p->strs);
	free(p);
}

struct loc_ix {
	int64_t sid;
	size_t first, n; /* locs[first .. first+n) are the stack's frames by depth */
	const char *cut_module; /* the walk was cut (see struct prof_stack): the module of
				 * its last frame kept; NULL when not cut */
	uint64_t cut_ip;
};

static int cmp_loc_ix(const void *a, const void *b)
{
	const struct loc_ix *x = a, *y = b;

	return x->sid < y->sid ? -1 : x->sid > y->sid;
}

static enum frame_kind kind_of(const char *k)
{
	if (!k)
		return FRAME_UNKNOWN;
	if (!strcmp(k, "user"))
		return FRAME_USER;
	if (!strcmp(k, "jit"))
		return FRAME_JIT;
	if (!strcmp(k, "kernel"))
		return FRAME_KERNEL;
	return FRAME_UNKNOWN;
}

struct loc_map {
	int32_t pid;
	uint64_t start, end, offset;
	const char *path;
};

static int cmp_loc_map(const void *a, const void *b)
{
	const struct loc_map *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

/* Give each user location of P its mapping (struct prof_loc: map_start...): of the
 * file mapping records of capture CAP with its path covering its address at its file
 * offset, one of its pid if any; and say whether that is the main program. */
static int place_in_mappings(sqlite3 *db, struct profile *p, int64_t cap)
{
	sqlite3_stmt *s = NULL;
	struct loc_map *m = NULL;
	size_t n = 0, capm = 0;
	const struct prof_loc *last = NULL;
	int rc, ret = 0;

	rc = sqlite3_prepare_v2(db,
				"SELECT COALESCE(pid, 0), start, end, COALESCE(offset, 0), path "
				"FROM mapping WHERE cap = ?1 AND path LIKE '/%' AND end > start",
				-1, &s, NULL);
	if (rc != SQLITE_OK)
		return -EIO;
	sqlite3_bind_int64(s, 1, cap);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		if (array__grow((void **)&m, &capm, n, sizeof(*m))) {
			ret = -ENOMEM;
			goto cleanup;
		}
		m[n].pid = sqlite3_column_int(s, 0);
		m[n].start = (uint64_t)sqlite3_column_int64(s, 1);
		m[n].end = (uint64_t)sqlite3_column_int64(s, 2);
		m[n].offset = (uint64_t)sqlite3_column_int64(s, 3);
		m[n].path = profile__keep(p, (const char *)sqlite3_column_text(s, 4));
		if (!m[n].path) {
			ret = -ENOMEM;
			goto cleanup;
		}
		n++;
	}
	if (rc != SQLITE_DONE) {
		ret = -EIO;
		goto cleanup;
	}
	if (!n)
		goto cleanup;
	qsort(m, n, sizeof(*m), cmp_loc_map);
	for (size_t k = 0; k < p->n_locs; k++) {
		struct prof_loc *l = &p->locs[k];
		const struct loc_map *best = NULL;
		size_t lo = 0, hi = n;

		if (l->kind != FRAME_USER || l->addr < l->offset)
			continue;
		if (last && last->pid == l->pid && !strcmp(last->module, l->module) &&
		    last->addr - last->offset == l->addr - l->offset && l->addr >= last->map_start &&
		    l->addr < last->map_limit) {
			l->map_start = last->map_start;
			l->map_limit = last->map_limit;
			l->map_offset = last->map_offset;
			l->main_program = last->main_program;
			continue;
		}
		while (lo < hi) { /* the first record starting past addr */
			size_t mid = lo + (hi - lo) / 2;

			if (m[mid].start <= l->addr)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (size_t j = lo; j-- > 0;) {
			const struct loc_map *c = &m[j];

			if (c->end <= l->addr || c->start - c->offset != l->addr - l->offset ||
			    strcmp(c->path, l->module))
				continue;
			if (!best || (c->pid == l->pid && best->pid != l->pid))
				best = c;
			if (c->pid == l->pid)
				break;
		}
		if (!best)
			continue;
		l->map_start = best->start;
		l->map_limit = best->end;
		l->map_offset = best->offset;
		/* the main program: the process's lowest-addressed file mapping (m is by
		 * start) */
		for (size_t j = 0; j < n; j++)
			if (m[j].pid == best->pid) {
				l->main_program = !strcmp(m[j].path, best->path);
				break;
			}
		last = l;
	}
cleanup:
	sqlite3_finalize(s);
	free(m);
	return ret;
}

/* Whether a stack's walk ends before a frame of kind KIND (frame_module.kind) that
 * follows the placed frame ABOVE: a return address in no executable mapping of a
 * process whose mappings placed the frame before it is no return address. A
 * frame-pointer walk through code built without frame pointers reads whatever the
 * register holds (data, string bytes) as the next frame, and every frame after it
 * as well, so the walk is cut there (the frames stay in frame_module). */
static bool walk_cut_here(const struct prof_loc *above, const char *kind)
{
	return kind && !strcmp(kind, "unknown") &&
	       (above->kind == FRAME_USER || above->kind == FRAME_JIT);
}

/* Every placed frame of the capture with its names, grouped by stack; a stack's
 * walk ends at a frame in no executable mapping (walk_cut_here). */
int profile__load_locs(sqlite3 *db, struct profile *p, int64_t cap, struct loc_ix **ixo,
		       size_t *nixo)
{
	sqlite3_stmt *s = NULL;
	struct loc_ix *ix = NULL;
	size_t nix = 0, capix = 0, capl = 0;
	int64_t last_sid = 0, last_depth = 0, cut_depth = -1;
	bool any = false; /* a row was read: last_sid and last_depth are its (every id is valid) */
	int rc, ret = 0;

	rc = sqlite3_prepare_v2(
	    db,
	    "SELECT fm.stack_id, fm.depth, fm.kind, fm.module, fm.build_id, fm.ip, fm.addr, "
	    "COALESCE(fm.file_offset, fm.addr), s.source, COALESCE(fm.miss, s.miss, "
	    "CASE WHEN s.space IS NULL THEN 'not_symbolized' END), "
	    "sf.func, sf.file, sf.line, sf.inlined, COALESCE(fm.pid, 0) "
	    "FROM frame_module fm LEFT JOIN symbol s ON s.space = fm.sym_space AND "
	    "s.key = fm.sym_key AND s.addr = fm.sym_addr "
	    "LEFT JOIN symbol_frame sf ON s.source IS NOT NULL AND sf.space = s.space AND "
	    "sf.key = s.key AND sf.addr = s.addr "
	    "WHERE fm.cap = ?1 ORDER BY fm.stack_id, fm.depth, sf.depth",
	    -1, &s, NULL);
	if (rc != SQLITE_OK)
		return -EIO;
	sqlite3_bind_int64(s, 1, cap);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		int64_t sid = sqlite3_column_int64(s, 0), depth = sqlite3_column_int64(s, 1);
		struct prof_loc *l;

		if (any && sid == last_sid && ix[nix - 1].cut_module) {
			/* the rest of a cut walk */
			if (depth != cut_depth)
				p->cut_frames++;
			cut_depth = depth;
			continue;
		}
		if (any && sid == last_sid && depth != last_depth &&
		    walk_cut_here(&p->locs[p->n_locs - 1],
				  (const char *)sqlite3_column_text(s, 2))) {
			ix[nix - 1].cut_module = p->locs[p->n_locs - 1].module;
			ix[nix - 1].cut_ip = (uint64_t)sqlite3_column_int64(s, 5);
			p->cut_frames++;
			cut_depth = depth;
			continue;
		}
		if (!any || sid != last_sid || depth != last_depth) {
			if (array__grow((void **)&p->locs, &capl, p->n_locs, sizeof(*p->locs))) {
				ret = -ENOMEM;
				goto cleanup;
			}
			l = &p->locs[p->n_locs++];
			memset(l, 0, sizeof(*l));
			l->kind = kind_of((const char *)sqlite3_column_text(s, 2));
			l->module = profile__keep(p, (const char *)sqlite3_column_text(s, 3));
			l->build_id = profile__keep(p, (const char *)sqlite3_column_text(s, 4));
			l->ip = (uint64_t)sqlite3_column_int64(s, 5);
			l->addr = (uint64_t)sqlite3_column_int64(s, 6);
			l->offset = (uint64_t)sqlite3_column_int64(s, 7);
			l->source = profile__keep(p, (const char *)sqlite3_column_text(s, 8));
			l->miss =
			    l->source ? NULL : profile__keep(p, (const char *)sqlite3_column_text(s, 9));
			l->pid = sqlite3_column_int(s, 14);
			if (!l->module) {
				ret = -ENOMEM;
				goto cleanup;
			}
			if (!any || sid != last_sid) {
				if (array__grow((void **)&ix, &capix, nix, sizeof(*ix))) {
					ret = -ENOMEM;
					goto cleanup;
				}
				ix[nix] = (struct loc_ix){.sid = sid, .first = p->n_locs - 1};
				nix++;
			}
			ix[nix - 1].n++;
			last_sid = sid;
			last_depth = depth;
			any = true;
		}
		l = &p->locs[p->n_locs - 1];
		if (l->source && sqlite3_column_text(s, 10)) {
			struct prof_func *f = realloc(l->f, (l->n + 1) * sizeof(*f));

			if (!f) {
				ret = -ENOMEM;
				goto cleanup;
			}
			l->f = f;
			f = &l->f[l->n++];
			f->func = profile__keep(p, (const char *)sqlite3_column_text(s, 10));
			f->file = profile__keep(p, (const char *)sqlite3_column_text(s, 11));
			f->line = (unsigned)sqlite3_column_int(s, 12);
			f->inlined = sqlite3_column_int(s, 13) != 0;
			if (!f->func) {
				ret = -ENOMEM;
				goto cleanup;
			}
		}
	}
	if (rc != SQLITE_DONE)
		ret = -EIO;
	if (!ret)
		ret = place_in_mappings(db, p, cap);
	/* a named symbol without names (should not happen) is shown unnamed */
	for (size_t k = 0; k < p->n_locs; k++)
		if (p->locs[k].source && !p->locs[k].n) {
			p->locs[k].source = NULL;
			p->locs[k].miss = "not_covered";
		}
cleanup:
	sqlite3_finalize(s);
	if (ret) {
		free(ix);
		return ret;
	}
	*ixo = ix;
	*nixo = nix;
	return 0;
}

int profile__add_stack_locs(struct profile *p, struct prof_stack *st, const struct loc_ix *ix,
			    size_t nix, int64_t sid)
{
	struct loc_ix k = {.sid = sid};
	const struct loc_ix *f = nix ? bsearch(&k, ix, nix, sizeof(k), cmp_loc_ix) : NULL;
	struct prof_loc **n;

	if (!f || !f->n)
		return 0;
	if (f->cut_module) {
		st->cut_module = f->cut_module;
		st->cut_ip = f->cut_ip;
	}
	n = realloc(st->loc, (st->n + f->n) * sizeof(*n));
	if (!n)
		return -ENOMEM;
	st->loc = n;
	for (size_t d = 0; d < f->n; d++)
		st->loc[st->n++] = &p->locs[f->first + d];
	return 0;
}

const struct prof_proc *profile__proc(const struct profile *p, int32_t pid)
{
	for (size_t k = 0; p && pid && k < p->n_procs; k++)
		if (p->procs[k].pid == pid)
			return &p->procs[k];
	return NULL;
}

int stacks__load(sqlite3 *db, int64_t cap, struct profile **out)
{
	struct profile *p = calloc(1, sizeof(*p));
	struct loc_ix *ix = NULL;
	size_t nix = 0;
	int ret;

	*out = NULL;
	if (!p)
		return -ENOMEM;
	p->delivered_hz = NAN;
	p->t0_ns = p->t1_ns = -1;
	ret = profile__load_locs(db, p, cap, &ix, &nix);
	if (ret)
		goto cleanup;
	if (nix) {
		p->stacks = calloc(nix, sizeof(*p->stacks));
		if (!p->stacks) {
			ret = -ENOMEM;
			goto cleanup;
		}
	}
	for (size_t k = 0; k < nix; k++) {
		struct prof_stack *st = &p->stacks[p->n_stacks++];

		st->stack_id = ix[k].sid;
		ret = profile__add_stack_locs(p, st, ix, nix, ix[k].sid);
		if (ret)
			goto cleanup;
		if (st->cut_module)
			p->cut++;
	}
cleanup:
	free(ix);
	if (ret)
		profile__free(p);
	else
		*out = p;
	return ret;
}

static int cmp_stack_id(const void *a, const void *b)
{
	const struct prof_stack *x = a, *y = b;

	return x->stack_id < y->stack_id ? -1 : x->stack_id > y->stack_id;
}

const struct prof_stack *profile__stack(const struct profile *p, int64_t stack_id)
{
	struct prof_stack k = {.stack_id = stack_id};

	if (!p || !p->n_stacks)
		return NULL;
	return bsearch(&k, p->stacks, p->n_stacks, sizeof(k), cmp_stack_id);
}

static int cmp_cut_mod(const void *a, const void *b)
{
	const struct cut_mod *x = a, *y = b;

	if (x->weight != y->weight)
		return x->weight > y->weight ? -1 : 1;
	return strcmp(x->module, y->module);
}

int profile__cut_modules(const struct profile *p, struct cut_mod **out, size_t *n)
{
	struct cut_mod *cm = NULL;
	size_t nc = 0, cap = 0;

	*out = NULL;
	*n = 0;
	for (size_t k = 0; k < p->n_stacks; k++) {
		const struct prof_stack *st = &p->stacks[k];
		size_t i;

		if (!st->cut_module)
			continue;
		for (i = 0; i < nc && strcmp(cm[i].module, st->cut_module); i++)
			;
		if (i == nc) {
			if (array__grow((void **)&cm, &cap, nc, sizeof(*cm))) {
				free(cm);
				return -ENOMEM;
			}
			cm[nc].module = st->cut_module;
			cm[nc++].weight = 0;
		}
		cm[i].weight += p->collected ? st->count : 1;
	}
	if (nc)
		qsort(cm, nc, sizeof(*cm), cmp_cut_mod);
	*out = cm;
	*n = nc;
	return 0;
}

char *stack_cut_fix(const char *module, char *buf, size_t len)
{
	snprintf(buf, len,
		 "frame pointers missing in %s: the frame-pointer walk read a return address "
		 "in no executable mapping after its code; record with --user-stacks dwarf "
		 "(or rebuild it with -fno-omit-frame-pointer)",
		 module);
	return buf;
}

int profile__cut_note(const struct profile *p, uint64_t of, const char *unit, char *buf,
		      size_t len)
{
	struct cut_mod *cm = NULL;
	size_t nc = 0;
	char a[32], b[32], pct[16];
	int ret;

	buf[0] = '\0';
	if (!p->cut)
		return 0;
	ret = profile__cut_modules(p, &cm, &nc);
	if (ret)
		return ret;
	fmt_pct(pct, sizeof(pct), of ? 100.0 * (double)p->cut / (double)of : NAN);
	snprintf(buf, len,
		 "stacks cut short: %s of %s %s (%s) end where the walk read a return address in "
		 "no executable mapping: frame pointers missing in %s%s%s; the frames after it "
		 "are left out (record with --user-stacks dwarf for whole stacks)",
		 fmt_count(a, sizeof(a), p->cut), fmt_count(b, sizeof(b), of), unit, pct,
		 nc ? cm[0].module : "?", nc > 1 ? " and " : "",
		 nc > 2 ? "other modules" : nc > 1 ? cm[1].module : "");
	free(cm);
	return 0;
}

void prof_loc__name(const struct prof_loc *l, size_t name_ix, char *buf, size_t len)
{
	if (l->n && name_ix < l->n && l->f[name_ix].func) {
		snprintf(buf, len, "%s", l->f[name_ix].func);
		return;
	}
	if (l->kind == FRAME_UNKNOWN || l->kind == FRAME_KERNEL || l->kind == FRAME_JIT)
		snprintf(buf, len, "%s+0x%" PRIx64, l->module, l->addr);
	else
		snprintf(buf, len, "%s+0x%" PRIx64, base_name(l->module), l->offset);
}

const char *symbolize_fix_hint(const char *miss, const struct sym_debuginfod_stats *d)
{
	/* hint: never asked debuginfod; unset: --debuginfod without a server; asked: the
	 * servers were asked and did not give a file that names these frames */
	static const struct {
		const char *miss, *hint, *unset, *asked;
	} hints[] = {
	    {"no_file", "the binary is not on this machine: `--symbol-cache DIR` with its "
			"debug file (DIR/<build-id>/debuginfo), or record with --embed-symbols"},
	    {"no_symbols",
	     "the binary is stripped: install the distribution's debug package (e.g. libc6-dbg) "
	     "or use --debuginfod",
	     "the binary is stripped: install the distribution's debug package (e.g. libc6-dbg), "
	     "or give --debuginfod a server (DEBUGINFOD_URLS or --debuginfod-urls)",
	     "the binary is stripped and debuginfod, asked, did not give a debug file for it "
	     "(see the debuginfod line): install the distribution's debug package (e.g. "
	     "libc6-dbg)"},
	    {"build_id_mismatch",
	     "a different build is installed here: put the recorded build in `--symbol-cache DIR` "
	     "(DIR/<build-id>/executable or debuginfo), use --debuginfod, or record with "
	     "--embed-symbols",
	     "a different build is installed here: put the recorded build in `--symbol-cache DIR` "
	     "(DIR/<build-id>/executable or debuginfo), give --debuginfod a server "
	     "(DEBUGINFOD_URLS or --debuginfod-urls), or record with --embed-symbols",
	     "a different build is installed here and debuginfod, asked, did not give the "
	     "recorded one (see the debuginfod line): put it in `--symbol-cache DIR` "
	     "(DIR/<build-id>/executable or debuginfo), or record with --embed-symbols"},
	    {"no_build_id", "the mapped file has no build-id, so no file can be verified: "
			    "link it with --build-id (the frames stay module+offset)"},
	    {"not_covered",
	     "the module's symbols do not cover these addresses (local functions stripped): its "
	     "debug file names them (debug package, --symbol-cache, --debuginfod)",
	     "the module's symbols do not cover these addresses (local functions stripped): its "
	     "debug file names them (debug package, --symbol-cache, or --debuginfod with a "
	     "server: DEBUGINFOD_URLS or --debuginfod-urls)",
	     "the module's symbols do not cover these addresses (local functions stripped) and "
	     "debuginfod, asked, did not give a debug file (see the debuginfod line): the debug "
	     "package or --symbol-cache names them"},
	    {"other_boot", "kernel frames from another boot: this machine's kallsyms do not "
			   "apply; analyze on the recording host before it reboots"},
	    {"no_mapping", "no recorded mapping covers these addresses: most often junk frames "
			   "of a frame-pointer walk through code built without frame pointers "
			   "(the walk read a value that is no return address); else code mapped "
			   "and unmapped between two mapping scans, or the mappings collector "
			   "did not run"},
	    {"not_symbolized", "run `ptop-analyze symbolize` on a writable DB"},
	};

	for (size_t k = 0; miss && k < sizeof(hints) / sizeof(hints[0]); k++) {
		if (strcmp(hints[k].miss, miss))
			continue;
		if (d && d->asked_for && !d->servers[0] && hints[k].unset)
			return hints[k].unset;
		if (d && d->asked_for && d->servers[0] && hints[k].asked)
			return hints[k].asked;
		return hints[k].hint;
	}
	return "";
}

/* ------------------------------------------------------ the command */

struct mod_sum {
	const char *module, *build_id;
	uint64_t frames, unnamed;
	uint64_t miss_count[SYM_MISS__COUNT + 3]; /* + no_mapping, not_symbolized, other */
	uint64_t samples_unnamed;
	uint64_t stamp;
};

#define MISS_NO_MAPPING SYM_MISS__COUNT
#define MISS_NOT_SYMBOLIZED (SYM_MISS__COUNT + 1)
#define MISS_OTHER (SYM_MISS__COUNT + 2)

static int miss_index(const char *miss)
{
	if (!miss)
		return MISS_OTHER;
	for (int k = 1; k < SYM_MISS__COUNT; k++)
		if (!strcmp(sym_miss_name((enum sym_miss)k), miss))
			return k;
	if (!strcmp(miss, "no_mapping"))
		return MISS_NO_MAPPING;
	if (!strcmp(miss, "not_symbolized"))
		return MISS_NOT_SYMBOLIZED;
	return MISS_OTHER;
}

static const char *miss_word(int k)
{
	if (k == MISS_NO_MAPPING)
		return "no_mapping";
	if (k == MISS_NOT_SYMBOLIZED)
		return "not_symbolized";
	if (k == MISS_OTHER)
		return "other";
	return sym_miss_name((enum sym_miss)k);
}

static int cmp_mod(const void *a, const void *b)
{
	const struct mod_sum *x = a, *y = b;

	if (x->samples_unnamed != y->samples_unnamed)
		return x->samples_unnamed > y->samples_unnamed ? -1 : 1;
	if (x->unnamed != y->unnamed)
		return x->unnamed > y->unnamed ? -1 : 1;
	return strcmp(x->module, y->module);
}

static int top_miss(const struct mod_sum *ms)
{
	int best = -1;

	for (int k = 1; k < SYM_MISS__COUNT + 3; k++)
		if (ms->miss_count[k] && (best < 0 || ms->miss_count[k] > ms->miss_count[best]))
			best = k;
	return best;
}

/* The fix for module MS whose frames are mostly unnamed for reason TM, after what
 * debuginfod was asked (D). */
static const char *module_hint(const struct mod_sum *ms, int tm,
			       const struct sym_debuginfod_stats *d)
{
	if (!strcmp(ms->module, "[vdso]") && tm == SYM_MISS_NO_FILE)
		return "the vDSO is kernel memory, not a file here: record with --embed-symbols "
		       "to keep its symbols";
	return symbolize_fix_hint(miss_word(tm), d);
}

struct run_out {
	FILE *out;
	enum out_format fmt;
	const struct symstore_run *run;
};

/* Count frames by source and miss (distinct placed frames of the capture) and,
 * per module, the profile samples it leaves with an unnamed frame. */
static int summarize(sqlite3 *db, const struct capture_meta *m, const struct run_out *ro)
{
	const struct an_profile *prof;
	struct profile *p = NULL;
	struct mod_sum *mods = NULL;
	struct cut_mod *cm = NULL;
	size_t nm = 0, nc = 0;
	char fix[320], pct[16];
	uint64_t by_source[SYM_SRC__COUNT] = {0}, by_miss[SYM_MISS__COUNT + 3] = {0};
	uint64_t named = 0, unnamed = 0, stamp = 0;
	char dbi[768];
	struct json j;
	int ret;

	/* the default profile's samples rank the modules; without one, the stacks alone */
	prof = an_profile__find(NULL);
	ret = prof && prof->whole ? prof->whole(db, m, &p) : stacks__load(db, m->cap, &p);
	if (ret)
		return ret;
	mods = calloc(p->n_locs + 1, sizeof(*mods));
	if (!mods) {
		ret = -ENOMEM;
		goto cleanup;
	}
	/* frames: every placed location, by module */
	for (size_t k = 0; k < p->n_locs; k++) {
		const struct prof_loc *l = &p->locs[k];
		struct mod_sum *ms = NULL;

		for (size_t i = 0; i < nm; i++)
			if (!strcmp(mods[i].module, l->module)) {
				ms = &mods[i];
				break;
			}
		if (!ms) {
			ms = &mods[nm++];
			ms->module = l->module;
			ms->build_id = l->build_id;
		}
		ms->frames++;
		if (l->source) {
			named++;
			for (int s = 1; s < SYM_SRC__COUNT; s++)
				if (!strcmp(l->source, sym_source_name((enum sym_source)s)))
					by_source[s]++;
		} else {
			int mi = miss_index(l->miss);

			unnamed++;
			ms->unnamed++;
			ms->miss_count[mi]++;
			by_miss[mi]++;
		}
	}
	/* samples left with an unnamed frame, per module (once per sample) */
	for (size_t k = 0; k < p->n_stacks; k++) {
		const struct prof_stack *st = &p->stacks[k];

		stamp++;
		for (size_t d = 0; d < st->n; d++) {
			const struct prof_loc *l = st->loc[d];

			if (l->source)
				continue;
			for (size_t i = 0; i < nm; i++)
				if (!strcmp(mods[i].module, l->module) && mods[i].stamp != stamp) {
					mods[i].stamp = stamp;
					mods[i].samples_unnamed += st->count;
				}
		}
	}
	if (nm) /* qsort's array may not be NULL, even empty */
		qsort(mods, nm, sizeof(*mods), cmp_mod);
	ret = profile__cut_modules(p, &cm, &nc);
	if (ret)
		goto cleanup;

	if (ro->fmt == OUT_JSON) {
		json__init(&j, ro->out, true);
		json__begin_object(&j);
		json__kv_string(&j, "capture_id", m->capture_id);
		json__kv_bool(&j, "stored", ro->run->stored);
		json__kv_int(&j, "resolved_now", (int64_t)ro->run->resolved);
		symstore_run__debuginfod_json(ro->run, &j);
		json__key(&j, "frames");
		json__begin_object(&j);
		json__kv_int(&j, "total", (int64_t)(named + unnamed + p->cut_frames));
		json__kv_int(&j, "named", (int64_t)named);
		json__kv_int(&j, "unnamed", (int64_t)unnamed);
		json__kv_int(&j, "past_cut", (int64_t)p->cut_frames);
		json__key(&j, "named_by_source");
		json__begin_object(&j);
		for (int s = 1; s < SYM_SRC__COUNT; s++)
			if (by_source[s])
				json__kv_int(&j, sym_source_name((enum sym_source)s),
					     (int64_t)by_source[s]);
		json__end_object(&j);
		json__key(&j, "unnamed_by_reason");
		json__begin_object(&j);
		for (int k = 1; k < SYM_MISS__COUNT + 3; k++)
			if (by_miss[k])
				json__kv_int(&j, miss_word(k), (int64_t)by_miss[k]);
		json__end_object(&j);
		json__end_object(&j);
		json__kv_int(&j, "samples", (int64_t)p->stacked);
		json__key(&j, "modules");
		json__begin_array(&j);
		for (size_t i = 0; i < nm; i++) {
			int tm = top_miss(&mods[i]);

			json__begin_object(&j);
			json__kv_string(&j, "module", mods[i].module);
			json__kv_string(&j, "build_id", mods[i].build_id);
			json__kv_int(&j, "frames", (int64_t)mods[i].frames);
			json__kv_int(&j, "unnamed_frames", (int64_t)mods[i].unnamed);
			json__kv_int(&j, "samples_unnamed", (int64_t)mods[i].samples_unnamed);
			json__kv_real(&j, "share_unnamed",
				      p->stacked
					  ? (double)mods[i].samples_unnamed / (double)p->stacked
					  : NAN);
			json__kv_string(&j, "miss", tm >= 0 ? miss_word(tm) : NULL);
			json__kv_string(&j, "fix",
					tm >= 0 ? module_hint(&mods[i], tm, &ro->run->debuginfod)
						: NULL);
			json__end_object(&j);
		}
		json__end_array(&j);
		/* samples whose walk was cut, by the module it could not leave */
		json__key(&j, "cut");
		json__begin_object(&j);
		json__kv_int(&j, "samples", (int64_t)p->cut);
		json__kv_real(&j, "share", p->stacked ? (double)p->cut / (double)p->stacked : NAN);
		json__kv_string(&j, "reason", p->cut ? "return address in no executable mapping"
						     : NULL);
		json__key(&j, "modules");
		json__begin_array(&j);
		for (size_t i = 0; i < nc; i++) {
			json__begin_object(&j);
			json__kv_string(&j, "module", cm[i].module);
			json__kv_int(&j, "samples", (int64_t)cm[i].weight);
			json__kv_string(&j, "fix", stack_cut_fix(cm[i].module, fix, sizeof(fix)));
			json__end_object(&j);
		}
		json__end_array(&j);
		json__end_object(&j);
		json__end_object(&j);
		ret = json__end(&j);
		goto cleanup;
	}

	fprintf(ro->out, "symbolize %s: %" PRIu64 " frames, %" PRIu64 " named, %" PRIu64 " unnamed",
		m->capture_id, named + unnamed + p->cut_frames, named, unnamed);
	if (p->cut_frames)
		fprintf(ro->out, ", %" PRIu64 " past the end of a cut walk (left out)",
			(uint64_t)p->cut_frames);
	fprintf(ro->out, "%s\n", ro->run->stored ? "" : " (the DB is read-only: nothing new stored)");
	if (symstore_run__debuginfod_text(ro->run, dbi, sizeof(dbi))[0])
		fprintf(ro->out, "%s\n", dbi);
	if (named) {
		fprintf(ro->out, "named by source:");
		for (int s = 1; s < SYM_SRC__COUNT; s++)
			if (by_source[s])
				fprintf(ro->out, " %s %" PRIu64,
					sym_source_name((enum sym_source)s), by_source[s]);
		fputc('\n', ro->out);
	}
	if (unnamed) {
		fprintf(ro->out, "unnamed by reason:");
		for (int k = 1; k < SYM_MISS__COUNT + 3; k++)
			if (by_miss[k])
				fprintf(ro->out, " %s %" PRIu64, miss_word(k), by_miss[k]);
		fputc('\n', ro->out);
		fprintf(ro->out, "\nmodules with unnamed frames, by the profile samples they leave "
				 "unnamed:\n");
		for (size_t i = 0; i < nm; i++) {
			int tm = top_miss(&mods[i]);
			char pct[16];

			if (!mods[i].unnamed)
				continue;
			fmt_pct(pct, sizeof(pct),
				p->stacked
				    ? 100.0 * (double)mods[i].samples_unnamed / (double)p->stacked
				    : NAN);
			fprintf(ro->out,
				"  %s%s%s: %" PRIu64 " of %" PRIu64 " frames unnamed (%s), %" PRIu64
				" samples (%s)\n    fix: %s\n",
				mods[i].module, mods[i].build_id ? " build-id " : "",
				mods[i].build_id ? mods[i].build_id : "", mods[i].unnamed,
				mods[i].frames, tm >= 0 ? miss_word(tm) : "?",
				mods[i].samples_unnamed, pct,
				tm >= 0 ? module_hint(&mods[i], tm, &ro->run->debuginfod) : "");
		}
	}
	if (p->cut) {
		fmt_pct(pct, sizeof(pct),
			p->stacked ? 100.0 * (double)p->cut / (double)p->stacked : NAN);
		fprintf(ro->out,
			"\nstacks cut short: %" PRIu64 " of %" PRIu64 " samples (%s) end where the "
			"walk read a return address in no executable mapping (the frames after "
			"it are left out), by the module of the last frame kept:\n",
			p->cut, p->stacked, pct);
		for (size_t i = 0; i < nc; i++)
			fprintf(ro->out, "  %s: %" PRIu64 " samples\n    fix: %s\n", cm[i].module,
				cm[i].weight, stack_cut_fix(cm[i].module, fix, sizeof(fix)));
	}
	if (fflush(ro->out) || ferror(ro->out))
		ret = -EIO;
cleanup:
	free(mods);
	free(cm);
	profile__free(p);
	return ret;
}

int cmd_symbolize(int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"symbol-cache", required_argument, NULL, 'c'},
	    {"debuginfod", no_argument, NULL, 'd'},
	    {"debuginfod-urls", required_argument, NULL, 'u'},
	    {"format", required_argument, NULL, 'f'},
	    {"capture", required_argument, NULL, 'C'},
	    {"help", no_argument, NULL, 'h'},
	    {0},
	};
	struct symstore_opts so = {.retry_misses = true};
	struct symstore_run run = {0};
	enum out_format fmt = OUT_TEXT;
	const char *capture_opt = NULL;
	char cid[DB_CAPTURE_ID_LEN], err[512] = "";
	struct capture_meta m;
	sqlite3 *db = NULL;
	int c, rc;

	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		switch (c) {
		case 'c':
			so.cache_dir = optarg;
			break;
		case 'd':
			so.debuginfod = true;
			break;
		case 'u':
			so.debuginfod_urls = optarg;
			so.debuginfod = true;
			break;
		case 'f':
			if (out_format__parse(optarg, &fmt) || fmt == OUT_CSV)
				return analyze_usage(
				    "symbolize", "--format takes text or json, not '%s'", optarg);
			break;
		case 'C':
			capture_opt = optarg;
			break;
		case 'h':
			analyze_cmd_help("symbolize", stdout);
			return ANALYZE_EXIT_OK;
		case ':':
			return analyze_usage("symbolize", "%s needs a value", argv[optind - 1]);
		default:
			return analyze_usage("symbolize", "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (argc - optind != 1)
		return analyze_usage("symbolize", argc - optind < 1
						      ? "which FILE or DB?"
						      : "too many arguments: one FILE");
	rc = analyze_open_input("symbolize", argv[optind], capture_opt, &db, cid);
	if (rc)
		return rc;
	rc = capture_meta__load(db, cid, &m);
	if (!rc)
		rc = symstore__ensure(db, m.cap, &so, &run, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "ptop-analyze symbolize: %s\n", err[0] ? err : strerror(-rc));
		goto cleanup;
	}
	if (!run.stored)
		fprintf(stderr,
			"ptop-analyze symbolize: warning: %s is read-only: names are not "
			"stored (load the capture into a DB you can write: `ptop-analyze load "
			"FILE --db NEW.db`)\n",
			argv[optind]);
	{
		struct run_out ro = {.out = stdout, .fmt = fmt, .run = &run};

		rc = summarize(db, &m, &ro);
	}
	if (rc)
		fprintf(stderr, "ptop-analyze symbolize: %s\n", strerror(-rc));
cleanup:
	sqlite3_close(db);
	return analyze_exit_code(rc);
}
