/* test_net.c — the net collector: its /proc parsers (record_proc.c) on lines as the kernel
 * writes them, and its loader and report (load.c, report.c) on a synthetic capture: what
 * was not measured stays NULL, every socket is keyed by its inode (by its cookie negated without one), errors
 * land in net_error, a payload that does not unpack fails the load. */
#include <errno.h>
#include <ftw.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "analyze/db.h"
#include "analyze/replay_grid.h"
#include "analyze/replay_model.h"
#include "analyze/replay_views.h"
#include "analyze/report.h"
#include "collectors/net/net.pb-c.h"
#include "collectors/net/record.h"
#include "proto/capture.h"
#include "tests/tmpdir.h"
#include "tests/capwrite.h"
#include "tests/sqlq.h"

#define T0 1000000000000ull
#define SEC 1000000000ull

static char errbuf[1024];

/* ------------------------------------------------------------------ parsers */

static void test_01_tcp4_line(void **state)
{
	/* /proc/net/tcp: 127.0.0.1:8080 -> 127.0.0.1:40000, ESTABLISHED, queues 0x10 and 0x20 */
	const char *l = "   3: 0100007F:1F90 0100007F:9C40 01 00000010:00000020 00:00000000 "
			"00000000  1000        0 123456 1 0000000000000000 20 4 30 10 -1";
	const char *listen = "   0: 0100007F:1F90 00000000:0000 0A 00000000:00000003 00:00000000 "
			     "00000000     0        0 777 1 0000000000000000 100 0 0 10 0";
	struct procnet_sock s;

	(void)state;
	assert_int_equal(procnet_parse_inet_line(l, "tcp", &s), 0);
	assert_string_equal(s.proto, "tcp");
	assert_string_equal(s.local, "127.0.0.1:8080");
	assert_string_equal(s.remote, "127.0.0.1:40000");
	assert_string_equal(s.state, "ESTABLISHED");
	assert_int_equal(s.tx_queue, 16);
	assert_int_equal(s.rx_queue, 32);
	assert_int_equal(s.inode, 123456);
	assert_true(s.has_queues);
	assert_int_equal(procnet_parse_inet_line(listen, "tcp", &s), 0);
	assert_string_equal(s.state, "LISTEN");
	assert_string_equal(s.remote, ""); /* 0.0.0.0:0: none */
	assert_int_equal(s.rx_queue, 3);   /* connections waiting to be accepted */
	assert_int_equal(s.inode, 777);
	/* the header is not a line */
	assert_int_equal(
	    procnet_parse_inet_line("  sl  local_address rem_address   st tx_queue "
				    "rx_queue tr tm->when retrnsmt   uid  timeout inode",
				    "tcp", &s),
	    -EINVAL);
	assert_int_equal(procnet_parse_inet_line("   3: 0100007F", "tcp", &s), -EINVAL);
}

static void test_02_tcp6_udp_lines(void **state)
{
	/* ::1 port 443 to ::ffff:127.0.0.1 port 5000 (each word in host order, little endian) */
	const char *l6 =
	    "   1: 00000000000000000000000001000000:01BB 0000000000000000FFFF00000100007F:1388 "
	    "01 00000000:00000000 00:00000000 00000000     0        0 4242 1 "
	    "0000000000000000 20 4 0 10 -1";
	const char *udp = "  100: 0100007F:0035 00000000:0000 07 00000000:00000200 00:00000000 "
			  "00000000   101        0 999 2 0000000000000000 0";
	struct procnet_sock s;

	(void)state;
	assert_int_equal(procnet_parse_inet_line(l6, "tcp6", &s), 0);
	assert_string_equal(s.local, "[::1]:443");
	assert_string_equal(s.remote, "[::ffff:127.0.0.1]:5000");
	assert_int_equal(s.inode, 4242);
	assert_int_equal(procnet_parse_inet_line(udp, "udp", &s), 0);
	assert_string_equal(s.local, "127.0.0.1:53");
	assert_string_equal(s.state, "UNCONNECTED");
	assert_int_equal(s.rx_queue, 512);
	assert_int_equal(s.inode, 999);
}

static void test_03_unix_lines(void **state)
{
	struct procnet_sock s;

	(void)state;
	assert_int_equal(
	    procnet_parse_unix_line("0000000000000000: 00000002 00000000 00010000 0001 01 "
				    "31337 /run/app.sock",
				    &s),
	    0);
	assert_string_equal(s.proto, "unix");
	assert_string_equal(s.state, "STREAM");
	assert_string_equal(s.local, "/run/app.sock");
	assert_int_equal(s.inode, 31337);
	assert_int_equal(
	    procnet_parse_unix_line("0000000000000000: 00000003 00000000 00000000 0002 03 "
				    "55",
				    &s),
	    0);
	assert_string_equal(s.state, "DGRAM");
	assert_string_equal(s.local, ""); /* a socketpair: no path */
	assert_int_equal(s.inode, 55);
	assert_int_equal(
	    procnet_parse_unix_line("0000000000000000: 00000002 00000000 00000000 0005 01 "
				    "56 @abstract\n",
				    &s),
	    0);
	assert_string_equal(s.state, "SEQPACKET");
	assert_string_equal(s.local, "@abstract");
	assert_int_equal(
	    procnet_parse_unix_line("Num       RefCount Protocol Flags    Type St Inode Path", &s),
	    -EINVAL);
}

static void test_04_fd_links_and_addrs(void **state)
{
	uint8_t v4[4] = {10, 0, 0, 1}, zero[16] = {0};
	char b[128];

	(void)state;
	assert_int_equal(procnet_socket_inode("socket:[12345]"), 12345);
	assert_int_equal(procnet_socket_inode("pipe:[12345]"), 0);
	assert_int_equal(procnet_socket_inode("socket:[12345"), 0);
	assert_int_equal(procnet_socket_inode("/dev/null"), 0);
	assert_string_equal(procnet_fmt_addr(b, sizeof(b), AF_INET, v4, 80), "10.0.0.1:80");
	assert_string_equal(procnet_fmt_addr(b, sizeof(b), AF_INET, zero, 0), "");
	assert_string_equal(procnet_fmt_addr(b, sizeof(b), AF_INET, zero, 53), "0.0.0.0:53");
	assert_string_equal(procnet_fmt_addr(b, sizeof(b), AF_INET6, zero, 22), "[::]:22");
	assert_string_equal(procnet_tcp_state(2), "SYN_SENT");
	assert_string_equal(procnet_tcp_state(0), "UNKNOWN");
	assert_string_equal(procnet_tcp_state(99), "UNKNOWN");
}

struct seen {
	uint64_t inode[8];
	int n;
};

static int collect(const struct procnet_sock *s, void *arg)
{
	struct seen *z = arg;

	z->inode[z->n++] = s->inode;
	return 0;
}

static void test_05_file_matched_by_inode(void **state)
{
	char text[] = "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt "
		      "  uid  timeout inode\n"
		      "   0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000 "
		      "    0        0 10 1 0 100 0 0 10 0\n"
		      "   1: 0100007F:1F91 00000000:0000 0A 00000000:00000000 00:00000000 00000000 "
		      "    0        0 20 1 0 100 0 0 10 0\n"
		      "   2: 0100007F:1F92 00000000:0000 0A 00000000:00000000 00:00000000 00000000 "
		      "    0        0 30 1 0 100 0 0 10 0\n";
	const uint64_t mine[] = {10, 30, 40}; /* sorted: the target's fds */
	struct seen z = {0};

	(void)state;
	assert_int_equal(procnet_parse_file(text, "tcp", mine, 3, collect, &z), 2);
	assert_int_equal(z.n, 2);
	assert_int_equal(z.inode[0], 10);
	assert_int_equal(z.inode[1], 30);
}

/* ------------------------------------------------------------------ loader */

static int setup(void **state)
{
	(void)state;
	return tmpdir__make("net");
}

static void put_payload(struct capture_writer *w, uint64_t t, uint64_t iv,
			const ProtobufCMessage *m, const char *name)
{
	Ptop__V1__Record r = PTOP__V1__RECORD__INIT;
	Ptop__V1__Event ev = PTOP__V1__EVENT__INIT;
	Ptop__V1__CollectorPayload cp;

	ev.time_ns = t;
	ev.interval_ns = iv;
	ev.pid = 4321;
	assert_int_equal(capture_payload__pack(&ev, &cp, name, m), 0);
	r.kind_case = PTOP__V1__RECORD__KIND_EVENT;
	r.event = &ev;
	capw__append(w, &r);
	capture_payload__release(&cp);
}

static void put_header(struct capture_writer *w, Ptop__V1__ProbeSource src)
{
	struct capb_header b;

	capb__header_init(&b);
	b.h.recorder = NULL;
	b.h.host = NULL;
	for (int k = 0; k < 16; k++)
		b.id[k] = (uint8_t)(0x40 + k);
	capb__probe(&b, "net", PTOP__V1__PROBE_STATE__PROBE_STATE_ACTIVE, src, "", NULL);
	b.clk.monotonic_ns = T0;
	b.opt.interval_ns = SEC;
	b.t.mode = PTOP__V1__TARGET_MODE__TARGET_MODE_PID;
	b.t.pid = 4321;
	b.t.comm = "client";
	capb__put_header(w, &b);
}

/* Two intervals: a connection with traffic (cookie 77, inode 500), then the same and a
 * listener only /proc saw (inode 600); a refused connect's error. */
static void write_capture(const char *path)
{
	struct capture_writer_opts o = {.force = true};
	struct capture_writer *w = capture_writer__create(path, &o);
	Ptop__V1__NetSocket conn = PTOP__V1__NET_SOCKET__INIT, lst = PTOP__V1__NET_SOCKET__INIT;
	Ptop__V1__NetTraffic tr = PTOP__V1__NET_TRAFFIC__INIT;
	Ptop__V1__NetQueues q = PTOP__V1__NET_QUEUES__INIT, lq = PTOP__V1__NET_QUEUES__INIT;
	Ptop__V1__NetSockets m = PTOP__V1__NET_SOCKETS__INIT;
	Ptop__V1__NetError e = PTOP__V1__NET_ERROR__INIT;
	Ptop__V1__NetError e2 = PTOP__V1__NET_ERROR__INIT;
	Ptop__V1__NetStateChange c1 = PTOP__V1__NET_STATE_CHANGE__INIT,
				 c2 = PTOP__V1__NET_STATE_CHANGE__INIT;
	Ptop__V1__NetStateChange *chp[2] = {&c1, &c2};
	Ptop__V1__NetSocket *ptrs[2];

	assert_non_null(w);
	put_header(w, PTOP__V1__PROBE_SOURCE__PROBE_SOURCE_EBPF);
	conn.id = 77;
	conn.inode = 500;
	conn.proto = "tcp";
	conn.local = "127.0.0.1:40000";
	conn.remote = "10.1.2.3:5432";
	conn.state = "ESTABLISHED";
	tr.tx_bytes = 1000;
	tr.rx_bytes = 2000;
	tr.tx_calls = 1;
	tr.rx_calls = 2;
	tr.srtt_us = 0; /* not measured: NULL */
	conn.traffic = &tr;
	conn.connect_ns = 50000;
	c1.time_ns = T0 + SEC / 2; /* the connect: CLOSE > SYN_SENT > ESTABLISHED 50 us later */
	c1.old_state = "CLOSE";
	c1.new_state = "SYN_SENT";
	c2.time_ns = T0 + SEC / 2 + 50000;
	c2.old_state = "SYN_SENT";
	c2.new_state = "ESTABLISHED";
	conn.changes = chp;
	conn.n_changes = 2;
	q.tx_queue = 0;
	q.rx_queue = 0;
	q.fd = 5;
	conn.queues = &q;
	ptrs[0] = &conn;
	m.sockets = ptrs;
	m.n_sockets = 1;
	m.ebpf = m.proc = true;
	put_payload(w, T0 + SEC, SEC, &m.base, "net");

	e.id = 88;
	e.proto = "tcp";
	e.local = "127.0.0.1:40001";
	e.remote = "127.0.0.1:9";
	e.kind = "refused";
	e.count = 1;
	e.total = 1;
	e.latency_ns = 30000;
	e.err = 111;
	put_payload(w, T0 + SEC + SEC / 2, 0, &e.base, "net");
	e2.inode = 900; /* a connect() that failed in the call: no cookie, its inode */
	e2.proto = "udp";
	e2.local = "";
	e2.remote = "10.8.8.8:53";
	e2.kind = "unreachable";
	e2.count = 2;
	e2.total = 2;
	e2.err = 113;
	e2.in_call = true;
	put_payload(w, T0 + SEC + SEC / 2 + 1, 0, &e2.base, "net");

	tr.tx_bytes = 500;
	tr.rx_bytes = 0;
	tr.srtt_us = 42;
	conn.connect_ns = 0;
	conn.n_changes = 0;
	lst.inode = 600;
	lst.proto = "tcp";
	lst.local = "0.0.0.0:8080";
	lst.remote = "";
	lst.state = "LISTEN";
	lq.rx_queue = 3;
	lq.fd = 7;
	lst.queues = &lq;
	ptrs[1] = &lst;
	m.n_sockets = 2;
	put_payload(w, T0 + 2 * SEC, SEC, &m.base, "net");
	capw__trailer(w, T0 + 3 * SEC);
	assert_int_equal(capture_writer__close(w), 0);
}

static sqlite3 *load(const char *ptop, const char *dbname, char id[DB_CAPTURE_ID_LEN], int *rc)
{
	sqlite3 *db = NULL;

	assert_int_equal(db__open(tpath(dbname), true, false, &db, errbuf, sizeof(errbuf)), 0);
	*rc = db__load_capture(db, ptop, false, id, NULL, errbuf, sizeof(errbuf));
	return db;
}

static const char *q1(sqlite3 *db, const char *sql)
{
	static char out[4][256];
	static int k;
	sqlite3_stmt *s = NULL;

	k = (k + 1) % 4;
	if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK)
		fail_msg("prepare %s: %s", sql, sqlite3_errmsg(db));
	if (sqlite3_step(s) != SQLITE_ROW)
		fail_msg("no row: %s", sql);
	snprintf(out[k], sizeof(out[k]), "%s",
		 sqlite3_column_type(s, 0) == SQLITE_NULL
		     ? "<NULL>"
		     : (const char *)sqlite3_column_text(s, 0));
	sqlite3_finalize(s);
	return out[k];
}

/* The frame of the model's current tab as text (caller frees). */
static char *render(struct replay_model *m, struct replay_ui *ui)
{
	struct grid *g = grid__new(160, 40);
	char *t;

	assert_non_null(g);
	replay__render(m, ui, g);
	t = grid__to_text(g);
	grid__free(g);
	assert_non_null(t);
	return t;
}

/* The Network tab at 2 s: the sockets of that interval, the top one selected; Enter shows
 * its intervals (1000 then 500 bytes sent), Down selects the next, Esc goes back. */
static void drill(sqlite3 *db, const char *id)
{
	char err[256] = "";
	struct replay_model *m = replay_model__open(db, id, err, sizeof(err));
	struct replay_ui ui = {0};
	char *t;

	if (!m)
		fail_msg("replay_model__open: %s", err);
	ui.tab = replay__find_view("network");
	replay_model__seek(m, 2 * SEC);
	t = render(m, &ui);
	assert_non_null(strstr(t, "errors so far: unreachable 2 refused 1"));
	assert_non_null(strstr(t, "0.0.0.0:8080"));
	assert_string_equal(ui.selected, "500"); /* by bytes: the connection first */
	free(t);
	assert_int_equal(replay__key(m, &ui, RK_ENTER), 0);
	assert_string_equal(ui.drill, "500");
	t = render(m, &ui);
	assert_non_null(
	    strstr(t, "tcp 127.0.0.1:40000 -> 10.1.2.3:5432  ESTABLISHED  (Esc: back)"));
	assert_non_null(strstr(t, "connect 50.0 us"));
	assert_non_null(strstr(t, "CLOSE > SYN_SENT 500 ms > ESTABLISHED +50.0 us"));
	assert_non_null(strstr(t, "1000 B"));
	assert_non_null(strstr(t, "500 B"));
	free(t);
	replay__key(m, &ui, RK_ESC);
	assert_string_equal(ui.drill, "");
	replay__key(m, &ui, RK_DOWN);
	t = render(m, &ui);
	assert_string_equal(ui.selected, "600"); /* the listener, keyed by its inode too */
	free(t);
	replay_model__free(m);
}

static void test_06_load(void **state)
{
	char id[DB_CAPTURE_ID_LEN];
	sqlite3 *db;
	int rc;

	(void)state;
	write_capture(tpath("a.ptop"));
	db = load(tpath("a.ptop"), "a.db", id, &rc);
	if (rc)
		fail_msg("load: %d %s", rc, errbuf);
	assert_string_equal(q1(db, "SELECT count(*) FROM net_socket"), "3");
	assert_string_equal(q1(db, "SELECT group_concat(sock || '/' || quote(tx_bytes) || '/' || "
				   "quote(rx_bytes) || '/' || quote(connect_ns) || '/' || "
				   "quote(srtt_us) || '/' || quote(fd), ' ') FROM net_socket "
				   "WHERE inode = 500"),
			    "500/1000/2000/50000/NULL/5 500/500/0/NULL/42/5");
	/* the listener only /proc saw: keyed by its inode, traffic NULL (not 0) */
	assert_string_equal(q1(db,
			       "SELECT sock || '/' || quote(tx_bytes) || '/' || quote(segs_out) "
			       "|| '/' || rx_queue || '/' || fd || '/' || state FROM net_socket "
			       "WHERE inode = 600"),
			    "600/NULL/NULL/3/7/LISTEN");
	assert_string_equal(q1(db, "SELECT sock || '/' || kind || '/' || count || '/' || "
				   "latency_ns || '/' || err || '/' || remote || '/' || in_call "
				   "FROM net_error WHERE kind = 'refused'"),
			    "-88/refused/1/30000/111/127.0.0.1:9/0");
	/* failed in the call: keyed by its inode, no latency (not measured: NULL) */
	assert_string_equal(q1(db, "SELECT sock || '/' || kind || '/' || count || '/' || "
				   "quote(latency_ns) || '/' || err || '/' || proto || '/' || "
				   "in_call FROM net_error WHERE kind = 'unreachable'"),
			    "900/unreachable/2/NULL/113/udp/1");
	/* the state changes, each at its own time, under the socket's key */
	assert_string_equal(q1(db, "SELECT group_concat(sock || ' ' || (time_ns - 1000000000000) "
				   "|| ' ' || old_state || '>' || new_state, ', ') FROM "
				   "(SELECT * FROM net_state ORDER BY time_ns)"),
			    "500 500000000 CLOSE>SYN_SENT, 500 500050000 SYN_SENT>ESTABLISHED");
	assert_string_equal(q1(db, "SELECT count(*) FROM net_sockets WHERE t_s = 2.0"), "2");
	assert_int_equal(db__check_capture(db, 1, errbuf, sizeof(errbuf)), 0);

	/* the report: the totals are the sums, the listener listed, the error counted */
	{
		const struct an_report *r = report_kind__find("net");
		struct report_opts o = {.fmt = OUT_JSON};
		char *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);

		assert_non_null(r);
		assert_non_null(f);
		assert_int_equal(report__run(r, db, id, &o, f), 0);
		fclose(f);
		assert_non_null(strstr(buf, "\"tx_bytes\": 1500"));
		assert_non_null(strstr(buf, "\"rx_bytes\": 2000"));
		assert_non_null(strstr(buf, "\"local\": \"0.0.0.0:8080\""));
		assert_non_null(strstr(buf, "\"kind\": \"refused\""));
		assert_non_null(strstr(buf, "\"timeline\": \"CLOSE > SYN_SENT 500 ms > "
					    "ESTABLISHED +50.0 us\""));
		free(buf);
	}
	drill(db, id);
	sqlite3_close(db);
}

/* Many connections: text shows the first --top of each list and says how many more; the
 * peers are grouped by host (10.0.0.1 with ports 80 and 443 before 10.0.0.2, by bytes),
 * then by port; JSON keeps every row, each peer with its host and port. */
static void test_08_top_and_hosts(void **state)
{
	struct capture_writer_opts wo = {.force = true};
	struct capture_writer *w = capture_writer__create(tpath("many.ptop"), &wo);
	Ptop__V1__NetSocket s[25], *ptrs[25];
	Ptop__V1__NetTraffic tr[25];
	Ptop__V1__NetSockets m = PTOP__V1__NET_SOCKETS__INIT;
	const struct an_report *r = report_kind__find("net");
	struct report_opts o = {.fmt = OUT_TEXT, .top = 5};
	char local[25][32], id[DB_CAPTURE_ID_LEN], *buf = NULL;
	size_t len = 0;
	sqlite3 *db;
	FILE *f;
	int rc;

	(void)state;
	assert_non_null(w);
	put_header(w, PTOP__V1__PROBE_SOURCE__PROBE_SOURCE_EBPF);
	for (int k = 0; k < 25; k++) {
		ptop__v1__net_socket__init(&s[k]);
		ptop__v1__net_traffic__init(&tr[k]);
		s[k].id = 1000 + (uint64_t)k;
		s[k].inode = 2000 + (uint64_t)k;
		s[k].proto = "tcp";
		snprintf(local[k], sizeof(local[k]), "127.0.0.1:%d", 50000 + k);
		s[k].local = local[k];
		s[k].remote = k < 15 ? "10.0.0.1:80" : k < 22 ? "10.0.0.1:443" : "10.0.0.2:80";
		s[k].state = "ESTABLISHED";
		tr[k].tx_bytes = 100 + (uint64_t)k;
		tr[k].rx_bytes = 1000;
		s[k].traffic = &tr[k];
		ptrs[k] = &s[k];
	}
	m.sockets = ptrs;
	m.n_sockets = 25;
	m.ebpf = m.proc = true;
	put_payload(w, T0 + SEC, SEC, &m.base, "net");
	capw__trailer(w, T0 + 2 * SEC);
	assert_int_equal(capture_writer__close(w), 0);
	db = load(tpath("many.ptop"), "many.db", id, &rc);
	if (rc)
		fail_msg("load: %d %s", rc, errbuf);
	f = open_memstream(&buf, &len);
	assert_int_equal(report__run(r, db, id, &o, f), 0);
	fclose(f);
	if (!strstr(buf, "  ... 20 more (--top)\n") ||
	    !strstr(buf, "\npeers (by host, then port)\n  10.0.0.1: 22 sockets, 2 ports, sent ") ||
	    !strstr(buf, "    80                         15 sockets") ||
	    !strstr(buf, "    443                         7 sockets") ||
	    !strstr(buf, "  10.0.0.2: 3 sockets, 1 port, sent ") ||
	    strstr(buf, "50009")) /* the 10th connection by bytes is past --top */
		fail_msg("text:\n%s", buf);
	assert_true(strstr(buf, "  10.0.0.1: ") < strstr(buf, "  10.0.0.2: "));
	free(buf);
	buf = NULL;
	o.fmt = OUT_JSON;
	f = open_memstream(&buf, &len);
	assert_int_equal(report__run(r, db, id, &o, f), 0);
	fclose(f);
	if (!strstr(buf, "\"remote\": \"10.0.0.1:443\",\n      \"host\": \"10.0.0.1\",\n      "
			 "\"port\": 443,\n      \"sockets\": 7,") ||
	    !strstr(buf, "\"local\": \"127.0.0.1:50009\"")) /* JSON: every connection */
		fail_msg("json:\n%s", buf);
	free(buf);
	sqlite3_close(db);
}

/* A NetSockets whose bytes do not unpack: the load fails and says so. */
static void test_07_corrupt_payload(void **state)
{
	struct capture_writer_opts o = {.force = true};
	struct capture_writer *w = capture_writer__create(tpath("bad.ptop"), &o);
	Ptop__V1__Record r = PTOP__V1__RECORD__INIT;
	Ptop__V1__Event ev = PTOP__V1__EVENT__INIT;
	Ptop__V1__CollectorPayload cp = PTOP__V1__COLLECTOR_PAYLOAD__INIT;
	uint8_t junk[] = {0x0a, 0xff, 0xff, 0xff}; /* field 1, a length past the end */
	char id[DB_CAPTURE_ID_LEN];
	sqlite3 *db;
	int rc;

	(void)state;
	assert_non_null(w);
	put_header(w, PTOP__V1__PROBE_SOURCE__PROBE_SOURCE_EBPF);
	ev.time_ns = T0 + SEC;
	ev.interval_ns = SEC;
	ev.pid = 4321;
	cp.collector = "net";
	cp.type = "ptop.v1.NetSockets";
	cp.data.data = junk;
	cp.data.len = sizeof(junk);
	ev.payload_case = PTOP__V1__EVENT__PAYLOAD_COLLECTOR_PAYLOAD;
	ev.collector_payload = &cp;
	r.kind_case = PTOP__V1__RECORD__KIND_EVENT;
	r.event = &ev;
	capw__append(w, &r);
	capw__trailer(w, T0 + 2 * SEC);
	assert_int_equal(capture_writer__close(w), 0);
	/* one record whose payload does not unpack is a lost event: the capture loads, and
	 * the record is counted as net's undecodable drop (issue 21) */
	db = load(tpath("bad.ptop"), "bad.db", id, &rc);
	if (rc)
		fail_msg("load refused the capture for one bad record: %s", errbuf);
	assert_int_equal(q_int(db, "SELECT count(*) FROM drop_notice WHERE collector = 'net' "
				   "AND kind = 'undecodable' AND lost = 1"),
			 1);
	assert_int_equal(q_int(db, "SELECT count(*) FROM net_socket"), 0);
	sqlite3_close(db);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_01_tcp4_line),
	    cmocka_unit_test(test_02_tcp6_udp_lines),
	    cmocka_unit_test(test_03_unix_lines),
	    cmocka_unit_test(test_04_fd_links_and_addrs),
	    cmocka_unit_test(test_05_file_matched_by_inode),
	    cmocka_unit_test(test_06_load),
	    cmocka_unit_test(test_08_top_and_hosts), cmocka_unit_test(test_07_corrupt_payload),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
