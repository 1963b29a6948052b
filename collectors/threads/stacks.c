/* stacks.c — the threads collector's stack columns (analyze/symbolize.h) and its profile,
 * `export --profile offcpu` (analyze/export.h).
 *
 * The stack columns: the user and kernel stack of each offcpu_stack row, taken when a
 * thread of the interval's process (thread_sample.pid; NULL in cgroup mode: the target's)
 * blocked, placed at the interval's start; kernel frames belong to no process.
 *
 * The profile: where threads blocked over the window (threads_offcpu__load), one stack per
 * (user stack, kernel stack) as the CPU profile joins them (kernel frames innermost, then
 * the user frames), the tracing's own leading kernel frames (threads_frame_is_tracing)
 * left out. Folded weighs a stack by its time blocked in microseconds, as bcc's offcputime;
 * pprof has offcpu/nanoseconds and blocks/count. Folded --by thread starts each line with
 * the thread blocked, "COMM-TID" (bcc's offcputime starts them with its name). The rows
 * name threads, not processes: it takes no --pid. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/export.h"
#include "analyze/part.h"
#include "analyze/symbolize.h"
#include "collectors/threads/report.h"
#include "common/array.h"

#define FROM_INTERVAL                                                                      \
	"offcpu_stack LEFT JOIN thread_sample s ON s.cap = offcpu_stack.cap AND "          \
	"s.time_ns = offcpu_stack.time_ns"
#define INTERVAL_START "offcpu_stack.time_ns - COALESCE(offcpu_stack.interval_ns, 0)"

static const struct an_stack_col user_stack = {
	.table = "offcpu_stack",
	.column = "user_stack_id",
	.kind = "user",
	.from = FROM_INTERVAL,
	.pid = "s.pid",
	.time = INTERVAL_START,
};

static const struct an_stack_col kernel_stack = {
	.table = "offcpu_stack",
	.column = "kernel_stack_id",
	.kind = "kernel",
	.from = FROM_INTERVAL,
	.pid = "s.pid",
	.time = INTERVAL_START,
};

const struct an_stack_col *const threads_stack_cols[] = { &user_stack, &kernel_stack, NULL };

/* ------------------------------------------------------------ export --profile offcpu */

/* Leave out of ST the leading kernel frames of the tracing itself (the first N_KERNEL of
 * its frames are the kernel stack's). */
static void drop_tracing(struct prof_stack *st, size_t n_kernel)
{
	size_t d = 0;
	char name[512];

	for (; d < n_kernel; d++) {
		prof_loc__name(st->loc[d], 0, name, sizeof(name));
		if (!threads_frame_is_tracing(name))
			break;
	}
	if (!d)
		return;
	memmove(st->loc, st->loc + d, (st->n - d) * sizeof(*st->loc));
	st->n -= d;
}

/* The frame of a block whose stacks were not taken, so that pprof keeps its time (a
 * sample without a location is dropped by its readers); folded writes it as such. */
static struct prof_func no_stack_fn = { .func = "[no stack]" };
static struct prof_loc no_stack_loc = {
	.kind = FRAME_UNKNOWN, .module = "[no stack]", .n = 1, .f = &no_stack_fn,
};

/* The off-CPU rows V[0..N) as S's stacks and values (offcpu ns, blocks), the frames
 * of P (every placed frame of the capture, by IX). 0, -ENOMEM or -EOVERFLOW. */
static int offcpu_stacks(struct profile *p, const struct loc_ix *ix, size_t nix,
			 const struct offcpu_row *v, size_t n, struct prof_samples *s)
{
	int err = 0;

	p->stacks = calloc(n + 1, sizeof(*p->stacks));
	s->values = calloc(2 * (n + 1), sizeof(*s->values));
	if (!p->stacks || !s->values)
		return -ENOMEM;
	for (size_t k = 0; !err && k < n; k++) {
		struct prof_stack *st = &p->stacks[p->n_stacks++];
		size_t nk;

		if (v[k].total_ns > INT64_MAX || v[k].count > INT64_MAX)
			return -EOVERFLOW;
		st->count = v[k].total_ns / 1000; /* folded: microseconds */
		st->pid = v[k].tid > 0 ? (int32_t)v[k].tid : 0; /* --by thread: its root frame */
		st->no_user_stack = !v[k].user_stack_id;
		s->values[2 * k] = (int64_t)v[k].total_ns;
		s->values[2 * k + 1] = (int64_t)v[k].count;
		if (v[k].kernel_stack_id)
			err = profile__add_stack_locs(p, st, ix, nix, v[k].kernel_stack_id);
		nk = st->n;
		if (!err && v[k].user_stack_id)
			err = profile__add_stack_locs(p, st, ix, nix, v[k].user_stack_id);
		if (!err)
			drop_tracing(st, nk);
		if (!err && !st->n) {
			st->loc = malloc(sizeof(*st->loc));
			if (!st->loc)
				return -ENOMEM;
			st->loc[st->n++] = &no_stack_loc;
		}
		if (st->cut_module)
			p->cut += v[k].count;
		p->stacked += v[k].count;
	}
	return err;
}

/* A note on the blocks whose user stack was cut short (P->cut of P->stacked), said. */
static int offcpu_cut_note(const struct profile *p)
{
	struct cut_mod *cm = NULL;
	size_t nc = 0;
	int err;

	if (!p->cut)
		return 0;
	err = profile__cut_modules(p, &cm, &nc);
	if (err)
		return err;
	export__say("note: stacks cut short: %" PRIu64 " of %" PRIu64 " blocks end where the "
		    "walk read a return address in no executable mapping: frame pointers missing "
		    "in %s%s%s; the frames after it are left out",
		    p->cut, p->stacked, nc ? cm[0].module : "?", nc > 1 ? " and " : "",
		    nc > 2 ? "other modules" : nc > 1 ? cm[1].module : "");
	free(cm);
	return 0;
}

/* The threads of P's stacks (--by thread) as P's procs, with their latest names, for
 * their root frames in folded. 0, -ENOMEM or -EIO (said). */
static int offcpu_threads(const struct prof_req *r, struct profile *p)
{
	sqlite3_stmt *q = NULL;
	size_t cap = 0;
	int rc;

	if (sqlite3_prepare_v2(r->db,
			       "SELECT tid, comm, MAX(time_ns) FROM thread_interval WHERE cap = ?1 "
			       "AND comm IS NOT NULL GROUP BY tid ORDER BY tid",
			       -1, &q, NULL) != SQLITE_OK) {
		export__say("reading the threads' names: %s", sqlite3_errmsg(r->db));
		return -EIO;
	}
	sqlite3_bind_int64(q, 1, r->m->cap);
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		struct prof_proc *pr;

		if (array__grow((void **)&p->procs, &cap, p->n_procs, sizeof(*p->procs))) {
			sqlite3_finalize(q);
			return -ENOMEM;
		}
		pr = &p->procs[p->n_procs++];
		memset(pr, 0, sizeof(*pr));
		pr->pid = sqlite3_column_int(q, 0);
		pr->comm = profile__keep(p, (const char *)sqlite3_column_text(q, 1));
	}
	sqlite3_finalize(q);
	if (rc != SQLITE_DONE) {
		export__say("reading the threads' names: %s", sqlite3_errmsg(r->db));
		return -EIO;
	}
	return 0;
}

/* The window's time span in S (monotonic ns; -1: unknown). */
static void offcpu_span(const struct prof_req *r, struct prof_samples *s)
{
	sqlite3_stmt *q = NULL;
	int64_t lo, hi;

	s->t0_ns = s->t1_ns = -1;
	window__bounds(r->w, r->m, &lo, &hi);
	if (sqlite3_prepare_v2(r->db,
			       "SELECT MIN(time_ns - COALESCE(interval_ns, 0)), MAX(time_ns) "
			       "FROM thread_sample WHERE cap = ?1 AND "
			       "time_ns - COALESCE(interval_ns, 0) / 2 >= ?2 AND "
			       "time_ns - COALESCE(interval_ns, 0) / 2 < ?3",
			       -1, &q, NULL) == SQLITE_OK) {
		sqlite3_bind_int64(q, 1, r->m->cap);
		sqlite3_bind_int64(q, 2, lo);
		sqlite3_bind_int64(q, 3, hi);
		if (sqlite3_step(q) == SQLITE_ROW && sqlite3_column_type(q, 0) != SQLITE_NULL) {
			s->t0_ns = sqlite3_column_int64(q, 0);
			s->t1_ns = sqlite3_column_int64(q, 1);
		}
	}
	sqlite3_finalize(q);
}

/* The off-CPU profile of R's window, its frames named, or why not (said). */
static int offcpu_export_load(const struct prof_req *r, struct prof_samples *s)
{
	struct probe_info probe;
	struct thr_rows tr = { 0 };
	struct offcpu_row *v = NULL;
	struct loc_ix *ix = NULL;
	size_t n = 0, nix = 0;
	bool by_thread = !r->pprof && r->by && !strcmp(r->by, "thread");
	struct profile *p;
	int rc = probe__lookup(r->db, r->m->cap, "threads", &probe);

	*s = (struct prof_samples){
	    .n_types = 2,
	    .type = {"offcpu", "blocks"},
	    .unit = {"nanoseconds", "count"},
	    .period_type = "offcpu",
	    .period_unit = "nanoseconds",
	    .default_type = "offcpu",
	    .period = 1,
	    .t0_ns = -1,
	};
	if (rc)
		return rc;
	if (!probe__active(&probe)) {
		export__say("the off-CPU profile was not collected in this capture (threads %s: "
			    "%s): nothing to export (record with --enable threads)",
			    probe.state, probe.reason[0] ? probe.reason : "no reason recorded");
		return -ENODATA;
	}
	rc = thr_rows__load(r->db, r->m, r->w, &tr);
	if (rc)
		return rc;
	/* no interval in the window (span 0): an empty profile, said by done() */
	if (tr.offcpu_min_ns < 0 && tr.span_s > 0) {
		export__say("the off-CPU profile was not collected in this capture: %s",
			    tr.ebpf ? "off-CPU stacks were off (--offcpu-min off)"
				    : "the threads collector ran without its eBPF lane");
		thr_rows__free(&tr);
		return -ENODATA;
	}
	if (tr.skipped) {
		char a[32], b[32];

		export__say("note: %" PRIu64 " blocks shorter than %s (--offcpu-min), %s in all, "
			    "are in no stack",
			    tr.skipped, fmt_ns(a, sizeof(a), (uint64_t)tr.offcpu_min_ns),
			    fmt_ns(b, sizeof(b), tr.skipped_ns));
	}
	thr_rows__free(&tr);
	rc = export__symbolize(r);
	rc = rc ?: threads_offcpu__load(r->db, r->m, r->w, by_thread, &v, &n);
	if (rc)
		return rc;
	p = s->p = calloc(1, sizeof(*p));
	if (!p) {
		free(v);
		return -ENOMEM;
	}
	p->t0_ns = p->t1_ns = -1;
	rc = profile__load_locs(r->db, p, r->m->cap, &ix, &nix);
	rc = rc ?: offcpu_stacks(p, ix, nix, v, n, s);
	rc = rc || !by_thread ? rc : offcpu_threads(r, p);
	rc = rc ?: offcpu_cut_note(p);
	free(ix);
	free(v);
	if (!rc)
		offcpu_span(r, s);
	return rc;
}

static void offcpu_export_done(const struct prof_req *r, const struct prof_samples *s)
{
	if (!s->p->n_stacks)
		export__say("warning: the off-CPU profile holds no stacks%s",
			    r->w->has_start || r->w->has_end ? " in this window" : "");
}

static const char *const offcpu_by[] = { "stack", "thread", NULL };

static const struct an_profile offcpu_profile = {
	.name = "offcpu",
	.help = "where threads blocked (threads collector): pprof with\n"
		"offcpu/nanoseconds and blocks/count; folded in microseconds",
	.tables = "thread_sample,thread_interval,offcpu_stack",
	.by = offcpu_by,
	.by_help = "offcpu, folded: per stack over every thread (default), or\n"
		   "per thread, each line starting with it, 'COMM-TID;...'",
	.overflow = "an off-CPU stack's time or blocks pass 2^63, which no recording holds; "
		    "load the capture again",
	.load = offcpu_export_load,
	.done = offcpu_export_done,
};

const struct an_profile *const threads_profiles[] = { &offcpu_profile, NULL };
