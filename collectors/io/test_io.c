/* test_io.c — the io collector: the parsers of /proc/PID/io and /proc/PID/stat field 42 on
 * kernel texts and broken ones, this process's own counters against a write it makes, and
 * the loader and report over a capture written with the codec (an unmeasured block I/O
 * delay stays NULL, never 0); the per-file lane's path helpers, and its loader, report,
 * figures-facing loads and replay drill-down over a capture with IoFiles.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "analyze/db.h"
#include "analyze/replay_grid.h"
#include "analyze/replay_model.h"
#include "analyze/replay_views.h"
#include "analyze/report.h"
#include <linux/types.h>

#include "collectors/io/io.h"
#include "collectors/io/io.pb-c.h"
#include "collectors/io/report.h"
#include "collectors/io/record.h"
#include "proto/capture.h"
#include "record/collector.h"
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

extern const struct collector_ops io_collector;

/* A target gone before the check: its folder is gone too, and the reason says the process
 * ended, not that the kernel lacks task I/O accounting (an ENOENT of both). */
static void test_07_check_gone(void **state)
{
	struct rec_ctx ctx = {0};
	struct collector c = {0};
	pid_t p = fork();

	(void)state;
	assert_true(p >= 0);
	if (p == 0)
		_exit(0);
	assert_int_equal(waitpid(p, NULL, 0), p);
	ctx.pid = p;
	c.ops = &io_collector;
	c.ctx = &ctx;
	assert_int_equal(io_collector.check(&c), PTOP__V1__PROBE_STATE__PROBE_STATE_FAILED);
	if (!strstr(c.reason, "No such file") || !strstr(c.reason, "ended before") ||
	    strstr(c.reason, "CONFIG_TASK_IO_ACCOUNTING"))
		fail_msg("reason: %s", c.reason);
}

static int setup(void **state)
{
	(void)state;
	return tmpdir__make("io");
}

#define EBPF_DETAIL                                                                                \
	"/proc/1/io each interval; per-file figures from raw_tp/sys_enter, raw_tp/sys_exit; "       \
	"file-system events from raw_tp/sys_exit"

/* The header of a capture of PID ("w") in MODE, id bytes ID, whose io probe ran from SRC
 * with DETAIL. */
static void put_io_header(struct capture_writer *w, uint8_t id, Ptop__V1__TargetMode mode,
			  Ptop__V1__ProbeSource src, const char *detail)
{
	struct capb_header b;

	capb__header_init(&b);
	memset(b.id, id, sizeof(b.id));
	b.host.machine = "x86_64";
	b.host.clock_tick = 100;
	b.host.page_size = 4096;
	b.clk.monotonic_ns = T0;
	b.opt.interval_ns = SEC;
	b.t.mode = mode;
	b.t.pid = PID;
	b.t.comm = "w";
	capb__probe(&b, "io", PTOP__V1__PROBE_STATE__PROBE_STATE_ACTIVE, src, NULL, detail);
	capb__put_header(w, &b);
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

static int load_samples = 2; /* how many io samples load() writes: 2, or 0 */

static sqlite3 *load(const char *name, bool iowait)
{
	struct capture_writer_opts o = {.force = true};
	struct capture_writer *w = capture_writer__create(tpath(name), &o);
	char id[DB_CAPTURE_ID_LEN], db_name[64];
	struct load_stats st;
	sqlite3 *db = NULL;

	assert_non_null(w);
	/* with events: the eBPF lane ran (--io-events) */
	put_io_header(w, 0x43, PTOP__V1__TARGET_MODE__TARGET_MODE_PID,
		      iowait ? PTOP__V1__PROBE_SOURCE__PROBE_SOURCE_EBPF
			     : PTOP__V1__PROBE_SOURCE__PROBE_SOURCE_PROC,
		      NULL);
	if (load_samples) {
		put_sample(w, T0 + SEC, 4096 * 1000, iowait);
		put_sample(w, T0 + 2 * SEC, 4096 * 24, iowait);
	}
	if (iowait) { /* and the events of --io-events */
		Ptop__V1__IoFsEvent e[3] = {PTOP__V1__IO_FS_EVENT__INIT, PTOP__V1__IO_FS_EVENT__INIT,
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
		e[2].kind = "truncated"; /* an ftruncate whose file's path was lost: "" */
		e[2].syscall = "ftruncate";
		e[2].path = "";
		e[2].fd = 7;
		e[2].length = 100;
		for (int i = 0; i < 3; i++) {
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
	assert_int_equal(report__run(r, db, "43434343434343434343434343434343", &o, f), 0);
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
	if (!strstr(out, "\"iowait_ns\": 40000000") || !strstr(out, "\"written_bytes\": 4194304") ||
	    !strstr(out, "\"syscall\": \"ftruncate\",\n      \"path\": null,")) /* unknown, not "" */
		fail_msg("json:\n%s", strstr(out, "fs_events") ? strstr(out, "fs_events") : out);
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

	/* the lane ran and read nothing (an empty cgroup, a target gone before the first
	 * interval's end): not measured, never "0 B in 0 syscalls" */
	load_samples = 0;
	db = load("c.ptop", false);
	load_samples = 2;
	out = run_report(db, OUT_TEXT);
	if (!strstr(out, "read, written, storage  not measured (no /proc/PID/io sample") ||
	    strstr(out, "0 B in 0 syscalls") || strstr(out, "storage  read"))
		fail_msg("text:\n%s", out);
	free(out);
	out = run_report(db, OUT_JSON);
	if (!strstr(out, "\"totals\": null") || !strstr(out, "\"totals_reason\": \"no /proc"))
		fail_msg("json:\n%s", out);
	free(out);
	sqlite3_close(db);
}

/* The path helpers: a dentry walk's components joined from the root, a rename applied to
 * the path it names and to the paths below it (not to a sibling sharing its prefix). */
static void test_05_paths(void **state)
{
	char name[IO_DEPTH][IO_NAME] = {"c.log", "b", "a"};
	char out[64];

	(void)state;
	assert_int_equal(io__seen_path((const char(*)[IO_NAME])name, 3, false, 0, out, sizeof(out)),
			 0);
	assert_string_equal(out, "/a/b/c.log");
	/* a name cut in the kernel (bit 1: "b") is marked */
	assert_int_equal(io__seen_path((const char(*)[IO_NAME])name, 3, false, 2, out, sizeof(out)),
			 0);
	assert_string_equal(out, "/a/b" IO_CUT_MARK "/c.log");
	assert_int_equal(io__seen_path((const char(*)[IO_NAME])name, 3, true, 0, out, sizeof(out)),
			 0);
	assert_string_equal(out, ".../a/b/c.log");
	assert_int_equal(io__seen_path((const char(*)[IO_NAME])name, 0, false, 0, out, sizeof(out)),
			 0);
	assert_string_equal(out, "/");
	assert_int_equal(io__seen_path((const char(*)[IO_NAME])name, 3, false, 0, out, 8),
			 -ENAMETOOLONG);
	assert_int_equal(
	    io__seen_path((const char(*)[IO_NAME])name, IO_DEPTH + 1, false, 0, out, sizeof(out)),
	    -EINVAL);
	/* an io_seen_long record: the names packed from the file up, each with its NUL */
	assert_int_equal(io__seen_long_path("c.log\0b\0a", 10, false, out, sizeof(out)), 0);
	assert_string_equal(out, "/a/b/c.log");
	assert_int_equal(io__seen_long_path("c.log\0b\0a", 10, true, out, sizeof(out)), 0);
	assert_string_equal(out, ".../a/b/c.log");
	assert_int_equal(io__seen_long_path("", 0, false, out, sizeof(out)), 0);
	assert_string_equal(out, "/");
	assert_int_equal(io__seen_long_path("c.log\0b\0a", 10, false, out, 10), -ENAMETOOLONG);
	assert_int_equal(io__seen_long_path("c.log\0b\0a", 9, false, out, sizeof(out)), -EINVAL);
	assert_int_equal(io__rename_path("/d/old", "/d/old", "/d/new", out, sizeof(out)), 1);
	assert_string_equal(out, "/d/new");
	assert_int_equal(io__rename_path("/d/old/x", "/d/old", "/e", out, sizeof(out)), 1);
	assert_string_equal(out, "/e/x");
	assert_int_equal(io__rename_path("/d/older", "/d/old", "/d/new", out, sizeof(out)), 0);
	assert_int_equal(io__rename_path("/d/old", "", "/d/new", out, sizeof(out)), 0);
	assert_string_equal(io__file_type(0100644), "file");
	assert_string_equal(io__file_type(0010000), "pipe");
	assert_string_equal(io__file_type(0140000), "socket");
	assert_string_equal(io__file_type(0), "unknown");
}

static Ptop__V1__IoFileOp *file_op(Ptop__V1__IoFileOp *o, uint64_t ino, const char *path,
				   const char *op, uint64_t calls, uint64_t bytes, uint64_t call_ns,
				   uint64_t timed, uint64_t max_ns, uint64_t *hist, size_t nh)
{
	ptop__v1__io_file_op__init(o);
	o->dev = makedev(8, 1);
	o->ino = ino;
	o->pid = PID;
	o->op = (char *)op;
	o->type = "file";
	o->path = (char *)path;
	o->calls = calls;
	o->bytes = bytes;
	o->call_ns = call_ns;
	o->timed = timed;
	o->max_ns = max_ns;
	o->hist = hist;
	o->n_hist = nh;
	return o;
}

static void put_files(struct capture_writer *w, uint64_t t, Ptop__V1__IoFileOp **ops, size_t n,
		      Ptop__V1__IoUringOp **u, size_t nu)
{
	Ptop__V1__Event ev = PTOP__V1__EVENT__INIT;
	Ptop__V1__IoFiles f = PTOP__V1__IO_FILES__INIT;
	Ptop__V1__CollectorPayload cp;

	f.ops = ops;
	f.n_ops = n;
	f.uring = u;
	f.n_uring = nu;
	assert_int_equal(capture_payload__pack(&ev, &cp, "io", &f.base), 0);
	ev.time_ns = t;
	ev.interval_ns = SEC;
	ev.pid = PID;
	capb__put_event(w, &ev);
	capture_payload__release(&cp);
}

static char *render(struct replay_model *m, struct replay_ui *ui)
{
	struct grid *g = grid__new(160, 48);
	char *t;

	assert_non_null(g);
	replay__render(m, ui, g);
	t = grid__to_text(g);
	grid__free(g);
	assert_non_null(t);
	return t;
}

/* A capture of the per-file lane: /data/a.log written 3 times and fsynced once in the
 * first second, renamed to /data/a.log.1 and written once more in the second; LONG_PATH read
 * once, untimed (its time NULL, never 0); an io_uring WRITE. Loaded rows, the report (the
 * newest path, the sums, the fsyncs, the histogram), the files the figures read, and the
 * I/O tab: the files by bytes, Enter on the top one shows its intervals, Esc goes back. */
#define LONG_PATH "/usr/lib/x86_64-linux-gnu/data/b-of-a-long-name" /* 48 bytes */

static void test_06_files(void **state)
{
	static const char id[] = "44444444444444444444444444444444";
	struct capture_writer_opts o = {.force = true};
	struct capture_writer *w = capture_writer__create(tpath("f.ptop"), &o);
	uint64_t h_w[12] = {[10] = 2, [11] = 1}, h_f[23] = {[22] = 1}, h_w2[13] = {[12] = 1};
	Ptop__V1__IoFileOp ops[4], *p1[3], *p2[1];
	Ptop__V1__IoUringOp u = PTOP__V1__IO_URING_OP__INIT, *pu = &u;
	struct load_stats st;
	struct io_file_sum *files = NULL;
	size_t nfiles = 0;
	char lid[DB_CAPTURE_ID_LEN], err[256] = "", *out;
	struct replay_model *m;
	struct replay_ui ui = {0};
	struct capture_meta meta;
	struct window win = {0};
	sqlite3 *db = NULL;

	(void)state;
	assert_non_null(w);
	put_io_header(w, 0x44, PTOP__V1__TARGET_MODE__TARGET_MODE_PID,
		      PTOP__V1__PROBE_SOURCE__PROBE_SOURCE_EBPF, EBPF_DETAIL);
	put_sample(w, T0 + SEC, 4096 * 3, false);
	p1[0] = file_op(&ops[0], 100, "/data/a.log", "write", 3, 12288, 3000, 3, 1500, h_w, 12);
	p1[1] = file_op(&ops[1], 100, "/data/a.log", "fsync", 1, 0, 5000000, 1, 5000000, h_f, 23);
	p1[2] = file_op(&ops[2], 200, LONG_PATH, "read", 1, 100, 0, 0, 0, NULL, 0);
	put_files(w, T0 + SEC, p1, 3, NULL, 0);
	put_sample(w, T0 + 2 * SEC, 4096, false);
	p2[0] = file_op(&ops[3], 100, "/data/a.log.1", "write", 1, 4096, 5000, 1, 5000, h_w2, 13);
	u.opcode = 23;
	u.op = "WRITE";
	u.submitted = 2;
	u.completed = 2;
	u.bytes = 8192;
	put_files(w, T0 + 2 * SEC, p2, 1, &pu, 1);
	assert_int_equal(capture_writer__close(w), 0);
	assert_int_equal(db__open(tpath("f.db"), true, false, &db, errbuf, sizeof(errbuf)), 0);
	if (db__load_capture(db, tpath("f.ptop"), false, lid, &st, errbuf, sizeof(errbuf)))
		fail_msg("load: %s", errbuf);

	assert_int_equal(q_int(db, "SELECT count(*) FROM io_file"), 4);
	assert_int_equal(q_int(db, "SELECT count(DISTINCT file) FROM io_file WHERE file = '8:1:100'"),
			 1);
	assert_int_equal(q_int(db, "SELECT count(*) FROM io_file WHERE ino = 200 AND call_ns IS "
				   "NULL AND max_ns IS NULL AND timed = 0"),
			 1);
	assert_int_equal(q_int(db, "SELECT count(*) FROM io_file_hist"), 4);
	assert_int_equal(q_int(db, "SELECT sum(count) FROM io_file_hist WHERE op = 'write'"), 4);
	assert_int_equal(q_int(db, "SELECT bucket FROM io_file_hist WHERE op = 'fsync'"), 22);
	assert_int_equal(q_int(db, "SELECT bytes FROM io_uring_op WHERE op = 'WRITE'"), 8192);
	assert_int_equal(q_int(db, "SELECT count(*) FROM io_files WHERE t_s = 2.0"), 1);

	assert_int_equal(capture_meta__load(db, id, &meta), 0);
	assert_int_equal(io_files__load(db, &meta, &win, &files, &nfiles), 0);
	assert_int_equal(nfiles, 2);
	assert_string_equal(files[0].path, "/data/a.log.1"); /* the newest */
	assert_int_equal(files[0].written_bytes, 16384);
	assert_int_equal(files[0].writes, 4);
	assert_int_equal(files[0].fsyncs, 1);
	assert_int_equal(files[0].call_ns, 5008000);
	assert_int_equal(files[0].max_ns, 5000000);
	assert_int_equal(files[1].read_bytes, 100);
	assert_int_equal(files[1].call_ns, -1); /* not timed: not a zero */
	io_files__free(files, nfiles);

	{
		const struct an_report *r = report_kind__find("io");
		struct report_opts ro = {.fmt = OUT_JSON};
		size_t len = 0;
		FILE *f;

		out = NULL;
		f = open_memstream(&out, &len);
		assert_int_equal(report__run(r, db, id, &ro, f), 0);
		fclose(f);
		if (!strstr(out, "\"path\": \"/data/a.log.1\"") ||
		    !strstr(out, "\"written_bytes\": 16384") || !strstr(out, "\"fsyncs\": 1") ||
		    !strstr(out, "\"submitted\": 2") || strstr(out, "\"files\": null"))
			fail_msg("json:\n%s", out);
		free(out);
		ro.fmt = OUT_TEXT;
		out = NULL;
		f = open_memstream(&out, &len);
		assert_int_equal(report__run(r, db, id, &ro, f), 0);
		fclose(f);
		if (!strstr(out, "fsyncs per file") || !strstr(out, "not device time") ||
		    strstr(out, "per file: not collected") || !strstr(out, "io_uring requests by opcode"))
			fail_msg("text:\n%s", out);
		free(out);
	}

	m = replay_model__open(db, id, err, sizeof(err));
	if (!m)
		fail_msg("replay_model__open: %s", err);
	ui.tab = replay__find_view("io");
	replay_model__seek(m, 2 * SEC);
	out = render(m, &ui);
	/* a path longer than its column keeps its end, marked as cut, never a shorter path
	 * that reads as another file */
	if (!strstr(out, "/data/a.log.1") ||
	    !strstr(out, " ...86_64-linux-gnu/data/b-of-a-long-name ") ||
	    strstr(out, " 86_64-linux-gnu/") || strstr(out, " /x86_64-linux-gnu/"))
		fail_msg("tab:\n%s", out);
	assert_string_equal(ui.selected, "8:1:100"); /* by bytes: a.log first */
	free(out);
	assert_int_equal(replay__key(m, &ui, RK_ENTER), 0);
	assert_string_equal(ui.drill, "8:1:100");
	out = render(m, &ui);
	if (!strstr(out, "file /data/a.log.1  file  8:1:100  (Esc: back)") ||
	    !strstr(out, "12.0 KiB") || !strstr(out, "4.00 KiB") ||
	    !strstr(out, "read 0 B, written 16.0 KiB, 5 calls, 1 fsyncs"))
		fail_msg("drill-down:\n%s", out);
	free(out);
	replay__key(m, &ui, RK_ESC);
	assert_string_equal(ui.drill, "");
	replay__key(m, &ui, RK_DOWN);
	out = render(m, &ui);
	assert_string_equal(ui.selected, "8:1:200");
	free(out);
	/* the arrows step through io_sample's interval ends (its series declares them; this
	 * capture has no other interval series) */
	assert_int_equal(m->nends, 2);
	replay_model__seek(m, 0);
	assert_int_equal(replay_model__step(m, 1), 0);
	assert_int_equal(m->pos_ns, SEC);
	assert_int_equal(replay_model__step(m, 1), 1);
	assert_int_equal(m->pos_ns, 2 * SEC);
	replay_model__free(m);
	sqlite3_close(db);
}

/* Which processes each figure covers: /proc/PID/io is the target's own I/O and that of the
 * children it waited for (the headline says so), the per-file lane the calls of each
 * process it traced; by process, each lane's figures, a lane without a record of the
 * process empty (never 0): here a child (4400) whose reads the per-file lane saw and
 * /proc counted into its parent's. */
static void test_08_processes(void **state)
{
	struct capture_writer_opts o = {.force = true};
	struct capture_writer *w = capture_writer__create(tpath("p.ptop"), &o);
	Ptop__V1__IoFileOp ops[2], *pp[2];
	struct load_stats st;
	char lid[DB_CAPTURE_ID_LEN], *out;
	const struct an_report *r = report_kind__find("io");
	struct io_opts io = {.table = "processes"};
	struct report_opts ro = {.fmt = OUT_CSV, .own = &io};
	size_t len = 0;
	FILE *f;
	sqlite3 *db = NULL;

	(void)state;
	assert_non_null(w);
	put_io_header(w, 0x43, PTOP__V1__TARGET_MODE__TARGET_MODE_COMMAND,
		      PTOP__V1__PROBE_SOURCE__PROBE_SOURCE_EBPF, EBPF_DETAIL);
	put_sample(w, T0 + SEC, 4096 * 3, false);
	pp[0] = file_op(&ops[0], 100, "/data/a", "read", 1, 60, 0, 0, 0, NULL, 0);
	pp[1] = file_op(&ops[1], 101, "/data/b", "read", 2, 500, 0, 0, 0, NULL, 0);
	ops[1].pid = 4400;
	put_files(w, T0 + SEC, pp, 2, NULL, 0);
	assert_int_equal(capture_writer__close(w), 0);
	assert_int_equal(db__open(tpath("p.db"), true, false, &db, errbuf, sizeof(errbuf)), 0);
	if (db__load_capture(db, tpath("p.ptop"), false, lid, &st, errbuf, sizeof(errbuf)))
		fail_msg("load: %s", errbuf);

	out = run_report(db, OUT_TEXT);
	if (!strstr(out, "/proc/PID/io of pid 4321 (w): each process's own I/O and, as the "
			 "kernel counts it, that of the children it waited for\n") ||
	    !strstr(out, "per file (--io-files): 2 files, the calls of 2 processes") ||
	    !strstr(out, "\nby process (proc_*: /proc/PID/io"))
		fail_msg("text:\n%s", out);
	free(out);
	out = run_report(db, OUT_JSON);
	if (!strstr(out, "\"totals_cover\": \"the target process and the children it waited "
			 "for\"") ||
	    !strstr(out, "\"pid\": 4400,\n      \"comm\": null,\n      \"proc_read_bytes\": "
			 "null,\n      \"proc_written_bytes\": null,\n      \"proc_read_calls\": "
			 "null,\n      \"proc_write_calls\": null,\n      \"file_read_bytes\": 500,") ||
	    !strstr(out, "\"pid\": 4321,\n      \"comm\": \"w\",\n      \"proc_read_bytes\": "
			 "100,\n      \"proc_written_bytes\": 12288,"))
		fail_msg("json:\n%s", out);
	free(out);
	out = NULL;
	f = open_memstream(&out, &len);
	assert_int_equal(report__run(r, db, lid, &ro, f), 0);
	fclose(f);
	if (!strstr(out, "pid,comm,proc_read_bytes,proc_written_bytes,") ||
	    !strstr(out, "\n4400,,,,,,500,0,2,0\n"))
		fail_msg("csv:\n%s", out);
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
	    cmocka_unit_test(test_05_paths),
	    cmocka_unit_test(test_08_processes), cmocka_unit_test(test_06_files),
	    cmocka_unit_test(test_07_check_gone),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
