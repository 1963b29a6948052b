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
 * (NULL until made); the first cap_* of them allocated. */
struct pp {
	struct intern str, fn, map, loc;
	Perftools__Profiles__Function **fns;
	Perftools__Profiles__Mapping **maps;
	Perftools__Profiles__Location **locs;
	size_t cap_fns, cap_maps, cap_locs;
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

static int64_t map_id(struct pp *pp, const struct prof_loc *l)
{
	bool added;
	int64_t ix = intern(&pp->map, l->module, &added);
	Perftools__Profiles__Mapping *m;

	if (ix < 0)
		return -1;
	if (!added)
		return ix + 1;
	if (array__grow((void **)&pp->maps, &pp->cap_maps, (size_t)ix, sizeof(*pp->maps)))
		return -1;
	pp->maps[ix] = m = calloc(1, sizeof(*m));
	if (!m)
		return -1;
	perftools__profiles__mapping__init(m);
	m->id = (uint64_t)ix + 1;
	m->filename = str_ix(pp, l->module);
	m->build_id = str_ix(pp, l->build_id);
	m->has_functions = true;
	m->has_filenames = true;
	m->has_line_numbers = true;
	m->has_inline_frames = true;
	return m->filename < 0 || m->build_id < 0 ? -1 : ix + 1;
}

static int64_t loc_id(struct pp *pp, const struct prof_loc *l)
{
	char key[1024], name[512];
	bool added;
	int64_t ix, mid;
	Perftools__Profiles__Location *loc;

	snprintf(key, sizeof(key), "%d\x1f%s\x1f%" PRIx64, (int)l->kind, l->module, l->addr);
	ix = intern(&pp->loc, key, &added);
	if (ix < 0)
		return -1;
	if (!added)
		return ix + 1;
	mid = map_id(pp, l);
	if (array__grow((void **)&pp->locs, &pp->cap_locs, (size_t)ix, sizeof(*pp->locs)))
		return -1;
	pp->locs[ix] = loc = mid > 0 ? calloc(1, sizeof(*loc)) : NULL;
	if (!loc)
		return -1;
	perftools__profiles__location__init(loc);
	loc->id = (uint64_t)ix + 1;
	loc->mapping_id = (uint64_t)mid;
	loc->address = l->ip;
	loc->n_line = l->n ? l->n : 1;
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
		fid = func_id(pp, name, l->n ? l->f[i].file : NULL);
		if (fid < 0) {
			loc->n_line = i + 1;
			return -1;
		}
		ln->function_id = (uint64_t)fid;
		ln->line = l->n ? l->f[i].line : 0;
	}
	return ix + 1;
}

int export_pprof(const struct profile *p, int64_t time_nanos, uint8_t **out, size_t *outlen)
{
	Perftools__Profiles__Profile prof = PERFTOOLS__PROFILES__PROFILE__INIT;
	Perftools__Profiles__ValueType vt[3], *vtp[2];
	Perftools__Profiles__Sample **samples = NULL;
	Perftools__Profiles__Label *labels = NULL, **label_ptrs = NULL;
	int64_t pid_key = -1; /* "pid" in the string table, once a sample needs it */
	struct pp pp = {0};
	uint8_t *raw = NULL, *gz = NULL;
	size_t rawlen;
	int64_t period = p->requested_hz ? 1000000000LL / p->requested_hz : 0;
	z_stream zs = {0};
	int err = 0;

	*out = NULL;
	*outlen = 0;
	for (int k = 0; k < 3; k++)
		perftools__profiles__value_type__init(&vt[k]);
	if (str_ix(&pp, "") != 0)
		return -ENOMEM;
	vt[0].type = str_ix(&pp, "samples");
	vt[0].unit = str_ix(&pp, "count");
	vt[1].type = str_ix(&pp, "cpu");
	vt[1].unit = str_ix(&pp, "nanoseconds");
	vt[2] = vt[1];
	vtp[0] = &vt[0];
	vtp[1] = &vt[1];
	prof.n_sample_type = 2;
	prof.sample_type = vtp;
	prof.period_type = &vt[2];
	prof.period = period;
	prof.time_nanos = time_nanos;
	prof.duration_nanos = p->t0_ns >= 0 && p->t1_ns > p->t0_ns ? p->t1_ns - p->t0_ns : 0;

	samples = calloc(p->n_stacks ? p->n_stacks : 1, sizeof(*samples));
	labels = calloc(p->n_stacks ? p->n_stacks : 1, sizeof(*labels));
	label_ptrs = calloc(p->n_stacks ? p->n_stacks : 1, sizeof(*label_ptrs));
	if (!samples || !labels || !label_ptrs) {
		err = -ENOMEM;
		goto cleanup;
	}
	for (size_t k = 0; k < p->n_stacks; k++) {
		const struct prof_stack *st = &p->stacks[k];
		Perftools__Profiles__Sample *s = calloc(1, sizeof(*s));

		if (!s) {
			err = -ENOMEM;
			goto cleanup;
		}
		perftools__profiles__sample__init(s);
		samples[prof.n_sample++] = s;
		s->value = calloc(2, sizeof(*s->value));
		s->location_id = calloc(st->n ? st->n : 1, sizeof(*s->location_id));
		if (!s->value || !s->location_id) {
			err = -ENOMEM;
			goto cleanup;
		}
		s->n_value = 2;
		s->value[0] = (int64_t)st->count;
		/* a CPU time past 2^63 ns: no recording holds it (a corrupt DB) */
		if (st->count > INT64_MAX ||
		    __builtin_mul_overflow((int64_t)st->count, period, &s->value[1])) {
			err = -EOVERFLOW;
			goto cleanup;
		}
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
	if (vt[0].type < 0 || vt[1].unit < 0) {
		err = -ENOMEM;
		goto cleanup;
	}
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
	intern_free(&pp.str);
	intern_free(&pp.fn);
	intern_free(&pp.map);
	intern_free(&pp.loc);
	free(raw);
	free(gz);
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

int cmd_export(int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"format", required_argument, NULL, 'f'},
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
	const char *format = NULL, *output = NULL, *capture_opt = NULL;
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
	if (!output && !strcmp(format, "pprof") && isatty(STDOUT_FILENO))
		return analyze_usage("export", "pprof output is binary: give -o FILE or redirect "
					       "stdout");
	rc = analyze_open_checked("export", argv[optind], capture_opt, "cpu_profile,cpu_profile_stack",
				  &db, cid);
	if (rc)
		return rc;
	rc = capture_meta__load(db, cid, &m);
	if (rc)
		goto cleanup;
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
