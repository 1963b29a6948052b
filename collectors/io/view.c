/* view.c — the io collector's replay tab, "I/O" (`replay --tab io`): the interval at the
 * playback position (bytes and syscalls read and written, storage bytes, block I/O delay),
 * the history of bytes read and written as sparklines; and its line in the Overview. It
 * reads io_sample from the model's DB, a seek on its index (io_sample_time).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "analyze/replay_views.h"

static const char at_sql[] =
    "SELECT time_ns, interval_ns, rchar, wchar, syscr, syscw, read_bytes, write_bytes, "
    "cancelled_write_bytes, iowait_ns FROM io_sample WHERE cap = ?1 AND time_ns <= ?2 "
    "ORDER BY time_ns DESC LIMIT ?3";

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
	if (sqlite3_prepare_v2(m->db, at_sql, -1, &st, NULL) != SQLITE_OK) {
		io_at__free(a);
		return -EIO;
	}
	sqlite3_bind_int64(st, 1, m->meta.cap);
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
	sqlite3_finalize(st);
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

static void draw_io(struct replay_model *m, struct replay_ui *ui, struct grid *g, int x, int y,
		    int w, int h)
{
	char buf[256], pos[32], b[4][32];
	struct io_at a;
	int row = y;

	(void)ui;
	grid__text(g, x, row++, w, "I/O per interval  [/proc/PID/io, /proc/PID/stat]",
		   GA_BOLD | GA_UNDERLINE, GC_TITLE);
	row++;
	if (replay__not_collected(m, "io", buf, sizeof(buf))) {
		replay__wrapped(g, x, row, w, h - 2, buf, 0, GC_MUTED);
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
	grid__text(g, x, row++, w, "per file: not collected (no eBPF lane for it yet)", 0,
		   GC_MUTED);
	row++;
	if (row < y + h) {
		grid__text(g, x, row++, w, "read", 0, GC_MUTED);
		grid__sparkline(g, x, row++, w - 2, a.rd, a.n, a.max_rd, GC_GOOD);
	}
	if (row < y + h) {
		grid__text(g, x, row++, w, "written", 0, GC_MUTED);
		if (row < y + h)
			grid__sparkline(g, x, row++, w - 2, a.wr, a.n, a.max_wr, GC_GOOD);
	}
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
    .source = "io_sample (/proc/PID/io, /proc/PID/stat field 42, the io collector)",
    .draw = draw_io,
    .overview_line = io_overview_line,
};

const struct replay_view *const io_views[] = {
    &io_view,
    NULL,
};
