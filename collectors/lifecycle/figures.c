/* figures.c — the lifecycle collector's figures (analyze/figures.h): the forks, execs and
 * exits of the window, and of the exits those ended by a signal or with a non-zero code;
 * from lc_model__load (report.c), the counts `report tree` prints. */
#include <string.h>

#include "analyze/figures.h"
#include "analyze/part.h"
#include "collectors/lifecycle/report.h"

static int compute(struct fig_ctx *c, const struct an_figure *f, struct fig_family *fam)
{
	struct lc_model md;
	uint64_t v;
	int err = lc_model__load(c->db, c->m, &c->w, &md);

	if (err)
		return err;
	if (!strcmp(f->name, "lifecycle.forks"))
		v = md.forks;
	else if (!strcmp(f->name, "lifecycle.execs"))
		v = md.execs;
	else if (!strcmp(f->name, "lifecycle.killed"))
		v = md.killed;
	else
		v = md.failed;
	lc_model__free(&md);
	return fig_family__add(fam, NULL, (double)v, v);
}

static const struct an_figure forks = {
	"lifecycle.forks", "lifecycle", FIG_COUNT, true, false, FIG_TEST_NONE,
	"processes the target's subtree made over the window", compute,
};
static const struct an_figure execs = {
	"lifecycle.execs", "lifecycle", FIG_COUNT, true, false, FIG_TEST_NONE,
	"execs in the target's subtree over the window", compute,
};
static const struct an_figure killed = {
	"lifecycle.killed", "lifecycle", FIG_COUNT, true, false, FIG_TEST_NONE,
	"processes of the subtree a signal ended over the window", compute,
};
static const struct an_figure failed = {
	"lifecycle.failed", "lifecycle", FIG_COUNT, true, false, FIG_TEST_NONE,
	"processes of the subtree that exited with a non-zero code over the window", compute,
};

const struct an_figure *const lifecycle_figures[] = { &forks, &execs, &killed, &failed, NULL };
