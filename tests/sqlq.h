/* sqlq.h — one-value SQL queries for the test suites: the first column of the first
 * row of a printf-formatted query, failing the test when there is none. Include it
 * after <cmocka.h> and <sqlite3.h>. */
#ifndef PTOP_TESTS_SQLQ_H
#define PTOP_TESTS_SQLQ_H

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>

/* Prepare and step the query; fails the test unless it gives a row. */
static sqlite3_stmt *sqlq__row(sqlite3 *db, const char *fmt, va_list ap, char *sql, size_t len)
{
	sqlite3_stmt *s = NULL;

	vsnprintf(sql, len, fmt, ap);
	if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK)
		fail_msg("prepare %s: %s", sql, sqlite3_errmsg(db));
	if (sqlite3_step(s) != SQLITE_ROW)
		fail_msg("no row: %s", sql);
	return s;
}

/* The value as an integer; a NULL fails the test. */
static __attribute__((unused, format(printf, 2, 3))) int64_t q_int(sqlite3 *db,
								    const char *fmt, ...)
{
	char sql[1024];
	sqlite3_stmt *s;
	int64_t v;
	va_list ap;

	va_start(ap, fmt);
	s = sqlq__row(db, fmt, ap, sql, sizeof(sql));
	va_end(ap);
	if (sqlite3_column_type(s, 0) == SQLITE_NULL)
		fail_msg("NULL where a number was expected: %s", sql);
	v = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	return v;
}

/* The value as text, "<NULL>" for NULL. The result lives until 4 more calls. */
static __attribute__((unused, format(printf, 2, 3))) const char *q_text(sqlite3 *db,
									 const char *fmt, ...)
{
	static char out[4][1024];
	static int k;
	char sql[1024];
	sqlite3_stmt *s;
	va_list ap;

	k = (k + 1) % 4;
	va_start(ap, fmt);
	s = sqlq__row(db, fmt, ap, sql, sizeof(sql));
	va_end(ap);
	snprintf(out[k], sizeof(out[k]), "%s",
		 sqlite3_column_type(s, 0) == SQLITE_NULL ? "<NULL>"
							  : (const char *)sqlite3_column_text(s, 0));
	sqlite3_finalize(s);
	return out[k];
}

#endif
