/* test_heap_report.c — `report heap` and `report leaks` on captures built by hand: the
 * loader's heap rows (NULL, not 0, when live is not measured), folding sites by the
 * allocating function (allocator frames skipped), --by orderings, window sums, the census
 * line, the trend score (a steadily growing function ranks above one that filled once, a
 * freed one is no suspect), suppressions parsing and matching, "not measured" and
 * "not collected", totals that are a lower bound when the probes saw calls they did not
 * count.
 */
#include <errno.h>
#include <ftw.h>
#include <math.h>
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
#include "analyze/symbolize.h"
#include "proto/capture.h"
#include "tests/tmpdir.h"
#include "tests/capwrite.h"
#include "collectors/heap/report.h"

#define T0 1000000000000ull
#define SEC 1000000000ull
#define PID 4321
#define NSNAP 10
#define LIBC "/usr/lib/x86_64-linux-gnu/libc.so.6"

static char errbuf[1024];

static int setup(void **state)
{
	(void)state;
	return tmpdir__make("heap");
}

static int64_t q_int(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *s = NULL;
	int64_t v;

	if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK)
		fail_msg("prepare %s: %s", sql, sqlite3_errmsg(db));
	if (sqlite3_step(s) != SQLITE_ROW)
		fail_msg("no row: %s", sql);
	v = sqlite3_column_type(s, 0) == SQLITE_NULL ? -999 : sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	return v;
}

static void exec(sqlite3 *db, const char *sql)
{
	char *e = NULL;

	if (sqlite3_exec(db, sql, NULL, NULL, &e) != SQLITE_OK)
		fail_msg("%s: %s", sql, e);
}

/* ------------------------------------------------------- the capture */

static void put_header(struct capture_writer *w, bool heap_active)
{
	struct capb_header b;
	static const uint8_t id[16] = {0x4e, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};

	capb__header_init(&b);
	b.h.recorder = NULL;
	b.h.options = NULL;
	memcpy(b.id, id, 16);
	b.host.boot_id = "0b0b0b0b-1111-2222-3333-444444444444";
	b.host.cpus = 2;
	b.clk.monotonic_ns = T0;
	b.t.mode = PTOP__V1__TARGET_MODE__TARGET_MODE_COMMAND;
	b.t.pid = PID;
	b.t.exe = "/usr/bin/app";
	if (heap_active)
		capb__probe(&b, "heap", PTOP__V1__PROBE_STATE__PROBE_STATE_ACTIVE,
			    PTOP__V1__PROBE_SOURCE__PROBE_SOURCE_EBPF, NULL, NULL);
	else
		capb__probe(&b, "heap", PTOP__V1__PROBE_STATE__PROBE_STATE_FAILED,
			    PTOP__V1__PROBE_SOURCE__PROBE_SOURCE_EBPF,
			    "uprobe malloc: permission denied", NULL);
	capb__put_header(w, &b);
}

static void put_mapping(struct capture_writer *w, uint64_t start, const char *path, uint8_t id0)
{
	Ptop__V1__Record r = PTOP__V1__RECORD__INIT;
	Ptop__V1__Mapping m = PTOP__V1__MAPPING__INIT;
	uint8_t bid[4] = {id0, 0xcd, 0x00, 0x01};

	m.time_ns = T0 + 10;
	m.pid = PID;
	m.start = start;
	m.end = start + 0x100000;
	m.path = (char *)path;
	m.build_id.data = bid;
	m.build_id.len = 4;
	m.perms = "r-xp";
	m.event = PTOP__V1__MAPPING_EVENT__MAPPING_EVENT_START;
	r.kind_case = PTOP__V1__RECORD__KIND_MAPPING;
	r.mapping = &m;
	capw__append(w, &r);
}

static void put_mapping_at(struct capture_writer *w, uint64_t t, uint64_t off,
			   Ptop__V1__MappingEvent ev)
{
	Ptop__V1__Record r = PTOP__V1__RECORD__INIT;
	Ptop__V1__Mapping m = PTOP__V1__MAPPING__INIT;
	uint8_t bid[4] = {0xab, 0xcd, 0x00, 0x01};

	m.time_ns = t;
	m.pid = PID;
	m.start = 0x400000;
	m.end = 0x500000;
	m.offset = off;
	m.path = "/usr/bin/app";
	m.build_id.data = bid;
	m.build_id.len = 4;
	m.perms = "r-xp";
	m.event = ev;
	r.kind_case = PTOP__V1__RECORD__KIND_MAPPING;
	r.mapping = &m;
	capw__append(w, &r);
}

static void put_stack(struct capture_writer *w, uint64_t id, const uint64_t *ips, size_t n)
{
	Ptop__V1__Record r = PTOP__V1__RECORD__INIT;
	Ptop__V1__Stack s = PTOP__V1__STACK__INIT;

	s.id = id;
	s.ips = (uint64_t *)ips;
	s.n_ips = n;
	r.kind_case = PTOP__V1__RECORD__KIND_STACK;
	r.stack = &s;
	capw__append(w, &r);
}

/* Sites, by stack: 1 and 2 leak_pages (two paths), 3 churn, 4 cache_fill, 5 grower. */
enum { S_LEAK1 = 1, S_LEAK2, S_CHURN, S_CACHE, S_GROW, NSITES = 5 };

struct site_fig {
	uint64_t alloc_count, alloc_bytes, live_count, live_bytes, freed, life, oldest;
};

/* The figures of site S in snapshot I (1..NSNAP). */
static struct site_fig fig(int s, int i)
{
	struct site_fig f = {0};

	switch (s) {
	case S_LEAK1: /* 600 pages in the first interval, then nothing: flat */
	case S_LEAK2: {
		uint64_t n = s == S_LEAK1 ? 600 : 400;

		f.alloc_count = i == 1 ? n : 0;
		f.alloc_bytes = f.alloc_count * 4096;
		f.live_count = n;
		f.live_bytes = n * 4096;
		f.oldest = T0 + SEC / 2;
		break;
	}
	case S_CHURN: /* 100,000 x 64 B per interval, all freed after 1 us */
		f.alloc_count = 100000;
		f.alloc_bytes = 6400000;
		f.freed = 100000;
		f.life = 100000 * 1000ull;
		break;
	case S_CACHE: /* fills over two intervals, then flat */
		f.alloc_count = i <= 2 ? 50 : 0;
		f.alloc_bytes = f.alloc_count * 1000;
		f.live_count = i == 1 ? 50 : 100;
		f.live_bytes = f.live_count * 1000;
		f.oldest = T0 + SEC / 2;
		break;
	case S_GROW: /* 100 x 1000 B every interval, none freed */
		f.alloc_count = 100;
		f.alloc_bytes = 100000;
		f.live_count = 100ull * (uint64_t)i;
		f.live_bytes = 100000ull * (uint64_t)i;
		f.oldest = T0 + SEC / 2;
		break;
	}
	return f;
}

/* put_snapshot writes the preload lane's figures too: the peak (5,000,000 bytes at 2.5 s,
 * held by leak_pages 4,000,000 and churn 1,000,000, taken in snapshot 3; 1000 x i before),
 * temporaries (10 x i a snapshot, site s: s x i), nothing untracked. uprobe_figs: the
 * uprobe lane's, the same but the sites taken at a mark (4,900,000 at 2.4 s) and 2
 * untracked a snapshot. */
static bool preload_figs, uprobe_figs;
#define PEAK_AT 3

static void put_snapshot(struct capture_writer *w, int i, bool live_measured, bool cut)
{
	Ptop__V1__HeapSite peak[2], *pp[2];
	Ptop__V1__Record r = PTOP__V1__RECORD__INIT;
	Ptop__V1__Event ev = PTOP__V1__EVENT__INIT;
	Ptop__V1__HeapSnapshot h = PTOP__V1__HEAP_SNAPSHOT__INIT;
	Ptop__V1__HeapSite site[NSITES], *sp[NSITES];

	for (int s = 0; s < NSITES; s++) {
		struct site_fig f = fig(s + 1, i);

		ptop__v1__heap_site__init(&site[s]);
		sp[s] = &site[s];
		site[s].stack_id = (uint64_t)s + 1;
		site[s].alloc_count = f.alloc_count;
		site[s].alloc_bytes = f.alloc_bytes;
		if (live_measured) {
			site[s].live_count = f.live_count;
			site[s].live_bytes = f.live_bytes;
			site[s].freed_count = f.freed;
			site[s].lifetime_ns_sum = f.life;
			site[s].oldest_live_ns = f.oldest;
		}
		h.alloc_count += f.alloc_count;
		h.alloc_bytes += f.alloc_bytes;
		h.live_bytes += live_measured ? f.live_bytes : 0;
		h.live_count += live_measured ? f.live_count : 0;
	}
	/* the uprobe lane's snapshots as recorders before HeapSnapshot.lane_kind wrote them
	 * (the lane string), the go lane's by lane_kind alone: both load the same words */
	if (live_measured)
		h.lane = "uprobe";
	else
		h.lane_kind = PTOP__V1__HEAP_LANE__HEAP_LANE_GO;
	h.module = live_measured ? LIBC : "/usr/bin/app";
	h.sample_bytes = 0;
	h.live_measured = live_measured;
	h.leak_age_ns = live_measured ? 2 * SEC : 0;
	h.sites = sp;
	h.n_sites = NSITES;
	h.total_call_sites = NSITES + (cut ? 3 : 0);
	if (cut) {
		h.omitted_alloc_count = 7;
		h.omitted_alloc_bytes = 700;
		h.omitted_live_bytes = live_measured ? 300 : 0;
		h.alloc_count += 7;
		h.alloc_bytes += 700;
	}
	if (preload_figs || uprobe_figs) {
		if (preload_figs) {
			h.lane = NULL;
			h.lane_kind = PTOP__V1__HEAP_LANE__HEAP_LANE_PRELOAD;
		}
		h.peak_measured = true;
		h.peak_live_bytes = i < PEAK_AT ? 1000 * (uint64_t)i : 5000000;
		h.peak_time_ns = i < PEAK_AT ? T0 + (uint64_t)i * SEC : T0 + 5 * SEC / 2;
		h.temporary_measured = true;
		h.temporary_count = 10 * (uint64_t)i;
		for (int s = 0; s < NSITES; s++)
			site[s].temporary_count = (uint64_t)(s + 1) * (uint64_t)i;
		if (i == PEAK_AT) {
			for (int k = 0; k < 2; k++) {
				ptop__v1__heap_site__init(&peak[k]);
				pp[k] = &peak[k];
			}
			peak[0].stack_id = 3; /* churn */
			peak[0].live_count = 10;
			peak[0].live_bytes = 1000000;
			peak[1].stack_id = 1; /* leak_pages */
			peak[1].live_count = 1000;
			peak[1].live_bytes = 4000000;
			h.peak_sites = pp;
			h.n_peak_sites = 2;
			h.peak_sites_live_bytes = preload_figs ? 5000000 : 4900000;
			h.peak_sites_time_ns = T0 + (preload_figs ? 25 : 24) * SEC / 10;
		}
	}
	h.live_untracked = live_measured && !preload_figs ? 2 : 0;
	h.stack_failures = 1;
	h.free_untracked = 3;
	ev.time_ns = T0 + (uint64_t)i * SEC;
	ev.pid = PID;
	ev.category = PTOP__V1__CATEGORY__CATEGORY_HEAP;
	ev.interval_ns = SEC;
	ev.payload_case = PTOP__V1__EVENT__PAYLOAD_HEAP;
	ev.heap = &h;
	r.kind_case = PTOP__V1__RECORD__KIND_EVENT;
	r.event = &ev;
	capw__append(w, &r);
}

static void put_heap_event(struct capture_writer *w)
{
	Ptop__V1__Record r = PTOP__V1__RECORD__INIT;
	Ptop__V1__Event ev = PTOP__V1__EVENT__INIT;
	Ptop__V1__HeapEvent h = PTOP__V1__HEAP_EVENT__INIT;

	h.kind = PTOP__V1__HEAP_EVENT__KIND__KIND_ALLOC;
	h.address = 0x55550000;
	h.size = 4096;
	h.stack_id = S_LEAK1;
	h.function = "malloc";
	ev.time_ns = T0 + SEC / 2;
	ev.pid = PID;
	ev.tid = PID + 1;
	ev.category = PTOP__V1__CATEGORY__CATEGORY_HEAP;
	ev.payload_case = PTOP__V1__EVENT__PAYLOAD_HEAP_EVENT;
	ev.heap_event = &h;
	r.kind_case = PTOP__V1__RECORD__KIND_EVENT;
	r.event = &ev;
	capw__append(w, &r);
}

/* app functions at file offsets (0x400000 maps offset 0): main 0x1000, leak_pages
 * 0x1100, churn 0x1200, cache_fill 0x1300, grower 0x1500; libc malloc at 0x100 of
 * 0x7000000. Every stack: malloc, the allocating function, main. */
static const char *drop_kind; /* write_capture adds a heap drop of this kind when set */
static uint64_t drop_lost;

static const char *write_capture(const char *name, bool heap_active, bool live_measured,
				 bool cut_last)
{
	static char path[256];
	struct capture_writer_opts o = {.force = true};
	struct capture_writer *w;
	static const uint64_t st[NSITES][3] = {
	    {0x7000100, 0x401150, 0x401050}, {0x7000100, 0x401160, 0x401060},
	    {0x7000100, 0x401250, 0x401070}, {0x7000100, 0x401350, 0x401080},
	    {0x7000100, 0x401550, 0x401090},
	};

	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	w = capture_writer__create(path, &o);
	assert_non_null(w);
	put_header(w, heap_active);
	put_mapping(w, 0x400000, "/usr/bin/app", 0xab);
	put_mapping(w, 0x7000000, LIBC, 0xcc);
	for (int s = 0; s < NSITES; s++)
		put_stack(w, (uint64_t)s + 1, st[s], 3);
	if (heap_active) {
		put_heap_event(w);
		for (int i = 1; i <= NSNAP; i++)
			put_snapshot(w, i, live_measured, cut_last && i == NSNAP);
	}
	if (drop_kind) /* a drop notice of the heap collector, as the recorder writes one */
		capb__put_drop(w, T0 + 2 * SEC, "heap", drop_kind, drop_lost, "x");
	assert_int_equal(capture_writer__close(w), 0);
	return path;
}

/* Load PATH; place its frames, and name them as a symbolizer would from the
 * function table above (file app.c, line = offset & 0xff; malloc in malloc.c). */
static sqlite3 *load(const char *path, char id[DB_CAPTURE_ID_LEN])
{
	char dbp[300];
	sqlite3 *db = NULL;
	struct symstore_run run;

	snprintf(dbp, sizeof(dbp), "%s.db", path);
	assert_int_equal(db__open(dbp, true, false, &db, errbuf, sizeof(errbuf)), 0);
	if (db__load_capture(db, path, true, id, NULL, errbuf, sizeof(errbuf)))
		fail_msg("load: %s", errbuf);
	assert_int_equal(symstore__update(db, 1, NULL, &run, errbuf, sizeof(errbuf)), 0);
	exec(db, "INSERT OR REPLACE INTO symbol (space, key, addr, source, miss, func_offset) "
		 "SELECT DISTINCT sym_space, sym_key, sym_addr, 'symtab', NULL, sym_addr & 255 "
		 "FROM frame_module WHERE sym_space = 'elf'");
	exec(db, "DELETE FROM symbol_frame");
	exec(db, "INSERT INTO symbol_frame (space, key, addr, depth, func, file, line, inlined) "
		 "SELECT DISTINCT sym_space, sym_key, sym_addr, 0, "
		 "CASE WHEN sym_key = 'cccd0001' THEN 'malloc' "
		 " WHEN sym_addr >= 5376 THEN 'grower' WHEN sym_addr >= 4864 THEN 'cache_fill' "
		 " WHEN sym_addr >= 4608 THEN 'churn' WHEN sym_addr >= 4352 THEN 'leak_pages' "
		 " ELSE 'main' END, "
		 "CASE WHEN sym_key = 'cccd0001' THEN 'malloc.c' ELSE 'app.c' END, "
		 "sym_addr & 255, 0 FROM frame_module WHERE sym_space = 'elf'");
	return db;
}

/* The own options of both reports, for a test that runs both with one report_opts. */
struct test_own {
	struct heap_opts heap;
	struct leaks_opts leaks;
};

/* O as report heap (LEAKS false) or report leaks takes it: o->own, a struct test_own or
 * NULL, to its member for that report. */
static struct report_opts opts_for(const struct report_opts *o, bool leaks)
{
	struct report_opts c = *o;
	const struct test_own *t = o->own;

	c.own = !t ? NULL : leaks ? (const void *)&t->leaks : (const void *)&t->heap;
	return c;
}

static char *run_report(sqlite3 *db, const char *id, bool leaks, const struct report_opts *o)
{
	struct report_opts c = opts_for(o, leaks);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int rc;

	assert_non_null(f);
	rc = leaks ? report_leaks(db, id, &c, f) : report_heap(db, id, &c, f);
	fclose(f);
	if (rc)
		fail_msg("report returned %d: %s", rc, buf);
	return buf;
}

/* Where "func": "NAME" first occurs in BUF, or -1. */
static long pos_of(const char *buf, const char *name)
{
	char key[128];
	const char *p;

	snprintf(key, sizeof(key), "\"func\": \"%s\"", name);
	p = strstr(buf, key);
	return p ? p - buf : -1;
}

/* The integer after "KEY": in the site object of NAME. */
static int64_t site_int(const char *buf, const char *name, const char *key)
{
	char k[128];
	long at = pos_of(buf, name);
	const char *p, *end;

	if (at < 0)
		fail_msg("no site %s in %s", name, buf);
	snprintf(k, sizeof(k), "\"%s\": ", key);
	end = strchr(buf + at, '}');
	p = strstr(buf + at, k);
	if (!p || (end && p > end))
		fail_msg("no %s in site %s", key, name);
	p += strlen(k);
	if (!strncmp(p, "null", 4))
		return -999;
	return strtoll(p, NULL, 10);
}

/* ------------------------------------------------------------- tests */

static void test_01_loader_rows(void **state)
{
	char id[DB_CAPTURE_ID_LEN];
	sqlite3 *db;

	(void)state;
	db = load(write_capture("a.ptop", true, true, true), id);
	assert_int_equal(q_int(db, "SELECT count(*) FROM heap_snapshot"), NSNAP);
	assert_int_equal(q_int(db, "SELECT count(*) FROM heap_site"), NSNAP * NSITES);
	assert_int_equal(q_int(db, "SELECT live_bytes FROM heap_snapshot WHERE seq = 2"),
			 4096000 + 100000 + 300000);
	assert_int_equal(q_int(db, "SELECT sites * 100 + total_call_sites FROM heap_snapshot "
				   "WHERE seq = 9"),
			 NSITES * 100 + NSITES + 3);
	assert_int_equal(q_int(db, "SELECT omitted_live_bytes FROM heap_snapshot WHERE seq = 9"),
			 300);
	assert_int_equal(q_int(db, "SELECT free_untracked FROM heap_snapshot WHERE seq = 3"), 3);
	assert_int_equal(q_int(db, "SELECT leak_age_ns FROM heap_snapshot WHERE seq = 0"),
			 2 * SEC);
	assert_int_equal(q_int(db, "SELECT live_measured FROM heap_snapshot WHERE seq = 0"), 1);
	/* no live allocation: NULL, not 0 */
	assert_int_equal(q_int(db, "SELECT oldest_live_ns FROM heap_site WHERE stack_id = 3 "
				   "AND seq = 0"),
			 -999);
	assert_int_equal(q_int(db, "SELECT oldest_live_ns FROM heap_site WHERE stack_id = 1 "
				   "AND seq = 0"),
			 T0 + SEC / 2);
	assert_int_equal(q_int(db, "SELECT lifetime_ns_sum FROM heap_site WHERE stack_id = 3 "
				   "AND seq = 4"),
			 100000000);
	assert_int_equal(q_int(db, "SELECT count FROM record_count WHERE kind = 'event:heap'"),
			 NSNAP);
	assert_int_equal(q_int(db, "SELECT count(*) FROM heap_event WHERE kind = 'alloc' AND "
				   "size = 4096 AND stack_id = 1 AND function = 'malloc' AND "
				   "tid = 4322"),
			 1);
	sqlite3_close(db);

	/* not measured: the live, leak and lifetime columns are NULL */
	db = load(write_capture("a2.ptop", true, false, false), id);
	assert_int_equal(q_int(db, "SELECT count(*) FROM heap_snapshot WHERE live_measured = 0 "
				   "AND live_bytes IS NULL AND live_count IS NULL AND leak_bytes "
				   "IS NULL AND free_count IS NULL AND omitted_live_bytes IS NULL "
				   "AND free_untracked IS NULL"),
			 NSNAP);
	assert_int_equal(q_int(db, "SELECT count(*) FROM heap_site WHERE live_bytes IS NULL AND "
				   "live_count IS NULL AND lifetime_ns_sum IS NULL AND "
				   "oldest_live_ns IS NULL AND alloc_count IS NOT NULL"),
			 NSNAP * NSITES);
	sqlite3_close(db);
}

/* Folding by function: two stacks of leak_pages are one row, malloc is skipped,
 * the call's file:line named; --by live, bytes and count orderings. */
static void test_02_fold_and_order(void **state)
{
	char id[DB_CAPTURE_ID_LEN], *buf;
	struct test_own own = {.heap.by = HEAP_BY_LIVE};
	struct report_opts o = {.fmt = OUT_JSON, .own = &own};
	sqlite3 *db;

	(void)state;
	db = load(write_capture("b.ptop", true, true, true), id);
	buf = run_report(db, id, false, &o);
	assert_true(pos_of(buf, "leak_pages") >= 0);
	assert_true(pos_of(buf, "malloc") < 0);
	assert_true(pos_of(buf, "main") < 0);
	assert_int_equal(site_int(buf, "leak_pages", "live_bytes"), 4096000);
	assert_int_equal(site_int(buf, "leak_pages", "stacks"), 2);
	assert_int_equal(site_int(buf, "leak_pages", "alloc_count"), 1000);
	/* file:line of the call: the return address - 1 (0x114f) -> line 0x4f */
	assert_int_equal(site_int(buf, "leak_pages", "line"), 0x4f);
	assert_non_null(strstr(buf, "\"file\": \"app.c\""));
	assert_non_null(strstr(buf, "\"module\": \"/usr/bin/app\""));
	/* by live: leak_pages, grower, cache_fill, churn */
	assert_true(pos_of(buf, "leak_pages") < pos_of(buf, "grower"));
	assert_true(pos_of(buf, "grower") < pos_of(buf, "cache_fill"));
	assert_true(pos_of(buf, "cache_fill") < pos_of(buf, "churn"));
	assert_int_equal(site_int(buf, "grower", "live_bytes"), 1000000);
	assert_int_equal(site_int(buf, "churn", "live_bytes"), 0);
	assert_int_equal(site_int(buf, "churn", "mean_lifetime_ns"), 1000);
	assert_non_null(strstr(buf, "\"by\": \"live\""));
	free(buf);

	own.heap.by = HEAP_BY_COUNT;
	buf = run_report(db, id, false, &o);
	assert_int_equal(site_int(buf, "churn", "alloc_count"), 1000000);
	assert_true(pos_of(buf, "churn") < pos_of(buf, "leak_pages"));
	assert_true(pos_of(buf, "leak_pages") < pos_of(buf, "grower")); /* 1000 < 1000 x 10 ? */
	free(buf);

	own.heap.by = HEAP_BY_BYTES;
	buf = run_report(db, id, false, &o);
	/* churn 64,000,000; leak_pages 4,096,000; grower 1,000,000; cache_fill 100,000 */
	assert_int_equal(site_int(buf, "churn", "alloc_bytes"), 64000000);
	assert_true(pos_of(buf, "churn") < pos_of(buf, "leak_pages"));
	assert_true(pos_of(buf, "leak_pages") < pos_of(buf, "grower"));
	assert_true(pos_of(buf, "grower") < pos_of(buf, "cache_fill"));
	free(buf);

	/* --top 1 */
	o.top = 1;
	buf = run_report(db, id, false, &o);
	assert_true(pos_of(buf, "churn") >= 0);
	assert_true(pos_of(buf, "leak_pages") < 0);
	free(buf);
	sqlite3_close(db);
}

/* Window sums: allocations summed over the intervals in the window, live bytes
 * from its last snapshot. */
static void test_03_window(void **state)
{
	char id[DB_CAPTURE_ID_LEN], *buf;
	struct test_own own = {.heap.by = HEAP_BY_LIVE};
	struct report_opts o = {.fmt = OUT_JSON, .own = &own};
	sqlite3 *db;

	(void)state;
	db = load(write_capture("c.ptop", true, true, true), id);
	assert_int_equal(window__parse("0..3", &o.win, errbuf, sizeof(errbuf)), 0);
	buf = run_report(db, id, false, &o);
	assert_int_equal(site_int(buf, "churn", "alloc_count"), 300000);
	assert_int_equal(site_int(buf, "grower", "alloc_bytes"), 300000);
	assert_int_equal(site_int(buf, "grower", "live_bytes"), 300000);
	assert_int_equal(site_int(buf, "cache_fill", "live_bytes"), 100000);
	assert_non_null(strstr(buf, "\"intervals\": 3"));
	/* the window holds no cut interval: the list is complete there */
	assert_non_null(strstr(buf, "\"complete\": true,\n"));
	free(buf);
	sqlite3_close(db);
}

/* The census line, text and JSON; sampling; drops. */
static void test_04_census(void **state)
{
	char id[DB_CAPTURE_ID_LEN], *buf;
	struct report_opts o = {.fmt = OUT_TEXT};
	sqlite3 *db;

	(void)state;
	db = load(write_capture("d.ptop", true, true, true), id);
	buf = run_report(db, id, false, &o);
	assert_non_null(strstr(buf, "census: 5 of 8 sites shown (last interval); the other 3 "
				    "carried 700 B, 7 allocations over the window, 300 B live at "
				    "the end (1 of 10 intervals cut)"));
	assert_non_null(strstr(buf, "sampling: every allocation with its stack (sample_bytes "
				    "0): exact"));
	assert_non_null(strstr(buf, "not tracked (live map full): 20 allocations; stack "
				    "failures: 10"));
	assert_non_null(strstr(buf, "frees of untracked blocks: 30 (allocated before"));
	assert_non_null(strstr(buf, "top functions by live bytes"));
	free(buf);
	o.fmt = OUT_JSON;
	buf = run_report(db, id, false, &o);
	assert_non_null(strstr(buf, "\"census\": {"));
	assert_non_null(strstr(buf, "\"total_call_sites\": 8"));
	assert_non_null(strstr(buf, "\"omitted_alloc_count\": 7"));
	assert_non_null(strstr(buf, "\"omitted_alloc_bytes\": 700"));
	assert_non_null(strstr(buf, "\"omitted_live_bytes\": 300"));
	assert_non_null(strstr(buf, "\"exact\": true"));
	free(buf);
	sqlite3_close(db);

	/* every list complete: said so */
	db = load(write_capture("d2.ptop", true, true, false), id);
	o.fmt = OUT_TEXT;
	buf = run_report(db, id, false, &o);
	assert_non_null(strstr(buf, "census: the site lists are complete (5 sites in the last "
				    "interval)"));
	free(buf);
	sqlite3_close(db);
}

/* The trend score: steady growth scores near 1, fill-once-flat low, flat 0. */
static void test_05_trend(void **state)
{
	double t[12], grow[12], step[12], flat[12], noisy[12];
	struct heap_trend tr;

	(void)state;
	for (int i = 0; i < 12; i++) {
		t[i] = i;
		grow[i] = 1000.0 * i;
		step[i] = i == 0 ? 0 : 5000;
		flat[i] = 777;
		noisy[i] = 1000.0 * i + (i % 2 ? 300 : -300);
	}
	heap_trend__compute(t, grow, 12, &tr);
	assert_float_equal(tr.slope, 1000, 1e-6);
	assert_float_equal(tr.r2, 1, 1e-9);
	assert_float_equal(tr.grew, 1, 1e-9);
	assert_float_equal(tr.score, 1, 1e-9);
	assert_string_equal(tr.confidence, "high");
	heap_trend__compute(t, step, 12, &tr);
	assert_true(tr.slope > 0);
	assert_float_equal(tr.grew, 1.0 / 11, 1e-9);
	assert_true(tr.score < 0.1);
	heap_trend__compute(t, flat, 12, &tr);
	assert_float_equal(tr.score, 0, 0);
	assert_float_equal(tr.slope, 0, 0);
	heap_trend__compute(t, noisy, 12, &tr);
	assert_true(tr.score > 0.5 && tr.score < 1);
	heap_trend__compute(t, grow, 2, &tr);
	assert_float_equal(tr.score, 0, 0);
	assert_string_equal(tr.confidence, "none");
	heap_trend__compute(t, grow, 4, &tr);
	assert_string_equal(tr.confidence, "low");
	heap_trend__compute(t, grow, 8, &tr);
	assert_string_equal(tr.confidence, "medium");
	heap_trend__compute(t, grow, 0, &tr);
	assert_float_equal(tr.score, 0, 0);
}

/* report leaks: the grower first, fill-once functions after it, churn absent. */
static void test_06_leaks(void **state)
{
	char id[DB_CAPTURE_ID_LEN], *buf;
	struct report_opts o = {.fmt = OUT_JSON};
	sqlite3 *db;

	(void)state;
	db = load(write_capture("e.ptop", true, true, false), id);
	buf = run_report(db, id, true, &o);
	assert_true(pos_of(buf, "grower") >= 0);
	assert_true(pos_of(buf, "leak_pages") >= 0);
	assert_true(pos_of(buf, "cache_fill") >= 0);
	assert_true(pos_of(buf, "churn") < 0);
	assert_true(pos_of(buf, "grower") < pos_of(buf, "leak_pages"));
	assert_true(pos_of(buf, "grower") < pos_of(buf, "cache_fill"));
	assert_int_equal(site_int(buf, "grower", "growth_bytes_per_min"), 6000000);
	assert_int_equal(site_int(buf, "grower", "oldest_live_age_ns"), 10 * SEC - SEC / 2);
	assert_int_equal(site_int(buf, "leak_pages", "live_bytes"), 4096000);
	assert_int_equal(site_int(buf, "leak_pages", "snapshots"), NSNAP);
	assert_non_null(strstr(buf, "\"suspect_count\": 3"));
	assert_non_null(strstr(buf, "\"confidence\": \"medium\""));
	/* the stack from the allocating function out: leak_pages then main */
	assert_non_null(strstr(buf, "\"stack\": ["));
	free(buf);

	o.fmt = OUT_TEXT;
	buf = run_report(db, id, true, &o);
	assert_non_null(strstr(buf, "#1 grower at app.c:79 (app)"));
	assert_non_null(strstr(buf, "score 1.00"));
	assert_null(strstr(buf, "churn"));
	free(buf);
	sqlite3_close(db);
}

static void test_07_suppressions(void **state)
{
	struct suppressions s;
	char id[DB_CAPTURE_ID_LEN], *buf, path[300];
	struct test_own own = {{0}};
	struct report_opts o = {.fmt = OUT_JSON, .own = &own};
	sqlite3 *db;
	FILE *f;

	(void)state;
	/* matching: substring, '*', anchors */
	assert_true(suppression__match("grow", "grower"));
	assert_true(suppression__match("row", "grower"));
	assert_true(suppression__match("g*er", "grower"));
	assert_true(suppression__match("^grow", "grower"));
	assert_false(suppression__match("^row", "grower"));
	assert_true(suppression__match("wer$", "grower"));
	assert_false(suppression__match("grow$", "grower"));
	assert_true(suppression__match("^grower$", "grower"));
	assert_true(suppression__match("libc.so*", "/usr/lib/x86_64-linux-gnu/libc.so.6"));
	assert_true(suppression__match("*", ""));
	assert_false(suppression__match("a*b*c", "acb"));
	assert_true(suppression__match("a*b*c", "xaxbxcx"));
	assert_false(suppression__match("x", NULL));
	/* parsing */
	assert_int_equal(suppressions__parse("# comment\n\n  leak:grow*  \nleak:^churn$\r\n", &s,
					     errbuf, sizeof(errbuf)),
			 0);
	assert_int_equal(s.n, 2);
	assert_string_equal(s.pattern[0], "grow*");
	assert_string_equal(s.pattern[1], "^churn$");
	suppressions__free(&s);
	assert_int_equal(suppressions__parse("leak:a\nrace:b\n", &s, errbuf, sizeof(errbuf)),
			 -EINVAL);
	assert_non_null(strstr(errbuf, "line 2"));
	assert_int_equal(suppressions__parse("leak:\n", &s, errbuf, sizeof(errbuf)), -EINVAL);
	assert_int_equal(suppressions__parse("", &s, errbuf, sizeof(errbuf)), 0);
	assert_int_equal(s.n, 0);
	suppressions__free(&s);
	suppressions__free(NULL);

	/* in the report: by function name, and by file (every app function) */
	db = load(write_capture("f.ptop", true, true, false), id);
	snprintf(path, sizeof(path), "%s/supp.txt", tmpdir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("# ours\nleak:grow*\n", f);
	fclose(f);
	own.leaks.suppressions = path;
	buf = run_report(db, id, true, &o);
	assert_true(pos_of(buf, "grower") < 0);
	assert_true(pos_of(buf, "leak_pages") >= 0);
	assert_non_null(strstr(buf, "\"suppressed\": 1"));
	free(buf);
	f = fopen(path, "w");
	fputs("leak:app.c\n", f);
	fclose(f);
	buf = run_report(db, id, true, &o);
	assert_non_null(strstr(buf, "\"suppressed\": 3"));
	assert_non_null(strstr(buf, "\"suspect_count\": 0"));
	free(buf);
	/* a bad file: -EPROTO (said on stderr, a usage error) before any output */
	f = fopen(path, "w");
	fputs("leak:x\nbogus\n", f);
	fclose(f);
	{
		char *b = NULL;
		size_t len = 0;
		FILE *m = open_memstream(&b, &len);

		struct report_opts c = opts_for(&o, true);

		assert_int_equal(report_leaks(db, id, &c, m), -EPROTO);
		fclose(m);
		assert_int_equal(len, 0);
		free(b);
	}
	sqlite3_close(db);
}

/* live_measured false: live, lifetime and leaks say "not measured", never 0. */
static void test_08_not_measured(void **state)
{
	char id[DB_CAPTURE_ID_LEN], *buf;
	struct test_own own = {.heap.by = HEAP_BY_LIVE};
	struct report_opts o = {.fmt = OUT_JSON, .own = &own};
	sqlite3 *db;

	(void)state;
	db = load(write_capture("g.ptop", true, false, false), id);
	buf = run_report(db, id, false, &o);
	assert_non_null(strstr(buf, "\"live_measured\": false"));
	assert_int_equal(site_int(buf, "leak_pages", "live_bytes"), -999);
	assert_int_equal(site_int(buf, "leak_pages", "alloc_bytes"), 4096000);
	assert_int_equal(site_int(buf, "churn", "mean_lifetime_ns"), -999);
	assert_non_null(strstr(buf, "\"live_bytes\": null"));
	assert_non_null(strstr(buf, "\"by\": \"bytes\""));
	free(buf);
	o.fmt = OUT_TEXT;
	buf = run_report(db, id, false, &o);
	assert_non_null(strstr(buf, "live, lifetime, leaks: not measured"));
	assert_non_null(strstr(buf, "not measured  "));
	assert_null(strstr(buf, "live at the end"));
	/* the Go lane's own reason for the peak and the temporaries (issue 13) */
	assert_non_null(strstr(buf, "peak, temporary allocations: not measured (the go lane "
				    "counts allocations, not frees: no live heap to peak, no "
				    "temporaries)"));
	assert_null(strstr(buf, "\npeak: "));
	free(buf);
	buf = run_report(db, id, true, &o);
	assert_non_null(strstr(buf, "leaks: not measured"));
	free(buf);
	sqlite3_close(db);
}

static void test_09_not_collected(void **state)
{
	char id[DB_CAPTURE_ID_LEN], *buf;
	struct report_opts o = {.fmt = OUT_TEXT};
	sqlite3 *db;

	(void)state;
	db = load(write_capture("h.ptop", false, true, false), id);
	buf = run_report(db, id, false, &o);
	assert_non_null(strstr(buf, "\nheap: not collected (failed: uprobe malloc: permission "
				    "denied)\n"));
	assert_null(strstr(buf, "census"));
	free(buf);
	buf = run_report(db, id, true, &o);
	assert_non_null(strstr(buf, "\nleaks: not collected (failed: uprobe malloc: permission "
				    "denied)\n"));
	free(buf);
	o.fmt = OUT_JSON;
	buf = run_report(db, id, false, &o);
	assert_non_null(strstr(buf, "\"collected\": false"));
	assert_null(strstr(buf, "\"sites\""));
	free(buf);
	sqlite3_close(db);
}

/* BUF holds NEEDLE; else the test fails showing BUF. */
static void assert_has(const char *buf, const char *needle)
{
	if (!strstr(buf, needle))
		fail_msg("no \"%s\" in:\n%s", needle, buf);
}

/* Sampled: the sites' live figures count sampled allocations; they are scaled to
 * the snapshot's exact live bytes less what omitted sites held. */
static void test_10_sampled_live(void **state)
{
	char id[DB_CAPTURE_ID_LEN], *buf;
	struct test_own own = {.heap.by = HEAP_BY_LIVE};
	struct report_opts o = {.fmt = OUT_JSON, .own = &own};
	sqlite3 *db;

	(void)state;
	db = load(write_capture("i.ptop", true, true, true), id);
	exec(db, "UPDATE heap_snapshot SET sample_bytes = 524288, live_bytes = 4096000 + 300, "
		 "live_count = 1000");
	exec(db, "UPDATE heap_site SET live_bytes = CASE stack_id WHEN 1 THEN 24576 WHEN 2 "
		 "THEN 16384 ELSE 0 END, live_count = CASE stack_id WHEN 1 THEN 6 WHEN 2 THEN 4 "
		 "ELSE 0 END, oldest_live_ns = CASE WHEN stack_id <= 2 THEN oldest_live_ns END");
	exec(db, "UPDATE heap_snapshot SET omitted_live_bytes = 0 WHERE seq < 9");
	buf = run_report(db, id, false, &o);
	assert_int_equal(site_int(buf, "leak_pages", "live_bytes"), 4096000);
	assert_int_equal(site_int(buf, "leak_pages", "live_count"), 1000);
	assert_int_equal(site_int(buf, "grower", "live_bytes"), 0);
	assert_non_null(strstr(buf, "\"exact\": false"));
	assert_non_null(strstr(buf, "one stack per 512 KiB allocated on average"));
	assert_has(buf, "\"complete\": false,\n    \"sampled\": true");
	free(buf);
	o.fmt = OUT_TEXT;
	buf = run_report(db, id, false, &o);
	assert_has(buf, "(1 of 10 intervals cut); with sampling, a function not shown may have "
			"had no sample\n");
	free(buf);
	o.fmt = OUT_JSON;
	buf = run_report(db, id, true, &o);
	assert_int_equal(site_int(buf, "leak_pages", "live_bytes"), 4096000);
	assert_true(pos_of(buf, "grower") < 0);
	free(buf);
	sqlite3_close(db);

	/* every sampled site listed (no interval cut): still not a census, absence proves
	 * nothing under sampling */
	db = load(write_capture("i2.ptop", true, true, false), id);
	exec(db, "UPDATE heap_snapshot SET sample_bytes = 524288");
	buf = run_report(db, id, false, &o);
	assert_has(buf, "\"complete\": false,\n    \"sampled\": true");
	free(buf);
	o.fmt = OUT_TEXT;
	buf = run_report(db, id, false, &o);
	assert_has(buf, "census: every sampled site is listed (5 sites in the last interval); "
			"with sampling (one stack per 512 KiB) a function that allocated less may "
			"have no sample: a function not shown may still have allocated\n");
	assert_true(pos_of(buf, "allocated nothing") < 0);
	free(buf);
	sqlite3_close(db);
}

/* A capture with one heap snapshot at T0 + 2 s listing one site, stack 7 = IPS; the
 * executable is remapped at another offset at T0 + 3 s. Loaded and placed. */
static sqlite3 *one_site(const char *name, const uint64_t *ips, size_t n,
			 char id[DB_CAPTURE_ID_LEN])
{
	struct capture_writer_opts wo = {.force = true};
	struct capture_writer *w;
	Ptop__V1__Record r = PTOP__V1__RECORD__INIT;
	Ptop__V1__Event ev = PTOP__V1__EVENT__INIT;
	Ptop__V1__HeapSnapshot h = PTOP__V1__HEAP_SNAPSHOT__INIT;
	Ptop__V1__HeapSite site = PTOP__V1__HEAP_SITE__INIT, *sp = &site;
	char path[256], dbp[300];
	struct symstore_run run;
	sqlite3 *db = NULL;

	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	w = capture_writer__create(path, &wo);
	assert_non_null(w);
	put_header(w, true);
	put_mapping_at(w, T0 + 10, 0, PTOP__V1__MAPPING_EVENT__MAPPING_EVENT_START);
	put_mapping(w, 0x7000000, LIBC, 0xcc);
	put_mapping_at(w, T0 + 3 * SEC, 0x2000, PTOP__V1__MAPPING_EVENT__MAPPING_EVENT_NEW);
	put_stack(w, 7, ips, n);
	site.stack_id = 7;
	site.alloc_count = 1;
	site.alloc_bytes = 4096;
	site.live_count = 1;
	site.live_bytes = 4096;
	h.lane = "uprobe";
	h.module = LIBC;
	h.live_measured = true;
	h.alloc_count = 1;
	h.alloc_bytes = 4096;
	h.live_count = 1;
	h.live_bytes = 4096;
	h.sites = &sp;
	h.n_sites = 1;
	h.total_call_sites = 1;
	ev.time_ns = T0 + 2 * SEC;
	ev.pid = PID;
	ev.interval_ns = SEC;
	ev.payload_case = PTOP__V1__EVENT__PAYLOAD_HEAP;
	ev.heap = &h;
	r.kind_case = PTOP__V1__RECORD__KIND_EVENT;
	r.event = &ev;
	capw__append(w, &r);
	assert_int_equal(capture_writer__close(w), 0);

	snprintf(dbp, sizeof(dbp), "%s.db", path);
	assert_int_equal(db__open(dbp, true, false, &db, errbuf, sizeof(errbuf)), 0);
	if (db__load_capture(db, path, true, id, NULL, errbuf, sizeof(errbuf)))
		fail_msg("load: %s", errbuf);
	assert_int_equal(symstore__update(db, 1, NULL, &run, errbuf, sizeof(errbuf)), 0);
	return db;
}

/* A heap stack is placed in the mapping of the time its snapshot used it: before an
 * exec that remapped the executable at another offset, the old mapping (without a
 * time, the latest mapping would be taken). */
static void test_11_heap_stack_placed_by_time(void **state)
{
	static const uint64_t ips[] = {0x7000100, 0x401150, 0x401050};
	char id[DB_CAPTURE_ID_LEN];
	sqlite3 *db;

	(void)state;
	db = one_site("exec.ptop", ips, 3, id);
	assert_int_equal(q_int(db, "SELECT file_offset FROM frame_module WHERE stack_id = 7 AND "
				   "depth = 1"),
			 0x114f);
	sqlite3_close(db);
}

/* A stack that never leaves the allocator's module (stdio's buffer, the walk stopped
 * in libc): named by its first frame that is not an allocator function; glibc's
 * __GI_ aliases of malloc are allocator functions. */
static void test_12_all_in_allocator_module(void **state)
{
	static const uint64_t ips[] = {0x7000100, 0x7000250};
	char id[DB_CAPTURE_ID_LEN], *buf;
	struct report_opts o = {.fmt = OUT_JSON};
	sqlite3 *db;

	(void)state;
	db = one_site("stdio.ptop", ips, 2, id);
	exec(db, "INSERT OR REPLACE INTO symbol (space, key, addr, source, miss, func_offset) "
		 "SELECT DISTINCT sym_space, sym_key, sym_addr, 'symtab', NULL, 0 "
		 "FROM frame_module WHERE sym_space = 'elf'");
	exec(db, "DELETE FROM symbol_frame");
	exec(db, "INSERT INTO symbol_frame (space, key, addr, depth, func, file, line, inlined) "
		 "SELECT DISTINCT sym_space, sym_key, sym_addr, 0, CASE WHEN sym_addr < 512 THEN "
		 "'__GI___libc_malloc' ELSE '__GI__IO_file_doallocate' END, 'libio.c', 7, 0 "
		 "FROM frame_module WHERE sym_space = 'elf'");
	buf = run_report(db, id, false, &o);
	assert_int_equal(site_int(buf, "__GI__IO_file_doallocate", "live_bytes"), 4096);
	assert_true(pos_of(buf, "__GI___libc_malloc") < 0);
	free(buf);
	sqlite3_close(db);
}

/* One entry of the "lanes" array of `report heap --format json`, as it prints. */
#define LANE_JSON(lane, module, from, to)                                                          \
	"    {\n      \"lane\": \"" lane "\",\n      \"module\": \"" module "\",\n      "          \
	"\"from_s\": " from ",\n      \"to_s\": " to "\n    }"

/* Snapshots taken by more than one lane (the target exec'd a static program: preload
 * hands over to uprobe; or back): the header names each lane, its module and its span,
 * JSON lists them; lanes side by side are joined with "and"; one lane reads as before. */
static void test_13_lanes(void **state)
{
	char id[DB_CAPTURE_ID_LEN], *buf;
	struct report_opts o = {.fmt = OUT_TEXT};
	sqlite3 *db;

	(void)state;
	db = load(write_capture("lanes1.ptop", true, true, false), id);
	buf = run_report(db, id, false, &o);
	assert_has(buf, "heap (whole capture): 10 intervals, lane uprobe, allocator " LIBC "\n");
	free(buf);
	o.fmt = OUT_JSON;
	buf = run_report(db, id, false, &o);
	assert_has(buf, "\"lanes\": [\n" LANE_JSON("uprobe", LIBC, "0", "10") "\n  ],");
	free(buf);
	sqlite3_close(db);

	/* snapshots 1-3 s preload, 4-8 s uprobe on the static executable, 9-10 s preload */
	db = load(write_capture("lanes2.ptop", true, true, false), id);
	exec(db, "UPDATE heap_snapshot SET lane = CASE WHEN seq < 3 OR seq >= 8 THEN 'preload' "
		 "ELSE 'uprobe' END, module = CASE WHEN seq < 3 OR seq >= 8 THEN "
		 "'/opt/ptop/libptop-preload.so' ELSE '/tmp/heap_static' END");
	o.fmt = OUT_TEXT;
	buf = run_report(db, id, false, &o);
	assert_has(buf, "heap (whole capture): 10 intervals, lanes: preload "
		   "(/opt/ptop/libptop-preload.so) 0.000\u20133.000 s, then uprobe "
		   "(/tmp/heap_static) 3.000\u20138.000 s, then preload "
		   "(/opt/ptop/libptop-preload.so) 8.000\u201310.000 s\n");
	free(buf);
	o.fmt = OUT_JSON;
	buf = run_report(db, id, false, &o);
	assert_has(buf, "\"lanes\": [\n"
		   LANE_JSON("preload", "/opt/ptop/libptop-preload.so", "0", "3")
		   ",\n" LANE_JSON("uprobe", "/tmp/heap_static", "3", "8")
		   ",\n" LANE_JSON("preload", "/opt/ptop/libptop-preload.so", "8", "10")
		   "\n  ],");
	/* the lane and module keys: the last snapshot's, as before */
	assert_has(buf, "\n  \"lane\": \"preload\",\n  \"module\": "
		   "\"/opt/ptop/libptop-preload.so\",\n");
	free(buf);
	/* a window inside one lane: that lane alone */
	o.fmt = OUT_TEXT;
	assert_int_equal(window__parse("4..7", &o.win, errbuf, sizeof(errbuf)), 0);
	buf = run_report(db, id, false, &o);
	assert_has(buf, ", lane uprobe, allocator /tmp/heap_static\n");
	free(buf);
	sqlite3_close(db);

	/* a go lane beside the uprobe lane from 5 s on (a cgo program) */
	db = load(write_capture("lanes3.ptop", true, true, false), id);
	exec(db, "INSERT INTO heap_snapshot (cap, seq, time_ns, interval_ns, pid, lane, module, "
		 "sample_bytes, live_measured, alloc_count, alloc_bytes, sites, total_call_sites, "
		 "omitted_alloc_count, omitted_alloc_bytes, stack_failures) SELECT cap, seq + 100, "
		 "time_ns, interval_ns, pid, 'go', '/usr/bin/app', 0, 0, 0, 0, 0, 0, 0, 0, 0 FROM "
		 "heap_snapshot WHERE seq >= 5");
	memset(&o.win, 0, sizeof(o.win));
	buf = run_report(db, id, false, &o);
	assert_has(buf, "heap (whole capture): 15 intervals, lanes: uprobe (" LIBC
		   ") 0.000\u201310.000 s and go (/usr/bin/app) 5.000\u201310.000 "
		   "s\n");
	free(buf);
	sqlite3_close(db);
}

/* The target exec'd a static program (sh -c 'exec app'): the uprobe lane probes the
 * program itself, which holds the allocator and the program's code alike. Named by the
 * probe change's cause, it counts as the program, like the target's executable: the
 * allocating function is its frame, not an outer frame past it (the walk's last,
 * a libc frame here). */
static void test_14_execd_static_program(void **state)
{
	static const uint64_t ips[] = {0x401150, 0x401050, 0x7000100};
	char id[DB_CAPTURE_ID_LEN], *buf;
	struct report_opts o = {.fmt = OUT_JSON};
	sqlite3 *db;

	(void)state;
	db = one_site("execd.ptop", ips, 3, id);
	exec(db, "INSERT OR REPLACE INTO symbol (space, key, addr, source, miss, func_offset) "
		 "SELECT DISTINCT sym_space, sym_key, sym_addr, 'symtab', NULL, 0 "
		 "FROM frame_module WHERE sym_space = 'elf'");
	exec(db, "DELETE FROM symbol_frame");
	exec(db, "INSERT INTO symbol_frame (space, key, addr, depth, func, file, line, inlined) "
		 "SELECT DISTINCT sym_space, sym_key, sym_addr, 0, CASE WHEN sym_addr >= 4352 "
		 "THEN 'leak_pages' ELSE 'main' END, 'app.c', 7, 0 FROM frame_module WHERE "
		 "sym_space = 'elf'");
	exec(db, "UPDATE target SET exe = '/usr/bin/dash'");
	exec(db, "UPDATE heap_snapshot SET module = '/usr/bin/app'");
	/* without the exec known, /usr/bin/app is only the allocator's module */
	buf = run_report(db, id, false, &o);
	assert_true(pos_of(buf, "leak_pages") < 0);
	free(buf);
	exec(db, "INSERT INTO probe_change (cap, seq, time_ns, name, state, source, detail, cause) "
		 "SELECT cap, 0, 1000500000000, 'heap', 'active', 'ebpf', 'lane uprobe', "
		 "'exec /usr/bin/app' FROM capture");
	buf = run_report(db, id, false, &o);
	assert_int_equal(site_int(buf, "leak_pages", "live_bytes"), 4096);
	free(buf);
	sqlite3_close(db);
}

/* A probe change SEQ at T0 + T_DS tenths of a second: collector NAME now in STATE. */
static void add_change(sqlite3 *db, int seq, int t_ds, const char *name, const char *state,
		       const char *reason, const char *cause)
{
	char *sql = sqlite3_mprintf("INSERT INTO probe_change (cap, seq, time_ns, name, state, "
				    "source, reason, cause) SELECT cap, %d, %llu, %Q, %Q, 'ebpf', "
				    "%Q, %Q FROM capture",
				    seq, T0 + (unsigned long long)t_ds * SEC / 10, name, state,
				    reason, cause);

	assert_non_null(sql);
	exec(db, sql);
	sqlite3_free(sql);
}

/* A probe change that leaves the heap unmeasured (the target exec'd a program the heap
 * collector cannot probe) is said, from then until a change makes it active again; only
 * a change away from active counts (goalloc, off from the start, is no gap). */
static void test_15_not_measured_after_exec(void **state)
{
	char id[DB_CAPTURE_ID_LEN], *buf;
	struct report_opts o = {.fmt = OUT_TEXT};
	sqlite3 *db;

	(void)state;
	db = load(write_capture("gap.ptop", true, true, false), id);
	buf = run_report(db, id, false, &o);
	assert_null(strstr(buf, "not measured from"));
	free(buf);
	add_change(db, 0, 20, "goalloc", "unsupported", "not a Go program", "exec /bin/true");
	add_change(db, 1, 30, "heap", "active", NULL, "exec /usr/bin/app");
	add_change(db, 2, 45, "heap", "unsupported", "--no-ebpf: uprobes only",
		   "exec /usr/bin/static");
	add_change(db, 3, 75, "heap", "active", NULL, "exec /usr/bin/app");
	buf = run_report(db, id, false, &o);
	assert_has(buf, "heap (whole capture): 10 intervals, lane uprobe, allocator " LIBC "\n"
			"heap not measured from 4.500 s to 7.500 s: unsupported after exec "
			"/usr/bin/static: --no-ebpf: uprobes only\nsampling: ");
	assert_null(strstr(buf, "goalloc not measured"));
	free(buf);
	o.fmt = OUT_JSON;
	buf = run_report(db, id, false, &o);
	assert_has(buf,
		   "\"not_measured\": [\n    {\n      \"collector\": \"heap\",\n      "
		   "\"from_s\": 4.5,\n      \"to_s\": 7.5,\n      \"state\": \"unsupported\",\n"
		   "      \"reason\": \"--no-ebpf: uprobes only\",\n      \"cause\": \"exec "
		   "/usr/bin/static\"\n    }\n  ],");
	free(buf);
	/* a window before it: none */
	assert_int_equal(window__parse("0..3", &o.win, errbuf, sizeof(errbuf)), 0);
	buf = run_report(db, id, false, &o);
	assert_has(buf, "\"not_measured\": [],\n");
	free(buf);
	/* never active again: to the end */
	exec(db, "DELETE FROM probe_change WHERE seq = 3");
	memset(&o.win, 0, sizeof(o.win));
	o.fmt = OUT_TEXT;
	buf = run_report(db, id, false, &o);
	assert_has(buf, "\nheap not measured from 4.500 s to the end: unsupported after exec "
			"/usr/bin/static: --no-ebpf: uprobes only\n");
	free(buf);
	sqlite3_close(db);
}

/* Allocator calls the probes saw but did not count (heap drops unmatched_entry,
 * unmatched_return, attaching, inflight_full, recursion_miss) make the total a lower
 * bound, never "exact"; the calls of other processes (filtered) do not. */
static void test_16_uncounted_calls(void **state)
{
	char id[DB_CAPTURE_ID_LEN], *buf;
	struct report_opts o = {.fmt = OUT_TEXT};
	sqlite3 *db;

	(void)state;
	db = load(write_capture("uncounted.ptop", true, true, false), id);
	exec(db, "INSERT INTO drop_notice (cap, time_ns, collector, kind, lost, detail) "
		 "SELECT cap, start_monotonic_ns + 1000, 'heap', 'filtered', 9, 'x' FROM capture");
	buf = run_report(db, id, false, &o);
	assert_non_null(strstr(buf, " allocations (exact)"));
	assert_non_null(strstr(buf, "drops: heap filtered: 9 lost"));
	free(buf);
	exec(db, "INSERT INTO drop_notice (cap, time_ns, collector, kind, lost, detail) "
		 "SELECT cap, start_monotonic_ns + 1000, 'heap', 'attaching', 7, 'x' FROM capture");
	exec(db, "INSERT INTO drop_notice (cap, time_ns, collector, kind, lost, detail) "
		 "SELECT cap, start_monotonic_ns + 2000, 'heap', 'unmatched_return', 2, 'x' "
		 "FROM capture");
	exec(db, "INSERT INTO drop_notice (cap, time_ns, collector, kind, lost, detail) "
		 "SELECT cap, start_monotonic_ns + 3000, 'heap', 'unmatched_entry', 3, 'x' "
		 "FROM capture");
	buf = run_report(db, id, false, &o);
	assert_null(strstr(buf, "(exact)"));
	assert_non_null(strstr(buf, " allocations (at least: 12 allocator calls seen but not "
				    "counted, see drops)"));
	assert_non_null(strstr(buf, "drops: heap unmatched_entry: 3 lost"));
	free(buf);
	o.fmt = OUT_JSON;
	buf = run_report(db, id, false, &o);
	assert_non_null(strstr(buf, "\"uncounted_calls\": 12"));
	free(buf);
	sqlite3_close(db);
}

/* Sampled allocations and frees the sites never got (heap drop ring_full: the preload
 * ring stayed full; site_map_full): the totals are counted apart and stay exact, but the
 * per-function figures are lower bounds, never called exact, in text and JSON. */
static void test_20_sites_lost(void **state)
{
	char id[DB_CAPTURE_ID_LEN], *buf;
	struct report_opts o = {.fmt = OUT_TEXT};
	sqlite3 *db;

	(void)state;
	drop_kind = "ring_full";
	drop_lost = 1234;
	db = load(write_capture("ringfull.ptop", true, true, false), id);
	drop_kind = NULL;
	buf = run_report(db, id, false, &o);
	assert_non_null(strstr(buf, "drops: heap ring_full: 1,234 lost"));
	assert_non_null(strstr(buf, "sampling: every allocation with its stack (sample_bytes "
				    "0): lower bounds: 1,234 events lost (ring_full 1,234)\n"));
	assert_null(strstr(buf, "0): exact"));
	assert_non_null(strstr(buf, " allocations (exact)")); /* the totals: counters */
	free(buf);
	o.fmt = OUT_JSON;
	buf = run_report(db, id, false, &o);
	assert_non_null(strstr(buf, "\"exact\": false"));
	assert_null(strstr(buf, "\"exact\": true"));
	assert_non_null(strstr(buf, "\"sites_events_lost\": 1234"));
	assert_non_null(strstr(buf, "\"sites_lost_note\": \"lower bounds: 1,234 events lost "
				    "(ring_full 1,234)\""));
	free(buf);
	buf = run_report(db, id, true, &o); /* report leaks' head: the same */
	assert_non_null(strstr(buf, "\"exact\": false"));
	assert_non_null(strstr(buf, "\"sites_events_lost\": 1234"));
	free(buf);
	sqlite3_close(db);

	/* two kinds, summed and named; a drop of another kind (filtered) costs no site */
	drop_kind = "site_map_full";
	drop_lost = 6;
	db = load(write_capture("sitefull.ptop", true, true, false), id);
	drop_kind = NULL;
	exec(db, "INSERT INTO drop_notice (cap, time_ns, collector, kind, lost, detail) "
		 "SELECT cap, start_monotonic_ns + 1000, 'heap', 'ring_full', 4, 'x' FROM capture");
	exec(db, "INSERT INTO drop_notice (cap, time_ns, collector, kind, lost, detail) "
		 "SELECT cap, start_monotonic_ns + 1000, 'heap', 'filtered', 9, 'x' FROM capture");
	o.fmt = OUT_TEXT;
	buf = run_report(db, id, false, &o);
	assert_non_null(strstr(buf, "0): lower bounds: 10 events lost (ring_full 4, "
				    "site_map_full 6)\n"));
	free(buf);
	sqlite3_close(db);

	/* the preload lane's figures: the sites at the peak and the temporaries by function
	 * come from the same events: lower bounds too; the peak and the totals stay exact */
	preload_figs = true;
	drop_kind = "ring_full";
	drop_lost = 5;
	db = load(write_capture("peaklost.ptop", true, true, false), id);
	drop_kind = NULL;
	preload_figs = false;
	buf = run_report(db, id, false, &o);
	assert_non_null(strstr(buf, "peak: 4.77 MiB live at 2.500 s (exact"));
	assert_non_null(strstr(buf, "held at the peak (lower bounds: 5 events lost (ring_full 5), "
				    "4.77 MiB live then)"));
	assert_non_null(strstr(buf, ", exact; by function lower bounds: 5 events lost "
				    "(ring_full 5)\n"));
	free(buf);
	o.fmt = OUT_JSON;
	buf = run_report(db, id, false, &o);
	assert_non_null(strstr(buf, "\"sites_exact\": false"));
	assert_non_null(strstr(buf, "\"by_function_exact\": false"));
	free(buf);
	o.fmt = OUT_TEXT;
	sqlite3_close(db);

	/* without such a drop: exact, as before */
	drop_kind = "filtered";
	drop_lost = 9;
	db = load(write_capture("nolost.ptop", true, true, false), id);
	drop_kind = NULL;
	buf = run_report(db, id, false, &o);
	assert_non_null(strstr(buf, "0): exact\n"));
	free(buf);
	sqlite3_close(db);
}

/* The preload lane's figures: the peak over the capture with its time and the sites at it
 * (largest first, named by their allocating function), the temporaries in all and by
 * function, the allocations per second of each interval; a capture without them: not
 * measured; the uprobe lane's: the sites at its last peak mark (estimated), at least
 * with calls untracked; attached by --pid: since the attach. */
static void test_17_peak_temporaries_rate(void **state)
{
	char id[DB_CAPTURE_ID_LEN], *buf;
	struct test_own own = {.heap.by = HEAP_BY_LIVE};
	struct report_opts o = {.fmt = OUT_JSON, .own = &own};
	const char *p;
	sqlite3 *db;
	int n = 0;

	(void)state;
	preload_figs = true;
	db = load(write_capture("peak.ptop", true, true, false), id);
	preload_figs = false;
	assert_int_equal(q_int(db, "SELECT count(*) FROM heap_peak_site"), 2);
	assert_int_equal(q_int(db, "SELECT max(peak_live_bytes) FROM heap_snapshot"), 5000000);
	assert_int_equal(q_int(db, "SELECT count(*) FROM heap_snapshot WHERE "
				   "peak_sites_live_bytes IS NOT NULL"), 1);
	buf = run_report(db, id, false, &o);
	p = strstr(buf, "\"peak\": {");
	assert_non_null(p);
	assert_non_null(strstr(p, "\"live_bytes\": 5000000"));
	assert_non_null(strstr(p, "\"time_s\": 2.5"));
	/* the sites at the peak: leak_pages (4,000,000) before churn */
	assert_true(strstr(p, "\"func\": \"leak_pages\"") != NULL);
	assert_true(strstr(p, "\"func\": \"leak_pages\"") < strstr(p, "\"func\": \"churn\""));
	assert_non_null(strstr(p, "\"live_bytes\": 4000000"));
	assert_non_null(strstr(buf, "\"count\": 550")); /* 10 x (1 + ... + 10) */
	/* churn is stack 3 (3 x 55), leak_pages stacks 1 and 2 (1 x 55 + 2 x 55) */
	p = strstr(buf, "\"functions\""); /* the sites by function, after the peak's */
	assert_non_null(p);
	assert_int_equal(site_int(p, "churn", "temporary_count"), 165);
	assert_int_equal(site_int(p, "leak_pages", "temporary_count"), 165);
	for (p = strstr(buf, "\"alloc_rate_series\""); p && (p = strstr(p, "\"allocs_per_s\"")); p++)
		n++;
	assert_int_equal(n, NSNAP);
	free(buf);
	o.fmt = OUT_TEXT;
	buf = run_report(db, id, false, &o);
	assert_has(buf, "peak: 4.77 MiB live at 2.500 s (exact");
	assert_has(buf, "held at the peak (exact, 4.77 MiB live then)");
	assert_has(buf, "temporary allocations (freed before their thread's next allocation or free): 550 ");
	assert_has(buf, "allocations per second: ");
	assert_has(buf, " (over the 1.00 s interval ending at ");
	free(buf);
	o.fmt = OUT_CSV;
	buf = run_report(db, id, false, &o);
	assert_has(buf, "alloc_count,temporary_count,");
	free(buf);
	/* sampled: a sampled temporary is credited with the allocations since the last
	 * sample, so the sites' estimates overshoot the exact total (x10 here); scaled to
	 * it, the functions' temporaries add up to the total again (825: 165 + 165 + ...),
	 * and the text says they are estimates scaled to the total */
	exec(db, "UPDATE heap_snapshot SET sample_bytes = 524288, temporary_count = (SELECT "
		 "sum(s.temporary_count) FROM heap_site s WHERE s.cap = heap_snapshot.cap AND "
		 "s.seq = heap_snapshot.seq)");
	exec(db, "UPDATE heap_site SET temporary_count = temporary_count * 10");
	o.fmt = OUT_JSON;
	buf = run_report(db, id, false, &o);
	assert_non_null(strstr(buf, "\"count\": 825"));
	p = strstr(buf, "\"functions\"");
	assert_non_null(p);
	assert_int_equal(site_int(p, "churn", "temporary_count"), 165);
	assert_int_equal(site_int(p, "leak_pages", "temporary_count"), 165);
	free(buf);
	o.fmt = OUT_TEXT;
	buf = run_report(db, id, false, &o);
	assert_has(buf, "; by function estimated from the samples, scaled to the total (less the "
			"sites left out)\n");
	free(buf);
	sqlite3_close(db);

	/* a capture from before the figures (the fields absent): not measured, and said */
	db = load(write_capture("nopeak.ptop", true, true, false), id);
	o.fmt = OUT_TEXT;
	buf = run_report(db, id, false, &o);
	assert_has(buf, "peak, temporary allocations: not measured (the capture was made by a "
			"ptop-record that did not measure them yet)");
	assert_null(strstr(buf, "allocs  temporary")); /* no column */
	assert_null(strstr(buf, "peak: "));
	free(buf);
	o.fmt = OUT_JSON;
	buf = run_report(db, id, false, &o);
	assert_has(buf, "\"peak\": null");
	assert_has(buf, "\"peak_not_measured_reason\": \"the capture was made by");
	assert_has(buf, "\"temporary\": null");
	assert_int_equal(site_int(buf, "churn", "temporary_count"), -999);
	free(buf);
	sqlite3_close(db);

	/* the uprobe lane: the peak and the temporaries, the sites at its last peak mark
	 * (estimated, even at sample bytes 0); 20 allocations not tracked (live map full):
	 * the peak is at least */
	uprobe_figs = true;
	db = load(write_capture("upeak.ptop", true, true, false), id);
	uprobe_figs = false;
	o.fmt = OUT_TEXT;
	buf = run_report(db, id, false, &o);
	assert_has(buf, "peak: 4.77 MiB live at 2.500 s (at least: 20 allocator calls not tracked");
	assert_has(buf, "  held at the peak (estimated: taken at the last peak mark, 4.67 MiB live "
			"at 2.400 s), by function:\n    3.81 MiB    1,000  leak_pages");
	assert_has(buf, "): 550 of 1,002,100 (0.1%), at least; by function exact");
	free(buf);
	o.fmt = OUT_JSON;
	buf = run_report(db, id, false, &o);
	assert_has(buf, "\"exact\": false,\n    \"untracked_calls\": 20,\n    \"since\": \"start\"");
	assert_has(buf, "\"sites_exact\": false,\n    \"sites_live_bytes\": 4900000,\n    "
			"\"sites_time_s\": 2.4");
	assert_int_equal(site_int(strstr(buf, "\"functions\""), "churn", "temporary_count"), 165);
	free(buf);
	/* attached to a running process (--pid): the peak is since the attach, and said */
	exec(db, "UPDATE target SET mode = 'pid'");
	o.fmt = OUT_TEXT;
	buf = run_report(db, id, false, &o);
	assert_has(buf, "; since the probes attached: the heap allocated before is not seen)");
	free(buf);
	o.fmt = OUT_JSON;
	buf = run_report(db, id, false, &o);
	assert_has(buf, "\"since\": \"attach\"");
	free(buf);
	sqlite3_close(db);
}

/* A site whose frame-pointer walk read a value in no executable mapping after two frames
 * of the program: the walk ends there (the frame after it left out too), and the report
 * says how many sites' stacks were cut and in which module frame pointers are missing. */
static void test_18_walk_cut(void **state)
{
	static const uint64_t ips[] = {0x401150, 0x401050, 0x652f00656d616e73, 0x401060};
	char id[DB_CAPTURE_ID_LEN], *buf;
	struct report_opts o = {.fmt = OUT_TEXT};
	sqlite3 *db;

	(void)state;
	db = one_site("cut.ptop", ips, 4, id);
	buf = run_report(db, id, false, &o);
	assert_has(buf, "stacks cut short: 1 of 1 sites' stacks end where the walk read a return "
			"address in no executable mapping: frame pointers missing in /usr/bin/app;");
	assert_true(pos_of(buf, "652f00656d616e73") < 0);
	free(buf);
	o.fmt = OUT_JSON;
	buf = run_report(db, id, false, &o);
	assert_has(buf, "\"stacks_cut\": 1,\n  \"stacks\": 1");
	free(buf);
	sqlite3_close(db);
}

/* The target exited (the capture's trailer says so): report leaks gives what it did not
 * free, heaptrack's "leaked": every function live at the last snapshot, whatever the age
 * of its allocations, by live bytes; the same capture of a running target keeps the
 * age-based suspects, as does a window that ends before the end. */
static void test_19_leaks_at_exit(void **state)
{
	char id[DB_CAPTURE_ID_LEN], *buf;
	struct report_opts o = {.fmt = OUT_JSON};
	sqlite3 *db;

	(void)state;
	db = load(write_capture("exit.ptop", true, true, false), id);
	/* churn holds 3 blocks (300 B) at the end, allocated 1 ms before: young */
	exec(db, "UPDATE heap_site SET live_count = 3, live_bytes = 300, oldest_live_ns = (SELECT "
		 "max(time_ns) FROM heap_snapshot) - 1000000 WHERE stack_id = 3 AND seq = (SELECT "
		 "max(seq) FROM heap_snapshot)");
	buf = run_report(db, id, true, &o);
	assert_has(buf, "\"mode\": \"age\",\n  \"leaked_bytes\": null");
	assert_true(pos_of(buf, "churn") < 0);
	free(buf);
	exec(db, "UPDATE capture SET target_exited = 1, end_reason = 'target_exit'");
	buf = run_report(db, id, true, &o);
	assert_has(buf, "\"mode\": \"at_exit\"");
	/* churn's young allocations, live at the end, were never freed either */
	assert_true(pos_of(buf, "churn") >= 0);
	assert_true(pos_of(buf, "leak_pages") < pos_of(buf, "grower"));
	assert_int_equal(site_int(buf, "churn", "live_bytes"), 300);
	free(buf);
	o.fmt = OUT_TEXT;
	buf = run_report(db, id, true, &o);
	assert_has(buf, "; the target exited: leaked (not freed before it exited, heaptrack's "
			"\"leaked\"): ");
	assert_has(buf, "#1 leak_pages ");
	free(buf);
	assert_int_equal(window__parse("..5", &o.win, errbuf, sizeof(errbuf)), 0);
	buf = run_report(db, id, true, &o);
	assert_has(buf, "the target was still running: suspects: functions holding allocations "
			"older than ");
	free(buf);
	sqlite3_close(db);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_01_loader_rows), cmocka_unit_test(test_02_fold_and_order),
	    cmocka_unit_test(test_03_window),	   cmocka_unit_test(test_04_census),
	    cmocka_unit_test(test_05_trend),	   cmocka_unit_test(test_06_leaks),
	    cmocka_unit_test(test_07_suppressions), cmocka_unit_test(test_08_not_measured),
	    cmocka_unit_test(test_09_not_collected), cmocka_unit_test(test_10_sampled_live),
	    cmocka_unit_test(test_11_heap_stack_placed_by_time),
	    cmocka_unit_test(test_12_all_in_allocator_module),
	    cmocka_unit_test(test_13_lanes),
	    cmocka_unit_test(test_14_execd_static_program),
	    cmocka_unit_test(test_15_not_measured_after_exec),
	    cmocka_unit_test(test_16_uncounted_calls),
	    cmocka_unit_test(test_20_sites_lost),
	    cmocka_unit_test(test_19_leaks_at_exit), cmocka_unit_test(test_18_walk_cut), cmocka_unit_test(test_17_peak_temporaries_rate),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
