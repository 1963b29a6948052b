/* test_export.c — `export`: folded stacks (exact text) and the pprof profile,
 * decoded back (gunzip, then protobuf-c) and checked field by field; on a synthetic
 * capture, the pprof mappings (ranges, offsets, build-ids, the main program first, an
 * unnamed frame an address with has_functions false) and the heap profile (Go's four
 * sample types, totals equal to report heap's, sampled or not; folded by live and
 * allocated).
 */
#include <errno.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include <cmocka.h>

#include "analyze/db.h"
#include "analyze/export.h"
#include "analyze/part.h"
#include "analyze/report.h"
#include "analyze/symbolize.h"
#include "collectors/cpuprof/stacks.h"
#include "collectors/heap/stacks.h"
#include "proto/pprof.pb-c.h"
#include "tests/tmpdir.h"
#include "tests/capwrite.h"
#include "collectors/heap/report.h"

/* A hand-made profile: main -> work -> (leaf with helper inlined), a recursive
 * stack, an unnamed libc frame, and a kernel frame on top of one stack. */
static struct prof_func f_main[] = {{"main", "m.c", 10, false}};
static struct prof_func f_work[] = {{"work", "w.c", 20, false}};
static struct prof_func f_leaf[] = {{"helper", "h.h", 3, true}, {"leaf", "w.c", 33, false}};
static struct prof_func f_k[] = {{"do_syscall_64", NULL, 0, false}};
static struct prof_loc L[] = {
    {.kind = FRAME_USER,
     .module = "/bin/app",
     .build_id = "abcd",
     .ip = 0x1010,
     .addr = 0x1010,
     .offset = 0x10,
     .source = "dwarf",
     .n = 1,
     .f = f_main},
    {.kind = FRAME_USER,
     .module = "/bin/app",
     .build_id = "abcd",
     .ip = 0x1020,
     .addr = 0x101f,
     .offset = 0x1f,
     .source = "dwarf",
     .n = 1,
     .f = f_work},
    {.kind = FRAME_USER,
     .module = "/bin/app",
     .build_id = "abcd",
     .ip = 0x1030,
     .addr = 0x1030,
     .offset = 0x30,
     .source = "dwarf",
     .n = 2,
     .f = f_leaf},
    {.kind = FRAME_USER,
     .module = "/lib/libc.so.6",
     .ip = 0x7f00,
     .addr = 0x7f00,
     .offset = 0x2f00,
     .miss = "no_file"},
    {.kind = FRAME_KERNEL,
     .module = "[kernel]",
     .ip = 0xffff0001,
     .addr = 0xffff0001,
     .offset = 0xffff0001,
     .source = "kallsyms",
     .n = 1,
     .f = f_k},
};
static struct prof_loc *s1[] = {&L[2], &L[1], &L[0]};
static struct prof_loc *s2[] = {&L[1], &L[1], &L[0]};
static struct prof_loc *s3[] = {&L[4], &L[3], &L[0]};
static struct prof_loc *s4[] = {&L[2], &L[1], &L[0]}; /* the same names as s1 */
static struct prof_stack ST[] = {
    {.count = 7, .n = 3, .loc = s1},
    {.count = 4, .n = 3, .loc = s2},
    {.count = 2, .n = 3, .loc = s3},
    {.count = 1, .n = 3, .loc = s4},
};

static struct profile make_profile(void)
{
	struct profile p = {.collected = true,
			    .requested_hz = 100,
			    .n_stacks = 4,
			    .stacks = ST,
			    .t0_ns = 5000000000,
			    .t1_ns = 8000000000,
			    .stacked = 14};
	return p;
}

static void test_01_folded(void **state)
{
	struct profile p = make_profile();
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	(void)state;
	assert_int_equal(export_folded(&p, f), 0);
	fclose(f);
	assert_string_equal(buf, "main;libc.so.6+0x2f00;do_syscall_64_[k] 2\n"
				 "main;work;leaf;helper 8\n"
				 "main;work;work 4\n");
	free(buf);
}

static uint8_t *gunzip(const uint8_t *in, size_t len, size_t *outlen)
{
	z_stream zs = {0};
	size_t cap = 1 << 20;
	uint8_t *out = malloc(cap);

	assert_non_null(out);
	assert_int_equal(inflateInit2(&zs, 15 + 16), Z_OK);
	zs.next_in = (uint8_t *)in;
	zs.avail_in = (uInt)len;
	zs.next_out = out;
	zs.avail_out = (uInt)cap;
	assert_int_equal(inflate(&zs, Z_FINISH), Z_STREAM_END);
	*outlen = zs.total_out;
	inflateEnd(&zs);
	return out;
}

static const char *S(const Perftools__Profiles__Profile *p, int64_t i)
{
	assert_true(i >= 0 && (size_t)i < p->n_string_table);
	return p->string_table[i];
}

static const Perftools__Profiles__Location *loc_of(const Perftools__Profiles__Profile *p,
						   uint64_t id)
{
	for (size_t k = 0; k < p->n_location; k++)
		if (p->location[k]->id == id)
			return p->location[k];
	fail_msg("no location %" PRIu64, id);
	return NULL;
}

static const char *fname(const Perftools__Profiles__Profile *p, uint64_t fid)
{
	for (size_t k = 0; k < p->n_function; k++)
		if (p->function[k]->id == fid)
			return S(p, p->function[k]->name);
	fail_msg("no function %" PRIu64, fid);
	return NULL;
}

static void test_02_pprof_roundtrip(void **state)
{
	struct profile p = make_profile();
	Perftools__Profiles__Profile *pp;
	const Perftools__Profiles__Location *l;
	uint8_t *gz = NULL, *raw;
	size_t gzlen = 0, rawlen;
	uint64_t total = 0;

	(void)state;
	assert_int_equal(export_pprof(&p, 1700000000000000000LL, &gz, &gzlen), 0);
	assert_true(gzlen > 18);
	assert_int_equal(gz[0], 0x1f); /* gzip magic */
	assert_int_equal(gz[1], 0x8b);
	raw = gunzip(gz, gzlen, &rawlen);
	pp = perftools__profiles__profile__unpack(NULL, rawlen, raw);
	assert_non_null(pp);

	assert_string_equal(S(pp, 0), "");
	assert_int_equal(pp->n_sample_type, 2);
	assert_string_equal(S(pp, pp->sample_type[0]->type), "samples");
	assert_string_equal(S(pp, pp->sample_type[0]->unit), "count");
	assert_string_equal(S(pp, pp->sample_type[1]->type), "cpu");
	assert_string_equal(S(pp, pp->sample_type[1]->unit), "nanoseconds");
	assert_string_equal(S(pp, pp->period_type->type), "cpu");
	assert_int_equal(pp->period, 10000000); /* 1e9 / 100 Hz */
	assert_int_equal(pp->time_nanos, 1700000000000000000LL);
	assert_int_equal(pp->duration_nanos, 3000000000LL);

	assert_int_equal(pp->n_sample, 4);
	for (size_t k = 0; k < pp->n_sample; k++) {
		assert_int_equal(pp->sample[k]->n_value, 2);
		assert_int_equal(pp->sample[k]->value[1], pp->sample[k]->value[0] * 10000000);
		total += (uint64_t)pp->sample[k]->value[0];
	}
	assert_int_equal(total, 14);
	/* sample 0: the leaf first; the leaf's location has the inlined helper first */
	assert_int_equal(pp->sample[0]->value[0], 7);
	assert_int_equal(pp->sample[0]->n_location_id, 3);
	l = loc_of(pp, pp->sample[0]->location_id[0]);
	assert_int_equal(l->address, 0x1030);
	assert_int_equal(l->n_line, 2);
	assert_string_equal(fname(pp, l->line[0]->function_id), "helper");
	assert_int_equal(l->line[0]->line, 3);
	assert_string_equal(fname(pp, l->line[1]->function_id), "leaf");
	assert_int_equal(l->line[1]->line, 33);
	l = loc_of(pp, pp->sample[0]->location_id[2]);
	assert_string_equal(fname(pp, l->line[0]->function_id), "main");
	/* locations are shared: sample 3 has the same ids as sample 0 */
	assert_memory_equal(pp->sample[0]->location_id, pp->sample[3]->location_id,
			    3 * sizeof(uint64_t));
	/* 5 distinct locations, 3 mappings (app, libc, kernel) */
	assert_int_equal(pp->n_location, 5);
	assert_int_equal(pp->n_mapping, 3);
	/* the unnamed libc frame: an address, no line, for pprof to name */
	l = loc_of(pp, pp->sample[2]->location_id[1]);
	assert_int_equal(l->n_line, 0);
	assert_int_equal(l->address, 0x7f00);
	for (size_t k = 0; k < pp->n_mapping; k++)
		if (!strcmp(S(pp, pp->mapping[k]->filename), "/bin/app"))
			assert_string_equal(S(pp, pp->mapping[k]->build_id), "abcd");
	/* a caller's location is at the address resolved (ip - 1: its call) */
	l = loc_of(pp, pp->sample[0]->location_id[1]);
	assert_int_equal(l->address, 0x101f);
	/* every function once: main work helper leaf do_syscall_64 */
	assert_int_equal(pp->n_function, 5);
	/* one process: no labels */
	for (size_t k = 0; k < pp->n_sample; k++)
		assert_int_equal(pp->sample[k]->n_label, 0);
	for (size_t k = 0; k < pp->n_string_table; k++)
		assert_string_not_equal(pp->string_table[k], "pid");

	perftools__profiles__profile__free_unpacked(pp, NULL);
	free(raw);
	free(gz);
}

static void test_03_empty(void **state)
{
	struct profile p = {.collected = true, .t0_ns = -1, .t1_ns = -1};
	Perftools__Profiles__Profile *pp;
	uint8_t *gz = NULL, *raw;
	size_t gzlen, rawlen;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	(void)state;
	assert_int_equal(export_folded(&p, f), 0);
	fclose(f);
	assert_int_equal(len, 0);
	free(buf);
	assert_int_equal(export_pprof(&p, 0, &gz, &gzlen), 0);
	raw = gunzip(gz, gzlen, &rawlen);
	pp = perftools__profiles__profile__unpack(NULL, rawlen, raw);
	assert_non_null(pp);
	assert_int_equal(pp->n_sample, 0);
	assert_int_equal(pp->period, 0); /* no rate known: no period invented */
	perftools__profiles__profile__free_unpacked(pp, NULL);
	free(raw);
	free(gz);
}

/* A cgroup's per-process profile: stacks of 100 (comm "alpha"), 200 (no comm:
 * its exe's base name), 300 (nothing known) and 400 (comm with a ';'). */
static struct prof_loc *s5[] = {&L[1], &L[0]};
static struct prof_stack STP[] = {
    {.count = 7, .n = 3, .loc = s1, .pid = 100},
    {.count = 4, .n = 3, .loc = s1, .pid = 200}, /* the same frames, another process */
    {.count = 2, .n = 2, .loc = s5, .pid = 300},
    {.count = 1, .n = 0, .loc = NULL, .no_user_stack = true, .pid = 100},
    {.count = 3, .n = 3, .loc = s4, .pid = 100}, /* merged with the first */
    {.count = 5, .n = 2, .loc = s5, .pid = 400},
};
static struct prof_proc PROCS[] = {
    {.pid = 100, .comm = "alpha", .exe = "/usr/bin/alpha", .samples = 11},
    {.pid = 400, .comm = "w;x", .samples = 5},
    {.pid = 200, .exe = "/opt/beta/bin/beta", .samples = 4},
    {.pid = 300, .samples = 2},
};

static struct profile make_per_process(void)
{
	struct profile p = {.collected = true,
			    .requested_hz = 100,
			    .n_stacks = 6,
			    .stacks = STP,
			    .n_procs = 4,
			    .procs = PROCS,
			    .t0_ns = 5000000000,
			    .t1_ns = 8000000000,
			    .stacked = 22,
			    .all_stacked = 22};
	return p;
}

/* Folded: each line starts with COMM-PID; pprof: a "pid" label per sample. */
static void test_04_per_process(void **state)
{
	struct profile p = make_per_process();
	Perftools__Profiles__Profile *pp;
	uint8_t *gz = NULL, *raw;
	size_t gzlen = 0, rawlen, len = 0;
	char *buf = NULL;
	FILE *f = open_memstream(&buf, &len);

	(void)state;
	assert_int_equal(export_folded(&p, f), 0);
	fclose(f);
	assert_string_equal(buf, "[unknown]-300;main;work 2\n"
				 "alpha-100;[no stack] 1\n"
				 "alpha-100;main;work;leaf;helper 10\n"
				 "beta-200;main;work;leaf;helper 4\n"
				 "w:x-400;main;work 5\n");
	free(buf);

	assert_int_equal(export_pprof(&p, 0, &gz, &gzlen), 0);
	raw = gunzip(gz, gzlen, &rawlen);
	pp = perftools__profiles__profile__unpack(NULL, rawlen, raw);
	assert_non_null(pp);
	assert_int_equal(pp->n_sample, 6);
	for (size_t k = 0; k < pp->n_sample; k++) {
		assert_int_equal(pp->sample[k]->n_label, 1);
		assert_string_equal(S(pp, pp->sample[k]->label[0]->key), "pid");
		assert_int_equal(pp->sample[k]->label[0]->num, STP[k].pid);
		assert_int_equal(pp->sample[k]->label[0]->str, 0);
		assert_int_equal(pp->sample[k]->value[0], (int64_t)STP[k].count);
	}
	/* the locations are the same whatever the process */
	assert_memory_equal(pp->sample[0]->location_id, pp->sample[1]->location_id,
			    3 * sizeof(uint64_t));
	perftools__profiles__profile__free_unpacked(pp, NULL);
	free(raw);
	free(gz);
}

/* Issue 10 (found by fuzz_db): a stack whose samples x 1e9 / Hz pass 2^63 ns (signed
 * overflow, UBSan) is refused with -EOVERFLOW, nothing written. */
static void test_05_pprof_overflow(void **state)
{
	struct prof_stack big[] = {{.count = 280390466888797ull, .n = 3, .loc = s1}};
	struct profile p = make_profile();
	uint8_t *gz = NULL;
	size_t gzlen = 0;

	(void)state;
	p.requested_hz = 99;
	p.stacks = big;
	p.n_stacks = 1;
	assert_int_equal(export_pprof(&p, 0, &gz, &gzlen), -EOVERFLOW);
	assert_null(gz);
	free(gz);
}

/* ------------------------------------------------- a synthetic heap capture */

static int setup(void **state)
{
	(void)state;
	return tmpdir__make("export");
}

#define T0 1000000000000ull
#define SEC 1000000000ull
#define PID 4321
#define APP "/usr/bin/app"
#define LIBC "/usr/lib/x86_64-linux-gnu/libc.so.6"

static char errbuf[1024];

static void exec(sqlite3 *db, const char *sql)
{
	char *e = NULL;

	if (sqlite3_exec(db, sql, NULL, NULL, &e) != SQLITE_OK)
		fail_msg("%s: %s", sql, e);
}

struct hsite {
	uint64_t stack, alloc_count, alloc_bytes, live_count, live_bytes;
};

/* Heap snapshot I (1, 2) of the capture: its sites; the second leaves 3 sites out. */
static void put_heap(struct capture_writer *w, int i)
{
	static const struct hsite fig[2][3] = {
	    {{1, 10, 40960, 10, 40960}, {2, 1000, 64000, 0, 0}, {3, 0, 0, 0, 0}},
	    {{1, 0, 0, 10, 40960}, {2, 500, 32000, 5, 320}, {3, 3, 300, 3, 300}},
	};
	Ptop__V1__Event ev = capb__event(T0 + (uint64_t)i * SEC, PID, PID,
					 PTOP__V1__CATEGORY__CATEGORY_HEAP, SEC);
	Ptop__V1__HeapSnapshot h = PTOP__V1__HEAP_SNAPSHOT__INIT;
	Ptop__V1__HeapSite site[3], *sp[3];

	for (int k = 0; k < 3; k++) {
		const struct hsite *f = &fig[i - 1][k];

		ptop__v1__heap_site__init(&site[k]);
		sp[k] = &site[k];
		site[k].stack_id = f->stack;
		site[k].alloc_count = f->alloc_count;
		site[k].alloc_bytes = f->alloc_bytes;
		site[k].live_count = f->live_count;
		site[k].live_bytes = f->live_bytes;
		h.alloc_count += f->alloc_count;
		h.alloc_bytes += f->alloc_bytes;
		h.live_count += f->live_count;
		h.live_bytes += f->live_bytes;
	}
	h.lane = "preload";
	h.module = "/usr/lib/libptop-preload.so";
	h.live_measured = true;
	h.sites = sp;
	h.n_sites = 3;
	h.total_call_sites = i == 2 ? 6 : 3;
	if (i == 2) { /* the sites left out: 7 allocations of 100 B, 2 live (100 B) */
		h.omitted_alloc_count = 7;
		h.omitted_alloc_bytes = 700;
		h.omitted_live_bytes = 100;
		h.alloc_count += 7;
		h.alloc_bytes += 700;
		h.live_count += 2;
		h.live_bytes += 100;
	}
	ev.payload_case = PTOP__V1__EVENT__PAYLOAD_HEAP;
	ev.heap = &h;
	capb__put_event(w, &ev);
}

/* The capture: app mapped at 0x400000 (r--p, offset 0) and 0x401000..0x403000 (r-xp,
 * offset 0x1000), libc at 0x7000000..0x7100000 (offset 0x26000), each with a build-id;
 * stacks from malloc (libc 0x7000100) out: 1 leak (app 0x401150) <- main (0x401050), 2
 * churn (0x401250) <- main (0x401060), 3 an unnamed app frame (0x401f00) <- main
 * (0x401070). Loaded, placed, and named as a symbolizer would: app's frames but the one at
 * 0x401f00 (a caller: resolved at 0x401eff, file offset 0x1eff), and libc's malloc. */
static sqlite3 *heap_capture(const char *name, char id[DB_CAPTURE_ID_LEN])
{
	struct capture_writer_opts o = {.force = true};
	static const uint8_t app_id[4] = {0xab, 0xcd, 0x00, 0x01}, libc_id[4] = {0xcc, 0xcd, 0, 1};
	static const uint64_t st[3][3] = {
	    {0x7000100, 0x401150, 0x401050},
	    {0x7000100, 0x401250, 0x401060},
	    {0x7000100, 0x401f00, 0x401070},
	};
	struct capb_header b;
	struct capture_writer *w;
	Ptop__V1__Mapping m;
	struct symstore_run run;
	sqlite3 *db = NULL;
	char dbp[300];

	w = capture_writer__create(tpath(name), &o);
	assert_non_null(w);
	capb__header_init(&b);
	b.h.recorder = NULL;
	b.h.options = NULL;
	b.id[0] = 0x13;
	b.host.boot_id = "0b0b0b0b-1111-2222-3333-444444444444";
	b.clk.monotonic_ns = T0;
	b.t.mode = PTOP__V1__TARGET_MODE__TARGET_MODE_COMMAND;
	b.t.pid = PID;
	b.t.exe = APP;
	capb__probe(&b, "heap", PTOP__V1__PROBE_STATE__PROBE_STATE_ACTIVE,
		    PTOP__V1__PROBE_SOURCE__PROBE_SOURCE_EBPF, NULL, NULL);
	capb__put_header(w, &b);
	/* libc first in the file: the main program is first by address, not by order */
	m = capb__mapping(T0 + 10, PID, 0x7000000, 0x7100000, 0x26000, LIBC, libc_id, 4,
			  PTOP__V1__MAPPING_EVENT__MAPPING_EVENT_START);
	capb__put_mapping(w, &m);
	m = capb__mapping(T0 + 10, PID, 0x400000, 0x401000, 0, APP, app_id, 4,
			  PTOP__V1__MAPPING_EVENT__MAPPING_EVENT_START);
	m.perms = "r--p";
	capb__put_mapping(w, &m);
	m = capb__mapping(T0 + 10, PID, 0x401000, 0x403000, 0x1000, APP, app_id, 4,
			  PTOP__V1__MAPPING_EVENT__MAPPING_EVENT_START);
	capb__put_mapping(w, &m);
	for (int k = 0; k < 3; k++)
		capb__put_stack(w, (uint64_t)k + 1, st[k], 3, false);
	put_heap(w, 1);
	put_heap(w, 2);
	assert_int_equal(capture_writer__close(w), 0);

	snprintf(dbp, sizeof(dbp), "%s.db", tpath(name));
	assert_int_equal(db__open(dbp, true, false, &db, errbuf, sizeof(errbuf)), 0);
	if (db__load_capture(db, tpath(name), true, id, NULL, errbuf, sizeof(errbuf)))
		fail_msg("load: %s", errbuf);
	assert_int_equal(symstore__update(db, 1, NULL, &run, errbuf, sizeof(errbuf)), 0);
	exec(db, "INSERT OR REPLACE INTO symbol (space, key, addr, source, miss, func_offset) "
		 "SELECT DISTINCT sym_space, sym_key, sym_addr, "
		 "CASE WHEN sym_addr = 7935 THEN NULL ELSE 'symtab' END, "
		 "CASE WHEN sym_addr = 7935 THEN 'no_symbols' END, 0 "
		 "FROM frame_module WHERE sym_space = 'elf'");
	exec(db, "DELETE FROM symbol_frame");
	exec(db, "INSERT INTO symbol_frame (space, key, addr, depth, func, file, line, inlined) "
		 "SELECT DISTINCT sym_space, sym_key, sym_addr, 0, "
		 "CASE WHEN sym_key = 'cccd0001' THEN 'malloc' WHEN sym_addr >= 4608 THEN 'churn' "
		 " WHEN sym_addr >= 4352 THEN 'leak' ELSE 'main' END, 'app.c', 1, 0 "
		 "FROM frame_module WHERE sym_space = 'elf' AND sym_addr <> 7935");
	return db;
}

static Perftools__Profiles__Profile *heap_pprof(sqlite3 *db, const char *id,
						struct heap_stacks **hso)
{
	struct capture_meta m;
	struct window w = {0};
	struct heap_stacks *hs = NULL;
	Perftools__Profiles__Profile *pp;
	uint8_t *gz = NULL, *raw;
	size_t gzlen = 0, rawlen;

	assert_int_equal(capture_meta__load(db, id, &m), 0);
	assert_int_equal(heap_stacks__load(db, &m, &w, &hs), 0);
	assert_true(hs->collected);
	assert_int_equal(export_heap_pprof(hs, 0, &gz, &gzlen), 0);
	raw = gunzip(gz, gzlen, &rawlen);
	pp = perftools__profiles__profile__unpack(NULL, rawlen, raw);
	assert_non_null(pp);
	free(raw);
	free(gz);
	*hso = hs;
	return pp;
}

static const Perftools__Profiles__Mapping *map_of(const Perftools__Profiles__Profile *p,
						  uint64_t id)
{
	for (size_t k = 0; k < p->n_mapping; k++)
		if (p->mapping[k]->id == id)
			return p->mapping[k];
	fail_msg("no mapping %" PRIu64, id);
	return NULL;
}

/* Mappings: the record that placed each frame, with its range, offset and build-id; the
 * main program first though libc comes first in the file and in every stack; the unnamed
 * frame an address in app's mapping, which then says it has no functions. */
static void test_06_pprof_mappings(void **state)
{
	char id[DB_CAPTURE_ID_LEN];
	struct heap_stacks *hs;
	sqlite3 *db = heap_capture("map.ptop", id);
	Perftools__Profiles__Profile *pp = heap_pprof(db, id, &hs);
	const Perftools__Profiles__Mapping *app, *libc;
	const Perftools__Profiles__Location *l;
	bool unnamed_seen = false;

	(void)state;
	/* app (its executable mapping: the one the frames are in), libc, the sites left
	 * out's pseudo mapping */
	assert_int_equal(pp->n_mapping, 3);
	app = pp->mapping[0];
	libc = pp->mapping[1];
	assert_int_equal(app->id, 1);
	assert_string_equal(S(pp, app->filename), APP);
	assert_string_equal(S(pp, app->build_id), "abcd0001");
	assert_int_equal(app->memory_start, 0x401000);
	assert_int_equal(app->memory_limit, 0x403000);
	assert_int_equal(app->file_offset, 0x1000);
	assert_false(app->has_functions); /* one frame of it is unnamed */
	assert_false(app->has_line_numbers);
	assert_string_equal(S(pp, libc->filename), LIBC);
	assert_string_equal(S(pp, libc->build_id), "cccd0001");
	assert_int_equal(libc->memory_start, 0x7000000);
	assert_int_equal(libc->memory_limit, 0x7100000);
	assert_int_equal(libc->file_offset, 0x26000);
	assert_true(libc->has_functions);
	assert_string_equal(S(pp, pp->mapping[2]->filename), "[sites left out]");
	for (size_t k = 0; k < pp->n_location; k++) {
		const Perftools__Profiles__Mapping *m;

		l = pp->location[k];
		m = map_of(pp, l->mapping_id);
		/* every location inside its mapping, the file offset the frame's */
		assert_true(l->address >= m->memory_start && l->address < m->memory_limit);
		if (l->address == 0x401eff) {
			unnamed_seen = true;
			assert_int_equal(l->n_line, 0);
			assert_ptr_equal(m, app);
			assert_int_equal(l->address - m->memory_start + m->file_offset, 0x1eff);
		} else {
			assert_int_equal(l->n_line, 1);
		}
		/* callers at their call (ip - 1) */
		if (l->address >= 0x401040 && l->address < 0x401080)
			assert_int_equal(l->address & 0xf, 0xf);
	}
	assert_true(unnamed_seen);
	perftools__profiles__profile__free_unpacked(pp, NULL);
	heap_stacks__free(hs);
	sqlite3_close(db);
}

/* The figure KEY of report heap's JSON totals. */
static int64_t totals(sqlite3 *db, const char *id, const char *key)
{
	struct report_opts o = {.fmt = OUT_JSON};
	char *buf = NULL, pat[64];
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	const char *t;
	int64_t v;

	assert_int_equal(report_heap(db, id, &o, f), 0);
	fclose(f);
	t = strstr(buf, "\"totals\"");
	assert_non_null(t);
	snprintf(pat, sizeof(pat), "\"%s\": ", key);
	t = strstr(t, pat);
	assert_non_null(t);
	v = strtoll(t + strlen(pat), NULL, 10);
	free(buf);
	return v;
}

static void check_heap_totals(sqlite3 *db, const char *id)
{
	static const char *const type[] = {"alloc_objects", "alloc_space", "inuse_objects",
					   "inuse_space"};
	static const char *const unit[] = {"count", "bytes", "count", "bytes"};
	struct heap_stacks *hs;
	Perftools__Profiles__Profile *pp = heap_pprof(db, id, &hs);
	int64_t sum[4] = {0};

	assert_int_equal(pp->n_sample_type, 4);
	for (int i = 0; i < 4; i++) {
		assert_string_equal(S(pp, pp->sample_type[i]->type), type[i]);
		assert_string_equal(S(pp, pp->sample_type[i]->unit), unit[i]);
	}
	assert_string_equal(S(pp, pp->period_type->type), "space");
	assert_string_equal(S(pp, pp->default_sample_type), "inuse_space");
	for (size_t k = 0; k < pp->n_sample; k++) {
		assert_int_equal(pp->sample[k]->n_value, 4);
		for (int i = 0; i < 4; i++) {
			assert_true(pp->sample[k]->value[i] >= 0);
			sum[i] += pp->sample[k]->value[i];
		}
	}
	assert_int_equal(sum[0], totals(db, id, "alloc_count"));
	assert_int_equal(sum[1], totals(db, id, "alloc_bytes"));
	assert_int_equal(sum[2], totals(db, id, "live_count"));
	assert_int_equal(sum[3], totals(db, id, "live_bytes"));
	assert_int_equal((uint64_t)sum[0], hs->alloc_count);
	assert_int_equal((uint64_t)sum[3], hs->live_bytes);
	perftools__profiles__profile__free_unpacked(pp, NULL);
	heap_stacks__free(hs);
}

/* The heap profile: Go's sample types; its totals report heap's (the sites left out a
 * stack of their own); the same once the snapshots are sampled (the sites' estimates
 * scaled to the exact counts). */
static void test_07_heap_pprof_totals(void **state)
{
	char id[DB_CAPTURE_ID_LEN];
	sqlite3 *db = heap_capture("heap.ptop", id);
	struct heap_stacks *hs;
	Perftools__Profiles__Profile *pp;

	(void)state;
	check_heap_totals(db, id);
	assert_int_equal(totals(db, id, "alloc_count"), 10 + 1000 + 500 + 3 + 7);
	assert_int_equal(totals(db, id, "live_bytes"), 40960 + 320 + 300 + 100);
	/* the exact figures per stack: leak's 10 allocations, 40960 live */
	pp = heap_pprof(db, id, &hs);
	for (size_t k = 0; k < hs->n; k++)
		if (hs->stack[k].stack && hs->stack[k].stack->stack_id == 1) {
			assert_int_equal(hs->stack[k].alloc_count, 10);
			assert_int_equal(hs->stack[k].live_bytes, 40960);
		} else if (!hs->stack[k].stack) {
			assert_string_equal(hs->stack[k].what, "[sites left out]");
			assert_int_equal(hs->stack[k].alloc_count, 7);
			assert_int_equal(hs->stack[k].live_bytes, 100);
		}
	perftools__profiles__profile__free_unpacked(pp, NULL);
	heap_stacks__free(hs);

	/* sampled: the snapshots counted more than the sites' estimates hold */
	exec(db, "UPDATE heap_snapshot SET sample_bytes = 524288, alloc_count = alloc_count + "
		 "333, alloc_bytes = alloc_bytes + 21333, live_bytes = live_bytes + 4001, "
		 "live_count = live_count + 3");
	check_heap_totals(db, id);
	sqlite3_close(db);
}

/* Folded heap stacks: by live bytes (the stacks holding some) and by bytes allocated. */
static void test_08_heap_folded(void **state)
{
	char id[DB_CAPTURE_ID_LEN], *buf = NULL;
	sqlite3 *db = heap_capture("folded.ptop", id);
	struct capture_meta m;
	struct window w = {0};
	struct heap_stacks *hs = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	assert_int_equal(capture_meta__load(db, id, &m), 0);
	assert_int_equal(heap_stacks__load(db, &m, &w, &hs), 0);
	f = open_memstream(&buf, &len);
	assert_int_equal(export_heap_folded(hs, true, f), 0);
	fclose(f);
	assert_string_equal(buf, "[sites left out] 100\n"
				 "main;app+0x1eff;malloc 300\n"
				 "main;churn;malloc 320\n"
				 "main;leak;malloc 40960\n");
	free(buf);
	buf = NULL;
	f = open_memstream(&buf, &len);
	assert_int_equal(export_heap_folded(hs, false, f), 0);
	fclose(f);
	assert_string_equal(buf, "[sites left out] 700\n"
				 "main;app+0x1eff;malloc 300\n"
				 "main;churn;malloc 96000\n"
				 "main;leak;malloc 40960\n");
	free(buf);
	heap_stacks__free(hs);
	sqlite3_close(db);
}

/* A sampled heap whose sites hold no live sample at the end (a live heap of a few small
 * blocks no sample fell on): the live bytes beyond the census's sites left out (100 B)
 * are not sites left out but [not sampled], an entry of their own; the totals stay the
 * exact ones. */
static void test_09_heap_not_sampled(void **state)
{
	char id[DB_CAPTURE_ID_LEN], *buf = NULL;
	sqlite3 *db = heap_capture("unsampled.ptop", id);
	Perftools__Profiles__Profile *pp;
	struct heap_stacks *hs = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	exec(db, "UPDATE heap_snapshot SET sample_bytes = 524288");
	exec(db, "UPDATE heap_site SET live_count = 0, live_bytes = 0");
	pp = heap_pprof(db, id, &hs);
	assert_int_equal(hs->live_bytes, 40960 + 320 + 300 + 100);
	assert_int_equal(hs->unsampled_live_bytes, 40960 + 320 + 300);
	f = open_memstream(&buf, &len);
	assert_int_equal(export_heap_folded(hs, true, f), 0);
	fclose(f);
	assert_string_equal(buf, "[not sampled] 41580\n"
				 "[sites left out] 100\n");
	free(buf);
	perftools__profiles__profile__free_unpacked(pp, NULL);
	heap_stacks__free(hs);
	check_heap_totals(db, id);
	sqlite3_close(db);
}

/* Every part's declarations follow the core's rules: profiles with a unique name, a
 * loader, the tables they read, help lines, --by help when they take --by; stack columns
 * naming a table and column of the schema (their SQL prepares on a new DB). */
static void test_10_parts_declare(void **state)
{
	char dbp[300], sql[2048];
	sqlite3 *db = NULL;
	size_t n_prof = 0, n_cols = 0;

	(void)state;
	snprintf(dbp, sizeof(dbp), "%s", tpath("parts.db"));
	assert_int_equal(db__open(dbp, true, false, &db, errbuf, sizeof(errbuf)), 0);
	for (const struct an_part *const *pp = an_parts; *pp; pp++) {
		for (const struct an_profile *const *x = (*pp)->profiles; x && *x; x++) {
			const struct an_profile *f = *x;

			assert_non_null(f->name);
			assert_true(f->name[0]);
			assert_ptr_equal(an_profile__find(f->name), f); /* unique */
			assert_non_null(f->load);
			assert_non_null(f->tables);
			assert_non_null(f->help);
			assert_non_null(f->overflow);
			assert_true(!f->by || (f->by[0] && f->by_help));
			n_prof++;
		}
		for (const struct an_stack_col *const *c = (*pp)->stack_cols; c && *c; c++) {
			sqlite3_stmt *q = NULL;

			assert_non_null((*c)->table);
			assert_non_null((*c)->column);
			assert_true(!strcmp((*c)->kind, "user") || !strcmp((*c)->kind, "kernel"));
			snprintf(sql, sizeof(sql), "SELECT %s.%s, %s, %s, %s FROM %s WHERE 0",
				 (*c)->table, (*c)->column, (*c)->pid ? (*c)->pid : "NULL",
				 (*c)->time ? (*c)->time : "NULL", (*c)->own ? (*c)->own : "0",
				 (*c)->from ? (*c)->from : (*c)->table);
			if (sqlite3_prepare_v2(db, sql, -1, &q, NULL) != SQLITE_OK)
				fail_msg("%s's stack column %s.%s: %s", (*pp)->name, (*c)->table,
					 (*c)->column, sqlite3_errmsg(db));
			sqlite3_finalize(q);
			n_cols++;
		}
	}
	/* the shipped ones: cpu and heap; cpuprof's two, heap's and fds's columns */
	assert_true(n_prof >= 2);
	assert_true(n_cols >= 4);
	assert_string_equal(an_profile__find(NULL)->name, an_profile__find("cpu")->name);
	sqlite3_close(db);
}

/* A profile from rows naming their stacks (prof_samples__load_sql), as a collector
 * declares one: folded weighs each stack in its own unit (here microseconds), pprof keeps
 * the values (nanoseconds); a row without a stack is "[no stack]", a pid its root frame. */
static void test_11_samples_from_sql(void **state)
{
	char id[DB_CAPTURE_ID_LEN], *buf = NULL;
	sqlite3 *db = heap_capture("sql.ptop", id);
	struct capture_meta m;
	struct window w = {0};
	struct symstore_opts so = {0};
	struct prof_samples s = {.n_types = 1, .type = {"offcpu"}, .unit = {"nanoseconds"},
				 .period_type = "offcpu", .period_unit = "nanoseconds",
				 .t0_ns = -1};
	struct prof_req r = {.db = db, .m = &m, .w = &w, .so = &so};
	Perftools__Profiles__Profile *pp;
	uint8_t *gz = NULL, *raw;
	size_t len = 0, gzlen = 0, rawlen;
	int64_t sum = 0;
	FILE *f;

	(void)state;
	assert_int_equal(capture_meta__load(db, id, &m), 0);
	assert_int_equal(prof_samples__load_sql(
			     &r,
			     "SELECT column1, column2, column3 / 1000, column3 FROM (VALUES "
			     "(1, NULL, 1500000), (2, 4321, 2000), (NULL, NULL, 7000)) "
			     "WHERE ?1 > 0 AND ?2 <= ?3",
			     &s),
			 0);
	assert_int_equal(s.p->n_stacks, 3);
	f = open_memstream(&buf, &len);
	assert_int_equal(prof_samples__folded(&s, f), 0);
	fclose(f);
	assert_non_null(strstr(buf, "main;leak;malloc 1500\n"));
	assert_non_null(strstr(buf, "[no stack] 7\n"));
	assert_non_null(strstr(buf, "[unknown]-4321;main;"));
	free(buf);
	assert_int_equal(prof_samples__pprof(&s, 0, &gz, &gzlen), 0);
	raw = gunzip(gz, gzlen, &rawlen);
	pp = perftools__profiles__profile__unpack(NULL, rawlen, raw);
	assert_non_null(pp);
	assert_int_equal(pp->n_sample, 3);
	for (size_t k = 0; k < pp->n_sample; k++)
		sum += pp->sample[k]->value[0];
	assert_int_equal(sum, 1500000 + 2000 + 7000);
	assert_string_equal(pp->string_table[pp->sample_type[0]->unit], "nanoseconds");
	perftools__profiles__profile__free_unpacked(pp, NULL);
	free(raw);
	free(gz);
	prof_samples__free(&s);
	/* a row with a negative weight: a corrupt DB */
	s = (struct prof_samples){.n_types = 1, .t0_ns = -1};
	assert_int_equal(prof_samples__load_sql(&r, "SELECT 1, NULL, -1, 0 WHERE ?1 AND ?2 <= ?3",
						&s),
			 -EOVERFLOW);
	prof_samples__free(&s);
	sqlite3_close(db);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_01_folded),
	    cmocka_unit_test(test_02_pprof_roundtrip),
	    cmocka_unit_test(test_03_empty),
	    cmocka_unit_test(test_04_per_process),
	    cmocka_unit_test(test_05_pprof_overflow),
	    cmocka_unit_test(test_06_pprof_mappings),
	    cmocka_unit_test(test_07_heap_pprof_totals),
	    cmocka_unit_test(test_09_heap_not_sampled), cmocka_unit_test(test_08_heap_folded),
	    cmocka_unit_test(test_10_parts_declare),
	    cmocka_unit_test(test_11_samples_from_sql),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
