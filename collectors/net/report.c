/* report.c — `report net`: the target's sockets over the window. Connections by bytes and
 * by errors, listening sockets, peers grouped by remote address and port, error counts by
 * kind and the error events, the TCP state changes of each connection as a timeline;
 * text (every section), JSON (every section, by its key) and CSV (the connections table,
 * which holds each socket's error count and its state changes).
 *
 * The tables are built once from SQL (struct table, analyze/output.h): a column that is
 * NULL in the DB (not measured: the /proc lane alone has no byte counts) stays null in
 * every format, never 0.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/report.h"
#include "collectors/net/report.h"

/* The sockets of the window, one row each: the newest row's description, the interval
 * figures summed. ?1 cap, ?2 ?3 window. An interval sample is in it when its midpoint is. */
#define WIN_S                                                                                      \
	"s.cap = ?1 AND s.time_ns - COALESCE(s.interval_ns, 0) / 2 >= ?2 "                         \
	"AND s.time_ns - COALESCE(s.interval_ns, 0) / 2 < ?3"
#define WIN_E "e.cap = ?1 AND e.time_ns >= ?2 AND e.time_ns < ?3"
#define SOCKS_SQL                                                                                  \
	"WITH g AS (SELECT s.pid, s.sock, max(s.time_ns) AS t, sum(s.tx_bytes) AS tx_bytes, "      \
	"sum(s.rx_bytes) AS rx_bytes, sum(s.tx_calls) AS tx_calls, "                               \
	"sum(s.rx_calls) AS rx_calls, sum(s.segs_out) AS segs_out, "                               \
	"sum(s.segs_in) AS segs_in, sum(s.retransmits) AS retransmits, "                           \
	"max(s.connect_ns) / 1e3 AS connect_us, max(s.rx_queue) AS rx_queue_max, "                 \
	"max(s.fd) AS fd, max(s.state = 'LISTEN') AS listened "                                    \
	"FROM net_socket s WHERE " WIN_S " GROUP BY s.pid, s.sock), "                              \
	"k AS (SELECT g.*, s.proto, s.local, s.remote, s.state, s.srtt_us, s.tx_queue, "           \
	"s.rx_queue FROM g JOIN net_socket s ON s.cap = ?1 AND s.time_ns = g.t "                   \
	"AND s.pid IS g.pid AND s.sock = g.sock), "                                                \
	"r AS (SELECT e.pid, e.sock, sum(e.count) AS errors FROM net_error e WHERE " WIN_E         \
	" AND e.kind != 'retransmit' GROUP BY e.pid, e.sock), "                                    \
	"a AS (SELECT k.*, CASE WHEN k.tx_bytes IS NULL THEN r.errors ELSE COALESCE(r.errors, 0) " \
	"END "                                                                                     \
	"AS errors FROM k LEFT JOIN r USING (pid, sock)) "
#define SOCKS_SEL                                                                                  \
	SOCKS_SQL "SELECT sock, proto, local, remote, state, fd, t, tx_bytes, rx_bytes, "          \
		  "tx_calls, rx_calls, segs_out, segs_in, retransmits, connect_us, srtt_us, "      \
		  "tx_queue, rx_queue, rx_queue_max, errors FROM a "

enum {
	C_SOCK,
	C_PROTO,
	C_LOCAL,
	C_REMOTE,
	C_STATE,
	C_FD,
	C_T,
	C_TX,
	C_RX,
	C_TXC,
	C_RXC,
	C_SEGO,
	C_SEGI,
	C_RETR,
	C_CONN,
	C_SRTT,
	C_TXQ,
	C_RXQ,
	C_RXQMAX,
	C_ERR,
	C_TL, /* its state changes in the window (net_timeline__format), not from SQL */
	C_N
};

/* The SELECT's columns, as the tables name them (C_T and C_RXQMAX are not shown). */
static const char *const sock_cols[C_N] = {
    "sock",	  "proto",    "local",	  "remote",   "state",	      "fd",	 "t_s",
    "tx_bytes",	  "rx_bytes", "tx_calls", "rx_calls", "segs_out",     "segs_in", "retransmits",
    "connect_us", "srtt_us",  "tx_queue", "rx_queue", "rx_queue_max", "errors",
    "state_changes",
};
static const size_t conn_show[] = {C_PROTO, C_LOCAL, C_REMOTE, C_STATE, C_FD,	C_TX,  C_RX, C_TXC,
				   C_RXC,   C_RETR,  C_ERR,    C_CONN,	C_SRTT, C_TXQ, C_RXQ};
/* CSV: the connections with their timelines (text and JSON have them in a section) */
static const size_t conn_csv[] = {C_PROTO, C_LOCAL, C_REMOTE, C_STATE, C_FD,  C_TX,
				  C_RX,	   C_TXC,   C_RXC,    C_RETR,  C_ERR, C_CONN,
				  C_SRTT,  C_TXQ,   C_RXQ,    C_TL};
static const size_t listen_show[] = {C_PROTO, C_LOCAL, C_FD, C_RXQ, C_RXQMAX};
#define NSHOW(a) (sizeof(a) / sizeof((a)[0]))
static const size_t tl_show[] = {1, 2, 3, 6}; /* proto, local, remote, timeline */

/* The peers by remote address, grouped by host (the address before its ":PORT"; an IPv6
 * one in brackets), the hosts by their bytes then sockets, each host's ports by bytes. */
enum { P_REMOTE, P_HOST, P_PORT, P_SOCKETS, P_TX, P_RX, P_ERRORS };
static const char *const peer_cols[] = {"remote",   "host",	"port",	 "sockets",
					"tx_bytes", "rx_bytes", "errors"};
#define PEER_CUT "rtrim(remote, '0123456789')"
#define PEER_HAS_PORT "(" PEER_CUT " <> remote AND " PEER_CUT " LIKE '%:')"
static const char peers_sql[] = SOCKS_SQL
    ", p AS (SELECT remote, CASE WHEN " PEER_HAS_PORT " THEN substr(" PEER_CUT ", 1, "
    "length(" PEER_CUT ") - 1) ELSE remote END AS host, CASE WHEN " PEER_HAS_PORT
    " THEN CAST(substr(remote, length(" PEER_CUT ") + 1) AS INTEGER) END AS port, "
    "count(*) AS n, sum(tx_bytes) AS tx, sum(rx_bytes) AS rx, sum(errors) AS er FROM a "
    "WHERE remote != '' GROUP BY remote) "
    "SELECT remote, host, port, n, tx, rx, er FROM p ORDER BY "
    "sum(COALESCE(tx, 0) + COALESCE(rx, 0)) OVER (PARTITION BY host) DESC, "
    "sum(n) OVER (PARTITION BY host) DESC, host, COALESCE(tx, 0) + COALESCE(rx, 0) DESC, "
    "n DESC, port, remote";

/* report net's text shows the first --top N rows of each list (default 20) */
#define NET_TOP_DEFAULT 20

static const char *const kind_cols[] = {"kind", "count", "sockets", "latency_min_us",
					"latency_max_us"};
static const char kinds_sql[] =
    "SELECT e.kind, sum(e.count), count(DISTINCT e.sock), min(e.latency_ns) / 1e3, "
    "max(e.latency_ns) / 1e3 FROM net_error e WHERE " WIN_E
    " GROUP BY e.kind ORDER BY sum(e.count) DESC, e.kind";

static const char *const event_cols[] = {"t_s",   "kind",  "proto",	     "local", "remote",
					 "count", "total", "latency_us", "errno", "in_call"};
static const char events_sql[] =
    "SELECT (e.time_ns - ?4) / 1e9, e.kind, e.proto, e.local, e.remote, e.count, e.total, "
    "e.latency_ns / 1e3, e.err, e.in_call FROM net_error e WHERE " WIN_E
    " ORDER BY e.time_ns, e.rowid";

static const char *const tl_cols[] = {"sock",  "proto",   "local",   "remote",
				      "first_t_s", "changes", "timeline"};
/* The sockets with a state change in the window, by their first change. */
static const char tl_sql[] =
    "SELECT t.sock, min(t.time_ns) AS first FROM net_state t WHERE t.cap = ?1 AND "
    "t.time_ns >= ?2 AND t.time_ns < ?3 GROUP BY t.sock ORDER BY first, t.sock";
/* A socket's description: its newest row's. */
static const char tl_desc_sql[] =
    "SELECT proto, local, remote FROM net_socket WHERE cap = ?1 AND sock = ?2 "
    "ORDER BY time_ns DESC LIMIT 1";
static const char tl_changes_sql[] =
    "SELECT time_ns, old_state, new_state FROM net_state WHERE cap = ?1 AND sock = ?2 AND "
    "time_ns >= ?3 AND time_ns < ?4 ORDER BY time_ns, rowid";

int net_timeline__format(sqlite3 *db, int64_t cap, int64_t sock, int64_t lo, int64_t hi,
			 int64_t base_ns, char *buf, size_t len, size_t *n)
{
	sqlite3_stmt *st = NULL;
	char prev[32] = "", d[32];
	int64_t prev_t = 0;
	size_t off = 0;
	int rc;

	*n = 0;
	buf[0] = '\0';
	if (sqlite3_prepare_v2(db, tl_changes_sql, -1, &st, NULL) != SQLITE_OK)
		return -EIO;
	sqlite3_bind_int64(st, 1, cap);
	sqlite3_bind_int64(st, 2, sock);
	sqlite3_bind_int64(st, 3, lo);
	sqlite3_bind_int64(st, 4, hi);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t t = sqlite3_column_int64(st, 0);
		const char *old = (const char *)sqlite3_column_text(st, 1);
		const char *new = (const char *)sqlite3_column_text(st, 2);
		int k;

		if (!*n)
			k = snprintf(buf + off, len - off, "%s > %s %s", old, new,
				     fmt_ns(d, sizeof(d), t > base_ns ? (uint64_t)(t - base_ns) : 0));
		else
			k = snprintf(buf + off, len - off, "%s > %s +%s",
				     strcmp(old, prev) ? " > ..." : "", new,
				     fmt_ns(d, sizeof(d), t > prev_t ? (uint64_t)(t - prev_t) : 0));
		if (k > 0)
			off = off + (size_t)k < len ? off + (size_t)k : len - 1;
		snprintf(prev, sizeof(prev), "%s", new);
		prev_t = t;
		(*n)++;
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : -EIO;
}

/* The timelines of the window into T (tl_cols). 0, -EIO, -ENOMEM. */
static int fill_timelines(sqlite3 *db, const struct capture_meta *m, const struct window *w,
			  struct table *t)
{
	sqlite3_stmt *st = NULL, *desc = NULL;
	int64_t lo, hi;
	int err = 0, rc;

	window__bounds(w, m, &lo, &hi);
	if (report__prepare_at(db, tl_sql, m, lo, hi, &st) ||
	    sqlite3_prepare_v2(db, tl_desc_sql, -1, &desc, NULL) != SQLITE_OK) {
		sqlite3_finalize(st);
		return -EIO;
	}
	sqlite3_bind_int64(desc, 1, m->cap);
	while (!err && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t sock = sqlite3_column_int64(st, 0), first = sqlite3_column_int64(st, 1);
		char line[1024], ts[32];
		size_t n;

		sqlite3_reset(desc);
		sqlite3_bind_int64(desc, 2, sock);
		err = table__add_row(t);
		err = err ?: table__set_int(t, 0, sock, NULL);
		if (!err && sqlite3_step(desc) == SQLITE_ROW) {
			err = table__set_text(t, 1, (const char *)sqlite3_column_text(desc, 0));
			err = err ?: table__set_text(t, 2, (const char *)sqlite3_column_text(desc, 1));
			err = err ?: table__set_text(t, 3, (const char *)sqlite3_column_text(desc, 2));
		} else if (!err) {
			err = table__set_null(t, 1);
			err = err ?: table__set_null(t, 2);
			err = err ?: table__set_null(t, 3);
		}
		snprintf(ts, sizeof(ts), "%.3f", (double)(first - m->base_ns) / 1e9);
		err = err ?: table__set_real(t, 4, (double)(first - m->base_ns) / 1e9, ts);
		err = err ?: net_timeline__format(db, m->cap, sock, lo, hi, m->base_ns, line,
						  sizeof(line), &n);
		err = err ?: table__set_int(t, 5, (int64_t)n, NULL);
		err = err ?: table__set_text(t, 6, line);
	}
	if (!err && rc != SQLITE_DONE)
		err = -EIO;
	sqlite3_finalize(st);
	sqlite3_finalize(desc);
	return err;
}

/* Rows of SQL (bound ?1 cap, ?2 ?3 window, ?4 capture start) into T, each column as SQL
 * typed it. TL: T is a socket table (sock_cols): its C_TL cell gets the socket's state
 * changes in the window, "" when none, NULL when the eBPF lane did not run (TL 2) or
 * not wanted (TL 0). 0, -EIO, -ENOMEM. */
static int fill_tl(sqlite3 *db, const char *sql, const struct capture_meta *m,
		   const struct window *w, struct table *t, int tl)
{
	sqlite3_stmt *st = NULL;
	int64_t lo, hi;
	int err = 0, rc;

	window__bounds(w, m, &lo, &hi);
	if (report__prepare_at(db, sql, m, lo, hi, &st))
		return -EIO;
	if (sqlite3_bind_parameter_count(st) >= 4)
		sqlite3_bind_int64(st, 4, m->base_ns);
	while (!err && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		int n = sqlite3_column_count(st);

		err = table__add_row(t);
		for (int c = 0; !err && c < n && (size_t)c < table__cols(t); c++) {
			char b[32];

			switch (sqlite3_column_type(st, c)) {
			case SQLITE_NULL:
				err = table__set_null(t, (size_t)c);
				break;
			case SQLITE_INTEGER:
				err =
				    table__set_int(t, (size_t)c, sqlite3_column_int64(st, c), NULL);
				break;
			case SQLITE_FLOAT:
				snprintf(b, sizeof(b), "%.3f", sqlite3_column_double(st, c));
				err =
				    table__set_real(t, (size_t)c, sqlite3_column_double(st, c), b);
				break;
			default:
				err = table__set_text(t, (size_t)c,
						      (const char *)sqlite3_column_text(st, c));
			}
		}
		if (!err && tl == 1) {
			char line[1024];
			size_t k;

			err = net_timeline__format(db, m->cap, sqlite3_column_int64(st, C_SOCK), lo,
						   hi, m->base_ns, line, sizeof(line), &k);
			err = err ?: table__set_text(t, C_TL, line);
		}
	}
	if (!err && rc != SQLITE_DONE)
		err = -EIO;
	sqlite3_finalize(st);
	return err;
}

static int fill(sqlite3 *db, const char *sql, const struct capture_meta *m, const struct window *w,
		struct table *t)
{
	return fill_tl(db, sql, m, w, t, 0);
}

struct net_tables {
	struct table *bytes, *errors, *listen, *peers, *kinds, *events, *timelines;
};

static void tables_free(struct net_tables *n)
{
	table__free(n->bytes);
	table__free(n->errors);
	table__free(n->listen);
	table__free(n->peers);
	table__free(n->kinds);
	table__free(n->events);
	table__free(n->timelines);
}

/* The report's tables of window W into N; EBPF: the eBPF lane ran (state changes
 * measured). */
static int tables_build(sqlite3 *db, const struct capture_meta *m, const struct window *w,
			bool ebpf, struct net_tables *n)
{
	static const char by_bytes[] = SOCKS_SEL
	    "ORDER BY COALESCE(tx_bytes, 0) + COALESCE(rx_bytes, 0) DESC, errors DESC, sock";
	static const char by_errors[] =
	    SOCKS_SEL "WHERE COALESCE(errors, 0) > 0 ORDER BY errors DESC, sock";
	static const char listening[] = SOCKS_SEL "WHERE listened ORDER BY local";
	int err = 0;

	n->bytes = table__new(C_N, sock_cols);
	n->errors = table__new(C_N, sock_cols);
	n->listen = table__new(C_N, sock_cols);
	n->peers = table__new(NSHOW(peer_cols), peer_cols);
	n->kinds = table__new(NSHOW(kind_cols), kind_cols);
	n->events = table__new(NSHOW(event_cols), event_cols);
	n->timelines = table__new(NSHOW(tl_cols), tl_cols);
	if (!n->bytes || !n->errors || !n->listen || !n->peers || !n->kinds || !n->events ||
	    !n->timelines)
		return -ENOMEM;
	err = err ?: fill_tl(db, by_bytes, m, w, n->bytes, ebpf ? 1 : 2);
	err = err ?: fill(db, by_errors, m, w, n->errors);
	err = err ?: fill(db, listening, m, w, n->listen);
	err = err ?: fill(db, peers_sql, m, w, n->peers);
	err = err ?: fill(db, kinds_sql, m, w, n->kinds);
	err = err ?: fill(db, events_sql, m, w, n->events);
	err = err ?: fill_timelines(db, m, w, n->timelines);
	return err;
}

/* The sum of column COL of T (its integer cells), *ANY: one was measured. */
static uint64_t col_sum(const struct table *t, size_t col, bool *any)
{
	uint64_t s = 0;

	*any = false;
	for (size_t r = 0; r < table__rows(t); r++) {
		if (table__type(t, r, col) != CELL_INT)
			continue;
		s += strtoull(table__value(t, r, col), NULL, 10);
		*any = true;
	}
	return s;
}

/* The first N rows of T (its column names NAMES) as a table of their own: the cells as
 * fill_tl and fill_timelines make them (integers, reals with their display, text). */
static struct table *head_of(const struct table *t, const char *const *names, size_t n)
{
	struct table *h = table__new(table__cols(t), names);
	int err = h ? 0 : -ENOMEM;

	for (size_t r = 0; !err && r < n && r < table__rows(t); r++) {
		err = table__add_row(h);
		for (size_t c = 0; !err && c < table__cols(t); c++) {
			const char *v = table__value(t, r, c);

			switch (table__type(t, r, c)) {
			case CELL_INT:
				err = table__set_int(h, c, strtoll(v, NULL, 10), NULL);
				break;
			case CELL_REAL:
				err = table__set_real(h, c, strtod(v, NULL), table__shown(t, r, c));
				break;
			case CELL_NULL:
				break;
			default:
				err = table__set_text(h, c, v);
			}
		}
	}
	if (err) {
		table__free(h);
		return NULL;
	}
	return h;
}

/* A section of the text: TITLE, then the first TOP rows of T (columns COLS, NULL: all),
 * a line saying how many more there are (--top), or NONE. -ENOMEM, -EIO or 0. */
static int section(FILE *out, const char *title, const struct table *t, const char *const *names,
		   const size_t *cols, size_t ncols, const char *none, size_t top)
{
	struct table *h;
	int err;

	fprintf(out, "\n%s\n", title);
	if (!table__rows(t)) {
		fprintf(out, "  %s\n", none);
		return 0;
	}
	h = head_of(t, names, top);
	if (!h)
		return -ENOMEM;
	err = cols ? table__print_cols(h, out, OUT_TEXT, cols, ncols)
		   : table__print(h, out, OUT_TEXT);
	if (!err && table__rows(t) > top)
		fprintf(out, "  ... %zu more (--top)\n", table__rows(t) - top);
	table__free(h);
	return err;
}

/* The peers by host, then port: a line per host (its sockets, bytes and errors summed,
 * its ports counted), its ports below it; the first TOP hosts and TOP ports of each. */
static void peers_text(FILE *out, const struct table *t, size_t top)
{
	size_t hosts = 0, r = 0;
	char a[32], b[32];

	fprintf(out, "\npeers (by host, then port)\n");
	if (!table__rows(t)) {
		fprintf(out, "  none\n");
		return;
	}
	while (r < table__rows(t)) {
		const char *host = table__value(t, r, P_HOST);
		uint64_t n = 0, tx = 0, rx = 0, er = 0;
		bool has_tx = false, has_rx = false, has_er = false;
		size_t end = r, shown = 0;

		while (end < table__rows(t) && !strcmp(table__value(t, end, P_HOST), host)) {
			n += strtoull(table__value(t, end, P_SOCKETS), NULL, 10);
			if (table__type(t, end, P_TX) == CELL_INT) {
				tx += strtoull(table__value(t, end, P_TX), NULL, 10);
				has_tx = true;
			}
			if (table__type(t, end, P_RX) == CELL_INT) {
				rx += strtoull(table__value(t, end, P_RX), NULL, 10);
				has_rx = true;
			}
			if (table__type(t, end, P_ERRORS) == CELL_INT) {
				er += strtoull(table__value(t, end, P_ERRORS), NULL, 10);
				has_er = true;
			}
			end++;
		}
		if (hosts++ < top) {
			fprintf(out, "  %s: %" PRIu64 " socket%s, %zu port%s, sent %s, received %s, "
				     "errors ",
				host, n, n == 1 ? "" : "s", end - r, end - r == 1 ? "" : "s",
				has_tx ? fmt_bytes(a, sizeof(a), tx) : "not measured",
				has_rx ? fmt_bytes(b, sizeof(b), rx) : "not measured");
			if (has_er)
				fprintf(out, "%" PRIu64 "\n", er);
			else
				fprintf(out, "not measured\n");
			for (size_t k = r; k < end && shown < top; k++, shown++)
				fprintf(out, "    %-22s %6s sockets  sent %10s  received %10s  errors %s\n",
					table__type(t, k, P_PORT) == CELL_INT
					    ? table__value(t, k, P_PORT)
					    : table__value(t, k, P_REMOTE),
					table__shown(t, k, P_SOCKETS),
					table__type(t, k, P_TX) == CELL_INT
					    ? fmt_bytes(a, sizeof(a),
							strtoull(table__value(t, k, P_TX), NULL, 10))
					    : "-",
					table__type(t, k, P_RX) == CELL_INT
					    ? fmt_bytes(b, sizeof(b),
							strtoull(table__value(t, k, P_RX), NULL, 10))
					    : "-",
					table__shown(t, k, P_ERRORS));
			if (end - r > shown)
				fprintf(out, "    ... %zu more ports (--top)\n", end - r - shown);
		}
		r = end;
	}
	if (hosts > top)
		fprintf(out, "  ... %zu more hosts (--top)\n", hosts - top);
}

/* The connect latencies of the window: ?1 cap, ?2 ?3 window. */
static const char connects_sql[] = "SELECT s.connect_ns FROM net_socket s WHERE " WIN_S
				   " AND s.connect_ns > 0";

/* The connects of the window into F (count, log2 histogram, max). 0 or -EIO. */
static int connects_load(sqlite3 *db, const struct capture_meta *m, const struct window *w,
			 struct net_figs *f)
{
	sqlite3_stmt *st = NULL;
	int64_t lo, hi;
	int rc;

	window__bounds(w, m, &lo, &hi);
	if (report__prepare_at(db, connects_sql, m, lo, hi, &st))
		return -EIO;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		uint64_t v = (uint64_t)sqlite3_column_int64(st, 0);
		unsigned b = v < 2 ? 0 : 63 - (unsigned)__builtin_clzll(v);

		f->connects++;
		f->connect_hist[b < HIST_BUCKETS ? b : HIST_BUCKETS - 1]++;
		if (v > f->connect_max_ns)
			f->connect_max_ns = v;
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : -EIO;
}

/* F's sums from the report's tables N. */
static void figs_of(const struct net_tables *n, struct net_figs *f)
{
	bool any;

	f->sockets = table__rows(n->bytes);
	f->tx = col_sum(n->bytes, C_TX, &any);
	f->rx = col_sum(n->bytes, C_RX, &any);
	f->retransmits = col_sum(n->bytes, C_RETR, &any);
	for (size_t r = 0; r < table__rows(n->kinds) && f->nkinds < 16; r++) {
		const char *k = table__value(n->kinds, r, 0);

		if (!k || !strcmp(k, "retransmit"))
			continue;
		snprintf(f->kinds[f->nkinds].kind, sizeof(f->kinds[0].kind), "%s", k);
		f->kinds[f->nkinds++].count = strtoull(table__value(n->kinds, r, 1), NULL, 10);
	}
}

/* Why the bytes were not measured though the eBPF lane ran (its sock_length lane did
 * not: a kernel before Linux 6.3), into WHY; "" when they were, or the capture has no
 * lanes. */
static void length_lane(sqlite3 *db, int64_t cap, char *why, size_t len)
{
	sqlite3_stmt *st = NULL;

	why[0] = '\0';
	if (sqlite3_prepare_v2(db,
			       "SELECT COALESCE(reason, state) FROM probe_lane WHERE cap = ?1 AND "
			       "probe = 'net' AND lane = 'sock_length' AND state != 'active'",
			       -1, &st, NULL) != SQLITE_OK)
		return;
	sqlite3_bind_int64(st, 1, cap);
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
		snprintf(why, len, "%s", (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
}

int net_figs__load(sqlite3 *db, const struct capture_meta *m, const struct window *w,
		   struct net_figs *f)
{
	struct net_tables n = {0};
	struct probe_info p;
	int err;

	memset(f, 0, sizeof(*f));
	err = probe__lookup(db, m->cap, "net", &p);
	err = err ?: tables_build(db, m, w, !strcmp(p.source, "ebpf"), &n);
	err = err ?: connects_load(db, m, w, f);
	if (!err) {
		f->ebpf = !strcmp(p.source, "ebpf");
		if (f->ebpf)
			length_lane(db, m->cap, f->no_bytes, sizeof(f->no_bytes));
		figs_of(&n, f);
	}
	tables_free(&n);
	return err;
}

static int net_body(const struct report_ctx *ctx)
{
	sqlite3 *db = ctx->db;
	const struct report_opts *o = ctx->o;
	FILE *out = ctx->out;
	const struct capture_meta m = *ctx->m;
	struct json *j = ctx->j;
	struct net_tables n = {0};
	struct net_figs f = {0};
	uint64_t tx, rx, p50 = 0;
	bool has_tx, has_rx, ebpf;
	char w[96], a[32], b[32], c[32];
	size_t top = o->top ? o->top : NET_TOP_DEFAULT;
	int err;

	err = tables_build(db, &m, &o->win, !strcmp(ctx->probe->source, "ebpf"), &n);
	err = err ?: connects_load(db, &m, &o->win, &f);
	if (err)
		goto cleanup;
	tx = col_sum(n.bytes, C_TX, &has_tx);
	rx = col_sum(n.bytes, C_RX, &has_rx);
	figs_of(&n, &f);
	ebpf = !strcmp(ctx->probe->source, "ebpf");
	if (ebpf)
		length_lane(db, m.cap, f.no_bytes, sizeof(f.no_bytes));
	if (f.connects)
		hist_percentile(f.connect_hist, HIST_BUCKETS, 50, &p50, NULL, NULL);
	switch (o->fmt) {
	case OUT_TEXT:
		window__describe(&o->win, w, sizeof(w));
		fprintf(out, "net (%s): %zu sockets, sent %s, received %s  [source: %s]\n", w,
			table__rows(n.bytes), has_tx ? fmt_bytes(a, sizeof(a), tx) : "not measured",
			has_rx ? fmt_bytes(b, sizeof(b), rx) : "not measured",
			strcmp(ctx->probe->source, "ebpf") ? "/proc only: no byte counts, no errors"
						 : "eBPF + /proc");
		if (f.no_bytes[0])
			fprintf(out, "%s\n", f.no_bytes);
		if (ebpf && f.connects)
			fprintf(out, "connects: %" PRIu64 " established, latency p50 %s (log2 bucket), "
				"max %s; retransmits %" PRIu64 "\n",
				f.connects, fmt_ns(a, sizeof(a), p50),
				fmt_ns(b, sizeof(b), f.connect_max_ns), f.retransmits);
		else if (ebpf)
			fprintf(out, "connects: none established; retransmits %" PRIu64 "\n",
				f.retransmits);
		(void)c;
		report__drops(NULL, out, o, "net", ctx->drops, ctx->ndrops);
		err = section(out, "connections by bytes", n.bytes, sock_cols, conn_show,
			      NSHOW(conn_show), "no socket", top);
		err = err ?: section(out, "connections by errors", n.errors, sock_cols, conn_show,
				     NSHOW(conn_show),
				     strcmp(ctx->probe->source, "ebpf") ? "not measured (/proc lane)"
							      : "no errors",
				     top);
		err = err ?: section(out, "listening sockets", n.listen, sock_cols, listen_show,
				     NSHOW(listen_show), "none", top);
		if (!err)
			peers_text(out, n.peers, top);
		err = err ?: section(out, "errors by kind", n.kinds, kind_cols, NULL, 0,
				     strcmp(ctx->probe->source, "ebpf") ? "not measured (/proc lane)" : "none",
				     top);
		err = err ?: section(out, "error events", n.events, event_cols, NULL, 0,
				     strcmp(ctx->probe->source, "ebpf") ? "not measured (/proc lane)" : "none",
				     top);
		err = err ?: section(out, "state changes (TCP): the first since the start, then "
					  "+since the one before",
				     n.timelines, tl_cols, tl_show, NSHOW(tl_show),
				     strcmp(ctx->probe->source, "ebpf") ? "not measured (/proc lane)" : "none",
				     top);
		break;
	case OUT_CSV:
		report__drops(NULL, out, o, "net", ctx->drops, ctx->ndrops);
		err = table__print_cols(n.bytes, out, OUT_CSV, conn_csv, NSHOW(conn_csv));
		break;
	case OUT_JSON:
		json__kv_bool(j, "collected", true);
		json__kv_string(j, "source", ctx->probe->source);
		json__kv_string(j, "bytes_not_measured", f.no_bytes[0] ? f.no_bytes : NULL);
		report__drops(j, out, o, "net", ctx->drops, ctx->ndrops);
		json__key(j, "totals");
		json__begin_object(j);
		json__key(j, "sockets");
		json__uint(j, table__rows(n.bytes));
		json__key(j, "tx_bytes");
		if (has_tx)
			json__uint(j, tx);
		else
			json__null(j);
		json__key(j, "rx_bytes");
		if (has_rx)
			json__uint(j, rx);
		else
			json__null(j);
		/* eBPF lane only: null (not measured) under the /proc lane */
		json__key(j, "retransmits");
		if (ebpf)
			json__uint(j, f.retransmits);
		else
			json__null(j);
		json__key(j, "connects");
		if (ebpf)
			json__uint(j, f.connects);
		else
			json__null(j);
		json__key(j, "connect_p50_ns"); /* the log2 bucket's estimate */
		if (ebpf && f.connects)
			json__uint(j, p50);
		else
			json__null(j);
		json__key(j, "connect_max_ns");
		if (ebpf && f.connects)
			json__uint(j, f.connect_max_ns);
		else
			json__null(j);
		json__end_object(j);
		json__key(j, "connections");
		table__json(n.bytes, j, conn_show, NSHOW(conn_show));
		json__key(j, "by_errors");
		table__json(n.errors, j, conn_show, NSHOW(conn_show));
		json__key(j, "listening");
		table__json(n.listen, j, listen_show, NSHOW(listen_show));
		json__key(j, "peers");
		table__json(n.peers, j, NULL, 0);
		json__key(j, "errors");
		table__json(n.kinds, j, NULL, 0);
		json__key(j, "error_events");
		table__json(n.events, j, NULL, 0);
		json__key(j, "state_changes");
		table__json(n.timelines, j, NULL, 0);
		json__end_object(j);
		err = json__end(j);
		break;
	}
cleanup:
	tables_free(&n);
	return err;
}

static const struct an_report net_report = {
    .name = "net",
    .order = 150,
    .summary = "the target's sockets: connections by bytes and by errors,\n"
	       "listening sockets, peers by remote address, refused, reset and\n"
	       "timeout counts, connect latency, TCP state timelines",
    .tables = "net_socket,net_error,net_state",
    .top = "the first N rows of each list of the text (default 20)",
    .probe = "net",
	.drops = "net",
	.body = net_body,
};

const struct an_report *const net_reports[] = {
    &net_report,
    NULL,
};
