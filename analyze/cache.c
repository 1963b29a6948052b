/* cache.c — the analyzer's cache of loaded captures: one SQLite DB per capture, so
 * that every command can take a .ptop file and load it once.
 *
 * An entry is $XDG_CACHE_HOME/ptop/ID-SIZE.db (else ~/.cache/ptop): ID the capture's id
 * from its header, SIZE its size in bytes. A copy or a move of a capture reuses its
 * entry; a capture still growing, or another capture at the same path, gets a new one.
 * An entry holds the key of the file it was built from (table cache_key: device, inode,
 * size, modification and change times in ns, and a hash of every byte): an entry is used
 * as it is when the file's stat matches the key; else the file is hashed, and an equal
 * hash (a copy, a move) takes the entry with the new stat, a different one (the file was
 * changed in place, whatever its times say) builds it again.
 * The folder is kept under a size cap (PTOP_CACHE_MAX, default 4 GiB) by removing the
 * least recently used entries after each build; an entry's modification time is when
 * it was last used (set at each use: an access time would move with every read, even
 * `cache list`'s own). `ptop-analyze cache list|prune|clear` shows and trims it.
 *
 * Several analyzers at once (parallel CI jobs): an entry is built under a private name
 * (ID-SIZE.db.tmp.PID), its frames placed and named there, and only then renamed into
 * place, by one builder at a time (an exclusive flock on ID-SIZE.db.lock); a second
 * builder waits for that lock and then takes the entry the first made. A process using an
 * entry holds a shared flock on its file as long as its DB handle is open; removing an entry (the
 * cap, prune, clear, another size) takes an exclusive flock without waiting, and an entry in use is
 * skipped, never removed.
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
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "analyze/analyze.h"
#include "analyze/cache.h"
#include "analyze/output.h"
#include "analyze/symbolize.h"
#include "common/hash.h"
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

static int64_t ts_ns(const struct timespec *t)
{
	return (int64_t)t->tv_sec * 1000000000 + t->tv_nsec;
}

/* What an entry is keyed on beyond its name: the file's stat, and a hash of its bytes. */
struct file_key {
	int64_t dev, ino, size, mtime_ns, ctime_ns;
	uint64_t hash;
};

/* A 64-bit FNV-1a of every byte of the file at PATH (a word at a time, then the bytes
 * past the last whole word, then the length) into *OUT. 0 or -errno. */
static int file_hash(const char *path, uint64_t *out)
{
	enum { BUF = 1 << 20 };
	unsigned char *buf = malloc(BUF);
	uint64_t h = FNV1A64_INIT, total = 0;
	int fd, ret = 0;

	if (!buf)
		return -ENOMEM;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		free(buf);
		return -errno;
	}
	for (;;) {
		size_t have = 0, k;
		ssize_t n = 0;

		/* fill the buffer whole, so that only the last one ends off a word */
		while (have < BUF && (n = read(fd, buf + have, BUF - have)) != 0) {
			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0) {
				ret = -errno;
				goto cleanup;
			}
			have += (size_t)n;
		}
		for (k = 0; k + 8 <= have; k += 8) {
			uint64_t w;

			memcpy(&w, buf + k, 8);
			h = fnv1a64_word(h, w);
		}
		h = fnv1a64_bytes(h, buf + k, have - k);
		total += have;
		if (have < BUF)
			break;
	}
	*out = fnv1a64_word(h, total);
cleanup:
	close(fd);
	free(buf);
	return ret;
}

static void key_from_stat(struct file_key *k, const struct stat *st)
{
	k->dev = (int64_t)st->st_dev;
	k->ino = (int64_t)st->st_ino;
	k->size = (int64_t)st->st_size;
	k->mtime_ns = ts_ns(&st->st_mtim);
	k->ctime_ns = ts_ns(&st->st_ctim);
}

/* ------------------------------------------------------------------ locks */

/* Take a shared flock on the entry CPATH, as a process using it does: 0 with *FD open and
 * locked (the lock goes with the descriptor), or -errno (-ESTALE: the entry was removed
 * or replaced while we waited for the lock). */
static int entry_lock_shared(const char *cpath, int *fd_out)
{
	struct stat a, b;
	int fd = open(cpath, O_RDONLY | O_CLOEXEC | O_NOFOLLOW), ret;

	if (fd < 0)
		return -errno;
	while (flock(fd, LOCK_SH) && errno == EINTR)
		;
	if (fstat(fd, &a) || stat(cpath, &b)) {
		ret = -errno;
		close(fd);
		return ret;
	}
	if (a.st_ino != b.st_ino || a.st_dev != b.st_dev || !a.st_nlink || !S_ISREG(a.st_mode)) {
		close(fd);
		return -ESTALE;
	}
	*fd_out = fd;
	return 0;
}

/* The shared lock FD goes with the DB handle that reads the entry: it is released when
 * the handle is closed (the destructor of a function registered on it), so a process
 * that closed an entry no longer keeps it from being removed. */
static void lock_release(void *p)
{
	close((int)(intptr_t)p - 1);
}

static void lock_fn(sqlite3_context *c, int n, sqlite3_value **v)
{
	(void)n, (void)v;
	sqlite3_result_null(c);
}

/* Hand the lock FD to DB (on failure it is closed: the entry is then unprotected, as
 * before a lock existed, rather than not opened). */
static void lock_attach(sqlite3 *db, int fd)
{
	sqlite3_create_function_v2(db, "ptop_cache_entry_lock", 0, SQLITE_UTF8,
				   (void *)(intptr_t)(fd + 1), lock_fn, NULL, NULL, lock_release);
}

/* Remove the entry (or lock file) at PATH unless a process holds a lock on it: an
 * exclusive flock is tried without waiting. 0, -EBUSY when in use, or -errno. */
static int entry_remove(const char *path)
{
	struct stat a, b;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW), ret = 0;

	if (fd < 0)
		return -errno;
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		ret = errno == EWOULDBLOCK ? -EBUSY : -errno;
	} else if (fstat(fd, &a) || lstat(path, &b)) {
		ret = -errno;
	} else if (a.st_ino != b.st_ino || a.st_dev != b.st_dev) {
		ret = -ESTALE; /* replaced meanwhile: the new one is not ours to judge */
	} else if (unlink(path)) {
		ret = -errno;
	}
	close(fd); /* releases the lock */
	return ret;
}

/* entry_remove of the entry CPATH, then of its build lock file when no build holds it (a
 * builder that opened the file just before still builds atomically: at worst an entry
 * is built twice). */
static int entry_remove_with_lock(const char *cpath)
{
	char lpath[PATH_MAX + 80];
	int ret = entry_remove(cpath);

	if (!ret) {
		snprintf(lpath, sizeof(lpath), "%s.lock", cpath);
		entry_remove(lpath);
	}
	return ret;
}

/* ------------------------------------------------------------------ freshness */

/* Whether DB (the entry at CPATH) holds the capture at REAL, whose stat is ST: one
 * capture of that size, and a key of the same file (see the top). A copy or a move (same
 * bytes, other stat or path) is stamped with its stat and path (source_path), so that
 * info names the file given and the next use needs no hash. */
static bool entry_fresh(sqlite3 *db, const char *cpath, const char *real, const struct stat *st)
{
	sqlite3_stmt *s = NULL;
	struct file_key now = {0};
	sqlite3 *rw = NULL;
	const char *src;
	bool fresh = false, stamp = false;
	uint64_t hash;

	key_from_stat(&now, st);
	if (sqlite3_prepare_v2(
		db,
		"SELECT c.source_path, c.source_size, (SELECT count(*) FROM capture), "
		"k.dev, k.ino, k.size, k.mtime_ns, k.ctime_ns, k.hash "
		"FROM capture c, cache_key k",
		-1, &s, NULL) != SQLITE_OK ||
	    sqlite3_step(s) != SQLITE_ROW)
		goto cleanup; /* an entry of an older ptop has no key: built again */
	if (sqlite3_column_int64(s, 2) != 1 || sqlite3_column_int64(s, 1) != now.size ||
	    sqlite3_column_int64(s, 5) != now.size)
		goto cleanup;
	src = (const char *)sqlite3_column_text(s, 0);
	if (sqlite3_column_int64(s, 3) == now.dev && sqlite3_column_int64(s, 4) == now.ino &&
	    sqlite3_column_int64(s, 6) == now.mtime_ns &&
	    sqlite3_column_int64(s, 7) == now.ctime_ns) {
		fresh = true;
		stamp = !src || strcmp(src, real); /* a hard link's other name */
		goto cleanup;
	}
	/* another file, or this one touched or changed: its bytes decide */
	if (file_hash(real, &hash) || (int64_t)hash != sqlite3_column_int64(s, 8))
		goto cleanup;
	fresh = stamp = true;
cleanup:
	sqlite3_finalize(s);
	s = NULL;
	if (stamp && sqlite3_open_v2(cpath, &rw, SQLITE_OPEN_READWRITE, NULL) == SQLITE_OK) {
		sqlite3_busy_timeout(rw, 5000);
		if (sqlite3_prepare_v2(rw,
				       "UPDATE capture SET source_path = ?1, source_mtime_ns = ?2",
				       -1, &s, NULL) == SQLITE_OK) {
			sqlite3_bind_text(s, 1, real, -1, SQLITE_STATIC);
			sqlite3_bind_int64(s, 2, now.mtime_ns);
			sqlite3_step(s); /* a read-only entry keeps the first path: no harm */
		}
		sqlite3_finalize(s);
		s = NULL;
		if (sqlite3_prepare_v2(rw,
				       "UPDATE cache_key SET dev = ?1, ino = ?2, mtime_ns = ?3, "
				       "ctime_ns = ?4",
				       -1, &s, NULL) == SQLITE_OK) {
			sqlite3_bind_int64(s, 1, now.dev);
			sqlite3_bind_int64(s, 2, now.ino);
			sqlite3_bind_int64(s, 3, now.mtime_ns);
			sqlite3_bind_int64(s, 4, now.ctime_ns);
			sqlite3_step(s); /* not stored: the next use hashes again */
		}
		sqlite3_finalize(s);
	}
	sqlite3_close(rw);
	return fresh;
}

/* Open the entry CPATH read-only into *OUT when it holds the capture at REAL (stat ST),
 * holding a shared lock on it until the process exits. Whether it did. */
static bool entry_open(const char *cpath, const char *real, const struct stat *st, sqlite3 **out)
{
	sqlite3 *db = NULL;
	struct stat a, b;
	char ignored[256];
	int fd = -1;

	if (access(cpath, R_OK) || entry_lock_shared(cpath, &fd))
		return false;
	if (db__open(cpath, false, true, &db, ignored, sizeof(ignored)))
		goto stale;
	/* the DB opened is the file locked: the path still names it (it cannot be removed,
	 * being locked, nor its inode reused, being open) */
	if (fstat(fd, &a) || stat(cpath, &b) || a.st_ino != b.st_ino || a.st_dev != b.st_dev)
		goto stale;
	if (!entry_fresh(db, cpath, real, st))
		goto stale;
	lock_attach(db, fd);
	*out = db;
	return true;
stale:
	sqlite3_close(db);
	close(fd);
	return false;
}

/* ------------------------------------------------------------------ a build */

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

/* Store KEY in the new entry DB. 0 or -EIO. */
static int write_key(sqlite3 *db, const struct file_key *k)
{
	sqlite3_stmt *s = NULL;
	int rc;

	if (sqlite3_exec(db,
			 "CREATE TABLE cache_key (dev INTEGER, ino INTEGER, size INTEGER, "
			 "mtime_ns INTEGER, ctime_ns INTEGER, hash INTEGER)",
			 NULL, NULL, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, "INSERT INTO cache_key VALUES (?1, ?2, ?3, ?4, ?5, ?6)", -1, &s,
			       NULL) != SQLITE_OK)
		return -EIO;
	sqlite3_bind_int64(s, 1, k->dev);
	sqlite3_bind_int64(s, 2, k->ino);
	sqlite3_bind_int64(s, 3, k->size);
	sqlite3_bind_int64(s, 4, k->mtime_ns);
	sqlite3_bind_int64(s, 5, k->ctime_ns);
	sqlite3_bind_int64(s, 6, (int64_t)k->hash);
	rc = sqlite3_step(s);
	sqlite3_finalize(s);
	return rc == SQLITE_DONE ? 0 : -EIO;
}

/* Place and name the frames of every capture of the new entry DB, as the first report
 * would, so that an entry is whole when it appears: no reader finds it half named, and
 * no two readers name it at once. A failure leaves the names to the commands that need
 * them (they retry, and say why when it fails again). */
static void name_frames(sqlite3 *db)
{
	sqlite3_stmt *s = NULL;
	char ignored[512];

	if (sqlite3_prepare_v2(db, "SELECT cap FROM capture", -1, &s, NULL) != SQLITE_OK)
		return;
	while (sqlite3_step(s) == SQLITE_ROW)
		symstore__update(db, sqlite3_column_int64(s, 0), NULL, NULL, ignored,
				 sizeof(ignored));
	sqlite3_finalize(s);
}

/* Load the capture PATH (REAL, stat ST) into a new DB at a private name next to CPATH,
 * key it, name its frames, then rename it into place: a reader never sees a half-built
 * entry, and a load that fails leaves the old entry (or none). The new entry is locked
 * shared before it appears, so that no other process's cap removes it: *LOCK_FD, for
 * the handle that will read it. No journal and no fsync: an entry that a crash left unreadable
 * fails entry_open and is built again. */
static int entry_build(const char *path, const char *real, const struct stat *st, const char *cpath,
		       int *lock_fd, char *err, size_t errlen)
{
	char tmp[PATH_MAX + 96];
	char id[DB_CAPTURE_ID_LEN];
	struct file_key key = {0};
	sqlite3 *db = NULL;
	int ret, fd = -1;

	remove_stale_tmp(cpath);
	snprintf(tmp, sizeof(tmp), "%s.tmp.%d", cpath, (int)getpid());
	unlink(tmp);
	key_from_stat(&key, st);
	ret = file_hash(real, &key.hash);
	if (ret) {
		snprintf(err, errlen, "cannot read %s: %s", path, strerror(-ret));
		goto cleanup;
	}
	ret = db__open(tmp, true, false, &db, err, errlen);
	if (ret)
		goto cleanup;
	/* the temporary file is thrown away if anything fails: no journal needed */
	sqlite3_exec(db, "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF;", NULL, NULL,
		     NULL);
	ret = db__load_capture(db, path, true, id, NULL, err, errlen);
	if (ret)
		goto cleanup;
	ret = write_key(db, &key);
	if (ret) {
		snprintf(err, errlen, "cannot write the cache DB %s: %s", tmp, sqlite3_errmsg(db));
		goto cleanup;
	}
	name_frames(db);
	if (sqlite3_close(db) != SQLITE_OK) {
		ret = -EIO;
		snprintf(err, errlen, "cannot close the cache DB %s", tmp);
		db = NULL;
		goto cleanup;
	}
	db = NULL;
	ret = entry_lock_shared(tmp, &fd);
	if (ret) {
		snprintf(err, errlen, "cannot lock the cache DB %s: %s", tmp, strerror(-ret));
		goto cleanup;
	}
	if (rename(tmp, cpath)) {
		ret = -errno;
		snprintf(err, errlen, "cannot put the cache DB in place at %s: %s", cpath,
			 strerror(errno));
	}
cleanup:
	sqlite3_close(db);
	if (ret) {
		if (fd >= 0)
			close(fd);
		unlink(tmp);
	}
	if (!ret)
		*lock_fd = fd;
	return ret;
}

/* The entries of the capture CPATH is for, at other sizes, last used for the same file
 * REAL: the file grew (a recording still being written) or was cut,
 * so they will not be used again. Removed (unless in use), so a live capture analyzed
 * again and again leaves one entry, not one per size. Copies elsewhere keep theirs. */
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
			entry_remove_with_lock(g.gl_pathv[k]);
	}
	globfree(&g);
}

/* Wait for the right to build the entry CPATH: an exclusive flock on CPATH.lock. The
 * descriptor (the caller closes it, which releases the lock), or -1 when the lock file
 * cannot be made: the build goes on unlocked, still atomic (only done twice). */
static int build_lock(const char *cpath)
{
	char lpath[PATH_MAX + 80];
	int fd;

	snprintf(lpath, sizeof(lpath), "%s.lock", cpath);
	fd = open(lpath, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		return -1;
	while (flock(fd, LOCK_EX))
		if (errno != EINTR) {
			close(fd);
			return -1;
		}
	return fd;
}

int cache__open_capture(const char *path, sqlite3 **out, char *err, size_t errlen)
{
	char dir[PATH_MAX], cpath[PATH_MAX + 64], why[256] = "";
	char *real = NULL;
	sqlite3 *db = NULL;
	struct stat st;
	uint64_t max;
	int ret, lock;

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
	if (!entry_open(cpath, real, &st, &db)) {
		/* one builder at a time; the others wait, then take what it built */
		lock = build_lock(cpath);
		if (!entry_open(cpath, real, &st, &db)) {
			int fd = -1;

			ret = entry_build(path, real, &st, cpath, &fd, err, errlen);
			/* opened under the build lock: no one else can replace it meanwhile */
			ret = ret ?: db__open(cpath, false, true, &db, err, errlen);
			if (fd >= 0 && ret)
				close(fd);
			else if (fd >= 0)
				lock_attach(db, fd);
			if (!ret) {
				/* keep the folder under its cap: the least recently used
				 * entries go, never one in use (this one is) */
				if (cache__max_bytes(&max, why, sizeof(why)))
					fprintf(stderr, "ptop-analyze: %s; using the default\n",
						why);
				cache__evict(dir, max, cpath, NULL, NULL);
			}
		}
		if (lock >= 0)
			close(lock);
		if (ret)
			goto cleanup;
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
		if (entry_remove_with_lock(v[k].path))
			continue; /* in use by a process (a shared lock), or gone */
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

/* Remove every entry not in use (and temporary builds whose builder is gone, and lock
 * files no build holds). */
static int cache_clear_cmd(const char *dir)
{
	struct cache_entry *v = NULL;
	uint64_t freed = 0;
	size_t n = 0, removed = 0, busy = 0;
	char b[64], pattern[PATH_MAX + 16];
	glob_t g;
	int err;

	err = cache__list(dir, false, &v, &n);
	if (err) {
		fprintf(stderr, "ptop-analyze cache: cannot read %s: %s\n", dir, strerror(-err));
		return ANALYZE_EXIT_INTERNAL;
	}
	for (size_t k = 0; k < n; k++) {
		int rc = entry_remove(v[k].path);

		if (rc == -EBUSY) {
			busy++;
			continue;
		}
		if (rc && rc != -ENOENT && rc != -ESTALE) {
			fprintf(stderr, "ptop-analyze cache: cannot remove %s: %s\n", v[k].path,
				strerror(-rc));
			err = rc;
			continue;
		}
		if (rc)
			continue; /* removed or replaced by another process meanwhile */
		freed += v[k].db_bytes;
		removed++;
	}
	snprintf(pattern, sizeof(pattern), "%s/*", dir);
	remove_stale_tmp(pattern);
	snprintf(pattern, sizeof(pattern), "%s/*.db.lock", dir);
	if (!glob(pattern, GLOB_NOSORT | GLOB_NOESCAPE, NULL, &g)) {
		for (size_t k = 0; k < g.gl_pathc; k++)
			entry_remove(g.gl_pathv[k]); /* a build under way keeps its lock */
		globfree(&g);
	}
	free(v);
	printf("cache %s: removed %zu entries, %s", dir, removed, fmt_bytes(b, sizeof(b), freed));
	if (busy)
		printf("; kept %zu in use by a running ptop-analyze", busy);
	printf("\n");
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
