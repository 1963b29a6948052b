/* analyze.h — ptop-analyze's command table and what its commands share.
 *
 * main() hands argc/argv to analyze_main(), which looks the first argument up
 * in analyze_cmds[] and calls that command with argv[0] = the command name.
 * Every command returns a process exit code: 0 ok, 2 usage and input errors
 * (bad option, missing file, corrupt capture with nothing to read, bad SQL),
 * 3 internal errors (out of memory, an unexpected SQLite failure); 1 only for diff's gates.
 */
#ifndef PTOP_ANALYZE_H
#define PTOP_ANALYZE_H

#include <stdint.h>
#include <stdio.h>

#include <sqlite3.h>

#include "analyze/db.h"

/* The exit status of every command (ANALYZE_EXIT_TABLE, the same words as ptop-analyze(1)
 * EXIT STATUS): 1 only for diff's fired gate, so that no internal error reads as one. */
#define ANALYZE_EXIT_OK 0
#define ANALYZE_EXIT_GATE 1
#define ANALYZE_EXIT_USAGE 2
#define ANALYZE_EXIT_INTERNAL 3

#define ANALYZE_EXIT_TABLE                                                                         \
	"exit status (every command):\n"                                                           \
	"  0  success (a report that says \"not collected\" too)\n"                                \
	"  1  diff: a --fail-on gate fired, or a gated figure is not comparable\n"                 \
	"  2  usage or input error\n"                                                              \
	"  3  internal error: out of memory, an unexpected SQLite failure (a full disk under\n"   \
	"     the cache or a DB included), output that could not be written\n"

struct analyze_cmd {
	const char *name;		  /* "info" */
	int (*fn)(int argc, char **argv); /* returns the exit code */
	const char *usage;		  /* "info [--format text|json] FILE" */
	const char *help;		  /* what it does and its options, lines of text */
	/* Optional, for a command whose words come from the collectors' parts (report: its
	 * kinds): print the usage (no final newline) and the help from those words and the
	 * text above; NULL: the text above as it is. */
	void (*print_usage)(const struct analyze_cmd *c, FILE *f);
	void (*print_help)(const struct analyze_cmd *c, FILE *f);
};

/* The commands, in --help order, ending with a zeroed entry. */
extern const struct analyze_cmd analyze_cmds[];

/* The whole program: parses the global options and runs a command. Returns the
 * exit code. */
int analyze_main(int argc, char **argv);

/* The commands (analyze/info.c, load_cmd.c, sql.c, report.c, salvage.c). */
int cmd_info(int argc, char **argv);
int cmd_load(int argc, char **argv);
int cmd_sql(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_salvage(int argc, char **argv);
int cmd_figures(int argc, char **argv); /* figures_cmd.c */
int cmd_diff(int argc, char **argv);    /* diff_cmd.c */

/* The `info` command's output for capture CAPTURE_ID of DB (PATH: the file named on
 * the command line, shown when the capture row has no source path) to OUT, as JSON
 * when JSON, else text with its lines wrapped to WIDTH columns (0: not wrapped; JSON
 * is never wrapped and keeps every text whole). 0, -ENOENT when DB has no such
 * capture, -EIO (an SQLite error: sqlite3_errmsg(DB) says which, or writing OUT
 * failed), -ENOMEM. */
int info__print(sqlite3 *db, const char *capture_id, const char *path, bool json, int width,
		FILE *out);

/* Print "usage: ptop-analyze USAGE" and the command's help to F. */
void analyze_cmd_help(const char *name, FILE *f);

/* Print "ptop-analyze NAME: MESSAGE" and "try `ptop-analyze NAME --help`" to
 * stderr; returns ANALYZE_EXIT_USAGE for `return analyze_usage(...)`. */
int analyze_usage(const char *name, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The exit code for a -errno from a lower layer: -ENOMEM, -EFAULT and a full disk or
 * an SQLite failure (-ENOSPC, -EDQUOT, -EIO) are internal (1); everything else is about
 * the input (2). 0 gives 0. */
int analyze_exit_code(int err);

/* Parse S as a process id (a decimal number from 1 to 2^31 - 1) into *PID.
 * 0, or -EINVAL. */
int analyze_parse_pid(const char *s, int32_t *pid);

/* Open a capture or a .db through db__open_input, printing any error as
 * "ptop-analyze NAME: ..." on stderr. CAPTURE_ID_OPT as db__open_input takes
 * it. Returns the exit code: 0 with *DB open (the caller closes it) and
 * CAPTURE_ID set, or 1/2 with *DB NULL. */
int analyze_open_input(const char *name, const char *path, const char *capture_id_opt, sqlite3 **db,
		       char capture_id[DB_CAPTURE_ID_LEN]);

/* analyze_open_input, then db__check_tables(TABLES) on the capture selected: the commands
 * that compute with its samples (report, export, replay) refuse a corrupt DB with
 * "ptop-analyze NAME: PATH: corrupt DB: ..." and exit 2 (1 when SQLite fails). */
int analyze_open_checked(const char *name, const char *path, const char *capture_id_opt,
			 const char *tables, sqlite3 **db, char capture_id[DB_CAPTURE_ID_LEN]);

#endif
