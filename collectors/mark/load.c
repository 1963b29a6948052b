/* load.c — the mark collector's loader (analyze/load.h): each MarkSample becomes one
 * mark_sample row (schema.sql). */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>

#include "analyze/load.h"
#include "collectors/mark/mark.pb-c.h"
#include "proto/capture.h" /* capture_payload__unpack */

enum { ST_SAMPLE };

/* its columns named once: the core adds VALUES (load__insert_sql) */
static const char sample_sql[] =
	"INSERT INTO mark_sample (cap, time_ns, interval_ns, pid, name, function, count, total)";

static int load_mark(struct load_ctx *l, const Ptop__V1__Event *ev)
{
	sqlite3_stmt *s = l->st[ST_SAMPLE];
	Ptop__V1__MarkSample *ms;
	int err;

	ms = (Ptop__V1__MarkSample *)capture_payload__unpack(ev, "mark",
							      &ptop__v1__mark_sample__descriptor);
	if (!ms && errno == ENOENT) /* sent under another collector's name: not ours */
		return 0;
	if (!ms) {
		snprintf(l->run->err, l->run->errlen,
			 "loading %s: a MarkSample does not unpack: the capture is corrupt",
			 l->run->path);
		return -EBADMSG;
	}
	bind_envelope(l, s, ev, true); /* :cap, :time_ns, :interval_ns, :pid */
	sqlite3_bind_text(s, 5, ms->name ? ms->name : "", -1, SQLITE_TRANSIENT);
	if (ms->function && ms->function[0])
		sqlite3_bind_text(s, 6, ms->function, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(s, 6);
	bind_u64(s, 7, ms->count);
	bind_u64(s, 8, ms->total);
	err = load__step(l, ST_SAMPLE);
	protobuf_c_message_free_unpacked(&ms->base, NULL);
	return err;
}

const struct an_load mark_load = {
	AN_LOAD_PAYLOADS({
		.payload = PTOP__V1__EVENT__PAYLOAD_COLLECTOR_PAYLOAD,
		.kind = "event:mark",
		.load = load_mark,
		.type = "ptop.v1.MarkSample",
		.desc = &ptop__v1__mark_sample__descriptor,
	}),
	AN_LOAD_STMTS([ST_SAMPLE] = sample_sql),
	/* times positive and increasing per mark, intervals in (0, time_ns] or NULL, the
	 * counts never negative */
	AN_LOAD_CHECKS({ "mark_sample", true, true, "rowid", "name", "count,total" }),
};
