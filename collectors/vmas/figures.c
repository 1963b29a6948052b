/* figures.c — the vmas collector's figures (analyze/figures.h): per mapping group (a file,
 * [heap], [stack], [anon:NAME], [anon]; a file by its base name) its RSS and PSS at their largest
 * over the window's snapshots, ptop's own mappings left out, from
 * vma_snaps__load and vma_groups__load (report.c), the groups `report vma` prints. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/figures.h"
#include "analyze/part.h"
#include "common/array.h"
#include "common/probe_mapping.h"
#include "collectors/vmas/report.h"

/* Between identical runs a group's resident pages vary: the stack's depth, a page touched or
 * not, and for a file the kernel's fault-around mapping up to 64 KiB (fault_around_bytes) at
 * a fault. A change of less than four such is not claimed. */
#define PROC_RESOLUTION (256 << 10)

/* A group's peak over the window's snapshots: a snapshot at one moment differs by when it
 * fell (the last one, taken as the target exits, may miss [heap] whole); the peak is like
 * with like. Fewer snapshots than VMA_MIN_SNAPSHOTS on a side are too few for diff. */
#define VMA_MIN_SNAPSHOTS 3

static int compute(struct fig_ctx *c, const struct an_figure *f, struct fig_family *fam)
{
	enum vma_fig which = !strcmp(f->name, "vma.group(*).pss") ? VMA_PSS : VMA_RSS;
	struct vma_snap *s = NULL;
	struct fig_series *ser = NULL; /* per instance of FAM, in its order */
	size_t ns = 0, nser = 0;
	int err;

	err = vma_snaps__load(c->db, c->m, &c->w, &s, &ns);
	if (err)
		return err;
	if (!ns) {
		free(s);
		fig_family__not_measured(fam, "no VMA snapshot in the window");
		return 0;
	}
	fam->before_end_s = fig_ctx__before_end_s(c, s[ns - 1].time_ns); /* the last one */
	/* a snapshot lists every mapping: a group not in it has none there. A file's group is
	 * named by its base name, so a build installed elsewhere matches (files of one base
	 * name in two folders are summed). ptop's own mappings (the preload lane's memfd)
	 * are probe overhead, not the target's: left out */
	for (size_t i = 0; !err && i < ns; i++) {
		struct vma_group *g = NULL;
		size_t ng = 0;
		struct fig_family snap = {.fig = f};

		err = vma_groups__load(c->db, c->m->cap, s[i].id, &g, &ng);
		for (size_t k = 0; !err && k < ng; k++) {
			const char *slash = g[k].name[0] == '/' ? strrchr(g[k].name, '/') : NULL;

			if (g[k].v[which] >= 0 && !probe_mapping__is(g[k].name))
				err = fig_family__accumulate(&snap, slash ? slash + 1 : g[k].name,
							     (double)g[k].v[which], 0);
		}
		/* a group first seen now was 0 in the snapshots before */
		for (size_t k = 0; !err && k < snap.n; k++) {
			if (fig_family__find(fam, snap.val[k].arg))
				continue;
			err = fig_family__add(fam, snap.val[k].arg, 0, 0);
			if (!err && array__grow((void **)&ser, &nser, fam->n - 1, sizeof(*ser)))
				err = -ENOMEM;
			if (err)
				break;
			memset(&ser[fam->n - 1], 0, sizeof(*ser));
			for (size_t j = 0; j < i; j++)
				fig_series__add(&ser[fam->n - 1], 0);
		}
		for (size_t k = 0; !err && k < fam->n; k++) {
			const struct fig_value *v = fig_family__find(&snap, fam->val[k].arg);

			fig_series__add(&ser[k], v ? v->v : 0);
		}
		for (size_t k = 0; k < snap.n; k++)
			free(snap.val[k].arg);
		free(snap.val);
		vma_groups__free(g, ng);
	}
	/* each group's peak over the snapshots, and how far a snapshot next to it moved */
	fam->samples = ns;
	for (size_t k = 0; !err && k < fam->n; k++) {
		fam->val[k].v = ser[k].peak;
		fam->val[k].spread = ser[k].peak_spread;
		fam->val[k].count = ns;
	}
	free(ser);
	free(s);
	return err;
}

static const struct an_figure rss = {
	"vma.group(*).rss", "vmas", FIG_BYTES, true, false, FIG_TEST_NONE,
	"RSS of mapping group NAME at its largest over the window's VMA snapshots", compute,
	.resolution = PROC_RESOLUTION, .min_count = VMA_MIN_SNAPSHOTS,
};
static const struct an_figure pss = {
	"vma.group(*).pss", "vmas", FIG_BYTES, true, false, FIG_TEST_NONE,
	"PSS of mapping group NAME at its largest over the window's VMA snapshots", compute,
	.resolution = PROC_RESOLUTION, .min_count = VMA_MIN_SNAPSHOTS,
};

const struct an_figure *const vmas_figures[] = { &rss, &pss, NULL };
