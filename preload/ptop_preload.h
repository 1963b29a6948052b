/* ptop_preload.h — what the heap's preload lane shares between the library in the launched
 * command (preload/ptop_preload.c, libptop-preload.so) and the recorder
 * (collectors/heap/record_preload.c): the layout of the shared memory the recorder creates before the
 * command execs, and the lock-free pieces both sides use on it — the event ring, the live
 * table, the sampler, the frame-pointer walk — as inline functions, so that
 * collectors/heap/test_preload.c checks them without a target.
 *
 * The shared memory (a memfd, one mapping): a header (settings written by the recorder,
 * the ring's positions), PL_SLOTS per-thread counter slots, the live table, the set of
 * stack hashes already sent, and the ring's data.
 *
 *   counters  exact totals: each thread adds to its own slot (slot 0 is shared, atomic,
 *             for threads beyond the slots); the recorder sums the slots at each poll.
 *   live      every live allocation (address, size, time): open addressing, linear probe
 *             of at most PL_LIVE_PROBE slots, claimed with a compare-and-swap, freed to a
 *             tombstone. The recorder walks it for the leak figures.
 *   ring      many producers, one consumer: a producer reserves bytes by moving `head`
 *             with a compare-and-swap, writes its record, and publishes it by storing the
 *             record's header word last (PL_REC_COMMIT); the consumer reads records in
 *             order at `tail`, stops at one not yet committed, clears each header word
 *             before it gives the bytes back by moving `tail`. A record never wraps: the
 *             bytes left before the end become a PL_REC_PAD record.
 *
 * Only sampled allocations (and the frees of sampled allocations) go through the ring,
 * with the stack hash of the sample; a stack's ips go once (PL_REC_STACK) per stack the
 * library has not sent before.
 */
#ifndef PTOP_PRELOAD_H
#define PTOP_PRELOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#include "common/hash.h"
#include "common/probe_mapping.h"

#define PL_MAGIC 0x31306c70706f7470ull		/* "ptoppl01" */
#define PL_VERSION 2
/* The launched command's environment: the memfd's descriptor number. */
#define PL_ENV_FD "PTOP_PRELOAD_FD"
/* The command's own LD_PRELOAD, which the library puts back (absent: it had none). */
#define PL_ENV_LD_PRELOAD "PTOP_PRELOAD_LD_PRELOAD"
#define PL_MEMFD_NAME PTOP_PROBE_MEMFD

#define PL_MAX_DEPTH 127		/* ips per stack, like the uprobe lane */
#define PL_SLOTS 256			/* per-thread counter slots; slot 0 is shared */
#define PL_EXP_TABLE 1024		/* the sampler's exponential quantiles */
#define PL_BIG_ALLOC (32u << 10)	/* allocations this big always take a stack */
#define PL_LIVE_CAP (1u << 21)		/* live table entries (2x the uprobe lane's bound) */
#define PL_LIVE_PROBE 64		/* slots a live-table operation looks at, at most */
#define PL_SEEN_CAP (1u << 16)		/* stack hashes the library remembers as sent */
#define PL_RING_BYTES (16u << 20)	/* the ring's data */
#define PL_WAIT_NS (500ull * 1000000ull)	/* a producer waits this long for room */

enum pl_state {
	PL_PENDING = 0,		/* created; the recorder has not decided */
	PL_ON = 1,		/* the lane runs: the library attaches in target_pid */
	PL_OFF = 2,		/* not used (a fallback lane), or the recorder stopped */
};

/* One thread's cumulative counters (slot 0: every thread beyond the slots, atomically).
 * live_* are signed in effect: a thread that frees what another allocated goes below 0;
 * the sum over the slots is right. */
struct pl_counters {
	uint64_t alloc_count;	/* every successful allocation */
	uint64_t alloc_bytes;
	uint64_t free_count;	/* frees of tracked allocations */
	uint64_t free_bytes;
	uint64_t live_count;	/* tracked live allocations */
	uint64_t live_bytes;
	uint64_t free_untracked;	/* frees of pointers not in the live table */
	uint64_t live_untracked;	/* allocations not tracked: the live table had no slot */
	uint64_t samples;	/* allocations that took a stack */
	uint64_t ring_lost;	/* records dropped: no room in the ring after PL_WAIT_NS */
	uint64_t ring_waits;	/* times a producer waited for room */
	uint64_t temp_count;	/* temporary allocations: freed by the next allocation or
				 * free call of the thread that made them (heaptrack's rule) */
	uint64_t pad[4];
};

struct pl_slot {
	uint32_t used;		/* a thread owns it (0 for slot 0, shared) */
	uint32_t tid;
	uint64_t pad[7];
	struct pl_counters c;
};

struct pl_live {
	uint64_t addr;		/* PL_LIVE_EMPTY, PL_LIVE_TOMB, PL_LIVE_BUSY or the address */
	uint64_t size;		/* PL_LIVE_SAMPLED: the allocation went to the ring */
	uint64_t time_ns;	/* CLOCK_MONOTONIC at the allocation (to a millisecond or so
				 * unless sampled: pl_header.now_ns) */
	uint64_t pad;
};
#define PL_LIVE_EMPTY 0ull
#define PL_LIVE_TOMB 1ull
#define PL_LIVE_BUSY 2ull
#define PL_LIVE_SAMPLED (1ull << 63)

struct pl_header {
	uint64_t magic;
	uint32_t version;
	uint32_t state;		/* enum pl_state, written by the recorder */
	int32_t target_pid;	/* the only process the library attaches in */
	int32_t attached_pid;	/* written by the library once attached */
	uint64_t size;		/* bytes of the whole mapping */
	uint64_t sample_bytes;	/* mean bytes between samples; 0: every allocation */
	uint64_t wait_ns;	/* how long a producer waits for room before it drops */
	uint64_t slots_off;	/* offsets from the header, bytes */
	uint64_t live_off;
	uint64_t live_cap;	/* a power of two */
	uint64_t seen_off;
	uint64_t seen_cap;	/* a power of two */
	uint64_t ring_off;
	uint64_t ring_size;	/* a power of two */
	uint32_t exp_table[PL_EXP_TABLE];	/* -ln(u) quantiles x 2^16 (heap__exp_table) */
	uint64_t head __attribute__((aligned(64)));	/* bytes reserved, ever */
	uint64_t tail __attribute__((aligned(64)));	/* bytes consumed, ever */
	/* CLOCK_MONOTONIC, written by the recorder about every millisecond: the time of
	 * the allocations that take no stack (a clock read saved on each) */
	uint64_t now_ns __attribute__((aligned(64)));
	uint64_t pad[7];
	/* The peak of the live heap, kept by the library at every allocation and free:
	 * live_total the tracked live bytes of every thread (one atomic add each), peak_bytes
	 * the most it held, peak_time_ns when (the allocation's clock: exact when it took a
	 * stack, else now_ns). peak_mark is the live total at the last PL_REC_PEAK, which
	 * the library sends when the peak passes the mark by PL_PEAK_MARGIN of it, or by
	 * anything PL_PEAK_MARK_NS after the last: the recorder takes the sites' live bytes
	 * there (the sites at the peak). */
	int64_t live_total __attribute__((aligned(64)));
	uint64_t peak_bytes __attribute__((aligned(64)));
	uint64_t peak_time_ns;
	uint64_t peak_mark;
	uint64_t peak_mark_ns;
	uint64_t pad2[4];
};

#define PL_PEAK_MARGIN 64		/* a new mark when the peak grows by 1/64 of the mark */
#define PL_PEAK_MARK_NS (10ull * 1000000ull)	/* or grows at all, 10 ms after the last */

/* The ring's records: a header word, then the payload; 8-byte multiples. */
#define PL_REC_COMMIT (1ull << 63)
enum pl_rec_type {
	PL_REC_PAD = 1,		/* bytes skipped before the end of the ring */
	PL_REC_ALLOC = 2,
	PL_REC_FREE = 3,
	PL_REC_STACK = 4,
	PL_REC_EXEC = 5,	/* the recorded process exec'd: its old blocks are gone */
	PL_REC_PEAK = 6,	/* the live total passed the peak mark (struct pl_ev_peak) */
};

static inline uint64_t pl_rec_word(uint32_t len, uint32_t type)
{
	return PL_REC_COMMIT | ((uint64_t)type << 32) | len;
}

static inline uint32_t pl_rec_len(uint64_t w)
{
	return (uint32_t)w;
}

static inline uint32_t pl_rec_type(uint64_t w)
{
	return (uint32_t)(w >> 32) & 0xffff;
}

/* A sampled allocation, with what it stands for (its credits, as in the uprobe lane). */
struct pl_ev_alloc {
	uint64_t hdr;
	uint64_t addr;
	uint64_t size;
	uint64_t time_ns;
	uint64_t stack;		/* hash of the ips (a PL_REC_STACK came first) */
	uint64_t credit_count;
	uint64_t credit_bytes;
	uint32_t func;		/* enum alloc_func */
	uint32_t untracked;	/* 1: the live table had no slot for it (not live) */
};

/* The free of a sampled allocation (realloc's old block included). */
struct pl_ev_free {
	uint64_t hdr;
	uint64_t addr;
	uint64_t time_ns;
	uint32_t func;
	uint32_t flags;		/* PL_FREE_TEMPORARY */
};
#define PL_FREE_TEMPORARY 1u	/* the block was the thread's last allocation */

/* A new peak mark: the live total BYTES at TIME_NS, just after the allocation whose
 * record (if it took one) came before in the ring. */
struct pl_ev_peak {
	uint64_t hdr;
	uint64_t bytes;
	uint64_t time_ns;
};

/* Does a live total of V at T (peak mark MARK set at MARK_NS) make a new mark? */
static inline bool pl_peak_marks(uint64_t v, uint64_t mark, uint64_t mark_ns, uint64_t t)
{
	if (v <= mark)
		return false;
	return v - mark >= mark / PL_PEAK_MARGIN || t - mark_ns >= PL_PEAK_MARK_NS;
}

/* A stack's ips, innermost first: [0] the interposed function, [1] the caller. */
struct pl_ev_stack {
	uint64_t hdr;
	uint64_t hash;
	uint32_t n;
	uint32_t pad;
	uint64_t ips[];
};

/* ------------------------------------------------------------------ layout */

/* Fill H's layout fields for a mapping of the given capacities; returns the bytes the
 * whole mapping needs. */
static inline uint64_t pl_layout(struct pl_header *h, uint64_t live_cap, uint64_t seen_cap,
				 uint64_t ring_size)
{
	uint64_t off = (sizeof(*h) + 4095) & ~4095ull;

	h->slots_off = off;
	off += PL_SLOTS * sizeof(struct pl_slot);
	off = (off + 4095) & ~4095ull;
	h->live_off = off;
	h->live_cap = live_cap;
	off += live_cap * sizeof(struct pl_live);
	h->seen_off = off;
	h->seen_cap = seen_cap;
	off += seen_cap * sizeof(uint64_t);
	off = (off + 4095) & ~4095ull;
	h->ring_off = off;
	h->ring_size = ring_size;
	off += ring_size;
	h->size = off;
	return off;
}

static inline struct pl_slot *pl_slots(struct pl_header *h)
{
	return (struct pl_slot *)((char *)h + h->slots_off);
}

static inline struct pl_live *pl_live(struct pl_header *h)
{
	return (struct pl_live *)((char *)h + h->live_off);
}

/* Empty the live table of the mapping H (every entry PL_LIVE_EMPTY) without making it
 * memory: its pages of the memfd are given back (MADV_REMOVE; they read as zeros again).
 * A memset would touch every page of the table (32 MiB), which the recorder's walk then
 * reads at every poll, holding the lock its ring reader needs: on a loaded machine the
 * ring filled and the allocations after an exec were dropped (issue 19). Where the kernel
 * refuses, the entries are cleared by hand. */
static inline void pl_live_clear(struct pl_header *h)
{
	void *l = (char *)h + h->live_off;
	size_t len = h->live_cap * sizeof(struct pl_live);

	if (madvise(l, len, MADV_REMOVE))
		memset(l, 0, len);
}

static inline uint64_t *pl_seen(struct pl_header *h)
{
	return (uint64_t *)((char *)h + h->seen_off);
}

static inline uint8_t *pl_ring(struct pl_header *h)
{
	return (uint8_t *)h + h->ring_off;
}

/* ------------------------------------------------------------------ ring */

/* Reserve LEN bytes (a multiple of 8, at most a quarter of the ring) for one record.
 * NULL when the ring has no room now. The caller writes the payload, then
 * pl_ring_commit(). Any thread. */
static inline void *pl_ring_reserve(struct pl_header *h, uint32_t len)
{
	uint64_t size = h->ring_size, head, tail, off, pad, total;
	uint8_t *data = pl_ring(h);

	head = __atomic_load_n(&h->head, __ATOMIC_RELAXED);
	for (;;) {
		tail = __atomic_load_n(&h->tail, __ATOMIC_ACQUIRE);
		off = head & (size - 1);
		pad = size - off < len ? size - off : 0;
		total = pad + len;
		if (head + total - tail > size)
			return NULL;
		if (__atomic_compare_exchange_n(&h->head, &head, head + total, true,
						__ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
			break;
	}
	if (pad)
		__atomic_store_n((uint64_t *)(data + off), pl_rec_word((uint32_t)pad, PL_REC_PAD),
				 __ATOMIC_RELEASE);
	return data + ((head + pad) & (size - 1));
}

/* Publish the record REC reserved with LEN bytes, of TYPE. */
static inline void pl_ring_commit(void *rec, uint32_t len, uint32_t type)
{
	__atomic_store_n((uint64_t *)rec, pl_rec_word(len, type), __ATOMIC_RELEASE);
}

/* The consumer (one thread) of the ring DATA of SIZE bytes (its own copies, not the
 * header's, which the target could overwrite): the next committed record, its header
 * word in *W; NULL when there is none yet. Pads are returned too (the caller skips
 * them). *BAD is set when the record's length cannot be right (the ring is then
 * unusable). */
static inline const void *pl_ring_peek(struct pl_header *h, uint8_t *data, uint64_t size,
				       uint64_t *w, bool *bad)
{
	uint64_t tail = __atomic_load_n(&h->tail, __ATOMIC_RELAXED), off;
	uint32_t len;

	if (tail == __atomic_load_n(&h->head, __ATOMIC_ACQUIRE))
		return NULL;
	off = tail & (size - 1);
	*w = __atomic_load_n((uint64_t *)(data + off), __ATOMIC_ACQUIRE);
	if (!(*w & PL_REC_COMMIT))
		return NULL;
	len = pl_rec_len(*w);
	if (len < 8 || len % 8 || len > size - off) {
		*bad = true;
		return NULL;
	}
	return data + off;
}

/* The consumer is done with the record peeked with header word W: clear all of it (a
 * later record may start anywhere inside it, and must find its header word 0 until it
 * is committed), give its bytes back. */
static inline void pl_ring_release(struct pl_header *h, const void *rec, uint64_t w)
{
	memset((void *)rec, 0, pl_rec_len(w));
	__atomic_store_n(&h->tail, __atomic_load_n(&h->tail, __ATOMIC_RELAXED) + pl_rec_len(w),
			 __ATOMIC_RELEASE);
}

/* ------------------------------------------------------------------ live table */

/* The home slot of ADDR in a live table of CAP entries. Addresses map to slots one
 * 16-byte granule each within a region of CAP granules, each region xored with its own
 * scramble: the table is touched where the heap is (its cache lines and pages follow
 * the allocator's locality), and regions that alias (thread arenas, 64 MiB apart) do
 * not line up on the same slots. */
static inline uint64_t pl_live_home(uint64_t addr, uint64_t cap)
{
	uint64_t region = addr >> (4 + __builtin_ctzll(cap));
	uint64_t r = (region + 1) * 0x9e3779b97f4a7c15ull;

	return ((addr >> 4) ^ (r >> 20)) & (cap - 1);
}

/* Add ADDR (SIZE with PL_LIVE_SAMPLED maybe set, at TIME_NS) to the live table T of CAP
 * entries. When ADDR is there already (its free was not seen), that entry is replaced
 * and *OLD gets what it held (1 is returned). 0 added, 1 replaced, -1 no slot within
 * PL_LIVE_PROBE (not tracked). Any thread. */
static inline int pl_live_insert(struct pl_live *t, uint64_t cap, uint64_t addr, uint64_t size,
				 uint64_t time_ns, struct pl_live *old)
{
	uint64_t i = pl_live_home(addr, cap), n, a;

	for (n = 0; n < PL_LIVE_PROBE; n++, i = (i + 1) & (cap - 1)) {
		a = __atomic_load_n(&t[i].addr, __ATOMIC_ACQUIRE);
		if (a == addr) {
			old->size = t[i].size;
			old->time_ns = t[i].time_ns;
			t[i].size = size;
			t[i].time_ns = time_ns;
			return 1;
		}
		if (a != PL_LIVE_EMPTY && a != PL_LIVE_TOMB)
			continue;
		if (!__atomic_compare_exchange_n(&t[i].addr, &a, PL_LIVE_BUSY, false,
						 __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
			i = (i - 1) & (cap - 1);	/* taken meanwhile: look at it again */
			n--;
			continue;
		}
		t[i].size = size;
		t[i].time_ns = time_ns;
		__atomic_store_n(&t[i].addr, addr, __ATOMIC_RELEASE);
		return 0;
	}
	return -1;
}

/* Take ADDR out of the live table, *OUT getting its entry. 0, or -1 when not there. */
static inline int pl_live_remove(struct pl_live *t, uint64_t cap, uint64_t addr,
				 struct pl_live *out)
{
	uint64_t i = pl_live_home(addr, cap), n, a;

	for (n = 0; n < PL_LIVE_PROBE; n++, i = (i + 1) & (cap - 1)) {
		a = __atomic_load_n(&t[i].addr, __ATOMIC_ACQUIRE);
		if (a == PL_LIVE_EMPTY)
			return -1;
		if (a != addr)
			continue;
		out->addr = addr;
		out->size = t[i].size;
		out->time_ns = t[i].time_ns;
		if (!__atomic_compare_exchange_n(&t[i].addr, &a, PL_LIVE_TOMB, false,
						 __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
			return -1;	/* another thread freed it first (a double free) */
		return 0;
	}
	return -1;
}

/* ------------------------------------------------------------------ seen stacks */

/* Is HASH (not 0) in the set S of CAP entries? */
static inline bool pl_seen_has(const uint64_t *s, uint64_t cap, uint64_t hash)
{
	uint64_t i = hash & (cap - 1), n, v;

	for (n = 0; n < 16; n++, i = (i + 1) & (cap - 1)) {
		v = __atomic_load_n(&s[i], __ATOMIC_RELAXED);
		if (v == hash)
			return true;
		if (!v)
			return false;
	}
	return false;
}

/* Remember HASH in S (best effort: a full neighbourhood forgets, and the stack is sent
 * again, which the recorder takes as a duplicate). */
static inline void pl_seen_add(uint64_t *s, uint64_t cap, uint64_t hash)
{
	uint64_t i = hash & (cap - 1), n, v;

	for (n = 0; n < 16; n++, i = (i + 1) & (cap - 1)) {
		v = 0;
		if (__atomic_compare_exchange_n(&s[i], &v, hash, false, __ATOMIC_RELAXED,
						__ATOMIC_RELAXED) ||
		    v == hash)
			return;
	}
}

/* ------------------------------------------------------------------ sampler */

/* One thread's sampling state: bytes until the next sample, what came since the last. */
struct pl_sampler {
	int64_t countdown;
	uint64_t acc_count;
	uint64_t acc_bytes;
	uint64_t rng;		/* xorshift64 state; 0: not seeded */
};

static inline uint64_t pl_rand(struct pl_sampler *s)
{
	uint64_t x = s->rng ? s->rng : 0x9e3779b97f4a7c15ull;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	s->rng = x;
	return x;
}

static inline int64_t pl_next_interval(struct pl_sampler *s, const uint32_t *table, uint64_t mean)
{
	uint64_t v = (mean * table[pl_rand(s) & (PL_EXP_TABLE - 1)]) >> 16;

	return v ? (int64_t)v : 1;
}

/* Does an allocation of SIZE take a stack? The same rule as collectors/heap/heap.bpf.c: with MEAN
 * (bytes) > 0, allocations of PL_BIG_ALLOC or more always do, credited with themselves;
 * the others count down an exponentially distributed interval (TABLE, drawn from SEED's
 * generator), and the one that crosses zero is credited with every allocation and byte
 * since the previous sample. MEAN 0: every allocation does, credited with itself. */
static inline bool pl_sample(struct pl_sampler *s, const uint32_t *table, uint64_t mean,
			     uint64_t size, uint64_t *cc, uint64_t *cb)
{
	if (mean && size >= PL_BIG_ALLOC) {
		*cc = 1;
		*cb = size;
		return true;
	}
	if (mean && !s->countdown && !s->acc_count)
		s->countdown = pl_next_interval(s, table, mean);
	s->acc_count++;
	s->acc_bytes += size;
	s->countdown -= (int64_t)size;
	if (mean && s->countdown > 0)
		return false;
	*cc = s->acc_count;
	*cb = s->acc_bytes;
	s->acc_count = 0;
	s->acc_bytes = 0;
	s->countdown = mean ? pl_next_interval(s, table, mean) : 0;
	return true;
}

/* ------------------------------------------------------------------ stacks */

/* The stack of an allocation taken inside the interposed function: IP0 (the function),
 * RET (its return address into the caller) as frame 1, then the frame-pointer chain
 * from FP (the caller's saved frame pointer). Every frame read must lie inside
 * [LO, HI) (the thread's stack from the current frame up), 8-byte aligned and above the
 * previous one, so a caller without frame pointers ends the walk instead of faulting.
 * Returns the number of ips written into IPS (at most MAX). */
static inline size_t pl_walk(uint64_t *ips, size_t max, uint64_t ip0, uint64_t ret, uintptr_t fp,
			     uintptr_t lo, uintptr_t hi)
{
	size_t n = 0;

	if (max)
		ips[n++] = ip0;
	if (n < max && ret)
		ips[n++] = ret;
	else
		return n;
	while (n < max) {
		const uint64_t *f = (const uint64_t *)fp;
		uint64_t next, ip;

		if (fp < lo || hi < 16 || fp > hi - 16 || (fp & 7))
			break;
		next = f[0];
		ip = f[1];
		if (!ip)
			break;
		ips[n++] = ip;
		if (next <= fp)
			break;
		fp = (uintptr_t)next;
	}
	return n;
}

/* The 64-bit hash of a stack (FNV-1a a word at a time over its length and ips, then a
 * final mix); never 0. */
static inline uint64_t pl_stack_hash(const uint64_t *ips, size_t n)
{
	uint64_t h = fnv1a64_word(FNV1A64_INIT, n);
	size_t i;

	/* a word at a time, as the CPU profile's: one multiply per frame, where a byte at a
	 * time took eight in a chain (half the cost of a sampled allocation at 7 frames) */
	for (i = 0; i < n; i++)
		h = fnv1a64_word(h, ips[i]);
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	return h ? h : 1;
}

#endif
