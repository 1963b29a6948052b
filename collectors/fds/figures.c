/* figures.c — the fds collector's figures (analyze/figures.h): the open fds at the window's
 * last sample, at their peak, their growth from the first sample to the last and the count
 * per type at the end, from fds_span__load (report.c), the samples `report fds` prints; and
 * with --fd-stacks the opens, closes and EMFILE/ENFILE failures over the window, from
 * fds_ops__sum. A CI gate such as `--fail-on 'fds.growth > +50'` catches an fd leak.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/figures.h"
#include "analyze/part.h"
#include "collectors/fds/report.h"

static void span_free(void *p)
{
	free(p);
}

/* The window's samples, loaded once for every fds figure; NULL on error (*ERR set). */
static struct fds_span *span(struct fig_ctx *c, int *err)
{
	struct fds_span *sp = fig_ctx__get(c, "fds");

	*err = 0;
	if (sp)
		return sp;
	sp = calloc(1, sizeof(*sp));
	if (!sp) {
		*err = -ENOMEM;
		return NULL;
	}
	*err = fds_span__load(c->db, c->m, &c->w, sp);
	if (*err) {
		free(sp);
		return NULL;
	}
	*err = fig_ctx__put(c, "fds", sp, span_free);
	return *err ? NULL : sp;
}

static int table(struct fig_ctx *c, const struct an_figure *f, struct fig_family *fam)
{
	int err;
	struct fds_span *sp = span(c, &err);

	if (!sp)
		return err;
	if (!sp->n) {
		fig_family__not_measured(fam, "no fd sample in the window");
		return 0;
	}
	if (!strcmp(f->name, "fds.growth")) {
		if (sp->n < 2) {
			fig_family__not_measured(fam, "growth needs two fd samples in the window");
			return 0;
		}
		err = fig_family__add(fam, NULL, (double)(sp->last[0] - sp->first[0]), sp->n);
		if (!err) /* as exact as its first and its last sample */
			fam->val[fam->n - 1].spread =
			    (double)sp->first_step[0] + sp->ser[0].last_spread;
		return err;
	}
	/* a state at one moment (and the peak over the samples up to it): diff compares two
	 * only when each was read about as near its window's end */
	fam->before_end_s = fig_ctx__before_end_s(c, sp->t1);
	/* each as exact as the samples next to it (fig_value.spread): diff claims no change
	 * within the series' own step */
	if (!strcmp(f->name, "fds.open_at_end")) {
		err = fig_family__add(fam, NULL, (double)sp->last[0], sp->n);
		if (!err)
			fam->val[fam->n - 1].spread = sp->ser[0].last_spread;
		return err;
	}
	if (!strcmp(f->name, "fds.peak")) {
		err = fig_family__add(fam, NULL, (double)sp->peak, sp->n);
		if (!err)
			fam->val[fam->n - 1].spread = sp->ser[0].peak_spread;
		return err;
	}
	/* fds.type(*): every type read; one absent had none */
	fam->complete = true;
	fam->samples = sp->n; /* an absent type is over them too */
	for (int i = 0; i < FDS_NTYPES && !err; i++)
		if (sp->last[1 + i]) {
			err = fig_family__add(fam, fds_type_col[i], (double)sp->last[1 + i], sp->n);
			if (!err)
				fam->val[fam->n - 1].spread = sp->ser[1 + i].last_spread;
		}
	return err;
}

static int ops(struct fig_ctx *c, const struct an_figure *f, struct fig_family *fam)
{
	struct fds_ops_sum s;
	struct probe_info p;
	int err = probe__lookup(c->db, c->m->cap, "fds", &p);

	if (err)
		return err;
	if (strcmp(p.source, "ebpf")) { /* the /proc lane alone: no fd_op row is a zero */
		fig_family__not_measured(fam, "%s", fds__opens_reason(&p));
		return 0;
	}
	err = fds_ops__sum(c->db, c->m, &c->w, &s);
	if (err)
		return err;
	if (!strcmp(f->name, "fds.opens"))
		return fig_family__add(fam, NULL, (double)s.opened, (uint64_t)s.opened);
	if (!strcmp(f->name, "fds.closes"))
		return fig_family__add(fam, NULL, (double)s.closed, (uint64_t)s.closed);
	return fig_family__add(fam, NULL, (double)s.emfile, (uint64_t)s.emfile);
}

/* A transient fd (a file opened and closed around the moment of a read) moves a count by one
 * between identical runs: diff claims a change of two fds or more (gates test the delta
 * itself, whatever this). */
#define FDS_RESOLUTION 2

/* A figure from fewer samples is not compared by diff (too few samples): the first sample
 * falls at a random point of the target's start-up (a shell wrapper's pipes), so with two
 * identical runs read a growth of -2 and 0, a peak of 8 and 6 (as the memory figures). */
#define FDS_MIN_SAMPLES 3

static const struct an_figure open_at_end = {
	"fds.open_at_end", "fds", FIG_COUNT, true, false, FIG_TEST_NONE,
	"open fds at the window's last sample", table,
	.resolution = FDS_RESOLUTION, .min_count = FDS_MIN_SAMPLES,
};
static const struct an_figure peak = {
	"fds.peak", "fds", FIG_COUNT, true, false, FIG_TEST_NONE,
	"the most open fds of the window's samples", table,
	.resolution = FDS_RESOLUTION, .min_count = FDS_MIN_SAMPLES,
};
static const struct an_figure growth = {
	"fds.growth", "fds", FIG_COUNT, true, false, FIG_TEST_NONE,
	"open fds at the window's last sample minus at its first", table,
	.resolution = FDS_RESOLUTION, .min_count = FDS_MIN_SAMPLES,
};
static const struct an_figure type = {
	"fds.type(*)", "fds", FIG_COUNT, true, false, FIG_TEST_NONE,
	"open fds of TYPE (file, socket, pipe, eventfd...) at the window's last sample", table,
	.resolution = FDS_RESOLUTION, .min_count = FDS_MIN_SAMPLES,
};
static const struct an_figure opens = {
	"fds.opens", "fds", FIG_COUNT, true, false, FIG_TEST_NONE,
	"fds opened over the window (--fd-stacks)", ops,
};
static const struct an_figure closes = {
	"fds.closes", "fds", FIG_COUNT, false, false, FIG_TEST_NONE,
	"fds closed over the window (--fd-stacks)", ops,
};
static const struct an_figure emfile = {
	"fds.emfile", "fds", FIG_COUNT, true, false, FIG_TEST_NONE,
	"fd-opening calls failed with EMFILE or ENFILE over the window (--fd-stacks)", ops,
};

const struct an_figure *const fds_figures[] = {
	&open_at_end, &peak, &growth, &type, &opens, &closes, &emfile, NULL,
};
