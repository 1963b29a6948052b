/* report.c — `report fds`: the target's open fds by type over time, the fastest-growing
 * type, and the fds open at the end with what they refer to.
 *
 * One model, three renderings: text prints the summary, the intervals and the table at the
 * end; JSON has them as "intervals", "growth" and "open_at_end"; CSV is the intervals.
 *
 * With --fd-stacks, the opens and closes by syscall and the opening sites. A site's stack
 * is a frame-pointer walk or a stack copy unwound by the analyzer (the probe detail says
 * which); sites whose copies differ but unwind to the same frames are one site here.
 * Frame-pointer walks through code without frame pointers (the probe detail says so:
 * FDS_FP_UNTRUSTED) keep their first frame, the syscall's own ip; the rest is printed
 * apart, as frames not to be trusted, never as the site.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/types.h>

#include "analyze/report.h"
#include "analyze/symbolize.h"
#include "collectors/fds/fds.h"
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
    "SELECT time_ns, fd, type, target, truncated, probe FROM fd_open WHERE cap = ?1 "
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

/* fds the kernel closed without a close call (exec, close_range): NULL count, not
 * measured (a capture older than the column) */
static const char unseen_sql[] =
    "SELECT count(closed_unseen), sum(closed_unseen) FROM fd_site WHERE cap = ?1";

/* The sites' fds closed without a close call, or -1 when no site measured it. */
static int unseen_closes(sqlite3 *db, const struct capture_meta *m, int64_t *out)
{
	sqlite3_stmt *st = NULL;
	int rc;

	*out = -1;
	if (sqlite3_prepare_v2(db, unseen_sql, -1, &st, NULL) != SQLITE_OK)
		return -EIO;
	sqlite3_bind_int64(st, 1, m->cap);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW && sqlite3_column_int64(st, 0) > 0)
		*out = sqlite3_column_int64(st, 1);
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 0 : -EIO;
}

#define SITES_SHOWN 10	      /* opening sites in text (JSON has them all) */
#define SITE_FRAMES 8	      /* frames of a site's stack shown in text (JSON, CSV: all) */
#define FRAMES_TEXT_MAX 65536 /* bytes of a stack's names at most */

enum { COL_T, COL_TOTAL, COL_GROWTH, COL_TYPE0, COL_OPENED = COL_TYPE0 + NTYPES, COL_CLOSED, COLS };
static const char *const col_names[COLS] = {
    "t_s",   "total",	"growth",   "file",	  "socket", "pipe",   "eventfd",
    "epoll", "timerfd", "signalfd", "anon_inode", "other",  "opened", "closed",
};

enum { PCOL_SYSCALL, PCOL_OPENED, PCOL_FAILED, PCOL_CLOSED, PCOL_EMFILE, PCOLS };
static const char *const ops_names[PCOLS] = {"syscall", "opened", "failed", "closed", "emfile"};

enum { SCOL_LIVE, SCOL_OPENED, SCOL_STACK_ID, SCOL_STACKS, SCOL_STACK, SCOL_UNTRUSTED, SCOLS };
static const char *const site_names[SCOLS] = {"live",	"opened", "stack_id",
					      "stacks", "stack",  "untrusted_frames"};

/* How the sites' stacks were taken, from the fds probe's detail. */
struct site_stacks {
	const char *mode; /* "fp" or "dwarf" (a recorder before --user-stacks: fp) */
	bool untrusted;	  /* fp walks through code without frame pointers */
	char note[320];	  /* why untrusted: the detail's words; "" when trusted */
	size_t cut;	  /* sites whose walk was cut short (struct prof_stack cut_module):
			   * those sites' callers are not to be trusted */
	char cut_note[320]; /* how many, and where frame pointers are missing */
};

static void site_stacks__read(const struct probe_info *p, struct site_stacks *ss)
{
	const char *at = strstr(p->detail, FDS_FP_UNTRUSTED), *end;

	memset(ss, 0, sizeof(*ss));
	ss->mode = strstr(p->detail, "opening user stacks dwarf") ? "dwarf" : "fp";
	if (!at || strcmp(ss->mode, "fp"))
		return;
	ss->untrusted = true;
	end = strstr(at, ": a site's frames");
	snprintf(ss->note, sizeof(ss->note), "%.*s", end ? (int)(end - at) : (int)strlen(at), at);
}

/* One site of the report: the fd_site rows whose stacks unwind to the same frames. */
struct site_row {
	int64_t stack_id; /* the first row's (0: none) */
	const struct prof_stack *ps;
	int64_t opened, live;
	int64_t rows; /* fd_site rows merged */
};

/* The same frames (ips), both placed. */
static bool same_frames(const struct prof_stack *a, const struct prof_stack *b)
{
	if (!a || !b || a->n != b->n)
		return false;
	for (size_t d = 0; d < a->n; d++)
		if (a->loc[d]->ip != b->loc[d]->ip)
			return false;
	return true;
}

static int site_cmp(const void *x, const void *y)
{
	const struct site_row *a = x, *b = y;

	if (a->live != b->live)
		return a->live < b->live ? 1 : -1;
	if (a->opened != b->opened)
		return a->opened < b->opened ? 1 : -1;
	return (a->stack_id > b->stack_id) - (a->stack_id < b->stack_id);
}

enum { OCOL_FD, OCOL_TYPE, OCOL_TARGET, OCOL_OWNER, OCOLS };
static const char *const open_names[OCOLS] = {"fd", "type", "target", "owner"};

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
	if (report__prepare_at(db, rows_sql, m, lo, hi, &st))
		return -EIO;
	if (ops && sqlite3_prepare_v2(db, ops_at_sql, -1, &os, NULL) != SQLITE_OK) {
		sqlite3_finalize(st);
		return -EIO;
	}
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
		for (i = 0; i <= NTYPES; i++) {
			sp->last[i] = sqlite3_column_int64(st, 2 + i);
			fig_series__add(&sp->ser[i], (double)sp->last[i]);
			if (sp->n == 2)
				sp->first_step[i] = llabs(sp->last[i] - sp->first[i]);
		}
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
	if (report__prepare_at(db, ops_sql, m, lo, hi, &st))
		return -EIO;
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

/* The names of frames [FROM, TO) of PS (at most MAX of them), " < " between them, into
 * BUF (cut at LEN). */
static void frames_text(const struct prof_stack *ps, size_t from, size_t to, size_t max, char *buf,
			size_t len)
{
	char name[512];
	size_t at = 0;

	buf[0] = '\0';
	for (size_t d = from; d < ps->n && d < to && d - from < max; d++) {
		prof_loc__name(ps->loc[d], 0, name, sizeof(name));
		at += (size_t)snprintf(buf + at, at < len ? len - at : 0, "%s%s",
				       d > from ? " < " : "", name);
		if (at >= len)
			break;
	}
}

/* The opening sites into T, their stacks named as report heap names them; SS says how
 * the stacks were taken. */
static int build_sites(sqlite3 *db, const struct capture_meta *m, const struct report_opts *o,
		       struct site_stacks *ss, struct table *t)
{
	struct profile *stacks = NULL;
	struct site_row *rows = NULL;
	const char *cut_module = NULL;
	size_t n = 0, cap = 0, i, k;
	char *buf = NULL;
	sqlite3_stmt *st = NULL;
	int err = 0, rc;

	if (!q_exists(db, m->cap))
		return 0;
	err = report__stacks(db, m, o, "fds", &stacks);
	if (err)
		return err;
	if (sqlite3_prepare_v2(db, sites_sql, -1, &st, NULL) != SQLITE_OK) {
		profile__free(stacks);
		return -EIO;
	}
	sqlite3_bind_int64(st, 1, m->cap);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t sid =
		    sqlite3_column_type(st, 0) == SQLITE_NULL ? 0 : sqlite3_column_int64(st, 0);
		const struct prof_stack *ps = sid > 0 ? profile__stack(stacks, sid) : NULL;
		int64_t opened = sqlite3_column_int64(st, 1), live = sqlite3_column_int64(st, 2);

		/* copies that differ in words the unwinder did not need are one site */
		for (k = 0; ps && k < n; k++)
			if (same_frames(rows[k].ps, ps))
				break;
		if (ps && k < n) {
			rows[k].opened += opened;
			rows[k].live += live;
			rows[k].rows++;
			continue;
		}
		if (n == cap) {
			size_t c2 = cap ? cap * 2 : 64;
			struct site_row *r2 = realloc(rows, c2 * sizeof(*r2));

			if (!r2) {
				err = -ENOMEM;
				break;
			}
			rows = r2;
			cap = c2;
		}
		rows[n++] = (struct site_row){sid, ps, opened, live, 1};
	}
	if (!err && rc != SQLITE_DONE)
		err = -EIO;
	sqlite3_finalize(st);
	if (n > 1)
		qsort(rows, n, sizeof(*rows), site_cmp);
	/* a walk cut short (a return address in no executable mapping) went through code
	 * without frame pointers: no site's callers are to be trusted */
	for (i = k = 0; i < n; i++)
		if (rows[i].ps && rows[i].ps->cut_module && !k++)
			cut_module = rows[i].ps->cut_module;
	ss->cut = k;
	if (k)
		snprintf(ss->cut_note, sizeof(ss->cut_note),
			 "%zu of %zu sites' stacks were cut short where the walk read a return "
			 "address in no executable mapping (frame pointers missing in %s)",
			 k, n, cut_module);
	if (!err && n && !(buf = malloc(FRAMES_TEXT_MAX)))
		err = -ENOMEM;
	for (i = 0; !err && i < n; i++) {
		const struct prof_stack *ps = rows[i].ps;
		bool untrusted;
		size_t to;

		err = table__add_row(t);
		err = err ?: table__set_int(t, SCOL_LIVE, rows[i].live, NULL);
		err = err ?: table__set_int(t, SCOL_OPENED, rows[i].opened, NULL);
		if (rows[i].stack_id > 0)
			err = err ?: table__set_int(t, SCOL_STACK_ID, rows[i].stack_id, NULL);
		err = err ?: table__set_int(t, SCOL_STACKS, rows[i].rows, NULL);
		if (!ps) {
			err = err ?: table__set_text(t, SCOL_STACK, "(no stack)");
			continue;
		}
		/* an untrusted walk (every site's, or this site's, cut short): its first
		 * frame is the syscall's ip, the rest may be data read as return addresses.
		 * JSON and CSV have every frame, text the first SITE_FRAMES */
		untrusted = ss->untrusted || ps->cut_module;
		to = untrusted ? 1 : ps->n;
		frames_text(ps, 0, to, SIZE_MAX, buf, FRAMES_TEXT_MAX);
		err = err ?: table__set_text(t, SCOL_STACK, buf);
		frames_text(ps, 0, to, SITE_FRAMES, buf, FRAMES_TEXT_MAX);
		err = err ?: table__set_display(t, SCOL_STACK, buf);
		if (!err && untrusted && ps->n > 1) {
			frames_text(ps, 1, ps->n, SIZE_MAX, buf, FRAMES_TEXT_MAX);
			err = table__set_text(t, SCOL_UNTRUSTED, buf);
		}
	}
	free(buf);
	free(rows);
	profile__free(stacks);
	return err;
}

/* The table at the end into T; *AT its time (0: none), *TRUNC whether it was cut. */
/* The fd table at the end into T; *NPROBE: of its rows, ptop's own fds (owner "ptop":
 * probe overhead, not in the counts, DESIGN.md principle 9), the others' owner "target". */
static int build_open(sqlite3 *db, const struct capture_meta *m, struct table *t, int64_t *at,
		      bool *trunc, size_t *nprobe)
{
	sqlite3_stmt *st = NULL;
	int err = 0, rc;
	bool probe;

	*at = 0;
	*trunc = false;
	*nprobe = 0;
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
		probe = sqlite3_column_int64(st, 5) != 0;
		*nprobe += probe;
		err = err ?: table__set_text(t, OCOL_OWNER, probe ? "ptop" : "target");
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

/* Everything `report fds` shows of the window, loaded once for any format (fds_view_load). */
struct fds_view {
	struct table *t, *ot, *pt, *stt; /* intervals, open at the end, by syscall, sites */
	struct site_stacks ss;
	struct fds_span sp;
	struct fds_ops_sum sum;
	size_t nprobe;		/* fds open at the end that are ptop's own */
	int64_t at, unseen;	/* the time of the fd table read; closes never seen (-1: none) */
	bool trunc, ops;	/* the table was cut; the eBPF lane ran (--fd-stacks) */
	int k;			/* the fastest-growing type, -1: none */
};

/* The view of CTX's window into V (zeroed). 0, -ENOMEM, -EIO; free with fds_view_free. */
static int fds_view_load(const struct report_ctx *ctx, struct fds_view *v)
{
	sqlite3 *db = ctx->db;
	const struct report_opts *o = ctx->o;
	const struct capture_meta *m = ctx->m;
	int err;

	v->ops = !strcmp(ctx->probe->source, "ebpf"); /* the eBPF lane ran (--fd-stacks) */
	site_stacks__read(ctx->probe, &v->ss);
	v->t = table__new(v->ops ? COLS : COL_OPENED, col_names);
	v->ot = table__new(OCOLS, open_names);
	v->pt = table__new(PCOLS, ops_names);
	v->stt = table__new(SCOLS, site_names);
	if (!v->t || !v->ot || !v->pt || !v->stt)
		return -ENOMEM;
	err = build_rows(db, m, &o->win, v->t, &v->sp, v->ops);
	err = err ?: build_open(db, m, v->ot, &v->at, &v->trunc, &v->nprobe);
	if (v->ops) {
		err = err ?: build_ops(db, m, &o->win, v->pt, &v->sum);
		err = err ?: build_sites(db, m, o, &v->ss, v->stt);
		err = err ?: unseen_closes(db, m, &v->unseen);
	}
	if (!err)
		v->k = fastest(&v->sp);
	return err;
}

static void fds_view_free(struct fds_view *v)
{
	table__free(v->t);
	table__free(v->ot);
	table__free(v->pt);
	table__free(v->stt);
}

/* The eBPF lane's part of the text: opens and closes by syscall, the opening sites of the
 * fds still open, closes never seen. W: the window's description. 0 or -errno. */
static int fds_text_ops(FILE *out, const struct fds_view *v, const char *w)
{
	int err = 0;

	fprintf(out, "\nopens and closes by syscall (eBPF, %s):\n", w);
	if (table__rows(v->pt))
		err = table__print(v->pt, out, OUT_TEXT);
	else
		fprintf(out, "none\n");
	if (!err && table__rows(v->stt)) {
		size_t shown =
		    table__rows(v->stt) < SITES_SHOWN ? table__rows(v->stt) : SITES_SHOWN;

		fprintf(out,
			"\nopening sites at the end, by fds still open (%zu of %zu; user "
			"stacks %s; the stack innermost first):\n",
			shown, table__rows(v->stt),
			!strcmp(v->ss.mode, "dwarf") ? "dwarf, unwound from stack copies"
						  : "fp, frame-pointer walks");
		if (v->ss.untrusted)
			fprintf(out,
				"note: %s: each site shows the syscall's own frame only; "
				"the callers the walk found are not to be trusted (JSON "
				"untrusted_frames). Record with --user-stacks dwarf for "
				"whole stacks.\n",
				v->ss.note);
		else if (v->ss.cut)
			fprintf(out,
				"note: %s: those sites show the syscall's own frame only; "
				"the callers their walks found are not to be trusted (JSON "
				"untrusted_frames). Record with --user-stacks dwarf for "
				"whole stacks.\n",
				v->ss.cut_note);
		for (size_t r = 0; r < shown; r++)
			fprintf(out, "%8s live %8s opened  %s%s\n",
				table__shown(v->stt, r, SCOL_LIVE),
				table__shown(v->stt, r, SCOL_OPENED),
				table__shown(v->stt, r, SCOL_STACK),
				table__type(v->stt, r, SCOL_UNTRUSTED) != CELL_NULL
				    ? " < (callers not trusted)"
				    : "");
	} else if (!err) {
		fprintf(out, "\nopening sites: none recorded\n");
	}
	if (!err && v->unseen >= 0)
		fprintf(out,
			"closed without a close call (exec, close_range, ...; missing "
			"from the fd table, taken off their sites' live): %" PRId64 "\n",
			v->unseen);
	return err;
}

/* `report fds` in text. 0 or -errno. */
static int fds_text(const struct report_ctx *ctx, const struct fds_view *v)
{
	const struct report_opts *o = ctx->o;
	FILE *out = ctx->out;
	char w[96], a[32], b[32];
	int err;

	window__describe(&o->win, w, sizeof(w));
	fprintf(out, "fds (%s): %zu intervals", w, table__rows(v->t));
	if (v->sp.n)
		fprintf(
		    out, ", open fds %" PRId64 " at %s, %" PRId64 " at %s (%+" PRId64 ")",
		    v->sp.first[0], fmt_secs(a, sizeof(a), v->sp.t0 - ctx->m->base_ns), v->sp.last[0],
		    fmt_secs(b, sizeof(b), v->sp.t1 - ctx->m->base_ns), v->sp.last[0] - v->sp.first[0]);
	fputc('\n', out);
	report__drops(NULL, out, o, "fds", ctx->drops, ctx->ndrops);
	if (v->k >= 0)
		fprintf(out,
			"fastest-growing: %s, %" PRId64 " to %" PRId64 " (%+" PRId64
			", %.1f/s)\n",
			fds_type_col[v->k], v->sp.first[1 + v->k], v->sp.last[1 + v->k],
			v->sp.last[1 + v->k] - v->sp.first[1 + v->k],
			per_s(&v->sp, v->sp.last[1 + v->k] - v->sp.first[1 + v->k]));
	else if (v->sp.n > 1)
		fprintf(out, "fastest-growing: none grew\n");
	fputc('\n', out);
	err = table__print(v->t, out, OUT_TEXT);
	if (!err && v->at) {
		fprintf(out, "\nopen at the end (%s): %zu fds%s",
			fmt_secs(a, sizeof(a), v->at - ctx->m->base_ns), table__rows(v->ot) - v->nprobe,
			v->trunc ? " (truncated: the lowest kept)" : "");
		if (v->nprobe) /* listed, owner ptop: probe overhead (principle 9) */
			fprintf(out, "; and %zu of ptop's (owner ptop, not in total)", v->nprobe);
		fputc('\n', out);
		err = table__print(v->ot, out, OUT_TEXT);
	} else if (!err) {
		fprintf(out, "\nopen at the end: no table was read\n");
	}
	if (err)
		return err;
	if (!v->ops) {
		fprintf(out, "\nopens and closes: not collected (%s)\n",
			fds__opens_reason(ctx->probe));
		return 0;
	}
	return fds_text_ops(out, v, w);
}

/* `report fds` in JSON: the report's object, closed. 0 or -errno. */
static int fds_json(const struct report_ctx *ctx, const struct fds_view *v)
{
	const struct report_opts *o = ctx->o;
	FILE *out = ctx->out;
	struct json *j = ctx->j;
	int i;

	json__kv_bool(j, "collected", true);
	report__drops(j, out, o, "fds", ctx->drops, ctx->ndrops);
	json__key(j, "intervals");
	table__json(v->t, j, NULL, 0);
	json__key(j, "growth");
	if (v->sp.n > 1) {
		json__begin_array(j);
		for (i = 0; i < NTYPES; i++) {
			json__begin_object(j);
			json__kv_string(j, "type", fds_type_col[i]);
			json__kv_int(j, "first", v->sp.first[1 + i]);
			json__kv_int(j, "last", v->sp.last[1 + i]);
			json__kv_int(j, "growth", v->sp.last[1 + i] - v->sp.first[1 + i]);
			json__kv_real(j, "per_s",
				      per_s(&v->sp, v->sp.last[1 + i] - v->sp.first[1 + i]));
			json__end_object(j);
		}
		json__end_array(j);
	} else {
		json__null(j);
	}
	json__kv_string(j, "fastest_growing", v->k >= 0 ? fds_type_col[v->k] : NULL);
	json__key(j, "open_at_end");
	if (v->at) {
		json__begin_object(j);
		json__kv_real(j, "t_s", (double)(v->at - ctx->m->base_ns) / 1e9);
		json__kv_bool(j, "truncated", v->trunc);
		json__key(j, "fds");
		table__json(v->ot, j, NULL, 0);
		json__end_object(j);
	} else {
		json__null(j);
	}
	json__key(j, "opens_and_closes");
	if (v->ops) {
		json__begin_object(j);
		json__key(j, "by_syscall");
		table__json(v->pt, j, NULL, 0);
		json__kv_string(j, "user_stacks", v->ss.mode);
		json__kv_bool(j, "stacks_trusted", !v->ss.untrusted && !v->ss.cut);
		if (v->ss.untrusted && v->ss.cut) {
			char both[sizeof(v->ss.note) + sizeof(v->ss.cut_note) + 2];

			snprintf(both, sizeof(both), "%s; %s", v->ss.note, v->ss.cut_note);
			json__kv_string(j, "stacks_note", both);
		} else {
			json__kv_string(j, "stacks_note", v->ss.untrusted ? v->ss.note
							   : v->ss.cut  ? v->ss.cut_note
								     : NULL);
		}
		json__key(j, "sites");
		table__json(v->stt, j, NULL, 0);
		json__key(j, "closed_without_close");
		if (v->unseen >= 0)
			json__int(j, v->unseen);
		else
			json__null(j);
		json__end_object(j);
	} else {
		json__null(j);
	}
	json__kv_string(j, "opens_and_closes_reason", v->ops ? NULL : fds__opens_reason(ctx->probe));
	json__end_object(j);
	return json__end(j);
}

static int fds_body(const struct report_ctx *ctx)
{
	struct fds_view v = {0};
	int err;

	err = fds_view_load(ctx, &v);
	if (!err && ctx->o->fmt == OUT_TEXT)
		err = fds_text(ctx, &v);
	else if (!err && ctx->o->fmt == OUT_CSV) {
		report__drops(NULL, ctx->out, ctx->o, "fds", ctx->drops, ctx->ndrops);
		err = table__print(v.t, ctx->out, OUT_CSV);
	} else if (!err)
		err = fds_json(ctx, &v);
	fds_view_free(&v);
	return err;
}

static const struct an_report fds_report = {
    .name = "fds",
    .order = 85,
    .summary = "open fds by type over time, the fastest-growing type,\n"
	       "the fds open at the end with what they refer to",
    .tables = "fd_sample,fd_open",
    .probe = "fds",
	.drops = "fds",
	.body = fds_body,
};

const struct an_report *const fds_reports[] = {
    &fds_report,
    NULL,
};
