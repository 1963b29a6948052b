/* export.c — `export`: a collector's profile (analyze/export.h, declared in its part) as
 * folded stacks (flamegraph.pl, speedscope) or as a gzipped pprof profile.proto (go tool
 * pprof). The command, its usage and its --help are built from the profiles' list.
 */
#include "analyze/export.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "analyze/analyze.h"
#include "common/duration.h"
#include "analyze/part.h"
#include "common/array.h"
#include "common/hash.h"
#include "common/hindex.h"
#include "proto/pprof.pb-c.h"

/* ------------------------------------------------------------ folded */

struct line {
	char *text;
	uint64_t count;
};

static int cmp_line(const void *a, const void *b)
{
	return strcmp(((const struct line *)a)->text, ((const struct line *)b)->text);
}

/* Append NAME to B (frames joined by ';'; ';' and line breaks in names become ':' and ' '). */
static int put_frame(char **b, size_t *len, size_t *cap, const char *name, const char *suffix)
{
	size_t n = strlen(name) + strlen(suffix) + 2;

	if (*len + n + 1 > *cap) {
		size_t c = *cap ? *cap : 256;
		char *p;

		while (c < *len + n + 1)
			c *= 2;
		p = realloc(*b, c);
		if (!p)
			return -ENOMEM;
		*b = p;
		*cap = c;
	}
	if (*len)
		(*b)[(*len)++] = ';';
	for (const char *s = name; *s; s++)
		(*b)[(*len)++] = *s == ';' ? ':' : (*s == '\n' || *s == '\r') ? ' ' : *s;
	for (const char *s = suffix; *s; s++)
		(*b)[(*len)++] = *s;
	(*b)[*len] = 0;
	return 0;
}

/* The root frame naming the process of stack ST of P, "COMM-PID" (see
 * export_folded), into BUF; "" for a stack of the profile's one process. */
static void process_frame(const struct profile *p, const struct prof_stack *st, char *buf,
			  size_t len)
{
	const struct prof_proc *pr = profile__proc(p, st->pid);
	const char *name = "[unknown]";

	buf[0] = 0;
	if (!st->pid)
		return;
	if (pr && pr->comm && pr->comm[0]) {
		name = pr->comm;
	} else if (pr && pr->exe && pr->exe[0]) {
		const char *b = strrchr(pr->exe, '/');

		name = b && b[1] ? b + 1 : pr->exe;
	}
	snprintf(buf, len, "%s-%d", name, (int)st->pid);
}

int export_folded(const struct profile *p, FILE *f)
{
	struct line *lines = NULL;
	size_t n = 0;
	char name[512];
	int err = 0;

	lines = calloc(p->n_stacks ? p->n_stacks : 1, sizeof(*lines));
	if (!lines)
		return -ENOMEM;
	for (size_t k = 0; k < p->n_stacks && !err; k++) {
		const struct prof_stack *st = &p->stacks[k];
		size_t len = 0, cap = 0;
		char *b = NULL;

		process_frame(p, st, name, sizeof(name));
		if (name[0])
			err = put_frame(&b, &len, &cap, name, "");
		if (!st->n && !err) {
			err = put_frame(&b, &len, &cap, "[no stack]", "");
		}
		/* outermost first: the last location, its outer function first */
		for (size_t d = st->n; d-- > 0 && !err;) {
			const struct prof_loc *l = st->loc[d];
			size_t names = l->n ? l->n : 1;

			for (size_t i = names; i-- > 0 && !err;) {
				prof_loc__name(l, i, name, sizeof(name));
				err = put_frame(&b, &len, &cap, name,
						l->kind == FRAME_KERNEL ? "_[k]" : "");
			}
		}
		if (err) {
			free(b);
			break;
		}
		lines[n].text = b;
		lines[n].count = st->count;
		n++;
	}
	if (!err) {
		if (n) /* qsort's array may not be NULL, even empty */
			qsort(lines, n, sizeof(*lines), cmp_line);
		for (size_t k = 0; k < n; k++) {
			uint64_t c = lines[k].count;

			while (k + 1 < n && !strcmp(lines[k].text, lines[k + 1].text))
				c += lines[++k].count;
			if (c)
				fprintf(f, "%s %" PRIu64 "\n", lines[k].text, c);
		}
		if (fflush(f) || ferror(f))
			err = -EIO;
	}
	for (size_t k = 0; k < n; k++)
		free(lines[k].text);
	free(lines);
	return err;
}

/* ------------------------------------------------------------ pprof */

/* Strings, functions, mappings, locations: each interned once, ids from 1
 * (strings from 0: string_table[0] is ""). */
struct intern {
	char **key;
	size_t n, cap;
	struct hindex ix;
};

static uint64_t hash(const char *s)
{
	return fnv1a64_str(FNV1A64_INIT, s);
}

static uint64_t key_hash(const void *key, size_t k)
{
	return hash(((char *const *)key)[k]);
}

/* The index of S in I (added when new), or -1 on ENOMEM. */
static int64_t intern(struct intern *I, const char *s, bool *added)
{
	size_t i;

	if (added)
		*added = false;
	if (hindex__reserve(&I->ix, I->n, 1024, key_hash, I->key))
		return -1;
	for (i = hindex__home(&I->ix, hash(s)); I->ix.slot[i]; i = hindex__next(&I->ix, i))
		if (!strcmp(I->key[I->ix.slot[i] - 1], s))
			return (int64_t)I->ix.slot[i] - 1;
	if (array__grow((void **)&I->key, &I->cap, I->n, sizeof(*I->key)))
		return -1;
	I->key[I->n] = strdup(s);
	if (!I->key[I->n])
		return -1;
	I->ix.slot[i] = ++I->n;
	if (added)
		*added = true;
	return (int64_t)I->n - 1;
}

static void intern_free(struct intern *I)
{
	for (size_t k = 0; k < I->n; k++)
		free(I->key[k]);
	free(I->key);
	hindex__free(&I->ix);
}

/* The functions, mappings and locations by index: [ix] of those interned in fn, map, loc
 * (NULL until made); the first cap_* of them allocated. mx: per mapping, what orders it
 * and says what it has. */
struct pp_mapx {
	int rank;      /* 0 the main program, 1 another file, 2 [kernel], 3 the rest */
	bool unnamed;  /* a location of it has no name */
	bool ranged;   /* start, limit and offset are the mapping record's */
	uint64_t lo, hi; /* the lowest and highest address of its locations */
	uint64_t lo_offset; /* the file offset of lo */
};

struct pp {
	struct intern str, fn, map, loc;
	Perftools__Profiles__Function **fns;
	Perftools__Profiles__Mapping **maps;
	Perftools__Profiles__Location **locs;
	struct pp_mapx *mx;
	size_t cap_fns, cap_maps, cap_locs, cap_mx;
};

static int64_t str_ix(struct pp *pp, const char *s)
{
	return intern(&pp->str, s ? s : "", NULL);
}

static int64_t func_id(struct pp *pp, const char *name, const char *file)
{
	char key[1024];
	bool added;
	int64_t ix;
	Perftools__Profiles__Function *f;

	snprintf(key, sizeof(key), "%s\x1f%s", name, file ? file : "");
	ix = intern(&pp->fn, key, &added);
	if (ix < 0)
		return -1;
	if (!added)
		return ix + 1;
	if (array__grow((void **)&pp->fns, &pp->cap_fns, (size_t)ix, sizeof(*pp->fns)))
		return -1;
	pp->fns[ix] = f = calloc(1, sizeof(*f));
	if (!f)
		return -1;
	perftools__profiles__function__init(f);
	f->id = (uint64_t)ix + 1;
	f->name = str_ix(pp, name);
	f->system_name = f->name;
	f->filename = str_ix(pp, file);
	return f->name < 0 || f->filename < 0 ? -1 : ix + 1;
}

/* The mapping of location L: the mapping record that placed a user frame (one per
 * process, range and file), else one per module ([kernel], [jit], [unknown], a file
 * no record covers) spanning the addresses of its locations. Index + 1, or -1. */
static int64_t map_id(struct pp *pp, const struct prof_loc *l)
{
	char key[1200];
	bool added, ranged = l->kind == FRAME_USER && l->map_limit > l->map_start;
	int64_t ix;
	Perftools__Profiles__Mapping *m;
	struct pp_mapx *x;

	if (ranged)
		snprintf(key, sizeof(key), "%d\x1f%s\x1f%" PRIx64 "\x1f%" PRIx64 "\x1f%" PRIx64,
			 (int)l->pid, l->module, l->map_start, l->map_limit, l->map_offset);
	else
		snprintf(key, sizeof(key), "%s", l->module);
	ix = intern(&pp->map, key, &added);
	if (ix < 0)
		return -1;
	if (!added) {
		x = &pp->mx[ix];
		if (!x->ranged && l->addr < x->lo) {
			x->lo = l->addr;
			x->lo_offset = l->offset;
		}
		if (!x->ranged && l->addr > x->hi)
			x->hi = l->addr;
		return ix + 1;
	}
	if (array__grow((void **)&pp->maps, &pp->cap_maps, (size_t)ix, sizeof(*pp->maps)) ||
	    array__grow((void **)&pp->mx, &pp->cap_mx, (size_t)ix, sizeof(*pp->mx)))
		return -1;
	x = &pp->mx[ix];
	memset(x, 0, sizeof(*x));
	x->ranged = ranged;
	x->rank = l->kind == FRAME_USER && l->module[0] == '/' ? (l->main_program ? 0 : 1)
		  : l->kind == FRAME_KERNEL		       ? 2
							       : 3;
	x->lo = x->hi = l->addr;
	x->lo_offset = l->offset;
	pp->maps[ix] = m = calloc(1, sizeof(*m));
	if (!m)
		return -1;
	perftools__profiles__mapping__init(m);
	m->id = (uint64_t)ix + 1;
	if (ranged) {
		m->memory_start = l->map_start;
		m->memory_limit = l->map_limit;
		m->file_offset = l->map_offset;
	}
	m->filename = str_ix(pp, l->module);
	m->build_id = str_ix(pp, l->build_id);
	return m->filename < 0 || m->build_id < 0 ? -1 : ix + 1;
}

static int64_t loc_id(struct pp *pp, const struct prof_loc *l)
{
	char key[64], name[512];
	bool added;
	int64_t ix, mid;
	Perftools__Profiles__Location *loc;

	mid = map_id(pp, l);
	if (mid < 0)
		return -1;
	snprintf(key, sizeof(key), "%" PRId64 "\x1f%" PRIx64, mid, l->addr);
	ix = intern(&pp->loc, key, &added);
	if (ix < 0)
		return -1;
	if (!added)
		return ix + 1;
	if (array__grow((void **)&pp->locs, &pp->cap_locs, (size_t)ix, sizeof(*pp->locs)))
		return -1;
	pp->locs[ix] = loc = calloc(1, sizeof(*loc));
	if (!loc)
		return -1;
	perftools__profiles__location__init(loc);
	loc->id = (uint64_t)ix + 1;
	loc->mapping_id = (uint64_t)mid;
	/* the address resolved: a caller's is in its call instruction (ip - 1), which
	 * the format allows and which names the call, not the line after it */
	loc->address = l->addr;
	if (!l->n) { /* unnamed: an address in its mapping, for pprof to name */
		pp->mx[mid - 1].unnamed = true;
		return ix + 1;
	}
	loc->n_line = l->n;
	loc->line = calloc(loc->n_line, sizeof(*loc->line));
	if (!loc->line) {
		loc->n_line = 0;
		return -1;
	}
	for (size_t i = 0; i < loc->n_line; i++) {
		Perftools__Profiles__Line *ln = calloc(1, sizeof(*ln));
		int64_t fid;

		if (!ln) {
			loc->n_line = i;
			return -1;
		}
		perftools__profiles__line__init(ln);
		loc->line[i] = ln;
		prof_loc__name(l, i, name, sizeof(name));
		fid = func_id(pp, name, l->f[i].file);
		if (fid < 0) {
			loc->n_line = i + 1;
			return -1;
		}
		ln->function_id = (uint64_t)fid;
		ln->line = l->f[i].line;
	}
	return ix + 1;
}

static int cmp_map_order(const void *a, const void *b, void *arg)
{
	const struct pp_mapx *mx = arg;
	size_t i = *(const size_t *)a, j = *(const size_t *)b;

	if (mx[i].rank != mx[j].rank)
		return mx[i].rank < mx[j].rank ? -1 : 1;
	return i < j ? -1 : i > j;
}

/* Finish the mappings: the ranges of those without a record, what they have, and the
 * order pprof reads them in (the main program first: pprof takes the first mapping
 * for the program), ids renumbered. 0 or -ENOMEM. */
static int finish_mappings(struct pp *pp)
{
	size_t n = pp->map.n, *order = malloc((n + 1) * sizeof(*order));
	uint64_t *newid = malloc((n + 1) * sizeof(*newid));
	Perftools__Profiles__Mapping **maps = malloc((n + 1) * sizeof(*maps));

	if (!order || !newid || !maps) {
		free(order);
		free(newid);
		free(maps);
		return -ENOMEM;
	}
	for (size_t k = 0; k < n; k++) {
		Perftools__Profiles__Mapping *m = pp->maps[k];
		const struct pp_mapx *x = &pp->mx[k];

		if (!x->ranged) {
			m->memory_start = x->lo;
			m->memory_limit = x->hi + 1;
			m->file_offset = x->rank < 2 ? x->lo_offset : 0;
		}
		m->has_functions = m->has_filenames = m->has_line_numbers =
		    m->has_inline_frames = !x->unnamed;
		order[k] = k;
	}
	if (n)
		qsort_r(order, n, sizeof(*order), cmp_map_order, pp->mx);
	for (size_t k = 0; k < n; k++) {
		maps[k] = pp->maps[order[k]];
		newid[order[k]] = k + 1;
		maps[k]->id = k + 1;
	}
	for (size_t k = 0; k < pp->loc.n; k++)
		pp->locs[k]->mapping_id = newid[pp->locs[k]->mapping_id - 1];
	if (n)
		memcpy(pp->maps, maps, n * sizeof(*maps));
	free(order);
	free(newid);
	free(maps);
	return 0;
}

/* The samples of a profile being encoded: one per stack kept, with its "pid" label. */
struct pp_samples {
	Perftools__Profiles__Sample **sample;
	Perftools__Profiles__Label *label, **label_ptr;
	size_t n;
	int64_t pid_key; /* "pid" in the string table, once a sample needs it; -1 before */
};

/* The sample types of S (and its period type in VT[4]) into PROF. 0 or -ENOMEM. */
static int pp_sample_types(struct pp *pp, const struct prof_samples *s,
			   Perftools__Profiles__Profile *prof, Perftools__Profiles__ValueType vt[5],
			   Perftools__Profiles__ValueType *vtp[4])
{
	bool bad = false;

	for (size_t k = 0; k < 5; k++)
		perftools__profiles__value_type__init(&vt[k]);
	for (size_t k = 0; k < s->n_types; k++) {
		vt[k].type = str_ix(pp, s->type[k]);
		vt[k].unit = str_ix(pp, s->unit[k]);
		bad |= vt[k].type < 0 || vt[k].unit < 0;
		vtp[k] = &vt[k];
	}
	vt[4].type = str_ix(pp, s->period_type);
	vt[4].unit = str_ix(pp, s->period_unit);
	bad |= vt[4].type < 0 || vt[4].unit < 0;
	if (s->default_type) {
		prof->default_sample_type = str_ix(pp, s->default_type);
		bad |= prof->default_sample_type < 0;
	}
	prof->n_sample_type = s->n_types;
	prof->sample_type = vtp;
	prof->period_type = &vt[4];
	prof->period = s->period;
	return bad ? -ENOMEM : 0;
}

/* Stack K of S as a sample of O (none when its values are all 0 and S skips those):
 * its values, its "pid" label, its locations leaf first. 0 or -ENOMEM. */
static int pp_add_sample(struct pp *pp, struct pp_samples *o, const struct prof_samples *s,
			 size_t k)
{
	const struct prof_stack *st = &s->p->stacks[k];
	const int64_t *v = &s->values[k * s->n_types];
	Perftools__Profiles__Sample *x;
	bool zero = true;

	for (size_t i = 0; i < s->n_types; i++)
		zero &= !v[i];
	if (zero && s->skip_zero)
		return 0;
	x = calloc(1, sizeof(*x));
	if (!x)
		return -ENOMEM;
	perftools__profiles__sample__init(x);
	o->sample[o->n++] = x;
	x->value = calloc(s->n_types, sizeof(*x->value));
	x->location_id = calloc(st->n ? st->n : 1, sizeof(*x->location_id));
	if (!x->value || !x->location_id)
		return -ENOMEM;
	x->n_value = s->n_types;
	memcpy(x->value, v, s->n_types * sizeof(*v));
	if (st->pid) { /* a process of a per-process profile */
		if (o->pid_key < 0)
			o->pid_key = str_ix(pp, "pid");
		if (o->pid_key < 0)
			return -ENOMEM;
		perftools__profiles__label__init(&o->label[k]);
		o->label[k].key = o->pid_key;
		o->label[k].num = st->pid;
		o->label_ptr[k] = &o->label[k];
		x->label = &o->label_ptr[k];
		x->n_label = 1;
	}
	for (size_t d = 0; d < st->n; d++) { /* the leaf first, as pprof wants */
		int64_t id = loc_id(pp, st->loc[d]);

		if (id < 0)
			return -ENOMEM;
		x->location_id[x->n_location_id++] = (uint64_t)id;
	}
	return 0;
}

static void pp_samples_free(struct pp_samples *o)
{
	for (size_t k = 0; k < o->n; k++) {
		free(o->sample[k]->value);
		free(o->sample[k]->location_id);
		free(o->sample[k]);
	}
	free(o->sample);
	free(o->label);
	free(o->label_ptr);
}

static void pp_free(struct pp *pp)
{
	for (size_t k = 0; k < pp->loc.n && k < pp->cap_locs; k++) {
		if (!pp->locs[k])
			continue;
		for (size_t i = 0; i < pp->locs[k]->n_line; i++)
			free(pp->locs[k]->line[i]);
		free(pp->locs[k]->line);
		free(pp->locs[k]);
	}
	for (size_t k = 0; k < pp->fn.n && k < pp->cap_fns; k++)
		free(pp->fns[k]);
	for (size_t k = 0; k < pp->map.n && k < pp->cap_maps; k++)
		free(pp->maps[k]);
	free(pp->locs);
	free(pp->fns);
	free(pp->maps);
	free(pp->mx);
	intern_free(&pp->str);
	intern_free(&pp->fn);
	intern_free(&pp->map);
	intern_free(&pp->loc);
}

/* PROF packed and gzipped (windowBits 15 + 16) into *OUT (malloc'd), *OUTLEN bytes.
 * 0, -ENOMEM or -EIO. */
static int pack_gzip(const Perftools__Profiles__Profile *prof, uint8_t **out, size_t *outlen)
{
	size_t rawlen = perftools__profiles__profile__get_packed_size(prof);
	uint8_t *raw = malloc(rawlen ? rawlen : 1), *gz = NULL;
	z_stream zs = {0};
	uLong bound;
	int err = 0;

	if (!raw)
		return -ENOMEM;
	perftools__profiles__profile__pack(prof, raw);
	if (deflateInit2(&zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) !=
	    Z_OK) {
		free(raw);
		return -ENOMEM;
	}
	bound = deflateBound(&zs, (uLong)rawlen) + 32;
	gz = malloc(bound);
	if (!gz) {
		err = -ENOMEM;
		goto cleanup;
	}
	zs.next_in = raw;
	zs.avail_in = (uInt)rawlen;
	zs.next_out = gz;
	zs.avail_out = (uInt)bound;
	if (deflate(&zs, Z_FINISH) != Z_STREAM_END) {
		err = -EIO;
		goto cleanup;
	}
	*outlen = zs.total_out;
	*out = gz;
	gz = NULL;
cleanup:
	deflateEnd(&zs);
	free(gz);
	free(raw);
	return err;
}

int prof_samples__pprof(const struct prof_samples *s, int64_t time_nanos, uint8_t **out,
			size_t *outlen)
{
	Perftools__Profiles__Profile prof = PERFTOOLS__PROFILES__PROFILE__INIT;
	Perftools__Profiles__ValueType vt[5], *vtp[4];
	size_t n = s->p->n_stacks ? s->p->n_stacks : 1;
	struct pp_samples o = {.pid_key = -1};
	struct pp pp = {0};
	int err = 0;

	*out = NULL;
	*outlen = 0;
	if (s->n_types > 4)
		return -EINVAL;
	if (str_ix(&pp, "") != 0)
		return -ENOMEM;
	err = pp_sample_types(&pp, s, &prof, vt, vtp);
	prof.time_nanos = time_nanos;
	prof.duration_nanos = s->t0_ns >= 0 && s->t1_ns > s->t0_ns ? s->t1_ns - s->t0_ns : 0;
	o.sample = calloc(n, sizeof(*o.sample));
	o.label = calloc(n, sizeof(*o.label));
	o.label_ptr = calloc(n, sizeof(*o.label_ptr));
	if (!o.sample || !o.label || !o.label_ptr)
		err = -ENOMEM;
	for (size_t k = 0; k < s->p->n_stacks && !err; k++)
		err = pp_add_sample(&pp, &o, s, k);
	err = err ?: finish_mappings(&pp);
	if (!err) {
		prof.n_sample = o.n;
		prof.sample = o.sample;
		prof.n_mapping = pp.map.n;
		prof.mapping = pp.maps;
		prof.n_location = pp.loc.n;
		prof.location = pp.locs;
		prof.n_function = pp.fn.n;
		prof.function = pp.fns;
		prof.n_string_table = pp.str.n;
		prof.string_table = pp.str.key;
		err = pack_gzip(&prof, out, outlen);
	}
	pp_samples_free(&o);
	pp_free(&pp);
	return err;
}

int prof_samples__folded(const struct prof_samples *s, FILE *f)
{
	return export_folded(s->p, f);
}

void prof_samples__free(struct prof_samples *s)
{
	if (s->release)
		s->release(s);
	profile__free(s->p);
	free(s->values);
	memset(s, 0, sizeof(*s));
}

/* What prof_samples__load_sql keeps: the capture's stacks, whose locations its stacks
 * share. */
static void sql_release(struct prof_samples *s)
{
	if (s->p)
		free(s->p->stacks);
	free(s->p);
	s->p = NULL;
	profile__free(s->priv);
	s->priv = NULL;
}

/* The row of Q (stack_id, pid, weight, values) as stack K of S. 0, or -EOVERFLOW for a
 * negative weight (a corrupt DB). */
static int sql_row(sqlite3_stmt *q, const struct profile *all, struct prof_samples *s,
		   size_t k)
{
	struct prof_stack *st = &s->p->stacks[k];
	const struct prof_stack *of = sqlite3_column_type(q, 0) == SQLITE_NULL
					  ? NULL
					  : profile__stack(all, sqlite3_column_int64(q, 0));

	if (of)
		*st = *of;
	st->pid = sqlite3_column_int(q, 1);
	if (sqlite3_column_int64(q, 2) < 0)
		return -EOVERFLOW;
	st->count = (uint64_t)sqlite3_column_int64(q, 2);
	for (size_t i = 0; i < s->n_types; i++)
		s->values[k * s->n_types + i] = sqlite3_column_int64(q, 3 + (int)i);
	return 0;
}

int prof_samples__load_sql(const struct prof_req *r, const char *sql, struct prof_samples *s)
{
	struct profile *all = NULL;
	sqlite3_stmt *q = NULL;
	size_t cap = 0, cap_v = 0;
	int64_t lo, hi;
	int rc = stacks__load(r->db, r->m->cap, &all);

	s->priv = all;
	s->release = sql_release;
	s->p = calloc(1, sizeof(*s->p));
	if (rc || !s->p)
		return rc ? rc : -ENOMEM;
	window__bounds(r->w, r->m, &lo, &hi);
	if (sqlite3_prepare_v2(r->db, sql, -1, &q, NULL) != SQLITE_OK ||
	    sqlite3_column_count(q) != 3 + (int)s->n_types) {
		export__say("reading the profile: %s", sqlite3_errmsg(r->db));
		sqlite3_finalize(q);
		return -EIO;
	}
	sqlite3_bind_int64(q, 1, r->m->cap);
	sqlite3_bind_int64(q, 2, lo);
	sqlite3_bind_int64(q, 3, hi);
	while (!rc && (rc = sqlite3_step(q)) == SQLITE_ROW) {
		size_t k = s->p->n_stacks;

		if (array__grow((void **)&s->p->stacks, &cap, k, sizeof(*s->p->stacks)) ||
		    array__grow((void **)&s->values, &cap_v, (k + 1) * s->n_types,
				sizeof(*s->values))) {
			rc = -ENOMEM;
			break;
		}
		memset(&s->p->stacks[k], 0, sizeof(s->p->stacks[k]));
		s->p->n_stacks++;
		rc = sql_row(q, all, s, k);
	}
	if (rc == SQLITE_DONE)
		rc = 0;
	else if (rc > 0) {
		export__say("reading the profile: %s", sqlite3_errmsg(r->db));
		rc = -EIO;
	}
	sqlite3_finalize(q);
	return rc;
}

/* ------------------------------------------------------------ the profiles */

const struct an_profile *an_profile__find(const char *name)
{
	for (const struct an_part *const *pp = an_parts; *pp; pp++)
		for (const struct an_profile *const *x = (*pp)->profiles; x && *x; x++)
			if (!name || !strcmp((*x)->name, name))
				return *x;
	return NULL;
}

/* The next profile after X (NULL: the first), in the parts' order; NULL after the last. */
static const struct an_profile *profile_next(const struct an_profile *x)
{
	bool past = !x;

	for (const struct an_part *const *pp = an_parts; *pp; pp++)
		for (const struct an_profile *const *y = (*pp)->profiles; y && *y; y++) {
			if (past)
				return *y;
			past = *y == x;
		}
	return NULL;
}

/* The profiles' names joined by SEP, or the --by choices of those that have any
 * (BY), into BUF. */
static char *profile_words(char *buf, size_t len, bool by, const char *sep)
{
	size_t n = 0;

	buf[0] = 0;
	for (const struct an_profile *x = profile_next(NULL); x; x = profile_next(x)) {
		if (!by) {
			n += (size_t)snprintf(buf + n, n < len ? len - n : 0, "%s%s", n ? sep : "",
					      x->name);
			continue;
		}
		for (const char *const *b = x->by; b && *b; b++)
			n += (size_t)snprintf(buf + n, n < len ? len - n : 0, "%s%s", n ? sep : "",
					      *b);
	}
	return buf;
}

void export_usage(const struct analyze_cmd *c, FILE *f)
{
	char names[256], by[256];

	fprintf(f, "%s --format folded|pprof|jsonl [--profile %s]", c->name,
		profile_words(names, sizeof(names), false, "|"));
	if (profile_words(by, sizeof(by), true, "|")[0])
		fprintf(f, " [--by %s]", by);
	fprintf(f, " [-o OUT]\n%s", c->usage);
}

/* TEXT (lines joined by '\n') after LABEL, indented by INDENT, in a 27-column margin. */
static void help_lines(FILE *f, int indent, const char *label, const char *text)
{
	int width = 27 - indent;
	const char *s, *nl;

	/* a label too wide for its column stands on a line of its own */
	if ((int)strlen(label) >= width - 1) {
		fprintf(f, "%*s%s\n", indent, "", label);
		label = "";
	}
	for (s = text; s; s = nl ? nl + 1 : NULL) {
		nl = strchr(s, '\n');
		fprintf(f, "%*s%-*s%.*s\n", indent, "", width, s == text ? label : "",
			nl ? (int)(nl - s) : (int)strlen(s), s);
	}
}

/* "--by a|b|c": the --by choices of profile X alone, into LABEL */
static void by_label(char *label, size_t len, const struct an_profile *x)
{
	size_t at = (size_t)snprintf(label, len, "--by ");

	for (const char *const *w = x->by; *w && at < len; w++)
		at += (size_t)snprintf(label + at, len - at, "%s%s", w == x->by ? "" : "|", *w);
}

void export_help(const struct analyze_cmd *c, FILE *f)
{
	const char *rest = strstr(c->help, "  -o, --output");
	const char *sym = strstr(c->help, "  --symbol-cache");
	const struct an_profile *def = an_profile__find(NULL);
	char label[64], by[256];

	fprintf(f, "%.*s", rest ? (int)(rest - c->help) : (int)strlen(c->help), c->help);
	if (!rest)
		return;
	snprintf(label, sizeof(label), "--profile %s",
		 profile_words(by, sizeof(by), false, "|"));
	snprintf(by, sizeof(by), "the profile (default %s):", def ? def->name : "none");
	help_lines(f, 2, label, by);
	for (const struct an_profile *x = profile_next(NULL); x; x = profile_next(x))
		help_lines(f, 4, x->name, x->help);
	for (const struct an_profile *x = profile_next(NULL); x; x = profile_next(x))
		if (x->by) {
			by_label(label, sizeof(label), x);
			help_lines(f, 2, label, x->by_help);
		}
	fprintf(f, "%.*s", sym ? (int)(sym - rest) : (int)strlen(rest), rest);
	for (const struct an_profile *x = profile_next(NULL); x; x = profile_next(x))
		if (x->pid_help)
			help_lines(f, 2, "--pid PID", x->pid_help);
	if (sym)
		fputs(sym, f);
}

/* ------------------------------------------------------------ the command */

void export__say(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "ptop-analyze export: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int export__symbolize(const struct prof_req *r)
{
	struct symstore_run run;
	char err[512] = "", dbi[768];
	int rc = symstore__ensure(r->db, r->m->cap, r->so, &run, err, sizeof(err));

	if (rc) {
		export__say("symbolizing: %s", err);
		return rc;
	}
	if (symstore_run__debuginfod_text(&run, dbi, sizeof(dbi))[0])
		export__say("%s", dbi); /* stdout is the profile */
	return 0;
}

static int64_t wall_start(sqlite3 *db, int64_t cap, int64_t t0)
{
	sqlite3_stmt *s = NULL;
	int64_t v = 0;

	if (sqlite3_prepare_v2(db,
			       "SELECT start_realtime_ns + (?2 - start_monotonic_ns) FROM capture "
			       "WHERE cap = ?1 AND start_realtime_ns IS NOT NULL",
			       -1, &s, NULL) == SQLITE_OK) {
		sqlite3_bind_int64(s, 1, cap);
		sqlite3_bind_int64(s, 2, t0);
		if (sqlite3_step(s) == SQLITE_ROW)
			v = sqlite3_column_int64(s, 0);
	}
	sqlite3_finalize(s);
	return v;
}

/* Open OUTPUT for writing (NULL: stdout) into *F. 0 or -errno, said on stderr. */
static int open_output(const char *output, FILE **f)
{
	int fd;

	*f = stdout;
	if (!output)
		return 0;
	fd = open(output, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	*f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!*f) {
		int e = errno;

		export__say("cannot write %s: %s", output, strerror(e));
		if (fd >= 0)
			close(fd);
		return -e;
	}
	return 0;
}

/* What the command line asks. */
struct export_args {
	const struct an_profile *prof;
	const char *format, *output, *capture, *by, *file;
	struct window win;
	struct symstore_opts so;
	int32_t pid;
	bool follow;		 /* jsonl: --follow */
	uint64_t follow_timeout; /* jsonl: --follow-timeout, ns */
	bool follow_timeout_set;
};

/* Parse ARGV into A. 0, or the exit status of a usage error (said on stderr) as -1 - it. */
static int export_parse(int argc, char **argv, struct export_args *a)
{
	static const struct option longopts[] = {
	    {"format", required_argument, NULL, 'f'},
	    {"profile", required_argument, NULL, 'P'},
	    {"by", required_argument, NULL, 'b'},
	    {"output", required_argument, NULL, 'o'},
	    {"window", required_argument, NULL, 'w'},
	    {"symbol-cache", required_argument, NULL, 'c'},
	    {"debuginfod", no_argument, NULL, 'd'},
	    {"debuginfod-urls", required_argument, NULL, 'u'},
	    {"capture", required_argument, NULL, 'C'},
	    {"pid", required_argument, NULL, 'p'},
	    {"follow", no_argument, NULL, 'F'},
	    {"follow-timeout", required_argument, NULL, 'T'},
	    {"help", no_argument, NULL, 'h'},
	    {0},
	};
	char err[512], names[256];
	int c;

	a->prof = an_profile__find(NULL);
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":ho:", longopts, NULL)) != -1) {
		switch (c) {
		case 'f':
			if (strcmp(optarg, "folded") && strcmp(optarg, "pprof") &&
			    strcmp(optarg, "jsonl"))
				return -1 - analyze_usage(
				    "export", "--format takes folded, pprof or jsonl, not '%s'",
				    optarg);
			a->format = optarg;
			break;
		case 'P':
			a->prof = an_profile__find(optarg);
			if (!a->prof)
				return -1 - analyze_usage(
				    "export", "--profile takes %s, not '%s'",
				    profile_words(names, sizeof(names), false, " or "), optarg);
			break;
		case 'b':
			a->by = optarg;
			break;
		case 'o':
			a->output = optarg;
			break;
		case 'w':
			if (window__parse(optarg, &a->win, err, sizeof(err)))
				return -1 - analyze_usage("export", "%s", err);
			break;
		case 'c':
			a->so.cache_dir = optarg;
			break;
		case 'd':
			a->so.debuginfod = true;
			break;
		case 'u':
			a->so.debuginfod_urls = optarg;
			a->so.debuginfod = true;
			break;
		case 'C':
			a->capture = optarg;
			break;
		case 'p':
			if (analyze_parse_pid(optarg, &a->pid))
				return -1 - analyze_usage(
				    "export", "--pid takes a process id, not '%s'", optarg);
			break;
		case 'F':
			a->follow = true;
			break;
		case 'T':
			if (duration__parse(optarg, 86400000000000ull, DURATION_NONZERO,
					    &a->follow_timeout))
				return -1 - analyze_usage(
				    "export", "--follow-timeout takes a duration above 0 (10s, "
				    "500ms), not '%s'", optarg);
			a->follow_timeout_set = true;
			break;
		case 'h':
			analyze_cmd_help("export", stdout);
			return -1 - ANALYZE_EXIT_OK;
		case ':':
			return -1 - analyze_usage("export", "%s needs a value", argv[optind - 1]);
		default:
			return -1 - analyze_usage("export", "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (argc - optind == 1)
		a->file = argv[optind];
	return 0;
}

/* Whether the options of A go together; else the usage error's exit status, said. */
static int export_check(const struct export_args *a, int nargs)
{
	char names[256];

	if (!a->format)
		return analyze_usage("export", "which format? --format folded, pprof or jsonl");
	if (!strcmp(a->format, "jsonl")) {
		if (nargs != 1)
			return analyze_usage("export", nargs < 1 ? "which FILE?"
								 : "too many arguments: one FILE");
		if (a->prof != an_profile__find(NULL) || a->by || a->pid || a->capture ||
		    a->win.has_start || a->win.has_end || a->so.cache_dir || a->so.debuginfod)
			return analyze_usage("export", "--format jsonl takes only --follow, "
						       "--follow-timeout and -o: it writes every "
						       "record of the capture FILE as it is");
		if (a->follow_timeout_set && !a->follow)
			return analyze_usage("export", "--follow-timeout is for --follow");
		return 0;
	}
	if (a->follow || a->follow_timeout_set)
		return analyze_usage("export", "--follow is for --format jsonl");
	if (!a->prof)
		return analyze_usage("export", "no collector of this build has a profile to export");
	if (nargs != 1)
		return analyze_usage("export", nargs < 1 ? "which FILE?"
							 : "too many arguments: one FILE");
	if (a->by && a->prof->by) {
		bool known = false;

		for (const char *const *b = a->prof->by; *b; b++)
			known |= !strcmp(*b, a->by);
		if (!known) {
			size_t n = 0;

			names[0] = 0;
			for (const char *const *b = a->prof->by; *b && n < sizeof(names); b++)
				n += (size_t)snprintf(names + n, sizeof(names) - n, "%s%s",
						      n ? " or " : "", *b);
			return analyze_usage("export", "--by takes %s, not '%s'", names, a->by);
		}
	}
	if (a->by && (!a->prof->by || strcmp(a->format, "folded"))) {
		size_t n = 0;

		names[0] = 0;
		for (const struct an_profile *x = profile_next(NULL); x; x = profile_next(x))
			if (x->by && n < sizeof(names))
				n += (size_t)snprintf(names + n, sizeof(names) - n, "%s%s",
						      n ? "|" : "", x->name);
		return analyze_usage("export",
				     "--by is for --format folded --profile %s (pprof holds "
				     "every figure: pick with go tool pprof -sample_index)",
				     names);
	}
	if (a->pid && !a->prof->pid_help)
		return analyze_usage("export", "--pid is not for --profile %s", a->prof->name);
	if (!a->output && !strcmp(a->format, "pprof") && isatty(STDOUT_FILENO))
		return analyze_usage("export", "pprof output is binary: give -o FILE or redirect "
					       "stdout");
	return 0;
}

/* S as A's format to A's output; what went wrong said on stderr. 0 or -errno. */
static int export_write(sqlite3 *db, const struct capture_meta *m,
			const struct export_args *a, const struct prof_samples *s)
{
	uint8_t *gz = NULL;
	size_t gzlen = 0;
	FILE *f = NULL;
	int rc = open_output(a->output, &f);

	if (rc)
		return rc;
	if (!strcmp(a->format, "folded")) {
		rc = prof_samples__folded(s, f);
	} else {
		rc = prof_samples__pprof(s, wall_start(db, m->cap, s->t0_ns), &gz, &gzlen);
		if (!rc && fwrite(gz, 1, gzlen, f) != gzlen)
			rc = -EIO;
	}
	if (f == stdout) {
		if ((fflush(f) || ferror(f)) && !rc)
			rc = -EIO;
	} else if (fclose(f) && !rc) {
		rc = -EIO;
	}
	free(gz);
	if (rc == -EIO)
		export__say("writing %s failed", a->output ? a->output : "stdout");
	else if (rc)
		export__say("%s", strerror(-rc));
	return rc;
}

int cmd_export(int argc, char **argv)
{
	struct export_args a = {0};
	struct prof_samples s = {.t0_ns = -1};
	struct capture_meta m;
	char cid[DB_CAPTURE_ID_LEN];
	sqlite3 *db = NULL;
	int rc = export_parse(argc, argv, &a);

	if (rc)
		return -1 - rc;
	rc = export_check(&a, argc - optind);
	if (rc)
		return rc;
	if (!strcmp(a.format, "jsonl"))
		return export_jsonl(a.file, a.output, a.follow,
				    a.follow_timeout_set ? a.follow_timeout : 0);
	rc = analyze_open_checked("export", a.file, a.capture, a.prof->tables, &db, cid);
	if (rc)
		return rc;
	rc = capture_meta__load(db, cid, &m);
	if (!rc) {
		struct prof_req r = {
		    .db = db, .m = &m, .w = &a.win, .pid = a.pid, .by = a.by,
		    .pprof = !strcmp(a.format, "pprof"), .so = &a.so,
		};

		rc = a.prof->load(&r, &s); /* it says what went wrong, but for a corrupt DB */
		if (!rc)
			rc = export_write(db, &m, &a, &s);
		if (rc == -EOVERFLOW)
			export__say("corrupt DB: %s", a.prof->overflow);
		if (!rc && a.prof->done)
			a.prof->done(&r, &s);
	}
	prof_samples__free(&s);
	sqlite3_close(db);
	if (rc == -ENODATA)
		return ANALYZE_EXIT_USAGE;
	return analyze_exit_code(rc);
}
