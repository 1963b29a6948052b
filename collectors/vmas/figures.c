/* figures.c — the vmas collector's figures (analyze/figures.h): per mapping group (a file,
 * [heap], [stack], [anon:NAME], [anon]; a file by its base name) its RSS and PSS in the window's last snapshot, from
 * vma_snaps__load and vma_groups__load (report.c), the groups `report vma` prints. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/figures.h"
#include "analyze/part.h"

/* Between identical runs a group's resident pages vary: the stack's depth, a page touched or
 * not, and for a file the kernel's fault-around mapping up to 64 KiB (fault_around_bytes) at
 * a fault. A change of less than four such is not claimed. */
#define PROC_RESOLUTION (256 << 10)

static int compute(struct fig_ctx *c, const struct an_figure *f, struct fig_family *fam)
{
	enum vma_fig which = !strcmp(f->name, "vma.group(*).pss") ? VMA_PSS : VMA_RSS;
	struct vma_snap *s = NULL;
	struct vma_group *g = NULL;
	size_t ns = 0, ng = 0;
	int err;

	err = vma_snaps__load(c->db, c->m, &c->w, &s, &ns);
	if (err)
		return err;
	if (!ns) {
		free(s);
		fig_family__not_measured(fam, "no VMA snapshot in the window");
		return 0;
	}
	err = vma_groups__load(c->db, c->m->cap, s[ns - 1].id, &g, &ng);
	fam->before_end_s = fig_ctx__before_end_s(c, s[ns - 1].time_ns); /* a state at one moment */
	/* a snapshot lists every mapping: a group not in it has none. A file's group is
	 * named by its base name, so a build installed elsewhere matches (files of one base
	 * name in two folders are summed) */
	for (size_t k = 0; !err && k < ng; k++) {
		const char *slash = g[k].name[0] == '/' ? strrchr(g[k].name, '/') : NULL;

		if (g[k].v[which] >= 0)
			err = fig_family__accumulate(fam, slash ? slash + 1 : g[k].name,
						     (double)g[k].v[which], 0);
	}
	vma_groups__free(g, ng);
	free(s);
	return err;
}

static const struct an_figure rss = {
	"vma.group(*).rss", "vmas", FIG_BYTES, true, false, FIG_TEST_NONE,
	"RSS of mapping group NAME in the window's last VMA snapshot", compute,
	.resolution = PROC_RESOLUTION,
};
static const struct an_figure pss = {
	"vma.group(*).pss", "vmas", FIG_BYTES, true, false, FIG_TEST_NONE,
	"PSS of mapping group NAME in the window's last VMA snapshot", compute,
	.resolution = PROC_RESOLUTION,
};

const struct an_figure *const vmas_figures[] = { &rss, &pss, NULL };
