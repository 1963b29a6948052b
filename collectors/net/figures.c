/* figures.c — the net collector's figures (analyze/figures.h): bytes sent and received, the
 * sockets, errors by kind, retransmits, and the TCP connect latency (median and largest) of
 * a window, from net_figs__load (report.c): the sums and counts `report net` prints. Bytes,
 * errors, retransmits and connects are the eBPF lane's: under the /proc lane alone they are
 * not measured (never 0). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/figures.h"
#include "analyze/part.h"
#include "collectors/net/report.h"

static int compute(struct fig_ctx *c, const struct an_figure *f, struct fig_family *fam)
{
	struct net_figs *n = fig_ctx__get(c, "net");
	const char *name = f->name + strlen("net.");
	int err;

	if (!n) {
		n = calloc(1, sizeof(*n));
		if (!n)
			return -ENOMEM;
		err = net_figs__load(c->db, c->m, &c->w, n);
		if (err) {
			free(n);
			return err;
		}
		err = fig_ctx__put(c, "net", n, free);
		if (err)
			return err;
	}
	if (!strcmp(name, "sockets"))
		return fig_family__add(fam, NULL, (double)n->sockets, 0);
	if (!n->ebpf) {
		fig_family__not_measured(fam, "the /proc lane alone counts no bytes, errors or "
					      "connects (--no-ebpf, or eBPF unavailable)");
		return 0;
	}
	if (n->no_bytes[0] && (!strcmp(name, "tx_bytes") || !strcmp(name, "rx_bytes"))) {
		fig_family__not_measured(fam, "%s", n->no_bytes);
		return 0;
	}
	if (!strcmp(name, "tx_bytes"))
		return fig_family__add(fam, NULL, (double)n->tx, 0);
	if (!strcmp(name, "rx_bytes"))
		return fig_family__add(fam, NULL, (double)n->rx, 0);
	if (!strcmp(name, "retransmits"))
		return fig_family__add(fam, NULL, (double)n->retransmits, 0);
	if (!strcmp(name, "connections"))
		return fig_family__add(fam, NULL, (double)n->connects, 0);
	if (!strcmp(name, "errors(*)")) {
		/* every kind counted in the window is listed: one absent had none */
		for (size_t k = 0; k < n->nkinds; k++) {
			err = fig_family__add(fam, n->kinds[k].kind, (double)n->kinds[k].count, 0);
			if (err)
				return err;
		}
		return 0;
	}
	if (!n->connects) {
		fig_family__not_measured(fam, "no TCP connect established in the window");
		return 0;
	}
	if (!strcmp(name, "connect_max"))
		return fig_family__add(fam, NULL, (double)n->connect_max_ns, n->connects);
	{ /* connect_p50 */
		uint64_t est, lo;

		if (hist_percentile(n->connect_hist, HIST_BUCKETS, 50, &est, &lo, NULL)) {
			fig_family__not_measured(fam, "no TCP connect established in the window");
			return 0;
		}
		err = fig_family__add(fam, NULL, (double)est, n->connects);
		err = err ?: fig_family__set_hist(fam, n->connect_hist, 50);
		if (!err)
			fam->val[fam->n - 1].bucket = lo ? __builtin_ctzll(lo) : 0;
		return err;
	}
}

static const struct an_figure tx_bytes = {
	"net.tx_bytes", "net", FIG_BYTES, true, false, FIG_TEST_NONE,
	"bytes the target sent on its sockets in the window (eBPF lane)", compute,
};
static const struct an_figure rx_bytes = {
	"net.rx_bytes", "net", FIG_BYTES, true, false, FIG_TEST_NONE,
	"bytes the target received on its sockets in the window (eBPF lane)", compute,
};
static const struct an_figure sockets = {
	"net.sockets", "net", FIG_COUNT, true, false, FIG_TEST_NONE,
	"sockets of the target in the window (used, or open in its fd table)", compute,
};
static const struct an_figure connects = {
	"net.connections", "net", FIG_COUNT, true, false, FIG_TEST_NONE,
	"TCP connects that reached ESTABLISHED in the window", compute,
};
static const struct an_figure errors = {
	"net.errors(*)", "net", FIG_COUNT, true, false, FIG_TEST_NONE,
	"errors of kind NAME (refused, reset_by_peer, reset_sent, timeout, unreachable, error)",
	compute,
};
static const struct an_figure retransmits = {
	"net.retransmits", "net", FIG_COUNT, true, false, FIG_TEST_NONE,
	"TCP retransmits on the target's sockets in the window", compute,
};
/* Loopback connects take 10-50 us and move by as much between identical runs: a change
 * of less than 10 us is not claimed. */
static const struct an_figure connect_p50 = {
	"net.connect_p50", "net", FIG_NS, true, false, FIG_TEST_BUCKET,
	"median TCP connect latency, SYN_SENT to ESTABLISHED (log2 bucket)", compute,
	.resolution = 10000,
};
static const struct an_figure connect_max = {
	"net.connect_max", "net", FIG_NS, true, false, FIG_TEST_NONE,
	"largest TCP connect latency of the window", compute,
	.resolution = 10000,
};

const struct an_figure *const net_figures[] = {
	&tx_bytes, &rx_bytes, &sockets, &connects, &errors, &retransmits, &connect_p50,
	&connect_max, NULL,
};
