/* view.c — the io collector's replay tab, "I/O" (`replay --tab io`): the interval at the
 * playback position (bytes and syscalls read and written, storage bytes, block I/O delay),
 * the history of bytes read and written as sparklines; with the per-file lane
 * (--io-files) the files read or written up to the position, by bytes, the top one
 * selected (Up/Down), Enter its intervals (sparklines and a row per interval), Esc back;
 * and its line in the Overview. It reads io_sample and io_file from the model's DB, seeks
 * on their indexes, with statements prepared once when the model opens (io_replay).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <string.h>

#include "analyze/replay_views.h"
#include "collectors/io/report.h"

/* the view's statements (below), prepared once when the replay model opens (io_replay) */
enum { IO_AT, IO_FILES, IO_SERIES, IO_PATH, IO_NSQL };

struct io_view_state {
	sqlite3_stmt *st[IO_NSQL];
	int64_t *ends; /* io_sample's interval ends, for the arrows */
	size_t nends;
};

/* statement I, reset for a run (?1, the capture, stays bound); NULL when it did not prepare */
static sqlite3_stmt *io_st(const struct replay_model *m, int i)
{
	return rm_again(((struct io_view_state *)replay_model__state(m, "io"))->st[i]);
}

/* One row per interval (a --cgroup capture's processes summed). */
static const char at_sql[] =
    "SELECT time_ns, max(interval_ns), sum(rchar), sum(wchar), sum(syscr), sum(syscw), "
    "sum(read_bytes), sum(write_bytes), sum(cancelled_write_bytes), "
    "CASE WHEN count(iowait_ns) = count(*) THEN sum(iowait_ns) END FROM io_sample WHERE cap = ?1 AND time_ns <= ?2 "
    "GROUP BY time_ns ORDER BY time_ns DESC LIMIT ?3";

struct io_at {
	int64_t t, interval;
	int64_t v[7];
	int64_t iowait;	 /* -1: not measured */
	double *rd, *wr; /* rchar and wchar, the oldest first */
	size_t n;
	double max_rd, max_wr;
};

static void io_at__free(struct io_at *a)
{
	free(a->rd);
	free(a->wr);
}

static int io_at(struct replay_model *m, size_t n, struct io_at *a)
{
	sqlite3_stmt *st = NULL;
	int rc, err = 0;

	*a = (struct io_at){.iowait = -1};
	if (n < 1)
		n = 1;
	a->rd = calloc(n, sizeof(double));
	a->wr = calloc(n, sizeof(double));
	if (!a->rd || !a->wr) {
		io_at__free(a);
		return -ENOMEM;
	}
	if (!(st = io_st(m, IO_AT))) {
		io_at__free(a);
		return -EIO;
	}
	sqlite3_bind_int64(st, 2, m->meta.base_ns + m->pos_ns);
	sqlite3_bind_int64(st, 3, (int64_t)n);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		double rd = (double)sqlite3_column_int64(st, 2);
		double wr = (double)sqlite3_column_int64(st, 3);

		if (!a->n) {
			a->t = sqlite3_column_int64(st, 0) - m->meta.base_ns;
			a->interval = sqlite3_column_int64(st, 1);
			for (int i = 0; i < 7; i++)
				a->v[i] = sqlite3_column_int64(st, 2 + i);
			if (sqlite3_column_type(st, 9) != SQLITE_NULL)
				a->iowait = sqlite3_column_int64(st, 9);
		}
		a->rd[a->n] = rd;
		a->wr[a->n] = wr;
		a->max_rd = rd > a->max_rd ? rd : a->max_rd;
		a->max_wr = wr > a->max_wr ? wr : a->max_wr;
		a->n++;
	}
	if (rc != SQLITE_DONE)
		err = -EIO;
	rm_again(st);
	for (size_t i = 0; i < a->n / 2; i++) { /* oldest first */
		double x = a->rd[i], y = a->wr[i];

		a->rd[i] = a->rd[a->n - 1 - i];
		a->rd[a->n - 1 - i] = x;
		a->wr[i] = a->wr[a->n - 1 - i];
		a->wr[a->n - 1 - i] = y;
	}
	if (err)
		io_at__free(a);
	return err;
}

/* The files up to the position, by bytes so far: path, file, bytes so far read and
 * written, this interval's (?3: its end), ops, fsyncs, time in the calls, max. */
static const char files_sql[] =
    "SELECT (SELECT path FROM io_file p WHERE p.cap = f.cap AND p.file = f.file AND "
    "p.path IS NOT NULL AND p.time_ns <= ?2 ORDER BY p.time_ns DESC LIMIT 1), file, "
    "sum(CASE WHEN " READ_OPS " THEN bytes ELSE 0 END) AS rd, "
    "sum(CASE WHEN " WRITE_OPS " THEN bytes ELSE 0 END) AS wr, "
    "sum(CASE WHEN time_ns = ?3 THEN bytes ELSE 0 END), sum(calls) AS ops, "
    "sum(CASE WHEN " FSYNC_OPS " THEN calls ELSE 0 END), sum(call_ns), "
    "max(max_ns), count(*) OVER () FROM io_file f WHERE cap = ?1 AND time_ns <= ?2 "
    "GROUP BY file ORDER BY rd + wr DESC, ops DESC, file LIMIT ?4 OFFSET ?5";

/* One file's intervals (every io_sample interval: the file's bytes there or 0), newest
 * first: end, read, written, calls, time in the calls, max, fsyncs. */
static const char series_sql[] =
    "SELECT s.time_ns, coalesce(sum(CASE WHEN " READ_OPS " THEN f.bytes END), 0), "
    "coalesce(sum(CASE WHEN " WRITE_OPS " THEN f.bytes END), 0), coalesce(sum(f.calls), 0), "
    "sum(f.call_ns), max(f.max_ns), coalesce(sum(CASE WHEN " FSYNC_OPS " THEN f.calls END), 0) "
    "FROM (SELECT DISTINCT cap, time_ns FROM io_sample) s LEFT JOIN io_file f ON f.cap = s.cap AND f.time_ns = s.time_ns AND "
    "f.file = ?2 WHERE s.cap = ?1 AND s.time_ns <= ?3 GROUP BY s.time_ns "
    "ORDER BY s.time_ns DESC LIMIT ?4";

static const char path_sql[] =
    "SELECT path, type FROM io_file WHERE cap = ?1 AND file = ?2 AND time_ns <= ?3 "
    "ORDER BY path IS NULL, time_ns DESC LIMIT 1";

static const char *const io_sql[IO_NSQL] = {
    [IO_AT] = at_sql,
    [IO_FILES] = files_sql,
    [IO_SERIES] = series_sql,
    [IO_PATH] = path_sql,
};

static int io_open(struct replay_model *m, void *state)
{
	struct io_view_state *s = state;

	replay_model__prepare_each(m, io_sql, IO_NSQL, s->st);
	return replay_model__times(m,
				   "SELECT DISTINCT time_ns - ?2 FROM io_sample WHERE cap = ?1 "
				   "ORDER BY 1",
				   &s->ends, &s->nends);
}

static void io_free(void *state)
{
	struct io_view_state *s = state;

	rm_finalize_each(s->st, IO_NSQL);
	free(s->ends);
}

static struct rm_times io_ends(const void *state)
{
	const struct io_view_state *s = state;

	return rm_times__of(s->ends, s->nends);
}

/* the view's statements live in the model, prepared once when it opens; io_sample's interval
 * ends step the arrows */
/* the timeline's file-system events (io_event, --io-events): each open denied, file created,
 * deleted, renamed or truncated, at the syscall's exit; a denied open is a warning */
static int io_events(struct replay_model *m, const void *state)
{
	static const char sql[] =
	    "SELECT time_ns - ?2, kind = 'denied', 'file ' || kind, pid, "
	    "printf('%s %s%s%s', syscall, path, "
	    "CASE WHEN new_path IS NULL THEN '' ELSE ' -> ' || new_path END, "
	    "CASE WHEN error IS NULL THEN '' ELSE printf(' (errno %d)', error) END) "
	    "FROM io_event WHERE cap = ?1 ORDER BY time_ns, rowid";

	(void)state;
	return replay_model__events_sql(m, sql);
}

const struct replay_series io_replay = {
    .what = "io samples",
    .state_size = sizeof(struct io_view_state),
    .open = io_open,
    .free = io_free,
    .ends = io_ends,
    .events = io_events,
};

static const char *ns_or_dash(char *buf, size_t len, sqlite3_stmt *st, int col)
{
	int64_t v;

	if (sqlite3_column_type(st, col) == SQLITE_NULL)
		return "-";
	v = sqlite3_column_int64(st, col);
	if (v >= 1000000)
		snprintf(buf, len, "%.1f ms", (double)v / 1e6);
	else if (v >= 1000)
		snprintf(buf, len, "%.1f us", (double)v / 1e3);
	else
		snprintf(buf, len, "%lld ns", (long long)v);
	return buf;
}

/* The file drilled into (ui->drill: its identity), its intervals up to the position. */
static void draw_file(struct replay_model *m, struct replay_ui *ui, struct grid *g, int x,
		      int y, int w, int h)
{
	int64_t pos = m->meta.base_ns + m->pos_ns;
	size_t cap = (size_t)(w > 12 ? w - 12 : 1), n = 0;
	double *rd = calloc(cap, sizeof(double)), *wr = calloc(cap, sizeof(double)), max = 0;
	char b[4][32], at[32];
	sqlite3_stmt *st = NULL;
	int row = y, bottom = y + h;
	int64_t tot_r = 0, tot_w = 0, calls = 0, fsyncs = 0;

	if (!rd || !wr || !(st = io_st(m, IO_PATH))) {
		grid__text(g, x, row, w, "io: cannot read io_file", 0, GC_WARN);
		goto out;
	}
	sqlite3_bind_text(st, 2, ui->drill, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 3, pos);
	if (sqlite3_step(st) != SQLITE_ROW) {
		grid__textf(g, x, row, w, 0, GC_MUTED,
			    "file %s: not read or written by this position (Esc: back)", ui->drill);
		goto out;
	}
	grid__textf(g, x, row++, w, GA_BOLD, GC_DEFAULT, "file %s  %s  %s  (Esc: back)",
		    sqlite3_column_type(st, 0) == SQLITE_NULL
			? "(path not known)"
			: (const char *)sqlite3_column_text(st, 0),
		    (const char *)sqlite3_column_text(st, 1), ui->drill);
	rm_again(st);
	st = NULL;
	if (!(st = io_st(m, IO_SERIES)))
		goto out;
	sqlite3_bind_text(st, 2, ui->drill, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 3, pos);
	sqlite3_bind_int64(st, 4, (int64_t)cap);
	while (sqlite3_step(st) == SQLITE_ROW) {
		rd[n] = (double)sqlite3_column_int64(st, 1);
		wr[n] = (double)sqlite3_column_int64(st, 2);
		max = rd[n] > max ? rd[n] : max;
		max = wr[n] > max ? wr[n] : max;
		tot_r += sqlite3_column_int64(st, 1);
		tot_w += sqlite3_column_int64(st, 2);
		calls += sqlite3_column_int64(st, 3);
		fsyncs += sqlite3_column_int64(st, 6);
		n++;
	}
	rm_again(st);
	st = NULL;
	for (size_t i = 0; i < n / 2; i++) { /* oldest first */
		double t = rd[i];

		rd[i] = rd[n - 1 - i];
		rd[n - 1 - i] = t;
		t = wr[i];
		wr[i] = wr[n - 1 - i];
		wr[n - 1 - i] = t;
	}
	grid__textf(g, x, row++, w, 0, GC_DEFAULT,
		    "so far (the intervals shown): read %s, written %s, %lld calls, %lld fsyncs",
		    replay__bytes(b[0], sizeof(b[0]), tot_r),
		    replay__bytes(b[1], sizeof(b[1]), tot_w), (long long)calls,
		    (long long)fsyncs);
	grid__text(g, x, row, 10, "read", 0, GC_MUTED);
	grid__sparkline(g, x + 10, row++, w - 12, rd, n, max, GC_GOOD);
	grid__text(g, x, row, 10, "written", 0, GC_MUTED);
	grid__sparkline(g, x + 10, row++, w - 12, wr, n, max, GC_GOOD);
	row++;
	grid__textf(g, x, row++, w, GA_BOLD, GC_TITLE, "%-12s %10s %10s %8s %10s %10s %6s",
		    "interval end", "read", "written", "calls", "in call", "max", "fsyncs");
	if (!(st = io_st(m, IO_SERIES)))
		goto out;
	sqlite3_bind_text(st, 2, ui->drill, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 3, pos);
	sqlite3_bind_int64(st, 4, bottom - row > 0 ? bottom - row : 0);
	while (row < bottom && sqlite3_step(st) == SQLITE_ROW)
		grid__textf(
		    g, x, row++, w, 0, GC_DEFAULT, "%-12s %10s %10s %8lld %10s %10s %6lld",
		    replay__fmt_pos(at, sizeof(at), sqlite3_column_int64(st, 0) - m->meta.base_ns),
		    replay__bytes(b[0], sizeof(b[0]), sqlite3_column_int64(st, 1)),
		    replay__bytes(b[1], sizeof(b[1]), sqlite3_column_int64(st, 2)),
		    (long long)sqlite3_column_int64(st, 3), ns_or_dash(b[2], sizeof(b[2]), st, 4),
		    ns_or_dash(b[3], sizeof(b[3]), st, 5), (long long)sqlite3_column_int64(st, 6));
out:
	rm_again(st);
	free(rd);
	free(wr);
}

/* Whether the per-file lane ran (the probe's detail), else why into WHY. */
static bool files_on(struct replay_model *m, char *why, size_t len)
{
	bool yes = false;

	if (io_files__collected(m->db, &m->meta, &yes, why, len))
		snprintf(why, len, "cannot read the probe set");
	return yes;
}

/* The files up to the position, by bytes, from ROW; the top one selected. */
static void draw_files(struct replay_model *m, struct replay_ui *ui, struct grid *g, int x,
		       int row, int w, int bottom, int64_t interval_end)
{
	char b[6][32];
	sqlite3_stmt *st = NULL;
	int64_t total = -1;

	grid__text(g, x, row++, w,
		   "files read or written so far, by bytes: Up/Down select, Enter its intervals",
		   0, GC_MUTED);
	grid__textf(g, x, row++, w, GA_BOLD, GC_TITLE, "%-40s %10s %10s %10s %8s %6s %10s %10s",
		    "path", "read", "written", "interval", "calls", "fsyncs", "in call", "max");
	if (!(st = io_st(m, IO_FILES))) {
		grid__text(g, x, row, w, "io: cannot read io_file", 0, GC_WARN);
		return;
	}
	if (ui->scroll < 0)
		ui->scroll = 0;
	sqlite3_bind_int64(st, 2, m->meta.base_ns + m->pos_ns);
	sqlite3_bind_int64(st, 3, interval_end);
	sqlite3_bind_int64(st, 4, bottom - row > 0 ? bottom - row : 0);
	sqlite3_bind_int64(st, 5, ui->scroll);
	ui->selected[0] = 0;
	while (row < bottom && sqlite3_step(st) == SQLITE_ROW) {
		const char *path = (const char *)sqlite3_column_text(st, 0);
		uint8_t attr = 0;
		size_t len = path ? strlen(path) : 0;
		char cut[48];

		/* a path longer than its column keeps its end, marked as cut: "/usr/lib/x" cut
		 * to "/lib/x" would read as another file */
		if (len > 40)
			snprintf(cut, sizeof(cut), "...%s", path + len - 37);

		total = sqlite3_column_int64(st, 9);
		if (!ui->selected[0]) { /* the top row: Enter shows its intervals */
			snprintf(ui->selected, sizeof(ui->selected), "%s",
				 (const char *)sqlite3_column_text(st, 1));
			attr = GA_REVERSE;
		}
		grid__textf(g, x, row++, w, attr, GC_DEFAULT,
			    "%-40.40s %10s %10s %10s %8lld %6lld %10s %10s",
			    !path ? "(path not known)" : len > 40 ? cut : path,
			    replay__bytes(b[0], sizeof(b[0]), sqlite3_column_int64(st, 2)),
			    replay__bytes(b[1], sizeof(b[1]), sqlite3_column_int64(st, 3)),
			    replay__bytes(b[2], sizeof(b[2]), sqlite3_column_int64(st, 4)),
			    (long long)sqlite3_column_int64(st, 5),
			    (long long)sqlite3_column_int64(st, 6),
			    ns_or_dash(b[3], sizeof(b[3]), st, 7), ns_or_dash(b[4], sizeof(b[4]), st, 8));
	}
	rm_again(st);
	if (total < 0 && ui->scroll > 0)
		ui->scroll--; /* scrolled past the last: back one on the next frame */
	if (total < 0 && row < bottom && !ui->scroll)
		grid__text(g, x, row, w, "no file read or written by this position", 0, GC_MUTED);
}

static void draw_io(struct replay_model *m, struct replay_ui *ui, struct grid *g, int x, int y,
		    int w, int h)
{
	char buf[256], pos[32], b[4][32];
	struct io_at a;
	int row = y;

	bool files;
	char why[512];

	grid__text(g, x, row++, w, "I/O per interval  [/proc/PID/io, /proc/PID/stat; eBPF per file]",
		   GA_BOLD | GA_UNDERLINE, GC_TITLE);
	row++;
	if (replay__not_collected(m, "io", buf, sizeof(buf))) {
		replay__wrapped(g, x, row, w, h - 2, buf, 0, GC_MUTED);
		return;
	}
	files = files_on(m, why, sizeof(why));
	if (files && *ui->drill) {
		draw_file(m, ui, g, x, row, w, y + h - row);
		return;
	}
	if (io_at(m, (size_t)(w > 2 ? 2 * (w - 2) : 1), &a)) {
		grid__text(g, x, row, w, "io: cannot read io_sample", 0, GC_WARN);
		return;
	}
	if (!a.n) {
		grid__text(g, x, row, w, "no io sample yet", 0, GC_MUTED);
		io_at__free(&a);
		return;
	}
	grid__textf(g, x, row++, w, GA_BOLD, GC_DEFAULT, "read     %10s in %" PRId64 " syscalls",
		    replay__bytes(b[0], sizeof(b[0]), a.v[0]), a.v[2]);
	grid__textf(g, x, row++, w, GA_BOLD, GC_DEFAULT, "written  %10s in %" PRId64 " syscalls",
		    replay__bytes(b[1], sizeof(b[1]), a.v[1]), a.v[3]);
	grid__textf(g, x, row++, w, 0, GC_DEFAULT, "storage  read %s, written %s, cancelled %s",
		    replay__bytes(b[0], sizeof(b[0]), a.v[4]),
		    replay__bytes(b[1], sizeof(b[1]), a.v[5]),
		    replay__bytes(b[2], sizeof(b[2]), a.v[6]));
	if (a.iowait >= 0)
		grid__textf(g, x, row++, w, 0, GC_DEFAULT, "block I/O delay  %.3f s",
			    (double)a.iowait / 1e9);
	else
		grid__text(g, x, row++, w,
			   "block I/O delay  not measured (kernel.task_delayacct 0)", 0, GC_MUTED);
	grid__textf(g, x, row++, w, 0, GC_MUTED, "interval ending at %s",
		    replay__fmt_pos(pos, sizeof(pos), a.t));
	if (!files) {
		char line[600];

		snprintf(line, sizeof(line), "per file: not collected (%s)", why);
		row += replay__wrapped(g, x, row, w, 2, line, 0, GC_MUTED);
	}
	row++;
	if (row < y + h) {
		grid__text(g, x, row, 10, "read", 0, GC_MUTED);
		grid__sparkline(g, x + 10, row++, w - 12, a.rd, a.n, a.max_rd, GC_GOOD);
	}
	if (row < y + h) {
		grid__text(g, x, row, 10, "written", 0, GC_MUTED);
		grid__sparkline(g, x + 10, row++, w - 12, a.wr, a.n, a.max_wr, GC_GOOD);
	}
	row++;
	if (files && row < y + h)
		draw_files(m, ui, g, x, row, w, y + h, a.t + m->meta.base_ns);
	io_at__free(&a);
}

static int io_overview_line(struct replay_model *m, char *buf, size_t len)
{
	char b[2][32];
	struct io_at a;

	if (io_at(m, 1, &a)) {
		snprintf(buf, len, "cannot read io_sample");
		return GC_WARN;
	}
	if (!a.n)
		snprintf(buf, len, "no sample yet");
	else
		snprintf(buf, len, "read %s, written %s this interval",
			 replay__bytes(b[0], sizeof(b[0]), a.v[0]),
			 replay__bytes(b[1], sizeof(b[1]), a.v[1]));
	io_at__free(&a);
	return GC_DEFAULT;
}

static const struct replay_view io_view = {
    .name = "I/O",
    .id = "io",
    .position = 50,
    .probe = "io",
    .source = "io_sample (/proc/PID/io, /proc/PID/stat field 42), io_file (eBPF, --io-files)",
    .draw = draw_io,
    .on_key = replay__drill_key, /* Enter: the selected file's intervals; Esc: back */
    .overview_line = io_overview_line,
};

const struct replay_view *const io_views[] = {
    &io_view,
    NULL,
};
