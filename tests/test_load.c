/* test_load.c — the analyzer's DB layer: captures written with the codec are
 * loaded and every table is checked value by value; duplicates, several
 * captures, truncated and corrupt files, schema versions, and the cache DB.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <ftw.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "analyze/analyze.h"
#include "analyze/cache.h"
#include "analyze/db.h"
#include "analyze/load.h"
#include "analyze/part.h"
#include "proto/capture.h"
#include "tests/tmpdir.h"
#include "tests/sqlq.h"
#include "tests/capwrite.h"

#define T0 1000000000000ull /* monotonic ns at the start of the fake recording */
#define SEC 1000000000ull
#define PID 4321

static char errbuf[1024];

/* ------------------------------------------------------------ file system */

static int setup(void **state)
{
	(void)state;
	return tmpdir__make("load");
}

/* ---------------------------------------------------------------- queries */

static sqlite3 *open_rw(const char *path)
{
	sqlite3 *db = NULL;

	assert_int_equal(db__open(path, true, false, &db, errbuf, sizeof(errbuf)), 0);
	assert_non_null(db);
	return db;
}

/* ------------------------------------------------------- capture fixtures */

static void fill_id(uint8_t id[16], uint8_t a, uint8_t b)
{
	for (int k = 0; k < 16; k++)
		id[k] = (uint8_t)(0x10 + k);
	id[0] = a;
	id[1] = b;
}

static void id_hex(const uint8_t id[16], char out[33])
{
	for (int k = 0; k < 16; k++)
		snprintf(out + 2 * k, 3, "%02x", id[k]);
}

static const char *header_machine = "x86_64"; /* Host.machine of put_header */

static void put_header(struct capture_writer *w, const uint8_t id[16])
{
	struct capb_header b;
	static uint8_t build_id[4] = { 0xde, 0xad, 0xbe, 0xef };
	static char *argv[] = { "ptop-record", "-o", "run \"1\".ptop", "--", "./server" };
	static char *disabled[] = { "vmas" };
	static char *cmdline[] = { "./server", "--port=80" };

	capb__header_init(&b);
	memcpy(b.id, id, 16);
	b.rec.version = "0.1.0";
	b.rec.commit = "abcdef123456";
	b.rec.build_date = "2026-11-29T09:00:00Z";
	b.host.hostname = "box1";
	b.host.kernel_release = "6.18.0";
	b.host.kernel_version = "#1 SMP";
	b.host.boot_id = "0b1d-boot";
	b.host.machine = (char *)header_machine;
	b.host.cpus = 8;
	b.host.page_size = 4096;
	b.host.clock_tick = 100;
	b.clk.monotonic_ns = T0;
	b.clk.realtime_ns = 1790000000000000000ull;
	b.clk.boottime_ns = T0 + 5;
	b.opt.n_argv = 5;
	b.opt.argv = argv;
	b.opt.interval_ns = SEC;
	b.opt.vma_interval_ns = 10 * SEC;
	b.opt.flush_interval_ns = SEC;
	b.opt.duration_ns = 0;
	b.opt.no_ebpf = false;
	b.opt.n_disabled = 1;
	b.opt.disabled = disabled;
	b.t.mode = PTOP__V1__TARGET_MODE__TARGET_MODE_COMMAND;
	b.t.pid = PID;
	b.t.comm = "server";
	b.t.exe = "/usr/bin/server";
	b.t.exe_build_id.data = build_id;
	b.t.exe_build_id.len = 4;
	b.t.n_cmdline = 2;
	b.t.cmdline = cmdline;
	b.t.cgroup_path = "0::/user.slice/run.scope";
	b.t.cgroup_id = 12345;
	b.t.container_id = "";
	capb__probe(&b, "cpu", PTOP__V1__PROBE_STATE__PROBE_STATE_ACTIVE,
		    PTOP__V1__PROBE_SOURCE__PROBE_SOURCE_EBPF, NULL, "tp_btf/sched_switch");
	capb__probe(&b, "syscalls", PTOP__V1__PROBE_STATE__PROBE_STATE_FAILED,
		    PTOP__V1__PROBE_SOURCE__PROBE_SOURCE_EBPF, "raw_tp attach: Permission denied",
		    NULL);
	capb__probe(&b, "vmas", PTOP__V1__PROBE_STATE__PROBE_STATE_DISABLED,
		    PTOP__V1__PROBE_SOURCE__PROBE_SOURCE_PROC, "--disable vmas", NULL);
	capb__put_header(w, &b);
}

static void put_event(struct capture_writer *w, Ptop__V1__Event *ev)
{
	Ptop__V1__Record r = PTOP__V1__RECORD__INIT;

	r.kind_case = PTOP__V1__RECORD__KIND_EVENT;
	r.event = ev;
	capw__append(w, &r);
}

static void put_cpu(struct capture_writer *w, uint64_t t, int32_t pid, bool ebpf, bool proc)
{
	Ptop__V1__Event ev = PTOP__V1__EVENT__INIT;
	Ptop__V1__CpuSample c = PTOP__V1__CPU_SAMPLE__INIT;
	Ptop__V1__CpuEbpf e = PTOP__V1__CPU_EBPF__INIT;
	Ptop__V1__CpuProc p = PTOP__V1__CPU_PROC__INIT;

	e.oncpu_ns = 250000000;
	e.switches = 1234;
	p.user_ns = 200000000;
	p.system_ns = 40000000;
	p.user_ticks_total = 1500;
	p.system_ticks_total = 300;
	p.threads = 4;
	p.voluntary_switches = 100;
	p.involuntary_switches = 0; /* a measured zero */
	c.ebpf = ebpf ? &e : NULL;
	c.proc = proc ? &p : NULL;
	ev.time_ns = t;
	ev.pid = pid;
	ev.category = PTOP__V1__CATEGORY__CATEGORY_CPU;
	ev.interval_ns = SEC;
	ev.payload_case = PTOP__V1__EVENT__PAYLOAD_CPU;
	ev.cpu = &c;
	put_event(w, &ev);
}

static void put_syscalls(struct capture_writer *w, uint64_t t)
{
	Ptop__V1__Event ev = PTOP__V1__EVENT__INIT;
	Ptop__V1__SyscallStats ss = PTOP__V1__SYSCALL_STATS__INIT;
	Ptop__V1__SyscallStat s[2] = { PTOP__V1__SYSCALL_STAT__INIT, PTOP__V1__SYSCALL_STAT__INIT };
	Ptop__V1__SyscallStat *sp[2] = { &s[0], &s[1] };
	static uint64_t hist[] = { 0, 0, 0, 0, 0, 0, 0, 120, 0, 49000, 880 };

	s[0].nr = 110;
	s[0].name = "getppid";
	s[0].count = 50000;
	s[0].completed = 50000;
	s[0].errors = 0;
	s[0].total_ns = 12345678;
	s[0].n_latency_log2_hist = sizeof(hist) / sizeof(hist[0]);
	s[0].latency_log2_hist = hist;
	s[1].nr = 999;
	s[1].name = "";
	s[1].count = 3;
	s[1].completed = 2;
	s[1].errors = 2;
	s[1].total_ns = 500;
	s[1].unmatched = 1;
	ss.n_stats = 2;
	ss.stats = sp;
	ev.time_ns = t;
	ev.pid = PID;
	ev.category = PTOP__V1__CATEGORY__CATEGORY_SYSCALLS;
	ev.interval_ns = SEC;
	ev.payload_case = PTOP__V1__EVENT__PAYLOAD_SYSCALLS;
	ev.syscalls = &ss;
	put_event(w, &ev);
}

/* A memory event; with ROLLUP, its SmapsRollup names the counters the kernel did
 * not print: N_MISSING by their /proc key (MISSING), N_FIELDS as fields (FIELDS). */
static void put_memory_fields(struct capture_writer *w, uint64_t t, bool rollup,
			      const char *const *missing, size_t n_missing,
			      const Ptop__V1__SmapsField *fields, size_t n_fields)
{
	Ptop__V1__Event ev = PTOP__V1__EVENT__INIT;
	Ptop__V1__MemorySample m = PTOP__V1__MEMORY_SAMPLE__INIT;
	Ptop__V1__Statm sm = PTOP__V1__STATM__INIT;
	Ptop__V1__SmapsRollup r = PTOP__V1__SMAPS_ROLLUP__INIT;
	Ptop__V1__Faults f = PTOP__V1__FAULTS__INIT;

	sm.vsize = 100 << 20;
	sm.rss = 10 << 20;
	sm.shared = 2 << 20;
	sm.text = 1 << 20;
	sm.data = 20 << 20;
	r.rss = 10 << 20;
	r.pss = 9 << 20;
	r.uss = 8 << 20;
	r.pss_anon = 7 << 20;
	r.pss_file = 1 << 20;
	r.pss_shmem = 0;
	r.shared_clean = 2 << 20;
	r.shared_dirty = 0;
	r.private_clean = 1 << 20;
	r.private_dirty = 7 << 20;
	r.anon = 7 << 20;
	r.swap = 0;
	r.swap_pss = 0;
	r.locked = 0;
	r.read_ns = 45000;
	f.minflt = 10;
	f.majflt = 0;
	f.minflt_total = 1000;
	f.majflt_total = 2;
	r.n_missing = n_missing;
	r.missing = (char **)missing;
	r.n_missing_fields = n_fields;
	r.missing_fields = (Ptop__V1__SmapsField *)fields;
	m.statm = &sm;
	m.rollup = rollup ? &r : NULL;
	m.faults = &f;
	ev.time_ns = t;
	ev.pid = PID;
	ev.category = PTOP__V1__CATEGORY__CATEGORY_MEMORY;
	ev.interval_ns = SEC;
	ev.payload_case = PTOP__V1__EVENT__PAYLOAD_MEMORY;
	ev.memory = &m;
	put_event(w, &ev);
}

/* A memory event whose SmapsRollup names the counters missing by /proc key only, as
 * recorders before SmapsRollup.missing_fields wrote them. */
static void put_memory_missing(struct capture_writer *w, uint64_t t, bool rollup,
			       const char *const *missing, size_t n_missing)
{
	put_memory_fields(w, t, rollup, missing, n_missing, NULL, 0);
}

static void put_memory(struct capture_writer *w, uint64_t t, bool rollup)
{
	put_memory_missing(w, t, rollup, NULL, 0);
}

static void put_vmas(struct capture_writer *w, uint64_t t)
{
	Ptop__V1__Event ev = PTOP__V1__EVENT__INIT;
	Ptop__V1__VmaSnapshot vs = PTOP__V1__VMA_SNAPSHOT__INIT;
	Ptop__V1__Vma v[2] = { PTOP__V1__VMA__INIT, PTOP__V1__VMA__INIT };
	Ptop__V1__Vma *vp[2] = { &v[0], &v[1] };

	v[0].start = 0x400000;
	v[0].end = 0x402000;
	v[0].perms = "r-xp";
	v[0].offset = 0x1000;
	v[0].dev = "fd:01";
	v[0].inode = 777;
	v[0].path = "/usr/bin/server";
	v[0].size = 8192;
	v[0].rss = 8192;
	v[0].pss = 4096;
	v[0].uss = 0;
	v[0].shared_clean = 8192;
	v[1].start = 0xffffffffff600000ull; /* [vsyscall]: above 2^63 */
	v[1].end = 0xffffffffff601000ull;
	v[1].perms = "rw-p";
	v[1].dev = "00:00";
	v[1].path = "";
	v[1].size = 4096;
	v[1].rss = 4096;
	v[1].pss = 4096;
	v[1].uss = 4096;
	v[1].anon = 4096;
	vs.n_vmas = 2;
	vs.vmas = vp;
	vs.walk_ns = 90000;
	vs.final = true;
	ev.time_ns = t;
	ev.pid = PID;
	ev.category = PTOP__V1__CATEGORY__CATEGORY_VMAS;
	ev.payload_case = PTOP__V1__EVENT__PAYLOAD_VMAS;
	ev.vmas = &vs;
	put_event(w, &ev);
}

static void put_context(struct capture_writer *w, uint64_t t)
{
	Ptop__V1__Event ev = PTOP__V1__EVENT__INIT;
	Ptop__V1__ProcContext c = PTOP__V1__PROC_CONTEXT__INIT;
	Ptop__V1__Namespace ns[2] = { PTOP__V1__NAMESPACE__INIT, PTOP__V1__NAMESPACE__INIT };
	Ptop__V1__Namespace *nsp[2] = { &ns[0], &ns[1] };
	static int32_t nspid[] = { PID, 7 };

	ns[0].type = "pid";
	ns[0].inode = 4026531836u;
	ns[1].type = "net";
	ns[1].inode = 4026531840u;
	c.ppid = 1;
	c.comm = "server";
	c.uid = 1000;
	c.euid = 0;
	c.gid = 1000;
	c.egid = 1000;
	c.n_namespaces = 2;
	c.namespaces = nsp;
	c.cgroup_path = "0::/user.slice/run.scope";
	c.cgroup_id = 12345;
	c.container_id = "";
	c.n_nspid = 2;
	c.nspid = nspid;
	ev.time_ns = t;
	ev.pid = PID;
	ev.category = PTOP__V1__CATEGORY__CATEGORY_CONTEXT;
	ev.payload_case = PTOP__V1__EVENT__PAYLOAD_CONTEXT;
	ev.context = &c;
	put_event(w, &ev);
}

static void put_stack(struct capture_writer *w, uint64_t id)
{
	Ptop__V1__Record r = PTOP__V1__RECORD__INIT;
	Ptop__V1__Stack st = PTOP__V1__STACK__INIT;
	static uint64_t ips[] = { 0x401000, 0x401234, 0x7f0000001000ull };

	st.id = id;
	st.n_ips = 3;
	st.ips = ips;
	r.kind_case = PTOP__V1__RECORD__KIND_STACK;
	r.stack = &st;
	capw__append(w, &r);
}

static void put_mapping(struct capture_writer *w)
{
	Ptop__V1__Record r = PTOP__V1__RECORD__INIT;
	Ptop__V1__Mapping m = PTOP__V1__MAPPING__INIT;
	static uint8_t bid[20] = { 0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef, 0, 1,
				   2,	 3,    4,    5,	   6,	 7,    8,    9,	   10, 0xff };

	m.time_ns = 0; /* unknown */
	m.pid = PID;
	m.start = 0x400000;
	m.end = 0x402000;
	m.offset = 0;
	m.path = "/usr/bin/server";
	m.build_id.data = bid;
	m.build_id.len = 20;
	r.kind_case = PTOP__V1__RECORD__KIND_MAPPING;
	r.mapping = &m;
	capw__append(w, &r);
}

static void put_drop(struct capture_writer *w, uint64_t t)
{
	Ptop__V1__Record r = PTOP__V1__RECORD__INIT;
	Ptop__V1__DropNotice d = PTOP__V1__DROP_NOTICE__INIT;

	d.time_ns = t;
	d.collector = "syscalls";
	d.kind = "ringbuf";
	d.lost = 17;
	r.kind_case = PTOP__V1__RECORD__KIND_DROP;
	r.drop = &d;
	capw__append(w, &r);
}

static void put_trailer(struct capture_writer *w, uint64_t t, uint64_t records)
{
	Ptop__V1__Record r = PTOP__V1__RECORD__INIT;
	Ptop__V1__CaptureTrailer tr = PTOP__V1__CAPTURE_TRAILER__INIT;
	Ptop__V1__TargetExit x = PTOP__V1__TARGET_EXIT__INIT;
	Ptop__V1__DropTotal d = PTOP__V1__DROP_TOTAL__INIT;
	Ptop__V1__DropTotal *dp[1] = { &d };

	x.exited = true;
	x.exit_code = 3;
	x.status_known = true;
	d.collector = "syscalls";
	d.kind = "ringbuf";
	d.lost = 17;
	tr.reason = PTOP__V1__END_REASON__END_REASON_TARGET_EXIT;
	tr.end_time_ns = t;
	tr.target_exit = &x;
	tr.records = records;
	tr.events = 7;
	tr.n_drops = 1;
	tr.drops = dp;
	r.kind_case = PTOP__V1__RECORD__KIND_TRAILER;
	r.trailer = &tr;
	capw__append(w, &r);
}

/* The full capture of test 1: every record kind, 13 records, 4 frames. With
 * TRAILER false it ends without one (the recorder was killed). */
static void write_capture(const char *path, const uint8_t id[16], bool trailer)
{
	struct capture_writer_opts o = { .force = true };
	struct capture_writer *w = capture_writer__create(path, &o);

	assert_non_null(w);
	put_header(w, id);
	put_context(w, T0 + 1000);
	assert_int_equal(capture_writer__flush(w), 0);
	put_cpu(w, T0 + SEC, PID, true, true);
	put_cpu(w, T0 + 2 * SEC, 0, false, true); /* cgroup aggregate, no eBPF lane */
	put_syscalls(w, T0 + SEC);
	assert_int_equal(capture_writer__flush(w), 0);
	put_memory(w, T0 + SEC, false);
	put_memory(w, T0 + 2 * SEC, true);
	put_vmas(w, T0 + 3 * SEC);
	put_stack(w, 7);
	put_stack(w, 7); /* the same id again: counted, ignored */
	put_mapping(w);
	assert_int_equal(capture_writer__flush(w), 0);
	put_drop(w, T0 + 2 * SEC);
	if (trailer)
		put_trailer(w, T0 + 5 * SEC, 12);
	assert_int_equal(capture_writer__close(w), 0);
}

static void load_ok(sqlite3 *db, const char *path, bool replace, char id[DB_CAPTURE_ID_LEN],
		    struct load_stats *st)
{
	int rc = db__load_capture(db, path, replace, id, st, errbuf, sizeof(errbuf));

	if (rc)
		fail_msg("load %s: %d %s", path, rc, errbuf);
}

static int64_t rows_of(sqlite3 *db, const char *table, const char *id)
{
	return q_int(db, "SELECT count(*) FROM %s WHERE cap = (SELECT cap FROM capture "
			 "WHERE capture_id = '%s')", table, id);
}

/* ------------------------------------------------------------------ tests */

static void test_01_every_kind(void **state)
{
	uint8_t raw[16];
	char hex[33], id[DB_CAPTURE_ID_LEN];
	struct load_stats st;
	const char *cap = tpath("full.ptop"), *dbp = tpath("full.db");
	sqlite3 *db;
	struct stat fs;

	(void)state;
	fill_id(raw, 0xab, 0xcd);
	id_hex(raw, hex);
	write_capture(cap, raw, true);
	db = open_rw(dbp);
	load_ok(db, cap, false, id, &st);
	assert_string_equal(id, hex);
	assert_false(st.already_loaded);
	assert_true(st.complete);
	assert_string_equal(st.read_message, "");
	assert_int_equal(st.records, 13);
	assert_int_equal(st.rows, 38);

	/* capture */
	assert_int_equal(q_int(db, "SELECT count(*) FROM capture"), 1);
#define C(col) q_text(db, "SELECT " col " FROM capture WHERE capture_id = '%s'", id)
	assert_string_equal(C("format_version"), "1");
	assert_string_equal(C("recorder_version"), "0.1.0");
	assert_string_equal(C("recorder_commit"), "abcdef123456");
	assert_string_equal(C("recorder_build_date"), "2026-11-29T09:00:00Z");
	assert_string_equal(C("hostname"), "box1");
	assert_string_equal(C("kernel_release"), "6.18.0");
	assert_string_equal(C("kernel_version"), "#1 SMP");
	assert_string_equal(C("boot_id"), "0b1d-boot");
	assert_string_equal(C("machine"), "x86_64");
	assert_string_equal(C("cpus || ' ' || page_size || ' ' || clock_tick"), "8 4096 100");
	assert_string_equal(C("start_monotonic_ns"), "1000000000000");
	assert_string_equal(C("start_realtime_ns"), "1790000000000000000");
	assert_string_equal(C("start_boottime_ns"), "1000000000005");
	assert_string_equal(C("recorder_argv"),
			    "[\"ptop-record\",\"-o\",\"run \\\"1\\\".ptop\",\"--\",\"./server\"]");
	assert_string_equal(C("json_array_length(recorder_argv)"), "5");
	assert_string_equal(C("recorder_argv ->> 2"), "run \"1\".ptop");
	assert_string_equal(C("interval_ns || ' ' || vma_interval_ns || ' ' || flush_interval_ns"),
			    "1000000000 10000000000 1000000000");
	assert_string_equal(C("duration_ns || ' ' || no_ebpf"), "0 0");
	assert_string_equal(C("disabled"), "[\"vmas\"]");
	assert_string_equal(C("first_event_ns"), "1000000001000");
	assert_string_equal(C("last_event_ns"), "1003000000000");
	assert_string_equal(C("last_event_ns - first_event_ns"), "2999999000");
	assert_string_equal(C("complete"), "1");
	assert_string_equal(C("read_end"), "clean");
	assert_string_equal(C("read_stopped_at"), "<NULL>");
	assert_string_equal(C("read_message"), "<NULL>");
	assert_string_equal(C("has_index"), "1");
	assert_string_equal(C("frames"), "4");
	assert_string_equal(C("records"), "13");
	assert_string_equal(C("end_reason"), "target_exit");
	assert_string_equal(C("end_time_ns"), "1005000000000");
	assert_string_equal(C("end_signal"), "<NULL>");
	assert_string_equal(C("end_error"), "<NULL>");
	assert_string_equal(C("salvaged"), "0");
	assert_string_equal(C("target_exited || ' ' || target_exit_code || ' ' || "
			      "target_status_known"),
			    "1 3 1");
	assert_string_equal(C("target_term_signal"), "<NULL>");
	assert_string_equal(C("target_core_dumped"), "<NULL>");
	assert_string_equal(C("trailer_records || ' ' || trailer_events"), "12 7");
	assert_string_equal(C("source_path"), cap);
	assert_int_equal(stat(cap, &fs), 0);
	assert_int_equal(q_int(db, "SELECT source_size FROM capture"), fs.st_size);
	assert_int_equal(q_int(db, "SELECT source_mtime_ns FROM capture"),
			 (int64_t)fs.st_mtim.tv_sec * 1000000000 + fs.st_mtim.tv_nsec);
	assert_string_equal(C("loaded_at GLOB '20[0-9][0-9]-[01][0-9]-[0-3][0-9]T*Z'"), "1");
#undef C

	/* target, probes */
	assert_string_equal(q_text(db, "SELECT mode || '|' || pid || '|' || comm || '|' || exe || "
				       "'|' || exe_build_id || '|' || cmdline || '|' || "
				       "cgroup_path || '|' || cgroup_id FROM target"),
			    "command|4321|server|/usr/bin/server|deadbeef|[\"./server\",\"--port=80\"]|"
			    "0::/user.slice/run.scope|12345");
	assert_string_equal(q_text(db, "SELECT container_id FROM target"), "<NULL>");
	assert_int_equal(rows_of(db, "probe", id), 3);
	assert_string_equal(q_text(db, "SELECT group_concat(seq || ':' || name || ':' || state || "
				       "':' || source || ':' || coalesce(reason, '-') || ':' || "
				       "coalesce(detail, '-'), ' / ') FROM (SELECT * FROM probe "
				       "ORDER BY seq)"),
			    "0:cpu:active:ebpf:-:tp_btf/sched_switch / "
			    "1:syscalls:failed:ebpf:raw_tp attach: Permission denied:- / "
			    "2:vmas:disabled:proc:--disable vmas:-");

	/* record counts */
	assert_string_equal(q_text(db, "SELECT group_concat(kind || '=' || count, ' ') FROM (SELECT "
				       "* FROM record_count ORDER BY kind)"),
			    "drop=1 event:context=1 event:cpu=2 event:memory=2 event:syscalls=1 "
			    "event:vmas=1 header=1 mapping=1 stack=1 stack:duplicate=1 trailer=1");

	/* cpu: both lanes, then the /proc lane only for a cgroup aggregate */
	assert_int_equal(rows_of(db, "cpu_sample", id), 2);
	assert_string_equal(q_text(db, "SELECT time_ns || ' ' || interval_ns || ' ' || pid || ' ' || "
				       "oncpu_ns || ' ' || switches || ' ' || user_ns || ' ' || "
				       "system_ns || ' ' || threads || ' ' || voluntary_switches || "
				       "' ' || involuntary_switches || ' ' || user_ticks_total || ' ' "
				       "|| system_ticks_total FROM cpu_sample ORDER BY time_ns"),
			    "1001000000000 1000000000 4321 250000000 1234 200000000 40000000 4 100 0 "
			    "1500 300");
	assert_string_equal(q_text(db, "SELECT quote(pid) || quote(oncpu_ns) || quote(switches) || "
				       "' ' || user_ns FROM cpu_sample WHERE time_ns = %llu",
				       (unsigned long long)(T0 + 2 * SEC)),
			    "NULLNULLNULL 200000000");
	assert_string_equal(q_text(db, "SELECT printf('%%.1f', t_s) FROM cpu ORDER BY t_s DESC"),
			    "2.0");

	/* syscalls: two stats, three non-zero histogram buckets */
	assert_int_equal(rows_of(db, "syscall_stat", id), 2);
	assert_string_equal(q_text(db, "SELECT group_concat(nr || ':' || name || ':' || count || ':' "
				       "|| completed || ':' || errors || ':' || total_ns || ':' || "
				       "unmatched || ':' || interval_ns || ':' || pid, ' ') FROM "
				       "(SELECT * FROM syscall_stat ORDER BY nr)"),
			    "110:getppid:50000:50000:0:12345678:0:1000000000:4321 "
			    "999:sys_999:3:2:2:500:1:1000000000:4321");
	assert_int_equal(rows_of(db, "syscall_hist", id), 3);
	assert_string_equal(q_text(db, "SELECT group_concat(nr || ':' || bucket || ':' || count, ' ') "
				       "FROM (SELECT * FROM syscall_hist ORDER BY bucket)"),
			    "110:7:120 110:9:49000 110:10:880");
	assert_int_equal(q_int(db, "SELECT sum(count) FROM syscall_hist"), 50000);

	/* memory: the absent rollup group is NULL, measured zeros stay 0 */
	assert_int_equal(rows_of(db, "memory_sample", id), 2);
#define M1(col) q_text(db, "SELECT quote(" col ") FROM memory_sample WHERE time_ns = %llu", \
		       (unsigned long long)(T0 + SEC))
#define M2(col) q_text(db, "SELECT quote(" col ") FROM memory_sample WHERE time_ns = %llu", \
		       (unsigned long long)(T0 + 2 * SEC))
	assert_string_equal(M1("vsize"), "104857600");
	assert_string_equal(M1("statm_rss"), "10485760");
	assert_string_equal(M1("statm_shared"), "2097152");
	assert_string_equal(M1("statm_text"), "1048576");
	assert_string_equal(M1("statm_data"), "20971520");
	{
		static const char *const rollup_cols[] = {
			"rss",	       "pss",	       "uss",	       "pss_anon",
			"pss_file",    "pss_shmem",    "shared_clean", "shared_dirty",
			"private_clean", "private_dirty", "anon",	       "swap",
			"swap_pss",    "locked",       "rollup_read_ns",
		};
		for (size_t k = 0; k < sizeof(rollup_cols) / sizeof(rollup_cols[0]); k++)
			assert_string_equal(q_text(db,
						   "SELECT quote(%s) FROM memory_sample WHERE "
						   "time_ns = %llu",
						   rollup_cols[k], (unsigned long long)(T0 + SEC)),
					    "NULL");
	}
	assert_string_equal(M1("minflt || ' ' || majflt || ' ' || minflt_total || ' ' || "
			       "majflt_total"),
			    "'10 0 1000 2'");
	assert_string_equal(M2("rss || ' ' || pss || ' ' || uss || ' ' || pss_anon || ' ' || "
			       "pss_file || ' ' || pss_shmem || ' ' || shared_clean || ' ' || "
			       "shared_dirty || ' ' || private_clean || ' ' || private_dirty || ' ' "
			       "|| anon || ' ' || swap || ' ' || swap_pss || ' ' || locked || ' ' || "
			       "rollup_read_ns"),
			    "'10485760 9437184 8388608 7340032 1048576 0 2097152 0 1048576 7340032 "
			    "7340032 0 0 0 45000'");
	assert_string_equal(M2("pss_shmem"), "0");
	assert_string_equal(M2("interval_ns || ' ' || pid"), "'1000000000 4321'");
#undef M1
#undef M2

	/* vmas */
	assert_string_equal(q_text(db, "SELECT snapshot_id || ' ' || (time_ns - %llu) || ' ' || pid "
				       "|| ' ' || walk_ns || ' ' || final || ' ' || vma_count FROM "
				       "vma_snapshot",
				       (unsigned long long)T0),
			    "0 3000000000 4321 90000 1 2");
	assert_int_equal(rows_of(db, "vma", id), 2);
	assert_string_equal(q_text(db, "SELECT printf('%%x-%%x', start, end) || ' ' || perms || ' ' "
				       "|| offset || ' ' || dev || ' ' || inode || ' ' || path || ' ' "
				       "|| size || ' ' || rss || ' ' || pss || ' ' || uss || ' ' || "
				       "shared_clean || ' ' || shared_dirty || ' ' || anon || ' ' || "
				       "swap || ' ' || swap_pss || ' ' || locked FROM vma WHERE path "
				       "<> ''"),
			    "400000-402000 r-xp 4096 fd:01 777 /usr/bin/server 8192 8192 4096 0 8192 "
			    "0 0 0 0 0");
	assert_string_equal(q_text(db, "SELECT printf('%%x', start) || ' ' || quote(path) || ' ' || "
				       "anon FROM vma WHERE path = ''"),
			    "ffffffffff600000 '' 4096");

	/* context and namespaces */
	assert_string_equal(q_text(db, "SELECT (time_ns - %llu) || ' ' || pid || ' ' || ppid || ' ' "
				       "|| comm || ' ' || uid || ' ' || euid || ' ' || gid || ' ' || "
				       "egid || ' ' || cgroup_path || ' ' || cgroup_id || ' ' || "
				       "quote(container_id) || ' ' || nspid FROM proc_context",
				       (unsigned long long)T0),
			    "1000 4321 1 server 1000 0 1000 1000 0::/user.slice/run.scope 12345 NULL "
			    "[4321,7]");
	assert_string_equal(q_text(db, "SELECT group_concat(type || ':' || inode || ':' || pid, ' ') "
				       "FROM (SELECT * FROM namespace ORDER BY type)"),
			    "net:4026531840:4321 pid:4026531836:4321");

	/* stack, mapping, drops */
	assert_string_equal(q_text(db, "SELECT stack_id || ' ' || kernel || ' ' || depth FROM stack"),
			    "7 0 3");
	assert_string_equal(q_text(db, "SELECT group_concat(depth || ':' || printf('%%x', ip), ' ') "
				       "FROM (SELECT * FROM stack_frame ORDER BY depth)"),
			    "0:401000 1:401234 2:7f0000001000");
	assert_string_equal(q_text(db, "SELECT quote(time_ns) || ' ' || pid || ' ' || printf('%%x-%%x',"
				       " start, end) || ' ' || offset || ' ' || path || ' ' || "
				       "build_id FROM mapping"),
			    "NULL 4321 400000-402000 0 /usr/bin/server "
			    "0123456789abcdef000102030405060708090aff");
	assert_string_equal(q_text(db, "SELECT (time_ns - %llu) || ' ' || collector || ' ' || kind || "
				       "' ' || lost || ' ' || quote(detail) FROM drop_notice",
				       (unsigned long long)T0),
			    "2000000000 syscalls ringbuf 17 NULL");
	assert_string_equal(q_text(db, "SELECT collector || ' ' || kind || ' ' || lost FROM "
				       "drop_total"),
			    "syscalls ringbuf 17");

	/* the indexes were built, and the DB has this build's version */
	assert_int_equal(q_int(db, "SELECT count(*) FROM sqlite_master WHERE type = 'index' AND "
				   "name = 'syscall_stat_time'"),
			 1);
	assert_int_equal(q_int(db, "PRAGMA user_version"), DB_SCHEMA_VERSION);
	sqlite3_close(db);

	/* the DB file is private */
	assert_int_equal(stat(dbp, &fs), 0);
	assert_int_equal(fs.st_mode & 0777, 0600);
}

/* every table with a cap, and its row count for ID, as one string */
static const char *all_counts(sqlite3 *db, const char *id)
{
	static const char *const tables[] = { "capture",      "target",	       "probe",
					      "record_count", "cpu_sample",    "syscall_stat",
					      "syscall_hist", "memory_sample", "vma_snapshot",
					      "vma",	      "proc_context",  "namespace",
					      "stack",	      "stack_frame",   "mapping",
					      "drop_notice",  "drop_total" };
	static char out[512];
	size_t used = 0;

	for (size_t k = 0; k < sizeof(tables) / sizeof(tables[0]); k++)
		used += (size_t)snprintf(out + used, sizeof(out) - used, "%" PRId64 " ",
					 rows_of(db, tables[k], id));
	return out;
}

static void test_02_load_twice(void **state)
{
	uint8_t raw[16];
	char id[DB_CAPTURE_ID_LEN], id2[DB_CAPTURE_ID_LEN], before[512];
	struct load_stats st;
	const char *cap = tpath("twice.ptop");
	sqlite3 *db;

	(void)state;
	fill_id(raw, 0x01, 0x02);
	write_capture(cap, raw, true);
	db = open_rw(tpath("twice.db"));
	load_ok(db, cap, false, id, &st);
	snprintf(before, sizeof(before), "%s", all_counts(db, id));
	assert_string_equal(before, "1 1 3 11 2 2 3 2 1 2 1 2 1 3 1 1 1 ");
	sqlite3_exec(db, "UPDATE capture SET loaded_at = 'first'", NULL, NULL, NULL);

	load_ok(db, cap, false, id2, &st);
	assert_true(st.already_loaded);
	assert_int_equal(st.rows, 0);
	assert_string_equal(id2, id);
	assert_string_equal(all_counts(db, id), before);
	assert_string_equal(q_text(db, "SELECT loaded_at FROM capture"), "first");

	/* replace: the old rows go, the same rows come back */
	load_ok(db, cap, true, id2, &st);
	assert_false(st.already_loaded);
	assert_int_equal(st.rows, 38);
	assert_string_equal(all_counts(db, id), before);
	assert_string_not_equal(q_text(db, "SELECT loaded_at FROM capture"), "first");
	assert_int_equal(q_int(db, "SELECT count(*) FROM capture"), 1);
	/* the reloaded capture got a new key: a cap is never reused */
	assert_int_equal(q_int(db, "SELECT cap FROM capture"), 2);
	sqlite3_close(db);
}

static void test_03_two_captures(void **state)
{
	uint8_t a[16], b[16];
	char ida[DB_CAPTURE_ID_LEN], idb[DB_CAPTURE_ID_LEN];
	struct load_stats st;
	sqlite3 *db;

	(void)state;
	fill_id(a, 0xaa, 0x01);
	fill_id(b, 0xbb, 0x02);
	write_capture(tpath("a.ptop"), a, true);
	write_capture(tpath("b.ptop"), b, false);
	db = open_rw(tpath("two.db"));
	load_ok(db, tpath("a.ptop"), false, ida, &st);
	assert_true(st.complete);
	load_ok(db, tpath("b.ptop"), false, idb, &st);
	assert_false(st.complete);
	assert_string_not_equal(ida, idb);
	assert_int_equal(q_int(db, "SELECT count(*) FROM capture"), 2);
	assert_string_equal(all_counts(db, ida), "1 1 3 11 2 2 3 2 1 2 1 2 1 3 1 1 1 ");
	/* b has no trailer: no drop_total, no trailer count */
	assert_string_equal(all_counts(db, idb), "1 1 3 10 2 2 3 2 1 2 1 2 1 3 1 1 0 ");
	assert_int_equal(q_int(db, "SELECT count(*) FROM syscall_hist"), 6);
	assert_string_equal(q_text(db, "SELECT complete || ' ' || read_end || ' ' || quote(end_reason)"
				       " FROM capture WHERE capture_id = '%s'",
				       idb),
			    "0 clean NULL");
	assert_string_equal(q_text(db, "SELECT read_message FROM capture WHERE capture_id = '%s'",
				   idb),
			    q_text(db, "SELECT 'cut short: no trailer after 12 records (the file ends "
				       "cleanly at byte ' || source_size || ' without one)' FROM "
				       "capture WHERE capture_id = '%s'",
				       idb));
	/* target exit columns are NULL without a trailer: nothing known */
	assert_string_equal(q_text(db, "SELECT quote(target_exited) || quote(target_status_known) "
				       "FROM capture WHERE capture_id = '%s'",
				       idb),
			    "NULLNULL");
	/* rows carry the small key; the views name the capture by its id */
	assert_string_equal(q_text(db, "SELECT group_concat(cap, ' ') FROM "
				       "(SELECT cap FROM capture ORDER BY cap)"),
			    "1 2");
	assert_string_equal(q_text(db, "SELECT group_concat(n, ' ') FROM (SELECT capture_id, "
				       "count(*) AS n FROM memory WHERE capture_id IN ('%s', '%s') "
				       "GROUP BY capture_id)",
				       ida, idb),
			    "2 2");
	assert_string_equal(q_text(db, "SELECT capture_id FROM syscalls s JOIN capture c "
				       "USING (capture_id) WHERE c.cap = 2 LIMIT 1"),
			    idb);
	sqlite3_close(db);
}

/* Byte offset of each frame, by record index. */
static int frame_offsets(const char *path, uint64_t *off, int max)
{
	struct capture_reader *r = capture_reader__open(path);
	Ptop__V1__Record *rec;
	int n = 0;

	assert_non_null(r);
	while (capture_reader__next(r, &rec) == 1) {
		if (n < max)
			off[n] = capture_reader__frame_offset(r);
		n++;
		ptop__v1__record__free_unpacked(rec, NULL);
	}
	capture_reader__free(r);
	return n;
}

static void test_04_truncated(void **state)
{
	uint8_t raw[16];
	char id[DB_CAPTURE_ID_LEN], want[128];
	uint64_t off[16];
	struct load_stats st;
	const char *cap = tpath("cut.ptop");
	sqlite3 *db;
	int n;

	(void)state;
	fill_id(raw, 0xc0, 0x70);
	write_capture(cap, raw, true);
	n = frame_offsets(cap, off, 16);
	assert_int_equal(n, 13);
	/* records 0-1 frame 1, 2-4 frame 2, 5-10 frame 3, 11-12 frame 4: cut inside frame 3 */
	assert_true(off[5] > off[2] && off[11] > off[5]);
	assert_int_equal(truncate(cap, (off_t)(off[5] + 10)), 0);

	db = open_rw(tpath("cut.db"));
	load_ok(db, cap, false, id, &st);
	assert_false(st.complete);
	assert_int_equal(st.records, 5);
	assert_non_null(strstr(st.read_message, "cut short"));
	assert_string_equal(q_text(db, "SELECT complete || ' ' || read_end || ' ' || read_stopped_at "
				       "|| ' ' || has_index || ' ' || frames || ' ' || records FROM "
				       "capture"),
			    (snprintf(want, sizeof(want), "0 truncated %llu 0 2 5",
				      (unsigned long long)off[5]),
			     want));
	assert_non_null(strstr(q_text(db, "SELECT read_message FROM capture"), "cut short"));
	snprintf(want, sizeof(want), "%llu", (unsigned long long)off[5]);
	assert_non_null(strstr(q_text(db, "SELECT read_message FROM capture"), want));
	/* the complete frames are all there */
	assert_string_equal(all_counts(db, id), "1 1 3 4 2 2 3 0 0 0 1 2 0 0 0 0 0 ");
	assert_string_equal(q_text(db, "SELECT quote(end_reason) FROM capture"), "NULL");
	sqlite3_close(db);
}

static void test_05_no_header(void **state)
{
	uint8_t raw[16];
	char id[DB_CAPTURE_ID_LEN];
	const char *cap = tpath("nohdr.ptop"), *cap2 = tpath("evfirst.ptop");
	struct capture_writer_opts o = { .force = true };
	struct capture_writer *w;
	sqlite3 *db;
	int fd, rc;

	(void)state;
	/* the first zstd frame (right after the 20-byte magic frame) is garbage */
	fill_id(raw, 0x0b, 0xad);
	write_capture(cap, raw, true);
	fd = open(cap, O_WRONLY);
	assert_true(fd >= 0);
	assert_int_equal(pwrite(fd, "garbage!", 8, 20), 8);
	close(fd);
	db = open_rw(tpath("nohdr.db"));
	rc = db__load_capture(db, cap, false, id, NULL, errbuf, sizeof(errbuf));
	assert_int_equal(rc, -EBADMSG);
	assert_non_null(strstr(errbuf, "no capture header"));
	assert_non_null(strstr(errbuf, "nothing loaded"));
	assert_int_equal(q_int(db, "SELECT count(*) FROM capture"), 0);

	/* a file whose first record is not the header */
	w = capture_writer__create(cap2, &o);
	assert_non_null(w);
	put_cpu(w, T0, PID, true, true);
	put_header(w, raw);
	assert_int_equal(capture_writer__close(w), 0);
	rc = db__load_capture(db, cap2, false, id, NULL, errbuf, sizeof(errbuf));
	assert_int_equal(rc, -EBADMSG);
	assert_non_null(strstr(errbuf, "no capture header"));
	assert_int_equal(q_int(db, "SELECT count(*) FROM capture"), 0);
	assert_int_equal(q_int(db, "SELECT count(*) FROM cpu_sample"), 0);

	/* not a capture at all */
	fd = open(tpath("text.ptop"), O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_int_equal(write(fd, "hello, world\n", 13), 13);
	close(fd);
	rc = db__load_capture(db, tpath("text.ptop"), false, id, NULL, errbuf, sizeof(errbuf));
	assert_int_equal(rc, -EBADMSG);
	assert_non_null(strstr(errbuf, "not a ptop capture"));
	rc = db__load_capture(db, tpath("missing.ptop"), false, id, NULL, errbuf, sizeof(errbuf));
	assert_int_equal(rc, -ENOENT);
	assert_int_equal(q_int(db, "SELECT count(*) FROM capture"), 0);
	sqlite3_close(db);
}

static void test_06_wrong_version(void **state)
{
	const char *dbp = tpath("vnext.db");
	sqlite3 *db = NULL;
	char want[64], sql[64];
	int rc;

	(void)state;
	db = open_rw(dbp);
	/* a version newer than this ptop-analyze reads */
	snprintf(sql, sizeof(sql), "PRAGMA user_version = %d", DB_SCHEMA_VERSION + 1);
	assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
	db = NULL;
	rc = db__open(dbp, true, false, &db, errbuf, sizeof(errbuf));
	assert_int_equal(rc, -EPROTO);
	assert_null(db);
	snprintf(want, sizeof(want), "version %d", DB_SCHEMA_VERSION + 1);
	assert_non_null(strstr(errbuf, want));
	snprintf(want, sizeof(want), "reads version %d", DB_SCHEMA_VERSION);
	assert_non_null(strstr(errbuf, want));
	assert_non_null(strstr(errbuf, "ptop-analyze"));
	rc = db__open(dbp, false, true, &db, errbuf, sizeof(errbuf));
	assert_int_equal(rc, -EPROTO);
	rc = db__open_input(dbp, NULL, &db, (char[DB_CAPTURE_ID_LEN]){ 0 }, errbuf, sizeof(errbuf));
	assert_int_equal(rc, -EPROTO);

	/* an older one (version 0 with tables: some other program's SQLite file) */
	assert_int_equal(sqlite3_open(tpath("other.db"), &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, "CREATE TABLE t (x)", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
	db = NULL;
	rc = db__open(tpath("other.db"), true, false, &db, errbuf, sizeof(errbuf));
	assert_int_equal(rc, -EPROTO);
	assert_non_null(strstr(errbuf, "not a ptop DB"));
}

static void test_07_not_sqlite(void **state)
{
	const char *p = tpath("notes.db");
	sqlite3 *db = NULL;
	char id[DB_CAPTURE_ID_LEN];
	char junk[4096];
	int fd, rc;

	(void)state;
	memset(junk, 'x', sizeof(junk));
	fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_int_equal(write(fd, junk, sizeof(junk)), (ssize_t)sizeof(junk));
	close(fd);
	rc = db__open(p, false, false, &db, errbuf, sizeof(errbuf));
	assert_int_equal(rc, -EINVAL);
	assert_null(db);
	assert_non_null(strstr(errbuf, "not an SQLite database"));
	rc = db__open(p, false, true, &db, errbuf, sizeof(errbuf));
	assert_int_equal(rc, -EINVAL);
	rc = db__open_input(p, NULL, &db, id, errbuf, sizeof(errbuf));
	assert_int_equal(rc, -EINVAL);
	assert_non_null(strstr(errbuf, "neither a ptop capture nor a ptop DB"));
	rc = db__open(tpath("nope.db"), false, false, &db, errbuf, sizeof(errbuf));
	assert_int_equal(rc, -ENOENT);
	rc = db__open_input(tpath("nope.ptop"), NULL, &db, id, errbuf, sizeof(errbuf));
	assert_int_equal(rc, -ENOENT);
	rc = db__open(tmpdir, false, true, &db, errbuf, sizeof(errbuf));
	assert_int_equal(rc, -EISDIR);
	/* an empty file opened read-only is no ptop DB; opened to write, it becomes one */
	fd = open(tpath("empty.db"), O_WRONLY | O_CREAT | O_TRUNC, 0600);
	close(fd);
	rc = db__open(tpath("empty.db"), false, true, &db, errbuf, sizeof(errbuf));
	assert_int_equal(rc, -EINVAL);
	assert_non_null(strstr(errbuf, "empty database"));
	rc = db__open(tpath("empty.db"), false, false, &db, errbuf, sizeof(errbuf));
	assert_int_equal(rc, 0);
	assert_int_equal(q_int(db, "PRAGMA user_version"), DB_SCHEMA_VERSION);
	sqlite3_close(db);
}

/* The cache: an entry per capture id and size (FOLDER/ID-SIZE.db), 0600 in a 0700
 * folder; reused for the same file whatever its mtime, for a copy and for a move (which
 * it is told: source_path); another capture at the same path gets its own entry. */
static void test_08_cache(void **state)
{
	uint8_t a[16], b[16];
	char hexa[33], hexb[33], id[DB_CAPTURE_ID_LEN], cpath[4096], dir[300], want[4200];
	char other[4096], p2[300];
	const char *cap = tpath("cached.ptop");
	struct timespec ts[2];
	struct stat fs, cs;
	sqlite3 *db = NULL, *raw = NULL;
	int rc;

	(void)state;
	snprintf(dir, sizeof(dir), "%s/xdg", tmpdir);
	setenv("XDG_CACHE_HOME", dir, 1);
	unsetenv(CACHE_MAX_ENV);
	fill_id(a, 0xca, 0xc1);
	fill_id(b, 0xca, 0xc2);
	id_hex(a, hexa);
	id_hex(b, hexb);
	write_capture(cap, a, true);

	/* first use: the entry is built, named by id and size */
	rc = db__open_input(cap, NULL, &db, id, errbuf, sizeof(errbuf));
	if (rc)
		fail_msg("open_input: %s", errbuf);
	assert_string_equal(id, hexa);
	assert_int_equal(q_int(db, "SELECT count(*) FROM syscall_hist"), 3);
	assert_int_equal(sqlite3_db_readonly(db, "main"), 1);
	sqlite3_close(db);
	assert_int_equal(cache__path(cap, cpath, sizeof(cpath)), 0);
	assert_int_equal(stat(cap, &cs), 0);
	snprintf(want, sizeof(want), "%s/ptop/%s-%lld.db", dir, hexa, (long long)cs.st_size);
	assert_string_equal(cpath, want);
	assert_int_equal(stat(cpath, &fs), 0);
	assert_int_equal(fs.st_mode & 0777, 0600);
	snprintf(dir + strlen(dir), sizeof(dir) - strlen(dir), "/ptop");
	assert_int_equal(stat(dir, &fs), 0);
	assert_int_equal(fs.st_mode & 0777, 0700);

	/* a build that crashed left its temporary file: the next build removes it */
	{
		char stale[4200];
		int fd;

		snprintf(stale, sizeof(stale), "%s.tmp.999999999", cpath);
		fd = open(stale, O_WRONLY | O_CREAT, 0600);
		assert_true(fd >= 0);
		close(fd);
		unlink(cpath);
		rc = db__open_input(cap, NULL, &db, id, errbuf, sizeof(errbuf));
		assert_int_equal(rc, 0);
		sqlite3_close(db);
		assert_int_equal(access(stale, F_OK), -1);
	}

	/* mark the entry: a reuse keeps the mark */
	assert_int_equal(sqlite3_open(cpath, &raw), SQLITE_OK);
	assert_int_equal(sqlite3_exec(raw, "UPDATE capture SET loaded_at = 'marker'", NULL, NULL,
				      NULL),
			 SQLITE_OK);
	sqlite3_close(raw);
	rc = db__open_input(cap, NULL, &db, id, errbuf, sizeof(errbuf));
	assert_int_equal(rc, 0);
	assert_string_equal(q_text(db, "SELECT loaded_at FROM capture"), "marker");
	sqlite3_close(db);

	/* the same file with a new mtime: the same capture, reused */
	ts[0].tv_sec = ts[1].tv_sec = 1700000000;
	ts[0].tv_nsec = ts[1].tv_nsec = 0;
	assert_int_equal(utimensat(AT_FDCWD, cap, ts, 0), 0);
	rc = db__open_input(cap, NULL, &db, id, errbuf, sizeof(errbuf));
	assert_int_equal(rc, 0);
	assert_string_equal(q_text(db, "SELECT loaded_at FROM capture"), "marker");
	sqlite3_close(db);

	/* a copy elsewhere: the same entry, told the path it was reached by */
	snprintf(p2, sizeof(p2), "%s/sub", tmpdir);
	assert_int_equal(mkdir(p2, 0700), 0);
	snprintf(p2, sizeof(p2), "%s/sub/copy.ptop", tmpdir);
	write_capture(p2, a, true);
	assert_int_equal(cache__path(p2, other, sizeof(other)), 0);
	assert_string_equal(other, cpath);
	rc = db__open_input(p2, NULL, &db, id, errbuf, sizeof(errbuf));
	assert_int_equal(rc, 0);
	assert_string_equal(id, hexa);
	assert_string_equal(q_text(db, "SELECT loaded_at FROM capture"), "marker");
	{
		char *real = realpath(p2, NULL);

		assert_non_null(real);
		assert_string_equal(q_text(db, "SELECT source_path FROM capture"), real);
		free(real);
	}
	sqlite3_close(db);

	/* the same capture cut, then whole again at the same path (a recording still being
	 * written grows so): each size has its entry, and the entry of another size last used
	 * for this file goes */
	write_capture(cap, a, false);
	assert_int_equal(cache__path(cap, other, sizeof(other)), 0);
	assert_string_not_equal(other, cpath);
	rc = db__open_input(cap, NULL, &db, id, errbuf, sizeof(errbuf));
	assert_int_equal(rc, 0);
	sqlite3_close(db);
	write_capture(cap, a, true);
	rc = db__open_input(cap, NULL, &db, id, errbuf, sizeof(errbuf));
	assert_int_equal(rc, 0);
	sqlite3_close(db);
	assert_int_equal(access(other, F_OK), -1); /* the cut file's entry, of this path */
	assert_int_equal(access(cpath, F_OK), 0);  /* this size's entry, now of this path */

	/* another capture written at the same path: its own entry, holding only it */
	write_capture(cap, b, false);
	rc = db__open_input(cap, NULL, &db, id, errbuf, sizeof(errbuf));
	assert_int_equal(rc, 0);
	assert_string_equal(id, hexb);
	assert_int_equal(q_int(db, "SELECT count(*) FROM capture"), 1);
	snprintf(want, sizeof(want), "%s 0", hexb);
	assert_string_equal(q_text(db, "SELECT capture_id || ' ' || complete FROM capture"), want);
	sqlite3_close(db);
	assert_int_equal(cache__path(cap, other, sizeof(other)), 0);
	assert_string_not_equal(other, cpath);
	assert_int_equal(access(cpath, F_OK), 0); /* the first capture's entry stays */

	/* a wrong id for a capture file */
	rc = db__open_input(cap, "ffff", &db, id, errbuf, sizeof(errbuf));
	assert_int_equal(rc, -ENOENT);
	assert_null(db);
	rc = db__open_input(cap, "CAC2", &db, id, errbuf, sizeof(errbuf));
	assert_int_equal(rc, 0);
	assert_string_equal(id, hexb);
	sqlite3_close(db);
	unsetenv("XDG_CACHE_HOME");
}

/* The cap: after a new entry is built, the least recently used entries go until the
 * folder is under PTOP_CACHE_MAX, never the new one; an entry just used stays; a bad
 * PTOP_CACHE_MAX is refused by cache__max_bytes. cache__list says them most recent
 * first, with their capture. */
static void test_08b_cache_cap(void **state)
{
	char dir[300], path[400], ids[3][33], cp[3][4096], why[256];
	struct cache_entry *v = NULL;
	uint8_t raw[3][16];
	uint64_t max, freed;
	size_t n, removed;
	struct stat st;
	sqlite3 *db = NULL;
	char id[DB_CAPTURE_ID_LEN];
	int rc, k;

	(void)state;
	snprintf(dir, sizeof(dir), "%s/xdgcap", tmpdir);
	setenv("XDG_CACHE_HOME", dir, 1);
	unsetenv(CACHE_MAX_ENV);
	assert_int_equal(cache__max_bytes(&max, why, sizeof(why)), 0);
	assert_int_equal(max, CACHE_MAX_DEFAULT);
	setenv(CACHE_MAX_ENV, "lots", 1);
	assert_int_equal(cache__max_bytes(&max, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, CACHE_MAX_ENV "=lots"));
	/* three captures, each opened once (the oldest use first) */
	unsetenv(CACHE_MAX_ENV);
	for (k = 0; k < 3; k++) {
		struct timespec ts[2] = {{.tv_nsec = UTIME_OMIT}, {.tv_sec = 1600000000 + k}};

		fill_id(raw[k], 0xe0, (uint8_t)k);
		id_hex(raw[k], ids[k]);
		snprintf(path, sizeof(path), "%s/cap%d.ptop", tmpdir, k);
		write_capture(path, raw[k], true);
		rc = db__open_input(path, NULL, &db, id, errbuf, sizeof(errbuf));
		if (rc)
			fail_msg("open_input: %s", errbuf);
		sqlite3_close(db);
		assert_int_equal(cache__path(path, cp[k], sizeof(cp[k])), 0);
		assert_int_equal(utimensat(AT_FDCWD, cp[k], ts, 0), 0); /* used at 1600000000+k */
	}
	snprintf(path, sizeof(path), "%s/ptop", dir);
	assert_int_equal(cache__list(path, true, &v, &n), 0);
	assert_int_equal(n, 3);
	assert_string_equal(v[0].capture_id, ids[2]); /* most recent first */
	assert_string_equal(v[2].capture_id, ids[0]);
	assert_true(v[0].capture_size > 0);
	assert_int_equal(stat(cp[0], &st), 0);
	free(v);
	/* a cap of two entries: the least recently used one goes, the kept one never */
	assert_int_equal(cache__evict(path, 2 * (uint64_t)st.st_size + st.st_size / 2, cp[0],
				      &freed, &removed),
			 0);
	assert_int_equal(removed, 1);
	assert_int_equal(access(cp[0], F_OK), 0); /* kept, though the oldest */
	assert_int_equal(access(cp[1], F_OK), -1);
	assert_int_equal(access(cp[2], F_OK), 0);
	/* a build under a cap of one entry leaves the new one alone */
	setenv(CACHE_MAX_ENV, "1", 1);
	snprintf(path, sizeof(path), "%s/cap1.ptop", tmpdir);
	rc = db__open_input(path, NULL, &db, id, errbuf, sizeof(errbuf));
	assert_int_equal(rc, 0);
	sqlite3_close(db);
	assert_int_equal(access(cp[1], F_OK), 0);
	assert_int_equal(access(cp[0], F_OK), -1);
	assert_int_equal(access(cp[2], F_OK), -1);
	unsetenv(CACHE_MAX_ENV);
	unsetenv("XDG_CACHE_HOME");
}

static void test_09_select_prefix(void **state)
{
	uint8_t a[16], b[16];
	char hexa[33], hexb[33], id[DB_CAPTURE_ID_LEN];
	const char *dbp = tpath("multi.db");
	struct load_stats st;
	sqlite3 *db = NULL;
	int rc;

	(void)state;
	fill_id(a, 0xab, 0xcd);
	fill_id(b, 0xab, 0xce);
	id_hex(a, hexa);
	id_hex(b, hexb);
	write_capture(tpath("m1.ptop"), a, true);
	write_capture(tpath("m2.ptop"), b, true);

	/* an empty DB */
	db = open_rw(dbp);
	sqlite3_close(db);
	rc = db__open_input(dbp, NULL, &db, id, errbuf, sizeof(errbuf));
	assert_int_equal(rc, -ENOENT);
	assert_non_null(strstr(errbuf, "holds no capture"));

	db = open_rw(dbp);
	load_ok(db, tpath("m1.ptop"), false, id, &st);
	sqlite3_close(db);
	/* one capture: no id needed */
	rc = db__open_input(dbp, NULL, &db, id, errbuf, sizeof(errbuf));
	assert_int_equal(rc, 0);
	assert_string_equal(id, hexa);
	assert_int_equal(sqlite3_db_readonly(db, "main"), 1);
	sqlite3_close(db);

	db = open_rw(dbp);
	load_ok(db, tpath("m2.ptop"), false, id, &st);
	sqlite3_close(db);
	db = NULL;
	rc = db__open_input(dbp, NULL, &db, id, errbuf, sizeof(errbuf));
	assert_int_equal(rc, -EINVAL);
	assert_null(db);
	assert_non_null(strstr(errbuf, "holds 2 captures"));
	assert_non_null(strstr(errbuf, hexa));
	assert_non_null(strstr(errbuf, hexb));
	assert_non_null(strstr(errbuf, "server pid 4321"));

	rc = db__open_input(dbp, "abc", &db, id, errbuf, sizeof(errbuf));
	assert_int_equal(rc, -EINVAL);
	assert_non_null(strstr(errbuf, "ambiguous"));
	assert_non_null(strstr(errbuf, hexa));
	assert_non_null(strstr(errbuf, hexb));

	rc = db__open_input(dbp, "ABCE", &db, id, errbuf, sizeof(errbuf));
	assert_int_equal(rc, 0);
	assert_string_equal(id, hexb);
	sqlite3_close(db);
	rc = db__open_input(dbp, hexa, &db, id, errbuf, sizeof(errbuf));
	assert_int_equal(rc, 0);
	assert_string_equal(id, hexa);
	sqlite3_close(db);

	rc = db__open_input(dbp, "ff", &db, id, errbuf, sizeof(errbuf));
	assert_int_equal(rc, -ENOENT);
	assert_non_null(strstr(errbuf, "no capture whose id starts with ff"));
	rc = db__open_input(dbp, "xyz", &db, id, errbuf, sizeof(errbuf));
	assert_int_equal(rc, -EINVAL);
	assert_non_null(strstr(errbuf, "hex"));
	assert_null(db);
}

/* Empty every table (between the loads of test 10). */
static void delete_all(sqlite3 *db)
{
	sqlite3_stmt *s = NULL;
	char sql[128];

	assert_int_equal(sqlite3_prepare_v2(db, "SELECT name FROM sqlite_master WHERE type = 'table'",
					    -1, &s, NULL),
			 SQLITE_OK);
	while (sqlite3_step(s) == SQLITE_ROW) {
		snprintf(sql, sizeof(sql), "DELETE FROM \"%s\"", sqlite3_column_text(s, 0));
		assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
	}
	sqlite3_finalize(s);
}

/* Every cut and a flipped byte every few offsets: each load either refuses the
 * file (no header) or loads what it can and says how reading ended. Never a
 * crash, never a half-loaded capture left behind. */
static void test_10_damaged(void **state)
{
	uint8_t raw[16];
	char id[DB_CAPTURE_ID_LEN];
	const char *good = tpath("good.ptop"), *bad = tpath("bad.ptop");
	struct load_stats st;
	unsigned char *buf;
	struct stat fs;
	sqlite3 *db;
	int fd, loaded = 0, refused = 0;

	(void)state;
	fill_id(raw, 0xda, 0x3a);
	write_capture(good, raw, true);
	assert_int_equal(stat(good, &fs), 0);
	buf = malloc((size_t)fs.st_size);
	assert_non_null(buf);
	fd = open(good, O_RDONLY);
	assert_int_equal(read(fd, buf, (size_t)fs.st_size), fs.st_size);
	close(fd);
	db = open_rw(tpath("damaged.db"));
	sqlite3_exec(db, "PRAGMA synchronous = OFF", NULL, NULL, NULL);

	for (off_t k = 0; k < 2 * fs.st_size; k++) {
		bool cut = k < fs.st_size;
		off_t at = cut ? k : k - fs.st_size;
		int rc;

		if (!cut && at % 3)
			continue;
		fd = open(bad, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		assert_true(fd >= 0);
		if (cut) {
			assert_int_equal(write(fd, buf, (size_t)at), at);
		} else {
			buf[at] ^= 0x5a;
			assert_int_equal(write(fd, buf, (size_t)fs.st_size), fs.st_size);
			buf[at] ^= 0x5a;
		}
		close(fd);
		rc = db__load_capture(db, bad, true, id, &st, errbuf, sizeof(errbuf));
		if (rc == 0) {
			loaded++;
			assert_int_equal(q_int(db, "SELECT count(*) FROM capture"), 1);
			assert_int_equal(q_int(db, "SELECT records FROM capture"), st.records);
			assert_int_equal(q_int(db, "SELECT count(*) FROM capture WHERE read_end IN "
						   "('clean', 'truncated', 'corrupt')"),
					 1);
			/* complete only when cut right before the index frame: all records
			 * and the trailer are there, only the index is missing */
			if (cut && st.complete)
				assert_string_equal(q_text(db, "SELECT records || ' ' || has_index "
							       "|| ' ' || read_end FROM capture"),
						    "13 0 clean");
			if (!st.complete)
				assert_int_not_equal(st.read_message[0], 0);
		} else {
			refused++;
			/* a flipped format version reads as a newer format */
			if (rc != -EBADMSG && !(rc == -ENOTSUP && at >= 16 && at < 20))
				fail_msg("offset %lld (%s): %d %s", (long long)at,
					 cut ? "cut" : "flip", rc, errbuf);
			assert_int_not_equal(errbuf[0], 0);
		}
		/* nothing of a refused file, nothing of the previous one */
		assert_true(q_int(db, "SELECT count(*) FROM capture") <= 1);
		delete_all(db);
	}
	assert_true(loaded > 0);
	assert_true(refused > 0);
	sqlite3_close(db);
	free(buf);
}

/* Counters the kernel's smaps_rollup did not print (SmapsRollup.missing, by
 * their /proc name as collectors/memory/record.c writes them) load as NULL, not 0; the
 * rest of the group keeps its values, measured zeros included. */
static void test_11_rollup_missing(void **state)
{
	/* Linux before 5.9: no Pss_Anon, Pss_File, Pss_Shmem; a name this build does
	 * not know is ignored */
	static const char *const old_kernel[] = { "Pss_Anon", "Pss_File", "Pss_Shmem",
						  "Future_Counter" };
	static const char *const no_private[] = { "Private_Dirty", "swappss" };
	struct capture_writer_opts o = { .force = true };
	struct capture_writer *w;
	char id[DB_CAPTURE_ID_LEN];
	uint8_t raw[16];
	sqlite3 *db;

	(void)state;
	fill_id(raw, 0x55, 0x66);
	w = capture_writer__create(tpath("missing_rollup.ptop"), &o);
	assert_non_null(w);
	put_header(w, raw);
	put_memory_missing(w, T0 + SEC, true, old_kernel, 4);
	put_memory_missing(w, T0 + 2 * SEC, true, no_private, 2);
	put_memory(w, T0 + 3 * SEC, true);
	put_trailer(w, T0 + 4 * SEC, 4);
	assert_int_equal(capture_writer__close(w), 0);
	db = open_rw(tpath("missing_rollup.db"));
	load_ok(db, tpath("missing_rollup.ptop"), false, id, NULL);
	assert_int_equal(rows_of(db, "memory_sample", id), 3);
#define R(t) q_text(db, "SELECT quote(rss) || ' ' || quote(pss) || ' ' || quote(uss) || ' ' || " \
			"quote(pss_anon) || ' ' || quote(pss_file) || ' ' || quote(pss_shmem) || " \
			"' ' || quote(private_clean) || ' ' || quote(private_dirty) || ' ' || " \
			"quote(swap) || ' ' || quote(swap_pss) FROM memory_sample WHERE " \
			"time_ns = %llu", (unsigned long long)(T0 + (t) * SEC))
	assert_string_equal(R(1), "10485760 9437184 8388608 NULL NULL NULL 1048576 7340032 0 0");
	/* uss is Private_Clean + Private_Dirty: not known without both */
	assert_string_equal(R(2), "10485760 9437184 NULL 7340032 1048576 0 1048576 NULL 0 NULL");
	assert_string_equal(R(3), "10485760 9437184 8388608 7340032 1048576 0 1048576 7340032 0 0");
#undef R
	sqlite3_close(db);
}

/* SmapsRollup.missing_fields, which recorders write beside the /proc keys since it
 * exists, load as test_11's keys do; when a record has both, the fields decide. */
static void test_22_rollup_missing_fields(void **state)
{
	static const Ptop__V1__SmapsField old_kernel[] = {
		PTOP__V1__SMAPS_FIELD__SMAPS_FIELD_PSS_ANON,
		PTOP__V1__SMAPS_FIELD__SMAPS_FIELD_PSS_FILE,
		PTOP__V1__SMAPS_FIELD__SMAPS_FIELD_PSS_SHMEM,
		(Ptop__V1__SmapsField)40, /* a field this build does not know: ignored */
	};
	static const Ptop__V1__SmapsField no_private[] = {
		PTOP__V1__SMAPS_FIELD__SMAPS_FIELD_PRIVATE_DIRTY,
		PTOP__V1__SMAPS_FIELD__SMAPS_FIELD_SWAP_PSS,
	};
	static const char *const wrong_keys[] = { "Pss_Anon", "Locked" };
	struct capture_writer_opts o = { .force = true };
	struct capture_writer *w;
	char id[DB_CAPTURE_ID_LEN];
	uint8_t raw[16];
	sqlite3 *db;

	(void)state;
	fill_id(raw, 0x56, 0x67);
	w = capture_writer__create(tpath("missing_fields.ptop"), &o);
	assert_non_null(w);
	put_header(w, raw);
	put_memory_fields(w, T0 + SEC, true, NULL, 0, old_kernel, 4);
	put_memory_fields(w, T0 + 2 * SEC, true, wrong_keys, 2, no_private, 2);
	put_memory(w, T0 + 3 * SEC, true);
	put_trailer(w, T0 + 4 * SEC, 4);
	assert_int_equal(capture_writer__close(w), 0);
	db = open_rw(tpath("missing_fields.db"));
	load_ok(db, tpath("missing_fields.ptop"), false, id, NULL);
	assert_int_equal(rows_of(db, "memory_sample", id), 3);
#define R(t) q_text(db, "SELECT quote(rss) || ' ' || quote(pss) || ' ' || quote(uss) || ' ' || " \
			"quote(pss_anon) || ' ' || quote(pss_file) || ' ' || quote(pss_shmem) || " \
			"' ' || quote(private_clean) || ' ' || quote(private_dirty) || ' ' || " \
			"quote(swap) || ' ' || quote(swap_pss) || ' ' || quote(locked) FROM " \
			"memory_sample WHERE time_ns = %llu", (unsigned long long)(T0 + (t) * SEC))
	assert_string_equal(R(1), "10485760 9437184 8388608 NULL NULL NULL 1048576 7340032 0 0 0");
	assert_string_equal(R(2),
			    "10485760 9437184 NULL 7340032 1048576 0 1048576 NULL 0 NULL 0");
	assert_string_equal(R(3),
			    "10485760 9437184 8388608 7340032 1048576 0 1048576 7340032 0 0 0");
#undef R
	sqlite3_close(db);
}

/* A ProbeChange at T: the collector NAME is now in STATE from SOURCE. NAME NULL
 * writes one without a probe (malformed). */
static void put_probe_change(struct capture_writer *w, uint64_t t, const char *name,
			     Ptop__V1__ProbeState state, Ptop__V1__ProbeSource source,
			     const char *reason, const char *detail, const char *cause)
{
	Ptop__V1__Record r = PTOP__V1__RECORD__INIT;
	Ptop__V1__ProbeChange pc = PTOP__V1__PROBE_CHANGE__INIT;
	Ptop__V1__Probe p = PTOP__V1__PROBE__INIT;

	p.name = (char *)(name ? name : "");
	p.state = state;
	p.source = source;
	p.reason = (char *)(reason ? reason : "");
	p.detail = (char *)(detail ? detail : "");
	pc.time_ns = t;
	pc.probe = name ? &p : NULL;
	pc.cause = (char *)(cause ? cause : "");
	r.kind_case = PTOP__V1__RECORD__KIND_PROBE_CHANGE;
	r.probe_change = &pc;
	capw__append(w, &r);
}

/* `info` of capture ID in DB, as text (lines wrapped to WIDTH columns, 0: not) or JSON;
 * malloc'd. */
static char *info_of_width(sqlite3 *db, const char *id, bool json, int width)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(info__print(db, id, "x.ptop", json, width, f), 0);
	assert_int_equal(fclose(f), 0);
	return buf;
}

/* `info` of capture ID in DB, as text or JSON; malloc'd. */
static char *info_of(sqlite3 *db, const char *id, bool json)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(info__print(db, id, "x.ptop", json, 0, f), 0);
	assert_int_equal(fclose(f), 0);
	return buf;
}

/* json_extract(JSON, PATH) as text ("<NULL>" for null), through SQLite's JSON functions. */
static const char *jx(sqlite3 *db, const char *json, const char *path)
{
	static char out[4][512];
	static int k;
	sqlite3_stmt *s = NULL;

	k = (k + 1) % 4;
	assert_int_equal(sqlite3_prepare_v2(db, "SELECT json_extract(?1, ?2) WHERE json_valid(?1)",
					    -1, &s, NULL),
			 SQLITE_OK);
	sqlite3_bind_text(s, 1, json, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 2, path, -1, SQLITE_STATIC);
	if (sqlite3_step(s) != SQLITE_ROW)
		fail_msg("not valid JSON: %s", json);
	snprintf(out[k], sizeof(out[k]), "%s",
		 sqlite3_column_type(s, 0) == SQLITE_NULL
		     ? "<NULL>"
		     : (const char *)sqlite3_column_text(s, 0));
	sqlite3_finalize(s);
	return out[k];
}

/* ProbeChange records load into probe_change in file order (malformed ones counted,
 * not loaded), and `info` lists them after the probes, as text and JSON; a capture
 * without changes prints no section and an empty array. */
static void test_12_probe_change(void **state)
{
	static const char section[] =
	    "\nprobe changes:\n"
	    "  time     name     state   source\n"
	    "  0.400 s  heap     active  ebpf\n"
	    "      cause: exec /tmp/heap_static\n"
	    "      detail: uprobes on /tmp/heap_static (malloc)\n"
	    "  1.500 s  goalloc  failed  -\n"
	    "      cause: exec /usr/bin/gobin\n"
	    "      reason: no Go runtime symbols\n"
	    "\nrecords by type:\n";
	struct capture_writer_opts o = {.force = true};
	struct capture_writer *w;
	char id[DB_CAPTURE_ID_LEN], id2[DB_CAPTURE_ID_LEN];
	uint8_t raw[16];
	char *text, *json;
	sqlite3 *db;

	(void)state;
	fill_id(raw, 0x77, 0x88);
	w = capture_writer__create(tpath("changes.ptop"), &o);
	assert_non_null(w);
	put_header(w, raw);
	put_cpu(w, T0 + SEC / 4, PID, true, true);
	put_probe_change(w, T0 + 400000000, "heap", PTOP__V1__PROBE_STATE__PROBE_STATE_ACTIVE,
			 PTOP__V1__PROBE_SOURCE__PROBE_SOURCE_EBPF, "",
			 "uprobes on /tmp/heap_static (malloc)", "exec /tmp/heap_static");
	put_probe_change(w, T0 + SEC, NULL, 0, 0, NULL, NULL, "exec /bin/true"); /* no probe */
	put_probe_change(w, T0 + SEC, "", PTOP__V1__PROBE_STATE__PROBE_STATE_ACTIVE, 0, NULL, NULL,
			 NULL); /* no name */
	put_probe_change(w, T0 + 3 * SEC / 2, "goalloc", PTOP__V1__PROBE_STATE__PROBE_STATE_FAILED,
			 PTOP__V1__PROBE_SOURCE__PROBE_SOURCE_UNSPECIFIED, "no Go runtime symbols",
			 NULL, "exec /usr/bin/gobin");
	put_cpu(w, T0 + 2 * SEC, PID, true, true);
	put_trailer(w, T0 + 2 * SEC, 8);
	assert_int_equal(capture_writer__close(w), 0);

	db = open_rw(tpath("changes.db"));
	load_ok(db, tpath("changes.ptop"), false, id, NULL);
	assert_int_equal(rows_of(db, "probe_change", id), 2);
	assert_string_equal(q_text(db,
				   "SELECT group_concat(seq || '|' || time_ns || '|' || name || "
				   "'|' || state || '|' || quote(source) || '|' || quote(reason) "
				   "|| '|' || quote(detail) || '|' || quote(cause), ' / ') FROM "
				   "(SELECT * FROM probe_change ORDER BY seq)"),
			    "0|1000400000000|heap|active|'ebpf'|NULL|'uprobes on /tmp/heap_static "
			    "(malloc)'|'exec /tmp/heap_static' / "
			    "1|1001500000000|goalloc|failed|NULL|'no Go runtime symbols'|NULL|"
			    "'exec /usr/bin/gobin'");
	assert_string_equal(q_text(db,
				   "SELECT group_concat(kind || '=' || count, ' ') FROM (SELECT "
				   "* FROM record_count ORDER BY kind)"),
			    "event:cpu=2 header=1 probe_change=4 probe_change:bad=2 trailer=1");
	/* the header's probes are untouched: the state at the start */
	assert_int_equal(rows_of(db, "probe", id), 3);

	text = info_of(db, id, false);
	if (!strstr(text, section)) {
		fprintf(stderr, "expected:%s\nin:\n%s", section, text);
		fail_msg("no probe changes section as expected");
	}
	assert_non_null(strstr(text, "\nprobes (")); /* after the probes */
	assert_true(strstr(text, "\nprobes (") < strstr(text, "\nprobe changes:\n"));
	free(text);

	json = info_of(db, id, true);
	assert_string_equal(
	    jx(db, json, "$.probe_changes"),
	    "[{\"time_ns\":1000400000000,\"time_s\":0.4,\"name\":\"heap\","
	    "\"state\":\"active\",\"source\":\"ebpf\",\"cause\":\"exec "
	    "/tmp/heap_static\",\"detail\":\"uprobes on /tmp/heap_static (malloc)\","
	    "\"reason\":null},{\"time_ns\":1001500000000,\"time_s\":1.5,\"name\":"
	    "\"goalloc\",\"state\":\"failed\",\"source\":null,\"cause\":\"exec "
	    "/usr/bin/gobin\",\"detail\":null,\"reason\":\"no Go runtime symbols\"}]");
	assert_string_equal(jx(db, json, "$.probes[0].name"), "cpu");
	free(json);

	/* a capture without changes: no section, an empty array */
	fill_id(raw, 0x99, 0xaa);
	write_capture(tpath("nochange.ptop"), raw, true);
	load_ok(db, tpath("nochange.ptop"), false, id2, NULL);
	assert_int_equal(rows_of(db, "probe_change", id2), 0);
	text = info_of(db, id2, false);
	assert_null(strstr(text, "probe changes"));
	assert_non_null(strstr(text, "\nprobes ("));
	free(text);
	json = info_of(db, id2, true);
	assert_string_equal(jx(db, json, "$.probe_changes"), "[]");
	free(json);
	sqlite3_close(db);
}

/* A CpuProfile event at T with pid EV_PID and the (user, kernel, count, pid)
 * stack counts SC[0..N). */
static void put_cpuprof_counts(struct capture_writer *w, uint64_t t, int32_t ev_pid,
			       const int64_t (*sc)[4], size_t n)
{
	Ptop__V1__Event ev = PTOP__V1__EVENT__INIT;
	Ptop__V1__CpuProfile p = PTOP__V1__CPU_PROFILE__INIT;
	Ptop__V1__StackCount c[8], *cp[8];
	/* a cgroup's profile names its processes: the second name of 200 is ignored, and
	 * pid 0 names nothing */
	Ptop__V1__ProcessName pn[4], *pnp[4];
	static const struct {
		int32_t pid;
		const char *comm;
	} names[4] = { { 100, "alpha" }, { 200, "beta" }, { 200, "gamma" }, { 0, "nobody" } };

	assert_true(n <= 8);
	for (size_t k = 0; k < 4; k++) {
		ptop__v1__process_name__init(&pn[k]);
		pn[k].pid = names[k].pid;
		pn[k].comm = (char *)names[k].comm;
		pnp[k] = &pn[k];
	}
	if (!ev_pid) {
		p.processes = pnp;
		p.n_processes = 4;
	}
	for (size_t k = 0; k < n; k++) {
		ptop__v1__stack_count__init(&c[k]);
		c[k].user_stack_id = (uint64_t)sc[k][0];
		c[k].kernel_stack_id = (uint64_t)sc[k][1];
		c[k].count = (uint64_t)sc[k][2];
		c[k].pid = (int32_t)sc[k][3];
		cp[k] = &c[k];
	}
	p.requested_hz = 49;
	p.ticks = 98;
	p.cpus = 2;
	p.samples = 17;
	p.stacks = cp;
	p.n_stacks = n;
	ev.time_ns = t;
	ev.pid = ev_pid;
	ev.interval_ns = SEC;
	ev.category = PTOP__V1__CATEGORY__CATEGORY_CPUPROF;
	ev.payload_case = PTOP__V1__EVENT__PAYLOAD_CPUPROF;
	ev.cpuprof = &p;
	put_event(w, &ev);
}

/* StackCount.pid: the process of each count in a cgroup's profile, NULL when 0
 * (the event's pid); the event's pid 0 is NULL in cpu_profile. */
static void test_13_cpuprof_stack_pid(void **state)
{
	static const int64_t cgroup[][4] = {
	    {11, 2, 5, 100}, {12, 0, 7, 200}, {0, 2, 3, 200}, {13, 0, 2, 0}};
	static const int64_t single[][4] = {{21, 0, 4, 0}};
	struct capture_writer_opts o = {.force = true};
	struct capture_writer *w;
	char id[DB_CAPTURE_ID_LEN];
	uint8_t raw[16];
	sqlite3 *db;

	(void)state;
	fill_id(raw, 0x5c, 0x9d);
	w = capture_writer__create(tpath("cg.ptop"), &o);
	assert_non_null(w);
	put_header(w, raw);
	put_cpuprof_counts(w, T0 + SEC, 0, cgroup, 4);
	put_cpuprof_counts(w, T0 + 2 * SEC, PID, single, 1);
	assert_int_equal(capture_writer__close(w), 0);

	db = open_rw(tpath("cg.db"));
	load_ok(db, tpath("cg.ptop"), false, id, NULL);
	assert_string_equal(q_text(db, "SELECT group_concat(seq || ':' || quote(pid) || ':' || "
				       "samples, ' ') FROM (SELECT * FROM cpu_profile "
				       "ORDER BY seq)"),
			    "0:NULL:17 1:4321:17");
	assert_string_equal(q_text(db, "SELECT group_concat(seq || ':' || quote(user_stack_id) || "
				       "':' || quote(kernel_stack_id) || ':' || count || ':' || "
				       "quote(pid), ' ') FROM (SELECT * FROM cpu_profile_stack "
				       "ORDER BY rowid)"),
			    "0:11:2:5:100 0:12:NULL:7:200 0:NULL:2:3:200 0:13:NULL:2:NULL "
			    "1:21:NULL:4:NULL");
	assert_string_equal(q_text(db, "SELECT group_concat(seq || ':' || pid || ':' || comm, ' ') "
				       "FROM (SELECT * FROM cpu_profile_process ORDER BY seq, pid)"),
			    "0:100:alpha 0:200:beta");
	sqlite3_close(db);
}

/* A cgroup-mode cpu sample (Event.pid 0): the eBPF lane when ONCPU >= 0, the cgroup
 * lane (cpu.stat deltas) with the throttling counters when THROTTLING. */
static void put_cpu_cgroup(struct capture_writer *w, uint64_t t, int64_t oncpu, bool throttling)
{
	Ptop__V1__Event ev = PTOP__V1__EVENT__INIT;
	Ptop__V1__CpuSample c = PTOP__V1__CPU_SAMPLE__INIT;
	Ptop__V1__CpuEbpf e = PTOP__V1__CPU_EBPF__INIT;
	Ptop__V1__CpuCgroup g = PTOP__V1__CPU_CGROUP__INIT;

	e.oncpu_ns = (uint64_t)oncpu;
	e.switches = 77;
	g.usage_ns = 1500000000;
	g.user_ns = 1100000000;
	g.system_ns = 400000000;
	g.throttling = throttling;
	/* set either way: without THROTTLING they were not read and must not load */
	g.periods = 10;
	g.throttled_periods = 0; /* a measured zero */
	g.throttled_ns = 25000000;
	c.ebpf = oncpu >= 0 ? &e : NULL;
	c.cgroup = &g;
	ev.time_ns = t;
	ev.pid = 0;
	ev.category = PTOP__V1__CATEGORY__CATEGORY_CPU;
	ev.interval_ns = SEC;
	ev.payload_case = PTOP__V1__EVENT__PAYLOAD_CPU;
	ev.cpu = &c;
	put_event(w, &ev);
}

/* CpuSample.cgroup: the six cg_* columns; throttling false leaves the three throttling
 * columns NULL (a read zero stays 0); a sample without the lane has them all NULL. */
static void test_14_cpu_cgroup_lane(void **state)
{
	struct capture_writer_opts o = {.force = true};
	struct capture_writer *w;
	char id[DB_CAPTURE_ID_LEN];
	uint8_t raw[16];
	sqlite3 *db;

	(void)state;
	fill_id(raw, 0xc9, 0x57);
	w = capture_writer__create(tpath("cgcpu.ptop"), &o);
	assert_non_null(w);
	put_header(w, raw);
	put_cpu_cgroup(w, T0 + SEC, 1400000000, true);
	put_cpu_cgroup(w, T0 + 2 * SEC, -1, false);
	put_cpu(w, T0 + 3 * SEC, PID, true, true);
	assert_int_equal(capture_writer__close(w), 0);

	db = open_rw(tpath("cgcpu.db"));
	load_ok(db, tpath("cgcpu.ptop"), false, id, NULL);
	assert_int_equal(rows_of(db, "cpu_sample", id), 3);
	assert_string_equal(
	    q_text(db,
		   "SELECT group_concat((time_ns - %llu) || ':' || quote(pid) || "
		   "':' || quote(oncpu_ns) || ':' || quote(user_ns) || ':' || "
		   "quote(cg_usage_ns) || ':' || quote(cg_user_ns) || ':' || "
		   "quote(cg_system_ns) || ':' || quote(cg_periods) || ':' || "
		   "quote(cg_throttled_periods) || ':' || quote(cg_throttled_ns), "
		   "' ') FROM (SELECT * FROM cpu_sample ORDER BY time_ns)",
		   (unsigned long long)T0),
	    "1000000000:NULL:1400000000:NULL:1500000000:1100000000:400000000:10:0:"
	    "25000000 "
	    "2000000000:NULL:NULL:NULL:1500000000:1100000000:400000000:NULL:NULL:NULL "
	    "3000000000:4321:250000000:200000000:NULL:NULL:NULL:NULL:NULL:NULL");
	sqlite3_close(db);
}

/* Exec SQL; the error message of a failure ("" on success). */
static const char *exec_msg(sqlite3 *db, const char *sql)
{
	static char out[256];
	char *msg = NULL;

	out[0] = 0;
	if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK)
		snprintf(out, sizeof(out), "%s", msg ? msg : "error");
	sqlite3_free(msg);
	return out;
}

/* syscall_hist, stack_frame and vma are views of compact tables: rows read and
 * inserted through them as through the tables they were. */
static void test_19_compact_views(void **state)
{
	sqlite3 *db;

	(void)state;
	db = open_rw(tpath("views.db"));
	assert_string_equal(exec_msg(db, "INSERT INTO syscall_stat (cap, time_ns, interval_ns, pid, "
					 "nr, name, count, completed, errors, total_ns) VALUES "
					 "(1, 5, 1, 42, 0, 'read', 9, 9, 0, 100), "
					 "(1, 5, 1, NULL, 0, 'read', 1, 1, 0, 7)"),
			    "");
	/* buckets in any order; a bucket given twice adds up */
	assert_string_equal(exec_msg(db, "INSERT INTO syscall_hist (cap, time_ns, pid, nr, bucket, "
					 "count) VALUES (1, 5, 42, 0, 10, 4), (1, 5, 42, 0, 3, 2), "
					 "(1, 5, 42, 0, 10, 1), (1, 5, 42, 0, 12, 2), "
					 "(1, 5, NULL, 0, 0, 1)"),
			    "");
	assert_string_equal(q_text(db, "SELECT latency_hist FROM syscall_stat WHERE pid = 42"),
			    "[0,0,0,2,0,0,0,0,0,0,5,0,2]");
	assert_string_equal(q_text(db, "SELECT group_concat(quote(pid) || ':' || bucket || ':' || "
				       "count, ' ') FROM (SELECT * FROM syscall_hist ORDER BY pid, "
				       "bucket)"),
			    "NULL:0:1 42:3:2 42:10:5 42:12:2");
	assert_non_null(strstr(exec_msg(db, "INSERT INTO syscall_hist (cap, time_ns, pid, nr, "
					    "bucket, count) VALUES (1, 6, 42, 0, 3, 1)"),
			       "insert the syscall_stat row"));
	assert_non_null(strstr(exec_msg(db, "INSERT INTO syscall_hist (cap, time_ns, pid, nr, "
					    "bucket, count) VALUES (1, 5, 42, 0, 64, 1)"),
			       "0 to 63"));

	/* frames in depth order after their stack row; -1 is 0xffff...ff */
	assert_string_equal(exec_msg(db, "INSERT INTO stack (cap, stack_id, kernel, depth) VALUES "
					 "(1, 7, 0, 2); INSERT INTO stack_frame (cap, stack_id, "
					 "depth, ip) VALUES (1, 7, 0, 4096), (1, 7, 1, -1)"),
			    "");
	assert_string_equal(q_text(db, "SELECT ips FROM stack"), "[4096,-1]");
	assert_string_equal(q_text(db, "SELECT group_concat(depth || ':' || ip, ' ') FROM (SELECT * "
				       "FROM stack_frame ORDER BY depth)"),
			    "0:4096 1:-1");
	assert_non_null(strstr(exec_msg(db, "INSERT INTO stack_frame (cap, stack_id, depth, ip) "
					    "VALUES (1, 7, 3, 1)"),
			       "depth order"));
	assert_non_null(strstr(exec_msg(db, "INSERT INTO stack_frame (cap, stack_id, depth, ip) "
					    "VALUES (1, 8, 0, 1)"),
			       "insert the stack row"));

	/* VMAs sharing perms, dev, inode and path share one vma_file row */
	assert_string_equal(exec_msg(db, "INSERT INTO vma (cap, snapshot_id, start, end, perms, "
					 "offset, dev, inode, path, size, rss) VALUES "
					 "(1, 0, 4096, 8192, 'r-xp', 0, 'fd:01', 12, '/lib/a.so', "
					 "4096, 4096), (1, 0, 8192, 12288, NULL, 0, NULL, 0, '', "
					 "4096, 0), (1, 1, 4096, 8192, 'r-xp', 4096, 'fd:01', 12, "
					 "'/lib/a.so', 4096, 1024)"),
			    "");
	assert_int_equal(q_int(db, "SELECT count(*) FROM vma_file"), 2);
	assert_string_equal(q_text(db, "SELECT group_concat(snapshot_id || ' ' || start || ' ' || "
				       "quote(perms) || ' ' || offset || ' ' || quote(dev) || ' ' || "
				       "inode || ' ' || quote(path) || ' ' || rss, ' / ') FROM "
				       "(SELECT * FROM vma ORDER BY snapshot_id, start)"),
			    "0 4096 'r-xp' 0 'fd:01' 12 '/lib/a.so' 4096 / "
			    "0 8192 NULL 0 NULL 0 '' 0 / "
			    "1 4096 'r-xp' 4096 'fd:01' 12 '/lib/a.so' 1024");
	sqlite3_close(db);
}

static void copy_file(const char *from, const char *to)
{
	char buf[65536];
	int in = open(from, O_RDONLY | O_CLOEXEC), out;
	ssize_t n;

	assert_true(in >= 0);
	out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	assert_true(out >= 0);
	while ((n = read(in, buf, sizeof(buf))) > 0)
		assert_int_equal(write(out, buf, (size_t)n), n);
	assert_int_equal(n, 0);
	close(in);
	close(out);
}

/* A DB of this schema version that lacks one table or view (dropped by hand, a
 * damaged file) is refused by db__open naming it; every table and view of the
 * schema is checked (issue 10: replay said "not an error"). */
static void test_15_missing_table(void **state)
{
	char names[128][64], types[128][8], p[64], want[96];
	sqlite3_stmt *st = NULL;
	sqlite3 *db = NULL, *raw = NULL;
	size_t n = 0, k;
	int rc;

	(void)state;
	db = open_rw(tpath("schema-ref.db"));
	assert_int_equal(sqlite3_prepare_v2(db,
					    "SELECT type, name FROM sqlite_master WHERE type IN "
					    "('table', 'view') AND name NOT LIKE 'sqlite%'",
					    -1, &st, NULL),
			 SQLITE_OK);
	while (sqlite3_step(st) == SQLITE_ROW && n < 128) {
		snprintf(types[n], sizeof(types[n]), "%s", sqlite3_column_text(st, 0));
		snprintf(names[n], sizeof(names[n]), "%s", sqlite3_column_text(st, 1));
		n++;
	}
	sqlite3_finalize(st);
	sqlite3_close(db);
	assert_true(n > 10 && n < 128);
	for (k = 0; k < n; k++) {
		snprintf(p, sizeof(p), "drop-%zu.db", k);
		copy_file(tpath("schema-ref.db"), tpath(p));
		assert_int_equal(sqlite3_open(tpath(p), &raw), SQLITE_OK);
		/* a scratch copy: no journal, no fsync */
		assert_int_equal(sqlite3_exec(raw,
					      "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF",
					      NULL, NULL, NULL),
				 SQLITE_OK);
		snprintf(want, sizeof(want), "DROP %s %s", types[k], names[k]);
		assert_int_equal(sqlite3_exec(raw, want, NULL, NULL, NULL), SQLITE_OK);
		sqlite3_close(raw);
		db = NULL;
		rc = db__open(tpath(p), false, true, &db, errbuf, sizeof(errbuf));
		if (rc != -EPROTO)
			fail_msg("without %s %s: db__open gave %d (%s)", types[k], names[k], rc,
				 errbuf);
		assert_null(db);
		snprintf(want, sizeof(want), "no %s %s:", types[k], names[k]);
		if (!strstr(errbuf, want) || !strstr(errbuf, "another ptop version"))
			fail_msg("without %s %s: '%s'", types[k], names[k], errbuf);
		rc = db__open_input(tpath(p), NULL, &db, (char[DB_CAPTURE_ID_LEN]){ 0 }, errbuf,
				    sizeof(errbuf));
		assert_int_equal(rc, -EPROTO);
		unlink(tpath(p));
	}
}

/* A DB of this schema version written by another build whose tables differ (its
 * application_id, the schema's id, is not this build's: an entry of the cache built by
 * an older ptop before a column was added, lifecycle's status_known or locks'
 * interval_ns, without a new DB_SCHEMA_VERSION; 0 for a build before the id) is refused
 * saying so, so the cache builds the entry again instead of failing a report's query. */
static void test_15b_other_build(void **state)
{
	const int32_t others[] = {0, 2, -5};
	char p[64], sql[96];
	sqlite3 *db = NULL, *raw = NULL;
	int64_t id = 0;
	sqlite3_stmt *st = NULL;
	int rc;

	(void)state;
	db = open_rw(tpath("schema-ref2.db"));
	assert_int_equal(sqlite3_prepare_v2(db, "PRAGMA application_id", -1, &st, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	id = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	sqlite3_close(db);
	assert_true(id != 0);
	for (size_t k = 0; k < sizeof(others) / sizeof(*others); k++) {
		snprintf(p, sizeof(p), "other-build-%zu.db", k);
		copy_file(tpath("schema-ref2.db"), tpath(p));
		assert_int_equal(sqlite3_open(tpath(p), &raw), SQLITE_OK);
		snprintf(sql, sizeof(sql), "PRAGMA application_id = %d",
			 others[k] == 2 ? (int)(id ^ 2) : others[k]);
		assert_int_equal(sqlite3_exec(raw, sql, NULL, NULL, NULL), SQLITE_OK);
		sqlite3_close(raw);
		db = NULL;
		rc = db__open(tpath(p), false, true, &db, errbuf, sizeof(errbuf));
		if (rc != -EPROTO || !strstr(errbuf, "another build of ptop-analyze") ||
		    !strstr(errbuf, "load the capture again"))
			fail_msg("%s: db__open gave %d (%s)", sql, rc, errbuf);
		assert_null(db);
		unlink(tpath(p));
	}
	/* this build's own id opens */
	assert_int_equal(db__open(tpath("schema-ref2.db"), false, true, &db, errbuf, sizeof(errbuf)),
			 0);
	sqlite3_close(db);
}

/* The cache folder is used only when it is this user's own and nobody else may
 * write it (issue 10: one of another user, or world-writable, was used). */
static void test_16_cache_folder_trust(void **state)
{
	char dir[300], ptopdir[320], id[DB_CAPTURE_ID_LEN];
	const char *cap = tpath("trust.ptop");
	uint8_t a[16];
	sqlite3 *db = NULL;
	int rc;

	(void)state;
	snprintf(dir, sizeof(dir), "%s/xdg-trust", tmpdir);
	snprintf(ptopdir, sizeof(ptopdir), "%s/ptop", dir);
	setenv("XDG_CACHE_HOME", dir, 1);
	fill_id(a, 0x7e, 0x57);
	write_capture(cap, a, true);
	assert_int_equal(mkdir(dir, 0700), 0);
	assert_int_equal(mkdir(ptopdir, 0700), 0);

	assert_int_equal(chmod(ptopdir, 0777), 0);
	rc = db__open_input(cap, NULL, &db, id, errbuf, sizeof(errbuf));
	assert_int_equal(rc, -EPERM);
	assert_null(db);
	assert_non_null(strstr(errbuf, ptopdir));
	assert_non_null(strstr(errbuf, "writable by every user (mode 0777)"));
	assert_non_null(strstr(errbuf, "XDG_CACHE_HOME"));

	assert_int_equal(chmod(ptopdir, 0770), 0);
	rc = db__open_input(cap, NULL, &db, id, errbuf, sizeof(errbuf));
	assert_int_equal(rc, -EPERM);
	assert_non_null(strstr(errbuf, "writable by its group"));

	/* a folder of another user (only root can make one here) */
	assert_int_equal(chmod(ptopdir, 0700), 0);
	if (geteuid() == 0) {
		assert_int_equal(chown(ptopdir, 65534, 65534), 0);
		rc = db__open_input(cap, NULL, &db, id, errbuf, sizeof(errbuf));
		assert_int_equal(rc, -EPERM);
		assert_non_null(strstr(errbuf, "belongs to uid 65534, not to you"));
		assert_int_equal(chown(ptopdir, 0, 0), 0);
	}

	/* its own, 0700: used */
	rc = db__open_input(cap, NULL, &db, id, errbuf, sizeof(errbuf));
	if (rc)
		fail_msg("open_input: %s", errbuf);
	sqlite3_close(db);
	unsetenv("XDG_CACHE_HOME");
}

/* info fits a width: every line of the text at 60 columns is at most 60 long, a probe
 * change's long reason goes under its row, broken at spaces and continued under its
 * text (joined again it is whole), a word longer than the room (a path) is cut; without
 * a width each note is one line; JSON keeps every text whole. */
static void test_17_info_width(void **state)
{
	static const char reason[] =
	    "the allocator of this program could not be found because its executable has no "
	    "symbol table and its dynamic symbols name no malloc, calloc, realloc or free, so no "
	    "uprobe was attached: rebuild it with symbols or record it with the preload lane";
	char path[160], detail[200], id[DB_CAPTURE_ID_LEN], *text, *json, *line, *save = NULL;
	char joined[1024] = "";
	struct capture_writer_opts o = {.force = true};
	struct capture_writer *w;
	uint8_t raw[16];
	bool in_reason = false;
	sqlite3 *db;

	(void)state;
	memset(path, 'p', sizeof(path) - 1);
	path[0] = '/';
	path[sizeof(path) - 1] = 0;
	snprintf(detail, sizeof(detail), "uprobes on %s", path);
	fill_id(raw, 0x15, 0x16);
	w = capture_writer__create(tpath("wide.ptop"), &o);
	assert_non_null(w);
	put_header(w, raw);
	put_probe_change(w, T0 + SEC, "heap", PTOP__V1__PROBE_STATE__PROBE_STATE_FAILED,
			 PTOP__V1__PROBE_SOURCE__PROBE_SOURCE_EBPF, reason, detail, "exec /bin/x");
	put_trailer(w, T0 + 2 * SEC, 3);
	assert_int_equal(capture_writer__close(w), 0);
	db = open_rw(tpath("wide.db"));
	load_ok(db, tpath("wide.ptop"), false, id, NULL);

	text = info_of_width(db, id, false, 60);
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (strlen(line) > 60)
			fail_msg("a line of %zu columns at width 60: '%s'", strlen(line), line);
		if (!strcmp(line, "probe changes:"))
			joined[0] = 0; /* the header's probes have reasons too */
		if (!strncmp(line, "      reason: ", 14)) {
			in_reason = true;
			strcat(joined, line + 14);
		} else if (in_reason && !strncmp(line, "              ", 14) && line[14] != ' ') {
			strcat(joined, " ");
			strcat(joined, line + 14);
		} else {
			in_reason = false;
		}
	}
	assert_string_equal(joined, reason);
	free(text);

	text = info_of_width(db, id, false, 0);
	assert_non_null(strstr(text, "\n      reason: "));
	assert_non_null(strstr(strstr(text, "\n      reason: "), reason));
	assert_non_null(strstr(text, detail));
	free(text);

	json = info_of(db, id, true);
	assert_string_equal(jx(db, json, "$.probe_changes[0].reason"), reason);
	assert_string_equal(jx(db, json, "$.probe_changes[0].detail"), detail);
	free(json);

	/* a REAL far outside int64_t where an integer belongs (a DB changed by hand; the
	 * DB fuzzer made one): info reads it saturated, not by an undefined conversion
	 * (the UBSan build of this test stops on one) */
	assert_int_equal(sqlite3_exec(db, "UPDATE capture SET cpus = 1e300, page_size = -1e300",
				      NULL, NULL, NULL),
			 SQLITE_OK);
	text = info_of_width(db, id, false, 0);
	assert_non_null(strstr(text, "9223372036854775807 CPUs"));
	free(text);
	sqlite3_close(db);
}

/* One syscalls event at T with N stats: numbers NR, stored names NAME, 1 call each. */
static void put_syscall_names(struct capture_writer *w, uint64_t t, const uint32_t *nr,
			      char *const *name, size_t n)
{
	Ptop__V1__Event ev = PTOP__V1__EVENT__INIT;
	Ptop__V1__SyscallStats ss = PTOP__V1__SYSCALL_STATS__INIT;
	Ptop__V1__SyscallStat s[8];
	Ptop__V1__SyscallStat *sp[8];
	size_t k;

	assert_true(n <= 8);
	for (k = 0; k < n; k++) {
		ptop__v1__syscall_stat__init(&s[k]);
		s[k].nr = nr[k];
		s[k].name = name[k];
		s[k].count = 1;
		sp[k] = &s[k];
	}
	ss.n_stats = n;
	ss.stats = sp;
	ev.time_ns = t;
	ev.pid = PID;
	ev.category = PTOP__V1__CATEGORY__CATEGORY_SYSCALLS;
	ev.interval_ns = SEC;
	ev.payload_case = PTOP__V1__EVENT__PAYLOAD_SYSCALLS;
	ev.syscalls = &ss;
	put_event(w, &ev);
}

/* Syscall names come from ptop's table for the capture's machine, not from the
 * recorder's: a recorder built on headers older than Linux 6.11 stored "sys_335"
 * for uretprobe. A number the table lacks keeps the recorder's name, else "sys_N";
 * a machine without a table keeps the recorder's names. */
static void test_18_syscall_names(void **state)
{
	static const uint32_t nr[] = { 110, 335, 467, 999, 1000 };
	static char *const stored[] = { "getppid", "sys_335", "", "sys_999", "future_call" };
	struct capture_writer_opts o = { .force = true };
	struct capture_writer *w;
	char id[DB_CAPTURE_ID_LEN], id2[DB_CAPTURE_ID_LEN];
	uint8_t raw[16];
	sqlite3 *db;

	(void)state;
	fill_id(raw, 0x15, 0x01);
	w = capture_writer__create(tpath("names.ptop"), &o);
	assert_non_null(w);
	put_header(w, raw);
	put_syscall_names(w, T0 + SEC, nr, stored, 5);
	put_trailer(w, T0 + 2 * SEC, 2);
	assert_int_equal(capture_writer__close(w), 0);

	header_machine = "riscv64"; /* no table in ptop */
	fill_id(raw, 0x15, 0x02);
	w = capture_writer__create(tpath("names_riscv.ptop"), &o);
	assert_non_null(w);
	put_header(w, raw);
	put_syscall_names(w, T0 + SEC, nr, stored, 5);
	put_trailer(w, T0 + 2 * SEC, 2);
	assert_int_equal(capture_writer__close(w), 0);
	header_machine = "x86_64";

	db = open_rw(tpath("names.db"));
	load_ok(db, tpath("names.ptop"), false, id, NULL);
	load_ok(db, tpath("names_riscv.ptop"), false, id2, NULL);
#define NAMES(cid) q_text(db, "SELECT group_concat(nr || ':' || name, ' ') FROM (SELECT * " 			      "FROM syscalls WHERE capture_id = '%s' ORDER BY nr)", cid)
	assert_string_equal(NAMES(id), "110:getppid 335:uretprobe 467:open_tree_attr 999:sys_999 "
				       "1000:future_call");
	assert_string_equal(NAMES(id2), "110:getppid 335:sys_335 467:sys_467 999:sys_999 "
					"1000:future_call");
#undef NAMES
	sqlite3_close(db);
}

/* Statement SQL of a part: an INSERT whose parameter i is named ":" + its column i,
 * and which prepares on this build's schema (DB). */
static void check_named_insert(sqlite3 *db, const char *sql)
{
	const char *open = strchr(sql, '('), *close = open ? strchr(open, ')') : NULL;
	sqlite3_stmt *s = NULL;
	char col[64];
	int n = 0;

	assert_true(!strncmp(sql, "INSERT ", 7));
	assert_non_null(close);
	if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK)
		fail_msg("prepare %s: %s", sql, sqlite3_errmsg(db));
	for (const char *p = open + 1; p < close; n++) {
		size_t len = strcspn(p, ",)");

		assert_true(len + 1 < sizeof(col));
		snprintf(col, sizeof(col), ":%.*s", (int)len, p);
		if (!sqlite3_bind_parameter_name(s, n + 1) ||
		    strcmp(sqlite3_bind_parameter_name(s, n + 1), col))
			fail_msg("%s: parameter %d is %s, its column %s", sql, n + 1,
				 sqlite3_bind_parameter_name(s, n + 1), col + 1);
		p += len;
		p += strspn(p, ", ");
	}
	assert_int_equal(sqlite3_bind_parameter_count(s), n);
	sqlite3_finalize(s);
}

/* A part's statement names its columns once, "INSERT INTO T (c1, ...)"; completed by
 * load__insert_sql it has a parameter per column, in order. And the completion itself:
 * a statement with its VALUES, or not an INSERT, stays as written. */
static void check_part_insert(sqlite3 *db, const char *sql)
{
	char *full = load__insert_sql(sql);

	assert_non_null(full);
	if (strstr(sql, "VALUES"))
		fail_msg("%s: a part names its columns once (load__insert_sql adds VALUES)", sql);
	check_named_insert(db, full);
	free(full);
}

static void test_20b_insert_sql(void **state)
{
	static const char *const same[] = {
		"INSERT INTO t (a, b) VALUES (?1, ?2)",
		"UPDATE t SET a = ?2 WHERE cap = ?1",
		"INSERT INTO t",
	};
	char *s;

	(void)state;
	s = load__insert_sql("INSERT OR IGNORE INTO t (cap, time_ns,x)");
	assert_string_equal(s, "INSERT OR IGNORE INTO t (cap, time_ns,x) "
			       "VALUES (:cap, :time_ns, :x)");
	free(s);
	s = load__insert_sql("INSERT INTO t (a)");
	assert_string_equal(s, "INSERT INTO t (a) VALUES (:a)");
	free(s);
	for (size_t i = 0; i < sizeof(same) / sizeof(same[0]); i++) {
		s = load__insert_sql(same[i]);
		assert_string_equal(s, same[i]);
		free(s);
	}
}

/* The collectors' loaders as they declare themselves (analyze/load.h): each payload
 * case of Event claimed by exactly one part, under a kind of its own (a
 * CollectorPayload entry: by a message type of its own); every statement an INSERT
 * with a parameter named after each column, in order, that prepares on the schema the
 * build joined (schema/schema.sql and the collectors' schema.sql). A collector added
 * to collectors.def (the toy of tests/e2e/toy_collector.sh) follows the same rules and
 * is not counted below. */
static void test_20_part_loaders(void **state)
{
	static const char *const shipped[] = { "cpu",	 "syscalls", "cpuprof",	    "heap",
					       "memory", "vmas",     "proccontext", "cgroup" };
	const struct an_load_payload *seen[32];
	size_t n_seen = 0, loaders = 0, statements = 0, n_shipped = 0;
	const ProtobufCMessageDescriptor *ev = &ptop__v1__event__descriptor;
	sqlite3 *db;

	(void)state;
	db = open_rw(tpath("parts.db"));
	for (const struct an_part *const *p = an_parts; *p; p++) {
		const struct an_load *ld = (*p)->load;
		bool ours = false;

		if (!ld)
			continue;
		for (size_t k = 0; k < sizeof(shipped) / sizeof(shipped[0]); k++)
			ours |= !strcmp((*p)->name, shipped[k]);
		loaders += ours;
		assert_non_null(ld->payloads);
		for (const struct an_load_payload *c = ld->payloads; c->load; c++) {
			bool carried = c->payload == PTOP__V1__EVENT__PAYLOAD_COLLECTOR_PAYLOAD;

			assert_int_not_equal(c->payload, PTOP__V1__EVENT__PAYLOAD__NOT_SET);
			assert_non_null(c->kind);
			assert_true(!strncmp(c->kind, "event:", 6));
			assert_string_not_equal(c->kind, "event:none");
			assert_true(carried == (c->type != NULL));
			/* a collector's payload names its descriptor, the type's message
			 * (export --format jsonl renders it by that) */
			assert_true(carried == (c->desc != NULL));
			if (carried)
				assert_string_equal(c->desc->name, c->type);
			for (size_t k = 0; k < n_seen; k++) {
				if (carried && seen[k]->type)
					assert_string_not_equal(seen[k]->type, c->type);
				else
					assert_int_not_equal(seen[k]->payload, c->payload);
				assert_string_not_equal(seen[k]->kind, c->kind);
			}
			assert_true(n_seen < sizeof(seen) / sizeof(seen[0]));
			seen[n_seen++] = c;
			n_shipped += ours;
		}
		assert_true(ld->n_stmts == 0 || ld->stmts);
		for (size_t k = 0; k < ld->n_stmts; k++, statements += ours)
			check_part_insert(db, ld->stmts[k]);
	}
	/* cpu, syscalls, cpuprof, heap, memory, vmas, proccontext, cgroup (goalloc's
	 * snapshots are the heap's payload; mappings' records are the core's) */
	assert_int_equal(loaders, 8);
	assert_int_equal(statements, 19); /* heap: 4 (its peak sites since issue 13) */
	/* every payload the proto knows is loaded by some part */
	for (unsigned k = 0; k < ev->n_fields; k++) {
		const ProtobufCFieldDescriptor *f = &ev->fields[k];
		bool claimed = false;

		if (!(f->flags & PROTOBUF_C_FIELD_FLAG_ONEOF) ||
		    f->id == PTOP__V1__EVENT__PAYLOAD_COLLECTOR_PAYLOAD)
			continue; /* collector_payload: the core's carrier, claimed by type */
		for (size_t i = 0; i < n_seen; i++)
			claimed |= (unsigned)seen[i]->payload == f->id;
		if (!claimed)
			fail_msg("Event.%s (payload case %u): no part loads it", f->name, f->id);
	}
	assert_int_equal(n_shipped, 9);
	sqlite3_close(db);
}

/* An event whose payload no part loads (none set, or one a newer recorder wrote) is
 * counted as event:none and widens the time span, nothing more; record_count's rows
 * come header first, then the events' kinds in payload case order (memory before
 * cpuprof, although collectors.def lists cpuprof first), then the rest. */
static void test_21_unclaimed_payload(void **state)
{
	struct capture_writer_opts o = { .force = true };
	struct capture_writer *w;
	Ptop__V1__Event ev = PTOP__V1__EVENT__INIT;
	char id[DB_CAPTURE_ID_LEN];
	struct load_stats st;
	uint8_t raw[16];
	sqlite3 *db;

	(void)state;
	fill_id(raw, 0x21, 0x01);
	w = capture_writer__create(tpath("none.ptop"), &o);
	assert_non_null(w);
	put_header(w, raw);
	put_cpuprof_counts(w, T0 + SEC, PID, NULL, 0);
	ev.time_ns = T0 + 9 * SEC; /* the last event: no payload */
	ev.pid = PID;
	put_event(w, &ev);
	put_memory(w, T0 + 2 * SEC, true);
	ev.time_ns = T0 + SEC / 2; /* the first event */
	put_event(w, &ev);
	put_trailer(w, T0 + 10 * SEC, 6);
	assert_int_equal(capture_writer__close(w), 0);

	db = open_rw(tpath("none.db"));
	load_ok(db, tpath("none.ptop"), false, id, &st);
	assert_int_equal(st.records, 6);
	assert_string_equal(q_text(db, "SELECT group_concat(kind || '=' || count, ' ') FROM "
				       "(SELECT * FROM record_count ORDER BY rowid)"),
			    "header=1 event:memory=1 event:cpuprof=1 event:none=2 trailer=1");
	assert_int_equal(rows_of(db, "memory_sample", id), 1);
	assert_int_equal(rows_of(db, "cpu_profile", id), 1);
	assert_int_equal(q_int(db, "SELECT first_event_ns FROM capture"), T0 + SEC / 2);
	assert_int_equal(q_int(db, "SELECT last_event_ns FROM capture"), T0 + 9 * SEC);
	sqlite3_close(db);
}

/* Load progress: shown on a terminal only (standard output and error both), never in a
 * pipe, a file or JSON; its line gives the records, the bytes of the file, the rate and
 * the time left. */
static void test_23_progress(void **state)
{
	char *json[] = {"ptop-analyze", "report", "heap", "--format", "json", "a.ptop", NULL};
	char *json2[] = {"ptop-analyze", "info", "--format=json", "a.ptop", NULL};
	char *text[] = {"ptop-analyze", "report", "heap", "--format", "csv", "a.ptop", NULL};
	char line[256];

	(void)state;
	assert_true(db__progress_wanted(6, text, true, true));
	assert_false(db__progress_wanted(6, text, false, true)); /* stdout a pipe or file */
	assert_false(db__progress_wanted(6, text, true, false)); /* stderr redirected */
	assert_false(db__progress_wanted(6, json, true, true));
	assert_false(db__progress_wanted(4, json2, true, true));
	db__progress_line(line, sizeof(line), "/tmp/x/run.ptop", 1234567, 12582912, 50331648,
			  2.0);
	assert_string_equal(line, "loading run.ptop: 1,234,567 records, 12.0 MiB of 48.0 MiB "
				  "(25%), 6.00 MiB/s, 6 s left");
	db__progress_line(line, sizeof(line), "run.ptop", 10, 2048, 0, 1.5);
	assert_string_equal(line, "loading run.ptop: 10 records, 2.00 KiB read");
}

/* Every row of every table of DB as text, each table's rows sorted (capture.loaded_at left
 * out: the time of the load): two DBs with the same rows give the same text. Malloc'd. */
static char *all_rows(sqlite3 *db)
{
	sqlite3_stmt *t = NULL;
	size_t len = 0, cap = 1 << 16;
	char *out = malloc(cap);

	assert_non_null(out);
	out[0] = 0;
	assert_int_equal(sqlite3_prepare_v2(db, "SELECT name FROM sqlite_master WHERE type = "
						"'table' AND name NOT LIKE 'sqlite%' ORDER BY name",
					    -1, &t, NULL),
			 SQLITE_OK);
	while (sqlite3_step(t) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(t, 0);
		char cols[4096] = "", sql[8192];
		sqlite3_stmt *c = NULL, *r = NULL;
		size_t n = 0;

		snprintf(sql, sizeof(sql), "SELECT name FROM pragma_table_info('%s')", name);
		assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &c, NULL), SQLITE_OK);
		while (sqlite3_step(c) == SQLITE_ROW) {
			const char *col = (const char *)sqlite3_column_text(c, 0);

			if (!strcmp(name, "capture") && !strcmp(col, "loaded_at"))
				continue;
			n += (size_t)snprintf(cols + n, sizeof(cols) - n, "%squote(\"%s\")",
					      n ? " || '|' || " : "", col);
		}
		sqlite3_finalize(c);
		snprintf(sql, sizeof(sql), "SELECT %s FROM \"%s\" ORDER BY 1", cols, name);
		assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &r, NULL), SQLITE_OK);
		while (sqlite3_step(r) == SQLITE_ROW) {
			const char *row = (const char *)sqlite3_column_text(r, 0);
			size_t need = strlen(name) + strlen(row ? row : "") + 4;

			while (len + need >= cap) {
				cap *= 2;
				out = realloc(out, cap);
				assert_non_null(out);
			}
			len += (size_t)snprintf(out + len, cap - len, "%s: %s\n", name,
						row ? row : "");
		}
		sqlite3_finalize(r);
	}
	sqlite3_finalize(t);
	return out;
}

/* A and B (all_rows) the same; else the first line where they differ. */
static void rows_equal(const char *a, const char *b)
{
	size_t line = 1;

	for (; *a && *a == *b; a++, b++)
		line += *a == '\n';
	if (*a || *b)
		fail_msg("rows differ at line %zu:\n  %.300s\n  %.300s", line,
			 a[0] ? a : "(end)", b[0] ? b : "(end)");
}

static void put_bytes(const char *path, const char *data, size_t n, bool append)
{
	FILE *f = fopen(path, append ? "ab" : "wb");

	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, n, f), n);
	assert_int_equal(fclose(f), 0);
}

/* A capture followed while it is written (db__follow_*, `replay --follow`): loaded in two
 * steps, the file cut at a frame's end and then inside a frame, the rest appended before
 * the second step, gives the rows one load of the whole file gives; so does a cut copy
 * that stops growing (ended by the timeout as cut). Between the steps the capture row
 * says it is still being read. */
static void test_24_follow_two_steps(void **state)
{
	uint8_t raw[16];
	char id[DB_CAPTURE_ID_LEN], id2[DB_CAPTURE_ID_LEN], *whole, *rows1, *rows2;
	const char *full = tpath("whole.ptop"), *grow = tpath("grow.ptop");
	struct capture_reader *r;
	const struct capture_index_entry *ix;
	struct load_stats st;
	size_t n, nix, cuts[2];
	FILE *f;

	(void)state;
	fill_id(raw, 0x24, 0x42);
	write_capture(full, raw, true);
	f = fopen(full, "rb");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	n = (size_t)ftell(f);
	rewind(f);
	whole = malloc(n);
	assert_non_null(whole);
	assert_int_equal(fread(whole, 1, n, f), n);
	fclose(f);
	r = capture_reader__open(full);
	assert_non_null(r);
	ix = capture_reader__index(r, &nix);
	assert_true(nix >= 3);
	cuts[0] = ix[2].offset;		       /* the end of the second frame */
	cuts[1] = ix[2].offset + ix[2].compressed_size / 2; /* inside the third */
	capture_reader__free(r);

	for (int k = 0; k < 2; k++) {
		struct db_follow *fo = NULL;
		sqlite3 *db1 = open_rw(tpath(k ? "f1b.db" : "f1a.db"));
		sqlite3 *db2 = open_rw(tpath(k ? "f2b.db" : "f2a.db"));

		put_bytes(grow, whole, cuts[k], false);
		if (db__follow_open(db1, grow, 60 * SEC, &fo, id, errbuf, sizeof(errbuf)))
			fail_msg("follow %s: %s", grow, errbuf);
		assert_int_equal(q_int(db1, "SELECT count(*) FROM capture"), 1);
		assert_int_equal(db__follow_step(fo, &st, errbuf, sizeof(errbuf)), DB_FOLLOW_GREW);
		assert_int_equal(db__follow_step(fo, &st, errbuf, sizeof(errbuf)), DB_FOLLOW_SAME);
		assert_int_equal(q_int(db1, "SELECT complete FROM capture"), 0);
		assert_string_equal(q_text(db1, "SELECT read_end FROM capture"), "reading");
		assert_int_equal(q_int(db1, "SELECT count(*) FROM cpu_sample"), 2);
		assert_true(q_int(db1, "SELECT count(*) FROM record_count") > 0);
		put_bytes(grow, whole + cuts[k], n - cuts[k], true);
		assert_int_equal(db__follow_step(fo, &st, errbuf, sizeof(errbuf)), DB_FOLLOW_END);
		assert_true(st.complete);
		assert_int_equal(st.records, 13);
		assert_int_equal(db__follow_step(fo, &st, errbuf, sizeof(errbuf)), DB_FOLLOW_END);
		db__follow_free(fo);
		load_ok(db2, grow, false, id2, NULL);
		assert_string_equal(id, id2);
		rows1 = all_rows(db1);
		rows2 = all_rows(db2);
		rows_equal(rows1, rows2);
		assert_non_null(strstr(rows1, "capture: "));
		assert_non_null(strstr(rows1, "memory_sample: "));
		free(rows1);
		free(rows2);
		sqlite3_close(db1);
		sqlite3_close(db2);
	}

	/* a copy cut inside a frame that does not grow: cut, as without following */
	{
		struct db_follow *fo = NULL;
		sqlite3 *db1 = open_rw(tpath("f1c.db")), *db2 = open_rw(tpath("f2c.db"));

		put_bytes(grow, whole, cuts[1], false);
		if (db__follow_open(db1, grow, 1, &fo, id, errbuf, sizeof(errbuf)))
			fail_msg("follow %s: %s", grow, errbuf);
		assert_int_equal(db__follow_step(fo, &st, errbuf, sizeof(errbuf)), DB_FOLLOW_END);
		assert_false(st.complete);
		db__follow_free(fo);
		load_ok(db2, grow, false, id2, NULL);
		rows1 = all_rows(db1);
		rows2 = all_rows(db2);
		rows_equal(rows1, rows2);
		assert_string_equal(q_text(db1, "SELECT read_end FROM capture"), "truncated");
		free(rows1);
		free(rows2);
		sqlite3_close(db1);
		sqlite3_close(db2);
	}
	free(whole);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_01_every_kind, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_02_load_twice, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_03_two_captures, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_04_truncated, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_05_no_header, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_06_wrong_version, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_07_not_sqlite, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_08_cache, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_08b_cache_cap, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_09_select_prefix, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_10_damaged, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_11_rollup_missing, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_12_probe_change, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_13_cpuprof_stack_pid, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_14_cpu_cgroup_lane, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_15_missing_table, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_15b_other_build, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_16_cache_folder_trust, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_17_info_width, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_18_syscall_names, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_19_compact_views, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_20_part_loaders, setup, teardown),
	    cmocka_unit_test(test_20b_insert_sql),
	    cmocka_unit_test_setup_teardown(test_21_unclaimed_payload, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_22_rollup_missing_fields, setup, teardown),
	    cmocka_unit_test(test_23_progress),
	    cmocka_unit_test_setup_teardown(test_24_follow_two_steps, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
