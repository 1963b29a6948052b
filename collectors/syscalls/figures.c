/* figures.c — the syscalls collector's figures (analyze/figures.h): per syscall its rate and
 * its p50 and p99 latency, from syscalls__aggregate (report.c), the sums `report syscalls`
 * prints. The uprobe trampolines' syscalls (probe overhead) are left out. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/figures.h"
#include "analyze/part.h"
#include "collectors/syscalls/report.h"

struct sys_figs {
	struct syscall_agg *a;
	size_t n; /* the target's own */
};

static void figs_free(void *p)
{
	struct sys_figs *s = p;

	free(s->a);
	free(s);
}

static int compute(struct fig_ctx *c, const struct an_figure *f, struct fig_family *fam)
{
	struct sys_figs *s = fig_ctx__get(c, "syscalls");
	unsigned pct = !strcmp(f->name, "syscalls.p50(*)") ? 50 : 99;
	bool rate = !strcmp(f->name, "syscalls.rate(*)");
	int err = 0;

	if (!s) {
		s = calloc(1, sizeof(*s));
		if (!s)
			return -ENOMEM;
		err = syscalls__aggregate(c->db, c->m, &c->w, SORT_COUNT, &s->a, &s->n);
		if (err) {
			free(s);
			return err;
		}
		s->n = syscalls__split_probe(s->a, s->n);
		err = fig_ctx__put(c, "syscalls", s, figs_free);
		if (err)
			return err;
	}
	if (rate) {
		if (!(c->span_s > 0)) {
			fig_family__not_measured(fam, "the window holds no time of the capture");
			return 0;
		}
		fam->exposure_s = c->span_s;
	}
	/* every syscall the target made is counted: one not listed made no call */
	for (size_t k = 0; k < s->n && !err; k++) {
		const struct syscall_agg *a = &s->a[k];
		uint64_t est, lo;

		if (rate) {
			err = fig_family__add(fam, a->name, (double)a->count / c->span_s, a->count);
			continue;
		}
		if (hist_percentile(a->hist, HIST_BUCKETS, pct, &est, &lo, NULL))
			continue; /* no latency recorded for it */
		err = fig_family__add(fam, a->name, (double)est, a->completed);
		err = err ?: fig_family__set_hist(fam, a->hist, pct);
		if (!err)
			fam->val[fam->n - 1].bucket = lo ? __builtin_ctzll(lo) : 0;
	}
	if (!rate) {
		fam->complete = false; /* a syscall without latency has no percentile, not 0 */
		snprintf(fam->note, sizeof(fam->note), "only syscalls with completed calls");
	}
	return err;
}

static const struct an_figure rate = {
	"syscalls.rate(*)", "syscalls", FIG_RATE, true, false, FIG_TEST_POISSON,
	"calls of syscall NAME per second of the window", compute,
};
/* Below a microsecond a latency moves between identical runs with the machine's state and
 * the probes' own cost (getppid's median: 181 ns in one run, 724 ns in the next, on a loaded
 * 2-CPU VM): a change of less is not claimed. */
#define LATENCY_RESOLUTION_NS 1000

static const struct an_figure p50 = {
	"syscalls.p50(*)", "syscalls", FIG_NS, true, false, FIG_TEST_BUCKET,
	"median latency of syscall NAME (log2 bucket)", compute,
	.resolution = LATENCY_RESOLUTION_NS,
};
static const struct an_figure p99 = {
	"syscalls.p99(*)", "syscalls", FIG_NS, true, false, FIG_TEST_BUCKET,
	"99th percentile latency of syscall NAME (ditto)", compute,
	.resolution = LATENCY_RESOLUTION_NS,
};

const struct an_figure *const syscalls_figures[] = { &rate, &p50, &p99, NULL };
