/* report.c — `report vma`: the target's mappings from the vmas collector's snapshots
 * (/proc/PID/smaps), aggregated by name, one group expanded into its VMAs, or the first and
 * last snapshots compared.
 *
 * A mapping's name is its path as smaps prints it (a file, [heap], [stack], [vdso],
 * [anon:NAME]...), and [anon] for an anonymous mapping without a name (path ''). The snapshot
 * reported is the last one of the window (the whole capture by default: the final snapshot);
 * --growth compares the first and the last of the window.
 */
#include "analyze/report.h"
#include "common/array.h"
#include "common/probe_mapping.h"
#include "collectors/vmas/report.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* the report's own options (report.h) */
static const struct vma_opts *vma_own(const struct report_opts *o)
{
	return REPORT_OWN(o, struct vma_opts);
}

/* The name of a vma row's mapping, as SQL over the vma table. */
#define VMA_NAME_SQL "CASE WHEN path IS NULL OR path = '' THEN '[anon]' ELSE path END"

/* The figures of a group or a VMA, as vma columns (NULL is -1). */
static const char *const fig_name[VMA_FIGS] = {"size", "rss", "pss", "uss", "anon", "swap"};

int vma_snaps__load(sqlite3 *db, const struct capture_meta *m, const struct window *w,
		    struct vma_snap **out, size_t *n)
{
	static const char sql[] =
	    "SELECT snapshot_id, time_ns, final, vma_count, walk_ns, budget_ns, skipped_walks "
	    "FROM vma_snapshot WHERE cap = ?1 AND time_ns BETWEEN ?2 AND ?3 "
	    "ORDER BY time_ns, snapshot_id";
	struct vma_snap *s = NULL, *x;
	size_t ns = 0, cap = 0;
	sqlite3_stmt *st = NULL;
	int64_t lo, hi;
	int err = 0, rc;

	*out = NULL;
	*n = 0;
	window__bounds(w, m, &lo, &hi);
	if (report__prepare_at(db, sql, m, lo, hi, &st))
		return -EIO;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (array__grow((void **)&s, &cap, ns, sizeof(*s))) {
			err = -ENOMEM;
			goto cleanup;
		}
		x = &s[ns++];
		x->id = sqlite3_column_int64(st, 0);
		x->time_ns = sqlite3_column_int64(st, 1);
		x->final = sqlite3_column_int64(st, 2) != 0;
		x->vma_count = report__col(st, 3, -1);
		x->walk_ns = report__col(st, 4, -1);
		x->budget_ns = report__col(st, 5, -1);
		x->skipped_walks = report__col(st, 6, -1);
	}
	if (rc != SQLITE_DONE) {
		err = -EIO;
		goto cleanup;
	}
	*out = s;
	*n = ns;
	s = NULL;
cleanup:
	sqlite3_finalize(st);
	free(s);
	return err;
}

static int cmp_group(const void *pa, const void *pb)
{
	const struct vma_group *a = pa, *b = pb;

	if (a->v[VMA_PSS] != b->v[VMA_PSS])
		return a->v[VMA_PSS] > b->v[VMA_PSS] ? -1 : 1;
	if (a->v[VMA_RSS] != b->v[VMA_RSS])
		return a->v[VMA_RSS] > b->v[VMA_RSS] ? -1 : 1;
	return strcmp(a->name, b->name);
}

void vma_groups__free(struct vma_group *g, size_t n)
{
	for (size_t i = 0; g && i < n; i++)
		free(g[i].name);
	free(g);
}

/* Rows of ST: name, count, then the VMA_FIGS figures. */
static int read_groups(sqlite3_stmt *st, struct vma_group **out, size_t *n)
{
	struct vma_group *g = NULL, *x;
	size_t ng = 0, cap = 0;
	int err = 0, rc, k;

	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(st, 0);

		if (array__grow((void **)&g, &cap, ng, sizeof(*g))) {
			err = -ENOMEM;
			goto cleanup;
		}
		x = &g[ng];
		x->name = strdup(name ? name : "");
		if (!x->name) {
			err = -ENOMEM;
			goto cleanup;
		}
		ng++;
		x->vmas = sqlite3_column_int64(st, 1);
		for (k = 0; k < VMA_FIGS; k++)
			x->v[k] = report__col(st, 2 + k, -1);
	}
	if (rc != SQLITE_DONE) {
		err = -EIO;
		goto cleanup;
	}
	if (ng)
		qsort(g, ng, sizeof(*g), cmp_group);
	*out = g;
	*n = ng;
	g = NULL;
cleanup:
	vma_groups__free(g, ng);
	return err;
}

int vma_groups__load(sqlite3 *db, int64_t cap, int64_t snapshot_id, struct vma_group **out,
		     size_t *n)
{
	static const char sql[] =
	    "SELECT " VMA_NAME_SQL " AS g, COUNT(*), SUM(size), SUM(rss), SUM(pss), SUM(uss), "
	    "SUM(anon), SUM(swap) FROM vma WHERE cap = ?1 AND snapshot_id = ?2 GROUP BY g";
	sqlite3_stmt *st = NULL;
	int err;

	*out = NULL;
	*n = 0;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return -EIO;
	sqlite3_bind_int64(st, 1, cap);
	sqlite3_bind_int64(st, 2, snapshot_id);
	err = read_groups(st, out, n);
	sqlite3_finalize(st);
	return err;
}

/* ------------------------------------------------------------------ output */

/* Cell COL of the last row: bytes V (NULL when V < 0), shown in binary units. 0 or -errno. */
static int set_bytes(struct table *t, size_t col, int64_t v)
{
	char buf[32];

	return v >= 0 ? table__set_int(t, col, v, fmt_bytes(buf, sizeof(buf), (uint64_t)v)) : 0;
}

static int set_delta(struct table *t, size_t col, int64_t v)
{
	char buf[32];

	return table__set_int(t, col, v, fmt_bytes_signed(buf, sizeof(buf), v));
}

/* Table T as the JSON value of KEY in J. 0, -ENOMEM or -EIO. */
static int json_table(struct json *j, const char *key, const struct table *t)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int err;

	if (!f)
		return -ENOMEM;
	err = table__print(t, f, OUT_JSON);
	if (fclose(f) && !err)
		err = -EIO;
	if (!err) {
		while (len && buf[len - 1] == '\n')
			buf[--len] = '\0';
		json__key(j, key);
		json__raw(j, buf);
	}
	free(buf);
	return err;
}

static double t_s(const struct capture_meta *m, int64_t ns)
{
	return (double)(ns - m->base_ns) / 1e9;
}

static void json_snap(struct json *j, const char *key, const struct vma_snap *s,
		      const struct capture_meta *m)
{
	json__key(j, key);
	json__begin_object(j);
	json__kv_int(j, "snapshot_id", s->id);
	json__kv_real(j, "t_s", t_s(m, s->time_ns));
	json__kv_bool(j, "final", s->final);
	json__kv_int(j, "vma_count", s->vma_count);
	json__kv_int(j, "walk_ns", s->walk_ns);
	json__end_object(j);
}

/* The groups of snapshot S as a table (text, csv) or a JSON array. */
static int print_groups(struct json *j, FILE *out, const struct report_opts *o,
			const struct vma_group *g, size_t n)
{
	static const char *const cols[] = {"mapping", "vmas", "size", "rss",
					   "pss",     "uss",  "anon", "swap"};
	int64_t tot[VMA_FIGS] = {0}, vmas = 0;
	struct table *t;
	size_t i;
	int k, err = 0;

	t = table__new(8, cols);
	if (!t)
		return -ENOMEM;
	for (i = 0; i < n && !err; i++) {
		/* ptop's own mapping (the preload lane's memfd): probe overhead, listed but not
		 * the target's, so out of the total */
		bool probe = probe_mapping__is(g[i].name);
		char name[600];

		snprintf(name, sizeof(name), "%s%s", g[i].name,
			 probe && o->fmt == OUT_TEXT ? "  (ptop's, not in total)" : "");
		err = table__add_row(t);
		err = err ?: table__set_text(t, 0, name);
		err = err ?: table__set_int(t, 1, g[i].vmas, NULL);
		vmas += probe ? 0 : g[i].vmas;
		for (k = 0; k < VMA_FIGS && !err; k++) {
			err = set_bytes(t, 2 + (size_t)k, g[i].v[k]);
			if (g[i].v[k] > 0 && !probe)
				tot[k] += g[i].v[k];
		}
	}
	if (err) {
		table__free(t);
		return err;
	}
	if (o->fmt == OUT_JSON) {
		err = json_table(j, "groups", t);
		json__key(j, "total");
		json__begin_object(j);
		json__kv_int(j, "vmas", vmas);
		for (k = 0; k < VMA_FIGS; k++)
			json__kv_int(j, fig_name[k], tot[k]);
		json__end_object(j);
		table__free(t);
		return err;
	}
	if (o->fmt == OUT_TEXT && n) {
		err = table__add_row(t);
		err = err ?: table__set_text(t, 0, "total");
		err = err ?: table__set_int(t, 1, vmas, NULL);
		for (k = 0; k < VMA_FIGS && !err; k++)
			err = set_bytes(t, 2 + (size_t)k, tot[k]);
	}
	err = err ?: table__print(t, out, o->fmt);
	table__free(t);
	return err;
}

/* The VMAs of group NAME in snapshot ID. -ENOENT when there is none. */
static int print_mapping(struct json *j, FILE *out, const struct report_opts *o, sqlite3 *db,
			 int64_t cap, int64_t id, const char *name)
{
	static const char sql[] =
	    "SELECT start, end, perms, offset, size, rss, pss, uss, anon, swap FROM vma "
	    "WHERE cap = ?1 AND snapshot_id = ?2 AND " VMA_NAME_SQL " = ?3 ORDER BY start";
	static const char *const cols[] = {"start", "end", "perms", "offset", "size",
					   "rss",   "pss", "uss",   "anon",   "swap"};
	sqlite3_stmt *st = NULL;
	struct table *t;
	char buf[32];
	int err = 0, rc, k;

	t = table__new(10, cols);
	if (!t)
		return -ENOMEM;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
		err = -EIO;
		goto cleanup;
	}
	sqlite3_bind_int64(st, 1, cap);
	sqlite3_bind_int64(st, 2, id);
	sqlite3_bind_text(st, 3, name, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		err = table__add_row(t);
		for (k = 0; k < 2 && !err; k++) {
			snprintf(buf, sizeof(buf), "0x%" PRIx64,
				 (uint64_t)sqlite3_column_int64(st, k));
			err = table__set_text(t, (size_t)k, buf);
		}
		if (!err && sqlite3_column_type(st, 2) != SQLITE_NULL)
			err = table__set_text(t, 2, (const char *)sqlite3_column_text(st, 2));
		if (!err && sqlite3_column_type(st, 3) != SQLITE_NULL) {
			snprintf(buf, sizeof(buf), "0x%" PRIx64,
				 (uint64_t)sqlite3_column_int64(st, 3));
			err = table__set_int(t, 3, sqlite3_column_int64(st, 3), buf);
		}
		for (k = 0; k < VMA_FIGS && !err; k++)
			err = set_bytes(t, 4 + (size_t)k, report__col(st, 4 + k, -1));
		if (err)
			goto cleanup;
	}
	if (rc != SQLITE_DONE) {
		err = -EIO;
		goto cleanup;
	}
	if (!table__rows(t)) {
		err = -ENOENT;
		goto cleanup;
	}
	if (o->fmt == OUT_JSON) {
		json__kv_string(j, "mapping", name);
		err = json_table(j, "vmas", t);
	} else {
		if (o->fmt == OUT_TEXT)
			fprintf(out, "%s:\n", name);
		err = table__print(t, out, o->fmt);
	}
cleanup:
	sqlite3_finalize(st);
	table__free(t);
	return err;
}

/* One line of --growth. */
struct growth_row {
	const char *name;
	const struct vma_group *a, *b; /* first, last; NULL: absent there */
	int64_t d_pss, d_rss;
};

static int cmp_growth(const void *pa, const void *pb)
{
	const struct growth_row *a = pa, *b = pb;
	int64_t ka = llabs(a->d_pss), kb = llabs(b->d_pss);

	if (ka != kb)
		return ka > kb ? -1 : 1;
	ka = llabs(a->d_rss);
	kb = llabs(b->d_rss);
	if (ka != kb)
		return ka > kb ? -1 : 1;
	return strcmp(a->name, b->name);
}

static int64_t fig_or0(const struct vma_group *g, int k)
{
	return g && g->v[k] > 0 ? g->v[k] : 0;
}

static const char *change_of(const struct growth_row *r)
{
	if (!r->a)
		return "appeared";
	if (!r->b)
		return "vanished";
	if (r->d_pss > 0 || (r->d_pss == 0 && r->d_rss > 0))
		return "grew";
	if (r->d_pss < 0 || r->d_rss < 0)
		return "shrank";
	if (r->a->v[VMA_SIZE] != r->b->v[VMA_SIZE] || r->a->vmas != r->b->vmas)
		return "resized";
	return NULL; /* unchanged */
}

int vma_growth__compute(const struct vma_group *a, size_t na, const struct vma_group *b, size_t nb,
			struct vma_growth **out, size_t *n)
{
	struct growth_row *r = NULL;
	struct vma_growth *g = NULL;
	size_t nr = 0, i, j, ng = 0;

	*out = NULL;
	*n = 0;
	r = calloc(na + nb + 1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	for (i = 0; i < na; i++) {
		r[nr].name = a[i].name;
		r[nr].a = &a[i];
		for (j = 0; j < nb; j++)
			if (!strcmp(b[j].name, a[i].name))
				r[nr].b = &b[j];
		nr++;
	}
	for (j = 0; j < nb; j++) {
		for (i = 0; i < na; i++)
			if (!strcmp(b[j].name, a[i].name))
				break;
		if (i == na) {
			r[nr].name = b[j].name;
			r[nr].b = &b[j];
			nr++;
		}
	}
	for (i = 0; i < nr; i++) {
		r[i].d_pss = fig_or0(r[i].b, VMA_PSS) - fig_or0(r[i].a, VMA_PSS);
		r[i].d_rss = fig_or0(r[i].b, VMA_RSS) - fig_or0(r[i].a, VMA_RSS);
	}
	if (nr)
		qsort(r, nr, sizeof(*r), cmp_growth);
	g = calloc(nr + 1, sizeof(*g));
	if (!g) {
		free(r);
		return -ENOMEM;
	}
	for (i = 0; i < nr; i++) {
		const char *c = change_of(&r[i]);

		if (!c)
			continue;
		g[ng].name = r[i].name;
		g[ng].change = c;
		g[ng].first = r[i].a;
		g[ng].last = r[i].b;
		g[ng].d_pss = r[i].d_pss;
		g[ng].d_rss = r[i].d_rss;
		g[ng].d_size = fig_or0(r[i].b, VMA_SIZE) - fig_or0(r[i].a, VMA_SIZE);
		ng++;
	}
	free(r);
	*out = g;
	*n = ng;
	return 0;
}

static int print_growth(struct json *j, FILE *out, const struct report_opts *o,
			const struct vma_growth *g, size_t n)
{
	static const char *const cols[] = {"mapping",	 "change",    "vmas_first", "vmas_last",
					   "size_delta", "rss_first", "rss_last",   "rss_delta",
					   "pss_first",	 "pss_last",  "pss_delta"};
	struct table *t = table__new(11, cols);
	size_t i;
	int err = 0;

	if (!t)
		return -ENOMEM;
	for (i = 0; i < n && !err; i++) {
		const struct vma_group *a = g[i].first, *b = g[i].last;

		err = table__add_row(t);
		err = err ?: table__set_text(t, 0, g[i].name);
		err = err ?: table__set_text(t, 1, g[i].change);
		err = err ?: a ? table__set_int(t, 2, a->vmas, NULL) : 0;
		err = err ?: b ? table__set_int(t, 3, b->vmas, NULL) : 0;
		err = err ?: set_delta(t, 4, g[i].d_size);
		err = err ?: a ? set_bytes(t, 5, a->v[VMA_RSS]) : 0;
		err = err ?: b ? set_bytes(t, 6, b->v[VMA_RSS]) : 0;
		err = err ?: set_delta(t, 7, g[i].d_rss);
		err = err ?: a ? set_bytes(t, 8, a->v[VMA_PSS]) : 0;
		err = err ?: b ? set_bytes(t, 9, b->v[VMA_PSS]) : 0;
		err = err ?: set_delta(t, 10, g[i].d_pss);
	}
	if (!err)
		err =
		    o->fmt == OUT_JSON ? json_table(j, "changes", t) : table__print(t, out, o->fmt);
	table__free(t);
	return err;
}

/* ------------------------------------------------------------------ the report */

static int vma_body(const struct report_ctx *ctx)
{
	sqlite3 *db = ctx->db;
	const struct report_opts *o = ctx->o;
	FILE *out = ctx->out;
	const struct capture_meta m = *ctx->m;
	struct json *j = ctx->j;
	struct vma_group *ga = NULL, *gb = NULL;
	struct vma_growth *gr = NULL;
	struct vma_snap *snaps = NULL;
	const struct vma_snap *first, *last;
	size_t ns = 0, na = 0, nb = 0, ngr = 0, i;
	int64_t skipped = 0;
	char w[96], c1[32], c2[32];
	int err;

	err = vma_snaps__load(db, &m, &o->win, &snaps, &ns);
	if (err)
		goto cleanup;
	for (i = 0; i < ns; i++)
		skipped += snaps[i].skipped_walks > 0 ? snaps[i].skipped_walks : 0;
	window__describe(&o->win, w, sizeof(w));
	if (!ns) {
		if (o->fmt == OUT_JSON) {
			json__kv_bool(j, "collected", true);
			json__kv_int(j, "snapshots", 0);
			report__drops(j, out, o, "vmas", ctx->drops, ctx->ndrops);
			json__end_object(j);
			err = json__end(j);
		} else {
			fprintf(o->fmt == OUT_TEXT ? out : stderr, "vma (%s): no VMA snapshot\n",
				w);
			report__drops(NULL, out, o, "vmas", ctx->drops, ctx->ndrops);
		}
		goto cleanup;
	}
	first = &snaps[0];
	last = &snaps[ns - 1];
	if (vma_own(o)->growth && ns < 2) {
		fprintf(stderr,
			"ptop-analyze report vma: --growth needs two VMA snapshots; %s holds one "
			"(at %s s)\n",
			w, fmt_secs(c1, sizeof(c1), last->time_ns - m.base_ns));
		err = -EPROTO;
		goto cleanup;
	}
	err = vma_groups__load(db, m.cap, last->id, &gb, &nb);
	if (!err && vma_own(o)->growth) {
		err = vma_groups__load(db, m.cap, first->id, &ga, &na);
		err = err ?: vma_growth__compute(ga, na, gb, nb, &gr, &ngr);
	}
	if (err)
		goto cleanup;

	if (o->fmt == OUT_TEXT) {
		fprintf(out, "vma (%s): %zu snapshots", w, ns);
		if (skipped)
			fprintf(out, ", %" PRId64 " walks skipped by the smaps budget", skipped);
		fputc('\n', out);
		report__drops(NULL, out, o, "vmas", ctx->drops, ctx->ndrops);
		if (vma_own(o)->growth)
			fprintf(out,
				"from snapshot %" PRId64 " at %s s (%" PRId64
				" VMAs) to snapshot %" PRId64 " at %s s (%" PRId64 " VMAs%s)\n\n",
				first->id, fmt_secs(c1, sizeof(c1), first->time_ns - m.base_ns),
				first->vma_count, last->id,
				fmt_secs(c2, sizeof(c2), last->time_ns - m.base_ns),
				last->vma_count, last->final ? ", the final one" : "");
		else
			fprintf(out,
				"snapshot %" PRId64 " at %s s%s: %" PRId64 " VMAs, walk %s\n\n",
				last->id, fmt_secs(c1, sizeof(c1), last->time_ns - m.base_ns),
				last->final ? " (the final one)" : " (the last in the window)",
				last->vma_count,
				last->walk_ns >= 0 ? fmt_ns(c2, sizeof(c2), (uint64_t)last->walk_ns)
						   : "-");
	} else if (o->fmt == OUT_CSV) {
		report__drops(NULL, out, o, "vmas", ctx->drops, ctx->ndrops);
	} else {
		json__kv_bool(j, "collected", true);
		json__kv_int(j, "snapshots", (int64_t)ns);
		json__kv_int(j, "skipped_walks", skipped);
		report__drops(j, out, o, "vmas", ctx->drops, ctx->ndrops);
		if (vma_own(o)->growth)
			json_snap(j, "first", first, &m);
		json_snap(j, vma_own(o)->growth ? "last" : "snapshot", last, &m);
	}

	if (vma_own(o)->mapping) {
		err = print_mapping(j, out, o, db, m.cap, last->id, vma_own(o)->mapping);
		if (err == -ENOENT) {
			fprintf(stderr,
				"ptop-analyze report vma: no mapping '%s' in snapshot %" PRId64
				"; the names are those `report vma` lists ([anon] for unnamed "
				"anonymous memory)\n",
				vma_own(o)->mapping, last->id);
			err = -EPROTO;
		}
	} else if (vma_own(o)->growth) {
		err = print_growth(j, out, o, gr, ngr);
		if (!err && o->fmt == OUT_TEXT && !ngr)
			fprintf(out, "no mapping grew, shrank, appeared or vanished\n");
	} else {
		err = print_groups(j, out, o, gb, nb);
	}
	if (err)
		goto cleanup;
	if (o->fmt == OUT_JSON) {
		json__end_object(j);
		err = json__end(j);
	} else if (o->fmt == OUT_TEXT) {
		fprintf(out, "\n/proc/PID/smaps: uss = Private_Clean + Private_Dirty; anon = "
			     "Anonymous. [anon]: anonymous\nmemory without a name; /dev/zero "
			     "(deleted): shared anonymous memory (MAP_SHARED). ");
		if (vma_own(o)->growth)
			fprintf(out, "Deltas: last - first;\nabsent counts as 0.\n");
		else
			fprintf(out, "Sorted by PSS.\n--window ..T reports the last snapshot "
				     "before T.\n");
	}
cleanup:
	vma_groups__free(ga, na);
	vma_groups__free(gb, nb);
	free(gr);
	free(snaps);
	return err;
}

/* ------------------------------------------------------------------ its reports */

/* --growth compares every mapping: one --mapping has no place in it. */
static const char *vma_check(const struct report_opts *o)
{
	const struct vma_opts *v = REPORT_OWN(o, struct vma_opts);

	if (v->mapping && v->growth)
		return "--mapping and --growth do not go together: "
		       "--growth compares all mappings";
	return NULL;
}

static int parse_mapping(void *settings, const char *arg, char *err, size_t len)
{
	(void)err, (void)len;
	((struct vma_opts *)settings)->mapping = arg;
	return 0;
}

static int parse_growth(void *settings, const char *arg, char *err, size_t len)
{
	(void)arg, (void)err, (void)len;
	((struct vma_opts *)settings)->growth = true;
	return 0;
}

static const struct report_option vma_options[] = {
    {"mapping", "NAME",
     "vma: the VMAs of one mapping (address range, perms,\n"
     "offset and the same figures)",
     parse_mapping},
    {"growth", NULL,
     "vma: compare the first and last snapshots of the\n"
     "window: what grew, shrank, appeared or vanished",
     parse_growth},
    {0},
};

static const struct an_report vma_report = {
	.name = "vma",
	.order = 40,
	.summary = "mappings by name (file, [heap], [stack], [anon]...) from the last\n"
		   "VMA snapshot of the window: VMAs, size, RSS, PSS, USS, anon, swap,\n"
		   "by PSS",
	.tables = "vma_snapshot",
	.options = vma_options,
	.settings_size = sizeof(struct vma_opts),
	.check = vma_check,
	.probe = "vmas",
	.drops = "vmas",
	.body = vma_body,
};

int report_vma(sqlite3 *db, const char *capture_id, const struct report_opts *o, FILE *out)
{
	return report__run(&vma_report, db, capture_id, o, out);
}

const struct an_report *const vmas_reports[] = {
	&vma_report,
	NULL,
};
