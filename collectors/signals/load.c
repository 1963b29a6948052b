/* load.c — the signals collector's loader (analyze/load.h): each SignalCount becomes one
 * signal_count row (schema.sql). */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "analyze/load.h"
#include "collectors/signals/signals.pb-c.h"
#include "proto/capture.h"

enum { ST_COUNT };

static const char count_sql[] =
	"INSERT INTO signal_count (cap, time_ns, interval_ns, pid, stage, sig, name, code, "
	"result, sender_pid, sender_tid, sender_comm, tgid, tid, count, first_ns, last_ns)";

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
	}),
	AN_LOAD_STMTS([ST_COUNT] = count_sql),
	/* per key, one row per interval: times increasing, counts never negative */
	AN_LOAD_CHECKS({ "signal_count", true, true, "rowid",
			 "stage,sig,code,result,sender_tid,tid", "count" }),
};
