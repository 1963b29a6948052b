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

enum {
	COL_T,
	COL_INTERVAL,
	COL_RCHAR,
	COL_WCHAR,
	COL_SYSCR,
	COL_SYSCW,
	COL_READ,
	COL_WRITE,
	COL_CANCELLED,
	COL_IOWAIT,
	COLS
};
static const char *const col_names[COLS] = {
    "t_s",
    "interval_s",
    "read_bytes",
    "written_bytes",
    "read_calls",
    "write_calls",
    "storage_read_bytes",
    "storage_written_bytes",
    "cancelled_write_bytes",
    "iowait_s",
};
#define NSUMS 8 /* rchar .. iowait */

/* The I/O syscalls whose figures the syscalls collector has (per operation, not per file). */
static const char *const io_syscalls[] = {
    "read",
    "write",
    "pread64",
    "pwrite64",
    "readv",
    "writev",
    "preadv",
    "pwritev",
    "preadv2",
    "pwritev2",
    "sendfile",
    "splice",
    "copy_file_range",
    "fsync",
    "fdatasync",
    "sync_file_range",
    "io_uring_enter",
    "io_submit",
};

enum { YCOL_SYSCALL, YCOL_CALLS, YCOL_ERRORS, YCOL_TOTAL, YCOL_P50, YCOL_P99, YCOLS };
static const char *const sys_names[YCOLS] = {"syscall",	 "calls",  "errors",
					     "total_ns", "p50_ns", "p99_ns"};

static bool is_io_syscall(const char *name)
{
	for (size_t i = 0; i < sizeof(io_syscalls) / sizeof(io_syscalls[0]); i++)
		if (!strcmp(name, io_syscalls[i]))
			return true;
	return false;
}

/* The window's I/O syscalls from syscall_stat into T (by calls, as report syscalls). */
static int build_syscalls(sqlite3 *db, const struct capture_meta *m, const struct window *w,
			  struct table *t)
{
	struct syscall_agg *a = NULL;
	size_t n = 0, own;
	char b[32];
	int err;

	err = syscalls__aggregate(db, m, w, SORT_COUNT, &a, &n);
	if (err)
		return err;
	own = syscalls__split_probe(a, n);
	for (size_t i = 0; !err && i < own; i++) {
		uint64_t est;

		if (!is_io_syscall(a[i].name))
			continue;
		err = table__add_row(t);
		err = err ?: table__set_text(t, YCOL_SYSCALL, a[i].name);
		err = err ?: table__set_int(t, YCOL_CALLS, (int64_t)a[i].count, NULL);
		err = err ?: table__set_int(t, YCOL_ERRORS, (int64_t)a[i].errors, NULL);
		if (a[i].completed)
			err = err
				  ?: table__set_int(t, YCOL_TOTAL, (int64_t)a[i].total_ns,
						    fmt_ns(b, sizeof(b), a[i].total_ns));
		if (!err && !hist_percentile(a[i].hist, HIST_BUCKETS, 50, &est, NULL, NULL))
			err = table__set_int(t, YCOL_P50, (int64_t)est, fmt_ns(b, sizeof(b), est));
		if (!err && !hist_percentile(a[i].hist, HIST_BUCKETS, 99, &est, NULL, NULL))
			err = table__set_int(t, YCOL_P99, (int64_t)est, fmt_ns(b, sizeof(b), est));
	}
	free(a);
	return err;
}

static const char events_sql[] =
    "SELECT time_ns, kind, syscall, path, new_path, flags, error, length FROM io_event "
    "WHERE cap = ?1 AND time_ns >= ?2 AND time_ns <= ?3 ORDER BY time_ns, rowid";

enum {
	ECOL_T,
	ECOL_KIND,
	ECOL_SYSCALL,
	ECOL_PATH,
	ECOL_NEW,
	ECOL_FLAGS,
	ECOL_ERROR,
	ECOL_LEN,
	ECOLS
};
static const char *const ev_names[ECOLS] = {"t_s",	"kind",	 "syscall", "path",
					    "new_path", "flags", "error",   "length"};

/* The window's file-system events into T; *N[4] their counts by kind (denied, deleted,
 * renamed, truncated). */
static int build_events(sqlite3 *db, const struct capture_meta *m, const struct window *w,
			struct table *t, uint64_t n[4])
{
	static const char *const kinds[4] = {"denied", "deleted", "renamed", "truncated"};
	sqlite3_stmt *st = NULL;
	int64_t lo, hi;
	char a[32], f[32];
	int err = 0, rc;

	memset(n, 0, 4 * sizeof(*n));
	window__bounds(w, m, &lo, &hi);
	if (sqlite3_prepare_v2(db, events_sql, -1, &st, NULL) != SQLITE_OK)
		return -EIO;
	sqlite3_bind_int64(st, 1, m->cap);
	sqlite3_bind_int64(st, 2, lo);
	sqlite3_bind_int64(st, 3, hi);
	while (!err && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t time_ns = sqlite3_column_int64(st, 0);
		const char *kind = (const char *)sqlite3_column_text(st, 1);

		for (int k = 0; k < 4; k++)
			n[k] += !strcmp(kind, kinds[k]);
		err = table__add_row(t);
		err = err
			  ?: table__set_real(t, ECOL_T, (double)(time_ns - m->base_ns) / 1e9,
					     fmt_secs(a, sizeof(a), time_ns - m->base_ns));
		for (int c = 1; !err && c <= 4; c++)
			if (sqlite3_column_type(st, c) != SQLITE_NULL)
				err =
				    table__set_text(t, c, (const char *)sqlite3_column_text(st, c));
		if (!err && sqlite3_column_type(st, 5) != SQLITE_NULL) {
			snprintf(f, sizeof(f), "%#llo",
				 (unsigned long long)sqlite3_column_int64(st, 5));
			err = table__set_int(t, ECOL_FLAGS, sqlite3_column_int64(st, 5), f);
		}
		for (int c = 6; !err && c <= 7; c++)
			if (sqlite3_column_type(st, c) != SQLITE_NULL)
				err = table__set_int(t, c, sqlite3_column_int64(st, c), NULL);
	}
	if (!err && rc != SQLITE_DONE)
		err = -EIO;
	sqlite3_finalize(st);
	return err;
}

/* Why the file-system events are absent: the probe detail's part that says so. */
static const char *events_reason(const struct probe_info *p)
{
	const char *s = strstr(p->detail, "file-system events not collected: ");

	return s ? s + strlen("file-system events not collected: ")
		 : "the eBPF lane did not run: it needs --io-events";
}

static const char per_file_reason[] =
    "per-file reads, writes and latency need an eBPF lane of the io collector that this "
    "version does not have";

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
		err = err
			  ?: table__set_real(t, COL_T, (double)(time_ns - m->base_ns) / 1e9,
					     fmt_secs(a, sizeof(a), time_ns - m->base_ns));
		if (interval >= 0) {
			*span += interval;
			err = err
				  ?: table__set_real(t, COL_INTERVAL, (double)interval / 1e9,
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
			err = err
				  ?: table__set_real(t, COL_IOWAIT, (double)v / 1e9,
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
	static const char *const sum_key[NSUMS] = {"read_bytes",
						   "written_bytes",
						   "read_calls",
						   "write_calls",
						   "storage_read_bytes",
						   "storage_written_bytes",
						   "cancelled_write_bytes",
						   "iowait_ns"};
	struct drop_line *drops = NULL;
	struct table *t = NULL, *yt = NULL, *et = NULL;
	uint64_t nev[4] = {0};
	bool events;
	struct capture_meta m;
	struct probe_info p, sp;
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
	yt = table__new(YCOLS, sys_names);
	et = table__new(ECOLS, ev_names);
	if (!t || !yt || !et) {
		err = -ENOMEM;
		goto cleanup;
	}
	err = probe__lookup(db, m.cap, "syscalls", &sp);
	err = err ?: build_rows(db, &m, &o->win, t, sum, &iowait_all, &span);
	if (!err && probe__active(&sp))
		err = build_syscalls(db, &m, &o->win, yt);
	events = !strcmp(p.source, "ebpf"); /* the eBPF lane ran (--io-events) */
	if (!err && events)
		err = build_events(db, &m, &o->win, et, nev);
	err = err ?: drops__load(db, &m, "io", &o->win, &drops, &nd);
	if (err)
		goto cleanup;
	switch (o->fmt) {
	case OUT_TEXT:
		window__describe(&o->win, w, sizeof(w));
		fprintf(out, "io (%s): %zu intervals, /proc/PID/io\n", w, table__rows(t));
		report__drops(NULL, out, o, "io", drops, nd);
		fprintf(
		    out, "read     %s in %s syscalls (%s/s)\nwritten  %s in %s syscalls (%s/s)\n",
		    fmt_bytes(b[0], sizeof(b[0]), sum[0]), fmt_count(b[1], sizeof(b[1]), sum[2]),
		    fmt_bytes(b[2], sizeof(b[2]), (uint64_t)rate(sum[0], span)),
		    fmt_bytes(b[3], sizeof(b[3]), sum[1]), fmt_count(b[4], sizeof(b[4]), sum[3]),
		    fmt_bytes(b[5], sizeof(b[5]), (uint64_t)rate(sum[1], span)));
		fprintf(out, "storage  read %s, written %s, cancelled %s\n",
			fmt_bytes(b[0], sizeof(b[0]), sum[4]),
			fmt_bytes(b[1], sizeof(b[1]), sum[5]),
			fmt_bytes(b[2], sizeof(b[2]), sum[6]));
		if (iowait_all && table__rows(t))
			fprintf(out, "block I/O delay  %s\n", fmt_ns(b[0], sizeof(b[0]), sum[7]));
		else
			fprintf(out,
				"block I/O delay  not measured (kernel.task_delayacct was 0)\n");
		fprintf(out, "per file: not collected (%s)\n\n", per_file_reason);
		err = table__print(t, out, OUT_TEXT);
		if (err)
			break;
		if (!events) {
			fprintf(out, "\nfile-system events: not collected (%s)\n",
				events_reason(&p));
		} else {
			fprintf(out,
				"\nfile-system events: %" PRIu64 " opens denied, %" PRIu64
				" deleted, %" PRIu64 " renamed, %" PRIu64 " truncated\n",
				nev[0], nev[1], nev[2], nev[3]);
			if (table__rows(et))
				err = table__print(et, out, OUT_TEXT);
			if (err)
				break;
		}
		if (!probe__active(&sp))
			fprintf(out, "\nI/O syscalls: not collected (syscalls: %s: %s)\n", sp.state,
				sp.reason);
		else if (!table__rows(yt))
			fprintf(out,
				"\nI/O syscalls (the syscalls collector, per operation): none\n");
		else {
			fprintf(out,
				"\nI/O syscalls (the syscalls collector, per operation, not per "
				"file; latency from its log2 histogram):\n");
			err = table__print(yt, out, OUT_TEXT);
		}
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
		json__key(&j, "fs_events");
		if (events)
			table__json(et, &j, NULL, 0);
		else
			json__null(&j);
		json__kv_string(&j, "fs_events_reason", events ? NULL : events_reason(&p));
		json__key(&j, "syscalls");
		if (probe__active(&sp))
			table__json(yt, &j, NULL, 0);
		else
			json__null(&j);
		json__kv_string(&j, "syscalls_reason", probe__active(&sp) ? NULL : sp.reason);
		json__end_object(&j);
		err = json__end(&j);
		break;
	}
	if (!err && (fflush(out) || ferror(out)))
		err = -EIO;
cleanup:
	table__free(t);
	table__free(yt);
	table__free(et);
	free(drops);
	return err;
}

static const struct an_report io_report = {
    .name = "io",
    .order = 83,
    .summary = "bytes and syscalls read and written, storage bytes and block\n"
	       "I/O delay, per interval and in all (/proc/PID/io)",
    .tables = "io_sample,syscall_stat",
    .run = report_io,
};

const struct an_report *const io_reports[] = {
    &io_report,
    NULL,
};
