/* test_fds.c — the fds collector: the type of an fd from its link, a scan of this test's own
 * fd directory with fds of every type opened by the test (exact counts), and the loader and
 * report over a capture written with the codec (rows value by value, the growth, the table
 * at the end, a corrupt payload refused).
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include <cmocka.h>

#include "analyze/db.h"
#include "common/probe_mapping.h"
#include "analyze/diff.h"
#include "analyze/figures.h"
#include "analyze/replay_grid.h"
#include "analyze/replay_model.h"
#include "analyze/replay_views.h"
#include "analyze/report.h"
#include "collectors/fds/fds.pb-c.h"
#include "collectors/fds/record.h"
#include "proto/capture.h"
#include "tests/tmpdir.h"
#include "tests/sqlq.h"
#include "tests/capwrite.h"

#define T0 1000000000000ull
#define SEC 1000000000ull
#define PID 4321

static char errbuf[1024];

static void test_01_classify(void **state)
{
	static const struct {
		const char *link;
		enum fd_type t;
	} cases[] = {
	    {"/etc/passwd", FD_FILE},
	    {"/tmp/x (deleted)", FD_FILE},
	    {"/dev/null", FD_FILE},
	    {"socket:[12345]", FD_SOCKET},
	    {"pipe:[99]", FD_PIPE},
	    {"anon_inode:[eventfd]", FD_EVENTFD},
	    {"anon_inode:[eventpoll]", FD_EPOLL},
	    {"anon_inode:[timerfd]", FD_TIMERFD},
	    {"anon_inode:[signalfd]", FD_SIGNALFD},
	    {"anon_inode:inotify", FD_ANON_INODE},
	    {"anon_inode:[io_uring]", FD_ANON_INODE},
	    {"anon_inode:[eventfd]x", FD_ANON_INODE},
	    {"mnt:[4026531841]", FD_OTHER},
	    {"", FD_OTHER},
	    {"pipe:", FD_OTHER},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		if (fds__classify(cases[i].link) != cases[i].t)
			fail_msg("%s: %s, expected %s", cases[i].link,
				 fds__type_name(fds__classify(cases[i].link)),
				 fds__type_name(cases[i].t));
	}
	assert_string_equal(fds__type_name(FD_ANON_INODE), "anon_inode");
	assert_string_equal(fds__type_name(FD_TYPES), "other");
}

static void test_01b_kinds(void **state)
{
	(void)state;
	assert_int_equal(fds__kind("openat"), FDS_K_RET);
	assert_int_equal(fds__kind("accept4"), FDS_K_RET);
	assert_int_equal(fds__kind("pipe2"), FDS_K_PAIR_A1);
	assert_int_equal(fds__kind("socketpair"), FDS_K_PAIR_A4);
	assert_int_equal(fds__kind("fcntl"), FDS_K_FCNTL);
	assert_int_equal(fds__kind("close"), FDS_K_CLOSE);
	assert_int_equal(fds__kind("close_range"), FDS_K_CLOSE_RANGE);
	assert_int_equal(fds__kind("dup"), FDS_K_RET);
	assert_int_equal(fds__kind("dup2"), FDS_K_DUP2);
	assert_int_equal(fds__kind("dup3"), FDS_K_DUP2);
	assert_int_equal(fds__kind("read"), FDS_K_NONE);
	assert_int_equal(fds__kind(NULL), FDS_K_NONE);
}

/* This process's fds before and after opening a known number of each type. */
static void test_02_scan_self(void **state)
{
	struct fd_scan a = {0}, b = {0};
	int fds[16], n = 0, p[2], s[2];
	sigset_t mask;
	size_t i;

	(void)state;
	assert_int_equal(fds__scan("/proc/self/fd", false, 0, &a), 0);
	assert_null(a.ents);
	assert_int_equal(pipe(p), 0);
	fds[n++] = p[0];
	fds[n++] = p[1];
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, s), 0);
	fds[n++] = s[0];
	fds[n++] = s[1];
	assert_true((fds[n++] = eventfd(0, 0)) >= 0);
	assert_true((fds[n++] = epoll_create1(0)) >= 0);
	assert_true((fds[n++] = timerfd_create(CLOCK_MONOTONIC, 0)) >= 0);
	sigemptyset(&mask);
	sigaddset(&mask, SIGUSR1);
	assert_true((fds[n++] = signalfd(-1, &mask, 0)) >= 0);
	assert_true((fds[n++] = inotify_init1(0)) >= 0);
	assert_true((fds[n++] = open("/dev/null", O_RDONLY)) >= 0);
	assert_true((fds[n++] = open("/proc/self/ns/mnt", O_RDONLY)) >= 0);
	assert_int_equal(fds__scan("/proc/self/fd", true, 0, &b), 0);
	/* the scan's own directory fd is in both */
	assert_int_equal(b.total - a.total, 11);
	assert_int_equal(b.count[FD_PIPE] - a.count[FD_PIPE], 2);
	assert_int_equal(b.count[FD_SOCKET] - a.count[FD_SOCKET], 2);
	assert_int_equal(b.count[FD_EVENTFD] - a.count[FD_EVENTFD], 1);
	assert_int_equal(b.count[FD_EPOLL] - a.count[FD_EPOLL], 1);
	assert_int_equal(b.count[FD_TIMERFD] - a.count[FD_TIMERFD], 1);
	assert_int_equal(b.count[FD_SIGNALFD] - a.count[FD_SIGNALFD], 1);
	assert_int_equal(b.count[FD_ANON_INODE] - a.count[FD_ANON_INODE], 1);
	assert_int_equal(b.count[FD_FILE] - a.count[FD_FILE], 1);
	assert_int_equal(b.count[FD_OTHER] - a.count[FD_OTHER], 1);
	assert_int_equal(b.nents, b.total);
	for (i = 1; i < b.nents; i++)
		assert_true(b.ents[i - 1].fd < b.ents[i].fd);
	for (i = 0; i < b.nents && b.ents[i].fd != fds[4]; i++)
		;
	assert_true(i < b.nents);
	assert_int_equal(b.ents[i].type, FD_EVENTFD);
	assert_string_equal(b.ents[i].target, "anon_inode:[eventfd]");
	for (int k = 0; k < n; k++)
		close(fds[k]);
	assert_int_equal(fds__scan("/proc/self/fd", true, 0, &b), 0); /* the table is reused */
	assert_int_equal(b.total, a.total);
	assert_int_equal(fds__scan("/proc/self/no-such-dir", true, 0, &b), -ENOENT);
	free(a.ents);
	free(b.ents);
}

/* ptop's own fds (the preload lane's memfd, the recorder's start pipe by inode) are in
 * the table marked probe, not in the counts (DESIGN.md principle 9). */
static void test_02b_scan_probe(void **state)
{
	struct fd_scan a = {0}, b = {0};
	struct stat st;
	int mfd, other, p[2];
	size_t i, marked = 0;

	(void)state;
	assert_true(fds__is_probe("/memfd:" PTOP_PROBE_MEMFD " (deleted)", 0));
	assert_false(fds__is_probe("/memfd:ptop-preloadX (deleted)", 0));
	assert_true(fds__is_probe("pipe:[42]", 42));
	assert_false(fds__is_probe("pipe:[421]", 42));
	assert_false(fds__is_probe("pipe:[42]", 0));
	assert_false(fds__is_probe("socket:[42]", 42));
	assert_int_equal(fds__scan("/proc/self/fd", false, 0, &a), 0);
	assert_true((mfd = memfd_create(PTOP_PROBE_MEMFD, MFD_CLOEXEC)) >= 0);
	assert_true((other = memfd_create("not-ptop", MFD_CLOEXEC)) >= 0);
	assert_int_equal(pipe(p), 0);
	assert_int_equal(fstat(p[0], &st), 0);
	assert_int_equal(fds__scan("/proc/self/fd", true, (uint64_t)st.st_ino, &b), 0);
	assert_int_equal(b.total - a.total, 1); /* the other memfd alone */
	assert_int_equal(b.count[FD_FILE] - a.count[FD_FILE], 1);
	assert_int_equal(b.count[FD_PIPE] - a.count[FD_PIPE], 0);
	assert_int_equal(b.nents, b.total + 3);
	for (i = 0; i < b.nents; i++) {
		bool own = b.ents[i].fd == mfd || b.ents[i].fd == p[0] || b.ents[i].fd == p[1];

		assert_int_equal(b.ents[i].probe, own);
		marked += b.ents[i].probe;
	}
	assert_int_equal(marked, 3);
	close(mfd);
	close(other);
	close(p[0]);
	close(p[1]);
	free(a.ents);
	free(b.ents);
}

/* ----------------------------------------------------------- loader, report */

static int setup(void **state)
{
	(void)state;
	return tmpdir__make("fds");
}

static void put_payload(struct capture_writer *w, uint64_t t, uint64_t iv,
			const ProtobufCMessage *msg)
{
	Ptop__V1__Event ev = PTOP__V1__EVENT__INIT;
	Ptop__V1__CollectorPayload cp;

	assert_int_equal(capture_payload__pack(&ev, &cp, "fds", msg), 0);
	ev.time_ns = t;
	ev.interval_ns = iv;
	ev.pid = PID;
	capb__put_event(w, &ev);
	capture_payload__release(&cp);
}

static void put_sample(struct capture_writer *w, uint64_t t, uint32_t file, uint32_t sock)
{
	Ptop__V1__FdSample s = PTOP__V1__FD_SAMPLE__INIT;

	s.file = file;
	s.socket = sock;
	s.pipe = 2;
	s.total = file + sock + 2;
	put_payload(w, t, SEC, &s.base);
}

static void put_ops(struct capture_writer *w, uint64_t t, uint64_t opened, uint64_t closed)
{
	Ptop__V1__FdOps ops = PTOP__V1__FD_OPS__INIT;
	Ptop__V1__FdCall c[2] = {PTOP__V1__FD_CALL__INIT, PTOP__V1__FD_CALL__INIT};
	Ptop__V1__FdCall *cp[2] = {&c[0], &c[1]};

	c[0].syscall = "socket";
	c[0].opened = opened;
	c[0].failed = 1;
	c[0].emfile = 1;
	c[1].syscall = "close";
	c[1].closed = closed;
	ops.calls = cp;
	ops.n_calls = 2;
	put_payload(w, t, SEC, &ops.base);
}

static bool with_ops;	 /* write_capture: the eBPF lane ran */
static bool with_unseen; /* ... and its sites say how many fds the kernel closed unseen */

/* A capture's header: the fds probe in STATE, from eBPF when with_ops. */
static void put_header(struct capture_writer *w, Ptop__V1__ProbeState state)
{
	struct capb_header b;

	capb__header_init(&b);
	memset(b.id, 0x42, sizeof(b.id));
	b.host.machine = "x86_64";
	b.host.clock_tick = 100;
	b.host.page_size = 4096;
	b.clk.monotonic_ns = T0;
	b.opt.interval_ns = SEC;
	b.t.mode = PTOP__V1__TARGET_MODE__TARGET_MODE_PID;
	b.t.pid = PID;
	b.t.comm = "leaky";
	capb__probe(
	    &b, "fds", state,
	    with_ops ? PTOP__V1__PROBE_SOURCE__PROBE_SOURCE_EBPF
		     : PTOP__V1__PROBE_SOURCE__PROBE_SOURCE_PROC,
	    state == PTOP__V1__PROBE_STATE__PROBE_STATE_ACTIVE ? NULL : "cannot read /proc/4321/fd",
	    NULL);
	capb__put_header(w, &b);
}

static void write_capture(const char *path, Ptop__V1__ProbeState state, bool corrupt)
{
	struct capture_writer_opts o = {.force = true};
	struct capture_writer *w = capture_writer__create(path, &o);
	Ptop__V1__FdTable tab = PTOP__V1__FD_TABLE__INIT;
	Ptop__V1__FdEntry e[2] = {PTOP__V1__FD_ENTRY__INIT, PTOP__V1__FD_ENTRY__INIT};
	Ptop__V1__FdEntry *ep[2] = {&e[0], &e[1]};

	assert_non_null(w);
	put_header(w, state);
	if (state == PTOP__V1__PROBE_STATE__PROBE_STATE_ACTIVE) {
		put_sample(w, T0 + SEC, 3, 1);
		put_sample(w, T0 + 2 * SEC, 3, 41);
		put_sample(w, T0 + 3 * SEC, 4, 81);
		e[0].fd = 3;
		e[0].type = "socket";
		e[0].target = "socket:[77]";
		e[1].fd = 9;
		e[1].type = "file";
		e[1].target = "/var/log/x \"quoted\"";
		tab.n_entries = 2;
		tab.entries = ep;
		put_payload(w, T0 + 3 * SEC, 0, &tab.base);
	}
	if (with_ops) {
		Ptop__V1__FdSites sites = PTOP__V1__FD_SITES__INIT;
		Ptop__V1__FdSite x[2] = {PTOP__V1__FD_SITE__INIT, PTOP__V1__FD_SITE__INIT};
		Ptop__V1__FdSite *xp[2] = {&x[0], &x[1]};

		put_ops(w, T0 + SEC, 1, 0);
		/* T0 + 2 s: no call at all, no FdOps row; T0 + 3 s: */
		put_ops(w, T0 + 3 * SEC, 45, 4);
		x[0].opened = 3;
		x[0].live = 0;
		x[1].opened = 80;
		x[1].live = 77;
		if (with_unseen) {
			sites.reconciled = true;
			x[0].closed_unseen = 2;
			x[1].closed_unseen = 1;
		}
		sites.sites = xp;
		sites.n_sites = 2;
		put_payload(w, T0 + 3 * SEC, 0, &sites.base);
	}
	if (corrupt) {
		Ptop__V1__Event ev = PTOP__V1__EVENT__INIT;
		Ptop__V1__CollectorPayload cp = PTOP__V1__COLLECTOR_PAYLOAD__INIT;
		static uint8_t junk[] = {0xff, 0xff, 0xff};

		cp.collector = "fds";
		cp.type = "ptop.v1.FdSample";
		cp.data.data = junk;
		cp.data.len = sizeof(junk);
		ev.payload_case = PTOP__V1__EVENT__PAYLOAD_COLLECTOR_PAYLOAD;
		ev.collector_payload = &cp;
		ev.time_ns = T0 + 4 * SEC;
		capb__put_event(w, &ev);
	}
	assert_int_equal(capture_writer__close(w), 0);
}

static char *run_report(sqlite3 *db, enum out_format fmt)
{
	const struct an_report *r = report_kind__find("fds");
	struct report_opts o = {.fmt = fmt};
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(r);
	assert_non_null(f);
	assert_int_equal(report__run(r, db, "42424242424242424242424242424242", &o, f), 0);
	fclose(f);
	return buf;
}

static void test_03_load_and_report(void **state)
{
	char id[DB_CAPTURE_ID_LEN];
	struct load_stats st;
	sqlite3 *db = NULL;
	char *out;

	(void)state;
	write_capture(tpath("a.ptop"), PTOP__V1__PROBE_STATE__PROBE_STATE_ACTIVE, false);
	assert_int_equal(db__open(tpath("a.db"), true, false, &db, errbuf, sizeof(errbuf)), 0);
	if (db__load_capture(db, tpath("a.ptop"), false, id, &st, errbuf, sizeof(errbuf)))
		fail_msg("load: %s", errbuf);
	assert_int_equal(q_int(db, "SELECT count(*) FROM fd_sample"), 3);
	assert_int_equal(q_int(db, "SELECT socket FROM fd_sample ORDER BY time_ns DESC LIMIT 1"),
			 81);
	assert_int_equal(q_int(db, "SELECT total FROM fd_sample ORDER BY time_ns DESC LIMIT 1"),
			 87);
	assert_int_equal(q_int(db,
			       "SELECT count(*) FROM fd_sample WHERE pid = %d AND "
			       "interval_ns = %llu AND pipe = 2 AND eventfd = 0",
			       PID, SEC),
			 3);
	assert_int_equal(q_int(db, "SELECT count(*) FROM fd_open"), 2);
	assert_int_equal(q_int(db,
			       "SELECT fd FROM fd_open WHERE type = 'file' AND target = "
			       "'/var/log/x \"quoted\"' AND time_ns = %llu AND truncated = 0",
			       T0 + 3 * SEC),
			 9);

	out = run_report(db, OUT_TEXT);
	if (!strstr(out, "fastest-growing: socket, 1 to 81 (+80, 40.0/s)") ||
	    !strstr(out, "open fds 6 at 1.000, 87 at 3.000 (+81)") ||
	    !strstr(out, "open at the end (3.000): 2 fds") || !strstr(out, "socket:[77]"))
		fail_msg("text report:\n%s", out);
	free(out);
	out = run_report(db, OUT_JSON);
	if (!strstr(out, "\"fastest_growing\":\"socket\"") &&
	    !strstr(out, "\"fastest_growing\": \"socket\""))
		fail_msg("json report:\n%s", out);
	if (!strstr(out, "\\\"quoted\\\""))
		fail_msg("json report: the target is not escaped:\n%s", out);
	free(out);
	out = run_report(db, OUT_CSV);
	if (strncmp(out, "t_s,total,growth,file,socket,pipe,", 34) ||
	    !strstr(out, "\n3,87,41,4,81,2,"))
		fail_msg("csv report:\n%s", out);
	free(out);
	sqlite3_close(db);
}

static void test_05_ops_and_sites(void **state)
{
	char id[DB_CAPTURE_ID_LEN];
	struct load_stats st;
	sqlite3 *db = NULL;
	char *out;

	(void)state;
	with_ops = true;
	write_capture(tpath("d.ptop"), PTOP__V1__PROBE_STATE__PROBE_STATE_ACTIVE, false);
	with_ops = false;
	assert_int_equal(db__open(tpath("d.db"), true, false, &db, errbuf, sizeof(errbuf)), 0);
	if (db__load_capture(db, tpath("d.ptop"), false, id, &st, errbuf, sizeof(errbuf)))
		fail_msg("load: %s", errbuf);
	assert_int_equal(q_int(db, "SELECT count(*) FROM fd_op"), 4);
	assert_int_equal(q_int(db, "SELECT sum(opened) FROM fd_op WHERE syscall = 'socket'"), 46);
	assert_int_equal(q_int(db, "SELECT sum(emfile) FROM fd_op WHERE syscall = 'socket'"), 2);
	assert_int_equal(q_int(db, "SELECT sum(closed) FROM fd_op WHERE syscall = 'close'"), 4);
	assert_int_equal(q_int(db, "SELECT count(*) FROM fd_site WHERE stack_id IS NULL"), 2);
	assert_int_equal(q_int(db, "SELECT live FROM fd_site WHERE opened = 80"), 77);
	out = run_report(db, OUT_TEXT);
	if (!strstr(out, "socket       46       2       0       2") ||
	    !strstr(out, "      77 live       80 opened  (no stack)") ||
	    !strstr(out, "opening sites at the end, by fds still open (2 of 2;"))
		fail_msg("text report:\n%s", out);
	free(out);
	out = run_report(db, OUT_CSV);
	/* the interval with no FdOps measured none: 0, not empty */
	if (!strstr(out, ",opened,closed\n") ||
	    !strstr(out, "\n2,46,40,3,41,2,0,0,0,0,0,0,0,0\n") ||
	    !strstr(out, "\n3,87,41,4,81,2,0,0,0,0,0,0,45,4\n"))
		fail_msg("csv report:\n%s", out);
	free(out);
	/* a capture older than closed_unseen: not measured, not said to be 0 */
	assert_int_equal(q_int(db, "SELECT count(closed_unseen) FROM fd_site"), 0);
	out = run_report(db, OUT_TEXT);
	if (strstr(out, "closed without a close call"))
		fail_msg("text report of an older capture:\n%s", out);
	free(out);
	out = run_report(db, OUT_JSON);
	if (!strstr(out, "\"closed_without_close\":null") &&
	    !strstr(out, "\"closed_without_close\": null"))
		fail_msg("json report of an older capture:\n%s", out);
	free(out);
	sqlite3_close(db);

	/* the recorder measured them: 2 + 1 closed without a close call */
	with_ops = with_unseen = true;
	write_capture(tpath("d2.ptop"), PTOP__V1__PROBE_STATE__PROBE_STATE_ACTIVE, false);
	with_ops = with_unseen = false;
	assert_int_equal(db__open(tpath("d2.db"), true, false, &db, errbuf, sizeof(errbuf)), 0);
	if (db__load_capture(db, tpath("d2.ptop"), false, id, &st, errbuf, sizeof(errbuf)))
		fail_msg("load: %s", errbuf);
	assert_int_equal(q_int(db, "SELECT closed_unseen FROM fd_site WHERE opened = 80"), 1);
	out = run_report(db, OUT_TEXT);
	if (!strstr(out, "\nclosed without a close call (exec, close_range, ...; missing from "
			 "the fd table, taken off their sites' live): 3\n"))
		fail_msg("text report:\n%s", out);
	free(out);
	out = run_report(db, OUT_JSON);
	if (!strstr(out, "\"closed_without_close\":3") &&
	    !strstr(out, "\"closed_without_close\": 3"))
		fail_msg("json report:\n%s", out);
	free(out);
	sqlite3_close(db);
}

/* Which fd_owner entries the kernel closed without a close call: those a read of the fd
 * table lacks, opened before the read began. */
static void test_08_owner_closed(void **state)
{
	struct fd_ent ents[4] = {{.fd = 0}, {.fd = 1}, {.fd = 2}, {.fd = 5}};
	struct fd_scan s = {.ents = ents, .nents = 4};

	(void)state;
	assert_true(fds__owner_closed(&s, 1000, 3, 500));   /* not in the table */
	assert_true(fds__owner_closed(&s, 1000, 9, 999));   /* above its last */
	assert_false(fds__owner_closed(&s, 1000, 5, 500));  /* open */
	assert_false(fds__owner_closed(&s, 1000, 0, 500));  /* open, the first */
	assert_false(fds__owner_closed(&s, 1000, 3, 1000)); /* opened as the read began */
	assert_false(fds__owner_closed(&s, 1000, 3, 2000)); /* opened since */
	s.truncated = true;				    /* says nothing of any fd */
	assert_false(fds__owner_closed(&s, 1000, 3, 500));
	s.truncated = false;
	s.nents = 0; /* an empty table: every fd closed */
	assert_true(fds__owner_closed(&s, 1000, 0, 500));
}

static void test_04_not_collected_and_corrupt(void **state)
{
	char id[DB_CAPTURE_ID_LEN];
	struct load_stats st;
	sqlite3 *db = NULL;
	char *out;

	(void)state;
	write_capture(tpath("b.ptop"), PTOP__V1__PROBE_STATE__PROBE_STATE_FAILED, false);
	assert_int_equal(db__open(tpath("b.db"), true, false, &db, errbuf, sizeof(errbuf)), 0);
	if (db__load_capture(db, tpath("b.ptop"), false, id, &st, errbuf, sizeof(errbuf)))
		fail_msg("load: %s", errbuf);
	out = run_report(db, OUT_TEXT);
	if (!strstr(out, "not collected") || !strstr(out, "cannot read /proc/4321/fd") ||
	    strstr(out, " 0 "))
		fail_msg("text report:\n%s", out);
	free(out);
	sqlite3_close(db);

	write_capture(tpath("c.ptop"), PTOP__V1__PROBE_STATE__PROBE_STATE_ACTIVE, true);
	assert_int_equal(db__open(tpath("c.db"), true, false, &db, errbuf, sizeof(errbuf)), 0);
	/* a payload that does not unpack is skipped and counted, the rest loads (issue 21) */
	if (db__load_capture(db, tpath("c.ptop"), false, id, &st, errbuf, sizeof(errbuf)))
		fail_msg("load refused the capture for one bad record: %s", errbuf);
	assert_int_equal(st.skipped, 1);
	assert_int_equal(q_int(db, "SELECT count(*) FROM drop_notice WHERE collector = 'fds' "
				   "AND kind = 'undecodable' AND lost = 1"),
			 1);
	sqlite3_close(db);
}

/* The figures of a capture whose fd counts rise and fall: totals 10, 50, 30 at 1, 2 and
 * 3 s (file 8, 8, 20; socket 0, 40, 8; pipe 2 each); with the eBPF lane, 1 then 45 opened,
 * 0 then 4 closed, one EMFILE failure at each. */
static void write_fig_capture(const char *path)
{
	struct capture_writer_opts o = {.force = true};
	struct capture_writer *w = capture_writer__create(path, &o);

	assert_non_null(w);
	put_header(w, PTOP__V1__PROBE_STATE__PROBE_STATE_ACTIVE);
	put_sample(w, T0 + SEC, 8, 0);
	put_sample(w, T0 + 2 * SEC, 8, 40);
	put_sample(w, T0 + 3 * SEC, 20, 8);
	if (with_ops) {
		put_ops(w, T0 + SEC, 1, 0);
		put_ops(w, T0 + 3 * SEC, 45, 4);
	}
	capw__trailer(w, T0 + 3 * SEC);
	assert_int_equal(capture_writer__close(w), 0);
}

/* The figures of DB's capture over W. */
static struct fig_capture *figures(sqlite3 *db, const struct window *w)
{
	struct fig_capture *fc = NULL;

	assert_int_equal(fig_capture__compute(db, "42424242424242424242424242424242", w, &fc), 0);
	return fc;
}

/* Figure NAME's instance ARG: its value, or fail (not measured, absent). */
static double fig(const struct fig_capture *fc, const char *name, const char *arg)
{
	const struct fig_family *f = fig_capture__find(fc, name);
	const struct fig_value *v;

	if (!f || !f->measured)
		fail_msg("%s: %s", name, f ? f->reason : "no such figure");
	v = fig_family__find(f, arg);
	if (!v)
		fail_msg("%s(%s): no instance", name, arg ? arg : "");
	return v->v;
}

/* The reason NAME is not measured (fails when it is). */
static const char *unmeasured(const struct fig_capture *fc, const char *name)
{
	const struct fig_family *f = fig_capture__find(fc, name);

	assert_non_null(f);
	if (f->measured)
		fail_msg("%s: measured", name);
	assert_int_equal(f->n, 0);
	return f->reason;
}

/* Each fds figure's status in a diff of DB over window B against window N. */
static enum diff_status diff_status(const struct diff *d, const char *name)
{
	for (size_t i = 0; i < d->n; i++)
		if (!strcmp(d->row[i].name, name))
			return d->row[i].status;
	fail_msg("%s: no diff row", name);
	return DIFF_NOT_COMPARABLE;
}

/* diff: a figure from fewer than 3 samples is too few samples (the first sample falls at a
 * random point of the target's start-up), and a change within a series' own step too: the
 * window B has 2 samples (50, 30), N all 3 (10, 50, 30). */
static void diff_few(sqlite3 *db, const struct window *b, const struct window *n)
{
	struct diff_opts o = {.confidence = 0.99, .md = {.has_rel = true, .rel_pct = 10}};
	struct fig_capture *fb = figures(db, b), *fn = figures(db, n);
	const struct fig_family *f;
	struct diff d;

	/* spreads of the 3 samples: the peak 50 next to 30, the last 30 after 50, the
	 * growth as exact as its first step (40) and its last (20) */
	assert_true(fig_family__find(fig_capture__find(fn, "fds.peak"), NULL)->spread == 20);
	assert_true(fig_family__find(fig_capture__find(fn, "fds.open_at_end"), NULL)->spread ==
		    20);
	assert_true(fig_family__find(fig_capture__find(fn, "fds.growth"), NULL)->spread == 60);
	f = fig_capture__find(fn, "fds.type(*)");
	assert_true(fig_family__find(f, "file")->spread == 12);
	assert_int_equal(diff__compare(fb, fn, &o, &d), 0);
	assert_int_equal(diff_status(&d, "fds.growth"), DIFF_TOO_FEW);	   /* -20 -> 20, 2 samples */
	/* an equal value is unchanged, whatever the samples */
	assert_int_equal(diff_status(&d, "fds.type(file)"), DIFF_UNCHANGED);
	diff__free(&d);
	/* 3 samples on both sides: compared; a growth of 20 against 20 unchanged */
	assert_int_equal(diff__compare(fn, fn, &o, &d), 0);
	assert_int_equal(diff_status(&d, "fds.growth"), DIFF_UNCHANGED);
	assert_int_equal(diff_status(&d, "fds.peak"), DIFF_UNCHANGED);
	diff__free(&d);
	fig_capture__free(fb);
	fig_capture__free(fn);
}

static void test_06_figures(void **state)
{
	const struct window all = {0}, early = {.has_end = true, .end_ns = SEC + SEC / 2},
			    late = {.has_start = true, .start_ns = SEC + SEC / 2};
	const struct fig_family *f;
	struct fig_capture *fc;
	char id[DB_CAPTURE_ID_LEN];
	struct load_stats st;
	sqlite3 *db = NULL;

	(void)state;
	/* the /proc lane: the table's figures; opens and closes not measured, and why */
	write_fig_capture(tpath("f.ptop"));
	assert_int_equal(db__open(tpath("f.db"), true, false, &db, errbuf, sizeof(errbuf)), 0);
	if (db__load_capture(db, tpath("f.ptop"), false, id, &st, errbuf, sizeof(errbuf)))
		fail_msg("load: %s", errbuf);
	fc = figures(db, &all);
	assert_true(fig(fc, "fds.open_at_end", NULL) == 30);
	assert_true(fig(fc, "fds.peak", NULL) == 50);
	assert_true(fig(fc, "fds.growth", NULL) == 20);
	assert_true(fig(fc, "fds.type(*)", "file") == 20);
	assert_true(fig(fc, "fds.type(*)", "socket") == 8);
	assert_true(fig(fc, "fds.type(*)", "pipe") == 2);
	f = fig_capture__find(fc, "fds.type(*)");
	assert_int_equal(f->n, 3); /* the types with none are absent, and the list complete */
	assert_true(f->complete);
	assert_null(fig_family__find(f, "eventfd"));
	assert_true(fig_capture__find(fc, "fds.open_at_end")->before_end_s == 0);
	assert_string_equal(unmeasured(fc, "fds.opens"),
			    "the eBPF lane did not run: it needs --fd-stacks");
	unmeasured(fc, "fds.closes");
	unmeasured(fc, "fds.emfile");
	fig_capture__free(fc);
	/* the first second: one sample, no growth */
	fc = figures(db, &early);
	assert_true(fig(fc, "fds.open_at_end", NULL) == 10);
	assert_true(fig(fc, "fds.peak", NULL) == 10);
	assert_string_equal(unmeasured(fc, "fds.growth"),
			    "growth needs two fd samples in the window");
	assert_true(fig_capture__find(fc, "fds.open_at_end")->before_end_s > 0.4);
	fig_capture__free(fc);
	/* after 1.5 s: 50 then 30, a fall */
	fc = figures(db, &late);
	assert_true(fig(fc, "fds.growth", NULL) == -20);
	assert_true(fig(fc, "fds.peak", NULL) == 50);
	fig_capture__free(fc);
	diff_few(db, &late, &all);
	sqlite3_close(db);

	/* the eBPF lane: opens, closes, EMFILE counted over the window */
	with_ops = true;
	write_fig_capture(tpath("g.ptop"));
	with_ops = false;
	assert_int_equal(db__open(tpath("g.db"), true, false, &db, errbuf, sizeof(errbuf)), 0);
	if (db__load_capture(db, tpath("g.ptop"), false, id, &st, errbuf, sizeof(errbuf)))
		fail_msg("load: %s", errbuf);
	fc = figures(db, &all);
	assert_true(fig(fc, "fds.opens", NULL) == 46);
	assert_true(fig(fc, "fds.closes", NULL) == 4);
	assert_true(fig(fc, "fds.emfile", NULL) == 2);
	assert_true(fig(fc, "fds.growth", NULL) == 20);
	fig_capture__free(fc);
	fc = figures(db, &late);
	assert_true(fig(fc, "fds.opens", NULL) == 45);
	assert_true(fig(fc, "fds.closes", NULL) == 4);
	assert_true(fig(fc, "fds.emfile", NULL) == 1);
	fig_capture__free(fc);
	sqlite3_close(db);

	/* the probe did not run: every figure not measured, with the probe set's reason */
	write_capture(tpath("h.ptop"), PTOP__V1__PROBE_STATE__PROBE_STATE_FAILED, false);
	assert_int_equal(db__open(tpath("h.db"), true, false, &db, errbuf, sizeof(errbuf)), 0);
	if (db__load_capture(db, tpath("h.ptop"), false, id, &st, errbuf, sizeof(errbuf)))
		fail_msg("load: %s", errbuf);
	fc = figures(db, &all);
	assert_non_null(strstr(unmeasured(fc, "fds.growth"), "cannot read /proc/4321/fd"));
	assert_non_null(strstr(unmeasured(fc, "fds.open_at_end"), "fds failed"));
	unmeasured(fc, "fds.type(*)");
	unmeasured(fc, "fds.opens");
	fig_capture__free(fc);
	sqlite3_close(db);
}

/* The frame of the model's current tab as text (caller frees). */
static char *render(struct replay_model *m, struct replay_ui *ui)
{
	struct grid *g = grid__new(120, 40);
	char *t;

	assert_non_null(g);
	replay__render(m, ui, g);
	t = grid__to_text(g);
	grid__free(g);
	assert_non_null(t);
	return t;
}

static void must_have(const char *frame, const char *what)
{
	if (!strstr(frame, what))
		fail_msg("no \"%s\" in the frame:\n%s", what, frame);
}

/* The FDs tab at 3 s of the figures' capture (totals 10, 50, 30; sockets 0, 40, 8): the
 * total selected first, Down selects the types shown in order, Enter shows the selected
 * one's series, Esc goes back; the total's series has the eBPF lane's opens and closes. */
static void test_07_drill(void **state)
{
	char id[DB_CAPTURE_ID_LEN], err[256] = "";
	struct replay_ui ui = {0};
	struct replay_model *m;
	struct load_stats st;
	sqlite3 *db = NULL;
	char *t;

	(void)state;
	with_ops = true;
	write_fig_capture(tpath("r.ptop"));
	with_ops = false;
	assert_int_equal(db__open(tpath("r.db"), true, false, &db, errbuf, sizeof(errbuf)), 0);
	if (db__load_capture(db, tpath("r.ptop"), false, id, &st, errbuf, sizeof(errbuf)))
		fail_msg("load: %s", errbuf);
	m = replay_model__open(db, id, err, sizeof(err));
	if (!m)
		fail_msg("replay_model__open: %s", err);
	ui.tab = replay__find_view("fds");
	assert_true(ui.tab >= 0);
	replay_model__seek(m, 3 * SEC);
	t = render(m, &ui);
	must_have(t, "Up/Down select, Enter its series");
	assert_string_equal(ui.selected, "total");
	free(t);
	replay__key(m, &ui, RK_DOWN);
	free(render(m, &ui));
	assert_string_equal(ui.selected, "file");
	replay__key(m, &ui, RK_DOWN);
	free(render(m, &ui));
	assert_string_equal(ui.selected, "socket");
	assert_int_equal(replay__key(m, &ui, RK_ENTER), 0);
	assert_string_equal(ui.drill, "socket");
	t = render(m, &ui);
	must_have(t, "open fds: socket  (Esc: back)");
	must_have(t, "8 at 00:03.0   +8 over 2 intervals   lowest 0   highest 40");
	must_have(t, "interval end     open   change\n");
	must_have(t, "00:03.0             8      -32\n");
	must_have(t, "00:02.0            40      +40\n");
	must_have(t, "00:01.0             0        -\n");
	free(t);
	/* at 2 s the series ends there */
	replay_model__seek(m, 2 * SEC);
	t = render(m, &ui);
	must_have(t, "40 at 00:02.0   +40 over 1 intervals");
	if (strstr(t, "00:03.0             8"))
		fail_msg("a later interval is shown:\n%s", t);
	free(t);
	/* the arrows step through fd_sample's interval ends (its series declares them; this
	 * capture has no other interval series) */
	assert_int_equal(m->nends, 3);
	replay_model__seek(m, 0);
	assert_int_equal(replay_model__step(m, 2), 1);
	assert_int_equal(m->pos_ns, 2 * SEC);
	replay__key(m, &ui, RK_ESC);
	assert_string_equal(ui.drill, "");
	replay_model__seek(m, 3 * SEC);
	replay__key(m, &ui, RK_UP);
	replay__key(m, &ui, RK_UP);
	free(render(m, &ui));
	assert_string_equal(ui.selected, "total");
	replay__key(m, &ui, RK_ENTER);
	t = render(m, &ui);
	must_have(t, "open fds: all types  (Esc: back)");
	must_have(t, "30 at 00:03.0   +20 over 2 intervals   lowest 10   highest 50");
	must_have(t, "interval end     open   change   opened   closed\n");
	must_have(t, "00:03.0            30      -20       45        4\n");
	must_have(t, "00:02.0            50      +40        0        0\n");
	must_have(t, "00:01.0            10        -        1        0\n");
	free(t);
	/* a name that is no series (a drill kept across captures): said, no query built */
	snprintf(ui.drill, sizeof(ui.drill), "x; DROP TABLE fd_sample");
	t = render(m, &ui);
	must_have(t, "no fd series x; DROP TABLE fd_sample (Esc: back)");
	free(t);
	replay_model__free(m);
	sqlite3_close(db);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_01_classify),
	    cmocka_unit_test(test_01b_kinds),
	    cmocka_unit_test(test_02_scan_self),
	    cmocka_unit_test(test_02b_scan_probe),
	    cmocka_unit_test(test_03_load_and_report),
	    cmocka_unit_test(test_04_not_collected_and_corrupt),
	    cmocka_unit_test(test_05_ops_and_sites),
	    cmocka_unit_test(test_06_figures),
	    cmocka_unit_test(test_07_drill),
	    cmocka_unit_test(test_08_owner_closed),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
