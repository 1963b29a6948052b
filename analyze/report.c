/* report.c — the `report` command: options, input, and the report it names (report_*.c). */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/analyze.h"
#include "analyze/report.h"

static const struct {
	const char *name;
	int (*fn)(sqlite3 *db, const char *capture_id, const struct report_opts *o, FILE *out);
	const char *tables; /* the sample tables it reads: db__check_tables */
} kinds[] = {
    {"syscalls", report_syscalls, "syscall_stat,syscall_hist"},
    {"cpu", report_cpu, "cpu_sample,cpu_profile,cpu_profile_stack"},
    {"mem", report_mem, "memory_sample,heap_snapshot"},
    {"vma", report_vma, "vma_snapshot"},
    {"heap", report_heap, "heap_snapshot"},
    {"leaks", report_leaks, "heap_snapshot"},
    {"cgroup", report_cgroup, "cgroup_sample,cpu_sample"},
    {"apps", report_apps, "cgroup_sample,memory_sample"},
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
	    {"help", no_argument, NULL, 'h'},
	    {0},
	};
	struct report_opts o = {0};
	const char *capture_opt = NULL, *kind, *path;
	char cid[DB_CAPTURE_ID_LEN], err[256], *buf = NULL;
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
		case 'h':
			analyze_cmd_help("report", stdout);
			return ANALYZE_EXIT_OK;
		case ':':
			return analyze_usage("report", "%s needs a value", argv[optind - 1]);
		default:
			return analyze_usage("report", "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (argc - optind != 2)
		return analyze_usage("report",
				     argc - optind < 2
					 ? "which report, and on which FILE? (syscalls, cpu, mem, "
					   "vma, heap, leaks, cgroup or apps)"
					 : "too many arguments: one report and one FILE");
	kind = argv[optind];
	path = argv[optind + 1];
	for (k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++)
		if (!strcmp(kinds[k].name, kind))
			break;
	if (k == sizeof(kinds) / sizeof(kinds[0]))
		return analyze_usage("report",
				     "unknown report '%s': syscalls, cpu, mem, vma, heap, leaks, "
				     "cgroup or apps",
				     kind);
	if (o.by && strcmp(kind, "heap"))
		return analyze_usage("report", "--by live|bytes|count is for report heap");
	if (o.apps_by && strcmp(kind, "apps"))
		return analyze_usage("report", "--by pss|uss|rss is for report apps");
	if (o.suppressions && strcmp(kind, "leaks"))
		return analyze_usage("report", "--suppressions is for report leaks");
	if ((o.mapping || o.growth) && strcmp(kind, "vma"))
		return analyze_usage("report", "--%s is for report vma",
				     o.mapping ? "mapping" : "growth");
	if (o.pid && strcmp(kind, "cpu"))
		return analyze_usage("report", "--pid is for report cpu");
	if (o.mapping && o.growth)
		return analyze_usage("report", "--mapping and --growth do not go together: "
					       "--growth compares all mappings");

	rc = analyze_open_checked("report", path, capture_opt, kinds[k].tables, &db, cid);
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
	rc = kinds[k].fn(db, cid, &o, out);
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
