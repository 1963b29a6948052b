/* report.c — `report io`: the target's I/O per interval from the /proc lane (bytes and
 * syscalls read and written, storage bytes, block I/O delay), the totals over the window,
 * and what this capture cannot say (per-file figures: no eBPF lane yet).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/report.h"

static const char rows_sql[] =
	"SELECT time_ns, interval_ns, rchar, wchar, syscr, syscw, read_bytes, write_bytes, "
	"cancelled_write_bytes, iowait_ns FROM io_sample WHERE cap = ?1 "
	"AND time_ns - COALESCE(interval_ns, 0) / 2 >= ?2 "
	"AND time_ns - COALESCE(interval_ns, 0) / 2 < ?3 ORDER BY time_ns, pid";

enum { COL_T, COL_INTERVAL, COL_RCHAR, COL_WCHAR, COL_SYSCR, COL_SYSCW, COL_READ, COL_WRITE,
       COL_CANCELLED, COL_IOWAIT, COLS };
static const char *const col_names[COLS] = {
	"t_s",	   "interval_s", "read_bytes", "written_bytes", "read_calls", "write_calls",
	"storage_read_bytes", "storage_written_bytes", "cancelled_write_bytes", "iowait_s",
};
#define NSUMS 8 /* rchar .. iowait */

static const char per_file_reason[] =
	"per-file reads, writes and latency, and file-system events need the io collector's "
	"eBPF lane, which this version does not have";

static int build_rows(sqlite3 *db, const struct capture_meta *m, const struct window *w,
		      struct table *t, uint64_t sum[NSUMS], bool *iowait_all, int64_t *span)
{
	sqlite3_stmt *st = NULL;
	int64_t lo, hi;
	char a[32], b[32], c[32];
	int err = 0, rc;

	memset(sum, 0, NSUMS * sizeof(*sum));
	*iowait_all = true;
	*span = 0;
	window__bounds(w, m, &lo, &hi);
	if (sqlite3_prepare_v2(db, rows_sql, -1, &st, NULL) != SQLITE_OK)
		return -EIO;
	sqlite3_bind_int64(st, 1, m->cap);
	sqlite3_bind_int64(st, 2, lo);
	sqlite3_bind_int64(st, 3, hi);
	while (!err && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t time_ns = sqlite3_column_int64(st, 0);
		int64_t interval = report__col(st, 1, -1);

		err = table__add_row(t);
		err = err ?: table__set_real(t, COL_T, (double)(time_ns - m->base_ns) / 1e9,
					     fmt_secs(a, sizeof(a), time_ns - m->base_ns));
		if (interval >= 0) {
			*span += interval;
			err = err ?: table__set_real(t, COL_INTERVAL, (double)interval / 1e9,
						     fmt_secs(b, sizeof(b), interval));
		}
		for (int i = 0; !err && i < 7; i++) {
			int64_t v = sqlite3_column_int64(st, 2 + i);
			bool bytes = i != 2 && i != 3;

			sum[i] += (uint64_t)v;
			err = table__set_int(t, COL_RCHAR + i, v,
					     bytes ? fmt_bytes(c, sizeof(c), (uint64_t)v) : NULL);
		}
		if (sqlite3_column_type(st, 9) == SQLITE_NULL) {
			*iowait_all = false;
		} else {
			int64_t v = sqlite3_column_int64(st, 9);

			sum[7] += (uint64_t)v;
			err = err ?: table__set_real(t, COL_IOWAIT, (double)v / 1e9,
						     fmt_secs(c, sizeof(c), v));
		}
	}
	if (!err && rc != SQLITE_DONE)
		err = -EIO;
	sqlite3_finalize(st);
	return err;
}

static double rate(uint64_t v, int64_t span)
{
	return span > 0 ? (double)v * 1e9 / (double)span : 0;
}

static int report_io(sqlite3 *db, const char *capture_id, const struct report_opts *o, FILE *out)
{
	static const char *const sum_key[NSUMS] = { "read_bytes",	"written_bytes",
						    "read_calls",	"write_calls",
						    "storage_read_bytes", "storage_written_bytes",
						    "cancelled_write_bytes", "iowait_ns" };
	struct drop_line *drops = NULL;
	struct table *t = NULL;
	struct capture_meta m;
	struct probe_info p;
	uint64_t sum[NSUMS];
	bool iowait_all;
	int64_t span;
	size_t nd = 0;
	char w[96], b[8][32];
	struct json j;
	int err;

	err = capture_meta__load(db, capture_id, &m);
	err = err ?: probe__lookup(db, m.cap, "io", &p);
	if (err)
		return err;
	report__begin(&j, out, o, "io", &m);
	if (!probe__active(&p))
		return report__not_collected(&j, out, o, "io", &p);
	t = table__new(COLS, col_names);
	if (!t)
		return -ENOMEM;
	err = build_rows(db, &m, &o->win, t, sum, &iowait_all, &span);
	err = err ?: drops__load(db, &m, "io", &o->win, &drops, &nd);
	if (err)
		goto cleanup;
	switch (o->fmt) {
	case OUT_TEXT:
		window__describe(&o->win, w, sizeof(w));
		fprintf(out, "io (%s): %zu intervals, /proc/PID/io\n", w, table__rows(t));
		report__drops(NULL, out, o, "io", drops, nd);
		fprintf(out,
			"read     %s in %s syscalls (%s/s)\nwritten  %s in %s syscalls (%s/s)\n",
			fmt_bytes(b[0], sizeof(b[0]), sum[0]), fmt_count(b[1], sizeof(b[1]), sum[2]),
			fmt_bytes(b[2], sizeof(b[2]), (uint64_t)rate(sum[0], span)),
			fmt_bytes(b[3], sizeof(b[3]), sum[1]), fmt_count(b[4], sizeof(b[4]), sum[3]),
			fmt_bytes(b[5], sizeof(b[5]), (uint64_t)rate(sum[1], span)));
		fprintf(out, "storage  read %s, written %s, cancelled %s\n",
			fmt_bytes(b[0], sizeof(b[0]), sum[4]), fmt_bytes(b[1], sizeof(b[1]), sum[5]),
			fmt_bytes(b[2], sizeof(b[2]), sum[6]));
		if (iowait_all && table__rows(t))
			fprintf(out, "block I/O delay  %s\n", fmt_ns(b[0], sizeof(b[0]), sum[7]));
		else
			fprintf(out, "block I/O delay  not measured (kernel.task_delayacct was 0)\n");
		fprintf(out, "per file: not collected (%s)\n\n", per_file_reason);
		err = table__print(t, out, OUT_TEXT);
		break;
	case OUT_CSV:
		report__drops(NULL, out, o, "io", drops, nd);
		err = table__print(t, out, OUT_CSV);
		break;
	case OUT_JSON:
		json__kv_bool(&j, "collected", true);
		report__drops(&j, out, o, "io", drops, nd);
		json__key(&j, "totals");
		json__begin_object(&j);
		for (int i = 0; i < NSUMS; i++) {
			if (i == 7 && !(iowait_all && table__rows(t)))
				json__kv_null(&j, sum_key[i]);
			else
				json__kv_int(&j, sum_key[i], (int64_t)sum[i]);
		}
		json__end_object(&j);
		json__key(&j, "intervals");
		table__json(t, &j, NULL, 0);
		json__kv_null(&j, "per_file");
		json__kv_string(&j, "per_file_reason", per_file_reason);
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

static const struct an_report io_report = {
	.name = "io",
	.order = 83,
	.summary = "bytes and syscalls read and written, storage bytes and block\n"
		   "I/O delay, per interval and in all (/proc/PID/io)",
	.tables = "io_sample",
	.run = report_io,
};

const struct an_report *const io_reports[] = {
	&io_report,
	NULL,
};
