/* load.c — the heap collector's loader (analyze/load.h), for every lane (uprobe,
 * preload, and the goalloc collector's Go lane, whose events are HeapSnapshots too):
 * each HeapSnapshot is a heap_snapshot row (seq in file order) and a heap_site row per
 * call site; each HeapEvent (--heap-events) a heap_event row.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyze/load.h"
#include "proto/names.h"
#include "collectors/heap/names.h"

enum { ST_SNAPSHOT, ST_SITE, ST_EVENT, ST_PEAK, ST_N };

static const char snapshot_sql[] =
	"INSERT INTO heap_snapshot (cap, seq, time_ns, interval_ns, pid, lane, module, "
	"sample_bytes, live_measured, alloc_count, alloc_bytes, free_count, free_bytes, "
	"live_bytes, live_count, leak_bytes, leak_count, leak_age_ns, sites, "
	"total_call_sites, omitted_alloc_count, omitted_alloc_bytes, omitted_live_bytes, "
	"live_untracked, stack_failures, free_untracked, peak_live_bytes, peak_time_ns, "
	"peak_sites_live_bytes, peak_sites_time_ns, temporary_count, user_stacks)";

static const char site_sql[] =
	"INSERT INTO heap_site (cap, seq, stack_id, alloc_count, alloc_bytes, live_count, "
	"live_bytes, freed_count, lifetime_ns_sum, oldest_live_ns, temporary_count)";

static const char peak_sql[] =
	"INSERT INTO heap_peak_site (cap, seq, stack_id, live_count, live_bytes)";

static int load_heap(struct load_ctx *l, const Ptop__V1__Event *ev)
{
	const Ptop__V1__HeapSnapshot *h = ev->heap;
	sqlite3_stmt *s = l->st[ST_SNAPSHOT];
	int64_t *next = l->state, seq;
	size_t sites = 0;
	bool lm;
	int err;

	if (!h)
		return 0;
	seq = (*next)++;
	lm = h->live_measured;
	for (size_t k = 0; k < h->n_sites; k++)
		sites += h->sites[k] != NULL;
	bind_cap(l, s);
	bind_i64(s, 2, seq);
	bind_u64(s, 3, ev->time_ns);
	bind_nz(s, 4, ev->interval_ns);
	bind_pid(s, 5, ev->pid);
	bind_opt_text(s, 6, capture_heap_snapshot_lane(h));
	bind_opt_text(s, 7, h->module);
	bind_u64(s, 8, h->sample_bytes);
	bind_i64(s, 9, lm);
	bind_u64(s, 10, h->alloc_count);
	bind_u64(s, 11, h->alloc_bytes);
	bind_measured(s, 12, lm, h->free_count);
	bind_measured(s, 13, lm, h->free_bytes);
	bind_measured(s, 14, lm, h->live_bytes);
	bind_measured(s, 15, lm, h->live_count);
	bind_measured(s, 16, lm, h->leak_bytes);
	bind_measured(s, 17, lm, h->leak_count);
	bind_nz(s, 18, h->leak_age_ns); /* the setting, not a measurement */
	bind_u64(s, 19, sites);
	bind_u64(s, 20, h->total_call_sites);
	bind_u64(s, 21, h->omitted_alloc_count);
	bind_u64(s, 22, h->omitted_alloc_bytes);
	bind_measured(s, 23, lm, h->omitted_live_bytes);
	bind_measured(s, 24, lm, h->live_untracked);
	bind_u64(s, 25, h->stack_failures);
	bind_measured(s, 26, lm, h->free_untracked);
	bind_measured(s, 27, h->peak_measured, h->peak_live_bytes);
	bind_measured(s, 28, h->peak_measured, h->peak_time_ns);
	bind_measured(s, 29, h->peak_measured && h->n_peak_sites, h->peak_sites_live_bytes);
	bind_measured(s, 30, h->peak_measured && h->n_peak_sites, h->peak_sites_time_ns);
	bind_measured(s, 31, h->temporary_measured, h->temporary_count);
	bind_opt_text(s, 32, h->user_stacks);	/* empty: NULL */
	err = load__step(l, ST_SNAPSHOT);
	if (err)
		return err;

	s = l->st[ST_SITE];
	for (size_t k = 0; k < h->n_sites; k++) {
		const Ptop__V1__HeapSite *c = h->sites[k];

		if (!c)
			continue;
		bind_cap(l, s);
		bind_i64(s, 2, seq);
		bind_nz(s, 3, c->stack_id); /* 0: no stack */
		bind_u64(s, 4, c->alloc_count);
		bind_u64(s, 5, c->alloc_bytes);
		bind_measured(s, 6, lm, c->live_count);
		bind_measured(s, 7, lm, c->live_bytes);
		bind_measured(s, 8, lm, c->freed_count);
		bind_measured(s, 9, lm, c->lifetime_ns_sum);
		bind_measured(s, 10, lm && c->oldest_live_ns, c->oldest_live_ns);
		bind_measured(s, 11, h->temporary_measured, c->temporary_count);
		err = load__step(l, ST_SITE);
		if (err)
			return err;
	}

	s = l->st[ST_PEAK];
	for (size_t k = 0; h->peak_measured && k < h->n_peak_sites; k++) {
		const Ptop__V1__HeapSite *c = h->peak_sites[k];

		if (!c)
			continue;
		bind_cap(l, s);
		bind_i64(s, 2, seq);
		bind_nz(s, 3, c->stack_id);
		bind_u64(s, 4, c->live_count);
		bind_u64(s, 5, c->live_bytes);
		err = load__step(l, ST_PEAK);
		if (err)
			return err;
	}
	return 0;
}

static const char event_sql[] =
	"INSERT INTO heap_event (cap, time_ns, pid, tid, kind, address, size, stack_id, "
	"function)";

static int load_heap_event(struct load_ctx *l, const Ptop__V1__Event *ev)
{
	const Ptop__V1__HeapEvent *h = ev->heap_event;
	sqlite3_stmt *s = l->st[ST_EVENT];
	const char *kind;

	if (!h)
		return 0;
	kind = h->kind == PTOP__V1__HEAP_EVENT__KIND__KIND_ALLOC  ? "alloc"
	       : h->kind == PTOP__V1__HEAP_EVENT__KIND__KIND_FREE ? "free"
								  : NULL;
	bind_cap(l, s);
	bind_u64(s, 2, ev->time_ns);
	bind_pid(s, 3, ev->pid);
	bind_pid(s, 4, ev->tid);
	bind_opt_text(s, 5, kind);
	bind_u64(s, 6, h->address);
	bind_u64(s, 7, h->size);
	bind_nz(s, 8, h->stack_id);
	bind_opt_text(s, 9, h->function);
	return load__step(l, ST_EVENT);
}

const struct an_load heap_load = {
	AN_LOAD_PAYLOADS({ PTOP__V1__EVENT__PAYLOAD_HEAP, "event:heap", load_heap },
			 { PTOP__V1__EVENT__PAYLOAD_HEAP_EVENT, "event:heap_event",
			   load_heap_event }),
	AN_LOAD_STMTS([ST_SNAPSHOT] = snapshot_sql, [ST_SITE] = site_sql, [ST_EVENT] = event_sql,
		      [ST_PEAK] = peak_sql),
	.state_size = sizeof(int64_t), /* the next heap_snapshot.seq */
	AN_LOAD_CHECKS({ "heap_snapshot", true, true, "seq", "pid, lane, module",
			 "sample_bytes,alloc_count,alloc_bytes,free_count,free_bytes,live_bytes,"
			 "live_count,leak_bytes,leak_count,sites,peak_live_bytes,temporary_count" },
		       { "heap_peak_site", false, false, "rowid", "NULL", "live_count,live_bytes" }),
};
