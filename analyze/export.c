/* export.c — `export`: the CPU profile as folded stacks (flamegraph.pl, speedscope)
 * or as a gzipped pprof profile.proto (go tool pprof).
 */
#include "analyze/symbolize.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "analyze/analyze.h"
#include "collectors/heap/report.h"
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

/* What the samples of a pprof profile hold: N_TYPES values per stack of the profile,
 * VALUES[stack * n_types + i], named TYPE[i] in UNIT[i]. */
struct pp_spec {
	size_t n_types;
	const char *type[4], *unit[4];
	const char *period_type, *period_unit, *default_type; /* default_type NULL: none */
	int64_t period, time_nanos, duration_nanos;
	const int64_t *values;
	bool skip_zero; /* leave out the stacks whose values are all 0 */
};

static int pprof_encode(const struct profile *p, const struct pp_spec *sp, uint8_t **out,
			size_t *outlen)
{
	Perftools__Profiles__Profile prof = PERFTOOLS__PROFILES__PROFILE__INIT;
	Perftools__Profiles__ValueType vt[5], *vtp[4];
	Perftools__Profiles__Sample **samples = NULL;
	Perftools__Profiles__Label *labels = NULL, **label_ptrs = NULL;
	int64_t pid_key = -1; /* "pid" in the string table, once a sample needs it */
	struct pp pp = {0};
	uint8_t *raw = NULL, *gz = NULL;
	size_t rawlen;
	z_stream zs = {0};
	bool bad = false;
	int err = 0;

	*out = NULL;
	*outlen = 0;
	for (size_t k = 0; k < 5; k++)
		perftools__profiles__value_type__init(&vt[k]);
	if (str_ix(&pp, "") != 0)
		return -ENOMEM;
	for (size_t k = 0; k < sp->n_types; k++) {
		vt[k].type = str_ix(&pp, sp->type[k]);
		vt[k].unit = str_ix(&pp, sp->unit[k]);
		bad |= vt[k].type < 0 || vt[k].unit < 0;
		vtp[k] = &vt[k];
	}
	vt[4].type = str_ix(&pp, sp->period_type);
	vt[4].unit = str_ix(&pp, sp->period_unit);
	bad |= vt[4].type < 0 || vt[4].unit < 0;
	if (sp->default_type) {
		prof.default_sample_type = str_ix(&pp, sp->default_type);
		bad |= prof.default_sample_type < 0;
	}
	prof.n_sample_type = sp->n_types;
	prof.sample_type = vtp;
	prof.period_type = &vt[4];
	prof.period = sp->period;
	prof.time_nanos = sp->time_nanos;
	prof.duration_nanos = sp->duration_nanos;

	samples = calloc(p->n_stacks ? p->n_stacks : 1, sizeof(*samples));
	labels = calloc(p->n_stacks ? p->n_stacks : 1, sizeof(*labels));
	label_ptrs = calloc(p->n_stacks ? p->n_stacks : 1, sizeof(*label_ptrs));
	if (!samples || !labels || !label_ptrs || bad) {
		err = -ENOMEM;
		goto cleanup;
	}
	for (size_t k = 0; k < p->n_stacks; k++) {
		const struct prof_stack *st = &p->stacks[k];
		const int64_t *v = &sp->values[k * sp->n_types];
		Perftools__Profiles__Sample *s;
		bool zero = true;

		for (size_t i = 0; i < sp->n_types; i++)
			zero &= !v[i];
		if (zero && sp->skip_zero)
			continue;
		s = calloc(1, sizeof(*s));
		if (!s) {
			err = -ENOMEM;
			goto cleanup;
		}
		perftools__profiles__sample__init(s);
		samples[prof.n_sample++] = s;
		s->value = calloc(sp->n_types, sizeof(*s->value));
		s->location_id = calloc(st->n ? st->n : 1, sizeof(*s->location_id));
		if (!s->value || !s->location_id) {
			err = -ENOMEM;
			goto cleanup;
		}
		s->n_value = sp->n_types;
		memcpy(s->value, v, sp->n_types * sizeof(*v));
		if (st->pid) { /* a process of a per-process profile */
			if (pid_key < 0)
				pid_key = str_ix(&pp, "pid");
			if (pid_key < 0) {
				err = -ENOMEM;
				goto cleanup;
			}
			perftools__profiles__label__init(&labels[k]);
			labels[k].key = pid_key;
			labels[k].num = st->pid;
			label_ptrs[k] = &labels[k];
			s->label = &label_ptrs[k];
			s->n_label = 1;
		}
		for (size_t d = 0; d < st->n; d++) { /* the leaf first, as pprof wants */
			int64_t id = loc_id(&pp, st->loc[d]);

			if (id < 0) {
				err = -ENOMEM;
				goto cleanup;
			}
			s->location_id[s->n_location_id++] = (uint64_t)id;
		}
	}
	err = finish_mappings(&pp);
	if (err)
		goto cleanup;
	prof.sample = samples;
	prof.n_mapping = pp.map.n;
	prof.mapping = pp.maps;
	prof.n_location = pp.loc.n;
	prof.location = pp.locs;
	prof.n_function = pp.fn.n;
	prof.function = pp.fns;
	prof.n_string_table = pp.str.n;
	prof.string_table = pp.str.key;

	rawlen = perftools__profiles__profile__get_packed_size(&prof);
	raw = malloc(rawlen ? rawlen : 1);
	if (!raw) {
		err = -ENOMEM;
		goto cleanup;
	}
	perftools__profiles__profile__pack(&prof, raw);

	/* gzip (windowBits 15 + 16) */
	if (deflateInit2(&zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) !=
	    Z_OK) {
		err = -ENOMEM;
		goto cleanup;
	}
	{
		uLong bound = deflateBound(&zs, (uLong)rawlen) + 32;

		gz = malloc(bound);
		if (!gz) {
			deflateEnd(&zs);
			err = -ENOMEM;
			goto cleanup;
		}
		zs.next_in = raw;
		zs.avail_in = (uInt)rawlen;
		zs.next_out = gz;
		zs.avail_out = (uInt)bound;
		if (deflate(&zs, Z_FINISH) != Z_STREAM_END) {
			deflateEnd(&zs);
			err = -EIO;
			goto cleanup;
		}
		*outlen = zs.total_out;
		deflateEnd(&zs);
	}
	*out = gz;
	gz = NULL;
cleanup:
	for (size_t k = 0; k < prof.n_sample; k++) {
		free(samples[k]->value);
		free(samples[k]->location_id);
		free(samples[k]);
	}
	free(samples);
	free(labels);
	free(label_ptrs);
	for (size_t k = 0; k < pp.loc.n && k < pp.cap_locs; k++) {
		if (!pp.locs[k])
			continue;
		for (size_t i = 0; i < pp.locs[k]->n_line; i++)
			free(pp.locs[k]->line[i]);
		free(pp.locs[k]->line);
		free(pp.locs[k]);
	}
	for (size_t k = 0; k < pp.fn.n && k < pp.cap_fns; k++)
		free(pp.fns[k]);
	for (size_t k = 0; k < pp.map.n && k < pp.cap_maps; k++)
		free(pp.maps[k]);
	free(pp.locs);
	free(pp.fns);
	free(pp.maps);
	free(pp.mx);
	intern_free(&pp.str);
	intern_free(&pp.fn);
	intern_free(&pp.map);
	intern_free(&pp.loc);
	free(raw);
	free(gz);
	return err;
}

int export_pprof(const struct profile *p, int64_t time_nanos, uint8_t **out, size_t *outlen)
{
	struct pp_spec sp = {
	    .n_types = 2,
	    .type = {"samples", "cpu"},
	    .unit = {"count", "nanoseconds"},
	    .period_type = "cpu",
	    .period_unit = "nanoseconds",
	    .period = p->requested_hz ? 1000000000LL / p->requested_hz : 0,
	    .time_nanos = time_nanos,
	    .duration_nanos = p->t0_ns >= 0 && p->t1_ns > p->t0_ns ? p->t1_ns - p->t0_ns : 0,
	};
	int64_t *v = calloc(2 * (p->n_stacks + 1), sizeof(*v));
	int err;

	*out = NULL;
	*outlen = 0;
	if (!v)
		return -ENOMEM;
	for (size_t k = 0; k < p->n_stacks; k++) {
		uint64_t c = p->stacks[k].count;

		v[2 * k] = (int64_t)c;
		/* a CPU time past 2^63 ns: no recording holds it (a corrupt DB) */
		if (c > INT64_MAX || __builtin_mul_overflow((int64_t)c, sp.period, &v[2 * k + 1])) {
			free(v);
			return -EOVERFLOW;
		}
	}
	sp.values = v;
	err = pprof_encode(p, &sp, out, outlen);
	free(v);
	return err;
}

/* ------------------------------------------------------------ heap */

/* The frame standing for the stackless entries of a heap profile ("[no stack]", ...). */
struct pseudo {
	struct prof_loc loc;
	struct prof_func f;
	struct prof_loc *locp;
};

/* HS as a profile of its stacks (shallow: the locations are HS's, the stackless
 * entries one pseudo frame each, PS[k] for entry k), for the exporters. The caller
 * frees stacks and ps. 0 or -ENOMEM. */
static int heap_as_profile(const struct heap_stacks *hs, struct profile *p, struct pseudo **ps)
{
	memset(p, 0, sizeof(*p));
	p->stacks = calloc(hs->n + 1, sizeof(*p->stacks));
	*ps = calloc(hs->n + 1, sizeof(**ps));
	if (!p->stacks || !*ps) {
		free(p->stacks);
		free(*ps);
		*ps = NULL;
		return -ENOMEM;
	}
	p->n_stacks = hs->n;
	p->t0_ns = hs->t0_ns;
	p->t1_ns = hs->t1_ns;
	for (size_t k = 0; k < hs->n; k++) {
		struct prof_stack *st = &p->stacks[k];
		struct pseudo *x = &(*ps)[k];

		if (hs->stack[k].stack) {
			*st = *hs->stack[k].stack;
			st->pid = 0;
			continue;
		}
		x->f.func = hs->stack[k].what;
		x->loc.kind = FRAME_UNKNOWN;
		x->loc.module = hs->stack[k].what;
		x->loc.n = 1;
		x->loc.f = &x->f;
		x->locp = &x->loc;
		st->n = 1;
		st->loc = &x->locp;
	}
	return 0;
}

int export_heap_pprof(const struct heap_stacks *hs, int64_t time_nanos, uint8_t **out,
		      size_t *outlen)
{
	struct pp_spec sp = {
	    .n_types = hs->live_measured ? 4 : 2,
	    .type = {"alloc_objects", "alloc_space", "inuse_objects", "inuse_space"},
	    .unit = {"count", "bytes", "count", "bytes"},
	    .period_type = "space",
	    .period_unit = "bytes",
	    .default_type = hs->live_measured ? "inuse_space" : "alloc_space",
	    .period = hs->sample_bytes > INT64_MAX ? INT64_MAX : (int64_t)hs->sample_bytes,
	    .time_nanos = time_nanos,
	    .duration_nanos = hs->t0_ns >= 0 && hs->t1_ns > hs->t0_ns ? hs->t1_ns - hs->t0_ns : 0,
	    .skip_zero = true,
	};
	struct profile p;
	struct pseudo *ps = NULL;
	int64_t *v = calloc(4 * (hs->n + 1), sizeof(*v));
	int err;

	*out = NULL;
	*outlen = 0;
	if (!v)
		return -ENOMEM;
	for (size_t k = 0; k < hs->n; k++) {
		const struct heap_stack *e = &hs->stack[k];
		uint64_t x[4] = {e->alloc_count, e->alloc_bytes, e->live_count, e->live_bytes};

		for (size_t i = 0; i < sp.n_types; i++) {
			if (x[i] > INT64_MAX) {
				free(v);
				return -EOVERFLOW;
			}
			v[k * sp.n_types + i] = (int64_t)x[i];
		}
	}
	sp.values = v;
	err = heap_as_profile(hs, &p, &ps);
	if (!err)
		err = pprof_encode(&p, &sp, out, outlen);
	free(p.stacks);
	free(ps);
	free(v);
	return err;
}

int export_heap_folded(const struct heap_stacks *hs, bool live, FILE *f)
{
	struct profile p;
	struct pseudo *ps = NULL;
	int err = heap_as_profile(hs, &p, &ps);

	if (err)
		return err;
	for (size_t k = 0; k < hs->n; k++)
		p.stacks[k].count = live ? hs->stack[k].live_bytes : hs->stack[k].alloc_bytes;
	err = export_folded(&p, f);
	free(p.stacks);
	free(ps);
	return err;
}

/* ------------------------------------------------------------ the command */

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

		fprintf(stderr, "ptop-analyze export: cannot write %s: %s\n", output, strerror(e));
		if (fd >= 0)
			close(fd);
		return -e;
	}
	return 0;
}

/* export --profile heap: the heap figures of capture M in window W. */
static int export_heap(sqlite3 *db, const struct capture_meta *m, const struct window *w,
		       const struct symstore_opts *so, const char *format, const char *by,
		       const char *output)
{
	struct heap_stacks *hs = NULL;
	struct symstore_run run;
	char err[512] = "", dbi[768];
	uint8_t *gz = NULL;
	size_t gzlen = 0;
	FILE *f = NULL;
	int rc;

	rc = symstore__ensure(db, m->cap, so, &run, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "ptop-analyze export: symbolizing: %s\n", err);
		return rc;
	}
	if (symstore_run__debuginfod_text(&run, dbi, sizeof(dbi))[0])
		fprintf(stderr, "ptop-analyze export: %s\n", dbi); /* stdout is the profile */
	rc = heap_stacks__load(db, m, w, &hs);
	if (rc)
		goto cleanup;
	if (!hs->collected) {
		fprintf(stderr,
			"ptop-analyze export: heap: not collected in this capture (%s: %s): "
			"nothing to export\n",
			hs->probe.state,
			hs->probe.reason[0] ? hs->probe.reason : "no reason recorded");
		rc = -ENODATA;
		goto cleanup;
	}
	if (by && !strcmp(by, "live") && !hs->live_measured) {
		fprintf(stderr, "ptop-analyze export: the live heap was not measured in this "
				"capture (the Go lane counts allocations only): --by allocated\n");
		rc = -ENODATA;
		goto cleanup;
	}
	rc = open_output(output, &f);
	if (rc)
		goto cleanup;
	if (!strcmp(format, "folded")) {
		rc = export_heap_folded(hs, !by || !strcmp(by, "live") ? hs->live_measured : false,
					f);
	} else {
		rc = export_heap_pprof(hs, wall_start(db, m->cap, hs->t0_ns), &gz, &gzlen);
		if (!rc && fwrite(gz, 1, gzlen, f) != gzlen)
			rc = -EIO;
	}
	if (f != stdout && fclose(f) && !rc)
		rc = -EIO;
	if (f == stdout && (fflush(f) || ferror(f)) && !rc)
		rc = -EIO;
	if (rc == -EIO)
		fprintf(stderr, "ptop-analyze export: writing %s failed\n",
			output ? output : "stdout");
	else if (rc == -EOVERFLOW)
		fprintf(stderr, "ptop-analyze export: corrupt DB: a heap figure passes 2^63\n");
	else if (rc)
		fprintf(stderr, "ptop-analyze export: %s\n", strerror(-rc));
	if (!rc && !hs->n_snap)
		fprintf(stderr, "ptop-analyze export: warning: no heap snapshot%s\n",
			w->has_start || w->has_end ? " in this window" : "");
	else if (!rc && !hs->live_measured && !strcmp(format, "pprof"))
		fprintf(stderr, "ptop-analyze export: warning: the live heap was not measured "
				"(the Go lane): alloc_objects and alloc_space only\n");
	if (!rc && (hs->unsampled_alloc_bytes || hs->unsampled_live_bytes)) {
		char a[32], b[32], sb[32];

		fprintf(stderr,
			"ptop-analyze export: note: sampled heap (one stack per %s on average): the "
			"sites are the samples' estimates; %s allocated and %s live at the end fell "
			"on no sample and are the entry [not sampled], not a function (record with "
			"--heap-sample-bytes 0 for every allocation's stack)\n",
			fmt_bytes(sb, sizeof(sb), hs->sample_bytes),
			fmt_bytes(a, sizeof(a), hs->unsampled_alloc_bytes),
			fmt_bytes(b, sizeof(b), hs->unsampled_live_bytes));
	}
cleanup:
	free(gz);
	heap_stacks__free(hs);
	return rc;
}

int cmd_export(int argc, char **argv)
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
	    {"help", no_argument, NULL, 'h'},
	    {0},
	};
	struct symstore_opts so = {0};
	struct symstore_run run;
	char dbi[768];
	struct window win = {0};
	const char *format = NULL, *output = NULL, *capture_opt = NULL, *by = NULL;
	bool heap = false;
	char cid[DB_CAPTURE_ID_LEN], err[512] = "";
	struct capture_meta m;
	struct profile *p = NULL;
	sqlite3 *db = NULL;
	FILE *f = NULL;
	uint8_t *gz = NULL;
	size_t gzlen = 0;
	int32_t pid = 0;
	int c, rc, fd = -1;

	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":ho:", longopts, NULL)) != -1) {
		switch (c) {
		case 'f':
			if (strcmp(optarg, "folded") && strcmp(optarg, "pprof"))
				return analyze_usage(
				    "export", "--format takes folded or pprof, not '%s'", optarg);
			format = optarg;
			break;
		case 'P':
			if (strcmp(optarg, "cpu") && strcmp(optarg, "heap"))
				return analyze_usage(
				    "export", "--profile takes cpu or heap, not '%s'", optarg);
			heap = !strcmp(optarg, "heap");
			break;
		case 'b':
			if (strcmp(optarg, "live") && strcmp(optarg, "allocated"))
				return analyze_usage(
				    "export", "--by takes live or allocated, not '%s'", optarg);
			by = optarg;
			break;
		case 'o':
			output = optarg;
			break;
		case 'w':
			if (window__parse(optarg, &win, err, sizeof(err)))
				return analyze_usage("export", "%s", err);
			break;
		case 'c':
			so.cache_dir = optarg;
			break;
		case 'd':
			so.debuginfod = true;
			break;
		case 'u':
			so.debuginfod_urls = optarg;
			so.debuginfod = true;
			break;
		case 'C':
			capture_opt = optarg;
			break;
		case 'p':
			if (analyze_parse_pid(optarg, &pid))
				return analyze_usage("export", "--pid takes a process id, not '%s'",
						     optarg);
			break;
		case 'h':
			analyze_cmd_help("export", stdout);
			return ANALYZE_EXIT_OK;
		case ':':
			return analyze_usage("export", "%s needs a value", argv[optind - 1]);
		default:
			return analyze_usage("export", "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (!format)
		return analyze_usage("export", "which format? --format folded or --format pprof");
	if (argc - optind != 1)
		return analyze_usage("export", argc - optind < 1 ? "which FILE?"
								 : "too many arguments: one FILE");
	if (by && (!heap || strcmp(format, "folded")))
		return analyze_usage("export", "--by is for --format folded --profile heap (pprof "
					       "holds both: pick with go tool pprof -sample_index)");
	if (heap && pid)
		return analyze_usage("export", "--pid is for the CPU profile");
	if (!output && !strcmp(format, "pprof") && isatty(STDOUT_FILENO))
		return analyze_usage("export", "pprof output is binary: give -o FILE or redirect "
					       "stdout");
	rc = analyze_open_checked("export", argv[optind], capture_opt,
				  heap ? "heap_snapshot,heap_site" : "cpu_profile,cpu_profile_stack",
				  &db, cid);
	if (rc)
		return rc;
	rc = capture_meta__load(db, cid, &m);
	if (rc)
		goto cleanup;
	if (heap) {
		rc = export_heap(db, &m, &win, &so, format, by, output);
		goto cleanup;
	}
	rc = profile__load_pid(db, &m, &win, pid, &p);
	if (rc)
		goto cleanup;
	if (!p->collected) {
		fprintf(stderr,
			"ptop-analyze export: the CPU profile was not collected in this capture "
			"(%s: %s): nothing to export\n",
			p->probe.state,
			p->probe.reason[0] ? p->probe.reason : "no reason recorded");
		rc = -ENODATA;
		goto cleanup;
	}
	if (pid) {
		rc = profile__check_pid(db, m.cap, pid, err, sizeof(err));
		if (rc) {
			fprintf(stderr, "ptop-analyze export: %s\n", err);
			rc = rc == -ENOENT ? -ENODATA : rc; /* a usage error */
			goto cleanup;
		}
	}
	rc = symstore__ensure(db, m.cap, &so, &run, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "ptop-analyze export: symbolizing: %s\n", err);
		goto cleanup;
	}
	if (symstore_run__debuginfod_text(&run, dbi, sizeof(dbi))[0])
		fprintf(stderr, "ptop-analyze export: %s\n", dbi); /* stdout is the profile */
	profile__free(p);
	p = NULL;
	rc = profile__load_pid(db, &m, &win, pid, &p);
	if (rc)
		goto cleanup;
	{ /* walks cut short: their stacks end early in the profile too; said beside it */
		char cut[512];

		rc = profile__cut_note(p, p->stacked, "samples", cut, sizeof(cut));
		if (rc)
			goto cleanup;
		if (cut[0])
			fprintf(stderr, "ptop-analyze export: note: %s\n", cut);
	}

	if (output) {
		fd = open(output, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		f = fd >= 0 ? fdopen(fd, "w") : NULL;
		if (!f) {
			rc = -errno;
			fprintf(stderr, "ptop-analyze export: cannot write %s: %s\n", output,
				strerror(errno));
			if (fd >= 0)
				close(fd);
			goto cleanup;
		}
	}
	if (!strcmp(format, "folded")) {
		rc = export_folded(p, f ? f : stdout);
	} else {
		rc = export_pprof(p, wall_start(db, m.cap, p->t0_ns), &gz, &gzlen);
		if (!rc && fwrite(gz, 1, gzlen, f ? f : stdout) != gzlen)
			rc = -EIO;
	}
	if (f && fclose(f) && !rc)
		rc = -EIO;
	f = NULL;
	if (rc == -EIO)
		fprintf(stderr, "ptop-analyze export: writing %s failed\n",
			output ? output : "stdout");
	else if (rc == -EOVERFLOW)
		fprintf(stderr, "ptop-analyze export: corrupt DB: a stack's samples x 1e9 / Hz pass "
				"2^63 ns of CPU time, which no recording holds; load the capture "
				"again\n");
	else if (rc)
		fprintf(stderr, "ptop-analyze export: %s\n", strerror(-rc));
	if (!rc && !p->stacked)
		fprintf(stderr, "ptop-analyze export: warning: the profile holds no samples%s%s\n",
			pid ? " of this process" : "",
			win.has_start || win.has_end ? " in this window" : "");
cleanup:
	if (f)
		fclose(f);
	free(gz);
	profile__free(p);
	sqlite3_close(db);
	if (rc == -ENODATA)
		return ANALYZE_EXIT_USAGE;
	return analyze_exit_code(rc);
}
