/* report.c — `report tls`: per SSL connection (the SSL * pointer the recorder keyed by),
 * its fd, its peer (the net collector's remote address for that fd of that process, when
 * net ran), and per direction the calls, the bytes, the mean and longest latency (entry to
 * return of SSL_write/SSL_read and their _ex forms); the libssl attached and when; and,
 * only when the capture holds plaintext (--tls-bytes), a SENSITIVE banner and the first
 * bytes of each call.
 *
 * One model, three renderings (analyze/output.h): the connections and the plaintext are
 * each built once into a struct table; text prints them under a heading, CSV prints the
 * connections (the plaintext's banner on stderr, where CSV's notes go), JSON writes
 * "connections", "totals", "attached", "sensitive" and, when sensitive, "plaintext".
 * Glue to the core: its body under report__run (analyze/report.h), window__bounds, table__*.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/report.h"
#include "collectors/tls/report.h"

/* per connection over the window (an interval sample is in it when its midpoint is) */
static const char conn_sql[] =
	"SELECT g.*, "
	/* its peer: net's remote of the same fd of the same process, its first sample from
	 * the connection's first interval on (an fd reused later is another socket) */
	"(SELECT n.remote FROM net_socket n WHERE n.cap = ?1 AND n.pid = g.pid AND n.fd = g.fd "
	" AND n.remote != '' AND n.time_ns >= g.first_ns ORDER BY n.time_ns LIMIT 1) "
	"FROM (SELECT ssl, MAX(fd) AS fd, pid, SUM(write_calls), SUM(write_bytes), "
	"SUM(write_lat_ns), MAX(write_lat_max_ns), SUM(read_calls), SUM(read_bytes), "
	"SUM(read_lat_ns), MAX(read_lat_max_ns), "
	"MIN(time_ns - COALESCE(interval_ns, 0)) AS first_ns, MAX(time_ns) FROM tls_conn WHERE cap = ?1 "
	"AND time_ns - COALESCE(interval_ns, 0) / 2 >= ?2 "
	"AND time_ns - COALESCE(interval_ns, 0) / 2 < ?3 "
	"GROUP BY ssl, pid) g ORDER BY g.\"SUM(write_bytes)\" + g.\"SUM(read_bytes)\" DESC, g.ssl";

static const char attach_sql[] =
	"SELECT time_ns, library, at_start FROM tls_attach WHERE cap = ?1 ORDER BY time_ns";

static const char data_sql[] =
	"SELECT time_ns, fd, direction, length, data FROM tls_data WHERE cap = ?1 "
	"AND time_ns >= ?2 AND time_ns < ?3 ORDER BY time_ns, rowid";

static const char net_ran_sql[] =
	"SELECT COUNT(*) FROM probe WHERE cap = ?1 AND name = 'net' AND state = 'active'";

enum { C_SSL, C_FD, C_PEER, C_PID, C_WCALLS, C_WBYTES, C_WMEAN, C_WMAX, C_RCALLS, C_RBYTES,
       C_RMEAN, C_RMAX, COLS };
static const char *const col_names[COLS] = {
	"ssl", "fd", "peer", "pid", "write calls", "write bytes", "write mean", "write max",
	"read calls", "read bytes", "read mean", "read max",
};
static const char *const col_keys[COLS] = {
	"ssl", "fd", "peer", "pid", "write_calls", "write_bytes", "write_mean_ns", "write_max_ns",
	"read_calls", "read_bytes", "read_mean_ns", "read_max_ns",
};

enum { D_T, D_FD, D_DIR, D_LEN, D_TEXT, D_HEX, DCOLS };
static const char *const dcol_names[DCOLS] = { "t_s", "fd", "direction", "length", "data",
					       "data_hex" };

static int prepare(sqlite3 *db, const char *sql, const struct capture_meta *m,
		   const struct window *w, sqlite3_stmt **st)
{
	int64_t lo, hi;

	if (sqlite3_prepare_v2(db, sql, -1, st, NULL) != SQLITE_OK)
		return -EIO;
	sqlite3_bind_int64(*st, 1, m->cap);
	if (w) {
		window__bounds(w, m, &lo, &hi);
		sqlite3_bind_int64(*st, 2, lo);
		sqlite3_bind_int64(*st, 3, hi);
	}
	return 0;
}

/* a mean duration, or NULL (no call) */
static int set_ns(struct table *t, size_t col, uint64_t ns, bool measured)
{
	char b[32];

	if (!measured)
		return table__set_null(t, col);
	return table__set_int(t, col, (int64_t)ns, fmt_ns(b, sizeof(b), ns));
}

/* The connections of window W into T (NULL: only the totals), their totals into TT. */
static int build_conns(sqlite3 *db, const struct capture_meta *m, const struct window *w,
		       struct table *t, struct tls_totals *tt)
{
	sqlite3_stmt *st = NULL;
	int err, rc;

	memset(tt, 0, sizeof(*tt));
	err = prepare(db, attach_sql, m, NULL, &st);
	if (err)
		return err;
	tt->attached = sqlite3_step(st) == SQLITE_ROW;
	sqlite3_finalize(st);
	err = prepare(db, conn_sql, m, w, &st);
	if (err)
		return err;
	while (!err && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		uint64_t calls[2], bytes[2], lat[2], max[2];
		char b[32];

		for (int d = 0; d < 2; d++) {
			calls[d] = (uint64_t)sqlite3_column_int64(st, 3 + 4 * d);
			bytes[d] = (uint64_t)sqlite3_column_int64(st, 4 + 4 * d);
			lat[d] = (uint64_t)sqlite3_column_int64(st, 5 + 4 * d);
			max[d] = (uint64_t)sqlite3_column_int64(st, 6 + 4 * d);
			tt->calls[d] += calls[d];
			tt->bytes[d] += bytes[d];
			tt->lat_ns[d] += lat[d];
		}
		tt->conns++;
		if (!t)
			continue;
		snprintf(b, sizeof(b), "0x%" PRIx64, (uint64_t)sqlite3_column_int64(st, 0));
		err = table__add_row(t);
		err = err ?: table__set_text(t, C_SSL, b);
		if (!err && sqlite3_column_type(st, 1) != SQLITE_NULL)
			err = table__set_int(t, C_FD, sqlite3_column_int64(st, 1), NULL);
		if (!err && sqlite3_column_type(st, 13) != SQLITE_NULL)
			err = table__set_text(t, C_PEER, (const char *)sqlite3_column_text(st, 13));
		if (!err && sqlite3_column_type(st, 2) != SQLITE_NULL)
			err = table__set_int(t, C_PID, sqlite3_column_int64(st, 2), NULL);
		for (int d = 0; d < 2 && !err; d++) {
			size_t c0 = d ? C_RCALLS : C_WCALLS;

			err = table__set_int(t, c0, (int64_t)calls[d], NULL);
			err = err ?: table__set_int(t, c0 + 1, (int64_t)bytes[d],
						    fmt_bytes(b, sizeof(b), bytes[d]));
			err = err ?: set_ns(t, c0 + 2, calls[d] ? lat[d] / calls[d] : 0, calls[d]);
			err = err ?: set_ns(t, c0 + 3, max[d], calls[d]);
		}
	}
	if (!err && rc != SQLITE_DONE)
		err = -EIO;
	sqlite3_finalize(st);
	return err;
}

int tls_rows__totals(sqlite3 *db, const struct capture_meta *m, const struct window *w,
		     struct tls_totals *tt)
{
	return build_conns(db, m, w, NULL, tt);
}

/* DATA (N bytes) as text: printable ASCII as it is, the rest \xNN; and as hex. */
static int set_data(struct table *t, const unsigned char *data, size_t n)
{
	char *txt = malloc(4 * n + 1), *hex = malloc(2 * n + 1);
	size_t a = 0;
	int err;

	if (!txt || !hex) {
		free(txt);
		free(hex);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		if (data[i] >= 0x20 && data[i] < 0x7f && data[i] != '\\')
			txt[a++] = (char)data[i];
		else
			a += (size_t)sprintf(txt + a, "\\x%02x", data[i]);
		sprintf(hex + 2 * i, "%02x", data[i]);
	}
	txt[a] = '\0';
	hex[2 * n] = '\0';
	err = table__set_text(t, D_TEXT, txt);
	err = err ?: table__set_text(t, D_HEX, hex);
	free(txt);
	free(hex);
	return err;
}

static int build_data(sqlite3 *db, const struct capture_meta *m, const struct window *w,
		      struct table *t)
{
	sqlite3_stmt *st = NULL;
	int err, rc;

	err = prepare(db, data_sql, m, w, &st);
	while (!err && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t time_ns = sqlite3_column_int64(st, 0);
		char a[32];

		err = table__add_row(t);
		err = err ?: table__set_real(t, D_T, (double)(time_ns - m->base_ns) / 1e9,
					     fmt_secs(a, sizeof(a), time_ns - m->base_ns));
		if (!err && sqlite3_column_type(st, 1) != SQLITE_NULL)
			err = table__set_int(t, D_FD, sqlite3_column_int64(st, 1), NULL);
		err = err ?: table__set_text(t, D_DIR, (const char *)sqlite3_column_text(st, 2));
		err = err ?: table__set_int(t, D_LEN, sqlite3_column_int64(st, 3), NULL);
		err = err ?: set_data(t, sqlite3_column_blob(st, 4),
				      (size_t)sqlite3_column_bytes(st, 4));
	}
	if (!err && rc != SQLITE_DONE)
		err = -EIO;
	sqlite3_finalize(st);
	return err;
}

static bool net_ran(sqlite3 *db, const struct capture_meta *m)
{
	sqlite3_stmt *st = NULL;
	bool ran = false;

	if (prepare(db, net_ran_sql, m, NULL, &st))
		return false;
	ran = sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int64(st, 0) > 0;
	sqlite3_finalize(st);
	return ran;
}

#define SENSITIVE_NOTE "SENSITIVE: this capture holds plaintext of the target's TLS calls (--tls-bytes)"

static int report_tls(const struct report_ctx *ctx)
{
	const struct capture_meta *m = ctx->m;
	const struct report_opts *o = ctx->o;
	struct table *t = NULL, *d = NULL;
	sqlite3 *db = ctx->db;
	FILE *out = ctx->out;
	struct json *j = ctx->j;
	struct tls_totals tt;
	char w[96], b1[32], b2[32];
	bool sensitive, peers;
	int err = 0;

	t = table__new(COLS, col_names);
	d = table__new(DCOLS, dcol_names);
	if (!t || !d) {
		err = -ENOMEM;
		goto cleanup;
	}
	for (size_t c = 0; c < COLS && !err; c++)
		err = table__set_key(t, c, col_keys[c]);
	err = err ?: build_conns(db, m, &o->win, t, &tt);
	err = err ?: build_data(db, m, &o->win, d);
	if (err)
		goto cleanup;
	sensitive = strstr(ctx->probe->detail, "SENSITIVE") || table__rows(d);
	peers = net_ran(db, m);
	switch (o->fmt) {
	case OUT_TEXT:
		if (sensitive)
			fprintf(out, "%s\n\n", SENSITIVE_NOTE);
		window__describe(&o->win, w, sizeof(w));
		fprintf(out, "tls (%s): %" PRIu64 " connections; written %" PRIu64 " calls, %s; "
			"read %" PRIu64 " calls, %s\n", w, tt.conns, tt.calls[0],
			fmt_bytes(b1, sizeof(b1), tt.bytes[0]), tt.calls[1],
			fmt_bytes(b2, sizeof(b2), tt.bytes[1]));
		if (!tt.attached)
			fprintf(out, "no libssl was attached: the target mapped none while recorded\n");
		if (!peers)
			fprintf(out, "peer: not collected (the net collector did not run: --enable net)\n");
		report__drops(NULL, out, o, "tls", ctx->drops, ctx->ndrops);
		fputc('\n', out);
		err = table__print(t, out, OUT_TEXT);
		if (!err && sensitive) {
			static const size_t cols[] = { D_T, D_FD, D_DIR, D_LEN, D_TEXT };

			fprintf(out, "\nplaintext (SENSITIVE), the first bytes of each call:\n");
			err = table__print_cols(d, out, OUT_TEXT, cols, 5);
		}
		break;
	case OUT_CSV:
		if (sensitive) /* CSV's notes go to stderr, as the drops' */
			fprintf(stderr, "%s: `report tls --format json` shows it\n", SENSITIVE_NOTE);
		report__drops(NULL, out, o, "tls", ctx->drops, ctx->ndrops);
		err = table__print(t, out, OUT_CSV);
		break;
	case OUT_JSON:
		json__kv_bool(j, "collected", true);
		json__kv_bool(j, "attached", tt.attached);
		json__kv_bool(j, "sensitive", sensitive);
		json__kv_bool(j, "peers_collected", peers);
		report__drops(j, out, o, "tls", ctx->drops, ctx->ndrops);
		json__key(j, "connections");
		table__json(t, j, NULL, 0);
		json__key(j, "totals");
		json__begin_object(j);
		json__kv_int(j, "connections", (int64_t)tt.conns);
		json__kv_int(j, "write_calls", (int64_t)tt.calls[0]);
		json__kv_int(j, "write_bytes", (int64_t)tt.bytes[0]);
		json__kv_int(j, "read_calls", (int64_t)tt.calls[1]);
		json__kv_int(j, "read_bytes", (int64_t)tt.bytes[1]);
		json__end_object(j);
		if (sensitive) {
			json__kv_string(j, "sensitive_note", SENSITIVE_NOTE);
			json__key(j, "plaintext");
			table__json(d, j, NULL, 0);
		}
		json__end_object(j);
		err = json__end(j);
		break;
	}
cleanup:
	table__free(t);
	table__free(d);
	return err;
}

static const struct an_report tls_report = {
	.name = "tls",
	.order = 850,
	.summary = "TLS per connection: SSL_write/SSL_read calls, bytes, latency,\n"
		   "fd and peer; the plaintext when recorded (--tls-bytes)",
	.tables = "tls_conn,tls_attach,tls_data",
	.probe = "tls",
	.drops = "tls",
	.body = report_tls,
};

const struct an_report *const tls_reports[] = {
	&tls_report,
	NULL,
};
