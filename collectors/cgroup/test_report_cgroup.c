/* test_report_cgroup.c — whole-cgroup captures: CgroupSample records written with the capture
 * writer, loaded (cgroup_sample, cgroup_stat, cgroup_psi, cgroup_proc, NULL where not measured),
 * and `report cgroup` / `report apps` checked value by value (JSON read back with SQLite's
 * json_extract), for a cgroup v2 and a cgroup v1 memory controller, a capture without the
 * cgroup probe, and a single-process capture.
 */
#include <errno.h>
#include <ftw.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "analyze/db.h"
#include "analyze/report.h"
#include "proto/capture.h"
#include "tests/tmpdir.h"
#include "tests/capwrite.h"
#include "collectors/cgroup/report.h"

#define T0 1000000000000ull /* monotonic ns at the start of the fake recording */
#define SEC 1000000000ull
#define MIB (1024ull * 1024)
#define KIB 1024ull

static char errbuf[1024];

/* ------------------------------------------------------------ file system */

static int setup(void **state)
{
	(void)state;
	return tmpdir__make("cgroup");
}

/* ---------------------------------------------------------------- queries */

/* The text of the first column of the first row of the query, with ?1 bound to ARG (may be
 * NULL); "<NULL>" for NULL. */
static const char *q1(sqlite3 *db, const char *arg, const char *fmt, ...)
{
	static char out[8][1024];
	static int k;
	char sql[1024];
	sqlite3_stmt *s = NULL;
	va_list ap;

	k = (k + 1) % 8;
	va_start(ap, fmt);
	vsnprintf(sql, sizeof(sql), fmt, ap);
	va_end(ap);
	if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK)
		fail_msg("prepare %s: %s", sql, sqlite3_errmsg(db));
	if (arg)
		sqlite3_bind_text(s, 1, arg, -1, SQLITE_STATIC);
	if (sqlite3_step(s) != SQLITE_ROW)
		fail_msg("no row: %s", sql);
	if (sqlite3_column_type(s, 0) == SQLITE_NULL)
		snprintf(out[k], sizeof(out[k]), "<NULL>");
	else
		snprintf(out[k], sizeof(out[k]), "%s", (const char *)sqlite3_column_text(s, 0));
	sqlite3_finalize(s);
	return out[k];
}

/* A row of a cgroup table as "v|v|v" (quote() of each column). */
#define ROW(db, cols, table, where)                                                                \
	q1(db, NULL, "SELECT %s FROM %s WHERE cap = (SELECT cap FROM capture) AND %s", cols,       \
	   table, where)

/* JSON value at PATH in the document J, as SQLite's json_extract prints it ("<NULL>": null or
 * missing). */
static const char *jx(sqlite3 *db, const char *j, const char *path)
{
	char sql[512];

	snprintf(sql, sizeof(sql), "SELECT json_extract(?1, '%s')", path);
	if (!strcmp(q1(db, j, "SELECT json_valid(?1)"), "0"))
		fail_msg("not JSON:\n%s", j);
	return q1(db, j, "%s", sql);
}

static const char *mib(unsigned long long n)
{
	static char out[8][32];
	static int k;

	k = (k + 1) % 8;
	snprintf(out[k], sizeof(out[k]), "%llu", n * MIB);
	return out[k];
}

/* ------------------------------------------------------- capture fixtures */

struct probe_def {
	const char *name;
	Ptop__V1__ProbeState state;
	const char *reason;
};

/* The header: capture id ending in ID, the probes, the target. */
static void put_header(struct capture_writer *w, uint8_t id, Ptop__V1__TargetMode mode,
		       const char *comm, const char *exe, const char *cgroup,
		       const struct probe_def *pd, size_t np)
{
	struct capb_header b;

	capb__header_init(&b);
	b.h.recorder = NULL;
	b.h.host = NULL;
	for (int k = 0; k < 16; k++)
		b.id[k] = (uint8_t)(0x20 + k);
	b.id[15] = id;
	for (size_t k = 0; k < np; k++)
		capb__probe(&b, pd[k].name, pd[k].state, PTOP__V1__PROBE_SOURCE__PROBE_SOURCE_PROC,
			    pd[k].reason ? pd[k].reason : "", NULL);
	b.clk.monotonic_ns = T0;
	b.opt.interval_ns = SEC;
	b.t.mode = mode;
	b.t.pid = mode == PTOP__V1__TARGET_MODE__TARGET_MODE_CGROUP ? 0 : 4321;
	b.t.comm = (char *)comm;
	b.t.exe = (char *)exe;
	b.t.cgroup_path = (char *)cgroup;
	capb__put_header(w, &b);
}

static void put_cgroup(struct capture_writer *w, uint64_t t, Ptop__V1__CgroupSample *c)
{
	Ptop__V1__Record r = PTOP__V1__RECORD__INIT;
	Ptop__V1__Event ev = PTOP__V1__EVENT__INIT;

	ev.time_ns = t;
	ev.interval_ns = SEC;
	ev.category = PTOP__V1__CATEGORY__CATEGORY_CGROUP;
	ev.payload_case = PTOP__V1__EVENT__PAYLOAD_CGROUP;
	ev.cgroup = c;
	r.kind_case = PTOP__V1__RECORD__KIND_EVENT;
	r.event = &ev;
	capw__append(w, &r);
}

#define ST_COVERED PTOP__V1__PROC_MEM_STATE__PROC_MEM_STATE_COVERED
#define ST_DENIED PTOP__V1__PROC_MEM_STATE__PROC_MEM_STATE_DENIED
#define ST_GONE PTOP__V1__PROC_MEM_STATE__PROC_MEM_STATE_GONE
#define ST_SKIPPED PTOP__V1__PROC_MEM_STATE__PROC_MEM_STATE_SKIPPED

/* A process of the subtree; RSS..SWAP in MiB (ignored unless covered: the recorder leaves 0). */
static Ptop__V1__ProcMem proc(int32_t pid, const char *comm, const char *exe, const char *unit,
			      Ptop__V1__ProcMemState state, uint64_t rss, uint64_t pss,
			      uint64_t uss, uint64_t swap)
{
	Ptop__V1__ProcMem p = PTOP__V1__PROC_MEM__INIT;
	bool cov = state == ST_COVERED;

	p.pid = pid;
	p.comm = (char *)comm;
	p.exe = (char *)exe;
	p.unit = (char *)unit;
	p.state = state;
	p.rss = cov ? rss * MIB : 0;
	p.pss = cov ? pss * MIB : 0;
	p.uss = cov ? uss * MIB : 0;
	p.swap = cov ? swap * MIB : 0;
	p.read_ns = cov ? 100000 : 0;
	p.cgroup_path = "/test.slice/x";
	return p;
}

static Ptop__V1__PsiLine psi_line(double a10, double a60, double a300, uint64_t total,
				  uint64_t delta)
{
	Ptop__V1__PsiLine l = PTOP__V1__PSI_LINE__INIT;

	l.avg10 = a10;
	l.avg60 = a60;
	l.avg300 = a300;
	l.total_us = total;
	l.total_delta_us = delta;
	return l;
}

#define FF "/usr/lib/firefox/firefox"
#define APP_FF "app-firefox-1.scope"

/* The v2 capture: three samples of /test.slice/x (see the test for the expected figures). */
static void write_v2(const char *path)
{
	static const struct probe_def probes[] = {
	    {"cgroup", PTOP__V1__PROBE_STATE__PROBE_STATE_ACTIVE, NULL},
	    {"memory", PTOP__V1__PROBE_STATE__PROBE_STATE_UNSUPPORTED, "cgroup mode"},
	};
	static const uint64_t current[] = {100, 200, 150}, peak[] = {120, 210, 210};
	static const uint64_t oom[] = {0, 1, 2}, oom_kill[] = {0, 1, 1}, high[] = {1, 0, 0},
			      max[] = {0, 2, 0};
	static const double mem_some[] = {1.5, 4.0, 2.5}, mem_full[] = {0.5, 1.0, 0.25},
			    cpu_some[] = {10, 20, 30};
	static const uint64_t mem_some_d[] = {1000, 3000, 2000}, mem_full_d[] = {400, 800, 200};
	struct capture_writer_opts o = {.force = true};
	struct capture_writer *w = capture_writer__create(path, &o);

	assert_non_null(w);
	put_header(w, 1, PTOP__V1__TARGET_MODE__TARGET_MODE_CGROUP, NULL, NULL, "/test.slice/x",
		   probes, 2);
	for (int s = 0; s < 3; s++) {
		Ptop__V1__CgroupSample c = PTOP__V1__CGROUP_SAMPLE__INIT;
		Ptop__V1__CgroupMemV2 v2 = PTOP__V1__CGROUP_MEM_V2__INIT;
		Ptop__V1__StatEntry st[6], *stp[6];
		Ptop__V1__Psi ps[3], *psp[3];
		Ptop__V1__PsiLine l[5];
		Ptop__V1__ProcMem pm[8], *pmp[8];
		Ptop__V1__ProcCoverage cov = PTOP__V1__PROC_COVERAGE__INIT;
		static const char *const keys[] = {"anon",   "file", "shmem",
						   "kernel", "slab", "pgfault"};
		const uint64_t vals[] = {
		    (s == 2 ? 70 : 60) * MIB, 30 * MIB, 2 * MIB, 5 * MIB, 3 * MIB, 1000};
		size_t n = 0, npsi = 0;

		for (int k = 0; k < 6; k++) {
			ptop__v1__stat_entry__init(&st[k]);
			st[k].key = (char *)keys[k];
			st[k].value = vals[k];
			stp[k] = &st[k];
		}
		v2.current = current[s] * MIB;
		v2.max = 512 * MIB;
		v2.peak = peak[s] * MIB;
		v2.has_peak = true;
		v2.n_stat = 6;
		v2.stat = stp;
		v2.oom_delta = oom[s];
		v2.oom_kill_delta = oom_kill[s];
		v2.oom_kill_total = s == 0 ? 0 : s; /* 0, 1, 2 */
		v2.oom_total = s == 0 ? 0 : s == 1 ? 1 : 3;
		v2.high_delta = high[s];
		v2.max_delta = max[s];

		l[0] = psi_line(mem_some[s], 1.25, 0.5, 100000, mem_some_d[s]);
		l[1] = psi_line(mem_full[s], 0.75, 0.25, 50000, mem_full_d[s]);
		l[2] = psi_line(cpu_some[s], 5, 1, 900000, 5000);
		l[3] = psi_line(0.1 * s, 0, 0, 10, 7);
		l[4] = psi_line(0.05 * s, 0, 0, 5, 3);
		for (int k = 0; k < 3; k++) {
			ptop__v1__psi__init(&ps[k]);
			psp[k] = &ps[k];
		}
		ps[npsi].resource = "memory";
		ps[npsi].some = &l[0];
		ps[npsi++].full = &l[1];
		ps[npsi].resource = "cpu"; /* no "full" line */
		ps[npsi++].some = &l[2];
		if (s > 0) { /* io.pressure readable from the second interval */
			ps[npsi].resource = "io";
			ps[npsi].some = &l[3];
			ps[npsi++].full = &l[4];
		}

		if (s == 0) {
			pm[n++] = proc(101, "firefox", FF, APP_FF, ST_COVERED, 50, 40, 30, 1);
			pm[n++] = proc(102, "Web Content", FF, APP_FF, ST_COVERED, 25, 20, 15, 0);
			pm[n++] = proc(200, "bash", "/usr/bin/bash", "session-2.scope", ST_COVERED,
				       8, 5, 3, 0);
			pm[n++] = proc(300, "helper", "", "", ST_DENIED, 0, 0, 0, 0);
		} else if (s == 1) {
			pm[n++] = proc(101, "firefox", FF, APP_FF, ST_SKIPPED, 0, 0, 0, 0);
			pm[n++] = proc(102, "Web Content", FF, APP_FF, ST_COVERED, 30, 25, 20, 0);
			pm[n++] = proc(200, "bash", "/usr/bin/bash", "session-2.scope", ST_COVERED,
				       8, 6, 4, 0);
			pm[n++] = proc(300, "helper", "", "", ST_DENIED, 0, 0, 0, 0);
			pm[n++] = proc(400, "sleep", "/usr/bin/sleep", "", ST_COVERED, 2, 1, 1, 0);
		} else {
			pm[n++] = proc(101, "firefox", FF, APP_FF, ST_COVERED, 60, 45, 35, 1);
			pm[n++] = proc(102, "Web Content", FF, APP_FF, ST_SKIPPED, 0, 0, 0, 0);
			pm[n++] = proc(200, "bash", "/usr/bin/bash", "session-2.scope", ST_COVERED,
				       8, 6, 4, 0);
			pm[n++] = proc(201, "bash", "/usr/bin/bash", "", ST_COVERED, 7, 3, 2, 0);
			pm[n++] = proc(300, "helper", "", "", ST_DENIED, 0, 0, 0, 0);
			pm[n++] = proc(400, "sleep", "/usr/bin/sleep", "", ST_GONE, 0, 0, 0, 0);
			pm[n++] = proc(600, "python3", "", "", ST_COVERED, 20, 2, 1, 0);
		}
		for (size_t k = 0; k < n; k++)
			pmp[k] = &pm[k];
		cov.processes = (uint32_t)n;
		for (size_t k = 0; k < n; k++) {
			cov.covered += pm[k].state == ST_COVERED;
			cov.denied += pm[k].state == ST_DENIED;
			cov.gone += pm[k].state == ST_GONE;
			cov.skipped += pm[k].state == ST_SKIPPED;
		}
		cov.walk_ns = (uint64_t)(s == 0 ? 2 : s == 1 ? 3 : 5) * 1000000;
		cov.budget_ns = 150000000;

		c.path = "/test.slice/x";
		c.v2 = &v2;
		c.n_psi = npsi;
		c.psi = psp;
		c.n_procs = n;
		c.procs = pmp;
		c.coverage = &cov;
		put_cgroup(w, T0 + (uint64_t)(s + 1) * SEC, &c);
	}
	capw__trailer(w, T0 + 4 * SEC);
	assert_int_equal(capture_writer__close(w), 0);
}

/* The v1 capture: two samples with the v1 memory controller, then one where no memory
 * controller was readable. */
/* A v1-lane capture of cgroup /v1.scope whose memory figures come from the v1
 * memory cgroup V1_PATH. */
static void write_v1(const char *path, const char *v1_path)
{
	static const struct probe_def probes[] = {
	    {"cgroup", PTOP__V1__PROBE_STATE__PROBE_STATE_ACTIVE, NULL},
	};
	struct capture_writer_opts o = {.force = true};
	struct capture_writer *w = capture_writer__create(path, &o);

	assert_non_null(w);
	put_header(w, 2, PTOP__V1__TARGET_MODE__TARGET_MODE_CGROUP, NULL, NULL, "/v1.scope", probes,
		   1);
	for (int s = 0; s < 3; s++) {
		Ptop__V1__CgroupSample c = PTOP__V1__CGROUP_SAMPLE__INIT;
		Ptop__V1__CgroupMemV1 v1 = PTOP__V1__CGROUP_MEM_V1__INIT;
		Ptop__V1__StatEntry st[5], *stp[5];
		Ptop__V1__ProcMem pm =
		    proc(777, "nginx", "/usr/sbin/nginx", "", ST_COVERED, 9, 8, 7, 0);
		Ptop__V1__ProcMem *pmp = &pm;
		static const char *const keys[] = {"rss", "cache", "total_rss", "total_cache",
						   "total_shmem"};
		static const uint64_t vals[] = {10 * MIB, 20 * MIB, 40 * MIB, 15 * MIB, MIB};

		for (int k = 0; k < 5; k++) {
			ptop__v1__stat_entry__init(&st[k]);
			st[k].key = (char *)keys[k];
			st[k].value = vals[k];
			stp[k] = &st[k];
		}
		v1.usage = (s == 0 ? 50 : 60) * MIB;
		v1.limit_unlimited = true;
		v1.max_usage = 70 * MIB;
		v1.failcnt_delta = s == 0 ? 3 : 4;
		v1.failcnt_total = s == 0 ? 3 : 7;
		v1.n_stat = 5;
		v1.stat = stp;
		v1.under_oom = s == 1;
		v1.oom_kill_delta = s == 1 ? 1 : 0;
		v1.oom_kill_total = s == 0 ? 0 : 1;
		c.path = "/v1.scope";
		c.v1_path = (char *)v1_path;
		c.v1 = s < 2 ? &v1 : NULL; /* the third: no memory controller readable */
		c.n_procs = 1;
		c.procs = &pmp;
		put_cgroup(w, T0 + (uint64_t)(s + 1) * SEC, &c);
	}
	capw__trailer(w, T0 + 4 * SEC);
	assert_int_equal(capture_writer__close(w), 0);
}

static sqlite3 *load(const char *ptop, const char *dbname, char id[DB_CAPTURE_ID_LEN])
{
	sqlite3 *db = NULL;
	int rc;

	assert_int_equal(db__open(tpath(dbname), true, false, &db, errbuf, sizeof(errbuf)), 0);
	rc = db__load_capture(db, ptop, false, id, NULL, errbuf, sizeof(errbuf));
	if (rc)
		fail_msg("load %s: %d %s", ptop, rc, errbuf);
	return db;
}

/* Run report FN with FMT, TOP and BY; the output (malloc'd). */
static char *run_report(int (*fn)(sqlite3 *, const char *, const struct report_opts *, FILE *),
			sqlite3 *db, const char *id, enum out_format fmt, size_t top,
			enum apps_by by)
{
	struct apps_opts ao = {.by = by};
	struct report_opts o = {.fmt = fmt, .top = top, .own = &ao};
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(fn(db, id, &o, f), 0);
	fclose(f);
	return buf;
}

/* The same with a window. */
static char *run_window(int (*fn)(sqlite3 *, const char *, const struct report_opts *, FILE *),
			sqlite3 *db, const char *id, const char *window)
{
	struct report_opts o = {.fmt = OUT_JSON};
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	assert_int_equal(window__parse(window, &o.win, errbuf, sizeof(errbuf)), 0);
	f = open_memstream(&buf, &len);
	assert_non_null(f);
	assert_int_equal(fn(db, id, &o, f), 0);
	fclose(f);
	return buf;
}

static void assert_contains(const char *hay, const char *needle)
{
	if (!strstr(hay, needle))
		fail_msg("expected to find \"%s\" in:\n%s", needle, hay);
}

/* ------------------------------------------------------------------ tests */

static void test_01_load_v2(void **state)
{
	char id[DB_CAPTURE_ID_LEN];
	sqlite3 *db;

	(void)state;
	write_v2(tpath("v2.ptop"));
	db = load(tpath("v2.ptop"), "v2.db", id);
	assert_string_equal(q1(db, NULL, "SELECT count(*) FROM cgroup_sample"), "3");
	assert_string_equal(q1(db, NULL,
			       "SELECT group_concat(seq) FROM (SELECT seq FROM "
			       "cgroup_sample ORDER BY time_ns)"),
			    "0,1,2");
	assert_string_equal(
	    ROW(db,
		"path || '|' || lane || '|' || quote(v1_path) || '|' || current || '|' || "
		"limit_bytes || '|' || peak || '|' || oom_delta || '|' || oom_kill_delta || '|' || "
		"oom_kill_total || '|' || high_delta || '|' || max_delta || '|' || "
		"quote(failcnt_delta) || '|' || quote(under_oom)",
		"cgroup_sample", "seq = 1"),
	    "/test.slice/x|v2|NULL|209715200|536870912|220200960|1|1|1|0|2|NULL|NULL");
	assert_string_equal(ROW(db,
				"processes || '|' || covered || '|' || denied || '|' || gone || "
				"'|' || skipped || '|' || walk_ns || '|' || budget_ns",
				"cgroup_sample", "seq = 2"),
			    "7|4|1|1|1|5000000|150000000");
	assert_string_equal(q1(db, NULL,
			       "SELECT value FROM cgroup_stat WHERE seq = 2 AND "
			       "key = 'anon'"),
			    mib(70));
	assert_string_equal(q1(db, NULL, "SELECT count(*) FROM cgroup_stat"), "18");
	/* one row per line present: cpu has no full line, io only from seq 1 */
	assert_string_equal(q1(db, NULL, "SELECT count(*) FROM cgroup_psi"), "13");
	assert_string_equal(q1(db, NULL,
			       "SELECT count(*) FROM cgroup_psi WHERE resource = 'cpu' "
			       "AND kind = 'full'"),
			    "0");
	assert_string_equal(ROW(db,
				"avg10 || '|' || avg60 || '|' || avg300 || '|' || total_us || '|' "
				"|| total_delta_us",
				"cgroup_psi", "seq = 1 AND resource = 'memory' AND kind = 'some'"),
			    "4.0|1.25|0.5|100000|3000");
	/* covered: the values; not covered: NULL, never 0 */
	assert_string_equal(ROW(db,
				"comm || '|' || exe || '|' || unit || '|' || state || '|' || rss "
				"|| '|' || pss || '|' || uss || '|' || swap || '|' || read_ns",
				"cgroup_proc", "seq = 2 AND pid = 101"),
			    "firefox|" FF "|" APP_FF "|covered|62914560|47185920|36700160|1048576|"
			    "100000");
	assert_string_equal(ROW(db,
				"quote(exe) || '|' || quote(unit) || '|' || state || '|' || "
				"quote(rss) || '|' || quote(pss) || '|' || quote(uss) || '|' || "
				"quote(swap) || '|' || quote(read_ns)",
				"cgroup_proc", "seq = 0 AND pid = 300"),
			    "NULL|NULL|denied|NULL|NULL|NULL|NULL|NULL");
	assert_string_equal(
	    ROW(db, "state || '|' || quote(pss)", "cgroup_proc", "seq = 1 AND pid = 101"),
	    "skipped|NULL");
	assert_string_equal(ROW(db, "state", "cgroup_proc", "seq = 2 AND pid = 400"), "gone");
	assert_string_equal(q1(db, NULL,
			       "SELECT count FROM record_count WHERE kind = "
			       "'event:cgroup'"),
			    "3");
	sqlite3_close(db);
}

static void test_02_load_v1(void **state)
{
	char id[DB_CAPTURE_ID_LEN];
	sqlite3 *db;

	(void)state;
	write_v1(tpath("v1.ptop"), "/v1.scope");
	db = load(tpath("v1.ptop"), "v1.db", id);
	assert_string_equal(
	    ROW(db,
		"lane || '|' || v1_path || '|' || current || '|' || quote(limit_bytes) || '|' || "
		"peak || '|' || quote(oom_delta) || '|' || oom_kill_delta || '|' || oom_kill_total "
		"|| '|' || quote(high_delta) || '|' || quote(max_delta) || '|' || failcnt_delta || "
		"'|' || under_oom || '|' || quote(processes)",
		"cgroup_sample", "seq = 1"),
	    "v1|/v1.scope|62914560|NULL|73400320|NULL|1|1|NULL|NULL|4|1|NULL");
	/* no memory controller read: lane and every memory column NULL */
	assert_string_equal(
	    ROW(db,
		"quote(lane) || quote(current) || quote(limit_bytes) || quote(peak) "
		"|| quote(oom_kill_delta) || quote(failcnt_delta) || "
		"quote(under_oom)",
		"cgroup_sample", "seq = 2"),
	    "NULLNULLNULLNULLNULLNULLNULL");
	assert_string_equal(q1(db, NULL, "SELECT count(*) FROM cgroup_stat WHERE seq = 2"), "0");
	assert_string_equal(q1(db, NULL, "SELECT count(*) FROM cgroup_stat"), "10");
	assert_string_equal(q1(db, NULL, "SELECT count(*) FROM cgroup_psi"), "0");
	sqlite3_close(db);
}

static void test_03_report_cgroup_v2(void **state)
{
	char id[DB_CAPTURE_ID_LEN], *j, *t;
	sqlite3 *db;

	(void)state;
	write_v2(tpath("v2.ptop"));
	db = load(tpath("v2.ptop"), "v2.db", id);
	j = run_report(report_cgroup, db, id, OUT_JSON, 0, APPS_BY_DEFAULT);
	assert_string_equal(jx(db, j, "$.report"), "cgroup");
	assert_string_equal(jx(db, j, "$.collected"), "1");
	assert_string_equal(jx(db, j, "$.path"), "/test.slice/x");
	assert_string_equal(jx(db, j, "$.lane"), "v2");
	assert_string_equal(jx(db, j, "$.samples"), "3");
	assert_string_equal(jx(db, j, "$.memory.current.first"), mib(100));
	assert_string_equal(jx(db, j, "$.memory.current.max"), mib(200));
	assert_string_equal(jx(db, j, "$.memory.current.last"), mib(150));
	assert_string_equal(jx(db, j, "$.memory.limit.last"), mib(512));
	assert_string_equal(jx(db, j, "$.memory.limit.unlimited"), "0");
	assert_string_equal(jx(db, j, "$.memory.peak.first"), mib(120));
	assert_string_equal(jx(db, j, "$.memory.peak.max"), mib(210));
	/* memory.stat at the last sample */
	assert_string_equal(jx(db, j, "$.stat.t_s"), "3");
	assert_string_equal(jx(db, j, "$.stat.breakdown.anon.bytes"), mib(70));
	assert_string_equal(jx(db, j, "$.stat.breakdown.anon.key"), "anon");
	assert_string_equal(jx(db, j, "$.stat.breakdown.kernel.bytes"), mib(5));
	assert_string_equal(jx(db, j, "$.stat.breakdown.slab.bytes"), mib(3));
	assert_string_equal(jx(db, j, "$.stat.breakdown.swap"), "<NULL>"); /* not a v2 key */
	assert_string_equal(jx(db, j, "$.stat.keys.pgfault"), "1000");
	/* OOM: the deltas summed */
	assert_string_equal(jx(db, j, "$.oom.oom"), "3");
	assert_string_equal(jx(db, j, "$.oom.oom_kill"), "2");
	assert_string_equal(jx(db, j, "$.oom.oom_kill_total"), "2");
	assert_string_equal(jx(db, j, "$.oom.high"), "1");
	assert_string_equal(jx(db, j, "$.oom.max"), "2");
	assert_string_equal(jx(db, j, "$.oom.failcnt"), "<NULL>");
	assert_string_equal(jx(db, j, "$.oom.under_oom_last"), "<NULL>");
	/* PSI: memory some, memory full, cpu some, io some, io full */
	assert_string_equal(q1(db, j, "SELECT json_array_length(?1, '$.psi')"), "5");
	assert_string_equal(jx(db, j, "$.psi[0].resource"), "memory");
	assert_string_equal(jx(db, j, "$.psi[0].kind"), "some");
	assert_string_equal(jx(db, j, "$.psi[0].avg10_max"), "4");
	assert_string_equal(jx(db, j, "$.psi[0].avg10_last"), "2.5");
	assert_string_equal(jx(db, j, "$.psi[0].avg60_last"), "1.25");
	assert_string_equal(jx(db, j, "$.psi[0].stall_us"), "6000");
	assert_string_equal(jx(db, j, "$.psi[1].kind"), "full");
	assert_string_equal(jx(db, j, "$.psi[1].stall_us"), "1400");
	assert_string_equal(jx(db, j, "$.psi[2].resource"), "cpu");
	assert_string_equal(jx(db, j, "$.psi[2].avg10_max"), "30");
	assert_string_equal(jx(db, j, "$.psi[2].stall_us"), "15000");
	assert_string_equal(jx(db, j, "$.psi[3].resource"), "io");
	assert_string_equal(jx(db, j, "$.psi[3].samples"), "2");
	assert_string_equal(jx(db, j, "$.series[0].cpu_full_avg10"), "<NULL>");
	assert_string_equal(jx(db, j, "$.series[0].io_some_avg10"), "<NULL>");
	assert_string_equal(jx(db, j, "$.series[1].memory_some_avg10"), "4");
	/* processes by PSS, each with its last covered read */
	assert_string_equal(jx(db, j, "$.processes_seen"), "7");
	assert_string_equal(q1(db, j,
			       "SELECT group_concat(json_extract(value, '$.pid')) FROM "
			       "json_each(?1, '$.processes')"),
			    "101,102,200,201,600,400,300");
	assert_string_equal(jx(db, j, "$.processes[0].pss"), mib(45));
	assert_string_equal(jx(db, j, "$.processes[0].unit"), APP_FF);
	assert_string_equal(jx(db, j, "$.processes[1].pss"), mib(25)); /* skipped at the end */
	assert_string_equal(jx(db, j, "$.processes[1].state"), "skipped");
	assert_string_equal(jx(db, j, "$.processes[1].value_s"), "2");
	assert_string_equal(jx(db, j, "$.processes[5].state"), "gone");
	assert_string_equal(jx(db, j, "$.processes[6].pss"), "<NULL>");
	assert_string_equal(jx(db, j, "$.processes[6].state"), "denied");
	/* coverage: summed over the intervals */
	assert_string_equal(jx(db, j, "$.coverage.intervals"), "3");
	assert_string_equal(jx(db, j, "$.coverage.processes"), "16");
	assert_string_equal(jx(db, j, "$.coverage.covered"), "10");
	assert_string_equal(jx(db, j, "$.coverage.denied"), "3");
	assert_string_equal(jx(db, j, "$.coverage.gone"), "1");
	assert_string_equal(jx(db, j, "$.coverage.skipped"), "2");
	assert_string_equal(jx(db, j, "$.coverage.walk_ns"), "10000000");
	assert_string_equal(jx(db, j, "$.coverage.walk_max_ns"), "5000000");
	assert_string_equal(jx(db, j, "$.coverage.budget_ns"), "150000000");
	free(j);

	j = run_report(report_cgroup, db, id, OUT_JSON, 2, APPS_BY_DEFAULT);
	assert_string_equal(q1(db, j, "SELECT json_array_length(?1, '$.processes')"), "2");
	assert_string_equal(jx(db, j, "$.processes_seen"), "7");
	free(j);

	t = run_report(report_cgroup, db, id, OUT_TEXT, 0, APPS_BY_DEFAULT);
	assert_contains(t, "cgroup /test.slice/x (whole capture): memory lane v2, 3 samples");
	assert_contains(t, "processes by PSS (7 seen");
	assert_contains(t, "coverage: 16 process reads due over 3 intervals: 10 covered, 3 denied, "
			   "1 gone, 2 skipped");
	assert_contains(t, "OOM (memory.events, over the capture): oom 3, oom_kill 2, max 2, "
			   "high 1");
	free(t);

	t = run_report(report_cgroup, db, id, OUT_CSV, 0, APPS_BY_DEFAULT);
	assert_contains(t,
			"pid,comm,unit,rss,pss,uss,swap,state,last_seen_s,exe\n101,firefox," APP_FF
			",62914560,47185920,36700160,1048576,covered,3,");
	free(t);
	sqlite3_close(db);
}

static void test_04_report_cgroup_v1(void **state)
{
	char id[DB_CAPTURE_ID_LEN], *j, *t;
	sqlite3 *db;

	(void)state;
	write_v1(tpath("v1.ptop"), "/v1.scope");
	db = load(tpath("v1.ptop"), "v1.db", id);
	j = run_report(report_cgroup, db, id, OUT_JSON, 0, APPS_BY_DEFAULT);
	assert_string_equal(jx(db, j, "$.lane"), "v1");
	assert_string_equal(jx(db, j, "$.v1_path"), "/v1.scope");
	assert_string_equal(jx(db, j, "$.samples"), "3");
	/* the sample without a memory controller counts in none of the figures */
	assert_string_equal(jx(db, j, "$.memory.current.samples"), "2");
	assert_string_equal(jx(db, j, "$.memory.current.last"), mib(60));
	assert_string_equal(jx(db, j, "$.memory.limit.first"), "<NULL>");
	assert_string_equal(jx(db, j, "$.memory.limit.unlimited"), "1");
	assert_string_equal(jx(db, j, "$.memory.peak.last"), mib(70));
	/* the hierarchical total_* key wins on v1 */
	assert_string_equal(jx(db, j, "$.stat.t_s"), "2");
	assert_string_equal(jx(db, j, "$.stat.breakdown.anon.bytes"), mib(40));
	assert_string_equal(jx(db, j, "$.stat.breakdown.anon.key"), "total_rss");
	assert_string_equal(jx(db, j, "$.stat.breakdown.file.bytes"), mib(15));
	assert_string_equal(jx(db, j, "$.stat.breakdown.shmem.key"), "total_shmem");
	assert_string_equal(jx(db, j, "$.stat.breakdown.kernel"), "<NULL>");
	assert_string_equal(jx(db, j, "$.oom.oom"), "<NULL>");
	assert_string_equal(jx(db, j, "$.oom.oom_kill"), "1");
	assert_string_equal(jx(db, j, "$.oom.failcnt"), "7");
	assert_string_equal(jx(db, j, "$.oom.under_oom_samples"), "1");
	/* the last sample that read it (the third read no memory controller) */
	assert_string_equal(jx(db, j, "$.oom.under_oom_last"), "1");
	assert_string_equal(q1(db, j, "SELECT json_array_length(?1, '$.psi')"), "0");
	assert_string_equal(jx(db, j, "$.processes[0].pid"), "777");
	assert_string_equal(jx(db, j, "$.processes[0].pss"), mib(8));
	assert_string_equal(jx(db, j, "$.coverage.intervals"), "0"); /* not recorded */
	free(j);
	/* text: the v1 cgroup named; one wider than the recorded cgroup said so */
	t = run_report(report_cgroup, db, id, OUT_TEXT, 0, APPS_BY_DEFAULT);
	assert_contains(t, "\nv1 memory cgroup: /v1.scope\n");
	assert_null(strstr(t, "cover every process"));
	/* no limit: "none", and the figures stay right-aligned */
	assert_contains(t, "memory      first       max      last  samples\n"
			   "current  50.0 MiB  60.0 MiB  60.0 MiB        2\n"
			   "limit        none      none      none        2\n");
	free(t);
	sqlite3_close(db);
	write_v1(tpath("v1wide.ptop"), "/system.slice");
	db = load(tpath("v1wide.ptop"), "v1wide.db", id);
	t = run_report(report_cgroup, db, id, OUT_TEXT, 0, APPS_BY_DEFAULT);
	assert_contains(t, "\nv1 memory cgroup: /system.slice, not /v1.scope: the memory figures "
			   "below cover every process in it\n");
	free(t);
	sqlite3_close(db);
}

static void test_05_apps(void **state)
{
	char id[DB_CAPTURE_ID_LEN], *j, *t;
	sqlite3 *db;

	(void)state;
	write_v2(tpath("v2.ptop"));
	db = load(tpath("v2.ptop"), "v2.db", id);
	j = run_report(report_apps, db, id, OUT_JSON, 0, APPS_BY_DEFAULT);
	assert_string_equal(jx(db, j, "$.source"), "cgroup_proc");
	assert_string_equal(jx(db, j, "$.by"), "pss");
	assert_string_equal(jx(db, j, "$.t_s"), "3");
	/* in the last sample, sleep (400) is gone: not an application any more */
	assert_string_equal(jx(db, j, "$.applications"), "4");
	assert_string_equal(q1(db, j,
			       "SELECT group_concat(json_extract(value, '$.app') || ':' || "
			       "json_extract(value, '$.kind'), ',') FROM json_each(?1, "
			       "'$.apps')"),
			    APP_FF ":unit,/usr/bin/bash:exe,python3:comm,helper:comm");
	/* the scope beats the executable; 102 brings its last covered read (skipped now) */
	assert_string_equal(jx(db, j, "$.apps[0].processes"), "2");
	assert_string_equal(jx(db, j, "$.apps[0].pss"), mib(70));
	assert_string_equal(jx(db, j, "$.apps[0].rss"), mib(90));
	assert_string_equal(jx(db, j, "$.apps[0].uss"), mib(55));
	assert_string_equal(jx(db, j, "$.apps[0].swap"), mib(1));
	/* a non-app unit (session-2.scope) does not group: both bash processes by exe */
	assert_string_equal(jx(db, j, "$.apps[1].processes"), "2");
	assert_string_equal(jx(db, j, "$.apps[1].pss"), mib(9));
	assert_string_equal(jx(db, j, "$.apps[3].covered"), "0");
	assert_string_equal(jx(db, j, "$.apps[3].pss"), "<NULL>");
	assert_string_equal(jx(db, j, "$.total.processes"), "6");
	assert_string_equal(jx(db, j, "$.total.covered"), "5");
	assert_string_equal(jx(db, j, "$.total.pss"), mib(81));
	free(j);

	/* --by rss reorders: python3 has 20 MiB RSS, bash 15 */
	j = run_report(report_apps, db, id, OUT_JSON, 0, APPS_BY_RSS);
	assert_string_equal(jx(db, j, "$.by"), "rss");
	assert_string_equal(q1(db, j,
			       "SELECT group_concat(json_extract(value, '$.app'), ',') "
			       "FROM json_each(?1, '$.apps')"),
			    APP_FF ",python3,/usr/bin/bash,helper");
	free(j);

	/* --top 2: the rest fold into others (2) */
	j = run_report(report_apps, db, id, OUT_JSON, 2, APPS_BY_USS);
	assert_string_equal(q1(db, j,
			       "SELECT group_concat(json_extract(value, '$.app'), ',') "
			       "FROM json_each(?1, '$.apps')"),
			    APP_FF ",/usr/bin/bash,others (2)");
	assert_string_equal(jx(db, j, "$.apps[2].kind"), "others");
	assert_string_equal(jx(db, j, "$.apps[2].folded"), "2");
	assert_string_equal(jx(db, j, "$.apps[2].processes"), "2");
	assert_string_equal(jx(db, j, "$.apps[2].covered"), "1");
	assert_string_equal(jx(db, j, "$.apps[2].pss"), mib(2));
	assert_string_equal(jx(db, j, "$.apps[2].rss"), mib(20));
	free(j);

	t = run_report(report_apps, db, id, OUT_CSV, 1, APPS_BY_DEFAULT);
	assert_string_equal(t, "app,by,processes,covered,rss,pss,uss,swap\n" APP_FF
			       ",unit,2,2,94371840,73400320,57671680,1048576\n"
			       "others (3),others,4,3,36700160,11534336,7340032,0\n");
	free(t);
	t = run_report(report_apps, db, id, OUT_TEXT, 0, APPS_BY_DEFAULT);
	assert_contains(t, "apps by pss (whole capture): 4 applications, 6 processes at 3.000 s");
	free(t);
	sqlite3_close(db);
}

static void test_06_not_collected(void **state)
{
	static const struct probe_def probes[] = {
	    {"memory", PTOP__V1__PROBE_STATE__PROBE_STATE_DISABLED, "--disable memory"},
	};
	struct capture_writer_opts o = {.force = true};
	struct capture_writer *w = capture_writer__create(tpath("pid.ptop"), &o);
	char id[DB_CAPTURE_ID_LEN], *j, *t;
	sqlite3 *db;

	(void)state;
	assert_non_null(w);
	put_header(w, 3, PTOP__V1__TARGET_MODE__TARGET_MODE_PID, "server", "/usr/bin/server",
		   "0::/user.slice", probes, 1);
	capw__trailer(w, T0 + 2 * SEC);
	assert_int_equal(capture_writer__close(w), 0);
	db = load(tpath("pid.ptop"), "pid.db", id);
	j = run_report(report_cgroup, db, id, OUT_JSON, 0, APPS_BY_DEFAULT);
	assert_string_equal(jx(db, j, "$.collected"), "0");
	assert_string_equal(jx(db, j, "$.state"), "absent");
	assert_string_equal(jx(db, j, "$.processes"), "<NULL>");
	free(j);
	t = run_report(report_cgroup, db, id, OUT_TEXT, 0, APPS_BY_DEFAULT);
	assert_contains(t, "cgroup: not collected (absent: ");
	free(t);
	t = run_report(report_apps, db, id, OUT_TEXT, 0, APPS_BY_DEFAULT);
	assert_contains(t, "apps: not collected (absent: needs the cgroup probe (--cgroup), or the "
			   "memory probe for one process;");
	assert_contains(t, "memory: disabled: --disable memory");
	free(t);
	sqlite3_close(db);
}

/* A single-process capture: report apps shows its one process from memory_sample. */
static void test_07_apps_single_process(void **state)
{
	static const struct probe_def probes[] = {
	    {"memory", PTOP__V1__PROBE_STATE__PROBE_STATE_ACTIVE, NULL},
	};
	struct capture_writer_opts o = {.force = true};
	struct capture_writer *w = capture_writer__create(tpath("one.ptop"), &o);
	char id[DB_CAPTURE_ID_LEN], *j;
	sqlite3 *db;

	(void)state;
	assert_non_null(w);
	put_header(w, 4, PTOP__V1__TARGET_MODE__TARGET_MODE_PID, "server", "/usr/bin/server",
		   "0::/user.slice/user@1000.service/app.slice/app-server-7.scope", probes, 1);
	for (int s = 1; s <= 2; s++) {
		Ptop__V1__Record r = PTOP__V1__RECORD__INIT;
		Ptop__V1__Event ev = PTOP__V1__EVENT__INIT;
		Ptop__V1__MemorySample m = PTOP__V1__MEMORY_SAMPLE__INIT;
		Ptop__V1__SmapsRollup ro = PTOP__V1__SMAPS_ROLLUP__INIT;

		ro.rss = (uint64_t)(10 * s) * MIB;
		ro.pss = (uint64_t)(8 * s) * MIB;
		ro.uss = (uint64_t)(6 * s) * MIB;
		m.rollup = &ro;
		ev.time_ns = T0 + (uint64_t)s * SEC;
		ev.pid = 4321;
		ev.interval_ns = SEC;
		ev.category = PTOP__V1__CATEGORY__CATEGORY_MEMORY;
		ev.payload_case = PTOP__V1__EVENT__PAYLOAD_MEMORY;
		ev.memory = &m;
		r.kind_case = PTOP__V1__RECORD__KIND_EVENT;
		r.event = &ev;
		capw__append(w, &r);
	}
	capw__trailer(w, T0 + 3 * SEC);
	assert_int_equal(capture_writer__close(w), 0);
	db = load(tpath("one.ptop"), "one.db", id);
	j = run_report(report_apps, db, id, OUT_JSON, 0, APPS_BY_DEFAULT);
	assert_string_equal(jx(db, j, "$.collected"), "1");
	assert_string_equal(jx(db, j, "$.source"), "memory_sample");
	assert_string_equal(jx(db, j, "$.t_s"), "2");
	assert_string_equal(jx(db, j, "$.apps[0].app"), "app-server-7.scope");
	assert_string_equal(jx(db, j, "$.apps[0].kind"), "unit");
	assert_string_equal(jx(db, j, "$.apps[0].pss"), mib(16));
	assert_string_equal(jx(db, j, "$.apps[0].rss"), mib(20));
	assert_string_equal(jx(db, j, "$.apps[0].processes"), "1");
	free(j);
	sqlite3_close(db);
}

/* --window: only the samples in it (point samples, by time), their processes and pressure. */
static void test_08_window(void **state)
{
	char id[DB_CAPTURE_ID_LEN], *j;
	sqlite3 *db;

	(void)state;
	write_v2(tpath("v2.ptop"));
	db = load(tpath("v2.ptop"), "v2.db", id);
	j = run_window(report_cgroup, db, id, "1.5..2.5"); /* the sample at 2 s */
	assert_string_equal(jx(db, j, "$.samples"), "1");
	assert_string_equal(jx(db, j, "$.memory.current.first"), mib(200));
	assert_string_equal(jx(db, j, "$.memory.current.last"), mib(200));
	assert_string_equal(jx(db, j, "$.oom.oom"), "1");
	assert_string_equal(jx(db, j, "$.psi[0].stall_us"), "3000");
	assert_string_equal(jx(db, j, "$.stat.breakdown.anon.bytes"), mib(60));
	/* 101 was skipped in the window's only sample: no read of it in the window */
	assert_string_equal(q1(db, j,
			       "SELECT group_concat(json_extract(value, '$.pid')) FROM "
			       "json_each(?1, '$.processes')"),
			    "102,200,400,101,300");
	assert_string_equal(jx(db, j, "$.processes[3].pss"), "<NULL>");
	assert_string_equal(jx(db, j, "$.coverage.processes"), "5");
	free(j);

	j = run_window(report_apps, db, id, "..2.5");
	assert_string_equal(jx(db, j, "$.t_s"), "2");
	assert_string_equal(q1(db, j,
			       "SELECT group_concat(json_extract(value, '$.app') || '=' || "
			       "json_extract(value, '$.pss'), ',') FROM json_each(?1, "
			       "'$.apps')"),
			    APP_FF "=68157440,/usr/bin/bash=6291456,/usr/bin/sleep=1048576");
	free(j);
	sqlite3_close(db);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_01_load_v2, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_02_load_v1, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_03_report_cgroup_v2, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_04_report_cgroup_v1, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_05_apps, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_06_not_collected, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_07_apps_single_process, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_08_window, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
