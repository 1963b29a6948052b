/* replay.h — the vmas collector's replay series (replay.c): its snapshots' times, read once when
 * the replay model opens, each a timeline event; a snapshot's VMA groups and one group's VMAs,
 * read when shown. The memory collector's view draws them (collectors/memory/view.c).
 */
#ifndef PTOP_COLLECTORS_VMAS_REPLAY_H
#define PTOP_COLLECTORS_VMAS_REPLAY_H

#include "analyze/replay_model.h"

struct rm_vma_snap {
	int64_t id, t, vma_count;
};

struct rm_vma_group {
	char name[128];				 /* the path, or [anon] for anonymous mappings */
	int64_t vmas, size, rss, pss, uss, swap; /* bytes or RM_NULL */
};

struct rm_vma {
	uint64_t start, end;
	char perms[8];
	int64_t offset, size, rss, pss, uss, swap; /* RM_NULL when not measured */
};

struct vmas_series {
	struct rm_vma_snap *snaps; /* by time */
	size_t nsnaps;
	/* the VMA groups of one snapshot, cached */
	int64_t groups_snap; /* snapshot id cached, RM_NULL: none */
	struct rm_vma_group *groups;
	size_t ngroups;
};

/* M's vmas series (never NULL: the model holds one for every capture). */
static inline struct vmas_series *vmas_series(const struct replay_model *m)
{
	return replay_model__state(m, "vmas");
}

/* Index of the last snapshot at or before T; -1 when none. */
ssize_t vmas_series__at(const struct vmas_series *r, int64_t t);

/* The VMA groups (one per path, anonymous ones together as [anon]) of snapshot index SI, sorted
 * by PSS (else RSS, else size) descending. *OUT points into R (valid until the next call).
 * 0, or -errno (-EIO on an SQLite error, -ENOMEM). */
int vmas_series__groups(const struct replay_model *m, struct vmas_series *r, size_t si,
			const struct rm_vma_group **out, size_t *n);

/* The VMAs of group GROUP (a path, or [anon]) in snapshot index SI, by address. *OUT is malloc'd
 * (caller frees). 0, -EINVAL (no such snapshot), -EIO, -ENOMEM. */
int vmas_series__vmas(const struct replay_model *m, const struct vmas_series *r, size_t si,
		      const char *group, struct rm_vma **out, size_t *n);

#endif
