/* load.c — the locks collector's loader (analyze/load.h): each LockWords (an interval's
 * growth; a capture of an earlier recorder has one, the whole recording's totals, at its
 * end) becomes one lock_word row per word, one lock_thread row per thread's share and one
 * lock_site row per waiting call site (schema.sql). */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>

#include "analyze/load.h"
#include "collectors/locks/locks.pb-c.h"
#include "proto/capture.h"

enum { ST_WORD, ST_THREAD, ST_SITE };

static const char word_sql[] =
	"INSERT INTO lock_word (cap, time_ns, interval_ns, tgid, uaddr, waits, wait_ns, "
	"wait_max_ns, eagain, timeouts, wakes, woken, hist)";
static const char thread_sql[] =
	"INSERT INTO lock_thread (cap, time_ns, interval_ns, tgid, uaddr, tid, role, calls, ns)";

static const char site_sql[] =
	"INSERT INTO lock_site (cap, time_ns, interval_ns, tgid, uaddr, stack_id, user_stacks, "
	"waits, ns)";

static int load_words(struct load_ctx *l, const Ptop__V1__Event *ev)
{
	Ptop__V1__LockWords *lw;
	int err = 0;

	lw = (Ptop__V1__LockWords *)capture_payload__unpack(ev, "locks",
							     &ptop__v1__lock_words__descriptor);
	if (!lw && errno == ENOENT)
		return 0;
	if (!lw) {
		snprintf(l->run->err, l->run->errlen,
			 "loading %s: a LockWords does not unpack: the capture is corrupt",
			 l->run->path);
		return -EBADMSG;
	}
	for (size_t i = 0; !err && i < lw->n_words; i++) {
		const Ptop__V1__LockWord *w = lw->words[i];
		sqlite3_stmt *s = l->st[ST_WORD];

		bind_cap(l, s);
		bind_u64(s, 2, ev->time_ns);
		bind_nz(s, 3, ev->interval_ns);
		bind_u64(s, 4, w->tgid);
		bind_u64(s, 5, w->uaddr);
		bind_u64(s, 6, w->waits);
		bind_u64(s, 7, w->wait_ns);
		bind_nz(s, 8, w->wait_max_ns);
		bind_u64(s, 9, w->eagain);
		bind_u64(s, 10, w->timeouts);
		bind_u64(s, 11, w->wakes);
		bind_u64(s, 12, w->woken);
		err = load__bind_json_u64s(l->run, s, 13, w->hist, w->n_hist);
		err = err ?: load__step(l, ST_WORD);
	}
	for (size_t i = 0; !err && i < lw->n_threads; i++) {
		const Ptop__V1__LockThread *t = lw->threads[i];
		sqlite3_stmt *s = l->st[ST_THREAD];

		bind_cap(l, s);
		bind_u64(s, 2, ev->time_ns);
		bind_nz(s, 3, ev->interval_ns);
		bind_u64(s, 4, t->tgid);
		bind_u64(s, 5, t->uaddr);
		bind_u64(s, 6, t->tid);
		bind_text(s, 7, t->role);
		bind_u64(s, 8, t->calls);
		bind_u64(s, 9, t->ns);
		err = load__step(l, ST_THREAD);
	}
	for (size_t i = 0; !err && i < lw->n_sites; i++) {
		const Ptop__V1__LockSite *x = lw->sites[i];
		sqlite3_stmt *s = l->st[ST_SITE];

		bind_cap(l, s);
		bind_u64(s, 2, ev->time_ns);
		bind_nz(s, 3, ev->interval_ns);
		bind_u64(s, 4, x->tgid);
		bind_u64(s, 5, x->uaddr);
		bind_nz(s, 6, x->stack_id);
		bind_opt_text(s, 7, lw->user_stacks);
		bind_u64(s, 8, x->waits);
		bind_u64(s, 9, x->ns);
		err = load__step(l, ST_SITE);
	}
	protobuf_c_message_free_unpacked(&lw->base, NULL);
	return err;
}

const struct an_load locks_load = {
	AN_LOAD_PAYLOADS({
		.payload = PTOP__V1__EVENT__PAYLOAD_COLLECTOR_PAYLOAD,
		.kind = "event:locks",
		.load = load_words,
		.type = "ptop.v1.LockWords",
		.desc = &ptop__v1__lock_words__descriptor,
	}),
	AN_LOAD_STMTS([ST_WORD] = word_sql, [ST_THREAD] = thread_sql, [ST_SITE] = site_sql),
	/* per word and per thread's share, one row per interval it grew in */
	AN_LOAD_CHECKS({ "lock_word", true, true, "rowid", "tgid,uaddr",
			 "waits,wait_ns,wait_max_ns,eagain,timeouts,wakes,woken" },
		       { "lock_thread", true, true, "rowid", "tgid,uaddr,tid,role", "calls,ns" },
		       { "lock_site", false, false, "rowid", "tgid,uaddr", "waits,ns" }),
};
