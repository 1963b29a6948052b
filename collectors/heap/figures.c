/* figures.c — the heap collector's figures (analyze/figures.h): live and allocated bytes, the
 * allocation rate, and per allocating function, from heap_sites__load (report.c), the loading
 * `report heap` prints from. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/figures.h"
#include "analyze/part.h"
#include "collectors/heap/report.h"

static void sites_free(void *p)
{
	heap_sites__free(p);
}

/* The window's sites, loaded once for every heap figure; NULL on error (*ERR set). */
static struct heap_sites *sites(struct fig_ctx *c, int *err)
{
	struct heap_sites *hs = fig_ctx__get(c, "heap");

	*err = 0;
	if (hs)
		return hs;
	*err = heap_sites__load(c->db, c->m, &c->w, false, &hs);
	if (*err)
		return NULL;
	*err = fig_ctx__put(c, "heap", hs, sites_free);
	return *err ? NULL : hs;
}

static bool none_in_window(const struct heap_sites *hs, struct fig_family *fam)
{
	if (hs->n_snap)
		return false;
	fig_family__not_measured(fam, "no heap snapshot in the window");
	return true;
}

static int total(struct fig_ctx *c, const struct an_figure *f, struct fig_family *fam)
{
	int err;
	struct heap_sites *hs = sites(c, &err);

	if (!hs)
		return err;
	if (none_in_window(hs, fam))
		return 0;
	if (!strcmp(f->name, "heap.live_bytes")) {
		if (hs->live_bytes < 0) {
			fig_family__not_measured(fam, "live bytes not measured (frees not seen)");
			return 0;
		}
		return fig_family__add(fam, NULL, (double)hs->live_bytes, 0);
	}
	if (!strcmp(f->name, "heap.alloc_bytes"))
		return fig_family__add(fam, NULL, (double)hs->alloc_bytes, 0);
	if (!strcmp(f->name, "heap.sample_bytes"))
		return fig_family__add(fam, NULL, (double)hs->sample_bytes, 0);
	/* heap.alloc_rate */
	if (!(c->span_s > 0)) {
		fig_family__not_measured(fam, "the window holds no time of the capture");
		return 0;
	}
	fam->exposure_s = c->span_s;
	return fig_family__add(fam, NULL, (double)hs->alloc_count / c->span_s, hs->alloc_count);
}

static int per_site(struct fig_ctx *c, const struct an_figure *f, struct fig_family *fam)
{
	struct fig_site *s = NULL;
	char **names = NULL;
	bool live = !strcmp(f->name, "heap.site(*).live_bytes");
	bool count = !strcmp(f->name, "heap.site(*).alloc_count");
	int err;
	struct heap_sites *hs = sites(c, &err);

	if (!hs)
		return err;
	if (none_in_window(hs, fam))
		return 0;
	if (live && !hs->live_measured) {
		fig_family__not_measured(fam, "live bytes not measured (frees not seen)");
		return 0;
	}
	fam->complete = hs->complete;
	if (!hs->complete)
		snprintf(fam->note, sizeof(fam->note), "%s", hs->census);
	s = calloc(hs->n + 1, sizeof(*s));
	names = calloc(hs->n + 1, sizeof(*names));
	if (!s || !names) {
		err = -ENOMEM;
		goto cleanup;
	}
	for (size_t k = 0; k < hs->n; k++)
		s[k] = (struct fig_site){hs->site[k].func, hs->site[k].module, hs->site[k].file,
					 hs->site[k].line, hs->site[k].named};
	err = fig_site__names(s, hs->n, names);
	/* sampled, a site's figures are estimates: the samples behind its live bytes are
	 * about live_bytes / sample_bytes, behind its allocations alloc_bytes / sample_bytes */
	fam->sample_bytes = (double)hs->sample_bytes;
	for (size_t k = 0; k < hs->n && !err; k++) {
		const struct heap_site *x = &hs->site[k];
		double v = live ? (double)x->live_bytes
			 : count ? (double)x->alloc_count
				 : (double)x->alloc_bytes;

		err = fig_family__accumulate_est(fam, names[k], v,
						 live ? (double)x->live_bytes
						      : (double)x->alloc_bytes);
	}
cleanup:
	for (size_t k = 0; names && k < hs->n; k++)
		free(names[k]);
	free(names);
	free(s);
	return err;
}

static const struct an_figure live_bytes = {
	"heap.live_bytes", "heap", FIG_BYTES, true, false, FIG_TEST_NONE,
	"bytes allocated and not freed at the window's end", total,
};
static const struct an_figure alloc_bytes = {
	"heap.alloc_bytes", "heap", FIG_BYTES, true, false, FIG_TEST_NONE,
	"bytes allocated over the window", total,
};
static const struct an_figure alloc_rate = {
	"heap.alloc_rate", "heap", FIG_RATE, true, false, FIG_TEST_POISSON,
	"allocations per second of the window", total,
};
static const struct an_figure sample_bytes = {
	"heap.sample_bytes", "heap", FIG_BYTES, false, true, FIG_TEST_NONE,
	"the heap's sampling period (0: exact)", total,
};
static const struct an_figure site_live = {
	"heap.site(*).live_bytes", "heap", FIG_BYTES, true, false, FIG_TEST_NONE,
	"live bytes of allocating function F at the end (estimated when sampled)", per_site,
};
static const struct an_figure site_bytes = {
	"heap.site(*).alloc_bytes", "heap", FIG_BYTES, true, false, FIG_TEST_NONE,
	"bytes allocated by function F over the window (estimated when sampled)", per_site,
};
static const struct an_figure site_count = {
	"heap.site(*).alloc_count", "heap", FIG_COUNT, true, false, FIG_TEST_NONE,
	"allocations by function F over the window (estimated when sampled)", per_site,
};

const struct an_figure *const heap_figures[] = {
	&live_bytes, &alloc_bytes, &alloc_rate, &sample_bytes,
	&site_live,  &site_bytes,  &site_count, NULL,
};
