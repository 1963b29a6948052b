/* view.c — the fds collector's replay tab, "FDs" (`replay --tab fds`): the fd table by type
 * at the playback position, each type's change since the first sample, the total's history
 * as a sparkline; Up/Down select the total or a type, Enter shows its per-interval series
 * (a sparkline of the count and a row per interval, with the eBPF lane's opens and closes
 * for the total under --fd-stacks), Esc goes back. And its line in the Overview. It reads
 * fd_sample from the model's DB, a seek on its index (fd_sample_time), the newest first.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/replay_views.h"

#define NTYPES 9

/* the view's statements (below), prepared once when the replay model opens (fds_replay) */
enum { FDS_AT, FDS_FIRST, FDS_NSQL };

struct fds_view_state {
	sqlite3_stmt *st[FDS_NSQL];
	sqlite3_stmt *series[NTYPES + 1]; /* series_sql of the total, then of each type */
	int64_t *ends;			  /* fd_sample's interval ends, for the arrows */
	size_t nends;
};

/* statement I, reset for a run (?1, the capture, stays bound); NULL when it did not prepare */
static sqlite3_stmt *fds_st(const struct replay_model *m, int i)
{
	return rm_again(((struct fds_view_state *)replay_model__state(m, "fds"))->st[i]);
}

static const char *const type_name[NTYPES] = {
    "file", "socket", "pipe", "eventfd", "epoll", "timerfd", "signalfd", "anon_inode", "other"};

static const char at_sql[] =
    "SELECT time_ns, total, file, socket, pipe, eventfd, epoll, timerfd, signalfd, "
    "anon_inode, other FROM fd_sample WHERE cap = ?1 AND time_ns <= ?2 "
    "ORDER BY time_ns DESC LIMIT ?3";
static const char first_sql[] =
    "SELECT total, file, socket, pipe, eventfd, epoll, timerfd, signalfd, anon_inode, other "
    "FROM fd_sample WHERE cap = ?1 ORDER BY time_ns LIMIT 1";

struct fds_at {
	int64_t t;		   /* the newest sample's time, relative to the start */
	int64_t v[NTYPES + 1];	   /* its total and types */
	int64_t first[NTYPES + 1]; /* the capture's first sample's */
	int64_t prev_total;	   /* the sample before it (-1: none) */
	double *hist;		   /* totals, the oldest first (NULL: not asked) */
	size_t n;
	double max;
};

static int fds_at(struct replay_model *m, size_t n, struct fds_at *a)
{
	sqlite3_stmt *st = NULL;
	double *newest_first = NULL;
	int rc, err = 0, i;

	*a = (struct fds_at){.prev_total = -1};
	if (n < 2)
		n = 2;
	if (!(newest_first = calloc(n, sizeof(double))))
		return -ENOMEM;
	if (!(st = fds_st(m, FDS_AT))) {
		free(newest_first);
		return -EIO;
	}
	sqlite3_bind_int64(st, 2, m->meta.base_ns + m->pos_ns);
	sqlite3_bind_int64(st, 3, (int64_t)n);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t total = sqlite3_column_int64(st, 1);

		if (!a->n) {
			a->t = sqlite3_column_int64(st, 0) - m->meta.base_ns;
			for (i = 0; i <= NTYPES; i++)
				a->v[i] = sqlite3_column_int64(st, 1 + i);
		} else if (a->n == 1) {
			a->prev_total = total;
		}
		newest_first[a->n++] = (double)total;
		if ((double)total > a->max)
			a->max = (double)total;
	}
	if (rc != SQLITE_DONE)
		err = -EIO;
	rm_again(st);
	if (!err && a->n) {
		if (!(st = fds_st(m, FDS_FIRST))) {
			err = -EIO;
		} else {
			if (sqlite3_step(st) == SQLITE_ROW)
				for (i = 0; i <= NTYPES; i++)
					a->first[i] = sqlite3_column_int64(st, i);
			rm_again(st);
		}
	}
	if (!err && a->n) {
		a->hist = calloc(a->n, sizeof(double));
		if (!a->hist)
			err = -ENOMEM;
		for (size_t k = 0; a->hist && k < a->n; k++)
			a->hist[k] = newest_first[a->n - 1 - k];
	}
	free(newest_first);
	return err;
}

/* One series' intervals ending at or before the position, newest first: its count (a column
 * of fd_sample, named by the caller from the fixed list), and the opens and closes the eBPF
 * lane counted at that poll (NULL when none; the query for the total only). */
static const char series_sql[] =
    "SELECT time_ns, %s, (SELECT sum(opened) FROM fd_op o WHERE o.cap = s.cap "
    "AND o.time_ns = s.time_ns), (SELECT sum(closed) FROM fd_op o WHERE o.cap = s.cap "
    "AND o.time_ns = s.time_ns) FROM fd_sample s WHERE cap = ?1 AND time_ns <= ?2 "
    "ORDER BY time_ns DESC LIMIT ?3";

static const char *const fds_sql[FDS_NSQL] = {
    [FDS_AT] = at_sql,
    [FDS_FIRST] = first_sql,
};

static int fds_open(struct replay_model *m, void *state)
{
	struct fds_view_state *s = state;

	replay_model__prepare_each(m, fds_sql, FDS_NSQL, s->st);
	for (int i = 0; i <= NTYPES; i++) {
		char sql[sizeof(series_sql) + 16];

		snprintf(sql, sizeof(sql), series_sql, i ? type_name[i - 1] : "total");
		if (replay_model__prepare(m, sql, &s->series[i]))
			s->series[i] = NULL;
	}
	return replay_model__times(m,
				   "SELECT DISTINCT time_ns - ?2 FROM fd_sample WHERE cap = ?1 "
				   "ORDER BY 1",
				   &s->ends, &s->nends);
}

static void fds_free(void *state)
{
	struct fds_view_state *s = state;

	rm_finalize_each(s->st, FDS_NSQL);
	rm_finalize_each(s->series, NTYPES + 1);
	free(s->ends);
}

static struct rm_times fds_ends(const void *state)
{
	const struct fds_view_state *s = state;

	return rm_times__of(s->ends, s->nends);
}

/* the view's statements live in the model, prepared once when it opens; fd_sample's interval
 * ends step the arrows */
const struct replay_series fds_replay = {
    .what = "fd samples",
    .state_size = sizeof(struct fds_view_state),
    .open = fds_open,
    .free = fds_free,
    .ends = fds_ends,
};

/* The column of series NAME ("total" or a type), and its statement in the view's state into
 * *ST; NULL when it is none of them. */
static const char *series_col(const struct replay_model *m, const char *name, sqlite3_stmt **st)
{
	const struct fds_view_state *s = replay_model__state(m, "fds");

	if (!strcmp(name, "total")) {
		*st = rm_again(s->series[0]);
		return "total";
	}
	for (int i = 0; i < NTYPES; i++)
		if (!strcmp(name, type_name[i])) {
			*st = rm_again(s->series[i + 1]);
			return type_name[i];
		}
	return NULL;
}

/* The series drilled into (ui->drill: "total" or a type): the count per interval up to the
 * position as a sparkline, its range, then a row per interval, the newest first: the count,
 * its change, and for the total the opens and closes of --fd-stacks ("-": not collected). */
static void draw_series(struct replay_model *m, struct replay_ui *ui, struct grid *g, int x, int y,
			int w, int h)
{
	const struct probe_info *p = replay_model__probe(m, "fds");
	bool ops = p && !strcmp(p->source, "ebpf") && !strcmp(ui->drill, "total");
	sqlite3_stmt *st = NULL;
	const char *col = series_col(m, ui->drill, &st);
	size_t cap = (size_t)(w > 12 ? 2 * (w - 12) : 1), n = 0, k;
	int64_t *t = calloc(cap, sizeof(int64_t)), *v = calloc(cap, sizeof(int64_t)), lo = 0,
		hi = 0;
	int64_t *op = calloc(cap, sizeof(int64_t)), *cl = calloc(cap, sizeof(int64_t));
	double *hist = calloc(cap, sizeof(double));
	int row = y, bottom = y + h;
	char at[32], o[24], c[24];

	if (!col) {
		grid__textf(g, x, row, w, 0, GC_MUTED, "no fd series %s (Esc: back)", ui->drill);
		goto out;
	}
	if (!t || !v || !op || !cl || !hist || !st) {
		grid__text(g, x, row, w, "fds: cannot read fd_sample", 0, GC_WARN);
		goto out;
	}
	sqlite3_bind_int64(st, 2, m->meta.base_ns + m->pos_ns);
	sqlite3_bind_int64(st, 3, (int64_t)cap);
	while (n < cap && sqlite3_step(st) == SQLITE_ROW) {
		t[n] = sqlite3_column_int64(st, 0);
		v[n] = sqlite3_column_int64(st, 1);
		op[n] = sqlite3_column_type(st, 2) == SQLITE_NULL ? 0 : sqlite3_column_int64(st, 2);
		cl[n] = sqlite3_column_type(st, 3) == SQLITE_NULL ? 0 : sqlite3_column_int64(st, 3);
		if (!n || v[n] < lo)
			lo = v[n];
		if (!n || v[n] > hi)
			hi = v[n];
		n++;
	}
	rm_again(st);
	grid__textf(g, x, row++, w, GA_BOLD, GC_DEFAULT, "open fds: %s  (Esc: back)",
		    strcmp(col, "total") ? col : "all types");
	if (!n) {
		grid__text(g, x, row, w, "no fd sample by this position", 0, GC_MUTED);
		goto out;
	}
	grid__textf(g, x, row++, w, 0, GC_DEFAULT,
		    "%" PRId64 " at %s   %+" PRId64 " over %zu intervals   lowest %" PRId64
		    "   highest %" PRId64,
		    v[0], replay__fmt_pos(at, sizeof(at), t[0] - m->meta.base_ns), v[0] - v[n - 1],
		    n - 1, lo, hi);
	for (k = 0; k < n; k++) /* the sparkline draws the oldest first */
		hist[k] = (double)v[n - 1 - k];
	grid__text(g, x, row, 10, "count", 0, GC_MUTED);
	grid__sparkline(g, x + 10, row++, w - 12, hist, n, (double)hi, GC_GOOD);
	row++;
	if (ops)
		grid__textf(g, x, row++, w, GA_BOLD, GC_TITLE, "%-12s %8s %8s %8s %8s",
			    "interval end", "open", "change", "opened", "closed");
	else
		grid__textf(g, x, row++, w, GA_BOLD, GC_TITLE, "%-12s %8s %8s", "interval end",
			    "open", "change");
	for (k = 0; k < n && row < bottom; k++) {
		char d[24] = "-";

		if (k + 1 < n)
			snprintf(d, sizeof(d), "%+" PRId64, v[k] - v[k + 1]);
		replay__fmt_pos(at, sizeof(at), t[k] - m->meta.base_ns);
		if (!ops) {
			grid__textf(g, x, row++, w, 0, GC_DEFAULT, "%-12s %8" PRId64 " %8s", at,
				    v[k], d);
			continue;
		}
		snprintf(o, sizeof(o), "%" PRId64, op[k]);
		snprintf(c, sizeof(c), "%" PRId64, cl[k]);
		grid__textf(g, x, row++, w, 0, GC_DEFAULT, "%-12s %8" PRId64 " %8s %8s %8s", at,
			    v[k], d, o, c);
	}
out:
	free(t);
	free(v);
	free(op);
	free(cl);
	free(hist);
}

static void draw_fds(struct replay_model *m, struct replay_ui *ui, struct grid *g, int x, int y,
		     int w, int h)
{
	char buf[256], pos[32];
	struct fds_at a;
	int row = y, i, shown = 0, nrows = 1;

	grid__text(g, x, row++, w, "Open file descriptors by type  [/proc/PID/fd]",
		   GA_BOLD | GA_UNDERLINE, GC_TITLE);
	row++;
	if (replay__not_collected(m, "fds", buf, sizeof(buf))) {
		replay__wrapped(g, x, row, w, h - 2, buf, 0, GC_MUTED);
		return;
	}
	if (*ui->drill) {
		draw_series(m, ui, g, x, row, w, y + h - row);
		return;
	}
	if (fds_at(m, (size_t)(w > 2 ? 2 * (w - 2) : 1), &a)) {
		grid__text(g, x, row, w, "fds: cannot read fd_sample", 0, GC_WARN);
		return;
	}
	if (!a.n) {
		grid__text(g, x, row, w, "no fd sample yet", 0, GC_MUTED);
		free(a.hist);
		return;
	}
	grid__textf(g, x, row++, w, GA_BOLD, GC_DEFAULT, "open fds: %" PRId64, a.v[0]);
	if (a.prev_total >= 0)
		grid__textf(g, x, row++, w, 0, GC_DEFAULT,
			    "this interval: %+" PRId64 "   since the start: %+" PRId64,
			    a.v[0] - a.prev_total, a.v[0] - a.first[0]);
	grid__textf(g, x, row++, w, 0, GC_MUTED, "read at: %s",
		    replay__fmt_pos(pos, sizeof(pos), a.t));
	row++;
	grid__textf(g, x, row++, w, GA_BOLD, GC_DEFAULT, "%-12s %8s %10s", "type", "open",
		    "since start");
	/* the rows: the total, then the types with fds now or at the start; the one at
	 * ui->scroll selected (Enter: its series) */
	for (i = 0; i < NTYPES; i++)
		nrows += a.v[1 + i] || a.first[1 + i];
	if (ui->scroll >= nrows)
		ui->scroll = nrows - 1;
	ui->selected[0] = 0;
	for (i = -1; i < NTYPES && row < y + h - 3; i++) {
		int64_t now = a.v[1 + i], d = now - a.first[1 + i];
		bool sel;

		if (i >= 0 && !a.v[1 + i] && !a.first[1 + i])
			continue;
		sel = shown++ == ui->scroll;
		if (sel)
			snprintf(ui->selected, sizeof(ui->selected), "%s",
				 i < 0 ? "total" : type_name[i]);
		grid__textf(
		    g, x, row++, w, sel ? GA_REVERSE : 0, i >= 0 && d > 0 ? GC_WARN : GC_DEFAULT,
		    "%-12s %8" PRId64 " %+10" PRId64, i < 0 ? "total" : type_name[i], now, d);
	}
	grid__text(g, x, row++, w, "Up/Down select, Enter its series", 0, GC_MUTED);
	row++;
	if (row < y + h)
		grid__sparkline(g, x, row, w - 2, a.hist, a.n, a.max, GC_GOOD);
	free(a.hist);
}

static int fds_overview_line(struct replay_model *m, char *buf, size_t len)
{
	struct fds_at a;
	int i, k = -1;
	int64_t best = 0;

	if (fds_at(m, 2, &a)) {
		snprintf(buf, len, "cannot read fd_sample");
		return GC_WARN;
	}
	free(a.hist);
	if (!a.n) {
		snprintf(buf, len, "no sample yet");
		return GC_DEFAULT;
	}
	for (i = 0; i < NTYPES; i++)
		if (a.v[1 + i] - a.first[1 + i] > best) {
			best = a.v[1 + i] - a.first[1 + i];
			k = i;
		}
	if (k >= 0)
		snprintf(buf, len,
			 "%" PRId64 " open (%+" PRId64 " since the start, most %s %+" PRId64 ")",
			 a.v[0], a.v[0] - a.first[0], type_name[k], best);
	else
		snprintf(buf, len, "%" PRId64 " open (%+" PRId64 " since the start)", a.v[0],
			 a.v[0] - a.first[0]);
	return k >= 0 ? GC_WARN : GC_DEFAULT;
}

static const struct replay_view fds_view = {
    .name = "FDs",
    .id = "fds",
    .position = 60,
    .probe = "fds",
    .source = "fd_sample (/proc/PID/fd, the fds collector)",
    .draw = draw_fds,
    .on_key = replay__drill_key, /* Enter: the selected row's series; Esc: back */
    .overview_line = fds_overview_line,
};

const struct replay_view *const fds_views[] = {
    &fds_view,
    NULL,
};
