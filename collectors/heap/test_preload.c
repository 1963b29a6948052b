/* test_preload.c — the heap's preload lane: the shared ring (one thread, the wrap, a
 * record not yet committed, many producers against one consumer), the live table (alone
 * and shared by threads), the sampler (exact credits, the mean interval, big
 * allocations), the bounded frame-pointer walk on a forged stack, the stack hash, and on
 * the recorder side the command's environment, the library look-up, the executable's
 * kind and --heap-lane parsing; the unwinding from .eh_frame (preload/ptop_unwind.h):
 * every rule of this test's own .eh_frame against readelf --debug-dump=frames-interp,
 * and a walk through functions built without frame pointers.
 */
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <cmocka.h>

#include "preload/ptop_preload.h"
#include "preload/ptop_unwind.h"
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

/* An exec in the recorded process empties the live table without making its pages memory
 * (a memset made all 32 MiB resident, and the recorder's walk slow: issue 19). */
static void test_18_live_clear(void **state)
{
	struct pl_header hd = { 0 }, *h;
	struct pl_live *l;
	unsigned char vec[64];
	uint64_t size, pages, i;
	long pg = sysconf(_SC_PAGESIZE);
	int fd;

	(void)state;
	size = pl_layout(&hd, 4096, 64, 4096);
	fd = memfd_create(PL_MEMFD_NAME, MFD_ALLOW_SEALING);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, (off_t)size), 0);
	h = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	assert_true(h != MAP_FAILED);
	*h = hd;
	l = pl_live(h);
	for (i = 0; i < h->live_cap; i++)	/* every page of the table in use */
		l[i].addr = 0x10000 + 16 * i;
	pages = h->live_cap * sizeof(*l) / (uint64_t)pg;
	assert_true(pages > 1 && pages <= sizeof(vec));
	assert_int_equal(mincore(l, h->live_cap * sizeof(*l), vec), 0);
	assert_true(vec[0] & vec[pages - 1] & 1);
	pl_live_clear(h);
	assert_int_equal(mincore(l, h->live_cap * sizeof(*l), vec), 0);
	for (i = 0; i < pages; i++)
		assert_int_equal(vec[i] & 1, 0);
	/* empty: read through the descriptor (a read fault on a hole of the mapping would
	 * make it memory, which is why the recorder's walk asks mincore first) */
	for (i = 0; i < h->live_cap; i++) {
		struct pl_live e;

		assert_int_equal(pread(fd, &e, sizeof(e), (off_t)(h->live_off + i * sizeof(e))),
				 sizeof(e));
		assert_true(e.addr == PL_LIVE_EMPTY);
	}
	munmap(h, size);
	close(fd);
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

/* ------------------------------------------------------------------ unwinding */

extern void *__libc_stack_end;

/* The rule at PC from its module's .eh_frame_hdr, as the library looks it up (without
 * the cache), through the packing the cache stores. */
static uint64_t rule_at(uint64_t pc)
{
	struct dl_find_object fo;
	struct pl_rule r = { PL_RULE_FP, 0, 0, 0, 0 };

	if (_dl_find_object((void *)(uintptr_t)pc, &fo))
		return PL_RULE_NOCODE;
	if (fo.dlfo_eh_frame)
		r = pl_cfi_rule(pl_fde_find(fo.dlfo_eh_frame, fo.dlfo_map_start, fo.dlfo_map_end,
					    pc),
				fo.dlfo_map_start, fo.dlfo_map_end, pc, NULL, NULL);
	return pl_rule_pack(&r);
}

/* The start of the FDE holding PC, or 0. */
static uint64_t fde_start(uint64_t pc)
{
	struct dl_find_object fo;
	uint64_t start = 0, end = 0;

	if (_dl_find_object((void *)(uintptr_t)pc, &fo) || !fo.dlfo_eh_frame)
		return 0;
	pl_cfi_rule(pl_fde_find(fo.dlfo_eh_frame, fo.dlfo_map_start, fo.dlfo_map_end, pc),
		    fo.dlfo_map_start, fo.dlfo_map_end, pc, &start, &end);
	return pc >= start && pc < end ? start : 0;
}

/* readelf's cell for a register ("u", "c-16", "exp"...): the rule it means, as
 * ptop_unwind.h keeps it. 1 and *OFF: at CFA+OFF; 0: unchanged/undefined; -1: other. */
static int cell(const char *s, long *off)
{
	char *end;

	if (!strcmp(s, "u") || !strcmp(s, "s"))
		return 0;
	if (s[0] == 'c' && (s[1] == '-' || s[1] == '+')) {
		*off = strtol(s + 1, &end, 10);
		return *end ? -1 : 1;
	}
	return -1;
}

/* The rule at PC must be WANT (AUG: its CIE's augmentation, for the message). */
static void check_rule(uint64_t pc, const struct pl_rule *want, const char *aug)
{
	struct pl_rule got = pl_rule_unpack(rule_at(pc));

	if (got.kind != want->kind || got.cfa_rbp != want->cfa_rbp ||
	    got.cfa_off != want->cfa_off || got.ra_off != want->ra_off ||
	    got.rbp_off != want->rbp_off)
		fail_msg("at %#llx (FDE at %#llx, \"%s\"): readelf says kind %d cfa %s%+d ra %+d "
			 "rbp %+d; got kind %d cfa %s%+d ra %+d rbp %+d", (unsigned long long)pc,
			 (unsigned long long)fde_start(pc), aug, want->kind,
			 want->cfa_rbp ? "rbp" : "rsp", want->cfa_off, want->ra_off, want->rbp_off,
			 got.kind, got.cfa_rbp ? "rbp" : "rsp", got.cfa_off, got.ra_off,
			 got.rbp_off);
}

static void test_12_cfi_against_readelf(void **state)
{
	FILE *f;
	char line[1024], cols[16][16], aug[64] = "";
	int ncol = 0, rbp_col = -1, ra_col = -1, rows = 0, cfa_rows = 0, i;
	uint64_t base, loc, fde_hi = 0;
	struct pl_rule last = { 0 };
	int have = 0;
	struct dl_find_object fo;
	char *cie_augs[64][2];
	int ncie = 0;

	(void)state;
	assert_int_equal(_dl_find_object((void *)(uintptr_t)&test_12_cfi_against_readelf, &fo), 0);
	assert_non_null(fo.dlfo_eh_frame);
	base = fo.dlfo_link_map->l_addr;
	/* this process's executable (in the shell, /proc/self would be the shell's) */
	snprintf(line, sizeof(line), "readelf --debug-dump=frames-interp /proc/%d/exe 2>/dev/null",
		 (int)getpid());
	f = popen(line, "r");
	assert_non_null(f);
	memset(cie_augs, 0, sizeof(cie_augs));
	/* A row "LOC CFA REG..." holds from LOC to the next row (or the FDE's end): the
	 * rule is checked at its first and its last byte. */
	while (fgets(line, sizeof(line), f)) {
		char a[32], *tok, *save;
		unsigned long long lo, hi;
		int n = 0;

		if (strstr(line, " CIE \"")) {
			char *q = strchr(line, '"'), *e = q ? strchr(q + 1, '"') : NULL;

			if (ncie < 64 && e) {
				cie_augs[ncie][0] = strndup(line, 8);
				cie_augs[ncie][1] = strndup(q + 1, (size_t)(e - q - 1));
				ncie++;
			}
			if (have)
				check_rule(base + fde_hi - 1, &last, aug);
			have = 0;
			fde_hi = 0;
			continue;
		}
		if (strstr(line, " FDE cie=") &&
		    sscanf(strstr(line, "pc="), "pc=%llx..%llx", &lo, &hi) == 2) {
			const char *c = strstr(line, "cie=") + 4;

			if (have)
				check_rule(base + fde_hi - 1, &last, aug);
			have = 0;
			fde_hi = hi;
			aug[0] = 0;
			for (i = 0; i < ncie; i++)
				if (!strncmp(cie_augs[i][0], c, 8))
					snprintf(aug, sizeof(aug), "%s", cie_augs[i][1]);
			continue;
		}
		if (strstr(line, "LOC") && strstr(line, "CFA")) {
			ncol = rbp_col = ra_col = -1;
			ncol = 0;
			for (tok = strtok_r(line, " \n", &save); tok && ncol < 16;
			     tok = strtok_r(NULL, " \n", &save)) {
				if (!strcmp(tok, "rbp"))
					rbp_col = ncol;
				if (!strcmp(tok, "ra"))
					ra_col = ncol;
				snprintf(cols[ncol++], sizeof(cols[0]), "%s", tok);
			}
			continue;
		}
		if (!fde_hi || !ncol || sscanf(line, "%llx %31s", &lo, a) != 2 || strlen(line) < 20)
			continue;
		{
			char cellv[16][32];
			struct pl_rule want = { PL_RULE_FP, 0, 0, 0, 0 };
			long off = 0;

			for (tok = strtok_r(line, " \n", &save); tok && n < 16;
			     tok = strtok_r(NULL, " \n", &save))
				snprintf(cellv[n++], sizeof(cellv[0]), "%s", tok);
			if (n != ncol)
				continue;
			loc = lo;
			/* the rule expected, from the CFA (column 1), rbp and ra */
			if (ra_col >= 0 && !strcmp(cellv[ra_col], "u")) {
				want.kind = PL_RULE_END;
			} else if (strchr(aug, 'S')) {
				want.kind = PL_RULE_SIGNAL;
			} else if (!strchr(aug, 'S') && ra_col >= 0 &&
				   cell(cellv[ra_col], &off) == 1 &&
				   (!strncmp(cellv[1], "rsp+", 4) || !strncmp(cellv[1], "rbp+", 4))) {
				long roff = 0;
				int rk = rbp_col >= 0 ? cell(cellv[rbp_col], &roff) : 0;

				want.ra_off = (int32_t)off;
				want.cfa_rbp = cellv[1][1] == 'b';
				want.cfa_off = (int32_t)strtol(cellv[1] + 4, NULL, 10);
				if (rk >= 0) {
					want.kind = PL_RULE_CFA;
					want.rbp_off = rk ? (int32_t)roff : 0;
				}
			}
			if (have)	/* the previous row ends where this one starts */
				check_rule(base + loc - 1, &last, aug);
			check_rule(base + loc, &want, aug);
			last = want;
			have = 1;
			rows++;
			cfa_rows += want.kind == PL_RULE_CFA;
		}
	}
	if (have)
		check_rule(base + fde_hi - 1, &last, aug);
	pclose(f);
	for (i = 0; i < ncie; i++) {
		free(cie_augs[i][0]);
		free(cie_augs[i][1]);
	}
	if (!rows)
		skip();		/* readelf (binutils) is not installed */
	print_message("%d rows of readelf's table checked, %d of them CFA rules\n", rows,
		      cfa_rows);
	assert_true(cfa_rows > 100);
}

/* A chain built without frame pointers (rbp is the test's, untouched below it): the
 * walk from .eh_frame finds every frame, the frame-pointer walk skips them. */
static uint64_t uw_ips[32], fp_ips[32];
static size_t uw_n, fp_n;
static volatile unsigned long uw_sink;

/* Like an interposed malloc: built with frame pointers, it walks its caller's stack. */
__attribute__((noipa, optimize("no-omit-frame-pointer"))) static void uw_alloc(void)
{
	uintptr_t fp = (uintptr_t)__builtin_frame_address(0);
	uint64_t ret = (uint64_t)(uintptr_t)__builtin_return_address(0);

	uw_n = pl_unwind(uw_ips, 32, 0x7000, ret, fp + 16, *(uintptr_t *)fp, fp,
			 (uintptr_t)__libc_stack_end, rule_at);
	fp_n = pl_walk(fp_ips, 32, 0x7000, ret, *(uintptr_t *)fp, fp, (uintptr_t)__libc_stack_end);
}

#define NOFP __attribute__((noipa, optimize("omit-frame-pointer")))
NOFP static void uw_c(int n)
{
	volatile long pad[5];

	pad[0] = n;
	uw_alloc();
	uw_sink += (unsigned long)pad[0];
}

NOFP static void uw_b(int n)
{
	volatile long pad[9];

	pad[0] = n;
	uw_c((int)pad[0] + 1);
	uw_sink += (unsigned long)pad[0];
}

NOFP static void uw_a(int n)
{
	volatile int pad[3];

	pad[0] = n;
	uw_b(pad[0] + 1);
	uw_sink += (unsigned long)pad[0];
}

static void test_13_unwind_without_fp(void **state)
{
	(void)state;
	uw_a(1);
	uw_sink++;
	print_message("eh_frame walk: %zu frames; frame-pointer walk: %zu\n", uw_n, fp_n);
	assert_true(uw_n >= 6);
	assert_int_equal(uw_ips[0], 0x7000);
	assert_int_equal(fde_start(uw_ips[1] - 1), (uint64_t)(uintptr_t)&uw_c);
	assert_int_equal(fde_start(uw_ips[2] - 1), (uint64_t)(uintptr_t)&uw_b);
	assert_int_equal(fde_start(uw_ips[3] - 1), (uint64_t)(uintptr_t)&uw_a);
	assert_int_equal(fde_start(uw_ips[4] - 1),
			 (uint64_t)(uintptr_t)&test_13_unwind_without_fp);
	/* frames 0 and 1 are the same; then the rbp chain jumps over uw_b and uw_a */
	assert_true(fp_n >= 2);
	assert_int_equal(fp_ips[1], uw_ips[1]);
	assert_true(fp_n < 3 || fde_start(fp_ips[2] - 1) != (uint64_t)(uintptr_t)&uw_b);
	/* the packing the cache stores */
	{
		struct pl_rule r = { PL_RULE_CFA, 1, -(1 << 20), -8, -16 }, u;

		u = pl_rule_unpack(pl_rule_pack(&r));
		assert_memory_equal(&u, &r, sizeof(r));
		r.cfa_off = 1 << 24;	/* too far to pack: the frame-pointer step */
		assert_int_equal(pl_rule_pack(&r), PL_RULE_FP);
		assert_int_equal(pl_rule_unpack(0).kind, PL_RULE_NONE);
	}
}

/* ------------------------------------------------------------------ hostile input */

/* A page between two inaccessible pages: a read past either end faults the test. */
static uint8_t *guarded_page(void)
{
	long pg = sysconf(_SC_PAGESIZE);
	uint8_t *m = mmap(NULL, 3 * (size_t)pg, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	assert_true(m != MAP_FAILED);
	assert_int_equal(mprotect(m, (size_t)pg, PROT_NONE), 0);
	assert_int_equal(mprotect(m + 2 * pg, (size_t)pg, PROT_NONE), 0);
	return m + pg;
}

static void guarded_free(uint8_t *p)
{
	long pg = sysconf(_SC_PAGESIZE);

	munmap(p - pg, 3 * (size_t)pg);
}

static uint64_t xs_state = 0x2545f4914f6cdd1dull;

static uint64_t xs(void)
{
	xs_state ^= xs_state << 13;
	xs_state ^= xs_state >> 7;
	xs_state ^= xs_state << 17;
	return xs_state;
}

static void put32(uint8_t *at, int64_t v)
{
	int32_t w = (int32_t)v;

	memcpy(at, &w, 4);
}

/* A module's unwinding tables, forged at M (a page): .eh_frame_hdr at 0 (one FDE), a CIE
 * at 64 ("zR", CFA rsp+8, ra at cfa-8), an FDE at 128 for [PC0, PC0+16): after 1 byte
 * CFA rsp+16 and rbp at cfa-16, after 4 bytes CFA rbp+16. */
static void forge_tables(uint8_t *m, uint64_t pc0)
{
	static const uint8_t cie[] = { 24, 0, 0, 0, 0, 0, 0, 0, 1, 'z', 'R', 0, 1, 0x78, 16,
				       1, 0x1b, 0x0c, 7, 8, 0x90, 1, 0, 0, 0, 0, 0, 0 };
	static const uint8_t fde_ops[] = { 0, 0x41, 0x0e, 16, 0x86, 2, 0x43, 0x0d, 6, 0, 0, 0 };
	uint8_t *fde = m + 128;

	memset(m, 0, 4096);
	m[0] = 1;
	m[1] = 0x1b;	/* eh_frame_ptr: pcrel sdata4 */
	m[2] = 0x03;	/* fde_count: udata4 */
	m[3] = 0x3b;	/* table: datarel sdata4 */
	put32(m + 4, (m + 64) - (m + 4));
	put32(m + 8, 1);
	put32(m + 12, (int64_t)(pc0 - (uint64_t)(uintptr_t)m));
	put32(m + 16, 128);
	memcpy(m + 64, cie, sizeof(cie));
	put32(fde, 4 + 4 + 4 + sizeof(fde_ops));	/* length */
	put32(fde + 4, (fde + 4) - (m + 64));		/* back to the CIE */
	put32(fde + 8, (int64_t)(pc0 - (uint64_t)(uintptr_t)(fde + 8)));	/* pcrel */
	put32(fde + 12, 16);				/* range */
	memcpy(fde + 16, fde_ops, sizeof(fde_ops));	/* augmentation length 0, then ops */
}

static void test_14_cfi_hostile_tables(void **state)
{
	uint8_t *m = guarded_page(), good[256];
	uint64_t pc0 = (uint64_t)(uintptr_t)m + 0x100000, start, end;
	struct pl_rule r;
	int i, k, found = 0;

	(void)state;
	forge_tables(m, pc0);
	/* the forged tables, read right */
	r = pl_cfi_rule(pl_fde_find(m, m, m + 4096, pc0), m, m + 4096, pc0, &start, &end);
	assert_int_equal(r.kind, PL_RULE_CFA);
	assert_int_equal(r.cfa_rbp, 0);
	assert_int_equal(r.cfa_off, 8);
	assert_int_equal(r.ra_off, -8);
	assert_int_equal(r.rbp_off, 0);
	assert_int_equal(start, pc0);
	assert_int_equal(end, pc0 + 16);
	r = pl_cfi_rule(pl_fde_find(m, m, m + 4096, pc0 + 2), m, m + 4096, pc0 + 2, NULL, NULL);
	assert_int_equal(r.kind, PL_RULE_CFA);
	assert_int_equal(r.cfa_off, 16);
	assert_int_equal(r.rbp_off, -16);
	r = pl_cfi_rule(pl_fde_find(m, m, m + 4096, pc0 + 9), m, m + 4096, pc0 + 9, NULL, NULL);
	assert_int_equal(r.cfa_rbp, 1);
	assert_int_equal(r.cfa_off, 16);
	/* outside the FDE: no rule */
	assert_int_equal(pl_cfi_rule(pl_fde_find(m, m, m + 4096, pc0 + 16), m, m + 4096, pc0 + 16,
				     NULL, NULL).kind, PL_RULE_FP);
	assert_null(pl_fde_find(m, m, m + 4096, pc0 - 1));
	/* the module's mapping ends before the tables do: nothing is read past it */
	assert_null(pl_fde_find(m, m, m + 16, pc0));
	assert_int_equal(pl_cfi_rule(m + 128, m, m + 140, pc0, NULL, NULL).kind, PL_RULE_FP);
	assert_int_equal(pl_cfi_rule(m + 128, m + 100, m + 4096, pc0, NULL, NULL).kind, PL_RULE_FP);
	/* a fde_count that would run the table off the mapping */
	put32(m + 8, 0x7fffffff);
	assert_null(pl_fde_find(m, m, m + 4096, pc0));
	/* damaged tables, byte by byte at random, the last 8 bytes of the page included
	 * (the FDE moved there): every read stays in the page (the guard pages fault) */
	forge_tables(m, pc0);
	memcpy(good, m, sizeof(good));
	for (i = 0; i < 300000; i++) {
		uint64_t pc = pc0 + xs() % 24 - 4;
		const uint8_t *fde;

		memcpy(m, good, sizeof(good));
		for (k = 1 + (int)(xs() % 4); k > 0; k--)
			m[xs() % 160] = (uint8_t)xs();
		if (i % 16 == 0)	/* lengths and offsets that point anywhere */
			put32(m + 64 + (xs() % 3) * 64 + (xs() % 2) * 4, (int64_t)xs());
		if (i % 64 == 0)
			memcpy(m + 4096 - 8, m + 128, 8);
		fde = pl_fde_find(m, m, m + 4096, pc);
		if (fde)
			assert_true(fde >= m && fde + 8 <= m + 4096);
		r = pl_cfi_rule(fde, m, m + 4096, pc, NULL, NULL);
		found += r.kind == PL_RULE_CFA;
		if (i % 64 == 0)
			(void)pl_cfi_rule(m + 4096 - 8, m, m + 4096, pc, NULL, NULL);
	}
	print_message("300000 damaged tables: %d still gave a rule\n", found);
	assert_true(found > 0);
	guarded_free(m);
}

/* A rule at random: any kind, offsets anywhere near (aligned or not). */
static uint64_t random_rule(uint64_t pc)
{
	struct pl_rule r = { 0 };

	(void)pc;
	switch (xs() % 8) {
	case 0: return PL_RULE_FP;
	case 1: return PL_RULE_END;
	case 2: return PL_RULE_SIGNAL;
	case 3: return PL_RULE_NOCODE;
	default:
		r.kind = PL_RULE_CFA;
		r.cfa_rbp = (int)(xs() & 1);
		if (xs() & 1) {	/* the usual shapes */
			r.cfa_off = 8 * (int32_t)(1 + xs() % 16);
			r.ra_off = -8;
			r.rbp_off = xs() & 1 ? -16 : 0;
		} else {
			r.cfa_off = (int32_t)(xs() % 512) - 128;
			r.ra_off = (int32_t)(xs() % 64) - 48;
			r.rbp_off = (int32_t)(xs() % 64) - 48;
		}
		return pl_rule_pack(&r);
	}
}

static void test_15_unwind_hostile_stacks(void **state)
{
	uint8_t *m = guarded_page();
	uint64_t *w = (uint64_t *)m, ips[PL_MAX_DEPTH];
	uintptr_t lo = (uintptr_t)m, hi = lo + 4096;
	int i, j, deep = 0;

	(void)state;
	/* junk stacks: random words, pointers into the page (aligned or not), pointers out
	 * of it, addresses of code; the rules at random or the real ones */
	for (i = 0; i < 200000; i++) {
		uintptr_t rsp, rbp;
		size_t n;

		if (i % 256 == 0)
			for (j = 0; j < 512; j++) {
				switch (xs() % 5) {
				case 0: w[j] = xs() % 3 ? lo + (xs() % 512) * 8 : xs(); break;
				case 1: w[j] = lo + xs() % 4200 - 50; break;
				case 2: w[j] = lo + (j + 2 + xs() % 8) * 8; break;	/* up */
				case 3: w[j] = (uint64_t)(uintptr_t)&test_15_unwind_hostile_stacks + xs() % 4096; break;
				default: w[j] = 0;
				}
			}
		rsp = lo + xs() % 4200 - 50;
		rbp = xs() & 1 ? lo + xs() % 4200 - 50 : (uintptr_t)xs();
		n = pl_unwind(ips, PL_MAX_DEPTH, 0x7000,
			      (uint64_t)(uintptr_t)&test_15_unwind_hostile_stacks + xs() % 4096, rsp, rbp,
			      rsp < lo ? lo : rsp, hi, i & 1 ? random_rule : rule_at);
		assert_true(n >= 2 && n <= PL_MAX_DEPTH);
		deep += n > 4;
	}
	print_message("200000 junk stacks: %d walked past 4 frames\n", deep);
	/* a stack that is one loop (rbp points at itself): the stack pointer must go up */
	w[10] = (uint64_t)(uintptr_t)&w[10];
	w[11] = 0x401000;
	assert_int_equal(pl_unwind(ips, PL_MAX_DEPTH, 0x7000, 0x400100, (uintptr_t)&w[10],
				   (uintptr_t)&w[10], lo, hi, random_rule) <= PL_MAX_DEPTH, 1);
	guarded_free(m);
}

/* Through a signal frame: a handler on the thread's stack walks from itself, through
 * the kernel's frame (glibc's __restore_rt, an 'S' CIE) to the function raise()
 * interrupted, built without frame pointers. */
static void on_sig(int sig)
{
	(void)sig;
	uw_alloc();
}

NOFP static void sig_b(int n)
{
	volatile int pad[5];

	pad[0] = n;
	raise(pad[0]);
	uw_sink += (unsigned long)pad[0];
}

static void test_16_unwind_signal_frame(void **state)
{
	struct sigaction sa = { 0 }, old;
	size_t i;
	int at_sig_b = -1, at_test = -1, signal_rule = 0;

	(void)state;
	sa.sa_handler = on_sig;
	assert_int_equal(sigaction(SIGUSR1, &sa, &old), 0);
	sig_b(SIGUSR1);
	sigaction(SIGUSR1, &old, NULL);
	for (i = 1; i < uw_n; i++) {
		if (pl_rule_unpack(rule_at(uw_ips[i] - 1)).kind == PL_RULE_SIGNAL)
			signal_rule = 1;
		if (fde_start(uw_ips[i] - 1) == (uint64_t)(uintptr_t)&sig_b)
			at_sig_b = (int)i;
		if (fde_start(uw_ips[i] - 1) == (uint64_t)(uintptr_t)&test_16_unwind_signal_frame)
			at_test = (int)i;
	}
	print_message("through the signal frame: %zu frames, sig_b at %d, the test at %d\n", uw_n,
		      at_sig_b, at_test);
	assert_true(signal_rule);
	assert_true(at_sig_b > 2);
	assert_int_equal(at_test, at_sig_b + 1);
}

/* The peak marks: a new one when the live total passes the last by 1/64 of it, or by
 * anything PL_PEAK_MARK_NS after it; never at or below the mark. The header's peak fields
 * share no cache line with the ring's positions or the recorder's clock. */
static void test_17_peak_marks(void **state)
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
		cmocka_unit_test(test_12_cfi_against_readelf),
		cmocka_unit_test(test_13_unwind_without_fp),
		cmocka_unit_test(test_14_cfi_hostile_tables),
		cmocka_unit_test(test_15_unwind_hostile_stacks),
		cmocka_unit_test(test_16_unwind_signal_frame),
		cmocka_unit_test(test_17_peak_marks),
		cmocka_unit_test(test_18_live_clear),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
