/* test_heap.c — the heap collector: the exponential sampling table, the site ranking and
 * census, the stack composition with the caller recovered, check() without eBPF, and, when run as root, the real uprobes on a forked child whose
 * allocations are known.
 *
 * The run loop's rec_emit_* are replaced by tests/rec_double.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>
#include <gelf.h>
#include <libelf.h>

#include "record/collector.h"
#include "record/bpf_util.h"
#include "record/stack_table.h"
#include "record/stackcopy.h"
#include "collectors/heap/record.h"
#include "record/uprobe_target.h"
#include "collectors/heap/record_preload.h"
#include "record/record.h"

extern const struct collector_ops heap_collector;

#include "tests/rec_double.h"

/* ------------------------------------------------------------------ sampling */

static void test_02_exp_table(void **state)
{
	uint32_t t[HP_EXP_TABLE];
	double mean = 0;
	size_t i;

	(void)state;
	heap__exp_table(t, HP_EXP_TABLE);
	for (i = 0; i < HP_EXP_TABLE; i++) {
		mean += t[i];
		if (i)
			assert_true(t[i] <= t[i - 1]);	/* quantiles of -ln(u): decreasing */
	}
	mean /= HP_EXP_TABLE;
	printf("# mean %.1f (want 65536), first %u, last %u\n", mean, t[0], t[HP_EXP_TABLE - 1]);
	assert_true(mean > 65536 * 0.998 && mean < 65536 * 1.002);
	/* -ln(0.5/1024) = 7.6246; -ln(1023.5/1024) = 0.000488 */
	assert_in_range(t[0], 499600, 499800);
	assert_in_range(t[HP_EXP_TABLE - 1], 30, 34);
	/* the median interval is ln 2 of the mean */
	assert_in_range(t[HP_EXP_TABLE / 2], 45300, 45500);
}

/* ------------------------------------------------------------------ ranking */

static void test_03_select_sites(void **state)
{
	/* live, bytes, count tops differ: with top 1 three sites are kept */
	struct heap_site_row rows[] = {
		{ .alloc_count = 1000, .alloc_bytes = 64000 },				/* count */
		{ .alloc_count = 1000, .alloc_bytes = 4096000, .live_count = 1000,
		  .live_bytes = 4096000 },						/* live */
		{ .alloc_count = 1, .alloc_bytes = 8000000 },				/* bytes */
		{ .alloc_count = 5, .alloc_bytes = 50, .live_count = 2, .live_bytes = 20 },
		{ 0 },									/* idle */
		{ .freed_count = 3, .lifetime_ns_sum = 30 },				/* freed only */
	};
	bool keep[6];
	struct heap_census c;

	(void)state;
	assert_int_equal(heap__select_sites(rows, 6, 1, keep, &c), 0);
	assert_int_equal(c.total_call_sites, 5);	/* the idle row is not a site */
	assert_true(keep[1] && keep[2]);
	assert_false(keep[4]);
	/* site 0 and site 1 tie on count (1000): the lower index wins */
	assert_true(keep[0]);
	assert_false(keep[3]);
	assert_int_equal(c.omitted_alloc_count, 5);
	assert_int_equal(c.omitted_alloc_bytes, 50);
	assert_int_equal(c.omitted_live_bytes, 20);

	/* a top larger than the list keeps every active row: the list is complete */
	assert_int_equal(heap__select_sites(rows, 6, 64, keep, &c), 0);
	assert_int_equal(c.total_call_sites, 5);
	assert_int_equal(c.kept, 5);
	assert_int_equal(c.omitted_alloc_count + c.omitted_alloc_bytes + c.omitted_live_bytes, 0);
	assert_true(keep[5]);
	assert_false(keep[4]);

	assert_int_equal(heap__select_sites(NULL, 0, 64, keep, &c), 0);
	assert_int_equal(c.total_call_sites, 0);
}

static void test_04_site_ips(void **state)
{
	uint64_t walk[] = { 0x7f0000098930, 0x401500, 0x7f0000023000 };
	uint64_t out[8];

	(void)state;
	/* the caller's return address goes in as frame 1 */
	assert_int_equal(heap__site_ips(walk, 3, 0x401234, out, 8), 4);
	assert_int_equal(out[0], 0x7f0000098930);
	assert_int_equal(out[1], 0x401234);
	assert_int_equal(out[2], 0x401500);
	assert_int_equal(out[3], 0x7f0000023000);
	/* unknown caller: the walk as it is */
	assert_int_equal(heap__site_ips(walk, 3, 0, out, 8), 3);
	assert_int_equal(out[1], 0x401500);
	/* bounded */
	assert_int_equal(heap__site_ips(walk, 3, 0x401234, out, 2), 2);
	assert_int_equal(heap__site_ips(walk, 0, 0x401234, out, 8), 1);
}

/* A lane with its ips in user space (as the LD_PRELOAD lane): site k's stack is
 * uw[k], nothing for a site whose stack hash is 0xdead. */
static const uint64_t uw[3][3] = {
	{ 0x7f0000001000, 0x401100, 0x401000 },
	{ 0x7f0000001000, 0x401200, 0x401000 },
	{ 0x7f0000001000, 0x401100, 0x401000 },	/* site 0's walk, another caller */
};
static int user_calls;

static int user_ips(void *arg, const struct heap_usite *s, uint64_t *ips, size_t max)
{
	const uint64_t(*walks)[3] = arg;
	size_t k = (size_t)s->key.stack.nr - 1, i;

	user_calls++;
	assert_true(max >= HP_MAX_DEPTH);
	if (s->key.stack.hash == 0xdead)
		return 0;
	for (i = 0; i < 3; i++)
		ips[i] = walks[k][i];
	return 3;
}

static struct rec_ctx ctx;

static void test_04b_stack_source(void **state)
{
	struct heap_stack_src src = { .ips = user_ips, .arg = (void *)uw };
	struct heap_usite sites[8] = { 0 };
	struct hp_site_key key = { 0 };
	struct heap_site_row rows[4] = {
		{ .alloc_count = 10, .alloc_bytes = 100, .live_bytes = 40, .live_count = 4 },
		{ .alloc_count = 20, .alloc_bytes = 200 },
		{ .alloc_count = 30, .alloc_bytes = 300 },
		{ .alloc_count = 40, .alloc_bytes = 400 },
	};
	bool keep[4] = { true, true, true, true };
	size_t row_site[4], k, i;
	Ptop__V1__HeapSite out[4], *ptrs[4];
	struct heap_rank rank = { rows, keep, row_site, out, ptrs };
	struct stack_table *table = stack_table__new();
	uint64_t want[4][4] = {
		{ 0x7f0000001000, 0x401150, 0x401100, 0x401000 },
		{ 0x7f0000001000, 0x401250, 0x401200, 0x401000 },
		{ 0x7f0000001000, 0x401180, 0x401100, 0x401000 },
	};

	(void)state;
	rec_double_reset();
	for (i = 0; i < 4; i++) {
		key.stack.hash = i == 3 ? 0xdead : 0x1000 + (i % 2);
		key.stack.nr = (uint32_t)(i == 3 ? 1 : i + 1);
		key.caller = i == 3 ? 0 : want[i][1];
		row_site[i] = (size_t)(heap_usites__get(sites, 8, &key) - sites);
		assert_true(row_site[i] < 8);
	}
	/* the same key finds the same site */
	assert_int_equal(heap_usites__get(sites, 8, &key) - sites, row_site[3]);
	user_calls = 0;
	assert_non_null(table);
	assert_int_equal(heap__fill_sites(&ctx, &src, table, sites, &rank, 4, &k), 0);
	assert_int_equal(k, 4);
	assert_int_equal(user_calls, 4);
	/* three stacks written, each with the caller as frame 1; the fourth has none */
	assert_int_equal(rec_double.n_records, 3);
	for (i = 0; i < 3; i++) {
		Ptop__V1__Record *rec = rec_double_record((int)i);

		assert_int_equal(rec->kind_case, PTOP__V1__RECORD__KIND_STACK);
		assert_int_equal(rec->stack->id, ptrs[i]->stack_id);
		assert_false(rec->stack->kernel);
		assert_int_equal(rec->stack->n_ips, 4);
		assert_memory_equal(rec->stack->ips, want[i], sizeof(want[i]));
		ptop__v1__record__free_unpacked(rec, NULL);
	}
	assert_int_equal(ptrs[3]->stack_id, 0);
	assert_int_equal(ptrs[0]->alloc_bytes, 100);
	assert_int_equal(ptrs[0]->live_bytes, 40);
	assert_int_equal(ptrs[3]->alloc_count, 40);
	/* resolved once: a second snapshot reads no stack and writes no record again */
	assert_int_equal(heap__fill_sites(&ctx, &src, NULL, sites, &rank, 4, &k), 0);
	assert_int_equal(user_calls, 4);
	assert_int_equal(rec_double.n_records, 3);
	stack_table__free(table);
	rec_double_reset();
}

/* The one peak-sites routine of every lane: the top heap_settings.top sites by live bytes
 * at the mark, each with its stack; sampled estimates above the mark's exact total are
 * scaled down to it; exact figures are not. */
static void test_04d_peak_sites(void **state)
{
	struct heap_stack_src src = { .ips = user_ips, .arg = (void *)uw };
	struct heap_usite sites[8] = { 0 };
	struct hp_site_key key = { 0 };
	struct stack_table *table = stack_table__new();
	Ptop__V1__HeapSnapshot hs = PTOP__V1__HEAP_SNAPSHOT__INIT;
	struct heap_settings saved = heap_settings;
	struct heap_peak pk;
	size_t i, at[3];

	(void)state;
	rec_double_reset();
	assert_non_null(table);
	for (i = 0; i < 3; i++) {
		key.stack.hash = 0x2000 + i;
		key.stack.nr = (uint32_t)(i + 1);
		at[i] = (size_t)(heap_usites__get(sites, 8, &key) - sites);
	}
	heap_settings.top = 2;
	assert_int_equal(heap_peak__alloc(&pk, 8), 0);
	/* exact: the two largest, largest first, the figures as they were */
	pk.rows[0] = (struct heap_peak_row){ at[0], 1, 100 };
	pk.rows[1] = (struct heap_peak_row){ at[1], 3, 300 };
	pk.rows[2] = (struct heap_peak_row){ at[2], 2, 200 };
	user_calls = 0;
	assert_int_equal(heap__peak_sites(&ctx, &src, table, sites, &pk, 3, false, 500, 77, &hs), 0);
	assert_int_equal(hs.n_peak_sites, 2);
	assert_int_equal(hs.peak_sites_live_bytes, 500);
	assert_int_equal(hs.peak_sites_time_ns, 77);
	assert_int_equal(hs.peak_sites[0]->live_bytes, 300);
	assert_int_equal(hs.peak_sites[0]->live_count, 3);
	assert_int_equal(hs.peak_sites[0]->stack_id, sites[at[1]].capid);
	assert_true(sites[at[1]].capid != 0);
	assert_int_equal(hs.peak_sites[1]->live_bytes, 200);
	assert_int_equal(user_calls, 2);	/* the third site's stack is not needed */
	/* sampled: 600 estimated against 300 exact at the mark, halved */
	pk.rows[0] = (struct heap_peak_row){ at[0], 1, 100 };
	pk.rows[1] = (struct heap_peak_row){ at[1], 3, 300 };
	pk.rows[2] = (struct heap_peak_row){ at[2], 2, 200 };
	assert_int_equal(heap__peak_sites(&ctx, &src, table, sites, &pk, 3, true, 300, 78, &hs), 0);
	assert_int_equal(hs.peak_sites[0]->live_bytes, 150);
	assert_int_equal(hs.peak_sites[0]->live_count, 2);	/* 1.5, rounded */
	assert_int_equal(hs.peak_sites[1]->live_bytes, 100);
	/* no site at the mark: none said */
	assert_int_equal(heap__peak_sites(&ctx, &src, table, sites, &pk, 0, true, 300, 79, &hs), 0);
	assert_int_equal(hs.n_peak_sites, 0);
	assert_null(hs.peak_sites);
	heap_peak__free(&pk);
	heap_peak__free(&pk);	/* emptied: freeing again is safe */
	heap_settings = saved;
	stack_table__free(table);
	rec_double_reset();
}

/* The interval's row of a site from its cumulative figures, the counters' deltas, and
 * the snapshot fields every lane shares. */
static void test_04c_rows_and_snapshot(void **state)
{
	struct heap_usite s = { 0 };
	struct hp_site cur = { .alloc_count = 10, .alloc_bytes = 1000, .live_count = 4,
			       .live_bytes = 400, .freed_count = 6, .lifetime_ns_sum = 600 };
	struct heap_site_row r;
	uint64_t now[3] = { 5, 7, 9 }, prev[3] = { 1, 2, 3 }, d[3];
	struct heap_census census = { .total_call_sites = 3, .kept = 1, .omitted_alloc_count = 2,
				      .omitted_alloc_bytes = 20, .omitted_live_bytes = 8 };
	Ptop__V1__HeapSnapshot hs = PTOP__V1__HEAP_SNAPSHOT__INIT;
	Ptop__V1__HeapSite site = PTOP__V1__HEAP_SITE__INIT, *sites[1] = { &site };

	(void)state;
	heap_settings.sample_bytes = 4096; /* --heap-sample-bytes */
	heap_settings.leak_age_ns = 77;    /* --leak-age */
	s.oldest = 123;
	heap__site_row(&r, &s, &cur, 5, true);
	assert_int_equal(r.alloc_count, 10);
	assert_int_equal(r.alloc_bytes, 1000);
	assert_int_equal(r.live_count, 4);
	assert_int_equal(r.live_bytes, 400);
	assert_int_equal(r.freed_count, 6);
	assert_int_equal(r.lifetime_ns_sum, 600);
	assert_int_equal(r.oldest_live_ns, 123);
	assert_int_equal(r.index, 5);
	/* the next interval: deltas of the counts, the live state as it is */
	cur.alloc_count = 15;
	cur.alloc_bytes = 1500;
	cur.live_count = (uint64_t)-1; /* a per-CPU sum gone negative for a moment */
	cur.live_bytes = 0;
	heap__site_row(&r, &s, &cur, 6, true);
	assert_int_equal(r.alloc_count, 5);
	assert_int_equal(r.alloc_bytes, 500);
	assert_int_equal(r.freed_count, 0);
	assert_int_equal(r.live_count, 0);
	assert_int_equal(r.oldest_live_ns, 0); /* nothing live: no oldest */
	/* a lane that does not measure live data leaves it 0 */
	cur.alloc_count = 16;
	cur.live_count = 3;
	heap__site_row(&r, &s, &cur, 7, false);
	assert_int_equal(r.alloc_count, 1);
	assert_int_equal(r.live_count, 0);
	assert_int_equal(r.freed_count, 0);

	heap__counters_delta(now, prev, d, 3);
	assert_int_equal(d[0], 4);
	assert_int_equal(d[2], 6);
	assert_int_equal(prev[1], 7);

	heap__snapshot_init(&hs, PTOP__V1__HEAP_LANE__HEAP_LANE_PRELOAD, "/lib/x.so", true, &census,
			    sites, 1);
	assert_int_equal(hs.lane_kind, PTOP__V1__HEAP_LANE__HEAP_LANE_PRELOAD);
	assert_string_equal(hs.lane, "preload"); /* the word older readers read */
	assert_string_equal(hs.module, "/lib/x.so");
	assert_int_equal(hs.sample_bytes, 4096);
	assert_int_equal(hs.leak_age_ns, 77);
	assert_true(hs.live_measured);
	assert_int_equal(hs.n_sites, 1);
	assert_ptr_equal(hs.sites, sites);
	assert_int_equal(hs.total_call_sites, 3);
	assert_int_equal(hs.omitted_alloc_count, 2);
	assert_int_equal(hs.omitted_alloc_bytes, 20);
	assert_int_equal(hs.omitted_live_bytes, 8);
	heap__snapshot_init(&hs, PTOP__V1__HEAP_LANE__HEAP_LANE_GO, "/bin/g", false, &census, sites,
			    0);
	assert_int_equal(hs.lane_kind, PTOP__V1__HEAP_LANE__HEAP_LANE_GO);
	assert_string_equal(hs.lane, "go");
	assert_false(hs.live_measured);
	assert_null(hs.sites);
	assert_int_equal(hs.omitted_live_bytes, 0); /* not measured */
}

/* ------------------------------------------------------------------ collector */

static struct collector col;

static void setup_col(pid_t pid)
{
	memset(&ctx, 0, sizeof(ctx));
	memset(&col, 0, sizeof(col));
	ctx.pid = pid;
	ctx.mode = PTOP__V1__TARGET_MODE__TARGET_MODE_PID;
	ctx.interval_ns = 1000000000ULL;
	heap_settings.sample_bytes = 0;
	heap_settings.top = 64;
	heap_settings.leak_age_ns = 1;	/* everything live before the poll's time is old */
	heap_settings.events = false;
	heap_settings.lane = HEAP_LANE_AUTO;
	col.ops = &heap_collector;
	col.ctx = &ctx;
}

static int teardown(void **state)
{
	(void)state;
	if (col.ops && col.ops->stop)
		col.ops->stop(&col);
	rec_double_reset();
	return 0;
}

static void test_06_no_ebpf(void **state)
{
	(void)state;
	setup_col(getpid());
	ctx.no_ebpf = true;
	assert_int_equal(col.ops->check(&col), PTOP__V1__PROBE_STATE__PROBE_STATE_UNSUPPORTED);
	assert_non_null(strstr(col.reason, "--no-ebpf"));
	assert_null(col.priv);
}

/* [*LO, *HI): where NAME lies in this executable (file offsets of the text), and the
 * run-time address of its start (ADDR) gives the load bias. */
static int function_range(const char *name, uint64_t addr, uint64_t *lo, uint64_t *hi)
{
	uint64_t off, size;
	int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC), err;

	(void)off;
	if (fd < 0)
		return -errno;
	err = uprobe_target__elf_func(fd, name, &off, &size);
	close(fd);
	if (err || !size)
		return err ? err : -ENOENT;
	*lo = addr;
	*hi = addr + size;
	return 0;
}

#define CHILD_BLOCKS 100
#define CHILD_SIZE 1000

void *child_kept[CHILD_BLOCKS + 8];

__attribute__((noinline)) void heap_test_alloc_site(void)
{
	int i;

	for (i = 0; i < CHILD_BLOCKS; i++)
		child_kept[i] = malloc(CHILD_SIZE);
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) void heap_test_other_kinds(void)
{
	void *p = NULL, *q, *volatile v;

	child_kept[CHILD_BLOCKS] = calloc(10, 100);			/* 1000 live */
	q = malloc(10);							/* grows by realloc */
	q = realloc(q, 100);
	q = realloc(q, 5000);
	child_kept[CHILD_BLOCKS + 1] = q;				/* 5000 live */
	if (posix_memalign(&p, 64, 640) == 0)
		child_kept[CHILD_BLOCKS + 2] = p;			/* 640 live */
	child_kept[CHILD_BLOCKS + 3] = aligned_alloc(256, 512);		/* 512 live */
	v = malloc(77);
	free(v);
	__asm__ volatile("" ::: "memory");
}

static bool can_trace(void)
{
	char why[160];

	if (bpf_util__can_trace(why, sizeof(why)) != 0) {
		printf("SKIP: %s\n", why);
		return false;
	}
	return true;
}

static void test_07_real_child(void **state)
{
	int go[2], done[2], status;
	uint64_t lo = 0, hi = 0, found_live = 0;
	Ptop__V1__HeapSnapshot *hs;
	Ptop__V1__Event *ev;
	char c = 'g';
	pid_t pid;
	int r, i;

	(void)state;
	if (!can_trace())
		skip();
	assert_int_equal(pipe(go), 0);
	assert_int_equal(pipe(done), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		if (read(go[0], &c, 1) != 1)
			_exit(1);
		heap_test_alloc_site();
		heap_test_other_kinds();
		if (write(done[1], &c, 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	setup_col(pid);
	/* frame-pointer walks: the site's Stack carries its ips (stack copies, unwound by
	 * the analyzer: e2e/heap/heap_attach_nofp) */
	ctx.user_stacks = USER_STACKS_FP;
	r = col.ops->check(&col);
	if (r != PTOP__V1__PROBE_STATE__PROBE_STATE_ACTIVE) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		fail_msg("check: %s", col.reason);
	}
	printf("# detail: %s\n", col.detail);
	/* libc's malloc, or the sanitizer's that replaces it in an ASan build */
	assert_true(strstr(col.detail, "/libc.so") || strstr(col.detail, "/libasan.so"));
	if (col.ops->start(&col) != 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		fail_msg("start: %s", col.reason);
	}
	assert_int_equal(write(go[1], &c, 1), 1);
	assert_int_equal(read(done[0], &c, 1), 1);
	r = col.ops->poll(&col, rec_now_ns(), POLL_FIRST);
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	assert_int_equal(r, 0);
	assert_int_equal(rec_double.n_events, 1);
	ev = rec_double_event(0, PTOP__V1__EVENT__PAYLOAD_HEAP);
	hs = ev->heap;
	printf("# allocs %llu (%llu B), frees %llu, live %llu B in %llu, leak %llu B, "
	       "sites %zu of %llu\n",
	       (unsigned long long)hs->alloc_count, (unsigned long long)hs->alloc_bytes,
	       (unsigned long long)hs->free_count, (unsigned long long)hs->live_bytes,
	       (unsigned long long)hs->live_count, (unsigned long long)hs->leak_bytes,
	       hs->n_sites, (unsigned long long)hs->total_call_sites);
	assert_string_equal(hs->lane, "uprobe");
	assert_true(hs->live_measured);
	/* 100 + calloc + 3 (malloc, 2 realloc) + posix_memalign + aligned_alloc + 1 */
	assert_int_equal(hs->alloc_count, CHILD_BLOCKS + 7);
	assert_int_equal(hs->alloc_bytes,
			 CHILD_BLOCKS * CHILD_SIZE + 1000 + 10 + 100 + 5000 + 640 + 512 + 77);
	/* the two realloc'd-away blocks and the 77 freed */
	assert_int_equal(hs->free_count, 3);
	assert_int_equal(hs->free_bytes, 10 + 100 + 77);
	assert_int_equal(hs->live_count, CHILD_BLOCKS + 4);
	assert_int_equal(hs->live_bytes, CHILD_BLOCKS * CHILD_SIZE + 1000 + 5000 + 640 + 512);
	assert_int_equal(hs->leak_bytes, hs->live_bytes);
	assert_int_equal(hs->live_untracked, 0);
	assert_int_equal(hs->stack_failures, 0);
	assert_int_equal(hs->total_call_sites, hs->n_sites);

	/* the site of the 100 blocks: its stack's frame 1 is inside heap_test_alloc_site */
	assert_int_equal(function_range("heap_test_alloc_site",
					 (uint64_t)(uintptr_t)&heap_test_alloc_site, &lo, &hi), 0);
	for (i = 0; i < (int)hs->n_sites; i++) {
		Ptop__V1__HeapSite *s = hs->sites[i];
		int k;

		if (s->live_bytes != CHILD_BLOCKS * CHILD_SIZE)
			continue;
		assert_int_equal(s->alloc_count, CHILD_BLOCKS);
		assert_int_equal(s->live_count, CHILD_BLOCKS);
		assert_true(s->oldest_live_ns > 0);
		for (k = 0; k < rec_double.n_records; k++) {
			Ptop__V1__Record *rec = rec_double_record(k);

			if (rec->kind_case == PTOP__V1__RECORD__KIND_STACK &&
			    rec->stack->id == s->stack_id) {
				assert_true(rec->stack->n_ips >= 2);
				printf("# frame 1 %#llx in [%#llx, %#llx)\n",
				       (unsigned long long)rec->stack->ips[1],
				       (unsigned long long)lo, (unsigned long long)hi);
				assert_true(rec->stack->ips[1] > lo && rec->stack->ips[1] <= hi);
				found_live = s->live_bytes;
			}
			ptop__v1__record__free_unpacked(rec, NULL);
		}
	}
	assert_int_equal(found_live, CHILD_BLOCKS * CHILD_SIZE);
	rec_double_free_event(ev);
}

/* ------------------------------------------------------------------ options */

static int parse(struct record_opts *o, char *err, size_t elen, ...)
{
	char *argv[16];
	int argc = 0, r;
	va_list ap;

	argv[argc++] = "ptop-record";
	va_start(ap, elen);
	while (argc < 12 && (argv[argc] = va_arg(ap, char *)) != NULL)
		argc++;
	va_end(ap);
	argv[argc++] = "--pid";
	argv[argc++] = "1";
	argv[argc] = NULL;
	r = record_opts__parse(o, argc, argv, collector_table, err, elen);
	return r;
}

static void test_08_options(void **state)
{
	struct record_opts o;
	char err[256];

	(void)state;
	assert_int_equal(parse(&o, err, sizeof(err), NULL), 0);
	assert_int_equal(heap_settings.sample_bytes, 512 * 1024);
	assert_int_equal(heap_settings.top, 64);
	assert_int_equal(heap_settings.leak_age_ns, 30000000000ULL);
	assert_false(heap_settings.events);
	record_opts__free(&o);

	assert_int_equal(parse(&o, err, sizeof(err), "--heap-sample-bytes", "0", "--heap-top",
			       "10", "--leak-age", "1.5s", "--heap-events", NULL), 0);
	assert_int_equal(heap_settings.sample_bytes, 0);
	assert_int_equal(heap_settings.top, 10);
	assert_int_equal(heap_settings.leak_age_ns, 1500000000ULL);
	assert_true(heap_settings.events);
	record_opts__free(&o);

	assert_int_equal(parse(&o, err, sizeof(err), "--heap-sample-bytes", "64K", NULL), 0);
	assert_int_equal(heap_settings.sample_bytes, 65536);
	record_opts__free(&o);
	assert_int_equal(parse(&o, err, sizeof(err), "--heap-sample-bytes", "2MiB", NULL), 0);
	assert_int_equal(heap_settings.sample_bytes, 2 << 20);
	record_opts__free(&o);

	assert_int_equal(parse(&o, err, sizeof(err), "--heap-sample-bytes", "-1", NULL), -EINVAL);
	assert_non_null(strstr(err, "--heap-sample-bytes"));
	record_opts__free(&o);
	assert_int_equal(parse(&o, err, sizeof(err), "--heap-sample-bytes", "12X", NULL), -EINVAL);
	record_opts__free(&o);
	assert_int_equal(parse(&o, err, sizeof(err), "--heap-sample-bytes", "99999999G", NULL),
			 -EINVAL);
	record_opts__free(&o);
	assert_int_equal(parse(&o, err, sizeof(err), "--heap-top", "0", NULL), -EINVAL);
	assert_non_null(strstr(err, "--heap-top"));
	record_opts__free(&o);
	assert_int_equal(parse(&o, err, sizeof(err), "--leak-age", "soon", NULL), -EINVAL);
	assert_non_null(strstr(err, "--leak-age"));
	record_opts__free(&o);
}

/* --heap-events: the uprobe lane's ring buffer is sized from --interval for
 * HP_EVENTS_RATE records a second (a power of two, 4 to 64 MiB), and the limit it runs
 * within is said in words (the probe's reason, printed at start). */
static void test_20_events_sizing(void **state)
{
	uint64_t n10, n250, n1000, n10000, b;
	char text[400];

	(void)state;
	b = heap_events_ring_bytes(10 * 1000000ull, &n10);
	assert_int_equal(b, HP_RINGBUF_BYTES);
	b = heap_events_ring_bytes(250 * 1000000ull, &n250);
	assert_true(b > HP_RINGBUF_BYTES && (b & (b - 1)) == 0);
	assert_true(n250 >= 250000); /* room for 1M a second over 250 ms */
	b = heap_events_ring_bytes(1000 * 1000000ull, &n1000);
	assert_int_equal(b, HP_RINGBUF_MAX_BYTES);
	b = heap_events_ring_bytes(10000 * 1000000ull, &n10000);
	assert_int_equal(b, HP_RINGBUF_MAX_BYTES); /* capped */
	assert_true(n10 < n250 && n250 < n1000 && n1000 == n10000);
	heap_events_limit_text(text, sizeof(text), "ring buffer", 500000, 250 * 1000000ull);
	assert_string_equal(text, "--heap-events: the ring buffer keeps 500000 records between "
				  "two polls (--interval 0.25 s): about 2000000 allocations and "
				  "frees a second; more are lost and counted (drop ringbuf)");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_02_exp_table),
		cmocka_unit_test(test_03_select_sites),
		cmocka_unit_test(test_04_site_ips),
		cmocka_unit_test(test_04b_stack_source),
		cmocka_unit_test(test_04c_rows_and_snapshot),
		cmocka_unit_test(test_04d_peak_sites),
		cmocka_unit_test_teardown(test_06_no_ebpf, teardown),
		cmocka_unit_test_teardown(test_07_real_child, teardown),
		cmocka_unit_test(test_20_events_sizing),
		cmocka_unit_test(test_08_options),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
