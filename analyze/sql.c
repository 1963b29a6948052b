/* sql.c — the `sql` command: read-only SQL over a ptop DB or a capture, as table, CSV or JSON. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyze/analyze.h"
#include "analyze/output.h"

/* True when PATH starts with the SQLite header (a DB, maybe with several captures). */
static bool is_sqlite_file(const char *path)
{
	char b[16];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return false;
	n = pread(fd, b, sizeof(b), 0);
	close(fd);
	return n == 16 && !memcmp(b, "SQLite format 3", 16);
}

/* Show where in QUERY the error at byte OFF is: its line and a caret. */
static void show_position(const char *query, int off)
{
	const char *line = query, *p, *end;
	int lineno = 1, col;

	if (off < 0 || (size_t)off > strlen(query))
		return;
	for (p = query; p < query + off; p++)
		if (*p == '\n') {
			line = p + 1;
			lineno++;
		}
	end = strchr(line, '\n');
	if (!end)
		end = line + strlen(line);
	col = (int)(query + off - line);
	fprintf(stderr, "  at line %d, column %d:\n  %.*s\n  %*s^\n", lineno, col + 1,
		(int)(end - line), line, col, "");
}

static int set_cell(struct table *t, sqlite3_stmt *st, int i)
{
	switch (sqlite3_column_type(st, i)) {
	case SQLITE_INTEGER:
		return table__set_int(t, (size_t)i, sqlite3_column_int64(st, i), NULL);
	case SQLITE_FLOAT:
		return table__set_real(t, (size_t)i, sqlite3_column_double(st, i), NULL);
	case SQLITE_NULL:
		return table__set_null(t, (size_t)i);
	case SQLITE_BLOB: {
		const unsigned char *b = sqlite3_column_blob(st, i);
		int n = sqlite3_column_bytes(st, i), k;
		char *hex = malloc((size_t)n * 2 + 4);
		int err;

		if (!hex)
			return -ENOMEM;
		hex[0] = 'x';
		hex[1] = '\'';
		for (k = 0; k < n; k++)
			sprintf(hex + 2 + 2 * k, "%02x", b[k]);
		strcpy(hex + 2 + 2 * n, "'");
		err = table__set_text(t, (size_t)i, hex);
		free(hex);
		return err;
	}
	default:
		return table__set_text(t, (size_t)i, (const char *)sqlite3_column_text(st, i));
	}
}

/* Prepare every statement of QUERY without running any: a statement SQLite cannot
 * prepare, or one that would write, is reported (by its number) and nothing runs.
 * Every statement is read-only, so none changes what the next one sees. Returns
 * ANALYZE_EXIT_OK, or the exit code after the message. */
static int check(sqlite3 *db, const char *query)
{
	const char *tail = query, *start;
	sqlite3_stmt *st = NULL;
	int stmt_no = 0, rc, code = ANALYZE_EXIT_OK;

	while (tail && *tail) {
		start = tail;
		rc = sqlite3_prepare_v2(db, start, -1, &st, &tail);
		if (rc != SQLITE_OK) {
			int off = sqlite3_error_offset(db);

			fprintf(stderr, "ptop-analyze sql: %s%s\n", sqlite3_errmsg(db),
				stmt_no ? " (nothing was run)" : "");
			if (off >= 0)
				show_position(query, (int)(start - query) + off);
			code = rc == SQLITE_NOMEM ? ANALYZE_EXIT_INTERNAL : ANALYZE_EXIT_USAGE;
			goto cleanup;
		}
		if (!st) /* whitespace or a comment */
			continue;
		stmt_no++;
		if (!sqlite3_stmt_readonly(st)) {
			fprintf(stderr,
				"ptop-analyze sql: statement %d would change the DB, and sql is "
				"read-only: %.*s\n(nothing was run; copy the DB and use sqlite3 to "
				"modify it)\n",
				stmt_no, (int)(tail - start), start);
			code = ANALYZE_EXIT_USAGE;
			goto cleanup;
		}
		sqlite3_finalize(st);
		st = NULL;
	}
	if (!stmt_no) {
		fprintf(stderr, "ptop-analyze sql: the query holds no statement\n");
		code = ANALYZE_EXIT_USAGE;
	}
cleanup:
	sqlite3_finalize(st);
	return code;
}

/* Run every statement of QUERY (checked first by check()); print each result set.
 * Returns the exit code. */
static int run(sqlite3 *db, const char *query, enum out_format fmt)
{
	const char *tail = query, *start;
	sqlite3_stmt *st = NULL;
	struct table *t = NULL;
	int sets = 0, stmt_no = 0, rc, n, i, err = 0, code = ANALYZE_EXIT_OK;

	while (tail && *tail) {
		start = tail;
		rc = sqlite3_prepare_v2(db, start, -1, &st, &tail);
		if (rc != SQLITE_OK) {
			int off = sqlite3_error_offset(db);

			fprintf(stderr, "ptop-analyze sql: %s\n", sqlite3_errmsg(db));
			if (off >= 0)
				show_position(query, (int)(start - query) + off);
			code = rc == SQLITE_NOMEM ? ANALYZE_EXIT_INTERNAL : ANALYZE_EXIT_USAGE;
			goto cleanup;
		}
		if (!st) /* whitespace or a comment */
			continue;
		stmt_no++;
		if (!sqlite3_stmt_readonly(st)) {
			fprintf(stderr,
				"ptop-analyze sql: statement %d would change the DB, and sql is "
				"read-only: %.*s\n(copy the DB and use sqlite3 to modify it)\n",
				stmt_no, (int)(tail - start), start);
			code = ANALYZE_EXIT_USAGE;
			goto cleanup;
		}
		n = sqlite3_column_count(st);
		if (n > 0) {
			const char **names = calloc((size_t)n, sizeof(*names));

			if (!names) {
				err = -ENOMEM;
				goto cleanup;
			}
			for (i = 0; i < n; i++)
				names[i] = sqlite3_column_name(st, i);
			t = table__new((size_t)n, names);
			free(names);
			if (!t || table__set_null_text(t, "NULL")) {
				err = -ENOMEM;
				goto cleanup;
			}
		}
		while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
			if (!t)
				continue;
			err = table__add_row(t);
			for (i = 0; i < n && !err; i++)
				err = set_cell(t, st, i);
			if (err)
				goto cleanup;
		}
		if (rc != SQLITE_DONE) {
			fprintf(stderr, "ptop-analyze sql: %s\n", sqlite3_errmsg(db));
			code = rc == SQLITE_NOMEM ? ANALYZE_EXIT_INTERNAL : ANALYZE_EXIT_USAGE;
			goto cleanup;
		}
		if (t) {
			if (sets++ && fmt != OUT_JSON)
				fputc('\n', stdout);
			err = table__print(t, stdout, fmt);
			if (err)
				goto cleanup;
			table__free(t);
			t = NULL;
		}
		sqlite3_finalize(st);
		st = NULL;
	}
	if (!stmt_no) {
		fprintf(stderr, "ptop-analyze sql: the query holds no statement\n");
		code = ANALYZE_EXIT_USAGE;
	}
cleanup:
	if (err) {
		fprintf(stderr, "ptop-analyze sql: %s\n", strerror(-err));
		code = err == -EIO ? ANALYZE_EXIT_USAGE : ANALYZE_EXIT_INTERNAL;
	}
	table__free(t);
	sqlite3_finalize(st);
	return code;
}

int cmd_sql(int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"format", required_argument, NULL, 'f'},
	    {"help", no_argument, NULL, 'h'},
	    {0},
	};
	enum out_format fmt = OUT_TEXT;
	char cid[DB_CAPTURE_ID_LEN], err[1024] = "";
	const char *path, *query;
	sqlite3 *db = NULL;
	int c, rc;

	optind = 0;
	opterr = 0;
	/* options may come anywhere; a query starting with '-' goes after "--" */
	while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		switch (c) {
		case 'f':
			if (out_format__parse(optarg, &fmt))
				return analyze_usage(
				    "sql", "--format takes text, csv or json, not '%s'", optarg);
			break;
		case 'h':
			analyze_cmd_help("sql", stdout);
			return ANALYZE_EXIT_OK;
		case ':':
			return analyze_usage("sql", "%s needs a value", argv[optind - 1]);
		default:
			return analyze_usage("sql", "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (argc - optind != 2)
		return analyze_usage("sql", "expected a DB (or capture) and one QUERY argument");
	path = argv[optind];
	query = argv[optind + 1];

	if (is_sqlite_file(path)) {
		rc = db__open(path, false, true, &db, err, sizeof(err));
		if (rc) {
			fprintf(stderr, "ptop-analyze sql: %s\n", err[0] ? err : strerror(-rc));
			return analyze_exit_code(rc);
		}
	} else {
		rc = analyze_open_input("sql", path, NULL, &db, cid);
		if (rc)
			return rc;
	}
	/* Belt and braces: the handle is read-only; no writes, no ATTACH of other files. */
	sqlite3_exec(db, "PRAGMA query_only = 1", NULL, NULL, NULL);
	sqlite3_limit(db, SQLITE_LIMIT_ATTACHED, 0);
	rc = check(db, query);
	if (rc == ANALYZE_EXIT_OK)
		rc = run(db, query, fmt);
	sqlite3_close(db);
	return rc;
}
