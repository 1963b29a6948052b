/* figures.c — the threads collector's figures (analyze/figures.h) for `figures` and `diff`,
 * from thr_rows__load (report.c), the rows `report threads` prints: the threads' on-CPU
 * time, their time runnable waiting for a CPU, blocked uninterruptibly, and their switch
 * rates. The eBPF lane's figures are "not measured" where it did not run. */
#include <string.h>

#include "analyze/figures.h"
#include "analyze/part.h"
#include "collectors/threads/report.h"

static int compute(struct fig_ctx *c, const struct an_figure *f, struct fig_family *fam)
{
	struct thr_rows r;
	int64_t on = 0, run = 0, blk = 0, vol = 0, invol = 0;
	size_t n;
	int err = thr_rows__load(c->db, c->m, &c->w, &r);

	if (err)
		return err;
	if (!r.n) {
		thr_rows__free(&r);
		fig_family__not_measured(fam, "no thread interval in the window");
		return 0;
	}
	if (strcmp(f->name, "threads.count") && !r.ebpf) {
		thr_rows__free(&r);
		fig_family__not_measured(fam, "the threads eBPF lane did not run (the /proc lane "
					      "has no on/off-CPU split)");
		return 0;
	}
	for (size_t i = 0; i < r.n; i++) {
		const struct thr_row *x = &r.v[i];

		on += x->oncpu_ns > 0 ? x->oncpu_ns : 0;
		run += x->runnable_ns > 0 ? x->runnable_ns : 0;
		blk += x->blocked_ns > 0 ? x->blocked_ns : 0;
		vol += x->voluntary > 0 ? x->voluntary : 0;
		invol += x->involuntary > 0 ? x->involuntary : 0;
	}
	n = r.n;
	thr_rows__free(&r);
	if (!strcmp(f->name, "threads.count"))
		return fig_family__add(fam, NULL, (double)n, n);
	if (!strcmp(f->name, "threads.oncpu_ns"))
		return fig_family__add(fam, NULL, (double)on, 0);
	if (!strcmp(f->name, "threads.runnable_ns"))
		return fig_family__add(fam, NULL, (double)run, 0);
	if (!strcmp(f->name, "threads.blocked_ns"))
		return fig_family__add(fam, NULL, (double)blk, 0);
	if (!(c->span_s > 0)) {
		fig_family__not_measured(fam, "the window holds no time of the capture");
		return 0;
	}
	fam->exposure_s = c->span_s;
	if (!strcmp(f->name, "threads.involuntary_rate"))
		return fig_family__add(fam, NULL, (double)invol / c->span_s, (uint64_t)invol);
	return fig_family__add(fam, NULL, (double)(vol + invol) / c->span_s,
			       (uint64_t)(vol + invol));
}

static const struct an_figure count = {
	"threads.count", "threads", FIG_COUNT, false, false, FIG_TEST_NONE,
	"threads seen in the window", compute,
};
static const struct an_figure oncpu = {
	"threads.oncpu_ns", "threads", FIG_NS, true, false, FIG_TEST_NONE,
	"on-CPU time of the threads (sched_switch)", compute,
};
static const struct an_figure runnable = {
	"threads.runnable_ns", "threads", FIG_NS, true, false, FIG_TEST_NONE,
	"time the threads were runnable, waiting for a CPU", compute,
};
static const struct an_figure blocked = {
	"threads.blocked_ns", "threads", FIG_NS, true, false, FIG_TEST_NONE,
	"time the threads were blocked uninterruptibly (D)", compute,
};
static const struct an_figure switch_rate = {
	"threads.switch_rate", "threads", FIG_RATE, true, false, FIG_TEST_POISSON,
	"context switches (voluntary and involuntary) per second", compute,
};
static const struct an_figure invol_rate = {
	"threads.involuntary_rate", "threads", FIG_RATE, true, false, FIG_TEST_POISSON,
	"involuntary context switches (preemptions) per second", compute,
};

const struct an_figure *const threads_figures[] = { &count,	  &oncpu,    &runnable, &blocked,
						    &switch_rate, &invol_rate, NULL };
