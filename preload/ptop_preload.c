/* ptop_preload.c — libptop-preload.so, the heap's preload lane inside a command that
 * ptop-record launched (--heap-lane preload): it interposes malloc, calloc, realloc, free,
 * posix_memalign, aligned_alloc, memalign, valloc and pvalloc, calls the next definition
 * of each (dlsym(RTLD_NEXT); a small static arena serves dlsym's own allocations while
 * they are looked up), and tells the recorder through the shared memory of
 * preload/ptop_preload.h: exact totals in per-thread counter slots, every live
 * allocation in the live table, and the sampled allocations with their stacks (and the
 * frees of those) through the ring. It interposes dlclose too, to empty its cache of
 * unwinding rules when a module goes, and pthread_create, to find each thread's stack
 * when it starts (the bounds of the walk).
 *
 * Attaching (the constructor): PTOP_PRELOAD_FD names the memfd the recorder made before
 * the fork. The library maps it only when it is a memfd holding the right magic, the
 * recorder has switched the lane on, and the pid the recorder wrote is this process's.
 * Anywhere else it stays inert (every call goes straight to the real function) and takes
 * its variables out of the environment, putting back the command's own LD_PRELOAD, so
 * that what that process runs does not load it: the recorder follows only the launched
 * process. A fork child of the recorded process becomes inert the same way
 * (pthread_atfork), and closes the descriptor. The recorded process itself keeps both, so
 * that a program it execs in its place (a wrapper such as taskset or env ending in exec)
 * attaches again: the old program's live blocks are dropped then (PL_REC_EXEC).
 *
 * Cost on the hot path: a thread-local depth guard, the real call, a few counter adds
 * in the thread's own slot, the sampler's countdown, the recorder's clock (a word it
 * writes every millisecond), a compare-and-swap in the live table (another to
 * free), and an atomic add to the live total shared by all threads, compared with the
 * peak (the peak's store only when it grows; a ring record when it grows by a margin).
 * Temporaries: the thread's last allocation, compared at each allocation and free. A
 * sampled allocation adds the unwinding of its stack (the rules of .eh_frame, cached per
 * pc: preload/ptop_unwind.h) and one ring record. When the ring is full the producer
 * waits (sched_yield, then short sleeps) up to PL_WAIT_NS for the recorder to make room,
 * so that an exact recording (--heap-sample-bytes 0) stays exact; past that it drops the
 * record and counts it (ring_lost), so that a stopped recorder never hangs the command.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <linux/types.h>

#include "common/alloc_funcs.h"
#include "preload/ptop_preload.h"
#include "preload/ptop_unwind.h"

#define PL_EXPORT __attribute__((visibility("default")))
#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)

extern void *__libc_stack_end;

static void *(*real_malloc)(size_t);
static void *(*real_calloc)(size_t, size_t);
static void *(*real_realloc)(void *, size_t);
static void (*real_free)(void *);
static int (*real_posix_memalign)(void **, size_t, size_t);
static void *(*real_aligned_alloc)(size_t, size_t);
static void *(*real_memalign)(size_t, size_t);
static void *(*real_valloc)(size_t);
static void *(*real_pvalloc)(size_t);
static int (*real_pthread_create)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
static int (*real_dlclose)(void *);

static struct pl_header *shm;	/* the recorder's shared memory; NULL: inert */
static struct pl_live *live;
static uint64_t *seen;
static int active;		/* attached, in the recorded process */
static pthread_key_t slot_key;

struct pl_thread {
	int depth;		/* inside one of our functions: nested calls pass through */
	int shared;		/* counting in slot 0 (atomically) */
	int dead;		/* the thread's slot was given back: count in slot 0 */
	struct pl_counters *c;
	struct pl_sampler s;
	uintptr_t stack_lo;	/* this thread's stack: [stack_lo, stack_hi) */
	uintptr_t stack_hi;	/* 0: not known yet; 1: not known (no walk) */
	void *last;		/* this thread's last allocation (temporaries) */
};
static __thread struct pl_thread th __attribute__((tls_model("initial-exec")));

/* ------------------------------------------------------------------ bootstrap arena */

/* dlsym may allocate (calloc for its error state) while the real functions are looked
 * up: those calls are served here, and never freed. */
static char arena[64 << 10] __attribute__((aligned(16)));
static size_t arena_used;
static int resolving;

static void *arena_alloc(size_t n)
{
	size_t at = __atomic_fetch_add(&arena_used, (n + 31) & ~(size_t)15, __ATOMIC_RELAXED);

	if (at + 16 + n > sizeof(arena))
		return NULL;
	*(size_t *)(arena + at) = n;
	return arena + at + 16;
}

static int in_arena(const void *p)
{
	return (const char *)p >= arena && (const char *)p < arena + sizeof(arena);
}

static size_t arena_size(const void *p)
{
	return *(const size_t *)((const char *)p - 16);
}

/* Look up the real functions. 0, or -1 while a look-up is under way (the caller serves
 * from the arena). */
static int resolve(void)
{
	if (real_malloc)
		return 0;
	if (__atomic_exchange_n(&resolving, 1, __ATOMIC_ACQUIRE))
		return real_malloc ? 0 : -1;
	real_calloc = dlsym(RTLD_NEXT, "calloc");
	real_realloc = dlsym(RTLD_NEXT, "realloc");
	real_free = dlsym(RTLD_NEXT, "free");
	real_posix_memalign = dlsym(RTLD_NEXT, "posix_memalign");
	real_aligned_alloc = dlsym(RTLD_NEXT, "aligned_alloc");
	real_memalign = dlsym(RTLD_NEXT, "memalign");
	real_valloc = dlsym(RTLD_NEXT, "valloc");
	real_pvalloc = dlsym(RTLD_NEXT, "pvalloc");
	real_pthread_create = dlsym(RTLD_NEXT, "pthread_create");
	real_dlclose = dlsym(RTLD_NEXT, "dlclose");
	__atomic_store_n(&real_malloc, (void *(*)(size_t))dlsym(RTLD_NEXT, "malloc"),
			 __ATOMIC_RELEASE);
	return real_malloc ? 0 : -1;
}

/* ------------------------------------------------------------------ per thread */

static uint64_t now_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void slot_release(void *v)
{
	struct pl_slot *s = v;

	th.c = NULL;
	th.dead = 1;
	if (s)
		__atomic_store_n(&s->used, 0, __ATOMIC_RELEASE);
}

static struct pl_counters *counters(void)
{
	struct pl_slot *slots;
	uint32_t zero;
	long tid;
	int i;

	if (likely(th.c != NULL))
		return th.c;
	slots = pl_slots(shm);
	tid = syscall(SYS_gettid);
	th.s.rng = ((uint64_t)tid << 32 ^ now_ns(CLOCK_MONOTONIC)) | 1;
	th.shared = 1;
	th.c = &slots[0].c;
	if (th.dead)
		return th.c;
	for (i = 1; i < PL_SLOTS; i++) {
		zero = 0;
		if (__atomic_load_n(&slots[i].used, __ATOMIC_RELAXED) ||
		    !__atomic_compare_exchange_n(&slots[i].used, &zero, 1, false, __ATOMIC_ACQUIRE,
						 __ATOMIC_RELAXED))
			continue;
		slots[i].tid = (uint32_t)tid;
		th.shared = 0;
		th.c = &slots[i].c;
		pthread_setspecific(slot_key, &slots[i]);
		break;
	}
	return th.c;
}

/* Add V to the counter X of this thread's slot. */
static inline void cadd(uint64_t *x, uint64_t v)
{
	if (unlikely(th.shared))
		__atomic_fetch_add(x, v, __ATOMIC_RELAXED);
	else
		__atomic_store_n(x, __atomic_load_n(x, __ATOMIC_RELAXED) + v, __ATOMIC_RELAXED);
}

/* Find the main thread's stack, once, from inside an allocation: [stack_lo, stack_hi),
 * below __libc_stack_end (the stack pointer at _start) by at most its RLIMIT_STACK (1 GiB
 * when unlimited): the kernel places no mapping of its own choosing there. Another
 * thread's was found when it started (thread_start), before any code of its own ran:
 * pthread_getattr_np takes the thread's own lock, and from inside an allocation made
 * under that lock (pthread_getattr_np's own realloc) it would wait for ever. A thread
 * that did not start through our pthread_create (one started before the library
 * loaded, or by glibc itself): not known, stack_hi 1, and no walk past the caller. */
static void stack_find(void)
{
	struct rlimit rl;
	uintptr_t span = (uintptr_t)1 << 30;

	th.stack_hi = 1;
	th.stack_lo = 1;
	if (syscall(SYS_gettid) != getpid())
		return;
	if (!getrlimit(RLIMIT_STACK, &rl) && rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < span)
		span = (uintptr_t)rl.rlim_cur;
	if ((uintptr_t)__libc_stack_end > span) {
		th.stack_lo = (uintptr_t)__libc_stack_end - span;
		th.stack_hi = (uintptr_t)__libc_stack_end;
	}
}

/* A thread started by pthread_create (ours): its stack from pthread_getattr_np, before
 * its own code runs (no lock of it is held yet; the allocations pass through), then its
 * start routine. */
struct pl_start {
	void *(*fn)(void *);
	void *arg;
};

static void *thread_start(void *v)
{
	struct pl_start s = *(struct pl_start *)v;
	pthread_attr_t a;
	void *addr;
	size_t size;

	real_free(v);
	th.depth++;
	th.stack_hi = 1;
	th.stack_lo = 1;
	if (!pthread_getattr_np(pthread_self(), &a)) {
		if (!pthread_attr_getstack(&a, &addr, &size)) {
			th.stack_lo = (uintptr_t)addr;
			th.stack_hi = (uintptr_t)addr + size;
		}
		pthread_attr_destroy(&a);
	}
	th.depth--;
	return s.fn(s.arg);
}

/* ------------------------------------------------------------------ unwinding */

/* The frame rules of pcs already looked up (preload/ptop_unwind.h), shared by the
 * threads without a lock: an entry is two words, (pc ^ rule, rule), so that a reader
 * that sees the halves of two different writes finds that the pc does not match and
 * looks the rule up again. (A wrong rule could give wrong frames, never a read outside
 * the thread's stack: every stack read is bounded by it.) */
#define PL_RULE_CACHE 8192	/* entries, a power of two: 128 KiB */
static uint64_t rule_cache[PL_RULE_CACHE][2];

static uint64_t rule_lookup(uint64_t pc)
{
	struct dl_find_object fo;
	struct pl_rule r = { PL_RULE_FP, 0, 0, 0, 0 };
	uint64_t *e = rule_cache[(pc ^ (pc >> 13)) & (PL_RULE_CACHE - 1)];
	uint64_t k = __atomic_load_n(&e[0], __ATOMIC_RELAXED);
	uint64_t v = __atomic_load_n(&e[1], __ATOMIC_RELAXED);

	if (v && (k ^ v) == pc)
		return v;
	/* _dl_find_object: glibc's lock-free, async-signal-safe look-up of a pc's module.
	 * A pc in none is not cached (a module may be loaded there later). */
	if (_dl_find_object((void *)(uintptr_t)pc, &fo))
		return PL_RULE_NOCODE;
	if (fo.dlfo_eh_frame)
		r = pl_cfi_rule(pl_fde_find(fo.dlfo_eh_frame, fo.dlfo_map_start, fo.dlfo_map_end,
					    pc),
				fo.dlfo_map_start, fo.dlfo_map_end, pc, NULL, NULL);
	v = pl_rule_pack(&r);
	__atomic_store_n(&e[0], pc ^ v, __ATOMIC_RELAXED);
	__atomic_store_n(&e[1], v, __ATOMIC_RELAXED);
	return v;
}

/* Forget every cached rule: a module was unloaded, and another may come at its
 * addresses. A walk under way may still use a rule it read before: its reads stay
 * bounded by the stack all the same. */
static void rule_cache_clear(void)
{
	size_t i;

	for (i = 0; i < PL_RULE_CACHE; i++)
		__atomic_store_n(&rule_cache[i][1], 0, __ATOMIC_RELAXED);
}

/* ------------------------------------------------------------------ ring */

/* The ring's tail when a producer last gave up waiting: while it has not moved, the
 * recorder is not reading, and producers drop at once instead of waiting again. */
static uint64_t stalled_at = UINT64_MAX;

/* Reserve LEN bytes in the ring, waiting up to wait_ns for room. NULL: dropped. */
static void *reserve(struct pl_counters *c, uint32_t len)
{
	uint64_t start = 0, t, tail;
	void *r;
	int spins = 0;

	r = pl_ring_reserve(shm, len);
	if (likely(r != NULL))
		return r;
	tail = __atomic_load_n(&shm->tail, __ATOMIC_ACQUIRE);
	if (tail == __atomic_load_n(&stalled_at, __ATOMIC_RELAXED))
		goto drop;
	cadd(&c->ring_waits, 1);
	for (;;) {
		if (__atomic_load_n(&shm->state, __ATOMIC_RELAXED) != PL_ON) {
			/* the recorder stopped (or stopped reading): nothing more to tell */
			__atomic_store_n(&active, 0, __ATOMIC_RELAXED);
			break;
		}
		if (spins++ < 64) {
			sched_yield();
		} else {
			struct timespec ts = { 0, 50000 };

			nanosleep(&ts, NULL);
		}
		r = pl_ring_reserve(shm, len);
		if (r)
			return r;
		t = now_ns(CLOCK_MONOTONIC_COARSE);
		if (!start) {
			start = t;
		} else if (t - start > shm->wait_ns) {
			__atomic_store_n(&stalled_at, __atomic_load_n(&shm->tail, __ATOMIC_ACQUIRE),
					 __ATOMIC_RELAXED);
			break;
		}
	}
drop:
	cadd(&c->ring_lost, 1);
	return NULL;
}

/* Send the stack IPS[0..N) with hash H unless it was sent before. 0, or -1 (dropped). */
static int send_stack(struct pl_counters *c, uint64_t h, const uint64_t *ips, size_t n)
{
	struct pl_ev_stack *e;
	uint32_t len = (uint32_t)(sizeof(*e) + n * sizeof(uint64_t));

	if (pl_seen_has(seen, shm->seen_cap, h))
		return 0;
	e = reserve(c, len);
	if (!e)
		return -1;
	e->hash = h;
	e->n = (uint32_t)n;
	e->pad = 0;
	memcpy(e->ips, ips, n * sizeof(uint64_t));
	pl_ring_commit(e, len, PL_REC_STACK);
	pl_seen_add(seen, shm->seen_cap, h);
	return 0;
}

/* ------------------------------------------------------------------ the peak */

/* The live total became V (after an allocation at T, whose ring record, if any, is
 * committed): raise the peak when V passes it, and send a peak mark when V passes the
 * mark by enough (pl_peak_marks). Only a new peak costs more than a load and a compare. */
static void peak_check(struct pl_counters *c, uint64_t v, uint64_t t)
{
	uint64_t pk = __atomic_load_n(&shm->peak_bytes, __ATOMIC_RELAXED);
	struct pl_ev_peak *e;

	if (likely(v <= pk))
		return;
	while (v > pk) {
		if (__atomic_compare_exchange_n(&shm->peak_bytes, &pk, v, true, __ATOMIC_RELAXED,
						__ATOMIC_RELAXED)) {
			__atomic_store_n(&shm->peak_time_ns, t, __ATOMIC_RELAXED);
			break;
		}
	}
	if (!pl_peak_marks(v, __atomic_load_n(&shm->peak_mark, __ATOMIC_RELAXED),
			   __atomic_load_n(&shm->peak_mark_ns, __ATOMIC_RELAXED), t))
		return;
	__atomic_store_n(&shm->peak_mark, v, __ATOMIC_RELAXED);
	__atomic_store_n(&shm->peak_mark_ns, t, __ATOMIC_RELAXED);
	e = reserve(c, sizeof(*e));
	if (!e)
		return;
	e->bytes = v;
	e->time_ns = t;
	pl_ring_commit(e, sizeof(*e), PL_REC_PEAK);
}

/* ------------------------------------------------------------------ the hooks */

/* After a successful allocation of SIZE at P by FUNC (IP0: our function), called from
 * the interposed function whose frame is FP and return address RET. */
static void on_alloc(uint32_t func, void *p, size_t size, uint64_t ip0, void *fp, void *ret)
{
	struct pl_counters *c = counters();
	uint64_t cc, cb, t, sz = size, hash = 0;
	struct pl_ev_alloc *e = NULL;
	struct pl_live old;
	int64_t delta = 0;
	int r;

	th.last = p;
	cadd(&c->alloc_count, 1);
	cadd(&c->alloc_bytes, sz);
	if (pl_sample(&th.s, shm->exp_table, shm->sample_bytes, sz, &cc, &cb)) {
		uint64_t ips[PL_MAX_DEPTH];
		uintptr_t f = (uintptr_t)fp;
		size_t n;

		if (unlikely(!th.stack_hi))
			stack_find();
		/* FP is our frame (built with frame pointers): the saved rbp, then RET. The
		 * walk reads [FP, top of the stack) only when FP is on the thread's stack;
		 * on another (a signal handler's sigaltstack, a coroutine's, a vfork
		 * child's) where the mapped part ends is not known: the caller alone */
		if (likely(f >= th.stack_lo && f < th.stack_hi))
			n = pl_unwind(ips, PL_MAX_DEPTH, ip0, (uint64_t)(uintptr_t)ret, f + 16,
				      *(uintptr_t *)fp, f, th.stack_hi, rule_lookup);
		else {
			ips[0] = ip0;
			ips[1] = (uint64_t)(uintptr_t)ret;
			n = ret ? 2 : 1;
		}
		hash = pl_stack_hash(ips, n);
		/* both records or neither: a dropped one is counted in ring_lost */
		if (!send_stack(c, hash, ips, n))
			e = reserve(c, sizeof(*e));
	}
	t = e ? now_ns(CLOCK_MONOTONIC) : __atomic_load_n(&shm->now_ns, __ATOMIC_RELAXED);
	if (unlikely(!t))
		t = now_ns(CLOCK_MONOTONIC_COARSE);
	r = pl_live_insert(live, shm->live_cap, (uint64_t)(uintptr_t)p,
			   sz | (e ? PL_LIVE_SAMPLED : 0), t, &old);
	if (r == 1) {
		/* the address came back without a free we saw: the old block is gone */
		cadd(&c->live_count, (uint64_t)-1);
		cadd(&c->live_bytes, -(old.size & ~PL_LIVE_SAMPLED));
		delta -= (int64_t)(old.size & ~PL_LIVE_SAMPLED);
	}
	if (r < 0) {
		cadd(&c->live_untracked, 1);
	} else {
		cadd(&c->live_count, 1);
		cadd(&c->live_bytes, sz);
		delta += (int64_t)sz;
	}
	if (e) {
		e->addr = (uint64_t)(uintptr_t)p;
		e->size = sz;
		e->time_ns = t;
		e->stack = hash;
		e->credit_count = cc;
		e->credit_bytes = cb;
		e->func = func;
		e->untracked = r < 0;
		pl_ring_commit(e, sizeof(*e), PL_REC_ALLOC);
		cadd(&c->samples, 1);
	}
	if (delta) {
		int64_t v = __atomic_add_fetch(&shm->live_total, delta, __ATOMIC_RELAXED);

		if (v > 0)
			peak_check(c, (uint64_t)v, t);
	}
}

/* Before P (not NULL) goes back to the allocator (free, or realloc's old block).
 * *OUT gets the entry when P was tracked. Returns 0 when it was. */
static int on_free(uint32_t func, void *p, struct pl_live *out)
{
	struct pl_counters *c = counters();
	uint64_t size;
	uint32_t flags = 0;

	/* the thread's last heap call was P's allocation: a temporary allocation (heaptrack's
	 * rule: the free follows its allocation directly, no other allocation or free of the
	 * thread in between); any free ends the thread's last allocation's chance */
	if (p == th.last)
		flags = PL_FREE_TEMPORARY;
	th.last = NULL;
	if (pl_live_remove(live, shm->live_cap, (uint64_t)(uintptr_t)p, out)) {
		cadd(&c->free_untracked, 1);
		return -1;
	}
	size = out->size & ~PL_LIVE_SAMPLED;
	if (flags)
		cadd(&c->temp_count, 1);
	__atomic_sub_fetch(&shm->live_total, (int64_t)size, __ATOMIC_RELAXED);
	cadd(&c->free_count, 1);
	cadd(&c->free_bytes, size);
	cadd(&c->live_count, (uint64_t)-1);
	cadd(&c->live_bytes, -size);
	if (out->size & PL_LIVE_SAMPLED) {
		struct pl_ev_free *e = reserve(c, sizeof(*e));

		if (e) {
			e->addr = (uint64_t)(uintptr_t)p;
			e->time_ns = now_ns(CLOCK_MONOTONIC);
			e->func = func;
			e->flags = flags;
			pl_ring_commit(e, sizeof(*e), PL_REC_FREE);
		}
	}
	return 0;
}

/* Put back an entry taken by on_free (a realloc that failed keeps its block). */
static void undo_free(const struct pl_live *e)
{
	struct pl_counters *c = counters();
	struct pl_live old;
	uint64_t size = e->size & ~PL_LIVE_SAMPLED;

	/* a sampled block's free may have reached the recorder: keep it unsampled */
	if (pl_live_insert(live, shm->live_cap, e->addr, size, e->time_ns, &old) < 0) {
		cadd(&c->live_untracked, 1);
		return;
	}
	cadd(&c->free_count, (uint64_t)-1);
	cadd(&c->free_bytes, -size);
	cadd(&c->live_count, 1);
	cadd(&c->live_bytes, size);
	__atomic_add_fetch(&shm->live_total, (int64_t)size, __ATOMIC_RELAXED);
}

#define TRACKING() (likely(__atomic_load_n(&active, __ATOMIC_RELAXED)) && !th.depth)

/* The entry of each interposed function, for frame 0 of its stacks. */
#define IP0(f) ((uint64_t)(uintptr_t)&pl_##f)

PL_EXPORT void *malloc(size_t n);
PL_EXPORT void *calloc(size_t n, size_t m);
PL_EXPORT void *realloc(void *p, size_t n);
PL_EXPORT void free(void *p);
PL_EXPORT int posix_memalign(void **pp, size_t align, size_t n);
PL_EXPORT int dlclose(void *handle);
PL_EXPORT int pthread_create(pthread_t *t, const pthread_attr_t *attr, void *(*fn)(void *),
			     void *arg);
PL_EXPORT void *aligned_alloc(size_t align, size_t n);
PL_EXPORT void *memalign(size_t align, size_t n);
PL_EXPORT void *valloc(size_t n);
PL_EXPORT void *pvalloc(size_t n);

/* Hidden aliases: their addresses are ours even when the executable defines the name.
 * (The aliases need not repeat glibc's attributes of the names: they are never called.) */
#pragma GCC diagnostic ignored "-Wmissing-attributes"
extern __typeof(malloc) pl_malloc __attribute__((alias("malloc"), visibility("hidden")));
extern __typeof(calloc) pl_calloc __attribute__((alias("calloc"), visibility("hidden")));
extern __typeof(realloc) pl_realloc __attribute__((alias("realloc"), visibility("hidden")));
extern __typeof(posix_memalign) pl_posix_memalign
	__attribute__((alias("posix_memalign"), visibility("hidden")));
extern __typeof(aligned_alloc) pl_aligned_alloc
	__attribute__((alias("aligned_alloc"), visibility("hidden")));
extern __typeof(memalign) pl_memalign __attribute__((alias("memalign"), visibility("hidden")));
extern __typeof(valloc) pl_valloc __attribute__((alias("valloc"), visibility("hidden")));
extern __typeof(pvalloc) pl_pvalloc __attribute__((alias("pvalloc"), visibility("hidden")));

PL_EXPORT void *malloc(size_t n)
{
	void *p;

	if (unlikely(!real_malloc) && resolve())
		return arena_alloc(n);
	if (!TRACKING())
		return real_malloc(n);
	th.depth++;
	p = real_malloc(n);
	if (p)
		on_alloc(ALLOC_MALLOC, p, n, IP0(malloc), __builtin_frame_address(0),
			 __builtin_return_address(0));
	th.depth--;
	return p;
}

PL_EXPORT void *calloc(size_t n, size_t m)
{
	void *p;

	if (unlikely(!real_malloc) && resolve()) {
		p = n && m > SIZE_MAX / n ? NULL : arena_alloc(n * m);
		return p;	/* the arena is static: zeroed */
	}
	if (!TRACKING())
		return real_calloc(n, m);
	th.depth++;
	p = real_calloc(n, m);
	if (p)
		on_alloc(ALLOC_CALLOC, p, n * m, IP0(calloc), __builtin_frame_address(0),
			 __builtin_return_address(0));
	th.depth--;
	return p;
}

PL_EXPORT void free(void *p)
{
	struct pl_live e;

	if (!p || in_arena(p))
		return;
	if (unlikely(!real_malloc) && resolve())
		return;	/* cannot happen: only the arena exists before */
	if (TRACKING()) {
		th.depth++;
		on_free(ALLOC_FREE, p, &e);
		th.depth--;
	}
	real_free(p);
}

PL_EXPORT void *realloc(void *p, size_t n)
{
	struct pl_live e;
	void *r, *last;
	int had;

	if (unlikely(!real_malloc) && resolve())
		return arena_alloc(n);
	if (p && in_arena(p)) {
		size_t old = arena_size(p);

		r = malloc(n);
		if (r)
			memcpy(r, p, old < n ? old : n);
		return r;
	}
	if (!TRACKING())
		return real_realloc(p, n);
	th.depth++;
	/* take the old block out first: once realloc returns, another thread may get it */
	last = th.last;
	had = p ? !on_free(ALLOC_REALLOC, p, &e) : 0;
	r = real_realloc(p, n);
	if (r) {
		on_alloc(ALLOC_REALLOC, r, n, IP0(realloc), __builtin_frame_address(0),
			 __builtin_return_address(0));
	} else if (p && n && had) {
		undo_free(&e);	/* failed: the old block stays, not freed: not a temporary */
		if (p == last)
			cadd(&counters()->temp_count, (uint64_t)-1);
		th.last = last;
	}
	th.depth--;
	return r;
}

PL_EXPORT int posix_memalign(void **pp, size_t align, size_t n)
{
	int r;

	if (unlikely(!real_malloc) && resolve())
		return ENOMEM;
	if (!TRACKING())
		return real_posix_memalign(pp, align, n);
	th.depth++;
	r = real_posix_memalign(pp, align, n);
	if (!r && *pp)
		on_alloc(ALLOC_POSIX_MEMALIGN, *pp, n, IP0(posix_memalign),
			 __builtin_frame_address(0), __builtin_return_address(0));
	th.depth--;
	return r;
}

#define ALIGNED(name, FUNC, params, args, size)                                             \
	PL_EXPORT void *name params                                                          \
	{                                                                                     \
		void *p;                                                                      \
                                                                                              \
		if (unlikely(!real_malloc) && resolve())                                      \
			return NULL;                                                          \
		if (!TRACKING())                                                              \
			return real_##name args;                                              \
		th.depth++;                                                                   \
		p = real_##name args;                                                         \
		if (p)                                                                        \
			on_alloc(FUNC, p, size, IP0(name), __builtin_frame_address(0),        \
				 __builtin_return_address(0));                                \
		th.depth--;                                                                   \
		return p;                                                                     \
	}

ALIGNED(aligned_alloc, ALLOC_ALIGNED_ALLOC, (size_t align, size_t n), (align, n), n)
ALIGNED(memalign, ALLOC_MEMALIGN, (size_t align, size_t n), (align, n), n)
ALIGNED(valloc, ALLOC_VALLOC, (size_t n), (n), n)
ALIGNED(pvalloc, ALLOC_PVALLOC, (size_t n), (n), n)

/* dlclose: the real one, then the rule cache is emptied (the unloaded module's pcs may
 * belong to the next module loaded there). */
PL_EXPORT int dlclose(void *handle)
{
	int r;

	if ((unlikely(!real_malloc) && resolve()) || !real_dlclose)
		return -1;	/* cannot happen: the constructor looked it up */
	r = real_dlclose(handle);
	if (shm)	/* attached: the cache may hold rules */
		rule_cache_clear();
	return r;
}

/* pthread_create: the real one, starting the thread in thread_start (which finds its
 * stack) while the lane is on. */
PL_EXPORT int pthread_create(pthread_t *t, const pthread_attr_t *attr, void *(*fn)(void *),
			     void *arg)
{
	struct pl_start *s;
	int r;

	if ((unlikely(!real_malloc) && resolve()) || !real_pthread_create)
		return EAGAIN;	/* cannot happen: the constructor looked it up */
	if (!__atomic_load_n(&active, __ATOMIC_RELAXED) ||
	    !(s = real_malloc(sizeof(*s))))
		return real_pthread_create(t, attr, fn, arg);
	s->fn = fn;
	s->arg = arg;
	r = real_pthread_create(t, attr, thread_start, s);
	if (r)
		real_free(s);
	return r;
}

/* ------------------------------------------------------------------ attach */

/* Put the command's own LD_PRELOAD back and drop our variables, so that what this
 * process runs does not load the library. */
static void restore_env(void)
{
	const char *own = getenv(PL_ENV_LD_PRELOAD);

	if (own)
		setenv("LD_PRELOAD", own, 1);
	else
		unsetenv("LD_PRELOAD");
	unsetenv(PL_ENV_LD_PRELOAD);
	unsetenv(PL_ENV_FD);
}

static int shm_fd = -1;

/* A fork child is not recorded: inert, and what it execs does not load the library. */
static void after_fork_child(void)
{
	__atomic_store_n(&active, 0, __ATOMIC_RELAXED);
	restore_env();
	if (shm_fd >= 0)
		close(shm_fd);
	shm_fd = -1;
}

/* The recorded process exec'd and this is its new program: the old one's blocks are
 * gone. Empty the live table and the live counters, give the old threads' slots back,
 * and tell the recorder (its sampled blocks of the old program are gone too). */
static void after_exec(void)
{
	struct pl_slot *slots = pl_slots(shm);
	uint64_t *r;
	int i;

	pl_live_clear(shm);
	for (i = 0; i < PL_SLOTS; i++) {
		__atomic_store_n(&slots[i].c.live_count, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&slots[i].c.live_bytes, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&slots[i].used, 0, __ATOMIC_RELEASE);
	}
	/* the peak so far stays (it is the capture's); the new program starts from nothing */
	__atomic_store_n(&shm->live_total, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&shm->peak_mark, 0, __ATOMIC_RELAXED);
	r = pl_ring_reserve(shm, 16);
	if (r) {
		r[1] = (uint64_t)getpid();
		pl_ring_commit(r, 16, PL_REC_EXEC);
	} else {
		__atomic_fetch_add(&slots[0].c.ring_lost, 1, __ATOMIC_RELAXED);
	}
}

__attribute__((constructor(101))) static void pl_init(void)
{
	const char *v;
	struct pl_header hd;
	struct stat st;
	char *end;
	void *m;
	long fd;

	resolve();
	v = getenv(PL_ENV_FD);
	if (!v || !*v)
		return;
	fd = strtol(v, &end, 10);
	if (*end || fd < 0 || fd > 1 << 20) {
		restore_env();
		return;
	}
	/* only the recorder's memfd: sealable, big enough, the magic */
	if (fcntl((int)fd, F_GET_SEALS) < 0 || fstat((int)fd, &st) ||
	    (uint64_t)st.st_size < sizeof(hd) || pread((int)fd, &hd, sizeof(hd), 0) != sizeof(hd) ||
	    hd.magic != PL_MAGIC || hd.version != PL_VERSION || hd.size != (uint64_t)st.st_size) {
		restore_env();
		return;
	}
	/* ... in the process the recorder follows, with the lane on; anywhere else the
	 * library stays inert and what this process runs does not load it */
	if (hd.target_pid != getpid() || hd.state != PL_ON) {
		restore_env();
		close((int)fd);
		return;
	}
	m = mmap(NULL, hd.size, PROT_READ | PROT_WRITE, MAP_SHARED, (int)fd, 0);
	if (m == MAP_FAILED || pthread_key_create(&slot_key, slot_release) ||
	    pthread_atfork(NULL, NULL, after_fork_child)) {
		if (m != MAP_FAILED)
			munmap(m, hd.size);
		restore_env();
		close((int)fd);
		return;
	}
	/* the descriptor and the environment stay: a program this process execs (a
	 * wrapper's exec) attaches again */
	shm_fd = (int)fd;
	shm = m;
	live = pl_live(shm);
	seen = pl_seen(shm);
	if (__atomic_load_n(&shm->attached_pid, __ATOMIC_ACQUIRE) == getpid())
		after_exec();
	__atomic_store_n(&shm->attached_pid, (int32_t)getpid(), __ATOMIC_RELEASE);
	__atomic_store_n(&active, 1, __ATOMIC_RELEASE);
}
