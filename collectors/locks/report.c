/* report.c — `report locks`: the target's futex words by total wait, each with its waits,
 * the time inside them (total, mean, largest, the median's log2 bucket), the waits that
 * found the word changed or timed out, its wakes and the threads they woke, who waits and
 * who wakes on it (each thread with its calls: a small graph of who waits on whom), and
 * its call sites: the waiters' user stacks, each named by its first frame past the C
 * library's lock code (pthread_mutex_lock's caller, not __lll_lock_wait).
 * Over the window: the sums of the intervals in it (the longest wait, the longest of
 * theirs; the histogram, their buckets summed).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/report.h"
#include "analyze/symbolize.h"
#include <linux/types.h> /* the __u64 of locks.h */

#include "collectors/locks/locks.h"
#include "collectors/locks/report.h"

/* An interval's rows are in the window when its midpoint is (report.h); the window's
 * sums per word, share and site. */
#define LK_IN_WINDOW(t)                                                                    \
	t ".cap = ?1 AND " t ".time_ns - COALESCE(" t ".interval_ns, 0) / 2 >= ?2 AND " t      \
	".time_ns - COALESCE(" t ".interval_ns, 0) / 2 < ?3"

#define LK_THREADS(role)                                                                   \
	"(SELECT group_concat(tid || ' (' || calls || ')', ', ') FROM (SELECT tid, calls "   \
	" FROM thr WHERE thr.tgid = w.tgid AND thr.uaddr = w.uaddr AND thr.role = '" role     \
	"' ORDER BY calls DESC, tid)), "                                                     \
	"(SELECT json_group_array(json_object('tid', tid, 'calls', calls, 'ns', ns)) FROM "   \
	" (SELECT tid, calls, ns FROM thr WHERE thr.tgid = w.tgid AND thr.uaddr = w.uaddr "  \
	" AND thr.role = '" role "' ORDER BY calls DESC, tid))"

static const char words_sql[] =
	"WITH win AS (SELECT * FROM lock_word x WHERE " LK_IN_WINDOW("x") "), "
	"thr AS (SELECT tgid, uaddr, tid, role, SUM(calls) AS calls, SUM(ns) AS ns "
	" FROM lock_thread y WHERE " LK_IN_WINDOW("y") " GROUP BY tgid, uaddr, tid, role), "
	"w AS (SELECT tgid, uaddr, SUM(waits) AS waits, SUM(wait_ns) AS wait_ns, "
	" MAX(wait_max_ns) AS wait_max_ns, SUM(eagain) AS eagain, SUM(timeouts) AS timeouts, "
	" SUM(wakes) AS wakes, SUM(woken) AS woken FROM win GROUP BY tgid, uaddr) "
	"SELECT w.tgid, w.uaddr, w.waits, w.wait_ns, w.wait_max_ns, w.eagain, w.timeouts, "
	"w.wakes, w.woken, "
	"(SELECT json_group_array(n) FROM (SELECT SUM(h.value) AS n FROM win, json_each(win.hist) h "
	" WHERE win.tgid = w.tgid AND win.uaddr = w.uaddr GROUP BY h.key ORDER BY h.key)), "
	LK_THREADS("wait") ", " LK_THREADS("wake") " "
	"FROM w ORDER BY w.wait_ns DESC, w.waits DESC, w.wakes DESC, w.tgid, w.uaddr";

static const char sites_sql[] =
	"SELECT tgid, uaddr, stack_id, MAX(user_stacks), SUM(waits) AS n, SUM(ns) AS t "
	"FROM lock_site z WHERE " LK_IN_WINDOW("z") " GROUP BY tgid, uaddr, stack_id "
	"ORDER BY n DESC, t DESC, tgid, uaddr, stack_id";

static const char sum_sql[] =
	"SELECT COUNT(DISTINCT tgid || ':' || uaddr), SUM(waits), SUM(wait_ns), SUM(wakes), "
	"SUM(woken) FROM lock_word x WHERE " LK_IN_WINDOW("x");

enum { C_PID, C_WORD, C_WAITS, C_WAIT, C_MEAN, C_MAX, C_P50, C_EAGAIN, C_TIMEOUTS, C_WAKES,
       C_WOKEN, C_WAITERS, C_WAKERS, C_SITE, C_HIST, NC };
static const char *const col_names[NC] = { "pid",	"word",	      "waits",	 "wait_s",
					   "mean_wait_s", "max_wait_s", "p50_bucket_s", "eagain",
					   "timeouts",	"wakes",      "woken",	 "waiters",
					   "wakers",	"site",	      "hist" };

/* The call sites: the waiters' stacks, named */
enum { S_PID, S_WORD, S_WAITS, S_WAIT, S_SITE, S_STACK_ID, S_STACK, NS };
static const char *const site_names[NS] = { "pid",  "word",	"waits", "wait_s",
					    "site", "stack_id", "stack" };

#define SITE_FRAMES 6 /* text shows this many frames of a stack */

/* One waiting call site, named. */
struct lk_site_row {
	int64_t tgid, uaddr;
	char site[256];	 /* the first frame outside the C library's lock code; "" unknown */
	char *stack;	 /* every frame, innermost first, " < " between; NULL: no stack */
	char *shown;	 /* the first SITE_FRAMES */
	int64_t stack_id, waits, ns;
};

struct lk_sites {
	struct lk_site_row *r;
	size_t n;
	char user_stacks[16];
};

static void sites_free(struct lk_sites *s)
{
	for (size_t i = 0; i < s->n; i++) {
		free(s->r[i].stack);
		free(s->r[i].shown);
	}
	free(s->r);
	memset(s, 0, sizeof(*s));
}

/* Is MODULE the C library or the loader (where pthread_mutex_lock and __lll_lock_wait
 * live), which a lock's call site is named past? */
static bool libc_module(const char *module)
{
	const char *b = module ? strrchr(module, '/') : NULL;

	b = b ? b + 1 : module ? module : "";
	return !strncmp(b, "libc.so", 7) || !strncmp(b, "libc-", 5) ||
	       !strncmp(b, "libpthread", 10) || !strncmp(b, "ld-linux", 8) ||
	       !strncmp(b, "ld-musl", 7) || !strncmp(b, "libc.musl", 9);
}

/* PS's frames FROM..TO (at most MAX) named and joined by " < ", malloc'd. */
static char *frames_join(const struct prof_stack *ps, size_t max)
{
	char *buf = NULL, name[512];
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	for (size_t d = 0; d < ps->n && d < max; d++) {
		prof_loc__name(ps->loc[d], 0, name, sizeof(name));
		fprintf(f, "%s%s", d ? " < " : "", name);
	}
	if (fclose(f)) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* By waits, then time, the most first; then by word and stack id (a stable order). */
static int site_cmp(const void *a, const void *b)
{
	const struct lk_site_row *x = a, *y = b;

	if (x->waits != y->waits)
		return x->waits > y->waits ? -1 : 1;
	if (x->ns != y->ns)
		return x->ns > y->ns ? -1 : 1;
	if (x->tgid != y->tgid)
		return x->tgid < y->tgid ? -1 : 1;
	if (x->uaddr != y->uaddr)
		return x->uaddr < y->uaddr ? -1 : 1;
	return (x->stack_id > y->stack_id) - (x->stack_id < y->stack_id);
}

/* The capture's call sites, symbolized as report heap names its stacks; the copies of one
 * site (stacks that unwind to the same frames) summed. */
static int sites_load(sqlite3 *db, const struct capture_meta *m, const struct report_opts *o,
		      struct lk_sites *out)
{
	struct profile *stacks = NULL;
	sqlite3_stmt *st = NULL;
	size_t cap = 0;
	int err = 0, rc;

	memset(out, 0, sizeof(*out));
	err = report__stacks(db, m, o, "locks", &stacks);
	if (err)
		return err;
	if (report__prepare(db, sites_sql, m, &o->win, &st)) {
		profile__free(stacks);
		return -EIO;
	}
	while (!err && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t sid = report__col(st, 2, 0);
		const struct prof_stack *ps = sid > 0 ? profile__stack(stacks, sid) : NULL;
		const char *us = (const char *)sqlite3_column_text(st, 3);
		struct lk_site_row *r;

		if (out->n == cap) {
			size_t nc = cap ? 2 * cap : 32;
			struct lk_site_row *nr = realloc(out->r, nc * sizeof(*nr));

			if (!nr) {
				err = -ENOMEM;
				break;
			}
			out->r = nr;
			cap = nc;
		}
		r = &out->r[out->n++];
		memset(r, 0, sizeof(*r));
		r->tgid = sqlite3_column_int64(st, 0);
		r->uaddr = sqlite3_column_int64(st, 1);
		r->stack_id = sid;
		r->waits = sqlite3_column_int64(st, 4);
		r->ns = sqlite3_column_int64(st, 5);
		if (us)
			snprintf(out->user_stacks, sizeof(out->user_stacks), "%s", us);
		if (!ps)
			continue;
		for (size_t d = 0; d < ps->n && !r->site[0]; d++)
			if (ps->loc[d]->kind != FRAME_KERNEL && !libc_module(ps->loc[d]->module))
				prof_loc__name(ps->loc[d], 0, r->site, sizeof(r->site));
		r->stack = frames_join(ps, SIZE_MAX);
		r->shown = frames_join(ps, SITE_FRAMES);
		if (!r->stack || !r->shown) {
			err = -ENOMEM;
			continue;
		}
		/* copies that differ in words the unwinder did not need are one site */
		for (size_t k = 0; k + 1 < out->n; k++) {
			struct lk_site_row *o = &out->r[k];

			if (o->tgid == r->tgid && o->uaddr == r->uaddr && o->stack &&
			    !strcmp(o->stack, r->stack)) {
				o->waits += r->waits;
				o->ns += r->ns;
				free(r->stack);
				free(r->shown);
				out->n--;
				break;
			}
		}
	}
	if (!err && rc != SQLITE_DONE)
		err = -EIO;
	sqlite3_finalize(st);
	if (out->n > 1)
		qsort(out->r, out->n, sizeof(*out->r), site_cmp);
	profile__free(stacks);
	if (err)
		sites_free(out);
	return err;
}

/* The site of word (TGID, UADDR) with the most waits (the list is by waits), or NULL. */
static const struct lk_site_row *top_site(const struct lk_sites *s, int64_t tgid, int64_t uaddr)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->r[i].tgid == tgid && s->r[i].uaddr == uaddr && s->r[i].site[0])
			return &s->r[i];
	return NULL;
}

static int sites_table(const struct lk_sites *s, struct table *t)
{
	char word[32], b[32];
	int err = 0;

	for (size_t i = 0; !err && i < s->n; i++) {
		const struct lk_site_row *r = &s->r[i];

		snprintf(word, sizeof(word), "0x%" PRIx64, (uint64_t)r->uaddr);
		err = table__add_row(t);
		err = err ?: table__set_int(t, S_PID, r->tgid, NULL);
		err = err ?: table__set_text(t, S_WORD, word);
		err = err ?: table__set_int(t, S_WAITS, r->waits, NULL);
		err = err ?: table__set_real(t, S_WAIT, (double)r->ns / 1e9,
					     fmt_ns(b, sizeof(b), (uint64_t)r->ns));
		if (r->site[0])
			err = err ?: table__set_text(t, S_SITE, r->site);
		if (r->stack_id > 0)
			err = err ?: table__set_int(t, S_STACK_ID, r->stack_id, NULL);
		if (r->stack) {
			err = err ?: table__set_text(t, S_STACK, r->stack);
			err = err ?: table__set_display(t, S_STACK, r->shown);
		} else {
			err = err ?: table__set_text(t, S_STACK, "(no stack)");
		}
	}
	return err;
}

int locks_sum__load(sqlite3 *db, const struct capture_meta *m, const struct window *w,
		    struct locks_sum *s)
{
	sqlite3_stmt *st = NULL;
	int rc;

	memset(s, 0, sizeof(*s));
	if (report__prepare(db, sum_sql, m, w, &st))
		return -EIO;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		s->words = (uint64_t)sqlite3_column_int64(st, 0);
		s->waits = (uint64_t)sqlite3_column_int64(st, 1);
		s->wait_ns = (uint64_t)sqlite3_column_int64(st, 2);
		s->wakes = (uint64_t)sqlite3_column_int64(st, 3);
		s->woken = (uint64_t)sqlite3_column_int64(st, 4);
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

static int build_rows(sqlite3 *db, const struct capture_meta *m, const struct window *w,
		      const struct lk_sites *ls, struct table *t)
{
	sqlite3_stmt *st = NULL;
	int err = 0, rc;

	if (report__prepare(db, words_sql, m, w, &st))
		return -EIO;
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
			if (sqlite3_column_type(st, 4) != SQLITE_NULL)
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
		{
			const struct lk_site_row *top = top_site(ls, sqlite3_column_int64(st, 0),
								 sqlite3_column_int64(st, 1));

			if (top)
				err = err ?: table__set_text(t, C_SITE, top->site);
		}
	}
	if (!err && rc != SQLITE_DONE)
		err = -EIO;
	sqlite3_finalize(st);
	return err;
}

static int locks_body(const struct report_ctx *ctx)
{
	static const size_t text_cols[] = { C_PID,   C_WORD,  C_WAITS,	 C_WAIT,   C_MEAN,
					    C_P50,   C_MAX,   C_EAGAIN, C_WAKES, C_WOKEN,
					    C_WAITERS, C_WAKERS, C_SITE };
	const struct report_opts *o = ctx->o;
	sqlite3 *db = ctx->db;
	FILE *out = ctx->out;
	struct json *j = ctx->j;
	struct table *t = NULL, *ts = NULL;
	struct lk_sites ls = { 0 };
	struct locks_sum s;
	char w[96], a[32], b[32], c[32];
	int err;

	t = table__new(NC, col_names);
	ts = table__new(NS, site_names);
	if (!t || !ts) {
		err = -ENOMEM;
		goto cleanup;
	}
	err = sites_load(db, ctx->m, o, &ls);
	err = err ?: sites_table(&ls, ts);
	err = err ?: build_rows(db, ctx->m, &o->win, &ls, t);
	err = err ?: locks_sum__load(db, ctx->m, &o->win, &s);
	if (err)
		goto cleanup;
	switch (o->fmt) {
	case OUT_TEXT:
		window__describe(&o->win, w, sizeof(w));
		fprintf(out, "locks (%s): %" PRIu64 " futex words, %s waits for %s, %s wakes\n", w,
			s.words, fmt_count(a, sizeof(a), s.waits), fmt_ns(b, sizeof(b), s.wait_ns),
			fmt_count(c, sizeof(c), s.wakes));
		report__drops(NULL, out, o, "locks", ctx->drops, ctx->ndrops);
		if (table__rows(t)) {
			fputc('\n', out);
			err = table__print_cols(t, out, OUT_TEXT, text_cols,
						sizeof(text_cols) / sizeof(text_cols[0]));
		}
		if (!err && table__rows(ts)) {
			fprintf(out, "\ncall sites (the waiters' user stacks, %s; site: the first "
				     "frame past the C library's lock code)\n",
				ls.user_stacks[0] ? ls.user_stacks : "?");
			err = table__print(ts, out, OUT_TEXT);
		}
		break;
	case OUT_CSV:
		report__drops(NULL, out, o, "locks", ctx->drops, ctx->ndrops);
		err = table__print(t, out, OUT_CSV);
		break;
	case OUT_JSON:
		json__kv_bool(j, "collected", true);
		report__drops(j, out, o, "locks", ctx->drops, ctx->ndrops);
		json__kv_int(j, "words", (int64_t)s.words);
		json__kv_int(j, "waits", (int64_t)s.waits);
		json__kv_int(j, "wait_ns", (int64_t)s.wait_ns);
		json__kv_int(j, "wakes", (int64_t)s.wakes);
		json__key(j, "futex_words");
		table__json(t, j, NULL, 0);
		json__key(j, "user_stacks");
		json__string(j, ls.user_stacks[0] ? ls.user_stacks : NULL);
		json__key(j, "call_sites");
		table__json(ts, j, NULL, 0);
		json__end_object(j);
		err = json__end(j);
		break;
	}
cleanup:
	table__free(t);
	table__free(ts);
	sites_free(&ls);
	return err;
}

static const struct an_report locks_report = {
	.name = "locks",
	.order = 180,
	.summary = "futex words by total wait: waits, wakes, who waits on whom",
	.tables = "lock_word",
	.probe = "locks",
	.drops = "locks",
	.body = locks_body,
};

const struct an_report *const locks_reports[] = { &locks_report, NULL };
