/* report.c — `report threads`: the target's threads over the window, by CPU time and by
 * time off CPU with its reasons (runnable waiting for a CPU, sleeping, blocked), their
 * switches, migrations, /proc states over time and wchan, the threads created and exited,
 * and the top off-CPU stacks (where threads blocked, symbolized as the CPU profile is).
 *
 * Text prints four tables; JSON has "threads", "events" and "offcpu_stacks"; CSV prints
 * the threads table. A figure of a lane that did not run is null in JSON and empty in
 * text and CSV, never 0.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/report.h"
#include "analyze/symbolize.h"
#include "collectors/threads/report.h"
#include "common/array.h"

/* an interval row is in the window when its midpoint is (report.h) */
#define IN_WINDOW                                                                          \
	"time_ns - COALESCE(interval_ns, 0) / 2 >= ?2 AND "                                \
	"time_ns - COALESCE(interval_ns, 0) / 2 < ?3"

static const char rows_sql[] =
	"SELECT tid, SUM(oncpu_ns), SUM(off_runnable_ns), SUM(off_sleep_ns), "
	"SUM(off_blocked_ns), SUM(voluntary), SUM(involuntary), SUM(migrations), "
	"COUNT(oncpu_ns), SUM(proc_cpu_ns), COUNT(proc_cpu_ns), MAX(time_ns), comm, cpu "
	"FROM thread_interval WHERE cap = ?1 AND " IN_WINDOW " GROUP BY tid";
static const char states_sql[] =
	"SELECT tid, COALESCE(state, '-'), wchan FROM thread_interval WHERE cap = ?1 AND " IN_WINDOW
	" ORDER BY tid, time_ns";
static const char sample_sql[] =
	"SELECT MAX(ebpf), MAX(offcpu_min_ns), SUM(skipped), SUM(skipped_ns), "
	"SUM(COALESCE(interval_ns, 0)), MAX(pid IS NOT NULL) FROM thread_sample WHERE cap = ?1 "
	"AND " IN_WINDOW;
static const char events_sql[] =
	"SELECT time_ns, type, tid, by_tid, comm, exact FROM thread_event WHERE cap = ?1 AND "
	"time_ns >= ?2 AND time_ns < ?3 ORDER BY time_ns, rowid";

static sqlite3_stmt *prep(sqlite3 *db, const char *sql, const struct capture_meta *m,
			  const struct window *w)
{
	sqlite3_stmt *st = NULL;

	report__prepare(db, sql, m, w, &st); /* NULL on failure */
	return st;
}

static int cmp_row(const void *a, const void *b)
{
	const struct thr_row *x = a, *y = b;
	int64_t kx = x->oncpu_ns >= 0 ? x->oncpu_ns : x->proc_cpu_ns,
		ky = y->oncpu_ns >= 0 ? y->oncpu_ns : y->proc_cpu_ns;

	if (kx != ky)
		return kx > ky ? -1 : 1;
	return (x->tid > y->tid) - (x->tid < y->tid);
}

static struct thr_row *find_row(struct thr_rows *r, int64_t tid)
{
	for (size_t i = 0; i < r->n; i++)
		if (r->v[i].tid == tid)
			return &r->v[i];
	return NULL;
}

void thr_rows__free(struct thr_rows *r)
{
	free(r->v);
	memset(r, 0, sizeof(*r));
}

int thr_rows__load(sqlite3 *db, const struct capture_meta *m, const struct window *w,
		   struct thr_rows *r)
{
	sqlite3_stmt *st;
	size_t cap = 0;
	int rc, err = 0;

	memset(r, 0, sizeof(*r));
	r->offcpu_min_ns = -1;
	st = prep(db, sample_sql, m, w);
	if (!st)
		return -EIO;
	if (sqlite3_step(st) == SQLITE_ROW) {
		r->ebpf = sqlite3_column_int(st, 0) != 0;
		r->offcpu_min_ns = report__col(st, 1, -1);
		r->skipped = (uint64_t)report__col(st, 2, 0);
		r->skipped_ns = (uint64_t)report__col(st, 3, 0);
		r->span_s = (double)report__col(st, 4, 0) / 1e9;
		r->proc = sqlite3_column_int(st, 5) != 0;
	}
	sqlite3_finalize(st);
	st = prep(db, rows_sql, m, w);
	if (!st)
		return -EIO;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct thr_row *t;
		bool ebpf = sqlite3_column_int64(st, 8) > 0, proc = sqlite3_column_int64(st, 10) > 0;
		const unsigned char *s;

		if (array__grow((void **)&r->v, &cap, r->n, sizeof(*r->v))) {
			err = -ENOMEM;
			break;
		}
		t = &r->v[r->n++];
		memset(t, 0, sizeof(*t));
		t->tid = sqlite3_column_int64(st, 0);
		t->oncpu_ns = ebpf ? sqlite3_column_int64(st, 1) : -1;
		t->runnable_ns = ebpf ? sqlite3_column_int64(st, 2) : -1;
		t->sleep_ns = ebpf ? sqlite3_column_int64(st, 3) : -1;
		t->blocked_ns = ebpf ? sqlite3_column_int64(st, 4) : -1;
		t->off_ns = ebpf ? t->runnable_ns + t->sleep_ns + t->blocked_ns : -1;
		t->voluntary = ebpf ? sqlite3_column_int64(st, 5) : -1;
		t->involuntary = ebpf ? sqlite3_column_int64(st, 6) : -1;
		t->migrations = ebpf ? sqlite3_column_int64(st, 7) : -1;
		t->proc_cpu_ns = proc ? sqlite3_column_int64(st, 9) : -1;
		s = sqlite3_column_text(st, 12);
		snprintf(t->comm, sizeof(t->comm), "%s", s ? (const char *)s : "");
		t->cpu = report__col(st, 13, -1);
		t->created_ns = t->exited_ns = -1;
	}
	if (!err && rc != SQLITE_DONE)
		err = -EIO;
	sqlite3_finalize(st);
	if (err)
		return err;
	st = prep(db, states_sql, m, w);
	if (!st)
		return -EIO;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct thr_row *t = find_row(r, sqlite3_column_int64(st, 0));
		const unsigned char *s = sqlite3_column_text(st, 1), *wc = sqlite3_column_text(st, 2);
		size_t len;

		if (!t || !s)
			continue;
		if (wc) /* the last one known */
			snprintf(t->wchan, sizeof(t->wchan), "%s", (const char *)wc);
		len = strlen(t->states);
		if (len + 1 < sizeof(t->states)) {
			t->states[len] = (char)s[0];
			t->states[len + 1] = '\0';
		}
	}
	sqlite3_finalize(st);
	st = prep(db, events_sql, m, w);
	if (!st)
		return -EIO;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct thr_row *t = find_row(r, sqlite3_column_int64(st, 2));
		const char *type = (const char *)sqlite3_column_text(st, 1);

		if (!t || !type)
			continue;
		if (!strcmp(type, "create") && t->created_ns < 0)
			t->created_ns = sqlite3_column_int64(st, 0) - m->base_ns;
		else if (!strcmp(type, "exit"))
			t->exited_ns = sqlite3_column_int64(st, 0) - m->base_ns;
	}
	sqlite3_finalize(st);
	if (r->n > 1)
		qsort(r->v, r->n, sizeof(*r->v), cmp_row);
	return 0;
}

int threads_offcpu__load(sqlite3 *db, const struct capture_meta *m, const struct window *w,
			 bool by_thread, struct offcpu_row **out, size_t *n)
{
	static const char by_stack[] =
		"SELECT COALESCE(user_stack_id, 0), COALESCE(kernel_stack_id, 0), -1, '', "
		"SUM(total_ns), SUM(count) FROM offcpu_stack WHERE cap = ?1 AND " IN_WINDOW
		" GROUP BY 1, 2 ORDER BY 5 DESC, 1, 2";
	static const char by_tid[] =
		"SELECT COALESCE(user_stack_id, 0), COALESCE(kernel_stack_id, 0), tid, reason, "
		"SUM(total_ns), SUM(count) FROM offcpu_stack WHERE cap = ?1 AND " IN_WINDOW
		" GROUP BY 1, 2, 3, 4 ORDER BY 5 DESC, 3, 1, 2";
	sqlite3_stmt *st = prep(db, by_thread ? by_tid : by_stack, m, w);
	struct offcpu_row *v = NULL;
	size_t k = 0, cap = 0;
	int rc, err = 0;

	*out = NULL;
	*n = 0;
	if (!st)
		return -EIO;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const unsigned char *s = sqlite3_column_text(st, 3);

		if (array__grow((void **)&v, &cap, k, sizeof(*v))) {
			err = -ENOMEM;
			break;
		}
		v[k].user_stack_id = sqlite3_column_int64(st, 0);
		v[k].kernel_stack_id = sqlite3_column_int64(st, 1);
		v[k].tid = sqlite3_column_int64(st, 2);
		snprintf(v[k].reason, sizeof(v[k].reason), "%s", s ? (const char *)s : "");
		v[k].total_ns = (uint64_t)sqlite3_column_int64(st, 4);
		v[k].count = (uint64_t)sqlite3_column_int64(st, 5);
		k++;
	}
	if (!err && rc != SQLITE_DONE)
		err = -EIO;
	sqlite3_finalize(st);
	if (err) {
		free(v);
		return err;
	}
	*out = v;
	*n = k;
	return 0;
}

/* ------------------------------------------------------------------ tables */

enum {
	C_TID, C_COMM, C_ONCPU, C_CPU_PCT, C_OFF, C_RUNNABLE, C_SLEEP, C_BLOCKED, C_VOL,
	C_INVOL, C_MIG, C_LASTCPU, C_PROC_CPU, C_STATES, C_WCHAN, C_CREATED, C_EXITED, NCOLS
};
static const char *const col_names[NCOLS] = {
	"tid",	       "comm",	      "oncpu_s",     "cpu_pct",	  "offcpu_s",	"runnable_s",
	"sleep_s",     "blocked_s",   "voluntary",   "involuntary", "migrations", "cpu",
	"proc_cpu_s",  "states",      "wchan",	     "created_s",   "exited_s",
};

static int set_secs(struct table *t, size_t col, int64_t ns)
{
	char b[32];

	if (ns < 0)
		return 0; /* not measured: left empty (null) */
	return table__set_real(t, col, (double)ns / 1e9, fmt_secs(b, sizeof(b), ns));
}

static int set_opt_int(struct table *t, size_t col, int64_t v)
{
	return v < 0 ? 0 : table__set_int(t, col, v, NULL);
}

static int build_threads(const struct thr_rows *r, struct table *t)
{
	char b[32];
	int err = 0;

	for (size_t i = 0; i < r->n && !err; i++) {
		const struct thr_row *x = &r->v[i];

		err = table__add_row(t);
		err = err ?: table__set_int(t, C_TID, x->tid, NULL);
		err = err ?: table__set_text(t, C_COMM, x->comm);
		err = err ?: set_secs(t, C_ONCPU, x->oncpu_ns);
		if (!err && x->oncpu_ns >= 0 && r->span_s > 0) {
			double pct = (double)x->oncpu_ns / 1e9 / r->span_s * 100;

			err = table__set_real(t, C_CPU_PCT, pct, fmt_pct(b, sizeof(b), pct));
		}
		err = err ?: set_secs(t, C_OFF, x->off_ns);
		err = err ?: set_secs(t, C_RUNNABLE, x->runnable_ns);
		err = err ?: set_secs(t, C_SLEEP, x->sleep_ns);
		err = err ?: set_secs(t, C_BLOCKED, x->blocked_ns);
		err = err ?: set_opt_int(t, C_VOL, x->voluntary);
		err = err ?: set_opt_int(t, C_INVOL, x->involuntary);
		err = err ?: set_opt_int(t, C_MIG, x->migrations);
		err = err ?: set_opt_int(t, C_LASTCPU, x->cpu);
		err = err ?: set_secs(t, C_PROC_CPU, x->proc_cpu_ns);
		if (!err && x->states[0])
			err = table__set_text(t, C_STATES, x->states);
		if (!err && x->wchan[0])
			err = table__set_text(t, C_WCHAN, x->wchan);
		err = err ?: set_secs(t, C_CREATED, x->created_ns);
		err = err ?: set_secs(t, C_EXITED, x->exited_ns);
	}
	return err;
}

enum { E_T, E_TYPE, E_TID, E_BY, E_COMM, E_EXACT, ECOLS };
static const char *const ev_names[ECOLS] = { "t_s", "type", "tid", "by_tid", "comm", "exact" };

static int build_events(sqlite3 *db, const struct capture_meta *m, const struct window *w,
			struct table *t)
{
	sqlite3_stmt *st = prep(db, events_sql, m, w);
	char b[32];
	int rc, err = 0;

	if (!st)
		return -EIO;
	while (!err && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t ns = sqlite3_column_int64(st, 0) - m->base_ns;

		err = table__add_row(t);
		err = err ?: table__set_real(t, E_T, (double)ns / 1e9, fmt_secs(b, sizeof(b), ns));
		err = err ?: table__set_text(t, E_TYPE, (const char *)sqlite3_column_text(st, 1));
		err = err ?: table__set_int(t, E_TID, sqlite3_column_int64(st, 2), NULL);
		if (!err && sqlite3_column_type(st, 3) != SQLITE_NULL)
			err = table__set_int(t, E_BY, sqlite3_column_int64(st, 3), NULL);
		if (!err && sqlite3_column_type(st, 4) != SQLITE_NULL)
			err = table__set_text(t, E_COMM, (const char *)sqlite3_column_text(st, 4));
		err = err ?: table__set_bool(t, E_EXACT, sqlite3_column_int(st, 5) != 0, NULL);
	}
	sqlite3_finalize(st);
	return err;
}

enum { S_RANK, S_TID, S_COMM, S_REASON, S_TOTAL, S_COUNT, S_MEAN, S_STACK, S_USER_ID,
       S_KERNEL_ID, SCOLS };
static const char *const st_names[SCOLS] = { "rank",	"tid",	 "comm",  "reason",
					     "total_s", "count", "mean_s", "stack",
					     "user_stack_id", "kernel_stack_id" };
#define STACK_TEXT_MAX 16384
#define TEXT_STACKS 10 /* stacks in text (JSON: all) */
#define TEXT_FRAMES 8  /* user frames in text, then kernel frames */

bool threads_frame_is_tracing(const char *name)
{
	return !strncmp(name, "bpf_trace_run", 13) || !strncmp(name, "__bpf_trace_", 12) ||
	       !strncmp(name, "__traceiter_", 12) || !strncmp(name, "bpf_prog_", 9) ||
	       !strncmp(name, "[kernel]+0x", 11);
}

/* The names of stack SID's frames in P, innermost first, " < " between, at most MAX,
 * into BUF at *AT (the leading frames of the tracing itself left out of a kernel stack:
 * threads_frame_is_tracing). */
static void frames(const struct profile *p, int64_t sid, bool kernel, size_t max, char *buf,
		   size_t len, size_t *at)
{
	const struct prof_stack *ps = sid > 0 && p ? profile__stack(p, sid) : NULL;
	size_t k = 0, from = *at, d = 0;
	char name[512];

	if (!ps) {
		if (sid > 0 && *at < len)
			*at += (size_t)snprintf(buf + *at, len - *at, "[stack %" PRId64 " unplaced]",
						sid);
		return;
	}
	for (; kernel && d < ps->n; d++) {
		prof_loc__name(ps->loc[d], 0, name, sizeof(name));
		if (!threads_frame_is_tracing(name))
			break;
	}
	for (; d < ps->n && k < max && *at < len; d++, k++) {
		prof_loc__name(ps->loc[d], 0, name, sizeof(name));
		*at += (size_t)snprintf(buf + *at, len - *at, "%s%s", *at > from ? " < " : "",
					name);
	}
	if (d < ps->n && *at < len)
		*at += (size_t)snprintf(buf + *at, len - *at, " < ...");
}

/* "USER FRAMES | kernel: KERNEL FRAMES" of O into BUF. */
static void stack_text(const struct profile *p, const struct offcpu_row *o, size_t max, char *buf,
		       size_t len)
{
	size_t at = 0;

	buf[0] = '\0';
	if (o->user_stack_id)
		frames(p, o->user_stack_id, false, max, buf, len, &at);
	else
		at += (size_t)snprintf(buf, len, "(no user stack)");
	if (at < len)
		at += (size_t)snprintf(buf + at, len - at, " | kernel: ");
	if (o->kernel_stack_id)
		frames(p, o->kernel_stack_id, true, max, buf, len, &at);
	else if (at < len)
		snprintf(buf + at, len - at, "(none)");
}

static int cmp_total(const void *a, const void *b)
{
	const struct offcpu_row *x = a, *y = b;

	return x->total_ns < y->total_ns ? 1 : x->total_ns > y->total_ns ? -1 : 0;
}

/* Merge the rows of V[0..*N) with one thread, reason and stack text (TEXT[i], the full
 * frames) into the first of them, and order them by total again: the stack copies of one
 * call path may have several keys (a word left in a frame differs), so its blocks come
 * in several rows, which are one stack once unwound. A merged row keeps the first's
 * stack ids. */
static void merge_by_frames(struct offcpu_row *v, char **text, size_t *n)
{
	size_t k = 0;

	for (size_t i = 0; i < *n; i++) {
		size_t j;

		for (j = 0; j < k; j++)
			if (v[j].tid == v[i].tid && !strcmp(v[j].reason, v[i].reason) &&
			    !strcmp(text[j], text[i]))
				break;
		if (j < k) {
			v[j].total_ns += v[i].total_ns;
			v[j].count += v[i].count;
			free(text[i]);
			continue;
		}
		v[k] = v[i];
		text[k++] = text[i];
	}
	*n = k;
	/* the texts are not needed past here: the order is the totals' (qsort is not
	 * stable, but rows of one total were ordered by the SQL alike) */
	for (size_t i = 0; i < k; i++)
		free(text[i]);
	qsort(v, k, sizeof(*v), cmp_total);
}

static int build_stacks(sqlite3 *db, const struct capture_meta *m, const struct report_opts *o,
			const struct thr_rows *r, struct table *t, char *note, size_t notelen)
{
	struct symstore_opts so = { .cache_dir = o->symbol_cache,
				    .debuginfod = o->debuginfod,
				    .debuginfod_urls = o->debuginfod_urls,
				    .retry_misses = o->symbol_cache || o->debuginfod };
	struct symstore_run run;
	struct profile *p = NULL;
	struct offcpu_row *v = NULL;
	char *buf = NULL, **text = NULL, msg[512], b[32];
	size_t n = 0;
	int err;

	note[0] = '\0';
	err = threads_offcpu__load(db, m, &o->win, true, &v, &n);
	if (err || !n)
		return err;
	err = symstore__ensure(db, m->cap, &so, &run, msg, sizeof(msg));
	if (err)
		snprintf(note, notelen, "stacks not symbolized: %s", msg);
	else
		err = stacks__load(db, m->cap, &p);
	if (err == -EIO || err == -ENOMEM)
		goto out;
	err = 0;
	buf = malloc(STACK_TEXT_MAX);
	text = calloc(n, sizeof(*text));
	if (!buf || !text) {
		err = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		stack_text(p, &v[i], SIZE_MAX, buf, STACK_TEXT_MAX);
		text[i] = strdup(buf);
		if (!text[i]) {
			for (size_t k = 0; k < i; k++)
				free(text[k]);
			err = -ENOMEM;
			goto out;
		}
	}
	merge_by_frames(v, text, &n);
	for (size_t i = 0; i < n && !err; i++) {
		const struct thr_row *x = NULL;
		double mean = v[i].count ? (double)v[i].total_ns / (double)v[i].count : 0;

		for (size_t k = 0; k < r->n; k++)
			if (r->v[k].tid == v[i].tid)
				x = &r->v[k];
		err = table__add_row(t);
		err = err ?: table__set_int(t, S_RANK, (int64_t)i + 1, NULL);
		err = err ?: table__set_int(t, S_TID, v[i].tid, NULL);
		if (!err && x)
			err = table__set_text(t, S_COMM, x->comm);
		err = err ?: table__set_text(t, S_REASON, v[i].reason);
		err = err ?: set_secs(t, S_TOTAL, (int64_t)v[i].total_ns);
		err = err ?: table__set_int(t, S_COUNT, (int64_t)v[i].count, NULL);
		err = err ?: table__set_real(t, S_MEAN, mean / 1e9,
					     fmt_secs(b, sizeof(b), (int64_t)mean));
		stack_text(p, &v[i], SIZE_MAX, buf, STACK_TEXT_MAX);
		err = err ?: table__set_text(t, S_STACK, buf);
		stack_text(p, &v[i], TEXT_FRAMES, buf, STACK_TEXT_MAX);
		err = err ?: table__set_display(t, S_STACK, buf);
		if (!err && v[i].user_stack_id)
			err = table__set_int(t, S_USER_ID, v[i].user_stack_id, NULL);
		if (!err && v[i].kernel_stack_id)
			err = table__set_int(t, S_KERNEL_ID, v[i].kernel_stack_id, NULL);
	}
out:
	free(text);
	free(buf);
	free(v);
	profile__free(p);
	return err;
}

static int threads_body(const struct report_ctx *ctx)
{
	static const size_t off_cols[] = { C_TID, C_COMM, C_OFF, C_RUNNABLE, C_SLEEP, C_BLOCKED,
					   C_VOL, C_INVOL, C_STATES, C_WCHAN };
	static const size_t cpu_cols[] = { C_TID,     C_COMM,  C_ONCPU,	 C_CPU_PCT, C_PROC_CPU,
					   C_VOL,     C_INVOL, C_MIG,	 C_LASTCPU, C_CREATED,
					   C_EXITED };
	static const size_t stack_cols[] = { S_RANK, S_TID, S_COMM, S_REASON, S_TOTAL, S_COUNT,
					     S_MEAN, S_STACK };
	const struct report_opts *o = ctx->o;
	const struct capture_meta *m = ctx->m;
	FILE *out = ctx->out;
	struct json *j = ctx->j;
	struct table *t = NULL, *toff = NULL, *te = NULL, *ts = NULL;
	struct thr_rows r = { 0 };
	char w[96], a[32], b[32], note[600];
	int err;

	t = table__new(NCOLS, col_names);
	toff = table__new(NCOLS, col_names);
	te = table__new(ECOLS, ev_names);
	ts = table__new(SCOLS, st_names);
	if (!t || !toff || !te || !ts) {
		err = -ENOMEM;
		goto cleanup;
	}
	err = thr_rows__load(ctx->db, m, &o->win, &r);
	err = err ?: build_threads(&r, t);
	err = err ?: build_events(ctx->db, m, &o->win, te);
	err = err ?: build_stacks(ctx->db, m, o, &r, ts, note, sizeof(note));
	if (err)
		goto cleanup;
	if (o->fmt == OUT_TEXT) { /* the second table: by time off CPU */
		struct thr_rows r2 = r;
		struct thr_row *v = malloc((r.n ? r.n : 1) * sizeof(*v));

		if (!v) {
			err = -ENOMEM;
			goto cleanup;
		}
		memcpy(v, r.v, r.n * sizeof(*v));
		for (size_t i = 1; i < r.n; i++) /* insertion sort: by off_ns descending */
			for (size_t k = i; k > 0 && v[k].off_ns > v[k - 1].off_ns; k--) {
				struct thr_row tmp = v[k];

				v[k] = v[k - 1];
				v[k - 1] = tmp;
			}
		r2.v = v;
		err = build_threads(&r2, toff);
		free(v);
		if (err)
			goto cleanup;
	}
	switch (o->fmt) {
	case OUT_TEXT:
		window__describe(&o->win, w, sizeof(w));
		fprintf(out, "threads (%s): %zu threads, %s\n", w, r.n,
			r.ebpf && r.proc ? "eBPF sched_switch + /proc lanes"
			: r.ebpf	 ? "eBPF sched_switch lane (no /proc lane: cgroup mode)"
				 : "/proc lane (no eBPF: no on/off-CPU split)");
		if (r.offcpu_min_ns >= 0)
			fprintf(out,
				"off-CPU stacks: blocks of at least %s; %s shorter blocks skipped "
				"(%s)\n",
				fmt_ns(a, sizeof(a), (uint64_t)r.offcpu_min_ns),
				fmt_count(b, sizeof(b), r.skipped),
				fmt_ns(w, sizeof(w), r.skipped_ns));
		report__drops(NULL, out, o, "threads", ctx->drops, ctx->ndrops);
		fprintf(out, "\nby CPU time\n");
		err = table__print_cols(t, out, OUT_TEXT, cpu_cols,
					sizeof(cpu_cols) / sizeof(cpu_cols[0]));
		fprintf(out, "\nby time off CPU (runnable: waiting for a CPU; blocked: "
			     "uninterruptible, D)\n");
		err = err ?: table__print_cols(toff, out, OUT_TEXT, off_cols,
					       sizeof(off_cols) / sizeof(off_cols[0]));
		fprintf(out, "\nthreads created, exited, renamed: %zu\n", table__rows(te));
		if (table__rows(te))
			err = err ?: table__print(te, out, OUT_TEXT);
		fprintf(out, "\ntop off-CPU stacks (where threads slept or blocked; user frames "
			     "innermost first | kernel)%s%s\n",
			note[0] ? ": " : "", note);
		if (table__rows(ts) > TEXT_STACKS) {
			struct table *top = table__new(SCOLS, st_names);

			/* the first TEXT_STACKS rows only */
			for (size_t i = 0; top && !err && i < TEXT_STACKS; i++) {
				err = table__add_row(top);
				for (size_t c = 0; !err && c < SCOLS; c++) {
					const char *v = table__value(ts, i, c);

					if (!v)
						continue;
					err = table__set_text(top, c, v);
					err = err ?: table__set_display(top, c,
									table__shown(ts, i, c));
				}
			}
			if (!top)
				err = -ENOMEM;
			err = err ?: table__print_cols(top, out, OUT_TEXT, stack_cols,
						       sizeof(stack_cols) / sizeof(stack_cols[0]));
			table__free(top);
			fprintf(out, "(%zu more: --format json)\n", table__rows(ts) - TEXT_STACKS);
		} else if (table__rows(ts)) {
			err = err ?: table__print_cols(ts, out, OUT_TEXT, stack_cols,
						       sizeof(stack_cols) / sizeof(stack_cols[0]));
		} else {
			fprintf(out, "(none)\n");
		}
		break;
	case OUT_CSV:
		report__drops(NULL, out, o, "threads", ctx->drops, ctx->ndrops);
		err = table__print(t, out, OUT_CSV);
		break;
	case OUT_JSON:
		json__kv_bool(j, "collected", true);
		json__kv_bool(j, "ebpf", r.ebpf);
		report__json_opt_int(j, "offcpu_min_ns", r.offcpu_min_ns);
		if (r.offcpu_min_ns >= 0) {
			json__kv_int(j, "skipped", (int64_t)r.skipped);
			json__kv_int(j, "skipped_ns", (int64_t)r.skipped_ns);
		} else {
			json__kv_null(j, "skipped");
			json__kv_null(j, "skipped_ns");
		}
		report__drops(j, out, o, "threads", ctx->drops, ctx->ndrops);
		json__key(j, "threads");
		table__json(t, j, NULL, 0);
		json__key(j, "events");
		table__json(te, j, NULL, 0);
		json__key(j, "offcpu_stacks");
		table__json(ts, j, NULL, 0);
		if (note[0])
			json__kv_string(j, "stacks_note", note);
		json__end_object(j);
		err = json__end(j);
		break;
	}
cleanup:
	thr_rows__free(&r);
	table__free(t);
	table__free(toff);
	table__free(te);
	table__free(ts);
	return err;
}

static const struct an_report threads_report = {
	.name = "threads",
	.order = 155,
	.summary = "the threads: on-CPU and off-CPU time by reason (runnable,\n"
		   "sleeping, blocked), switches, migrations, /proc states and\n"
		   "wchan, created and exited, and the top off-CPU stacks",
	.tables = "thread_sample,thread_interval,thread_event,offcpu_stack",
	.probe = "threads",
	.drops = "threads",
	.body = threads_body,
};

const struct an_report *const threads_reports[] = {
	&threads_report,
	NULL,
};
