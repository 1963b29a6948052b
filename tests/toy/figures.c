/* figures.c — the toy collector's figures (analyze/figures.h): its counter over the window and
 * per second, from toy_rows__sum (report.c), the rows `report toy` prints; `figures` lists them
 * and `diff` compares them without a line of the core naming the toy. */
#include <stdint.h>

#include "analyze/figures.h"
#include "analyze/part.h"

/* report.c */
int toy_rows__sum(sqlite3 *db, const struct capture_meta *m, const struct window *w,
		  uint64_t *sum, int64_t *scale);

static int compute(struct fig_ctx *c, const struct an_figure *f, struct fig_family *fam)
{
	uint64_t sum;
	int64_t scale;
	int err = toy_rows__sum(c->db, c->m, &c->w, &sum, &scale);

	if (err)
		return err;
	if (!scale) {
		fig_family__not_measured(fam, "no toy sample in the window");
		return 0;
	}
	if (f->test != FIG_TEST_POISSON)
		return fig_family__add(fam, NULL, (double)sum, sum);
	if (!(c->span_s > 0)) {
		fig_family__not_measured(fam, "the window holds no time of the capture");
		return 0;
	}
	fam->exposure_s = c->span_s;
	return fig_family__add(fam, NULL, (double)sum / c->span_s, sum);
}

static const struct an_figure faults = {
	"toy.faults", "toy", FIG_COUNT, true, false, FIG_TEST_NONE,
	"minor page faults over the window, times --toy-scale", compute,
};
static const struct an_figure fault_rate = {
	"toy.fault_rate", "toy", FIG_RATE, true, false, FIG_TEST_POISSON,
	"the same per second of the window", compute,
};

const struct an_figure *const toy_figures[] = { &faults, &fault_rate, NULL };
