/* test_symbolize.c — the loader's rows for the symbolization records (mappings,
 * chunked perf maps and embedded symbols, the CPU profile), frame -> mapping ->
 * file offset arithmetic, the symbol store, top-function arithmetic (self,
 * total, recursion counted once) and the profile's "not collected".
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "analyze/analyze.h"
#include "analyze/db.h"
#include "analyze/symbolize.h"
#include "collectors/cpuprof/stacks.h"
#include "proto/capture.h"
#include "tests/tmpdir.h"
#include "tests/sqlq.h"
#include "tests/capwrite.h"
#include "collectors/cpu/report.h"
#include "collectors/heap/report.h"

#define T0 1000000000000ull
#define SEC 1000000000ull
#define PID 4321
#define BOOT "0b0b0b0b-1111-2222-3333-444444444444"

static char errbuf[1024];

static int setup(void **state)
{
	(void)state;
	return tmpdir__make("sym");
}

/* ------------------------------------------------------- the capture */

static bool header_cgroup; /* put_header writes a cgroup-mode target (pid 0) */

static void put_header(struct capture_writer *w, const char *cpuprof_state)
{
	struct capb_header b;
	static const uint8_t id[16] = {0x5a, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};

	capb__header_init(&b);
	b.h.recorder = NULL;
	b.h.options = NULL;
	memcpy(b.id, id, 16);
	b.host.boot_id = BOOT;
	b.host.cpus = 2;
	b.clk.monotonic_ns = T0;
	b.clk.realtime_ns = 1700000000ull * SEC;
	b.t.mode = PTOP__V1__TARGET_MODE__TARGET_MODE_COMMAND;
	b.t.pid = PID;
	if (header_cgroup) {
		b.t.mode = PTOP__V1__TARGET_MODE__TARGET_MODE_CGROUP;
		b.t.pid = 0;
		b.t.cgroup_path = "/sys/fs/cgroup/app.slice";
	}
	if (!strcmp(cpuprof_state, "active"))
		capb__probe(&b, "cpuprof", PTOP__V1__PROBE_STATE__PROBE_STATE_ACTIVE,
			    PTOP__V1__PROBE_SOURCE__PROBE_SOURCE_EBPF, NULL, NULL);
	else
		capb__probe(&b, "cpuprof", PTOP__V1__PROBE_STATE__PROBE_STATE_FAILED,
			    PTOP__V1__PROBE_SOURCE__PROBE_SOURCE_EBPF,
			    "perf_event_open: no such device", NULL);
	capb__put_header(w, &b);
}

static void put_mapping(struct capture_writer *w, uint64_t t, uint64_t start, uint64_t end,
			uint64_t off, const char *path, bool build_id, Ptop__V1__MappingEvent ev)
{
	Ptop__V1__Record r = PTOP__V1__RECORD__INIT;
	Ptop__V1__Mapping m = PTOP__V1__MAPPING__INIT;
	static uint8_t bid[4] = {0xab, 0xcd, 0x00, 0x01};

	m.time_ns = t;
	m.pid = PID;
	m.start = start;
	m.end = end;
	m.offset = off;
	m.path = (char *)path;
	if (build_id) {
		m.build_id.data = bid;
		m.build_id.len = 4;
	} else {
		m.build_id_error = "no build-id note";
	}
	m.perms = "r-xp";
	m.inode = 77;
	m.dev = "fd:01";
	m.event = ev;
	r.kind_case = PTOP__V1__RECORD__KIND_MAPPING;
	r.mapping = &m;
	capw__append(w, &r);
}

static void put_perf_map(struct capture_writer *w, uint32_t chunk, uint32_t chunks,
			 const char *text)
{
	Ptop__V1__Record r = PTOP__V1__RECORD__INIT;
	Ptop__V1__PerfMap m = PTOP__V1__PERF_MAP__INIT;

	m.time_ns = T0 + 2 * SEC;
	m.pid = PID;
	m.path = "/tmp/perf-1.map";
	m.content.data = (uint8_t *)text;
	m.content.len = strlen(text);
	m.chunk = chunk;
	m.chunks = chunks;
	r.kind_case = PTOP__V1__RECORD__KIND_PERF_MAP;
	r.perf_map = &m;
	capw__append(w, &r);
}

static void put_module_symbols(struct capture_writer *w, uint8_t id0, uint32_t chunk,
			       uint32_t chunks, const char *bytes, uint64_t size)
{
	Ptop__V1__Record r = PTOP__V1__RECORD__INIT;
	Ptop__V1__ModuleSymbols m = PTOP__V1__MODULE_SYMBOLS__INIT;
	uint8_t bid[4] = {id0, 0x22, 0x33, 0x44};

	m.build_id.data = bid;
	m.build_id.len = 4;
	m.path = "/usr/bin/app";
	m.debug = true;
	m.elf.data = (uint8_t *)bytes;
	m.elf.len = strlen(bytes);
	m.chunk = chunk;
	m.chunks = chunks;
	m.size = size;
	r.kind_case = PTOP__V1__RECORD__KIND_MODULE_SYMBOLS;
	r.module_symbols = &m;
	capw__append(w, &r);
}

static void put_stack(struct capture_writer *w, uint64_t id, bool kernel, const uint64_t *ips,
		      size_t n)
{
	Ptop__V1__Record r = PTOP__V1__RECORD__INIT;
	Ptop__V1__Stack s = PTOP__V1__STACK__INIT;

	s.id = id;
	s.kernel = kernel;
	s.ips = (uint64_t *)ips;
	s.n_ips = n;
	r.kind_case = PTOP__V1__RECORD__KIND_STACK;
	r.stack = &s;
	capw__append(w, &r);
}

static void put_cpuprof(struct capture_writer *w, uint64_t t, const uint64_t (*sc)[3], size_t n)
{
	Ptop__V1__Record r = PTOP__V1__RECORD__INIT;
	Ptop__V1__Event ev = PTOP__V1__EVENT__INIT;
	Ptop__V1__CpuProfile p = PTOP__V1__CPU_PROFILE__INIT;
	Ptop__V1__StackCount c[8], *cp[8];

	for (size_t k = 0; k < n; k++) {
		ptop__v1__stack_count__init(&c[k]);
		c[k].user_stack_id = sc[k][0];
		c[k].kernel_stack_id = sc[k][1];
		c[k].count = sc[k][2];
		cp[k] = &c[k];
	}
	ev.time_ns = t;
	ev.pid = PID;
	ev.category = PTOP__V1__CATEGORY__CATEGORY_CPUPROF;
	ev.interval_ns = SEC;
	ev.payload_case = PTOP__V1__EVENT__PAYLOAD_CPUPROF;
	ev.cpuprof = &p;
	p.requested_hz = 99;
	p.ticks = 190;
	p.delivered_hz = 95.0;
	p.cpus = 2;
	p.samples = 60;
	p.no_user_stack = 3;
	p.no_kernel_stack = 1;
	p.lost = 2;
	p.stacks = cp;
	p.n_stacks = n;
	r.kind_case = PTOP__V1__RECORD__KIND_EVENT;
	r.event = &ev;
	capw__append(w, &r);
}

/* Mappings: /usr/bin/app (build-id abcd0001) at 0x400000.. offset 0x1000 from
 * the start; /usr/lib/libx.so without a build-id at 0x7000000; a JIT region
 * (anonymous) at 0x9000000; at T0+3s a new mapping of /usr/bin/app replaces the
 * old range with offset 0x2000 (an exec). */
static const char *write_capture(const char *name, const char *cpuprof_state)
{
	static char path[256];
	struct capture_writer_opts o = {.force = true};
	struct capture_writer *w;
	static const uint64_t user1[] = {0x400100, 0x400200, 0x7000010, 0x123};
	static const uint64_t kern1[] = {0xffffffff81000010, 0xffffffff81000020};
	static const uint64_t jit1[] = {0x9000010, 0x400300};
	static const uint64_t late[] = {0x400100};
	const uint64_t sc1[][3] = {{1, 2, 10}, {3, 0, 5}};
	const uint64_t sc2[][3] = {{4, 0, 7}, {0, 2, 1}};

	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	w = capture_writer__create(path, &o);
	assert_non_null(w);
	put_header(w, cpuprof_state);
	put_mapping(w, T0 + 10, 0x400000, 0x401000, 0x1000, "/usr/bin/app", true,
		    PTOP__V1__MAPPING_EVENT__MAPPING_EVENT_START);
	put_mapping(w, T0 + 10, 0x7000000, 0x7001000, 0, "/usr/lib/libx.so", false,
		    PTOP__V1__MAPPING_EVENT__MAPPING_EVENT_START);
	put_mapping(w, T0 + 10, 0x9000000, 0x9001000, 0, "", false,
		    PTOP__V1__MAPPING_EVENT__MAPPING_EVENT_START);
	put_perf_map(w, 1, 2, "9000020 10 cold\n");
	put_module_symbols(w, 0x11, 0, 2, "ELF-part-0|", 21);
	put_stack(w, 1, false, user1, 4);
	put_stack(w, 2, true, kern1, 2);
	put_stack(w, 3, false, jit1, 2);
	put_perf_map(w, 0, 2, "9000000 20 hot\n");
	put_module_symbols(w, 0x11, 1, 2, "ELF-part-1", 21);
	put_module_symbols(w, 0x99, 0, 3, "lonely", 100); /* its other chunks never come */
	put_perf_map(w, 5, 2, "bad chunk\n");		  /* chunk >= chunks */
	put_cpuprof(w, T0 + SEC, sc1, 2);
	put_mapping(w, T0 + 3 * SEC, 0x400000, 0x401000, 0x2000, "/usr/bin/app", true,
		    PTOP__V1__MAPPING_EVENT__MAPPING_EVENT_NEW);
	put_stack(w, 4, false, late, 1);
	put_cpuprof(w, T0 + 4 * SEC, sc2, 2);
	assert_int_equal(capture_writer__close(w), 0);
	return path;
}

static sqlite3 *load(const char *path, char id[DB_CAPTURE_ID_LEN])
{
	char dbp[300];
	sqlite3 *db = NULL;

	snprintf(dbp, sizeof(dbp), "%s.db", path);
	assert_int_equal(db__open(dbp, true, false, &db, errbuf, sizeof(errbuf)), 0);
	if (db__load_capture(db, path, true, id, NULL, errbuf, sizeof(errbuf)))
		fail_msg("load: %s", errbuf);
	return db;
}

/* ------------------------------------------------------------- tests */

static void test_01_loader_rows(void **state)
{
	char id[DB_CAPTURE_ID_LEN];
	sqlite3 *db;

	(void)state;
	db = load(write_capture("a.ptop", "active"), id);
	/* mapping: the new columns */
	assert_int_equal(q_int(db, "SELECT count(*) FROM mapping"), 4);
	assert_string_equal(q_text(db,
				   "SELECT perms || ' ' || inode || ' ' || dev || ' ' || event "
				   "|| ' ' || build_id FROM mapping WHERE start = %d AND "
				   "offset = 4096",
				   0x400000),
			    "r-xp 77 fd:01 start abcd0001");
	assert_string_equal(
	    q_text(db, "SELECT build_id_error FROM mapping WHERE start = %d", 0x7000000),
	    "no build-id note");
	assert_string_equal(q_text(db, "SELECT build_id FROM mapping WHERE start = %d", 0x7000000),
			    "<NULL>");
	assert_string_equal(q_text(db, "SELECT group_concat(COALESCE(build_id_kind, 'null'), ' ') "
				       "FROM (SELECT * FROM mapping ORDER BY rowid)"),
			    "gnu null null gnu");
	assert_string_equal(q_text(db, "SELECT group_concat(build_id_kind, ' ') FROM module_symbols"),
			    "gnu gnu");
	assert_string_equal(q_text(db, "SELECT event FROM mapping WHERE offset = 8192"), "new");
	/* perf map: two chunks joined in order, the bad chunk counted */
	assert_int_equal(q_int(db, "SELECT count(*) FROM perf_map"), 1);
	assert_string_equal(q_text(db, "SELECT CAST(content AS TEXT) FROM perf_map"),
			    "9000000 20 hot\n9000020 10 cold\n");
	assert_int_equal(q_int(db, "SELECT pid * 10 + complete FROM perf_map"), PID * 10 + 1);
	assert_string_equal(q_text(db, "SELECT path FROM perf_map"), "/tmp/perf-1.map");
	assert_int_equal(q_int(db, "SELECT count FROM record_count WHERE kind = 'chunk:bad'"), 1);
	assert_int_equal(q_int(db, "SELECT count FROM record_count WHERE kind = 'perf_map'"), 3);
	/* module symbols: joined; the incomplete one kept and flagged */
	assert_int_equal(q_int(db, "SELECT count(*) FROM module_symbols"), 2);
	assert_string_equal(q_text(db, "SELECT CAST(elf AS TEXT) || ' ' || size || ' ' || complete "
				       "|| ' ' || debug || ' ' || path FROM module_symbols WHERE "
				       "build_id = '11223344'"),
			    "ELF-part-0|ELF-part-1 21 1 1 /usr/bin/app");
	assert_string_equal(q_text(db,
				   "SELECT CAST(elf AS TEXT) || ' ' || chunks || ' ' || complete "
				   "FROM module_symbols WHERE build_id = '99223344'"),
			    "lonely 3 0");
	assert_int_equal(q_int(db, "SELECT count FROM record_count WHERE kind = "
				   "'module_symbols:incomplete'"),
			 1);
	/* the profile */
	assert_int_equal(q_int(db, "SELECT count(*) FROM cpu_profile"), 2);
	assert_string_equal(q_text(db,
				   "SELECT seq || ' ' || time_ns || ' ' || interval_ns || ' ' || "
				   "pid || ' ' || requested_hz || ' ' || ticks || ' ' || "
				   "delivered_hz || ' ' || cpus || ' ' || samples || ' ' || "
				   "no_user_stack || ' ' || no_kernel_stack || ' ' || lost "
				   "FROM cpu_profile WHERE seq = 0"),
			    "0 1001000000000 1000000000 4321 99 190 95.0 2 60 3 1 2");
	assert_int_equal(q_int(db, "SELECT count(*) FROM cpu_profile_stack"), 4);
	assert_string_equal(q_text(db, "SELECT group_concat(seq || ':' || "
				       "COALESCE(user_stack_id, 'null') || ':' || "
				       "COALESCE(kernel_stack_id, 'null') || ':' || count, ' ') "
				       "FROM cpu_profile_stack"),
			    "0:1:2:10 0:3:null:5 1:4:null:7 1:null:2:1");
	assert_int_equal(q_int(db, "SELECT count FROM record_count WHERE kind = 'event:cpuprof'"),
			 2);
	sqlite3_close(db);
}

static void test_02_mapping_arithmetic(void **state)
{
	struct map_entry m[] = {
	    {.pid = 1,
	     .time_ns = 100,
	     .start = 0x1000,
	     .end = 0x2000,
	     .offset = 0x3000,
	     .path = "/a"},
	    {.pid = 1,
	     .time_ns = 500,
	     .start = 0x1000,
	     .end = 0x2000,
	     .offset = 0x5000,
	     .path = "/b"},
	    {.pid = 1, .time_ns = 900, .start = 0x1000, .end = 0x2000, .path = "/b", .gone = true},
	    {.pid = 2, .time_ns = 100, .start = 0x8000, .end = 0x9000, .path = "/c"},
	};

	(void)state;
	assert_int_equal(frame_lookup_addr(0x1234, 0), 0x1234);
	assert_int_equal(frame_lookup_addr(0x1234, 1), 0x1233);
	assert_int_equal(frame_lookup_addr(0x1234, 7), 0x1233);
	assert_int_equal(mapping__find(m, 4, 1, 200, 0x1800), 0); /* latest at or before */
	assert_int_equal(mapping__find(m, 4, 1, 600, 0x1800), 1);
	assert_int_equal(mapping__find(m, 4, 1, 500, 0x1800), 1);  /* at: included */
	assert_int_equal(mapping__find(m, 4, 1, 950, 0x1800), -1); /* gone */
	assert_int_equal(mapping__find(m, 4, 1, 50, 0x1800), 0);   /* before all: earliest */
	assert_int_equal(mapping__find(m, 4, 1, 200, 0x2000), -1); /* end is exclusive */
	assert_int_equal(mapping__find(m, 4, 1, 200, 0x8100), -1); /* another pid's */
	assert_int_equal(mapping__find(m, 4, 0, 200, 0x8100), 3);  /* any pid */
	assert_int_equal(mapping__find(m, 4, 1, 0, 0x1800), 1);	   /* time unknown: latest live */
}

/* symstore__update places each frame: offsets with ip - 1 for callers, the
 * mapping current at the stack's first interval, JIT via the perf map, kernel by
 * boot id, no mapping as [unknown]. The symbolizer finds none of these files:
 * every user frame is a miss with its reason, stored. */
static void test_03_frames_placed(void **state)
{
	char id[DB_CAPTURE_ID_LEN];
	struct symstore_run run;
	sqlite3 *db;

	(void)state;
	db = load(write_capture("b.ptop", "active"), id);
	assert_int_equal(symstore__update(db, 1, NULL, &run, errbuf, sizeof(errbuf)), 0);
	assert_true(run.stored);
	assert_int_equal(run.placed, 4 + 2 + 2 + 1);
	/* stack 1: depth 0 ip 0x400100 -> offset 0x100 + 0x1000; depth 1 0x400200 - 1 */
	assert_string_equal(q_text(db,
				   "SELECT group_concat(depth || ':' || kind || ':' || module || "
				   "':' || printf('%%x', addr) || ':' || "
				   "CASE WHEN file_offset IS NULL THEN '-' ELSE "
				   "printf('%%x', file_offset) END || ':' || "
				   "COALESCE(sym_space, '-') || ':' || COALESCE(miss, '-'), ' ') "
				   "FROM (SELECT * FROM frame_module WHERE stack_id = 1 ORDER BY "
				   "depth)"),
			    "0:user:/usr/bin/app:400100:1100:elf:- "
			    "1:user:/usr/bin/app:4001ff:11ff:elf:- "
			    "2:user:/usr/lib/libx.so:700000f:f:-:no_build_id "
			    "3:unknown:[unknown]:122:-:-:no_mapping");
	assert_string_equal(q_text(db, "SELECT sym_key FROM frame_module WHERE stack_id = 1 AND "
				       "depth = 0"),
			    "abcd0001");
	/* stack 2: kernel, keyed by the boot id; callers at ip - 1 */
	assert_string_equal(
	    q_text(db, "SELECT group_concat(kind || ':' || sym_space || ':' || "
		       "sym_key || ':' || printf('%%x', sym_addr), ' ') FROM "
		       "(SELECT * FROM frame_module WHERE stack_id = 2 ORDER BY depth)"),
	    "kernel:kernel:" BOOT ":ffffffff81000010 kernel:kernel:" BOOT ":ffffffff8100001f");
	/* stack 3: JIT (anonymous mapping, perf map of the pid), then the app */
	assert_string_equal(q_text(db,
				   "SELECT kind || ':' || module || ':' || sym_key || ':' || "
				   "printf('%%x', sym_addr) FROM frame_module WHERE stack_id = 3 "
				   "AND depth = 0"),
			    "jit:[jit]:1:4321:9000010");
	/* stack 4 was first seen at T0+3s..4s: the mapping of the exec (offset 0x2000) */
	assert_int_equal(q_int(db, "SELECT file_offset FROM frame_module WHERE stack_id = 4"),
			 0x2100);
	/* the store: one row per distinct address, misses with a reason */
	assert_int_equal(q_int(db, "SELECT count(*) FROM symbol WHERE space = 'elf'"), 4);
	assert_int_equal(q_int(db, "SELECT count(*) FROM symbol WHERE space = 'elf' AND "
				   "source IS NULL AND miss IS NOT NULL"),
			 4);
	assert_int_equal(q_int(db, "SELECT count(*) FROM symbol WHERE space = 'jit'"), 1);
	/* the perf map names the JIT frame */
	assert_string_equal(q_text(db,
				   "SELECT sf.func || ':' || s.source FROM symbol s JOIN "
				   "symbol_frame sf USING (space, key, addr) WHERE s.space = "
				   "'jit' AND s.addr = %d",
				   0x9000010),
			    "hot:perfmap");
	/* a second run places nothing new and names nothing new */
	assert_int_equal(symstore__update(db, 1, NULL, &run, errbuf, sizeof(errbuf)), 0);
	assert_int_equal(run.placed, 0);
	assert_int_equal(run.resolved, 0);
	/* symbolize (retry_misses) asks again for the misses only */
	{
		struct symstore_opts o = {.retry_misses = true};

		assert_int_equal(symstore__update(db, 1, &o, &run, errbuf, sizeof(errbuf)), 0);
		assert_int_equal(run.resolved,
				 4 + (uint64_t)q_int(db, "SELECT count(*) FROM symbol "
							 "WHERE space <> 'elf' AND "
							 "source IS NULL"));
	}
	sqlite3_close(db);
}

/* ------------------------------------------------------- top functions */

static struct prof_func F(const char *func, bool inlined) {
	struct prof_func f = {.func = func, .file = "a.c", .line = 1, .inlined = inlined};

	return f;
}

static void
test_04_top_functions(void **state)
{
	/* locations: a (main), b (calls itself), c (with d inlined), one unnamed */
	struct prof_func fa[] = {F("main", false)};
	struct prof_func fb[] = {F("rec", false)};
	struct prof_func fc[] = {F("inl", true), F("outer", false)};
	struct prof_loc L[] = {
	    {.kind = FRAME_USER, .module = "/bin/x", .n = 1, .f = fa, .source = "dwarf"},
	    {.kind = FRAME_USER, .module = "/bin/x", .n = 1, .f = fb, .source = "dwarf"},
	    {.kind = FRAME_USER, .module = "/bin/x", .n = 2, .f = fc, .source = "dwarf"},
	    {.kind = FRAME_USER, .module = "/usr/lib/liby.so", .offset = 0x1f0, .miss = "no_file"},
	};
	/* innermost first */
	struct prof_loc *s1[] = {&L[1], &L[1], &L[1], &L[0]}; /* rec rec rec main */
	struct prof_loc *s2[] = {&L[2], &L[1], &L[0]};	      /* inl<outer rec main */
	struct prof_loc *s3[] = {&L[3], &L[0]};		      /* liby+0x1f0 main */
	struct prof_stack st[] = {
	    {.count = 10, .n = 4, .loc = s1},
	    {.count = 5, .n = 3, .loc = s2},
	    {.count = 2, .n = 2, .loc = s3},
	    {.count = 1, .n = 0, .loc = NULL, .no_user_stack = true},
	};
	struct profile p = {.collected = true, .n_stacks = 4, .stacks = st};
	struct prof_top t;
	char name[64];

	(void)state;
	assert_int_equal(prof_top__build(&p, &t), 0);
	assert_int_equal(t.samples, 18);
	assert_int_equal(t.unnamed, 2 + 1);
	assert_int_equal(t.no_frames, 1);
	assert_int_equal(t.n, 5);
	/* by self: rec 10, inl 5, liby+0x1f0 2, then main/outer with 0 (total decides) */
	assert_string_equal(t.fn[0].name, "rec");
	assert_int_equal(t.fn[0].self, 10);
	assert_int_equal(t.fn[0].total, 15); /* recursion counted once per stack */
	assert_string_equal(t.fn[1].name, "inl");
	assert_int_equal(t.fn[1].self, 5);
	assert_int_equal(t.fn[1].total, 5);
	assert_string_equal(t.fn[2].name, "liby.so+0x1f0");
	assert_false(t.fn[2].named);
	assert_int_equal(t.fn[2].self, 2);
	assert_string_equal(t.fn[3].name, "main");
	assert_int_equal(t.fn[3].self, 0);
	assert_int_equal(t.fn[3].total, 17);
	assert_string_equal(t.fn[4].name, "outer");
	assert_int_equal(t.fn[4].self, 0); /* the inlined callee holds the self sample */
	assert_int_equal(t.fn[4].total, 5);
	prof_top__free(&t);

	prof_loc__name(&L[3], 0, name, sizeof(name));
	assert_string_equal(name, "liby.so+0x1f0");
	{
		struct prof_loc u = {.kind = FRAME_UNKNOWN, .module = "[unknown]", .addr = 0x123};

		prof_loc__name(&u, 0, name, sizeof(name));
		assert_string_equal(name, "[unknown]+0x123");
	}
}

/* The profile read back from the DB: window, rates, stacks with kernel frames first. */
static void test_05_profile_load(void **state)
{
	char id[DB_CAPTURE_ID_LEN];
	struct capture_meta m;
	struct window all = {0}, w = {.has_start = true, .start_ns = 2 * SEC};
	struct profile *p = NULL;
	struct symstore_run run;
	sqlite3 *db;

	(void)state;
	db = load(write_capture("c.ptop", "active"), id);
	assert_int_equal(capture_meta__load(db, id, &m), 0);
	assert_int_equal(symstore__update(db, m.cap, NULL, &run, errbuf, sizeof(errbuf)), 0);
	assert_int_equal(profile__load(db, &m, &all, &p), 0);
	assert_true(p->collected);
	assert_int_equal(p->intervals, 2);
	assert_int_equal(p->requested_hz, 99);
	assert_int_equal(p->samples, 120);
	assert_int_equal(p->lost, 4);
	assert_int_equal(p->stacked, 23);
	assert_float_equal(p->delivered_hz, 380.0 / 4.0, 1e-9); /* ticks / (cpus x s) */
	assert_int_equal(p->n_stacks, 4);
	/* the largest first: user 1 + kernel 2, 10 samples: 2 kernel then 3 user frames;
	 * its 4th, 0x123, lies in no executable mapping after a frame of libx.so: no
	 * return address, so the walk ends before it (cut) */
	assert_int_equal(p->stacks[0].count, 10);
	assert_int_equal(p->stacks[0].n, 5);
	assert_int_equal(p->stacks[0].loc[0]->kind, FRAME_KERNEL);
	assert_int_equal(p->stacks[0].loc[2]->kind, FRAME_USER);
	assert_int_equal(p->stacks[0].loc[2]->offset, 0x1100);
	assert_string_equal(p->stacks[0].loc[2]->miss, "no_file");
	assert_string_equal(p->stacks[0].loc[4]->module, "/usr/lib/libx.so");
	assert_string_equal(p->stacks[0].cut_module, "/usr/lib/libx.so");
	assert_int_equal(p->stacks[0].cut_ip, 0x123);
	assert_int_equal(p->cut, 10);
	assert_null(p->stacks[1].cut_module);
	/* the sample without a user stack keeps its kernel frames */
	assert_true(p->stacks[3].no_user_stack);
	assert_int_equal(p->stacks[3].n, 2);
	profile__free(p);

	assert_int_equal(profile__load(db, &m, &w, &p), 0);
	assert_int_equal(p->intervals, 1);
	assert_int_equal(p->stacked, 8);
	profile__free(p);
	sqlite3_close(db);
}

/* A mapping of process PID with build-id BID0 22 33 44 (BID0 0: none). */
static void put_mapping_of(struct capture_writer *w, int32_t pid, uint64_t start, uint64_t end,
			   uint64_t off, const char *path, uint8_t bid0)
{
	Ptop__V1__Record r = PTOP__V1__RECORD__INIT;
	Ptop__V1__Mapping m = PTOP__V1__MAPPING__INIT;
	uint8_t bid[4] = {bid0, 0x22, 0x33, 0x44};

	m.time_ns = T0 + 10;
	m.pid = pid;
	m.start = start;
	m.end = end;
	m.offset = off;
	m.path = (char *)path;
	if (bid0) {
		m.build_id.data = bid;
		m.build_id.len = 4;
	}
	m.perms = "r-xp";
	m.event = PTOP__V1__MAPPING_EVENT__MAPPING_EVENT_START;
	r.kind_case = PTOP__V1__RECORD__KIND_MAPPING;
	r.mapping = &m;
	capw__append(w, &r);
}

/* A cgroup's CpuProfile (event pid 0) at T: (user, kernel, count, pid) counts. */
static void put_cgroup_cpuprof(struct capture_writer *w, uint64_t t, const uint64_t (*sc)[4],
			       size_t n)
{
	Ptop__V1__Record r = PTOP__V1__RECORD__INIT;
	Ptop__V1__Event ev = PTOP__V1__EVENT__INIT;
	Ptop__V1__CpuProfile p = PTOP__V1__CPU_PROFILE__INIT;
	Ptop__V1__StackCount c[8], *cp[8];

	assert_true(n <= 8);
	for (size_t k = 0; k < n; k++) {
		ptop__v1__stack_count__init(&c[k]);
		c[k].user_stack_id = sc[k][0];
		c[k].kernel_stack_id = sc[k][1];
		c[k].count = sc[k][2];
		c[k].pid = (int32_t)sc[k][3];
		cp[k] = &c[k];
	}
	ev.time_ns = t;
	ev.category = PTOP__V1__CATEGORY__CATEGORY_CPUPROF;
	ev.interval_ns = SEC;
	ev.payload_case = PTOP__V1__EVENT__PAYLOAD_CPUPROF;
	ev.cpuprof = &p;
	p.requested_hz = 99;
	p.ticks = 40;
	p.cpus = 2;
	p.samples = 40;
	p.stacks = cp;
	p.n_stacks = n;
	r.kind_case = PTOP__V1__RECORD__KIND_EVENT;
	r.event = &ev;
	capw__append(w, &r);
}

/* A cgroup capture: processes 100 and 200 map different executables at the same
 * address (alpha, build-id a1..., beta, b2...), each with its libc at its own
 * address; 300 has no mapping recorded; 100 and 200 share a kernel stack. */
static const char *write_cgroup_capture(const char *name)
{
	static char path[256];
	struct capture_writer_opts o = {.force = true};
	struct capture_writer *w;
	static const uint64_t u100[] = {0x400100, 0x7000200};
	static const uint64_t u200[] = {0x400100, 0x7100300};
	static const uint64_t u300[] = {0x400100};
	static const uint64_t kern[] = {0xffffffff81000010};
	/* user, kernel, count, pid */
	const uint64_t sc1[][4] = {{11, 0, 6, 100}, {12, 0, 9, 200}, {0, 2, 2, 100},
				   {0, 2, 3, 200}, {13, 0, 1, 300}};
	const uint64_t sc2[][4] = {{12, 0, 4, 200}, {11, 2, 1, 100}};

	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	w = capture_writer__create(path, &o);
	assert_non_null(w);
	header_cgroup = true;
	put_header(w, "active");
	header_cgroup = false;
	put_mapping_of(w, 100, 0x400000, 0x401000, 0x1000, "/usr/bin/alpha", 0xa1);
	put_mapping_of(w, 100, 0x7000000, 0x7001000, 0, "/usr/lib/libc.so.6", 0xcc);
	put_mapping_of(w, 200, 0x400000, 0x401000, 0x3000, "/opt/beta/bin/beta", 0xb2);
	put_mapping_of(w, 200, 0x7100000, 0x7101000, 0, "/usr/lib/libc.so.6", 0xcc);
	put_stack(w, 11, false, u100, 2);
	put_stack(w, 12, false, u200, 2);
	put_stack(w, 13, false, u300, 1);
	put_stack(w, 2, true, kern, 1);
	put_cgroup_cpuprof(w, T0 + SEC, sc1, 5);
	put_cgroup_cpuprof(w, T0 + 2 * SEC, sc2, 2);
	assert_int_equal(capture_writer__close(w), 0);
	return path;
}

/* A cgroup's per-process profile: each user stack is placed in the mappings of
 * the process it was sampled in (never in another's module at the same
 * address), kernel frames in none; the profile's stacks carry their pid, and
 * its processes their samples, comm and exe. */
static void test_07_per_process(void **state)
{
	char id[DB_CAPTURE_ID_LEN], msg[256];
	struct capture_meta m;
	struct window all = {0};
	struct profile *p = NULL;
	struct symstore_run run;
	sqlite3 *db;

	(void)state;
	db = load(write_cgroup_capture("cg.ptop"), id);
	assert_int_equal(capture_meta__load(db, id, &m), 0);
	assert_int_equal(symstore__update(db, m.cap, NULL, &run, errbuf, sizeof(errbuf)), 0);
	assert_int_equal(run.placed, 2 + 2 + 1 + 1);
#define FRAMES(sid)                                                                                \
	q_text(db,                                                                                 \
	       "SELECT group_concat(quote(pid) || ':' || kind || ':' || module || ':' || "         \
	       "COALESCE(build_id, '-') || ':' || CASE WHEN file_offset IS NULL THEN '-' ELSE "    \
	       "printf('%%x', file_offset) END || "                                                \
	       "':' || COALESCE(miss, '-'), ' ') FROM (SELECT * FROM frame_module WHERE "         \
	       "stack_id = %d ORDER BY depth)",                                                    \
	       sid)
	assert_string_equal(FRAMES(11), "100:user:/usr/bin/alpha:a1223344:1100:- "
					"100:user:/usr/lib/libc.so.6:cc223344:1ff:-");
	assert_string_equal(FRAMES(12), "200:user:/opt/beta/bin/beta:b2223344:3100:- "
					"200:user:/usr/lib/libc.so.6:cc223344:2ff:-");
	/* no mapping of 300: unplaced, not alpha's or beta's */
	assert_string_equal(FRAMES(13), "300:unknown:[unknown]:-:-:no_mapping");
	assert_string_equal(FRAMES(2), "NULL:kernel:[kernel]:-:-:-");
#undef FRAMES

	/* the profile: per-process stacks; exe from the mappings without cgroup_proc */
	assert_int_equal(profile__load(db, &m, &all, &p), 0);
	assert_int_equal(p->stacked, 26);
	assert_int_equal(p->all_stacked, 26);
	assert_int_equal(p->n_stacks, 6);
	assert_int_equal(p->stacks[0].count, 13); /* 12 of 200: 9 + 4 */
	assert_int_equal(p->stacks[0].pid, 200);
	assert_string_equal(p->stacks[0].loc[0]->module, "/opt/beta/bin/beta");
	assert_int_equal(p->stacks[1].count, 6);
	assert_int_equal(p->stacks[1].pid, 100);
	assert_string_equal(p->stacks[1].loc[0]->module, "/usr/bin/alpha");
	/* the shared kernel stack stays one stack per process: 3 of 200, 2 of 100 */
	assert_int_equal(p->stacks[2].count, 3);
	assert_int_equal(p->stacks[2].pid, 200);
	assert_true(p->stacks[2].no_user_stack);
	assert_int_equal(p->stacks[3].count, 2);
	assert_int_equal(p->stacks[3].pid, 100);
	assert_int_equal(p->n_procs, 3);
	assert_int_equal(p->procs[0].pid, 200);
	assert_int_equal(p->procs[0].samples, 16);
	assert_null(p->procs[0].comm);
	assert_string_equal(p->procs[0].exe, "/opt/beta/bin/beta");
	assert_int_equal(p->procs[1].pid, 100);
	assert_int_equal(p->procs[1].samples, 9);
	assert_string_equal(p->procs[1].exe, "/usr/bin/alpha");
	assert_int_equal(p->procs[2].pid, 300);
	assert_int_equal(p->procs[2].samples, 1);
	assert_null(p->procs[2].exe);
	assert_ptr_equal(profile__proc(p, 300), &p->procs[2]);
	assert_null(profile__proc(p, 400));
	profile__free(p);

	/* with cgroup_proc rows: its latest comm and exe */
	assert_int_equal(sqlite3_exec(db,
				      "INSERT INTO cgroup_proc (cap, seq, pid, comm, exe, state) "
				      "VALUES (1, 0, 100, 'alpha-old', '/usr/bin/alpha', "
				      "'covered'), "
				      "(1, 1, 100, 'alpha', NULL, 'gone'), "
				      "(1, 0, 300, 'gamma', '/usr/bin/gamma', 'covered')",
				      NULL, NULL, NULL),
			 SQLITE_OK);
	assert_int_equal(profile__load_pid(db, &m, &all, 100, &p), 0);
	assert_int_equal(p->pid, 100);
	assert_int_equal(p->stacked, 9);
	assert_int_equal(p->all_stacked, 26);
	assert_int_equal(p->n_stacks, 3); /* 11 + none: 6, kernel 2: 2, 11 + 2: 1 */
	for (size_t k = 0; k < p->n_stacks; k++)
		assert_int_equal(p->stacks[k].pid, 100);
	assert_int_equal(p->n_procs, 3); /* every process, whatever --pid */
	assert_string_equal(profile__proc(p, 100)->comm, "alpha");
	assert_string_equal(profile__proc(p, 100)->exe, "/usr/bin/alpha");
	assert_string_equal(profile__proc(p, 300)->comm, "gamma");
	assert_string_equal(profile__proc(p, 300)->exe, "/usr/bin/gamma");
	assert_null(profile__proc(p, 200)->comm);
	profile__free(p);

	/* --pid of a process the profile has no samples of */
	assert_int_equal(profile__check_pid(db, m.cap, 200, msg, sizeof(msg)), 0);
	assert_int_equal(profile__check_pid(db, m.cap, 4242, msg, sizeof(msg)), -ENOENT);
	assert_string_equal(msg, "--pid 4242: the capture's CPU profile has no samples of "
				 "process 4242; it has 3 processes: 200, 100, 300");
	sqlite3_close(db);
}

/* A single-process profile: stacks without pid, no processes; --pid takes the
 * event's pid. */
static void test_08_single_process_pid(void **state)
{
	char id[DB_CAPTURE_ID_LEN], msg[256];
	struct capture_meta m;
	struct window all = {0};
	struct profile *p = NULL;
	sqlite3 *db;

	(void)state;
	db = load(write_capture("e.ptop", "active"), id);
	assert_int_equal(capture_meta__load(db, id, &m), 0);
	assert_int_equal(profile__load(db, &m, &all, &p), 0);
	assert_int_equal(p->n_procs, 0);
	assert_int_equal(p->all_stacked, p->stacked);
	for (size_t k = 0; k < p->n_stacks; k++)
		assert_int_equal(p->stacks[k].pid, 0);
	profile__free(p);
	assert_int_equal(profile__load_pid(db, &m, &all, PID, &p), 0);
	assert_int_equal(p->stacked, 23);
	profile__free(p);
	assert_int_equal(profile__check_pid(db, m.cap, PID, msg, sizeof(msg)), 0);
	assert_int_equal(profile__check_pid(db, m.cap, 7, msg, sizeof(msg)), -ENOENT);
	assert_string_equal(msg, "--pid 7: the capture's CPU profile has no samples of process "
				 "7; it has 1 process: 4321");
	sqlite3_close(db);
}

/* The whole text of file PATH (malloc'd). */
static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = calloc(1, 65536);
	size_t n;

	assert_non_null(f);
	assert_non_null(buf);
	n = fread(buf, 1, 65535, f);
	buf[n] = 0;
	fclose(f);
	return buf;
}

#define RUN(fn, ...)                                                                               \
	({                                                                                         \
		char *argv_[] = {__VA_ARGS__, NULL};                                               \
		fn((int)(sizeof(argv_) / sizeof(argv_[0])) - 1, argv_);                            \
	})

/* The commands on a cgroup capture's DB: export folded with a COMM-PID root frame
 * per line (comm from cgroup_proc, else the exe's base name) and --pid; --pid of
 * a process the profile lacks, or not a number, is a usage error (2), as is
 * --pid on a report other than cpu. */
static void test_09_commands(void **state)
{
	char id[DB_CAPTURE_ID_LEN], dbp[300], out[300], *text;
	const char *cap = write_cgroup_capture("cmd.ptop");
	sqlite3 *db;

	(void)state;
	db = load(cap, id);
	assert_int_equal(sqlite3_exec(db,
				      "INSERT INTO cgroup_proc (cap, seq, pid, comm, exe, state) "
				      "VALUES (1, 0, 100, 'alpha', '/usr/bin/alpha', 'covered'), "
				      "(1, 0, 300, 'gamma', '/usr/bin/gamma', 'covered')",
				      NULL, NULL, NULL),
			 SQLITE_OK);
	sqlite3_close(db);
	snprintf(dbp, sizeof(dbp), "%s.db", cap);
	snprintf(out, sizeof(out), "%s/out.folded", tmpdir);

	assert_int_equal(RUN(cmd_export, "export", "--format", "folded", "-o", out, dbp), 0);
	text = slurp(out);
	assert_string_equal(text, "alpha-100;[kernel]+0xffffffff81000010_[k] 2\n"
				  "alpha-100;libc.so.6+0x1ff;alpha+0x1100 6\n"
				  "alpha-100;libc.so.6+0x1ff;alpha+0x1100;"
				  "[kernel]+0xffffffff81000010_[k] 1\n"
				  "beta-200;[kernel]+0xffffffff81000010_[k] 3\n"
				  "beta-200;libc.so.6+0x2ff;beta+0x3100 13\n"
				  "gamma-300;[unknown]+0x400100 1\n");
	free(text);
	assert_int_equal(
	    RUN(cmd_export, "export", "--format", "folded", "--pid", "200", "-o", out, dbp), 0);
	text = slurp(out);
	assert_string_equal(text, "beta-200;[kernel]+0xffffffff81000010_[k] 3\n"
				  "beta-200;libc.so.6+0x2ff;beta+0x3100 13\n");
	free(text);
	assert_int_equal(
	    RUN(cmd_export, "export", "--format", "folded", "--pid", "4242", "-o", out, dbp),
	    ANALYZE_EXIT_USAGE);
	assert_int_equal(
	    RUN(cmd_export, "export", "--format", "folded", "--pid", "12x", "-o", out, dbp),
	    ANALYZE_EXIT_USAGE);
	assert_int_equal(RUN(cmd_report, "report", "cpu", "--pid", "4242", dbp),
			 ANALYZE_EXIT_USAGE);
	assert_int_equal(RUN(cmd_report, "report", "cpu", "--pid", "0", dbp), ANALYZE_EXIT_USAGE);
	assert_int_equal(RUN(cmd_report, "report", "mem", "--pid", "100", dbp),
			 ANALYZE_EXIT_USAGE);

	/* the names the kernel had at the samples (CpuProfile.processes) name a process
	 * the cgroup collector never read; the cgroup collector's comm comes first */
	assert_int_equal(sqlite3_open(dbp, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db,
				      "INSERT INTO cpu_profile_process (cap, seq, pid, comm) "
				      "SELECT 1, MIN(seq), 200, 'beta-k' FROM cpu_profile UNION ALL "
				      "SELECT 1, MIN(seq), 100, 'not-alpha' FROM cpu_profile",
				      NULL, NULL, NULL),
			 SQLITE_OK);
	sqlite3_close(db);
	assert_int_equal(
	    RUN(cmd_export, "export", "--format", "folded", "--pid", "200", "-o", out, dbp), 0);
	text = slurp(out);
	assert_string_equal(text, "beta-k-200;[kernel]+0xffffffff81000010_[k] 3\n"
				  "beta-k-200;libc.so.6+0x2ff;beta+0x3100 13\n");
	free(text);
	assert_int_equal(
	    RUN(cmd_export, "export", "--format", "folded", "--pid", "100", "-o", out, dbp), 0);
	text = slurp(out);
	assert_non_null(strstr(text, "alpha-100;"));
	assert_null(strstr(text, "not-alpha"));
	free(text);
}

/* A capture whose cpuprof probe failed: the report says so, never zeros. */
static void test_06_not_collected(void **state)
{
	char id[DB_CAPTURE_ID_LEN], *buf = NULL;
	size_t len = 0;
	struct report_opts o = {.fmt = OUT_TEXT};
	FILE *f;
	sqlite3 *db;

	(void)state;
	db = load(write_capture("d.ptop", "failed"), id);
	f = open_memstream(&buf, &len);
	assert_int_equal(report_cpu(db, id, &o, f), 0);
	fclose(f);
	assert_non_null(strstr(buf, "profile: not collected (failed: perf_event_open: no such "
				    "device)"));
	assert_null(strstr(buf, "top functions"));
	free(buf);
	buf = NULL;
	o.fmt = OUT_JSON;
	f = open_memstream(&buf, &len);
	assert_int_equal(report_cpu(db, id, &o, f), 0);
	fclose(f);
	assert_non_null(strstr(buf, "\"profile\": {\n    \"collected\": false,\n    \"state\": "
				    "\"failed\""));
	assert_null(strstr(buf, "top_self"));
	free(buf);
	sqlite3_close(db);
}

/* A capture NAME (its path in PATH) with the active profile's header and /usr/bin/app
 * (build-id abcd0001) mapped at 0x400000 (offset 0x1000): the writer, for its stacks. */
static struct capture_writer *app_capture(const char *name, char *path, size_t len)
{
	struct capture_writer_opts wo = {.force = true};
	struct capture_writer *w;

	snprintf(path, len, "%s/%s", tmpdir, name);
	w = capture_writer__create(path, &wo);
	assert_non_null(w);
	put_header(w, "active");
	put_mapping(w, T0 + 10, 0x400000, 0x401000, 0x1000, "/usr/bin/app", true,
		    PTOP__V1__MAPPING_EVENT__MAPPING_EVENT_START);
	return w;
}

/* Issue 10: a Stack whose id is 2^63 (stored as the 64-bit pattern, INT64_MIN in the DB)
 * once collided with load_locs' "no stack yet" sentinel and crashed every command that
 * reads the placed frames. Any id the format allows loads: the profile holds the stack
 * with its frames, and report cpu, heap, leaks, export and symbolize run on it. */
static void test_10_stack_id_2_63(void **state)
{
	static const uint64_t ips[] = {0x400100, 0x400200};
	const uint64_t big = 1ull << 63, big2 = UINT64_MAX;
	const uint64_t sc[][3] = {{big, 0, 7}, {big2, 0, 3}};
	struct capture_writer *w;
	struct report_opts o = {.fmt = OUT_TEXT};
	struct capture_meta m;
	struct window all = {0};
	struct profile *p = NULL;
	struct symstore_run run;
	char id[DB_CAPTURE_ID_LEN], path[256], dbp[300], out[300], *buf = NULL, *text;
	size_t len = 0;
	sqlite3 *db;
	FILE *f;

	(void)state;
	w = app_capture("bigid.ptop", path, sizeof(path));
	put_stack(w, big, false, ips, 2);
	put_stack(w, big2, false, ips, 1);
	put_cpuprof(w, T0 + SEC, sc, 2);
	capw__trailer(w, T0 + 2 * SEC);
	assert_int_equal(capture_writer__close(w), 0);

	db = load(path, id);
	assert_int_equal(capture_meta__load(db, id, &m), 0);
	assert_int_equal(symstore__update(db, m.cap, NULL, &run, errbuf, sizeof(errbuf)), 0);
	assert_int_equal(profile__load(db, &m, &all, &p), 0);
	assert_int_equal(p->n_stacks, 2);
	assert_int_equal(p->stacks[0].count, 7);
	assert_int_equal(p->stacks[0].n, 2);
	assert_int_equal(p->stacks[0].loc[0]->offset, 0x1100);
	assert_int_equal(p->stacks[1].n, 1);
	profile__free(p);
	f = open_memstream(&buf, &len);
	assert_int_equal(report_cpu(db, id, &o, f), 0);
	assert_int_equal(report_heap(db, id, &o, f), 0);
	assert_int_equal(report_leaks(db, id, &o, f), 0);
	fclose(f);
	assert_non_null(strstr(buf, "app+0x1100"));
	free(buf);
	sqlite3_close(db);

	snprintf(dbp, sizeof(dbp), "%s.db", path);
	snprintf(out, sizeof(out), "%s/bigid.folded", tmpdir);
	assert_int_equal(RUN(cmd_export, "export", "--format", "folded", "-o", out, dbp), 0);
	text = slurp(out);
	assert_string_equal(text, "app+0x1100 3\napp+0x11ff;app+0x1100 7\n");
	free(text);
	assert_int_equal(RUN(cmd_symbolize, "symbolize", dbp), 0);
}

/* RUN with stdout into the file PATH; returns the command's code. */
static int run_to(const char *path, int (*fn)(int, char **), int argc, char **argv)
{
	int saved = dup(1), fd, rc;

	fflush(stdout);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0 && saved >= 0);
	dup2(fd, 1);
	close(fd);
	rc = fn(argc, argv);
	fflush(stdout);
	dup2(saved, 1);
	close(saved);
	return rc;
}

/* A frame-pointer walk through code without frame pointers: after two frames of
 * /usr/bin/app it read string bytes ("sname\0/e", 0x652f00656d616e73) as a return
 * address, then one that happens to be in app again. The walk ends before the
 * string bytes (the stack is cut, 7 of 10 samples): neither they nor the frame after
 * them reach the profile, the report and symbolize say how many samples were cut and
 * "frame pointers missing in /usr/bin/app". A stack whose innermost frame is in no
 * mapping (nothing above it was placed) is not cut. */
static void test_11_walk_cut(void **state)
{
	static const uint64_t junk[] = {0x400100, 0x400200, 0x652f00656d616e73, 0x400300};
	static const uint64_t whole[] = {0x400100, 0x400250};
	static const uint64_t nomap[] = {0x5000, 0x400100};
	const uint64_t sc[][3] = {{1, 0, 7}, {2, 0, 2}, {3, 0, 1}};
	struct capture_writer *w;
	struct report_opts o = {.fmt = OUT_TEXT};
	struct capture_meta m;
	struct window all = {0};
	struct profile *p = NULL;
	struct symstore_run run;
	char id[DB_CAPTURE_ID_LEN], path[256], dbp[300], out[300], *buf = NULL, *text;
	size_t len = 0;
	sqlite3 *db;
	FILE *f;

	(void)state;
	w = app_capture("cut.ptop", path, sizeof(path));
	put_stack(w, 1, false, junk, 4);
	put_stack(w, 2, false, whole, 2);
	put_stack(w, 3, false, nomap, 2);
	put_cpuprof(w, T0 + SEC, sc, 3);
	capw__trailer(w, T0 + 2 * SEC);
	assert_int_equal(capture_writer__close(w), 0);

	db = load(path, id);
	assert_int_equal(capture_meta__load(db, id, &m), 0);
	assert_int_equal(symstore__update(db, m.cap, NULL, &run, errbuf, sizeof(errbuf)), 0);
	assert_int_equal(profile__load(db, &m, &all, &p), 0);
	assert_int_equal(p->n_stacks, 3);
	assert_int_equal(p->stacks[0].count, 7);
	assert_int_equal(p->stacks[0].n, 2);
	assert_string_equal(p->stacks[0].cut_module, "/usr/bin/app");
	assert_int_equal(p->stacks[0].cut_ip, 0x652f00656d616e73);
	assert_null(p->stacks[1].cut_module);
	assert_int_equal(p->stacks[2].n, 2); /* [unknown] then app: not cut */
	assert_null(p->stacks[2].cut_module);
	assert_int_equal(p->cut, 7);
	profile__free(p);
	/* stacks__load (report heap, fds sites) cuts the same walk, counting stacks */
	assert_int_equal(stacks__load(db, m.cap, &p), 0);
	assert_int_equal(p->cut, 1);
	assert_string_equal(profile__stack(p, 1)->cut_module, "/usr/bin/app");
	assert_int_equal(profile__stack(p, 1)->n, 2);
	profile__free(p);

	f = open_memstream(&buf, &len);
	assert_int_equal(report_cpu(db, id, &o, f), 0);
	fclose(f);
	assert_non_null(strstr(buf, "note: stacks cut short: 7 of 10 samples (70.0%) end where "
				    "the walk read a return address in no executable mapping: "
				    "frame pointers missing in /usr/bin/app;"));
	assert_null(strstr(buf, "652f00656d616e73"));
	free(buf);
	buf = NULL;
	o.fmt = OUT_JSON;
	f = open_memstream(&buf, &len);
	assert_int_equal(report_cpu(db, id, &o, f), 0);
	fclose(f);
	assert_non_null(strstr(buf, "\"cut_samples\": 7"));
	free(buf);
	sqlite3_close(db);

	snprintf(dbp, sizeof(dbp), "%s.db", path);
	snprintf(out, sizeof(out), "%s/cut.folded", tmpdir);
	{ /* the export says beside the profile how many stacks were cut */
		char *argv[] = {"export", "--format", "folded", "-o", out, dbp, NULL};
		char errp[300];
		int saved = dup(2), fd;

		snprintf(errp, sizeof(errp), "%s/cut.err", tmpdir);
		fd = open(errp, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		assert_true(fd >= 0 && saved >= 0);
		dup2(fd, 2);
		close(fd);
		assert_int_equal(cmd_export(6, argv), 0);
		dup2(saved, 2);
		close(saved);
		text = slurp(errp);
		assert_non_null(strstr(text, "ptop-analyze export: note: stacks cut short: 7 of 10 "
					     "samples (70.0%)"));
		free(text);
	}
	text = slurp(out);
	assert_null(strstr(text, "652f00656d616e73"));
	assert_null(strstr(text, "app+0x12ff")); /* the frame after the junk */
	free(text);
	{
		char *argv[] = {"symbolize", dbp, NULL};

		snprintf(out, sizeof(out), "%s/cut.sym", tmpdir);
		assert_int_equal(run_to(out, cmd_symbolize, 2, argv), 0);
	}
	text = slurp(out);
	assert_non_null(strstr(text, "stacks cut short: 7 of 10 samples (70.0%)"));
	assert_non_null(strstr(text, "  /usr/bin/app: 7 samples\n    fix: frame pointers missing "
				     "in /usr/bin/app:"));
	free(text);
}

/* Samples whose innermost user frame is in ptop's own code in the target (the heap
 * preload library, by its mapping's file name; with kernel frames above it or not) are
 * probe overhead (DESIGN.md principle 9): out of the profile's stacks and samples, so of
 * every share, cpu.share figure and export; report cpu gives them on a line of their own. */
static void test_12_probe_overhead(void **state)
{
	static const uint64_t app[] = {0x400100, 0x400200};
	static const uint64_t in_pl[] = {0x7000010, 0x400200}; /* preload leaf, called by app */
	static const uint64_t pl_sys[] = {0x7000020, 0x400200};
	static const uint64_t kern[] = {0xffffffff81000010};
	static const uint64_t via_pl[] = {0x400100, 0x7000030, 0x400200}; /* a caller: target's */
	const uint64_t sc[][3] = {{1, 0, 6}, {2, 0, 3}, {3, 4, 1}, {5, 0, 2}};
	struct capture_writer_opts wo = {.force = true};
	struct capture_writer *w;
	struct report_opts o = {.fmt = OUT_TEXT};
	struct capture_meta m;
	struct window all = {0};
	struct profile *p = NULL;
	struct symstore_run run;
	char id[DB_CAPTURE_ID_LEN], path[256], dbp[300], out[300], *buf = NULL, *text;
	size_t len = 0;
	sqlite3 *db;
	FILE *f;

	(void)state;
	snprintf(path, sizeof(path), "%s/overhead.ptop", tmpdir);
	w = capture_writer__create(path, &wo);
	assert_non_null(w);
	put_header(w, "active");
	put_mapping(w, T0 + 10, 0x400000, 0x401000, 0x1000, "/usr/bin/app", true,
		    PTOP__V1__MAPPING_EVENT__MAPPING_EVENT_START);
	put_mapping(w, T0 + 10, 0x7000000, 0x7001000, 0, "/opt/ptop/lib/libptop-preload.so",
		    true, PTOP__V1__MAPPING_EVENT__MAPPING_EVENT_START);
	put_stack(w, 1, false, app, 2);
	put_stack(w, 2, false, in_pl, 2);
	put_stack(w, 3, false, pl_sys, 2);
	put_stack(w, 4, true, kern, 1);
	put_stack(w, 5, false, via_pl, 3);
	put_cpuprof(w, T0 + SEC, sc, 4);
	capw__trailer(w, T0 + 2 * SEC);
	assert_int_equal(capture_writer__close(w), 0);

	db = load(path, id);
	assert_int_equal(capture_meta__load(db, id, &m), 0);
	assert_int_equal(symstore__update(db, m.cap, NULL, &run, errbuf, sizeof(errbuf)), 0);
	/* named as a symbolizer would: the library's code pl_live_insert, the app's main */
	assert_int_equal(sqlite3_exec(db,
				      "INSERT OR REPLACE INTO symbol (space, key, addr, source, miss, "
				      "func_offset) SELECT DISTINCT sym_space, sym_key, sym_addr, "
				      "'symtab', NULL, 0 FROM frame_module WHERE sym_space = 'elf';"
				      "DELETE FROM symbol_frame;"
				      "INSERT INTO symbol_frame (space, key, addr, depth, func, file, "
				      "line, inlined) SELECT DISTINCT sym_space, sym_key, sym_addr, 0, "
				      "CASE WHEN module LIKE '%/libptop-preload.so' THEN "
				      "'pl_live_insert' ELSE 'main' END, NULL, NULL, 0 "
				      "FROM frame_module WHERE sym_space = 'elf'",
				      NULL, NULL, NULL),
			 SQLITE_OK);
	assert_int_equal(profile__load(db, &m, &all, &p), 0);
	assert_int_equal(p->n_stacks, 2);
	assert_int_equal(p->stacked, 8);
	assert_int_equal(p->overhead, 4);
	assert_int_equal(p->overhead_stacks, 2);
	assert_int_equal(p->all_stacked, 12);
	profile__free(p);

	f = open_memstream(&buf, &len);
	assert_int_equal(report_cpu(db, id, &o, f), 0);
	fclose(f);
	assert_non_null(strstr(buf, "profile: 8 samples"));
	assert_non_null(strstr(buf, "probe overhead: 4 samples (33.3% of 12) in ptop's own code "
				    "in the target (libptop-preload.so)"));
	/* innermost in no sample the target is charged for: no self share */
	assert_null(strstr(buf, "   2  25.0%      2   25.0%  pl_live_insert"));
	free(buf);
	buf = NULL;
	o.fmt = OUT_JSON;
	f = open_memstream(&buf, &len);
	assert_int_equal(report_cpu(db, id, &o, f), 0);
	fclose(f);
	assert_non_null(strstr(buf, "\"probe_overhead\": {\n"));
	assert_non_null(strstr(buf, "\"samples\": 4,"));
	assert_non_null(strstr(buf, "\"pct\": 33.33"));
	free(buf);
	sqlite3_close(db);

	snprintf(dbp, sizeof(dbp), "%s.db", path);
	snprintf(out, sizeof(out), "%s/overhead.folded", tmpdir);
	assert_int_equal(RUN(cmd_export, "export", "--format", "folded", "-o", out, dbp), 0);
	text = slurp(out);
	assert_string_equal(text, "main;main 6\nmain;pl_live_insert;main 2\n");
	free(text);
	{
		char *argv[] = {"figures", "--format", "csv", dbp, NULL};

		snprintf(out, sizeof(out), "%s/overhead.fig", tmpdir);
		assert_int_equal(run_to(out, cmd_figures, 4, argv), 0);
	}
	text = slurp(out);
	assert_non_null(strstr(text, "cpu.share(main),100,%,8,8,"));
	assert_null(strstr(text, "pl_live_insert")); /* ptop's code: in no figure, so no diff */
	free(text);
}

/* A window whose every profile sample is ptop's own code (a nearly idle target under the
 * heap's preload lane): the profile ran, so cpu.share is measured, of 0 samples, and diff
 * calls a change against it too few samples to tell, never "not comparable" (which a gate
 * fails as a missing figure: identical runs of an idle workload raised alarms). */
static void test_12b_profile_of_overhead_only(void **state)
{
	static const uint64_t in_pl[] = {0x7000010, 0x400200};
	static const uint64_t app[] = {0x400100, 0x400200};
	const uint64_t only_pl[][3] = {{2, 0, 3}};
	const uint64_t busy[][3] = {{1, 0, 40}, {2, 0, 3}};
	char path[2][256], dbp[2][300], out[300], *text;

	(void)state;
	for (int k = 0; k < 2; k++) {
		struct capture_writer_opts wo = {.force = true};
		struct capture_writer *w;
		char id[DB_CAPTURE_ID_LEN];

		snprintf(path[k], sizeof(path[k]), "%s/idle%d.ptop", tmpdir, k);
		w = capture_writer__create(path[k], &wo);
		assert_non_null(w);
		put_header(w, "active");
		put_mapping(w, T0 + 10, 0x400000, 0x401000, 0x1000, "/usr/bin/app", true,
			    PTOP__V1__MAPPING_EVENT__MAPPING_EVENT_START);
		put_mapping(w, T0 + 10, 0x7000000, 0x7001000, 0,
			    "/opt/ptop/lib/libptop-preload.so", true,
			    PTOP__V1__MAPPING_EVENT__MAPPING_EVENT_START);
		put_stack(w, 1, false, app, 2);
		put_stack(w, 2, false, in_pl, 2);
		if (k)
			put_cpuprof(w, T0 + SEC, busy, 2);
		else
			put_cpuprof(w, T0 + SEC, only_pl, 1);
		capw__trailer(w, T0 + 2 * SEC);
		assert_int_equal(capture_writer__close(w), 0);
		sqlite3_close(load(path[k], id));
		snprintf(dbp[k], sizeof(dbp[k]), "%s.db", path[k]);
	}
	{
		char *argv[] = {"figures", "--format", "csv", dbp[0], NULL};

		snprintf(out, sizeof(out), "%s/idle.fig", tmpdir);
		assert_int_equal(run_to(out, cmd_figures, 4, argv), 0);
	}
	text = slurp(out);
	assert_null(strstr(text, "no profile sample with a stack"));
	free(text);
	{
		char *argv[] = {"diff", "--fail-on", "cpu.share(*) > +5pp", dbp[0], dbp[1], NULL};

		snprintf(out, sizeof(out), "%s/idle.diff", tmpdir);
		assert_int_equal(run_to(out, cmd_diff, 5, argv), 0); /* the gate passes */
	}
	text = slurp(out);
	assert_null(strstr(text, "not comparable (no profile sample"));
	free(text);
}

/* A stack only an fd opening site names (fds's fd_site, --fd-stacks) is placed in the
 * mappings of the site's process, as the profile's are: pid 100 and 200 both map
 * 0x400000, alpha and beta; the site is 200's, so its frame is beta's. */
static void test_13_fd_site_placed(void **state)
{
	char id[DB_CAPTURE_ID_LEN];
	struct capture_meta m;
	struct symstore_run run;
	sqlite3 *db;

	(void)state;
	db = load(write_cgroup_capture("fdsite.ptop"), id);
	assert_int_equal(capture_meta__load(db, id, &m), 0);
	assert_int_equal(sqlite3_exec(db,
				      "INSERT INTO stack (cap, stack_id, kernel, depth, ips) "
				      "VALUES (1, 50, 0, 1, json_array(4194560)); "
				      "INSERT INTO fd_site (cap, time_ns, pid, stack_id, opened, live) "
				      "VALUES (1, 1000, 200, 50, 3, 3)",
				      NULL, NULL, NULL),
			 SQLITE_OK);
	assert_int_equal(symstore__update(db, m.cap, NULL, &run, errbuf, sizeof(errbuf)), 0);
	assert_string_equal(q_text(db, "SELECT quote(pid) || ':' || module || ':' || "
				       "printf('%%x', file_offset) FROM frame_module WHERE "
				       "stack_id = 50"),
			    "200:/opt/beta/bin/beta:3100");
	sqlite3_close(db);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_01_loader_rows),   cmocka_unit_test(test_02_mapping_arithmetic),
	    cmocka_unit_test(test_03_frames_placed), cmocka_unit_test(test_04_top_functions),
	    cmocka_unit_test(test_05_profile_load),  cmocka_unit_test(test_06_not_collected),
	    cmocka_unit_test(test_07_per_process),   cmocka_unit_test(test_08_single_process_pid),
	    cmocka_unit_test(test_09_commands),
	    cmocka_unit_test(test_10_stack_id_2_63),
	    cmocka_unit_test(test_11_walk_cut),
	    cmocka_unit_test(test_12_probe_overhead),
    cmocka_unit_test(test_12b_profile_of_overhead_only),
	    cmocka_unit_test(test_13_fd_site_placed),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
