/* view.c — the toy collector's replay series and tab, "Toy" (`replay --tab toy`).
 *
 * The series (toy_replay, the part's .replay: analyze/replay_model.h, struct replay_series):
 * toy_sample read once when the replay model opens, into the state the model keeps for the
 * part; its interval ends, which the arrows step through with every other part's; and one
 * timeline event, the interval with the most faults.
 *
 * The tab: the counter of the interval at the playback position and its history as a sparkline,
 * and a line of its own at the bottom of the Overview (struct replay_view,
 * analyze/replay_views.h). The view gets the series from the model (replay_model__state).
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "analyze/replay_views.h"

struct toy_point {
	int64_t t;		     /* the interval's end, relative to the capture start */
	int64_t count, total, scale; /* its figures */
};

/* the part's state in the replay model */
struct toy_series {
	struct toy_point *s; /* by time */
	size_t n;
};

static void toy_row(sqlite3_stmt *st, void *element)
{
	*(struct toy_point *)element = (struct toy_point){
	    .t = sqlite3_column_int64(st, 0),
	    .count = sqlite3_column_int64(st, 1),
	    .total = sqlite3_column_int64(st, 2),
	    .scale = sqlite3_column_int64(st, 3),
	};
}

/* its series, read once when the model opens */
static int toy_open(struct replay_model *m, void *state)
{
	static const char sql[] = "SELECT time_ns - ?2, count, total, scale FROM toy_sample "
				  "WHERE cap = ?1 ORDER BY time_ns";
	struct toy_series *r = state;

	return replay_model__read(m, sql, &r->s, &r->n, sizeof(*r->s), toy_row);
}

static void toy_free(void *state)
{
	free(((struct toy_series *)state)->s);
}

/* its interval ends: the arrows land on them */
static struct rm_times toy_ends(const void *state)
{
	const struct toy_series *r = state;

	return RM_TIMES(r->s, r->n);
}

/* its discrete event on the timeline: the interval with the most faults (the first such) */
static int toy_events(struct replay_model *m, const void *state)
{
	const struct toy_series *r = state;
	size_t i, top = 0;

	if (!r->n)
		return 0;
	for (i = 1; i < r->n; i++)
		if (r->s[i].count > r->s[top].count)
			top = i;
	return replay_model__event(m, r->s[top].t, false, "toy peak",
				   "%" PRId64 " faults, the most in one interval", r->s[top].count);
}

const struct replay_series toy_replay = {
    .what = "toy samples",
    .state_size = sizeof(struct toy_series),
    .open = toy_open,
    .free = toy_free,
    .ends = toy_ends,
    .events = toy_events,
};

/* The series and the index of the sample ending at or before the position (-1: none yet). */
static const struct toy_series *toy_at(const struct replay_model *m, ssize_t *i)
{
	const struct toy_series *r = replay_model__state(m, "toy");

	*i = rm_times__at(RM_TIMES(r->s, r->n), m->pos_ns);
	return r;
}

static void draw_toy(struct replay_model *m, struct replay_ui *ui, struct grid *g, int x, int y,
		     int w, int h)
{
	char buf[256], pos[32];
	size_t first, n, k;
	double *v, max = 0;
	ssize_t i;
	const struct toy_series *r = toy_at(m, &i);
	int row = y;

	(void)ui; /* no table: nothing to sort, filter or scroll */
	grid__text(g, x, row++, w, "Minor page faults per interval  [/proc/PID/stat, the toy]",
		   GA_BOLD | GA_UNDERLINE, GC_TITLE);
	row++;
	if (replay__not_collected(m, "toy", buf, sizeof(buf))) { /* never a 0 in its place */
		replay__wrapped(g, x, row, w, h - 2, buf, 0, GC_MUTED);
		return;
	}
	if (i < 0) {
		grid__text(g, x, row, w, "no toy sample yet", 0, GC_MUTED);
		return;
	}
	grid__textf(g, x, row++, w, GA_BOLD, GC_DEFAULT, "faults this interval: %" PRId64,
		    r->s[i].count);
	grid__textf(g, x, row++, w, 0, GC_DEFAULT, "minflt total:         %" PRId64,
		    r->s[i].total);
	grid__textf(g, x, row++, w, 0, GC_DEFAULT, "scale:                %" PRId64,
		    r->s[i].scale);
	grid__textf(g, x, row++, w, 0, GC_MUTED, "interval ending at:   %s",
		    replay__fmt_pos(pos, sizeof(pos), r->s[i].t));
	row++;
	v = replay__history((size_t)i, w - 2, &first, &n); /* two a column, the oldest first */
	if (!v)
		return;
	for (k = 0; k < n; k++) {
		v[k] = (double)r->s[first + k].count;
		if (v[k] > max)
			max = v[k];
	}
	grid__sparkline(g, x, row, w - 2, v, n, max, GC_GOOD);
	free(v);
}

/* Its line at the bottom of the Overview: "Toy  N faults this interval" */
static int toy_overview_line(struct replay_model *m, char *buf, size_t len)
{
	ssize_t i;
	const struct toy_series *r = toy_at(m, &i);

	if (i < 0)
		snprintf(buf, len, "no sample yet");
	else
		snprintf(buf, len, "%" PRId64 " faults this interval", r->s[i].count);
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
