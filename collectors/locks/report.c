/* report.c — `report locks`: the target's futex words by total wait, each with its waits,
 * the time inside them (total, mean, largest, the median's log2 bucket), the waits that
 * found the word changed or timed out, its wakes and the threads they woke, and who waits
 * and who wakes on it (each thread with its calls: a small graph of who waits on whom).
 * Totals over the recording, read at its end: a --window does not apply and says so.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/report.h"
#include <linux/types.h> /* the __u64 of locks.h */

#include "collectors/locks/locks.h"
#include "collectors/locks/report.h"

static const char words_sql[] =
	"SELECT w.tgid, w.uaddr, w.waits, w.wait_ns, w.wait_max_ns, w.eagain, w.timeouts, "
	"w.wakes, w.woken, w.hist, "
	"(SELECT group_concat(tid || ' (' || calls || ')', ', ') FROM (SELECT tid, calls "
	" FROM lock_thread t WHERE t.cap = w.cap AND t.tgid = w.tgid AND t.uaddr = w.uaddr "
	" AND t.role = 'wait' ORDER BY calls DESC, tid)), "
	"(SELECT json_group_array(json_object('tid', tid, 'calls', calls, 'ns', ns)) FROM "
	" (SELECT tid, calls, ns FROM lock_thread t WHERE t.cap = w.cap AND t.tgid = w.tgid "
	" AND t.uaddr = w.uaddr AND t.role = 'wait' ORDER BY calls DESC, tid)), "
	"(SELECT group_concat(tid || ' (' || calls || ')', ', ') FROM (SELECT tid, calls "
	" FROM lock_thread t WHERE t.cap = w.cap AND t.tgid = w.tgid AND t.uaddr = w.uaddr "
	" AND t.role = 'wake' ORDER BY calls DESC, tid)), "
	"(SELECT json_group_array(json_object('tid', tid, 'calls', calls, 'ns', ns)) FROM "
	" (SELECT tid, calls, ns FROM lock_thread t WHERE t.cap = w.cap AND t.tgid = w.tgid "
	" AND t.uaddr = w.uaddr AND t.role = 'wake' ORDER BY calls DESC, tid)) "
	"FROM lock_word w WHERE w.cap = ?1 ORDER BY w.wait_ns DESC, w.waits DESC, w.wakes DESC, "
	"w.tgid, w.uaddr";

static const char sum_sql[] =
	"SELECT COUNT(*), SUM(waits), SUM(wait_ns), SUM(wakes), SUM(woken) FROM lock_word "
	"WHERE cap = ?1";

enum { C_PID, C_WORD, C_WAITS, C_WAIT, C_MEAN, C_MAX, C_P50, C_EAGAIN, C_TIMEOUTS, C_WAKES,
       C_WOKEN, C_WAITERS, C_WAKERS, C_HIST, NC };
static const char *const col_names[NC] = { "pid",	"word",	      "waits",	 "wait_s",
					   "mean_wait_s", "max_wait_s", "p50_bucket_s", "eagain",
					   "timeouts",	"wakes",      "woken",	 "waiters",
					   "wakers",	"hist" };

int locks_sum__load(sqlite3 *db, const struct capture_meta *m, struct locks_sum *s)
{
	sqlite3_stmt *st = NULL;
	int rc;

	memset(s, 0, sizeof(*s));
	if (sqlite3_prepare_v2(db, sum_sql, -1, &st, NULL) != SQLITE_OK)
		return -EIO;
	sqlite3_bind_int64(st, 1, m->cap);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		s->words = (uint64_t)sqlite3_column_int64(st, 0);
		s->waits = (uint64_t)sqlite3_column_int64(st, 1);
		s->wait_ns = (uint64_t)sqlite3_column_int64(st, 2);
		s->wakes = (uint64_t)sqlite3_column_int64(st, 3);
		s->woken = (uint64_t)sqlite3_column_int64(st, 4);
		s->read = sqlite3_column_type(st, 1) != SQLITE_NULL ||
			  sqlite3_column_int64(st, 0) > 0;
	}
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 0 : -EIO;
}

/* The lower bound of the log2 bucket the median wait falls in, from HIST (a JSON array of
 * LK_HIST counts); -1 without waits. */
static int64_t p50_bucket(const char *hist, uint64_t waits)
{
	uint64_t seen = 0;
	const char *s = hist;

	if (!s || !waits)
		return -1;
	for (int b = 0; b < LK_HIST && *s; b++) {
		char *e;

		while (*s && (*s < '0' || *s > '9'))
			s++;
		seen += strtoull(s, &e, 10);
		if (e == s)
			break;
		s = e;
		if (2 * seen >= waits)
			return (int64_t)1 << b;
	}
	return -1;
}

static int set_ns(struct table *t, size_t col, int64_t ns)
{
	char b[32];

	return table__set_real(t, col, (double)ns / 1e9, fmt_ns(b, sizeof(b), (uint64_t)ns));
}

static int build_rows(sqlite3 *db, const struct capture_meta *m, struct table *t)
{
	sqlite3_stmt *st = NULL;
	int err = 0, rc;

	if (sqlite3_prepare_v2(db, words_sql, -1, &st, NULL) != SQLITE_OK)
		return -EIO;
	sqlite3_bind_int64(st, 1, m->cap);
	while (!err && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t waits = sqlite3_column_int64(st, 2), wait = sqlite3_column_int64(st, 3);
		const char *hist = (const char *)sqlite3_column_text(st, 9);
		const char *wtxt = (const char *)sqlite3_column_text(st, 10);
		const char *wjs = (const char *)sqlite3_column_text(st, 11);
		const char *ktxt = (const char *)sqlite3_column_text(st, 12);
		const char *kjs = (const char *)sqlite3_column_text(st, 13);
		int64_t p50 = p50_bucket(hist, (uint64_t)waits);
		char word[32];

		snprintf(word, sizeof(word), "0x%" PRIx64, (uint64_t)sqlite3_column_int64(st, 1));
		err = table__add_row(t);
		err = err ?: table__set_int(t, C_PID, sqlite3_column_int64(st, 0), NULL);
		err = err ?: table__set_text(t, C_WORD, word);
		err = err ?: table__set_int(t, C_WAITS, waits, NULL);
		err = err ?: set_ns(t, C_WAIT, wait);
		if (waits > 0) {
			err = err ?: set_ns(t, C_MEAN, wait / waits);
			err = err ?: set_ns(t, C_MAX, sqlite3_column_int64(st, 4));
		}
		if (p50 >= 0)
			err = err ?: set_ns(t, C_P50, p50);
		err = err ?: table__set_int(t, C_EAGAIN, sqlite3_column_int64(st, 5), NULL);
		err = err ?: table__set_int(t, C_TIMEOUTS, sqlite3_column_int64(st, 6), NULL);
		err = err ?: table__set_int(t, C_WAKES, sqlite3_column_int64(st, 7), NULL);
		err = err ?: table__set_int(t, C_WOKEN, sqlite3_column_int64(st, 8), NULL);
		err = err ?: table__set_json(t, C_WAITERS, wjs ? wjs : "[]", wtxt ? wtxt : "-");
		err = err ?: table__set_json(t, C_WAKERS, kjs ? kjs : "[]", ktxt ? ktxt : "-");
		if (hist)
			err = err ?: table__set_json(t, C_HIST, hist, NULL);
	}
	if (!err && rc != SQLITE_DONE)
		err = -EIO;
	sqlite3_finalize(st);
	return err;
}

static int report_locks(sqlite3 *db, const char *capture_id, const struct report_opts *o,
			FILE *out)
{
	static const size_t text_cols[] = { C_PID,   C_WORD,  C_WAITS,	 C_WAIT,   C_MEAN,
					    C_P50,   C_MAX,   C_EAGAIN, C_WAKES, C_WOKEN,
					    C_WAITERS, C_WAKERS };
	static const struct window whole; /* the totals are the whole recording's */
	struct drop_line *drops = NULL;
	struct table *t = NULL;
	struct locks_sum s;
	struct capture_meta m;
	struct probe_info p;
	size_t nd = 0;
	char a[32], b[32], c[32];
	struct json j;
	int err;

	err = capture_meta__load(db, capture_id, &m);
	err = err ?: probe__lookup(db, m.cap, "locks", &p);
	if (err)
		return err;
	report__begin(&j, out, o, "locks", &m);
	if (!probe__active(&p))
		return report__not_collected(&j, out, o, "locks", &p);
	t = table__new(NC, col_names);
	if (!t)
		return -ENOMEM;
	err = build_rows(db, &m, t);
	err = err ?: locks_sum__load(db, &m, &s);
	err = err ?: drops__load(db, &m, "locks", &whole, &drops, &nd);
	if (err)
		goto cleanup;
	switch (o->fmt) {
	case OUT_TEXT:
		fprintf(out,
			"locks (the whole recording%s): %" PRIu64 " futex words, %s waits for %s, "
			"%s wakes\n",
			o->win.has_start || o->win.has_end ? "; --window does not apply: totals "
							     "read at the end"
							   : "",
			s.words, fmt_count(a, sizeof(a), s.waits), fmt_ns(b, sizeof(b), s.wait_ns),
			fmt_count(c, sizeof(c), s.wakes));
		report__drops(NULL, out, o, "locks", drops, nd);
		if (!s.read)
			fprintf(out, "no totals: the recording did not end cleanly (they are read "
				     "at its end)\n");
		if (table__rows(t)) {
			fputc('\n', out);
			err = table__print_cols(t, out, OUT_TEXT, text_cols,
						sizeof(text_cols) / sizeof(text_cols[0]));
		}
		break;
	case OUT_CSV:
		report__drops(NULL, out, o, "locks", drops, nd);
		err = table__print(t, out, OUT_CSV);
		break;
	case OUT_JSON:
		json__kv_bool(&j, "collected", true);
		report__drops(&j, out, o, "locks", drops, nd);
		json__kv_bool(&j, "totals_read", s.read);
		json__kv_int(&j, "words", (int64_t)s.words);
		json__kv_int(&j, "waits", (int64_t)s.waits);
		json__kv_int(&j, "wait_ns", (int64_t)s.wait_ns);
		json__kv_int(&j, "wakes", (int64_t)s.wakes);
		json__key(&j, "futex_words");
		table__json(t, &j, NULL, 0);
		json__end_object(&j);
		err = json__end(&j);
		break;
	}
	if (!err && (fflush(out) || ferror(out)))
		err = -EIO;
cleanup:
	table__free(t);
	free(drops);
	return err;
}

static const struct an_report locks_report = {
	.name = "locks",
	.order = 180,
	.summary = "futex words by total wait: waits, wakes, who waits on whom",
	.tables = "lock_word",
	.run = report_locks,
};

const struct an_report *const locks_reports[] = { &locks_report, NULL };
