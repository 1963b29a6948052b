/* load.c — the tls collector's loader (analyze/load.h): TlsConn -> tls_conn, TlsAttach ->
 * tls_attach, TlsData -> tls_data (schema.sql). */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>

#include "analyze/load.h"
#include "collectors/tls/tls.pb-c.h"
#include "proto/capture.h" /* capture_payload__unpack */

enum { ST_CONN, ST_ATTACH, ST_DATA };

static const char conn_sql[] =
	"INSERT INTO tls_conn (cap, time_ns, interval_ns, pid, ssl, fd, write_calls, write_ok, "
	"write_bytes, write_lat_ns, write_lat_max_ns, read_calls, read_ok, read_bytes, "
	"read_lat_ns, read_lat_max_ns)";
static const char attach_sql[] =
	"INSERT INTO tls_attach (cap, time_ns, pid, library, functions, at_start)";
static const char data_sql[] =
	"INSERT INTO tls_data (cap, time_ns, pid, ssl, fd, direction, length, data)";

/* The payload EV carries as DESC, or NULL: errno ENOENT when it is not ours (another
 * message), else a corrupt capture said in L. */
static ProtobufCMessage *unpack(struct load_ctx *l, const Ptop__V1__Event *ev,
				const ProtobufCMessageDescriptor *desc)
{
	ProtobufCMessage *m = capture_payload__unpack(ev, "tls", desc);

	if (!m && errno != ENOENT)
		snprintf(l->run->err, l->run->errlen,
			 "loading %s: a %s does not unpack: the capture is corrupt", l->run->path,
			 desc->short_name);
	return m;
}

static int done(struct load_ctx *l, int id, ProtobufCMessage *m)
{
	int err = load__step(l, id);

	protobuf_c_message_free_unpacked(m, NULL);
	return err;
}

static void bind_fd(sqlite3_stmt *s, int i, int32_t fd)
{
	if (fd >= 0)
		sqlite3_bind_int(s, i, fd);
	else
		sqlite3_bind_null(s, i);
}

static int load_conn(struct load_ctx *l, const Ptop__V1__Event *ev)
{
	sqlite3_stmt *s = l->st[ST_CONN];
	Ptop__V1__TlsConn *t =
		(Ptop__V1__TlsConn *)unpack(l, ev, &ptop__v1__tls_conn__descriptor);

	if (!t)
		return errno == ENOENT ? 0 : -EBADMSG;
	bind_envelope(l, s, ev, true); /* :cap, :time_ns, :interval_ns, :pid */
	bind_u64(s, 5, t->ssl);
	bind_fd(s, 6, t->fd);
	bind_u64(s, 7, t->write_calls);
	bind_u64(s, 8, t->write_ok);
	bind_u64(s, 9, t->write_bytes);
	bind_u64(s, 10, t->write_lat_ns);
	bind_u64(s, 11, t->write_lat_max_ns);
	bind_u64(s, 12, t->read_calls);
	bind_u64(s, 13, t->read_ok);
	bind_u64(s, 14, t->read_bytes);
	bind_u64(s, 15, t->read_lat_ns);
	bind_u64(s, 16, t->read_lat_max_ns);
	return done(l, ST_CONN, &t->base);
}

static int load_attach(struct load_ctx *l, const Ptop__V1__Event *ev)
{
	sqlite3_stmt *s = l->st[ST_ATTACH];
	Ptop__V1__TlsAttach *t =
		(Ptop__V1__TlsAttach *)unpack(l, ev, &ptop__v1__tls_attach__descriptor);

	if (!t)
		return errno == ENOENT ? 0 : -EBADMSG;
	bind_envelope(l, s, ev, false); /* :cap, :time_ns, :pid */
	sqlite3_bind_text(s, 4, t->library ? t->library : "", -1, SQLITE_TRANSIENT);
	bind_opt_text(s, 5, t->functions && t->functions[0] ? t->functions : NULL);
	sqlite3_bind_int(s, 6, t->at_start ? 1 : 0);
	return done(l, ST_ATTACH, &t->base);
}

static int load_data(struct load_ctx *l, const Ptop__V1__Event *ev)
{
	sqlite3_stmt *s = l->st[ST_DATA];
	Ptop__V1__TlsData *t =
		(Ptop__V1__TlsData *)unpack(l, ev, &ptop__v1__tls_data__descriptor);

	if (!t)
		return errno == ENOENT ? 0 : -EBADMSG;
	bind_envelope(l, s, ev, false);
	bind_u64(s, 4, t->ssl);
	bind_fd(s, 5, t->fd);
	sqlite3_bind_text(s, 6, t->direction ? "read" : "write", -1, SQLITE_STATIC);
	bind_u64(s, 7, t->length);
	sqlite3_bind_blob(s, 8, t->data.data, (int)t->data.len, SQLITE_TRANSIENT);
	return done(l, ST_DATA, &t->base);
}

const struct an_load tls_load = {
	AN_LOAD_PAYLOADS({ .payload = PTOP__V1__EVENT__PAYLOAD_COLLECTOR_PAYLOAD,
			   .kind = "event:tls",
			   .load = load_conn,
			   .type = "ptop.v1.TlsConn",
			   .desc = &ptop__v1__tls_conn__descriptor },
			 { .payload = PTOP__V1__EVENT__PAYLOAD_COLLECTOR_PAYLOAD,
			   .kind = "event:tls_attach",
			   .load = load_attach,
			   .type = "ptop.v1.TlsAttach",
			   .desc = &ptop__v1__tls_attach__descriptor },
			 { .payload = PTOP__V1__EVENT__PAYLOAD_COLLECTOR_PAYLOAD,
			   .kind = "event:tls_data",
			   .load = load_data,
			   .type = "ptop.v1.TlsData",
			   .desc = &ptop__v1__tls_data__descriptor }),
	AN_LOAD_STMTS([ST_CONN] = conn_sql, [ST_ATTACH] = attach_sql, [ST_DATA] = data_sql),
	/* times positive and increasing per connection, intervals in (0, time_ns] or NULL,
	 * the figures never negative */
	AN_LOAD_CHECKS({ "tls_conn", true, true, "rowid", "ssl",
			 "write_calls,write_ok,write_bytes,write_lat_ns,write_lat_max_ns,"
			 "read_calls,read_ok,read_bytes,read_lat_ns,read_lat_max_ns" },
		       { "tls_data", false, false, "rowid", "NULL", "length" }),
};
