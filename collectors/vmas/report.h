/* report.h — the vmas collector's `report vma` (report.c) and the snapshot and group
 * loaders it shares with its figures, the replay viewer and the memory report. */
#ifndef PTOP_VMAS_REPORT_H
#define PTOP_VMAS_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <sqlite3.h>

#include "analyze/report.h"

/* One row of vma_snapshot. Figures NULL in the DB are -1. */
struct vma_snap {
	int64_t id, time_ns;
	bool final;
	int64_t vma_count, walk_ns, budget_ns, skipped_walks;
};

/* The VMA snapshots of capture M in window W, by time. *OUT is malloc'd (caller
 * frees). 0, -ENOMEM, -EIO. */
int vma_snaps__load(sqlite3 *db, const struct capture_meta *m, const struct window *w,
		    struct vma_snap **out, size_t *n);

enum vma_fig { VMA_SIZE, VMA_RSS, VMA_PSS, VMA_USS, VMA_ANON, VMA_SWAP, VMA_FIGS };

/* The mappings of one snapshot aggregated by name: the path as smaps prints it
 * (a file, [heap], [stack], [vdso], [anon:NAME]...), [anon] for an anonymous
 * mapping without a name. v[] by enum vma_fig, bytes summed over its VMAs. */
struct vma_group {
	char *name;
	int64_t vmas;
	int64_t v[VMA_FIGS];
};

/* The groups of snapshot SNAPSHOT_ID of capture CAP, by PSS descending (then
 * RSS, then name). *OUT is malloc'd: free with vma_groups__free(*OUT, *N)
 * (accepts NULL). 0, -ENOMEM, -EIO. */
int vma_groups__load(sqlite3 *db, int64_t cap, int64_t snapshot_id, struct vma_group **out,
		     size_t *n);
void vma_groups__free(struct vma_group *g, size_t n);

/* A group that changed between two snapshots. */
struct vma_growth {
	const char *name;		      /* points into the groups compared */
	const char *change;		      /* grew | shrank | resized | appeared | vanished */
	const struct vma_group *first, *last; /* NULL where absent */
	int64_t d_size, d_rss, d_pss;	      /* last - first, absent as 0 */
};

/* Compare groups A (the first snapshot) with B (the last): one entry per name
 * that grew (PSS, else RSS up), shrank, only changed its size or VMA count
 * (resized), appeared or vanished; unchanged names are left out. By |PSS delta|
 * descending, then |RSS delta|, then name. *OUT (malloc'd, caller frees) points
 * into A and B. 0 or -ENOMEM. */
int vma_growth__compute(const struct vma_group *a, size_t na, const struct vma_group *b,
			size_t nb, struct vma_growth **out, size_t *n);

/* `report vma`'s own options (o->own) */
struct vma_opts {
	const char *mapping; /* --mapping NAME, one group's VMAs; NULL: the groups */
	bool growth;	     /* --growth, the first and last snapshots compared */
};

/* The report: print to OUT in o->fmt. Returns 0, or -errno for an internal
 * failure (the caller maps it to the exit code); -EBADMSG for figures no capture can
 * hold (a corrupt DB, said on stderr: "corrupt DB: ..."). A probe that was not active
 * makes the report say "not collected" (JSON: "collected": false) and return 0. */
int report_vma(sqlite3 *db, const char *capture_id, const struct report_opts *o, FILE *out);

#endif
