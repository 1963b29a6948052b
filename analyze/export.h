/* export.h — `export --profile NAME`: a collector's profile written for other tools,
 * folded stacks or a gzipped pprof profile.proto.
 *
 * A collector declares its profiles in its part (analyze/part.h, .profiles): a name, the
 * tables it reads, its --help lines, the --by choices and --pid it takes, and a loader that
 * yields its stacks with their values (struct prof_samples). `export` (export.c) parses
 * the command line, builds its usage and --help from the list, opens the DB, calls the
 * loader, writes the format asked for, and calls the profile's done() after a good write.
 * The default profile is the first of the list (collectors.def order). The core names no
 * profile: a collector adds one by declaring it.
 */
#ifndef PTOP_EXPORT_H
#define PTOP_EXPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <sqlite3.h>

#include "analyze/symbolize.h"

/* What export asks of a profile. */
struct prof_req {
	sqlite3 *db;
	const struct capture_meta *m;
	const struct window *w;
	int32_t pid;	/* --pid (only for a profile that takes it); 0: every process */
	const char *by; /* --by (only for a profile that has choices, with folded); NULL: its
			 * default, the first choice */
	bool pprof;	/* --format pprof, else folded */
	const struct symstore_opts *so;
};

/* What a profile's loader yields: stacks with N_TYPES values each.
 *   folded writes each stack of P with the weight p->stacks[k].count;
 *   pprof writes each with VALUES[k * n_types + i], sample type TYPE[i] in UNIT[i].
 * The loader fills it and sets release (NULL: nothing of its own to free); export frees
 * VALUES and, unless release took it (setting it NULL), P with profile__free. */
struct prof_samples {
	struct profile *p;
	size_t n_types;
	const char *type[4], *unit[4];
	const char *period_type, *period_unit, *default_type; /* default_type NULL: none */
	int64_t period;
	int64_t t0_ns, t1_ns; /* what the stacks cover (monotonic); t0_ns < 0: unknown */
	int64_t *values;      /* malloc'd */
	bool skip_zero;	      /* pprof leaves out the stacks whose values are all 0 */
	void *priv;	      /* the loader's */
	void (*release)(struct prof_samples *s);
};

/* A profile a collector exports (its part's .profiles). */
struct an_profile {
	const char *name;	 /* --profile NAME */
	const char *help;	 /* its lines in --help after "--profile NAME": what it is,
				  * its pprof sample types and folded weight; '\n' between lines */
	const char *tables;	 /* the tables it reads: export refuses a DB where one is corrupt
				  * (analyze_open_checked) */
	const char *const *by;	 /* --by choices for folded, NULL-terminated, the first the
				  * default; NULL: it takes no --by */
	const char *by_help;	 /* --help's line for --by */
	const char *pid_help;	 /* non-NULL: it takes --pid; --help's line for it */
	const char *overflow;	 /* what -EOVERFLOW from load means ("a heap figure passes
				  * 2^63"): a corrupt DB */
	/* Fill S for R: check that the profile was collected (else say why on stderr and
	 * return -ENODATA), name the frames (export__symbolize), load, and say on stderr
	 * what the reader must know before the stacks (notes). 0 or -errno. */
	int (*load)(const struct prof_req *r, struct prof_samples *s);
	/* After a good write: the warnings about what was written (NULL: none). */
	void (*done)(const struct prof_req *r, const struct prof_samples *s);
	/* The profile over the whole capture, its stacks weighted and every placed frame of
	 * the capture in its locs (as stacks__load reads them), for `symbolize`'s summary: the
	 * default profile's ranks the modules by the samples they leave unnamed. Says
	 * nothing. NULL: it has none. 0 or -errno. */
	int (*whole)(sqlite3 *db, const struct capture_meta *m, struct profile **out);
};

/* Name the frames of R's capture (symstore__ensure with R's options) and say on stderr
 * what debuginfod was asked. 0, or -errno said on stderr. */
int export__symbolize(const struct prof_req *r);

/* Write a note or warning of export on stderr: "ptop-analyze export: ...\n" (stdout is the
 * profile). */
void export__say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* `export --format jsonl PATH`: every record of the capture at PATH, one JSON object
 * a line, to OUTPUT (NULL: stdout), read with the proto reader; the last line says how
 * reading ended (analyze/export_jsonl.c, ptop-capture(5)). With FOLLOW, waits at the
 * end for the file to grow until the trailer is read or TIMEOUT_NS pass without
 * growth (0: the default, EXPORT_FOLLOW_TIMEOUT_NS or three of the recording's
 * --interval or --flush-interval when that is more). Returns the exit status, what went
 * wrong said on stderr. */
#define EXPORT_FOLLOW_TIMEOUT_NS 10000000000ull /* --follow-timeout's default: 10s */
int export_jsonl(const char *path, const char *output, bool follow, uint64_t timeout_ns);

/* S as folded stacks to F (export_folded of S->p). 0 or -errno. */
int prof_samples__folded(const struct prof_samples *s, FILE *f);

/* S as a gzipped pprof Profile (proto/pprof.proto) in *OUT (malloc'd, the caller frees),
 * *OUTLEN bytes; TIME_NANOS the wall time of S->t0_ns. A sample of a process of a
 * per-process profile (its stack's pid set) has a numeric label "pid". Mappings: a user
 * frame's is the mapping record that placed it (start, limit, file offset, path,
 * build-id), the main program's first, then the other files', [kernel], the rest; a
 * location keeps the address resolved (ip - 1 for a caller); an unnamed one has no line,
 * and its mapping has_functions (and the other has_*) false, so pprof names it from the
 * binary. 0 or -ENOMEM. */
int prof_samples__pprof(const struct prof_samples *s, int64_t time_nanos, uint8_t **out,
			size_t *outlen);

/* Fill S's stacks and values from SQL, for a profile whose rows name their stacks:
 * S->n_types (and the types) set first. SQL is run with ?1 the capture (R->m->cap), ?2 and
 * ?3 the window's bounds [lo, hi) in monotonic ns (window__bounds); each row is one stack
 * of the profile: stack_id (stack.stack_id; NULL: no stack, written "[no stack]"), pid
 * (NULL or 0: none; else its pprof label and folded's root frame), the folded weight,
 * then the S->n_types pprof values. The stacks' frames are those stacks__load gives (name
 * them first: export__symbolize). S->release frees what it made. 0, -ENOMEM, -EIO (said),
 * or -EOVERFLOW for a value past 2^63. */
int prof_samples__load_sql(const struct prof_req *r, const char *sql, struct prof_samples *s);

/* Free what S holds (see struct prof_samples) and clear it. */
void prof_samples__free(struct prof_samples *s);

/* The profile named NAME among the parts', or NULL; the default (the first) for NULL. */
const struct an_profile *an_profile__find(const char *name);

/* export's usage line and --help, from the profiles (registered in analyze.c). */
struct analyze_cmd;
void export_usage(const struct analyze_cmd *c, FILE *f);
void export_help(const struct analyze_cmd *c, FILE *f);

#endif
