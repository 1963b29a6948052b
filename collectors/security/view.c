/* view.c — the security collector's replay tab, "Security" (`replay --tab security`): the
 * memory made executable by the playback position, newest first (time, call, protection,
 * W^X, backing), the ptrace attaches and set-user-ID execs by then; and its line at the
 * bottom of the Overview (struct replay_view, analyze/replay_views.h).
 *
 * Thin glue over the DB the replay model has open (m->db), as the toy's view: the events
 * ending at or before the position, a seek on sec_exec_mem_time (schema.sql). The names
 * of the callers are `report security`'s (symbolizing is not done while playing).
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>

#include "analyze/replay_views.h"

static const char rows_sql[] =
    "SELECT time_ns, call, prot, wx, coalesce(backing, '(not read)'), ok FROM sec_exec_mem "
    "WHERE cap = ?1 AND time_ns <= ?2 ORDER BY time_ns DESC, rowid DESC LIMIT ?3";
static const char counts_sql[] =
    "SELECT count(*), coalesce(sum(wx), 0), "
    "(SELECT count(*) FROM sec_ptrace WHERE cap = ?1 AND time_ns <= ?2), "
    "(SELECT count(*) FROM sec_setid_exec WHERE cap = ?1 AND time_ns <= ?2) "
    "FROM sec_exec_mem WHERE cap = ?1 AND time_ns <= ?2 AND ok";

struct sec_counts {
	int64_t exec, wx, ptrace, setid;
};

/* The counts by the position into *C. 0 or -1 (the DB could not be read). */
static int counts_at(struct replay_model *m, struct sec_counts *c)
{
	sqlite3_stmt *st = NULL;
	int rc;

	if (sqlite3_prepare_v2(m->db, counts_sql, -1, &st, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_int64(st, 1, m->meta.cap);
	sqlite3_bind_int64(st, 2, m->meta.base_ns + m->pos_ns);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*c = (struct sec_counts){sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1),
					 sqlite3_column_int64(st, 2), sqlite3_column_int64(st, 3)};
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 0 : -1;
}

static void draw_security(struct replay_model *m, struct replay_ui *ui, struct grid *g, int x,
			  int y, int w, int h)
{
	char buf[512], pos[32];
	struct sec_counts c;
	sqlite3_stmt *st = NULL;
	int row = y;

	(void)ui;
	grid__text(g, x, row++, w, "Memory made executable  [mmap/mprotect PROT_EXEC, eBPF]",
		   GA_BOLD | GA_UNDERLINE, GC_TITLE);
	row++;
	if (replay__not_collected(m, "security", buf, sizeof(buf))) {
		replay__wrapped(g, x, row, w, h - 2, buf, 0, GC_MUTED);
		return;
	}
	if (counts_at(m, &c) ||
	    sqlite3_prepare_v2(m->db, rows_sql, -1, &st, NULL) != SQLITE_OK) {
		grid__text(g, x, row, w, "security: cannot read sec_exec_mem", 0, GC_WARN);
		return;
	}
	grid__textf(g, x, row++, w, GA_BOLD, c.wx ? GC_WARN : GC_DEFAULT,
		    "%" PRId64 " executable mappings, %" PRId64 " W^X; %" PRId64
		    " ptrace attaches; %" PRId64 " set-user-ID execs (by the position)",
		    c.exec, c.wx, c.ptrace, c.setid);
	row++;
	sqlite3_bind_int64(st, 1, m->meta.cap);
	sqlite3_bind_int64(st, 2, m->meta.base_ns + m->pos_ns);
	sqlite3_bind_int64(st, 3, h > row - y + 1 ? h - (row - y) : 1);
	while (row < y + h && sqlite3_step(st) == SQLITE_ROW) {
		int64_t prot = sqlite3_column_int64(st, 2);

		grid__textf(g, x, row++, w, 0,
			    sqlite3_column_int64(st, 3) ? GC_WARN : GC_DEFAULT,
			    "%10s  %-8s %c%c%c %-3s %s%s",
			    replay__fmt_pos(pos, sizeof(pos),
					    sqlite3_column_int64(st, 0) - m->meta.base_ns),
			    (const char *)sqlite3_column_text(st, 1), prot & 1 ? 'r' : '-',
			    prot & 2 ? 'w' : '-', prot & 4 ? 'x' : '-',
			    sqlite3_column_int64(st, 3) ? "W^X" : "",
			    (const char *)sqlite3_column_text(st, 4),
			    sqlite3_column_int64(st, 5) ? "" : "  (refused)");
	}
	sqlite3_finalize(st);
}

/* Its line at the bottom of the Overview: "N executable mappings, K W^X" */
static int security_overview_line(struct replay_model *m, char *buf, size_t len)
{
	struct sec_counts c;

	if (counts_at(m, &c)) {
		snprintf(buf, len, "cannot read sec_exec_mem");
		return GC_WARN;
	}
	snprintf(buf, len, "%" PRId64 " executable mappings, %" PRId64 " W^X", c.exec, c.wx);
	return c.wx ? GC_WARN : GC_DEFAULT;
}

static const struct replay_view security_view = {
    .name = "Security",
    .id = "security",
    .position = 92, /* after Heap (90), before the toy (95, tests/toy: the last) */
    .probe = "security",
    .source = "sec_exec_mem, sec_ptrace, sec_setid_exec (eBPF: mmap/mprotect with PROT_EXEC)",
    .draw = draw_security,
    .overview_line = security_overview_line,
};

const struct replay_view *const security_views[] = {
    &security_view,
    NULL,
};
