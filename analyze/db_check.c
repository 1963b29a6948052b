/* db_check.c — refuses a DB whose sample rows no capture can produce: a time that is
 * not a positive monotonic time, an interval that is zero, negative or reaches before
 * boot, samples of one series out of order or twice at the same time, figures that
 * are negative (a u64 past 2^63). The reports would turn those into confident
 * nonsense ("cpu seconds -0.000", two intervals merged into one).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "analyze/db.h"

/* A table of samples, and what must hold of its rows. */
struct sample_table {
	const char *table;
	bool timed;	     /* has time_ns: positive, strictly increasing per series */
	bool interval;	     /* has interval_ns: NULL (unknown) or in (0, time_ns] */
	const char *order;   /* the column giving file order */
	const char *series;  /* the columns naming a series ("NULL": the whole table) */
	const char *nonneg;  /* figures that cannot be negative, comma separated */
};

static const struct sample_table tables[] = {
    {"cpu_sample", true, true, "rowid", "pid",
     "oncpu_ns,switches,user_ns,system_ns,threads,voluntary_switches,involuntary_switches,"
     "user_ticks_total,system_ticks_total,cg_usage_ns,cg_user_ns,cg_system_ns,cg_periods,"
     "cg_throttled_periods,cg_throttled_ns"},
    {"syscall_stat", true, true, "rowid", "pid, nr", "count,completed,errors,total_ns,unmatched"},
    {"memory_sample", true, true, "rowid", "pid",
     "vsize,statm_rss,statm_shared,statm_text,statm_data,rss,pss,uss,pss_anon,pss_file,"
     "pss_shmem,swap,swap_pss,minflt,majflt"},
    {"cpu_profile", true, true, "seq", "pid",
     "ticks,cpus,samples,no_user_stack,no_kernel_stack,lost"},
    {"heap_snapshot", true, true, "seq", "pid, lane, module",
     "sample_bytes,alloc_count,alloc_bytes,free_count,free_bytes,live_bytes,live_count,"
     "leak_bytes,leak_count,sites"},
    {"cgroup_sample", true, true, "seq", "NULL", "current,processes,covered,walk_ns"},
    {"vma_snapshot", true, false, "snapshot_id", "NULL", "vma_count,walk_ns"},
    {"syscall_hist", false, false, NULL, NULL, "count"},
    {"cpu_profile_stack", false, false, NULL, NULL, "count"},
};

/* Run SQL (bound ?1 = CAP); a row is the first offence: fill ERR from FMT with the
 * row's columns 0..2 as integers, return -EBADMSG. No row: 0. */
static int first_offence(sqlite3 *db, int64_t cap, const char *sql, const char *table,
			 const char *fmt, char *err, size_t errlen)
{
	sqlite3_stmt *s = NULL;
	int rc, ret = 0;

	rc = sqlite3_prepare_v2(db, sql, -1, &s, NULL);
	if (rc != SQLITE_OK) {
		snprintf(err, errlen, "checking %s: %s", table, sqlite3_errmsg(db));
		return -EIO;
	}
	sqlite3_bind_int64(s, 1, cap);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW) {
		int64_t a = sqlite3_column_int64(s, 0), b = sqlite3_column_int64(s, 1),
			c = sqlite3_column_int64(s, 2);
		char what[256];

		snprintf(what, sizeof(what), fmt, b, c);
		snprintf(err, errlen,
			 "corrupt DB: %s row %" PRId64 ": %s; no capture loads so (the DB was "
			 "altered, or the capture file is damaged): load the capture again, or "
			 "inspect it with `ptop-analyze sql`",
			 table, a, what);
		ret = -EBADMSG;
	} else if (rc == SQLITE_CORRUPT || rc == SQLITE_NOTADB) {
		snprintf(err, errlen, "corrupt DB: reading %s: %s; load the capture again", table,
			 sqlite3_errmsg(db));
		ret = -EBADMSG;
	} else if (rc != SQLITE_DONE) {
		snprintf(err, errlen, "checking %s: %s", table, sqlite3_errmsg(db));
		ret = -EIO;
	}
	sqlite3_finalize(s);
	return ret;
}

static int check_table(sqlite3 *db, int64_t cap, const struct sample_table *t, char *err,
		       size_t errlen)
{
	char sql[1024], col[64], fmt[160];
	const char *p;
	int ret = 0;

	if (t->timed) {
		snprintf(sql, sizeof(sql),
			 "SELECT rowid, time_ns, 0 FROM %s WHERE cap = ?1 AND "
			 "(time_ns <= 0 OR typeof(time_ns) <> 'integer') LIMIT 1",
			 t->table);
		ret = first_offence(db, cap, sql, t->table,
				    "time_ns is %" PRId64 ": a time is a positive monotonic time in "
				    "ns",
				    err, errlen);
	}
	if (!ret && t->interval) {
		snprintf(sql, sizeof(sql),
			 "SELECT rowid, interval_ns, time_ns FROM %s WHERE cap = ?1 AND "
			 "interval_ns IS NOT NULL AND (interval_ns <= 0 OR interval_ns > time_ns "
			 "OR typeof(interval_ns) <> 'integer') LIMIT 1",
			 t->table);
		ret = first_offence(db, cap, sql, t->table,
				    "interval_ns is %" PRId64 " (time_ns %" PRId64 "): an interval "
				    "is positive (NULL when unknown) and starts after boot",
				    err, errlen);
	}
	if (!ret && t->timed) {
		snprintf(sql, sizeof(sql),
			 "SELECT r, time_ns, prev FROM (SELECT rowid AS r, time_ns, LAG(time_ns) "
			 "OVER (PARTITION BY %s ORDER BY %s) AS prev FROM %s WHERE cap = ?1) "
			 "WHERE prev >= time_ns LIMIT 1",
			 t->series, t->order, t->table);
		ret = first_offence(db, cap, sql, t->table,
				    "time_ns %" PRId64 " is not after the previous sample's "
				    "%" PRId64 " of its series: samples out of order, or twice at "
				    "one time",
				    err, errlen);
	}
	for (p = t->nonneg; !ret && *p;) {
		size_t n = strcspn(p, ",");

		snprintf(col, sizeof(col), "%.*s", (int)n, p);
		p += n + (p[n] == ',');
		snprintf(sql, sizeof(sql),
			 "SELECT rowid, %s, 0 FROM %s WHERE cap = ?1 AND %s < 0 LIMIT 1", col,
			 t->table, col);
		snprintf(fmt, sizeof(fmt), "%s is %%" PRId64 ": a count or size is never negative",
			 col);
		ret = first_offence(db, cap, sql, t->table, fmt, err, errlen);
	}
	return ret;
}

int db__check_capture(sqlite3 *db, int64_t cap, char *err, size_t errlen)
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
	for (size_t k = 0; !ret && k < sizeof(tables) / sizeof(tables[0]); k++)
		ret = check_table(db, cap, &tables[k], err, errlen);
	return ret;
}
