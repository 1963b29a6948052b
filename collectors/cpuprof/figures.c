/* figures.c — the CPU profile's figures (analyze/figures.h): each function's self and total
 * share of the samples, with its sample count, from profile__load and prof_top__build, the
 * functions `report cpu` prints (ptop's own, the preload library's, none: probe overhead);
 * the sampling rate asked for. Functions are named by symbol
 * (fig_site__names), after naming the stacks as `report cpu` does (no network). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/figures.h"
#include "analyze/part.h"
#include "analyze/symbolize.h"
#include "collectors/cpu/report.h" /* prof_top__build: the cpu report's function table */
#include "collectors/cpuprof/stacks.h"
#include "common/probe_mapping.h"

struct prof_figs {
	struct profile *p;
	struct prof_top t;
	char **names; /* of t.fn, by fig_site__names */
};

static void figs_free(void *x)
{
	struct prof_figs *f = x;

	for (size_t k = 0; f->names && k < f->t.n; k++)
		free(f->names[k]);
	free(f->names);
	prof_top__free(&f->t);
	profile__free(f->p);
	free(f);
}

static int load(struct fig_ctx *c, struct prof_figs **out)
{
	struct symstore_opts so = {0};
	struct symstore_run run = {0};
	struct fig_site *s = NULL;
	struct prof_figs *f;
	char msg[512] = "";
	int err;

	*out = fig_ctx__get(c, "cpuprof");
	if (*out)
		return 0;
	f = calloc(1, sizeof(*f));
	if (!f)
		return -ENOMEM;
	err = symstore__ensure(c->db, c->m->cap, &so, &run, msg, sizeof(msg));
	if (err)
		fprintf(stderr, "ptop-analyze: naming the profile's frames: %s\n", msg);
	err = err ?: profile__load(c->db, c->m, &c->w, &f->p);
	err = err ?: prof_top__build(f->p, &f->t);
	if (!err) {
		s = calloc(f->t.n + 1, sizeof(*s));
		f->names = calloc(f->t.n + 1, sizeof(*f->names));
		err = s && f->names ? 0 : -ENOMEM;
	}
	for (size_t k = 0; !err && k < f->t.n; k++)
		s[k] = (struct fig_site){f->t.fn[k].name, f->t.fn[k].module, f->t.fn[k].file,
					 f->t.fn[k].line, f->t.fn[k].named};
	err = err ?: fig_site__names(s, f->t.n, f->names);
	free(s);
	if (err) {
		figs_free(f);
		return err;
	}
	err = fig_ctx__put(c, "cpuprof", f, figs_free);
	*out = err ? NULL : f;
	return err;
}

static int compute(struct fig_ctx *c, const struct an_figure *fig, struct fig_family *fam)
{
	bool self = !strcmp(fig->name, "cpu.share(*)");
	struct prof_figs *f;
	int err = load(c, &f);

	if (err)
		return err;
	if (!strcmp(fig->name, "cpu.sample_hz")) {
		if (!f->p->requested_hz) {
			fig_family__not_measured(fam, "no profile interval in the window");
			return 0;
		}
		return fig_family__add(fam, NULL, f->p->requested_hz, 0);
	}
	/* The profile ran in the window (it has an interval there): a window without one
	 * sample with a stack is a measurement, 0 samples, not a figure left unmeasured: its
	 * shares are of 0 samples, which diff calls too few to tell, never an alarm. */
	/* every function of a sampled stack is listed: one absent has 0 of the samples */
	fam->of = f->t.samples;
	for (size_t k = 0; k < f->t.n && !err; k++) {
		const struct prof_fn *fn = &f->t.fn[k];
		uint64_t x = self ? fn->self : fn->total;

		if (!x || (!self && !fn->named))
			continue; /* a function never innermost has no self share; addresses of a
				   * module summed could count a stack twice */
		if (probe_code__is(fn->module))
			continue; /* ptop's own code, a caller in the target's samples (those it
				   * was innermost in are out of the profile): no figure, no diff */
		err = fig_family__accumulate(fam, f->names[k], 0, x);
	}
	for (size_t k = 0; k < fam->n; k++)
		fam->val[k].v = 100.0 * (double)fam->val[k].count / (double)fam->of;
	return err;
}

static const struct an_figure share = {
	"cpu.share(*)", "cpuprof", FIG_PCT, true, false, FIG_TEST_PROPORTION,
	"self share of F: samples with F innermost", compute,
};
static const struct an_figure total_share = {
	"cpu.total_share(*)", "cpuprof", FIG_PCT, true, false, FIG_TEST_PROPORTION,
	"total share of F: samples with F in the stack", compute,
};
static const struct an_figure sample_hz = {
	"cpu.sample_hz", "cpuprof", FIG_HZ, false, true, FIG_TEST_NONE,
	"the profile's sampling rate asked for", compute,
};

const struct an_figure *const cpuprof_figures[] = { &share, &total_share, &sample_hz, NULL };
