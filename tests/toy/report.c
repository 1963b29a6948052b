/* report.c — `report toy`: the toy collector's counter per interval and its total.
 *
 * One report model, three renderings (analyze/output.h): the rows are built once into a
 * struct table; text prints it with a line before and after, CSV prints it as it is, JSON
 * writes it as the "intervals" array of the report's object. The total is the sum of the
 * rows shown, so it is the same figure in every format.
 *
 * Its own option, declared in its table at the bottom (analyze/report.h, struct
 * report_option): --min-count N, only the intervals that counted N or more.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "analyze/report.h"

/* `report toy`'s own settings (o->own), parsed from its option table */
struct toy_opts {
	int64_t min_count; /* --min-count N: the intervals whose count is N or more; 0: all */
};

/* The samples of the window: an interval sample is in it when its midpoint is (report.h). */
static const char rows_sql[] =
	"SELECT time_ns, interval_ns, count, total, scale FROM toy_sample WHERE cap = ?1 "
	"AND time_ns - COALESCE(interval_ns, 0) / 2 >= ?2 "
	"AND time_ns - COALESCE(interval_ns, 0) / 2 < ?3 AND count >= ?4 ORDER BY time_ns";

enum { COL_T, COL_INTERVAL, COL_COUNT, COL_TOTAL, COLS };
static const char *const col_names[COLS] = { "t_s", "interval_s", "count", "minflt_total" };

/* The rows of capture M in window W whose count is MIN_COUNT or more into T; *SUM gets the
 * sum of count, *SCALE the scale of the last row (0: no row). 0, -ENOMEM, -EIO. */
static int build_rows(sqlite3 *db, const struct capture_meta *m, const struct window *w,
		      int64_t min_count, struct table *t, uint64_t *sum, int64_t *scale)
{
	sqlite3_stmt *st = NULL;
	int64_t lo, hi;
	char a[32], b[32];
	int err = 0, rc;

	*sum = 0;
	*scale = 0;
	window__bounds(w, m, &lo, &hi);
	if (report__prepare_at(db, rows_sql, m, lo, hi, &st))
		return -EIO;
	sqlite3_bind_int64(st, 4, min_count);
	while (!err && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t time_ns = sqlite3_column_int64(st, 0);
		int64_t interval = report__col(st, 1, -1);
		int64_t count = sqlite3_column_int64(st, 2);

		*sum += (uint64_t)count;
		*scale = sqlite3_column_int64(st, 4);
		err = table__add_row(t);
		err = err ?: table__set_real(t, COL_T, (double)(time_ns - m->base_ns) / 1e9,
					     fmt_secs(a, sizeof(a), time_ns - m->base_ns));
		if (interval >= 0)
			err = err ?: table__set_real(t, COL_INTERVAL, (double)interval / 1e9,
						     fmt_secs(b, sizeof(b), interval));
		err = err ?: table__set_int(t, COL_COUNT, count, NULL);
		err = err ?: table__set_int(t, COL_TOTAL, sqlite3_column_int64(st, 3), NULL);
	}
	if (!err && rc != SQLITE_DONE)
		err = -EIO;
	sqlite3_finalize(st);
	return err;
}

/* The sum of count over window W of capture M and the scale, as the report computes them
 * (build_rows), for the toy's figures (figures.c). 0, -ENOMEM, -EIO. */
int toy_rows__sum(sqlite3 *db, const struct capture_meta *m, const struct window *w,
		  uint64_t *sum, int64_t *scale)
{
	struct table *t = table__new(COLS, col_names);
	int err;

	if (!t)
		return -ENOMEM;
	err = build_rows(db, m, w, 0, t, sum, scale);
	table__free(t);
	return err;
}

/* The report's own part: the core (report__run) has loaded the capture, begun the output
 * (the incomplete-capture warning; JSON: the object's head), said "not collected" when the
 * toy probe did not run (then this is not called), loaded the toy's drops, and flushes. */
static int toy_body(const struct report_ctx *ctx)
{
	const struct report_opts *o = ctx->o;
	FILE *out = ctx->out;
	struct json *j = ctx->j;
	struct table *t;
	uint64_t sum = 0;
	int64_t scale = 0;
	char w[96], c[32];
	int err;

	t = table__new(COLS, col_names);
	if (!t)
		return -ENOMEM;
	err = build_rows(ctx->db, ctx->m, &o->win, REPORT_OWN(o, struct toy_opts)->min_count, t,
			 &sum, &scale);
	if (err)
		goto cleanup;
	switch (o->fmt) {
	case OUT_TEXT:
		window__describe(&o->win, w, sizeof(w));
		fprintf(out, "toy (%s): %zu intervals, minor page faults times %" PRId64 "\n", w,
			table__rows(t), scale);
		report__drops(NULL, out, o, "toy", ctx->drops, ctx->ndrops);
		fputc('\n', out);
		err = table__print(t, out, OUT_TEXT);
		fprintf(out, "\ntotal: %s\n", fmt_count(c, sizeof(c), sum));
		break;
	case OUT_CSV:
		report__drops(NULL, out, o, "toy", ctx->drops, ctx->ndrops);
		err = table__print(t, out, OUT_CSV);
		break;
	case OUT_JSON:
		json__kv_bool(j, "collected", true);
		json__kv_int(j, "scale", scale);
		report__drops(j, out, o, "toy", ctx->drops, ctx->ndrops);
		json__key(j, "intervals");
		table__json(t, j, NULL, 0);
		json__key(j, "total");
		json__uint(j, sum);
		json__end_object(j);
		err = json__end(j);
		break;
	}
cleanup:
	table__free(t);
	return err;
}

/* ------------------------------------------------------------------ its reports */

static int parse_min_count(void *settings, const char *arg, char *err, size_t len)
{
	char *end;
	long long n;

	errno = 0;
	n = strtoll(arg, &end, 10);
	if (errno || end == arg || *end || n < 0) {
		snprintf(err, len, "--min-count takes a whole number, 0 or more, not '%s'", arg);
		return -EINVAL;
	}
	((struct toy_opts *)settings)->min_count = n;
	return 0;
}

/* Its options, ended by a zeroed entry: `report toy --min-count N` (usage and --help are
 * made from here; given to another report, --min-count is a usage error). */
static const struct report_option toy_options[] = {
    {"min-count", "N", "toy: only the intervals that counted N or more", parse_min_count},
    {0},
};

static const struct an_report toy_report = {
	.name = "toy",	/* `ptop-analyze report toy` */
	.order = 900,	/* after the others in `report --help` */
	.summary = "the toy collector's minor page faults per interval and their total",
	.tables = "toy_sample", /* a DB without it is refused before run() */
	.options = toy_options,
	.settings_size = sizeof(struct toy_opts),
	.probe = "toy", /* not active: "not collected" and why, toy_body not called */
	.drops = "toy",	/* its drops, loaded for toy_body (ctx->drops) */
	.body = toy_body,
};

/* What part.c's .reports points to, NULL-terminated. */
const struct an_report *const toy_reports[] = {
	&toy_report,
	NULL,
};
