/* figures.c — the locks collector's figures (analyze/figures.h): the futex waits, the time
 * inside them and the wakes over the window, from locks_sum__load (report.c), the totals
 * `report locks` prints. */
#include <string.h>

#include "analyze/figures.h"
#include "analyze/part.h"
#include "collectors/locks/report.h"

static int compute(struct fig_ctx *c, const struct an_figure *f, struct fig_family *fam)
{
	struct locks_sum s;
	int err;

	err = locks_sum__load(c->db, c->m, &c->w, &s);
	if (err)
		return err;
	if (!strcmp(f->name, "locks.waits"))
		return fig_family__add(fam, NULL, (double)s.waits, s.waits);
	if (!strcmp(f->name, "locks.wait_time"))
		return fig_family__add(fam, NULL, (double)s.wait_ns, s.waits);
	return fig_family__add(fam, NULL, (double)s.wakes, s.wakes);
}

static const struct an_figure waits = {
	"locks.waits", "locks", FIG_COUNT, true, false, FIG_TEST_NONE,
	"futex waits of the target over the window", compute,
};
static const struct an_figure wait_time = {
	"locks.wait_time", "locks", FIG_NS, true, false, FIG_TEST_NONE,
	"the time its threads spent inside them", compute,
};
static const struct an_figure wakes = {
	"locks.wakes", "locks", FIG_COUNT, false, false, FIG_TEST_NONE,
	"futex wakes of the target over the window", compute,
};

const struct an_figure *const locks_figures[] = { &waits, &wait_time, &wakes, NULL };
