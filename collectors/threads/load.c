/* load.c — the threads collector's loader (analyze/load.h): each ThreadsSample becomes a
 * thread_sample row, its threads thread_interval rows, its events thread_event rows and
 * its off-CPU stacks offcpu_stack rows (schema.sql). */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/load.h"
#include "collectors/threads/threads.pb-c.h"
#include "common/array.h"
#include "proto/capture.h"

enum { ST_SAMPLE, ST_THREAD, ST_EVENT, ST_OFFCPU };

static const char sample_sql[] = "INSERT INTO thread_sample (cap, time_ns, interval_ns, pid, "
				 "ebpf, offcpu_min_ns, skipped, skipped_ns)";
static const char thread_sql[] =
	"INSERT INTO thread_interval (cap, time_ns, interval_ns, tid, comm, oncpu_ns, "
	"off_runnable_ns, off_sleep_ns, off_blocked_ns, voluntary, involuntary, migrations, "
	"cpu, state, wchan, proc_cpu_ns, proc_voluntary, proc_involuntary, proc_cpu)";
static const char event_sql[] =
	"INSERT INTO thread_event (cap, time_ns, type, tid, by_tid, comm, exact)";
static const char offcpu_sql[] =
	"INSERT INTO offcpu_stack (cap, time_ns, interval_ns, tid, reason, user_stack_id, "
	"kernel_stack_id, total_ns, count)";

static int load_thread(struct load_ctx *l, const Ptop__V1__Event *ev,
		       const Ptop__V1__ThreadInterval *t, bool first_proc)
{
	sqlite3_stmt *s = l->st[ST_THREAD];
	int i;

	sqlite3_reset(s);
	sqlite3_clear_bindings(s);
	bind_cap(l, s);
	bind_u64(s, 2, ev->time_ns);
	bind_nz(s, 3, ev->interval_ns);
	bind_i64(s, 4, t->tid);
	bind_opt_text(s, 5, t->comm);
	if (t->has_ebpf) {
		bind_u64(s, 6, t->oncpu_ns);
		bind_u64(s, 7, t->off_runnable_ns);
		bind_u64(s, 8, t->off_sleep_ns);
		bind_u64(s, 9, t->off_blocked_ns);
		bind_u64(s, 10, t->voluntary);
		bind_u64(s, 11, t->involuntary);
		bind_u64(s, 12, t->migrations);
		if (t->cpu >= 0)
			bind_i64(s, 13, t->cpu);
	}
	if (t->has_proc) {
		bind_opt_text(s, 14, t->state);
		bind_opt_text(s, 15, t->wchan);
		i = 16;
		if (!first_proc) {
			bind_u64(s, i, t->proc_cpu_ns);
			bind_u64(s, i + 1, t->proc_voluntary);
			bind_u64(s, i + 2, t->proc_involuntary);
		}
		if (t->proc_cpu >= 0)
			bind_i64(s, 19, t->proc_cpu);
	}
	return load__step(l, ST_THREAD);
}

/* The tids whose /proc figures have a baseline already (their first row has none). */
struct seen {
	int32_t *v;
	size_t n, cap;
};

static bool seen__test_set(struct seen *s, int32_t tid)
{
	size_t lo = 0, hi = s->n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (s->v[mid] == tid)
			return true;
		if (s->v[mid] < tid)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (array__grow((void **)&s->v, &s->cap, s->n, sizeof(*s->v)))
		return true; /* out of memory: the figures stay, as the recorder sent them */
	memmove(s->v + lo + 1, s->v + lo, (s->n - lo) * sizeof(*s->v));
	s->v[lo] = tid;
	s->n++;
	return false;
}

static int load_threads(struct load_ctx *l, const Ptop__V1__Event *ev)
{
	struct seen *seen = l->state;
	sqlite3_stmt *s = l->st[ST_SAMPLE];
	Ptop__V1__ThreadsSample *ts;
	size_t i;
	int err;

	ts = (Ptop__V1__ThreadsSample *)capture_payload__unpack(
		ev, "threads", &ptop__v1__threads_sample__descriptor);
	if (!ts && errno == ENOENT)
		return 0;
	if (!ts) {
		snprintf(l->run->err, l->run->errlen,
			 "loading %s: a ThreadsSample does not unpack: the capture is corrupt",
			 l->run->path);
		return -EBADMSG;
	}
	bind_envelope(l, s, ev, true);
	bind_u64(s, 5, ts->ebpf);
	if (ts->ebpf && ts->stacks) {
		bind_u64(s, 6, ts->offcpu_min_ns);
		bind_u64(s, 7, ts->skipped);
		bind_u64(s, 8, ts->skipped_ns);
	} else {
		sqlite3_bind_null(s, 6);
		sqlite3_bind_null(s, 7);
		sqlite3_bind_null(s, 8);
	}
	err = load__step(l, ST_SAMPLE);
	for (i = 0; !err && i < ts->n_threads; i++) {
		const Ptop__V1__ThreadInterval *t = ts->threads[i];
		bool first = t->has_proc && !seen__test_set(seen, t->tid);

		err = load_thread(l, ev, t, first);
	}
	for (i = 0; !err && i < ts->n_events; i++) {
		const Ptop__V1__ThreadEvent *e = ts->events[i];

		s = l->st[ST_EVENT];
		bind_cap(l, s);
		bind_u64(s, 2, e->time_ns);
		bind_text(s, 3, e->type);
		bind_i64(s, 4, e->tid);
		bind_pid(s, 5, e->by);
		bind_opt_text(s, 6, e->comm);
		bind_i64(s, 7, e->exact);
		err = load__step(l, ST_EVENT);
	}
	for (i = 0; !err && i < ts->n_offcpu; i++) {
		const Ptop__V1__OffcpuStack *o = ts->offcpu[i];

		s = l->st[ST_OFFCPU];
		bind_cap(l, s);
		bind_u64(s, 2, ev->time_ns);
		bind_nz(s, 3, ev->interval_ns);
		bind_i64(s, 4, o->tid);
		bind_text(s, 5, o->reason);
		bind_nz(s, 6, o->user_stack_id);
		bind_nz(s, 7, o->kernel_stack_id);
		bind_u64(s, 8, o->total_ns);
		bind_u64(s, 9, o->count);
		err = load__step(l, ST_OFFCPU);
	}
	protobuf_c_message_free_unpacked(&ts->base, NULL);
	return err;
}

static void load_free(struct load_ctx *l)
{
	struct seen *seen = l->state;

	free(seen->v);
}

const struct an_load threads_load = {
	AN_LOAD_PAYLOADS({
		.payload = PTOP__V1__EVENT__PAYLOAD_COLLECTOR_PAYLOAD,
		.kind = "event:threads",
		.load = load_threads,
		.type = "ptop.v1.ThreadsSample",
		.desc = &ptop__v1__threads_sample__descriptor,
	}),
	AN_LOAD_STMTS([ST_SAMPLE] = sample_sql, [ST_THREAD] = thread_sql,
		      [ST_EVENT] = event_sql, [ST_OFFCPU] = offcpu_sql),
	.state_size = sizeof(struct seen),
	.free = load_free,
	AN_LOAD_CHECKS({ "thread_sample", true, true, "rowid", "NULL",
			 "skipped,skipped_ns,offcpu_min_ns" },
		       { "thread_interval", true, true, "rowid", "tid",
			 "oncpu_ns,off_runnable_ns,off_sleep_ns,off_blocked_ns,voluntary,"
			 "involuntary,migrations,proc_cpu_ns,proc_voluntary,proc_involuntary" },
		       { "offcpu_stack", false, false, "rowid", "NULL", "total_ns,count" }),
};
