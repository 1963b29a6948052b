/* db_check.c — refuses a DB whose sample rows no capture can produce: a time that is
 * not a positive monotonic time, an interval that is zero, negative or reaches before
 * boot, samples of one series out of order or twice at the same time, figures that
 * are negative (a u64 past 2^63). The reports would turn those into confident
 * nonsense ("cpu seconds -0.000", two intervals merged into one). Each part declares
 * what holds of its tables (an_load.checks, analyze/load.h); this file names none.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/db.h"
#include "analyze/load.h"
#include "analyze/part.h"
#include "common/hash.h"

/* Fill ERR with "corrupt DB: TABLE row ROW: WHAT; what to do". -EBADMSG. */
static int offence(char *err, size_t errlen, const char *table, int64_t row, const char *what)
{
	snprintf(err, errlen,
		 "corrupt DB: %s row %" PRId64 ": %s; no capture loads so (the DB was altered, or "
		 "the capture file is damaged): load the capture again, or inspect it with "
		 "`ptop-analyze sql`",
		 table, row, what);
	return -EBADMSG;
}

/* The rows that fail a check, when the checks gather them (at load) instead of stopping at
 * the first (a command's check): their rowids, and what was wrong with the first. */
struct bad_rows {
	int64_t *row;
	size_t n, cap;
	char first[256];
};

/* Add ROW (WHAT wrong with it) to B. 0 or -ENOMEM. */
static int bad_rows_add(struct bad_rows *b, int64_t row, const char *what)
{
	if (b->n == b->cap) {
		size_t cap = b->cap ? 2 * b->cap : 16;
		int64_t *v = realloc(b->row, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		b->row = v;
		b->cap = cap;
	}
	if (!b->n)
		snprintf(b->first, sizeof(b->first), "%s", what);
	b->row[b->n++] = row;
	return 0;
}

/* Report the offence of ROW (WHAT) of T: into BAD when gathering (0 or -ENOMEM), else
 * as the command's refusal (-EBADMSG, ERR filled). */
static int offend(struct bad_rows *bad, char *err, size_t errlen, const char *table, int64_t row,
		  const char *what)
{
	if (bad)
		return bad_rows_add(bad, row, what);
	return offence(err, errlen, table, row, what);
}

/* The figures of T that cannot be negative, in one pass: the first row with one negative,
 * and which (every such row into BAD when not NULL). 0, -EBADMSG, -EIO as first_offence. */
static int check_nonneg(sqlite3 *db, int64_t cap, const struct an_table_check *t,
			struct bad_rows *bad, char *err, size_t errlen)
{
	char sql[2048], which[1024] = "", value[1024] = "", any[1024] = "", col[64];
	sqlite3_stmt *s = NULL;
	const char *p;
	size_t n;
	int rc, ret = 0;

	for (p = t->nonneg; *p; p += n + (p[n] == ',')) {
		n = strcspn(p, ",");
		snprintf(col, sizeof(col), "%.*s", (int)n, p);
		snprintf(which + strlen(which), sizeof(which) - strlen(which),
			 " WHEN %s < 0 THEN '%s'", col, col);
		snprintf(value + strlen(value), sizeof(value) - strlen(value),
			 " WHEN %s < 0 THEN %s", col, col);
		snprintf(any + strlen(any), sizeof(any) - strlen(any), "%s%s < 0",
			 any[0] ? " OR " : "", col);
	}
	snprintf(sql, sizeof(sql),
		 "SELECT rowid, CASE%s END, CASE%s END FROM %s WHERE cap = ?1 AND (%s)%s", which,
		 value, t->table, any, bad ? "" : " LIMIT 1");
	rc = sqlite3_prepare_v2(db, sql, -1, &s, NULL);
	if (rc != SQLITE_OK) {
		snprintf(err, errlen, "checking %s: %s", t->table, sqlite3_errmsg(db));
		return -EIO;
	}
	sqlite3_bind_int64(s, 1, cap);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		char what[256];

		snprintf(what, sizeof(what), "%s is %" PRId64 ": a count or size is never negative",
			 (const char *)sqlite3_column_text(s, 1), (int64_t)sqlite3_column_int64(s, 2));
		ret = offend(bad, err, errlen, t->table, sqlite3_column_int64(s, 0), what);
		if (ret || !bad)
			break;
	}
	if (ret || rc == SQLITE_ROW) {
		/* stopped at an offence (ERR filled), or BAD could not grow */
	} else if (rc == SQLITE_CORRUPT || rc == SQLITE_NOTADB) {
		snprintf(err, errlen, "corrupt DB: reading %s: %s; load the capture again", t->table,
			 sqlite3_errmsg(db));
		ret = -EBADMSG;
	} else if (rc != SQLITE_DONE) {
		snprintf(err, errlen, "checking %s: %s", t->table, sqlite3_errmsg(db));
		ret = -EIO;
	}
	sqlite3_finalize(s);
	return ret;
}

/* The last time seen of each series, by a hash of its key columns. */
struct series_map {
	uint64_t *key;
	int64_t *last;
	size_t n, cap; /* cap: a power of two, or 0 */
};

/* The slot of KEY in M (grown as needed); *FOUND says whether it was there. NULL: no memory. */
static int64_t *series_slot(struct series_map *m, uint64_t key, bool *found)
{
	size_t i;

	if (2 * (m->n + 1) > m->cap) {
		size_t cap = m->cap ? 2 * m->cap : 64;
		uint64_t *k = calloc(cap, sizeof(*k));
		int64_t *l = calloc(cap, sizeof(*l));

		if (!k || !l) {
			free(k);
			free(l);
			return NULL;
		}
		for (size_t j = 0; j < m->cap; j++) {
			if (!m->key[j])
				continue;
			for (i = m->key[j] & (cap - 1); k[i]; i = (i + 1) & (cap - 1))
				;
			k[i] = m->key[j];
			l[i] = m->last[j];
		}
		free(m->key);
		free(m->last);
		m->key = k;
		m->last = l;
		m->cap = cap;
	}
	key |= 1; /* 0 marks a free slot */
	for (i = key & (m->cap - 1); m->key[i] && m->key[i] != key; i = (i + 1) & (m->cap - 1))
		;
	*found = m->key[i] != 0;
	if (!*found) {
		m->key[i] = key;
		m->n++;
	}
	return &m->last[i];
}

/* FNV-1a over the series columns 3.. of the current row of S (type and value). */
static uint64_t series_key(sqlite3_stmt *s)
{
	uint64_t h = FNV1A64_INIT;
	int n = sqlite3_column_count(s);

	for (int c = 3; c < n; c++) {
		int type = sqlite3_column_type(s, c);
		const unsigned char *p = sqlite3_column_blob(s, c);
		int len = sqlite3_column_bytes(s, c);
		int64_t v = sqlite3_column_int64(s, c);

		h = fnv1a64_word(h, (uint64_t)type);
		if (type == SQLITE_INTEGER)
			p = (const unsigned char *)&v, len = sizeof(v);
		if (p && len > 0)
			h = fnv1a64_bytes(h, p, (size_t)len);
	}
	return h;
}

/* The times of T, in one pass in file order (no sort: a window function over a million
 * rows took seconds): time_ns a positive integer; interval_ns NULL or an integer in
 * (0, time_ns]; the samples of each series in strictly increasing time (the last time of
 * each series in a hash map). With BAD, every offending row goes there and the pass goes
 * on as if it were not there (the rows kept then pass). 0, -EBADMSG, -EIO, -ENOMEM. */
static int check_times(sqlite3 *db, int64_t cap, const struct an_table_check *t,
		       struct bad_rows *bad, char *err, size_t errlen)
{
	struct series_map m = {0};
	sqlite3_stmt *s = NULL;
	char sql[512];
	int rc, ret = 0;

	snprintf(sql, sizeof(sql), "SELECT rowid, %s, time_ns, %s FROM %s WHERE cap = ?1 ORDER BY %s",
		 t->interval ? "interval_ns" : "NULL", t->series, t->table, t->order);
	if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK) {
		snprintf(err, errlen, "checking %s: %s", t->table, sqlite3_errmsg(db));
		return -EIO;
	}
	sqlite3_bind_int64(s, 1, cap);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		int64_t row = sqlite3_column_int64(s, 0), iv = sqlite3_column_int64(s, 1);
		int64_t time = sqlite3_column_int64(s, 2), *last;
		int ivt = sqlite3_column_type(s, 1);
		char what[256];
		bool found;

		if (sqlite3_column_type(s, 2) != SQLITE_INTEGER || time <= 0) {
			snprintf(what, sizeof(what),
				 "time_ns is %" PRId64 ": a time is a positive monotonic time in ns",
				 time);
			ret = offend(bad, err, errlen, t->table, row, what);
			if (ret || !bad)
				break;
			continue;
		}
		if (ivt != SQLITE_NULL && (ivt != SQLITE_INTEGER || iv <= 0 || iv > time)) {
			snprintf(what, sizeof(what),
				 "interval_ns is %" PRId64 " (time_ns %" PRId64 "): an interval is "
				 "positive (NULL when unknown) and starts after boot",
				 iv, time);
			ret = offend(bad, err, errlen, t->table, row, what);
			if (ret || !bad)
				break;
			continue;
		}
		last = series_slot(&m, series_key(s), &found);
		if (!last) {
			snprintf(err, errlen, "checking %s: out of memory", t->table);
			ret = -ENOMEM;
			break;
		}
		if (found && *last >= time) {
			snprintf(what, sizeof(what),
				 "time_ns %" PRId64 " is not after the previous sample's %" PRId64
				 " of its series: samples out of order, or twice at one time",
				 time, *last);
			ret = offend(bad, err, errlen, t->table, row, what);
			if (ret || !bad)
				break;
			continue;
		}
		*last = time;
	}
	if (!ret && (rc == SQLITE_CORRUPT || rc == SQLITE_NOTADB)) {
		snprintf(err, errlen, "corrupt DB: reading %s: %s; load the capture again", t->table,
			 sqlite3_errmsg(db));
		ret = -EBADMSG;
	} else if (!ret && rc != SQLITE_DONE && rc != SQLITE_ROW) {
		snprintf(err, errlen, "checking %s: %s", t->table, sqlite3_errmsg(db));
		ret = -EIO;
	}
	sqlite3_finalize(s);
	free(m.key);
	free(m.last);
	return ret;
}

static int check_table(sqlite3 *db, int64_t cap, const struct an_table_check *t,
		       struct bad_rows *bad, char *err, size_t errlen)
{
	int ret = 0;

	if (t->timed)
		ret = check_times(db, cap, t, bad, err, errlen);
	if (!ret)
		ret = check_nonneg(db, cap, t, bad, err, errlen);
	return ret;
}

/* Whether NAME is one of the comma-separated LIST (NULL: all). */
static bool listed(const char *list, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = list; p && *p; p += strcspn(p, ",") + (p[strcspn(p, ",")] == ','))
		if (strcspn(p, ",") == n && !strncmp(p, name, n))
			return true;
	return !list;
}

int db__check_capture(sqlite3 *db, int64_t cap, char *err, size_t errlen)
{
	return db__check_tables(db, cap, NULL, err, errlen);
}

int db__check_tables(sqlite3 *db, int64_t cap, const char *tables_, char *err, size_t errlen)
{
	int64_t base = 0;
	sqlite3_stmt *s = NULL;
	int ret = 0;

	if (sqlite3_prepare_v2(db, "SELECT start_monotonic_ns FROM capture WHERE cap = ?1", -1,
			       &s, NULL) != SQLITE_OK) {
		snprintf(err, errlen, "checking the capture row: %s", sqlite3_errmsg(db));
		return -EIO;
	}
	sqlite3_bind_int64(s, 1, cap);
	if (sqlite3_step(s) == SQLITE_ROW && sqlite3_column_type(s, 0) != SQLITE_NULL) {
		base = sqlite3_column_int64(s, 0);
		if (base <= 0 || sqlite3_column_type(s, 0) != SQLITE_INTEGER) {
			snprintf(err, errlen,
				 "corrupt DB: capture %" PRId64 ": start_monotonic_ns is %" PRId64
				 ": a time is a positive monotonic time in ns; load the capture "
				 "again",
				 cap, base);
			ret = -EBADMSG;
		}
	}
	sqlite3_finalize(s);
	/* the tables the parts declare (analyze/load.h, an_load.checks): the timed ones first */
	for (int timed = 1; timed >= 0; timed--)
		for (const struct an_part *const *p = an_parts; !ret && *p; p++)
			for (const struct an_table_check *t = (*p)->load ? (*p)->load->checks : NULL;
			     !ret && t && t->table; t++)
				if (t->timed == timed && listed(tables_, t->table))
					ret = check_table(db, cap, t, NULL, err, errlen);
	if (!ret && errlen)
		err[0] = 0;
	return ret;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

int db__check_drop_bad_rows(sqlite3 *db, int64_t cap, db_bad_rows_fn fn, void *arg,
			    uint64_t *dropped, char *err, size_t errlen)
{
	struct bad_rows bad = {0};
	sqlite3_stmt *del = NULL;
	char sql[256];
	int ret = 0;

	*dropped = 0;
	/* as db__check_tables, the timed tables first; a table's rows are gathered (times,
	 * then signs: a row may offend twice) and deleted before the next is checked */
	for (int timed = 1; timed >= 0; timed--)
		for (const struct an_part *const *p = an_parts; !ret && *p; p++)
			for (const struct an_table_check *t = (*p)->load ? (*p)->load->checks
									 : NULL;
			     !ret && t && t->table; t++) {
				size_t n = 0;

				if (t->timed != timed)
					continue;
				bad.n = 0;
				ret = check_table(db, cap, t, &bad, err, errlen);
				if (ret || !bad.n)
					continue;
				qsort(bad.row, bad.n, sizeof(*bad.row), cmp_i64);
				snprintf(sql, sizeof(sql), "DELETE FROM %s WHERE rowid = ?1",
					 t->table);
				if (sqlite3_prepare_v2(db, sql, -1, &del, NULL) != SQLITE_OK) {
					snprintf(err, errlen, "checking %s: %s", t->table,
						 sqlite3_errmsg(db));
					ret = -EIO;
					continue;
				}
				for (size_t k = 0; !ret && k < bad.n; k++) {
					if (k && bad.row[k] == bad.row[k - 1])
						continue; /* offending twice: one row */
					sqlite3_bind_int64(del, 1, bad.row[k]);
					if (sqlite3_step(del) != SQLITE_DONE) {
						snprintf(err, errlen, "checking %s: %s", t->table,
							 sqlite3_errmsg(db));
						ret = -EIO;
					}
					sqlite3_reset(del);
					n++;
				}
				sqlite3_finalize(del);
				del = NULL;
				*dropped += n;
				if (!ret && fn)
					ret = fn(arg, (*p)->name, t->table, n, bad.first);
			}
	free(bad.row);
	return ret;
}
