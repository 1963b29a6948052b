/* view.c — the net collector's replay tab, "Network" (`replay --tab network`): the sockets
 * of the interval that ended by the playback position (bytes of that interval, state,
 * queues), the errors so far, and the history of bytes sent and received per interval as
 * sparklines; its line in the Overview. It takes the core's Network placeholder's place.
 *
 * The drill-down (Enter) shows one socket's intervals and its TCP state changes up to the
 * position (net_state, as `report net` prints them).
 *
 * The view reads net_socket and net_error from the model's DB at each draw, seeks on their
 * time indexes, with statements prepared once when the model opens (net_replay: its state).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/replay_views.h"
#include "collectors/net/report.h"

enum { NET_HIST, NET_ROWS, NET_SOCK, NET_SOCK_ERRS, NET_ERRS, NET_NSQL };

static const char *const net_sql[NET_NSQL] = {
    /* The intervals ending at or before the position, newest first: their sums. */
    [NET_HIST] = "SELECT time_ns, sum(tx_bytes), sum(rx_bytes), count(*) FROM net_socket "
		 "WHERE cap = ?1 AND time_ns <= ?2 GROUP BY time_ns ORDER BY time_ns DESC LIMIT ?3",
    /* The sockets of the interval ending at ?2. */
    [NET_ROWS] =
	"SELECT proto, local, remote, state, tx_bytes, rx_bytes, tx_queue, rx_queue, fd, sock "
	"FROM net_socket WHERE cap = ?1 AND time_ns = ?2 "
	"ORDER BY COALESCE(tx_bytes, 0) + COALESCE(rx_bytes, 0) DESC, rowid LIMIT ?3 OFFSET ?4",
    /* One socket's intervals ending at or before the position, newest first (the drill-down). */
    [NET_SOCK] =
	"SELECT time_ns, proto, local, remote, state, tx_bytes, rx_bytes, tx_queue, rx_queue, "
	"srtt_us, connect_ns FROM net_socket WHERE cap = ?1 AND sock = ?2 AND time_ns <= ?3 "
	"ORDER BY time_ns DESC LIMIT ?4",
    [NET_SOCK_ERRS] =
	"SELECT kind, sum(count) FROM net_error WHERE cap = ?1 AND sock = ?2 AND time_ns <= ?3 "
	"GROUP BY kind ORDER BY kind",
    [NET_ERRS] = "SELECT kind, sum(count) FROM net_error WHERE cap = ?1 AND time_ns <= ?2 "
		 "GROUP BY kind ORDER BY sum(count) DESC, kind",
};

/* The view's state in the replay model (net_replay): its statements. */
struct net_view_state {
	sqlite3_stmt *st[NET_NSQL];
};

static int net_open(struct replay_model *m, void *state)
{
	replay_model__prepare_each(m, net_sql, NET_NSQL, ((struct net_view_state *)state)->st);
	return 0;
}

static void net_free(void *state)
{
	rm_finalize_each(((struct net_view_state *)state)->st, NET_NSQL);
}

/* the view's statements live in the model, prepared once when it opens. It declares no
 * interval ends: net_socket has a row per socket and interval, so its distinct times cost a
 * scan of every row at open (4.8 ms CPU for bench_replay's 28,800 rows; an hour at 1,000
 * sockets an interval would take about 0.6 s), and its polls are cpu's and io's, which
 * step the arrows */
/* the timeline's net errors (net_error: counts per socket, kind and interval, at the newest
 * such error; a retransmit at the poll): one event each, "refused x3 tcp A -> B" */
static int net_events(struct replay_model *m, const void *state)
{
	static const char sql[] =
	    "SELECT time_ns - ?2, 0, 'net ' || kind, pid, "
	    "printf('%s x%d %s %s -> %s%s', kind, count, proto, local, remote, "
	    "CASE WHEN err IS NULL THEN '' ELSE printf(' (errno %d)', err) END) "
	    "FROM net_error WHERE cap = ?1 AND count > 0 ORDER BY time_ns, rowid";

	(void)state;
	return replay_model__events_sql(m, sql);
}

const struct replay_series net_replay = {
    .what = "net statements",
    .state_size = sizeof(struct net_view_state),
    .open = net_open,
    .free = net_free,
    .events = net_events,
};

/* statement I of the view's state, reset for a run; NULL when it did not prepare */
static sqlite3_stmt *net_st(const struct replay_model *m, int i)
{
	return rm_again(((struct net_view_state *)replay_model__state(m, "net"))->st[i]);
}

struct net_at {
	int64_t t;		   /* the newest interval's end (absolute); 0: none yet */
	int64_t socks;		   /* its sockets */
	int64_t tx, rx;		   /* its bytes; -1: not measured */
	double *tx_hist, *rx_hist; /* oldest first (malloc'd) */
	size_t n;
	double max;
};

static int net_at(struct replay_model *m, size_t n, struct net_at *a)
{
	sqlite3_stmt *st = NULL;
	int rc, err = 0;

	*a = (struct net_at){.tx = -1, .rx = -1};
	a->tx_hist = calloc(n ? n : 1, sizeof(double));
	a->rx_hist = calloc(n ? n : 1, sizeof(double));
	if (!a->tx_hist || !a->rx_hist)
		return -ENOMEM;
	st = net_st(m, NET_HIST);
	if (!st)
		return -EIO;
	sqlite3_bind_int64(st, 2, m->meta.base_ns + m->pos_ns);
	sqlite3_bind_int64(st, 3, (int64_t)n);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		double tx = sqlite3_column_double(st, 1), rx = sqlite3_column_double(st, 2);

		if (!a->n) {
			a->t = sqlite3_column_int64(st, 0);
			a->socks = sqlite3_column_int64(st, 3);
			if (sqlite3_column_type(st, 1) != SQLITE_NULL)
				a->tx = sqlite3_column_int64(st, 1);
			if (sqlite3_column_type(st, 2) != SQLITE_NULL)
				a->rx = sqlite3_column_int64(st, 2);
		}
		a->tx_hist[a->n] = tx;
		a->rx_hist[a->n] = rx;
		if (tx > a->max)
			a->max = tx;
		if (rx > a->max)
			a->max = rx;
		a->n++;
	}
	if (rc != SQLITE_DONE)
		err = -EIO;
	sqlite3_reset(st);
	for (size_t i = 0; i < a->n / 2; i++) { /* the sparklines draw the oldest first */
		double t = a->tx_hist[i];

		a->tx_hist[i] = a->tx_hist[a->n - 1 - i];
		a->tx_hist[a->n - 1 - i] = t;
		t = a->rx_hist[i];
		a->rx_hist[i] = a->rx_hist[a->n - 1 - i];
		a->rx_hist[a->n - 1 - i] = t;
	}
	return err;
}

static void net_at_free(struct net_at *a)
{
	free(a->tx_hist);
	free(a->rx_hist);
}

static const char *opt_bytes(char *buf, size_t len, sqlite3_stmt *st, int col)
{
	if (sqlite3_column_type(st, col) == SQLITE_NULL)
		return "-";
	return replay__bytes(buf, len, sqlite3_column_int64(st, col));
}

/* The socket drilled into (ui->drill: its key), its intervals up to the position: bytes
 * sent and received as sparklines, then a row per interval, the newest first. */
static void draw_sock(struct replay_model *m, struct replay_ui *ui, struct grid *g, int x, int y,
		      int w, int h)
{
	int64_t pos = m->meta.base_ns + m->pos_ns, key = strtoll(ui->drill, NULL, 10);
	size_t cap = (size_t)(w > 12 ? w - 12 : 1), n = 0;
	double *tx = calloc(cap, sizeof(double)), *rx = calloc(cap, sizeof(double)), max = 0;
	char buf[512], b1[32], b2[32], at[32];
	sqlite3_stmt *st = NULL;
	int row = y, bottom = y + h, info_row = y;
	double connect = -1;
	int64_t srtt = -1;

	if (!tx || !rx || !(st = net_st(m, NET_SOCK))) {
		grid__text(g, x, row, w, "net: cannot read net_socket", 0, GC_WARN);
		goto out;
	}
	sqlite3_bind_int64(st, 2, key);
	sqlite3_bind_int64(st, 3, pos);
	sqlite3_bind_int64(st, 4, (int64_t)cap);
	while (sqlite3_step(st) == SQLITE_ROW) {
		double t = sqlite3_column_double(st, 5), r = sqlite3_column_double(st, 6);

		if (!n) {
			grid__textf(g, x, row++, w, GA_BOLD, GC_DEFAULT,
				    "%s %s -> %s  %s  (Esc: back)",
				    (const char *)sqlite3_column_text(st, 1),
				    (const char *)sqlite3_column_text(st, 2),
				    (const char *)sqlite3_column_text(st, 3),
				    (const char *)sqlite3_column_text(st, 4));
			info_row = row++;
		}
		if (connect < 0 && sqlite3_column_type(st, 10) != SQLITE_NULL)
			connect = sqlite3_column_double(st, 10);
		if (srtt < 0 && sqlite3_column_type(st, 9) != SQLITE_NULL)
			srtt = sqlite3_column_int64(st, 9);
		tx[n] = t;
		rx[n] = r;
		if (t > max)
			max = t;
		if (r > max)
			max = r;
		n++;
	}
	sqlite3_reset(st);
	st = NULL;
	if (!n) {
		grid__textf(g, x, row, w, 0, GC_MUTED,
			    "socket %s: no interval by this position "
			    "(Esc: back)",
			    ui->drill);
		goto out;
	}
	snprintf(b1, sizeof(b1), connect < 0 ? "-" : "%.1f us", connect / 1e3);
	snprintf(b2, sizeof(b2), srtt < 0 ? "-" : "%lld us", (long long)srtt);
	snprintf(buf, sizeof(buf), "connect %s   srtt %s (newest)", b1, b2);
	grid__text(g, x, info_row, w, buf, 0, GC_DEFAULT);
	{ /* its TCP state changes up to the position */
		char tl[1024];
		size_t nch = 0;

		if (net_timeline__format(m->db, m->meta.cap, key, 0, pos + 1, m->meta.base_ns, tl,
					 sizeof(tl), &nch))
			snprintf(tl, sizeof(tl), "cannot read net_state");
		grid__text(g, x, row, 8, "states", 0, GC_MUTED);
		row += replay__wrapped(g, x + 8, row, w - 8, bottom - row > 3 ? 3 : 1,
				       nch ? tl : "no change recorded", 0, GC_DEFAULT);
	}
	for (size_t i = 0; i < n / 2; i++) { /* oldest first */
		double t = tx[i];

		tx[i] = tx[n - 1 - i];
		tx[n - 1 - i] = t;
		t = rx[i];
		rx[i] = rx[n - 1 - i];
		rx[n - 1 - i] = t;
	}
	grid__text(g, x, row, 10, "sent", 0, GC_MUTED);
	grid__sparkline(g, x + 10, row++, w - 12, tx, n, max, GC_GOOD);
	grid__text(g, x, row, 10, "received", 0, GC_MUTED);
	grid__sparkline(g, x + 10, row++, w - 12, rx, n, max, GC_GOOD);
	if ((st = net_st(m, NET_SOCK_ERRS))) {
		size_t off = (size_t)snprintf(buf, sizeof(buf), "errors so far:");

		sqlite3_bind_int64(st, 2, key);
		sqlite3_bind_int64(st, 3, pos);
		while (sqlite3_step(st) == SQLITE_ROW && off < sizeof(buf))
			off += (size_t)snprintf(buf + off, sizeof(buf) - off, " %s %lld",
						(const char *)sqlite3_column_text(st, 0),
						(long long)sqlite3_column_int64(st, 1));
		if (off == strlen("errors so far:"))
			snprintf(buf, sizeof(buf), "errors so far: none");
		grid__text(g, x, row++, w, buf, 0, GC_DEFAULT);
		sqlite3_reset(st);
		st = NULL;
	}
	row++;
	grid__textf(g, x, row++, w, GA_BOLD, GC_TITLE, "%-12s %-12s %12s %12s %8s %8s",
		    "interval end", "state", "sent", "received", "txq", "rxq");
	if (!(st = net_st(m, NET_SOCK)))
		goto out;
	sqlite3_bind_int64(st, 2, key);
	sqlite3_bind_int64(st, 3, pos);
	sqlite3_bind_int64(st, 4, bottom - row > 0 ? bottom - row : 0);
	while (row < bottom && sqlite3_step(st) == SQLITE_ROW) {
		char txq[24] = "-", rxq[24] = "-";

		if (sqlite3_column_type(st, 7) != SQLITE_NULL)
			snprintf(txq, sizeof(txq), "%lld", (long long)sqlite3_column_int64(st, 7));
		if (sqlite3_column_type(st, 8) != SQLITE_NULL)
			snprintf(rxq, sizeof(rxq), "%lld", (long long)sqlite3_column_int64(st, 8));
		grid__textf(
		    g, x, row++, w, 0, GC_DEFAULT, "%-12s %-12.12s %12s %12s %8s %8s",
		    replay__fmt_pos(at, sizeof(at), sqlite3_column_int64(st, 0) - m->meta.base_ns),
		    (const char *)sqlite3_column_text(st, 4), opt_bytes(b1, sizeof(b1), st, 5),
		    opt_bytes(b2, sizeof(b2), st, 6), txq, rxq);
	}
out:
	rm_again(st);
	free(tx);
	free(rx);
}

static void draw_net(struct replay_model *m, struct replay_ui *ui, struct grid *g, int x, int y,
		     int w, int h)
{
	char buf[512], pos[32], b1[32], b2[32], b3[32], b4[32];
	sqlite3_stmt *st = NULL;
	struct net_at a;
	int row = y, bottom = y + h;

	grid__text(g, x, row++, w,
		   "Sockets of the target  [eBPF sock/tcp tracepoints, /proc/PID/net]",
		   GA_BOLD | GA_UNDERLINE, GC_TITLE);
	row++;
	if (replay__not_collected(m, "net", buf, sizeof(buf))) {
		replay__wrapped(g, x, row, w, h - 2, buf, 0, GC_MUTED);
		return;
	}
	if (*ui->drill) {
		draw_sock(m, ui, g, x, row, w, bottom - row);
		return;
	}
	if (net_at(m, (size_t)(w > 12 ? w - 12 : 1), &a)) {
		grid__text(g, x, row, w, "net: cannot read net_socket", 0, GC_WARN);
		net_at_free(&a);
		return;
	}
	if (!a.n) {
		grid__text(g, x, row, w, "no net sample yet", 0, GC_MUTED);
		net_at_free(&a);
		return;
	}
	grid__textf(g, x, row++, w, GA_BOLD, GC_DEFAULT,
		    "%" PRId64 " sockets   sent %s   received %s   (interval ending at %s)",
		    a.socks, a.tx < 0 ? "not measured" : replay__bytes(b1, sizeof(b1), a.tx),
		    a.rx < 0 ? "not measured" : replay__bytes(b2, sizeof(b2), a.rx),
		    replay__fmt_pos(pos, sizeof(pos), a.t - m->meta.base_ns));
	grid__text(g, x, row, 10, "sent", 0, GC_MUTED);
	grid__sparkline(g, x + 10, row++, w - 12, a.tx_hist, a.n, a.max, GC_GOOD);
	grid__text(g, x, row, 10, "received", 0, GC_MUTED);
	grid__sparkline(g, x + 10, row++, w - 12, a.rx_hist, a.n, a.max, GC_GOOD);
	row++;
	/* the errors so far */
	if ((st = net_st(m, NET_ERRS))) {
		size_t off = 0;

		sqlite3_bind_int64(st, 2, m->meta.base_ns + m->pos_ns);
		off += (size_t)snprintf(buf, sizeof(buf), "errors so far:");
		while (sqlite3_step(st) == SQLITE_ROW && off < sizeof(buf))
			off += (size_t)snprintf(buf + off, sizeof(buf) - off, " %s %" PRId64,
						(const char *)sqlite3_column_text(st, 0),
						(int64_t)sqlite3_column_int64(st, 1));
		if (off == strlen("errors so far:"))
			snprintf(buf, sizeof(buf), "errors so far: none");
		grid__text(g, x, row++, w, buf, 0, GC_DEFAULT);
		sqlite3_reset(st);
		st = NULL;
	}
	grid__text(g, x, row++, w,
		   "the sockets of that interval, by bytes: Up/Down select, Enter its "
		   "intervals",
		   0, GC_MUTED);
	grid__textf(g, x, row++, w, GA_BOLD, GC_TITLE, "%-5s %-24s %-24s %-12s %9s %9s %8s %8s %4s",
		    "proto", "local", "remote", "state", "sent", "received", "txq", "rxq", "fd");
	if (!(st = net_st(m, NET_ROWS)))
		goto out;
	sqlite3_bind_int64(st, 2, a.t);
	if (ui->scroll < 0 || ui->scroll >= a.socks)
		ui->scroll = a.socks > 0 ? (int)a.socks - 1 : 0;
	sqlite3_bind_int64(st, 3, bottom - row > 0 ? bottom - row : 0);
	sqlite3_bind_int64(st, 4, ui->scroll);
	ui->selected[0] = 0;
	while (row < bottom && sqlite3_step(st) == SQLITE_ROW) {
		char fd[16] = "-", txq[24] = "-", rxq[24] = "-";

		uint8_t attr = 0;

		if (!ui->selected[0]) { /* the top row: Enter shows its intervals */
			snprintf(ui->selected, sizeof(ui->selected), "%lld",
				 (long long)sqlite3_column_int64(st, 9));
			attr = GA_REVERSE;
		}

		if (sqlite3_column_type(st, 8) != SQLITE_NULL)
			snprintf(fd, sizeof(fd), "%d", sqlite3_column_int(st, 8));
		if (sqlite3_column_type(st, 6) != SQLITE_NULL)
			snprintf(txq, sizeof(txq), "%" PRId64,
				 (int64_t)sqlite3_column_int64(st, 6));
		if (sqlite3_column_type(st, 7) != SQLITE_NULL)
			snprintf(rxq, sizeof(rxq), "%" PRId64,
				 (int64_t)sqlite3_column_int64(st, 7));
		grid__textf(g, x, row++, w, attr, GC_DEFAULT,
			    "%-5s %-24.24s %-24.24s %-12.12s %9s %9s %8s %8s %4s",
			    (const char *)sqlite3_column_text(st, 0),
			    (const char *)sqlite3_column_text(st, 1),
			    (const char *)sqlite3_column_text(st, 2),
			    (const char *)sqlite3_column_text(st, 3),
			    opt_bytes(b3, sizeof(b3), st, 4), opt_bytes(b4, sizeof(b4), st, 5), txq,
			    rxq, fd);
	}
	sqlite3_reset(st);
out:
	net_at_free(&a);
}

/* Its line in the Overview: "N sockets, sent X, received Y this interval" */
static int net_overview_line(struct replay_model *m, char *buf, size_t len)
{
	char b1[32], b2[32];
	struct net_at a;
	int err = net_at(m, 1, &a);

	if (err)
		snprintf(buf, len, "cannot read net_socket");
	else if (!a.n)
		snprintf(buf, len, "no sample yet");
	else
		snprintf(buf, len, "%" PRId64 " sockets, sent %s, received %s this interval",
			 a.socks, a.tx < 0 ? "-" : replay__bytes(b1, sizeof(b1), a.tx),
			 a.rx < 0 ? "-" : replay__bytes(b2, sizeof(b2), a.rx));
	net_at_free(&a);
	return GC_DEFAULT;
}

static const struct replay_view net_view = {
    .name = "Network",
    .id = "network", /* the core's placeholder gives way */
    .position = 30,
    .probe = "net",
    .source = "net_socket, net_error (eBPF sock/tcp tracepoints; /proc/PID/net)",
    .draw = draw_net,
    .on_key = replay__drill_key, /* Enter: the top row's intervals; Esc: back */
    .overview_line = net_overview_line,
};

const struct replay_view *const net_views[] = {
    &net_view,
    NULL,
};
