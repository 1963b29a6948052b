/* figures.c — the tls collector's figures (analyze/figures.h), from tls_rows__totals
 * (report.c), the totals `report tls` prints: the write and read calls and bytes over the
 * window, the calls per second (a counted rate: diff tests two Poisson rates), and the mean
 * latency of each direction. Not measured when no libssl was attached. */
#include <string.h>

#include "analyze/figures.h"
#include "analyze/part.h"
#include "collectors/tls/report.h"

static int compute(struct fig_ctx *c, const struct an_figure *f, struct fig_family *fam)
{
	struct tls_totals tt;
	int dir = strstr(f->name, "read") ? 1 : 0;
	int err = tls_rows__totals(c->db, c->m, &c->w, &tt);

	if (err)
		return err;
	if (!tt.attached) {
		fig_family__not_measured(fam, "no libssl was attached: the target mapped none");
		return 0;
	}
	if (f->unit == FIG_BYTES)
		return fig_family__add(fam, NULL, (double)tt.bytes[dir], tt.calls[dir]);
	if (f->unit == FIG_COUNT)
		return fig_family__add(fam, NULL, (double)tt.calls[dir], tt.calls[dir]);
	if (f->unit == FIG_NS) {
		if (!tt.calls[dir]) {
			fig_family__not_measured(fam, "no %s call in the window",
						 dir ? "SSL_read" : "SSL_write");
			return 0;
		}
		return fig_family__add(fam, NULL, (double)tt.lat_ns[dir] / (double)tt.calls[dir],
				       tt.calls[dir]);
	}
	if (!(c->span_s > 0)) {
		fig_family__not_measured(fam, "the window holds no time of the capture");
		return 0;
	}
	fam->exposure_s = c->span_s;
	return fig_family__add(fam, NULL, (double)(tt.calls[0] + tt.calls[1]) / c->span_s,
			       tt.calls[0] + tt.calls[1]);
}

static const struct an_figure write_calls = {
	"tls.write_calls", "tls", FIG_COUNT, false, false, FIG_TEST_NONE,
	"SSL_write/SSL_write_ex calls returned over the window", compute,
};
static const struct an_figure write_bytes = {
	"tls.write_bytes", "tls", FIG_BYTES, false, false, FIG_TEST_NONE,
	"plaintext bytes written by SSL_write/SSL_write_ex over the window", compute,
};
static const struct an_figure read_calls = {
	"tls.read_calls", "tls", FIG_COUNT, false, false, FIG_TEST_NONE,
	"SSL_read/SSL_read_ex calls returned over the window", compute,
};
static const struct an_figure read_bytes = {
	"tls.read_bytes", "tls", FIG_BYTES, false, false, FIG_TEST_NONE,
	"plaintext bytes read by SSL_read/SSL_read_ex over the window", compute,
};
static const struct an_figure call_rate = {
	"tls.call_rate", "tls", FIG_RATE, false, false, FIG_TEST_POISSON,
	"SSL_write and SSL_read calls (and _ex) per second of the window", compute,
};
static const struct an_figure write_latency = {
	"tls.write_latency_mean", "tls", FIG_NS, true, false, FIG_TEST_NONE,
	"the mean time from entry to return of an SSL_write(_ex)", compute,
};
static const struct an_figure read_latency = {
	"tls.read_latency_mean", "tls", FIG_NS, true, false, FIG_TEST_NONE,
	"the mean time from entry to return of an SSL_read(_ex) (includes waiting for data)",
	compute,
};

const struct an_figure *const tls_figures[] = { &write_calls, &write_bytes, &read_calls,
						&read_bytes, &call_rate, &write_latency,
						&read_latency, NULL };
