/* load.c — the fds collector's loader (analyze/load.h): each FdSample becomes one fd_sample
 * row, each FdTable one fd_open row per entry, each FdOps one fd_op row per syscall, each
 * FdSites one fd_site row per site (schema.sql).
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>

#include "analyze/load.h"
#include "collectors/fds/fds.pb-c.h"
#include "proto/capture.h"

enum { ST_SAMPLE, ST_OPEN, ST_OP, ST_SITE };

static const char sample_sql[] =
    "INSERT INTO fd_sample (cap, time_ns, interval_ns, pid, total, file, socket, pipe, "
    "eventfd, epoll, timerfd, signalfd, anon_inode, other)";
static const char open_sql[] =
    "INSERT INTO fd_open (cap, time_ns, pid, fd, type, target, truncated, probe)";

static const char op_sql[] =
    "INSERT INTO fd_op (cap, time_ns, interval_ns, pid, syscall, opened, failed, closed, "
    "emfile)";
static const char site_sql[] = "INSERT INTO fd_site (cap, time_ns, pid, stack_id, opened, live, closed_unseen)";

static int corrupt(struct load_ctx *l, const char *what)
{
	snprintf(l->run->err, l->run->errlen,
		 "loading %s: %s does not unpack: the capture is corrupt", l->run->path, what);
	return -EBADMSG;
}

static int load_sample(struct load_ctx *l, const Ptop__V1__Event *ev)
{
	sqlite3_stmt *s = l->st[ST_SAMPLE];
	Ptop__V1__FdSample *fs;
	int err;

	fs = (Ptop__V1__FdSample *)capture_payload__unpack(ev, "fds",
							   &ptop__v1__fd_sample__descriptor);
	if (!fs && errno == ENOENT)
		return 0;
	if (!fs)
		return corrupt(l, "an FdSample");
	bind_envelope(l, s, ev, true); /* :cap, :time_ns, :interval_ns, :pid */
	bind_u64(s, 5, fs->total);
	bind_u64(s, 6, fs->file);
	bind_u64(s, 7, fs->socket);
	bind_u64(s, 8, fs->pipe);
	bind_u64(s, 9, fs->eventfd);
	bind_u64(s, 10, fs->epoll);
	bind_u64(s, 11, fs->timerfd);
	bind_u64(s, 12, fs->signalfd);
	bind_u64(s, 13, fs->anon_inode);
	bind_u64(s, 14, fs->other);
	err = load__step(l, ST_SAMPLE);
	protobuf_c_message_free_unpacked(&fs->base, NULL);
	return err;
}

static int load_table(struct load_ctx *l, const Ptop__V1__Event *ev)
{
	sqlite3_stmt *s = l->st[ST_OPEN];
	Ptop__V1__FdTable *t;
	int err = 0;
	size_t i;

	t = (Ptop__V1__FdTable *)capture_payload__unpack(ev, "fds",
							 &ptop__v1__fd_table__descriptor);
	if (!t && errno == ENOENT)
		return 0;
	if (!t)
		return corrupt(l, "an FdTable");
	for (i = 0; !err && i < t->n_entries; i++) {
		const Ptop__V1__FdEntry *e = t->entries[i];

		bind_envelope(l, s, ev, false); /* :cap, :time_ns, :pid */
		bind_i64(s, 4, e->fd);
		bind_text(s, 5, e->type);
		bind_text(s, 6, e->target);
		bind_i64(s, 7, t->truncated);
		bind_i64(s, 8, e->probe);
		err = load__step(l, ST_OPEN);
	}
	protobuf_c_message_free_unpacked(&t->base, NULL);
	return err;
}

static int load_ops(struct load_ctx *l, const Ptop__V1__Event *ev)
{
	sqlite3_stmt *s = l->st[ST_OP];
	Ptop__V1__FdOps *o;
	int err = 0;
	size_t i;

	o = (Ptop__V1__FdOps *)capture_payload__unpack(ev, "fds", &ptop__v1__fd_ops__descriptor);
	if (!o && errno == ENOENT)
		return 0;
	if (!o)
		return corrupt(l, "an FdOps");
	for (i = 0; !err && i < o->n_calls; i++) {
		const Ptop__V1__FdCall *c = o->calls[i];

		bind_envelope(l, s, ev, true);
		bind_text(s, 5, c->syscall);
		bind_u64(s, 6, c->opened);
		bind_u64(s, 7, c->failed);
		bind_u64(s, 8, c->closed);
		bind_u64(s, 9, c->emfile);
		err = load__step(l, ST_OP);
	}
	protobuf_c_message_free_unpacked(&o->base, NULL);
	return err;
}

static int load_sites(struct load_ctx *l, const Ptop__V1__Event *ev)
{
	sqlite3_stmt *s = l->st[ST_SITE];
	Ptop__V1__FdSites *m;
	int err = 0;
	size_t i;

	m = (Ptop__V1__FdSites *)capture_payload__unpack(ev, "fds",
							 &ptop__v1__fd_sites__descriptor);
	if (!m && errno == ENOENT)
		return 0;
	if (!m)
		return corrupt(l, "an FdSites");
	for (i = 0; !err && i < m->n_sites; i++) {
		const Ptop__V1__FdSite *x = m->sites[i];

		bind_envelope(l, s, ev, false);
		if (x->stack_id)
			bind_u64(s, 4, x->stack_id);
		else
			sqlite3_bind_null(s, 4);
		bind_u64(s, 5, x->opened);
		bind_u64(s, 6, x->live);
		if (m->reconciled)
			bind_u64(s, 7, x->closed_unseen);
		else
			sqlite3_bind_null(s, 7);
		err = load__step(l, ST_SITE);
	}
	protobuf_c_message_free_unpacked(&m->base, NULL);
	return err;
}

const struct an_load fds_load = {
    AN_LOAD_PAYLOADS(
	{
	    .payload = PTOP__V1__EVENT__PAYLOAD_COLLECTOR_PAYLOAD,
	    .kind = "event:fds",
	    .load = load_sample,
	    .type = "ptop.v1.FdSample",
	    .desc = &ptop__v1__fd_sample__descriptor,
	},
	{
	    .payload = PTOP__V1__EVENT__PAYLOAD_COLLECTOR_PAYLOAD,
	    .kind = "event:fd_table",
	    .load = load_table,
	    .type = "ptop.v1.FdTable",
	    .desc = &ptop__v1__fd_table__descriptor,
	},
	{
	    .payload = PTOP__V1__EVENT__PAYLOAD_COLLECTOR_PAYLOAD,
	    .kind = "event:fd_ops",
	    .load = load_ops,
	    .type = "ptop.v1.FdOps",
	    .desc = &ptop__v1__fd_ops__descriptor,
	},
	{
	    .payload = PTOP__V1__EVENT__PAYLOAD_COLLECTOR_PAYLOAD,
	    .kind = "event:fd_sites",
	    .load = load_sites,
	    .type = "ptop.v1.FdSites",
	    .desc = &ptop__v1__fd_sites__descriptor,
	}),
    AN_LOAD_STMTS([ST_SAMPLE] = sample_sql, [ST_OPEN] = open_sql, [ST_OP] = op_sql,
		  [ST_SITE] = site_sql),
    AN_LOAD_CHECKS({"fd_sample", true, true, "rowid", "pid",
		    "total,file,socket,pipe,eventfd,epoll,timerfd,signalfd,anon_inode,other"},
		   {"fd_open", false, false, "rowid", "pid", "fd"},
		   {"fd_op", true, true, "rowid", "pid,syscall", "opened,failed,closed,emfile"},
		   {"fd_site", false, false, "rowid", "pid", "opened,live"}),
};
