/* figures.c — the signals collector's figures (analyze/figures.h): per signal, the count sent
 * to the target's threads over the window and per second, and the fatal deliveries; from
 * signals_sum__load (report.c), the sums `report signals` prints. Of the /proc lane (without
 * eBPF), which counts no signal: not measured. */
#include <string.h>

#include "analyze/figures.h"
#include "analyze/part.h"
#include "collectors/signals/report.h"

static int compute(struct fig_ctx *c, const struct an_figure *f, struct fig_family *fam)
{
	bool rate = !strcmp(f->name, "signals.rate(*)");
	bool fatal = !strcmp(f->name, "signals.fatal");
	struct signals_sum s;
	struct probe_info pi;
	uint64_t nf = 0;
	int err;

	err = probe__lookup(c->db, c->m->cap, "signals", &pi);
	if (err)
		return err;
	if (!strcmp(pi.source, "proc")) {
		fig_family__not_measured(fam, "the /proc lane (eBPF lane off) shows the threads' "
					      "signal sets, not the signals sent or taken");
		return 0;
	}
	if (rate) {
		if (!(c->span_s > 0)) {
			fig_family__not_measured(fam, "the window holds no time of the capture");
			return 0;
		}
		fam->exposure_s = c->span_s;
	}
	err = signals_sum__load(c->db, c->m, &c->w, &s);
	for (size_t i = 0; !err && i < s.n; i++) {
		nf += s.by[i].fatal;
		if (!fatal && s.by[i].sent)
			err = fig_family__add(fam, s.by[i].name,
					      rate ? (double)s.by[i].sent / c->span_s
						   : (double)s.by[i].sent,
					      s.by[i].sent);
	}
	if (!err && fatal)
		err = fig_family__add(fam, NULL, (double)nf, nf);
	signals_sum__free(&s);
	return err;
}

static const struct an_figure sent = {
	"signals.sent(*)", "signals", FIG_COUNT, true, false, FIG_TEST_NONE,
	"signals SIG sent to the target's threads over the window (every one, whatever became of "
	"it)", compute,
};
static const struct an_figure rate = {
	"signals.rate(*)", "signals", FIG_RATE, true, false, FIG_TEST_POISSON,
	"the same per second of the window", compute,
};
static const struct an_figure fatal = {
	"signals.fatal", "signals", FIG_COUNT, true, false, FIG_TEST_NONE,
	"signals taken by the target's threads whose action was the default, fatal one", compute,
};

const struct an_figure *const signals_figures[] = { &sent, &rate, &fatal, NULL };
