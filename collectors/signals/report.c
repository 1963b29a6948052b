/* report.c — `report signals`: the signals sent to the target's threads and taken by them
 * over the window, one row per (stage, signal, si_code, result, sender, receiving thread),
 * the most frequent first within each stage; and the totals by signal. Of the /proc lane
 * (without eBPF): no counts (not measured), each thread's signal sets at the window's end
 * and their changes in it. One table model, three renderings (analyze/output.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/report.h"
#include "collectors/signals/names.h"
#include "collectors/signals/report.h"

/* The rows of the window: an interval sample is in it when its midpoint is (report.h). */
static const char rows_sql[] =
	"SELECT stage, sig, name, code, result, sender_pid, sender_tid, sender_comm, tgid, tid, "
	"SUM(count) AS n FROM signal_count WHERE cap = ?1 "
	"AND time_ns - COALESCE(interval_ns, 0) / 2 >= ?2 "
	"AND time_ns - COALESCE(interval_ns, 0) / 2 < ?3 "
	"GROUP BY stage, sig, name, code, result, sender_pid, sender_tid, sender_comm, tgid, tid "
	"ORDER BY stage = 'deliver', n DESC, sig, tid, sender_tid, result";

enum { COL_STAGE, COL_SIG, COL_CODE, COL_RESULT, COL_SENDER_PID, COL_SENDER_TID, COL_SENDER,
       COL_TGID, COL_TID, COL_COUNT, COLS };
static const char *const col_names[COLS] = { "stage",	   "signal",	 "code", "result",
					     "sender_pid", "sender_tid", "sender_comm",
					     "pid",	   "tid",	 "count" };

/* si_code's name: the generic ones, and SIGCHLD's own (other signals' own codes are
 * numbers), else NULL. */
static const char *code_name(int64_t sig, int64_t code)
{
	static const char *const cld[] = { NULL, "CLD_EXITED", "CLD_KILLED", "CLD_DUMPED",
					   "CLD_TRAPPED", "CLD_STOPPED", "CLD_CONTINUED" };

	if (sig == SIGCHLD && code >= 1 && code <= 6)
		return cld[code];
	switch (code) {
	case 0: return "SI_USER";
	case 0x80: return "SI_KERNEL";
	case -1: return "SI_QUEUE";
	case -2: return "SI_TIMER";
	case -3: return "SI_MESGQ";
	case -4: return "SI_ASYNCIO";
	case -5: return "SI_SIGIO";
	case -6: return "SI_TKILL";
	default: return NULL;
	}
}

static int sum_add(struct signals_sum *s, const char *name, bool gen, const char *result,
		   uint64_t n)
{
	struct signals_by *b = NULL;

	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->by[i].name, name))
			b = &s->by[i];
	if (!b) {
		struct signals_by *nb = realloc(s->by, (s->n + 1) * sizeof(*nb));

		if (!nb)
			return -ENOMEM;
		s->by = nb;
		b = &s->by[s->n++];
		memset(b, 0, sizeof(*b));
		snprintf(b->name, sizeof(b->name), "%s", name);
	}
	if (gen) {
		b->sent += n;
		s->sent += n;
	} else {
		b->taken += n;
		s->taken += n;
		if (!strcmp(result, "handled"))
			b->handled += n;
		else if (!strcmp(result, "fatal") || !strcmp(result, "core"))
			b->fatal += n;
	}
	return 0;
}

/* The rows of window W of capture M into T (NULL: none kept) and the sums into S. 0,
 * -ENOMEM, -EIO. */
static int build_rows(sqlite3 *db, const struct capture_meta *m, const struct window *w,
		      struct table *t, struct signals_sum *s)
{
	sqlite3_stmt *st = NULL;
	int err = 0, rc;

	memset(s, 0, sizeof(*s));
	if (report__prepare(db, rows_sql, m, w, &st))
		return -EIO;
	while (!err && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *stage = (const char *)sqlite3_column_text(st, 0);
		const char *name = (const char *)sqlite3_column_text(st, 2);
		const char *result = (const char *)sqlite3_column_text(st, 4);
		const char *comm = (const char *)sqlite3_column_text(st, 7);
		int64_t code = sqlite3_column_int64(st, 3), n = sqlite3_column_int64(st, 10);
		bool gen = stage && !strcmp(stage, "generate");
		const char *cn = code_name(sqlite3_column_int64(st, 1), code);
		char cbuf[32];

		err = sum_add(s, name ? name : "?", gen, result ? result : "", (uint64_t)n);
		if (err || !t)
			continue;
		snprintf(cbuf, sizeof(cbuf), "%s", cn ? cn : "");
		err = table__add_row(t);
		err = err ?: table__set_text(t, COL_STAGE, gen ? "sent" : "taken");
		err = err ?: table__set_text(t, COL_SIG, name ? name : "?");
		err = err ?: table__set_int(t, COL_CODE, code, cn ? cbuf : NULL);
		err = err ?: table__set_text(t, COL_RESULT, result ? result : "");
		if (gen) {
			err = err ?: table__set_int(t, COL_SENDER_PID, sqlite3_column_int64(st, 5),
						    NULL);
			err = err ?: table__set_int(t, COL_SENDER_TID, sqlite3_column_int64(st, 6),
						    NULL);
			err = err ?: table__set_text(t, COL_SENDER, comm ? comm : "");
		}
		err = err ?: table__set_int(t, COL_TGID, sqlite3_column_int64(st, 8), NULL);
		err = err ?: table__set_int(t, COL_TID, sqlite3_column_int64(st, 9), NULL);
		err = err ?: table__set_int(t, COL_COUNT, n, NULL);
	}
	if (!err && rc != SQLITE_DONE)
		err = -EIO;
	sqlite3_finalize(st);
	return err;
}

int signals_sum__load(sqlite3 *db, const struct capture_meta *m, const struct window *w,
		      struct signals_sum *s)
{
	return build_rows(db, m, w, NULL, s);
}

void signals_sum__free(struct signals_sum *s)
{
	free(s->by);
	s->by = NULL;
	s->n = 0;
}

static const char *const by_names[] = { "signal", "sent", "taken", "handled", "fatal" };

static int by_table(const struct signals_sum *s, struct table **out)
{
	struct table *t = table__new(5, by_names);
	int err = 0;

	if (!t)
		return -ENOMEM;
	for (size_t i = 0; !err && i < s->n; i++) {
		err = table__add_row(t);
		err = err ?: table__set_text(t, 0, s->by[i].name);
		err = err ?: table__set_int(t, 1, (int64_t)s->by[i].sent, NULL);
		err = err ?: table__set_int(t, 2, (int64_t)s->by[i].taken, NULL);
		err = err ?: table__set_int(t, 3, (int64_t)s->by[i].handled, NULL);
		err = err ?: table__set_int(t, 4, (int64_t)s->by[i].fatal, NULL);
	}
	if (err) {
		table__free(t);
		return err;
	}
	*out = t;
	return 0;
}

/* The /proc lane: each thread's sets as they stood at the window's end (its last row at or
 * before it, not gone), and the changes in the window. */
static const char sets_sql[] =
	"SELECT s.tgid, s.tid, s.pending, s.shared_pending, s.blocked, s.ignored, s.caught, "
	"s.queued, s.queue_limit FROM signal_sets s WHERE s.cap = ?1 AND s.gone = 0 AND "
	"s.time_ns = (SELECT MAX(x.time_ns) FROM signal_sets x WHERE x.cap = ?1 AND "
	"x.tgid = s.tgid AND x.tid = s.tid AND x.time_ns <= ?3) ORDER BY s.tgid, s.tid";
static const char changes_sql[] =
	"SELECT time_ns, tgid, tid, what, added, removed FROM signal_set_change WHERE cap = ?1 "
	"AND time_ns >= ?2 AND time_ns <= ?3 ORDER BY time_ns, rowid";

static const char *const sets_names[] = { "pid",     "tid",    "pending", "shared_pending",
					  "blocked", "ignored", "caught", "queued",
					  "queue_limit" };
static const char *const change_names[] = { "t_s", "pid", "tid", "set", "added", "removed" };

static int sets_tables(const struct report_ctx *ctx, struct table *st, struct table *ct)
{
	sqlite3_stmt *q = NULL;
	int err = 0, rc;

	if (report__prepare(ctx->db, sets_sql, ctx->m, &ctx->o->win, &q))
		return -EIO;
	while (!err && (rc = sqlite3_step(q)) == SQLITE_ROW) {
		err = table__add_row(st);
		err = err ?: table__set_int(st, 0, sqlite3_column_int64(q, 0), NULL);
		err = err ?: table__set_int(st, 1, sqlite3_column_int64(q, 1), NULL);
		for (int k = 2; !err && k <= 6; k++) {
			char names[1024];

			signals_mask_names((uint64_t)sqlite3_column_int64(q, k), names,
					   sizeof(names));
			err = table__set_text(st, (size_t)k, names);
			if (!err && !names[0]) /* an empty set: "-" in text */
				err = table__set_display(st, (size_t)k, "-");
		}
		if (!err && sqlite3_column_type(q, 8) != SQLITE_NULL) {
			err = table__set_int(st, 7, sqlite3_column_int64(q, 7), NULL);
			err = err ?: table__set_int(st, 8, sqlite3_column_int64(q, 8), NULL);
		}
	}
	if (!err && rc != SQLITE_DONE)
		err = -EIO;
	sqlite3_finalize(q);
	q = NULL;
	if (err || report__prepare(ctx->db, changes_sql, ctx->m, &ctx->o->win, &q))
		return err ? err : -EIO;
	while (!err && (rc = sqlite3_step(q)) == SQLITE_ROW) {
		double t = (double)(sqlite3_column_int64(q, 0) - ctx->m->base_ns) / 1e9;
		char tb[32];

		snprintf(tb, sizeof(tb), "%.3f", t);
		err = table__add_row(ct);
		err = err ?: table__set_real(ct, 0, t, tb);
		err = err ?: table__set_int(ct, 1, sqlite3_column_int64(q, 1), NULL);
		err = err ?: table__set_int(ct, 2, sqlite3_column_int64(q, 2), NULL);
		for (int k = 3; !err && k <= 5; k++) {
			const char *v = (const char *)sqlite3_column_text(q, k);

			err = table__set_text(ct, (size_t)k, v ? v : "");
		}
	}
	if (!err && rc != SQLITE_DONE)
		err = -EIO;
	sqlite3_finalize(q);
	return err;
}

/* `report signals` of the /proc lane: no counts (never 0s), the sets and their changes. */
static int proc_body(const struct report_ctx *ctx)
{
	static const char why[] = "the /proc lane (eBPF lane off) shows the threads' signal sets, "
				  "not the signals sent or taken";
	const struct report_opts *o = ctx->o;
	struct table *st = table__new(9, sets_names), *ct = table__new(6, change_names);
	FILE *out = ctx->out;
	struct json *j = ctx->j;
	char w[96];
	int err;

	err = st && ct ? sets_tables(ctx, st, ct) : -ENOMEM;
	if (err)
		goto cleanup;
	switch (o->fmt) {
	case OUT_TEXT:
		window__describe(&o->win, w, sizeof(w));
		fprintf(out, "signals (%s): sent and taken not measured: %s\n", w, why);
		report__drops(NULL, out, o, "signals", ctx->drops, ctx->ndrops);
		fprintf(out, "\nsignal sets at the end of the window (/proc/PID/task/TID/status)\n");
		err = table__print(st, out, OUT_TEXT);
		if (!err && table__rows(ct)) {
			fprintf(out, "\nchanges in the window\n");
			err = table__print(ct, out, OUT_TEXT);
		}
		break;
	case OUT_CSV:
		report__drops(NULL, out, o, "signals", ctx->drops, ctx->ndrops);
		err = table__print(st, out, OUT_CSV);
		break;
	case OUT_JSON:
		json__kv_bool(j, "collected", true);
		report__drops(j, out, o, "signals", ctx->drops, ctx->ndrops);
		json__kv_string(j, "lane", "proc");
		json__kv_bool(j, "counts_measured", false);
		json__kv_string(j, "counts_why", why);
		json__key(j, "sent");
		json__null(j);
		json__key(j, "taken");
		json__null(j);
		json__key(j, "sets");
		table__json(st, j, NULL, 0);
		json__key(j, "set_changes");
		table__json(ct, j, NULL, 0);
		json__end_object(j);
		err = json__end(j);
		break;
	}
cleanup:
	table__free(st);
	table__free(ct);
	return err;
}

static int signals_body(const struct report_ctx *ctx)
{
	const struct report_opts *o = ctx->o;
	FILE *out = ctx->out;
	struct json *j = ctx->j;
	struct table *t = NULL, *bt = NULL;
	struct signals_sum s = { 0 };
	char w[96], a[32], b[32];
	int err;

	if (ctx->probe && !strcmp(ctx->probe->source, "proc"))
		return proc_body(ctx);
	t = table__new(COLS, col_names);
	if (!t)
		return -ENOMEM;
	err = build_rows(ctx->db, ctx->m, &o->win, t, &s);
	err = err ?: by_table(&s, &bt);
	if (err)
		goto cleanup;
	switch (o->fmt) {
	case OUT_TEXT:
		window__describe(&o->win, w, sizeof(w));
		fprintf(out, "signals (%s): %s sent to the target's threads, %s taken by them\n",
			w, fmt_count(a, sizeof(a), s.sent), fmt_count(b, sizeof(b), s.taken));
		report__drops(NULL, out, o, "signals", ctx->drops, ctx->ndrops);
		if (table__rows(t)) {
			fputc('\n', out);
			err = table__print(bt, out, OUT_TEXT);
			fputc('\n', out);
			err = err ?: table__print(t, out, OUT_TEXT);
		}
		break;
	case OUT_CSV:
		report__drops(NULL, out, o, "signals", ctx->drops, ctx->ndrops);
		err = table__print(t, out, OUT_CSV);
		break;
	case OUT_JSON:
		json__kv_bool(j, "collected", true);
		report__drops(j, out, o, "signals", ctx->drops, ctx->ndrops);
		json__kv_string(j, "lane", "ebpf");
		json__kv_bool(j, "counts_measured", true);
		json__key(j, "sent");
		json__uint(j, s.sent);
		json__key(j, "taken");
		json__uint(j, s.taken);
		json__key(j, "by_signal");
		table__json(bt, j, NULL, 0);
		json__key(j, "signals");
		table__json(t, j, NULL, 0);
		json__end_object(j);
		err = json__end(j);
		break;
	}
cleanup:
	table__free(t);
	table__free(bt);
	signals_sum__free(&s);
	return err;
}

static const struct an_report signals_report = {
	.name = "signals",
	.order = 160,
	.summary = "signals sent to and taken by the target's threads, with senders",
	.tables = "signal_count,signal_sets,signal_set_change",
	.probe = "signals",
	.drops = "signals",
	.body = signals_body,
};

const struct an_report *const signals_reports[] = { &signals_report, NULL };
