/* report.c — `report fds`: the target's open fds by type over time, the fastest-growing
 * type, and the fds open at the end with what they refer to.
 *
 * One model, three renderings: text prints the summary, the intervals and the table at the
 * end; JSON has them as "intervals", "growth" and "open_at_end"; CSV is the intervals.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/report.h"
#include "analyze/symbolize.h"
#include "collectors/fds/report.h"

#define NTYPES FDS_NTYPES
const char *const fds_type_col[FDS_NTYPES] = {
    "file", "socket", "pipe", "eventfd", "epoll", "timerfd", "signalfd", "anon_inode", "other"};

static const char rows_sql[] =
    "SELECT time_ns, interval_ns, total, file, socket, pipe, eventfd, epoll, timerfd, "
    "signalfd, anon_inode, other FROM fd_sample WHERE cap = ?1 "
    "AND time_ns - COALESCE(interval_ns, 0) / 2 >= ?2 "
    "AND time_ns - COALESCE(interval_ns, 0) / 2 < ?3 ORDER BY time_ns, pid";

static const char open_sql[] =
    "SELECT time_ns, fd, type, target, truncated FROM fd_open WHERE cap = ?1 "
    "ORDER BY pid, fd";

/* the opens and closes the eBPF lane counted at the sample's poll (--fd-stacks) */
static const char ops_at_sql[] =
    "SELECT sum(opened), sum(closed) FROM fd_op WHERE cap = ?1 AND time_ns = ?2";

static const char ops_sql[] =
    "SELECT syscall, sum(opened), sum(failed), sum(closed), sum(emfile) FROM fd_op "
    "WHERE cap = ?1 AND time_ns - COALESCE(interval_ns, 0) / 2 >= ?2 "
    "AND time_ns - COALESCE(interval_ns, 0) / 2 < ?3 GROUP BY syscall "
    "ORDER BY sum(opened) + sum(closed) + sum(failed) DESC, syscall";

static const char sites_sql[] = "SELECT stack_id, opened, live FROM fd_site WHERE cap = ?1 "
				"ORDER BY live DESC, opened DESC, stack_id";

#define SITES_SHOWN 10 /* opening sites in text (JSON has them all) */
#define SITE_FRAMES 8  /* frames of a site's stack shown */

enum { COL_T, COL_TOTAL, COL_GROWTH, COL_TYPE0, COL_OPENED = COL_TYPE0 + NTYPES, COL_CLOSED, COLS };
static const char *const col_names[COLS] = {
    "t_s",   "total",	"growth",   "file",	  "socket", "pipe",   "eventfd",
    "epoll", "timerfd", "signalfd", "anon_inode", "other",  "opened", "closed",
};

enum { PCOL_SYSCALL, PCOL_OPENED, PCOL_FAILED, PCOL_CLOSED, PCOL_EMFILE, PCOLS };
static const char *const ops_names[PCOLS] = {"syscall", "opened", "failed", "closed", "emfile"};

enum { SCOL_LIVE, SCOL_OPENED, SCOL_STACK_ID, SCOL_STACK, SCOLS };
static const char *const site_names[SCOLS] = {"live", "opened", "stack_id", "stack"};

enum { OCOL_FD, OCOL_TYPE, OCOL_TARGET, OCOLS };
static const char *const open_names[OCOLS] = {"fd", "type", "target"};

/* The window's samples into SP (report.h) and, when T is not NULL, a row each into T (with
 * the eBPF lane's opens and closes at each when OPS). */
static int build_rows(sqlite3 *db, const struct capture_meta *m, const struct window *w,
		      struct table *t, struct fds_span *sp, bool ops)
{
	sqlite3_stmt *st = NULL, *os = NULL;
	int64_t lo, hi, prev = -1;
	char a[32], g[32];
	int err = 0, rc;

	memset(sp, 0, sizeof(*sp));
	window__bounds(w, m, &lo, &hi);
	if (sqlite3_prepare_v2(db, rows_sql, -1, &st, NULL) != SQLITE_OK)
		return -EIO;
	if (ops && sqlite3_prepare_v2(db, ops_at_sql, -1, &os, NULL) != SQLITE_OK) {
		sqlite3_finalize(st);
		return -EIO;
	}
	sqlite3_bind_int64(st, 1, m->cap);
	sqlite3_bind_int64(st, 2, lo);
	sqlite3_bind_int64(st, 3, hi);
	while (!err && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t time_ns = sqlite3_column_int64(st, 0);
		int64_t total = sqlite3_column_int64(st, 2);
		int i;

		if (!sp->n++) {
			sp->t0 = time_ns;
			for (i = 0; i <= NTYPES; i++)
				sp->first[i] = sqlite3_column_int64(st, 2 + i);
			sp->peak = total;
		}
		sp->t1 = time_ns;
		for (i = 0; i <= NTYPES; i++)
			sp->last[i] = sqlite3_column_int64(st, 2 + i);
		if (total > sp->peak)
			sp->peak = total;
		if (!t)
			continue;
		err = table__add_row(t);
		err = err
			  ?: table__set_real(t, COL_T, (double)(time_ns - m->base_ns) / 1e9,
					     fmt_secs(a, sizeof(a), time_ns - m->base_ns));
		err = err ?: table__set_int(t, COL_TOTAL, total, NULL);
		if (prev >= 0) {
			snprintf(g, sizeof(g), "%+" PRId64, total - prev);
			err = err ?: table__set_int(t, COL_GROWTH, total - prev, g);
		}
		for (i = 0; i < NTYPES; i++)
			err = err
				  ?: table__set_int(t, COL_TYPE0 + i,
						    sqlite3_column_int64(st, 3 + i), NULL);
		prev = total;
		if (!os || err)
			continue;
		/* an interval the lane measured with no open nor close has no fd_op row: 0 */
		sqlite3_reset(os);
		sqlite3_bind_int64(os, 1, m->cap);
		sqlite3_bind_int64(os, 2, time_ns);
		if (sqlite3_step(os) != SQLITE_ROW) {
			err = -EIO;
			break;
		}
		err = table__set_int(t, COL_OPENED, sqlite3_column_int64(os, 0), NULL);
		err = err ?: table__set_int(t, COL_CLOSED, sqlite3_column_int64(os, 1), NULL);
	}
	if (!err && rc != SQLITE_DONE)
		err = -EIO;
	sqlite3_finalize(st);
	sqlite3_finalize(os);
	return err;
}

int fds_span__load(sqlite3 *db, const struct capture_meta *m, const struct window *w,
		   struct fds_span *sp)
{
	return build_rows(db, m, w, NULL, sp, false);
}

/* The window's opens and closes per syscall into T (when not NULL) and their sums into S. */
static int build_ops(sqlite3 *db, const struct capture_meta *m, const struct window *w,
		     struct table *t, struct fds_ops_sum *s)
{
	sqlite3_stmt *st = NULL;
	int64_t lo, hi;
	int err = 0, rc;

	window__bounds(w, m, &lo, &hi);
	if (sqlite3_prepare_v2(db, ops_sql, -1, &st, NULL) != SQLITE_OK)
		return -EIO;
	sqlite3_bind_int64(st, 1, m->cap);
	sqlite3_bind_int64(st, 2, lo);
	sqlite3_bind_int64(st, 3, hi);
	*s = (struct fds_ops_sum){0};
	while (!err && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		s->opened += sqlite3_column_int64(st, PCOL_OPENED);
		s->failed += sqlite3_column_int64(st, PCOL_FAILED);
		s->closed += sqlite3_column_int64(st, PCOL_CLOSED);
		s->emfile += sqlite3_column_int64(st, PCOL_EMFILE);
		if (!t)
			continue;
		err = table__add_row(t);
		err = err
			  ?: table__set_text(t, PCOL_SYSCALL,
					     (const char *)sqlite3_column_text(st, 0));
		for (int i = 1; !err && i < PCOLS; i++)
			err = table__set_int(t, i, sqlite3_column_int64(st, i), NULL);
	}
	if (!err && rc != SQLITE_DONE)
		err = -EIO;
	sqlite3_finalize(st);
	return err;
}

int fds_ops__sum(sqlite3 *db, const struct capture_meta *m, const struct window *w,
		 struct fds_ops_sum *s)
{
	return build_ops(db, m, w, NULL, s);
}

/* Whether capture CAP has opening sites (fd_site rows). */
static bool q_exists(sqlite3 *db, int64_t cap)
{
	sqlite3_stmt *st = NULL;
	bool yes = false;

	if (sqlite3_prepare_v2(db, "SELECT 1 FROM fd_site WHERE cap = ?1 LIMIT 1", -1, &st, NULL) !=
	    SQLITE_OK)
		return false;
	sqlite3_bind_int64(st, 1, cap);
	yes = sqlite3_step(st) == SQLITE_ROW;
	sqlite3_finalize(st);
	return yes;
}

/* The opening sites into T, their stacks named as report heap names them. */
static int build_sites(sqlite3 *db, const struct capture_meta *m, const struct report_opts *o,
		       struct table *t)
{
	struct symstore_opts so = {.cache_dir = o->symbol_cache,
				   .debuginfod = o->debuginfod,
				   .debuginfod_urls = o->debuginfod_urls,
				   .retry_misses = o->symbol_cache || o->debuginfod};
	struct symstore_run run;
	struct profile *stacks = NULL;
	sqlite3_stmt *st = NULL;
	char msg[512], name[512];
	int err = 0, rc;

	if (!q_exists(db, m->cap))
		return 0;
	err = symstore__ensure(db, m->cap, &so, &run, msg, sizeof(msg));
	if (err) {
		fprintf(stderr, "ptop-analyze report fds: symbolizing: %s\n", msg);
		return err;
	}
	err = stacks__load(db, m->cap, &stacks);
	if (err)
		return err;
	if (sqlite3_prepare_v2(db, sites_sql, -1, &st, NULL) != SQLITE_OK) {
		profile__free(stacks);
		return -EIO;
	}
	sqlite3_bind_int64(st, 1, m->cap);
	while (!err && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t sid =
		    sqlite3_column_type(st, 0) == SQLITE_NULL ? 0 : sqlite3_column_int64(st, 0);
		const struct prof_stack *ps = sid > 0 ? profile__stack(stacks, sid) : NULL;
		char frames[SITE_FRAMES * 96] = "";
		size_t len = 0;

		for (size_t d = 0; ps && d < ps->n && d < SITE_FRAMES; d++) {
			prof_loc__name(ps->loc[d], 0, name, sizeof(name));
			len += (size_t)snprintf(frames + len,
						len < sizeof(frames) ? sizeof(frames) - len : 0,
						"%s%s", d ? " < " : "", name);
			if (len >= sizeof(frames))
				break;
		}
		err = table__add_row(t);
		err = err ?: table__set_int(t, SCOL_LIVE, sqlite3_column_int64(st, 2), NULL);
		err = err ?: table__set_int(t, SCOL_OPENED, sqlite3_column_int64(st, 1), NULL);
		if (sid > 0)
			err = err ?: table__set_int(t, SCOL_STACK_ID, sid, NULL);
		err = err ?: table__set_text(t, SCOL_STACK, ps ? frames : "(no stack)");
	}
	if (!err && rc != SQLITE_DONE)
		err = -EIO;
	sqlite3_finalize(st);
	profile__free(stacks);
	return err;
}

/* The table at the end into T; *AT its time (0: none), *TRUNC whether it was cut. */
static int build_open(sqlite3 *db, const struct capture_meta *m, struct table *t, int64_t *at,
		      bool *trunc)
{
	sqlite3_stmt *st = NULL;
	int err = 0, rc;

	*at = 0;
	*trunc = false;
	if (sqlite3_prepare_v2(db, open_sql, -1, &st, NULL) != SQLITE_OK)
		return -EIO;
	sqlite3_bind_int64(st, 1, m->cap);
	while (!err && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		*at = sqlite3_column_int64(st, 0);
		*trunc = *trunc || sqlite3_column_int64(st, 4);
		err = table__add_row(t);
		err = err ?: table__set_int(t, OCOL_FD, sqlite3_column_int64(st, 1), NULL);
		err =
		    err ?: table__set_text(t, OCOL_TYPE, (const char *)sqlite3_column_text(st, 2));
		err = err
			  ?: table__set_text(t, OCOL_TARGET,
					     (const char *)sqlite3_column_text(st, 3));
	}
	if (!err && rc != SQLITE_DONE)
		err = -EIO;
	sqlite3_finalize(st);
	return err;
}

/* The type that grew the most over the window (-1: none grew). */
static int fastest(const struct fds_span *sp)
{
	int64_t best = 0;
	int i, k = -1;

	for (i = 0; sp->n > 1 && i < NTYPES; i++)
		if (sp->last[1 + i] - sp->first[1 + i] > best) {
			best = sp->last[1 + i] - sp->first[1 + i];
			k = i;
		}
	return k;
}

static double per_s(const struct fds_span *sp, int64_t d)
{
	return sp->t1 > sp->t0 ? (double)d * 1e9 / (double)(sp->t1 - sp->t0) : 0;
}

/* Why the eBPF lane's figures are absent: the probe detail's "not collected: ..." part. */
const char *fds__opens_reason(const struct probe_info *p)
{
	const char *s = strstr(p->detail, "not collected: ");

	return s ? s + strlen("not collected: ")
		 : "the eBPF lane did not run: it needs --fd-stacks";
}

static int report_fds(sqlite3 *db, const char *capture_id, const struct report_opts *o, FILE *out)
{
	struct drop_line *drops = NULL;
	struct table *t = NULL, *ot = NULL, *pt = NULL, *stt = NULL;
	struct capture_meta m;
	struct probe_info p;
	struct fds_span sp;
	struct fds_ops_sum sum;
	size_t nd = 0;
	int64_t at = 0;
	bool trunc = false, ops;
	char w[96], a[32], b[32];
	struct json j;
	int err, k, i;

	err = capture_meta__load(db, capture_id, &m);
	err = err ?: probe__lookup(db, m.cap, "fds", &p);
	if (err)
		return err;
	report__begin(&j, out, o, "fds", &m);
	if (!probe__active(&p))
		return report__not_collected(&j, out, o, "fds", &p);
	ops = !strcmp(p.source, "ebpf"); /* the eBPF lane ran (--fd-stacks) */
	t = table__new(ops ? COLS : COL_OPENED, col_names);
	ot = table__new(OCOLS, open_names);
	pt = table__new(PCOLS, ops_names);
	stt = table__new(SCOLS, site_names);
	if (!t || !ot || !pt || !stt) {
		err = -ENOMEM;
		goto cleanup;
	}
	err = build_rows(db, &m, &o->win, t, &sp, ops);
	err = err ?: build_open(db, &m, ot, &at, &trunc);
	if (ops) {
		err = err ?: build_ops(db, &m, &o->win, pt, &sum);
		err = err ?: build_sites(db, &m, o, stt);
	}
	err = err ?: drops__load(db, &m, "fds", &o->win, &drops, &nd);
	if (err)
		goto cleanup;
	k = fastest(&sp);
	switch (o->fmt) {
	case OUT_TEXT:
		window__describe(&o->win, w, sizeof(w));
		fprintf(out, "fds (%s): %zu intervals", w, table__rows(t));
		if (sp.n)
			fprintf(
			    out, ", open fds %" PRId64 " at %s, %" PRId64 " at %s (%+" PRId64 ")",
			    sp.first[0], fmt_secs(a, sizeof(a), sp.t0 - m.base_ns), sp.last[0],
			    fmt_secs(b, sizeof(b), sp.t1 - m.base_ns), sp.last[0] - sp.first[0]);
		fputc('\n', out);
		report__drops(NULL, out, o, "fds", drops, nd);
		if (k >= 0)
			fprintf(out,
				"fastest-growing: %s, %" PRId64 " to %" PRId64 " (%+" PRId64
				", %.1f/s)\n",
				fds_type_col[k], sp.first[1 + k], sp.last[1 + k],
				sp.last[1 + k] - sp.first[1 + k],
				per_s(&sp, sp.last[1 + k] - sp.first[1 + k]));
		else if (sp.n > 1)
			fprintf(out, "fastest-growing: none grew\n");
		fputc('\n', out);
		err = table__print(t, out, OUT_TEXT);
		if (!err && at) {
			fprintf(out, "\nopen at the end (%s): %zu fds%s\n",
				fmt_secs(a, sizeof(a), at - m.base_ns), table__rows(ot),
				trunc ? " (truncated: the lowest kept)" : "");
			err = table__print(ot, out, OUT_TEXT);
		} else if (!err) {
			fprintf(out, "\nopen at the end: no table was read\n");
		}
		if (err)
			break;
		if (!ops) {
			fprintf(out, "\nopens and closes: not collected (%s)\n",
				fds__opens_reason(&p));
			break;
		}
		fprintf(out, "\nopens and closes by syscall (eBPF, %s):\n", w);
		if (table__rows(pt))
			err = table__print(pt, out, OUT_TEXT);
		else
			fprintf(out, "none\n");
		if (!err && table__rows(stt)) {
			size_t shown =
			    table__rows(stt) < SITES_SHOWN ? table__rows(stt) : SITES_SHOWN;

			fprintf(out,
				"\nopening sites at the end, by fds still open (%zu of %zu; the "
				"stack innermost first):\n",
				shown, table__rows(stt));
			for (size_t r = 0; r < shown; r++)
				fprintf(out, "%8s live %8s opened  %s\n",
					table__shown(stt, r, SCOL_LIVE),
					table__shown(stt, r, SCOL_OPENED),
					table__shown(stt, r, SCOL_STACK));
		} else if (!err) {
			fprintf(out, "\nopening sites: none recorded\n");
		}
		break;
	case OUT_CSV:
		report__drops(NULL, out, o, "fds", drops, nd);
		err = table__print(t, out, OUT_CSV);
		break;
	case OUT_JSON:
		json__kv_bool(&j, "collected", true);
		report__drops(&j, out, o, "fds", drops, nd);
		json__key(&j, "intervals");
		table__json(t, &j, NULL, 0);
		json__key(&j, "growth");
		if (sp.n > 1) {
			json__begin_array(&j);
			for (i = 0; i < NTYPES; i++) {
				json__begin_object(&j);
				json__kv_string(&j, "type", fds_type_col[i]);
				json__kv_int(&j, "first", sp.first[1 + i]);
				json__kv_int(&j, "last", sp.last[1 + i]);
				json__kv_int(&j, "growth", sp.last[1 + i] - sp.first[1 + i]);
				json__kv_real(&j, "per_s",
					      per_s(&sp, sp.last[1 + i] - sp.first[1 + i]));
				json__end_object(&j);
			}
			json__end_array(&j);
		} else {
			json__null(&j);
		}
		json__kv_string(&j, "fastest_growing", k >= 0 ? fds_type_col[k] : NULL);
		json__key(&j, "open_at_end");
		if (at) {
			json__begin_object(&j);
			json__kv_real(&j, "t_s", (double)(at - m.base_ns) / 1e9);
			json__kv_bool(&j, "truncated", trunc);
			json__key(&j, "fds");
			table__json(ot, &j, NULL, 0);
			json__end_object(&j);
		} else {
			json__null(&j);
		}
		json__key(&j, "opens_and_closes");
		if (ops) {
			json__begin_object(&j);
			json__key(&j, "by_syscall");
			table__json(pt, &j, NULL, 0);
			json__key(&j, "sites");
			table__json(stt, &j, NULL, 0);
			json__end_object(&j);
		} else {
			json__null(&j);
		}
		json__kv_string(&j, "opens_and_closes_reason", ops ? NULL : fds__opens_reason(&p));
		json__end_object(&j);
		err = json__end(&j);
		break;
	}
	if (!err && (fflush(out) || ferror(out)))
		err = -EIO;
cleanup:
	table__free(t);
	table__free(ot);
	table__free(pt);
	table__free(stt);
	free(drops);
	return err;
}

static const struct an_report fds_report = {
    .name = "fds",
    .order = 85,
    .summary = "open fds by type over time, the fastest-growing type,\n"
	       "the fds open at the end with what they refer to",
    .tables = "fd_sample,fd_open",
    .run = report_fds,
};

const struct an_report *const fds_reports[] = {
    &fds_report,
    NULL,
};
