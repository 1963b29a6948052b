/* load.h — what a collector's part tells the loader core (analyze/load.c), and the
 * helpers its loader (collectors/NAME/load.c) uses: the capture's events become rows.
 *
 * A collector that stores rows declares one `const struct an_load NAME_load` in its
 * load.c and points its part at it (`.load = &NAME_load` in collectors/NAME/part.c,
 * analyze/part.h). The core reads every capture record; an Event whose payload case a
 * part claims goes to that part's function, counted under the part's kind in
 * record_count. The core keeps the envelope's records (header, stack, mapping, perf
 * map and module symbols, drop, probe change, trailer) and their tables: they are the
 * capture's own, and symbolization (analyze/symbolize.c) reads the mapping, perf_map
 * and module_symbols tables for every collector's stacks. A collector's data travels
 * as an Event payload; an Event whose payload no part claims is counted as
 * "event:none" and stored nowhere.
 *
 * A part's tables, views and indexes live in collectors/NAME/schema.sql, which the
 * build appends to schema/schema.sql (tables and views first, then every file's
 * indexes after the "-- @@ indexes @@" line; they are built after the data).
 *
 * One load runs in one transaction: the core prepares each part's statements once,
 * calls its start hook after the header's rows, its payload functions as the events
 * come, and its free hook at the end, loaded or not. No part needs a hook at the end of
 * the data today (the chunk joins that do are the core's). A part's function returns 0 or
 * -errno; an SQLite failure goes through load__step (or load__db_fail), which writes
 * the message the user sees; the whole load is then rolled back. -EBADMSG is the one
 * exception: the event's payload does not decode (capture_payload__unpack failed) and
 * the function stored nothing; the core skips the record as a lost event (a drop_notice
 * of kind LOAD_SKIP_UNDECODABLE for the part, analyze/db.h) and loads the rest.
 */
#ifndef PTOP_ANALYZE_LOAD_H
#define PTOP_ANALYZE_LOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <sqlite3.h>

#include "proto/ptop.pb-c.h"

/* One load, as every part sees it; the core owns it. */
struct load_run {
	sqlite3 *db;
	const char *path;	/* the capture file, for messages */
	int64_t cap;		/* capture.cap of the capture loaded: every row's first column */
	uint64_t rows;		/* rows as SQL sees them (load_stats.rows): load__step adds
				 * each statement's changes; a part corrects it where its
				 * views count otherwise (a histogram bucket is a syscall_hist
				 * row) */
	char *json;		/* load__bind_json_u64s's buffer: grows, freed at the end */
	size_t json_cap;
	char *err;		/* the message of a failure (load__db_fail) */
	size_t errlen;
};

/* One load as one part sees it: the argument of each of its functions. */
struct load_ctx {
	struct load_run *run;
	sqlite3_stmt *const *st; /* its statements, prepared from an_load.stmts, same order */
	void *state;		/* an_load.state_size bytes of its own, zeroed at the start */
};

/* An Event payload a part loads. */
struct an_load_payload {
	Ptop__V1__Event__PayloadCase payload; /* PTOP__V1__EVENT__PAYLOAD_CPU */
	const char *kind;		      /* its record_count kind: "event:cpu" */
	/* Loads EV, whose payload_case is PAYLOAD (its payload member may still be NULL:
	 * then nothing is loaded). 0 or -errno. */
	int (*load)(struct load_ctx *c, const Ptop__V1__Event *ev);
	/* With PAYLOAD_COLLECTOR_PAYLOAD (a collector added after proto/ptop.proto's
	 * oneof was closed): the full name of the message it loads from
	 * ev->collector_payload ("ptop.v1.ToySample"); the event goes to the entry
	 * whose type matches (capture_payload__unpack decodes it). NULL otherwise. */
	const char *type;
	/* With TYPE: that message's descriptor (its full name is TYPE), for readers that
	 * render any payload without naming a collector (export --format jsonl). */
	const ProtobufCMessageDescriptor *desc;
};

/* What analyze/db_check.c holds one of a part's tables of samples to before a command
 * reads it (db__check_tables, analyze/db.h): a DB whose rows no capture can produce is
 * refused ("corrupt DB: TABLE row N: ..."), not reported on. */
struct an_table_check {
	const char *table;
	bool timed;	    /* has time_ns: positive, strictly increasing per series */
	bool interval;	    /* has interval_ns: NULL (unknown) or in (0, time_ns] */
	const char *order;  /* the column giving file order */
	const char *series; /* the columns naming a series ("NULL": the whole table) */
	const char *nonneg; /* figures that cannot be negative, comma separated */
};

/* What a collector's part loads, and how. Payload cases and kind names are unique
 * across the parts (tests/test_load.c checks). */
struct an_load {
	const struct an_load_payload *payloads; /* ended by an entry whose load is NULL */
	/* Its statements: each "INSERT INTO T (c1, c2, ...)", the columns named once; the
	 * core adds " VALUES (:c1, :c2, ...)" (load__insert_sql), so parameter i is column
	 * i (the binders bind by number; tests/test_load.c checks the forms). */
	const char *const *stmts;
	size_t n_stmts;
	size_t state_size;	/* bytes of per-load state (load_ctx.state); 0: none */
	/* Optional: called once after the header's rows, before any event. 0 or -errno. */
	int (*start)(struct load_ctx *c, const Ptop__V1__CaptureHeader *h);
	/* Optional: frees what the state holds (not the state itself); runs at the end of
	 * every load that gave the part its state, loaded or not (the state may still be
	 * all zeros). */
	void (*free)(struct load_ctx *c);
	/* Optional: the checks of its tables of samples, ended by an entry whose table is
	 * NULL. The timed tables of every part are checked first, in collectors.def order,
	 * then the others. */
	const struct an_table_check *checks;
};

/* The lists of an an_load, written in place:
 *   const struct an_load cpu_load = {
 *	AN_LOAD_PAYLOADS({ PTOP__V1__EVENT__PAYLOAD_CPU, "event:cpu", load_cpu }),
 *	AN_LOAD_STMTS([ST_SAMPLE] = sample_sql),
 *	AN_LOAD_CHECKS({ "cpu_sample", true, true, "rowid", "pid", "oncpu_ns,..." }),
 *   };
 * AN_LOAD_PAYLOADS and AN_LOAD_CHECKS end their entries; AN_LOAD_STMTS counts the
 * statements. */
#define AN_LOAD_PAYLOADS(...) .payloads = (const struct an_load_payload[]){ __VA_ARGS__, { 0 } }
#define AN_LOAD_STMTS(...)                                                                 \
	.stmts = (const char *const[]){ __VA_ARGS__ },                                      \
	.n_stmts = sizeof((const char *const[]){ __VA_ARGS__ }) / sizeof(const char *)
#define AN_LOAD_CHECKS(...) .checks = (const struct an_table_check[]){ __VA_ARGS__, { NULL } }

/* INSERT SQL as a part writes it, "INSERT INTO T (c1, c2, ...)", completed with
 * " VALUES (:c1, :c2, ...)": parameter i binds column i, and the columns are written
 * once. A statement with its VALUES (or not an INSERT) is returned as written. A
 * malloc'd string (the caller frees it), NULL when out of memory. */
char *load__insert_sql(const char *sql);

/* Steps statement ID of C (all its parameters bound), counts its changes into
 * run->rows and resets it. 0, or -errno with run->err filled. */
int load__step(struct load_ctx *c, int id);

/* Fills run->err with "loading PATH: WHAT: <sqlite's message>" and returns the -errno
 * for the SQLite result code RC (-ENOSPC, -ENOMEM, -EBUSY, -EROFS, -EACCES, -EIO). */
int load__db_fail(struct load_run *run, int rc, const char *what);

/* Binds the N values V to parameter I as a JSON array of integers (each the u64's bit
 * pattern, as bind_u64 stores it), built in run->json: no allocation per row. The text
 * is valid until the next call. 0 or -ENOMEM. */
int load__bind_json_u64s(struct load_run *run, sqlite3_stmt *s, int i, const uint64_t *v,
			 size_t n);

/* Binds the N values V to parameter I as a JSON array of integers, NULL when N is 0.
 * 0 or -ENOMEM. */
int load__bind_json_ints(sqlite3_stmt *s, int i, const int32_t *v, size_t n);

/* ------------------------------------------------------------ bind helpers */

static inline void bind_u64(sqlite3_stmt *s, int i, uint64_t v)
{
	/* u64 values are stored as their 64-bit pattern (see ptop-capture(5)) */
	sqlite3_bind_int64(s, i, (sqlite3_int64)v);
}

static inline void bind_i64(sqlite3_stmt *s, int i, int64_t v)
{
	sqlite3_bind_int64(s, i, v);
}

/* An optional string: NULL when absent or empty. The string must outlive the step. */
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

/* A value that is NULL (not measured) unless MEASURED. */
static inline void bind_measured(sqlite3_stmt *s, int i, bool measured, uint64_t v)
{
	if (measured)
		bind_u64(s, i, v);
	else
		sqlite3_bind_null(s, i);
}

/* Parameter 1 of every part's statement: the capture's key (:cap). */
static inline void bind_cap(struct load_ctx *c, sqlite3_stmt *s)
{
	sqlite3_bind_int64(s, 1, c->run->cap);
}

/* The columns every event table starts with: :cap, :time_ns[, :interval_ns], :pid. */
static inline void bind_envelope(struct load_ctx *c, sqlite3_stmt *s, const Ptop__V1__Event *ev,
				 bool interval)
{
	int i = 1;

	sqlite3_bind_int64(s, i++, c->run->cap);
	bind_u64(s, i++, ev->time_ns);
	if (interval)
		bind_nz(s, i++, ev->interval_ns);
	bind_pid(s, i, ev->pid);
}

#endif
