/* view.c — the threads collector's replay view: the Threads tab (`replay --tab threads`)
 * when its probe ran (analyze/replay_views.h): the target's threads in the interval that
 * ended last by the playback position, by on-CPU time, with their time off CPU by reason,
 * switches, CPU, /proc state and wchan; and the latest threads created, exited and
 * renamed. Read from the model's DB (m->db), a seek on thread_interval's time index.
 * Thin glue: the figures are thread_interval's rows as report.c reads them.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/output.h"
#include "analyze/replay_views.h"

/* the rows of the newest interval ending at or before ?2 */
static const char rows_sql[] =
	"SELECT tid, comm, oncpu_ns, off_runnable_ns, off_sleep_ns, off_blocked_ns, voluntary, "
	"involuntary, cpu, state, wchan, interval_ns, time_ns FROM thread_interval WHERE cap = ?1 "
	"AND time_ns = (SELECT MAX(time_ns) FROM thread_interval WHERE cap = ?1 AND time_ns <= ?2) "
	"ORDER BY COALESCE(oncpu_ns, proc_cpu_ns, 0) DESC, tid";
static const char events_sql[] =
	"SELECT time_ns, type, tid, comm FROM thread_event WHERE cap = ?1 AND time_ns <= ?2 "
	"ORDER BY time_ns DESC, rowid DESC LIMIT ?3";

static sqlite3_stmt *prep(struct replay_model *m, const char *sql)
{
	sqlite3_stmt *st = NULL;

	if (sqlite3_prepare_v2(m->db, sql, -1, &st, NULL) != SQLITE_OK)
		return NULL;
	sqlite3_bind_int64(st, 1, m->meta.cap);
	sqlite3_bind_int64(st, 2, m->meta.base_ns + m->pos_ns);
	return st;
}

/* "12.3" ms of NS, or "-" when not measured (NULL) */
static const char *ms(sqlite3_stmt *st, int col, char *buf, size_t len)
{
	if (sqlite3_column_type(st, col) == SQLITE_NULL)
		return "-";
	snprintf(buf, len, "%.1f", (double)sqlite3_column_int64(st, col) / 1e6);
	return buf;
}

static const char *text(sqlite3_stmt *st, int col)
{
	const unsigned char *s = sqlite3_column_text(st, col);

	return s ? (const char *)s : "-";
}

static void draw_threads(struct replay_model *m, struct replay_ui *ui, struct grid *g, int x, int y,
			 int w, int h)
{
	char buf[256], a[16], b[16], c[16], pos[32], pct[16];
	sqlite3_stmt *st;
	int row = y, n = 0, rc;

	(void)ui;
	grid__text(g, x, row++, w, "Threads  [sched_switch: on/off CPU by reason; /proc: state, wchan]",
		   GA_BOLD | GA_UNDERLINE, GC_TITLE);
	if (replay__not_collected(m, "threads", buf, sizeof(buf))) {
		replay__wrapped(g, x, row, w, h - 1, buf, 0, GC_MUTED);
		return;
	}
	st = prep(m, rows_sql);
	if (!st) {
		grid__text(g, x, row, w, "threads: cannot read thread_interval", 0, GC_WARN);
		return;
	}
	grid__textf(g, x, row + 1, w, GA_BOLD, GC_DEFAULT, "%7s %-15s %6s %9s %9s %9s %6s %6s %3s %2s %s",
		    "tid", "comm", "cpu%", "run ms", "sleep ms", "block ms", "vol", "invol", "cpu",
		    "st", "wchan");
	while ((rc = sqlite3_step(st)) == SQLITE_ROW && row + 2 + n < y + h - 4) {
		int64_t iv = sqlite3_column_type(st, 11) == SQLITE_NULL ? 0 : sqlite3_column_int64(st, 11);

		if (!n)
			grid__textf(g, x, row, w, 0, GC_MUTED, "interval ending at %s",
				    replay__fmt_pos(pos, sizeof(pos),
						    sqlite3_column_int64(st, 12) - m->meta.base_ns));
		if (sqlite3_column_type(st, 2) != SQLITE_NULL && iv > 0)
			snprintf(pct, sizeof(pct), "%.1f",
				 (double)sqlite3_column_int64(st, 2) * 100 / (double)iv);
		else
			snprintf(pct, sizeof(pct), "-");
		grid__textf(g, x, row + 2 + n, w, 0, GC_DEFAULT,
			    "%7lld %-15.15s %6s %9s %9s %9s %6s %6s %3s %2s %s",
			    (long long)sqlite3_column_int64(st, 0), text(st, 1), pct, ms(st, 3, a, sizeof(a)),
			    ms(st, 4, b, sizeof(b)), ms(st, 5, c, sizeof(c)), text(st, 6), text(st, 7),
			    text(st, 8), text(st, 9), text(st, 10));
		n++;
	}
	sqlite3_finalize(st);
	if (!n) {
		grid__text(g, x, row, w, "no thread interval yet", 0, GC_MUTED);
		return;
	}
	row += 3 + n;
	st = prep(m, events_sql);
	if (!st)
		return;
	sqlite3_bind_int64(st, 3, 3);
	grid__text(g, x, row++, w, "latest thread events", GA_BOLD, GC_TITLE);
	while (sqlite3_step(st) == SQLITE_ROW && row < y + h)
		grid__textf(g, x, row++, w, 0, GC_DEFAULT, "%s  %-6s %7lld %s",
			    replay__fmt_pos(pos, sizeof(pos),
					    sqlite3_column_int64(st, 0) - m->meta.base_ns),
			    text(st, 1), (long long)sqlite3_column_int64(st, 2), text(st, 3));
	sqlite3_finalize(st);
}

/* Its line at the bottom of the Overview: "N threads, the busiest COMM (X ms on CPU)" */
static int threads_line(struct replay_model *m, char *buf, size_t len)
{
	sqlite3_stmt *st = prep(m, rows_sql);
	char top[64] = "";
	int64_t on = -1;
	int n = 0;

	if (!st) {
		snprintf(buf, len, "cannot read thread_interval");
		return GC_WARN;
	}
	while (sqlite3_step(st) == SQLITE_ROW) {
		if (!n++) {
			snprintf(top, sizeof(top), "%s", text(st, 1));
			on = sqlite3_column_type(st, 2) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 2);
		}
	}
	sqlite3_finalize(st);
	if (!n)
		snprintf(buf, len, "no thread interval yet");
	else if (on >= 0)
		snprintf(buf, len, "%d threads, busiest %s (%.1f ms on CPU)", n, top, (double)on / 1e6);
	else
		snprintf(buf, len, "%d threads", n);
	return GC_DEFAULT;
}

static const struct replay_view threads_view = {
	.name = "Threads",
	.id = "threads", /* the cpu collector's thread count gives way when this probe ran */
	.position = 40,
	.probe = "threads",
	.source = "thread_interval, thread_event (the threads collector: sched_switch, /proc/PID/task)",
	.draw = draw_threads,
	.overview_line = threads_line,
};

const struct replay_view *const threads_views[] = { &threads_view, NULL };
