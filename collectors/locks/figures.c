/* figures.c — the locks collector's figures (analyze/figures.h): the futex waits, the time
 * inside them and the wakes of the recording, from locks_sum__load (report.c), the totals
 * `report locks` prints. Read at the end of the recording: over the whole of it only. */
#include <string.h>

#include "analyze/figures.h"
#include "analyze/part.h"
#include "collectors/locks/report.h"

static int compute(struct fig_ctx *c, const struct an_figure *f, struct fig_family *fam)
{
	struct locks_sum s;
	int err;

	if (c->w.has_start || c->w.has_end) {
		fig_family__not_measured(fam, "locks totals are read at the end of the recording: "
					      "no window");
		return 0;
	}
	err = locks_sum__load(c->db, c->m, &s);
	if (err)
		return err;
	if (!s.read) {
		fig_family__not_measured(fam, "no locks totals: the recording did not end cleanly");
		return 0;
	}
	if (!strcmp(f->name, "locks.waits"))
		return fig_family__add(fam, NULL, (double)s.waits, s.waits);
	if (!strcmp(f->name, "locks.wait_time"))
		return fig_family__add(fam, NULL, (double)s.wait_ns, s.waits);
	return fig_family__add(fam, NULL, (double)s.wakes, s.wakes);
}

static const struct an_figure waits = {
	"locks.waits", "locks", FIG_COUNT, true, false, FIG_TEST_NONE,
	"futex waits of the target over the recording", compute,
};
static const struct an_figure wait_time = {
	"locks.wait_time", "locks", FIG_NS, true, false, FIG_TEST_NONE,
	"the time its threads spent inside them", compute,
};
static const struct an_figure wakes = {
	"locks.wakes", "locks", FIG_COUNT, false, false, FIG_TEST_NONE,
	"futex wakes of the target over the recording", compute,
};

const struct an_figure *const locks_figures[] = { &waits, &wait_time, &wakes, NULL };
