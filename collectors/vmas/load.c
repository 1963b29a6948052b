/* load.c — the vmas collector's loader (analyze/load.h): each VmaSnapshot is a
 * vma_snapshot row and a vma_entry row per VMA; the (perms, dev, inode, path) the
 * VMAs share are stored once per capture in vma_file (the view vma joins them).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/hash.h"
#include "analyze/load.h"

enum { ST_SNAPSHOT, ST_ENTRY, ST_FILE, ST_N };

/* The vma_file rows of this load, found by their (perms, dev, inode, path):
 * an open-addressing table of keys, each owned by it. */
struct vma_file_slot {
	char *key;		/* NULL: empty slot */
	size_t len;
	uint64_t hash;
	int64_t file_id;
};

struct vma_files {
	struct vma_file_slot *slot;
	size_t cap, n;		/* cap: a power of two, or 0 */
	char *scratch;		/* the key being looked up */
	size_t scratch_cap;
};

/* Per load: the snapshot ids given, the vma_file rows written. */
struct vmas_state {
	int64_t next_snapshot;	/* vma_snapshot.snapshot_id */
	struct vma_files files;	/* vma_file rows of this load */
};

static void vma_files__free(struct vma_files *f)
{
	for (size_t k = 0; k < f->cap; k++)
		free(f->slot[k].key);
	free(f->slot);
	free(f->scratch);
	memset(f, 0, sizeof(*f));
}

/* Append field S to the key being built: a marker byte (absent / present) and
 * the string with its NUL, so no two field lists make the same key. */
static int key_put(struct vma_files *f, size_t *len, const char *s, bool present)
{
	size_t n = present ? strlen(s) + 1 : 0;

	if (*len + n + 1 > f->scratch_cap) {
		size_t cap = f->scratch_cap ? f->scratch_cap : 256;
		char *p;

		while (cap < *len + n + 1)
			cap *= 2;
		p = realloc(f->scratch, cap);
		if (!p)
			return -ENOMEM;
		f->scratch = p;
		f->scratch_cap = cap;
	}
	f->scratch[(*len)++] = present ? 1 : 0;
	memcpy(f->scratch + *len, s, n);
	*len += n;
	return 0;
}

static const char file_sql[] =
	"INSERT INTO vma_file (cap, file_id, perms, dev, inode, path)";

/* The vma_file row of V's (perms, dev, inode, path) as the loader stores them
 * (empty perms and dev are NULL, an empty path stays ''): found, or inserted
 * with the next file_id. 0 or -errno. */
static int vma_file_id(struct load_ctx *l, const Ptop__V1__Vma *v, int64_t *id)
{
	struct vma_files *f = &((struct vmas_state *)l->state)->files;
	sqlite3_stmt *s = l->st[ST_FILE];
	char inode[24];
	size_t len = 0, k;
	uint64_t h;
	int err;

	snprintf(inode, sizeof(inode), "%" PRIu64, v->inode);
	err = key_put(f, &len, v->perms ? v->perms : "", v->perms && *v->perms);
	err = err ?: key_put(f, &len, v->dev ? v->dev : "", v->dev && *v->dev);
	err = err ?: key_put(f, &len, inode, true);
	err = err ?: key_put(f, &len, v->path ? v->path : "", true);
	if (err)
		return err;
	h = fnv1a64_bytes(FNV1A64_INIT, f->scratch, len);
	for (k = f->cap ? h & (f->cap - 1) : 0; f->cap && f->slot[k].key; k = (k + 1) & (f->cap - 1)) {
		if (f->slot[k].hash == h && f->slot[k].len == len &&
		    !memcmp(f->slot[k].key, f->scratch, len)) {
			*id = f->slot[k].file_id;
			return 0;
		}
	}
	if (2 * (f->n + 1) > f->cap) { /* keep the table at most half full */
		size_t cap = f->cap ? 2 * f->cap : 64;
		struct vma_file_slot *slot = calloc(cap, sizeof(*slot));

		if (!slot)
			return -ENOMEM;
		for (size_t i = 0; i < f->cap; i++) {
			if (!f->slot[i].key)
				continue;
			for (k = f->slot[i].hash & (cap - 1); slot[k].key; k = (k + 1) & (cap - 1))
				;
			slot[k] = f->slot[i];
		}
		free(f->slot);
		f->slot = slot;
		f->cap = cap;
		for (k = h & (cap - 1); slot[k].key; k = (k + 1) & (cap - 1))
			;
	}
	f->slot[k].key = malloc(len);
	if (!f->slot[k].key)
		return -ENOMEM;
	memcpy(f->slot[k].key, f->scratch, len);
	f->slot[k].len = len;
	f->slot[k].hash = h;
	f->slot[k].file_id = (int64_t)++f->n;
	*id = f->slot[k].file_id;

	bind_cap(l, s);
	bind_i64(s, 2, *id);
	bind_opt_text(s, 3, v->perms);
	bind_opt_text(s, 4, v->dev);
	bind_u64(s, 5, v->inode);
	bind_text(s, 6, v->path);
	err = load__step(l, ST_FILE);
	if (!err)
		l->run->rows--; /* a part shared by vma rows, not a row of the vma view */
	return err;
}

static const char snapshot_sql[] =
	"INSERT INTO vma_snapshot (cap, snapshot_id, time_ns, pid, walk_ns, final, "
	"vma_count, budget_ns, skipped_walks)";

static const char entry_sql[] =
	"INSERT INTO vma_entry (cap, snapshot_id, start, end, offset, file_id, size, rss, "
	"pss, uss, shared_clean, shared_dirty, anon, swap, swap_pss, locked)";

static int load_vmas(struct load_ctx *l, const Ptop__V1__Event *ev)
{
	const Ptop__V1__VmaSnapshot *vs = ev->vmas;
	struct vmas_state *state = l->state;
	sqlite3_stmt *s = l->st[ST_SNAPSHOT];
	int64_t id, file_id;
	int err;

	if (!vs)
		return 0;
	id = state->next_snapshot++;
	bind_cap(l, s);
	bind_i64(s, 2, id);
	bind_u64(s, 3, ev->time_ns);
	bind_pid(s, 4, ev->pid);
	bind_u64(s, 5, vs->walk_ns);
	bind_i64(s, 6, !!vs->final);
	bind_u64(s, 7, vs->n_vmas);
	if (vs->budget_ns)
		bind_u64(s, 8, vs->budget_ns);
	else
		sqlite3_bind_null(s, 8); /* recorded before the budget, or none */
	bind_u64(s, 9, vs->skipped_walks);
	err = load__step(l, ST_SNAPSHOT);
	if (err)
		return err;

	s = l->st[ST_ENTRY];
	for (size_t k = 0; k < vs->n_vmas; k++) {
		const Ptop__V1__Vma *v = vs->vmas[k];

		if (!v)
			continue;
		err = vma_file_id(l, v, &file_id);
		if (err)
			return err;
		bind_cap(l, s);
		bind_i64(s, 2, id);
		bind_u64(s, 3, v->start);
		bind_u64(s, 4, v->end);
		bind_u64(s, 5, v->offset);
		bind_i64(s, 6, file_id);
		bind_u64(s, 7, v->size);
		bind_u64(s, 8, v->rss);
		bind_u64(s, 9, v->pss);
		bind_u64(s, 10, v->uss);
		bind_u64(s, 11, v->shared_clean);
		bind_u64(s, 12, v->shared_dirty);
		bind_u64(s, 13, v->anon);
		bind_u64(s, 14, v->swap);
		bind_u64(s, 15, v->swap_pss);
		bind_u64(s, 16, v->locked);
		err = load__step(l, ST_ENTRY);
		if (err)
			return err;
	}
	return 0;
}

static void free_state(struct load_ctx *l)
{
	vma_files__free(&((struct vmas_state *)l->state)->files);
}

const struct an_load vmas_load = {
	AN_LOAD_PAYLOADS({ PTOP__V1__EVENT__PAYLOAD_VMAS, "event:vmas", load_vmas }),
	AN_LOAD_STMTS([ST_SNAPSHOT] = snapshot_sql, [ST_ENTRY] = entry_sql, [ST_FILE] = file_sql),
	.state_size = sizeof(struct vmas_state),
	.free = free_state,
	AN_LOAD_CHECKS({ "vma_snapshot", true, false, "snapshot_id", "NULL", "vma_count,walk_ns" }),
};
