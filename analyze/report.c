/* report.c — the `report` command: options, input, and the report it names, found among
 * the reports of the collectors' parts (collectors/NAME/report.c). */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/analyze.h"
#include "analyze/output.h"
#include "analyze/part.h"
#include "analyze/report.h"

const struct an_report *report_kind__next(const struct an_report *prev)
{
	const struct an_report *best = NULL;

	for (const struct an_part *const *p = an_parts; *p; p++)
		for (const struct an_report *const *r = (*p)->reports; r && *r; r++)
			if ((!prev || (*r)->order > prev->order) &&
			    (!best || (*r)->order < best->order))
				best = *r;
	for (const struct an_report *const *r = core_reports; *r; r++)
		if ((!prev || (*r)->order > prev->order) && (!best || (*r)->order < best->order))
			best = *r;
	return best;
}

const struct an_report *report_kind__find(const char *name)
{
	for (const struct an_report *r = report_kind__next(NULL); r; r = report_kind__next(r))
		if (!strcmp(r->name, name))
			return r;
	return NULL;
}

const union report_zero report__zero;

/* The option NAME of R's table, or NULL. */
static const struct report_option *kind_option(const struct an_report *r, const char *name)
{
	for (const struct report_option *x = r->options; x && x->name; x++)
		if (!strcmp(x->name, name))
			return x;
	return NULL;
}

void report_kind__list(char *buf, size_t len, const char *option, const char *sep,
		       const char *last)
{
	const struct an_report *r, *next;
	size_t at = 0;
	int n;

	if (!len)
		return;
	buf[0] = '\0';
	for (r = report_kind__next(NULL); r; r = next) {
		for (next = report_kind__next(r); next && option && !kind_option(next, option);)
			next = report_kind__next(next);
		if (option && !kind_option(r, option))
			continue;
		n = snprintf(buf + at, len - at, "%s%s", !at ? "" : next ? sep : last, r->name);
		if (n < 0 || (size_t)n >= len - at) {
			buf[at] = '\0'; /* cut short after a whole name */
			return;
		}
		at += (size_t)n;
	}
}

int report_kind__set(const struct an_report *r, void *settings, const char *name,
		     const char *arg, char *err, size_t errlen)
{
	const struct report_option *x = kind_option(r, name);

	if (!x)
		return -ENOENT;
	if (errlen)
		err[0] = '\0';
	return x->parse(settings, arg, err, errlen) ? -EINVAL : 0;
}

/* report__run into OUT as it is (no buffer). */
static int run_into(const struct an_report *r, sqlite3 *db, const char *capture_id,
		    const struct report_opts *o, FILE *out)
{
	struct drop_line *drops = NULL;
	struct capture_meta m;
	struct probe_info p;
	struct json j;
	size_t nd = 0;
	int err;

	err = capture_meta__load(db, capture_id, &m);
	if (!err && r->probe)
		err = probe__lookup(db, m.cap, r->probe, &p);
	if (err)
		return err;
	report__begin(&j, out, o, r->name, &m);
	if (r->probe && !probe__active(&p)) {
		err = report__not_collected(&j, out, o, r->name, &p);
	} else {
		if (r->drops)
			err = drops__load(db, &m, r->drops, &o->win, &drops, &nd);
		err = err ?: r->body(&(const struct report_ctx){.db = db,
								 .m = &m,
								 .o = o,
								 .out = out,
								 .j = &j,
								 .probe = r->probe ? &p : NULL,
								 .drops = drops,
								 .ndrops = nd});
	}
	if (!err && (fflush(out) || ferror(out)))
		err = -EIO;
	free(drops);
	return err;
}

int report__run(const struct an_report *r, sqlite3 *db, const char *capture_id,
		const struct report_opts *o, FILE *out)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *mem;
	int err;

	/* The report is written whole or not at all: into memory first, so an error found
	 * half-way (report vma --growth of one snapshot) leaves no fragment of JSON or of a
	 * table in OUT, only its message on stderr. */
	mem = open_memstream(&buf, &len);
	if (!mem)
		return -errno;
	err = run_into(r, db, capture_id, o, mem);
	if (fclose(mem) && !err)
		err = -ENOMEM;
	if (!err && len && (fwrite(buf, 1, len, out) != len || fflush(out)))
		err = -errno ?: -EIO;
	free(buf);
	return err;
}

/* ------------------------------------------------------------------ the common options */

/* What the common options parse into: the report's options and the capture asked for. */
struct report_core {
	struct report_opts o;
	const char *capture; /* --capture ID; NULL: the only one */
};

static int parse_format(void *s, const char *arg, char *err, size_t len)
{
	if (!out_format__parse(arg, &((struct report_core *)s)->o.fmt))
		return 0;
	snprintf(err, len, "--format takes text, json or csv, not '%s'", arg);
	return -EINVAL;
}

static int parse_window(void *s, const char *arg, char *err, size_t len)
{
	return window__parse(arg, &((struct report_core *)s)->o.win, err, len) ? -EINVAL : 0;
}

static int parse_top(void *s, const char *arg, char *err, size_t len)
{
	unsigned long long n;
	char *end;

	errno = 0;
	n = strtoull(arg, &end, 10);
	if (errno || end == arg || *end || arg[0] == '-') {
		snprintf(err, len, "--top takes a number, not '%s'", arg);
		return -EINVAL;
	}
	((struct report_core *)s)->o.top = (size_t)n;
	return 0;
}

static int parse_capture(void *s, const char *arg, char *err, size_t len)
{
	(void)err, (void)len;
	((struct report_core *)s)->capture = arg;
	return 0;
}

static int parse_symbol_cache(void *s, const char *arg, char *err, size_t len)
{
	(void)err, (void)len;
	((struct report_core *)s)->o.symbol_cache = arg;
	return 0;
}

static int parse_debuginfod(void *s, const char *arg, char *err, size_t len)
{
	(void)arg, (void)err, (void)len;
	((struct report_core *)s)->o.debuginfod = true;
	return 0;
}

static int parse_debuginfod_urls(void *s, const char *arg, char *err, size_t len)
{
	(void)err, (void)len;
	((struct report_core *)s)->o.debuginfod_urls = arg;
	((struct report_core *)s)->o.debuginfod = true;
	return 0;
}

/* The options of every kind, in usage and help order; --top's help is the kinds' (top). */
static const struct report_option core_options[] = {
    {"format", "text|json|csv", "output format (default text)", parse_format},
    {"window", "START..END",
     "seconds from the capture start; either side may be\n"
     "left out; units ns us ms s m h (2..5, 500ms.., ..1m)",
     parse_window},
    {"top", "N", NULL, parse_top},
    {"capture", "ID", "the capture to report on in a DB holding several", parse_capture},
    {"symbol-cache", "DIR",
     "where a report names functions: also look for\n"
     "symbols in DIR/<build-id>/{debuginfo,executable}\n"
     "(debuginfod's cache layout)",
     parse_symbol_cache},
    {"debuginfod", NULL,
     "ask the servers in $DEBUGINFOD_URLS for missing\n"
     "debug info (no network without it)",
     parse_debuginfod},
    {"debuginfod-urls", "URLS", "these servers instead (implies --debuginfod)",
     parse_debuginfod_urls},
    {0},
};

/* ------------------------------------------------------------------ usage and help */

#define HELP_COL 27   /* where an option's help starts */
#define HELP_WIDTH 77 /* the last column of the --top paragraph */
#define USAGE_INDENT 20
#define USAGE_WIDTH 79

/* Print WORD at *COL on F, first breaking the line (to INDENT spaces) when it would end
 * past WIDTH; a space before it unless it starts the line. */
static void put_word(FILE *f, int *col, const char *word, int len, int indent, int width)
{
	if (*col > indent && *col + 1 + len > width) {
		*col = fprintf(f, "\n%*s", indent, "") - 1;
	} else if (*col > indent) {
		fputc(' ', f);
		(*col)++;
	}
	*col += fprintf(f, "%.*s", len, word);
}

/* "[--NAME ARG]" of option X into BUF; ARG for ARG (X's, or a merged one). */
static void usage_word(char *buf, size_t len, const char *name, const char *arg)
{
	snprintf(buf, len, "[--%s%s%s]", name, arg ? " " : "", arg ? arg : "");
}

/* The usage words of the kinds' options from R (NULL: every kind), one per name: when
 * kinds declare the same name with other values, the values joined by '|'. */
static void usage_kind_options(FILE *f, int *col, const struct an_report *only)
{
	const struct an_report *r, *q;
	char word[256], arg[192];

	for (r = only ? only : report_kind__next(NULL); r; r = only ? NULL : report_kind__next(r))
		for (const struct report_option *x = r->options; x && x->name; x++) {
			bool first = true;

			/* once, where the name first appears */
			for (q = only ? r : report_kind__next(NULL); q != r && first;
			     q = report_kind__next(q))
				first = !kind_option(q, x->name);
			for (const struct report_option *y = r->options; y != x && first; y++)
				first = strcmp(y->name, x->name);
			if (!first)
				continue;
			snprintf(arg, sizeof(arg), "%s", x->arg ? x->arg : "");
			for (q = only ? NULL : report_kind__next(r); q; q = report_kind__next(q)) {
				const struct report_option *y = kind_option(q, x->name);

				if (y && y->arg && !strstr(arg, y->arg))
					snprintf(arg + strlen(arg), sizeof(arg) - strlen(arg), "|%s",
						 y->arg);
			}
			usage_word(word, sizeof(word), x->name, x->arg ? arg : NULL);
			put_word(f, col, word, (int)strlen(word), USAGE_INDENT, USAGE_WIDTH);
		}
}

/* The usage after "report ": KINDS (R's name, or every kind's), the common options, the
 * options of the kinds, FILE. No newline at the end. */
static void print_report_usage(FILE *f, const struct an_report *only)
{
	char kinds[512], word[256];
	int col = USAGE_INDENT;

	if (only)
		snprintf(kinds, sizeof(kinds), "%s", only->name);
	else
		report_kind__list(kinds, sizeof(kinds), NULL, "|", "|");
	fprintf(f, "report %s\n%*s", kinds, USAGE_INDENT, "");
	for (const struct report_option *x = core_options; x->name; x++) {
		if (!strcmp(x->name, "top") && only && !only->top)
			continue;
		usage_word(word, sizeof(word), x->name, x->arg);
		put_word(f, &col, word, (int)strlen(word), USAGE_INDENT, USAGE_WIDTH);
	}
	usage_kind_options(f, &col, only);
	put_word(f, &col, "FILE", 4, USAGE_INDENT, USAGE_WIDTH);
}

/* "  --NAME ARG" then HELP's lines from column HELP_COL. */
static void help_option(FILE *f, const char *name, const char *arg, const char *help)
{
	char head[64];
	const char *s, *nl;

	snprintf(head, sizeof(head), "--%s%s%s", name, arg ? " " : "", arg ? arg : "");
	fprintf(f, "  %-*s", HELP_COL - 3, head);
	for (s = help; s; s = nl ? nl + 1 : NULL) {
		nl = strchr(s, '\n');
		fprintf(f, "%*s%.*s\n", s == help ? 1 : HELP_COL, "",
			nl ? (int)(nl - s) : (int)strlen(s), s);
	}
}

/* --top's help: what each kind that takes it keeps ("KIND: TOP; ..."; kinds in a row with
 * the same words share them: "heap, leaks: ..."), or ONLY's words alone. */
static void help_top(FILE *f, const struct an_report *only)
{
	const struct an_report *r, *next;
	char word[256];
	int col;

	col = fprintf(f, "  %-*s ", HELP_COL - 3, "--top N");
	if (only) {
		fprintf(f, "%s\n", only->top);
		return;
	}
	for (r = report_kind__next(NULL); r; r = next) {
		for (next = report_kind__next(r); next && !next->top;)
			next = report_kind__next(next);
		if (!r->top)
			continue;
		snprintf(word, sizeof(word), "%s%s", r->name,
			 next && !strcmp(next->top, r->top) ? "," : ":");
		put_word(f, &col, word, (int)strlen(word), HELP_COL, HELP_WIDTH);
		if (next && !strcmp(next->top, r->top))
			continue;
		for (const char *w = r->top; *w;) {
			size_t n = strcspn(w, " ");

			snprintf(word, sizeof(word), "%.*s%s", (int)n, w,
				 !w[n] && next ? ";" : "");
			put_word(f, &col, word, (int)strlen(word), HELP_COL, HELP_WIDTH);
			w += n;
			w += *w == ' ';
		}
	}
	fputc('\n', f);
}

/* The options' help: the common ones, then the kinds' (ONLY's, or every kind's in order). */
static void help_options(FILE *f, const struct an_report *only)
{
	const struct an_report *r;

	for (const struct report_option *x = core_options; x->name; x++) {
		if (x->help)
			help_option(f, x->name, x->arg, x->help);
		else if (!only || only->top)
			help_top(f, only);
	}
	for (r = only ? only : report_kind__next(NULL); r; r = only ? NULL : report_kind__next(r))
		for (const struct report_option *x = r->options; x && x->name; x++)
			help_option(f, x->name, x->arg, x->help);
}

/* A kind's summary, "  KIND" then its lines from column 14. */
static void help_summary(FILE *f, const struct an_report *r)
{
	const char *s, *nl;

	fprintf(f, "  %-10s", r->name);
	for (s = r->summary; s; s = nl ? nl + 1 : NULL) {
		nl = strchr(s, '\n');
		fprintf(f, "%*s%.*s\n", s == r->summary ? 1 : 13, "",
			nl ? (int)(nl - s) : (int)strlen(s), s);
	}
}

void report_cmd_usage(const struct analyze_cmd *c, FILE *f)
{
	(void)c;
	print_report_usage(f, NULL);
}

void report_cmd_help(const struct analyze_cmd *c, FILE *f)
{
	(void)c;
	fprintf(f, "Reports over the whole capture or a window of it:\n");
	for (const struct an_report *r = report_kind__next(NULL); r; r = report_kind__next(r))
		help_summary(f, r);
	help_options(f, NULL);
}

/* `report KIND --help`: the usage, summary and options of KIND alone. */
static void kind_help(const struct an_report *r, FILE *f)
{
	fprintf(f, "usage: ptop-analyze ");
	print_report_usage(f, r);
	fprintf(f, "\n\nReport %s over the whole capture or a window of it:\n", r->name);
	help_summary(f, r);
	help_options(f, r);
	fprintf(f, "\n%s", ANALYZE_EXIT_TABLE);
}

/* The getopt values of the options: the common ones from OPT_CORE, the kinds' from
 * OPT_KIND, one per name (report_names). */
enum { OPT_HELP = 'h', OPT_CORE = 0x100, OPT_KIND = 0x200, OPT_MAX = 0x400 };

/* The distinct names of the kinds' options into NAMES[0..*N) with the option that first
 * declares each (whether it takes a value). */
static void report_names(const struct report_option **names, size_t *n, size_t max)
{
	*n = 0;
	for (const struct an_report *r = report_kind__next(NULL); r; r = report_kind__next(r))
		for (const struct report_option *x = r->options; x && x->name; x++) {
			size_t k = 0;

			while (k < *n && strcmp(names[k]->name, x->name))
				k++;
			if (k == *n && *n < max)
				names[(*n)++] = x;
		}
}

/* A kind's option as the command line gave it, kept until the kind is known. */
struct given {
	const char *name, *arg;
};

/* The kinds other than R whose option NAME takes ARG, into BUF ("heap or apps"). Returns
 * whether every kind other than R that has NAME takes it. */
static bool kinds_taking(const struct an_report *r, const char *name, const char *arg, char *buf,
			 size_t len)
{
	const char *names[64];
	size_t n = 0, at = 0;
	bool all = true;

	for (const struct an_report *q = report_kind__next(NULL); q; q = report_kind__next(q)) {
		char err[256];
		void *s;
		int rc;

		if (q == r || !kind_option(q, name))
			continue;
		s = calloc(1, q->settings_size ?: 1);
		rc = s ? report_kind__set(q, s, name, arg, err, sizeof(err)) : -ENOMEM;
		free(s);
		if (!rc && n < sizeof(names) / sizeof(names[0]))
			names[n++] = q->name;
		all &= !rc;
	}
	buf[0] = '\0';
	for (size_t k = 0; k < n && at < len; k++)
		at += (size_t)snprintf(buf + at, len - at, "%s%s", !k ? "" : k + 1 < n ? ", " : " or ",
				       names[k]);
	return all;
}

/* Parse the kind's options G[0..N) into SETTINGS for R. 0, or the usage error's exit code:
 * an option R does not have ("--pid is for report cpu"; "--by live is for report heap" when
 * the value tells which), a value R refuses that another kind takes ("--by pss is for report
 * apps"), or R's own message ("--by takes live, bytes or count, not 'x'"). */
static int parse_kind_options(const struct an_report *r, void *settings, const struct given *g,
			      size_t n)
{
	char err[256], names[512];

	for (size_t k = 0; k < n; k++) {
		int rc = report_kind__set(r, settings, g[k].name, g[k].arg, err, sizeof(err));
		bool all;

		if (!rc)
			continue;
		all = kinds_taking(r, g[k].name, g[k].arg, names, sizeof(names));
		if (names[0] && (rc == -EINVAL || !all))
			return analyze_usage("report", "--%s %s is for report %s", g[k].name,
					     g[k].arg, names);
		if (rc == -EINVAL)
			return analyze_usage("report", "%s", err);
		report_kind__list(names, sizeof(names), g[k].name, ", ", " or ");
		return analyze_usage("report", "--%s is for report %s", g[k].name, names);
	}
	return 0;
}

/* The kind named by the first word of ARGV that names one (for `report KIND --help`). */
static const struct an_report *kind_in(int argc, char **argv)
{
	for (int k = 1; k < argc; k++)
		if (argv[k][0] != '-' && report_kind__find(argv[k]))
			return report_kind__find(argv[k]);
	return NULL;
}

/* The command line into CORE (the common options) and G[0..*NG) (the kinds' options, for
 * when the kind is known). -1 to go on, else the exit code (--help, a usage error). */
static int parse_args(int argc, char **argv, struct report_core *core, struct given *g,
		      size_t *ng)
{
	const struct report_option *names[OPT_MAX - OPT_KIND];
	struct option longopts[OPT_MAX - OPT_KIND + sizeof(core_options) / sizeof(core_options[0]) + 1];
	const struct an_report *help;
	char err[256], kinds[512];
	size_t nnames, k, nl = 0;
	int c;

	for (k = 0; core_options[k].name; k++)
		longopts[nl++] = (struct option){core_options[k].name,
						 core_options[k].arg ? required_argument : no_argument,
						 NULL, OPT_CORE + (int)k};
	report_names(names, &nnames, OPT_MAX - OPT_KIND);
	for (k = 0; k < nnames; k++)
		longopts[nl++] = (struct option){names[k]->name,
						 names[k]->arg ? required_argument : no_argument,
						 NULL, OPT_KIND + (int)k};
	longopts[nl++] = (struct option){"help", no_argument, NULL, OPT_HELP};
	longopts[nl] = (struct option){0};
	*ng = 0;
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		if (c >= OPT_KIND && c < OPT_MAX) {
			g[(*ng)++] = (struct given){names[c - OPT_KIND]->name, optarg};
		} else if (c >= OPT_CORE && c < OPT_KIND) {
			if (core_options[c - OPT_CORE].parse(core, optarg, err, sizeof(err)))
				return analyze_usage("report", "%s", err);
		} else if (c == OPT_HELP) {
			help = kind_in(argc, argv);
			if (help)
				kind_help(help, stdout);
			else
				analyze_cmd_help("report", stdout);
			return ANALYZE_EXIT_OK;
		} else if (c == ':') {
			return analyze_usage("report", "%s needs a value", argv[optind - 1]);
		} else {
			return analyze_usage("report", "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (argc - optind == 2)
		return -1;
	report_kind__list(kinds, sizeof(kinds), NULL, ", ", " or ");
	if (argc - optind < 2)
		return analyze_usage("report", "which report, and on which FILE? (%s)", kinds);
	return analyze_usage("report", "too many arguments: one report and one FILE");
}

/* The kind ARGV names and its settings (*SETTINGS, malloc'd) from G[0..NG), checked. -1 to
 * go on, else the exit code. */
static int kind_settings(char **argv, const struct given *g, size_t ng, struct report_opts *o,
			 const struct an_report **r, void **settings)
{
	char kinds[512];
	const char *msg;
	int rc;

	*r = report_kind__find(argv[0]);
	if (!*r) {
		report_kind__list(kinds, sizeof(kinds), NULL, ", ", " or ");
		return analyze_usage("report", "unknown report '%s': %s", argv[0], kinds);
	}
	*settings = calloc(1, (*r)->settings_size ?: 1);
	if (!*settings) {
		fprintf(stderr, "ptop-analyze report: %s\n", strerror(ENOMEM));
		return ANALYZE_EXIT_INTERNAL;
	}
	rc = parse_kind_options(*r, *settings, g, ng);
	if (rc)
		return rc;
	o->own = *settings;
	if ((*r)->check && (msg = (*r)->check(o)))
		return analyze_usage("report", "%s", msg);
	return -1;
}

int cmd_report(int argc, char **argv)
{
	struct report_core core = {0};
	struct report_opts *o = &core.o;
	const struct an_report *r = NULL;
	const char *kind, *path;
	char cid[DB_CAPTURE_ID_LEN];
	struct given *given;
	sqlite3 *db = NULL;
	void *settings = NULL;
	size_t ngiven;
	int rc;

	given = calloc((size_t)argc + 1, sizeof(*given));
	if (!given) {
		fprintf(stderr, "ptop-analyze report: %s\n", strerror(ENOMEM));
		return ANALYZE_EXIT_INTERNAL;
	}
	rc = parse_args(argc, argv, &core, given, &ngiven);
	if (rc < 0)
		rc = kind_settings(argv + optind, given, ngiven, o, &r, &settings);
	free(given);
	if (rc >= 0) {
		free(settings);
		return rc;
	}
	kind = argv[optind];
	path = argv[optind + 1];
	rc = analyze_open_checked("report", path, core.capture, r->tables, &db, cid);
	if (rc) {
		free(settings);
		return rc;
	}
	rc = report__run(r, db, cid, o, stdout); /* whole or not at all */
	free(settings);
	/* a DB without the report's tables, or a question the capture cannot answer
	 * (report vma --mapping of no mapping, --growth of one snapshot): said already */
	if (rc == -EPROTO || rc == -EBADMSG) { /* -EBADMSG: a corrupt DB, said already */
		sqlite3_close(db);
		return ANALYZE_EXIT_USAGE;
	}
	if (rc == -EIO && sqlite3_errcode(db) != SQLITE_OK && sqlite3_errcode(db) != SQLITE_ROW &&
	    sqlite3_errcode(db) != SQLITE_DONE)
		fprintf(stderr, "ptop-analyze report: reading %s: %s\n", path, sqlite3_errmsg(db));
	else if (rc == -ENOENT)
		fprintf(stderr, "ptop-analyze report: %s has no capture %s\n", path, cid);
	else if (rc)
		fprintf(stderr, "ptop-analyze report %s: %s\n", kind, strerror(-rc));
	sqlite3_close(db);
	if (rc == -ENOENT)
		return ANALYZE_EXIT_USAGE;
	return rc ? ANALYZE_EXIT_INTERNAL : ANALYZE_EXIT_OK;
}
