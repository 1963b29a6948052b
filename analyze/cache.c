/* cache.c — the analyzer's cache of loaded captures: one SQLite DB per capture, so
 * that every command can take a .ptop file and load it once.
 *
 * An entry is $XDG_CACHE_HOME/ptop/ID-SIZE.db (else ~/.cache/ptop): ID the capture's id
 * from its header, SIZE its size in bytes. A copy or a move of a capture reuses its
 * entry; a capture still growing, or another capture at the same path, gets a new one.
 * The folder is kept under a size cap (PTOP_CACHE_MAX, default 4 GiB) by removing the
 * least recently used entries after each build; an entry's modification time is when
 * it was last used (set at each use: an access time would move with every read, even
 * `cache list`'s own). `ptop-analyze cache list|prune|clear` shows and trims it.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <glob.h>
#include <inttypes.h>
#include <limits.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "analyze/analyze.h"
#include "analyze/cache.h"
#include "analyze/output.h"
#include "common/units.h"
#include "proto/capture.h"

/* ------------------------------------------------------------------ the folder */

/* mkdir DIR (0700) if missing. */
static int make_dir(const char *dir)
{
	if (mkdir(dir, 0700) == 0 || errno == EEXIST)
		return 0;
	return -errno;
}

int cache__dir(char *out, size_t len, bool create)
{
	const char *xdg = getenv("XDG_CACHE_HOME");
	const char *home = getenv("HOME");
	char base[PATH_MAX];
	int n, err;

	if (xdg && xdg[0] == '/') { /* the XDG spec ignores relative paths */
		n = snprintf(base, sizeof(base), "%s", xdg);
	} else {
		if (!home || home[0] != '/') {
			struct passwd *pw = getpwuid(getuid());

			if (!pw || !pw->pw_dir || pw->pw_dir[0] != '/')
				return -ENOENT;
			home = pw->pw_dir;
		}
		n = snprintf(base, sizeof(base), "%s/.cache", home);
	}
	if (n < 0 || (size_t)n >= sizeof(base))
		return -ENAMETOOLONG;
	n = snprintf(out, len, "%s/ptop", base);
	if (n < 0 || (size_t)n >= len)
		return -ENAMETOOLONG;
	if (create) {
		err = make_dir(base);
		if (!err)
			err = make_dir(out);
		if (err)
			return err;
	}
	return 0;
}

/* The cache folder DIR may be trusted: a directory owned by this user (the effective
 * uid) that no group or other user may write, so nobody else can put a DB there for
 * us to read, or swap ours. -EPERM with a message saying how to fix it otherwise;
 * -errno when it cannot be checked. */
static int cache_dir_check(const char *dir, char *err, size_t errlen)
{
	struct stat st;

	if (stat(dir, &st)) {
		snprintf(err, errlen, "cannot check the cache folder %s: %s", dir, strerror(errno));
		return -errno;
	}
	if (!S_ISDIR(st.st_mode)) {
		snprintf(err, errlen,
			 "the cache folder %s is not a directory: remove it, or set XDG_CACHE_HOME "
			 "to a folder of your own",
			 dir);
		return -ENOTDIR;
	}
	if (st.st_uid != geteuid()) {
		snprintf(err, errlen,
			 "the cache folder %s belongs to uid %u, not to you (uid %u): another "
			 "user could change the cache DBs there; `chown %u %s`, or set "
			 "XDG_CACHE_HOME to a folder of your own (or use `ptop-analyze load FILE "
			 "--db FILE.db`)",
			 dir, (unsigned)st.st_uid, (unsigned)geteuid(), (unsigned)geteuid(), dir);
		return -EPERM;
	}
	if (st.st_mode & (S_IWGRP | S_IWOTH)) {
		snprintf(err, errlen,
			 "the cache folder %s is writable by %s (mode %04o): another user could "
			 "change the cache DBs there; `chmod go-w %s`, or set XDG_CACHE_HOME to a "
			 "folder of your own (or use `ptop-analyze load FILE --db FILE.db`)",
			 dir, st.st_mode & S_IWOTH ? "every user" : "its group",
			 (unsigned)(st.st_mode & 07777), dir);
		return -EPERM;
	}
	return 0;
}

int cache__max_bytes(uint64_t *max, char *err, size_t errlen)
{
	const char *env = getenv(CACHE_MAX_ENV);

	*max = CACHE_MAX_DEFAULT;
	if (!env || !*env)
		return 0;
	if (units__parse_bytes(env, UINT64_MAX, max)) {
		*max = CACHE_MAX_DEFAULT;
		snprintf(err, errlen,
			 "%s=%s: give a size in bytes with an optional K/M/G/T suffix (4G), or 0 "
			 "for no cap",
			 CACHE_MAX_ENV, env);
		return -EINVAL;
	}
	return 0;
}

/* ------------------------------------------------------------------ one entry */

static void entry_describe(struct cache_entry *e);

/* The capture id of the capture at PATH, from its header, as 32 hex digits in ID;
 * -EBADMSG when the file's first record is not a header with a 16-byte id. */
static int read_capture_id(const char *path, char id[33])
{
	struct capture_reader *r = capture_reader__open(path);
	Ptop__V1__Record *rec = NULL;
	int rc, ret = -EBADMSG;

	if (!r)
		return -errno;
	rc = capture_reader__next(r, &rec);
	if (rc == 1 && rec->kind_case == PTOP__V1__RECORD__KIND_HEADER && rec->header &&
	    rec->header->capture_id.len == 16) {
		for (size_t k = 0; k < 16; k++)
			snprintf(id + 2 * k, 3, "%02x", rec->header->capture_id.data[k]);
		ret = 0;
	} else if (rc < 0) {
		ret = rc;
	}
	if (rec)
		ptop__v1__record__free_unpacked(rec, NULL);
	capture_reader__free(r);
	return ret;
}

/* The entry of the capture at PATH (whose stat is ST) in DIR: DIR/ID-SIZE.db; a capture
 * whose id cannot be read is keyed "noid" (its load fails and says why). */
static int entry_path(const char *dir, const char *path, const struct stat *st, char *out,
		      size_t len)
{
	char id[33] = "noid";
	int n;

	if (read_capture_id(path, id) == -ENOMEM)
		return -ENOMEM;
	n = snprintf(out, len, "%s/%s-%" PRIu64 ".db", dir, id, (uint64_t)st->st_size);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

int cache__path(const char *capture_path, char *out, size_t len)
{
	char dir[PATH_MAX];
	struct stat st;
	int err;

	if (stat(capture_path, &st))
		return -errno;
	err = cache__dir(dir, sizeof(dir), false);
	return err ?: entry_path(dir, capture_path, &st, out, len);
}

/* Mark the entry at CPATH used now (its modification time). */
static void touch_used(const char *cpath)
{
	struct timespec ts[2] = {{.tv_nsec = UTIME_OMIT}, {.tv_nsec = UTIME_NOW}};

	utimensat(AT_FDCWD, cpath, ts, 0);
}

static int64_t mtime_ns(const struct stat *st)
{
	return (int64_t)st->st_mtim.tv_sec * 1000000000 + st->st_mtim.tv_nsec;
}

/* Whether the entry at CPATH holds the capture at REAL (stat ST) with its id and size:
 * then *OUT is the open, read-only DB. An entry reused for a copy or a move is told the
 * capture's new path (source_path), so that info names the file given. */
static bool entry_fresh(const char *cpath, const char *real, const struct stat *st,
			sqlite3 **out)
{
	sqlite3 *db = NULL, *rw = NULL;
	sqlite3_stmt *s = NULL;
	char ignored[256];
	bool fresh = false, moved = false;

	if (access(cpath, R_OK))
		return false;
	if (db__open(cpath, false, true, &db, ignored, sizeof(ignored)))
		return false;
	if (sqlite3_prepare_v2(db,
			       "SELECT source_path, source_size, (SELECT count(*) FROM capture) "
			       "FROM capture",
			       -1, &s, NULL) != SQLITE_OK)
		goto cleanup;
	if (sqlite3_step(s) != SQLITE_ROW)
		goto cleanup;
	/* the id is in the name; the size is checked against the row too */
	fresh = sqlite3_column_int64(s, 2) == 1 && sqlite3_column_int64(s, 1) == st->st_size;
	moved = fresh && (!sqlite3_column_text(s, 0) ||
			  strcmp((const char *)sqlite3_column_text(s, 0), real));
cleanup:
	sqlite3_finalize(s);
	if (moved && sqlite3_open_v2(cpath, &rw, SQLITE_OPEN_READWRITE, NULL) == SQLITE_OK) {
		sqlite3_stmt *u = NULL;

		if (sqlite3_prepare_v2(rw,
				       "UPDATE capture SET source_path = ?1, source_mtime_ns = ?2",
				       -1, &u, NULL) == SQLITE_OK) {
			sqlite3_bind_text(u, 1, real, -1, SQLITE_STATIC);
			sqlite3_bind_int64(u, 2, mtime_ns(st));
			sqlite3_step(u); /* a read-only entry keeps the first path: no harm */
		}
		sqlite3_finalize(u);
	}
	sqlite3_close(rw);
	if (fresh)
		*out = db;
	else
		sqlite3_close(db);
	return fresh;
}

/* Remove CPATH.tmp.PID files whose builder PID is gone (it crashed or was
 * killed mid-build); a build still running keeps its file. */
static void remove_stale_tmp(const char *pattern_base)
{
	char pattern[PATH_MAX + 16];
	glob_t g;

	snprintf(pattern, sizeof(pattern), "%s.tmp.*", pattern_base);
	if (glob(pattern, GLOB_NOSORT | GLOB_NOESCAPE, NULL, &g))
		return;
	for (size_t k = 0; k < g.gl_pathc; k++) {
		const char *dot = strrchr(g.gl_pathv[k], '.');
		char *end;
		long pid = dot ? strtol(dot + 1, &end, 10) : 0;

		if (pid > 0 && !*end && kill((pid_t)pid, 0) && errno == ESRCH)
			unlink(g.gl_pathv[k]);
	}
	globfree(&g);
}

/* Load the capture PATH into a new DB at a temporary name next to CPATH, then
 * rename it into place: a reader never sees a half-built entry, and a load
 * that fails leaves the old entry (or none). No journal and no fsync: an entry
 * that a crash left unreadable fails entry_fresh and is built again. */
static int entry_build(const char *path, const char *cpath, char *err, size_t errlen)
{
	char tmp[PATH_MAX + 96];
	char id[DB_CAPTURE_ID_LEN];
	sqlite3 *db = NULL;
	int ret;

	remove_stale_tmp(cpath);
	snprintf(tmp, sizeof(tmp), "%s.tmp.%d", cpath, (int)getpid());
	unlink(tmp);
	ret = db__open(tmp, true, false, &db, err, errlen);
	if (ret)
		goto cleanup;
	/* the temporary file is thrown away if anything fails: no journal needed */
	sqlite3_exec(db, "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF;", NULL, NULL,
		     NULL);
	ret = db__load_capture(db, path, true, id, NULL, err, errlen);
	if (ret)
		goto cleanup;
	if (sqlite3_close(db) != SQLITE_OK) {
		ret = -EIO;
		snprintf(err, errlen, "cannot close the cache DB %s", tmp);
		db = NULL;
		goto cleanup;
	}
	db = NULL;
	if (rename(tmp, cpath)) {
		ret = -errno;
		snprintf(err, errlen, "cannot put the cache DB in place at %s: %s", cpath,
			 strerror(errno));
	}
cleanup:
	sqlite3_close(db);
	if (ret)
		unlink(tmp);
	return ret;
}

/* The entries of the capture CPATH is for, at other sizes, last used for the same file
 * REAL: the file grew (a recording still being written) or was cut,
 * so they will not be used again. Removed, so a live capture analyzed again and again
 * leaves one entry, not one per size. Copies elsewhere keep theirs. */
static void remove_older_sizes(const char *cpath, const char *real)
{
	const char *base = strrchr(cpath, '/'), *dash = strrchr(cpath, '-');
	char pattern[PATH_MAX + 96];
	glob_t g;

	if (!base || !dash || dash < base)
		return;
	snprintf(pattern, sizeof(pattern), "%.*s-*.db", (int)(dash - cpath), cpath);
	if (glob(pattern, GLOB_NOSORT | GLOB_NOESCAPE, NULL, &g))
		return;
	for (size_t k = 0; k < g.gl_pathc; k++) {
		struct cache_entry e = {0};

		if (!strcmp(g.gl_pathv[k], cpath))
			continue;
		snprintf(e.path, sizeof(e.path), "%s", g.gl_pathv[k]);
		entry_describe(&e);
		if (!strcmp(e.source, real))
			unlink(g.gl_pathv[k]);
	}
	globfree(&g);
}

int cache__open_capture(const char *path, sqlite3 **out, char *err, size_t errlen)
{
	char dir[PATH_MAX], cpath[PATH_MAX + 64], why[256] = "";
	char *real = NULL;
	sqlite3 *db = NULL;
	struct stat st;
	uint64_t max;
	int ret;

	*out = NULL;
	real = realpath(path, NULL);
	if (!real || stat(real, &st)) {
		ret = -errno;
		snprintf(err, errlen, "cannot open %s: %s", path, strerror(errno));
		goto cleanup;
	}
	ret = cache__dir(dir, sizeof(dir), true);
	ret = ret ?: entry_path(dir, real, &st, cpath, sizeof(cpath));
	if (ret) {
		snprintf(err, errlen,
			 "cannot make the cache folder for %s (%s): set XDG_CACHE_HOME to a "
			 "writable folder, or load it with `ptop-analyze load %s --db FILE.db`",
			 path, strerror(-ret), path);
		goto cleanup;
	}
	ret = cache_dir_check(dir, err, errlen);
	if (ret)
		goto cleanup;
	if (!entry_fresh(cpath, real, &st, &db)) {
		ret = entry_build(path, cpath, err, errlen);
		if (ret)
			goto cleanup;
		ret = db__open(cpath, false, true, &db, err, errlen);
		if (ret)
			goto cleanup;
		/* keep the folder under its cap: the least recently used entries go, never
		 * this one */
		if (cache__max_bytes(&max, why, sizeof(why)))
			fprintf(stderr, "ptop-analyze: %s; using the default\n", why);
		cache__evict(dir, max, cpath, NULL, NULL);
	}
	remove_older_sizes(cpath, real);
	touch_used(cpath);
cleanup:
	free(real);
	if (ret) {
		sqlite3_close(db);
		db = NULL;
	}
	*out = db;
	return ret;
}

/* ------------------------------------------------------------------ the entries */

/* An entry's capture as its DB records it: id, source path and size (-1 unknown). */
static void entry_describe(struct cache_entry *e)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *s = NULL;
	char ignored[256];

	e->capture_size = -1;
	if (db__open(e->path, false, true, &db, ignored, sizeof(ignored)))
		return;
	if (sqlite3_prepare_v2(db, "SELECT capture_id, source_path, source_size FROM capture",
			       -1, &s, NULL) == SQLITE_OK &&
	    sqlite3_step(s) == SQLITE_ROW) {
		if (sqlite3_column_text(s, 0))
			snprintf(e->capture_id, sizeof(e->capture_id), "%s",
				 (const char *)sqlite3_column_text(s, 0));
		if (sqlite3_column_text(s, 1))
			snprintf(e->source, sizeof(e->source), "%s",
				 (const char *)sqlite3_column_text(s, 1));
		e->capture_size = sqlite3_column_int64(s, 2);
	}
	sqlite3_finalize(s);
	sqlite3_close(db);
}

static int cmp_used_desc(const void *a, const void *b)
{
	const struct cache_entry *x = a, *y = b;

	if (x->used_ns != y->used_ns)
		return x->used_ns > y->used_ns ? -1 : 1;
	return strcmp(x->path, y->path);
}

int cache__list(const char *dir, bool describe, struct cache_entry **out, size_t *n)
{
	struct cache_entry *v = NULL, *nv;
	size_t cap = 0;
	struct dirent *d;
	DIR *dp;

	*out = NULL;
	*n = 0;
	dp = opendir(dir);
	if (!dp)
		return errno == ENOENT ? 0 : -errno;
	while ((d = readdir(dp))) {
		size_t len = strlen(d->d_name);
		struct cache_entry *e;
		struct stat st;

		if (len < 4 || strcmp(d->d_name + len - 3, ".db"))
			continue; /* entries only; temporary builds end in .tmp.PID */
		if (*n == cap) {
			cap = cap ? cap * 2 : 32;
			nv = realloc(v, cap * sizeof(*v));
			if (!nv) {
				free(v);
				closedir(dp);
				return -ENOMEM;
			}
			v = nv;
		}
		e = &v[*n];
		memset(e, 0, sizeof(*e));
		if (snprintf(e->path, sizeof(e->path), "%s/%s", dir, d->d_name) >=
			(int)sizeof(e->path) ||
		    lstat(e->path, &st) || !S_ISREG(st.st_mode))
			continue;
		e->db_bytes = (uint64_t)st.st_size;
		e->used_ns = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
		if (describe)
			entry_describe(e);
		(*n)++;
	}
	closedir(dp);
	qsort(v, *n, sizeof(*v), cmp_used_desc);
	*out = v;
	return 0;
}

int cache__evict(const char *dir, uint64_t max, const char *keep, uint64_t *freed,
		 size_t *removed)
{
	struct cache_entry *v = NULL;
	uint64_t total = 0;
	size_t n = 0;
	int err;

	if (freed)
		*freed = 0;
	if (removed)
		*removed = 0;
	err = cache__list(dir, false, &v, &n);
	if (err)
		return err;
	for (size_t k = 0; k < n; k++)
		total += v[k].db_bytes;
	/* the least recently used first: the list is most recent first */
	for (size_t k = n; max && k-- > 0 && total > max;) {
		if (keep && !strcmp(v[k].path, keep))
			continue;
		if (unlink(v[k].path))
			continue;
		total -= v[k].db_bytes;
		if (freed)
			*freed += v[k].db_bytes;
		if (removed)
			(*removed)++;
	}
	free(v);
	return 0;
}

/* ------------------------------------------------------------------ the command */

static int cache_list_cmd(const char *dir, enum out_format fmt, uint64_t max)
{
	static const char *const cols[] = {"capture_id", "capture_bytes", "db_bytes",
					   "last_used", "source", "entry"};
	struct cache_entry *v = NULL;
	struct table *t = NULL;
	uint64_t total = 0;
	size_t n = 0;
	char b[64], when[64];
	int err;

	err = cache__list(dir, true, &v, &n);
	if (err) {
		fprintf(stderr, "ptop-analyze cache: cannot read %s: %s\n", dir, strerror(-err));
		return ANALYZE_EXIT_INTERNAL;
	}
	for (size_t k = 0; k < n; k++)
		total += v[k].db_bytes;
	if (fmt == OUT_JSON) {
		struct json j;

		json__init(&j, stdout, true);
		json__begin_object(&j);
		json__kv_string(&j, "folder", dir);
		json__kv_int(&j, "bytes", (int64_t)total);
		json__kv_int(&j, "max_bytes", (int64_t)max);
		json__key(&j, "entries");
		json__begin_array(&j);
		for (size_t k = 0; k < n; k++) {
			json__begin_object(&j);
			json__kv_string(&j, "capture_id", v[k].capture_id[0] ? v[k].capture_id : NULL);
			if (v[k].capture_size >= 0)
				json__kv_int(&j, "capture_bytes", v[k].capture_size);
			else
				json__kv_null(&j, "capture_bytes");
			json__kv_int(&j, "db_bytes", (int64_t)v[k].db_bytes);
			json__kv_string(&j, "last_used", fmt_wall(when, sizeof(when), v[k].used_ns));
			json__kv_string(&j, "source", v[k].source[0] ? v[k].source : NULL);
			json__kv_string(&j, "entry", v[k].path);
			json__end_object(&j);
		}
		json__end_array(&j);
		json__end_object(&j);
		err = json__end(&j);
		goto cleanup;
	}
	t = table__new(6, cols);
	if (!t) {
		err = -ENOMEM;
		goto cleanup;
	}
	for (size_t k = 0; !err && k < n; k++) {
		err = table__add_row(t);
		err = err ?: table__set_text(t, 0, v[k].capture_id[0] ? v[k].capture_id : "?");
		if (!err && v[k].capture_size >= 0)
			err = table__set_int(t, 1, v[k].capture_size,
					     fmt == OUT_CSV ? NULL
							    : fmt_bytes(b, sizeof(b),
									(uint64_t)v[k].capture_size));
		err = err ?: table__set_int(t, 2, (int64_t)v[k].db_bytes,
					    fmt == OUT_CSV ? NULL
							   : fmt_bytes(b, sizeof(b), v[k].db_bytes));
		err = err ?: table__set_text(t, 3, fmt_wall(when, sizeof(when), v[k].used_ns));
		err = err ?: table__set_text(t, 4, v[k].source[0] ? v[k].source : "?");
		err = err ?: table__set_text(t, 5, v[k].path);
	}
	if (err)
		goto cleanup;
	if (fmt == OUT_TEXT) {
		char cap_txt[64];

		printf("cache %s: %zu entries, %s", dir, n, fmt_bytes(b, sizeof(b), total));
		printf(" (cap %s, %s)\n", max ? fmt_bytes(cap_txt, sizeof(cap_txt), max) : "none",
		       getenv(CACHE_MAX_ENV) && *getenv(CACHE_MAX_ENV) ? CACHE_MAX_ENV
								       : "the default");
		if (!n) {
			err = fflush(stdout) ? -EIO : 0;
			goto cleanup;
		}
	}
	err = table__print(t, stdout, fmt);
cleanup:
	table__free(t);
	free(v);
	if (err) {
		fprintf(stderr, "ptop-analyze cache: %s\n", strerror(-err));
		return ANALYZE_EXIT_INTERNAL;
	}
	return ANALYZE_EXIT_OK;
}

/* Remove every entry (and temporary builds whose builder is gone). */
static int cache_clear_cmd(const char *dir)
{
	struct cache_entry *v = NULL;
	uint64_t freed = 0;
	size_t n = 0, removed = 0;
	char b[64], pattern[PATH_MAX + 8];
	int err;

	err = cache__list(dir, false, &v, &n);
	if (err) {
		fprintf(stderr, "ptop-analyze cache: cannot read %s: %s\n", dir, strerror(-err));
		return ANALYZE_EXIT_INTERNAL;
	}
	for (size_t k = 0; k < n; k++) {
		if (unlink(v[k].path)) {
			fprintf(stderr, "ptop-analyze cache: cannot remove %s: %s\n", v[k].path,
				strerror(errno));
			err = -errno;
			continue;
		}
		freed += v[k].db_bytes;
		removed++;
	}
	snprintf(pattern, sizeof(pattern), "%s/*", dir);
	remove_stale_tmp(pattern);
	free(v);
	printf("cache %s: removed %zu entries, %s\n", dir, removed, fmt_bytes(b, sizeof(b), freed));
	return err ? ANALYZE_EXIT_INTERNAL : ANALYZE_EXIT_OK;
}

int cmd_cache(int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"format", required_argument, NULL, 'f'},
	    {"max-size", required_argument, NULL, 'm'},
	    {"help", no_argument, NULL, 'h'},
	    {0},
	};
	enum out_format fmt = OUT_TEXT;
	const char *action;
	char dir[PATH_MAX], why[256], b[64], c[64];
	uint64_t max = 0, freed = 0;
	size_t removed = 0;
	bool max_given = false;
	int ch, err;

	optind = 0;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		switch (ch) {
		case 'f':
			if (out_format__parse(optarg, &fmt))
				return analyze_usage(
				    "cache", "--format takes text, json or csv, not '%s'", optarg);
			break;
		case 'm':
			if (units__parse_bytes(optarg, UINT64_MAX, &max))
				return analyze_usage("cache",
						     "--max-size takes a size in bytes with an "
						     "optional K/M/G/T suffix (500M, 2G), not '%s'",
						     optarg);
			max_given = true;
			break;
		case 'h':
			analyze_cmd_help("cache", stdout);
			return ANALYZE_EXIT_OK;
		case ':':
			return analyze_usage("cache", "%s needs a value", argv[optind - 1]);
		default:
			return analyze_usage("cache", "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (argc - optind != 1)
		return analyze_usage("cache", argc == optind ? "which? list, prune or clear"
							      : "one of list, prune or clear");
	action = argv[optind];
	if (strcmp(action, "list") && strcmp(action, "prune") && strcmp(action, "clear"))
		return analyze_usage("cache", "unknown action '%s': list, prune or clear", action);
	if (max_given && strcmp(action, "prune"))
		return analyze_usage("cache", "--max-size is for cache prune");
	if (fmt != OUT_TEXT && strcmp(action, "list"))
		return analyze_usage("cache", "--format is for cache list");
	err = cache__dir(dir, sizeof(dir), false);
	if (err) {
		fprintf(stderr,
			"ptop-analyze cache: no cache folder (%s): set XDG_CACHE_HOME or HOME\n",
			strerror(-err));
		return ANALYZE_EXIT_USAGE;
	}
	if (access(dir, F_OK) == 0 && cache_dir_check(dir, why, sizeof(why))) {
		fprintf(stderr, "ptop-analyze cache: %s\n", why);
		return ANALYZE_EXIT_USAGE;
	}
	if (!max_given && cache__max_bytes(&max, why, sizeof(why)))
		return analyze_usage("cache", "%s", why);
	if (!strcmp(action, "list"))
		return cache_list_cmd(dir, fmt, max);
	if (!strcmp(action, "clear"))
		return cache_clear_cmd(dir);
	if (!max) {
		printf("cache %s: no cap (0): nothing to prune\n", dir);
		return ANALYZE_EXIT_OK;
	}
	err = cache__evict(dir, max, NULL, &freed, &removed);
	if (err) {
		fprintf(stderr, "ptop-analyze cache: cannot read %s: %s\n", dir, strerror(-err));
		return ANALYZE_EXIT_INTERNAL;
	}
	printf("cache %s: removed %zu least recently used entries, %s, to stay under %s\n", dir,
	       removed, fmt_bytes(b, sizeof(b), freed), fmt_bytes(c, sizeof(c), max));
	return ANALYZE_EXIT_OK;
}
