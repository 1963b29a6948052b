/* report.c — `report toy`: the toy collector's counter per interval and its total.
 *
 * One report model, three renderings (analyze/output.h): the rows are built once into a
 * struct table; text prints it with a line before and after, CSV prints it as it is, JSON
 * writes it as the "intervals" array of the report's object. The total is the sum of the
 * rows shown, so it is the same figure in every format.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "analyze/report.h"

/* The samples of the window: an interval sample is in it when its midpoint is (report.h). */
static const char rows_sql[] =
	"SELECT time_ns, interval_ns, count, total, scale FROM toy_sample WHERE cap = ?1 "
	"AND time_ns - COALESCE(interval_ns, 0) / 2 >= ?2 "
	"AND time_ns - COALESCE(interval_ns, 0) / 2 < ?3 ORDER BY time_ns";

enum { COL_T, COL_INTERVAL, COL_COUNT, COL_TOTAL, COLS };
static const char *const col_names[COLS] = { "t_s", "interval_s", "count", "minflt_total" };

/* The rows of capture M in window W into T; *SUM gets the sum of count, *SCALE the scale
 * of the last row (0: no row). 0, -ENOMEM, -EIO. */
static int build_rows(sqlite3 *db, const struct capture_meta *m, const struct window *w,
		      struct table *t, uint64_t *sum, int64_t *scale)
{
	sqlite3_stmt *st = NULL;
	int64_t lo, hi;
	char a[32], b[32];
	int err = 0, rc;

	*sum = 0;
	*scale = 0;
	window__bounds(w, m, &lo, &hi);
	if (sqlite3_prepare_v2(db, rows_sql, -1, &st, NULL) != SQLITE_OK)
		return -EIO;
	sqlite3_bind_int64(st, 1, m->cap);
	sqlite3_bind_int64(st, 2, lo);
	sqlite3_bind_int64(st, 3, hi);
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
	err = build_rows(db, m, w, t, sum, scale);
	table__free(t);
	return err;
}

static int report_toy(sqlite3 *db, const char *capture_id, const struct report_opts *o,
		      FILE *out)
{
	struct drop_line *drops = NULL;
	struct table *t = NULL;
	struct capture_meta m;
	struct probe_info p;
	uint64_t sum = 0;
	int64_t scale = 0;
	size_t nd = 0;
	char w[96], c[32];
	struct json j;
	int err;

	err = capture_meta__load(db, capture_id, &m);
	err = err ?: probe__lookup(db, m.cap, "toy", &p);
	if (err)
		return err;
	report__begin(&j, out, o, "toy", &m);
	if (!probe__active(&p)) /* says why it did not run, in the format asked for */
		return report__not_collected(&j, out, o, "toy", &p);
	t = table__new(COLS, col_names);
	if (!t)
		return -ENOMEM;
	err = build_rows(db, &m, &o->win, t, &sum, &scale);
	err = err ?: drops__load(db, &m, "toy", &o->win, &drops, &nd);
	if (err)
		goto cleanup;
	switch (o->fmt) {
	case OUT_TEXT:
		window__describe(&o->win, w, sizeof(w));
		fprintf(out, "toy (%s): %zu intervals, minor page faults times %" PRId64 "\n", w,
			table__rows(t), scale);
		report__drops(NULL, out, o, "toy", drops, nd);
		fputc('\n', out);
		err = table__print(t, out, OUT_TEXT);
		fprintf(out, "\ntotal: %s\n", fmt_count(c, sizeof(c), sum));
		break;
	case OUT_CSV:
		report__drops(NULL, out, o, "toy", drops, nd);
		err = table__print(t, out, OUT_CSV);
		break;
	case OUT_JSON:
		json__kv_bool(&j, "collected", true);
		json__kv_int(&j, "scale", scale);
		report__drops(&j, out, o, "toy", drops, nd);
		json__key(&j, "intervals");
		table__json(t, &j, NULL, 0);
		json__key(&j, "total");
		json__uint(&j, sum);
		json__end_object(&j);
		err = json__end(&j);
		break;
	}
	if (!err && (fflush(out) || ferror(out)))
		err = -EIO;
cleanup:
	table__free(t);
	free(drops);
	return err;
}

/* ------------------------------------------------------------------ its reports */

static const struct an_report toy_report = {
	.name = "toy",	/* `ptop-analyze report toy` */
	.order = 900,	/* after the others in `report --help` */
	.summary = "the toy collector's minor page faults per interval and their total",
	.tables = "toy_sample", /* a DB without it is refused before run() */
	.run = report_toy,
};

/* What part.c's .reports points to, NULL-terminated. */
const struct an_report *const toy_reports[] = {
	&toy_report,
	NULL,
};
