/* figures.c — the cgroup collector's figures (analyze/figures.h): the cgroup's memory usage
 * at its peak and at the window's end, its OOM kills, and its pressure (PSI avg10 at its
 * highest) per resource and kind, from cg_data__load and cg_oom__of (report.c), the figures
 * `report cgroup` prints; the PSS and RSS of its applications, from cg_apps__load, as
 * `report apps` groups them. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/figures.h"
#include "analyze/part.h"
#include "collectors/cgroup/report.h"

static void data_free(void *p)
{
	cg_data__free(p);
	free(p);
}

static int compute(struct fig_ctx *c, const struct an_figure *f, struct fig_family *fam)
{
	struct cg_data *d = fig_ctx__get(c, "cgroup");
	int64_t peak = -1, last = -1;
	size_t samples = 0;
	int err;

	if (!d) {
		d = calloc(1, sizeof(*d));
		if (!d)
			return -ENOMEM;
		err = cg_data__load(c->db, c->m, &c->w, d);
		if (err) {
			data_free(d);
			return err;
		}
		err = fig_ctx__put(c, "cgroup", d, data_free);
		if (err)
			return err;
	}
	if (!d->n) {
		fig_family__not_measured(fam, "no cgroup sample in the window");
		return 0;
	}
	if (!strcmp(f->name, "cgroup.oom_kills")) {
		struct cg_oom o;

		cg_oom__of(d, &o);
		if (o.oom_kill < 0) {
			fig_family__not_measured(fam, "OOM kills not read (no memory.events)");
			return 0;
		}
		return fig_family__add(fam, NULL, (double)o.oom_kill, 0);
	}
	if (!strcmp(f->name, "cgroup.pressure(*)")) {
		/* the PSI lines read: memory.some, cpu.full... */
		for (size_t k = 0; k < CG_PSI_N; k++) {
			char arg[32];

			if (!d->psi[k].samples || !isfinite(d->psi[k].avg10_max))
				continue;
			snprintf(arg, sizeof(arg), "%s.%s", cg_psi_resource[k / 2], cg_psi_kind[k % 2]);
			err = fig_family__add(fam, arg, d->psi[k].avg10_max, d->psi[k].samples);
			if (err)
				return err;
		}
		fam->complete = false;
		snprintf(fam->note, sizeof(fam->note), "only the PSI lines the kernel gave");
		return 0;
	}
	for (size_t k = 0; k < d->n; k++) {
		if (d->s[k].current < 0)
			continue;
		samples++;
		last = d->s[k].current;
		if (last > peak)
			peak = last;
	}
	if (!samples) {
		fig_family__not_measured(fam, "memory usage not read (no memory controller)");
		return 0;
	}
	return fig_family__add(fam, NULL,
			       (double)(!strcmp(f->name, "cgroup.usage_peak") ? peak : last),
			       samples);
}

/* The applications of the window's last sample (cg_apps__load, as report apps groups them):
 * their PSS or RSS summed over the processes read. */
static int apps(struct fig_ctx *c, const struct an_figure *f, struct fig_family *fam)
{
	bool pss = !strcmp(f->name, "cgroup.app(*).pss");
	struct cg_app *a = NULL;
	size_t n = 0, unread = 0;
	int64_t at_ns;
	int err = cg_apps__load(c->db, c->m, &c->w, &a, &n, &at_ns);

	if (err)
		return err;
	if (at_ns < 0) {
		free(a);
		fig_family__not_measured(fam, "no cgroup sample in the window");
		return 0;
	}
	for (size_t k = 0; k < n && !err; k++) {
		int64_t v = pss ? a[k].pss : a[k].rss;
		const char *slash;

		if (v < 0) { /* none of its processes read (the smaps budget, denied) */
			unread++;
			continue;
		}
		/* an executable by its base name, so a build installed elsewhere matches
		 * (executables of one base name in two folders summed) */
		slash = !strcmp(a[k].kind, "exe") ? strrchr(a[k].name, '/') : NULL;
		err = fig_family__accumulate(fam, slash ? slash + 1 : a[k].name, (double)v,
					     (uint64_t)a[k].covered);
	}
	free(a);
	if (unread) {
		fam->complete = false;
		snprintf(fam->note, sizeof(fam->note),
			 "%zu application(s) of the last sample had no process read", unread);
	}
	return err;
}

static const struct an_figure app_pss = {
	"cgroup.app(*).pss", "cgroup", FIG_BYTES, true, false, FIG_TEST_NONE,
	"PSS of application NAME (report apps; an exe by base name), last sample", apps,
	.resolution = 256 << 10, /* pages touched or not, fault-around: memory/figures.c */
};
static const struct an_figure app_rss = {
	"cgroup.app(*).rss", "cgroup", FIG_BYTES, true, false, FIG_TEST_NONE,
	"RSS of application NAME (report apps; an exe by base name), last sample", apps,
	.resolution = 256 << 10,
};

static const struct an_figure usage_peak = {
	"cgroup.usage_peak", "cgroup", FIG_BYTES, true, false, FIG_TEST_NONE,
	"the cgroup's largest memory usage of the window's samples", compute,
};
static const struct an_figure usage_last = {
	"cgroup.usage_last", "cgroup", FIG_BYTES, true, false, FIG_TEST_NONE,
	"the cgroup's memory usage at the window's last sample", compute,
};
static const struct an_figure oom_kills = {
	"cgroup.oom_kills", "cgroup", FIG_COUNT, true, false, FIG_TEST_NONE,
	"processes of the cgroup the OOM killer killed in the window", compute,
};
static const struct an_figure pressure = {
	"cgroup.pressure(*)", "cgroup", FIG_PCT, true, false, FIG_TEST_NONE,
	"PSI avg10 at its highest, per RESOURCE.KIND (memory.some...)", compute,
};

const struct an_figure *const cgroup_figures[] = { &usage_peak, &usage_last, &oom_kills,
						   &pressure,	&app_pss,    &app_rss, NULL };
