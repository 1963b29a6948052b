/* record.h — the heap collector's recorder side: its lane interface (heap_lane_ops,
 * one file per lane: record_uprobe.c, record_preload.c) and what the lanes and the Go
 * lane (collectors/goalloc) share (record_lane.c): the exponential sampling table, the
 * site ranking with its census, the sites and their stacks, the peak sites. Public so
 * that collectors/heap/test_heap.c can check them without BPF or a target.
 */
#ifndef PTOP_RECORD_HEAP_H
#define PTOP_RECORD_HEAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>

#include "collectors/heap/heap.h"
#include "proto/ptop.pb-c.h"

/* Fill T[0..N) with the quantiles of the unit exponential distribution scaled by 2^16:
 * T[i] = -ln((i + 0.5) / N) * 65536. Their mean is 65536 (within 0.1% for N >= 256):
 * an interval drawn as MEAN * T[r] >> 16 has mean MEAN. */
void heap__exp_table(uint32_t *t, size_t n);

/* One call site of one interval, as the ranking sees it. */
struct heap_site_row {
	uint64_t alloc_count;
	uint64_t alloc_bytes;
	uint64_t live_count;
	uint64_t live_bytes;
	uint64_t freed_count;
	uint64_t lifetime_ns_sum;
	uint64_t oldest_live_ns;
	uint32_t index;		/* the caller's own index of the site */
};

struct heap_census {
	uint64_t total_call_sites;	/* rows with anything to say (see heap__select_sites) */
	uint64_t kept;
	uint64_t omitted_alloc_count;
	uint64_t omitted_alloc_bytes;
	uint64_t omitted_live_bytes;
};

/* Keep the union of the top TOP rows by live bytes, by bytes allocated and by
 * allocation count, among the rows that allocated, freed or hold something in the
 * interval (the others are not sites of this interval and not counted). Sets KEEP[i]
 * for the kept rows (KEEP has N entries) and fills OUT with the census: the rows
 * counted, how many kept, and what the left-out rows carried. Ties are broken by the
 * lower index. 0, or -ENOMEM. */
int heap__select_sites(const struct heap_site_row *rows, size_t n, size_t top, bool *keep,
		       struct heap_census *out);

/* The ips of a site's stack as the capture writes it: the stack-map walk IPS[0..N)
 * (IPS[0] the probed instruction in the allocator) with CALLER, the caller's return
 * address the walk skips, put as frame 1 (not when 0). OUT holds MAX ips. Returns the
 * number of ips written. */
size_t heap__site_ips(const uint64_t *ips, size_t n, uint64_t caller, uint64_t *out, size_t max);

/* One call site (stack + caller) as user space follows it across polls: the
 * same for every heap lane. */
struct heap_usite {
	struct hp_site_key key;
	struct hp_site prev;		/* cumulative figures at the last poll */
	uint64_t capid;			/* capture stack id; 0: not written */
	uint64_t oldest;		/* this poll: oldest live allocation (ktime) */
	bool used;
	bool resolved;
};

/* Find KEY in the open-addressing table SITES of CAP entries (a power of two),
 * adding it if new (sites are equal when their keys are: stack hash, depth, kernel
 * flag and caller). NULL when the table is full. */
struct heap_usite *heap_usites__get(struct heap_usite *sites, size_t cap,
				    const struct hp_site_key *k);

/* Where a lane's site stacks come from: the stack-source interface of
 * heap_usite__resolve() and heap__fill_sites(), so that every lane shares them.
 *
 * ips(arg, s, ips, max) writes the stack of site S — the walk as the lane took it,
 * innermost first, IPS[0] the instruction in the allocator (or the allocator's
 * caller when the lane took it there), WITHOUT s->key.caller: heap_usite__resolve()
 * inserts a nonzero caller as frame 1 itself (heap__site_ips) — into IPS, at most MAX
 * (>= HP_MAX_DEPTH) ips, and returns how many it wrote. 0 or -errno: the stack cannot
 * be had; the site is then written without a stack (capid 0), not tried again.
 *
 * A BPF lane passes heap_stack_src__map(fd of its stack map), which reads the
 * stack keyed s->key.stack (bpf/stackmap.h). A lane whose ips are already in user
 * space (the LD_PRELOAD lane) passes its own ips() and arg, and fills each site's key
 * as it likes (e.g. key.stack.hash/nr from its own hash of the ips, caller 0): the key
 * is compared whole by heap_usites__get() and only read by the lane's own ips(). */
struct heap_stack_src {
	int (*ips)(void *arg, const struct heap_usite *s, uint64_t *ips, size_t max);
	void *arg;
};

/* The stack source of a BPF lane whose stacks are in the stack map open on FD. */
struct heap_stack_src heap_stack_src__map(int fd);

struct rec_ctx;
struct stack_table;

/* Give site S its capture stack id: take its stack from SRC, add the caller
 * (heap__site_ips), and write the Stack record the first time TABLE sees it
 * (stack_table__emit). Tried once per site: a stack SRC cannot give stays
 * capid 0. 0, or -errno from the writer. */
int heap_usite__resolve(struct rec_ctx *ctx, const struct heap_stack_src *src,
			struct stack_table *table, struct heap_usite *s);

/* DELTA[i] = NOW[i] - PREV[i] for WORDS counters, then PREV = NOW: a lane's
 * cumulative counters turned into the interval's. */
void heap__counters_delta(const uint64_t *now, uint64_t *prev, uint64_t *delta, size_t words);

/* Row R (the caller's INDEX) of site S for this interval, from the site's
 * cumulative figures CUR and S->prev (the last poll's), which becomes CUR. Live
 * figures (the state now, not deltas) only when LIVE: a lane that does not
 * measure them leaves them 0. */
void heap__site_row(struct heap_site_row *r, struct heap_usite *s, const struct hp_site *cur,
		    uint32_t index, bool live);

/* What every lane's HeapSnapshot says alike: LANE (lane_kind, and lane its word for older
 * readers), MODULE, the sampling and the leak age from heap_settings, LIVE_MEASURED, the
 * CENSUS and the K kept SITES. */
void heap__snapshot_init(Ptop__V1__HeapSnapshot *hs, Ptop__V1__HeapLane lane, const char *module,
			 bool live_measured, const struct heap_census *census,
			 Ptop__V1__HeapSite **sites, size_t k);

/* Emit HS, a lane's snapshot of the interval of INTERVAL_NS that ends at NOW_NS, as a
 * HeapSnapshot event. 0 or -errno from the writer. */
int heap__emit_snapshot(struct rec_ctx *ctx, Ptop__V1__HeapSnapshot *hs, uint64_t now_ns,
			uint64_t interval_ns);

/* A live total summed over CPUs or threads, each of which may have gone below
 * zero on its own: the sum, or 0 while it is (transiently) negative. */
static inline uint64_t heap__live_total(uint64_t sum)
{
	return (int64_t)sum > 0 ? sum : 0;
}

/* What a lane ranks its sites in each poll, HP_SITE_ENTRIES of each: the rows, which
 * to keep, each row's site, and the HeapSite entries written (and pointers to them). */
struct heap_rank {
	struct heap_site_row *rows;
	bool *keep;
	size_t *row_site;		/* row -> index in the lane's sites */
	Ptop__V1__HeapSite *hs;
	Ptop__V1__HeapSite **hsp;
};

/* Allocate R's arrays. 0 or -ENOMEM (R then holds nothing: heap_rank__free is safe). */
int heap_rank__alloc(struct heap_rank *r);

/* Free R's arrays and empty it. */
void heap_rank__free(struct heap_rank *r);

/* The HeapSite entries of one snapshot: for each of the NROWS rows of R that
 * heap__select_sites keeps (row i is site SITES[R->row_site[i]]), resolve its stack
 * from SRC and fill R->hs[k] with the row's figures, pointing R->hsp[k] at it. *K gets
 * the count. A lane that does not measure live data leaves those row fields 0
 * (HeapSnapshot.live_measured says they mean nothing). 0, or -errno from the
 * writer. */
int heap__fill_sites(struct rec_ctx *ctx, const struct heap_stack_src *src,
		     struct stack_table *table, struct heap_usite *sites,
		     const struct heap_rank *r, size_t nrows, size_t *k);

/* What a lane sees of site S (cumulative figures CUR, S->prev still the last poll's)
 * before its row ROW is taken. */
typedef void (*heap_site_visit)(void *arg, struct heap_usite *s, const struct hp_site *cur,
				size_t row);

/* A BPF lane's sites this poll: walk the site map open on SFD (struct hp_site_key ->
 * struct hp_site, cumulative; at most HP_SITE_ENTRIES rows), follow each site in SITES
 * (CAP entries, heap_usites__get), call VISIT (when not NULL) and put its row in R
 * (heap__site_row; live figures when LIVE). Returns the number of rows. */
size_t heap__read_site_map(int sfd, struct heap_usite *sites, size_t cap, struct heap_rank *r,
			   bool live, heap_site_visit visit, void *arg);

/* The sites at a peak mark: one row per site with what it held there (its index in
 * the lane's sites), and the HeapSite entries written (heap_settings.top of them). */
struct heap_peak_row {
	uint64_t site;
	uint64_t live_count, live_bytes;
};
struct heap_peak {
	struct heap_peak_row *rows;
	Ptop__V1__HeapSite *hs;
	Ptop__V1__HeapSite **hsp;
};

/* Allocate PK for ROWS rows. 0 or -ENOMEM (PK then holds nothing). */
int heap_peak__alloc(struct heap_peak *pk, size_t rows);

/* Free PK's arrays and empty it. */
void heap_peak__free(struct heap_peak *pk);

/* The one peak-sites routine of every lane: the N rows of PK (sites of SITES, what they
 * held at the peak mark of MARK_BYTES live at MARK_NS) into HS's peak_sites: the top
 * heap_settings.top by live bytes, each with its stack resolved from SRC into TABLE.
 * SAMPLED (the lane samples): estimates that add up to more than the mark's live total
 * (exact) are scaled down to it, the samples' split of that total. Reorders PK->rows.
 * 0, or -errno from writing a stack. */
int heap__peak_sites(struct rec_ctx *ctx, const struct heap_stack_src *src,
		     struct stack_table *table, struct heap_usite *sites, struct heap_peak *pk,
		     size_t n, bool sampled, uint64_t mark_bytes, uint64_t mark_ns,
		     Ptop__V1__HeapSnapshot *hs);

struct collector;

/* A capture lane of the heap collector, one file each: the uprobe lane
 * (record_uprobe.c, heap_uprobe_lane) and the preload lane (record_preload.c,
 * heap_preload_lane). The collector (record.c) asks the preload lane's check() when it
 * was prepared for a launched command, else the uprobe lane's; check() sets c->source,
 * and start(), poll(), stop() and exec() go to the lane it names. stop() is the lane's
 * own (what the collector's prepare() made stays until its final stop). The Go lane is
 * the goalloc collector (collectors/goalloc/record.c): its own probe in the probe set,
 * built from the same toolkit (record_lane.c). */
struct heap_lane_ops {
	const char *name;
	Ptop__V1__ProbeState (*check)(struct collector *c);
	int (*start)(struct collector *c);
	int (*poll)(struct collector *c, uint64_t now_ns, unsigned flags);
	void (*stop)(struct collector *c);
	int (*exec)(struct collector *c, uint64_t now_ns);
};
extern const struct heap_lane_ops heap_uprobe_lane;
extern const struct heap_lane_ops heap_preload_lane;

/* The Go lane's probe point (collectors/goalloc/record.c): where in a Go executable the goalloc
 * collector puts its uprobe. */
struct goalloc_probe {
	uint64_t func_off;	/* runtime.mallocgc's file offset */
	uint32_t probe_off;	/* the probe's offset in it: 4, the jbe of the stack check
				 * (emulated); 0: not decoded, single-stepped */
	bool stack_check;	/* at the jbe: hits whose jbe goes to morestack restart */
};

/* Is the file at OPEN_PATH (named PATH in messages) a Go executable (a .gopclntab),
 * and where is its runtime.mallocgc (.symtab, else .gopclntab) and the probe in it?
 * Fills GP. 0; -ENODATA: not Go; -ENOENT: no runtime.mallocgc found; -errno. WHY
 * (WLEN bytes) says which. */
int goalloc__probe_point(const char *open_path, const char *path, struct goalloc_probe *gp,
			 char *why, size_t wlen);

struct collector;

/* collector_ops.exec of the heap and Go uprobe lanes: the program is new, so what was
 * attached is flushed (a poll), and decided again for it by check(); when the program is
 * held (c->ctx->exec_held) and the heap lane's module is the same file at the same probe
 * points, the probes are kept and their maps emptied, else they are stopped (in the
 * background) and start() attaches anew (another module, or none). Either way the old
 * program's live set is gone with it. Sets c->state. */
int heap__exec_follow(struct collector *c, uint64_t now_ns);

/* Start C when ST (what its check() said) is active; set c->state to ST, or to FAILED
 * (stopped again, the reason kept) when start() fails. 0 or start()'s -errno. */
int heap__start_checked(struct collector *c, Ptop__V1__ProbeState st);

/* The uprobe lane's check(): the allocator module of the target and the probe points
 * in it, in c->detail; changes nothing (start() finds the module again). */
Ptop__V1__ProbeState heap__uprobe_check(struct collector *c);

/* Stop the lane C runs (the uprobe or the preload lane, or the Go lane's collector) in
 * the run, to start it again or hand over: its collector_ops.stop but what the heap's
 * prepare() made, which the final stop frees. */
void heap__lane_stop(struct collector *c);

/* Wait until what heap__exec_follow() stopped in the background is detached. The
 * heap and Go lanes' stop() call it (it returns at once in the background thread). */
void heap__reap_wait(void);

/* Why the heap collector is off by default, for both lanes (measured: bench/README.md). */
/* The heap collector's settings, filled by the recorder from its options table
 * (heap_collector.opts: --heap-sample-bytes, --heap-top, --leak-age, --heap-events,
 * --heap-lane). The Go lane (goalloc) samples and ranks by the same ones. */
#define HEAP_MAX_SAMPLE_BYTES (1ull << 40)
#define HEAP_MAX_TOP 100000
struct heap_settings {
	uint64_t sample_bytes;       /* mean bytes between heap stacks, default 512 KiB; 0: all */
	unsigned top;                /* sites kept per ranking, default 64 */
	uint64_t leak_age_ns;        /* live allocations older are leak suspects, default 30 s */
	bool events;                 /* every sampled allocation and free as a HeapEvent */
	uint32_t lane;               /* enum heap_lane (collectors/heap/record_preload.h) */
};
extern struct heap_settings heap_settings;

#define HEAP_OFF_BY_DEFAULT                                                                   \
	"it costs the target about 20-100 ns per malloc+free pair in a launched command "    \
	"(preload lane), about 2.8 us with --pid (uprobes); see bench/README.md"

/* The names of the probed functions, by enum alloc_func. */
extern const char *const heap_func_names[ALLOC_NFUNCS];

/* --heap-events: the bytes of the uprobe lane's ring buffer for INTERVAL_NS between two
 * drains (a power of two, HP_RINGBUF_BYTES to HP_RINGBUF_MAX_BYTES, room for
 * HP_EVENTS_RATE records a second when the cap allows), and how many records it holds. */
uint64_t heap_events_ring_bytes(uint64_t interval_ns, uint64_t *records);

/* What --heap-events can carry, for the probe's reason (shown at start): RECORDS kept
 * between two polls INTERVAL_NS apart, by the LANE ("ring buffer", "recorder"). */
void heap_events_limit_text(char *buf, size_t len, const char *lane, uint64_t records,
			    uint64_t interval_ns);

#endif
