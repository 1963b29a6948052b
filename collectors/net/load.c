/* load.c — the net collector's loader (analyze/load.h): each NetSockets becomes one
 * net_socket row per socket and one net_state row per state change it carries, each
 * NetError one net_error row (schema.sql). */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>

#include "analyze/load.h"
#include "collectors/net/net.pb-c.h"
#include "proto/capture.h" /* capture_payload__unpack */

enum { ST_SOCKET, ST_ERROR, ST_STATE };

static const char socket_sql[] =
    "INSERT INTO net_socket (cap, time_ns, interval_ns, pid, sock, cookie, inode, proto, local, "
    "remote, state, tx_bytes, rx_bytes, tx_calls, rx_calls, tx_errors, rx_errors, segs_out, "
    "segs_in, retransmits, srtt_us, connect_ns, closed, tx_queue, rx_queue, fd)";
static const char error_sql[] =
    "INSERT INTO net_error (cap, time_ns, pid, sock, cookie, inode, proto, local, remote, kind, "
    "count, total, latency_ns, err, in_call)";
static const char state_sql[] =
    "INSERT INTO net_state (cap, time_ns, pid, sock, cookie, old_state, new_state)";

/* The message of EV's payload of type DESC, NULL with errno ENOENT when it is another
 * collector's; a payload that does not unpack fails the load. */
static ProtobufCMessage *unpack(struct load_ctx *l, const Ptop__V1__Event *ev,
				const ProtobufCMessageDescriptor *desc, int *err)
{
	ProtobufCMessage *m = capture_payload__unpack(ev, "net", desc);

	*err = 0;
	if (!m && errno != ENOENT) {
		snprintf(l->run->err, l->run->errlen,
			 "loading %s: a %s does not unpack: the capture is corrupt", l->run->path,
			 desc->short_name);
		*err = -EBADMSG;
	}
	return m;
}

/* A socket's key in the DB: its inode, which both lanes read (so a socket /proc listed before
 * its first send keeps one key); the cookie negated when the inode is unknown. */
static int64_t sock_key(uint64_t cookie, uint64_t inode)
{
	return inode ? (int64_t)inode : -(int64_t)cookie;
}

static void bind_null_or(sqlite3_stmt *s, int i, bool has, uint64_t v)
{
	if (has)
		bind_u64(s, i, v);
	else
		sqlite3_bind_null(s, i);
}

static int load_sockets(struct load_ctx *l, const Ptop__V1__Event *ev)
{
	sqlite3_stmt *s = l->st[ST_SOCKET];
	Ptop__V1__NetSockets *m;
	int err;

	m = (Ptop__V1__NetSockets *)unpack(l, ev, &ptop__v1__net_sockets__descriptor, &err);
	if (!m)
		return err;
	for (size_t i = 0; !err && i < m->n_sockets; i++) {
		const Ptop__V1__NetSocket *k = m->sockets[i];
		const Ptop__V1__NetTraffic *t = k->traffic;
		const Ptop__V1__NetQueues *q = k->queues;
		bool tcp = k->proto[0] == 't';

		bind_envelope(l, s, ev, true); /* :cap, :time_ns, :interval_ns, :pid */
		bind_i64(s, 5, sock_key(k->id, k->inode));
		bind_nz(s, 6, k->id);
		bind_nz(s, 7, k->inode);
		bind_text(s, 8, k->proto);
		bind_text(s, 9, k->local);
		bind_text(s, 10, k->remote);
		bind_text(s, 11, k->state);
		/* without the sock_length lane: bytes, calls, send/receive errors unmeasured */
		bind_null_or(s, 12, t && !m->no_length, t ? t->tx_bytes : 0);
		bind_null_or(s, 13, t && !m->no_length, t ? t->rx_bytes : 0);
		bind_null_or(s, 14, t && !m->no_length, t ? t->tx_calls : 0);
		bind_null_or(s, 15, t && !m->no_length, t ? t->rx_calls : 0);
		bind_null_or(s, 16, t && !m->no_length, t ? t->tx_errors : 0);
		bind_null_or(s, 17, t && !m->no_length, t ? t->rx_errors : 0);
		bind_null_or(s, 18, t && tcp, t ? t->segs_out : 0);
		bind_null_or(s, 19, t && tcp, t ? t->segs_in : 0);
		bind_null_or(s, 20, t && tcp, t ? t->retransmits : 0);
		bind_nz(s, 21, t ? t->srtt_us : 0);
		bind_nz(s, 22, k->connect_ns);
		bind_u64(s, 23, k->closed);
		bind_null_or(s, 24, q, q ? q->tx_queue : 0);
		bind_null_or(s, 25, q, q ? q->rx_queue : 0);
		if (q && q->fd >= 0)
			bind_i64(s, 26, q->fd);
		else
			sqlite3_bind_null(s, 26);
		err = load__step(l, ST_SOCKET);
		for (size_t c = 0; !err && c < k->n_changes; c++) {
			const Ptop__V1__NetStateChange *ch = k->changes[c];
			sqlite3_stmt *t = l->st[ST_STATE];
			Ptop__V1__Event e2 = *ev;

			e2.time_ns = ch->time_ns; /* the change's own time */
			bind_envelope(l, t, &e2, false); /* :cap, :time_ns, :pid */
			bind_i64(t, 4, sock_key(k->id, k->inode));
			bind_nz(t, 5, k->id);
			bind_text(t, 6, ch->old_state);
			bind_text(t, 7, ch->new_state);
			err = load__step(l, ST_STATE);
		}
	}
	protobuf_c_message_free_unpacked(&m->base, NULL);
	return err;
}

static int load_error(struct load_ctx *l, const Ptop__V1__Event *ev)
{
	sqlite3_stmt *s = l->st[ST_ERROR];
	Ptop__V1__NetError *e;
	int err;

	e = (Ptop__V1__NetError *)unpack(l, ev, &ptop__v1__net_error__descriptor, &err);
	if (!e)
		return err;
	bind_envelope(l, s, ev, false); /* :cap, :time_ns, :pid */
	bind_i64(s, 4, sock_key(e->id, e->inode));
	bind_nz(s, 5, e->id);
	bind_nz(s, 6, e->inode);
	bind_text(s, 7, e->proto);
	bind_text(s, 8, e->local);
	bind_text(s, 9, e->remote);
	bind_text(s, 10, e->kind);
	bind_u64(s, 11, e->count);
	bind_u64(s, 12, e->total);
	bind_nz(s, 13, e->latency_ns);
	bind_nz(s, 14, e->err);
	bind_u64(s, 15, e->in_call);
	err = load__step(l, ST_ERROR);
	protobuf_c_message_free_unpacked(&e->base, NULL);
	return err;
}

/* What the net part (part.c, .load) gives the loader core. */
const struct an_load net_load = {
    AN_LOAD_PAYLOADS(
	{
	    .payload = PTOP__V1__EVENT__PAYLOAD_COLLECTOR_PAYLOAD,
	    .kind = "event:net",
	    .load = load_sockets,
	    .type = "ptop.v1.NetSockets",
	    .desc = &ptop__v1__net_sockets__descriptor,
	},
	{
	    .payload = PTOP__V1__EVENT__PAYLOAD_COLLECTOR_PAYLOAD,
	    .kind = "event:net_error",
	    .load = load_error,
	    .type = "ptop.v1.NetError",
	    .desc = &ptop__v1__net_error__descriptor,
	}),
    AN_LOAD_STMTS([ST_SOCKET] = socket_sql, [ST_ERROR] = error_sql, [ST_STATE] = state_sql),
    AN_LOAD_CHECKS({"net_socket", true, true, "rowid", "pid,sock",
		    "tx_bytes,rx_bytes,tx_calls,rx_calls,tx_errors,rx_errors,segs_out,"
		    "segs_in,retransmits,srtt_us,connect_ns,tx_queue,rx_queue"},
		   {"net_error", false, false, "rowid", "pid,sock", "count,total,latency_ns"},
		   {"net_state", false, false, "rowid", "pid,sock", "time_ns"}),
};
