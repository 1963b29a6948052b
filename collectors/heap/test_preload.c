/* test_preload.c — the heap's preload lane: the shared ring (one thread, the wrap, a
 * record not yet committed, many producers against one consumer), the live table (alone
 * and shared by threads), the sampler (exact credits, the mean interval, big
 * allocations), the bounded frame-pointer walk on a forged stack, the stack hash, and on
 * the recorder side the command's environment, the library look-up, the executable's
 * kind and --heap-lane parsing.
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "preload/ptop_preload.h"
#include "collectors/heap/record.h"
#include "collectors/heap/record_preload.h"
#include "record/record.h"

/* A header with a ring of SIZE bytes right after it (no other parts). */
static struct pl_header *ring_new(uint64_t size)
{
	struct pl_header *h;
	size_t off = (sizeof(*h) + 63) & ~(size_t)63;

	h = aligned_alloc(64, off + size);
	assert_non_null(h);
	memset(h, 0, off + size);
	h->ring_off = off;
	h->ring_size = size;
	return h;
}

static void put(struct pl_header *h, uint32_t len, uint64_t v)
{
	uint64_t *r = pl_ring_reserve(h, len);

	assert_non_null(r);
	r[1] = v;
	pl_ring_commit(r, len, PL_REC_FREE);
}

/* The next record that is not a pad: its value, or -1 when there is none. */
static int64_t take(struct pl_header *h)
{
	const uint64_t *r;
	uint64_t w, v;
	bool bad = false;

	for (;;) {
		r = pl_ring_peek(h, pl_ring(h), h->ring_size, &w, &bad);
		assert_false(bad);
		if (!r)
			return -1;
		if (pl_rec_type(w) == PL_REC_PAD) {	/* a pad may be 8 bytes: no payload */
			pl_ring_release(h, r, w);
			continue;
		}
		v = r[1];
		pl_ring_release(h, r, w);
		return (int64_t)v;
	}
}

static void test_01_ring_order_and_wrap(void **state)
{
	struct pl_header *h = ring_new(256);
	uint64_t i, got = 0;

	(void)state;
	assert_int_equal(take(h), -1);
	/* 24-byte records in a 256-byte ring: pads at the end, order kept */
	for (i = 0; i < 100; i++) {
		put(h, 24, i);
		if (i % 5 == 4)	/* up to 5 records outstanding (120 bytes, plus a pad) */
			while (got <= i)
				assert_int_equal(take(h), (int64_t)got++);
	}
	while (got < 100)
		assert_int_equal(take(h), (int64_t)got++);
	assert_int_equal(take(h), -1);
	assert_int_equal(h->head, h->tail);
	free(h);
}

static void test_02_ring_full_and_uncommitted(void **state)
{
	struct pl_header *h = ring_new(128);
	uint64_t *a, *b;
	int n = 0;

	(void)state;
	while (pl_ring_reserve(h, 32)) /* reserved, never committed */
		n++;
	assert_int_equal(n, 4);
	assert_int_equal(take(h), -1);	/* the first is not committed: nothing to read */
	free(h);

	h = ring_new(128);
	a = pl_ring_reserve(h, 32);
	b = pl_ring_reserve(h, 32);
	b[1] = 2;
	pl_ring_commit(b, 32, PL_REC_FREE);
	assert_int_equal(take(h), -1);	/* b waits behind a */
	a[1] = 1;
	pl_ring_commit(a, 32, PL_REC_FREE);
	assert_int_equal(take(h), 1);
	assert_int_equal(take(h), 2);
	assert_int_equal(take(h), -1);
	free(h);
}

static void test_03_ring_bad_length(void **state)
{
	struct pl_header *h = ring_new(128);
	uint64_t *r, w;
	bool bad = false;

	(void)state;
	r = pl_ring_reserve(h, 32);
	pl_ring_commit(r, 4000, PL_REC_ALLOC);	/* longer than the ring */
	assert_null(pl_ring_peek(h, pl_ring(h), h->ring_size, &w, &bad));
	assert_true(bad);
	free(h);
}

#define PRODUCERS 4
#define PER_PRODUCER 200000

struct prod {
	struct pl_header *h;
	uint64_t id;
};

static void *producer(void *arg)
{
	struct prod *p = arg;
	uint64_t i, *r;

	for (i = 0; i < PER_PRODUCER; i++) {
		uint32_t len = 16 + 8 * (uint32_t)(i % 5);

		while (!(r = pl_ring_reserve(p->h, len)))
			sched_yield();
		r[1] = p->id << 32 | i;
		pl_ring_commit(r, len, PL_REC_FREE);
	}
	return NULL;
}

static void test_04_ring_many_producers(void **state)
{
	struct pl_header *h = ring_new(4096);
	pthread_t t[PRODUCERS];
	struct prod pr[PRODUCERS];
	uint64_t next[PRODUCERS] = { 0 }, total = 0;
	int i;

	(void)state;
	for (i = 0; i < PRODUCERS; i++) {
		pr[i].h = h;
		pr[i].id = (uint64_t)i;
		assert_int_equal(pthread_create(&t[i], NULL, producer, &pr[i]), 0);
	}
	while (total < (uint64_t)PRODUCERS * PER_PRODUCER) {
		int64_t v = take(h);
		uint64_t id, seq;

		if (v < 0) {
			sched_yield();
			continue;
		}
		id = (uint64_t)v >> 32;
		seq = (uint64_t)v & 0xffffffffu;
		assert_true(id < PRODUCERS);
		assert_int_equal(seq, next[id]);	/* each producer's records in order */
		next[id]++;
		total++;
	}
	for (i = 0; i < PRODUCERS; i++) {
		pthread_join(t[i], NULL);
		assert_int_equal(next[i], PER_PRODUCER);
	}
	assert_int_equal(take(h), -1);
	free(h);
}

static void test_05_live_table(void **state)
{
	const uint64_t cap = 1024;
	struct pl_live *t = calloc(cap, sizeof(*t)), e, old;
	uint64_t i, n = 0;

	(void)state;
	assert_non_null(t);
	assert_int_equal(pl_live_insert(t, cap, 0x1000, 64, 5, &old), 0);
	assert_int_equal(pl_live_insert(t, cap, 0x2000, 32 | PL_LIVE_SAMPLED, 6, &old), 0);
	/* the same address again: its free was missed, the entry is replaced */
	assert_int_equal(pl_live_insert(t, cap, 0x1000, 128, 7, &old), 1);
	assert_int_equal(old.size, 64);
	assert_int_equal(pl_live_remove(t, cap, 0x1000, &e), 0);
	assert_int_equal(e.size, 128);
	assert_int_equal(e.time_ns, 7);
	assert_int_equal(pl_live_remove(t, cap, 0x1000, &e), -1);	/* a double free */
	assert_int_equal(pl_live_remove(t, cap, 0x3000, &e), -1);	/* never there */
	assert_int_equal(pl_live_remove(t, cap, 0x2000, &e), 0);
	assert_true(e.size & PL_LIVE_SAMPLED);
	/* addresses that share a home slot: at most PL_LIVE_PROBE of them fit */
	for (i = 0; i < PL_LIVE_PROBE + 5; i++) {
		uint64_t a = 0x100000 + i * 16 * cap * 1024;	/* same low bits, other regions */
		struct pl_live o;
		uint64_t home = pl_live_home(a, cap);

		if (home != pl_live_home(0x100000, cap))
			continue;
		n += pl_live_insert(t, cap, a, 1, 1, &o) == 0;
	}
	assert_true(n <= PL_LIVE_PROBE);
	/* a run of neighbours: every one found again, tombstones reused */
	memset(t, 0, cap * sizeof(*t));
	for (i = 0; i < 3 * cap; i++) {
		uint64_t a = 0x7f0000001000ull + (i % 500) * 48;

		if (i >= 500)
			assert_int_equal(pl_live_remove(t, cap, a, &e), 0);
		assert_int_equal(pl_live_insert(t, cap, a, i, i, &old), 0);
	}
	free(t);
}

#define LIVE_THREADS 4
#define LIVE_ADDRS 1000

struct live_arg {
	struct pl_live *t;
	uint64_t cap;
	uint64_t id;
	uint64_t failures;
};

/* Threads whose addresses are neighbours (slots next to each other's), each adding and
 * taking out its own blocks many times: every block it added, it finds again. */
static void *live_worker(void *arg)
{
	struct live_arg *a = arg;
	struct pl_live e, old;
	uint64_t r, i;

	for (r = 0; r < 200; r++) {
		for (i = 0; i < LIVE_ADDRS; i++) {
			uint64_t addr = 0x10000 + (i * LIVE_THREADS + a->id) * 16;

			a->failures += pl_live_insert(a->t, a->cap, addr, i + 1, r, &old) != 0;
		}
		for (i = 0; i < LIVE_ADDRS; i++) {
			uint64_t addr = 0x10000 + (i * LIVE_THREADS + a->id) * 16;

			if (pl_live_remove(a->t, a->cap, addr, &e) || e.size != i + 1)
				a->failures++;
		}
	}
	return NULL;
}

static void test_05b_live_table_threads(void **state)
{
	const uint64_t cap = 1u << 14;
	struct pl_live *t = calloc(cap, sizeof(*t));
	pthread_t th[LIVE_THREADS];
	struct live_arg a[LIVE_THREADS];
	uint64_t i;

	(void)state;
	assert_non_null(t);
	for (i = 0; i < LIVE_THREADS; i++) {
		a[i] = (struct live_arg){ .t = t, .cap = cap, .id = i };
		assert_int_equal(pthread_create(&th[i], NULL, live_worker, &a[i]), 0);
	}
	for (i = 0; i < LIVE_THREADS; i++) {
		pthread_join(th[i], NULL);
		assert_int_equal(a[i].failures, 0);
	}
	for (i = 0; i < cap; i++)
		assert_true(t[i].addr == PL_LIVE_EMPTY || t[i].addr == PL_LIVE_TOMB);
	free(t);
}

static void test_06_sampler(void **state)
{
	uint32_t table[PL_EXP_TABLE];
	struct pl_sampler s = { 0 };
	uint64_t cc, cb, sum_c = 0, sum_b = 0, samples = 0, i, n = 2000000, size;

	(void)state;
	heap__exp_table(table, PL_EXP_TABLE);
	/* every allocation, credited with itself */
	for (i = 1; i <= 1000; i++) {
		assert_true(pl_sample(&s, table, 0, i, &cc, &cb));
		assert_int_equal(cc, 1);
		assert_int_equal(cb, i);
	}
	/* sampled: the credits add up to every allocation exactly; one sample per mean */
	memset(&s, 0, sizeof(s));
	s.rng = 12345;
	for (i = 0; i < n; i++) {
		size = 16 + (i * 7919) % 4000;
		if (pl_sample(&s, table, 65536, size, &cc, &cb)) {
			sum_c += cc;
			sum_b += cb;
			samples++;
		}
	}
	sum_c += s.acc_count;
	sum_b += s.acc_bytes;
	assert_int_equal(sum_c, n);
	{
		uint64_t bytes = 0;

		for (i = 0; i < n; i++)
			bytes += 16 + (i * 7919) % 4000;
		assert_int_equal(sum_b, bytes);
		/* the mean interval: bytes / samples within 5% of 64 KiB */
		assert_true(bytes / samples > 65536 * 95 / 100);
		assert_true(bytes / samples < 65536 * 105 / 100);
	}
	/* big allocations always, credited with themselves, not touching the countdown */
	assert_true(pl_sample(&s, table, 1 << 30, PL_BIG_ALLOC, &cc, &cb));
	assert_int_equal(cc, 1);
	assert_int_equal(cb, PL_BIG_ALLOC);
}

static void test_07_walk(void **state)
{
	/* a forged stack: frames at words 4, 10, 20 (saved fp, return address) */
	uint64_t st[32] = { 0 }, ips[8];
	uintptr_t lo = (uintptr_t)st, hi = (uintptr_t)(st + 32);
	size_t n;

	(void)state;
	st[4] = (uint64_t)(uintptr_t)&st[10];
	st[5] = 0x401111;
	st[10] = (uint64_t)(uintptr_t)&st[20];
	st[11] = 0x402222;
	st[20] = 0;		/* the outermost frame: no caller */
	st[21] = 0x403333;
	n = pl_walk(ips, 8, 0x7000, 0x400100, (uintptr_t)&st[4], lo, hi);
	assert_int_equal(n, 5);
	assert_int_equal(ips[0], 0x7000);	/* the interposed function */
	assert_int_equal(ips[1], 0x400100);	/* the caller, frame 1 */
	assert_int_equal(ips[2], 0x401111);
	assert_int_equal(ips[3], 0x402222);
	assert_int_equal(ips[4], 0x403333);
	/* MAX bounds it */
	assert_int_equal(pl_walk(ips, 3, 0x7000, 0x400100, (uintptr_t)&st[4], lo, hi), 3);
	/* a frame pointer outside the stack is never read */
	n = pl_walk(ips, 8, 0x7000, 0x400100, (uintptr_t)0x10, lo, hi);
	assert_int_equal(n, 2);
	/* a chain that goes down (a caller without frame pointers) ends the walk */
	st[10] = (uint64_t)(uintptr_t)&st[2];
	n = pl_walk(ips, 8, 0x7000, 0x400100, (uintptr_t)&st[4], lo, hi);
	assert_int_equal(n, 4);
	/* misaligned */
	n = pl_walk(ips, 8, 0x7000, 0x400100, (uintptr_t)&st[4] + 3, lo, hi);
	assert_int_equal(n, 2);
	/* a frame at the very top (its return address would be above HI) */
	n = pl_walk(ips, 8, 0x7000, 0x400100, (uintptr_t)&st[31], lo, hi);
	assert_int_equal(n, 2);
	/* no caller: only the function */
	assert_int_equal(pl_walk(ips, 8, 0x7000, 0, (uintptr_t)&st[4], lo, hi), 1);
}

static void test_08_stack_hash_and_seen(void **state)
{
	uint64_t a[3] = { 1, 2, 3 }, b[3] = { 1, 2, 4 }, seen[64] = { 0 };
	uint64_t ha = pl_stack_hash(a, 3), hb = pl_stack_hash(b, 3);

	(void)state;
	assert_true(ha != 0 && hb != 0);
	assert_true(ha != hb);
	assert_true(ha == pl_stack_hash(a, 3));
	assert_true(ha != pl_stack_hash(a, 2));
	assert_false(pl_seen_has(seen, 64, ha));
	pl_seen_add(seen, 64, ha);
	assert_true(pl_seen_has(seen, 64, ha));
	assert_false(pl_seen_has(seen, 64, hb));
}

static const char *env_get(char **env, const char *name)
{
	size_t l = strlen(name);

	for (; *env; env++)
		if (!strncmp(*env, name, l) && (*env)[l] == '=')
			return *env + l + 1;
	return NULL;
}

static void test_09_env(void **state)
{
	char *in1[] = { "PATH=/bin", "LD_PRELOAD=/x/libmine.so", PL_ENV_FD "=99", "HOME=/root",
			NULL };
	char *in2[] = { "PATH=/bin", NULL };
	char **e;

	(void)state;
	e = heap_preload__env(in1, "/lib/ptop/libptop-preload.so", 7);
	assert_non_null(e);
	assert_string_equal(env_get(e, "LD_PRELOAD"), "/lib/ptop/libptop-preload.so:/x/libmine.so");
	assert_string_equal(env_get(e, PL_ENV_FD), "7");
	assert_string_equal(env_get(e, PL_ENV_LD_PRELOAD), "/x/libmine.so");
	assert_string_equal(env_get(e, "PATH"), "/bin");
	assert_string_equal(env_get(e, "HOME"), "/root");
	{
		size_t n = 0, i;

		for (i = 0; e[i]; i++)
			n += !strncmp(e[i], "LD_PRELOAD=", 11);
		assert_int_equal(n, 1);
	}
	free(e);
	e = heap_preload__env(in2, "/l.so", 3);
	assert_non_null(e);
	assert_string_equal(env_get(e, "LD_PRELOAD"), "/l.so");
	assert_null(env_get(e, PL_ENV_LD_PRELOAD));
	free(e);
}

/* A script is judged by its interpreter, through the levels the kernel follows: the
 * pyenv shim `python3` (a bash script) is dynamic, not "not an ELF file". */
static void exe_kind_scripts(void)
{
	char dir[] = "/tmp/ptop-test-script-XXXXXX", p[6][64], why[200];
	int i;

	assert_non_null(mkdtemp(dir));
	for (i = 0; i < 6; i++) {
		FILE *f;

		snprintf(p[i], sizeof(p[i]), "%s/s%d", dir, i);
		f = fopen(p[i], "w");
		assert_non_null(f);
		/* s0 runs /bin/sh; each s(i) runs s(i-1) */
		fprintf(f, "#!%s%s\necho\n", i ? p[i - 1] : " /bin/sh", i ? " -x" : "");
		fclose(f);
	}
	assert_int_equal(heap_preload__exe_kind(p[0], why, sizeof(why)), 0);
	assert_non_null(strstr(why, "runs /bin/sh: /bin/sh is dynamic"));
	assert_int_equal(heap_preload__exe_kind(p[3], why, sizeof(why)), 0); /* 4 levels */
	assert_non_null(strstr(why, "runs /bin/sh"));
	assert_int_equal(heap_preload__exe_kind(p[4], why, sizeof(why)), -ELOOP); /* 5 */
	assert_non_null(strstr(why, "more than 4 levels"));
	/* an interpreter that is not there, or none named */
	for (i = 0; i < 2; i++) {
		FILE *f = fopen(p[5], "w");

		assert_non_null(f);
		fputs(i ? "#!   \n" : "#!/nonexistent/interp\n", f);
		fclose(f);
		assert_true(heap_preload__exe_kind(p[5], why, sizeof(why)) ==
			    (i ? -EINVAL : -ENOENT));
	}
	for (i = 0; i < 6; i++)
		unlink(p[i]);
	rmdir(dir);
}

static void test_10_lane_lib_exe(void **state)
{
	char buf[4096], why[256], path[] = "/tmp/ptop-test-preload-XXXXXX";
	uint32_t lane = 9;
	int fd;

	(void)state;
	assert_int_equal(heap_lane__parse("preload", &lane), 0);
	assert_int_equal(lane, HEAP_LANE_PRELOAD);
	assert_int_equal(heap_lane__parse("uprobe", &lane), 0);
	assert_int_equal(lane, HEAP_LANE_UPROBE);
	assert_int_equal(heap_lane__parse("auto", &lane), 0);
	assert_int_equal(lane, HEAP_LANE_AUTO);
	assert_int_equal(heap_lane__parse("ld", &lane), -EINVAL);
	assert_string_equal(heap_lane__name(HEAP_LANE_PRELOAD), "preload");

	fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	setenv(HEAP_PRELOAD_LIB_ENV, path, 1);
	assert_int_equal(heap_preload__find_lib(NULL, buf, sizeof(buf), why, sizeof(why)), 0);
	assert_string_equal(buf, path);
	unlink(path);
	assert_int_equal(heap_preload__find_lib(NULL, buf, sizeof(buf), why, sizeof(why)),
			 -ENOENT);
	assert_non_null(strstr(why, HEAP_PRELOAD_LIB_ENV));
	unsetenv(HEAP_PRELOAD_LIB_ENV);

	assert_int_equal(heap_preload__exe_kind("/bin/true", why, sizeof(why)), 0);
	assert_int_equal(heap_preload__exe_kind("/etc/hostname", why, sizeof(why)), -EINVAL);
	assert_true(heap_preload__exe_kind("/nonexistent/x", why, sizeof(why)) == -ENOENT);
	exe_kind_scripts();
}

static void test_11_options(void **state)
{
	struct record_opts o;
	char err[512];
	char *a1[] = { "ptop-record", "--enable", "heap", "--heap-lane", "preload", "--pid", "1",
		       NULL };
	char *a2[] = { "ptop-record", "--enable", "heap", "--heap-lane", "preload", "--", "true",
		       NULL };
	char *a3[] = { "ptop-record", "--heap-lane", "ebpf", "--", "true", NULL };
	char *a4[] = { "ptop-record", "--", "true", NULL };
	char *a5[] = { "ptop-record", "--heap-lane", "preload", "--", "true", NULL };

	(void)state;
	assert_int_equal(record_opts__parse(&o, 7, a1, collector_table, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "--heap-lane preload needs a command"));
	record_opts__free(&o);
	assert_int_equal(record_opts__parse(&o, 5, a5, collector_table, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "add --enable heap"));
	record_opts__free(&o);
	assert_int_equal(record_opts__parse(&o, 7, a2, collector_table, err, sizeof(err)), 0);
	assert_int_equal(heap_settings.lane, HEAP_LANE_PRELOAD);
	record_opts__free(&o);
	assert_int_equal(record_opts__parse(&o, 5, a3, collector_table, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "auto, uprobe or preload"));
	record_opts__free(&o);
	assert_int_equal(record_opts__parse(&o, 3, a4, collector_table, err, sizeof(err)), 0);
	assert_int_equal(heap_settings.lane, HEAP_LANE_AUTO);
	record_opts__free(&o);
}

/* The peak marks: a new one when the live total passes the last by 1/64 of it, or by
 * anything PL_PEAK_MARK_NS after it; never at or below the mark. The header's peak fields
 * share no cache line with the ring's positions or the recorder's clock. */
static void test_12_peak_marks(void **state)
{
	const uint64_t ms = 1000000;

	(void)state;
	assert_true(pl_peak_marks(1, 0, 0, 0));			/* the first */
	assert_false(pl_peak_marks(6400, 6400, 0, 100 * ms));	/* not above */
	assert_false(pl_peak_marks(6499, 6400, 0, ms));		/* +99 < 6400/64 */
	assert_true(pl_peak_marks(6500, 6400, 0, ms));		/* +100 */
	assert_true(pl_peak_marks(6401, 6400, 0, 10 * ms));	/* any growth, 10 ms on */
	assert_false(pl_peak_marks(6401, 6400, ms, 10 * ms));
	assert_int_equal(offsetof(struct pl_header, live_total) % 64, 0);
	assert_int_equal(offsetof(struct pl_header, peak_bytes) % 64, 0);
	assert_true(offsetof(struct pl_header, live_total) >= offsetof(struct pl_header, now_ns) + 64);
	assert_true(offsetof(struct pl_header, peak_bytes) >= offsetof(struct pl_header, live_total) + 64);
	/* the temporaries' counter took a pad word: the slot keeps its size */
	assert_int_equal(sizeof(struct pl_counters), 16 * sizeof(uint64_t));
	assert_int_equal(sizeof(struct pl_ev_free), 32);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_01_ring_order_and_wrap),
		cmocka_unit_test(test_02_ring_full_and_uncommitted),
		cmocka_unit_test(test_03_ring_bad_length),
		cmocka_unit_test(test_04_ring_many_producers),
		cmocka_unit_test(test_05_live_table),
		cmocka_unit_test(test_05b_live_table_threads),
		cmocka_unit_test(test_06_sampler),
		cmocka_unit_test(test_07_walk),
		cmocka_unit_test(test_08_stack_hash_and_seen),
		cmocka_unit_test(test_09_env),
		cmocka_unit_test(test_10_lane_lib_exe),
		cmocka_unit_test(test_11_options),
		cmocka_unit_test(test_12_peak_marks),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
