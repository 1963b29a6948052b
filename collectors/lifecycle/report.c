/* report.c — `report tree`: the process tree of the capture from the lifecycle collector
 * (lifecycle_event): each process of the target's subtree with its parent, its lifetime,
 * its command (its last exec's argv, as the kernel had them), how it ended (exit code, or
 * signal and core dump) and its on-CPU time; then the execs with their file and argv.
 * One table model, three renderings (analyze/output.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/report.h"
#include "collectors/lifecycle/report.h"

static const char events_sql[] =
	"SELECT time_ns, kind, pid, ppid, comm, "
	"(SELECT group_concat(value, ' ') FROM json_each(argv)), argv_truncated, exit_code, "
	"signal, core_dumped, cpu_ns FROM lifecycle_event WHERE cap = ?1 "
	"ORDER BY time_ns, rowid";

static const char execs_sql[] =
	"SELECT time_ns, pid, filename, argv, "
	"(SELECT group_concat(value, ' ') FROM json_each(argv)), argv_truncated, argc "
	"FROM lifecycle_event WHERE cap = ?1 AND kind = 'exec' AND time_ns >= ?2 AND time_ns < ?3 "
	"ORDER BY time_ns, rowid";

static const char *text_col(sqlite3_stmt *st, int i)
{
	return (const char *)sqlite3_column_text(st, i);
}

/* The newest process of PID in MD (-1: none). */
static long newest(const struct lc_model *md, int64_t pid)
{
	for (size_t i = md->n; i-- > 0;)
		if (md->p[i].pid == pid)
			return (long)i;
	return -1;
}

static struct lc_proc *add_proc(struct lc_model *md, size_t *cap, int64_t pid)
{
	struct lc_proc *p;

	if (md->n == *cap) {
		size_t nc = *cap ? 2 * *cap : 32;
		struct lc_proc *np = realloc(md->p, nc * sizeof(*np));

		if (!np)
			return NULL;
		md->p = np;
		*cap = nc;
	}
	p = &md->p[md->n++];
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	p->ppid = -1;
	p->start_ns = -1;
	p->end_ns = -1;
	p->exit_code = -1;
	p->cpu_ns = -1;
	p->parent = -1;
	return p;
}

static int set_cmd(struct lc_proc *p, const char *cmd, bool cut)
{
	free(p->cmd);
	p->cmd = NULL;
	if (cmd && !(p->cmd = strdup(cmd)))
		return -ENOMEM;
	p->cmd_cut = cut;
	return 0;
}

void lc_model__free(struct lc_model *md)
{
	for (size_t i = 0; i < md->n; i++)
		free(md->p[i].cmd);
	free(md->p);
	memset(md, 0, sizeof(*md));
}

int lc_model__load(sqlite3 *db, const struct capture_meta *m, const struct window *w,
		   struct lc_model *md)
{
	struct lc_model all = { 0 };
	sqlite3_stmt *st = NULL;
	size_t cap = 0, kept = 0;
	int64_t lo, hi;
	int err = 0, rc;

	memset(md, 0, sizeof(*md));
	window__bounds(w, m, &lo, &hi);
	if (sqlite3_prepare_v2(db, events_sql, -1, &st, NULL) != SQLITE_OK)
		return -EIO;
	sqlite3_bind_int64(st, 1, m->cap);
	while (!err && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t t = sqlite3_column_int64(st, 0), pid = sqlite3_column_int64(st, 2);
		const char *kind = text_col(st, 1), *comm = text_col(st, 4);
		bool in = t >= lo && t < hi;
		long at = newest(&all, pid);
		struct lc_proc *p = at >= 0 ? &all.p[at] : NULL;

		if (!kind)
			continue;
		if (!strcmp(kind, "fork") || !strcmp(kind, "present")) {
			bool fork = kind[0] == 'f';

			if (!(p = add_proc(&all, &cap, pid))) {
				err = -ENOMEM;
				break;
			}
			p->ppid = report__col(st, 3, -1);
			p->start_ns = fork ? t : -1;
			p->parent = p->ppid >= 0 ? newest(&all, p->ppid) : -1;
			if (p->parent == (long)all.n - 1)
				p->parent = -1;
			snprintf(p->comm, sizeof(p->comm), "%s", comm ? comm : "");
			if (!fork)
				err = set_cmd(p, text_col(st, 5), false);
			if (fork && in)
				all.forks++;
			continue;
		}
		if (!p || p->end_ns >= 0) { /* a process not seen before (or a pid used again) */
			if (!(p = add_proc(&all, &cap, pid))) {
				err = -ENOMEM;
				break;
			}
		}
		if (!strcmp(kind, "exec")) {
			p->execs++;
			if (comm)
				snprintf(p->comm, sizeof(p->comm), "%s", comm);
			err = set_cmd(p, text_col(st, 5), sqlite3_column_int64(st, 6) != 0);
			if (in)
				all.execs++;
		} else if (!strcmp(kind, "exit")) {
			if (comm) /* its name as it ended (a thread may have renamed it) */
				snprintf(p->comm, sizeof(p->comm), "%s", comm);
			p->end_ns = t;
			p->exit_code = report__col(st, 7, -1);
			p->signal = report__col(st, 8, 0);
			p->core = sqlite3_column_int64(st, 9) != 0;
			/* no status (core_dumped NULL): the /proc lane saw it gone */
			p->status_unknown = sqlite3_column_type(st, 9) == SQLITE_NULL;
			p->cpu_ns = report__col(st, 10, -1);
			if (in) {
				all.exits++;
				all.killed += p->signal != 0;
				all.failed += p->exit_code > 0;
				all.unknown += p->status_unknown;
			}
		}
	}
	if (!err && rc != SQLITE_DONE)
		err = -EIO;
	sqlite3_finalize(st);
	if (err) {
		lc_model__free(&all);
		return err;
	}
	/* the processes whose lifetime meets the window, their parents' indexes remapped */
	{
		long *map = calloc(all.n ? all.n : 1, sizeof(long));

		if (!map) {
			lc_model__free(&all);
			return -ENOMEM;
		}
		for (size_t i = 0; i < all.n; i++) {
			struct lc_proc *p = &all.p[i];
			bool meets = (p->start_ns < 0 || p->start_ns < hi) &&
				     (p->end_ns < 0 || p->end_ns >= lo);

			map[i] = -1;
			if (!meets) {
				free(p->cmd);
				continue;
			}
			map[i] = (long)kept;
			p->parent = p->parent >= 0 ? map[p->parent] : -1;
			all.p[kept++] = *p;
		}
		free(map);
	}
	all.n = kept;
	for (size_t i = 0; i < all.n; i++)
		all.p[i].depth = all.p[i].parent >= 0 ? all.p[all.p[i].parent].depth + 1 : 0;
	*md = all;
	return 0;
}

/* ------------------------------------------------------------------ report tree */

static void sig_name(int64_t sig, char *buf, size_t len)
{
	const char *a = sig > 0 && sig < 32 ? sigabbrev_np((int)sig) : NULL;

	if (a)
		snprintf(buf, len, "SIG%s", a);
	else
		snprintf(buf, len, "SIG%" PRId64, sig);
}

enum { C_TREE, C_PID, C_PPID, C_START, C_END, C_LIFE, C_CPU, C_EXIT, C_SIGNAL, C_CORE, C_COMM,
       C_CMD, C_CUT, C_EXECS, C_KNOWN, NC };
static const char *const tree_cols[NC] = { "process", "pid",  "ppid",	"start_s", "end_s",
					   "lifetime_s", "cpu_s", "exit_code", "signal", "core",
					   "comm",  "command", "command_truncated", "execs",
					   "status_known" };

static int set_secs(struct table *t, size_t col, int64_t ns, const char *none)
{
	char b[32];

	if (ns < 0) {
		int err = table__set_null(t, col);

		return err ?: table__set_display(t, col, none);
	}
	return table__set_real(t, col, (double)ns / 1e9, fmt_secs(b, sizeof(b), ns));
}

/* Process I's row, then its children's, depth first. */
static int tree_rows(const struct lc_model *md, const struct capture_meta *m, long i,
		     struct table *t)
{
	const struct lc_proc *p = &md->p[i];
	char label[96], sig[32];
	int err;

	snprintf(label, sizeof(label), "%*s%" PRId64, (int)(2 * (p->depth > 20 ? 20 : p->depth)),
		 "", p->pid);
	err = table__add_row(t);
	err = err ?: table__set_text(t, C_TREE, label);
	err = err ?: table__set_int(t, C_PID, p->pid, NULL);
	if (p->ppid >= 0)
		err = err ?: table__set_int(t, C_PPID, p->ppid, NULL);
	err = err ?: set_secs(t, C_START, p->start_ns >= 0 ? p->start_ns - m->base_ns : -1,
			      "before");
	err = err ?: set_secs(t, C_END, p->end_ns >= 0 ? p->end_ns - m->base_ns : -1, "running");
	err = err ?: set_secs(t, C_LIFE,
			      p->start_ns >= 0 && p->end_ns >= 0 ? p->end_ns - p->start_ns : -1,
			      "-");
	err = err ?: set_secs(t, C_CPU, p->cpu_ns, "-");
	if (p->status_unknown) { /* never a 0: the code is not known */
		err = err ?: table__set_null(t, C_EXIT);
		err = err ?: table__set_display(t, C_EXIT, "unknown");
	} else if (p->exit_code >= 0) {
		err = err ?: table__set_int(t, C_EXIT, p->exit_code, NULL);
	}
	if (p->end_ns >= 0)
		err = err ?: table__set_bool(t, C_KNOWN, !p->status_unknown,
					     p->status_unknown ? "no" : "");
	if (p->signal) {
		sig_name(p->signal, sig, sizeof(sig));
		err = err ?: table__set_text(t, C_SIGNAL, sig);
	}
	if (p->end_ns >= 0 && !p->status_unknown)
		err = err ?: table__set_bool(t, C_CORE, p->core, p->core ? "core" : "");
	err = err ?: table__set_text(t, C_COMM, p->comm);
	if (p->cmd)
		err = err ?: table__set_text(t, C_CMD, p->cmd);
	err = err ?: table__set_bool(t, C_CUT, p->cmd_cut, p->cmd_cut ? "cut" : "");
	err = err ?: table__set_int(t, C_EXECS, p->execs, NULL);
	for (size_t k = (size_t)i + 1; !err && k < md->n; k++)
		if (md->p[k].parent == i)
			err = tree_rows(md, m, (long)k, t);
	return err;
}

enum { X_T, X_PID, X_FILE, X_ARGV, X_CUT, X_ARGC, NX };
static const char *const exec_cols[NX] = { "t_s", "pid", "filename", "argv", "argv_truncated",
					   "argc" };

static int exec_rows(sqlite3 *db, const struct capture_meta *m, const struct window *w,
		     struct table *t)
{
	sqlite3_stmt *st = NULL;
	char b[32];
	int err = 0, rc;

	if (report__prepare(db, execs_sql, m, w, &st))
		return -EIO;
	while (!err && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t ts = sqlite3_column_int64(st, 0) - m->base_ns;
		const char *fn = text_col(st, 2), *json = text_col(st, 3), *joined = text_col(st, 4);

		err = table__add_row(t);
		err = err ?: table__set_real(t, X_T, (double)ts / 1e9, fmt_secs(b, sizeof(b), ts));
		err = err ?: table__set_int(t, X_PID, sqlite3_column_int64(st, 1), NULL);
		err = err ?: table__set_text(t, X_FILE, fn ? fn : "");
		if (json)
			err = err ?: table__set_json(t, X_ARGV, json, joined ? joined : "");
		err = err ?: table__set_bool(t, X_CUT, sqlite3_column_int64(st, 5) != 0,
					     sqlite3_column_int64(st, 5) ? "cut" : "");
		err = err ?: table__set_int(t, X_ARGC, sqlite3_column_int64(st, 6), NULL);
	}
	if (!err && rc != SQLITE_DONE)
		err = -EIO;
	sqlite3_finalize(st);
	return err;
}

static int tree_body(const struct report_ctx *ctx)
{
	static const size_t json_cols[] = { C_PID,  C_PPID,   C_START, C_END, C_LIFE,
					    C_CPU,  C_EXIT,   C_SIGNAL, C_CORE, C_COMM,
					    C_CMD,  C_CUT,    C_EXECS, C_KNOWN };
	static const size_t text_cols[] = { C_TREE, C_START, C_END, C_LIFE, C_CPU, C_EXIT,
					    C_SIGNAL, C_CORE, C_EXECS, C_CMD, C_CUT };
	const struct report_opts *o = ctx->o;
	FILE *out = ctx->out;
	struct json *j = ctx->j;
	struct table *t = NULL, *x = NULL;
	struct lc_model md = { 0 };
	struct probe_info pi;
	bool at_poll;
	size_t ncols = sizeof(json_cols) / sizeof(json_cols[0]);
	char w[96];
	int err;

	t = table__new(NC, tree_cols);
	x = table__new(NX, exec_cols);
	if (!t || !x) {
		err = -ENOMEM;
		goto cleanup;
	}
	/* the /proc lane: forks, execs and exits are dated at the poll that saw them */
	err = probe__lookup(ctx->db, ctx->m->cap, "lifecycle", &pi);
	at_poll = !err && !strcmp(pi.source, "proc");
	err = err ?: lc_model__load(ctx->db, ctx->m, &o->win, &md);
	for (size_t i = 0; !err && i < md.n; i++)
		if (md.p[i].parent < 0)
			err = tree_rows(&md, ctx->m, (long)i, t);
	err = err ?: exec_rows(ctx->db, ctx->m, &o->win, x);
	if (err)
		goto cleanup;
	switch (o->fmt) {
	case OUT_TEXT:
		window__describe(&o->win, w, sizeof(w));
		fprintf(out,
			"process tree (%s): %zu processes; %" PRIu64 " forks, %" PRIu64
			" execs, %" PRIu64 " exits (%" PRIu64 " by a signal, %" PRIu64
			" with a non-zero code)\n",
			w, md.n, md.forks, md.execs, md.exits, md.killed, md.failed);
		if (md.unknown)
			fprintf(out, "%" PRIu64 " exits with the status unknown (the /proc lane sees "
				"a process gone, not how it ended)\n", md.unknown);
		if (at_poll)
			fprintf(out, "times of forks, execs and exits are the polls' that saw them "
				"(/proc lane, not exact); processes that lived between two polls "
				"are missed\n");
		report__drops(NULL, out, o, "lifecycle", ctx->drops, ctx->ndrops);
		if (table__rows(t)) {
			fputc('\n', out);
			err = table__print_cols(t, out, OUT_TEXT, text_cols,
						sizeof(text_cols) / sizeof(text_cols[0]));
		}
		if (!err && table__rows(x)) {
			fprintf(out, "\nexecs\n");
			err = table__print(x, out, OUT_TEXT);
		}
		break;
	case OUT_CSV:
		report__drops(NULL, out, o, "lifecycle", ctx->drops, ctx->ndrops);
		err = table__print_cols(t, out, OUT_CSV, json_cols, ncols);
		break;
	case OUT_JSON:
		json__kv_bool(j, "collected", true);
		report__drops(j, out, o, "lifecycle", ctx->drops, ctx->ndrops);
		json__kv_int(j, "forks", (int64_t)md.forks);
		json__kv_int(j, "execs", (int64_t)md.execs);
		json__kv_int(j, "exits", (int64_t)md.exits);
		json__kv_int(j, "killed", (int64_t)md.killed);
		json__kv_int(j, "failed", (int64_t)md.failed);
		json__kv_int(j, "status_unknown", (int64_t)md.unknown);
		json__kv_bool(j, "at_poll", at_poll);
		json__key(j, "processes");
		table__json(t, j, json_cols, ncols);
		json__key(j, "exec_list");
		table__json(x, j, NULL, 0);
		json__end_object(j);
		err = json__end(j);
		break;
	}
cleanup:
	table__free(t);
	table__free(x);
	lc_model__free(&md);
	return err;
}

static const struct an_report tree_report = {
	.name = "tree",
	.order = 170,
	.summary = "the process tree: forks, execs with argv, exit codes and signals",
	.tables = "lifecycle_event",
	.probe = "lifecycle",
	.drops = "lifecycle",
	.body = tree_body,
};

const struct an_report *const lifecycle_reports[] = { &tree_report, NULL };
