/* figures.c — the mark collector's figures (analyze/figures.h): the calls of each mark (a unit
 * of work) over the window and per second, the sums of its mark_sample rows. `diff --per NAME`
 * divides the rates of the other figures by mark.count(NAME) instead of the seconds. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "analyze/figures.h"
#include "analyze/part.h"

/* An interval sample is in the window when its midpoint is (analyze/report.h). Every
 * mark of the capture is listed, with 0 when none of its samples is in the window: it
 * was recorded and counted no call there (diff --per says so, not "not counted"). */
static const char sum_sql[] =
	"SELECT name, SUM(CASE WHEN time_ns - COALESCE(interval_ns, 0) / 2 >= ?2 "
	"AND time_ns - COALESCE(interval_ns, 0) / 2 < ?3 THEN count ELSE 0 END) "
	"FROM mark_sample WHERE cap = ?1 GROUP BY name ORDER BY name";

static int compute(struct fig_ctx *c, const struct an_figure *f, struct fig_family *fam)
{
	bool rate = !strcmp(f->name, "mark.rate(*)");
	sqlite3_stmt *st = NULL;
	int64_t lo, hi;
	int err = 0, rc;

	if (rate) {
		if (!(c->span_s > 0)) {
			fig_family__not_measured(fam, "the window holds no time of the capture");
			return 0;
		}
		fam->exposure_s = c->span_s;
	}
	window__bounds(&c->w, c->m, &lo, &hi);
	if (sqlite3_prepare_v2(c->db, sum_sql, -1, &st, NULL) != SQLITE_OK)
		return -EIO;
	sqlite3_bind_int64(st, 1, c->m->cap);
	sqlite3_bind_int64(st, 2, lo);
	sqlite3_bind_int64(st, 3, hi);
	/* every mark the recording counted has rows (0 calls included): one not listed was not
	 * given to --mark, which diff --per says */
	while (!err && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		uint64_t n = (uint64_t)sqlite3_column_int64(st, 1);
		const char *name = (const char *)sqlite3_column_text(st, 0);

		err = fig_family__add(fam, name ? name : "", rate ? (double)n / c->span_s : (double)n,
				      n);
	}
	if (!err && rc != SQLITE_DONE)
		err = -EIO;
	sqlite3_finalize(st);
	fam->complete = false;
	snprintf(fam->note, sizeof(fam->note), "only the marks given to ptop-record --mark");
	return err;
}

static const struct an_figure count = {
	"mark.count(*)", "mark", FIG_COUNT, false, false, FIG_TEST_NONE,
	"calls of the function of mark NAME (a unit of work) over the window", compute,
	.work_unit = true, /* diff --per NAME */
};
static const struct an_figure rate = {
	"mark.rate(*)", "mark", FIG_RATE, false, false, FIG_TEST_POISSON,
	"the same per second of the window", compute,
};

const struct an_figure *const mark_figures[] = { &count, &rate, NULL };
