/* load.c — the loader core: loads one capture file into the analyzer's SQLite DB:
 * every record through the capture reader, one transaction, prepared statements bound
 * and reset per row, the schema's indexes built after the data. The envelope's records
 * (header, stack, mapping, perf map, module symbols, drop, probe change, trailer) are
 * loaded here; each Event goes to the collector part that claims its payload case
 * (analyze/load.h, collectors/NAME/load.c).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "analyze/unwind.h"
#include "analyze/db.h"
#include "analyze/follow.h"
#include "analyze/output.h"
#include "analyze/load.h"
#include "analyze/part.h"
#include "proto/capture.h"
#include "proto/names.h"

extern const char ptop_schema_sql[];

/* the marker is a line of its own (the header comment also names it, in quotes) */
#define INDEX_MARKER "\n-- @@ indexes @@\n"

#define PREPARE_FAILED "preparing statements (is the DB's schema current?)"

/* ------------------------------------------------------------- statements */

enum stmt_id {
	ST_CAPTURE,
	ST_TARGET,
	ST_PROBE,
	ST_PROBE_LANE,
	ST_PROBE_CHANGE,
	ST_RECORD_COUNT,
	ST_STACK,
	ST_STACK_COPY,
	ST_MAPPING,
	ST_DROP,
	ST_DROP_TOTAL,
	ST_TRAILER,
	ST_END,
	ST_PERF_MAP,
	ST_MODULE_SYMBOLS,
	ST_N
};

static const char *const stmt_sql[ST_N] = {
	[ST_CAPTURE] = "INSERT INTO capture (capture_id, format_version, recorder_version, "
		       "recorder_commit, recorder_build_date, hostname, kernel_release, "
		       "kernel_version, boot_id, machine, cpus, page_size, clock_tick, "
		       "start_monotonic_ns, start_realtime_ns, start_boottime_ns, recorder_argv, "
		       "interval_ns, vma_interval_ns, flush_interval_ns, duration_ns, no_ebpf, "
		       "disabled, complete, read_end, source_path, source_size, source_mtime_ns, "
		       "loaded_at, user_stacks) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, "
		       "?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22, ?23, 0, "
		       "'reading', ?24, ?25, ?26, ?27, ?28)",
	/* the INSERTs name their columns; load__insert_sql adds the parameters */
	[ST_TARGET] = "INSERT INTO target (cap, mode, pid, comm, exe, exe_build_id, cmdline, "
		      "cgroup_path, cgroup_id, container_id, exe_build_id_kind)",
	[ST_PROBE] = "INSERT OR IGNORE INTO probe (cap, seq, name, state, source, reason, detail)",
	[ST_PROBE_LANE] = "INSERT OR IGNORE INTO probe_lane (cap, probe, seq, lane, state, "
			  "source, reason, instead)",
	[ST_PROBE_CHANGE] = "INSERT INTO probe_change (cap, seq, time_ns, name, state, source, "
			    "reason, detail, cause)",
	[ST_RECORD_COUNT] = "INSERT INTO record_count (cap, kind, count)",
	[ST_STACK] = "INSERT OR IGNORE INTO stack (cap, stack_id, kernel, depth, ips)",
	[ST_STACK_COPY] = "INSERT OR IGNORE INTO stack_copy (cap, stack_id, pid, tid, time_ns, "
			  "ip, sp, bp, flags, stack)",
	[ST_MAPPING] = "INSERT INTO mapping (cap, time_ns, pid, start, end, offset, path, "
		       "build_id, perms, inode, dev, build_id_error, event, build_id_kind, "
		       "elf_vaddr)",
	[ST_PERF_MAP] = "INSERT INTO perf_map (cap, pid, time_ns, path, content, chunks, complete)",
	[ST_MODULE_SYMBOLS] = "INSERT INTO module_symbols (cap, build_id, path, debug, size, elf, "
			      "chunks, complete, build_id_kind)",
	[ST_DROP] = "INSERT INTO drop_notice (cap, time_ns, collector, kind, lost, detail)",
	[ST_DROP_TOTAL] = "INSERT INTO drop_total (cap, collector, kind, lost)",
	[ST_TRAILER] = "UPDATE capture SET end_reason = ?2, end_time_ns = ?3, end_signal = ?4, "
		       "end_error = ?5, salvaged = ?6, target_exited = ?7, target_exit_code = ?8, "
		       "target_term_signal = ?9, target_core_dumped = ?10, "
		       "target_status_known = ?11, trailer_records = ?12, trailer_events = ?13 "
		       "WHERE cap = ?1",
	[ST_END] = "UPDATE capture SET first_event_ns = ?2, last_event_ns = ?3, complete = ?4, "
		   "read_end = ?5, read_stopped_at = ?6, read_message = ?7, has_index = ?8, "
		   "frames = ?9, records = ?10 WHERE cap = ?1",
};

/* Record kinds counted into record_count, in this order. */
enum kind_id {
	K_HEADER,
	K_EV_NONE,
	K_STACK,
	K_STACK_DUP,
	K_MAPPING,
	K_DROP,
	K_TRAILER,
	K_PERF_MAP,
	K_PERF_MAP_INCOMPLETE,
	K_MODULE_SYMBOLS,
	K_MODULE_SYMBOLS_INCOMPLETE,
	K_CHUNK_BAD,
	K_PROBE_CHANGE,
	K_PROBE_CHANGE_BAD,
	K_UNKNOWN,
	K_N
};

static const char *const kind_name[K_N] = {
	[K_HEADER] = "header",
	[K_EV_NONE] = "event:none",       /* an event whose payload no part loads */
	[K_STACK] = "stack",
	[K_STACK_DUP] = "stack:duplicate", /* a stack id seen before: the later one is ignored */
	[K_MAPPING] = "mapping",
	[K_DROP] = "drop",
	[K_TRAILER] = "trailer",
	[K_PERF_MAP] = "perf_map",	  /* chunk records; joined into perf_map rows */
	[K_PERF_MAP_INCOMPLETE] = "perf_map:incomplete", /* maps missing a chunk */
	[K_MODULE_SYMBOLS] = "module_symbols",	       /* chunk records */
	[K_MODULE_SYMBOLS_INCOMPLETE] = "module_symbols:incomplete",
	[K_CHUNK_BAD] = "chunk:bad", /* chunk >= chunks, a repeated chunk, or too many */
	[K_PROBE_CHANGE] = "probe_change",
	[K_PROBE_CHANGE_BAD] = "probe_change:bad", /* no probe, or a probe without a name */
	[K_UNKNOWN] = "unknown",          /* a record kind this build does not know */
};

/* A chunked record (PerfMap, ModuleSymbols) being joined: its chunks arrive as
 * separate records, possibly between others; it is written when the last one
 * arrives, or at the end with what arrived. */
struct assembly {
	bool module;		/* ModuleSymbols (else PerfMap) */
	int32_t pid;		/* PerfMap: the key with time_ns */
	uint64_t time_ns;
	uint8_t build_id[128];	/* ModuleSymbols: the key with debug (a Go build ID: ~83) */
	size_t build_id_len;
	bool debug;
	Ptop__V1__BuildIdKind kind; /* of build_id */
	uint64_t size;		/* ModuleSymbols.size */
	char *path;
	uint32_t chunks, received;
	ProtobufCBinaryData *part; /* [chunks], data NULL until it arrives */
};

#define CHUNKS_MAX 65536u	/* more chunks than this in one map or module: refused */

/* A collector part that loads something (an_part.load), for one load. */
struct part_load {
	const struct an_load *load;
	sqlite3_stmt **st;	/* [load->n_stmts], prepared */
	struct load_ctx ctx;	/* what its functions get: st, its state */
};

/* A payload case a part claims: load_event's table, in payload case order (the order
 * of their record_count rows). */
struct claim {
	const struct an_load_payload *p;
	const char *collector; /* its part's name, for the records it skips */
	struct load_ctx *ctx;
	uint64_t count;		/* its events: record_count kind p->kind */
};

struct loader {
	struct load_run run;	/* what the parts see too: db, path, cap, rows, json, err */
	struct assembly *asm_;	/* joins in progress */
	size_t n_asm;
	int64_t next_probe_change; /* probe_change.seq */
	sqlite3_stmt *st[ST_N];
	char id[DB_CAPTURE_ID_LEN];
	uint64_t records;
	uint64_t skipped;  /* records skipped: their payload does not decode */
	uint64_t bad_rows; /* rows dropped by the reports' checks */
	uint64_t counts[K_N];
	bool have_events;
	uint64_t first_ns, last_ns;
	bool have_trailer;
	struct part_load *parts; /* [n_parts]: the parts with a loader */
	size_t n_parts;
	struct claim *claims;	/* [n_claims] */
	size_t n_claims;
};

/* ---------------------------------------------------------------- helpers */

static int sqlite_errno(int rc)
{
	switch (rc & 0xff) {
	case SQLITE_FULL:
		return -ENOSPC;
	case SQLITE_NOMEM:
		return -ENOMEM;
	case SQLITE_BUSY:
	case SQLITE_LOCKED:
		return -EBUSY;
	case SQLITE_READONLY:
		return -EROFS;
	case SQLITE_PERM:
	case SQLITE_AUTH:
		return -EACCES;
	default:
		return -EIO;
	}
}

int load__db_fail(struct load_run *run, int rc, const char *what)
{
	snprintf(run->err, run->errlen, "loading %s: %s: %s", run->path, what,
		 sqlite3_errmsg(run->db));
	return sqlite_errno(rc);
}

static int db_fail(struct loader *l, int rc, const char *what)
{
	return load__db_fail(&l->run, rc, what);
}

/* Lowercase hex of LEN bytes, bound as text (NULL when LEN is 0). Returns 0 or
 * -ENOMEM. */
static int bind_hex(sqlite3_stmt *s, int i, const uint8_t *data, size_t len)
{
	static const char digits[] = "0123456789abcdef";
	char *hex;

	if (!len || !data) {
		sqlite3_bind_null(s, i);
		return 0;
	}
	hex = sqlite3_malloc64(2 * len + 1);
	if (!hex)
		return -ENOMEM;
	for (size_t k = 0; k < len; k++) {
		hex[2 * k] = digits[data[k] >> 4];
		hex[2 * k + 1] = digits[data[k] & 15];
	}
	hex[2 * len] = 0;
	sqlite3_bind_text(s, i, hex, (int)(2 * len), sqlite3_free);
	return 0;
}

struct strbuf {
	char *p;
	size_t len, cap;
	bool oom;
};

static void sb_putn(struct strbuf *b, const char *s, size_t n)
{
	if (b->oom)
		return;
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 64;
		char *p;

		while (cap < b->len + n + 1)
			cap *= 2;
		p = realloc(b->p, cap);
		if (!p) {
			b->oom = true;
			return;
		}
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = 0;
}

static void sb_puts(struct strbuf *b, const char *s)
{
	sb_putn(b, s, strlen(s));
}

/* Length of the valid UTF-8 sequence at S (N bytes left), 0 if invalid. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	size_t len;
	uint32_t cp;

	if (s[0] < 0x80)
		return 1;
	if ((s[0] & 0xe0) == 0xc0) {
		len = 2;
		cp = s[0] & 0x1f;
	} else if ((s[0] & 0xf0) == 0xe0) {
		len = 3;
		cp = s[0] & 0x0f;
	} else if ((s[0] & 0xf8) == 0xf0) {
		len = 4;
		cp = s[0] & 0x07;
	} else {
		return 0;
	}
	if (len > n)
		return 0;
	for (size_t k = 1; k < len; k++) {
		if ((s[k] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[k] & 0x3f);
	}
	if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
	    cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

/* S as a JSON string; invalid UTF-8 bytes become U+FFFD. */
static void sb_json_string(struct strbuf *b, const char *str)
{
	const unsigned char *s = (const unsigned char *)(str ? str : "");
	size_t n = strlen((const char *)s);
	char esc[8];

	sb_putn(b, "\"", 1);
	while (n) {
		size_t len = utf8_len(s, n);

		if (len == 0) {
			sb_puts(b, "\\ufffd");
			len = 1;
		} else if (*s == '"' || *s == '\\') {
			esc[0] = '\\';
			esc[1] = (char)*s;
			sb_putn(b, esc, 2);
		} else if (*s < 0x20) {
			snprintf(esc, sizeof(esc), "\\u%04x", *s);
			sb_puts(b, esc);
		} else {
			sb_putn(b, (const char *)s, len);
		}
		s += len;
		n -= len;
	}
	sb_putn(b, "\"", 1);
}

/* A JSON array of N strings bound as text; NULL when N is 0 and EMPTY_NULL. */
static int bind_json_strings(sqlite3_stmt *s, int i, char *const *v, size_t n, bool empty_null)
{
	struct strbuf b = { 0 };

	if (!n && empty_null) {
		sqlite3_bind_null(s, i);
		return 0;
	}
	sb_putn(&b, "[", 1);
	for (size_t k = 0; k < n; k++) {
		if (k)
			sb_putn(&b, ",", 1);
		sb_json_string(&b, v[k]);
	}
	sb_putn(&b, "]", 1);
	if (b.oom) {
		free(b.p);
		return -ENOMEM;
	}
	sqlite3_bind_text(s, i, b.p, (int)b.len, free);
	return 0;
}

int load__bind_json_ints(sqlite3_stmt *s, int i, const int32_t *v, size_t n)
{
	struct strbuf b = { 0 };
	char num[16];

	if (!n) {
		sqlite3_bind_null(s, i);
		return 0;
	}
	sb_putn(&b, "[", 1);
	for (size_t k = 0; k < n; k++) {
		snprintf(num, sizeof(num), "%s%" PRId32, k ? "," : "", v[k]);
		sb_puts(&b, num);
	}
	sb_putn(&b, "]", 1);
	if (b.oom) {
		free(b.p);
		return -ENOMEM;
	}
	sqlite3_bind_text(s, i, b.p, (int)b.len, free);
	return 0;
}

/* Step an INSERT/UPDATE whose parameters are all bound, then reset it. */
static int step(struct load_run *run, sqlite3_stmt *s)
{
	int rc = sqlite3_step(s);

	if (rc != SQLITE_DONE) {
		sqlite3_reset(s);
		return load__db_fail(run, rc, "insert");
	}
	run->rows += (uint64_t)sqlite3_changes(run->db);
	sqlite3_reset(s);
	return 0;
}

static int run(struct loader *l, enum stmt_id id)
{
	return step(&l->run, l->st[id]);
}

char *load__insert_sql(const char *sql)
{
	const char *open = strchr(sql, '('), *close = open ? strchr(open, ')') : NULL;
	size_t cols = 1, len;
	char *out, *w;

	if (!close || strstr(close, "VALUES") || strncmp(sql, "INSERT ", 7))
		return strdup(sql); /* complete already, or not an INSERT: as written */
	for (const char *p = open; p < close; p++)
		cols += *p == ',';
	len = strlen(sql) + sizeof(" VALUES ()") + (size_t)(close - open) + cols;
	out = malloc(len);
	if (!out)
		return NULL;
	w = out + snprintf(out, len, "%.*s VALUES (", (int)(close - sql + 1), sql);
	for (const char *p = open + 1; p < close;) {
		size_t n = strcspn(p, ",)");

		w += snprintf(w, len - (size_t)(w - out), ":%.*s", (int)n, p);
		p += n;
		if (*p == ',')
			w += snprintf(w, len - (size_t)(w - out), ", ");
		p += strspn(p, ", ");
	}
	snprintf(w, len - (size_t)(w - out), ")%s", close + 1);
	return out;
}

/* Prepares INSERT SQL completed by load__insert_sql into *ST. An SQLite result code. */
static int prepare_insert(sqlite3 *db, const char *sql, sqlite3_stmt **st)
{
	char *full = load__insert_sql(sql);
	int rc;

	if (!full)
		return SQLITE_NOMEM;
	rc = sqlite3_prepare_v3(db, full, -1, SQLITE_PREPARE_PERSISTENT, st, NULL);
	free(full);
	return rc;
}

int load__step(struct load_ctx *c, int id)
{
	return step(c->run, c->st[id]);
}

/* Write V in decimal at P (up to 20 bytes, no NUL); returns the length. Much
 * cheaper than snprintf, which was a tenth of the load's CPU. */
static size_t put_i64(char *p, int64_t v)
{
	uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
	char tmp[20];
	size_t n = 0, len = 0;

	do {
		tmp[n++] = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	if (v < 0)
		p[len++] = '-';
	while (n)
		p[len++] = tmp[--n];
	return len;
}

int load__bind_json_u64s(struct load_run *run, sqlite3_stmt *s, int i, const uint64_t *v,
			 size_t n)
{
	size_t need = n * 21 + 3, len = 0; /* "-9223372036854775808," each, brackets, NUL */

	if (need > run->json_cap) {
		char *p = realloc(run->json, need);

		if (!p)
			return -ENOMEM;
		run->json = p;
		run->json_cap = need;
	}
	run->json[len++] = '[';
	for (size_t k = 0; k < n; k++) {
		if (k)
			run->json[len++] = ',';
		len += put_i64(run->json + len, (int64_t)v[k]);
	}
	run->json[len++] = ']';
	run->json[len] = 0;
	sqlite3_bind_text(s, i, run->json, (int)len, SQLITE_STATIC);
	return 0;
}

static int exec(struct loader *l, const char *sql, const char *what)
{
	int rc = sqlite3_exec(l->run.db, sql, NULL, NULL, NULL);

	return rc == SQLITE_OK ? 0 : db_fail(l, rc, what);
}

/* ---------------------------------------------------------------- records */

static int load_lanes(struct loader *l, const Ptop__V1__Probe *p);

static int load_header(struct loader *l, const Ptop__V1__CaptureHeader *h, const struct stat *st,
		       const char *realpath_)
{
	sqlite3_stmt *s = l->st[ST_CAPTURE];
	const Ptop__V1__Recorder *rec = h->recorder;
	const Ptop__V1__Host *host = h->host;
	const Ptop__V1__Clocks *clk = h->clocks;
	const Ptop__V1__Options *o = h->options;
	const Ptop__V1__TargetInfo *t = h->target;
	struct timespec now;
	struct tm tm;
	char loaded_at[96];
	int err;

	clock_gettime(CLOCK_REALTIME, &now);
	gmtime_r(&now.tv_sec, &tm);
	snprintf(loaded_at, sizeof(loaded_at), "%04d-%02d-%02dT%02d:%02d:%02d.%03ldZ",
		 tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
		 now.tv_nsec / 1000000);

	sqlite3_bind_text(s, 1, l->id, -1, SQLITE_STATIC);
	bind_u64(s, 2, h->format_version);
	bind_opt_text(s, 3, rec ? rec->version : NULL);
	bind_opt_text(s, 4, rec ? rec->commit : NULL);
	bind_opt_text(s, 5, rec ? rec->build_date : NULL);
	bind_opt_text(s, 6, host ? host->hostname : NULL);
	bind_opt_text(s, 7, host ? host->kernel_release : NULL);
	bind_opt_text(s, 8, host ? host->kernel_version : NULL);
	bind_opt_text(s, 9, host ? host->boot_id : NULL);
	bind_opt_text(s, 10, host ? host->machine : NULL);
	if (host) {
		bind_nz(s, 11, host->cpus);
		bind_nz(s, 12, host->page_size);
		bind_nz(s, 13, host->clock_tick);
	} else {
		for (int i = 11; i <= 13; i++)
			sqlite3_bind_null(s, i);
	}
	if (clk) {
		bind_u64(s, 14, clk->monotonic_ns);
		bind_u64(s, 15, clk->realtime_ns);
		bind_u64(s, 16, clk->boottime_ns);
	} else {
		for (int i = 14; i <= 16; i++)
			sqlite3_bind_null(s, i);
	}
	if (o) {
		err = bind_json_strings(s, 17, o->argv, o->n_argv, false);
		if (!err)
			err = bind_json_strings(s, 23, o->disabled, o->n_disabled, false);
		if (err)
			return err;
		bind_u64(s, 18, o->interval_ns);
		bind_u64(s, 19, o->vma_interval_ns);
		bind_u64(s, 20, o->flush_interval_ns);
		bind_u64(s, 21, o->duration_ns);
		bind_i64(s, 22, !!o->no_ebpf);
		bind_opt_text(s, 28, o->user_stacks);	/* empty before the option: NULL */
	} else {
		for (int i = 17; i <= 23; i++)
			sqlite3_bind_null(s, i);
		sqlite3_bind_null(s, 28);
	}
	bind_text(s, 24, realpath_);
	bind_i64(s, 25, st->st_size);
	bind_i64(s, 26, (int64_t)st->st_mtim.tv_sec * 1000000000 + st->st_mtim.tv_nsec);
	bind_text(s, 27, loaded_at);
	err = run(l, ST_CAPTURE);
	if (err)
		return err;
	l->run.cap = sqlite3_last_insert_rowid(l->run.db); /* every other row carries it */

	s = l->st[ST_TARGET];
	sqlite3_bind_int64(s, 1, l->run.cap);
	if (t) {
		bind_text(s, 2, capture_mode_name(t->mode));
		bind_pid(s, 3, t->pid);
		bind_opt_text(s, 4, t->comm);
		bind_opt_text(s, 5, t->exe);
		err = bind_hex(s, 6, t->exe_build_id.data, t->exe_build_id.len);
		if (!err)
			err = bind_json_strings(s, 7, t->cmdline, t->n_cmdline, true);
		if (err)
			return err;
		bind_opt_text(s, 8, t->cgroup_path);
		bind_nz(s, 9, t->cgroup_id);
		bind_opt_text(s, 10, t->container_id);
		bind_opt_text(s, 11,
			      t->exe_build_id.len ? capture_build_id_kind_name(t->exe_build_id_kind)
						  : NULL);
	} else {
		bind_text(s, 2, "unspecified");
		for (int i = 3; i <= 11; i++)
			sqlite3_bind_null(s, i);
	}
	err = run(l, ST_TARGET);
	if (err)
		return err;

	s = l->st[ST_PROBE];
	for (size_t k = 0; k < h->n_probes; k++) {
		const Ptop__V1__Probe *p = h->probes[k];
		const char *src;

		if (!p)
			continue;
		src = capture_probe_source_name(p->source);
		sqlite3_bind_int64(s, 1, l->run.cap);
		bind_i64(s, 2, (int64_t)k);
		bind_text(s, 3, p->name);
		bind_text(s, 4, capture_probe_state_name(p->state));
		if (src)
			bind_text(s, 5, src);
		else
			sqlite3_bind_null(s, 5);
		bind_opt_text(s, 6, p->reason);
		bind_opt_text(s, 7, p->detail);
		err = run(l, ST_PROBE);
		if (err)
			return err;
		err = load_lanes(l, p);
		if (err)
			return err;
	}
	return 0;
}

/* The lanes of probe P (none in captures of earlier recorders). */
static int load_lanes(struct loader *l, const Ptop__V1__Probe *p)
{
	sqlite3_stmt *s = l->st[ST_PROBE_LANE];
	int err;

	for (size_t k = 0; k < p->n_lanes; k++) {
		const Ptop__V1__ProbeLane *ln = p->lanes[k];
		const char *src;

		if (!ln || !ln->name || !ln->name[0])
			continue;
		src = capture_probe_source_name(ln->source);
		sqlite3_bind_int64(s, 1, l->run.cap);
		bind_text(s, 2, p->name);
		bind_i64(s, 3, (int64_t)k);
		bind_text(s, 4, ln->name);
		bind_text(s, 5, capture_probe_state_name(ln->state));
		if (src)
			bind_text(s, 6, src);
		else
			sqlite3_bind_null(s, 6);
		bind_opt_text(s, 7, ln->reason);
		bind_opt_text(s, 8, ln->instead);
		err = run(l, ST_PROBE_LANE);
		if (err)
			return err;
	}
	return 0;
}

/* A drop notice of the loader's own: LOST records or rows of COLLECTOR skipped at load
 * (KIND, DETAIL), at TIME_NS (0: the whole capture). 0 or -errno. */
static int note_skipped(struct loader *l, uint64_t time_ns, const char *collector, const char *kind,
			uint64_t lost, const char *detail)
{
	sqlite3_stmt *s = l->st[ST_DROP];

	sqlite3_bind_int64(s, 1, l->run.cap);
	bind_nz(s, 2, time_ns);
	bind_text(s, 3, collector);
	bind_text(s, 4, kind);
	bind_u64(s, 5, lost);
	bind_text(s, 6, detail);
	return run(l, ST_DROP);
}

static int load_event(struct loader *l, const Ptop__V1__Event *ev)
{
	int err;

	if (!l->have_events || ev->time_ns < l->first_ns)
		l->first_ns = ev->time_ns;
	if (!l->have_events || ev->time_ns > l->last_ns)
		l->last_ns = ev->time_ns;
	l->have_events = true;

	/* the part that claims the payload; a case no part claims (or none at all) is
	 * counted, not loaded */
	for (size_t k = 0; k < l->n_claims; k++) {
		struct claim *c = &l->claims[k];

		if (c->p->payload != ev->payload_case)
			continue;
		if (ev->payload_case == PTOP__V1__EVENT__PAYLOAD_COLLECTOR_PAYLOAD &&
		    (!ev->collector_payload || !ev->collector_payload->type || !c->p->type ||
		     strcmp(ev->collector_payload->type, c->p->type)))
			continue;
		c->count++;
		err = c->p->load(c->ctx, ev);
		if (err != -EBADMSG)
			return err;
		/* its payload does not decode (the part stored nothing): a lost event,
		 * skipped and counted, not a reason to refuse the rest of the capture */
		if (l->run.errlen)
			l->run.err[0] = 0;
		l->skipped++;
		return note_skipped(l, ev->time_ns, c->collector, LOAD_SKIP_UNDECODABLE, 1,
				    "a record whose payload does not decode (the capture is "
				    "damaged there), skipped at load");
	}
	l->counts[K_EV_NONE]++;
	return 0;
}


/* A stack taken as a copy (--user-stacks dwarf): kept as it came, unwound into its
 * stack row's frames by symbolize (analyze/unwind.h). */
static int load_stack_copy(struct loader *l, uint64_t id, const Ptop__V1__StackCopy *cp)
{
	sqlite3_stmt *s = l->st[ST_STACK_COPY];
	int rc;

	sqlite3_bind_int64(s, 1, l->run.cap);
	bind_u64(s, 2, id);
	sqlite3_bind_int(s, 3, cp->pid);
	sqlite3_bind_int(s, 4, cp->tid);
	bind_u64(s, 5, cp->time_ns);
	bind_u64(s, 6, cp->ip);
	bind_u64(s, 7, cp->sp);
	bind_u64(s, 8, cp->bp);
	bind_u64(s, 9, cp->flags);
	if (cp->stack.len)
		sqlite3_bind_blob(s, 10, cp->stack.data, (int)cp->stack.len, SQLITE_STATIC);
	else
		sqlite3_bind_null(s, 10);
	rc = sqlite3_step(s);
	sqlite3_reset(s);
	sqlite3_clear_bindings(s);
	if (rc != SQLITE_DONE)
		return db_fail(l, rc, "insert");
	l->run.rows++;
	return 0;
}

static int load_stack(struct loader *l, const Ptop__V1__Stack *st)
{
	sqlite3_stmt *s = l->st[ST_STACK];
	int err, rc;

	sqlite3_bind_int64(s, 1, l->run.cap);
	bind_u64(s, 2, st->id);
	bind_i64(s, 3, !!st->kernel);
	bind_u64(s, 4, st->n_ips);
	if (st->n_ips) {
		err = load__bind_json_u64s(&l->run, s, 5, st->ips, st->n_ips);
		if (err)
			return err;
	} else {
		sqlite3_bind_null(s, 5);
	}
	rc = sqlite3_step(s);
	sqlite3_reset(s);
	if (rc != SQLITE_DONE)
		return db_fail(l, rc, "insert");
	if (!sqlite3_changes(l->run.db)) {
		l->counts[K_STACK_DUP]++;
		return 0;
	}
	l->run.rows += 1 + st->n_ips; /* the stack and its stack_frame rows */
	l->counts[K_STACK]++;
	if (st->copy && !st->kernel)
		return load_stack_copy(l, st->id, st->copy);
	return 0;
}

static int load_mapping(struct loader *l, const Ptop__V1__Mapping *m)
{
	sqlite3_stmt *s = l->st[ST_MAPPING];
	int err;

	sqlite3_bind_int64(s, 1, l->run.cap);
	bind_nz(s, 2, m->time_ns);
	bind_pid(s, 3, m->pid);
	bind_u64(s, 4, m->start);
	bind_u64(s, 5, m->end);
	bind_u64(s, 6, m->offset);
	bind_opt_text(s, 7, m->path);
	err = bind_hex(s, 8, m->build_id.data, m->build_id.len);
	if (err)
		return err;
	bind_opt_text(s, 9, m->perms);
	bind_u64(s, 10, m->inode);
	bind_opt_text(s, 11, m->dev);
	bind_opt_text(s, 12, m->build_id_error);
	bind_opt_text(s, 13, capture_mapping_event_name(m->event));
	bind_opt_text(s, 14, m->build_id.len ? capture_build_id_kind_name(m->build_id_kind) : NULL);
	if (m->elf)
		bind_u64(s, 15, m->elf->vaddr);
	else
		sqlite3_bind_null(s, 15);
	return run(l, ST_MAPPING);
}

/* ------------------------------------------------------------- chunk joins */

static void assembly_free(struct assembly *a)
{
	if (!a->part)
		return;
	for (uint32_t k = 0; k < a->chunks; k++)
		free(a->part[k].data);
	free(a->part);
	free(a->path);
	memset(a, 0, sizeof(*a));
}

/* Write A as one row (content: the chunks that arrived, in order) and forget it. */
static int assembly_write(struct loader *l, struct assembly *a)
{
	sqlite3_stmt *s = l->st[a->module ? ST_MODULE_SYMBOLS : ST_PERF_MAP];
	bool complete = a->received == a->chunks;
	size_t total = 0, at = 0;
	uint8_t *blob;
	int err;

	for (uint32_t k = 0; k < a->chunks; k++)
		total += a->part[k].len;
	if (a->module && total != a->size)
		complete = false;
	blob = malloc(total ? total : 1);
	if (!blob)
		return -ENOMEM;
	for (uint32_t k = 0; k < a->chunks; k++) {
		if (a->part[k].len)
			memcpy(blob + at, a->part[k].data, a->part[k].len);
		at += a->part[k].len;
	}
	sqlite3_bind_int64(s, 1, l->run.cap);
	if (a->module) {
		err = bind_hex(s, 2, a->build_id, a->build_id_len);
		if (err) {
			free(blob);
			return err;
		}
		bind_opt_text(s, 3, a->path);
		bind_i64(s, 4, a->debug);
		bind_u64(s, 5, a->size);
		sqlite3_bind_blob64(s, 6, blob, total, free);
		bind_u64(s, 7, a->chunks);
		bind_i64(s, 8, complete);
		bind_text(s, 9, capture_build_id_kind_name(a->kind));
		if (!complete)
			l->counts[K_MODULE_SYMBOLS_INCOMPLETE]++;
	} else {
		bind_pid(s, 2, a->pid);
		bind_nz(s, 3, a->time_ns);
		bind_opt_text(s, 4, a->path);
		sqlite3_bind_blob64(s, 5, blob, total, free);
		bind_u64(s, 6, a->chunks);
		bind_i64(s, 7, complete);
		if (!complete)
			l->counts[K_PERF_MAP_INCOMPLETE]++;
	}
	err = run(l, a->module ? ST_MODULE_SYMBOLS : ST_PERF_MAP);
	assembly_free(a);
	return err;
}

/* One chunk of a PerfMap (PM) or ModuleSymbols (MS): kept until its join is
 * whole. A chunk numbered past CHUNKS, or seen twice, is counted as chunk:bad
 * and dropped. */
static int load_chunk(struct loader *l, const Ptop__V1__PerfMap *pm,
		      const Ptop__V1__ModuleSymbols *ms)
{
	uint32_t chunk = pm ? pm->chunk : ms->chunk;
	uint32_t chunks = pm ? pm->chunks : ms->chunks;
	const ProtobufCBinaryData *data = pm ? &pm->content : &ms->elf;
	struct assembly *a = NULL;
	size_t k;

	if (!chunks)
		chunks = 1; /* an unchunked record */
	if (chunk >= chunks || chunks > CHUNKS_MAX ||
	    (ms && (ms->build_id.len > sizeof(a->build_id) || !ms->build_id.len))) {
		l->counts[K_CHUNK_BAD]++;
		return 0;
	}
	for (k = 0; k < l->n_asm; k++) {
		struct assembly *c = &l->asm_[k];

		if (c->module != !!ms || c->chunks != chunks)
			continue;
		if (pm && c->pid == pm->pid && c->time_ns == pm->time_ns)
			break;
		if (ms && c->debug == ms->debug && c->kind == ms->build_id_kind &&
		    c->build_id_len == ms->build_id.len &&
		    !memcmp(c->build_id, ms->build_id.data, ms->build_id.len))
			break;
	}
	if (k < l->n_asm) {
		a = &l->asm_[k];
	} else {
		struct assembly *n = realloc(l->asm_, (l->n_asm + 1) * sizeof(*n));

		if (!n)
			return -ENOMEM;
		l->asm_ = n;
		a = &l->asm_[l->n_asm];
		memset(a, 0, sizeof(*a));
		a->part = calloc(chunks, sizeof(*a->part));
		if (!a->part)
			return -ENOMEM;
		l->n_asm++;
		a->module = !!ms;
		a->chunks = chunks;
		if (pm) {
			a->pid = pm->pid;
			a->time_ns = pm->time_ns;
		} else {
			memcpy(a->build_id, ms->build_id.data, ms->build_id.len);
			a->build_id_len = ms->build_id.len;
			a->debug = ms->debug;
			a->kind = ms->build_id_kind;
			a->size = ms->size;
		}
	}
	if (!a->path && (pm ? pm->path : ms->path) && *(pm ? pm->path : ms->path)) {
		a->path = strdup(pm ? pm->path : ms->path);
		if (!a->path)
			return -ENOMEM;
	}
	if (a->part[chunk].data) { /* the same chunk twice */
		l->counts[K_CHUNK_BAD]++;
		return 0;
	}
	a->part[chunk].data = malloc(data->len ? data->len : 1);
	if (!a->part[chunk].data)
		return -ENOMEM;
	if (data->len)
		memcpy(a->part[chunk].data, data->data, data->len);
	a->part[chunk].len = data->len;
	a->received++;
	if (a->received == a->chunks) {
		size_t idx = (size_t)(a - l->asm_);
		int err = assembly_write(l, a);

		/* keep the array dense: the last join takes the written one's place */
		l->asm_[idx] = l->asm_[l->n_asm - 1];
		l->n_asm--;
		return err;
	}
	return 0;
}

/* Write the joins still waiting for chunks (the capture was cut short). */
static int flush_chunks(struct loader *l)
{
	int err = 0;

	while (l->n_asm && !err) {
		err = assembly_write(l, &l->asm_[l->n_asm - 1]);
		l->n_asm--;
	}
	return err;
}

static int load_drop(struct loader *l, const Ptop__V1__DropNotice *d)
{
	sqlite3_stmt *s = l->st[ST_DROP];

	sqlite3_bind_int64(s, 1, l->run.cap);
	bind_nz(s, 2, d->time_ns);
	bind_text(s, 3, d->collector);
	bind_text(s, 4, d->kind);
	bind_u64(s, 5, d->lost);
	bind_opt_text(s, 6, d->detail);
	return run(l, ST_DROP);
}

/* A probe that changed during the recording: one probe_change row, its names as the
 * header's probe rows have them. A change without a probe, or whose probe has no
 * name, says nothing: counted as probe_change:bad, not loaded. */
static int load_probe_change(struct loader *l, const Ptop__V1__ProbeChange *pc)
{
	sqlite3_stmt *s = l->st[ST_PROBE_CHANGE];
	const Ptop__V1__Probe *p = pc->probe;
	const char *src;

	if (!p || !p->name || !*p->name) {
		l->counts[K_PROBE_CHANGE_BAD]++;
		return 0;
	}
	src = capture_probe_source_name(p->source);
	sqlite3_bind_int64(s, 1, l->run.cap);
	bind_i64(s, 2, l->next_probe_change++);
	bind_u64(s, 3, pc->time_ns);
	bind_text(s, 4, p->name);
	bind_text(s, 5, capture_probe_state_name(p->state));
	if (src)
		bind_text(s, 6, src);
	else
		sqlite3_bind_null(s, 6);
	bind_opt_text(s, 7, p->reason);
	bind_opt_text(s, 8, p->detail);
	bind_opt_text(s, 9, pc->cause);
	return run(l, ST_PROBE_CHANGE);
}

static int load_trailer(struct loader *l, const Ptop__V1__CaptureTrailer *t)
{
	sqlite3_stmt *s = l->st[ST_TRAILER];
	const Ptop__V1__TargetExit *x = t->target_exit;
	int err;

	sqlite3_bind_int64(s, 1, l->run.cap);
	bind_text(s, 2, capture_end_reason_name(t->reason));
	bind_nz(s, 3, t->end_time_ns);
	bind_nz(s, 4, t->signal);
	bind_opt_text(s, 5, t->error);
	bind_i64(s, 6, !!t->salvaged);
	for (int i = 7; i <= 11; i++)
		sqlite3_bind_null(s, i);
	if (x) {
		bind_i64(s, 11, !!x->status_known);
		if (x->status_known) {
			bind_i64(s, 7, !!x->exited);
			if (x->exited) {
				bind_i64(s, 8, x->exit_code);
			} else {
				bind_i64(s, 9, x->term_signal);
				bind_i64(s, 10, !!x->core_dumped);
			}
		}
	}
	bind_u64(s, 12, t->records);
	bind_u64(s, 13, t->events);
	err = run(l, ST_TRAILER);
	if (err)
		return err;
	l->run.rows--; /* an UPDATE, not a new row */

	s = l->st[ST_DROP_TOTAL];
	for (size_t k = 0; k < t->n_drops; k++) {
		const Ptop__V1__DropTotal *d = t->drops[k];

		if (!d)
			continue;
		sqlite3_bind_int64(s, 1, l->run.cap);
		bind_text(s, 2, d->collector);
		bind_text(s, 3, d->kind);
		bind_u64(s, 4, d->lost);
		err = run(l, ST_DROP_TOTAL);
		if (err)
			return err;
	}
	return 0;
}

static int load_record(struct loader *l, const Ptop__V1__Record *r)
{
	switch (r->kind_case) {
	case PTOP__V1__RECORD__KIND_HEADER:
		/* a second header is counted, not loaded: the first one names the capture */
		l->counts[K_HEADER]++;
		return 0;
	case PTOP__V1__RECORD__KIND_EVENT:
		return r->event ? load_event(l, r->event) : 0;
	case PTOP__V1__RECORD__KIND_STACK:
		return r->stack ? load_stack(l, r->stack) : 0;
	case PTOP__V1__RECORD__KIND_MAPPING:
		l->counts[K_MAPPING]++;
		return r->mapping ? load_mapping(l, r->mapping) : 0;
	case PTOP__V1__RECORD__KIND_DROP:
		l->counts[K_DROP]++;
		return r->drop ? load_drop(l, r->drop) : 0;
	case PTOP__V1__RECORD__KIND_PERF_MAP:
		l->counts[K_PERF_MAP]++;
		return r->perf_map ? load_chunk(l, r->perf_map, NULL) : 0;
	case PTOP__V1__RECORD__KIND_MODULE_SYMBOLS:
		l->counts[K_MODULE_SYMBOLS]++;
		return r->module_symbols ? load_chunk(l, NULL, r->module_symbols) : 0;
	case PTOP__V1__RECORD__KIND_PROBE_CHANGE:
		l->counts[K_PROBE_CHANGE]++;
		if (!r->probe_change) {
			l->counts[K_PROBE_CHANGE_BAD]++;
			return 0;
		}
		return load_probe_change(l, r->probe_change);
	case PTOP__V1__RECORD__KIND_TRAILER:
		l->counts[K_TRAILER]++;
		if (l->have_trailer || !r->trailer)
			return 0; /* only the first trailer is loaded; later ones are counted */
		l->have_trailer = true;
		return load_trailer(l, r->trailer);
	default:
		l->counts[K_UNKNOWN]++;
		return 0;
	}
}

/* Delete every row of the capture whose key is l->run.cap from every table that has
 * a cap column (the capture row too). */
static int delete_capture(struct loader *l)
{
	sqlite3_stmt *tables = NULL, *del = NULL;
	char sql[256];
	int rc, err = 0;

	rc = sqlite3_prepare_v2(l->run.db,
				"SELECT m.name FROM sqlite_master m, pragma_table_info(m.name) p "
				"WHERE m.type = 'table' AND p.name = 'cap'",
				-1, &tables, NULL);
	if (rc != SQLITE_OK)
		return db_fail(l, rc, "listing tables");
	while ((rc = sqlite3_step(tables)) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(tables, 0);

		snprintf(sql, sizeof(sql), "DELETE FROM \"%s\" WHERE cap = ?1", name);
		rc = sqlite3_prepare_v2(l->run.db, sql, -1, &del, NULL);
		if (rc != SQLITE_OK) {
			err = db_fail(l, rc, "deleting the old capture");
			goto cleanup;
		}
		sqlite3_bind_int64(del, 1, l->run.cap);
		rc = sqlite3_step(del);
		sqlite3_finalize(del);
		del = NULL;
		if (rc != SQLITE_DONE) {
			err = db_fail(l, rc, "deleting the old capture");
			goto cleanup;
		}
	}
	if (rc != SQLITE_DONE)
		err = db_fail(l, rc, "listing tables");
cleanup:
	sqlite3_finalize(tables);
	return err;
}

/* Whether capture l->id is in the DB; if so l->run.cap is its key. */
static int capture_exists(struct loader *l, bool *exists)
{
	sqlite3_stmt *s = NULL;
	int rc;

	rc = sqlite3_prepare_v2(l->run.db, "SELECT cap FROM capture WHERE capture_id = ?1", -1, &s,
				NULL);
	if (rc != SQLITE_OK)
		return db_fail(l, rc, "looking up the capture");
	sqlite3_bind_text(s, 1, l->id, -1, SQLITE_STATIC);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW)
		l->run.cap = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return db_fail(l, rc, "looking up the capture");
	*exists = rc == SQLITE_ROW;
	return 0;
}

/* A record_count row, unless COUNT is 0. */
static int put_count(struct loader *l, const char *kind, uint64_t count)
{
	sqlite3_stmt *s = l->st[ST_RECORD_COUNT];

	if (!count)
		return 0;
	sqlite3_bind_int64(s, 1, l->run.cap);
	bind_text(s, 2, kind);
	bind_u64(s, 3, count);
	return run(l, ST_RECORD_COUNT);
}

/* One table's rows that the reports' checks refuse (analyze/db_check.c), dropped at
 * load: noted as the part's drop. */
static int note_bad_rows(void *arg, const char *collector, const char *table, uint64_t rows,
			 const char *what)
{
	struct loader *l = arg;
	char detail[512];

	snprintf(detail, sizeof(detail),
		 "%" PRIu64 " %s row%s whose values no recorder writes (the capture is damaged "
		 "there), skipped at load; the first: %s",
		 rows, table, rows == 1 ? "" : "s", what);
	return note_skipped(l, 0, collector, LOAD_SKIP_INVALID, rows, detail);
}

/* The rows the reports would refuse the whole DB for ("corrupt DB: TABLE row N"), found
 * by the same checks now and skipped, so that a capture that loads can be reported on.
 * 0 or -errno with the message in err. */
static int drop_bad_rows(struct loader *l)
{
	uint64_t n = 0;
	int err = db__check_drop_bad_rows(l->run.db, l->run.cap, note_bad_rows, l, &n, l->run.err,
					  l->run.errlen);

	l->bad_rows = n;
	l->run.rows -= n;
	return err;
}

static int finish(struct loader *l, const struct capture_status *cs, struct load_stats *stats)
{
	sqlite3_stmt *s = l->st[ST_END];
	bool clean = cs->end == CAPTURE_END_CLEAN;
	bool complete = clean && l->have_trailer;
	char msg[512];
	int err;

	msg[0] = 0;
	if (!l->have_trailer && clean)
		snprintf(msg, sizeof(msg),
			 "cut short: no trailer after %" PRIu64 " records (the file ends cleanly "
			 "at byte %" PRIu64 " without one)",
			 l->records, cs->file_size);
	else if (!l->have_trailer)
		snprintf(msg, sizeof(msg), "cut short: no trailer; %s", cs->message);
	else if (!clean)
		snprintf(msg, sizeof(msg), "%s", cs->message);

	sqlite3_bind_int64(s, 1, l->run.cap);
	if (l->have_events) {
		bind_u64(s, 2, l->first_ns);
		bind_u64(s, 3, l->last_ns);
	} else {
		sqlite3_bind_null(s, 2);
		sqlite3_bind_null(s, 3);
	}
	bind_i64(s, 4, complete);
	bind_text(s, 5, capture_end_name(cs->end));
	if (clean)
		sqlite3_bind_null(s, 6);
	else
		bind_u64(s, 6, cs->at_byte);
	bind_opt_text(s, 7, msg);
	bind_i64(s, 8, cs->has_index);
	bind_u64(s, 9, cs->frames);
	bind_u64(s, 10, l->records);
	err = run(l, ST_END);
	if (err)
		return err;
	l->run.rows--;

	if (stats) {
		stats->complete = complete;
		snprintf(stats->read_message, sizeof(stats->read_message), "%s", msg);
	}
	return 0;
}

/* The stack copies (--user-stacks dwarf) unwound now, with the module files this
 * machine has by build-id (analyze/unwind.h), so that their stacks have frames for
 * every reader of the DB, SQL included. */
static int unwind_copies(struct loader *l, char *err, size_t errlen)
{
	struct symbolizer *sz;
	int ret;

	if (!unwind__pending(l->run.db, l->run.cap))
		return 0;
	sz = symbolizer__new(NULL);
	if (!sz)
		return -ENOMEM;
	ret = unwind__copies(l->run.db, l->run.cap, sz, NULL, err, errlen);
	symbolizer__free(sz);
	return ret;
}

static int create_indexes(struct loader *l)
{
	const char *p = strstr(ptop_schema_sql, INDEX_MARKER);

	if (!p)
		return 0;
	return exec(l, p + strlen(INDEX_MARKER), "creating indexes");
}

/* ------------------------------------------------------------------ parts */

/* The parts with a loader (an_parts[] order): their statements prepared, their state
 * allocated, the payload cases they claim (the first part to claim a case has it),
 * sorted by case.
 * 0, -ENOMEM, or -errno with l->run.err filled. parts_close frees what it made. */
static int parts_open(struct loader *l)
{
	size_t n = 0, claims = 0;
	int rc;

	for (const struct an_part *const *p = an_parts; *p; p++) {
		if (!(*p)->load)
			continue;
		n++;
		for (const struct an_load_payload *c = (*p)->load->payloads; c && c->load; c++)
			claims++;
	}
	l->parts = calloc(n ? n : 1, sizeof(*l->parts));
	l->claims = calloc(claims ? claims : 1, sizeof(*l->claims));
	if (!l->parts || !l->claims)
		return -ENOMEM;
	for (const struct an_part *const *p = an_parts; *p; p++) {
		const struct an_load *load = (*p)->load;
		struct part_load *pl;

		if (!load)
			continue;
		pl = &l->parts[l->n_parts++];
		pl->load = load;
		pl->ctx.run = &l->run;
		pl->st = calloc(load->n_stmts ? load->n_stmts : 1, sizeof(*pl->st));
		if (!pl->st)
			return -ENOMEM;
		pl->ctx.st = pl->st;
		if (load->state_size) {
			pl->ctx.state = calloc(1, load->state_size);
			if (!pl->ctx.state)
				return -ENOMEM;
		}
		for (size_t k = 0; k < load->n_stmts; k++) {
			rc = prepare_insert(l->run.db, load->stmts[k], &pl->st[k]);
			if (rc != SQLITE_OK)
				return db_fail(l, rc, PREPARE_FAILED);
		}
		for (const struct an_load_payload *c = load->payloads; c && c->load; c++) {
			size_t at = l->n_claims;

			for (size_t k = 0; k < l->n_claims; k++)
				if (l->claims[k].p->payload >= c->payload && at == l->n_claims)
					at = k;
			if (at < l->n_claims && l->claims[at].p->payload == c->payload &&
			    c->payload != PTOP__V1__EVENT__PAYLOAD_COLLECTOR_PAYLOAD)
				continue; /* claimed by an earlier part */
			memmove(&l->claims[at + 1], &l->claims[at],
				(l->n_claims - at) * sizeof(*l->claims));
			l->claims[at] =
			    (struct claim){.p = c, .collector = (*p)->name, .ctx = &pl->ctx};
			l->n_claims++;
		}
	}
	return 0;
}

/* Each part's start hook, after the header's rows. 0 or -errno. */
static int parts_start(struct loader *l, const Ptop__V1__CaptureHeader *h)
{
	int err = 0;

	for (size_t k = 0; k < l->n_parts && !err; k++)
		if (l->parts[k].load->start)
			err = l->parts[k].load->start(&l->parts[k].ctx, h);
	return err;
}

static void parts_close(struct loader *l)
{
	for (size_t k = 0; k < l->n_parts; k++) {
		struct part_load *pl = &l->parts[k];

		if (pl->load->free && pl->ctx.state)
			pl->load->free(&pl->ctx);
		for (size_t i = 0; pl->st && i < pl->load->n_stmts; i++)
			sqlite3_finalize(pl->st[i]);
		free(pl->st);
		free(pl->ctx.state);
	}
	free(l->parts);
	free(l->claims);
}

/* -------------------------------------------------------------------- API */

/* ------------------------------------------------------------- progress */

static bool progress_on;

void db__load_progress(bool on)
{
	progress_on = on;
}

bool db__progress_wanted(int argc, char **argv, bool stdout_tty, bool stderr_tty)
{
	if (!stdout_tty || !stderr_tty)
		return false;
	for (int k = 1; k < argc; k++) {
		if (!strcmp(argv[k], "--format=json"))
			return false;
		if (!strcmp(argv[k], "--format") && k + 1 < argc && !strcmp(argv[k + 1], "json"))
			return false;
	}
	return true;
}

void db__progress_line(char *buf, size_t len, const char *name, uint64_t records,
		       uint64_t bytes, uint64_t total, double elapsed_s)
{
	char r[32], b[32], t[32], rate[32];
	const char *base = strrchr(name, '/') ? strrchr(name, '/') + 1 : name;
	double bps = elapsed_s > 0 ? (double)bytes / elapsed_s : 0;

	fmt_count(r, sizeof(r), records);
	fmt_bytes(b, sizeof(b), bytes);
	if (!total || bytes > total) {
		snprintf(buf, len, "loading %s: %s records, %s read", base, r, b);
		return;
	}
	fmt_bytes(t, sizeof(t), total);
	fmt_bytes(rate, sizeof(rate), (uint64_t)bps);
	snprintf(buf, len, "loading %s: %s records, %s of %s (%.0f%%), %s/s, %.0f s left", base,
		 r, b, t, 100.0 * (double)bytes / (double)total, rate,
		 bps > 0 ? (double)(total - bytes) / bps : 0.0);
}

struct progress {
	double start, last; /* CLOCK_MONOTONIC seconds: the load's start, the last line */
};

static double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The progress line on stderr once the load has run a second, four times a second at
 * most. Whether it printed. */
static bool progress_tick(struct progress *pg, const char *name, uint64_t records, uint64_t bytes,
			  uint64_t total)
{
	double now = mono_s();
	char line[256];

	if (now - pg->start < 1.0 || now - pg->last < 0.25)
		return false;
	pg->last = now;
	db__progress_line(line, sizeof(line), name, records, bytes, total, now - pg->start);
	fprintf(stderr, "\r%s\033[K", line);
	fflush(stderr);
	return true;
}

/* One load, from the open file to its end, in steps: a whole load is one step
 * (db__load_capture); a followed one (db__follow_*) commits what has arrived at each step
 * and goes on at the next where it stopped, its parts' states and the chunks still
 * waiting kept in between. */
struct load_job {
	struct loader l;
	struct capture_follow fl;
	bool fl_open;
	char *real;
	struct stat st;
	bool indexed;	/* the indexes made (a followed load makes them at its first step) */
	bool counted;	/* record_count rows written by an earlier step */
	bool followed;	/* a followed load (db__follow_open) */
	struct progress pg;
	bool shown;	/* the progress line was shown */
};

static void job_free(struct load_job *j)
{
	struct loader *l = &j->l;

	if (j->shown)
		fputs("\r\033[K", stderr); /* the line goes: what follows is the command's */
	for (int k = 0; k < ST_N; k++)
		sqlite3_finalize(l->st[k]);
	for (size_t k = 0; k < l->n_asm; k++)
		assembly_free(&l->asm_[k]);
	free(l->asm_);
	free(l->run.json);
	parts_close(l);
	if (j->fl_open)
		follow__close(&j->fl);
	free(j->real);
}

/* Open the file, read its header, and in a transaction (left open: *IN_TX) put the
 * capture's first rows: the header's. 0, -errno with the message in ERR; with *EXISTS and
 * no REPLACE nothing is done (the caller rolls back). */
static int job_begin(struct load_job *j, sqlite3 *db, const char *path, bool replace, bool follow,
		     uint64_t timeout_ns, char capture_id[DB_CAPTURE_ID_LEN], bool *exists,
		     bool *in_tx, char *err, size_t errlen)
{
	struct loader *l = &j->l;
	Ptop__V1__Record *rec = NULL;
	int rc, ret = 0;

	l->run = (struct load_run){.db = db, .path = path, .err = err, .errlen = errlen};
	j->pg.start = mono_s();
	j->real = realpath(path, NULL);
	if (!j->real || stat(j->real, &j->st)) {
		ret = -errno;
		snprintf(err, errlen, "cannot open %s: %s", path, strerror(errno));
		return ret;
	}
	ret = follow__open(&j->fl, j->real, follow, timeout_ns);
	j->fl_open = !ret;
	if (ret) {
		if (ret == -EBADMSG)
			snprintf(err, errlen, "%s is not a ptop capture (no PTOPCAP magic frame)",
				 path);
		else if (ret == -ENOTSUP)
			snprintf(err, errlen,
				 "%s: the capture format is newer than this ptop-analyze reads "
				 "(format version %d): use a newer ptop-analyze",
				 path, CAPTURE_FORMAT_VERSION);
		else
			snprintf(err, errlen, "cannot open %s: %s", path, strerror(-ret));
		return ret;
	}

	/* The first record must be the header: it names the capture. A followed file
	 * may not have it yet. */
	while ((rc = follow__next(&j->fl, &rec)) == FOLLOW_WAIT)
		follow__nap();
	if (rc < 0) {
		snprintf(err, errlen, "reading %s: %s", path, strerror(-rc));
		return rc;
	}
	if (rc == FOLLOW_END || rec->kind_case != PTOP__V1__RECORD__KIND_HEADER || !rec->header) {
		const char *why = rc == FOLLOW_END ? follow__status(&j->fl)->message : "";

		snprintf(err, errlen,
			 "%s: no capture header at the start of the file%s%s: nothing loaded (the "
			 "file is corrupt)",
			 path, *why ? ": " : "", why);
		ret = -EBADMSG;
		goto cleanup;
	}
	if (rec->header->capture_id.len != 16) {
		ret = -EBADMSG;
		snprintf(err, errlen,
			 "%s: the header's capture id is %zu bytes, not 16: nothing loaded (the "
			 "file is corrupt)",
			 path, rec->header->capture_id.len);
		goto cleanup;
	}
	for (int k = 0; k < 16; k++)
		snprintf(l->id + 2 * k, 3, "%02x", rec->header->capture_id.data[k]);
	if (capture_id)
		memcpy(capture_id, l->id, DB_CAPTURE_ID_LEN);

	rc = sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
	if (rc != SQLITE_OK) {
		ret = db_fail(l, rc, "starting a transaction");
		goto cleanup;
	}
	*in_tx = true;

	ret = capture_exists(l, exists);
	if (ret || (*exists && !replace))
		goto cleanup; /* rolled back: nothing was written */
	if (*exists) { /* replace: its rows go, the capture comes back with a new cap */
		ret = delete_capture(l);
		if (ret)
			goto cleanup;
	}

	for (int k = 0; k < ST_N; k++) {
		rc = prepare_insert(db, stmt_sql[k], &l->st[k]);
		if (rc != SQLITE_OK) {
			ret = db_fail(l, rc, PREPARE_FAILED);
			goto cleanup;
		}
	}
	ret = parts_open(l);
	if (ret)
		goto cleanup;

	l->records = 1;
	l->counts[K_HEADER] = 1;
	ret = load_header(l, rec->header, &j->st, j->real);
	ret = ret ?: parts_start(l, rec->header);
cleanup:
	if (rec)
		ptop__v1__record__free_unpacked(rec, NULL);
	return ret;
}

/* Load the records there are, to the end (FOLLOW_END) or, following, to what has
 * arrived so far (FOLLOW_WAIT): that, or -errno with the message in the loader's err. */
static int job_read(struct load_job *j, bool progress)
{
	struct loader *l = &j->l;
	Ptop__V1__Record *rec = NULL;
	int rc, ret;

	while ((rc = follow__next(&j->fl, &rec)) == FOLLOW_RECORD) {
		l->records++;
		ret = load_record(l, rec);
		ptop__v1__record__free_unpacked(rec, NULL);
		rec = NULL;
		if (ret)
			return ret;
		if (progress && !(l->records & 4095))
			j->shown |= progress_tick(&j->pg, j->real, l->records,
						  capture_reader__frame_offset(j->fl.r),
						  (uint64_t)j->st.st_size);
	}
	if (rc < 0)
		snprintf(l->run.err, l->run.errlen, "reading %s: %s", l->run.path, strerror(-rc));
	return rc;
}

/* The record_count rows (again: a followed load rewrites them at each step). */
static int put_counts(struct load_job *j)
{
	struct loader *l = &j->l;
	int err = 0;

	if (j->counted) {
		char sql[96];

		snprintf(sql, sizeof(sql), "DELETE FROM record_count WHERE cap = %lld",
			 (long long)l->run.cap);
		err = exec(l, sql, "rewriting the record counts");
	}
	j->counted = true;
	/* the header, the parts' event kinds, then the others */
	err = err ?: put_count(l, kind_name[K_HEADER], l->counts[K_HEADER]);
	for (size_t k = 0; k < l->n_claims && !err; k++)
		err = put_count(l, l->claims[k].p->kind, l->claims[k].count);
	for (int k = K_HEADER + 1; k < K_N && !err; k++)
		err = put_count(l, kind_name[k], l->counts[k]);
	return err;
}

/* A followed file's size and time now on the capture row (source_size, source_mtime_ns:
 * at the end, those of the file read whole). */
static int source_stat(struct load_job *j)
{
	struct loader *l = &j->l;
	sqlite3_stmt *s = NULL;
	int rc;

	if (fstat(j->fl.fd, &j->st))
		return -errno;
	rc = sqlite3_prepare_v2(l->run.db,
				"UPDATE capture SET source_size = ?2, source_mtime_ns = ?3 "
				"WHERE cap = ?1",
				-1, &s, NULL);
	if (rc != SQLITE_OK)
		return db_fail(l, rc, "updating the capture row");
	sqlite3_bind_int64(s, 1, l->run.cap);
	bind_i64(s, 2, j->st.st_size);
	bind_i64(s, 3, (int64_t)j->st.st_mtim.tv_sec * 1000000000 + j->st.st_mtim.tv_nsec);
	rc = sqlite3_step(s);
	sqlite3_finalize(s);
	return rc == SQLITE_DONE ? 0 : db_fail(l, rc, "updating the capture row");
}

/* The end of the load (in its transaction): the chunks still waiting, the rows the
 * checks refuse, the capture's end, the counts, the indexes, the stack copies unwound. */
static int job_end(struct load_job *j, struct load_stats *stats, char *err, size_t errlen)
{
	struct loader *l = &j->l;
	struct capture_status end = *follow__status(&j->fl);
	const struct capture_status *cs = &end;
	int ret = 0;

	if (j->followed && !end.has_index) {
		/* the reader looked for the time index when the file was opened, before
		 * the recorder wrote it: look again at the file as it is now */
		struct capture_reader *again = capture_reader__open_fd(j->fl.fd);

		end.has_index = again && capture_reader__status(again)->has_index;
		capture_reader__free(again);
	}

	if (cs->skipped) /* the reader's: records that are no Record at all */
		ret = note_skipped(l, 0, "capture", LOAD_SKIP_UNDECODABLE, cs->skipped,
				   "records that do not decode (the capture is damaged there), "
				   "skipped at load");
	ret = ret ?: flush_chunks(l);
	ret = ret ?: drop_bad_rows(l);
	ret = ret ?: finish(l, cs, stats);
	if (!ret && j->followed)
		ret = source_stat(j);
	ret = ret ?: put_counts(j);
	if (!ret && !j->indexed)
		ret = create_indexes(l);
	if (!ret)
		ret = unwind_copies(l, err, errlen);
	return ret;
}

static int commit(struct loader *l, bool *in_tx)
{
	int rc = sqlite3_exec(l->run.db, "COMMIT", NULL, NULL, NULL);

	if (rc != SQLITE_OK)
		return db_fail(l, rc, "committing");
	*in_tx = false;
	return 0;
}

static void put_stats(const struct load_job *j, struct load_stats *stats)
{
	if (!stats)
		return;
	stats->records = j->l.records;
	stats->rows = j->l.run.rows;
	stats->skipped = j->l.skipped + follow__status(&j->fl)->skipped;
	stats->bad_rows = j->l.bad_rows;
}

int db__load_capture(sqlite3 *db, const char *path, bool replace,
		     char capture_id[DB_CAPTURE_ID_LEN], struct load_stats *stats, char *err,
		     size_t errlen)
{
	struct load_job j = {0};
	bool in_tx = false, exists = false;
	int ret;

	if (stats)
		memset(stats, 0, sizeof(*stats));
	if (capture_id)
		capture_id[0] = 0;
	if (errlen)
		err[0] = 0;

	ret = job_begin(&j, db, path, replace, false, 0, capture_id, &exists, &in_tx, err, errlen);
	if (!ret && exists && !replace) {
		if (stats)
			stats->already_loaded = true;
		goto cleanup;
	}
	if (!ret) {
		ret = job_read(&j, progress_on);
		ret = ret < 0 ? ret : 0;
	}
	ret = ret ?: job_end(&j, stats, err, errlen);
	ret = ret ?: commit(&j.l, &in_tx);
	if (!ret)
		put_stats(&j, stats);
cleanup:
	if (ret && errlen && !err[0]) /* the paths that return -ENOMEM say nothing */
		snprintf(err, errlen, "loading %s: %s", path, strerror(-ret));
	if (in_tx)
		sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
	job_free(&j);
	return ret;
}

/* ------------------------------------------------------------- following */

struct db_follow {
	struct load_job j;
	bool done;
	char err[512];
};

/* What a followed load has so far, on the capture row: its events' span, records and
 * frames; read_end stays 'reading' and complete 0 until the end. */
static int interim(struct db_follow *f)
{
	struct loader *l = &f->j.l;
	sqlite3_stmt *s = NULL;
	int rc, err;

	rc = sqlite3_prepare_v2(l->run.db,
				"UPDATE capture SET first_event_ns = ?2, last_event_ns = ?3, "
				"frames = ?4, records = ?5 WHERE cap = ?1",
				-1, &s, NULL);
	if (rc != SQLITE_OK)
		return db_fail(l, rc, "updating the capture row");
	sqlite3_bind_int64(s, 1, l->run.cap);
	if (l->have_events) {
		bind_u64(s, 2, l->first_ns);
		bind_u64(s, 3, l->last_ns);
	}
	bind_u64(s, 4, follow__status(&f->j.fl)->frames);
	bind_u64(s, 5, l->records);
	rc = sqlite3_step(s);
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE)
		return db_fail(l, rc, "updating the capture row");
	err = source_stat(&f->j);
	err = err ?: put_counts(&f->j);
	if (!err && !f->j.indexed) {
		/* before the rest of the data, so that a reader's queries between the
		 * steps use them; the rows are the same either way */
		err = create_indexes(l);
		f->j.indexed = !err;
	}
	return err;
}

int db__follow_open(sqlite3 *db, const char *path, uint64_t timeout_ns, struct db_follow **out,
		    char capture_id[DB_CAPTURE_ID_LEN], char *err, size_t errlen)
{
	struct db_follow *f = calloc(1, sizeof(*f));
	bool in_tx = false, exists = false;
	int ret;

	*out = NULL;
	if (errlen)
		err[0] = 0;
	if (!f) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	f->j.followed = true;
	ret = job_begin(&f->j, db, path, false, true, timeout_ns, capture_id, &exists, &in_tx,
			f->err, sizeof(f->err));
	if (!ret && exists) {
		ret = -EEXIST;
		snprintf(f->err, sizeof(f->err), "%s: capture %s is already in the DB", path,
			 f->j.l.id);
	}
	ret = ret ?: interim(f);
	ret = ret ?: commit(&f->j.l, &in_tx);
	if (in_tx)
		sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
	if (ret) {
		if (!f->err[0])
			snprintf(f->err, sizeof(f->err), "loading %s: %s", path, strerror(-ret));
		snprintf(err, errlen, "%s", f->err);
		db__follow_free(f);
		return ret;
	}
	*out = f;
	return 0;
}

int db__follow_step(struct db_follow *f, struct load_stats *stats, char *err, size_t errlen)
{
	struct loader *l = &f->j.l;
	uint64_t records = l->records;
	bool in_tx = false;
	int rc, ret;

	if (errlen)
		err[0] = 0;
	if (f->done)
		return DB_FOLLOW_END;
	f->err[0] = 0;
	rc = sqlite3_exec(l->run.db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
	if (rc != SQLITE_OK) {
		ret = db_fail(l, rc, "starting a transaction");
		goto fail;
	}
	in_tx = true;
	ret = job_read(&f->j, false);
	if (ret == FOLLOW_END) {
		if (stats)
			memset(stats, 0, sizeof(*stats));
		ret = job_end(&f->j, stats, f->err, sizeof(f->err));
		ret = ret ?: commit(l, &in_tx);
		if (ret)
			goto fail;
		put_stats(&f->j, stats);
		f->done = true;
		return DB_FOLLOW_END;
	}
	if (ret < 0)
		goto fail;
	if (l->records == records) { /* nothing new */
		sqlite3_exec(l->run.db, "ROLLBACK", NULL, NULL, NULL);
		return DB_FOLLOW_SAME;
	}
	ret = interim(f);
	ret = ret ?: commit(l, &in_tx);
	if (ret)
		goto fail;
	return DB_FOLLOW_GREW;
fail:
	if (in_tx)
		sqlite3_exec(l->run.db, "ROLLBACK", NULL, NULL, NULL);
	if (!f->err[0])
		snprintf(f->err, sizeof(f->err), "loading %s: %s", l->run.path, strerror(-ret));
	snprintf(err, errlen, "%s", f->err);
	f->done = true; /* the rows of this step are gone: no step after it */
	return ret;
}

void db__follow_free(struct db_follow *f)
{
	if (!f)
		return;
	job_free(&f->j);
	free(f);
}
