/* record_lane.c — what every capture lane of the heap (the uprobe lane, record_uprobe.c;
 * the preload lane, record_preload.c; the Go lane, collectors/goalloc) shares: the
 * exponential sampling table, the site ranking with its census, the sites followed
 * across polls and their stacks (written through the capture's stack table), the
 * HeapSnapshot fields alike, the one peak-sites routine, and the --heap-events sizing.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>

#include "record/collector.h"
#include "record/stack_table.h"
#include "record/stackcopy.h"
#include "proto/names.h"
#include "collectors/heap/names.h"
#include "collectors/heap/record.h"

const char *const heap_func_names[ALLOC_NFUNCS] = {
	[ALLOC_MALLOC] = "malloc",
	[ALLOC_CALLOC] = "calloc",
	[ALLOC_REALLOC] = "realloc",
	[ALLOC_FREE] = "free",
	[ALLOC_POSIX_MEMALIGN] = "posix_memalign",
	[ALLOC_ALIGNED_ALLOC] = "aligned_alloc",
	[ALLOC_MEMALIGN] = "memalign",
	[ALLOC_VALLOC] = "valloc",
	[ALLOC_PVALLOC] = "pvalloc",
};

/* ------------------------------------------------------------------ pure parts */

void heap__exp_table(uint32_t *t, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		double u = ((double)i + 0.5) / (double)n;

		t[i] = (uint32_t)(-log(u) * 65536.0 + 0.5);
	}
}

size_t heap__site_ips(const uint64_t *ips, size_t n, uint64_t caller, uint64_t *out, size_t max)
{
	size_t k = 0, i;

	if (n && k < max)
		out[k++] = ips[0];
	if (caller && k < max)
		out[k++] = caller;
	for (i = 1; i < n && k < max; i++)
		out[k++] = ips[i];
	return k;
}

struct rank {
	const struct heap_site_row *rows;
	int by;
};

static uint64_t rank_key(const struct heap_site_row *r, int by)
{
	return by == 0 ? r->live_bytes : by == 1 ? r->alloc_bytes : r->alloc_count;
}

static int by_;	/* qsort has no context argument */

static int cmp_rows(const void *a, const void *b)
{
	const struct heap_site_row *x = *(const struct heap_site_row *const *)a;
	const struct heap_site_row *y = *(const struct heap_site_row *const *)b;
	uint64_t kx = rank_key(x, by_), ky = rank_key(y, by_);

	if (kx != ky)
		return kx > ky ? -1 : 1;
	return x < y ? -1 : x > y;
}

int heap__select_sites(const struct heap_site_row *rows, size_t n, size_t top, bool *keep,
		       struct heap_census *out)
{
	const struct heap_site_row **act;
	size_t na = 0, i;
	int by;

	memset(out, 0, sizeof(*out));
	if (n)
		memset(keep, 0, n * sizeof(*keep));
	act = calloc(n ? n : 1, sizeof(*act));
	if (!act)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		if (rows[i].alloc_count || rows[i].live_count || rows[i].freed_count)
			act[na++] = &rows[i];
	out->total_call_sites = na;
	for (by = 0; by < 3; by++) {
		by_ = by;
		qsort(act, na, sizeof(*act), cmp_rows);
		for (i = 0; i < na && i < top; i++) {
			if (!rank_key(act[i], by))
				break;	/* nothing by this measure: not a top site for it */
			keep[act[i] - rows] = true;
		}
	}
	for (i = 0; i < na; i++) {
		if (keep[act[i] - rows]) {
			out->kept++;
			continue;
		}
		out->omitted_alloc_count += act[i]->alloc_count;
		out->omitted_alloc_bytes += act[i]->alloc_bytes;
		out->omitted_live_bytes += act[i]->live_bytes;
	}
	/* an active site with zeros in all three measures (it only freed) is kept too,
	 * so that absence from the list means nothing happened there */
	for (i = 0; i < na; i++) {
		if (!keep[act[i] - rows] && !act[i]->alloc_count && !act[i]->live_bytes &&
		    out->kept < top) {
			keep[act[i] - rows] = true;
			out->kept++;
		}
	}
	free(act);
	return 0;
}

static size_t site_hash(const struct hp_site_key *k)
{
	uint64_t h = k->stack.hash ^ k->caller * 0x9e3779b97f4a7c15ULL;

	h ^= h >> 29;
	h *= 0xbf58476d1ce4e5b9ULL;
	return (size_t)(h ^ (h >> 32));
}

struct heap_usite *heap_usites__get(struct heap_usite *sites, size_t cap,
				    const struct hp_site_key *k)
{
	size_t i = site_hash(k) & (cap - 1), n;

	for (n = 0; n < cap; n++, i = (i + 1) & (cap - 1)) {
		struct heap_usite *s = &sites[i];

		if (!s->used) {
			s->used = true;
			s->key = *k;
			return s;
		}
		if (s->key.stack.hash == k->stack.hash && s->key.stack.nr == k->stack.nr &&
		    s->key.stack.kernel == k->stack.kernel && s->key.caller == k->caller)
			return s;
	}
	return NULL;
}

uint64_t heap_events_ring_bytes(uint64_t interval_ns, uint64_t *records)
{
	/* a record: the event and the ring buffer's 8-byte header, rounded to 8 */
	const uint64_t rec = (sizeof(struct hp_event) + 8 + 7) / 8 * 8;
	double want = (double)interval_ns / 1e9 * (double)HP_EVENTS_RATE * (double)rec;
	uint64_t bytes = HP_RINGBUF_BYTES;

	while (bytes < HP_RINGBUF_MAX_BYTES && (double)bytes < want)
		bytes *= 2;
	if (records)
		*records = bytes / rec;
	return bytes;
}

void heap_events_limit_text(char *buf, size_t len, const char *lane, uint64_t records,
			    uint64_t interval_ns)
{
	double s = (double)interval_ns / 1e9;

	snprintf(buf, len,
		 "--heap-events: the %s keeps %" PRIu64 " records between two polls (--interval "
		 "%.3g s): about %.0f allocations and frees a second; more are lost and counted "
		 "(drop ringbuf)",
		 lane, records, s, s > 0 ? (double)records / s : 0.0);
}

void heap__counters_delta(const uint64_t *now, uint64_t *prev, uint64_t *delta, size_t words)
{
	for (size_t w = 0; w < words; w++) {
		delta[w] = now[w] - prev[w];
		prev[w] = now[w];
	}
}

void heap__site_row(struct heap_site_row *r, struct heap_usite *s, const struct hp_site *cur,
		    uint32_t index, bool live)
{
	memset(r, 0, sizeof(*r));
	r->alloc_count = cur->alloc_count - s->prev.alloc_count;
	r->alloc_bytes = cur->alloc_bytes - s->prev.alloc_bytes;
	if (live) {
		r->freed_count = cur->freed_count - s->prev.freed_count;
		r->lifetime_ns_sum = cur->lifetime_ns_sum - s->prev.lifetime_ns_sum;
		r->live_count = heap__live_total(cur->live_count);
		r->live_bytes = heap__live_total(cur->live_bytes);
		r->oldest_live_ns = r->live_count ? s->oldest : 0;
	}
	r->index = index;
	s->prev = *cur;
}

void heap__snapshot_init(Ptop__V1__HeapSnapshot *hs, Ptop__V1__HeapLane lane, const char *module,
			 bool live_measured, const struct heap_census *census,
			 Ptop__V1__HeapSite **sites, size_t k)
{
	hs->lane_kind = lane;
	hs->lane = (char *)capture_heap_lane_name(lane);
	hs->module = (char *)module;
	hs->sample_bytes = heap_settings.sample_bytes;
	hs->live_measured = live_measured;
	hs->leak_age_ns = heap_settings.leak_age_ns;
	hs->n_sites = k;
	hs->sites = k ? sites : NULL;
	hs->total_call_sites = census->total_call_sites;
	hs->omitted_alloc_count = census->omitted_alloc_count;
	hs->omitted_alloc_bytes = census->omitted_alloc_bytes;
	hs->omitted_live_bytes = live_measured ? census->omitted_live_bytes : 0;
}

int heap_rank__alloc(struct heap_rank *r)
{
	r->rows = calloc(HP_SITE_ENTRIES, sizeof(*r->rows));
	r->keep = calloc(HP_SITE_ENTRIES, sizeof(*r->keep));
	r->row_site = calloc(HP_SITE_ENTRIES, sizeof(*r->row_site));
	r->hs = calloc(HP_SITE_ENTRIES, sizeof(*r->hs));
	r->hsp = calloc(HP_SITE_ENTRIES, sizeof(*r->hsp));
	if (r->rows && r->keep && r->row_site && r->hs && r->hsp)
		return 0;
	heap_rank__free(r);
	return -ENOMEM;
}

void heap_rank__free(struct heap_rank *r)
{
	free(r->rows);
	free(r->keep);
	free(r->row_site);
	free(r->hs);
	free(r->hsp);
	memset(r, 0, sizeof(*r));
}

int heap__fill_sites(struct rec_ctx *ctx, const struct heap_stack_src *src,
		     struct stack_table *table, struct heap_usite *sites,
		     const struct heap_rank *r, size_t nrows, size_t *k)
{
	const struct heap_site_row *rows = r->rows;
	static const Ptop__V1__HeapSite init = PTOP__V1__HEAP_SITE__INIT;
	size_t i;
	int err;

	*k = 0;
	for (i = 0; i < nrows; i++) {
		struct heap_usite *s = &sites[r->row_site[i]];
		Ptop__V1__HeapSite *h = &r->hs[*k];

		if (!r->keep[i])
			continue;
		err = heap_usite__resolve(ctx, src, table, s);
		if (err)
			return err;
		*h = init;
		h->stack_id = s->capid;
		h->alloc_count = rows[i].alloc_count;
		h->alloc_bytes = rows[i].alloc_bytes;
		h->live_count = rows[i].live_count;
		h->live_bytes = rows[i].live_bytes;
		h->freed_count = rows[i].freed_count;
		h->lifetime_ns_sum = rows[i].lifetime_ns_sum;
		h->oldest_live_ns = rows[i].oldest_live_ns;
		r->hsp[(*k)++] = h;
	}
	return 0;
}

int heap_usite__resolve(struct rec_ctx *ctx, const struct heap_stack_src *src,
			struct stack_table *table, struct heap_usite *s)
{
	uint64_t ips[HP_MAX_DEPTH] = { 0 }, sips[HP_MAX_DEPTH + 1];
	size_t n;
	int got;

	if (s->resolved)
		return 0;
	s->resolved = true;	/* once: a stack that cannot be had stays unread */
	if (s->key.stack.kernel == SM_KIND_COPY) {	/* its record came through the ring */
		if (stack_copies__find(stack_copies__capture(), (uint32_t)ctx->pid,
				       s->key.stack.hash, &s->capid)) {
			s->capid = 0;
			s->resolved = false;	/* not drained yet: the next poll */
		}
		return 0;
	}
	got = src->ips(src->arg, s, ips, HP_MAX_DEPTH);
	if (got <= 0)
		return 0;
	n = heap__site_ips(ips, (size_t)got, s->key.caller, sips, HP_MAX_DEPTH + 1);
	return stack_table__emit(ctx, table, false, 0, sips, n, &s->capid);
}

static int map_ips(void *arg, const struct heap_usite *s, uint64_t *ips, size_t max)
{
	return stackmap__read((int)(intptr_t)arg, &s->key.stack, ips, max);
}

struct heap_stack_src heap_stack_src__map(int fd)
{
	struct heap_stack_src src = { .ips = map_ips, .arg = (void *)(intptr_t)fd };

	return src;
}

int heap_peak__alloc(struct heap_peak *pk, size_t rows)
{
	size_t top = heap_settings.top ? heap_settings.top : 1;

	pk->rows = calloc(rows, sizeof(*pk->rows));
	pk->hs = calloc(top, sizeof(*pk->hs));
	pk->hsp = calloc(top, sizeof(*pk->hsp));
	if (pk->rows && pk->hs && pk->hsp)
		return 0;
	heap_peak__free(pk);
	return -ENOMEM;
}

void heap_peak__free(struct heap_peak *pk)
{
	free(pk->rows);
	free(pk->hs);
	free(pk->hsp);
	memset(pk, 0, sizeof(*pk));
}

static int cmp_peak_row(const void *a, const void *b)
{
	const struct heap_peak_row *x = a, *y = b;

	if (x->live_bytes != y->live_bytes)
		return x->live_bytes < y->live_bytes ? 1 : -1;
	return x->site < y->site ? -1 : x->site > y->site;
}

int heap__peak_sites(struct rec_ctx *ctx, const struct heap_stack_src *src,
		     struct stack_table *table, struct heap_usite *sites, struct heap_peak *pk,
		     size_t n, bool sampled, uint64_t mark_bytes, uint64_t mark_ns,
		     Ptop__V1__HeapSnapshot *hs)
{
	static const Ptop__V1__HeapSite init = PTOP__V1__HEAP_SITE__INIT;
	size_t top = heap_settings.top ? heap_settings.top : 1, i;
	double sum = 0, f;
	int err;

	/* sampled: estimates that add up to more than the mark's live total (exact) are
	 * scaled down to it, the samples' split of that total */
	for (i = 0; sampled && i < n; i++)
		sum += (double)pk->rows[i].live_bytes;
	f = sum > (double)mark_bytes ? (double)mark_bytes / sum : 1;
	for (i = 0; f < 1 && i < n; i++) {
		pk->rows[i].live_bytes = (uint64_t)((double)pk->rows[i].live_bytes * f + 0.5);
		pk->rows[i].live_count = (uint64_t)((double)pk->rows[i].live_count * f + 0.5);
	}
	if (n)
		qsort(pk->rows, n, sizeof(*pk->rows), cmp_peak_row);
	n = n < top ? n : top;
	for (i = 0; i < n; i++) {
		struct heap_usite *u = &sites[pk->rows[i].site];

		err = heap_usite__resolve(ctx, src, table, u);
		if (err)
			return err;
		pk->hs[i] = init;
		pk->hs[i].stack_id = u->capid;
		pk->hs[i].live_count = pk->rows[i].live_count;
		pk->hs[i].live_bytes = pk->rows[i].live_bytes;
		pk->hsp[i] = &pk->hs[i];
	}
	hs->peak_sites_live_bytes = mark_bytes;
	hs->peak_sites_time_ns = mark_ns;
	hs->n_peak_sites = n;
	hs->peak_sites = n ? pk->hsp : NULL;
	return 0;
}

size_t heap__read_site_map(int sfd, struct heap_usite *sites, size_t cap, struct heap_rank *r,
			   bool live, heap_site_visit visit, void *arg)
{
	struct hp_site_key key, next;
	void *prev = NULL;
	size_t nrows = 0;
	int guard = 0;

	while (guard++ < 2 * HP_SITE_ENTRIES && bpf_map_get_next_key(sfd, prev, &next) == 0) {
		struct hp_site cur;
		struct heap_usite *s;

		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(sfd, &key, &cur) || nrows == HP_SITE_ENTRIES)
			continue;
		s = heap_usites__get(sites, cap, &key);
		if (!s)
			continue;
		if (visit)
			visit(arg, s, &cur, nrows);
		heap__site_row(&r->rows[nrows], s, &cur, (uint32_t)nrows, live);
		r->row_site[nrows] = (size_t)(s - sites);
		nrows++;
	}
	return nrows;
}

int heap__emit_snapshot(struct rec_ctx *ctx, Ptop__V1__HeapSnapshot *hs, uint64_t now_ns,
			uint64_t interval_ns)
{
	Ptop__V1__Event ev = PTOP__V1__EVENT__INIT;

	ev.payload_case = PTOP__V1__EVENT__PAYLOAD_HEAP;
	ev.heap = hs;
	return rec_emit_event(ctx, &ev, PTOP__V1__CATEGORY__CATEGORY_HEAP, now_ns, interval_ns);
}
