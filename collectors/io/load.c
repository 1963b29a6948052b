/* load.c — the io collector's loader (analyze/load.h): each IoSample becomes one io_sample
 * row (schema.sql), a block I/O delay that was not measured NULL; each IoFsEvent one
 * io_event row; each IoFiles its io_file rows (one per file and operation), their
 * io_file_hist rows (one per non-zero bucket) and its io_uring_op rows.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/sysmacros.h>

#include "analyze/load.h"
#include "collectors/io/io.pb-c.h"
#include "proto/capture.h"

enum { ST_SAMPLE, ST_EVENT, ST_FILE, ST_HIST, ST_URING };

static const char file_sql[] =
    "INSERT INTO io_file (cap, time_ns, interval_ns, pid, file, dev, ino, path, type, op, "
    "calls, errors, bytes, call_ns, timed, max_ns)";

static const char hist_sql[] =
    "INSERT INTO io_file_hist (cap, time_ns, pid, file, op, bucket, count)";

static const char uring_sql[] =
    "INSERT INTO io_uring_op (cap, time_ns, interval_ns, pid, opcode, op, submitted, "
    "completed, errors, bytes)";

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
	bool denied, deleted, renamed, truncated, created;
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
	created = !strcmp(x->kind, "created");
	bind_envelope(l, s, ev, false); /* :cap, :time_ns, :pid */
	if (x->pid) /* --cgroup: the process (the envelope's pid is 0) */
		bind_u64(s, 3, x->pid);
	bind_u64(s, 4, x->tid);
	bind_text(s, 5, x->kind);
	bind_text(s, 6, x->syscall);
	bind_text(s, 7, x->path);
	bind_opt_text(s, 8, renamed ? x->new_path : NULL);
	bind_opt_u64(s, 9, denied || created || (deleted && x->flags), x->flags);
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
	if (x->pid) /* --cgroup: the process (the envelope's pid is 0) */
		bind_u64(s, 4, x->pid);
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

/* The file identity as io_file.file: "MAJOR:MINOR:INODE:GENERATION", or
 * "MAJOR:MINOR:INODE" from a recorder that sent no generations (DEV as stat(2)'s
 * st_dev). */
static void file_id(char *buf, size_t len, uint64_t dev, uint64_t ino, bool has_gen,
		    uint32_t gen)
{
	int n = snprintf(buf, len, "%u:%u:%llu", (unsigned)major(dev), (unsigned)minor(dev),
			 (unsigned long long)ino);

	if (has_gen && n > 0 && (size_t)n < len)
		snprintf(buf + n, len - (size_t)n, ":%u", (unsigned)gen);
}

static int load_files(struct load_ctx *l, const Ptop__V1__Event *ev)
{
	sqlite3_stmt *s = l->st[ST_FILE], *h = l->st[ST_HIST], *u = l->st[ST_URING];
	Ptop__V1__IoFiles *x;
	char id[64];
	int err = 0;

	x = (Ptop__V1__IoFiles *)capture_payload__unpack(ev, "io", &ptop__v1__io_files__descriptor);
	if (!x && errno == ENOENT)
		return 0;
	if (!x) {
		snprintf(l->run->err, l->run->errlen,
			 "loading %s: an IoFiles does not unpack: the capture is corrupt",
			 l->run->path);
		return -EBADMSG;
	}
	for (size_t i = 0; !err && i < x->n_ops; i++) {
		const Ptop__V1__IoFileOp *o = x->ops[i];

		file_id(id, sizeof(id), o->dev, o->ino, x->generations, o->gen);
		bind_envelope(l, s, ev, true); /* :cap, :time_ns, :interval_ns, :pid */
		if (o->pid)
			bind_u64(s, 4, o->pid);
		bind_text(s, 5, id);
		bind_u64(s, 6, o->dev);
		bind_u64(s, 7, o->ino);
		bind_opt_text(s, 8, o->path[0] ? o->path : NULL);
		bind_text(s, 9, o->type);
		bind_text(s, 10, o->op);
		bind_u64(s, 11, o->calls);
		bind_u64(s, 12, o->errors);
		bind_u64(s, 13, o->bytes);
		bind_opt_u64(s, 14, o->timed > 0, o->call_ns);
		bind_u64(s, 15, o->timed);
		bind_opt_u64(s, 16, o->timed > 0, o->max_ns);
		err = load__step(l, ST_FILE);
		for (size_t b = 0; !err && b < o->n_hist; b++) {
			if (!o->hist[b])
				continue;
			bind_envelope(l, h, ev, false); /* :cap, :time_ns, :pid */
			if (o->pid)
				bind_u64(h, 3, o->pid);
			bind_text(h, 4, id);
			bind_text(h, 5, o->op);
			bind_u64(h, 6, b);
			bind_u64(h, 7, o->hist[b]);
			err = load__step(l, ST_HIST);
		}
	}
	for (size_t i = 0; !err && i < x->n_uring; i++) {
		const Ptop__V1__IoUringOp *o = x->uring[i];

		bind_envelope(l, u, ev, true);
		bind_u64(u, 5, o->opcode);
		bind_text(u, 6, o->op);
		bind_u64(u, 7, o->submitted);
		bind_u64(u, 8, o->completed);
		bind_u64(u, 9, o->errors);
		bind_u64(u, 10, o->bytes);
		err = load__step(l, ST_URING);
	}
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
	    .desc = &ptop__v1__io_sample__descriptor,
	},
	{
	    .payload = PTOP__V1__EVENT__PAYLOAD_COLLECTOR_PAYLOAD,
	    .kind = "event:io_fs",
	    .load = load_event,
	    .type = "ptop.v1.IoFsEvent",
	    .desc = &ptop__v1__io_fs_event__descriptor,
	},
	{
	    .payload = PTOP__V1__EVENT__PAYLOAD_COLLECTOR_PAYLOAD,
	    .kind = "event:io_files",
	    .load = load_files,
	    .type = "ptop.v1.IoFiles",
	    .desc = &ptop__v1__io_files__descriptor,
	}),
    AN_LOAD_STMTS([ST_SAMPLE] = sample_sql, [ST_EVENT] = event_sql, [ST_FILE] = file_sql,
		  [ST_HIST] = hist_sql, [ST_URING] = uring_sql),
    AN_LOAD_CHECKS({"io_sample", true, true, "rowid", "pid",
		    "rchar,wchar,syscr,syscw,read_bytes,write_bytes,cancelled_write_bytes,"
		    "iowait_ns"},
		   {"io_event", false, false, "rowid", "pid", "flags,error,length,fd"},
		   {"io_file", true, true, "rowid", "pid,file,op",
		    "calls,errors,bytes,call_ns,timed,max_ns"},
		   {"io_file_hist", false, false, "rowid", "pid", "bucket,count"},
		   {"io_uring_op", true, true, "rowid", "pid,opcode",
		    "submitted,completed,errors,bytes"}),
};
