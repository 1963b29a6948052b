/* load.c — the io collector's loader (analyze/load.h): each IoSample becomes one io_sample
 * row (schema.sql); a block I/O delay that was not measured is NULL.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "analyze/load.h"
#include "collectors/io/io.pb-c.h"
#include "proto/capture.h"

enum { ST_SAMPLE, ST_EVENT };

static const char sample_sql[] =
    "INSERT INTO io_sample (cap, time_ns, interval_ns, pid, rchar, wchar, syscr, syscw, "
    "read_bytes, write_bytes, cancelled_write_bytes, iowait_ns)";

static const char event_sql[] =
    "INSERT INTO io_event (cap, time_ns, pid, tid, kind, syscall, path, new_path, flags, "
    "error, length, fd)";

static void bind_opt_u64(sqlite3_stmt *s, int i, bool has, uint64_t v)
{
	if (has)
		bind_u64(s, i, v);
	else
		sqlite3_bind_null(s, i);
}

static int load_event(struct load_ctx *l, const Ptop__V1__Event *ev)
{
	sqlite3_stmt *s = l->st[ST_EVENT];
	Ptop__V1__IoFsEvent *x;
	bool denied, deleted, renamed, truncated;
	int err;

	x = (Ptop__V1__IoFsEvent *)capture_payload__unpack(ev, "io",
							   &ptop__v1__io_fs_event__descriptor);
	if (!x && errno == ENOENT)
		return 0;
	if (!x) {
		snprintf(l->run->err, l->run->errlen,
			 "loading %s: an IoFsEvent does not unpack: the capture is corrupt",
			 l->run->path);
		return -EBADMSG;
	}
	denied = !strcmp(x->kind, "denied");
	deleted = !strcmp(x->kind, "deleted");
	renamed = !strcmp(x->kind, "renamed");
	truncated = !strcmp(x->kind, "truncated");
	bind_envelope(l, s, ev, false); /* :cap, :time_ns, :pid */
	bind_u64(s, 4, x->tid);
	bind_text(s, 5, x->kind);
	bind_text(s, 6, x->syscall);
	bind_text(s, 7, x->path);
	bind_opt_text(s, 8, renamed ? x->new_path : NULL);
	bind_opt_u64(s, 9, denied || (deleted && x->flags), x->flags);
	bind_opt_u64(s, 10, denied, x->error);
	bind_opt_u64(s, 11, truncated, x->length);
	if (x->fd >= 0)
		bind_i64(s, 12, x->fd);
	else
		sqlite3_bind_null(s, 12);
	err = load__step(l, ST_EVENT);
	protobuf_c_message_free_unpacked(&x->base, NULL);
	return err;
}

static int load_io(struct load_ctx *l, const Ptop__V1__Event *ev)
{
	sqlite3_stmt *s = l->st[ST_SAMPLE];
	Ptop__V1__IoSample *x;
	int err;

	x = (Ptop__V1__IoSample *)capture_payload__unpack(ev, "io",
							  &ptop__v1__io_sample__descriptor);
	if (!x && errno == ENOENT)
		return 0;
	if (!x) {
		snprintf(l->run->err, l->run->errlen,
			 "loading %s: an IoSample does not unpack: the capture is corrupt",
			 l->run->path);
		return -EBADMSG;
	}
	bind_envelope(l, s, ev, true);
	bind_u64(s, 5, x->rchar);
	bind_u64(s, 6, x->wchar);
	bind_u64(s, 7, x->syscr);
	bind_u64(s, 8, x->syscw);
	bind_u64(s, 9, x->read_bytes);
	bind_u64(s, 10, x->write_bytes);
	bind_u64(s, 11, x->cancelled_write_bytes);
	if (x->iowait_measured)
		bind_u64(s, 12, x->iowait_ns);
	else
		sqlite3_bind_null(s, 12);
	err = load__step(l, ST_SAMPLE);
	protobuf_c_message_free_unpacked(&x->base, NULL);
	return err;
}

const struct an_load io_load = {
    AN_LOAD_PAYLOADS(
	{
	    .payload = PTOP__V1__EVENT__PAYLOAD_COLLECTOR_PAYLOAD,
	    .kind = "event:io",
	    .load = load_io,
	    .type = "ptop.v1.IoSample",
	},
	{
	    .payload = PTOP__V1__EVENT__PAYLOAD_COLLECTOR_PAYLOAD,
	    .kind = "event:io_fs",
	    .load = load_event,
	    .type = "ptop.v1.IoFsEvent",
	}),
    AN_LOAD_STMTS([ST_SAMPLE] = sample_sql, [ST_EVENT] = event_sql),
    AN_LOAD_CHECKS({"io_sample", true, true, "rowid", "pid",
		    "rchar,wchar,syscr,syscw,read_bytes,write_bytes,cancelled_write_bytes,"
		    "iowait_ns"},
		   {"io_event", false, false, "rowid", "pid", "flags,error,length,fd"}),
};
