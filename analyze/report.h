/* report.h — the report core of ptop-analyze: the `report` command's kinds, options and
 * output helpers. Each collector's reports and loaders are in collectors/NAME/report.h.
 *
 * The `report` command (report.c) parses options and opens the input; the
 * reports take an open sqlite3 handle and a capture id, so tests can run
 * them on a DB they built by hand. Times in a window are nanoseconds relative to
 * the capture start (capture.start_monotonic_ns).
 *
 * Which samples a window holds: an interval sample (cpu, syscalls) covers
 * (time_ns - interval_ns, time_ns] and is in the window when its midpoint
 * time_ns - interval_ns/2 is in [START, END); a point sample (memory) is in it
 * when time_ns is in [START, END]. An open side is unbounded.
 */
#ifndef PTOP_REPORT_H
#define PTOP_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <sqlite3.h>

#include "analyze/output.h"
#include "proto/names.h"

/* ------------------------------------------------------------------ windows */

struct window {
	bool has_start, has_end;  /* false: that side is open */
	int64_t start_ns, end_ns; /* relative to the capture start */
};

/* Parse "START..END": each side optional, a non-negative decimal number with an
 * optional unit ns, us, ms, s (the default), m or h: "2..5", "2s..5s",
 * "500ms..", "..1m", "1.5..2.25". Digits below a nanosecond are dropped.
 * Returns 0, or -EINVAL with a one-line reason in ERR (no "..", a bad number or
 * unit, START after END, an empty window, overflow). */
int window__parse(const char *s, struct window *w, char *err, size_t errlen);

/* ------------------------------------------------------------------ capture facts */

struct capture_meta {
	char capture_id[33];
	int64_t cap;		/* capture.cap: the key every other table's rows carry */
	int64_t base_ns;	/* start_monotonic_ns (else first event, else 0) */
	int64_t first_event_ns; /* -1 when the capture holds no event */
	int64_t last_event_ns;
	int64_t cpus;		 /* -1 when unknown */
	bool complete;		 /* ended with a trailer, read cleanly */
	char read_end[16];	 /* clean | truncated | corrupt | io */
	int64_t read_stopped_at; /* -1 when reading did not stop early */
	char read_message[256];
	char machine[32];	 /* uname -m of the recording host; "" when unknown */
};

/* Read the capture row for CAPTURE_ID, its key cap included (queries filter
 * on m->cap). 0, -ENOENT when there is none, -EIO on an SQLite error. */
int capture_meta__load(sqlite3 *db, const char *capture_id, struct capture_meta *m);

/* The one-line warning for an incomplete capture into BUF ("" when complete):
 * "warning: capture incomplete (truncated): READ_MESSAGE; figures cover only what was
 * read", or without a message "... (truncated) at byte N: the recording was cut short; ...". */
void capture_meta__warning(const struct capture_meta *m, char *buf, size_t len);

struct probe_info {
	bool found;	/* the probe set names it */
	char state[16]; /* active | disabled | failed | unsupported | absent */
	char source[8]; /* ebpf | proc | "" */
	char reason[512];
	char detail[512];
};

/* Look probe NAME up in the capture's probe set. Not found: found=false,
 * state "absent" and a reason saying so. 0 or -EIO. */
int probe__lookup(sqlite3 *db, int64_t cap, const char *name, struct probe_info *p);

static inline bool probe__active(const struct probe_info *p)
{
	const char *active = capture_probe_state_name(PTOP__V1__PROBE_STATE__PROBE_STATE_ACTIVE);

	return p->found && !strcmp(p->state, active);
}

struct drop_line {
	char collector[64];
	char kind[64];
	uint64_t lost;
	bool from_trailer; /* the trailer's total (else the sum of drop notices) */
};

/* Drops of COLLECTOR: without a window, per kind the trailer's total when the
 * trailer has one, else the sum of the drop notices; with a window, the sum of
 * the notices whose time is in it. *OUT is malloc'd (caller frees). 0 or -errno. */
int drops__load(sqlite3 *db, const struct capture_meta *m, const char *collector,
		const struct window *w, struct drop_line **out, size_t *n);

/* ------------------------------------------------------------------ histograms */

#define HIST_BUCKETS 64

/* The estimate for a latency in log2 bucket B ([2^B, 2^(B+1)) ns; bucket 0 is
 * [0, 2)): the geometric midpoint 2^(B+0.5) rounded to the nearest ns, 1 for
 * bucket 0. So the estimate is within a factor of sqrt(2) of the truth. */
uint64_t hist_bucket_estimate(unsigned b);

/* The PCT-th percentile (1..100) of the histogram H[0..N): the bucket holding
 * the value of nearest rank ceil(total * PCT / 100). *EST gets
 * hist_bucket_estimate of it, *LO and *HI (may be NULL) its bounds [LO, HI).
 * Returns 0, -ENODATA when the histogram is empty, -EINVAL for a bad PCT. */
int hist_percentile(const uint64_t *h, size_t n, unsigned pct, uint64_t *est, uint64_t *lo,
		    uint64_t *hi);

/* ------------------------------------------------------------------ reports */

/* The options of `report` every kind takes (the core's, report.c), and the kind's own. */
struct report_opts {
	enum out_format fmt;
	struct window win; /* all open: the whole capture */
	size_t top;	   /* --top N: at most this many rows (what a row is: an_report.top); 0 = default */
	/* where the reports that name functions find symbols (as for `symbolize`) */
	const char *symbol_cache;    /* --symbol-cache DIR; NULL: none */
	bool debuginfod;	     /* --debuginfod: ask servers (else no network) */
	const char *debuginfod_urls; /* --debuginfod-urls; NULL: $DEBUGINFOD_URLS */
	/* the kind's own settings, its struct of an_report.settings_size bytes that its options
	 * (an_report.options) were parsed into; NULL: every one at its default (zeroed) */
	const void *own;
};

/* The kind's own settings of O as a const TYPE *: o->own, or a zeroed TYPE when O holds none
 * (report__zero: a TYPE larger than it does not compile). */
extern const union report_zero {
	char c[256];
	max_align_t align;
} report__zero;
#define REPORT_OWN(o, type)                                                                \
	((void)sizeof(char[sizeof(type) <= sizeof(report__zero) ? 1 : -1]),                  \
	 (const type *)((o)->own ? (o)->own : (const void *)&report__zero))

/* Growth in bytes per minute from FIRST at time T0 to LAST at T1 (ns), rounded
 * to the nearest byte (half away from zero). Returns false (no growth defined)
 * when T1 <= T0 or the result does not fit in an int64. */
bool growth_per_minute(int64_t first, int64_t last, int64_t t0_ns, int64_t t1_ns, int64_t *out);

/* ------------------------------------------------------------------ report kinds */

/* An option of one report kind (`report vma --mapping NAME`), in the kind's table
 * (an_report.options). The `report` command builds its parsing, its usage and --help from
 * the tables; given to a kind whose table does not have it, an option is a usage error
 * naming the kinds that do ("--pid is for report cpu"). Two kinds may declare the same
 * name (--by of heap and apps), each with its own values. */
struct report_option {
	const char *name; /* "mapping": --mapping */
	const char *arg;  /* its value as usage and help show it: "NAME", "live|bytes|count";
			   * NULL: a flag, no value */
	/* for `report --help`: lines of at most 52 characters joined by '\n', none at the end
	 * (printed from column 28); by convention it starts with the kind's name ("vma: the
	 * VMAs of one mapping ...") */
	const char *help;
	/* Parse ARG (NULL for a flag) into SETTINGS, the kind's struct (an_report.settings_size
	 * bytes, zeroed before the first option). 0, or -EINVAL with the usage error, one
	 * line, in ERR ("--by takes live, bytes or count, not 'x'"). */
	int (*parse)(void *settings, const char *arg, char *err, size_t errlen);
};

/* What the core hands a report's body (an_report.body): the capture, the options, the
 * output, and what every report opens with, done. */
struct report_ctx {
	sqlite3 *db;
	const struct capture_meta *m;	/* the capture reported on */
	const struct report_opts *o;
	FILE *out;
	/* JSON: the report's object, opened by report__begin (its head written); the body
	 * adds its members and closes it (json__end_object, json__end) */
	struct json *j;
	const struct probe_info *probe; /* its probe (an_report.probe), active; NULL: none named */
	/* the drops of collector an_report.drops in the window (drops__load), for report__drops */
	const struct drop_line *drops;
	size_t ndrops;
};

/* One `report KIND`, declared by the collector whose data it shows: at the bottom of
 * collectors/NAME/report.c, in its NULL-terminated list NAME_reports, which its part
 * points to (analyze/part.h, member reports). The `report` command (report.c) looks
 * KIND up among the reports of every part, and its usage, help and messages list them
 * all (report_kind__next); no core file names a kind.
 *
 * For KIND the command parses the common options into a struct report_opts and the kind's
 * own (its table, options) into a zeroed struct of settings_size bytes that o->own points
 * to, refuses an option the kind's table does not have, asks check(), opens FILE (a capture through
 * its cache DB, or a DB), checks the DB has the tables, and runs it (report__run) into a
 * memory stream: the report is written to stdout whole or not at all. */
struct an_report {
	const char *name; /* the KIND word: "syscalls"; unique over every part */
	/* its place in the kinds' list (usage, help, messages): by order, ascending; unique.
	 * Parts come in start order (collectors.def); this keeps the list as users know it. */
	unsigned order;
	/* what it shows, for `report --help`: lines of at most 66 characters (79 columns
	 * there) joined by '\n', none at the end; printed after "  KIND", the others
	 * indented under the first */
	const char *summary;
	/* the sample tables it reads, comma-separated (db__check_tables): an older DB without
	 * one is refused before run() */
	const char *tables;
	/* its own options, ended by an entry whose name is NULL; NULL: none */
	const struct report_option *options;
	size_t settings_size; /* the struct they parse into (o->own); 0: none */
	/* what --top N keeps, for `report --help` ("the first N functions (default 20)");
	 * NULL: it shows every row (--top is ignored) */
	const char *top;
	/* Optional: a rule of its own on the options O ("--mapping and --growth do not go
	 * together"): NULL when O is fine, else the usage error, one line, a static string. */
	const char *(*check)(const struct report_opts *o);
	/* the probe whose data it shows ("syscalls"): when the capture's probe set does not
	 * have it active, the report says "not collected" and why (report__not_collected), and
	 * body is not called; NULL: body sees to it */
	const char *probe;
	/* the collector whose drops report__run loads for body (ctx.drops); NULL: none */
	const char *drops;
	/* Its own part, in o->fmt: after report__begin (the incomplete-capture warning; JSON:
	 * the object's head), with its probe active. 0 or -errno as report__run returns; the
	 * core flushes the output. */
	int (*body)(const struct report_ctx *c);
};

/* Run report R on capture CAPTURE_ID of DB into OUT, in o->fmt: load the capture, look its
 * probe up, begin (report__begin), say "not collected" when the probe did not run, load its
 * drops, call its body; all into memory, written to OUT whole only when it succeeded. 0, or -errno for an internal failure (the caller maps it to
 * the exit code); -ENOENT when DB has no such capture; -EPROTO and -EBADMSG (a corrupt DB,
 * "corrupt DB: ...") for a question the capture cannot answer, said on stderr by the body:
 * exit 2. A probe that did not run is a report too ("not collected"; JSON: "collected":
 * false): 0. */
int report__run(const struct an_report *r, sqlite3 *db, const char *capture_id,
		const struct report_opts *o, FILE *out);

/* The core's own reports, which name no collector (analyze/events.c: `report events`, a loop
 * over the parts' timeline events), NULL-terminated. */
extern const struct an_report *const core_reports[];

/* Whether CATEGORY is in LIST, comma-separated ("" holds every category). */
bool events__category_in(const char *list, const char *category);

/* The kinds of every part's reports in order: the first when PREV is NULL, else the
 * one after PREV; NULL after the last. */
const struct an_report *report_kind__next(const struct an_report *prev);

/* The report named NAME, or NULL. */
const struct an_report *report_kind__find(const char *name);

/* Write the names of the kinds whose table has option OPTION (NULL: every kind) into BUF,
 * in order, separated by SEP, the last two by LAST: "a, b or c" with ", " and " or ";
 * "a|b|c" with "|" twice. BUF is always NUL-terminated; when LEN is too small, the list
 * stops after the last name that fits. */
void report_kind__list(char *buf, size_t len, const char *option, const char *sep,
		       const char *last);

struct analyze_cmd;

/* `report`'s usage and --help (analyze.c's command table): the kinds, the common options
 * and every kind's own, from the tables. */
void report_cmd_usage(const struct analyze_cmd *c, FILE *f);
void report_cmd_help(const struct analyze_cmd *c, FILE *f);

/* Parse option NAME with ARG (NULL for a flag) into SETTINGS, R's own (settings_size bytes)
 * as the command does. 0, -ENOENT (R has no option NAME), or -EINVAL with the usage error in
 * ERR. */
int report_kind__set(const struct an_report *r, void *settings, const char *name,
		     const char *arg, char *err, size_t errlen);

/* ------------------------------------------------------------------ shared by the reports */

/* Absolute monotonic bounds of W for capture M: [*lo, *hi], open sides
 * INT64_MIN/INT64_MAX. */
void window__bounds(const struct window *w, const struct capture_meta *m, int64_t *lo, int64_t *hi);

/* Prepare SQL with ?1 bound to capture M's key (m->cap) and ?2, ?3 to the absolute bounds
 * LO and HI of a window (window__bounds; the query says how it compares them); the query
 * binds any other parameter itself. 0, or -EIO with *ST NULL. */
int report__prepare_at(sqlite3 *db, const char *sql, const struct capture_meta *m, int64_t lo,
		       int64_t hi, sqlite3_stmt **st);

/* report__prepare_at with the bounds of window W. */
int report__prepare(sqlite3 *db, const char *sql, const struct capture_meta *m,
		    const struct window *w, sqlite3_stmt **st);

/* The capture's stacks for a report KIND that names its sites by them: the capture
 * symbolized first (symstore__ensure with the symbol options of O; its error said on
 * stderr as "ptop-analyze report KIND: symbolizing: ..."), then loaded into *STACKS
 * (stacks__load; the caller frees it with profile__free). 0 or -errno. */
struct profile;
int report__stacks(sqlite3 *db, const struct capture_meta *m, const struct report_opts *o,
		   const char *kind, struct profile **stacks);

/* "whole capture" or "window 2.000 s .. 5.000 s" into BUF. */
void window__describe(const struct window *w, char *buf, size_t len);

/* Column COL of the current row of ST as an integer, DFLT when it is NULL (not
 * measured). */
int64_t report__col(sqlite3_stmt *st, int col, int64_t dflt);

/* KEY: V in J, or KEY: null when V < 0 (the reports' "not measured"). */
void report__json_opt_int(struct json *j, const char *key, int64_t v);

/* The common head of a report: in text, the incomplete-capture warning line (on
 * stdout); in CSV, the same on stderr; in JSON, opens the top-level object and
 * writes "report", "capture_id", "complete", "read_end", "read_message",
 * "warning" and "window". */
void report__begin(struct json *j, FILE *out, const struct report_opts *o, const char *kind,
		   const struct capture_meta *m);

/* Print that KIND was not collected, and why (text: "KIND: not collected
 * (STATE: REASON)"; CSV: the same on stderr; JSON: "collected": false, "state",
 * "reason"). J must have been opened by report__begin for JSON; it is closed. */
int report__not_collected(struct json *j, FILE *out, const struct report_opts *o, const char *kind,
			  const struct probe_info *p);

/* Print the drops: text "drops: COLLECTOR KIND: N lost" lines (or "drops: none
 * recorded for COLLECTOR"); JSON a "drops" array; CSV on stderr when any. */
void report__drops(struct json *j, FILE *out, const struct report_opts *o, const char *collector,
		   const struct drop_line *d, size_t n);

#endif
