/* test_io.c — the io collector: the parsers of /proc/PID/io and /proc/PID/stat field 42 on
 * kernel texts and broken ones, this process's own counters against a write it makes, and
 * the loader and report over a capture written with the codec (an unmeasured block I/O
 * delay stays NULL, never 0).
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "analyze/db.h"
#include "analyze/report.h"
#include "collectors/io/io.pb-c.h"
#include "collectors/io/record.h"
#include "proto/capture.h"
#include "tests/tmpdir.h"
#include "tests/sqlq.h"
#include "tests/capwrite.h"

#define T0 1000000000000ull
#define SEC 1000000000ull
#define PID 4321

static char errbuf[1024];

static void test_01_parse_io(void **state)
{
	static const char ok[] = "rchar: 6976\nwchar: 12\nsyscr: 10\nsyscw: 1\n"
				 "read_bytes: 4096\nwrite_bytes: 8192\ncancelled_write_bytes: 3\n";
	struct proc_io io;

	(void)state;
	assert_int_equal(io__parse(ok, &io), 0);
	assert_int_equal(io.rchar, 6976);
	assert_int_equal(io.wchar, 12);
	assert_int_equal(io.syscr, 10);
	assert_int_equal(io.syscw, 1);
	assert_int_equal(io.read_bytes, 4096);
	assert_int_equal(io.write_bytes, 8192);
	assert_int_equal(io.cancelled_write_bytes, 3);
	/* no final newline; 2^64 - 1 */
	assert_int_equal(io__parse("rchar: 18446744073709551615\nwchar: 0\nsyscr: 0\nsyscw: 0\n"
				   "read_bytes: 0\nwrite_bytes: 0\ncancelled_write_bytes: 0",
				   &io),
			 0);
	assert_true(io.rchar == UINT64_MAX);
	/* a counter missing, malformed, or a key that only starts like one */
	assert_int_equal(io__parse("rchar: 1\nwchar: 2\n", &io), -EINVAL);
	assert_int_equal(io__parse("rchar: x\nwchar: 0\nsyscr: 0\nsyscw: 0\nread_bytes: 0\n"
				   "write_bytes: 0\ncancelled_write_bytes: 0\n",
				   &io),
			 -EINVAL);
	assert_int_equal(io__parse("rchars: 1\nwchar: 0\nsyscr: 0\nsyscw: 0\nread_bytes: 0\n"
				   "write_bytes: 0\ncancelled_write_bytes: 0\n",
				   &io),
			 -EINVAL);
	assert_int_equal(io__parse("", &io), -EINVAL);
}

static void test_02_parse_blkio(void **state)
{
	char stat[1024], fields[512] = "";
	uint64_t t = 0;

	(void)state;
	/* fields 3..52, each its number, but 42 = 777; comm with spaces and ')' */
	for (int f = 3; f <= 52; f++)
		snprintf(fields + strlen(fields), sizeof(fields) - strlen(fields), "%s%d",
			 f == 3 ? "" : " ", f == 42 ? 777 : f);
	fields[0] = 'S'; /* field 3 is the state */
	snprintf(stat, sizeof(stat), "4321 (a) b (c)) %s\n", fields);
	assert_int_equal(io__parse_blkio_ticks(stat, &t), 0);
	assert_int_equal(t, 777);
	assert_int_equal(io__parse_blkio_ticks("1 (x) S 1 2 3\n", &t), -EINVAL);
	assert_int_equal(io__parse_blkio_ticks("no paren", &t), -EINVAL);
}

/* This process's own counters move by exactly what it writes. */
static void test_03_self(void **state)
{
	char *text = NULL;
	size_t len = 0;
	struct proc_io a, b;
	FILE *f;
	int fd;

	(void)state;
	f = fopen("/proc/self/io", "r");
	assert_non_null(f);
	text = calloc(1, 4096);
	len = fread(text, 1, 4095, f);
	fclose(f);
	assert_true(len > 0);
	assert_int_equal(io__parse(text, &a), 0);
	fd = open("/dev/null", O_WRONLY);
	assert_true(fd >= 0);
	for (int i = 0; i < 7; i++)
		assert_int_equal(write(fd, "0123456789", 10), 10);
	close(fd);
	f = fopen("/proc/self/io", "r");
	len = fread(text, 1, 4095, f);
	text[len] = '\0';
	fclose(f);
	assert_int_equal(io__parse(text, &b), 0);
	assert_int_equal(b.wchar - a.wchar, 70);
	assert_int_equal(b.syscw - a.syscw, 7);
	free(text);
}

static int setup(void **state)
{
	(void)state;
	return tmpdir__make("io");
}

static void put_sample(struct capture_writer *w, uint64_t t, uint64_t wchar, bool iowait)
{
	Ptop__V1__Event ev = PTOP__V1__EVENT__INIT;
	Ptop__V1__IoSample s = PTOP__V1__IO_SAMPLE__INIT;
	Ptop__V1__CollectorPayload cp;

	s.rchar = 100;
	s.wchar = wchar;
	s.syscr = 1;
	s.syscw = wchar / 4096;
	s.write_bytes = wchar;
	s.iowait_measured = iowait;
	s.iowait_ns = iowait ? 20 * 1000000ull : 0;
	assert_int_equal(capture_payload__pack(&ev, &cp, "io", &s.base), 0);
	ev.time_ns = t;
	ev.interval_ns = SEC;
	ev.pid = PID;
	capb__put_event(w, &ev);
	capture_payload__release(&cp);
}

static sqlite3 *load(const char *name, bool iowait)
{
	struct capture_writer_opts o = {.force = true};
	struct capture_writer *w = capture_writer__create(tpath(name), &o);
	char id[DB_CAPTURE_ID_LEN], db_name[64];
	struct load_stats st;
	struct capb_header b;
	sqlite3 *db = NULL;

	assert_non_null(w);
	capb__header_init(&b);
	memset(b.id, 0x43, sizeof(b.id));
	b.host.machine = "x86_64";
	b.host.clock_tick = 100;
	b.host.page_size = 4096;
	b.clk.monotonic_ns = T0;
	b.opt.interval_ns = SEC;
	b.t.mode = PTOP__V1__TARGET_MODE__TARGET_MODE_PID;
	b.t.pid = PID;
	b.t.comm = "w";
	capb__probe(&b, "io", PTOP__V1__PROBE_STATE__PROBE_STATE_ACTIVE,
		    PTOP__V1__PROBE_SOURCE__PROBE_SOURCE_PROC, NULL, NULL);
	capb__put_header(w, &b);
	put_sample(w, T0 + SEC, 4096 * 1000, iowait);
	put_sample(w, T0 + 2 * SEC, 4096 * 24, iowait);
	if (iowait) { /* and the events of --io-events */
		Ptop__V1__IoFsEvent e[2] = {PTOP__V1__IO_FS_EVENT__INIT,
					    PTOP__V1__IO_FS_EVENT__INIT};

		e[0].kind = "denied";
		e[0].syscall = "openat";
		e[0].path = "/etc/shadow";
		e[0].flags = 02000000;
		e[0].error = 13;
		e[0].fd = -1;
		e[1].kind = "renamed";
		e[1].syscall = "renameat2";
		e[1].path = "a";
		e[1].new_path = "b";
		e[1].fd = -1;
		for (int i = 0; i < 2; i++) {
			Ptop__V1__Event ev = PTOP__V1__EVENT__INIT;
			Ptop__V1__CollectorPayload cp;

			assert_int_equal(capture_payload__pack(&ev, &cp, "io", &e[i].base), 0);
			ev.time_ns = T0 + SEC / 2 + (uint64_t)i;
			ev.pid = PID;
			capb__put_event(w, &ev);
			capture_payload__release(&cp);
		}
	}
	assert_int_equal(capture_writer__close(w), 0);
	snprintf(db_name, sizeof(db_name), "%s.db", name);
	assert_int_equal(db__open(tpath(db_name), true, false, &db, errbuf, sizeof(errbuf)), 0);
	if (db__load_capture(db, tpath(name), false, id, &st, errbuf, sizeof(errbuf)))
		fail_msg("load: %s", errbuf);
	return db;
}

static char *run_report(sqlite3 *db, enum out_format fmt)
{
	const struct an_report *r = report_kind__find("io");
	struct report_opts o = {.fmt = fmt};
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(r);
	assert_int_equal(r->run(db, "43434343434343434343434343434343", &o, f), 0);
	fclose(f);
	return buf;
}

static void test_04_load_and_report(void **state)
{
	sqlite3 *db;
	char *out;

	(void)state;
	db = load("a.ptop", true);
	assert_int_equal(q_int(db, "SELECT sum(wchar) FROM io_sample"), 4096 * 1024);
	assert_int_equal(q_int(db, "SELECT sum(syscw) FROM io_sample"), 1024);
	assert_int_equal(q_int(db, "SELECT sum(iowait_ns) FROM io_sample"), 40000000);
	assert_int_equal(q_int(db,
			       "SELECT count(*) FROM io_event WHERE kind = 'denied' AND path = "
			       "'/etc/shadow' AND error = 13 AND flags = 524288 AND new_path IS "
			       "NULL AND length IS NULL AND fd IS NULL"),
			 1);
	assert_int_equal(q_int(db,
			       "SELECT count(*) FROM io_event WHERE kind = 'renamed' AND path = "
			       "'a' AND new_path = 'b' AND error IS NULL AND flags IS NULL"),
			 1);
	out = run_report(db, OUT_TEXT);
	if (!strstr(out, "written  4.00 MiB in 1,024 syscalls (2.00 MiB/s)") ||
	    !strstr(out, "block I/O delay  40.0 ms") || !strstr(out, "per file: not collected ("))
		fail_msg("text:\n%s", out);
	free(out);
	out = run_report(db, OUT_JSON);
	if (!strstr(out, "\"iowait_ns\": 40000000") || !strstr(out, "\"written_bytes\": 4194304"))
		fail_msg("json:\n%s", out);
	free(out);
	sqlite3_close(db);

	db = load("b.ptop", false); /* not measured: NULL, and said so */
	assert_int_equal(q_int(db, "SELECT count(*) FROM io_sample WHERE iowait_ns IS NULL"), 2);
	out = run_report(db, OUT_TEXT);
	if (!strstr(out, "block I/O delay  not measured"))
		fail_msg("text:\n%s", out);
	free(out);
	out = run_report(db, OUT_JSON);
	if (!strstr(out, "\"iowait_ns\": null"))
		fail_msg("json:\n%s", out);
	free(out);
	sqlite3_close(db);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_01_parse_io),
	    cmocka_unit_test(test_02_parse_blkio),
	    cmocka_unit_test(test_03_self),
	    cmocka_unit_test(test_04_load_and_report),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
