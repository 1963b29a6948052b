/* analyze.c — ptop-analyze's command table, global options and shared command helpers. */
#include "analyze/analyze.h"
#include "analyze/cache.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyze/export.h"
#include "analyze/figures.h"
#include "analyze/replay.h"
#include "analyze/replay_views.h"
#include "analyze/report.h"
#include "analyze/symbolize.h"
#include "proto/version.h"

/* Print WORDS (each followed by SEP, the last by LAST) after PREFIX, wrapped before column
 * 80 with INDENT spaces on each following line. */
static void print_wrapped(FILE *f, const char *prefix, const char *const *words, size_t n,
			  const char *sep, const char *last, int indent)
{
	int col = fprintf(f, "%s", prefix);

	for (size_t k = 0; k < n; k++) {
		const char *end = k + 1 < n ? sep : last;
		int len = (int)(strlen(words[k]) + strlen(end));

		if (k && col + 1 + len > 80)
			col = fprintf(f, "\n%*s", indent, "") - 1;
		else if (k)
			col += fprintf(f, " ");
		col += fprintf(f, "%s%s", words[k], end);
	}
	fputc('\n', f);
}

/* replay's help: the tabs of the bar (replay__tabs: the core's and the collectors'
 * views), then the options. */
static void replay_help(const struct analyze_cmd *c, FILE *f)
{
	const struct replay_tabs *t = replay__tabs();
	const char *names[REPLAY_TABS_MAX] = { 0 }, *ids[REPLAY_TABS_MAX + 1] = { 0 };
	const char *at;
	char last[64];
	size_t n = t->n;

	for (size_t k = 0; k < n; k++) {
		names[k] = t->tab[k].view[0]->name;
		ids[k] = t->tab[k].view[0]->id;
	}
	fprintf(f, "Play a capture back in the terminal: the state at the playback position with its\n"
		   "history, paused, stepped, rewound or fast-forwarded. Press ? in the viewer for keys.\n");
	print_wrapped(f, "Tabs: ", names, n, ",", ".", 2);
	/* the options, --tab after --at */
	at = strstr(c->help, "  --size");
	fprintf(f, "%.*s", at ? (int)(at - c->help) : (int)strlen(c->help), c->help);
	snprintf(last, sizeof(last), ", or its number 1-%zu", n < 9 ? n : 9);
	if (n && !strcmp(ids[0], "overview"))
		ids[0] = "overview (default)";
	print_wrapped(f, "  --tab NAME      the tab shown: ", ids, n, ",", last, 18);
	if (at)
		fputs(at, f);
}

/* figures' help: the text, then every declared figure (the collectors' parts). */
static void figures_help(const struct analyze_cmd *c, FILE *f)
{
	fputs(c->help, f);
	fprintf(f, "Figures (F: a function, NAME: a syscall):\n");
	for (const struct an_figure *x = an_figure__next(NULL); x; x = an_figure__next(x))
		fprintf(f, "  %-26s %s%s\n", x->name, x->what, x->setting ? " (a setting)" : "");
}

const struct analyze_cmd analyze_cmds[] = {
	{ "info", cmd_info, "info [--format text|json] [--capture ID] FILE",
	  "Describe a capture: header (id, recorder, host, start time), target, options,\n"
	  "probe set (state, source and reason of every probe), the probes that changed\n"
	  "during the recording (when and why), time span, record counts by type, drops (drop notices and the trailer's totals), how the recording\n"
	  "ended, and whether the file is complete or truncated (and where).\n"
	  "FILE is a .ptop capture or a ptop DB.\n"
	  "  --format text|json   output format (default text)\n"
	  "  --capture ID         the capture to describe in a DB holding several\n"
	  "                       (a unique prefix of its id is enough)\n" },
	{ "load", cmd_load, "load [--db DB] [--replace] FILE...",
	  "Load captures into a SQLite DB (created if missing), one transaction each.\n"
	  "A capture already in the DB (same capture id) is not loaded twice.\n"
	  "  --db DB      the DB to load into (default: ptop.db in the current folder)\n"
	  "  --replace    reload a capture that is already in the DB\n" },
	{ "sql", cmd_sql, "sql [--format text|csv|json] DB|FILE 'QUERY'",
	  "Run read-only SQL on a ptop DB, or on a capture (through its cache DB).\n"
	  "Statements that would write are refused. Tables and views: man ptop-capture(5).\n"
	  "  --format text|csv|json   aligned table (default), CSV, or a JSON array of\n"
	  "                           objects per statement\n" },
	/* usage and help from the kinds' option tables (report.c) */
	{ "report", cmd_report, NULL, NULL, report_cmd_usage, report_cmd_help },
	{ "figures", cmd_figures, "figures [--format text|json|csv] [--window START..END] [--capture ID] FILE",
	  "Every figure of a capture (or of a window of it), one row each: the collectors'\n"
	  "named figures (listed below: PART.FIGURE, or PART.FIGURE(F) for one instance of\n"
	  "a parameterized figure) with the value, unit, sample count (sampled figures),\n"
	  "direction (up is worse) and status. A figure whose probe did not run is\n"
	  "\"not measured\", with the reason, never 0.\n"
	  "The stable machine-readable summary of a capture, for a CI job keeping history.\n"
	  "  --format text|json|csv   output format (default text)\n"
	  "  --window START..END      as for report\n"
	  "  --capture ID             the capture in a DB holding several\n",
	  NULL, figures_help },
	{ "diff", cmd_diff,
	  "diff [--format text|json|markdown|junit] [--window START..END]\n"
	  "                    [--base-window START..END] [--new-window START..END]\n"
	  "                    [--min-delta 10%|SIZE] [--confidence PCT] [--top N] [--all]\n"
	  "                    [--fail-on EXPR]... [--allow-missing] [--per NAME]\n"
	  "                    [--capture ID]... BASE NEW",
	  "Compare the figures of two captures (see figures): the recordings' differences\n"
	  "first (recorder, kernel, CPUs, intervals, sampling rates), then each figure not\n"
	  "measured on a side as \"not comparable\" with the reason, then the changes: rates\n"
	  "per second of capture; instances (sites, functions) matched by symbol, never\n"
	  "by address; a sampled share changed only when a two-proportion test says so at\n"
	  "--confidence, a rate when a test of two Poisson rates does, a latency percentile\n"
	  "only when two histogram buckets or more apart. BASE and NEW are captures or DBs.\n"
	  "  --format text|json|markdown|junit   markdown: a table for a pull request;\n"
	  "                           junit: one test case per --fail-on\n"
	  "  --window START..END      compare this window of each capture (as for report)\n"
	  "  --base-window, --new-window START..END   a window on one side only\n"
	  "  --min-delta 10%|SIZE     a change smaller is not reported (repeatable: a\n"
	  "                           relative and a size for bytes both; default 10%)\n"
	  "  --confidence PCT         of the tests (default 99%), held over each figure's\n"
	  "                           instances together\n"
	  "  --top N                  show the N largest changes (default 25)\n"
	  "  --all                    show every figure compared, changed or not\n"
	  "  --fail-on EXPR           a gate, FIGURE OP THRESHOLD (repeatable):\n"
	  "                           FIGURE > +10%, FIGURE > +50M, FIGURE(F) > +5pp,\n"
	  "                           FIGURE(*) > +1M (every instance); unsigned: NEW's\n"
	  "                           value (FIGURE > 1G). FIGURE: a name listed by\n"
	  "                           `figures --help`. man ptop-analyze(1): the grammar\n"
	  "  --allow-missing          a gate on a figure not comparable passes (said so)\n"
	  "  --per NAME               rates per call of mark NAME (ptop-record --mark\n"
	  "                           NAME=FUNC) instead of per second; both sides need it\n"
	  "  --capture ID             BASE's capture, then NEW's (repeatable), in DBs\n"
	  "                           holding several; twice with one DB: both from it\n" },
	{ "symbolize", cmd_symbolize,
	  "symbolize [--symbol-cache DIR] [--debuginfod] [--debuginfod-urls URLS]\n"
	  "                    [--format text|json] [--capture ID] FILE|DB",
	  "Name every stack frame of a capture, once, by build-id, and store the names in\n"
	  "the DB (the capture's cache DB for a .ptop file). Prints how many frames were\n"
	  "named and by which source, how many stayed unnamed and why, and per module,\n"
	  "ranked by the profile samples it leaves unnamed, what would name them.\n"
	  "Frames already named are kept; unnamed ones are tried again.\n"
	  "  --symbol-cache DIR       files laid out DIR/<build-id>/debuginfo and\n"
	  "                           DIR/<build-id>/executable (debuginfod's client cache)\n"
	  "  --debuginfod             ask the servers in $DEBUGINFOD_URLS for missing files\n"
	  "  --debuginfod-urls URLS   these servers instead (implies --debuginfod)\n"
	  "  --format text|json       output format (default text)\n" },
	{ "export", cmd_export,
	  /* after "export --format folded|pprof [--profile ...] [--by ...] [-o OUT]\n"
	   * (export_usage, from the collectors' profiles) */
	  "                    [--window START..END] [--pid PID]\n"
	  "                    [--symbol-cache DIR] [--debuginfod] [--debuginfod-urls URLS]\n"
	  "                    [--capture ID] [--follow] [--follow-timeout D] FILE",
	  "Write a profile of the capture for other tools, or its records as JSON lines:\n"
	  "  folded   one line per stack, 'outer;...;inner WEIGHT' (flamegraph.pl, speedscope);\n"
	  "           a --cgroup capture's lines start with the process, 'COMM-PID;outer;...'\n"
	  "  pprof    gzipped profile.proto (go tool pprof, Pyroscope-style tools); the\n"
	  "           samples of a --cgroup capture carry a 'pid' label; mappings with their\n"
	  "           range, offset, file and build-id, the program's first; unnamed frames\n"
	  "           left as addresses (go tool pprof BINARY PROFILE names them)\n"
	  "  jsonl    every record of the capture FILE, one JSON object a line (time_ns,\n"
	  "           kind, category, pid, payload), the last line how reading ended\n"
	  "           (ptop-capture(5)); read from the file itself, no DB\n"
	  /* then --profile and --by (export_help, from the collectors' profiles) */
	  "  -o, --output OUT         where to write (default stdout; pprof needs -o or a\n"
	  "                           redirected stdout)\n"
	  "  --window START..END      as for report\n"
	  "  --follow                 jsonl: keep printing as the capture grows (tail -f);\n"
	  "                           ends by itself once the recorder's trailer is read\n"
	  "  --follow-timeout D       --follow: a capture that has not grown for D and has\n"
	  "                           no trailer ends as cut (default 10s, or 3 times the\n"
	  "                           recording's --interval or --flush-interval if longer)\n"
	  /* then --pid, from the profiles that take it */
	  "  --symbol-cache DIR, --debuginfod, --debuginfod-urls URLS   as for symbolize\n",
	  export_usage, export_help },
	{ "replay", cmd_replay,
	  "replay [--dump] [--at TIME] [--tab NAME] [--size WxH] [--play] [--capture ID] "
	  "[--follow] [--follow-timeout D] FILE",
	  /* after the tabs' names (replay_help), from the collectors' parts */
	  "  --dump          print one frame as plain text instead (no terminal needed)\n"
	  "  --at TIME       the position: seconds (12.5, 12.5s, 1500ms, 2m) or [H:]MM:SS\n"
	  "  --size WxH      --dump: the frame's size (default 160x48)\n"
	  "  --play          start playing (default paused)\n"
	  "  --capture ID    the capture to replay in a DB holding several\n"
	  "  --follow        a capture still being written: keep to its end as frames\n"
	  "                  arrive, then say how the recording ended (trailer, cut,\n"
	  "                  corrupt); loaded into a private temporary DB, not cached\n"
	  "  --follow-timeout D   --follow: no growth for D and no trailer ends it as\n"
	  "                  cut (default as for export --follow)\n",
	  NULL, replay_help },
	{ "cache", cmd_cache, "cache list|prune|clear [--format text|json|csv] [--max-size SIZE]",
	  "The cache of loaded captures: a DB per capture under $XDG_CACHE_HOME/ptop (else\n"
	  "~/.cache/ptop), named by the capture's id and size, so a copy or a move of a\n"
	  "capture reuses its entry. After each new entry the least recently used go until\n"
	  "the folder is under PTOP_CACHE_MAX (default 4G; 0: no cap).\n"
	  "  list                     the entries, most recently used first: capture id,\n"
	  "                           sizes, when last used, the capture's path\n"
	  "  prune                    remove the least recently used entries down to the cap\n"
	  "  clear                    remove every entry\n"
	  "  --format text|json|csv   list: output format (default text)\n"
	  "  --max-size SIZE          prune: down to SIZE instead (500M, 2G)\n" },
	{ "salvage", cmd_salvage, "salvage [-o OUT] FILE",
	  "Write a repaired copy of a capture that was cut short: every complete frame,\n"
	  "a trailer marked salvaged, and a fresh time index.\n"
	  "  -o, --output OUT   where to write (default FILE.salvaged.ptop); never\n"
	  "                     overwrites an existing file\n" },
	{ 0 },
};

static const struct analyze_cmd *find_cmd(const char *name)
{
	const struct analyze_cmd *c;

	for (c = analyze_cmds; c->name; c++)
		if (!strcmp(c->name, name))
			return c;
	return NULL;
}

static void print_usage(const struct analyze_cmd *c, FILE *f)
{
	if (c->print_usage)
		c->print_usage(c, f);
	else
		fputs(c->usage, f);
}

void analyze_cmd_help(const char *name, FILE *f)
{
	const struct analyze_cmd *c = find_cmd(name);

	if (!c)
		return;
	fprintf(f, "usage: ptop-analyze ");
	print_usage(c, f);
	fprintf(f, "\n\n");
	if (c->print_help)
		c->print_help(c, f);
	else
		fputs(c->help, f);
	fprintf(f, "\n%s", ANALYZE_EXIT_TABLE);
}

int analyze_usage(const char *name, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "ptop-analyze %s: ", name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\ntry `ptop-analyze %s --help`\n", name);
	return ANALYZE_EXIT_USAGE;
}

int analyze_exit_code(int err)
{
	if (!err)
		return ANALYZE_EXIT_OK;
	/* a full disk or a failing SQLite read or write (of the cache, a DB) is no input
	 * error: ptop-analyze(1) says SQLite failures are internal (3 for diff) */
	if (err == -ENOMEM || err == -EFAULT || err == -ENOSPC || err == -EDQUOT || err == -EIO)
		return ANALYZE_EXIT_INTERNAL;
	return ANALYZE_EXIT_USAGE;
}

int analyze_parse_pid(const char *s, int32_t *pid)
{
	char *end;
	long v;

	if (!s || s[0] < '0' || s[0] > '9')
		return -EINVAL;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v < 1 || v > INT32_MAX)
		return -EINVAL;
	*pid = (int32_t)v;
	return 0;
}

int analyze_open_input(const char *name, const char *path, const char *capture_id_opt,
		       sqlite3 **db, char capture_id[DB_CAPTURE_ID_LEN])
{
	char err[1024] = "";
	int rc;

	rc = db__open_input(path, capture_id_opt, db, capture_id, err, sizeof(err));
	if (!rc)
		return ANALYZE_EXIT_OK;
	fprintf(stderr, "ptop-analyze %s: %s\n", name,
		err[0] ? err : strerror(rc < 0 ? -rc : rc));
	*db = NULL;
	return analyze_exit_code(rc);
}

int analyze_open_checked(const char *name, const char *path, const char *capture_id_opt,
			 const char *tables, sqlite3 **db, char capture_id[DB_CAPTURE_ID_LEN])
{
	char err[1024] = "";
	sqlite3_stmt *s = NULL;
	int64_t cap = -1;
	int rc;

	rc = analyze_open_input(name, path, capture_id_opt, db, capture_id);
	if (rc)
		return rc;
	if (sqlite3_prepare_v2(*db, "SELECT cap FROM capture WHERE capture_id = ?1", -1, &s,
			       NULL) == SQLITE_OK) {
		sqlite3_bind_text(s, 1, capture_id, -1, SQLITE_STATIC);
		if (sqlite3_step(s) == SQLITE_ROW)
			cap = sqlite3_column_int64(s, 0);
	}
	sqlite3_finalize(s);
	rc = cap < 0 ? -ENOENT : db__check_tables(*db, cap, tables, err, sizeof(err));
	if (!rc)
		return ANALYZE_EXIT_OK;
	if (rc == -ENOENT)
		fprintf(stderr, "ptop-analyze %s: %s has no capture %s\n", name, path, capture_id);
	else
		fprintf(stderr, "ptop-analyze %s: %s: %s\n", name, path, err);
	sqlite3_close(*db);
	*db = NULL;
	return rc == -EIO ? ANALYZE_EXIT_INTERNAL : ANALYZE_EXIT_USAGE;
}

static void usage(FILE *f)
{
	const struct analyze_cmd *c;

	fprintf(f, "usage: ptop-analyze [--help] [--version] COMMAND [ARGS...]\n\n"
		   "Analyze ptop captures: load them into SQLite, describe them, report on\n"
		   "them.\n\n"
		   "commands:\n");
	for (c = analyze_cmds; c->name; c++) {
		fprintf(f, "  ");
		print_usage(c, f);
		fprintf(f, "\n");
	}
	fprintf(f, "\n`ptop-analyze COMMAND --help` describes a command; man ptop-analyze(1) has\n"
		   "everything.\n\n%s",
		ANALYZE_EXIT_TABLE);
}

static void list_cmds(FILE *f)
{
	const struct analyze_cmd *c;

	fprintf(f, "commands:");
	for (c = analyze_cmds; c->name; c++)
		fprintf(f, " %s", c->name);
	fprintf(f, "\n");
}

int analyze_main(int argc, char **argv)
{
	const struct analyze_cmd *c;
	const char *name;

	if (argc < 2) {
		usage(stderr);
		return ANALYZE_EXIT_USAGE;
	}
	name = argv[1];
	if (!strcmp(name, "--help") || !strcmp(name, "-h") || !strcmp(name, "help")) {
		if (argc > 2 && strcmp(name, "help") == 0 && find_cmd(argv[2])) {
			analyze_cmd_help(argv[2], stdout);
			return ANALYZE_EXIT_OK;
		}
		usage(stdout);
		return ANALYZE_EXIT_OK;
	}
	if (!strcmp(name, "--version") || !strcmp(name, "-V")) {
		printf("ptop-analyze %s (commit %s, built %s)\n", ptop_version, ptop_commit,
		       ptop_build_date);
		return ANALYZE_EXIT_OK;
	}
	c = find_cmd(name);
	if (!c) {
		if (name[0] == '-')
			fprintf(stderr, "ptop-analyze: unknown option '%s' (the command comes "
					"first)\n", name);
		else
			fprintf(stderr, "ptop-analyze: unknown command '%s'\n", name);
		list_cmds(stderr);
		fprintf(stderr, "try `ptop-analyze --help`\n");
		return ANALYZE_EXIT_USAGE;
	}
	/* long loads say how far they are, on a terminal only (never in a pipe or JSON) */
	db__load_progress(db__progress_wanted(argc, argv, isatty(STDOUT_FILENO),
					      isatty(STDERR_FILENO)));
	return c->fn(argc - 1, argv + 1);
}
