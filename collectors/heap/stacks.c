/* stacks.c — the heap collector's stack columns (analyze/symbolize.h): the allocation
 * stacks of its call sites, each taken in the interval of its snapshot; and its profile,
 * `export --profile heap` (analyze/export.h), from heap_stacks__load (report.c). */
#include "collectors/heap/stacks.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/part.h"
#include "analyze/symbolize.h"

static const struct an_stack_col site_stack = {
	.table = "heap_site",
	.column = "stack_id",
	.kind = "user",
	.from = "heap_site JOIN heap_snapshot h USING (cap, seq)",
	.pid = "h.pid",
	.time = "h.time_ns - COALESCE(h.interval_ns, 0)",
};

const struct an_stack_col *const heap_stack_cols[] = { &site_stack, NULL };

/* ------------------------------------------------------------ export --profile heap */

/* The frame standing for the stackless entries of a heap profile ("[no stack]", ...). */
struct pseudo {
	struct prof_loc loc;
	struct prof_func f;
	struct prof_loc *locp;
};

/* What the samples of a heap profile hold besides their stacks' locations (HS's). */
struct heap_export {
	const struct heap_stacks *hs;
	struct heap_stacks *owned; /* HS when the samples own it */
	struct pseudo *ps;	   /* per entry, its pseudo frame when stackless */
};

static void heap_release(struct prof_samples *s)
{
	struct heap_export *x = s->priv;

	if (s->p)
		free(s->p->stacks);
	free(s->p);
	s->p = NULL;
	if (x) {
		free(x->ps);
		heap_stacks__free(x->owned);
		free(x);
	}
	s->priv = NULL;
}

/* HS as samples: a profile of its stacks (shallow: the locations are HS's, the stackless
 * entries one pseudo frame each), weighted for folded by live bytes (LIVE) or bytes
 * allocated; with the pprof values when VALUES. S->release frees what it made. 0,
 * -ENOMEM or -EOVERFLOW. */
static int heap_samples(const struct heap_stacks *hs, bool live, bool values,
			struct prof_samples *s)
{
	struct heap_export *x = calloc(1, sizeof(*x));
	struct profile *p = calloc(1, sizeof(*p));

	*s = (struct prof_samples){
	    .p = p,
	    .n_types = hs->live_measured ? 4 : 2,
	    .type = {"alloc_objects", "alloc_space", "inuse_objects", "inuse_space"},
	    .unit = {"count", "bytes", "count", "bytes"},
	    .period_type = "space",
	    .period_unit = "bytes",
	    .default_type = hs->live_measured ? "inuse_space" : "alloc_space",
	    .period = hs->sample_bytes > INT64_MAX ? INT64_MAX : (int64_t)hs->sample_bytes,
	    .t0_ns = hs->t0_ns,
	    .t1_ns = hs->t1_ns,
	    .skip_zero = true,
	    .priv = x,
	    .release = heap_release,
	};
	if (!x || !p)
		return -ENOMEM;
	x->hs = hs;
	p->stacks = calloc(hs->n + 1, sizeof(*p->stacks));
	x->ps = calloc(hs->n + 1, sizeof(*x->ps));
	s->values = values ? calloc(4 * (hs->n + 1), sizeof(*s->values)) : NULL;
	if (!p->stacks || !x->ps || (values && !s->values))
		return -ENOMEM;
	p->n_stacks = hs->n;
	p->t0_ns = hs->t0_ns;
	p->t1_ns = hs->t1_ns;
	for (size_t k = 0; k < hs->n; k++) {
		const struct heap_stack *e = &hs->stack[k];
		uint64_t v[4] = {e->alloc_count, e->alloc_bytes, e->live_count, e->live_bytes};
		struct prof_stack *st = &p->stacks[k];
		struct pseudo *ps = &x->ps[k];

		for (size_t i = 0; values && i < s->n_types; i++) {
			if (v[i] > INT64_MAX)
				return -EOVERFLOW;
			s->values[k * s->n_types + i] = (int64_t)v[i];
		}
		if (e->stack) {
			*st = *e->stack;
			st->pid = 0;
		} else {
			ps->f.func = e->what;
			ps->loc.kind = FRAME_UNKNOWN;
			ps->loc.module = e->what;
			ps->loc.n = 1;
			ps->loc.f = &ps->f;
			ps->locp = &ps->loc;
			st->n = 1;
			st->loc = &ps->locp;
		}
		st->count = live ? e->live_bytes : e->alloc_bytes;
	}
	return 0;
}

int export_heap_pprof(const struct heap_stacks *hs, int64_t time_nanos, uint8_t **out,
		      size_t *outlen)
{
	struct prof_samples s;
	int err = heap_samples(hs, hs->live_measured, true, &s);

	*out = NULL;
	*outlen = 0;
	if (!err)
		err = prof_samples__pprof(&s, time_nanos, out, outlen);
	prof_samples__free(&s);
	return err;
}

int export_heap_folded(const struct heap_stacks *hs, bool live, FILE *f)
{
	struct prof_samples s;
	int err = heap_samples(hs, live, false, &s);

	if (!err)
		err = prof_samples__folded(&s, f);
	prof_samples__free(&s);
	return err;
}

/* The heap's stacks in R's window, their frames named, or why not (said). */
static int heap_export_load(const struct prof_req *r, struct prof_samples *s)
{
	struct heap_stacks *hs = NULL;
	int rc = export__symbolize(r);

	rc = rc ?: heap_stacks__load(r->db, r->m, r->w, &hs);
	if (!rc && !hs->collected) {
		export__say("heap: not collected in this capture (%s: %s): nothing to export",
			    hs->probe.state,
			    hs->probe.reason[0] ? hs->probe.reason : "no reason recorded");
		rc = -ENODATA;
	} else if (!rc && r->by && !strcmp(r->by, "live") && !hs->live_measured) {
		export__say("the live heap was not measured in this capture (the Go lane counts "
			    "allocations only): --by allocated");
		rc = -ENODATA;
	}
	if (rc) {
		heap_stacks__free(hs);
		return rc;
	}
	rc = heap_samples(hs, (!r->by || !strcmp(r->by, "live")) && hs->live_measured, r->pprof,
			  s);
	if (s->priv)
		((struct heap_export *)s->priv)->owned = hs;
	else
		heap_stacks__free(hs);
	return rc;
}

static void heap_export_done(const struct prof_req *r, const struct prof_samples *s)
{
	const struct heap_stacks *hs = ((const struct heap_export *)s->priv)->hs;
	char a[32], b[32], sb[32];

	if (!hs->n_snap)
		export__say("warning: no heap snapshot%s",
			    r->w->has_start || r->w->has_end ? " in this window" : "");
	else if (!hs->live_measured && r->pprof)
		export__say("warning: the live heap was not measured (the Go lane): "
			    "alloc_objects and alloc_space only");
	if (hs->unsampled_alloc_bytes || hs->unsampled_live_bytes)
		export__say("note: sampled heap (one stack per %s on average): the sites are the "
			    "samples' estimates; %s allocated and %s live at the end fell on no "
			    "sample and are the entry [not sampled], not a function (record with "
			    "--heap-sample-bytes 0 for every allocation's stack)",
			    fmt_bytes(sb, sizeof(sb), hs->sample_bytes),
			    fmt_bytes(a, sizeof(a), hs->unsampled_alloc_bytes),
			    fmt_bytes(b, sizeof(b), hs->unsampled_live_bytes));
}

static const char *const heap_by[] = { "live", "allocated", NULL };

static const struct an_profile heap_profile = {
	.name = "heap",
	.help = "the heap: pprof with Go's alloc_objects, alloc_space,\n"
		"inuse_objects, inuse_space; folded in bytes",
	.tables = "heap_snapshot,heap_site",
	.by = heap_by,
	.by_help = "heap, folded: live bytes at the last snapshot (default)\n"
		   "or bytes allocated in the window",
	.overflow = "a heap figure passes 2^63",
	.load = heap_export_load,
	.done = heap_export_done,
};

const struct an_profile *const heap_profiles[] = { &heap_profile, NULL };
