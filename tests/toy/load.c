/* load.c — the toy collector's loader (analyze/load.h): each ToySample becomes one
 * toy_sample row, and each of its waits one toy_wait row (schema.sql).
 *
 * The loader core (analyze/load.c) reads the capture and hands every Event whose
 * CollectorPayload type is "ptop.v1.ToySample" to load_toy below; the statement is
 * prepared once per load, its parameters named in the order of the table's columns.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>

#include "analyze/load.h"
#include "collectors/toy/toy.pb-c.h"
#include "proto/capture.h" /* capture_payload__unpack */

enum { ST_SAMPLE, ST_WAIT }; /* its statements, by index into AN_LOAD_STMTS */

static const char sample_sql[] =
	"INSERT INTO toy_sample (cap, time_ns, interval_ns, pid, count, total, scale, waits_read)";
static const char wait_sql[] =
	"INSERT INTO toy_wait (cap, time_ns, interval_ns, pid, stack_id, threads)";

static int load_toy(struct load_ctx *l, const Ptop__V1__Event *ev)
{
	sqlite3_stmt *s = l->st[ST_SAMPLE];
	Ptop__V1__ToySample *ts;
	int err;

	ts = (Ptop__V1__ToySample *)capture_payload__unpack(ev, "toy",
							     &ptop__v1__toy_sample__descriptor);
	if (!ts && errno == ENOENT) /* sent under another collector's name: not ours */
		return 0;
	if (!ts) { /* bytes that do not unpack: the load fails, and says why */
		snprintf(l->run->err, l->run->errlen,
			 "loading %s: a ToySample does not unpack: the capture is corrupt",
			 l->run->path);
		return -EBADMSG;
	}
	bind_envelope(l, s, ev, true); /* :cap, :time_ns, :interval_ns, :pid */
	bind_u64(s, 5, ts->count);
	bind_u64(s, 6, ts->total);
	bind_u64(s, 7, ts->scale);
	bind_u64(s, 8, ts->waits_read);
	err = load__step(l, ST_SAMPLE);
	for (size_t k = 0; !err && k < ts->n_waits; k++) {
		sqlite3_stmt *w = l->st[ST_WAIT];

		bind_envelope(l, w, ev, true);
		bind_u64(w, 5, ts->waits[k]->stack_id);
		bind_u64(w, 6, ts->waits[k]->threads);
		err = load__step(l, ST_WAIT);
	}
	protobuf_c_message_free_unpacked(&ts->base, NULL);
	return err;
}

/* What the toy's part (part.c, .load) gives the loader core. */
const struct an_load toy_load = {
	AN_LOAD_PAYLOADS({
		.payload = PTOP__V1__EVENT__PAYLOAD_COLLECTOR_PAYLOAD,
		.kind = "event:toy", /* its line in `info`'s record counts */
		.load = load_toy,
		.type = "ptop.v1.ToySample",
		.desc = &ptop__v1__toy_sample__descriptor,
	}),
	AN_LOAD_STMTS([ST_SAMPLE] = sample_sql, [ST_WAIT] = wait_sql),
	/* what its rows must be for a report to read them (analyze/db_check.c refuses a DB
	 * where they are not): times positive and increasing per pid, intervals in
	 * (0, time_ns] or NULL, the figures never negative */
	AN_LOAD_CHECKS({ "toy_sample", true, true, "rowid", "pid", "count,total,scale" },
		       { "toy_wait", true, true, "rowid", "pid,stack_id", "threads" }),
};
