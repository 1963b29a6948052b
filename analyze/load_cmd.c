/* load_cmd.c — the `load` command: load captures into a SQLite DB through the DB layer (db.h). */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <string.h>

#include "analyze/analyze.h"
#include "analyze/output.h"

#define LOAD_DEFAULT_DB "ptop.db"

int cmd_load(int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"db", required_argument, NULL, 'd'},
	    {"replace", no_argument, NULL, 'r'},
	    {"help", no_argument, NULL, 'h'},
	    {0},
	};
	const char *dbpath = LOAD_DEFAULT_DB;
	char err[1024] = "", id[DB_CAPTURE_ID_LEN], c1[32], c2[32];
	bool replace = false;
	sqlite3 *db = NULL;
	int c, i, rc, code = ANALYZE_EXIT_OK;

	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		switch (c) {
		case 'd':
			dbpath = optarg;
			break;
		case 'r':
			replace = true;
			break;
		case 'h':
			analyze_cmd_help("load", stdout);
			return ANALYZE_EXIT_OK;
		case ':':
			return analyze_usage("load", "%s needs a value", argv[optind - 1]);
		default:
			return analyze_usage("load", "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind >= argc)
		return analyze_usage("load", "which capture FILE(s)?");

	rc = db__open(dbpath, true, false, &db, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "ptop-analyze load: %s\n", err[0] ? err : strerror(-rc));
		return analyze_exit_code(rc);
	}
	printf("DB %s\n", dbpath);
	for (i = optind; i < argc; i++) {
		struct load_stats st;

		memset(&st, 0, sizeof(st));
		err[0] = '\0';
		rc = db__load_capture(db, argv[i], replace, id, &st, err, sizeof(err));
		if (rc) {
			int ec = analyze_exit_code(rc);

			fprintf(stderr, "ptop-analyze load: %s: %s\n", argv[i],
				err[0] ? err : strerror(-rc));
			if (ec == ANALYZE_EXIT_INTERNAL || code == ANALYZE_EXIT_OK)
				code = ec;
			continue;
		}
		if (st.already_loaded) {
			printf("%s: capture %s already loaded (--replace reloads it)\n", argv[i],
			       id);
			continue;
		}
		printf("%s: capture %s: %s records, %s rows", argv[i], id,
		       fmt_count(c1, sizeof(c1), st.records), fmt_count(c2, sizeof(c2), st.rows));
		if (st.skipped)
			printf("; %s skipped (not decodable)",
			       fmt_count(c1, sizeof(c1), st.skipped));
		if (st.bad_rows)
			printf("; %s rows left out (values no recorder writes)",
			       fmt_count(c2, sizeof(c2), st.bad_rows));
		if (!st.complete)
			printf("; INCOMPLETE: %s",
			       st.read_message[0] ? st.read_message : "no trailer (cut short)");
		putchar('\n');
	}
	if (fflush(stdout) || ferror(stdout))
		code = ANALYZE_EXIT_INTERNAL;
	if (sqlite3_close(db) != SQLITE_OK) {
		fprintf(stderr, "ptop-analyze load: closing %s failed\n", dbpath);
		code = ANALYZE_EXIT_INTERNAL;
	}
	return code;
}
