/* db.h — the analyzer's SQLite database: schema, loading captures, the cache.
 *
 * Every ptop-analyze command that takes a capture goes through db__open_input:
 * a .db is opened as is; a .ptop is loaded into its cache DB (analyze/cache.h:
 * $XDG_CACHE_HOME/ptop, else ~/.cache/ptop, one per capture id and size). Errors are written to ERR (one line saying what
 * went wrong and what to do) and the functions return 0 or -errno.
 */
#ifndef PTOP_DB_H
#define PTOP_DB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <sqlite3.h>

#define DB_SCHEMA_VERSION 7
#define DB_CAPTURE_ID_LEN 33 /* 32 hex digits + NUL */

/* Open (CREATE: and create if missing) the DB at PATH and make sure it has the
 * schema of this build: a new DB gets it; a DB whose PRAGMA user_version is
 * another version is refused with -EPROTO ("DB schema version 3, this
 * ptop-analyze reads 1: reload the capture with `ptop-analyze load`"), and so is
 * one of this version that lacks a table or view of the schema (the message
 * names it: a damaged DB, or one changed by another program).
 * READONLY opens it with SQLITE_OPEN_READONLY. On success *DB is the caller's
 * to sqlite3_close; use it from one thread at a time (opened NOMUTEX).
 * A new DB file is created 0600. Other errors: -ENOENT (missing, !CREATE),
 * -EINVAL (not an SQLite file; or an empty one opened READONLY), -EPROTO
 * (an SQLite file without ptop's schema version), -EISDIR. */
int db__open(const char *path, bool create, bool readonly, sqlite3 **db, char *err, size_t errlen);

struct load_stats {
	uint64_t records;        /* records read */
	uint64_t rows;           /* rows as SQL reads them: a syscall_hist bucket, a
				    stack_frame frame and a vma row count one each, though
				    stored packed (ptop-capture(5)) */
	bool already_loaded;     /* the capture id was in the DB: nothing done */
	bool complete;           /* the file ended with a trailer, read cleanly */
	char read_message[256];  /* the reader's status line when not clean */
	uint64_t skipped;        /* records skipped: they, or their payload, do not decode */
	uint64_t bad_rows;       /* rows skipped: values the reports' checks refuse */
};

/* The drop_notice kinds of what the loader itself skips, each a row with the
 * collector (its part; "capture" when a record is no Record at all), the count and
 * what was wrong: a record that does not decode is a lost event, and the rest of the
 * capture loads; rows no recorder writes (db__check_capture's checks) are left out, so
 * that the reports can read the rest. */
#define LOAD_SKIP_UNDECODABLE "undecodable"
#define LOAD_SKIP_INVALID "invalid"

/* Load the capture at PATH into DB in one transaction (indexes after the
 * data). A capture whose id is already in DB is not loaded again (unless
 * REPLACE, which deletes its rows first). A truncated or corrupt file loads
 * every complete frame and records where reading stopped in capture.read_*.
 * A record that does not decode, or whose payload does not, is skipped and noted
 * (LOAD_SKIP_UNDECODABLE); then the rows the reports' DB check would refuse are left
 * out and noted (LOAD_SKIP_INVALID, db__check_drop_bad_rows): what loads, reports.
 * CAPTURE_ID gets the capture's id. STATS may be NULL.
 * A file whose first record is not a header (e.g. its first frame is corrupt)
 * is refused with -EBADMSG and nothing is loaded; so is a file without the
 * capture magic. A capture without a trailer loads with complete = 0 and a
 * read_message saying it was cut short, and where. */
int db__load_capture(sqlite3 *db, const char *path, bool replace, char capture_id[DB_CAPTURE_ID_LEN],
		     struct load_stats *stats, char *err, size_t errlen);

/* A load that follows a capture still being written (`replay --follow`), through the
 * one follower (analyze/follow.h), into a DB that does not hold the capture yet:
 * db__follow_open reads the header (waiting for it) and commits its rows; each
 * db__follow_step loads what there is and has not been loaded, in one transaction of its own, so that
 * a reader of the DB between the steps sees every record up to one point (the capture
 * row says read_end 'reading' and complete 0 until the end; its record counts and
 * event span are those so far; the indexes are made at the first step). The parts'
 * states and the chunked records still waiting stay in memory between the steps. At the
 * end (the trailer and what follows it read, a corrupt frame, or TIMEOUT_NS without
 * growth: then cut) the load ends as db__load_capture ends one, and the DB then holds the
 * rows a db__load_capture of the file as it is would give (tests/test_load.c checks).
 * A step never waits for the writer. TIMEOUT_NS 0: the follower's default.
 * db__follow_open: 0 or -errno with ERR (db__load_capture's errors; -EEXIST when the DB
 * holds the capture already). */
struct db_follow;
int db__follow_open(sqlite3 *db, const char *path, uint64_t timeout_ns, struct db_follow **f,
		    char capture_id[DB_CAPTURE_ID_LEN], char *err, size_t errlen);

enum {
	DB_FOLLOW_SAME = 0, /* nothing new yet */
	DB_FOLLOW_GREW = 1, /* new rows committed */
	DB_FOLLOW_END = 2,  /* the end: loaded whole (STATS filled, may be NULL); every
			     * step after it returns DB_FOLLOW_END again */
};

/* One step: DB_FOLLOW_*, or -errno with ERR (that step's rows rolled back; the load
 * stops there). */
int db__follow_step(struct db_follow *f, struct load_stats *stats, char *err, size_t errlen);

/* Frees F (its file closed); what it committed stays in the DB. NULL is fine. */
void db__follow_free(struct db_follow *f);

/* Progress of long loads on standard error: once a load has run a second, a line
 * (records, bytes of the file, rate, time left) rewritten in place, cleared at the end.
 * Off unless turned on (ptop-analyze does for a terminal: db__progress_wanted). */
void db__load_progress(bool on);

/* Whether a command with ARGV shows load progress: standard output and error are
 * terminals (STDOUT_TTY, STDERR_TTY) and its output is not JSON (--format json), so
 * never in a pipe, a file or JSON. */
bool db__progress_wanted(int argc, char **argv, bool stdout_tty, bool stderr_tty);

/* The progress line: "loading NAME: N records, X of Y (P%), R/s, T left" (the part
 * after X only when TOTAL is known). */
void db__progress_line(char *buf, size_t len, const char *name, uint64_t records,
		       uint64_t bytes, uint64_t total, double elapsed_s);

/* Open what a command was given: a .db (read-only), or a capture file loaded
 * into its cache DB. Which one is decided by content (the capture magic), not
 * the file name. CAPTURE_ID_OPT selects a capture in a DB holding several
 * (a unique prefix is enough); NULL means "the only one" and a DB holding
 * several is refused with the list of ids. On success *DB is the caller's and
 * CAPTURE_ID holds the selected id. The DB is opened read-only, the cache
 * too (cache__open_capture: built under a temporary name and renamed into place,
 * reused for every file with the same capture id and size). Errors: -EINVAL (neither a capture nor an SQLite DB;
 * several captures and no id; an ambiguous or non-hex id), -ENOENT (no such
 * file; no capture matches), -EPROTO (a DB of another schema version), and
 * those of db__load_capture for a capture; -EPERM when the cache folder is not
 * this user's own (owned by another uid, or writable by group or others: nothing
 * in it is read then). */
int db__open_input(const char *path, const char *capture_id_opt, sqlite3 **db,
		   char capture_id[DB_CAPTURE_ID_LEN], char *err, size_t errlen);

/* Check the rows of capture CAP in DB that the reports compute with (analyze/db_check.c):
 * times positive, intervals NULL or in (0, time_ns], the samples of each series (a pid, a
 * pid and syscall...) in strictly increasing time in file order, counts and sizes not
 * negative, a positive start time. 0; -EBADMSG with "corrupt DB: TABLE row N: what is
 * wrong; what to do" in ERR; -EIO when SQLite fails (ERR says why). */
int db__check_capture(sqlite3 *db, int64_t cap, char *err, size_t errlen);

/* db__check_capture of the sample tables named in TABLES, comma-separated ("cpu_sample,
 * cpu_profile"; NULL: all): a command checks what it reads (on a DB of a million rows a
 * table takes about as long as a report over it). The capture row is always checked. */
int db__check_tables(sqlite3 *db, int64_t cap, const char *tables, char *err, size_t errlen);

/* What db__check_drop_bad_rows tells of each table it took rows from: the part
 * (COLLECTOR), TABLE, how many ROWS, and what was wrong with the first (WHAT). 0 or
 * -errno (which stops it). */
typedef int (*db_bad_rows_fn)(void *arg, const char *collector, const char *table, uint64_t rows,
			      const char *what);

/* The checks of db__check_capture at load time: every row of capture CAP's sample
 * tables that fails one is deleted (a row out of order is judged against the rows kept,
 * so the rows kept all pass), FN told per table, and the total in *DROPPED. The capture
 * row is not checked here. 0, -EIO (ERR says why), -ENOMEM. */
int db__check_drop_bad_rows(sqlite3 *db, int64_t cap, db_bad_rows_fn fn, void *arg,
			    uint64_t *dropped, char *err, size_t errlen);

#endif
