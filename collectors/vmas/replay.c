/* replay.c — the vmas collector's replay series (replay.h): its snapshots, each a timeline
 * event; a snapshot's VMA groups (cached) and one group's VMAs, read when shown. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "analyze/report.h"
#include "collectors/vmas/report.h"
#include "collectors/vmas/replay.h"

static void snap_row(sqlite3_stmt *st, void *element)
{
	*(struct rm_vma_snap *)element = (struct rm_vma_snap){.id = sqlite3_column_int64(st, 0),
							      .t = sqlite3_column_int64(st, 1),
							      .vma_count = rm_col(st, 2)};
}

static int vmas_open(struct replay_model *m, void *state)
{
	static const char sql[] = "SELECT snapshot_id, time_ns - ?2, vma_count FROM vma_snapshot "
				  "WHERE cap = ?1 ORDER BY time_ns, snapshot_id";
	struct vmas_series *r = state;
	int err;

	r->groups_snap = RM_NULL;
	err = replay_model__read(m, sql, &r->snaps, &r->nsnaps, sizeof(*r->snaps), snap_row);
	if (!err && r->nsnaps) /* the recording lasts at least to its last snapshot */
		replay_model__covers(m, r->snaps[r->nsnaps - 1].t);
	return err;
}

int vmas_series__groups(const struct replay_model *m, struct vmas_series *r, size_t si,
			const struct rm_vma_group **out, size_t *n)
{
	struct vma_group *g = NULL;
	size_t ng = 0, k;
	int err;

	*out = NULL;
	*n = 0;
	if (si >= r->nsnaps)
		return -EINVAL;
	if (r->groups_snap == r->snaps[si].id)
		goto done;
	free(r->groups);
	r->groups = NULL;
	r->ngroups = 0;
	r->groups_snap = RM_NULL;
	/* the groups `report vma` shows, in its order */
	err = vma_groups__load(m->db, m->meta.cap, r->snaps[si].id, &g, &ng);
	if (err)
		return err;
	if (ng) {
		r->groups = calloc(ng, sizeof(*r->groups));
		if (!r->groups) {
			vma_groups__free(g, ng);
			return -ENOMEM;
		}
	}
	for (k = 0; k < ng; k++) {
		struct rm_vma_group *gr = &r->groups[k];

		snprintf(gr->name, sizeof(gr->name), "%s", g[k].name);
		gr->vmas = g[k].vmas;
		gr->size = g[k].v[VMA_SIZE];
		gr->rss = g[k].v[VMA_RSS];
		gr->pss = g[k].v[VMA_PSS];
		gr->uss = g[k].v[VMA_USS];
		gr->swap = g[k].v[VMA_SWAP];
	}
	r->ngroups = ng;
	vma_groups__free(g, ng);
	r->groups_snap = r->snaps[si].id;
done:
	*out = r->groups;
	*n = r->ngroups;
	return 0;
}

static void vma_row(sqlite3_stmt *st, void *element)
{
	struct rm_vma *x = element;

	x->start = (uint64_t)sqlite3_column_int64(st, 0);
	x->end = (uint64_t)sqlite3_column_int64(st, 1);
	rm_col_str(st, 2, x->perms, sizeof(x->perms));
	x->offset = rm_col(st, 3);
	x->size = rm_col(st, 4);
	x->rss = rm_col(st, 5);
	x->pss = rm_col(st, 6);
	x->uss = rm_col(st, 7);
	x->swap = rm_col(st, 8);
}

int vmas_series__vmas(const struct replay_model *m, const struct vmas_series *r, size_t si,
		      const char *group, struct rm_vma **out, size_t *n)
{
	static const char sql[] =
	    "SELECT start, end, perms, offset, size, rss, pss, uss, swap FROM vma "
	    "WHERE cap = ?1 AND snapshot_id = ?2 AND (CASE WHEN path IS NULL OR path = '' "
	    "THEN '[anon]' ELSE path END) = ?3 ORDER BY start";
	struct rm_vma *v = NULL;
	sqlite3_stmt *st = NULL;
	size_t nv = 0;
	int err;

	*out = NULL;
	*n = 0;
	if (si >= r->nsnaps)
		return -EINVAL;
	if (sqlite3_prepare_v2(m->db, sql, -1, &st, NULL) != SQLITE_OK)
		return -EIO;
	sqlite3_bind_int64(st, 1, m->meta.cap);
	sqlite3_bind_int64(st, 2, r->snaps[si].id);
	sqlite3_bind_text(st, 3, group, -1, SQLITE_TRANSIENT);
	err = rm_rows(st, &v, &nv, sizeof(*v), vma_row);
	sqlite3_finalize(st);
	if (err) {
		free(v);
		return err;
	}
	*out = v;
	*n = nv;
	return 0;
}

static void vmas_free(void *state)
{
	struct vmas_series *r = state;

	free(r->snaps);
	free(r->groups);
}

/* each snapshot is a timeline event */
static int vmas_events(struct replay_model *m, const void *state)
{
	const struct vmas_series *r = state;
	size_t i;
	int err = 0;

	for (i = 0; i < r->nsnaps && !err; i++)
		err = replay_model__event(m, r->snaps[i].t, false, "vma snapshot", "%lld VMAs",
					  (long long)r->snaps[i].vma_count);
	return err;
}

ssize_t vmas_series__at(const struct vmas_series *r, int64_t t)
{
	return rm_times__at(RM_TIMES(r->snaps, r->nsnaps), t);
}

const struct replay_series vmas_replay = {
    .what = "VMA snapshots",
    .state_size = sizeof(struct vmas_series),
    .open = vmas_open,
    .free = vmas_free,
    .events = vmas_events,
};
