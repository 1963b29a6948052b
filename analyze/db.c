/* db.c — opens the analyzer's SQLite DB (schema, version check), picks a
 * capture in it, and opens a .ptop file through its cache DB (analyze/cache.c).
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <inttypes.h>
#include <limits.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analyze/cache.h"
#include "analyze/db.h"
#include "common/hash.h"
#include "proto/capture.h"

extern const char ptop_schema_sql[];

/* the marker is a line of its own (the header comment also names it, in quotes) */
#define INDEX_MARKER "\n-- @@ indexes @@\n"
#define SQLITE_MAGIC "SQLite format 3"   /* 16 bytes with its NUL */

/* This build's schema, as one number: a hash of its tables' and views' text (the part
 * before the index marker), never 0, kept in the DB's application_id. DB_SCHEMA_VERSION
 * says which format a DB has; this tells a DB of another build of the same version whose
 * tables differ (a column added without a new version: an entry of the cache built by an
 * older ptop would then fail a report's query instead of being built again). A hash, not
 * a comparison with the schema made afresh: that cost each command 6 ms of CPU. */
static int32_t schema_id(void)
{
	const char *mark = strstr(ptop_schema_sql, INDEX_MARKER);
	size_t n = mark ? (size_t)(mark - ptop_schema_sql) : strlen(ptop_schema_sql);
	uint64_t h = fnv1a64_bytes(FNV1A64_INIT, ptop_schema_sql, n);

	return (int32_t)(((h ^ (h >> 32)) & 0x7ffffffe) | 1);
}

/* The tables and views of the schema: the part before the index marker. */
static int apply_schema(sqlite3 *db, const char *path, char *err, size_t errlen)
{
	const char *mark = strstr(ptop_schema_sql, INDEX_MARKER);
	size_t n = mark ? (size_t)(mark - ptop_schema_sql) : strlen(ptop_schema_sql);
	char *sql = NULL, *msg = NULL;
	int rc, ret = 0;

	sql = malloc(n + 128);
	if (!sql) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	snprintf(sql, n + 128,
		 "BEGIN;\n%.*s\nPRAGMA user_version = %d;\nPRAGMA application_id = %d;\nCOMMIT;",
		 (int)n, ptop_schema_sql, DB_SCHEMA_VERSION, (int)schema_id());
	rc = sqlite3_exec(db, sql, NULL, NULL, &msg);
	if (rc != SQLITE_OK) {
		snprintf(err, errlen, "creating the schema in %s: %s", path,
			 msg ? msg : sqlite3_errstr(rc));
		sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
		ret = rc == SQLITE_FULL ? -ENOSPC : rc == SQLITE_READONLY ? -EROFS : -EIO;
	}
	sqlite3_free(msg);
	free(sql);
	return ret;
}

/* One integer from SQL; returns the sqlite result code. */
static int query_int(sqlite3 *db, const char *sql, int64_t *out)
{
	sqlite3_stmt *s = NULL;
	int rc = sqlite3_prepare_v2(db, sql, -1, &s, NULL);

	if (rc == SQLITE_OK) {
		rc = sqlite3_step(s);
		if (rc == SQLITE_ROW) {
			*out = sqlite3_column_int64(s, 0);
			rc = SQLITE_OK;
		} else if (rc == SQLITE_DONE) {
			*out = 0;
			rc = SQLITE_OK;
		}
	}
	sqlite3_finalize(s);
	return rc;
}

/* Every table and view of this build's schema is in DB (of the right version). The
 * names come from the schema text: each line that starts "CREATE TABLE" or "CREATE
 * VIEW" (then "IF NOT EXISTS"), before the index marker; tests/test_load.c checks
 * that this finds every table and view the schema makes. -EPROTO with a message
 * naming the first one missing (a damaged DB, or one another program changed),
 * -EIO. */
static int check_schema(sqlite3 *db, const char *path, char *err, size_t errlen)
{
	const char *end = strstr(ptop_schema_sql, INDEX_MARKER), *line = ptop_schema_sql;
	sqlite3_stmt *have = NULL;
	int rc, ret = 0;

	if (!end)
		end = ptop_schema_sql + strlen(ptop_schema_sql);
	if (sqlite3_prepare_v2(db, "SELECT 1 FROM sqlite_master WHERE type = ?1 AND name = ?2",
			       -1, &have, NULL) != SQLITE_OK)
		goto read_failed;
	for (; line && line < end; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
		const char *p = line, *type;
		size_t n;

		if (!strncmp(p, "CREATE TABLE ", 13)) {
			type = "table";
			p += 13;
		} else if (!strncmp(p, "CREATE VIEW ", 12)) {
			type = "view";
			p += 12;
		} else {
			continue;
		}
		if (!strncmp(p, "IF NOT EXISTS ", 14))
			p += 14;
		for (n = 0; isalnum((unsigned char)p[n]) || p[n] == '_'; n++)
			;
		sqlite3_reset(have);
		sqlite3_bind_text(have, 1, type, -1, SQLITE_STATIC);
		sqlite3_bind_text(have, 2, p, (int)n, SQLITE_STATIC);
		rc = sqlite3_step(have);
		if (rc == SQLITE_ROW)
			continue;
		if (rc != SQLITE_DONE)
			goto read_failed;
		snprintf(err, errlen,
			 "%s is damaged, or was written by another ptop version or changed by "
			 "another program: it has ptop's schema version %d but no %s %.*s: load "
			 "the captures again into a new DB with `ptop-analyze load FILE --db "
			 "NEW.db`",
			 path, DB_SCHEMA_VERSION, type, (int)n, p);
		ret = -EPROTO;
		goto cleanup;
	}
	goto cleanup;
read_failed:
	snprintf(err, errlen, "cannot read the schema of %s: %s", path, sqlite3_errmsg(db));
	ret = -EIO;
cleanup:
	sqlite3_finalize(have);
	return ret;
}

int db__open(const char *path, bool create, bool readonly, sqlite3 **out, char *err, size_t errlen)
{
	sqlite3 *db = NULL;
	int64_t version = 0, objects = 0, app = 0;
	struct stat st;
	int flags, rc, ret = 0;

	*out = NULL;
	if (errlen)
		err[0] = 0;
	if (stat(path, &st)) {
		if (errno != ENOENT || !create || readonly) {
			ret = -errno;
			snprintf(err, errlen, "cannot open %s: %s", path, strerror(errno));
			goto cleanup;
		}
		/* create it 0600 ourselves: SQLite would make it 0644 */
		int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);

		if (fd < 0 && errno != EEXIST) {
			ret = -errno;
			snprintf(err, errlen, "cannot create %s: %s", path, strerror(errno));
			goto cleanup;
		}
		if (fd >= 0)
			close(fd);
	} else if (S_ISDIR(st.st_mode)) {
		ret = -EISDIR;
		snprintf(err, errlen, "%s is a directory, not a ptop DB", path);
		goto cleanup;
	}

	/* one connection, one thread at a time: no per-call mutex */
	flags = (readonly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE) | SQLITE_OPEN_NOMUTEX;
	rc = sqlite3_open_v2(path, &db, flags, NULL);
	if (rc != SQLITE_OK) {
		ret = rc == SQLITE_CANTOPEN ? -EACCES : -EIO;
		snprintf(err, errlen, "cannot open %s: %s", path,
			 db ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
		goto cleanup;
	}
	sqlite3_busy_timeout(db, 5000);

	rc = query_int(db, "PRAGMA user_version", &version);
	if (rc == SQLITE_OK)
		rc = query_int(db, "SELECT count(*) FROM sqlite_master", &objects);
	if ((rc & 0xff) == SQLITE_NOTADB) {
		ret = -EINVAL;
		snprintf(err, errlen,
			 "%s is not an SQLite database: give a ptop DB or a .ptop capture", path);
		goto cleanup;
	}
	if (rc != SQLITE_OK) {
		ret = rc == SQLITE_BUSY ? -EBUSY : -EIO;
		snprintf(err, errlen, "cannot read %s: %s", path, sqlite3_errmsg(db));
		goto cleanup;
	}

	if (version == 0 && objects == 0) {
		if (readonly) {
			ret = -EINVAL;
			snprintf(err, errlen,
				 "%s is an empty database, not a ptop DB: load a capture into it with "
				 "`ptop-analyze load FILE --db %s`",
				 path, path);
			goto cleanup;
		}
		ret = apply_schema(db, path, err, errlen);
		if (ret)
			goto cleanup;
	} else if (version == 0) {
		ret = -EPROTO;
		snprintf(err, errlen,
			 "%s is an SQLite database but not a ptop DB (it has no schema version): "
			 "load the capture into a new DB with `ptop-analyze load FILE --db NEW.db`",
			 path);
		goto cleanup;
	} else if (version != DB_SCHEMA_VERSION) {
		ret = -EPROTO;
		snprintf(err, errlen,
			 "%s has DB schema version %" PRId64 ", this ptop-analyze reads version %d: "
			 "%s",
			 path, version, DB_SCHEMA_VERSION,
			 version > DB_SCHEMA_VERSION
				 ? "use a newer ptop-analyze, or load the capture again into a new DB "
				   "with `ptop-analyze load FILE --db NEW.db`"
				 : "load the capture again into a new DB with `ptop-analyze load FILE "
				   "--db NEW.db`");
		goto cleanup;
	} else if (query_int(db, "PRAGMA application_id", &app) != SQLITE_OK) {
		ret = -EIO;
		snprintf(err, errlen, "cannot read %s: %s", path, sqlite3_errmsg(db));
		goto cleanup;
	} else if (app != schema_id()) {
		ret = -EPROTO;
		snprintf(err, errlen,
			 "%s was written by another build of ptop-analyze: it has DB schema "
			 "version %d, but its tables are not this build's (schema id %" PRId64
			 ", this build's %d): load the capture again into a new DB with "
			 "`ptop-analyze load FILE --db NEW.db`",
			 path, DB_SCHEMA_VERSION, app, (int)schema_id());
		goto cleanup;
	} else {
		ret = check_schema(db, path, err, errlen);
		if (ret)
			goto cleanup;
	}

	if (!readonly) {
		/* A DB built from captures can always be built again: a bigger page cache
		 * keeps bulk loads off the disk, sorts for indexes stay in memory, and one
		 * fsync per transaction (NORMAL) is enough. */
		sqlite3_exec(db,
			     "PRAGMA synchronous = NORMAL; PRAGMA cache_size = -65536; "
			     "PRAGMA temp_store = MEMORY;",
			     NULL, NULL, NULL);
	}
	*out = db;
	db = NULL;
cleanup:
	sqlite3_close(db);
	return ret;
}

/* --------------------------------------------------------------- selecting */

/* Lowercase hex prefix OPT into OUT (33 bytes). 0 or -EINVAL. */
static int normalize_prefix(const char *opt, char *out)
{
	size_t n = strlen(opt);

	if (n == 0 || n > 32)
		return -EINVAL;
	for (size_t k = 0; k < n; k++) {
		if (!isxdigit((unsigned char)opt[k]))
			return -EINVAL;
		out[k] = (char)tolower((unsigned char)opt[k]);
	}
	out[n] = 0;
	return 0;
}

/* Pick the capture named by OPT (a prefix of its id; NULL: the only one). */
static int select_capture(sqlite3 *db, const char *path, const char *opt,
			  char capture_id[DB_CAPTURE_ID_LEN], char *err, size_t errlen)
{
	sqlite3_stmt *s = NULL;
	char prefix[DB_CAPTURE_ID_LEN] = "";
	char list[1024] = "";
	size_t used = 0;
	int64_t matches = 0;
	int rc, ret = 0;

	if (opt && normalize_prefix(opt, prefix)) {
		snprintf(err, errlen, "capture id '%s' is not 1 to 32 hex digits", opt);
		return -EINVAL;
	}
	rc = sqlite3_prepare_v2(db,
				"SELECT c.capture_id, t.comm, t.pid FROM capture c "
				"LEFT JOIN target t USING (cap) "
				"WHERE substr(c.capture_id, 1, length(?1)) = ?1 ORDER BY c.capture_id",
				-1, &s, NULL);
	if (rc != SQLITE_OK) {
		snprintf(err, errlen, "cannot read the captures in %s: %s", path, sqlite3_errmsg(db));
		return -EIO;
	}
	sqlite3_bind_text(s, 1, prefix, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		const char *id = (const char *)sqlite3_column_text(s, 0);
		const char *comm = (const char *)sqlite3_column_text(s, 1);
		int n;

		if (!id)
			continue;
		if (matches++ == 0)
			snprintf(capture_id, DB_CAPTURE_ID_LEN, "%s", id);
		if (used < sizeof(list)) {
			n = snprintf(list + used, sizeof(list) - used, "%s%s (%s pid %lld)",
				     used ? ", " : "", id, comm ? comm : "?",
				     (long long)sqlite3_column_int64(s, 2));
			used += n > 0 ? (size_t)n : 0;
		}
	}
	if (rc != SQLITE_DONE) {
		snprintf(err, errlen, "cannot read the captures in %s: %s", path, sqlite3_errmsg(db));
		ret = -EIO;
		goto cleanup;
	}
	if (matches == 1)
		goto cleanup;
	capture_id[0] = 0;
	if (matches == 0 && !opt) {
		ret = -ENOENT;
		snprintf(err, errlen,
			 "%s holds no capture: load one with `ptop-analyze load FILE --db %s`", path,
			 path);
	} else if (matches == 0) {
		int64_t total = 0;

		query_int(db, "SELECT count(*) FROM capture", &total);
		ret = -ENOENT;
		snprintf(err, errlen, "%s holds no capture whose id starts with %s (it holds %" PRId64
			 "; list them with `ptop-analyze sql %s 'SELECT capture_id FROM capture'`)",
			 path, prefix, total, path);
	} else if (!opt) {
		ret = -EINVAL;
		snprintf(err, errlen,
			 "%s holds %" PRId64 " captures: choose one with --capture ID (a unique "
			 "prefix is enough): %s",
			 path, matches, list);
	} else {
		ret = -EINVAL;
		snprintf(err, errlen,
			 "capture id %s is ambiguous in %s: it matches %s: give more digits", prefix,
			 path, list);
	}
cleanup:
	sqlite3_finalize(s);
	return ret;
}

enum input_kind { INPUT_OTHER, INPUT_CAPTURE, INPUT_SQLITE };

static int sniff(const char *path, enum input_kind *kind, char *err, size_t errlen)
{
	unsigned char b[16];
	struct stat st;
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(err, errlen, "cannot open %s: %s", path, strerror(errno));
		return -errno;
	}
	if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
		close(fd);
		snprintf(err, errlen, "%s is a directory, not a capture or a ptop DB", path);
		return -EISDIR;
	}
	n = pread(fd, b, sizeof(b), 0);
	close(fd);
	if (n < 0) {
		snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
		return -errno;
	}
	*kind = INPUT_OTHER;
	if (n == 16 && ((uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
			(uint32_t)b[3] << 24) == CAPTURE_SKIPPABLE_HEADER &&
	    !memcmp(b + 8, CAPTURE_MAGIC, sizeof(CAPTURE_MAGIC)))
		*kind = INPUT_CAPTURE;
	else if (n == 16 && !memcmp(b, SQLITE_MAGIC, sizeof(SQLITE_MAGIC)))
		*kind = INPUT_SQLITE;
	return 0;
}

int db__open_input(const char *path, const char *capture_id_opt, sqlite3 **out,
		   char capture_id[DB_CAPTURE_ID_LEN], char *err, size_t errlen)
{
	enum input_kind kind;
	sqlite3 *db = NULL;
	int ret;

	*out = NULL;
	capture_id[0] = 0;
	if (errlen)
		err[0] = 0;
	ret = sniff(path, &kind, err, errlen);
	if (ret)
		goto cleanup;

	if (kind == INPUT_SQLITE) {
		ret = db__open(path, false, true, &db, err, errlen);
		if (!ret)
			ret = select_capture(db, path, capture_id_opt, capture_id, err, errlen);
		goto cleanup;
	}
	if (kind != INPUT_CAPTURE) {
		ret = -EINVAL;
		snprintf(err, errlen,
			 "%s is neither a ptop capture nor a ptop DB (its first bytes match "
			 "neither)",
			 path);
		goto cleanup;
	}

	ret = cache__open_capture(path, &db, err, errlen);
	if (ret)
		goto cleanup;
	ret = select_capture(db, path, capture_id_opt, capture_id, err, errlen);
cleanup:
	if (ret) {
		sqlite3_close(db);
		db = NULL;
	}
	*out = db;
	return ret;
}
