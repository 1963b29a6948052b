/* report.c — `report io`: the target's I/O per interval from the /proc lane (bytes and
 * syscalls read and written, storage bytes, block I/O delay), the totals over the window;
 * from the per-file lane (--io-files) the files by bytes, by operations and by time in the
 * call, the fsyncs per file, the latency histograms per operation (and per operation of
 * the top file), the io_uring requests by opcode; the file-system events (--io-events);
 * and what this capture cannot say, with the reason.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/report.h"
#include <linux/types.h>

#include "collectors/io/io.h"
#include "collectors/io/report.h"
#include "collectors/syscalls/report.h"

/* the report's own options (report.h) */
static const struct io_opts *io_own(const struct report_opts *o)
{
	return REPORT_OWN(o, struct io_opts);
}

/* One row per interval: a --cgroup capture's processes (one io_sample row each) summed;
 * the delay measured only when it was for every one. */
static const char rows_sql[] =
    "SELECT time_ns, max(interval_ns), sum(rchar), sum(wchar), sum(syscr), sum(syscw), "
    "sum(read_bytes), sum(write_bytes), sum(cancelled_write_bytes), "
    "CASE WHEN count(iowait_ns) = count(*) THEN sum(iowait_ns) END FROM io_sample WHERE cap = ?1 "
    "AND time_ns - COALESCE(interval_ns, 0) / 2 >= ?2 "
    "AND time_ns - COALESCE(interval_ns, 0) / 2 < ?3 GROUP BY time_ns ORDER BY time_ns";

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

/* The window's file-system events into T; *N[5] their counts by kind (denied, deleted,
 * renamed, truncated, created). */
static int build_events(sqlite3 *db, const struct capture_meta *m, const struct window *w,
			struct table *t, uint64_t n[5])
{
	static const char *const kinds[5] = {"denied", "deleted", "renamed", "truncated",
					     "created"};
	sqlite3_stmt *st = NULL;
	int64_t lo, hi;
	char a[32], f[32];
	int err = 0, rc;

	memset(n, 0, 5 * sizeof(*n));
	window__bounds(w, m, &lo, &hi);
	if (report__prepare_at(db, events_sql, m, lo, hi, &st))
		return -EIO;
	while (!err && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t time_ns = sqlite3_column_int64(st, 0);
		const char *kind = (const char *)sqlite3_column_text(st, 1);

		for (int k = 0; k < 5; k++)
			n[k] += !strcmp(kind, kinds[k]);
		err = table__add_row(t);
		err = err
			  ?: table__set_real(t, ECOL_T, (double)(time_ns - m->base_ns) / 1e9,
					     fmt_secs(a, sizeof(a), time_ns - m->base_ns));
		for (int c = 1; !err && c <= 4; c++)
			/* an empty path: ftruncate's file was not known (unknown, not "") */
			if (sqlite3_column_type(st, c) != SQLITE_NULL &&
			    (c != ECOL_PATH || *sqlite3_column_text(st, c)))
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

/* Why the io_uring requests were not counted while the per-file lane ran (a kernel
 * without the io_uring_submit_req tracepoint), or NULL: they were. Points into P's detail,
 * up to the next "; " (a static copy). */
static const char *uring_not(const struct probe_info *p)
{
	static char why[256];
	const char *s = strstr(p->detail, IO_URING_NOT);
	size_t n;

	if (!s)
		return NULL;
	s += strlen(IO_URING_NOT);
	n = strcspn(s, ";");
	snprintf(why, sizeof(why), "%.*s", (int)(n < sizeof(why) ? n : sizeof(why) - 1), s);
	return why;
}

/* ------------------------------------------------------------------ per file */

#define IN_WINDOW                                                                               \
	"cap = ?1 AND time_ns - COALESCE(interval_ns, 0) / 2 >= ?2 "                            \
	"AND time_ns - COALESCE(interval_ns, 0) / 2 < ?3"

static const char files_sql[] =
    "SELECT file, (SELECT path FROM io_file p WHERE p.cap = f.cap AND p.file = f.file AND "
    "p.path IS NOT NULL ORDER BY p.time_ns DESC LIMIT 1), max(type), "
    "sum(CASE WHEN " READ_OPS " THEN bytes ELSE 0 END) AS rd, "
    "sum(CASE WHEN " WRITE_OPS " THEN bytes ELSE 0 END) AS wr, "
    "sum(CASE WHEN " READ_OPS " THEN calls ELSE 0 END), "
    "sum(CASE WHEN " WRITE_OPS " THEN calls ELSE 0 END), "
    "sum(CASE WHEN " FSYNC_OPS " THEN calls ELSE 0 END), sum(calls) AS ops, sum(errors), "
    "sum(call_ns), max(max_ns) FROM io_file f WHERE " IN_WINDOW
    " GROUP BY file ORDER BY rd + wr DESC, ops DESC, file";

void io_files__free(struct io_file_sum *f, size_t n)
{
	for (size_t i = 0; f && i < n; i++) {
		free(f[i].file);
		free(f[i].path);
		free(f[i].type);
	}
	free(f);
}

static char *col_dup(sqlite3_stmt *st, int c)
{
	const char *s = (const char *)sqlite3_column_text(st, c);

	return s ? strdup(s) : NULL;
}

int io_files__load(sqlite3 *db, const struct capture_meta *m, const struct window *w,
		   struct io_file_sum **out, size_t *n)
{
	struct io_file_sum *f = NULL;
	sqlite3_stmt *st = NULL;
	size_t cap = 0;
	int64_t lo, hi;
	int err = 0, rc;

	*out = NULL;
	*n = 0;
	window__bounds(w, m, &lo, &hi);
	if (report__prepare_at(db, files_sql, m, lo, hi, &st))
		return -EIO;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct io_file_sum *e;

		if (*n == cap) {
			struct io_file_sum *g = realloc(f, (cap = cap ? 2 * cap : 16) * sizeof(*f));

			if (!g) {
				err = -ENOMEM;
				break;
			}
			f = g;
		}
		e = &f[(*n)++];
		*e = (struct io_file_sum){0};
		e->file = col_dup(st, 0);
		e->path = col_dup(st, 1);
		e->type = col_dup(st, 2);
		if (!e->file || !e->type || (!e->path && sqlite3_column_type(st, 1) != SQLITE_NULL)) {
			err = -ENOMEM;
			break;
		}
		e->read_bytes = sqlite3_column_int64(st, 3);
		e->written_bytes = sqlite3_column_int64(st, 4);
		e->reads = sqlite3_column_int64(st, 5);
		e->writes = sqlite3_column_int64(st, 6);
		e->fsyncs = sqlite3_column_int64(st, 7);
		e->ops = sqlite3_column_int64(st, 8);
		e->errors = sqlite3_column_int64(st, 9);
		e->call_ns = report__col(st, 10, -1);
		e->max_ns = report__col(st, 11, -1);
	}
	if (!err && rc != SQLITE_DONE)
		err = -EIO;
	sqlite3_finalize(st);
	if (err) {
		io_files__free(f, *n);
		*n = 0;
		return err;
	}
	*out = f;
	return 0;
}

int io_files__collected(sqlite3 *db, const struct capture_meta *m, bool *yes, char *why,
			size_t len)
{
	static const char tag[] = "per-file figures not collected: ";
	struct probe_info p;
	const char *s;
	int err = probe__lookup(db, m->cap, "io", &p);

	*yes = false;
	if (err)
		return err;
	if (!probe__active(&p)) {
		snprintf(why, len, "io %s: %s", p.state, p.reason);
		return 0;
	}
	if (strstr(p.detail, "per-file figures from ")) {
		*yes = true;
		return 0;
	}
	s = strstr(p.detail, tag);
	if (s) {
		const char *end = strstr(s, "; file-system events");
		int k = end ? (int)(end - s - (int)strlen(tag)) : (int)strlen(s + strlen(tag));

		snprintf(why, len, "%.*s", k, s + strlen(tag));
	} else {
		snprintf(why, len, "the recorder had no per-file lane (a capture of an older "
				   "version)");
	}
	return 0;
}

enum {
	FCOL_PATH,
	FCOL_FILE,
	FCOL_TYPE,
	FCOL_READ,
	FCOL_WRITTEN,
	FCOL_OPS,
	FCOL_READS,
	FCOL_WRITES,
	FCOL_FSYNCS,
	FCOL_ERRORS,
	FCOL_TIME,
	FCOL_MAX,
	FCOLS
};
static const char *const file_names[FCOLS] = {
    "path",   "file",	"type",	  "read_bytes", "written_bytes", "ops",
    "reads",  "writes", "fsyncs", "errors",	"call_ns",	 "max_ns",
};

static int build_files(const struct io_file_sum *f, size_t n, struct table *t)
{
	char b[4][32];
	int err = 0;

	for (size_t i = 0; !err && i < n; i++) {
		err = table__add_row(t);
		err = err ?: (f[i].path ? table__set_text(t, FCOL_PATH, f[i].path)
					: table__set_null_text(t, "(path not known)"));
		err = err ?: table__set_text(t, FCOL_FILE, f[i].file);
		err = err ?: table__set_text(t, FCOL_TYPE, f[i].type);
		err = err ?: table__set_int(t, FCOL_READ, f[i].read_bytes,
					    fmt_bytes(b[0], sizeof(b[0]), (uint64_t)f[i].read_bytes));
		err = err ?: table__set_int(t, FCOL_WRITTEN, f[i].written_bytes,
					    fmt_bytes(b[1], sizeof(b[1]),
						      (uint64_t)f[i].written_bytes));
		err = err ?: table__set_int(t, FCOL_OPS, f[i].ops,
					    fmt_count(b[2], sizeof(b[2]), (uint64_t)f[i].ops));
		err = err ?: table__set_int(t, FCOL_READS, f[i].reads, NULL);
		err = err ?: table__set_int(t, FCOL_WRITES, f[i].writes, NULL);
		err = err ?: table__set_int(t, FCOL_FSYNCS, f[i].fsyncs, NULL);
		err = err ?: table__set_int(t, FCOL_ERRORS, f[i].errors, NULL);
		if (!err && f[i].call_ns >= 0)
			err = table__set_int(t, FCOL_TIME, f[i].call_ns,
					     fmt_ns(b[3], sizeof(b[3]), (uint64_t)f[i].call_ns));
		if (!err && f[i].max_ns >= 0)
			err = table__set_int(t, FCOL_MAX, f[i].max_ns,
					     fmt_ns(b[0], sizeof(b[0]), (uint64_t)f[i].max_ns));
	}
	return err;
}

/* The latency by operation (of FILE, or of every file when NULL): a summary row per op
 * into T and a row per non-zero bucket into HT. */
static const char ops_sql[] =
    "SELECT op, sum(calls), sum(errors), sum(bytes), sum(call_ns), sum(timed), max(max_ns) "
    "FROM io_file WHERE " IN_WINDOW " AND (?4 IS NULL OR file = ?4) GROUP BY op "
    "ORDER BY sum(calls) DESC, op";
static const char hist_sql[] =
    "SELECT h.op, h.bucket, sum(h.count) FROM io_file_hist h JOIN io_file f ON "
    "f.cap = h.cap AND f.time_ns = h.time_ns AND f.file = h.file AND f.op = h.op AND "
    "f.pid IS h.pid WHERE f.cap = ?1 AND f.time_ns - COALESCE(f.interval_ns, 0) / 2 >= ?2 "
    "AND f.time_ns - COALESCE(f.interval_ns, 0) / 2 < ?3 AND (?4 IS NULL OR f.file = ?4) "
    "GROUP BY h.op, h.bucket ORDER BY h.op, h.bucket";

enum { OCOL_OP, OCOL_CALLS, OCOL_ERRORS, OCOL_BYTES, OCOL_TIME, OCOL_P50, OCOL_P99, OCOL_MAX,
       OCOL_HIST, OCOLS };
static const char *const op_names[OCOLS] = {"op",     "calls",	"errors", "bytes", "call_ns",
					    "p50_ns", "p99_ns", "max_ns", "histogram"};
enum { HCOL_OP, HCOL_BUCKET, HCOL_LO, HCOL_COUNT, HCOLS };
static const char *const h_names[HCOLS] = {"op", "bucket", "lo_ns", "count"};

struct op_hist {
	char op[64];
	uint64_t h[HIST_BUCKETS];
};

static int load_hists(sqlite3 *db, const struct capture_meta *m, int64_t lo, int64_t hi,
		      const char *file, struct table *ht, struct op_hist **out, size_t *n)
{
	sqlite3_stmt *st = NULL;
	struct op_hist *o = NULL;
	size_t cap = 0;
	int err = 0, rc;
	char b[32];

	*n = 0;
	if (report__prepare_at(db, hist_sql, m, lo, hi, &st))
		return -EIO;
	if (file)
		sqlite3_bind_text(st, 4, file, -1, SQLITE_STATIC);
	while (!err && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *op = (const char *)sqlite3_column_text(st, 0);
		int64_t bucket = sqlite3_column_int64(st, 1), count = sqlite3_column_int64(st, 2);

		if (!*n || strcmp(o[*n - 1].op, op)) {
			if (*n == cap) {
				struct op_hist *g = realloc(o, (cap = cap ? 2 * cap : 8) * sizeof(*o));

				if (!g) {
					err = -ENOMEM;
					break;
				}
				o = g;
			}
			memset(&o[*n], 0, sizeof(o[*n]));
			snprintf(o[*n].op, sizeof(o[*n].op), "%s", op);
			(*n)++;
		}
		if (bucket >= 0 && bucket < HIST_BUCKETS)
			o[*n - 1].h[bucket] += (uint64_t)count;
		if (ht) {
			err = table__add_row(ht);
			err = err ?: table__set_text(ht, HCOL_OP, op);
			err = err ?: table__set_int(ht, HCOL_BUCKET, bucket, NULL);
			err = err ?: table__set_int(ht, HCOL_LO, bucket ? (int64_t)1 << bucket : 0,
						    fmt_ns(b, sizeof(b),
							   bucket ? (uint64_t)1 << bucket : 0));
			err = err ?: table__set_int(ht, HCOL_COUNT, count, NULL);
		}
	}
	if (!err && rc != SQLITE_DONE)
		err = -EIO;
	sqlite3_finalize(st);
	if (err) {
		free(o);
		*n = 0;
		return err;
	}
	*out = o;
	return 0;
}

/* "2^10 ▁▃█▂ 2^15": the non-empty span of buckets as one text bar. */
static void hist_bar(const uint64_t *h, char *buf, size_t len)
{
	static const char *const lv[] = {".", ":", "-", "=", "#"};
	int first = -1, last = -1;
	uint64_t max = 0;
	size_t at;

	for (int i = 0; i < HIST_BUCKETS; i++)
		if (h[i]) {
			if (first < 0)
				first = i;
			last = i;
			max = h[i] > max ? h[i] : max;
		}
	if (first < 0) {
		snprintf(buf, len, "-");
		return;
	}
	at = (size_t)snprintf(buf, len, "2^%d [", first);
	for (int i = first; i <= last && at + 2 < len; i++) {
		int k = h[i] ? 1 + (int)((h[i] * 3 + max - 1) / max) : 0;

		buf[at++] = h[i] ? lv[k > 4 ? 4 : k][0] : ' ';
	}
	snprintf(buf + at, len - at, "] 2^%d ns", last + 1);
}

static int build_ops(sqlite3 *db, const struct capture_meta *m, const struct window *w,
		     const char *file, struct table *t, struct table *ht)
{
	struct op_hist *oh = NULL;
	sqlite3_stmt *st = NULL;
	size_t noh = 0;
	int64_t lo, hi;
	char b[4][64];
	int err, rc;

	window__bounds(w, m, &lo, &hi);
	err = load_hists(db, m, lo, hi, file, ht, &oh, &noh);
	if (err)
		return err;
	if (report__prepare_at(db, ops_sql, m, lo, hi, &st)) {
		free(oh);
		return -EIO;
	}
	if (file)
		sqlite3_bind_text(st, 4, file, -1, SQLITE_STATIC);
	while (!err && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *op = (const char *)sqlite3_column_text(st, 0);
		const uint64_t *h = NULL;
		uint64_t est, max = (uint64_t)sqlite3_column_int64(st, 6);

		for (size_t i = 0; i < noh; i++)
			if (!strcmp(oh[i].op, op))
				h = oh[i].h;
		err = table__add_row(t);
		err = err ?: table__set_text(t, OCOL_OP, op);
		err = err ?: table__set_int(t, OCOL_CALLS, sqlite3_column_int64(st, 1), NULL);
		err = err ?: table__set_int(t, OCOL_ERRORS, sqlite3_column_int64(st, 2), NULL);
		err = err ?: table__set_int(t, OCOL_BYTES, sqlite3_column_int64(st, 3),
					    fmt_bytes(b[0], sizeof(b[0]),
						      (uint64_t)sqlite3_column_int64(st, 3)));
		if (!err && sqlite3_column_int64(st, 5) > 0) {
			err = table__set_int(t, OCOL_TIME, sqlite3_column_int64(st, 4),
					     fmt_ns(b[1], sizeof(b[1]),
						    (uint64_t)sqlite3_column_int64(st, 4)));
			err = err ?: table__set_int(t, OCOL_MAX, sqlite3_column_int64(st, 6),
						    fmt_ns(b[2], sizeof(b[2]),
							   (uint64_t)sqlite3_column_int64(st, 6)));
		}
		/* estimates from the buckets, never above the maximum measured */
		if (!err && h && !hist_percentile(h, HIST_BUCKETS, 50, &est, NULL, NULL))
			err = table__set_int(t, OCOL_P50, (int64_t)(est < max ? est : max),
					     fmt_ns(b[1], sizeof(b[1]), est < max ? est : max));
		if (!err && h && !hist_percentile(h, HIST_BUCKETS, 99, &est, NULL, NULL))
			err = table__set_int(t, OCOL_P99, (int64_t)(est < max ? est : max),
					     fmt_ns(b[1], sizeof(b[1]), est < max ? est : max));
		if (!err && h) {
			hist_bar(h, b[3], sizeof(b[3]));
			err = table__set_text(t, OCOL_HIST, b[3]);
		}
	}
	if (!err && rc != SQLITE_DONE)
		err = -EIO;
	sqlite3_finalize(st);
	free(oh);
	return err;
}

static const char uring_sql[] =
    "SELECT opcode, op, sum(submitted), sum(completed), sum(errors), sum(bytes) FROM "
    "io_uring_op WHERE " IN_WINDOW " GROUP BY opcode ORDER BY sum(submitted) DESC, opcode";

enum { UCOL_OP, UCOL_OPCODE, UCOL_SUB, UCOL_DONE, UCOL_ERR, UCOL_BYTES, UCOLS };
static const char *const u_names[UCOLS] = {"op",	"opcode", "submitted",
					   "completed", "errors", "bytes"};

static int build_uring(sqlite3 *db, const struct capture_meta *m, const struct window *w,
		       struct table *t)
{
	sqlite3_stmt *st = NULL;
	int64_t lo, hi;
	char b[32];
	int err = 0, rc;

	window__bounds(w, m, &lo, &hi);
	if (report__prepare_at(db, uring_sql, m, lo, hi, &st))
		return -EIO;
	while (!err && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		err = table__add_row(t);
		err = err ?: table__set_text(t, UCOL_OP, (const char *)sqlite3_column_text(st, 1));
		err = err ?: table__set_int(t, UCOL_OPCODE, sqlite3_column_int64(st, 0), NULL);
		for (int c = 2; !err && c <= 4; c++)
			err = table__set_int(t, UCOL_SUB + c - 2, sqlite3_column_int64(st, c), NULL);
		err = err ?: table__set_int(t, UCOL_BYTES, sqlite3_column_int64(st, 5),
					    fmt_bytes(b, sizeof(b),
						      (uint64_t)sqlite3_column_int64(st, 5)));
	}
	if (!err && rc != SQLITE_DONE)
		err = -EIO;
	sqlite3_finalize(st);
	return err;
}

/* Print the N rows of F in the order of CMP (the top TOP) as a text table of COLS. */
static int print_top(const struct io_file_sum *f, size_t n, size_t top,
		     int (*cmp)(const void *, const void *), const size_t *cols, size_t ncols,
		     FILE *out)
{
	struct io_file_sum *c = malloc((n ? n : 1) * sizeof(*c));
	struct table *t = table__new(FCOLS, file_names);
	int err;

	if (!c || !t) {
		free(c);
		table__free(t);
		return -ENOMEM;
	}
	if (n) /* F is NULL when there is no row */
		memcpy(c, f, n * sizeof(*c));
	if (cmp)
		qsort(c, n, sizeof(*c), cmp);
	err = build_files(c, n < top ? n : top, t);
	err = err ?: table__print_cols(t, out, OUT_TEXT, cols, ncols);
	free(c);
	table__free(t);
	return err;
}

static int by_ops(const void *a, const void *b)
{
	const struct io_file_sum *x = a, *y = b;

	return x->ops != y->ops ? (x->ops < y->ops ? 1 : -1) : strcmp(x->file, y->file);
}

static int by_time(const void *a, const void *b)
{
	const struct io_file_sum *x = a, *y = b;

	return x->call_ns != y->call_ns ? (x->call_ns < y->call_ns ? 1 : -1)
					: strcmp(x->file, y->file);
}

static int by_fsyncs(const void *a, const void *b)
{
	const struct io_file_sum *x = a, *y = b;

	return x->fsyncs != y->fsyncs ? (x->fsyncs < y->fsyncs ? 1 : -1)
				      : strcmp(x->file, y->file);
}

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
	if (report__prepare_at(db, rows_sql, m, lo, hi, &st))
		return -EIO;
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

/* By process: what /proc/PID/io counted for it (io_sample) and what the per-file lane
 * counted of its calls (io_file), each NULL where that lane has no row of the process. */
enum { PCOL_PID, PCOL_COMM, PCOL_PROC_READ, PCOL_PROC_WRITTEN, PCOL_PROC_RCALLS,
       PCOL_PROC_WCALLS, PCOL_FILE_READ, PCOL_FILE_WRITTEN, PCOL_FILE_RCALLS, PCOL_FILE_WCALLS,
       PCOLS };
static const char *const proc_names[PCOLS] = {
    "pid",	       "comm",	      "proc_read_bytes", "proc_written_bytes", "proc_read_calls",
    "proc_write_calls", "file_read_bytes", "file_written_bytes", "file_read_calls",
    "file_write_calls"};

static const char procs_sql[] =
    "WITH s AS (SELECT pid, sum(rchar) AS rc, sum(wchar) AS wc, sum(syscr) AS sr, "
    " sum(syscw) AS sw FROM io_sample WHERE " IN_WINDOW " GROUP BY pid), "
    "f AS (SELECT pid, sum(CASE WHEN " READ_OPS " THEN bytes ELSE 0 END) AS fr, "
    " sum(CASE WHEN " WRITE_OPS " THEN bytes ELSE 0 END) AS fw, "
    " sum(CASE WHEN " READ_OPS " THEN calls ELSE 0 END) AS frc, "
    " sum(CASE WHEN " WRITE_OPS " THEN calls ELSE 0 END) AS fwc "
    " FROM io_file WHERE " IN_WINDOW " GROUP BY pid), "
    "p AS (SELECT pid FROM s UNION SELECT pid FROM f) "
    "SELECT p.pid, COALESCE((SELECT comm FROM proc_context c WHERE c.cap = ?1 AND "
    " c.pid = p.pid AND c.comm IS NOT NULL ORDER BY c.time_ns DESC LIMIT 1), (SELECT comm "
    " FROM cgroup_proc g WHERE g.cap = ?1 AND g.pid = p.pid AND g.comm IS NOT NULL ORDER BY "
    " g.seq DESC LIMIT 1), (SELECT comm FROM target t WHERE t.cap = ?1 AND t.pid = p.pid)), "
    "s.rc, s.wc, s.sr, s.sw, f.fr, f.fw, f.frc, f.fwc FROM p LEFT JOIN s ON s.pid IS p.pid "
    "LEFT JOIN f ON f.pid IS p.pid ORDER BY COALESCE(s.rc, 0) + COALESCE(s.wc, 0) + "
    "COALESCE(f.fr, 0) + COALESCE(f.fw, 0) DESC, p.pid";

/* The pid and comm (else "") of the first row of T that has column COL (the process the
 * one /proc lane read). */
static const char *proc_pid_text(const struct table *t, size_t col)
{
	for (size_t r = 0; r < table__rows(t); r++)
		if (table__type(t, r, col) != CELL_NULL)
			return table__shown(t, r, PCOL_PID);
	return "?";
}

static const char *proc_comm_text(const struct table *t, size_t col)
{
	for (size_t r = 0; r < table__rows(t); r++)
		if (table__type(t, r, col) != CELL_NULL)
			return table__type(t, r, PCOL_COMM) != CELL_NULL
				   ? table__shown(t, r, PCOL_COMM)
				   : "";
	return "";
}

/* The window's processes into T (procs_sql); *NPROC and *NFILE: how many have /proc rows
 * and per-file rows. */
static int build_procs(sqlite3 *db, const struct capture_meta *m, const struct window *w,
		       struct table *t, size_t *nproc, size_t *nfile)
{
	sqlite3_stmt *st = NULL;
	int64_t lo, hi;
	char b[32];
	int err = 0, rc;

	*nproc = *nfile = 0;
	window__bounds(w, m, &lo, &hi);
	if (report__prepare_at(db, procs_sql, m, lo, hi, &st))
		return -EIO;
	while (!err && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		err = table__add_row(t);
		if (sqlite3_column_type(st, 0) != SQLITE_NULL)
			err = err ?: table__set_int(t, PCOL_PID, sqlite3_column_int64(st, 0), NULL);
		if (sqlite3_column_type(st, 1) != SQLITE_NULL)
			err = err ?: table__set_text(t, PCOL_COMM,
						     (const char *)sqlite3_column_text(st, 1));
		*nproc += sqlite3_column_type(st, 2) != SQLITE_NULL;
		*nfile += sqlite3_column_type(st, 6) != SQLITE_NULL;
		for (int i = 0; !err && i < 8; i++) {
			int64_t v = sqlite3_column_int64(st, 2 + i);
			bool bytes = i == 0 || i == 1 || i == 4 || i == 5;

			if (sqlite3_column_type(st, 2 + i) == SQLITE_NULL)
				continue; /* not counted by that lane: never 0 */
			err = table__set_int(t, PCOL_PROC_READ + i, v,
					     bytes ? fmt_bytes(b, sizeof(b), (uint64_t)v) : NULL);
		}
	}
	if (!err && rc != SQLITE_DONE)
		err = -EIO;
	sqlite3_finalize(st);
	return err;
}

/* The processes with io_sample rows in window W (more than one: a --cgroup capture). */
static int count_procs(sqlite3 *db, const struct capture_meta *m, const struct window *w,
		       int64_t *n)
{
	sqlite3_stmt *st = NULL;
	int64_t lo, hi;
	int rc;

	window__bounds(w, m, &lo, &hi);
	if (report__prepare_at(db, "SELECT count(DISTINCT pid) FROM io_sample WHERE cap = ?1 "
			       "AND time_ns - COALESCE(interval_ns, 0) / 2 >= ?2 "
			       "AND time_ns - COALESCE(interval_ns, 0) / 2 < ?3", m, lo, hi, &st))
		return -EIO;
	rc = sqlite3_step(st);
	*n = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 0 : -EIO;
}

int io_rows__sum(sqlite3 *db, const struct capture_meta *m, const struct window *w,
		 uint64_t sum[8], size_t *n)
{
	struct table *t = table__new(COLS, col_names);
	bool all;
	int64_t span;
	int err;

	*n = 0;
	if (!t)
		return -ENOMEM;
	err = build_rows(db, m, w, t, sum, &all, &span);
	*n = table__rows(t);
	table__free(t);
	return err;
}

int io_unread__load(sqlite3 *db, const struct capture_meta *m, const struct window *w,
		    struct io_unread **out, size_t *n)
{
	static const char sql[] = "SELECT time_ns, detail FROM drop_notice WHERE cap = ?1 AND "
				  "collector = 'io' AND kind = 'ended_unread' ORDER BY time_ns, rowid";
	bool whole = !w->has_start && !w->has_end;
	sqlite3_stmt *st = NULL;
	struct io_unread *a = NULL, *na;
	size_t cnt = 0;
	int64_t lo, hi;
	int err = 0, rc;

	*out = NULL;
	*n = 0;
	window__bounds(w, m, &lo, &hi);
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return -EIO;
	sqlite3_bind_int64(st, 1, m->cap);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *d = (const char *)sqlite3_column_text(st, 1);
		struct io_unread u = {.found_ns = sqlite3_column_int64(st, 0)};

		/* the recorder's detail: "pid N from_ns T: ..." (T 0: the recording's start) */
		if (!d || sscanf(d, "pid %d from_ns %" SCNd64, &u.pid, &u.from_ns) != 2)
			continue;
		if (u.from_ns < m->base_ns) /* none, or the baseline read just before the start */
			u.from_ns = m->base_ns;
		if (!whole && (u.found_ns < lo || u.from_ns >= hi))
			continue;
		if (!(na = realloc(a, (cnt + 1) * sizeof(*a)))) {
			err = -ENOMEM;
			break;
		}
		a = na;
		a[cnt++] = u;
	}
	if (!err && rc != SQLITE_DONE)
		err = -EIO;
	sqlite3_finalize(st);
	if (err) {
		free(a);
		return err;
	}
	*out = a;
	*n = cnt;
	return 0;
}

int io_events__count(sqlite3 *db, const struct capture_meta *m, const struct window *w,
		     bool *collected, uint64_t n[5])
{
	struct table *t;
	struct probe_info p;
	int err = probe__lookup(db, m->cap, "io", &p);

	memset(n, 0, 5 * sizeof(*n));
	*collected = false;
	if (err)
		return err;
	if (!probe__active(&p) || strcmp(p.source, "ebpf"))
		return 0;
	*collected = true;
	t = table__new(ECOLS, ev_names);
	if (!t)
		return -ENOMEM;
	err = build_events(db, m, w, t, n);
	table__free(t);
	return err;
}

static double rate(uint64_t v, int64_t span)
{
	return span > 0 ? (double)v * 1e9 / (double)span : 0;
}

/* --file: one file's figures per interval (io_file summed over its processes and
 * operations per interval). */
static const char series_sql[] =
    "SELECT time_ns, max(interval_ns), sum(CASE WHEN " READ_OPS " THEN bytes ELSE 0 END), "
    "sum(CASE WHEN " WRITE_OPS " THEN bytes ELSE 0 END), "
    "sum(CASE WHEN " READ_OPS " THEN calls ELSE 0 END), "
    "sum(CASE WHEN " WRITE_OPS " THEN calls ELSE 0 END), "
    "sum(CASE WHEN " FSYNC_OPS " THEN calls ELSE 0 END), sum(calls), sum(errors), "
    "sum(call_ns), max(max_ns) FROM io_file WHERE " IN_WINDOW " AND file = ?4 "
    "GROUP BY time_ns ORDER BY time_ns";

/* The files a --file argument names: its identity, or a path one of its rows carries. */
static const char which_sql[] =
    "SELECT file, (SELECT path FROM io_file p WHERE p.cap = f.cap AND p.file = f.file AND "
    "p.path IS NOT NULL ORDER BY p.time_ns DESC LIMIT 1) FROM io_file f "
    "WHERE cap = ?1 AND (file = ?2 OR path = ?2) GROUP BY file ORDER BY file";

enum {
	SCOL_T,
	SCOL_INTERVAL,
	SCOL_READ,
	SCOL_WRITTEN,
	SCOL_READ_RATE,
	SCOL_WRITE_RATE,
	SCOL_READS,
	SCOL_WRITES,
	SCOL_FSYNCS,
	SCOL_OPS,
	SCOL_ERRORS,
	SCOL_TIME,
	SCOL_MAX,
	SCOLS
};
static const char *const s_names[SCOLS] = {
    "t_s",	 "interval_s", "read_bytes", "written_bytes", "read_per_s", "written_per_s",
    "reads", "writes",	   "fsyncs",	 "ops",		  "errors",	"call_ns",
    "max_ns",
};

/* The identity (*FILE) and newest path (*PATH, may be NULL) of the one file ARG names
 * (a path or MAJOR:MINOR:INODE), both malloc'd. -EPROTO (said on stderr) when none or
 * several do; -ENOMEM, -EIO. */
static int series_which(sqlite3 *db, const struct capture_meta *m, const char *arg, char **file,
			char **path)
{
	sqlite3_stmt *st = NULL;
	int err = 0, rc, n = 0;

	*file = *path = NULL;
	if (sqlite3_prepare_v2(db, which_sql, -1, &st, NULL) != SQLITE_OK)
		return -EIO;
	sqlite3_bind_int64(st, 1, m->cap);
	sqlite3_bind_text(st, 2, arg, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (n++) {
			if (n == 2)
				fprintf(stderr,
					"ptop-analyze report io: --file %s names several files "
					"(the path was reused); give one of them as "
					"MAJOR:MINOR:INODE: %s",
					arg, *file);
			fprintf(stderr, " %s", (const char *)sqlite3_column_text(st, 0));
			continue;
		}
		*file = col_dup(st, 0);
		*path = col_dup(st, 1);
		if (!*file || (!*path && sqlite3_column_type(st, 1) != SQLITE_NULL)) {
			err = -ENOMEM;
			break;
		}
	}
	if (!err && rc != SQLITE_DONE)
		err = -EIO;
	sqlite3_finalize(st);
	if (!err && n > 1) {
		fputc('\n', stderr);
		err = -EPROTO;
	} else if (!err && !n) {
		fprintf(stderr,
			"ptop-analyze report io: --file %s: no such file in the capture's "
			"per-file figures (report io lists them; a path as recorded, or "
			"MAJOR:MINOR:INODE)\n",
			arg);
		err = -EPROTO;
	}
	if (err) {
		free(*file);
		free(*path);
		*file = *path = NULL;
	}
	return err;
}

/* Fill T with FILE's intervals in window W (one row per interval with calls). */
static int build_series(sqlite3 *db, const struct capture_meta *m, const struct window *w,
			const char *file, struct table *t)
{
	sqlite3_stmt *st = NULL;
	int64_t lo, hi;
	char b[32];
	int err = 0, rc;

	window__bounds(w, m, &lo, &hi);
	if (report__prepare_at(db, series_sql, m, lo, hi, &st))
		return -EIO;
	sqlite3_bind_text(st, 4, file, -1, SQLITE_STATIC);
	while (!err && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t time_ns = sqlite3_column_int64(st, 0);
		int64_t interval = report__col(st, 1, -1);

		err = table__add_row(t);
		err = err ?: table__set_real(t, SCOL_T, (double)(time_ns - m->base_ns) / 1e9,
					     fmt_secs(b, sizeof(b), time_ns - m->base_ns));
		if (!err && interval > 0)
			err = table__set_real(t, SCOL_INTERVAL, (double)interval / 1e9,
					      fmt_secs(b, sizeof(b), interval));
		for (int i = 0; !err && i < 2; i++) {
			int64_t v = sqlite3_column_int64(st, 2 + i);

			err = table__set_int(t, SCOL_READ + i, v,
					     fmt_bytes(b, sizeof(b), (uint64_t)v));
			if (!err && interval > 0) {
				double r = (double)v * 1e9 / (double)interval;

				fmt_bytes(b, sizeof(b), (uint64_t)r);
				strncat(b, "/s", sizeof(b) - strlen(b) - 1);
				err = table__set_real(t, SCOL_READ_RATE + i, r, b);
			}
		}
		for (int i = 0; !err && i < 5; i++)
			err = table__set_int(t, SCOL_READS + i, sqlite3_column_int64(st, 4 + i), NULL);
		if (!err && sqlite3_column_type(st, 9) != SQLITE_NULL)
			err = table__set_int(t, SCOL_TIME, sqlite3_column_int64(st, 9),
					     fmt_ns(b, sizeof(b),
						    (uint64_t)sqlite3_column_int64(st, 9)));
		if (!err && sqlite3_column_type(st, 10) != SQLITE_NULL)
			err = table__set_int(t, SCOL_MAX, sqlite3_column_int64(st, 10),
					     fmt_ns(b, sizeof(b),
						    (uint64_t)sqlite3_column_int64(st, 10)));
	}
	if (!err && rc != SQLITE_DONE)
		err = -EIO;
	sqlite3_finalize(st);
	return err;
}

/* report io --file ARG: one file's figures per interval, in o->fmt. */
static int report_io_file(sqlite3 *db, const struct capture_meta *m, const struct report_opts *o,
			  struct json *j, FILE *out)
{
	char why[512] = "", w[96], *file = NULL, *path = NULL;
	struct table *t = NULL;
	bool yes = false;
	int err;

	err = io_files__collected(db, m, &yes, why, sizeof(why));
	if (!err && !yes) {
		fprintf(stderr, "ptop-analyze report io: --file %s: per file: not collected (%s)\n",
			io_own(o)->file, why);
		err = -EPROTO;
	}
	err = err ?: series_which(db, m, io_own(o)->file, &file, &path);
	if (!err && !(t = table__new(SCOLS, s_names)))
		err = -ENOMEM;
	err = err ?: build_series(db, m, &o->win, file, t);
	if (err)
		goto cleanup;
	switch (o->fmt) {
	case OUT_TEXT:
		window__describe(&o->win, w, sizeof(w));
		fprintf(out,
			"io file %s (%s) (%s): %zu intervals with calls (--io-files; time is the "
			"time in the syscall, not device time)\n\n",
			path ? path : "(path not known)", file, w, table__rows(t));
		err = table__print(t, out, OUT_TEXT);
		break;
	case OUT_CSV:
		err = table__print(t, out, OUT_CSV);
		break;
	case OUT_JSON:
		json__kv_bool(j, "collected", true);
		json__kv_string(j, "file", file);
		json__kv_string(j, "path", path);
		json__key(j, "intervals");
		table__json(t, j, NULL, 0);
		json__end_object(j);
		err = json__end(j);
		break;
	}
cleanup:
	table__free(t);
	free(file);
	free(path);
	return err;
}

/* The table --table NAME picks for CSV, and the reason it was not collected (NULL: it was). */
static const char *const csv_tables[] = {"intervals", "files",	"operations", "latency",
					 "io_uring",  "events", "syscalls",   "processes"};

static const char *io_check(const struct report_opts *o)
{
	const struct io_opts *io = REPORT_OWN(o, struct io_opts);
	bool known = false;

	if (io->table && io->file)
		return "--table and --file do not go together (--file prints one table)";
	if (io->table && o->fmt != OUT_CSV)
		return "--table is for --format csv (text and JSON hold every table)";
	for (size_t i = 0; io->table && i < sizeof(csv_tables) / sizeof(csv_tables[0]); i++)
		known |= !strcmp(io->table, csv_tables[i]);
	if (io->table && !known)
		return "--table takes intervals, files, operations, latency, io_uring, events, "
		       "syscalls or processes";
	return NULL;
}

/* The unread intervals (io_unread__load): a line each in text (on stderr in CSV, as the
 * drops), an array "unread" in JSON; the sums are lower bounds then. */
static void print_unread(struct json *j, FILE *out, const struct report_opts *o,
			 const struct capture_meta *m, const struct io_unread *u, size_t n)
{
	char a[32], b[32];

	if (o->fmt == OUT_JSON) {
		json__key(j, "unread");
		json__begin_array(j);
		for (size_t i = 0; i < n; i++) {
			json__begin_object(j);
			json__kv_int(j, "pid", u[i].pid);
			json__kv_real(j, "from_s", (double)(u[i].from_ns - m->base_ns) / 1e9);
			json__kv_real(j, "ended_by_s", (double)(u[i].found_ns - m->base_ns) / 1e9);
			json__kv_string(j, "reason", "the process had ended before the recorder's "
						     "read: its I/O from then to its end is not "
						     "counted");
			json__end_object(j);
		}
		json__end_array(j);
		json__kv_bool(j, "totals_are_lower_bounds", n > 0);
		return;
	}
	for (size_t i = 0; i < n; i++)
		fprintf(o->fmt == OUT_CSV ? stderr : out,
			"unread: the last interval of pid %d (from t=%s s to its end, before t=%s s) was "
			"not read: the process had ended before the recorder's read; the totals are "
			"at least these\n",
			u[i].pid, fmt_secs(a, sizeof(a), u[i].from_ns - m->base_ns),
			fmt_secs(b, sizeof(b), u[i].found_ns - m->base_ns));
}

static const char *const sum_key[NSUMS] = {"read_bytes",
					   "written_bytes",
					   "read_calls",
					   "write_calls",
					   "storage_read_bytes",
					   "storage_written_bytes",
					   "cancelled_write_bytes",
					   "iowait_ns"};
/* the /proc lane ran but has no sample in the window: a cgroup with no process at any
 * interval, a target that ended before the first, a window between two samples */
static const char no_sample_why[] = "no /proc/PID/io sample in the window: no process "
				    "of the target was read at an interval's end";

/* Everything `report io` shows of the window, loaded once for any format (io_view_load). */
struct io_view {
	struct table *t, *yt, *et, *pt; /* intervals, I/O syscalls, events, processes */
	struct table *ft, *ot, *oht, *tt, *tht, *ut; /* per file (--io-files): files, operations,
						      * latency, the top file's, io_uring */
	size_t np_proc, np_file;
	uint64_t nev[5];
	struct io_file_sum *files;
	size_t nfiles;
	bool per_file; /* the per-file lane ran; else fwhy says why not */
	char fwhy[512];
	bool events; /* the eBPF lane ran (--io-events) */
	struct probe_info sp; /* the syscalls probe */
	uint64_t sum[NSUMS];
	bool iowait_all;
	int64_t span, nproc;
	struct io_unread *unread;
	size_t nunread;
};

/* The view of CTX's window into V (zeroed). 0, -ENOMEM, -EIO; free with io_view_free. */
static int io_view_load(const struct report_ctx *ctx, struct io_view *v)
{
	sqlite3 *db = ctx->db;
	const struct capture_meta *cm = ctx->m;
	const struct window *win = &ctx->o->win;
	int err;

	v->t = table__new(COLS, col_names);
	v->yt = table__new(YCOLS, sys_names);
	v->et = table__new(ECOLS, ev_names);
	v->pt = table__new(PCOLS, proc_names);
	if (!v->t || !v->yt || !v->et || !v->pt)
		return -ENOMEM;
	err = probe__lookup(db, cm->cap, "syscalls", &v->sp);
	err = err ?: build_rows(db, cm, win, v->t, v->sum, &v->iowait_all, &v->span);
	err = err ?: count_procs(db, cm, win, &v->nproc);
	if (!err && probe__active(&v->sp))
		err = build_syscalls(db, cm, win, v->yt);
	v->events = !strcmp(ctx->probe->source, "ebpf"); /* the eBPF lane ran (--io-events) */
	if (!err && v->events)
		err = build_events(db, cm, win, v->et, v->nev);
	err = err ?: io_files__collected(db, cm, &v->per_file, v->fwhy, sizeof(v->fwhy));
	if (!err && v->per_file) {
		v->ft = table__new(FCOLS, file_names);
		v->ot = table__new(OCOLS, op_names);
		v->oht = table__new(HCOLS, h_names);
		v->tt = table__new(OCOLS, op_names);
		v->tht = table__new(HCOLS, h_names);
		v->ut = table__new(UCOLS, u_names);
		if (!v->ft || !v->ot || !v->oht || !v->tt || !v->tht || !v->ut)
			err = -ENOMEM;
		err = err ?: io_files__load(db, cm, win, &v->files, &v->nfiles);
		err = err ?: build_files(v->files, v->nfiles, v->ft);
		err = err ?: build_ops(db, cm, win, NULL, v->ot, v->oht);
		if (!err && v->nfiles)
			err = build_ops(db, cm, win, v->files[0].file, v->tt, v->tht);
		err = err ?: build_uring(db, cm, win, v->ut);
	}
	err = err ?: build_procs(db, cm, win, v->pt, &v->np_proc, &v->np_file);
	err = err ?: io_unread__load(db, cm, win, &v->unread, &v->nunread);
	return err;
}

static void io_view_free(struct io_view *v)
{
	table__free(v->t);
	table__free(v->pt);
	table__free(v->yt);
	table__free(v->et);
	table__free(v->ft);
	table__free(v->ot);
	table__free(v->oht);
	table__free(v->tt);
	table__free(v->tht);
	table__free(v->ut);
	io_files__free(v->files, v->nfiles);
	free(v->unread);
}

/* The per-file part of the text (--io-files): files by bytes, operations, time and fsyncs,
 * latency by operation and of the top file, io_uring requests. P: the io probe. 0 or -errno. */
static int io_text_files(FILE *out, const struct io_view *v, const struct probe_info *p)
{
	static const size_t bytes_cols[] = {FCOL_PATH,	 FCOL_WRITTEN, FCOL_READ,
					    FCOL_OPS,	 FCOL_FSYNCS,  FCOL_ERRORS,
					    FCOL_TIME,	 FCOL_MAX,     FCOL_TYPE};
	static const size_t ops_cols[] = {FCOL_PATH, FCOL_OPS, FCOL_READS,
					  FCOL_WRITES, FCOL_FSYNCS, FCOL_ERRORS};
	static const size_t time_cols[] = {FCOL_PATH, FCOL_TIME, FCOL_MAX, FCOL_OPS};
	static const size_t fsync_cols[] = {FCOL_PATH, FCOL_FSYNCS, FCOL_WRITTEN};
	size_t nf = 0;
	int err;

	fprintf(out,
		"\nper file (--io-files): %zu files, the calls of %zu process%s "
		"(their own, not their children's unless traced too: see by "
		"process); time is the time in the syscall, not device time\n\n"
		"files by bytes:\n",
		v->nfiles, v->np_file, v->np_file == 1 ? "" : "es");
	err = print_top(v->files, v->nfiles, 10, NULL, bytes_cols, 9, out);
	if (!err) {
		fprintf(out, "\nfiles by operations:\n");
		err = print_top(v->files, v->nfiles, 5, by_ops, ops_cols, 6, out);
	}
	if (!err) {
		fprintf(out, "\nfiles by time in the call (in the syscall, not "
			     "device time):\n");
		err = print_top(v->files, v->nfiles, 5, by_time, time_cols, 4, out);
	}
	for (size_t i = 0; i < v->nfiles; i++)
		nf += v->files[i].fsyncs > 0;
	if (!err && nf) {
		fprintf(out, "\nfsyncs per file (fsync, fdatasync, "
			     "sync_file_range):\n");
		err = print_top(v->files, v->nfiles, nf, by_fsyncs, fsync_cols, 3, out);
	} else if (!err) {
		fprintf(out, "\nfsyncs per file: none\n");
	}
	if (err)
		return err;
	fprintf(out, "\nlatency by operation (time in the syscall; log2 "
		     "histogram, percentiles estimated from its buckets):\n");
	err = table__print(v->ot, out, OUT_TEXT);
	if (!err && v->nfiles) {
		fprintf(out, "\nlatency of the top file (%s) by operation:\n",
			v->files[0].path ? v->files[0].path : v->files[0].file);
		err = table__print(v->tt, out, OUT_TEXT);
	}
	if (!err && uring_not(p)) {
		fprintf(out, "\nio_uring requests: not measured (%s)\n",
			uring_not(p));
	} else if (!err && table__rows(v->ut)) {
		fprintf(out, "\nio_uring requests by opcode:\n");
		err = table__print(v->ut, out, OUT_TEXT);
	} else if (!err) {
		fprintf(out, "\nio_uring requests: none\n");
	}
	if (err)
		return err;
	return 0;
}

/* `report io` in text. 0 or -errno. */
static int io_text(const struct report_ctx *ctx, const struct io_view *v)
{
	const struct report_opts *o = ctx->o;
	FILE *out = ctx->out;
	char w[96], b[8][32];
	int err;

	window__describe(&o->win, w, sizeof(w));
	fprintf(out, "io (%s): %zu intervals, /proc/PID/io", w, table__rows(v->t));
	if (v->nproc > 1) /* a --cgroup capture: one io_sample row per process */
		fprintf(out, " of %" PRId64 " processes, summed per interval", v->nproc);
	else if (v->nproc == 1 && table__rows(v->pt))
		fprintf(out, " of pid %s%s%s%s", proc_pid_text(v->pt, PCOL_PROC_READ),
			proc_comm_text(v->pt, PCOL_PROC_READ)[0] ? " (" : "",
			proc_comm_text(v->pt, PCOL_PROC_READ),
			proc_comm_text(v->pt, PCOL_PROC_READ)[0] ? ")" : "");
	if (v->nproc >= 1)
		fprintf(out, ": each process's own I/O and, as the kernel counts it, that "
			     "of the children it waited for");
	fputc('\n', out);
	report__drops(NULL, out, o, "io", ctx->drops, ctx->ndrops);
	print_unread(NULL, out, o, ctx->m, v->unread, v->nunread);
	if (!table__rows(v->t)) { /* no sample: nothing was measured, which is not 0 B */
		fprintf(out, "read, written, storage  not measured (%s)\n", no_sample_why);
	} else {
		fprintf(out,
			"read     %s in %s syscalls (%s/s)\nwritten  %s in %s syscalls "
			"(%s/s)\n",
			fmt_bytes(b[0], sizeof(b[0]), v->sum[0]),
			fmt_count(b[1], sizeof(b[1]), v->sum[2]),
			fmt_bytes(b[2], sizeof(b[2]), (uint64_t)rate(v->sum[0], v->span)),
			fmt_bytes(b[3], sizeof(b[3]), v->sum[1]),
			fmt_count(b[4], sizeof(b[4]), v->sum[3]),
			fmt_bytes(b[5], sizeof(b[5]), (uint64_t)rate(v->sum[1], v->span)));
	}
	if (table__rows(v->t))
		fprintf(out, "storage  read %s, written %s, cancelled %s\n",
			fmt_bytes(b[0], sizeof(b[0]), v->sum[4]),
			fmt_bytes(b[1], sizeof(b[1]), v->sum[5]),
			fmt_bytes(b[2], sizeof(b[2]), v->sum[6]));
	if (v->iowait_all && table__rows(v->t))
		fprintf(out, "block I/O delay  %s\n", fmt_ns(b[0], sizeof(b[0]), v->sum[7]));
	else if (table__rows(v->t))
		fprintf(out,
			"block I/O delay  not measured (kernel.task_delayacct was 0)\n");
	if (!v->per_file)
		fprintf(out, "per file: not collected (%s)\n", v->fwhy);
	fputc('\n', out);
	err = table__print(v->t, out, OUT_TEXT);
	if (err)
		return err;
	if (table__rows(v->pt) && (v->per_file || table__rows(v->pt) > 1)) {
		fprintf(out,
			"\nby process (proc_*: /proc/PID/io, a process's own I/O with that "
			"of the children it waited for; file_*: the per-file lane's calls "
			"of the process itself; empty: that lane has no record of it):\n");
		err = table__print(v->pt, out, OUT_TEXT);
		if (err)
			return err;
	}
	if (v->per_file && (err = io_text_files(out, v, ctx->probe)))
		return err;
	if (!v->events) {
		fprintf(out, "\nfile-system events: not collected (%s)\n",
			events_reason(ctx->probe));
	} else {
		fprintf(out,
			"\nfile-system events: %" PRIu64 " opens denied, %" PRIu64
			" created, %" PRIu64 " deleted, %" PRIu64 " renamed, %" PRIu64
			" truncated\n",
			v->nev[0], v->nev[4], v->nev[1], v->nev[2], v->nev[3]);
		if (table__rows(v->et))
			err = table__print(v->et, out, OUT_TEXT);
		if (err)
			return err;
	}
	if (!probe__active(&v->sp))
		fprintf(out, "\nI/O syscalls: not collected (syscalls: %s: %s)\n", v->sp.state,
			v->sp.reason);
	else if (!table__rows(v->yt))
		fprintf(out,
			"\nI/O syscalls (the syscalls collector, per operation): none\n");
	else {
		fprintf(out,
			"\nI/O syscalls (the syscalls collector, per operation, not per "
			"file; latency from its log2 histogram):\n");
		err = table__print(v->yt, out, OUT_TEXT);
	}
	return err;
}

/* `report io` in CSV: the table --table names (intervals by default). 0, -EPROTO (a table
 * not collected: said), -errno. */
static int io_csv(const struct report_ctx *ctx, const struct io_view *v)
{
	const struct report_opts *o = ctx->o;
	FILE *out = ctx->out;
	const char *name = io_own(o)->table ? io_own(o)->table : "intervals", *why = NULL;
	const struct table *ct = v->t;

	if (!strcmp(name, "events")) {
		ct = v->et;
		why = v->events ? NULL : events_reason(ctx->probe);
	} else if (!strcmp(name, "syscalls")) {
		ct = v->yt;
		why = probe__active(&v->sp) ? NULL : v->sp.reason;
	} else if (!strcmp(name, "processes")) {
		ct = v->pt;
	} else if (strcmp(name, "intervals")) {
		ct = !strcmp(name, "files")	   ? v->ft
		     : !strcmp(name, "operations") ? v->ot
		     : !strcmp(name, "latency")	   ? v->oht
						   : v->ut;
		why = v->per_file ? NULL : v->fwhy;
	}
	if (why) {
		fprintf(stderr, "ptop-analyze report io: --table %s: not collected (%s)\n",
			name, why);
		return -EPROTO;
	}
	report__drops(NULL, out, o, "io", ctx->drops, ctx->ndrops);
	print_unread(NULL, out, o, ctx->m, v->unread, v->nunread);
	return table__print(ct, out, OUT_CSV);
}

/* `report io` in JSON: the report's object, closed. 0 or -errno. */
static int io_json(const struct report_ctx *ctx, const struct io_view *v)
{
	const struct report_opts *o = ctx->o;
	FILE *out = ctx->out;
	struct json *j = ctx->j;

	json__kv_bool(j, "collected", true);
	report__drops(j, out, o, "io", ctx->drops, ctx->ndrops);
	print_unread(j, out, o, ctx->m, v->unread, v->nunread);
	json__key(j, "totals");
	if (!table__rows(v->t)) { /* not measured: null, and why */
		json__null(j);
	} else {
		json__begin_object(j);
		for (int i = 0; i < NSUMS; i++) {
			if (i == 7 && !v->iowait_all)
				json__kv_null(j, sum_key[i]);
			else
				json__kv_int(j, sum_key[i], (int64_t)v->sum[i]);
		}
		json__end_object(j);
	}
	json__kv_string(j, "totals_reason", table__rows(v->t) ? NULL : no_sample_why);
	json__kv_string(j, "totals_cover",
			v->nproc > 1 ? "the processes of the cgroup, each with the children it "
				    "waited for"
			: v->nproc == 1 ? "the target process and the children it waited for"
				     : NULL);
	json__kv_int(j, "file_processes", (int64_t)v->np_file);
	json__key(j, "processes");
	table__json(v->pt, j, NULL, 0);
	json__key(j, "intervals");
	table__json(v->t, j, NULL, 0);
	json__key(j, "files");
	if (v->per_file)
		table__json(v->ft, j, NULL, 0);
	else
		json__null(j);
	json__kv_string(j, "files_reason", v->per_file ? NULL : v->fwhy);
	json__key(j, "operations");
	if (v->per_file)
		table__json(v->ot, j, NULL, 0);
	else
		json__null(j);
	json__key(j, "latency");
	if (v->per_file)
		table__json(v->oht, j, NULL, 0);
	else
		json__null(j);
	json__key(j, "top_file");
	if (v->per_file && v->nfiles) {
		json__begin_object(j);
		json__kv_string(j, "file", v->files[0].file);
		json__kv_string(j, "path", v->files[0].path);
		json__key(j, "operations");
		table__json(v->tt, j, NULL, 0);
		json__key(j, "latency");
		table__json(v->tht, j, NULL, 0);
		json__end_object(j);
	} else {
		json__null(j);
	}
	json__key(j, "io_uring");
	if (v->per_file && !uring_not(ctx->probe))
		table__json(v->ut, j, NULL, 0);
	else
		json__null(j);
	json__kv_string(j, "io_uring_reason", v->per_file ? uring_not(ctx->probe) : NULL);
	json__key(j, "fs_events");
	if (v->events)
		table__json(v->et, j, NULL, 0);
	else
		json__null(j);
	json__kv_string(j, "fs_events_reason", v->events ? NULL : events_reason(ctx->probe));
	json__key(j, "syscalls");
	if (probe__active(&v->sp))
		table__json(v->yt, j, NULL, 0);
	else
		json__null(j);
	json__kv_string(j, "syscalls_reason", probe__active(&v->sp) ? NULL : v->sp.reason);
	json__end_object(j);
	return json__end(j);
}

static int io_body(const struct report_ctx *ctx)
{
	struct io_view v = {0};
	int err;

	if (io_own(ctx->o)->file)
		return report_io_file(ctx->db, ctx->m, ctx->o, ctx->j, ctx->out);
	err = io_view_load(ctx, &v);
	if (!err)
		err = ctx->o->fmt == OUT_TEXT  ? io_text(ctx, &v)
		      : ctx->o->fmt == OUT_CSV ? io_csv(ctx, &v)
					       : io_json(ctx, &v);
	io_view_free(&v);
	return err;
}

static int parse_table(void *settings, const char *arg, char *err, size_t len)
{
	(void)err, (void)len;
	((struct io_opts *)settings)->table = arg;
	return 0;
}

static int parse_file(void *settings, const char *arg, char *err, size_t len)
{
	(void)err, (void)len;
	((struct io_opts *)settings)->file = arg;
	return 0;
}

static const struct report_option io_options[] = {
    {"table", "NAME",
     "io: the table --format csv prints: intervals\n"
     "(default), files, operations, latency, io_uring,\n"
     "events, syscalls or processes",
     parse_table},
    {"file", "PATH",
     "io: one file's figures per interval (--io-files),\n"
     "by path or MAJOR:MINOR:INODE",
     parse_file},
    {0},
};

static const struct an_report io_report = {
    .name = "io",
    .order = 83,
    .summary = "bytes and syscalls read and written, storage bytes and block\n"
	       "I/O delay, per interval and in all (/proc/PID/io); per file\n"
	       "and operation with --io-files; file-system events",
    .tables = "io_sample,io_file,io_file_hist,io_uring_op,io_event,syscall_stat",
    .options = io_options,
    .settings_size = sizeof(struct io_opts),
    .check = io_check,
    .probe = "io",
	.drops = "io",
	.body = io_body,
};

const struct an_report *const io_reports[] = {
    &io_report,
    NULL,
};
