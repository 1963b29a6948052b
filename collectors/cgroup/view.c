/* view.c — the cgroup collector's replay view: the Memory tab of a capture of a whole cgroup
 * (ptop-record --cgroup), where the memory collector did not run (the tab shows the view of the
 * first of its collectors that ran: analyze/replay_views.h). Its sample at the position: usage
 * and limit, memory.stat, OOM events, pressure, and the processes by PSS; and the Overview's
 * Memory section. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/output.h"
#include "analyze/replay_views.h"
#include "collectors/cgroup/replay.h"
#include "collectors/cgroup/report.h"

/* "current 40.0 MiB / limit 64.0 MiB (62.5%)  peak 48.0 MiB" of cgroup sample S */
static void cg_usage(const struct cg_sample *s, char *buf, size_t len)
{
	char a[32], b[32], c[32], d[32];

	if (!s->lane[0]) {
		snprintf(buf, len, "memory controller not read (no lane)");
		return;
	}
	if (s->limit >= 0 && s->current >= 0 && s->limit > 0)
		snprintf(d, sizeof(d), " (%s)",
			 fmt_pct(c, sizeof(c), 100.0 * (double)s->current / (double)s->limit));
	else
		d[0] = 0;
	snprintf(buf, len, "current %s / limit %s%s  peak %s",
		 replay__bytes(a, sizeof(a), s->current),
		 s->limit < 0 ? "none" : replay__bytes(b, sizeof(b), s->limit), d,
		 replay__bytes(c, sizeof(c), s->peak));
}

/* "oom 1, oom_kill 1, max 3, high 0" (v2) or the v1 counters, summed up to the sample */
static void cg_oom_text(const struct rm_cgroup *c, char *buf, size_t len)
{
	const struct cg_oom *o = &c->oom;

	if (o->oom >= 0 || o->high >= 0)
		snprintf(buf, len, "oom %lld, oom_kill %lld, max %lld, high %lld",
			 (long long)(o->oom < 0 ? 0 : o->oom),
			 (long long)(o->oom_kill < 0 ? 0 : o->oom_kill),
			 (long long)(o->max < 0 ? 0 : o->max),
			 (long long)(o->high < 0 ? 0 : o->high));
	else if (o->failcnt >= 0 || o->under_oom_samples >= 0)
		snprintf(buf, len, "oom_kill %lld, failcnt %lld, under_oom now %s",
			 (long long)(o->oom_kill < 0 ? 0 : o->oom_kill),
			 (long long)(o->failcnt < 0 ? 0 : o->failcnt),
			 o->under_oom_last > 0 ? "yes" : "no");
	else
		snprintf(buf, len, "not recorded");
}

/* the current series of the cgroup samples up to CI, as a sparkline */
static void cg_sparkline(const struct replay_model *m, size_t ci, struct grid *g, int x, int y,
			 int w)
{
	struct cgroup_series *cr = cgroup_series(m);
	size_t first, n, k;
	double *v, max = 0;

	if (w < 6)
		return;
	v = replay__history(ci, w, &first, &n);
	for (k = 0; v && k < n; k++) {
		const struct cg_sample *s = &cr->cg.s[first + k];

		v[k] = s->current < 0 ? NAN : (double)s->current;
		if (s->limit > 0 && (double)s->limit > max && s->limit < 4 * s->current)
			max = (double)s->limit; /* scaled to the limit when it is near */
		if ((double)s->current > max)
			max = (double)s->current;
	}
	if (v)
		grid__sparkline(g, x, y, w, v, n, max, GC_GOOD);
	free(v);
}

/* the Overview's memory lines for a cgroup capture */
static void draw_cg_lines(struct replay_model *m, struct grid *g, int x, int y, int w, int h)
{
	struct cgroup_series *cr = cgroup_series(m);
	ssize_t ci = cgroup_series__at(m, cr, m->pos_ns);
	const struct rm_cgroup *c = NULL;
	const struct cg_sample *s;
	char buf[256], a[160];

	if (ci < 0) {
		grid__text(g, x, y, w, "no cgroup sample yet", 0, GC_MUTED);
		return;
	}
	s = &cr->cg.s[ci];
	cg_usage(s, a, sizeof(a));
	grid__textf(g, x, y, w, GA_BOLD, GC_DEFAULT, "cgroup %s %s  %s",
		    *cr->cg.path ? cr->cg.path : "?", *s->lane ? s->lane : "-", a);
	if (h < 2)
		return;
	if (s->processes >= 0)
		grid__textf(g, x, y + 1, w, 0, GC_DEFAULT,
			    "processes %lld: %lld covered, %lld denied, %lld gone, %lld skipped  "
			    "(Memory tab: by PSS)",
			    (long long)s->processes, (long long)s->covered, (long long)s->denied,
			    (long long)s->gone, (long long)s->skipped);
	else
		grid__text(g, x, y + 1, w, "processes: coverage not recorded", 0, GC_MUTED);
	if (h < 3)
		return;
	if (cgroup_series__state(m, cr, (size_t)ci, &c)) {
		grid__text(g, x, y + 2, w, "cgroup: cannot read the samples", 0, GC_WARN);
		return;
	}
	cg_oom_text(c, buf, sizeof(buf));
	grid__textf(g, x, y + 2, w, 0, GC_DEFAULT, "OOM so far: %s", buf);
}

/* the Overview's section: the cgroup's usage, processes and OOM events */
static int cgroup_overview(struct replay_model *m, struct grid *g, int x, int y, int w)
{
	draw_cg_lines(m, g, x, y, w, 3);
	return 4; /* three lines and a blank one */
}

static const char *const cg_sorts[] = {"pss", "rss", "uss", "comm", NULL};

static int cg_sort_col;

static int cmp_cg_proc(const void *pa, const void *pb)
{
	const struct cg_proc *a = pa, *b = pb;
	int64_t ka, kb;
	int c;

	if (cg_sort_col == 3 && (c = strcmp(a->comm, b->comm)))
		return c;
	ka = cg_sort_col == 1 ? a->rss : cg_sort_col == 2 ? a->uss : a->pss;
	kb = cg_sort_col == 1 ? b->rss : cg_sort_col == 2 ? b->uss : b->pss;
	if (ka != kb)
		return ka > kb ? -1 : 1; /* not measured (-1) last */
	return cg_proc__cmp_pss(a, b);
}

/* the Memory tab for a cgroup capture: the cgroup collector's sample at the position */
static void draw_cg_memory(struct replay_model *m, struct replay_ui *ui, struct grid *g, int x,
			   int y, int w, int h)
{
	struct cgroup_series *cr = cgroup_series(m);
	static const struct grid_col cols[] = {
	    {"pid", 8, true},  {"comm", 16, false}, {"unit", 24, false}, {"rss", 10, true},
	    {"pss", 10, true}, {"uss", 10, true},   {"state", 8, false}};
	ssize_t ci = cgroup_series__at(m, cr, m->pos_ns);
	char buf[512], a[160], b[32], c2[32], d[32];
	const struct rm_cgroup *c;
	const struct cg_sample *s;
	struct cg_proc *sorted;
	size_t i, k, nshown = 0;
	int row = y, r, n, lw;

	ui->selected[0] = 0;
	if (ci < 0) {
		grid__textf(
		    g, x, y, w, 0, GC_MUTED, "no cgroup sample by %s (the first is at %s)",
		    replay__fmt_pos(a, sizeof(a), m->pos_ns),
		    cr->cg.n ? replay__fmt_pos(b, sizeof(b), cr->cg.s[0].time_ns - m->meta.base_ns)
			     : "-");
		return;
	}
	s = &cr->cg.s[ci];
	if (cgroup_series__state(m, cr, (size_t)ci, &c)) {
		grid__text(g, x, y, w, "cgroup: cannot read the samples", 0, GC_WARN);
		return;
	}
	grid__textf(g, x, row++, w, GA_BOLD | GA_UNDERLINE, GC_TITLE,
		    "cgroup %s  lane %s  sample %zu of %zu at %s  [cgroup collector]",
		    *cr->cg.path ? cr->cg.path : "(path not recorded)", *s->lane ? s->lane : "none",
		    (size_t)ci + 1, cr->cg.n,
		    replay__fmt_pos(b, sizeof(b), s->time_ns - m->meta.base_ns));
	if (*cr->cg.v1_path)
		grid__textf(g, x, row++, w, 0, GC_MUTED, "v1 memory cgroup: %s", cr->cg.v1_path);
	cg_usage(s, a, sizeof(a));
	lw = grid__textf(g, x, row, w, GA_BOLD, GC_DEFAULT, "%s", a);
	cg_sparkline(m, (size_t)ci, g, x + lw + 2, row, w - lw - 2);
	row++;
	/* memory.stat: the figures present, in report cgroup's order, up to the LRU lists */
	n = snprintf(buf, sizeof(buf), "memory.stat:");
	for (i = k = 0; k < CG_STAT_FIGS && n < (int)sizeof(buf); k++)
		if (!strncmp(cg_stat__fig_name(k), "active_", 7))
			break;
		else if (c->stat.at && c->stat.fig[k] >= 0 && ++i)
			n += snprintf(buf + n, sizeof(buf) - (size_t)n, " %s %s",
				      cg_stat__fig_name(k),
				      replay__bytes(b, sizeof(b), c->stat.fig[k]));
	if (!i)
		snprintf(buf + n, sizeof(buf) - (size_t)n, " %s",
			 c->stat.at ? "none of its figures in this sample" : "not read");
	row += replay__wrapped(g, x, row, w, 2, buf, 0, GC_DEFAULT);
	cg_oom_text(c, a, sizeof(a));
	grid__textf(g, x, row++, w, 0, c->oom.oom_kill > 0 ? GC_WARN : GC_DEFAULT,
		    "OOM events so far: %s", a);
	n = snprintf(buf, sizeof(buf), "pressure avg10");
	for (i = k = 0; i < 3; i++) {
		double so = s->psi_avg10[i * 2], fu = s->psi_avg10[i * 2 + 1];

		if (isnan(so) && isnan(fu))
			continue;
		k++;
		snprintf(b, sizeof(b), isnan(so) ? "-" : "%.2f%%", so); /* as report cgroup */
		snprintf(c2, sizeof(c2), isnan(fu) ? "-" : "%.2f%%", fu);
		n += snprintf(buf + n, sizeof(buf) - (size_t)n, "%s %s some %s full %s",
			      k > 1 ? " " : ":", cg_psi_resource[i], b, c2);
	}
	if (!k)
		snprintf(buf + n, sizeof(buf) - (size_t)n, ": no PSI file was readable");
	grid__text(g, x, row++, w, buf, 0, GC_DEFAULT);
	row++;
	if (row + 3 > y + h)
		return;
	/* the processes, the coverage line at the bottom */
	grid__textf(g, x, row++, w, GA_BOLD | GA_UNDERLINE, GC_TITLE,
		    "Processes in this sample: %zu (each its last covered read)  sort %s (s)  "
		    "filter %s (/)",
		    c->nprocs, cg_sorts[ui->sort], *ui->filter ? ui->filter : "none");
	grid__header(g, x, row++, cols, 7, GA_BOLD, GC_TITLE);
	sorted = calloc(c->nprocs ? c->nprocs : 1, sizeof(*sorted));
	if (!sorted)
		return;
	for (i = 0; i < c->nprocs; i++)
		if (!*ui->filter || strstr(c->procs[i].comm, ui->filter))
			sorted[nshown++] = c->procs[i];
	cg_sort_col = ui->sort;
	if (nshown)
		qsort(sorted, nshown, sizeof(*sorted), cmp_cg_proc);
	if (ui->scroll > (int)nshown - 1)
		ui->scroll = nshown ? (int)nshown - 1 : 0;
	if (ui->scroll < 0)
		ui->scroll = 0;
	ui->rows = y + h - 1 - row;
	for (i = (size_t)ui->scroll, r = row; i < nshown && r < y + h - 1; i++, r++) {
		const struct cg_proc *p = &sorted[i];
		const char *cells[7];
		char pid[24];

		snprintf(pid, sizeof(pid), "%lld", (long long)p->pid);
		cells[0] = pid;
		cells[1] = *p->comm ? p->comm : NULL;
		cells[2] = *p->unit ? p->unit : NULL;
		cells[3] = p->rss >= 0 ? replay__bytes(a, sizeof(a), p->rss) : NULL;
		cells[4] = p->pss >= 0 ? replay__bytes(b, sizeof(b), p->pss) : NULL;
		cells[5] = p->uss >= 0 ? replay__bytes(c2, sizeof(c2), p->uss) : NULL;
		cells[6] = p->state;
		grid__row(g, x, r, cols, 7, cells, 0,
			  strcmp(p->state, "covered") ? GC_MUTED : GC_DEFAULT);
	}
	if (!nshown)
		grid__text(g, x, row, w,
			   c->nprocs ? "no process matches the filter"
				     : "no process in this sample",
			   0, GC_MUTED);
	free(sorted);
	if (s->processes >= 0)
		grid__textf(
		    g, x, y + h - 1, w, 0, GC_MUTED,
		    "coverage this interval: %lld processes due: %lld covered, %lld denied, "
		    "%lld gone, %lld skipped; reads took %s%s%s",
		    (long long)s->processes, (long long)s->covered, (long long)s->denied,
		    (long long)s->gone, (long long)s->skipped,
		    s->walk_ns >= 0 ? fmt_ns(b, sizeof(b), (uint64_t)s->walk_ns) : "-",
		    s->budget_ns > 0 ? ", budget " : "",
		    s->budget_ns > 0 ? fmt_ns(d, sizeof(d), (uint64_t)s->budget_ns) : "");
	else
		grid__text(g, x, y + h - 1, w, "coverage: not recorded", 0, GC_MUTED);
}

static const struct replay_view cgroup_view = {
    .name = "Memory",
    .id = "memory",
    .position = 80,
    .probe = "cgroup",
    .source = "cgroup_sample, cgroup_stat, cgroup_psi, cgroup_proc",
    .draw = draw_cg_memory,
    .sort_names = cg_sorts,
    .overview_title = "Memory",
    .overview_position = 30,
    .overview_rows = 4,
    .overview = cgroup_overview,
};

const struct replay_view *const cgroup_views[] = {&cgroup_view, NULL};
