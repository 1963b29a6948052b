/* test_report.c — unit tests for the reports (analyze/report*.c) on hand-built DBs. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analyze/analyze.h"
#include "analyze/db.h"
#include "analyze/figures.h"
#include "analyze/part.h"
#include "analyze/report.h"
#include "tests/tmpdir.h"
#include "collectors/cgroup/report.h"
#include "collectors/cpu/report.h"
#include "collectors/heap/report.h"
#include "collectors/memory/report.h"
#include "collectors/syscalls/report.h"
#include "collectors/vmas/report.h"

extern const char ptop_schema_sql[];

#define CID "00112233445566778899aabbccddeeff"
/* the capture's key (capture.cap), given its id as the next %s argument */
#define CAP_OF "(SELECT cap FROM capture WHERE capture_id = '%s')"
#define BASE 1000000000000LL /* start_monotonic_ns of the test capture */
#define SEC 1000000000LL

/* ------------------------------------------------------------------ helpers */

static void exec(sqlite3 *db, const char *sql)
{
	char *msg = NULL;
	int rc = sqlite3_exec(db, sql, NULL, NULL, &msg);

	if (rc != SQLITE_OK)
		fail_msg("SQL failed: %s\n%s", msg ? msg : "?", sql);
	sqlite3_free(msg);
}

static void execf(sqlite3 *db, const char *fmt, ...)
{
	char *sql;
	va_list ap;

	va_start(ap, fmt);
	sql = sqlite3_vmprintf(fmt, ap);
	va_end(ap);
	assert_non_null(sql);
	exec(db, sql);
	sqlite3_free(sql);
}

/* A DB with the schema and one capture; COMPLETE 0 makes it truncated. */
static sqlite3 *new_db(int complete)
{
	sqlite3 *db = NULL;

	assert_int_equal(sqlite3_open(":memory:", &db), SQLITE_OK);
	exec(db, ptop_schema_sql);
	execf(db,
	      "INSERT INTO capture (capture_id, format_version, start_monotonic_ns, cpus, "
	      "first_event_ns, last_event_ns, complete, read_end, read_stopped_at, read_message) "
	      "VALUES ('%s', 1, %lld, 4, %lld, %lld, %d, '%s', %s, %s)",
	      CID, BASE, BASE + SEC, BASE + 3 * SEC, complete, complete ? "clean" : "truncated",
	      complete ? "NULL" : "1234",
	      complete ? "NULL" : "'truncated at byte 1234 (inside frame 3)'");
	return db;
}

static void add_probe(sqlite3 *db, int seq, const char *name, const char *state, const char *source,
		      const char *reason)
{
	execf(db,
	      "INSERT INTO probe (cap, seq, name, state, source, reason) "
	      "VALUES (" CAP_OF ", %d, %Q, %Q, %Q, %Q)",
	      CID, seq, name, state, source, reason);
}

/* One interval of one syscall ending at BASE + T seconds, with histogram
 * buckets given as (bucket, count) pairs ending with -1. */
static void add_syscall(sqlite3 *db, int t, int nr, const char *name, long long count,
			long long completed, long long errors, long long total_ns, ...)
{
	va_list ap;
	int b;

	execf(db,
	      "INSERT INTO syscall_stat (cap, time_ns, interval_ns, pid, nr, name, count, "
	      "completed, errors, total_ns) VALUES (" CAP_OF ", %lld, %lld, 42, %d, %Q, %lld, "
	      "%lld, %lld, %lld)",
	      CID, BASE + t * SEC, SEC, nr, name, count, completed, errors, total_ns);
	va_start(ap, total_ns);
	while ((b = va_arg(ap, int)) >= 0) {
		long long c = va_arg(ap, long long);

		execf(db,
		      "INSERT INTO syscall_hist (cap, time_ns, pid, nr, bucket, count) "
		      "VALUES (" CAP_OF ", %lld, 42, %d, %d, %lld)",
		      CID, BASE + t * SEC, nr, b, c);
	}
	va_end(ap);
}

/* getppid (110) at t=1,2,3 s: 10, 20, 30 calls, latencies in buckets 8 and 12;
 * read (0) at t=1,2,3 s: 5 calls each, 1 error each, long latencies. */
static sqlite3 *syscalls_db(void)
{
	sqlite3 *db = new_db(1);

	add_probe(db, 0, "cpu", "active", "ebpf", NULL);
	add_probe(db, 1, "syscalls", "active", "ebpf", NULL);
	add_syscall(db, 1, 110, "getppid", 10LL, 10LL, 0LL, 5000LL, 8, 10LL, -1);
	add_syscall(db, 2, 110, "getppid", 20LL, 20LL, 0LL, 10000LL, 8, 19LL, 12, 1LL, -1);
	add_syscall(db, 3, 110, "getppid", 30LL, 30LL, 0LL, 15000LL, 12, 30LL, -1);
	add_syscall(db, 1, 0, "read", 5LL, 5LL, 1LL, 5000000LL, 20, 5LL, -1);
	add_syscall(db, 2, 0, "read", 5LL, 5LL, 1LL, 5000000LL, 20, 5LL, -1);
	add_syscall(db, 3, 0, "read", 5LL, 4LL, 1LL, 4000000LL, 20, 4LL, -1);
	return db;
}

struct mem {
	FILE *f;
	char *buf;
	size_t len;
};

static void mem_open(struct mem *m)
{
	m->buf = NULL;
	m->len = 0;
	m->f = open_memstream(&m->buf, &m->len);
	assert_non_null(m->f);
}

static const char *mem_text(struct mem *m)
{
	fclose(m->f);
	m->f = NULL;
	return m->buf;
}

static void mem_free(struct mem *m)
{
	if (m->f)
		fclose(m->f);
	free(m->buf);
}

static void assert_contains(const char *hay, const char *needle)
{
	if (!strstr(hay, needle))
		fail_msg("expected to find \"%s\" in:\n%s", needle, hay);
}

static void assert_lacks(const char *hay, const char *needle)
{
	if (strstr(hay, needle))
		fail_msg("did not expect \"%s\" in:\n%s", needle, hay);
}

/* ------------------------------------------------------------------ histograms */

static void test_01_bucket_estimates(void **state)
{
	(void)state;
	assert_int_equal(hist_bucket_estimate(0), 1);		/* [0, 2) */
	assert_int_equal(hist_bucket_estimate(1), 3);		/* 2 * 1.414 = 2.83 */
	assert_int_equal(hist_bucket_estimate(4), 23);		/* 16 * 1.414 = 22.6 */
	assert_int_equal(hist_bucket_estimate(10), 1448);	/* 1024 * 1.414 = 1448.15 */
	assert_int_equal(hist_bucket_estimate(20), 1482910);	/* 1482910.40 */
	assert_int_equal(hist_bucket_estimate(30), 1518500250); /* 1518500249.99 */
	assert_true(hist_bucket_estimate(63) == UINT64_MAX);
}

static void test_02_percentiles_exact(void **state)
{
	uint64_t h[HIST_BUCKETS] = {0}, est = 0, lo = 0, hi = 0;

	(void)state;
	/* all in one bucket */
	h[10] = 100;
	assert_int_equal(hist_percentile(h, HIST_BUCKETS, 50, &est, &lo, &hi), 0);
	assert_int_equal(est, 1448);
	assert_int_equal(lo, 1024);
	assert_int_equal(hi, 2048);
	assert_int_equal(hist_percentile(h, HIST_BUCKETS, 99, &est, NULL, NULL), 0);
	assert_int_equal(est, 1448);

	/* 100 values: 1 in bucket 0, 48 in 3, 1 in 4, 50 in 20 */
	memset(h, 0, sizeof(h));
	h[0] = 1;
	h[3] = 48;
	h[4] = 1;
	h[20] = 50;
	assert_int_equal(hist_percentile(h, HIST_BUCKETS, 50, &est, &lo, &hi), 0);
	assert_int_equal(est, 23); /* rank 50 is the one value in bucket 4 */
	assert_int_equal(lo, 16);
	assert_int_equal(hi, 32);
	assert_int_equal(hist_percentile(h, HIST_BUCKETS, 51, &est, NULL, NULL), 0);
	assert_int_equal(est, 1482910);
	assert_int_equal(hist_percentile(h, HIST_BUCKETS, 99, &est, NULL, NULL), 0);
	assert_int_equal(est, 1482910);
	assert_int_equal(hist_percentile(h, HIST_BUCKETS, 1, &est, &lo, &hi), 0);
	assert_int_equal(est, 1); /* rank 1: bucket 0, [0, 2) */
	assert_int_equal(lo, 0);
	assert_int_equal(hi, 2);

	/* nearest rank rounds up: 3 values, p50 is rank ceil(1.5) = 2 */
	memset(h, 0, sizeof(h));
	h[1] = h[2] = h[3] = 1;
	assert_int_equal(hist_percentile(h, HIST_BUCKETS, 50, &est, NULL, NULL), 0);
	assert_int_equal(est, 6); /* bucket 2: 4 * 1.414 = 5.66 */
	assert_int_equal(hist_percentile(h, HIST_BUCKETS, 99, &est, NULL, NULL), 0);
	assert_int_equal(est, 11); /* rank ceil(2.97) = 3: bucket 3, 11.31 */
	assert_int_equal(hist_percentile(h, HIST_BUCKETS, 100, &est, NULL, NULL), 0);
	assert_int_equal(est, 11);

	/* p99 of 1000 values, 990 fast and 10 slow: rank 990 is still fast */
	memset(h, 0, sizeof(h));
	h[5] = 990;
	h[15] = 10;
	assert_int_equal(hist_percentile(h, HIST_BUCKETS, 99, &est, NULL, NULL), 0);
	assert_int_equal(est, 45); /* 32 * 1.414 = 45.25 */
	h[15] = 11;		   /* 1001 values: rank ceil(990.99) = 991 is slow */
	assert_int_equal(hist_percentile(h, HIST_BUCKETS, 99, &est, NULL, NULL), 0);
	assert_int_equal(est, 46341); /* 32768 * 1.414 = 46340.95 */

	/* empty and bad input */
	memset(h, 0, sizeof(h));
	assert_int_equal(hist_percentile(h, HIST_BUCKETS, 50, &est, NULL, NULL), -ENODATA);
	h[3] = 1;
	assert_int_equal(hist_percentile(h, HIST_BUCKETS, 0, &est, NULL, NULL), -EINVAL);
	assert_int_equal(hist_percentile(h, HIST_BUCKETS, 101, &est, NULL, NULL), -EINVAL);
}

/* ------------------------------------------------------------------ windows */

static void test_03_window_parse(void **state)
{
	struct window w;
	char err[256];

	(void)state;
	assert_int_equal(window__parse("2..5", &w, err, sizeof(err)), 0);
	assert_true(w.has_start && w.has_end);
	assert_int_equal(w.start_ns, 2 * SEC);
	assert_int_equal(w.end_ns, 5 * SEC);

	assert_int_equal(window__parse("2s..5s", &w, err, sizeof(err)), 0);
	assert_int_equal(w.start_ns, 2 * SEC);
	assert_int_equal(w.end_ns, 5 * SEC);

	assert_int_equal(window__parse("500ms..", &w, err, sizeof(err)), 0);
	assert_true(w.has_start);
	assert_false(w.has_end);
	assert_int_equal(w.start_ns, 500000000);

	assert_int_equal(window__parse("..1m", &w, err, sizeof(err)), 0);
	assert_false(w.has_start);
	assert_true(w.has_end);
	assert_int_equal(w.end_ns, 60 * SEC);

	assert_int_equal(window__parse("1.5..2.25", &w, err, sizeof(err)), 0);
	assert_int_equal(w.start_ns, 1500000000);
	assert_int_equal(w.end_ns, 2250000000LL);

	assert_int_equal(window__parse("250us..1h", &w, err, sizeof(err)), 0);
	assert_int_equal(w.start_ns, 250000);
	assert_int_equal(w.end_ns, 3600 * SEC);

	assert_int_equal(window__parse("0..1ns", &w, err, sizeof(err)), 0);
	assert_int_equal(w.start_ns, 0);
	assert_int_equal(w.end_ns, 1);

	/* digits below a nanosecond are dropped */
	assert_int_equal(window__parse("1.1234567899s..", &w, err, sizeof(err)), 0);
	assert_int_equal(w.start_ns, 1123456789);
	assert_int_equal(window__parse("0.5m..", &w, err, sizeof(err)), 0);
	assert_int_equal(w.start_ns, 30 * SEC);

	assert_int_equal(window__parse("..", &w, err, sizeof(err)), 0);
	assert_false(w.has_start || w.has_end);
}

static void test_04_window_parse_errors(void **state)
{
	static const char *const bad[] = {
	    "",
	    "5",
	    "5-7",
	    "2..1",
	    "3..3",
	    "a..b",
	    "1x..2",
	    "-1..2",
	    "1..2..3",
	    "1...2",
	    "2 ..5",
	    "1.5.5..",
	    "ms..1",
	    "1S..2",
	    "99999999999999999999..",
	    "..9999999999h",
	    NULL,
	};
	struct window w;
	char err[256];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		if (window__parse(bad[i], &w, err, sizeof(err)) != -EINVAL)
			fail_msg("window \"%s\" was accepted", bad[i] ? bad[i] : "(null)");
		assert_true(strlen(err) > 10); /* says why */
	}
	assert_int_equal(window__parse("2..1", &w, err, sizeof(err)), -EINVAL);
	assert_contains(err, "before the end");
}

/* ------------------------------------------------------------------ syscalls */

static const struct syscall_agg *find_agg(const struct syscall_agg *a, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(a[i].name, name))
			return &a[i];
	fail_msg("no syscall %s in the aggregate", name);
	return NULL;
}

static void test_05_syscall_aggregation_whole(void **state)
{
	sqlite3 *db = syscalls_db();
	struct capture_meta m;
	struct syscall_agg *a = NULL;
	struct window w = {0};
	const struct syscall_agg *g, *r;
	uint64_t est;
	size_t n = 0;

	(void)state;
	assert_int_equal(capture_meta__load(db, CID, &m), 0);
	assert_int_equal(m.base_ns, BASE);
	assert_true(m.complete);
	assert_int_equal(syscalls__aggregate(db, &m, &w, SORT_COUNT, &a, &n), 0);
	assert_int_equal(n, 2);
	assert_string_equal(a[0].name, "getppid"); /* 60 calls before 15 */
	g = find_agg(a, n, "getppid");
	r = find_agg(a, n, "read");
	assert_int_equal(g->nr, 110);
	assert_int_equal(g->count, 60);
	assert_int_equal(g->completed, 60);
	assert_int_equal(g->errors, 0);
	assert_int_equal(g->total_ns, 30000);
	assert_int_equal(g->hist[8], 29);
	assert_int_equal(g->hist[12], 31);
	assert_int_equal(r->count, 15);
	assert_int_equal(r->completed, 14);
	assert_int_equal(r->errors, 3);
	assert_int_equal(r->total_ns, 14000000);
	/* getppid: 29 in bucket 8, 31 in bucket 12: p50 (rank 30) is in bucket 12 */
	assert_int_equal(hist_percentile(g->hist, HIST_BUCKETS, 50, &est, NULL, NULL), 0);
	assert_int_equal(est, 5793); /* 4096 * 1.414 = 5792.62 */
	free(a);

	assert_int_equal(syscalls__aggregate(db, &m, &w, SORT_TOTAL, &a, &n), 0);
	assert_int_equal(n, 2);
	assert_string_equal(a[0].name, "read"); /* 14 ms before 30 us */
	free(a);
	sqlite3_close(db);
}

static void test_06_syscall_aggregation_window(void **state)
{
	sqlite3 *db = syscalls_db();
	struct capture_meta m;
	struct syscall_agg *a = NULL;
	struct window w;
	const struct syscall_agg *g;
	char err[256];
	size_t n = 0;

	(void)state;
	assert_int_equal(capture_meta__load(db, CID, &m), 0);

	/* the interval (1 s, 2 s] has its midpoint 1.5 s in [1, 2): only it */
	assert_int_equal(window__parse("1..2", &w, err, sizeof(err)), 0);
	assert_int_equal(syscalls__aggregate(db, &m, &w, SORT_COUNT, &a, &n), 0);
	g = find_agg(a, n, "getppid");
	assert_int_equal(g->count, 20);
	assert_int_equal(g->total_ns, 10000);
	assert_int_equal(g->hist[8], 19); /* the histogram follows the window */
	assert_int_equal(g->hist[12], 1);
	assert_int_equal(find_agg(a, n, "read")->errors, 1);
	free(a);

	/* 2 s and after: the interval ending at 3 s */
	assert_int_equal(window__parse("2s..", &w, err, sizeof(err)), 0);
	assert_int_equal(syscalls__aggregate(db, &m, &w, SORT_COUNT, &a, &n), 0);
	g = find_agg(a, n, "getppid");
	assert_int_equal(g->count, 30);
	assert_int_equal(g->hist[8], 0);
	assert_int_equal(g->hist[12], 30);
	assert_int_equal(find_agg(a, n, "read")->completed, 4);
	free(a);

	/* up to 1.5 s: the first two intervals have midpoints 0.5 s and 1.5 s */
	assert_int_equal(window__parse("..1500ms", &w, err, sizeof(err)), 0);
	assert_int_equal(syscalls__aggregate(db, &m, &w, SORT_COUNT, &a, &n), 0);
	assert_int_equal(find_agg(a, n, "getppid")->count, 10);
	free(a);

	/* a window after the data: nothing, which is a measured nothing */
	assert_int_equal(window__parse("10..20", &w, err, sizeof(err)), 0);
	assert_int_equal(syscalls__aggregate(db, &m, &w, SORT_COUNT, &a, &n), 0);
	assert_int_equal(n, 0);
	free(a);
	sqlite3_close(db);
}

static void test_07_syscalls_report_json(void **state)
{
	sqlite3 *db = syscalls_db();
	struct report_opts o = {.fmt = OUT_JSON};
	struct mem m;
	const char *s;

	(void)state;
	mem_open(&m);
	assert_int_equal(report_syscalls(db, CID, &o, m.f), 0);
	s = mem_text(&m);
	assert_contains(s, "\"collected\": true");
	assert_contains(s, "\"name\": \"getppid\",\n      \"nr\": 110,\n      \"count\": 60,\n"
			   "      \"completed\": 60,\n      \"errors\": 0,\n"
			   "      \"total_ns\": 30000,\n      \"mean_ns\": 500,\n"
			   "      \"p50_ns\": 5793,");
	/* read: 14 completed in bucket 20; mean 14 ms / 14 = 1 ms */
	assert_contains(s, "\"mean_ns\": 1000000,\n      \"p50_ns\": 1482910,");
	assert_contains(s, "\"p99_ns\": 1482910,");
	assert_contains(s, "\"drops\": []");
	assert_contains(s, "\"window\": null");
	mem_free(&m);

	/* --top 1 keeps the first row only, the totals stay whole */
	o.top = 1;
	mem_open(&m);
	assert_int_equal(report_syscalls(db, CID, &o, m.f), 0);
	s = mem_text(&m);
	assert_contains(s, "\"count\": 75,");
	assert_lacks(s, "\"name\": \"read\"");
	mem_free(&m);

	/* CSV: a header and one line per syscall, NULL as empty */
	o.top = 0;
	o.fmt = OUT_CSV;
	mem_open(&m);
	assert_int_equal(report_syscalls(db, CID, &o, m.f), 0);
	assert_string_equal(mem_text(&m),
			    "name,nr,count,completed,errors,total_ns,mean_ns,p50_ns,p99_ns,"
			    "time_share_pct\n"
			    "getppid,110,60,60,0,30000,500,5793,5793,0.21\n"
			    "read,0,15,14,3,14000000,1000000,1482910,1482910,99.79\n");
	mem_free(&m);
	sqlite3_close(db);
}

static void test_08_not_collected(void **state)
{
	struct report_opts o = {.fmt = OUT_TEXT};
	sqlite3 *db = new_db(1);
	struct mem m;
	const char *s;

	(void)state;
	add_probe(db, 0, "syscalls", "unsupported", NULL,
		  "--no-ebpf: syscalls are counted only by eBPF tracepoints");
	add_probe(db, 1, "memory", "failed", "proc", "cannot read /proc/42/smaps_rollup");

	mem_open(&m);
	assert_int_equal(report_syscalls(db, CID, &o, m.f), 0);
	assert_string_equal(mem_text(&m), "syscalls: not collected (unsupported: --no-ebpf: "
					  "syscalls are counted only by eBPF tracepoints)\n");
	mem_free(&m);

	o.fmt = OUT_JSON;
	mem_open(&m);
	assert_int_equal(report_syscalls(db, CID, &o, m.f), 0);
	s = mem_text(&m);
	assert_contains(
	    s, "\"collected\": false,\n  \"state\": \"unsupported\",\n"
	       "  \"reason\": \"--no-ebpf: syscalls are counted only by eBPF tracepoints\"\n}");
	assert_lacks(s, "\"count\"");
	mem_free(&m);

	/* a failed probe */
	o.fmt = OUT_TEXT;
	mem_open(&m);
	assert_int_equal(report_mem(db, CID, &o, m.f), 0);
	assert_string_equal(mem_text(&m),
			    "mem: not collected (failed: cannot read /proc/42/smaps_rollup)\n");
	mem_free(&m);

	/* a probe the capture does not name at all */
	mem_open(&m);
	assert_int_equal(report_cpu(db, CID, &o, m.f), 0);
	s = mem_text(&m);
	assert_contains(s, "cpu: not collected (absent: ");
	assert_lacks(s, "0.0%");
	mem_free(&m);

	/* CSV: nothing on stdout, the reason on stderr */
	o.fmt = OUT_CSV;
	mem_open(&m);
	assert_int_equal(report_syscalls(db, CID, &o, m.f), 0);
	assert_string_equal(mem_text(&m), "");
	mem_free(&m);
	sqlite3_close(db);
}

static void test_09_growth_per_minute(void **state)
{
	int64_t g = 0;

	(void)state;
	/* 100 MiB to 160 MiB in 30 s: 120 MiB per minute */
	assert_true(growth_per_minute(100LL << 20, 160LL << 20, 0, 30 * SEC, &g));
	assert_int_equal(g, 120LL << 20);
	/* shrinking: 200 to 100 bytes in 2 min */
	assert_true(growth_per_minute(200, 100, 5 * SEC, 125 * SEC, &g));
	assert_int_equal(g, -50);
	/* rounding to the nearest byte: 1 byte in 7 s is 8.57 per minute */
	assert_true(growth_per_minute(0, 1, 0, 7 * SEC, &g));
	assert_int_equal(g, 9);
	assert_true(growth_per_minute(1, 0, 0, 7 * SEC, &g));
	assert_int_equal(g, -9);
	/* no change is a measured zero */
	assert_true(growth_per_minute(4096, 4096, 0, SEC, &g));
	assert_int_equal(g, 0);
	/* exact with large values: 1 GiB in 1 s is 60 GiB per minute */
	assert_true(growth_per_minute(0, 1LL << 30, 0, SEC, &g));
	assert_int_equal(g, 60LL << 30);
	/* 1 TiB in 1 ns is more than an int64 per minute: no figure rather than a wrong one */
	assert_false(growth_per_minute(0, 1LL << 40, 0, 1, &g));
	/* no time between: no growth */
	assert_false(growth_per_minute(1, 2, SEC, SEC, &g));
	assert_false(growth_per_minute(1, 2, 2 * SEC, SEC, &g));
}

static void test_10_mem_report(void **state)
{
	struct report_opts o = {.fmt = OUT_JSON};
	sqlite3 *db = new_db(1);
	struct mem m;
	const char *s;
	int i;

	(void)state;
	add_probe(db, 0, "memory", "active", "proc", NULL);
	/* rss 100, 130, 120, 160 MiB at 0, 10, 20, 30 s; pss only at 10 and 20 s;
	 * uss never (smaps_rollup unread would leave it NULL) */
	for (i = 0; i < 4; i++) {
		static const long long rss[] = {100, 130, 120, 160};

		execf(db,
		      "INSERT INTO memory_sample (cap, time_ns, interval_ns, pid, rss, pss, "
		      "minflt) VALUES (" CAP_OF ", %lld, %lld, 42, %lld, %s, %d)",
		      CID, BASE + i * 10 * SEC, 10 * SEC, rss[i] << 20,
		      i == 1   ? "1000"
		      : i == 2 ? "4000"
			       : "NULL",
		      i);
	}
	mem_open(&m);
	assert_int_equal(report_mem(db, CID, &o, m.f), 0);
	s = mem_text(&m);
	assert_contains(s, "\"rss\": {\n      \"source\": \"smaps_rollup Rss\",\n"
			   "      \"samples\": 4,\n      \"first\": 104857600,\n"
			   "      \"min\": 104857600,\n      \"max\": 167772160,\n"
			   "      \"last\": 167772160,\n      \"growth_per_min\": 125829120\n");
	/* pss: 1000 at 10 s, 4000 at 20 s: 3000 bytes in 10 s = 18000 per minute */
	assert_contains(s, "\"first\": 1000,\n      \"min\": 1000,\n      \"max\": 4000,\n"
			   "      \"last\": 4000,\n      \"growth_per_min\": 18000\n");
	/* uss: not measured, so null, not 0 */
	assert_contains(s, "\"uss\": {\n      \"source\": \"smaps_rollup Private_Clean + "
			   "Private_Dirty\",\n      \"samples\": 0,\n      \"first\": null,");
	assert_contains(s, "\"minor\": 6,");
	assert_contains(s, "\"series\": [");
	mem_free(&m);

	/* a window [10 s, 20 s] holds the two middle samples */
	assert_int_equal(window__parse("10..20", &o.win, (char[64]){0}, 64), 0);
	o.fmt = OUT_CSV;
	mem_open(&m);
	assert_int_equal(report_mem(db, CID, &o, m.f), 0);
	assert_string_equal(mem_text(&m),
			    "t_s,rss,pss,uss,anon,pss_anon,pss_file,pss_shmem,swap,swap_pss,"
			    "statm_rss,vsize,minflt,majflt,pss_rss,rollup_skipped,smaps_spent_ns,"
			    "heap_live,heap_gap\n"
			    "10,136314880,1000,,,,,,,,,,1,,0,,,,\n"
			    "20,125829120,4000,,,,,,,,,,2,,0,,,,\n");
	mem_free(&m);
	sqlite3_close(db);
}

static void test_11_cpu_report(void **state)
{
	struct report_opts o = {.fmt = OUT_JSON};
	sqlite3 *db = new_db(1);
	struct mem m;
	const char *s;

	(void)state;
	add_probe(db, 0, "cpu", "active", "proc", NULL);
	/* /proc lane only: 500 ms user in the first second, 100 ms system in the second */
	execf(db,
	      "INSERT INTO cpu_sample (cap, time_ns, interval_ns, pid, user_ns, system_ns) "
	      "VALUES (" CAP_OF ", %lld, %lld, 42, 500000000, 0), "
	      "(" CAP_OF ", %lld, %lld, 42, 0, 100000000)",
	      CID, BASE + SEC, SEC, CID, BASE + 2 * SEC, SEC);
	mem_open(&m);
	assert_int_equal(report_cpu(db, CID, &o, m.f), 0);
	s = mem_text(&m);
	/* the eBPF lane has no value: not collected, never 0 */
	assert_contains(s,
			"\"oncpu\": {\n      \"lane\": \"ebpf: sched_switch on-CPU time\",\n"
			"      \"collected\": false,\n      \"reason\": \"the cpu probe ran from "
			"/proc only\"");
	assert_contains(s, "\"user_system\": {\n      \"lane\": \"proc: /proc/PID/stat "
			   "utime+stime\",\n      \"collected\": true,\n      \"samples\": 2,\n"
			   "      \"mean_pct\": 30,\n      \"max_pct\": 50,\n"
			   "      \"cpu_ns\": 600000000,");
	assert_contains(s, "\"oncpu_ns\": null,\n      \"oncpu_pct\": null,");
	mem_free(&m);
	sqlite3_close(db);

	/* eBPF lane on a 4-CPU host: 300% is possible, 500% is not (over 4 x 110%) */
	db = new_db(1);
	add_probe(db, 0, "cpu", "active", "ebpf", NULL);
	execf(db,
	      "INSERT INTO cpu_sample (cap, time_ns, interval_ns, pid, oncpu_ns) "
	      "VALUES (" CAP_OF ", %lld, %lld, 42, %lld), (" CAP_OF ", %lld, %lld, 42, %lld)",
	      CID, BASE + SEC, SEC, 3 * SEC, CID, BASE + 2 * SEC, SEC, 5 * SEC);
	mem_open(&m);
	assert_int_equal(report_cpu(db, CID, &o, m.f), 0);
	s = mem_text(&m);
	assert_contains(s, "\"mean_pct\": 400,\n      \"max_pct\": 500,\n"
			   "      \"cpu_ns\": 8000000000,\n      \"cpu_s\": 8,\n"
			   "      \"over_capacity_intervals\": 1\n");
	/* the /proc lane has no value here: not collected, with the reason */
	assert_contains(s, "\"user\": {\n      \"lane\": \"proc: /proc/PID/stat utime\",\n"
			   "      \"collected\": false,\n      \"reason\": \"no /proc values in the "
			   "samples\"");
	mem_free(&m);
	o.fmt = OUT_TEXT;
	mem_open(&m);
	assert_int_equal(report_cpu(db, CID, &o, m.f), 0);
	assert_contains(mem_text(&m), "note: 1 of 2 intervals show more on-CPU time than the "
				      "host's 4 CPUs allow (max 500.0%)");
	mem_free(&m);
	sqlite3_close(db);
}

static void test_12_truncated_warning_and_drops(void **state)
{
	struct report_opts o = {.fmt = OUT_TEXT};
	sqlite3 *db = syscalls_db();
	struct drop_line *d = NULL;
	struct capture_meta meta;
	struct mem m;
	struct window w;
	char err[128];
	const char *s;
	size_t n = 0;

	(void)state;
	exec(db, "UPDATE capture SET complete = 0, read_end = 'truncated', read_stopped_at = 1234, "
		 "read_message = 'truncated at byte 1234 (inside frame 3)'");
	execf(db,
	      "INSERT INTO drop_notice (cap, time_ns, collector, kind, lost) VALUES "
	      "(" CAP_OF ", %lld, 'syscalls', 'ringbuf', 5), "
	      "(" CAP_OF ", %lld, 'syscalls', 'ringbuf', 7), "
	      "(" CAP_OF ", %lld, 'memory', 'proc_unreadable', 1)",
	      CID, BASE + SEC, CID, BASE + 3 * SEC, CID, BASE + SEC);
	mem_open(&m);
	assert_int_equal(report_syscalls(db, CID, &o, m.f), 0);
	s = mem_text(&m);
	{
		static const char first[] = "warning: capture incomplete (truncated): truncated at "
					    "byte 1234 (inside frame 3); figures cover only what "
					    "was read\n";

		if (strncmp(s, first, strlen(first)))
			fail_msg("the report does not start with the warning:\n%s", s);
	}
	assert_contains(s, "drops: syscalls ringbuf: 12 lost (sum of drop notices)");
	assert_lacks(s, "proc_unreadable"); /* another collector's drops */
	mem_free(&m);

	/* a window keeps the notices in it; the trailer's total wins without one */
	assert_int_equal(capture_meta__load(db, CID, &meta), 0);
	assert_int_equal(window__parse("..2", &w, err, sizeof(err)), 0);
	assert_int_equal(drops__load(db, &meta, "syscalls", &w, &d, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(d[0].lost, 5);
	free(d);
	execf(db,
	      "INSERT INTO drop_total (cap, collector, kind, lost) VALUES "
	      "(" CAP_OF ", 'syscalls', 'ringbuf', 13)",
	      CID);
	memset(&w, 0, sizeof(w));
	assert_int_equal(drops__load(db, &meta, "syscalls", &w, &d, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(d[0].lost, 13);
	assert_true(d[0].from_trailer);
	free(d);

	o.fmt = OUT_JSON;
	mem_open(&m);
	assert_int_equal(report_syscalls(db, CID, &o, m.f), 0);
	s = mem_text(&m);
	assert_contains(s, "\"complete\": false,\n  \"read_end\": \"truncated\",");
	assert_contains(s, "\"lost\": 13,\n      \"source\": \"trailer\"");
	mem_free(&m);

	/* an unknown capture id */
	assert_int_equal(capture_meta__load(db, "ffff", &meta), -ENOENT);
	mem_open(&m);
	assert_int_equal(report_syscalls(db, "ffff", &o, m.f), -ENOENT);
	mem_free(&m);
	sqlite3_close(db);
}

/* ------------------------------------------------------------------ mem, vma (issue 5) */

#define MIB (1LL << 20)

/* Assert that the line of S starting with PREFIX holds WHAT. */
static void assert_line_has(const char *s, const char *prefix, const char *what)
{
	const char *p = s, *end;
	size_t n = strlen(prefix);

	while (p && strncmp(p, prefix, n))
		p = (p = strchr(p, '\n')) ? p + 1 : NULL;
	if (!p)
		fail_msg("no line starting with \"%s\" in:\n%s", prefix, s);
	end = strchr(p, '\n');
	if (!memmem(p, end ? (size_t)(end - p) : strlen(p), what, strlen(what)))
		fail_msg("the line \"%.*s\" lacks \"%s\"", end ? (int)(end - p) : (int)strlen(p), p,
			 what);
}

/* Memory samples at 1..6 s: rss 100..150 MiB, pss 80..130, pss_anon 50..100 (10 MiB a second),
 * the one at 3 s skipped by a 150 ms smaps budget (its rollup NULL); spent 2, 3, 0, 200, 1, 2
 * ms. Heap snapshots at the same times with live bytes LIVE0 + t * LIVE_STEP MiB, measured
 * unless LANE is "go". */
static void mem_heap_db(sqlite3 *db, const char *lane, long long live0, long long live_step)
{
	static const long long spent_ms[] = {2, 3, 0, 200, 1, 2};
	char live[32];
	int t;

	add_probe(db, 0, "memory", "active", "proc", NULL);
	add_probe(db, 1, "vmas", "active", "proc", NULL);
	for (t = 1; t <= 6; t++) {
		if (t == 3)
			execf(db,
			      "INSERT INTO memory_sample (cap, time_ns, interval_ns, pid, statm_rss, "
			      "smaps_budget_ns, smaps_spent_ns, rollup_skipped) VALUES (" CAP_OF
			      ", %lld, %lld, 42, %lld, 150000000, 0, 1)",
			      CID, BASE + t * SEC, SEC, (100 + 10LL * (t - 1)) * MIB);
		else
			execf(db,
			      "INSERT INTO memory_sample (cap, time_ns, interval_ns, pid, rss, pss, "
			      "uss, pss_anon, smaps_budget_ns, smaps_spent_ns, rollup_skipped) VALUES "
			      "(" CAP_OF ", %lld, %lld, 42, %lld, %lld, %lld, %lld, 150000000, %lld, 0)",
			      CID, BASE + t * SEC, SEC, (100 + 10LL * (t - 1)) * MIB,
			      (80 + 10LL * (t - 1)) * MIB, (70 + 10LL * (t - 1)) * MIB,
			      (50 + 10LL * (t - 1)) * MIB, spent_ms[t - 1] * 1000000);
		if (!lane)
			continue;
		snprintf(live, sizeof(live), "%lld", (live0 + t * live_step) * MIB);
		execf(db,
		      "INSERT INTO heap_snapshot (cap, seq, time_ns, interval_ns, pid, lane, "
		      "sample_bytes, live_measured, alloc_count, alloc_bytes, live_bytes, sites, "
		      "total_call_sites, omitted_alloc_count, omitted_alloc_bytes, stack_failures) "
		      "VALUES (" CAP_OF ", %d, %lld, %lld, 42, %Q, 0, %d, 10, 1000, %s, 0, 0, 0, 0, 0)",
		      CID, t, BASE + t * SEC, SEC, lane, strcmp(lane, "go") != 0,
		      strcmp(lane, "go") ? live : "NULL");
	}
}

static void test_13_mem_coverage_ratio_heap_gap(void **state)
{
	struct report_opts o = {.fmt = OUT_TEXT};
	sqlite3 *db = new_db(1);
	struct mem m;
	const char *s;

	(void)state;
	/* live heap 41..46 MiB: +5 MiB while the anonymous PSS grows by 50 MiB */
	mem_heap_db(db, "uprobe", 40, 1);
	mem_open(&m);
	assert_int_equal(report_mem(db, CID, &o, m.f), 0);
	s = mem_text(&m);
	assert_contains(s, "smaps coverage: 5 of 6 samples read smaps_rollup, 1 skipped by the "
			   "smaps budget (150 ms per interval)\n");
	assert_contains(s, "208 ms in all, at most 200 ms in one interval\n");
	/* pss/rss: 80/100 first and min, 130/150 last and max */
	assert_line_has(s, "pss/rss ", "0.800     0.800    0.867    0.867           -        5");
	assert_line_has(s, "  live heap ", "41.0 MiB -> 46.0 MiB");
	assert_line_has(s, "  live heap ", "(+5.00 MiB)");
	assert_line_has(s, "  anonymous PSS (Pss_Anon) ", "50.0 MiB -> 100 MiB");
	assert_line_has(s, "  anonymous PSS (Pss_Anon) ", "(+50.0 MiB)");
	assert_line_has(s, "  gap: anonymous PSS - live ", "+9.00 MiB -> +54.0 MiB");
	assert_line_has(s, "  gap: anonymous PSS - live ", "(+45.0 MiB)");
	assert_contains(s, "RSS grew but the heap did not");
	assert_lacks(s, "at the last VMA snapshot"); /* no VMA snapshot */
	mem_free(&m);

	o.fmt = OUT_JSON;
	mem_open(&m);
	assert_int_equal(report_mem(db, CID, &o, m.f), 0);
	s = mem_text(&m);
	assert_contains(s, "\"coverage\": {\n    \"samples\": 6,\n    \"rollup_read\": 5,\n"
			   "    \"rollup_skipped\": 1,\n    \"budget_ns\": 150000000,\n"
			   "    \"spent_ns\": 208000000,\n    \"max_spent_ns\": 200000000\n  }");
	assert_contains(s, "\"gap_first\": 9437184,");
	assert_contains(s, "\"gap_last\": 56623104,");
	assert_contains(s, "\"pss_rss\": {\n      \"samples\": 5,\n      \"first\": 0.8,");
	/* the skipped sample: its rollup figures null, never 0, and marked */
	assert_contains(s, "\"t_s\": 3,\n      \"rss\": null,\n      \"pss\": null,");
	assert_contains(s, "\"rollup_skipped\": true,\n      \"smaps_spent_ns\": 0,\n"
			   "      \"heap_live\": 45088768,\n      \"heap_gap\": null\n");
	mem_free(&m);

	/* CSV: the budget, heap and gap columns */
	o.fmt = OUT_CSV;
	mem_open(&m);
	assert_int_equal(report_mem(db, CID, &o, m.f), 0);
	s = mem_text(&m);
	assert_contains(s, "\n1,104857600,83886080,73400320,,52428800,,,,,,,,,0.8,0,2000000,"
			   "42991616,9437184\n");
	assert_contains(s, "\n3,,,,,,,,,,125829120,,,,,1,0,45088768,\n");
	mem_free(&m);
	sqlite3_close(db);

	/* the heap grew with the PSS: live 50..100 MiB as anonymous PSS 50..100 MiB */
	db = new_db(1);
	mem_heap_db(db, "uprobe", 40, 10);
	o.fmt = OUT_TEXT;
	mem_open(&m);
	assert_int_equal(report_mem(db, CID, &o, m.f), 0);
	s = mem_text(&m);
	assert_contains(s, "the heap grew: live heap bytes account for most");
	assert_lacks(s, "RSS grew but the heap did not");
	mem_free(&m);
	sqlite3_close(db);
}

static void test_14_mem_heap_not_measured_and_no_budget(void **state)
{
	struct report_opts o = {.fmt = OUT_TEXT};
	sqlite3 *db = new_db(1);
	struct mem m;
	const char *s;

	(void)state;
	/* the Go lane: allocations counted, live bytes not measured */
	mem_heap_db(db, "go", 0, 0);
	mem_open(&m);
	assert_int_equal(report_mem(db, CID, &o, m.f), 0);
	s = mem_text(&m);
	assert_contains(s, "live heap bytes not measured (lane go: frees are not seen)");
	assert_lacks(s, "gap:");
	mem_free(&m);
	o.fmt = OUT_JSON;
	mem_open(&m);
	assert_int_equal(report_mem(db, CID, &o, m.f), 0);
	s = mem_text(&m);
	assert_contains(s, "\"heap\": {\n    \"lanes\": \"go\",\n    \"live_measured\": false,");
	assert_lacks(s, "\"verdict\"");
	mem_free(&m);
	sqlite3_close(db);

	/* a capture from before the budget: no budget group, no heap collector */
	db = new_db(1);
	add_probe(db, 0, "memory", "active", "proc", NULL);
	execf(db,
	      "INSERT INTO memory_sample (cap, time_ns, interval_ns, pid, rss, pss) VALUES "
	      "(" CAP_OF ", %lld, %lld, 42, 4096, 2048)",
	      CID, BASE + SEC, SEC);
	o.fmt = OUT_TEXT;
	mem_open(&m);
	assert_int_equal(report_mem(db, CID, &o, m.f), 0);
	s = mem_text(&m);
	assert_contains(s, "smaps coverage: 1 of 1 samples read smaps_rollup (no smaps budget "
			   "recorded)\n");
	assert_lacks(s, "heap vs memory");
	mem_free(&m);
	o.fmt = OUT_JSON;
	mem_open(&m);
	assert_int_equal(report_mem(db, CID, &o, m.f), 0);
	s = mem_text(&m);
	assert_contains(s, "\"budget_ns\": null,");
	assert_contains(s, "\"heap\": null,");
	assert_contains(s, "\"rollup_skipped\": null,");
	mem_free(&m);
	sqlite3_close(db);
}

static void add_vma(sqlite3 *db, int snap, long long start, long long mib, const char *perms,
		    const char *path, long long rss, long long pss, long long uss, long long anon)
{
	execf(db,
	      "INSERT INTO vma (cap, snapshot_id, start, end, perms, offset, path, size, rss, pss, "
	      "uss, anon, swap) VALUES (" CAP_OF ", %d, %lld, %lld, %Q, 0, %Q, %lld, %lld, %lld, "
	      "%lld, %lld, 0)",
	      CID, snap, start, start + mib * MIB, perms, path, mib * MIB, rss * MIB / 1024,
	      pss * MIB / 1024, uss * MIB / 1024, anon * MIB / 1024);
}

/* Snapshots 0 at 1 s and 1 at 6 s (final); figures in KiB. */
static void vma_db(sqlite3 *db)
{
	execf(db,
	      "INSERT INTO vma_snapshot (cap, snapshot_id, time_ns, pid, walk_ns, final, vma_count, "
	      "budget_ns, skipped_walks) VALUES (" CAP_OF ", 0, %lld, 42, 1500000, 0, 5, "
	      "150000000, 0), (" CAP_OF ", 1, %lld, 42, 2500000, 1, 6, 150000000, 2)",
	      CID, BASE + SEC, CID, BASE + 6 * SEC);
	add_vma(db, 0, 0x400000, 1, "r-xp", "/usr/bin/app", 1024, 512, 0, 0);
	add_vma(db, 0, 0x7f0000000000, 10, "rw-p", "", 10240, 10240, 10240, 10240);
	add_vma(db, 0, 0x7f0001000000, 4, "rw-p", "", 1024, 1024, 1024, 1024);
	add_vma(db, 0, 0x1000000, 8, "rw-p", "[heap]", 8192, 8192, 8192, 8192);
	add_vma(db, 0, 0x7f0002000000, 2, "r-xp", "/tmp/gone.so", 2048, 1024, 0, 0);
	add_vma(db, 1, 0x400000, 1, "r-xp", "/usr/bin/app", 1024, 512, 0, 0);
	add_vma(db, 1, 0x7f0000000000, 10, "rw-p", "", 10240, 10240, 10240, 10240);
	add_vma(db, 1, 0x7f0001000000, 4, "rw-p", "", 4096, 4096, 4096, 4096);
	add_vma(db, 1, 0x1000000, 40, "rw-p", "[heap]", 40960, 40960, 40960, 40960);
	add_vma(db, 1, 0x7f0003000000, 16, "rw-p", "[anon:cache]", 16384, 16384, 16384, 16384);
	add_vma(db, 1, 0x7f0004000000, 16, "rw-s", "/dev/zero (deleted)", 16384, 8192, 0, 0);
}

static void test_15_vma_groups(void **state)
{
	struct report_opts o = {.fmt = OUT_TEXT};
	sqlite3 *db = new_db(1);
	struct vma_group *g = NULL;
	struct mem m;
	const char *s;
	size_t n = 0;

	(void)state;
	mem_heap_db(db, "uprobe", 40, 1);
	vma_db(db);
	assert_int_equal(vma_groups__load(db, 1, 1, &g, &n), 0);
	assert_int_equal(n, 5);
	assert_string_equal(g[0].name, "[heap]");
	assert_string_equal(g[1].name, "[anon:cache]");
	assert_string_equal(g[2].name, "[anon]");
	assert_int_equal(g[2].vmas, 2);
	assert_int_equal(g[2].v[VMA_PSS], 14 * MIB);
	assert_int_equal(g[2].v[VMA_SIZE], 14 * MIB);
	assert_string_equal(g[3].name, "/dev/zero (deleted)");
	assert_int_equal(g[3].v[VMA_PSS], 8 * MIB);
	assert_int_equal(g[3].v[VMA_USS], 0);
	assert_string_equal(g[4].name, "/usr/bin/app");
	vma_groups__free(g, n);

	/* by default the last snapshot (the final one) */
	mem_open(&m);
	assert_int_equal(report_vma(db, CID, &o, m.f), 0);
	s = mem_text(&m);
	assert_contains(s, "vma (whole capture): 2 snapshots, 2 walks skipped by the smaps budget\n");
	assert_contains(s, "snapshot 1 at 6.000 s (the final one): 6 VMAs, walk 2.50 ms\n");
	assert_line_has(s, "[heap] ", " 1  40.0 MiB  40.0 MiB  40.0 MiB  40.0 MiB  40.0 MiB   0 B");
	assert_true(strstr(s, "[heap]") < strstr(s, "[anon:cache]"));
	assert_true(strstr(s, "[anon:cache]") < strstr(s, "[anon] "));
	assert_line_has(s, "total ", " 6  87.0 MiB  87.0 MiB  78.5 MiB  70.0 MiB  70.0 MiB   0 B");
	assert_lacks(s, "gone.so");
	mem_free(&m);

	/* a window ending before the last snapshot reports the one before */
	assert_int_equal(window__parse("..2", &o.win, (char[64]){0}, 64), 0);
	o.fmt = OUT_CSV;
	mem_open(&m);
	assert_int_equal(report_vma(db, CID, &o, m.f), 0);
	s = mem_text(&m);
	assert_string_equal(s, "mapping,vmas,size,rss,pss,uss,anon,swap\n"
			       "[anon],2,14680064,11534336,11534336,11534336,11534336,0\n"
			       "[heap],1,8388608,8388608,8388608,8388608,8388608,0\n"
			       "/tmp/gone.so,1,2097152,2097152,1048576,0,0,0\n"
			       "/usr/bin/app,1,1048576,1048576,524288,0,0,0\n");
	mem_free(&m);

	/* report mem sets the last VMA snapshot's [heap] + anonymous PSS beside the live heap */
	memset(&o.win, 0, sizeof(o.win));
	o.fmt = OUT_TEXT;
	mem_open(&m);
	assert_int_equal(report_mem(db, CID, &o, m.f), 0);
	s = mem_text(&m);
	assert_contains(s, "at the last VMA snapshot (6.000 s): [heap] + anonymous mappings PSS "
			   "70.0 MiB,\n  live heap 46.0 MiB, gap +24.0 MiB\n");
	mem_free(&m);
	sqlite3_close(db);
}

/* vma.group figures: each group at its peak over the snapshots (the last alone misses what
 * the target unmapped before it: gone.so, a [heap] shrunk), ptop's memfd no group of the
 * target's (issue 20); and report vma marks the memfd, out of the total */
static void test_15b_vma_figures_peak(void **state)
{
	struct report_opts o = {.fmt = OUT_TEXT};
	sqlite3 *db = new_db(1);
	struct fig_capture *fc = NULL;
	const struct fig_family *fam;
	const struct fig_value *v;
	struct window w = {0};
	struct mem m;
	const char *s;

	(void)state;
	add_probe(db, 0, "vmas", "active", "proc", NULL);
	vma_db(db);
	add_vma(db, 0, 0x7f0005000000, 32, "rw-s", "/memfd:ptop-preload (deleted)", 8192, 4096, 0,
		0);
	add_vma(db, 1, 0x7f0005000000, 32, "rw-s", "/memfd:ptop-preload (deleted)", 20480, 10240,
		0, 0);
	assert_int_equal(fig_capture__compute(db, CID, &w, &fc), 0);
	fam = fig_capture__find(fc, "vma.group(*).rss");
	assert_non_null(fam);
	assert_true(fam->measured);
	assert_int_equal(fam->samples, 2);
	v = fig_family__find(fam, "gone.so"); /* in the first snapshot only: its peak, 2 MiB */
	assert_non_null(v);
	assert_true(v->v == 2.0 * MIB && v->spread == 2.0 * MIB && v->count == 2);
	v = fig_family__find(fam, "[heap]"); /* 8 then 40 MiB: the rise is its step */
	assert_non_null(v);
	assert_true(v->v == 40.0 * MIB && v->spread == 32.0 * MIB);
	v = fig_family__find(fam, "app"); /* the same in both: no step */
	assert_non_null(v);
	assert_true(v->v == 1.0 * MIB && v->spread == 0);
	for (size_t k = 0; k < fam->n; k++)
		assert_null(strstr(fam->val[k].arg, "ptop-preload"));
	fig_capture__free(fc);

	mem_open(&m);
	assert_int_equal(report_vma(db, CID, &o, m.f), 0);
	s = mem_text(&m);
	assert_line_has(s, "/memfd:ptop-preload (deleted)  (ptop's, not in total)", " 20.0 MiB");
	/* the total as without it (test_15: 87.0 MiB of size, RSS 87.0 MiB) */
	assert_line_has(s, "total ", " 6  87.0 MiB  87.0 MiB  78.5 MiB  70.0 MiB  70.0 MiB   0 B");
	mem_free(&m);
	sqlite3_close(db);
}

static void test_16_vma_mapping_and_growth(void **state)
{
	struct vma_opts vo = {0};
	struct report_opts o = {.fmt = OUT_TEXT, .own = &vo};
	sqlite3 *db = new_db(1);
	struct mem m;
	const char *s;

	(void)state;
	add_probe(db, 0, "vmas", "active", "proc", NULL);
	vma_db(db);
	vo.mapping = "[anon]";
	mem_open(&m);
	assert_int_equal(report_vma(db, CID, &o, m.f), 0);
	s = mem_text(&m);
	assert_contains(s, "[anon]:\nstart           end             perms  offset      size       "
			   "rss       pss       uss      anon  swap\n"
			   "0x7f0000000000  0x7f0000a00000  rw-p      0x0  10.0 MiB  10.0 MiB  10.0 "
			   "MiB  10.0 MiB  10.0 MiB   0 B\n"
			   "0x7f0001000000  0x7f0001400000  rw-p      0x0  4.00 MiB  4.00 MiB  4.00 "
			   "MiB  4.00 MiB  4.00 MiB   0 B\n");
	mem_free(&m);
	o.fmt = OUT_JSON;
	vo.mapping = "/dev/zero (deleted)";
	mem_open(&m);
	assert_int_equal(report_vma(db, CID, &o, m.f), 0);
	s = mem_text(&m);
	assert_contains(s, "\"mapping\": \"/dev/zero (deleted)\",\n  \"vmas\": [\n"
			   "{\"start\": \"0x7f0004000000\", \"end\": \"0x7f0005000000\", \"perms\": "
			   "\"rw-s\", \"offset\": 0, \"size\": 16777216, \"rss\": 16777216, \"pss\": "
			   "8388608, \"uss\": 0, \"anon\": 0, \"swap\": 0}\n]\n}\n");
	mem_free(&m);
	/* a name that is no mapping: said on stderr, -EPROTO (exit 2) */
	vo.mapping = "/nope";
	mem_open(&m);
	assert_int_equal(report_vma(db, CID, &o, m.f), -EPROTO);
	mem_free(&m);

	vo.mapping = NULL;
	vo.growth = true;
	o.fmt = OUT_TEXT;
	mem_open(&m);
	assert_int_equal(report_vma(db, CID, &o, m.f), 0);
	s = mem_text(&m);
	assert_contains(s, "from snapshot 0 at 1.000 s (5 VMAs) to snapshot 1 at 6.000 s (6 VMAs, "
			   "the final one)\n");
	/* by |PSS delta|: [heap] +32, [anon:cache] +16, /dev/zero +8, [anon] +3, gone.so -1 */
	assert_true(strstr(s, "\n[heap] ") < strstr(s, "\n[anon:cache] "));
	assert_true(strstr(s, "\n[anon:cache] ") < strstr(s, "\n/dev/zero (deleted) "));
	assert_true(strstr(s, "\n/dev/zero (deleted) ") < strstr(s, "\n[anon] "));
	assert_true(strstr(s, "\n[anon] ") < strstr(s, "\n/tmp/gone.so "));
	assert_line_has(s, "[anon:cache] ", " appeared ");
	assert_line_has(s, "/tmp/gone.so ", " vanished ");
	assert_line_has(s, "[heap] ", " grew ");
	assert_line_has(s, "[heap] ", "+32.0 MiB");
	assert_lacks(s, "/usr/bin/app"); /* unchanged */
	mem_free(&m);
	o.fmt = OUT_JSON;
	mem_open(&m);
	assert_int_equal(report_vma(db, CID, &o, m.f), 0);
	s = mem_text(&m);
	assert_contains(s, "{\"mapping\": \"[anon]\", \"change\": \"grew\", \"vmas_first\": 2, "
			   "\"vmas_last\": 2, \"size_delta\": 0, \"rss_first\": 11534336, "
			   "\"rss_last\": 14680064, \"rss_delta\": 3145728, \"pss_first\": 11534336, "
			   "\"pss_last\": 14680064, \"pss_delta\": 3145728}");
	assert_contains(s, "{\"mapping\": \"/tmp/gone.so\", \"change\": \"vanished\", "
			   "\"vmas_first\": 1, \"vmas_last\": null, \"size_delta\": -2097152,");
	mem_free(&m);
	/* one snapshot in the window: nothing to compare, said, -EPROTO */
	assert_int_equal(window__parse("3..", &o.win, (char[64]){0}, 64), 0);
	mem_open(&m);
	assert_int_equal(report_vma(db, CID, &o, m.f), -EPROTO);
	mem_free(&m);
	sqlite3_close(db);
}

static void test_17_vma_not_collected_and_empty(void **state)
{
	struct report_opts o = {.fmt = OUT_TEXT};
	sqlite3 *db = new_db(1);
	struct mem m;

	(void)state;
	add_probe(db, 0, "vmas", "unsupported", "proc",
		  "VMA snapshots are per process: record one process of the cgroup with --pid");
	mem_open(&m);
	assert_int_equal(report_vma(db, CID, &o, m.f), 0);
	assert_string_equal(mem_text(&m), "vma: not collected (unsupported: VMA snapshots are per "
					  "process: record one process of the cgroup with --pid)\n");
	mem_free(&m);
	sqlite3_close(db);

	db = new_db(1);
	add_probe(db, 0, "vmas", "active", "proc", NULL);
	mem_open(&m);
	assert_int_equal(report_vma(db, CID, &o, m.f), 0);
	assert_string_equal(mem_text(&m), "vma (whole capture): no VMA snapshot\n"
					  "drops: none recorded for vmas\n");
	mem_free(&m);
	sqlite3_close(db);
}

/* ------------------------------------------------------------------ cpu profile */

/* A user stack SID of one frame at IP. */
static void add_user_stack(sqlite3 *db, int sid, long long ip)
{
	execf(db,
	      "INSERT INTO stack (cap, stack_id, kernel, depth) VALUES (" CAP_OF ", %d, 0, 1); "
	      "INSERT INTO stack_frame (cap, stack_id, depth, ip) VALUES (" CAP_OF ", %d, 0, %lld)",
	      CID, sid, CID, sid, ip);
}

/* A cgroup capture's profile (cpu_profile.pid NULL) of one interval: pid 100
 * (alpha, comm and exe in cgroup_proc) 30 samples in alpha+0x100 and 6 in
 * libc+0x10; pid 200 (comm in cgroup_proc, exe from its mapping) 10 in beta+0x100
 * at the same address as alpha's; pid 300 (nothing known) 4. PER_PROCESS false:
 * the same counts without cpu_profile_stack.pid, cpu_profile.pid 42. */
static sqlite3 *profile_db(bool per_process)
{
	sqlite3 *db = new_db(1);

	add_probe(db, 0, "cpuprof", "active", "ebpf", NULL);
	execf(db,
	      "INSERT INTO mapping (cap, time_ns, pid, start, end, offset, path, event) VALUES "
	      "(" CAP_OF ", %lld, 100, %d, %d, 0, '/usr/bin/alpha', 'start'), "
	      "(" CAP_OF ", %lld, 100, %d, %d, 0, '/usr/lib/libc.so.6', 'start'), "
	      "(" CAP_OF ", %lld, 200, %d, %d, 0, '/usr/lib/libc.so.6', 'start'), "
	      "(" CAP_OF ", %lld, 200, %d, %d, 0, '/opt/beta/bin/beta', 'start')",
	      CID, BASE, 0x400000, 0x401000, CID, BASE, 0x7000000, 0x7001000, CID, BASE,
	      0x7000000, 0x7001000, CID, BASE, 0x400000, 0x401000);
	add_user_stack(db, 1, 0x400100);
	add_user_stack(db, 2, 0x7000010);
	add_user_stack(db, 3, 0x400100);
	add_user_stack(db, 4, 0x999);
	execf(db,
	      "INSERT INTO cpu_profile (cap, seq, time_ns, interval_ns, pid, requested_hz, ticks, "
	      "delivered_hz, cpus, samples, no_user_stack, no_kernel_stack, lost) VALUES "
	      "(" CAP_OF ", 0, %lld, %lld, %s, 99, 396, 99.0, 4, 50, 0, 50, 0)",
	      CID, BASE + SEC, SEC, per_process ? "NULL" : "42");
	execf(db,
	      "INSERT INTO cpu_profile_stack (cap, seq, user_stack_id, kernel_stack_id, count, "
	      "pid) VALUES (" CAP_OF ", 0, 1, NULL, 30, %s), (" CAP_OF ", 0, 2, NULL, 6, %s), "
	      "(" CAP_OF ", 0, 3, NULL, 10, %s), (" CAP_OF ", 0, 4, NULL, 4, %s)",
	      CID, per_process ? "100" : "NULL", CID, per_process ? "100" : "NULL", CID,
	      per_process ? "200" : "NULL", CID, per_process ? "300" : "NULL");
	if (per_process)
		execf(db,
		      "INSERT INTO cgroup_proc (cap, seq, pid, comm, exe, state) VALUES "
		      "(" CAP_OF ", 0, 100, 'alpha', '/usr/bin/alpha', 'covered'), "
		      "(" CAP_OF ", 0, 200, 'beta', NULL, 'denied')",
		      CID, CID);
	return db;
}

/* report cpu of a cgroup's per-process profile: the processes table (comm and
 * exe from cgroup_proc, else the exe from the mappings, else unknown), each
 * process's stacks placed in its own mappings; --pid restricts the functions to
 * one process and refuses one the profile does not have; a single-process
 * profile has no processes table (JSON: an empty array). */
static void test_18_cpu_per_process(void **state)
{
	static const char procs[] =
	    "\nprocesses by samples (3):\n"
	    "pid  comm   exe                 samples  share\n"
	    "100  alpha  /usr/bin/alpha           36  72.0%\n"
	    "200  beta   /opt/beta/bin/beta       10  20.0%\n"
	    "300  -      -                         4   8.0%\n"
	    "\ntop functions by self samples:\n"
	    "self  self%  total  total%  function         file:line  module\n"
	    "  30  60.0%     30   60.0%  alpha+0x100              -  alpha\n"
	    "  10  20.0%     10   20.0%  beta+0x100               -  beta\n"
	    "   6  12.0%      6   12.0%  libc.so.6+0x10           -  libc.so.6\n"
	    "   4   8.0%      4    8.0%  [unknown]+0x999          -  [unknown]\n";
	struct cpu_opts co = {0};
	struct report_opts o = {.fmt = OUT_TEXT, .own = &co};
	sqlite3 *db = profile_db(true);
	struct mem m;
	const char *s;

	(void)state;
	mem_open(&m);
	assert_int_equal(report_cpu(db, CID, &o, m.f), 0);
	s = mem_text(&m);
	assert_contains(s, "\nprofile: 50 samples in 1 intervals, 99 Hz requested, 99.0 Hz "
			   "delivered; unnamed 50 (100.0%)\n");
	assert_contains(s, procs);
	mem_free(&m);

	/* --top 2: the first two processes and the rest in one line */
	o.top = 2;
	mem_open(&m);
	assert_int_equal(report_cpu(db, CID, &o, m.f), 0);
	assert_contains(mem_text(&m), "200  beta   /opt/beta/bin/beta       10  20.0%\n"
				      "(1 more processes: 4 samples; --top N shows more)\n");
	mem_free(&m);
	o.top = 0;

	o.fmt = OUT_JSON;
	mem_open(&m);
	assert_int_equal(report_cpu(db, CID, &o, m.f), 0);
	s = mem_text(&m);
	assert_contains(s, "  \"processes\": [\n"
			   "    {\n      \"pid\": 100,\n      \"comm\": \"alpha\",\n"
			   "      \"exe\": \"/usr/bin/alpha\",\n      \"samples\": 36,\n"
			   "      \"share_pct\": 72\n    },\n"
			   "    {\n      \"pid\": 200,\n      \"comm\": \"beta\",\n"
			   "      \"exe\": \"/opt/beta/bin/beta\",\n      \"samples\": 10,\n"
			   "      \"share_pct\": 20\n    },\n"
			   "    {\n      \"pid\": 300,\n      \"comm\": null,\n"
			   "      \"exe\": null,\n      \"samples\": 4,\n"
			   "      \"share_pct\": 8\n    }\n  ],\n  \"profile\": {\n");
	assert_contains(s, "    \"pid\": null,\n    \"samples_all_processes\": 50,\n"
			   "    \"top_self\": [\n");
	mem_free(&m);

	/* --pid 200: its function only, shares of its samples; the table unchanged */
	co.pid = 200;
	o.fmt = OUT_TEXT;
	mem_open(&m);
	assert_int_equal(report_cpu(db, CID, &o, m.f), 0);
	s = mem_text(&m);
	assert_contains(s, "\nprofile of process 200 (beta): 10 of 50 samples in 1 intervals, "
			   "99 Hz requested, 99.0 Hz delivered; unnamed 10 (100.0%)\n");
	assert_contains(s, "300  -      -                         4   8.0%\n"
			   "\ntop functions by self samples:\n"
			   "self   self%  total  total%  function    file:line  module\n"
			   "  10  100.0%     10  100.0%  beta+0x100          -  beta\n"
			   "\ntop functions by total");
	assert_lacks(s, "alpha+0x100");
	mem_free(&m);
	o.fmt = OUT_JSON;
	mem_open(&m);
	assert_int_equal(report_cpu(db, CID, &o, m.f), 0);
	s = mem_text(&m);
	assert_contains(s, "    \"samples\": 10,\n");
	assert_contains(s, "    \"pid\": 200,\n    \"samples_all_processes\": 50,\n");
	assert_lacks(s, "\"function\": \"alpha+0x100\"");
	mem_free(&m);

	/* a process the profile does not have: a usage error, nothing printed */
	co.pid = 201;
	mem_open(&m);
	assert_int_equal(report_cpu(db, CID, &o, m.f), -EPROTO);
	assert_string_equal(mem_text(&m), "");
	mem_free(&m);
	sqlite3_close(db);

	/* one process: no table, an empty array; --pid of its own pid is the whole profile */
	db = profile_db(false);
	co.pid = 0;
	o.fmt = OUT_TEXT;
	mem_open(&m);
	assert_int_equal(report_cpu(db, CID, &o, m.f), 0);
	s = mem_text(&m);
	assert_contains(s, "\nprofile: 50 samples in 1 intervals");
	assert_lacks(s, "processes");
	mem_free(&m);
	o.fmt = OUT_JSON;
	mem_open(&m);
	assert_int_equal(report_cpu(db, CID, &o, m.f), 0);
	s = mem_text(&m);
	assert_contains(s, "  \"processes\": [],\n  \"profile\": {\n");
	assert_contains(s, "    \"pid\": null,\n    \"samples_all_processes\": 50,\n");
	mem_free(&m);
	co.pid = 42;
	o.fmt = OUT_TEXT;
	mem_open(&m);
	assert_int_equal(report_cpu(db, CID, &o, m.f), 0);
	assert_contains(mem_text(&m), "\nprofile of process 42: 50 of 50 samples in 1 intervals");
	mem_free(&m);
	co.pid = 100;
	mem_open(&m);
	assert_int_equal(report_cpu(db, CID, &o, m.f), -EPROTO);
	mem_free(&m);
	sqlite3_close(db);

	/* --pid when the profile was not collected: a usage error too */
	db = new_db(1);
	add_probe(db, 0, "cpuprof", "failed", "ebpf", "perf_event_open: ENODEV");
	co.pid = 42;
	mem_open(&m);
	assert_int_equal(report_cpu(db, CID, &o, m.f), -EPROTO);
	assert_string_equal(mem_text(&m), "");
	mem_free(&m);
	co.pid = 0;
	o.fmt = OUT_JSON;
	mem_open(&m);
	assert_int_equal(report_cpu(db, CID, &o, m.f), 0);
	assert_contains(mem_text(&m), "  \"processes\": [],\n"
				      "  \"profile\": {\n    \"collected\": false,\n"
				      "    \"state\": \"failed\",\n"
				      "    \"reason\": \"perf_event_open: ENODEV\"\n  }");
	mem_free(&m);
	sqlite3_close(db);
}

/* The syscalls of the uprobe trampolines (x86_64 uretprobe 335, uprobe 336) are
 * probe overhead: apart from the target's rows and left out of its totals and
 * time shares, in text, JSON and CSV. A DB loaded by an older ptop holds
 * "sys_335": the name comes from ptop's table for the capture's machine. */
static void test_19_syscalls_probe_overhead(void **state)
{
	sqlite3 *db = syscalls_db();
	struct report_opts o = {.fmt = OUT_TEXT};
	struct syscall_agg *a = NULL;
	struct window w = {0};
	struct capture_meta m;
	const char *s, *po;
	size_t n = 0;
	struct mem me;

	(void)state;
	exec(db, "UPDATE capture SET machine = 'x86_64'");
	/* more calls and time than the target's own: sorted first when mixed in */
	add_syscall(db, 1, 335, "sys_335", 500000LL, 500000LL, 0LL, 900000000LL, 10, 500000LL, -1);
	add_syscall(db, 2, 335, "sys_335", 500000LL, 500000LL, 0LL, 900000000LL, 10, 500000LL, -1);
	add_syscall(db, 2, 336, "uprobe", 100LL, 100LL, 0LL, 200000LL, 11, 100LL, -1);

	assert_int_equal(capture_meta__load(db, CID, &m), 0);
	assert_string_equal(m.machine, "x86_64");
	assert_int_equal(syscalls__aggregate(db, &m, &w, SORT_COUNT, &a, &n), 0);
	assert_int_equal(n, 4);
	assert_string_equal(a[0].name, "uretprobe");
	assert_true(a[0].probe && a[0].name_known);
	assert_int_equal(a[0].count, 1000000);
	assert_int_equal(syscalls__split_probe(a, n), 2);
	assert_string_equal(a[0].name, "getppid");
	assert_false(a[0].probe);
	assert_string_equal(a[1].name, "read");
	assert_string_equal(a[2].name, "uretprobe");
	assert_string_equal(a[3].name, "uprobe");
	assert_true(a[3].probe);
	free(a);

	/* text: the target's summary and table as without the probes, then the overhead */
	mem_open(&me);
	assert_int_equal(report_syscalls(db, CID, &o, me.f), 0);
	s = mem_text(&me);
	assert_contains(s, "syscalls (whole capture): 2 distinct, 75 calls, 3 errors,");
	po = strstr(s, "\nprobe overhead, not in the figures above: 1,000,100 calls, 1.80 s total "
		       "latency\n");
	if (!po)
		fail_msg("no probe overhead section in:\n%s", s);
	if (strstr(s, "uretprobe") < po || strstr(s, "uprobe ") < po)
		fail_msg("uretprobe or uprobe listed before the probe overhead section:\n%s", s);
	assert_contains(po, "\nuretprobe  1,000,000       0  1.80 s  1.80 us");
	assert_contains(s, "\nprobe overhead: syscalls that only the kernel's uprobe trampolines");
	assert_lacks(s, "sys_335");
	assert_lacks(s, "names unknown");
	mem_free(&me);

	/* JSON: totals of the target, the overhead in its own object */
	o.fmt = OUT_JSON;
	mem_open(&me);
	assert_int_equal(report_syscalls(db, CID, &o, me.f), 0);
	s = mem_text(&me);
	assert_contains(s, "\"totals\": {\n    \"syscalls\": 2,\n    \"count\": 75,\n");
	assert_contains(s, "\"probe_overhead\": {\n    \"what\": \"syscalls the kernel's uprobe");
	assert_contains(s, "\"syscalls\": 2,\n    \"count\": 1000100,\n    \"completed\": 1000100,"
			   "\n    \"errors\": 0,\n    \"total_ns\": 1800200000,\n");
	assert_contains(s, "\"name\": \"uretprobe\",\n        \"nr\": 335,");
	assert_contains(s, "\"time_share_pct\": 99.79,\n      \"name_known\": true"); /* read */
	po = strstr(s, "\"probe_overhead\"");
	if (strstr(s, "uretprobe") < po)
		fail_msg("uretprobe among the target's syscalls:\n%s", s);
	mem_free(&me);

	/* CSV: the target's table exactly as without the probes */
	o.fmt = OUT_CSV;
	mem_open(&me);
	assert_int_equal(report_syscalls(db, CID, &o, me.f), 0);
	assert_string_equal(mem_text(&me),
			    "name,nr,count,completed,errors,total_ns,mean_ns,p50_ns,p99_ns,"
			    "time_share_pct\n"
			    "getppid,110,60,60,0,30000,500,5793,5793,0.21\n"
			    "read,0,15,14,3,14000000,1000000,1482910,1482910,99.79\n");
	mem_free(&me);

	/* a number past the table: sys_N, and the report says the name is unknown */
	add_syscall(db, 3, 480, "sys_480", 7LL, 7LL, 0LL, 700LL, 6, 7LL, -1);
	o.fmt = OUT_TEXT;
	mem_open(&me);
	assert_int_equal(report_syscalls(db, CID, &o, me.f), 0);
	assert_contains(mem_text(&me), "names unknown to this ptop version: sys_480 (numbers past "
				       "its table, x86_64 syscalls 0-470 (Linux 6.19)");
	mem_free(&me);
	o.fmt = OUT_JSON;
	mem_open(&me);
	assert_int_equal(report_syscalls(db, CID, &o, me.f), 0);
	assert_contains(mem_text(&me), "\"name_known\": false");
	mem_free(&me);

	/* no table for the machine: nothing told apart, and the report says so */
	exec(db, "UPDATE capture SET machine = 'riscv64'");
	o.fmt = OUT_TEXT;
	mem_open(&me);
	assert_int_equal(report_syscalls(db, CID, &o, me.f), 0);
	s = mem_text(&me);
	assert_contains(s, "no syscall table for machine 'riscv64'");
	assert_contains(s, "sys_335");
	assert_lacks(s, "\nprobe overhead");
	mem_free(&me);
	o.fmt = OUT_JSON;
	mem_open(&me);
	assert_int_equal(report_syscalls(db, CID, &o, me.f), 0);
	assert_contains(mem_text(&me), "\"probe_overhead\": null");
	mem_free(&me);
	sqlite3_close(db);
}

/* A syscall with no completed call (exit_group never returns) has no measured
 * latency: its total and time share are empty (text "-", CSV empty, JSON null),
 * never 0 ns. */
static void test_20_syscalls_no_latency(void **state)
{
	sqlite3 *db = syscalls_db();
	struct report_opts o = {.fmt = OUT_TEXT};
	char line[256];
	const char *s, *p, *e;
	struct mem me;

	(void)state;
	execf(db,
	      "INSERT INTO syscall_stat (cap, time_ns, interval_ns, pid, nr, name, count, "
	      "completed, errors, total_ns) VALUES (" CAP_OF ", %lld, %lld, 42, 231, "
	      "'exit_group', 1, 0, 0, 0)",
	      CID, BASE + 3 * SEC, SEC);
	mem_open(&me);
	assert_int_equal(report_syscalls(db, CID, &o, me.f), 0);
	s = mem_text(&me);
	p = strstr(s, "\nexit_group ");
	if (!p)
		fail_msg("no exit_group row in:\n%s", s);
	e = strchr(p + 1, '\n');
	snprintf(line, sizeof(line), "%.*s", (int)(e - p - 1), p + 1);
	assert_lacks(line, "0 ns");
	assert_lacks(line, "0.0%");
	mem_free(&me);

	o.fmt = OUT_CSV;
	mem_open(&me);
	assert_int_equal(report_syscalls(db, CID, &o, me.f), 0);
	assert_contains(mem_text(&me), "\nexit_group,231,1,0,0,,,,,\n");
	mem_free(&me);

	o.fmt = OUT_JSON;
	mem_open(&me);
	assert_int_equal(report_syscalls(db, CID, &o, me.f), 0);
	assert_contains(mem_text(&me), "\"name\": \"exit_group\",\n      \"nr\": 231,\n"
				       "      \"count\": 1,\n      \"completed\": 0,\n"
				       "      \"errors\": 0,\n      \"total_ns\": null,\n"
				       "      \"mean_ns\": null,");
	mem_free(&me);
	sqlite3_close(db);
}

/* Issue 10: a profile that was collected but holds no sample (a recording of `sleep`)
 * once passed qsort a NULL array (UBSan: null pointer passed as argument 1). The
 * report says 0 samples, and JSON has empty function lists. */
static void test_21_cpu_profile_no_samples(void **state)
{
	struct report_opts o = {.fmt = OUT_TEXT};
	sqlite3 *db = new_db(1);
	struct mem m;
	const char *s;

	(void)state;
	add_probe(db, 0, "cpu", "active", "ebpf", NULL);
	add_probe(db, 1, "cpuprof", "active", "ebpf", NULL);
	execf(db,
	      "INSERT INTO cpu_sample (cap, time_ns, interval_ns, pid, oncpu_ns) "
	      "VALUES (" CAP_OF ", %lld, %lld, 42, 1000)",
	      CID, BASE + SEC, SEC);
	mem_open(&m);
	assert_int_equal(report_cpu(db, CID, &o, m.f), 0);
	s = mem_text(&m);
	assert_contains(s, "\nprofile: 0 samples in 0 intervals");
	assert_lacks(s, "top functions");
	mem_free(&m);
	o.fmt = OUT_JSON;
	mem_open(&m);
	assert_int_equal(report_cpu(db, CID, &o, m.f), 0);
	s = mem_text(&m);
	assert_contains(s, "\"top_self\": [],");
	assert_contains(s, "\"top_total\": []");
	mem_free(&m);
	sqlite3_close(db);
}

/* Issue 10: figures whose sums pass 2^63 (signed overflow, UBSan) are a corrupt DB:
 * report cpu refuses (-EBADMSG, said on stderr), never prints a wrapped sum. */
static void test_22_cpu_sums_overflow(void **state)
{
	struct report_opts o = {.fmt = OUT_TEXT};
	sqlite3 *db = new_db(1);
	struct mem m;

	(void)state;
	add_probe(db, 0, "cpu", "active", "ebpf", NULL);
	execf(db,
	      "INSERT INTO cpu_sample (cap, time_ns, interval_ns, pid, oncpu_ns) "
	      "VALUES (" CAP_OF ", %lld, %lld, 42, %lld), (" CAP_OF ", %lld, %lld, 42, %lld)",
	      CID, BASE + SEC, SEC, INT64_MAX - 5, CID, BASE + 2 * SEC, SEC, INT64_MAX - 5);
	mem_open(&m);
	assert_int_equal(report_cpu(db, CID, &o, m.f), -EBADMSG);
	assert_lacks(mem_text(&m), "-0.000");
	mem_free(&m);
	sqlite3_close(db);

	/* user + system of one /proc interval */
	db = new_db(1);
	add_probe(db, 0, "cpu", "active", "proc", NULL);
	execf(db,
	      "INSERT INTO cpu_sample (cap, time_ns, interval_ns, pid, user_ns, system_ns) "
	      "VALUES (" CAP_OF ", %lld, %lld, 42, %lld, %lld)",
	      CID, BASE + SEC, SEC, INT64_MAX - 5, INT64_MAX - 5);
	mem_open(&m);
	assert_int_equal(report_cpu(db, CID, &o, m.f), -EBADMSG);
	mem_free(&m);
	sqlite3_close(db);
}

/* Expect db__check_capture on DB to refuse with a message holding WHAT. */
static void assert_corrupt(sqlite3 *db, const char *what)
{
	char err[1024] = "";

	assert_int_equal(db__check_capture(db, 1, err, sizeof(err)), -EBADMSG);
	if (!strstr(err, "corrupt DB: ") || !strstr(err, what))
		fail_msg("expected \"corrupt DB: ...%s...\", got \"%s\"", what, err);
}

/* One cpu_sample row per (time, interval, pid) given, then the check. */
static sqlite3 *cpu_rows_db(const char *rows)
{
	sqlite3 *db = new_db(1);

	add_probe(db, 0, "cpu", "active", "ebpf", NULL);
	execf(db, "INSERT INTO cpu_sample (cap, time_ns, interval_ns, pid, oncpu_ns) VALUES %s",
	      rows);
	return db;
}

/* Issue 10: a DB whose times or intervals no capture can hold (zero, negative, out of
 * order, twice at one time, negative counts) is refused as corrupt, naming the table,
 * the row and what is wrong; `report` exits 2 on it. A sound DB passes, NULL intervals
 * and several pids at one time included. */
static void test_23_corrupt_db_refused(void **state)
{
	char err[1024] = "", path[300], *argv[4];
	sqlite3 *db;

	(void)state;
	db = cpu_rows_db("(1, 1000000001000, 1000000000, 42, 5), (1, 1000000001000, NULL, 43, 5), "
			 "(1, 1000000002000, 1000000000, 42, 5)");
	assert_int_equal(db__check_capture(db, 1, err, sizeof(err)), 0);
	sqlite3_close(db);

	db = cpu_rows_db("(1, 1000000001000, 0, 42, 5)");
	assert_corrupt(db, "cpu_sample row 1: interval_ns is 0");
	sqlite3_close(db);
	db = cpu_rows_db("(1, 1000000001000, -1000, 42, 5)");
	assert_corrupt(db, "interval_ns is -1000");
	sqlite3_close(db);
	db = cpu_rows_db("(1, 5, 1000, 42, 5)");
	assert_corrupt(db, "interval_ns is 1000 (time_ns 5)");
	sqlite3_close(db);
	db = cpu_rows_db("(1, 0, NULL, 42, 5)");
	assert_corrupt(db, "time_ns is 0");
	sqlite3_close(db);
	db = cpu_rows_db("(1, -7, NULL, 42, 5)");
	assert_corrupt(db, "time_ns is -7");
	sqlite3_close(db);
	db = cpu_rows_db("(1, 1000000002000, 1000, 42, 5), (1, 1000000001000, 1000, 42, 5)");
	assert_corrupt(db, "cpu_sample row 2: time_ns 1000000001000 is not after the previous "
			   "sample's 1000000002000");
	sqlite3_close(db);
	db = cpu_rows_db("(1, 1000000002000, 1000, 42, 5), (1, 1000000002000, 1000, 42, 5)");
	assert_corrupt(db, "twice at one time");
	sqlite3_close(db);
	db = cpu_rows_db("(1, 1000000002000, 1000, 42, -5)");
	assert_corrupt(db, "oncpu_ns is -5");
	sqlite3_close(db);
	db = new_db(1);
	execf(db, "INSERT INTO syscall_stat (cap, time_ns, interval_ns, pid, nr, name, count, "
		  "completed, errors, total_ns) VALUES (1, 1000000001000, 0, 1, 0, 'read', 1, 1, "
		  "0, 10)");
	assert_corrupt(db, "syscall_stat row 1: interval_ns is 0");
	sqlite3_close(db);
	db = new_db(1);
	exec(db, "UPDATE capture SET start_monotonic_ns = -1");
	assert_corrupt(db, "start_monotonic_ns is -1");
	sqlite3_close(db);

	/* the command: exit 2 and the message */
	assert_int_equal(tmpdir__make("report"), 0);
	snprintf(path, sizeof(path), "%s/corrupt.db", tmpdir);
	db = cpu_rows_db("(1, 1000000001000, 0, 42, 5)");
	execf(db, "PRAGMA user_version = %d", DB_SCHEMA_VERSION);
	execf(db, "VACUUM INTO %Q", path);
	sqlite3_close(db);
	argv[0] = "report", argv[1] = "cpu", argv[2] = path, argv[3] = NULL;
	assert_int_equal(cmd_report(3, argv), ANALYZE_EXIT_USAGE);
	teardown(NULL);
}

/* Issue 10 (found by fuzz_records and fuzz_db): `info` opens any DB, corrupt ones too; a
 * time 2^63 ns from the start (signed overflow, UBSan) is printed as it is and said to be
 * no time of the capture; JSON's duration is null. */
static void test_24_info_far_times(void **state)
{
	sqlite3 *db = new_db(1);
	struct mem m;
	const char *s;

	(void)state;
	execf(db, "UPDATE capture SET end_reason = 'duration', end_time_ns = %lld, "
		  "last_event_ns = %lld",
	      (long long)INT64_MIN, (long long)INT64_MIN);
	mem_open(&m);
	assert_int_equal(info__print(db, CID, "x.db", false, 0, m.f), 0);
	s = mem_text(&m);
	assert_contains(s, "end        duration at ? (end_time_ns -9223372036854775808 is no time "
			   "of this capture)");
	mem_free(&m);
	mem_open(&m);
	assert_int_equal(info__print(db, CID, "x.db", true, 0, m.f), 0);
	assert_contains(mem_text(&m), "\"duration_ns\": null");
	mem_free(&m);
	sqlite3_close(db);
}

/* Issue 10: a window side so far from the start that start + it passes 2^63 ns (signed
 * overflow, UBSan) bounds nothing: it saturates, and the report holds no interval. */
static void test_25_window_far(void **state)
{
	struct report_opts o = {.fmt = OUT_TEXT};
	struct capture_meta cm = {.base_ns = BASE};
	char err[256];
	int64_t lo, hi;
	sqlite3 *db = syscalls_db();
	struct mem m;

	(void)state;
	assert_int_equal(window__parse("9223372036..", &o.win, err, sizeof(err)), 0);
	window__bounds(&o.win, &cm, &lo, &hi);
	assert_true(lo == INT64_MAX);
	assert_true(hi == INT64_MAX);
	mem_open(&m);
	assert_int_equal(report_cpu(db, CID, &o, m.f), 0);
	assert_contains(mem_text(&m), ": 0 intervals");
	mem_free(&m);
	sqlite3_close(db);
}

/* The part whose reports list R; NULL when none does. */
static const struct an_part *report_owner(const struct an_report *r)
{
	for (const struct an_part *const *p = an_parts; *p; p++)
		for (const struct an_report *const *k = (*p)->reports; k && *k; k++)
			if (*k == r)
				return *p;
	return NULL;
}

/* Issue 12: `report`'s kinds come from the collectors' parts, each declared once by the
 * collector that owns it; their order is the one users know, their names and places unique,
 * each has what the command needs, and each kind-specific option has a kind that takes it.
 * A collector added to collectors.def (the toy of tests/e2e/toy_collector.sh) adds its kinds
 * to the list: they follow the same rules, and the ones below stay as they are. */
/* report events --category: a comma-separated list, whole words only */
static void test_27_events_category_list(void **state)
{
	(void)state;
	assert_true(events__category_in("", "lifecycle"));
	assert_true(events__category_in("lifecycle", "lifecycle"));
	assert_true(events__category_in("drop,lifecycle", "lifecycle"));
	assert_true(events__category_in("lifecycle,drop", "drop"));
	assert_false(events__category_in("lifecycle", "life"));
	assert_false(events__category_in("life,cycle", "lifecycle"));
	assert_false(events__category_in("drop,probe", "end"));
	assert_false(events__category_in("drop,", "dro"));
}

static void test_26_report_kinds(void **state)
{
	static const char *const names[] = {"syscalls", "cpu", "mem",	 "vma",
					    "heap",	"leaks", "cgroup", "apps"};
	static const struct {
		const char *part, *kinds;
	} owner[] = {{"syscalls", "syscalls"}, {"cpu", "cpu"},	    {"memory", "mem"},
		     {"vmas", "vma"},	       {"heap", "heap leaks"}, {"cgroup", "cgroup apps"}};
	const struct an_report *r, *prev = NULL;
	struct vma_opts vo = {0};
	struct report_opts o = {.own = &vo};
	size_t taken = 0;
	char buf[256], seen[256], all[256] = "", bar[256] = "";
	size_t n = 0, shipped = 0, added = 0, ncore = 0, k;

	(void)state;
	for (r = report_kind__next(NULL); r; prev = r, r = report_kind__next(r), n++) {
		const struct an_part *part = report_owner(r);
		const char *s = r->summary, *nl;
		bool core = false;

		for (const struct an_report *const *c = core_reports; *c; c++)
			core |= *c == r;
		assert_true(core != !!part); /* a part's, or the core's own (names no collector) */
		for (k = 0; part && k < sizeof(owner) / sizeof(owner[0]); k++)
			if (!strcmp(owner[k].part, part->name))
				break;
		if (core) {
			ncore++;
		} else if (k < sizeof(owner) / sizeof(owner[0])) { /* a shipped collector's */
			assert_true(shipped < sizeof(names) / sizeof(names[0]));
			assert_string_equal(r->name, names[shipped++]);
		} else {
			added++;
		}
		/* the lists report_kind__list prints, made here name by name */
		if (report_kind__next(r) || !n) {
			snprintf(all + strlen(all), sizeof(all) - strlen(all), "%s%s", n ? ", " : "",
				 r->name);
		} else {
			snprintf(all + strlen(all), sizeof(all) - strlen(all), " or %s", r->name);
		}
		snprintf(bar + strlen(bar), sizeof(bar) - strlen(bar), "%s%s", n ? "|" : "", r->name);
		assert_ptr_equal(report_kind__find(r->name), r);
		assert_true(!prev || prev->order < r->order);
		assert_non_null(r->body);
		assert_non_null(r->tables);
		assert_true(r->tables[0] && !strchr(r->tables, ' '));
		assert_non_null(s);
		do { /* lines of at most 66 characters: 79 columns in --help */
			nl = strchr(s, '\n');
			assert_true((nl ? (size_t)(nl - s) : strlen(s)) <= 66);
			assert_true(nl ? nl - s > 0 : *s);
			s = nl ? nl + 1 : NULL;
		} while (s);
		/* its options: named, helped (lines of at most 52 characters: 79 columns),
		 * parsed into a struct of its own */
		for (const struct report_option *x = r->options; x && x->name; x++, taken++) {
			assert_non_null(x->help);
			assert_non_null(x->parse);
			assert_true(r->settings_size > 0);
			for (s = x->help; s; s = nl ? nl + 1 : NULL) {
				nl = strchr(s, '\n');
				assert_true((nl ? (size_t)(nl - s) : strlen(s)) <= 52);
			}
		}
	}
	assert_int_equal(shipped, sizeof(names) / sizeof(names[0]));
	assert_int_equal(n, shipped + added + ncore);
	assert_int_equal(ncore, 1);
	assert_non_null(report_kind__find("events")); /* the timeline, a core report */
	n -= ncore;
	/* none left out of the list: every part's reports are in it (orders unique), once */
	for (const struct an_part *const *p = an_parts; *p; p++)
		for (const struct an_report *const *k = (*p)->reports; k && *k; k++) {
			for (r = report_kind__next(NULL); r && r != *k;)
				r = report_kind__next(r);
			assert_ptr_equal(r, *k);
			n--;
		}
	assert_int_equal(n, 0);
	assert_null(report_kind__find("nosuchkind"));
	assert_null(report_kind__find(""));
	assert_true(taken >= 9); /* sort, pid, mapping, growth, by (twice), suppressions,
				  * table, file */

	/* each collector's part lists its own */
	for (n = 0; n < sizeof(owner) / sizeof(owner[0]); n++) {
		const struct an_part *p = an_part__find(owner[n].part);

		assert_non_null(p);
		assert_non_null(p->reports);
		seen[0] = '\0';
		for (const struct an_report *const *k = p->reports; *k; k++)
			snprintf(seen + strlen(seen), sizeof(seen) - strlen(seen), "%s%s",
				 seen[0] ? " " : "", (*k)->name);
		assert_string_equal(seen, owner[n].kinds);
	}
	/* a kind whose probe is found otherwise (heap or the Go lane; cgroup or memory) says
	 * "not collected" itself: no probe named */
	assert_null(report_kind__find("heap")->probe);
	assert_null(report_kind__find("apps")->probe);
	assert_string_equal(report_kind__find("syscalls")->probe, "syscalls");
	assert_string_equal(report_kind__find("vma")->drops, "vmas");

	/* the lists the help and the messages print */
	if (!added) { /* the shipped collectors' */
		assert_string_equal(all, "syscalls, cpu, mem, vma, heap, leaks, cgroup or apps");
		assert_string_equal(bar, "syscalls|cpu|mem|vma|heap|leaks|cgroup|apps");
	}
	report_kind__list(buf, sizeof(buf), 0, ", ", " or ");
	assert_string_equal(buf, all);
	report_kind__list(buf, sizeof(buf), 0, "|", "|");
	assert_string_equal(buf, bar);
	report_kind__list(buf, sizeof(buf), "pid", ", ", " or ");
	assert_string_equal(buf, "cpu or events");
	report_kind__list(buf, sizeof(buf), "growth", ", ", " or ");
	assert_string_equal(buf, "vma");
	report_kind__list(buf, sizeof(buf), "nosuchoption", ", ", " or ");
	assert_string_equal(buf, "");
	report_kind__list(buf, sizeof(buf), "by", ", ", " or ");
	assert_string_equal(buf, "heap or apps");
	report_kind__list(buf, sizeof(buf), "table", ", ", " or ");
	assert_string_equal(buf, "io");

	/* the options parse into the kind's own settings, as the command gives them */
	{
		struct heap_opts ho = {0};
		struct apps_opts ao = {0};
		struct cpu_opts co = {0};

		r = report_kind__find("heap");
		assert_int_equal(report_kind__set(r, &ho, "by", "count", buf, sizeof(buf)), 0);
		assert_int_equal(ho.by, HEAP_BY_COUNT);
		assert_int_equal(report_kind__set(r, &ho, "by", "pss", buf, sizeof(buf)), -EINVAL);
		assert_string_equal(buf, "--by takes live, bytes or count, not 'pss'");
		assert_int_equal(report_kind__set(r, &ho, "pid", "1", buf, sizeof(buf)), -ENOENT);
		r = report_kind__find("apps");
		assert_int_equal(report_kind__set(r, &ao, "by", "uss", buf, sizeof(buf)), 0);
		assert_int_equal(ao.by, APPS_BY_USS);
		r = report_kind__find("cpu");
		assert_int_equal(report_kind__set(r, &co, "pid", "0", buf, sizeof(buf)), -EINVAL);
		assert_string_equal(buf, "--pid takes a process id, not '0'");
		assert_int_equal(report_kind__set(r, &co, "pid", "42", buf, sizeof(buf)), 0);
		assert_int_equal(co.pid, 42);
	}
	report_kind__list(buf, 12, 0, ", ", " or "); /* cut short at a whole name */
	assert_string_equal(buf, "syscalls");
	memset(buf, 'x', sizeof(buf));
	report_kind__list(buf, 1, 0, ", ", " or ");
	assert_int_equal(buf[0], '\0');
	assert_int_equal(buf[1], 'x');

	/* vma's own rule on its options */
	r = report_kind__find("vma");
	assert_non_null(r->check);
	assert_null(r->check(&o));
	vo.mapping = "[heap]";
	assert_null(r->check(&o));
	vo.growth = true;
	assert_string_equal(r->check(&o), "--mapping and --growth do not go together: "
					  "--growth compares all mappings");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_01_bucket_estimates),
	    cmocka_unit_test(test_02_percentiles_exact),
	    cmocka_unit_test(test_03_window_parse),
	    cmocka_unit_test(test_04_window_parse_errors),
	    cmocka_unit_test(test_05_syscall_aggregation_whole),
	    cmocka_unit_test(test_06_syscall_aggregation_window),
	    cmocka_unit_test(test_07_syscalls_report_json),
	    cmocka_unit_test(test_08_not_collected),
	    cmocka_unit_test(test_09_growth_per_minute),
	    cmocka_unit_test(test_10_mem_report),
	    cmocka_unit_test(test_11_cpu_report),
	    cmocka_unit_test(test_12_truncated_warning_and_drops),
	    cmocka_unit_test(test_13_mem_coverage_ratio_heap_gap),
	    cmocka_unit_test(test_14_mem_heap_not_measured_and_no_budget),
	    cmocka_unit_test(test_15_vma_groups),
	    cmocka_unit_test(test_15b_vma_figures_peak),
	    cmocka_unit_test(test_16_vma_mapping_and_growth),
	    cmocka_unit_test(test_17_vma_not_collected_and_empty),
	    cmocka_unit_test(test_18_cpu_per_process),
	    cmocka_unit_test(test_19_syscalls_probe_overhead),
	    cmocka_unit_test(test_20_syscalls_no_latency),
	    cmocka_unit_test(test_21_cpu_profile_no_samples),
	    cmocka_unit_test(test_22_cpu_sums_overflow),
	    cmocka_unit_test(test_23_corrupt_db_refused),
	    cmocka_unit_test(test_24_info_far_times),
	    cmocka_unit_test(test_25_window_far),
	    cmocka_unit_test(test_26_report_kinds),
	    cmocka_unit_test(test_27_events_category_list),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
