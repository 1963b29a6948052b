/* load.c — loads one capture file into the analyzer's SQLite DB: every record
 * through the capture reader, one transaction, prepared statements bound and
 * reset per row, the schema's indexes built after the data.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>

#include "analyze/db.h"
#include "proto/capture.h"
#include "proto/names.h"
#include "proto/syscall_table.h"

extern const char ptop_schema_sql[];

/* the marker is a line of its own (the header comment also names it, in quotes) */
#define INDEX_MARKER "\n-- @@ indexes @@\n"

/* ------------------------------------------------------------- statements */

enum stmt_id {
	ST_CAPTURE,
	ST_TARGET,
	ST_PROBE,
	ST_PROBE_CHANGE,
	ST_RECORD_COUNT,
	ST_CPU,
	ST_SYSCALL,
	ST_MEMORY,
	ST_VMA_SNAPSHOT,
	ST_VMA,
	ST_VMA_FILE,
	ST_CONTEXT,
	ST_NAMESPACE,
	ST_STACK,
	ST_MAPPING,
	ST_DROP,
	ST_DROP_TOTAL,
	ST_TRAILER,
	ST_END,
	ST_PERF_MAP,
	ST_MODULE_SYMBOLS,
	ST_CPU_PROFILE,
	ST_CPU_PROFILE_STACK,
	ST_CPU_PROFILE_PROCESS,
	ST_HEAP_SNAPSHOT,
	ST_HEAP_SITE,
	ST_HEAP_EVENT,
	ST_CGROUP,
	ST_CGROUP_STAT,
	ST_CGROUP_PSI,
	ST_CGROUP_PROC,
	ST_N
};

static const char *const stmt_sql[ST_N] = {
	[ST_CAPTURE] = "INSERT INTO capture (capture_id, format_version, recorder_version, "
		       "recorder_commit, recorder_build_date, hostname, kernel_release, "
		       "kernel_version, boot_id, machine, cpus, page_size, clock_tick, "
		       "start_monotonic_ns, start_realtime_ns, start_boottime_ns, recorder_argv, "
		       "interval_ns, vma_interval_ns, flush_interval_ns, duration_ns, no_ebpf, "
		       "disabled, complete, read_end, source_path, source_size, source_mtime_ns, "
		       "loaded_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, "
		       "?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22, ?23, 0, 'reading', ?24, ?25, "
		       "?26, ?27)",
	[ST_TARGET] = "INSERT INTO target (cap, mode, pid, comm, exe, exe_build_id, "
		      "cmdline, cgroup_path, cgroup_id, container_id, exe_build_id_kind) "
		      "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
	[ST_PROBE] = "INSERT OR IGNORE INTO probe (cap, seq, name, state, source, reason, "
		     "detail) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
	[ST_PROBE_CHANGE] = "INSERT INTO probe_change (cap, seq, time_ns, name, state, source, "
			    "reason, detail, cause) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
	[ST_RECORD_COUNT] = "INSERT INTO record_count (cap, kind, count) VALUES (?1, ?2, ?3)",
	[ST_CPU] = "INSERT INTO cpu_sample (cap, time_ns, interval_ns, pid, oncpu_ns, "
		   "switches, user_ns, system_ns, threads, voluntary_switches, "
		   "involuntary_switches, user_ticks_total, system_ticks_total, cg_usage_ns, "
		   "cg_user_ns, cg_system_ns, cg_periods, cg_throttled_periods, cg_throttled_ns) "
		   "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, "
		   "?17, ?18, ?19)",
	[ST_SYSCALL] = "INSERT INTO syscall_stat (cap, time_ns, interval_ns, pid, nr, name, "
		       "count, completed, errors, total_ns, unmatched, latency_hist) "
		       "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
	[ST_MEMORY] = "INSERT INTO memory_sample (cap, time_ns, interval_ns, pid, vsize, "
		      "statm_rss, statm_shared, statm_text, statm_data, rss, pss, uss, pss_anon, "
		      "pss_file, pss_shmem, shared_clean, shared_dirty, private_clean, "
		      "private_dirty, anon, swap, swap_pss, locked, rollup_read_ns, minflt, "
		      "majflt, minflt_total, majflt_total, smaps_budget_ns, smaps_spent_ns, "
		      "rollup_skipped) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, "
		      "?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22, ?23, ?24, ?25, ?26, ?27, "
		      "?28, ?29, ?30, ?31)",
	[ST_VMA_SNAPSHOT] = "INSERT INTO vma_snapshot (cap, snapshot_id, time_ns, pid, "
			    "walk_ns, final, vma_count, budget_ns, skipped_walks) "
			    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
	[ST_VMA] = "INSERT INTO vma_entry (cap, snapshot_id, start, end, offset, file_id, size, "
		   "rss, pss, uss, shared_clean, shared_dirty, anon, swap, swap_pss, locked) "
		   "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16)",
	[ST_VMA_FILE] = "INSERT INTO vma_file (cap, file_id, perms, dev, inode, path) "
			"VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
	[ST_CONTEXT] = "INSERT INTO proc_context (cap, time_ns, pid, ppid, comm, uid, euid, "
		       "gid, egid, cgroup_path, cgroup_id, container_id, nspid) "
		       "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)",
	[ST_NAMESPACE] = "INSERT INTO namespace (cap, time_ns, pid, type, inode) "
			 "VALUES (?1, ?2, ?3, ?4, ?5)",
	[ST_STACK] = "INSERT OR IGNORE INTO stack (cap, stack_id, kernel, depth, ips) "
		     "VALUES (?1, ?2, ?3, ?4, ?5)",
	[ST_MAPPING] = "INSERT INTO mapping (cap, time_ns, pid, start, end, offset, path, "
		       "build_id, perms, inode, dev, build_id_error, event, build_id_kind, "
		       "elf_vaddr) "
		       "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)",
	[ST_PERF_MAP] = "INSERT INTO perf_map (cap, pid, time_ns, path, content, chunks, "
			"complete) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
	[ST_MODULE_SYMBOLS] = "INSERT INTO module_symbols (cap, build_id, path, debug, size, elf, "
			      "chunks, complete, build_id_kind) "
			      "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
	[ST_CPU_PROFILE] = "INSERT INTO cpu_profile (cap, seq, time_ns, interval_ns, pid, "
			   "requested_hz, ticks, delivered_hz, cpus, samples, no_user_stack, "
			   "no_kernel_stack, lost) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, "
			   "?11, ?12, ?13)",
	[ST_CPU_PROFILE_STACK] = "INSERT INTO cpu_profile_stack (cap, seq, user_stack_id, "
				 "kernel_stack_id, count, pid) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
	/* OR IGNORE: a pid named twice in one event keeps its first name */
	[ST_CPU_PROFILE_PROCESS] = "INSERT OR IGNORE INTO cpu_profile_process (cap, seq, pid, "
				   "comm) VALUES (?1, ?2, ?3, ?4)",
	[ST_HEAP_SNAPSHOT] = "INSERT INTO heap_snapshot (cap, seq, time_ns, interval_ns, pid, "
			     "lane, module, sample_bytes, live_measured, alloc_count, alloc_bytes, "
			     "free_count, free_bytes, live_bytes, live_count, leak_bytes, "
			     "leak_count, leak_age_ns, sites, total_call_sites, "
			     "omitted_alloc_count, omitted_alloc_bytes, omitted_live_bytes, "
			     "live_untracked, stack_failures, free_untracked) VALUES (?1, ?2, ?3, "
			     "?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, "
			     "?19, ?20, ?21, ?22, ?23, ?24, ?25, ?26)",
	[ST_HEAP_SITE] = "INSERT INTO heap_site (cap, seq, stack_id, alloc_count, alloc_bytes, "
			 "live_count, live_bytes, freed_count, lifetime_ns_sum, oldest_live_ns) "
			 "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
	[ST_HEAP_EVENT] = "INSERT INTO heap_event (cap, time_ns, pid, tid, kind, address, size, "
			  "stack_id, function) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
	[ST_CGROUP] = "INSERT INTO cgroup_sample (cap, seq, time_ns, interval_ns, path, lane, "
		      "v1_path, current, limit_bytes, peak, oom_delta, oom_kill_delta, "
		      "oom_kill_total, high_delta, max_delta, failcnt_delta, under_oom, processes, "
		      "covered, denied, gone, skipped, walk_ns, budget_ns) VALUES (?1, ?2, ?3, ?4, "
		      "?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, "
		      "?21, ?22, ?23, ?24)",
	[ST_CGROUP_STAT] = "INSERT INTO cgroup_stat (cap, seq, key, value) VALUES (?1, ?2, ?3, ?4)",
	[ST_CGROUP_PSI] = "INSERT INTO cgroup_psi (cap, seq, resource, kind, avg10, avg60, avg300, "
			  "total_us, total_delta_us) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
	[ST_CGROUP_PROC] = "INSERT INTO cgroup_proc (cap, seq, pid, comm, exe, unit, cgroup_path, "
			   "state, rss, pss, uss, swap, read_ns) VALUES (?1, ?2, ?3, ?4, ?5, ?6, "
			   "?7, ?8, ?9, ?10, ?11, ?12, ?13)",
	[ST_DROP] = "INSERT INTO drop_notice (cap, time_ns, collector, kind, lost, detail) "
		    "VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
	[ST_DROP_TOTAL] = "INSERT INTO drop_total (cap, collector, kind, lost) "
			  "VALUES (?1, ?2, ?3, ?4)",
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
	K_EV_CPU,
	K_EV_SYSCALLS,
	K_EV_MEMORY,
	K_EV_VMAS,
	K_EV_CONTEXT,
	K_EV_CPUPROF,
	K_EV_HEAP,
	K_EV_HEAP_EVENT,
	K_EV_CGROUP,
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
	[K_EV_CPU] = "event:cpu",
	[K_EV_SYSCALLS] = "event:syscalls",
	[K_EV_MEMORY] = "event:memory",
	[K_EV_VMAS] = "event:vmas",
	[K_EV_CONTEXT] = "event:context",
	[K_EV_CPUPROF] = "event:cpuprof",
	[K_EV_HEAP] = "event:heap",
	[K_EV_HEAP_EVENT] = "event:heap_event",
	[K_EV_CGROUP] = "event:cgroup",
	[K_EV_NONE] = "event:none",       /* an event without a payload this build knows */
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

/* The vma_file rows of this load, found by their (perms, dev, inode, path):
 * an open-addressing table of keys, each owned by it. */
struct vma_file_slot {
	char *key;		/* NULL: empty slot */
	size_t len;
	uint64_t hash;
	int64_t file_id;
};

struct vma_files {
	struct vma_file_slot *slot;
	size_t cap, n;		/* cap: a power of two, or 0 */
	char *scratch;		/* the key being looked up */
	size_t scratch_cap;
};

struct loader {
	sqlite3 *db;
	struct assembly *asm_;	/* joins in progress */
	size_t n_asm;
	int64_t next_profile;
	int64_t next_heap;
	int64_t next_cgroup;	/* cgroup_sample.seq */
	int64_t next_probe_change; /* probe_change.seq */
	sqlite3_stmt *st[ST_N];
	const char *path;
	char id[DB_CAPTURE_ID_LEN];
	int64_t cap;	/* capture.cap: the key every other row carries */
	uint64_t rows;		/* rows as SQL sees them: a histogram bucket is a syscall_hist row */
	uint64_t records;
	struct vma_files files;	/* vma_file rows of this load */
	char *json;		/* a JSON array column being built; grows, freed at the end */
	size_t json_cap;
	uint64_t counts[K_N];
	bool have_events;
	uint64_t first_ns, last_ns;
	int64_t next_snapshot;
	bool have_trailer;
	const struct syscall_table *sc_table; /* of the header's Host.machine; NULL: none */
	char *err;
	size_t errlen;
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

static int db_fail(struct loader *l, int rc, const char *what)
{
	snprintf(l->err, l->errlen, "loading %s: %s: %s", l->path, what, sqlite3_errmsg(l->db));
	return sqlite_errno(rc);
}

static inline void bind_u64(sqlite3_stmt *s, int i, uint64_t v)
{
	/* u64 values are stored as their 64-bit pattern (see ptop-capture(5)) */
	sqlite3_bind_int64(s, i, (sqlite3_int64)v);
}

static inline void bind_i64(sqlite3_stmt *s, int i, int64_t v)
{
	sqlite3_bind_int64(s, i, v);
}

/* An optional string: NULL when absent or empty. */
static inline void bind_opt_text(sqlite3_stmt *s, int i, const char *v)
{
	if (v && *v)
		sqlite3_bind_text(s, i, v, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(s, i);
}

/* A string that is always there ('' stays ''). */
static inline void bind_text(sqlite3_stmt *s, int i, const char *v)
{
	sqlite3_bind_text(s, i, v ? v : "", -1, SQLITE_STATIC);
}

/* 0 means "not there" for this value (pid of a cgroup aggregate, interval of a
 * point-in-time record, an unknown time). */
static inline void bind_nz(sqlite3_stmt *s, int i, uint64_t v)
{
	if (v)
		bind_u64(s, i, v);
	else
		sqlite3_bind_null(s, i);
}

static inline void bind_pid(sqlite3_stmt *s, int i, int32_t pid)
{
	if (pid)
		bind_i64(s, i, pid);
	else
		sqlite3_bind_null(s, i);
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

static int bind_json_ints(sqlite3_stmt *s, int i, const int32_t *v, size_t n)
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
static int run(struct loader *l, enum stmt_id id)
{
	sqlite3_stmt *s = l->st[id];
	int rc = sqlite3_step(s);

	if (rc != SQLITE_DONE) {
		sqlite3_reset(s);
		return db_fail(l, rc, "insert");
	}
	l->rows += (uint64_t)sqlite3_changes(l->db);
	sqlite3_reset(s);
	return 0;
}

static int exec(struct loader *l, const char *sql, const char *what)
{
	int rc = sqlite3_exec(l->db, sql, NULL, NULL, NULL);

	return rc == SQLITE_OK ? 0 : db_fail(l, rc, what);
}

/* ---------------------------------------------------------------- records */

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
	l->sc_table = syscall_table__find(host ? host->machine : NULL);
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
	} else {
		for (int i = 17; i <= 23; i++)
			sqlite3_bind_null(s, i);
	}
	bind_text(s, 24, realpath_);
	bind_i64(s, 25, st->st_size);
	bind_i64(s, 26, (int64_t)st->st_mtim.tv_sec * 1000000000 + st->st_mtim.tv_nsec);
	bind_text(s, 27, loaded_at);
	err = run(l, ST_CAPTURE);
	if (err)
		return err;
	l->cap = sqlite3_last_insert_rowid(l->db); /* every other row carries it */

	s = l->st[ST_TARGET];
	sqlite3_bind_int64(s, 1, l->cap);
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
		sqlite3_bind_int64(s, 1, l->cap);
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
	}
	return 0;
}

/* The columns every event table starts with: cap, time_ns[, interval_ns], pid. */
static void bind_envelope(struct loader *l, sqlite3_stmt *s, const Ptop__V1__Event *ev,
			  bool interval)
{
	int i = 1;

	sqlite3_bind_int64(s, i++, l->cap);
	bind_u64(s, i++, ev->time_ns);
	if (interval)
		bind_nz(s, i++, ev->interval_ns);
	bind_pid(s, i, ev->pid);
}

static int load_cpu(struct loader *l, const Ptop__V1__Event *ev, const Ptop__V1__CpuSample *c)
{
	sqlite3_stmt *s = l->st[ST_CPU];

	bind_envelope(l, s, ev, true);
	if (c->ebpf) {
		bind_u64(s, 5, c->ebpf->oncpu_ns);
		bind_u64(s, 6, c->ebpf->switches);
	} else {
		sqlite3_bind_null(s, 5);
		sqlite3_bind_null(s, 6);
	}
	if (c->proc) {
		bind_u64(s, 7, c->proc->user_ns);
		bind_u64(s, 8, c->proc->system_ns);
		bind_u64(s, 9, c->proc->threads);
		bind_u64(s, 10, c->proc->voluntary_switches);
		bind_u64(s, 11, c->proc->involuntary_switches);
		bind_u64(s, 12, c->proc->user_ticks_total);
		bind_u64(s, 13, c->proc->system_ticks_total);
	} else {
		for (int i = 7; i <= 13; i++)
			sqlite3_bind_null(s, i);
	}
	/* the cgroup lane (cpu.stat); its throttling counters only when they were read */
	if (c->cgroup) {
		bind_u64(s, 14, c->cgroup->usage_ns);
		bind_u64(s, 15, c->cgroup->user_ns);
		bind_u64(s, 16, c->cgroup->system_ns);
	} else {
		for (int i = 14; i <= 16; i++)
			sqlite3_bind_null(s, i);
	}
	if (c->cgroup && c->cgroup->throttling) {
		bind_u64(s, 17, c->cgroup->periods);
		bind_u64(s, 18, c->cgroup->throttled_periods);
		bind_u64(s, 19, c->cgroup->throttled_ns);
	} else {
		for (int i = 17; i <= 19; i++)
			sqlite3_bind_null(s, i);
	}
	return run(l, ST_CPU);
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

/* Bind the N values V to parameter I as a JSON array of integers (each the
 * u64's bit pattern, as bind_u64 stores it), built in the loader's buffer:
 * no allocation per row. 0 or -ENOMEM. */
static int bind_json_u64s(struct loader *l, sqlite3_stmt *s, int i, const uint64_t *v, size_t n)
{
	size_t need = n * 21 + 3, len = 0; /* "-9223372036854775808," each, brackets, NUL */

	if (need > l->json_cap) {
		char *p = realloc(l->json, need);

		if (!p)
			return -ENOMEM;
		l->json = p;
		l->json_cap = need;
	}
	l->json[len++] = '[';
	for (size_t k = 0; k < n; k++) {
		if (k)
			l->json[len++] = ',';
		len += put_i64(l->json + len, (int64_t)v[k]);
	}
	l->json[len++] = ']';
	l->json[len] = 0;
	sqlite3_bind_text(s, i, l->json, (int)len, SQLITE_STATIC);
	return 0;
}

/* Bind the latency histogram of ST to parameter I (syscall_stat.latency_hist:
 * element i is bucket i, trailing zeros cut), NULL when every bucket is 0.
 * *BUCKETS gets the non-zero buckets: the syscall_hist rows it makes. */
static int bind_hist(struct loader *l, sqlite3_stmt *s, int i, const Ptop__V1__SyscallStat *st,
		     uint64_t *buckets)
{
	size_t n = st->n_latency_log2_hist;

	*buckets = 0;
	while (n && !st->latency_log2_hist[n - 1])
		n--;
	if (!n) {
		sqlite3_bind_null(s, i);
		return 0;
	}
	for (size_t b = 0; b < n; b++)
		*buckets += st->latency_log2_hist[b] != 0;
	return bind_json_u64s(l, s, i, st->latency_log2_hist, n);
}

static int load_syscalls(struct loader *l, const Ptop__V1__Event *ev,
			 const Ptop__V1__SyscallStats *ss)
{
	sqlite3_stmt *s = l->st[ST_SYSCALL];
	char fallback[24];
	uint64_t buckets;
	int err;

	for (size_t k = 0; k < ss->n_stats; k++) {
		const Ptop__V1__SyscallStat *st = ss->stats[k];
		const char *known;

		if (!st)
			continue;
		bind_envelope(l, s, ev, true);
		bind_u64(s, 5, st->nr);
		/* ptop's table for the recording machine names the number, whatever the
		 * recorder's own table knew (a recorder built on older headers stored
		 * "sys_335"); else the recorder's name, else "sys_N" */
		known = syscall_table__name(l->sc_table, st->nr);
		if (known) {
			bind_text(s, 6, known);
		} else if (st->name && *st->name) {
			bind_text(s, 6, st->name);
		} else {
			snprintf(fallback, sizeof(fallback), "sys_%" PRIu32, st->nr);
			sqlite3_bind_text(s, 6, fallback, -1, SQLITE_TRANSIENT);
		}
		bind_u64(s, 7, st->count);
		bind_u64(s, 8, st->completed);
		bind_u64(s, 9, st->errors);
		bind_u64(s, 10, st->total_ns);
		bind_u64(s, 11, st->unmatched);
		err = bind_hist(l, s, 12, st, &buckets);
		if (err)
			return err;
		err = run(l, ST_SYSCALL);
		if (err)
			return err;
		l->rows += buckets; /* the syscall_hist rows of the view */
	}
	return 0;
}

/* The rollup values to store as NULL: those the record says were not measured
 * (SmapsRollup.missing_fields, or missing in older files: proto/names.c reads them).
 * A bit is the position of a column among load_memory's rollup values (rss = 0 ...
 * read_ns = 14); uss is the sum of the two Private_* counters, so it goes with either. */
static uint32_t rollup_missing_bits(const Ptop__V1__SmapsRollup *r)
{
	static const uint32_t column_bits[] = {
		[PTOP__V1__SMAPS_FIELD__SMAPS_FIELD_PSS_ANON] = 1u << 3,
		[PTOP__V1__SMAPS_FIELD__SMAPS_FIELD_PSS_FILE] = 1u << 4,
		[PTOP__V1__SMAPS_FIELD__SMAPS_FIELD_PSS_SHMEM] = 1u << 5,
		[PTOP__V1__SMAPS_FIELD__SMAPS_FIELD_SHARED_CLEAN] = 1u << 6,
		[PTOP__V1__SMAPS_FIELD__SMAPS_FIELD_SHARED_DIRTY] = 1u << 7,
		[PTOP__V1__SMAPS_FIELD__SMAPS_FIELD_PRIVATE_CLEAN] = 1u << 8 | 1u << 2,
		[PTOP__V1__SMAPS_FIELD__SMAPS_FIELD_PRIVATE_DIRTY] = 1u << 9 | 1u << 2,
		[PTOP__V1__SMAPS_FIELD__SMAPS_FIELD_ANONYMOUS] = 1u << 10,
		[PTOP__V1__SMAPS_FIELD__SMAPS_FIELD_SWAP] = 1u << 11,
		[PTOP__V1__SMAPS_FIELD__SMAPS_FIELD_SWAP_PSS] = 1u << 12,
		[PTOP__V1__SMAPS_FIELD__SMAPS_FIELD_LOCKED] = 1u << 13,
	};
	uint32_t set = capture_smaps_missing(r), bits = 0;

	for (size_t f = 0; f < sizeof(column_bits) / sizeof(column_bits[0]); f++)
		if (set & 1u << f)
			bits |= column_bits[f];
	return bits;
}

static int load_memory(struct loader *l, const Ptop__V1__Event *ev,
		       const Ptop__V1__MemorySample *m)
{
	sqlite3_stmt *s = l->st[ST_MEMORY];
	const Ptop__V1__Statm *sm = m->statm;
	const Ptop__V1__SmapsRollup *r = m->rollup;
	const Ptop__V1__Faults *f = m->faults;
	int i;

	bind_envelope(l, s, ev, true);
	if (sm) {
		const uint64_t v[] = { sm->vsize, sm->rss, sm->shared, sm->text, sm->data };

		for (i = 0; i < 5; i++)
			bind_u64(s, 5 + i, v[i]);
	} else {
		for (i = 5; i <= 9; i++)
			sqlite3_bind_null(s, i);
	}
	if (r) {
		const uint64_t v[] = { r->rss,	     r->pss,	      r->uss,	       r->pss_anon,
				       r->pss_file,  r->pss_shmem,    r->shared_clean, r->shared_dirty,
				       r->private_clean, r->private_dirty, r->anon, r->swap,
				       r->swap_pss,  r->locked,	      r->read_ns };
		uint32_t missing = rollup_missing_bits(r); /* not measured: NULL, not 0 */

		for (i = 0; i < 15; i++) {
			if (missing & 1u << i)
				sqlite3_bind_null(s, 10 + i);
			else
				bind_u64(s, 10 + i, v[i]);
		}
	} else {
		for (i = 10; i <= 24; i++)
			sqlite3_bind_null(s, i);
	}
	if (f) {
		bind_u64(s, 25, f->minflt);
		bind_u64(s, 26, f->majflt);
		bind_u64(s, 27, f->minflt_total);
		bind_u64(s, 28, f->majflt_total);
	} else {
		for (i = 25; i <= 28; i++)
			sqlite3_bind_null(s, i);
	}
	if (m->budget) {
		bind_u64(s, 29, m->budget->budget_ns);
		bind_u64(s, 30, m->budget->spent_ns);
		bind_i64(s, 31, !!m->budget->rollup_skipped);
	} else {
		for (i = 29; i <= 31; i++)
			sqlite3_bind_null(s, i);
	}
	return run(l, ST_MEMORY);
}

static void vma_files__free(struct vma_files *f)
{
	for (size_t k = 0; k < f->cap; k++)
		free(f->slot[k].key);
	free(f->slot);
	free(f->scratch);
	memset(f, 0, sizeof(*f));
}

static uint64_t fnv1a_bytes(const char *p, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t k = 0; k < n; k++) {
		h ^= (unsigned char)p[k];
		h *= 0x100000001b3ull;
	}
	return h;
}

/* Append field S to the key being built: a marker byte (absent / present) and
 * the string with its NUL, so no two field lists make the same key. */
static int key_put(struct vma_files *f, size_t *len, const char *s, bool present)
{
	size_t n = present ? strlen(s) + 1 : 0;

	if (*len + n + 1 > f->scratch_cap) {
		size_t cap = f->scratch_cap ? f->scratch_cap : 256;
		char *p;

		while (cap < *len + n + 1)
			cap *= 2;
		p = realloc(f->scratch, cap);
		if (!p)
			return -ENOMEM;
		f->scratch = p;
		f->scratch_cap = cap;
	}
	f->scratch[(*len)++] = present ? 1 : 0;
	memcpy(f->scratch + *len, s, n);
	*len += n;
	return 0;
}

/* The vma_file row of V's (perms, dev, inode, path) as the loader stores them
 * (empty perms and dev are NULL, an empty path stays ''): found, or inserted
 * with the next file_id. 0 or -errno. */
static int vma_file_id(struct loader *l, const Ptop__V1__Vma *v, int64_t *id)
{
	struct vma_files *f = &l->files;
	sqlite3_stmt *s = l->st[ST_VMA_FILE];
	char inode[24];
	size_t len = 0, k;
	uint64_t h;
	int err;

	snprintf(inode, sizeof(inode), "%" PRIu64, v->inode);
	err = key_put(f, &len, v->perms ? v->perms : "", v->perms && *v->perms);
	err = err ?: key_put(f, &len, v->dev ? v->dev : "", v->dev && *v->dev);
	err = err ?: key_put(f, &len, inode, true);
	err = err ?: key_put(f, &len, v->path ? v->path : "", true);
	if (err)
		return err;
	h = fnv1a_bytes(f->scratch, len);
	for (k = f->cap ? h & (f->cap - 1) : 0; f->cap && f->slot[k].key; k = (k + 1) & (f->cap - 1)) {
		if (f->slot[k].hash == h && f->slot[k].len == len &&
		    !memcmp(f->slot[k].key, f->scratch, len)) {
			*id = f->slot[k].file_id;
			return 0;
		}
	}
	if (2 * (f->n + 1) > f->cap) { /* keep the table at most half full */
		size_t cap = f->cap ? 2 * f->cap : 64;
		struct vma_file_slot *slot = calloc(cap, sizeof(*slot));

		if (!slot)
			return -ENOMEM;
		for (size_t i = 0; i < f->cap; i++) {
			if (!f->slot[i].key)
				continue;
			for (k = f->slot[i].hash & (cap - 1); slot[k].key; k = (k + 1) & (cap - 1))
				;
			slot[k] = f->slot[i];
		}
		free(f->slot);
		f->slot = slot;
		f->cap = cap;
		for (k = h & (cap - 1); slot[k].key; k = (k + 1) & (cap - 1))
			;
	}
	f->slot[k].key = malloc(len);
	if (!f->slot[k].key)
		return -ENOMEM;
	memcpy(f->slot[k].key, f->scratch, len);
	f->slot[k].len = len;
	f->slot[k].hash = h;
	f->slot[k].file_id = (int64_t)++f->n;
	*id = f->slot[k].file_id;

	sqlite3_bind_int64(s, 1, l->cap);
	bind_i64(s, 2, *id);
	bind_opt_text(s, 3, v->perms);
	bind_opt_text(s, 4, v->dev);
	bind_u64(s, 5, v->inode);
	bind_text(s, 6, v->path);
	err = run(l, ST_VMA_FILE);
	if (!err)
		l->rows--; /* a part shared by vma rows, not a row of the vma view */
	return err;
}

static int load_vmas(struct loader *l, const Ptop__V1__Event *ev, const Ptop__V1__VmaSnapshot *vs)
{
	sqlite3_stmt *s = l->st[ST_VMA_SNAPSHOT];
	int64_t id = l->next_snapshot++, file_id;
	int err;

	sqlite3_bind_int64(s, 1, l->cap);
	bind_i64(s, 2, id);
	bind_u64(s, 3, ev->time_ns);
	bind_pid(s, 4, ev->pid);
	bind_u64(s, 5, vs->walk_ns);
	bind_i64(s, 6, !!vs->final);
	bind_u64(s, 7, vs->n_vmas);
	if (vs->budget_ns)
		bind_u64(s, 8, vs->budget_ns);
	else
		sqlite3_bind_null(s, 8); /* recorded before the budget, or none */
	bind_u64(s, 9, vs->skipped_walks);
	err = run(l, ST_VMA_SNAPSHOT);
	if (err)
		return err;

	s = l->st[ST_VMA];
	for (size_t k = 0; k < vs->n_vmas; k++) {
		const Ptop__V1__Vma *v = vs->vmas[k];

		if (!v)
			continue;
		err = vma_file_id(l, v, &file_id);
		if (err)
			return err;
		sqlite3_bind_int64(s, 1, l->cap);
		bind_i64(s, 2, id);
		bind_u64(s, 3, v->start);
		bind_u64(s, 4, v->end);
		bind_u64(s, 5, v->offset);
		bind_i64(s, 6, file_id);
		bind_u64(s, 7, v->size);
		bind_u64(s, 8, v->rss);
		bind_u64(s, 9, v->pss);
		bind_u64(s, 10, v->uss);
		bind_u64(s, 11, v->shared_clean);
		bind_u64(s, 12, v->shared_dirty);
		bind_u64(s, 13, v->anon);
		bind_u64(s, 14, v->swap);
		bind_u64(s, 15, v->swap_pss);
		bind_u64(s, 16, v->locked);
		err = run(l, ST_VMA);
		if (err)
			return err;
	}
	return 0;
}

static int load_context(struct loader *l, const Ptop__V1__Event *ev,
			const Ptop__V1__ProcContext *c)
{
	sqlite3_stmt *s = l->st[ST_CONTEXT];
	int err;

	bind_envelope(l, s, ev, false);
	bind_pid(s, 4, c->ppid);
	bind_opt_text(s, 5, c->comm);
	bind_u64(s, 6, c->uid);
	bind_u64(s, 7, c->euid);
	bind_u64(s, 8, c->gid);
	bind_u64(s, 9, c->egid);
	bind_opt_text(s, 10, c->cgroup_path);
	bind_nz(s, 11, c->cgroup_id);
	bind_opt_text(s, 12, c->container_id);
	err = bind_json_ints(s, 13, c->nspid, c->n_nspid);
	if (err)
		return err;
	err = run(l, ST_CONTEXT);
	if (err)
		return err;

	s = l->st[ST_NAMESPACE];
	for (size_t k = 0; k < c->n_namespaces; k++) {
		const Ptop__V1__Namespace *ns = c->namespaces[k];

		if (!ns)
			continue;
		bind_envelope(l, s, ev, false);
		bind_text(s, 4, ns->type);
		bind_u64(s, 5, ns->inode);
		err = run(l, ST_NAMESPACE);
		if (err)
			return err;
	}
	return 0;
}

static int load_cpuprof(struct loader *l, const Ptop__V1__Event *ev,
			const Ptop__V1__CpuProfile *p);

static int load_heap(struct loader *l, const Ptop__V1__Event *ev,
		     const Ptop__V1__HeapSnapshot *h);
static int load_heap_event(struct loader *l, const Ptop__V1__Event *ev,
			   const Ptop__V1__HeapEvent *h);

static int load_cgroup(struct loader *l, const Ptop__V1__Event *ev,
		       const Ptop__V1__CgroupSample *c);

static int load_event(struct loader *l, const Ptop__V1__Event *ev)
{
	if (!l->have_events || ev->time_ns < l->first_ns)
		l->first_ns = ev->time_ns;
	if (!l->have_events || ev->time_ns > l->last_ns)
		l->last_ns = ev->time_ns;
	l->have_events = true;

	switch (ev->payload_case) {
	case PTOP__V1__EVENT__PAYLOAD_CPU:
		l->counts[K_EV_CPU]++;
		return ev->cpu ? load_cpu(l, ev, ev->cpu) : 0;
	case PTOP__V1__EVENT__PAYLOAD_SYSCALLS:
		l->counts[K_EV_SYSCALLS]++;
		return ev->syscalls ? load_syscalls(l, ev, ev->syscalls) : 0;
	case PTOP__V1__EVENT__PAYLOAD_MEMORY:
		l->counts[K_EV_MEMORY]++;
		return ev->memory ? load_memory(l, ev, ev->memory) : 0;
	case PTOP__V1__EVENT__PAYLOAD_VMAS:
		l->counts[K_EV_VMAS]++;
		return ev->vmas ? load_vmas(l, ev, ev->vmas) : 0;
	case PTOP__V1__EVENT__PAYLOAD_CONTEXT:
		l->counts[K_EV_CONTEXT]++;
		return ev->context ? load_context(l, ev, ev->context) : 0;
	case PTOP__V1__EVENT__PAYLOAD_CPUPROF:
		l->counts[K_EV_CPUPROF]++;
		return ev->cpuprof ? load_cpuprof(l, ev, ev->cpuprof) : 0;
	case PTOP__V1__EVENT__PAYLOAD_HEAP:
		l->counts[K_EV_HEAP]++;
		return ev->heap ? load_heap(l, ev, ev->heap) : 0;
	case PTOP__V1__EVENT__PAYLOAD_HEAP_EVENT:
		l->counts[K_EV_HEAP_EVENT]++;
		return ev->heap_event ? load_heap_event(l, ev, ev->heap_event) : 0;
	case PTOP__V1__EVENT__PAYLOAD_CGROUP:
		l->counts[K_EV_CGROUP]++;
		return ev->cgroup ? load_cgroup(l, ev, ev->cgroup) : 0;
	default:
		l->counts[K_EV_NONE]++;
		return 0;
	}
}

static int load_stack(struct loader *l, const Ptop__V1__Stack *st)
{
	sqlite3_stmt *s = l->st[ST_STACK];
	int err, rc;

	sqlite3_bind_int64(s, 1, l->cap);
	bind_u64(s, 2, st->id);
	bind_i64(s, 3, !!st->kernel);
	bind_u64(s, 4, st->n_ips);
	if (st->n_ips) {
		err = bind_json_u64s(l, s, 5, st->ips, st->n_ips);
		if (err)
			return err;
	} else {
		sqlite3_bind_null(s, 5);
	}
	rc = sqlite3_step(s);
	sqlite3_reset(s);
	if (rc != SQLITE_DONE)
		return db_fail(l, rc, "insert");
	if (!sqlite3_changes(l->db)) {
		l->counts[K_STACK_DUP]++;
		return 0;
	}
	l->rows += 1 + st->n_ips; /* the stack and its stack_frame rows */
	l->counts[K_STACK]++;
	return 0;
}

static int load_mapping(struct loader *l, const Ptop__V1__Mapping *m)
{
	sqlite3_stmt *s = l->st[ST_MAPPING];
	int err;

	sqlite3_bind_int64(s, 1, l->cap);
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

static int load_cpuprof(struct loader *l, const Ptop__V1__Event *ev,
			const Ptop__V1__CpuProfile *p)
{
	sqlite3_stmt *s = l->st[ST_CPU_PROFILE];
	int64_t seq = l->next_profile++;
	int err;

	sqlite3_bind_int64(s, 1, l->cap);
	bind_i64(s, 2, seq);
	bind_u64(s, 3, ev->time_ns);
	bind_nz(s, 4, ev->interval_ns);
	bind_pid(s, 5, ev->pid);
	bind_u64(s, 6, p->requested_hz);
	bind_u64(s, 7, p->ticks);
	sqlite3_bind_double(s, 8, p->delivered_hz);
	bind_u64(s, 9, p->cpus);
	bind_u64(s, 10, p->samples);
	bind_u64(s, 11, p->no_user_stack);
	bind_u64(s, 12, p->no_kernel_stack);
	bind_u64(s, 13, p->lost);
	err = run(l, ST_CPU_PROFILE);
	if (err)
		return err;

	s = l->st[ST_CPU_PROFILE_STACK];
	for (size_t k = 0; k < p->n_stacks; k++) {
		const Ptop__V1__StackCount *c = p->stacks[k];

		if (!c)
			continue;
		sqlite3_bind_int64(s, 1, l->cap);
		bind_i64(s, 2, seq);
		bind_nz(s, 3, c->user_stack_id); /* 0: no such stack */
		bind_nz(s, 4, c->kernel_stack_id);
		bind_u64(s, 5, c->count);
		bind_pid(s, 6, c->pid); /* 0: the event's pid (NULL) */
		err = run(l, ST_CPU_PROFILE_STACK);
		if (err)
			return err;
	}

	s = l->st[ST_CPU_PROFILE_PROCESS];
	for (size_t k = 0; k < p->n_processes; k++) {
		const Ptop__V1__ProcessName *n = p->processes[k];

		if (!n || n->pid <= 0)
			continue;	/* nothing to name */
		sqlite3_bind_int64(s, 1, l->cap);
		bind_i64(s, 2, seq);
		sqlite3_bind_int64(s, 3, n->pid);
		bind_opt_text(s, 4, n->comm);
		err = run(l, ST_CPU_PROFILE_PROCESS);
		if (err)
			return err;
	}
	return 0;
}

/* A value that is NULL (not measured) unless MEASURED. */
static inline void bind_measured(sqlite3_stmt *s, int i, bool measured, uint64_t v)
{
	if (measured)
		bind_u64(s, i, v);
	else
		sqlite3_bind_null(s, i);
}

static int load_heap(struct loader *l, const Ptop__V1__Event *ev,
		     const Ptop__V1__HeapSnapshot *h)
{
	sqlite3_stmt *s = l->st[ST_HEAP_SNAPSHOT];
	int64_t seq = l->next_heap++;
	bool lm = h->live_measured;
	size_t sites = 0;
	int err;

	for (size_t k = 0; k < h->n_sites; k++)
		sites += h->sites[k] != NULL;
	sqlite3_bind_int64(s, 1, l->cap);
	bind_i64(s, 2, seq);
	bind_u64(s, 3, ev->time_ns);
	bind_nz(s, 4, ev->interval_ns);
	bind_pid(s, 5, ev->pid);
	bind_opt_text(s, 6, capture_heap_snapshot_lane(h));
	bind_opt_text(s, 7, h->module);
	bind_u64(s, 8, h->sample_bytes);
	bind_i64(s, 9, lm);
	bind_u64(s, 10, h->alloc_count);
	bind_u64(s, 11, h->alloc_bytes);
	bind_measured(s, 12, lm, h->free_count);
	bind_measured(s, 13, lm, h->free_bytes);
	bind_measured(s, 14, lm, h->live_bytes);
	bind_measured(s, 15, lm, h->live_count);
	bind_measured(s, 16, lm, h->leak_bytes);
	bind_measured(s, 17, lm, h->leak_count);
	bind_nz(s, 18, h->leak_age_ns); /* the setting, not a measurement */
	bind_u64(s, 19, sites);
	bind_u64(s, 20, h->total_call_sites);
	bind_u64(s, 21, h->omitted_alloc_count);
	bind_u64(s, 22, h->omitted_alloc_bytes);
	bind_measured(s, 23, lm, h->omitted_live_bytes);
	bind_measured(s, 24, lm, h->live_untracked);
	bind_u64(s, 25, h->stack_failures);
	bind_measured(s, 26, lm, h->free_untracked);
	err = run(l, ST_HEAP_SNAPSHOT);
	if (err)
		return err;

	s = l->st[ST_HEAP_SITE];
	for (size_t k = 0; k < h->n_sites; k++) {
		const Ptop__V1__HeapSite *c = h->sites[k];

		if (!c)
			continue;
		sqlite3_bind_int64(s, 1, l->cap);
		bind_i64(s, 2, seq);
		bind_nz(s, 3, c->stack_id); /* 0: no stack */
		bind_u64(s, 4, c->alloc_count);
		bind_u64(s, 5, c->alloc_bytes);
		bind_measured(s, 6, lm, c->live_count);
		bind_measured(s, 7, lm, c->live_bytes);
		bind_measured(s, 8, lm, c->freed_count);
		bind_measured(s, 9, lm, c->lifetime_ns_sum);
		bind_measured(s, 10, lm && c->oldest_live_ns, c->oldest_live_ns);
		err = run(l, ST_HEAP_SITE);
		if (err)
			return err;
	}
	return 0;
}

static int load_heap_event(struct loader *l, const Ptop__V1__Event *ev,
			   const Ptop__V1__HeapEvent *h)
{
	sqlite3_stmt *s = l->st[ST_HEAP_EVENT];
	const char *kind = h->kind == PTOP__V1__HEAP_EVENT__KIND__KIND_ALLOC  ? "alloc"
			   : h->kind == PTOP__V1__HEAP_EVENT__KIND__KIND_FREE ? "free"
									      : NULL;

	sqlite3_bind_int64(s, 1, l->cap);
	bind_u64(s, 2, ev->time_ns);
	bind_pid(s, 3, ev->pid);
	bind_pid(s, 4, ev->tid);
	bind_opt_text(s, 5, kind);
	bind_u64(s, 6, h->address);
	bind_u64(s, 7, h->size);
	bind_nz(s, 8, h->stack_id);
	bind_opt_text(s, 9, h->function);
	return run(l, ST_HEAP_EVENT);
}

/* memory.stat lines of cgroup sample SEQ. */
static int load_cgroup_stat(struct loader *l, int64_t seq, Ptop__V1__StatEntry *const *st,
			    size_t n)
{
	sqlite3_stmt *s = l->st[ST_CGROUP_STAT];
	int err;

	for (size_t k = 0; k < n; k++) {
		if (!st[k] || !st[k]->key || !*st[k]->key)
			continue;
		sqlite3_bind_int64(s, 1, l->cap);
		bind_i64(s, 2, seq);
		bind_text(s, 3, st[k]->key);
		bind_u64(s, 4, st[k]->value);
		err = run(l, ST_CGROUP_STAT);
		if (err)
			return err;
	}
	return 0;
}

static int load_cgroup_psi(struct loader *l, int64_t seq, const Ptop__V1__Psi *p)
{
	sqlite3_stmt *s = l->st[ST_CGROUP_PSI];
	const Ptop__V1__PsiLine *line[2] = { p->some, p->full };
	static const char *const kind[2] = { "some", "full" };
	int err;

	for (int k = 0; k < 2; k++) {
		if (!line[k])
			continue; /* a file without a "full" line */
		sqlite3_bind_int64(s, 1, l->cap);
		bind_i64(s, 2, seq);
		bind_text(s, 3, p->resource);
		bind_text(s, 4, kind[k]);
		sqlite3_bind_double(s, 5, line[k]->avg10);
		sqlite3_bind_double(s, 6, line[k]->avg60);
		sqlite3_bind_double(s, 7, line[k]->avg300);
		bind_u64(s, 8, line[k]->total_us);
		bind_u64(s, 9, line[k]->total_delta_us);
		err = run(l, ST_CGROUP_PSI);
		if (err)
			return err;
	}
	return 0;
}

static int load_cgroup_proc(struct loader *l, int64_t seq, const Ptop__V1__ProcMem *p)
{
	sqlite3_stmt *s = l->st[ST_CGROUP_PROC];
	bool covered = p->state == PTOP__V1__PROC_MEM_STATE__PROC_MEM_STATE_COVERED;

	sqlite3_bind_int64(s, 1, l->cap);
	bind_i64(s, 2, seq);
	bind_i64(s, 3, p->pid);
	bind_opt_text(s, 4, p->comm);
	bind_opt_text(s, 5, p->exe);
	bind_opt_text(s, 6, p->unit);
	bind_opt_text(s, 7, p->cgroup_path);
	bind_text(s, 8, capture_proc_mem_state_name(p->state));
	bind_measured(s, 9, covered, p->rss); /* not read: NULL, not 0 */
	bind_measured(s, 10, covered, p->pss);
	bind_measured(s, 11, covered, p->uss);
	bind_measured(s, 12, covered, p->swap);
	bind_nz(s, 13, p->read_ns);
	return run(l, ST_CGROUP_PROC);
}

/* One CgroupSample: a cgroup_sample row (seq in file order), its memory.stat,
 * pressure lines and processes. The lane is the memory controller present (v2
 * when both are); the columns of the other lane stay NULL. */
static int load_cgroup(struct loader *l, const Ptop__V1__Event *ev,
		       const Ptop__V1__CgroupSample *c)
{
	sqlite3_stmt *s = l->st[ST_CGROUP];
	const Ptop__V1__CgroupMemV2 *v2 = c->v2;
	const Ptop__V1__CgroupMemV1 *v1 = v2 ? NULL : c->v1;
	const Ptop__V1__ProcCoverage *cov = c->coverage;
	int64_t seq = l->next_cgroup++;
	int err, i;

	sqlite3_bind_int64(s, 1, l->cap);
	bind_i64(s, 2, seq);
	bind_u64(s, 3, ev->time_ns);
	bind_nz(s, 4, ev->interval_ns);
	bind_opt_text(s, 5, c->path);
	bind_opt_text(s, 6, v2 ? "v2" : v1 ? "v1" : NULL);
	bind_opt_text(s, 7, c->v1_path);
	for (i = 8; i <= 17; i++)
		sqlite3_bind_null(s, i);
	if (v2) {
		bind_u64(s, 8, v2->current);
		bind_measured(s, 9, !v2->max_unlimited, v2->max);
		bind_measured(s, 10, v2->has_peak, v2->peak);
		bind_u64(s, 11, v2->oom_delta);
		bind_u64(s, 12, v2->oom_kill_delta);
		bind_u64(s, 13, v2->oom_kill_total);
		bind_u64(s, 14, v2->high_delta);
		bind_u64(s, 15, v2->max_delta);
	} else if (v1) {
		bind_u64(s, 8, v1->usage);
		bind_measured(s, 9, !v1->limit_unlimited, v1->limit);
		bind_nz(s, 10, v1->max_usage); /* 0: not read */
		bind_u64(s, 12, v1->oom_kill_delta);
		bind_u64(s, 13, v1->oom_kill_total);
		bind_u64(s, 16, v1->failcnt_delta);
		bind_i64(s, 17, !!v1->under_oom);
	}
	if (cov) {
		bind_u64(s, 18, cov->processes);
		bind_u64(s, 19, cov->covered);
		bind_u64(s, 20, cov->denied);
		bind_u64(s, 21, cov->gone);
		bind_u64(s, 22, cov->skipped);
		bind_u64(s, 23, cov->walk_ns);
		bind_nz(s, 24, cov->budget_ns);
	} else {
		for (i = 18; i <= 24; i++)
			sqlite3_bind_null(s, i);
	}
	err = run(l, ST_CGROUP);
	if (err)
		return err;

	if (v2)
		err = load_cgroup_stat(l, seq, v2->stat, v2->n_stat);
	else if (v1)
		err = load_cgroup_stat(l, seq, v1->stat, v1->n_stat);
	for (size_t k = 0; k < c->n_psi && !err; k++)
		if (c->psi[k] && c->psi[k]->resource && *c->psi[k]->resource)
			err = load_cgroup_psi(l, seq, c->psi[k]);
	for (size_t k = 0; k < c->n_procs && !err; k++)
		if (c->procs[k])
			err = load_cgroup_proc(l, seq, c->procs[k]);
	return err;
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
	sqlite3_bind_int64(s, 1, l->cap);
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

	sqlite3_bind_int64(s, 1, l->cap);
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
	sqlite3_bind_int64(s, 1, l->cap);
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

	sqlite3_bind_int64(s, 1, l->cap);
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
	l->rows--; /* an UPDATE, not a new row */

	s = l->st[ST_DROP_TOTAL];
	for (size_t k = 0; k < t->n_drops; k++) {
		const Ptop__V1__DropTotal *d = t->drops[k];

		if (!d)
			continue;
		sqlite3_bind_int64(s, 1, l->cap);
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

/* Delete every row of the capture whose key is l->cap from every table that has
 * a cap column (the capture row too). */
static int delete_capture(struct loader *l)
{
	sqlite3_stmt *tables = NULL, *del = NULL;
	char sql[256];
	int rc, err = 0;

	rc = sqlite3_prepare_v2(l->db,
				"SELECT m.name FROM sqlite_master m, pragma_table_info(m.name) p "
				"WHERE m.type = 'table' AND p.name = 'cap'",
				-1, &tables, NULL);
	if (rc != SQLITE_OK)
		return db_fail(l, rc, "listing tables");
	while ((rc = sqlite3_step(tables)) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(tables, 0);

		snprintf(sql, sizeof(sql), "DELETE FROM \"%s\" WHERE cap = ?1", name);
		rc = sqlite3_prepare_v2(l->db, sql, -1, &del, NULL);
		if (rc != SQLITE_OK) {
			err = db_fail(l, rc, "deleting the old capture");
			goto cleanup;
		}
		sqlite3_bind_int64(del, 1, l->cap);
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

/* Whether capture l->id is in the DB; if so l->cap is its key. */
static int capture_exists(struct loader *l, bool *exists)
{
	sqlite3_stmt *s = NULL;
	int rc;

	rc = sqlite3_prepare_v2(l->db, "SELECT cap FROM capture WHERE capture_id = ?1", -1, &s,
				NULL);
	if (rc != SQLITE_OK)
		return db_fail(l, rc, "looking up the capture");
	sqlite3_bind_text(s, 1, l->id, -1, SQLITE_STATIC);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW)
		l->cap = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return db_fail(l, rc, "looking up the capture");
	*exists = rc == SQLITE_ROW;
	return 0;
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

	sqlite3_bind_int64(s, 1, l->cap);
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
	l->rows--;

	s = l->st[ST_RECORD_COUNT];
	for (int k = 0; k < K_N; k++) {
		if (!l->counts[k])
			continue;
		sqlite3_bind_int64(s, 1, l->cap);
		bind_text(s, 2, kind_name[k]);
		bind_u64(s, 3, l->counts[k]);
		err = run(l, ST_RECORD_COUNT);
		if (err)
			return err;
	}

	if (stats) {
		stats->complete = complete;
		snprintf(stats->read_message, sizeof(stats->read_message), "%s", msg);
	}
	return 0;
}

static int create_indexes(struct loader *l)
{
	const char *p = strstr(ptop_schema_sql, INDEX_MARKER);

	if (!p)
		return 0;
	return exec(l, p + strlen(INDEX_MARKER), "creating indexes");
}

/* -------------------------------------------------------------------- API */

int db__load_capture(sqlite3 *db, const char *path, bool replace,
		     char capture_id[DB_CAPTURE_ID_LEN], struct load_stats *stats, char *err,
		     size_t errlen)
{
	struct loader l = { .db = db, .path = path, .err = err, .errlen = errlen };
	struct capture_reader *r = NULL;
	Ptop__V1__Record *rec = NULL;
	const struct capture_status *cs;
	char *real = NULL;
	struct stat st;
	bool in_tx = false, exists = false;
	int rc, ret = 0;

	if (stats)
		memset(stats, 0, sizeof(*stats));
	if (capture_id)
		capture_id[0] = 0;
	if (errlen)
		err[0] = 0;

	real = realpath(path, NULL);
	if (!real || stat(real, &st)) {
		ret = -errno;
		snprintf(err, errlen, "cannot open %s: %s", path, strerror(errno));
		goto cleanup;
	}
	r = capture_reader__open(real);
	if (!r) {
		ret = -errno;
		if (errno == EBADMSG)
			snprintf(err, errlen, "%s is not a ptop capture (no PTOPCAP magic frame)",
				 path);
		else if (errno == ENOTSUP)
			snprintf(err, errlen,
				 "%s: the capture format is newer than this ptop-analyze reads "
				 "(format version %d): use a newer ptop-analyze",
				 path, CAPTURE_FORMAT_VERSION);
		else
			snprintf(err, errlen, "cannot open %s: %s", path, strerror(errno));
		goto cleanup;
	}

	/* The first record must be the header: it names the capture. */
	rc = capture_reader__next(r, &rec);
	if (rc < 0) {
		ret = rc;
		snprintf(err, errlen, "reading %s: %s", path, strerror(-rc));
		goto cleanup;
	}
	if (rc == 0 || rec->kind_case != PTOP__V1__RECORD__KIND_HEADER || !rec->header) {
		const char *why = rc == 0 ? capture_reader__status(r)->message : "";

		ret = -EBADMSG;
		snprintf(err, errlen,
			 "%s: no capture header at the start of the file%s%s: nothing loaded (the "
			 "file is corrupt)",
			 path, *why ? ": " : "", why);
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
		snprintf(l.id + 2 * k, 3, "%02x", rec->header->capture_id.data[k]);
	if (capture_id)
		memcpy(capture_id, l.id, DB_CAPTURE_ID_LEN);

	rc = sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
	if (rc != SQLITE_OK) {
		ret = db_fail(&l, rc, "starting a transaction");
		goto cleanup;
	}
	in_tx = true;

	ret = capture_exists(&l, &exists);
	if (ret)
		goto cleanup;
	if (exists && !replace) {
		if (stats)
			stats->already_loaded = true;
		goto cleanup; /* rolled back: nothing was written */
	}
	if (exists) { /* replace: its rows go, the capture comes back with a new cap */
		ret = delete_capture(&l);
		if (ret)
			goto cleanup;
	}

	for (int k = 0; k < ST_N; k++) {
		rc = sqlite3_prepare_v3(db, stmt_sql[k], -1, SQLITE_PREPARE_PERSISTENT, &l.st[k],
					NULL);
		if (rc != SQLITE_OK) {
			ret = db_fail(&l, rc, "preparing statements (is the DB's schema current?)");
			goto cleanup;
		}
	}

	l.records = 1;
	l.counts[K_HEADER] = 1;
	ret = load_header(&l, rec->header, &st, real);
	ptop__v1__record__free_unpacked(rec, NULL);
	rec = NULL;
	if (ret)
		goto cleanup;

	while ((rc = capture_reader__next(r, &rec)) == 1) {
		l.records++;
		ret = load_record(&l, rec);
		ptop__v1__record__free_unpacked(rec, NULL);
		rec = NULL;
		if (ret)
			goto cleanup;
	}
	if (rc < 0) {
		ret = rc;
		snprintf(err, errlen, "reading %s: %s", path, strerror(-rc));
		goto cleanup;
	}
	cs = capture_reader__status(r);
	ret = flush_chunks(&l);
	ret = ret ?: finish(&l, cs, stats);
	if (!ret)
		ret = create_indexes(&l);
	if (ret)
		goto cleanup;

	rc = sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
	if (rc != SQLITE_OK) {
		ret = db_fail(&l, rc, "committing");
		goto cleanup;
	}
	in_tx = false;
	if (stats) {
		stats->records = l.records;
		stats->rows = l.rows;
	}
cleanup:
	if (in_tx)
		sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
	for (int k = 0; k < ST_N; k++)
		sqlite3_finalize(l.st[k]);
	for (size_t k = 0; k < l.n_asm; k++)
		assembly_free(&l.asm_[k]);
	free(l.asm_);
	free(l.json);
	vma_files__free(&l.files);
	if (rec)
		ptop__v1__record__free_unpacked(rec, NULL);
	capture_reader__free(r);
	free(real);
	return ret;
}
