/* cache.h — the analyzer's cache of loaded captures (analyze/cache.c): one SQLite DB
 * per capture under $XDG_CACHE_HOME/ptop, named by the capture's id and size, kept
 * under a size cap by least-recently-used eviction.
 */
#ifndef PTOP_ANALYZE_CACHE_H
#define PTOP_ANALYZE_CACHE_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyze/db.h"

#define CACHE_MAX_ENV "PTOP_CACHE_MAX"
#define CACHE_MAX_DEFAULT (4ull << 30) /* 4 GiB */

/* The cache folder, $XDG_CACHE_HOME/ptop (an absolute XDG_CACHE_HOME), else
 * $HOME/.cache/ptop (else the password entry's home), into OUT; made (0700) when
 * CREATE. 0 or -errno (-ENOENT: no home; -ENAMETOOLONG; mkdir's). */
int cache__dir(char *out, size_t len, bool create);

/* The cap on the folder's size in bytes, from PTOP_CACHE_MAX (0: no cap), into *MAX;
 * default CACHE_MAX_DEFAULT. -EINVAL with a message in ERR (and *MAX the default) when
 * the variable is not a size. */
int cache__max_bytes(uint64_t *max, char *err, size_t errlen);

/* The entry for the capture at CAPTURE_PATH (not created): FOLDER/ID-SIZE.db, ID its
 * capture id, SIZE its size, so a copy or a move of it has the same entry. 0 or -errno
 * (-ENOENT when the file or the folder's home does not exist). */
int cache__path(const char *capture_path, char *out, size_t len);

/* Open the entry of the capture at PATH read-only into *DB, building it first when
 * missing or not of this file's bytes (its key: the stat, else a hash of the bytes;
 * cache.c says how): under a temporary name, its frames named, then renamed into place,
 * one builder at a time (the others wait and reuse it). A reused entry is told the path
 * it was reached by (source_path). *DB holds a shared lock on the entry until it is
 * closed, so no other process's cap removes it meanwhile. After a build the least recently used
 * entries not in use are removed until the folder is under its cap. The entry is marked
 * used. 0 or -errno with a message in ERR (db__load_capture's errors for a capture that
 * does not load). */
int cache__open_capture(const char *path, sqlite3 **db, char *err, size_t errlen);

struct cache_entry {
	char path[PATH_MAX];   /* the entry's DB file */
	char capture_id[33];   /* from its capture row ("" when unreadable) */
	char source[PATH_MAX]; /* the capture's path when last used ("" unknown) */
	int64_t capture_size;  /* bytes; -1 unknown */
	uint64_t db_bytes;     /* the entry's own size */
	int64_t used_ns;       /* last used (its modification time), realtime ns */
};

/* The entries (*.db files) of folder DIR, most recently used first, in *OUT (malloc'd,
 * the caller frees) and *N; with DESCRIBE each DB is opened for its capture's id,
 * path and size. A missing folder has none. 0, -ENOMEM, or opendir's -errno. */
int cache__list(const char *dir, bool describe, struct cache_entry **out, size_t *n);

/* Remove the least recently used entries of DIR, never KEEP (a path, or NULL) nor one
 * a process holds a lock on (in use), until
 * their total is at most MAX bytes (0: no cap, nothing removed). *FREED and *REMOVED
 * (each may be NULL) get what was removed. 0 or cache__list's -errno. */
int cache__evict(const char *dir, uint64_t max, const char *keep, uint64_t *freed,
		 size_t *removed);

/* `ptop-analyze cache list|prune|clear`. */
int cmd_cache(int argc, char **argv);

#endif
