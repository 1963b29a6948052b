/* view.c — the toy collector's replay tab, "Toy" (`replay --tab toy`): the counter of the
 * interval at the playback position and its history as a sparkline, and a line of its own
 * at the bottom of the Overview (struct replay_view, analyze/replay_views.h).
 *
 * The replay model (analyze/replay_model.c) holds the shipped collectors' series in memory;
 * the toy reads its own from the DB the model has open, the samples ending at or before the
 * position: a seek on the index toy_sample_time (schema.sql), the newest first.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "analyze/replay_views.h"

static const char at_sql[] =
	"SELECT time_ns, count, total, scale FROM toy_sample WHERE cap = ?1 AND time_ns <= ?2 "
	"ORDER BY time_ns DESC LIMIT ?3";

struct toy_at {
	int64_t t;		     /* the newest sample's end, relative to the capture start */
	int64_t count, total, scale; /* its figures */
	double *hist;		     /* counts, the oldest first (malloc'd; NULL: not asked) */
	size_t n;		     /* samples read: 0 when none ends by the position */
	double max;		     /* the largest of hist */
};

/* The at most N samples of M's capture ending at or before the position into A. 0 or -EIO,
 * -ENOMEM. */
static int toy_at(struct replay_model *m, size_t n, struct toy_at *a)
{
	sqlite3_stmt *st = NULL;
	double *newest_first = NULL;
	int rc, err = 0;

	*a = (struct toy_at){ 0 };
	if (n > 1 && !(newest_first = calloc(n, sizeof(double))))
		return -ENOMEM;
	if (sqlite3_prepare_v2(m->db, at_sql, -1, &st, NULL) != SQLITE_OK) {
		free(newest_first);
		return -EIO;
	}
	sqlite3_bind_int64(st, 1, m->meta.cap);
	sqlite3_bind_int64(st, 2, m->meta.base_ns + m->pos_ns); /* the position, absolute */
	sqlite3_bind_int64(st, 3, (int64_t)n);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t count = sqlite3_column_int64(st, 1);

		if (!a->n) {
			a->t = sqlite3_column_int64(st, 0) - m->meta.base_ns;
			a->count = count;
			a->total = sqlite3_column_int64(st, 2);
			a->scale = sqlite3_column_int64(st, 3);
		}
		if (newest_first)
			newest_first[a->n] = (double)count;
		if ((double)count > a->max)
			a->max = (double)count;
		a->n++;
	}
	if (rc != SQLITE_DONE)
		err = -EIO;
	sqlite3_finalize(st);
	if (newest_first && !err && a->n) { /* the sparkline draws the oldest first */
		a->hist = calloc(a->n, sizeof(double));
		if (!a->hist)
			err = -ENOMEM;
		for (size_t i = 0; a->hist && i < a->n; i++)
			a->hist[i] = newest_first[a->n - 1 - i];
	}
	free(newest_first);
	return err;
}

static void draw_toy(struct replay_model *m, struct replay_ui *ui, struct grid *g, int x, int y,
		     int w, int h)
{
	char buf[256], pos[32];
	struct toy_at a;
	int row = y;

	(void)ui; /* no table: nothing to sort, filter or scroll */
	grid__text(g, x, row++, w, "Minor page faults per interval  [/proc/PID/stat, the toy]",
		   GA_BOLD | GA_UNDERLINE, GC_TITLE);
	row++;
	if (replay__not_collected(m, "toy", buf, sizeof(buf))) { /* never a 0 in its place */
		replay__wrapped(g, x, row, w, h - 2, buf, 0, GC_MUTED);
		return;
	}
	if (toy_at(m, (size_t)(w > 2 ? 2 * (w - 2) : 1), &a)) { /* two a column */
		grid__text(g, x, row, w, "toy: cannot read toy_sample", 0, GC_WARN);
		return;
	}
	if (!a.n) {
		grid__text(g, x, row, w, "no toy sample yet", 0, GC_MUTED);
	} else {
		grid__textf(g, x, row++, w, GA_BOLD, GC_DEFAULT, "faults this interval: %" PRId64,
			    a.count);
		grid__textf(g, x, row++, w, 0, GC_DEFAULT, "minflt total:         %" PRId64,
			    a.total);
		grid__textf(g, x, row++, w, 0, GC_DEFAULT, "scale:                %" PRId64,
			    a.scale);
		grid__textf(g, x, row++, w, 0, GC_MUTED, "interval ending at:   %s",
			    replay__fmt_pos(pos, sizeof(pos), a.t));
		row++;
		grid__sparkline(g, x, row, w - 2, a.hist, a.n, a.max, GC_GOOD);
	}
	free(a.hist);
}

/* Its line at the bottom of the Overview: "Toy  N faults this interval" */
static int toy_overview_line(struct replay_model *m, char *buf, size_t len)
{
	struct toy_at a;

	if (toy_at(m, 1, &a))
		snprintf(buf, len, "cannot read toy_sample");
	else if (!a.n)
		snprintf(buf, len, "no sample yet");
	else
		snprintf(buf, len, "%" PRId64 " faults this interval", a.count);
	return GC_DEFAULT;
}

static const struct replay_view toy_view = {
	.name = "Toy",		/* in the tab bar */
	.id = "toy",		/* replay --tab toy */
	.position = 95,		/* after Heap (90) */
	.probe = "toy",		/* its part: "not collected" when the probe did not run */
	.source = "toy_sample (/proc/PID/stat minflt, the toy collector of tests/toy)",
	.draw = draw_toy,
	.overview_line = toy_overview_line,
};

/* What part.c's .views points to, NULL-terminated. */
const struct replay_view *const toy_views[] = {
	&toy_view,
	NULL,
};
