/* fault_inject.c — the fault-injection suite (tests/e2e/faults.sh builds and runs it): the
 * Nth allocation, then the Nth I/O call, fails, for N = 1, 2, ... until a run meets no
 * fault, through the capture writer (proto/writer.c) and the loader (db__load_capture),
 * and each run must end cleanly:
 *
 *   writer   create fails with errno set and leaves no file; or append/flush/close return
 *            -errno; whatever it returned, the file left reads without corruption and
 *            holds a prefix of the records appended (nothing invented, nothing reordered)
 *   loader   load returns an error with a message and the DB is as it was (the tables'
 *            rows counted, table by table); or it returns 0 and the capture is loaded
 *            whole (the same counts as a load without faults); either way the DB then
 *            still loads the capture without faults
 *
 * and no crash, no leak (the script builds it with ASan+UBSan when build/asan has the
 * libraries). Allocations: malloc, calloc, realloc, strdup of ptop's own code (link-time
 * --wrap, so only ptop's calls count, not libc's own), zstd's contexts, and SQLite's
 * allocator (SQLITE_CONFIG_MALLOC). I/O: open, write, pread, fsync, ftruncate of ptop's
 * code, zstd's compression, and SQLite's file writes, reads, syncs and truncations (a VFS
 * over the default one).
 *
 * usage: fault_inject DIR   with DIR holding the golden captures (tests/golden/gen.c)
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sqlite3.h>
#include <zstd.h>
#include <zstd_errors.h>

#include "analyze/db.h"
#include "proto/capture.h"
#include "tests/capbuild.h"

/* ---------------------------------------------------------------- the faults */

enum { F_ALLOC = 1, F_IO = 2 };
static int armed;	  /* F_ALLOC or F_IO: the kind counted and failed; 0: none */
static long fault_at;	  /* fail the call numbered this (from 1) */
static long calls;	  /* calls of the armed kind since arm() */
static long failed_calls; /* faults injected since arm() */

static void arm(int kind, long n)
{
	armed = kind;
	fault_at = n;
	calls = 0;
	failed_calls = 0;
}

static void disarm(void)
{
	armed = 0;
}

/* Whether this call of KIND fails. */
static bool fault(int kind)
{
	if (!(armed & kind))
		return false;
	if (++calls != fault_at)
		return false;
	failed_calls++;
	return true;
}

void *__real_malloc(size_t n);
void *__real_calloc(size_t k, size_t n);
void *__real_realloc(void *p, size_t n);
char *__real_strdup(const char *s);
int __real_open(const char *path, int flags, ...);
ssize_t __real_write(int fd, const void *buf, size_t n);
ssize_t __real_pread(int fd, void *buf, size_t n, off_t off);
int __real_fsync(int fd);
int __real_ftruncate(int fd, off_t len);
ZSTD_CCtx *__real_ZSTD_createCCtx(void);
ZSTD_DCtx *__real_ZSTD_createDCtx(void);
size_t __real_ZSTD_compress2(ZSTD_CCtx *c, void *dst, size_t dcap, const void *src, size_t n);

void *__wrap_malloc(size_t n)
{
	if (fault(F_ALLOC)) {
		errno = ENOMEM;
		return NULL;
	}
	return __real_malloc(n);
}

void *__wrap_calloc(size_t k, size_t n)
{
	if (fault(F_ALLOC)) {
		errno = ENOMEM;
		return NULL;
	}
	return __real_calloc(k, n);
}

void *__wrap_realloc(void *p, size_t n)
{
	if (fault(F_ALLOC)) {
		errno = ENOMEM;
		return NULL;
	}
	return __real_realloc(p, n);
}

char *__wrap_strdup(const char *s)
{
	if (fault(F_ALLOC)) {
		errno = ENOMEM;
		return NULL;
	}
	return __real_strdup(s);
}

ZSTD_CCtx *__wrap_ZSTD_createCCtx(void)
{
	return fault(F_ALLOC) ? NULL : __real_ZSTD_createCCtx();
}

ZSTD_DCtx *__wrap_ZSTD_createDCtx(void)
{
	return fault(F_ALLOC) ? NULL : __real_ZSTD_createDCtx();
}

size_t __wrap_ZSTD_compress2(ZSTD_CCtx *c, void *dst, size_t dcap, const void *src, size_t n)
{
	if (fault(F_IO))
		return (size_t)-ZSTD_error_memory_allocation;
	return __real_ZSTD_compress2(c, dst, dcap, src, n);
}

int __wrap_open(const char *path, int flags, ...)
{
	mode_t mode = 0;

	if (flags & (O_CREAT | O_TMPFILE)) {
		va_list ap;

		va_start(ap, flags);
		mode = va_arg(ap, mode_t);
		va_end(ap);
	}
	if (fault(F_IO)) {
		errno = EMFILE;
		return -1;
	}
	return __real_open(path, flags, mode);
}

ssize_t __wrap_write(int fd, const void *buf, size_t n)
{
	if (fault(F_IO)) {
		errno = ENOSPC;
		return -1;
	}
	return __real_write(fd, buf, n);
}

ssize_t __wrap_pread(int fd, void *buf, size_t n, off_t off)
{
	if (fault(F_IO)) {
		errno = EIO;
		return -1;
	}
	return __real_pread(fd, buf, n, off);
}

int __wrap_fsync(int fd)
{
	if (fault(F_IO)) {
		errno = EIO;
		return -1;
	}
	return __real_fsync(fd);
}

int __wrap_ftruncate(int fd, off_t len)
{
	if (fault(F_IO)) {
		errno = EIO;
		return -1;
	}
	return __real_ftruncate(fd, len);
}

/* SQLite's allocator: the default one, whose malloc and realloc may fail. */
static sqlite3_mem_methods sq_mem;

static void *sq_malloc(int n)
{
	return fault(F_ALLOC) ? NULL : sq_mem.xMalloc(n);
}

static void *sq_realloc(void *p, int n)
{
	return fault(F_ALLOC) ? NULL : sq_mem.xRealloc(p, n);
}

/* SQLite's files: the default VFS, whose reads, writes, syncs and truncations may fail. */
static sqlite3_vfs *sq_base, sq_vfs;
static sqlite3_io_methods sq_io;
static const sqlite3_io_methods *sq_base_io;

struct sq_file {
	sqlite3_file base;	/* pMethods: sq_io */
	sqlite3_file *real;	/* the default VFS's file, right after this struct */
};

#define REAL(f) (((struct sq_file *)(f))->real)

static int sq_close(sqlite3_file *f)
{
	return REAL(f)->pMethods->xClose(REAL(f));
}

static int sq_read(sqlite3_file *f, void *buf, int n, sqlite3_int64 off)
{
	return fault(F_IO) ? SQLITE_IOERR_READ : REAL(f)->pMethods->xRead(REAL(f), buf, n, off);
}

static int sq_write(sqlite3_file *f, const void *buf, int n, sqlite3_int64 off)
{
	return fault(F_IO) ? SQLITE_IOERR_WRITE : REAL(f)->pMethods->xWrite(REAL(f), buf, n, off);
}

static int sq_truncate(sqlite3_file *f, sqlite3_int64 n)
{
	return fault(F_IO) ? SQLITE_IOERR_TRUNCATE : REAL(f)->pMethods->xTruncate(REAL(f), n);
}

/* A sync that does not fail is skipped: durability is not what this suite tests, and
 * fsyncs would make it minutes long. */
static int sq_sync(sqlite3_file *f, int flags)
{
	(void)f;
	(void)flags;
	return fault(F_IO) ? SQLITE_IOERR_FSYNC : SQLITE_OK;
}

static int sq_size(sqlite3_file *f, sqlite3_int64 *n)
{
	return REAL(f)->pMethods->xFileSize(REAL(f), n);
}

static int sq_lock(sqlite3_file *f, int l)
{
	return REAL(f)->pMethods->xLock(REAL(f), l);
}

static int sq_unlock(sqlite3_file *f, int l)
{
	return REAL(f)->pMethods->xUnlock(REAL(f), l);
}

static int sq_check(sqlite3_file *f, int *out)
{
	return REAL(f)->pMethods->xCheckReservedLock(REAL(f), out);
}

static int sq_fcntl(sqlite3_file *f, int op, void *arg)
{
	return REAL(f)->pMethods->xFileControl(REAL(f), op, arg);
}

static int sq_sector(sqlite3_file *f)
{
	return REAL(f)->pMethods->xSectorSize(REAL(f));
}

static int sq_chars(sqlite3_file *f)
{
	return REAL(f)->pMethods->xDeviceCharacteristics(REAL(f));
}

static int sq_shm_map(sqlite3_file *f, int i, int sz, int ext, void volatile **p)
{
	return REAL(f)->pMethods->xShmMap(REAL(f), i, sz, ext, p);
}

static int sq_shm_lock(sqlite3_file *f, int off, int n, int flags)
{
	return REAL(f)->pMethods->xShmLock(REAL(f), off, n, flags);
}

static void sq_shm_barrier(sqlite3_file *f)
{
	REAL(f)->pMethods->xShmBarrier(REAL(f));
}

static int sq_shm_unmap(sqlite3_file *f, int del)
{
	return REAL(f)->pMethods->xShmUnmap(REAL(f), del);
}

static int sq_open(sqlite3_vfs *vfs, const char *name, sqlite3_file *f, int flags, int *out)
{
	struct sq_file *sf = (struct sq_file *)f;
	int rc;

	(void)vfs;
	sf->real = (sqlite3_file *)(sf + 1);
	rc = sq_base->xOpen(sq_base, name, sf->real, flags, out);
	if (rc != SQLITE_OK || !sf->real->pMethods) {
		f->pMethods = NULL;
		return rc;
	}
	if (!sq_base_io) {
		sq_base_io = sf->real->pMethods;
		sq_io = (sqlite3_io_methods){
		    .iVersion = sq_base_io->iVersion < 2 ? sq_base_io->iVersion : 2,
		    .xClose = sq_close,
		    .xRead = sq_read,
		    .xWrite = sq_write,
		    .xTruncate = sq_truncate,
		    .xSync = sq_sync,
		    .xFileSize = sq_size,
		    .xLock = sq_lock,
		    .xUnlock = sq_unlock,
		    .xCheckReservedLock = sq_check,
		    .xFileControl = sq_fcntl,
		    .xSectorSize = sq_sector,
		    .xDeviceCharacteristics = sq_chars,
		    .xShmMap = sq_shm_map,
		    .xShmLock = sq_shm_lock,
		    .xShmBarrier = sq_shm_barrier,
		    .xShmUnmap = sq_shm_unmap,
		};
	}
	f->pMethods = &sq_io;
	return rc;
}

static void sqlite_faults(void)
{
	sqlite3_mem_methods m;

	if (sqlite3_config(SQLITE_CONFIG_GETMALLOC, &sq_mem) != SQLITE_OK) {
		fprintf(stderr, "fault_inject: SQLITE_CONFIG_GETMALLOC failed\n");
		exit(1);
	}
	m = sq_mem;
	m.xMalloc = sq_malloc;
	m.xRealloc = sq_realloc;
	if (sqlite3_config(SQLITE_CONFIG_MALLOC, &m) != SQLITE_OK) {
		fprintf(stderr, "fault_inject: SQLITE_CONFIG_MALLOC failed\n");
		exit(1);
	}
	sq_base = sqlite3_vfs_find(NULL);
	sq_vfs = *sq_base;
	sq_vfs.zName = "ptop-faults";
	sq_vfs.szOsFile = (int)sizeof(struct sq_file) + sq_base->szOsFile;
	sq_vfs.xOpen = sq_open;
	sq_vfs.pNext = NULL;
	if (sqlite3_vfs_register(&sq_vfs, 1) != SQLITE_OK) {
		fprintf(stderr, "fault_inject: cannot register the VFS\n");
		exit(1);
	}
}

/* ---------------------------------------------------------------- checks */

static int problems;

#define CHECK(cond, ...)                                                                 \
	do {                                                                             \
		if (!(cond)) {                                                           \
			problems++;                                                      \
			fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);  \
			fprintf(stderr, __VA_ARGS__);                                    \
			fputc('\n', stderr);                                             \
		}                                                                        \
	} while (0)

static const char *kind_name(int kind)
{
	return kind == F_ALLOC ? "allocation" : "I/O";
}

/* ---------------------------------------------------------------- the writer */

#define NREC 400
#define T0 (5000 * 1000000000ull)

static char dir[3000];

/* Record K (0: the header) as the writer is given it. */
static void put_record(struct capture_writer *w, int k, int *rc)
{
	Ptop__V1__Record r = PTOP__V1__RECORD__INIT;

	if (k == 0) {
		static struct capb_header b;

		capb__header_init(&b);
		memset(b.id, 0x77, sizeof(b.id));
		b.clk.monotonic_ns = T0;
		b.t.pid = 42;
		b.h.probes = NULL;
		r.kind_case = PTOP__V1__RECORD__KIND_HEADER;
		r.header = &b.h;
	} else {
		Ptop__V1__Event ev = capb__event(T0 + (uint64_t)k, 42, 0,
						 PTOP__V1__CATEGORY__CATEGORY_CONTEXT, 0);
		Ptop__V1__ProcContext c = PTOP__V1__PROC_CONTEXT__INIT;
		char comm[32];

		snprintf(comm, sizeof(comm), "rec-%06d-%s", k, k % 7 ? "x" : "padding-padding");
		c.comm = comm;
		c.ppid = k;
		ev.payload_case = PTOP__V1__EVENT__PAYLOAD_CONTEXT;
		ev.context = &c;
		r.kind_case = PTOP__V1__RECORD__KIND_EVENT;
		r.event = &ev;
		*rc = capture_writer__append(w, &r);
		return;
	}
	*rc = capture_writer__append(w, &r);
}

/* The file PATH holds records 0..n-1 as put_record gives them, n <= MAX, and ends clean
 * or truncated, never corrupt. Returns n. */
static int check_prefix(const char *path, int max, const char *what)
{
	struct capture_reader *r = capture_reader__open(path);
	Ptop__V1__Record *rec;
	int n = 0, rc;

	if (!r) {
		/* a file with not even its magic frame is not a capture: only when none was
		 * written (the first write failed) */
		CHECK(errno == EBADMSG, "%s: reopen %s: %s", what, path, strerror(errno));
		return 0;
	}
	while ((rc = capture_reader__next(r, &rec)) == 1) {
		if (n == 0)
			CHECK(rec->kind_case == PTOP__V1__RECORD__KIND_HEADER,
			      "%s: record 0 is not the header", what);
		else
			CHECK(rec->kind_case == PTOP__V1__RECORD__KIND_EVENT && rec->event &&
				      rec->event->time_ns == T0 + (uint64_t)n,
			      "%s: record %d is not the one appended %d-th", what, n, n);
		ptop__v1__record__free_unpacked(rec, NULL);
		n++;
	}
	CHECK(rc == 0, "%s: reading back: %d", what, rc);
	CHECK(capture_reader__status(r)->end == CAPTURE_END_CLEAN ||
		      capture_reader__status(r)->end == CAPTURE_END_TRUNCATED,
	      "%s: the file left is not clean or truncated: %s", what,
	      capture_reader__status(r)->message);
	CHECK(n <= max, "%s: %d records read, %d appended", what, n, max);
	capture_reader__free(r);
	return n;
}

/* One run of the writer with the Nth call of KIND failing; false when no fault was met
 * (the run went through: N is past the calls there are). */
static bool writer_run(int kind, long n)
{
	char path[3100], what[64];
	struct capture_writer_opts o = {.frame_bytes = 4096};
	struct capture_writer *w;
	int rc = 0, appended = 0, err_at = -1;
	bool met;

	snprintf(path, sizeof(path), "%s/w-%s-%ld.ptop", dir, kind == F_ALLOC ? "a" : "io", n);
	snprintf(what, sizeof(what), "writer, %s %ld", kind_name(kind), n);
	arm(kind, n);
	errno = 0;
	w = capture_writer__create(path, &o);
	if (!w) {
		int e = errno;

		disarm();
		CHECK(failed_calls == 1, "%s: create failed without a fault: %s", what,
		      strerror(e));
		CHECK(e != 0, "%s: create failed with errno 0", what);
		CHECK(access(path, F_OK) != 0, "%s: a failed create left %s", what, path);
		return true;
	}
	for (int k = 0; k < NREC; k++) {
		put_record(w, k, &rc);
		if (rc) {
			CHECK(rc < 0, "%s: append returned %d", what, rc);
			err_at = k;
			break;
		}
		appended++;
		if (k % 100 == 99) {
			rc = capture_writer__flush(w);
			if (rc) {
				CHECK(rc < 0, "%s: flush returned %d", what, rc);
				err_at = k;
				break;
			}
		}
	}
	if (err_at >= 0) {
		capture_writer__abort(w);
		rc = -1;
	} else {
		rc = capture_writer__close(w);
		CHECK(rc <= 0, "%s: close returned %d", what, rc);
	}
	met = failed_calls > 0;
	disarm();
	if (!met)
		CHECK(rc == 0, "%s: an error (%d) without a fault", what, rc);
	if (!met || rc == 0) {
		/* the fault was absorbed (a retry, a fallback): the file must be whole */
		CHECK(check_prefix(path, appended, what) == NREC,
		      "%s: no error returned, yet the file lacks records", what);
	} else {
		check_prefix(path, appended, what);
	}
	unlink(path);
	return met;
}

/* ---------------------------------------------------------------- the loader */

/* The DB's state: its tables' row counts, "name=count;..." (the one on which a failed
 * load must leave it). */
static void db_state(sqlite3 *db, char *out, size_t len)
{
	sqlite3_stmt *s = NULL, *c;
	size_t at = 0;

	out[0] = 0;
	if (sqlite3_prepare_v2(db,
			       "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name",
			       -1, &s, NULL) != SQLITE_OK) {
		snprintf(out, len, "(cannot list the tables: %s)", sqlite3_errmsg(db));
		return;
	}
	while (sqlite3_step(s) == SQLITE_ROW) {
		char sql[300];
		long long rows = -1;

		snprintf(sql, sizeof(sql), "SELECT count(*) FROM \"%s\"",
			 (const char *)sqlite3_column_text(s, 0));
		if (sqlite3_prepare_v2(db, sql, -1, &c, NULL) == SQLITE_OK) {
			if (sqlite3_step(c) == SQLITE_ROW)
				rows = sqlite3_column_int64(c, 0);
			sqlite3_finalize(c);
		}
		at += (size_t)snprintf(out + at, at < len ? len - at : 0, "%s=%lld;",
				       (const char *)sqlite3_column_text(s, 0), rows);
		if (at >= len)
			break;
	}
	sqlite3_finalize(s);
}

static sqlite3 *open_db(const char *path)
{
	sqlite3 *db = NULL;
	char err[512];

	if (db__open(path, true, false, &db, err, sizeof(err))) {
		fprintf(stderr, "fault_inject: open %s: %s\n", path, err);
		exit(1);
	}
	return db;
}

static void load_ok(sqlite3 *db, const char *cap)
{
	char id[DB_CAPTURE_ID_LEN], err[512];

	if (db__load_capture(db, cap, false, id, NULL, err, sizeof(err))) {
		fprintf(stderr, "fault_inject: load %s: %s\n", cap, err);
		exit(1);
	}
}

/* Copy FROM to TO (faults disarmed). */
static void copy_file(const char *from, const char *to)
{
	char buf[65536];
	int in = open(from, O_RDONLY | O_CLOEXEC), out;
	ssize_t n;

	out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (in < 0 || out < 0) {
		fprintf(stderr, "fault_inject: copy %s to %s: %s\n", from, to, strerror(errno));
		exit(1);
	}
	while ((n = read(in, buf, sizeof(buf))) > 0) {
		if (write(out, buf, (size_t)n) != n) {
			fprintf(stderr, "fault_inject: write %s: %s\n", to, strerror(errno));
			exit(1);
		}
	}
	close(in);
	close(out);
}

#define STATE_LEN 8192
static char before[STATE_LEN], after[STATE_LEN], whole[STATE_LEN];

/* One run of the loader: CAP into a copy of base.db, which holds BASE, the Nth call of
 * KIND failing. False when no fault was met. */
static bool loader_run(const char *cap, const char *base, int kind, long n)
{
	char dbp[3100], capp[3100], basep[3100], what[128], err[512] = "";
	char id[DB_CAPTURE_ID_LEN];
	sqlite3 *db;
	int rc;
	bool met;

	snprintf(dbp, sizeof(dbp), "%s/l.db", dir);
	snprintf(capp, sizeof(capp), "%s/%s", dir, cap);
	snprintf(what, sizeof(what), "loader %s (into a DB holding %s), %s %ld", cap, base,
		 kind_name(kind), n);
	snprintf(basep, sizeof(basep), "%s/base.db", dir); /* BASE loaded, by main */
	copy_file(basep, dbp);
	db = open_db(dbp);
	db_state(db, before, sizeof(before));
	arm(kind, n);
	rc = db__load_capture(db, capp, false, id, NULL, err, sizeof(err));
	met = failed_calls > 0;
	disarm();
	db_state(db, after, sizeof(after));
	if (rc) {
		CHECK(met, "%s: failed without a fault: %s", what, err);
		CHECK(rc < 0, "%s: returned %d", what, rc);
		CHECK(err[0], "%s: failed (%d) without a message", what, rc);
		CHECK(!strcmp(before, after), "%s: a failed load changed the DB:\n  before %s\n  after  %s",
		      what, before, after);
	} else {
		CHECK(!strcmp(after, whole), "%s: loaded without an error, but not whole:\n  want %s\n  got  %s",
		      what, whole, after);
	}
	if (rc) { /* the DB still takes the capture */
		char id2[DB_CAPTURE_ID_LEN];

		rc = db__load_capture(db, capp, false, id2, NULL, err, sizeof(err));
		CHECK(rc == 0, "%s: after the failure, a load without faults fails: %s", what, err);
		db_state(db, after, sizeof(after));
		CHECK(!strcmp(after, whole), "%s: the load after the failure is not whole", what);
	}
	sqlite3_close(db);
	return met;
}

/* Open a new DB and load CAP, the Nth call of KIND failing: open fails cleanly, or the
 * load does, leaving no capture in it. */
static bool open_load_run(const char *cap, int kind, long n)
{
	char dbp[3100], capp[3100], what[128], err[512] = "", id[DB_CAPTURE_ID_LEN];
	sqlite3 *db = NULL;
	int rc;
	bool met;

	snprintf(dbp, sizeof(dbp), "%s/o.db", dir);
	snprintf(capp, sizeof(capp), "%s/%s", dir, cap);
	snprintf(what, sizeof(what), "open+load %s, %s %ld", cap, kind_name(kind), n);
	unlink(dbp);
	arm(kind, n);
	rc = db__open(dbp, true, false, &db, err, sizeof(err));
	if (rc) {
		met = failed_calls > 0;
		disarm();
		CHECK(met, "%s: open failed without a fault: %s", what, err);
		CHECK(err[0], "%s: open failed without a message", what);
		CHECK(!db, "%s: a failed open returned a DB", what);
		return true;
	}
	rc = db__load_capture(db, capp, false, id, NULL, err, sizeof(err));
	met = failed_calls > 0;
	disarm();
	if (rc) {
		CHECK(met, "%s: failed without a fault: %s", what, err);
		CHECK(err[0], "%s: failed without a message", what);
		db_state(db, after, sizeof(after));
		CHECK(strstr(after, ";capture=0;") || !strncmp(after, "capture=0;", 10) ||
			      !strstr(after, "capture="),
		      "%s: a failed load left a capture: %s", what, after);
	}
	sqlite3_close(db);
	return met;
}

/* PTOP_FAULT_RUNS=0: every call of every sweep fails once (minutes); else each sweep's
 * budget is its own (below) times PTOP_FAULT_RUNS / 100. */
static long scale = 100;

/* Fails the calls of KIND numbered N (from 1) one run each, over the calls RUN makes
 * (counted by a run without faults first): the first third of BUDGET runs each call, the
 * rest spread evenly over the remaining calls, and always the last call. Returns the
 * runs. */
static long sweep(const char *name, bool (*run)(int, long), int kind, long budget)
{
	long total, step, runs = 0, n, last = 0, first;

	budget = scale ? budget * scale / 100 : 0;
	if (budget && budget < 3)
		budget = 3;
	first = budget / 3;
	run(kind, -1); /* counts, fails nothing */
	total = calls;
	step = budget && total > budget ? (total - first) / (budget - first) : 1;
	if (step < 1)
		step = 1;
	for (n = 1; n <= total; n += n < first ? 1 : step) {
		CHECK(run(kind, n), "%s: the %s call %ld of %ld met no fault (the calls vary "
		      "from run to run)", name, kind_name(kind), n, total);
		runs++;
		last = n;
	}
	if (last != total) {
		CHECK(run(kind, total), "%s: the last %s call met no fault", name, kind_name(kind));
		runs++;
	}
	CHECK(!run(kind, total + 1), "%s: more %s calls than counted", name, kind_name(kind));
	printf("ok: %s, %s faults: %ld runs over %ld calls (every call up to %ld, then every "
	       "%ld-th, and the last)\n", name, kind_name(kind), runs, total, first, step);
	return runs;
}

static const char *cur_cap = "full.ptop";
static bool run_writer(int kind, long n)
{
	return writer_run(kind, n);
}
static bool run_loader(int kind, long n)
{
	return loader_run(cur_cap, "noheap.ptop", kind, n);
}
static bool run_open_load(int kind, long n)
{
	return open_load_run(cur_cap, kind, n);
}

int main(int argc, char **argv)
{
	static const char *caps[] = {"full.ptop", "cgroup.ptop", "truncated.ptop"};
	char dbp[3100], basep[3100], capp[3100];
	sqlite3 *db;

	if (argc != 2) {
		fprintf(stderr, "usage: %s DIR (holding the golden captures)\n", argv[0]);
		return 2;
	}
	snprintf(dir, sizeof(dir), "%s", argv[1]);
	if (getenv("PTOP_FAULT_RUNS"))
		scale = atol(getenv("PTOP_FAULT_RUNS"));
	sqlite_faults();

	sweep("writer", run_writer, F_ALLOC, 100);
	sweep("writer", run_writer, F_IO, 100);
	/* the DB every loader run starts from: noheap.ptop loaded */
	snprintf(dbp, sizeof(dbp), "%s/base.db", dir);
	snprintf(basep, sizeof(basep), "%s/noheap.ptop", dir);
	db = open_db(dbp);
	load_ok(db, basep);
	sqlite3_close(db);
	for (size_t k = 0; k < sizeof(caps) / sizeof(caps[0]); k++) {
		char name[64];

		cur_cap = caps[k];
		/* the whole state: base and capture loaded without faults */
		snprintf(dbp, sizeof(dbp), "%s/whole.db", dir);
		snprintf(basep, sizeof(basep), "%s/noheap.ptop", dir);
		snprintf(capp, sizeof(capp), "%s/%s", dir, cur_cap);
		unlink(dbp);
		db = open_db(dbp);
		load_ok(db, basep);
		load_ok(db, capp);
		db_state(db, whole, sizeof(whole));
		sqlite3_close(db);
		unlink(dbp);
		snprintf(name, sizeof(name), "loader %s", cur_cap);
		sweep(name, run_loader, F_ALLOC, k ? 25 : 60);
		sweep(name, run_loader, F_IO, k ? 25 : 60);
	}
	cur_cap = "full.ptop";
	sweep("open+load full.ptop", run_open_load, F_ALLOC, 40);
	sweep("open+load full.ptop", run_open_load, F_IO, 40);
	if (problems) {
		printf("%d problems\n", problems);
		return 1;
	}
	printf("ok: every injected fault ended cleanly\n");
	return 0;
}
