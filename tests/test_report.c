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

#include "analyze/report.h"

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
			    "t_s,rss,pss,uss,anon,pss_anon,pss_file,pss_shmem,swap,statm_rss,"
			    "vsize,minflt,majflt\n"
			    "10,136314880,1000,,,,,,,,,1,\n"
			    "20,125829120,4000,,,,,,,,,2,\n");
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
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
