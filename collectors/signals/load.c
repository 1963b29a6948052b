/* load.c — the signals collector's loader (analyze/load.h): each SignalCount becomes one
 * signal_count row; each SignalSets (the /proc lane) one signal_sets row and a
 * signal_set_change row per set it changed (schema.sql). */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/load.h"
#include "collectors/signals/names.h"
#include "collectors/signals/signals.pb-c.h"
#include "common/array.h"
#include "proto/capture.h"

enum { ST_COUNT, ST_SETS, ST_CHANGE };

/* The /proc lane's threads as their last row left them: each row's changes are against it. */
struct sets_seen {
	struct sets_prev {
		uint32_t tgid, tid;
		uint64_t set[5]; /* pending, shared_pending, blocked, ignored, caught */
	} *t;
	size_t n, cap;
};

static const char *const set_names[5] = { "pending", "shared_pending", "blocked", "ignored",
					  "caught" };

static const char count_sql[] =
	"INSERT INTO signal_count (cap, time_ns, interval_ns, pid, stage, sig, name, code, "
	"result, sender_pid, sender_tid, sender_comm, tgid, tid, count, first_ns, last_ns)";

static const char sets_sql[] =
	"INSERT INTO signal_sets (cap, time_ns, interval_ns, pid, tgid, tid, pending, "
	"shared_pending, blocked, ignored, caught, queued, queue_limit, gone)";

static const char change_sql[] =
	"INSERT INTO signal_set_change (cap, time_ns, tgid, tid, what, added, removed)";

static int load_change(struct load_ctx *l, const Ptop__V1__Event *ev, uint32_t tgid,
		       uint32_t tid, const char *what, uint64_t added, uint64_t removed)
{
	sqlite3_stmt *s = l->st[ST_CHANGE];
	char a[512], r[512];

	signals_mask_names(added, a, sizeof(a));
	signals_mask_names(removed, r, sizeof(r));
	bind_cap(l, s);
	bind_u64(s, 2, ev->time_ns);
	bind_u64(s, 3, tgid);
	bind_u64(s, 4, tid);
	bind_text(s, 5, what);
	sqlite3_bind_text(s, 6, a, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(s, 7, r, -1, SQLITE_TRANSIENT);
	return load__step(l, ST_CHANGE);
}

/* A SignalSets: its row, and its changes against the thread's row before. */
static int load_sets(struct load_ctx *l, const Ptop__V1__Event *ev)
{
	struct sets_seen *seen = l->state;
	sqlite3_stmt *s = l->st[ST_SETS];
	Ptop__V1__SignalSets *m;
	struct sets_prev *p = NULL;
	uint64_t now[5];
	int err;

	m = (Ptop__V1__SignalSets *)capture_payload__unpack(ev, "signals",
							     &ptop__v1__signal_sets__descriptor);
	if (!m && errno == ENOENT)
		return 0;
	if (!m) {
		snprintf(l->run->err, l->run->errlen,
			 "loading %s: a SignalSets does not unpack: the capture is corrupt",
			 l->run->path);
		return -EBADMSG;
	}
	bind_envelope(l, s, ev, true); /* :cap, :time_ns, :interval_ns, :pid */
	bind_u64(s, 5, m->tgid);
	bind_u64(s, 6, m->tid);
	bind_u64(s, 7, m->pending);
	bind_u64(s, 8, m->shared_pending);
	bind_u64(s, 9, m->blocked);
	bind_u64(s, 10, m->ignored);
	bind_u64(s, 11, m->caught);
	if (m->queue_limit) {
		bind_u64(s, 12, m->queued);
		bind_u64(s, 13, m->queue_limit);
	}
	sqlite3_bind_int(s, 14, m->gone);
	err = load__step(l, ST_SETS);
	now[0] = m->pending;
	now[1] = m->shared_pending;
	now[2] = m->blocked;
	now[3] = m->ignored;
	now[4] = m->caught;
	for (size_t i = 0; i < seen->n && !p; i++)
		if (seen->t[i].tgid == m->tgid && seen->t[i].tid == m->tid)
			p = &seen->t[i];
	if (!err && !p && !m->gone) {
		err = array__grow((void **)&seen->t, &seen->cap, seen->n, sizeof(*seen->t));
		if (!err) {
			p = &seen->t[seen->n++];
			memset(p, 0, sizeof(*p));
			p->tgid = m->tgid;
			p->tid = m->tid;
		}
	}
	if (!err && m->gone) {
		err = load_change(l, ev, m->tgid, m->tid, "gone", 0, 0);
		if (p)
			*p = seen->t[--seen->n];
	} else {
		for (size_t k = 0; !err && p && k < 5; k++)
			if (now[k] != p->set[k])
				err = load_change(l, ev, m->tgid, m->tid, set_names[k],
						  now[k] & ~p->set[k], p->set[k] & ~now[k]);
		if (p)
			memcpy(p->set, now, sizeof(now));
	}
	protobuf_c_message_free_unpacked(&m->base, NULL);
	return err;
}

static void load_free(struct load_ctx *l)
{
	struct sets_seen *seen = l->state;

	free(seen->t);
	memset(seen, 0, sizeof(*seen));
}

static int load_count(struct load_ctx *l, const Ptop__V1__Event *ev)
{
	sqlite3_stmt *s = l->st[ST_COUNT];
	Ptop__V1__SignalCount *sc;
	bool gen;
	int err;

	sc = (Ptop__V1__SignalCount *)capture_payload__unpack(ev, "signals",
							       &ptop__v1__signal_count__descriptor);
	if (!sc && errno == ENOENT)
		return 0;
	if (!sc) {
		snprintf(l->run->err, l->run->errlen,
			 "loading %s: a SignalCount does not unpack: the capture is corrupt",
			 l->run->path);
		return -EBADMSG;
	}
	gen = sc->stage && !strcmp(sc->stage, "generate");
	bind_envelope(l, s, ev, true); /* :cap, :time_ns, :interval_ns, :pid */
	bind_text(s, 5, sc->stage);
	bind_i64(s, 6, sc->sig);
	bind_text(s, 7, sc->name);
	bind_i64(s, 8, sc->code);
	bind_text(s, 9, sc->result);
	if (gen) {
		bind_u64(s, 10, sc->sender_pid);
		bind_u64(s, 11, sc->sender_tid);
		bind_text(s, 12, sc->sender_comm);
	} else {
		sqlite3_bind_null(s, 10);
		sqlite3_bind_null(s, 11);
		sqlite3_bind_null(s, 12);
	}
	bind_u64(s, 13, sc->tgid);
	bind_u64(s, 14, sc->tid);
	bind_u64(s, 15, sc->count);
	bind_nz(s, 16, sc->first_ns);
	bind_nz(s, 17, sc->last_ns);
	err = load__step(l, ST_COUNT);
	protobuf_c_message_free_unpacked(&sc->base, NULL);
	return err;
}

const struct an_load signals_load = {
	AN_LOAD_PAYLOADS({
		.payload = PTOP__V1__EVENT__PAYLOAD_COLLECTOR_PAYLOAD,
		.kind = "event:signals",
		.load = load_count,
		.type = "ptop.v1.SignalCount",
		.desc = &ptop__v1__signal_count__descriptor,
	}, {
		.payload = PTOP__V1__EVENT__PAYLOAD_COLLECTOR_PAYLOAD,
		.kind = "event:signals_sets",
		.load = load_sets,
		.type = "ptop.v1.SignalSets",
		.desc = &ptop__v1__signal_sets__descriptor,
	}),
	AN_LOAD_STMTS([ST_COUNT] = count_sql, [ST_SETS] = sets_sql, [ST_CHANGE] = change_sql),
	.state_size = sizeof(struct sets_seen),
	.free = load_free,
	/* per key, one row per interval: times increasing, counts never negative */
	AN_LOAD_CHECKS({ "signal_count", true, true, "rowid",
			 "stage,sig,code,result,sender_tid,tid", "count" },
		       /* per thread, one row per reading that changed its sets */
		       { "signal_sets", true, true, "rowid", "tgid,tid", "queued,queue_limit" }),
};
