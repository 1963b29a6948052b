/* view.c — the cpu collector's replay tab (Threads: the thread count over time) and its parts of
 * the Overview (the CPU section, the threads line), as a struct replay_view
 * (analyze/replay_views.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/output.h"
#include "analyze/replay_views.h"
#include "collectors/cpu/replay.h"

static void draw_cpu_line(struct replay_model *m, struct grid *g, int x, int y, int w)
{
	char buf[256], a[32];
	const struct cpu_series *cs = cpu_series(m);
	ssize_t ci = cpu_series__at(cs, m->pos_ns);
	size_t first, n, k;
	double *v, pct;

	if (replay__not_collected(m, "cpu", buf, sizeof(buf))) {
		grid__textf(g, x, y, w, 0, GC_MUTED, "CPU      %s", buf);
		return;
	}
	if (ci < 0) {
		grid__text(g, x, y, w, "CPU      no sample yet", 0, GC_MUTED);
		return;
	}
	pct = cpu_series__pct(m, cs, (size_t)ci);
	grid__textf(g, x, y, 32, GA_BOLD, GC_DEFAULT, "CPU %7s %s", fmt_pct(a, sizeof(a), pct),
		    cs->s[ci].oncpu >= 0	 ? "eBPF"
		    : !strcmp(m->mode, "cgroup") ? "cpu.stat"
						 : "/proc");
	v = replay__history((size_t)ci, w - 34, &first, &n);
	if (!v)
		return;
	for (k = 0; k < n; k++)
		v[k] = cpu_series__pct(m, cs, first + k);
	grid__sparkline(g, x + 34, y, w - 34, v, n, 100.0, GC_GOOD);
	free(v);
	grid__textf(g, x, y + 1, 32, 0, GC_MUTED, "threads %s  samples %zu",
		    cs->s[ci].threads >= 0 ? fmt_count(a, sizeof(a), (uint64_t)cs->s[ci].threads)
					   : "-",
		    (size_t)ci + 1);
}

/* the Overview's section: CPU use with its history, threads and samples */
static int cpu_overview(struct replay_model *m, struct grid *g, int x, int y, int w)
{
	draw_cpu_line(m, g, x, y, w);
	return 3; /* two lines and a blank one */
}

/* the Overview's line: the thread count at the position */
static int threads_line(struct replay_model *m, char *buf, size_t len)
{
	const struct cpu_series *cs = cpu_series(m);
	ssize_t ci = cpu_series__at(cs, m->pos_ns);
	char a[32];

	snprintf(buf, len, "%s threads",
		 ci >= 0 && cs->s[ci].threads >= 0
		     ? fmt_count(a, sizeof(a), (uint64_t)cs->s[ci].threads)
		     : "-");
	return GC_DEFAULT;
}

static void draw_threads(struct replay_model *m, struct replay_ui *ui, struct grid *g, int x, int y,
			 int w, int h)
{
	char buf[256], a[32];
	const struct cpu_series *cs = cpu_series(m);
	ssize_t ci = cpu_series__at(cs, m->pos_ns);

	(void)ui;
	if (replay__not_collected(m, "cpu", buf, sizeof(buf))) {
		replay__wrapped(g, x, y, w, h, buf, 0, GC_MUTED);
		return;
	}
	grid__text(g, x, y, w, "Thread count  [/proc status]", GA_BOLD | GA_UNDERLINE, GC_TITLE);
	if (ci >= 0 && cs->s[ci].threads >= 0) {
		size_t first, n, k;
		double *v = replay__history((size_t)ci, w - 20, &first, &n), max = 0;

		grid__textf(g, x, y + 1, 18, GA_BOLD, GC_DEFAULT, "threads %s",
			    fmt_count(a, sizeof(a), (uint64_t)cs->s[ci].threads));
		for (k = 0; v && k < n; k++) {
			int64_t t = cs->s[first + k].threads;

			v[k] = t < 0 ? NAN : (double)t;
			if (t > max)
				max = (double)t;
		}
		if (v)
			grid__sparkline(g, x + 20, y + 1, w - 20, v, n, max, GC_GOOD);
		free(v);
	} else {
		grid__text(g, x, y + 1, w, "thread count: no sample yet", 0, GC_MUTED);
	}
	replay__wrapped(g, x, y + 3, w, 2,
			"per-thread CPU, state and syscalls: no collector records this yet", 0,
			GC_MUTED);
}

static const struct replay_view threads_view = {
    .name = "Threads",
    .id = "threads",
    .position = 40,
    .probe = "cpu",
    .source = "cpu_sample threads (/proc)",
    .draw = draw_threads,
    .overview_title = "CPU",
    .overview_position = 10,
    .overview_rows = 3,
    .overview = cpu_overview,
    .overview_line = threads_line,
};

const struct replay_view *const cpu_views[] = {&threads_view, NULL};
