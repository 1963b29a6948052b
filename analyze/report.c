/* report.c — the `report` command: options, input, and the report it names, found among
 * the reports of the collectors' parts (collectors/NAME/report.c). */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/analyze.h"
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
	return best;
}

const struct an_report *report_kind__find(const char *name)
{
	for (const struct an_report *r = report_kind__next(NULL); r; r = report_kind__next(r))
		if (!strcmp(r->name, name))
			return r;
	return NULL;
}

void report_kind__list(char *buf, size_t len, unsigned takes, const char *sep, const char *last)
{
	const struct an_report *r, *next;
	size_t at = 0;
	int n;

	if (!len)
		return;
	buf[0] = '\0';
	for (r = report_kind__next(NULL); r; r = next) {
		for (next = report_kind__next(r); next && (next->takes & takes) != takes;)
			next = report_kind__next(next);
		if ((r->takes & takes) != takes)
			continue;
		n = snprintf(buf + at, len - at, "%s%s", !at ? "" : next ? sep : last, r->name);
		if (n < 0 || (size_t)n >= len - at) {
			buf[at] = '\0'; /* cut short after a whole name */
			return;
		}
		at += (size_t)n;
	}
}

/* The options of enum report_opt as their usage error names them, in the order they are
 * checked. */
static const struct {
	unsigned opt;
	const char *what;
} kind_opts[] = {
    {REPORT_OPT_HEAP_BY, "--by live|bytes|count"},
    {REPORT_OPT_APPS_BY, "--by pss|uss|rss"},
    {REPORT_OPT_SUPPRESSIONS, "--suppressions"},
    {REPORT_OPT_MAPPING, "--mapping"},
    {REPORT_OPT_GROWTH, "--growth"},
    {REPORT_OPT_PID, "--pid"},
    {REPORT_OPT_TABLE, "--table"},
    {REPORT_OPT_FILE, "--file"},
};

int cmd_report(int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"format", required_argument, NULL, 'f'},
	    {"window", required_argument, NULL, 'w'},
	    {"sort", required_argument, NULL, 's'},
	    {"top", required_argument, NULL, 't'},
	    {"capture", required_argument, NULL, 'c'},
	    {"symbol-cache", required_argument, NULL, 'S'},
	    {"debuginfod", no_argument, NULL, 'd'},
	    {"debuginfod-urls", required_argument, NULL, 'u'},
	    {"by", required_argument, NULL, 'b'},
	    {"suppressions", required_argument, NULL, 'P'},
	    {"mapping", required_argument, NULL, 'M'},
	    {"growth", no_argument, NULL, 'G'},
	    {"pid", required_argument, NULL, 'p'},
	    {"table", required_argument, NULL, 'T'},
	    {"file", required_argument, NULL, 'F'},
	    {"help", no_argument, NULL, 'h'},
	    {0},
	};
	struct report_opts o = {0};
	const struct an_report *r;
	const char *capture_opt = NULL, *kind, *path, *msg;
	char cid[DB_CAPTURE_ID_LEN], err[256], names[512], *buf = NULL;
	unsigned given;
	sqlite3 *db = NULL;
	FILE *out;
	size_t k, len = 0;
	int c, rc;

	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		switch (c) {
		case 'f':
			if (out_format__parse(optarg, &o.fmt))
				return analyze_usage(
				    "report", "--format takes text, json or csv, not '%s'", optarg);
			break;
		case 'w':
			if (window__parse(optarg, &o.win, err, sizeof(err)))
				return analyze_usage("report", "%s", err);
			break;
		case 's':
			if (!strcmp(optarg, "count"))
				o.sort = SORT_COUNT;
			else if (!strcmp(optarg, "total"))
				o.sort = SORT_TOTAL;
			else
				return analyze_usage(
				    "report", "--sort takes count or total, not '%s'", optarg);
			break;
		case 't': {
			char *end;
			unsigned long long n;

			errno = 0;
			n = strtoull(optarg, &end, 10);
			if (errno || end == optarg || *end || optarg[0] == '-')
				return analyze_usage("report", "--top takes a number, not '%s'",
						     optarg);
			o.top = (size_t)n;
			break;
		}
		case 'c':
			capture_opt = optarg;
			break;
		case 'S':
			o.symbol_cache = optarg;
			break;
		case 'd':
			o.debuginfod = true;
			break;
		case 'u':
			o.debuginfod_urls = optarg;
			o.debuginfod = true;
			break;
		case 'b':
			if (!strcmp(optarg, "live"))
				o.by = HEAP_BY_LIVE;
			else if (!strcmp(optarg, "bytes"))
				o.by = HEAP_BY_BYTES;
			else if (!strcmp(optarg, "count"))
				o.by = HEAP_BY_COUNT;
			else if (!strcmp(optarg, "pss"))
				o.apps_by = APPS_BY_PSS;
			else if (!strcmp(optarg, "uss"))
				o.apps_by = APPS_BY_USS;
			else if (!strcmp(optarg, "rss"))
				o.apps_by = APPS_BY_RSS;
			else
				return analyze_usage("report",
						     "--by takes live, bytes or count (heap), or "
						     "pss, uss or rss (apps), not '%s'",
						     optarg);
			break;
		case 'P':
			o.suppressions = optarg;
			break;
		case 'M':
			o.mapping = optarg;
			break;
		case 'G':
			o.growth = true;
			break;
		case 'p':
			if (analyze_parse_pid(optarg, &o.pid))
				return analyze_usage("report", "--pid takes a process id, not '%s'",
						     optarg);
			break;
		case 'T':
			o.table = optarg;
			break;
		case 'F':
			o.file = optarg;
			break;
		case 'h':
			analyze_cmd_help("report", stdout);
			return ANALYZE_EXIT_OK;
		case ':':
			return analyze_usage("report", "%s needs a value", argv[optind - 1]);
		default:
			return analyze_usage("report", "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (argc - optind != 2) {
		report_kind__list(names, sizeof(names), 0, ", ", " or ");
		if (argc - optind < 2)
			return analyze_usage("report", "which report, and on which FILE? (%s)",
					     names);
		return analyze_usage("report", "too many arguments: one report and one FILE");
	}
	kind = argv[optind];
	path = argv[optind + 1];
	r = report_kind__find(kind);
	if (!r) {
		report_kind__list(names, sizeof(names), 0, ", ", " or ");
		return analyze_usage("report", "unknown report '%s': %s", kind, names);
	}
	given = (o.by ? REPORT_OPT_HEAP_BY : 0) | (o.apps_by ? REPORT_OPT_APPS_BY : 0) |
		(o.suppressions ? REPORT_OPT_SUPPRESSIONS : 0) |
		(o.mapping ? REPORT_OPT_MAPPING : 0) | (o.growth ? REPORT_OPT_GROWTH : 0) |
		(o.pid ? REPORT_OPT_PID : 0) | (o.table ? REPORT_OPT_TABLE : 0) |
		(o.file ? REPORT_OPT_FILE : 0);
	for (k = 0; k < sizeof(kind_opts) / sizeof(kind_opts[0]); k++) {
		if (!(given & kind_opts[k].opt) || (r->takes & kind_opts[k].opt))
			continue;
		report_kind__list(names, sizeof(names), kind_opts[k].opt, ", ", " or ");
		return analyze_usage("report", "%s is for report %s", kind_opts[k].what, names);
	}
	if (r->check && (msg = r->check(&o)))
		return analyze_usage("report", "%s", msg);

	rc = analyze_open_checked("report", path, capture_opt, r->tables, &db, cid);
	if (rc)
		return rc;
	/* The report is written whole or not at all: into memory first, so an error found
	 * half-way (report vma --growth of one snapshot) leaves no fragment of JSON or of a
	 * table on stdout, only its message on stderr. */
	out = open_memstream(&buf, &len);
	if (!out) {
		fprintf(stderr, "ptop-analyze report: %s\n", strerror(errno));
		sqlite3_close(db);
		return ANALYZE_EXIT_INTERNAL;
	}
	rc = r->run(db, cid, &o, out);
	if (fclose(out) && !rc)
		rc = -ENOMEM;
	if (!rc && len && (fwrite(buf, 1, len, stdout) != len || fflush(stdout)))
		rc = -errno ?: -EIO;
	free(buf);
	/* a DB without the report's tables, or a question the capture cannot answer
	 * (report vma --mapping of no mapping, --growth of one snapshot): said already */
	if (rc == -EPROTO || rc == -EBADMSG) { /* -EBADMSG: a corrupt DB, said already */
		sqlite3_close(db);
		return ANALYZE_EXIT_USAGE;
	}
	if (rc == -EINVAL && o.suppressions) { /* a bad --suppressions file: said already */
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
