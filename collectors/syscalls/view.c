/* view.c — the syscalls collector's replay tab (Syscalls: the target's syscalls of the interval at
 * the position, with their latency estimates and history) and its section of the Overview (the
 * top five), as a struct replay_view (analyze/replay_views.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/output.h"
#include "analyze/replay_views.h"
#include "collectors/syscalls/replay.h"

static const char *const sys_sorts[] = {"count", "errors", "p50", "p99", "total", "name", NULL};

struct sys_row {
	const struct rm_sys *s;
	uint64_t p50, p99;
	bool has_pct;
};

static int sys_sort_col;

static int cmp_sys(const void *pa, const void *pb)
{
	const struct sys_row *a = pa, *b = pb;
	uint64_t ka = 0, kb = 0;

	switch (sys_sort_col) {
	case 1:
		ka = a->s->errors, kb = b->s->errors;
		break;
	case 2:
		ka = a->has_pct ? a->p50 : 0, kb = b->has_pct ? b->p50 : 0;
		break;
	case 3:
		ka = a->has_pct ? a->p99 : 0, kb = b->has_pct ? b->p99 : 0;
		break;
	case 4:
		ka = a->s->total_ns, kb = b->s->total_ns;
		break;
	case 5:
		return strcmp(a->s->name, b->s->name);
	default:
		ka = a->s->count, kb = b->s->count;
	}
	if (ka != kb)
		return ka > kb ? -1 : 1;
	if (a->s->count != b->s->count)
		return a->s->count > b->s->count ? -1 : 1;
	return strcmp(a->s->name, b->s->name);
}

/* the target's rows of interval II passing the filter (probe overhead left out), sorted;
 * malloc'd */
static struct sys_row *sys_rows(struct replay_model *m, const struct replay_ui *ui, size_t ii,
				int sort, size_t *n)
{
	struct syscalls_series *ss = syscalls_series(m);
	const struct rm_sys_interval *iv = &ss->sysi[ii];
	struct sys_row *r = calloc(iv->n ? iv->n : 1, sizeof(*r));
	size_t i;

	*n = 0;
	if (!r)
		return NULL;
	for (i = 0; i < iv->n; i++) {
		const struct rm_sys *s = &ss->sys[iv->first + i];
		struct sys_row *x;

		if (s->probe) /* probe overhead: shown apart, never among the target's */
			continue;
		if (ui && *ui->filter && !strstr(s->name, ui->filter))
			continue;
		x = &r[(*n)++];
		x->s = s;
		x->has_pct = !syscalls_series__pct(m, ss, s, 50, &x->p50) &&
			     !syscalls_series__pct(m, ss, s, 99, &x->p99);
	}
	sys_sort_col = sort;
	if (*n)
		qsort(r, *n, sizeof(*r), cmp_sys);
	return r;
}

/* the count of syscall NR in each interval up to II, for its history sparkline */
static void sys_history(const struct replay_model *m, size_t ii, int64_t nr, double *v,
			size_t first, size_t n)
{
	struct syscalls_series *ss = syscalls_series(m);
	size_t k, j;

	for (k = 0; k < n; k++) {
		const struct rm_sys_interval *iv = &ss->sysi[first + k];

		v[k] = 0; /* the probe was active: an interval without the syscall counted 0 */
		for (j = 0; j < iv->n; j++)
			if (ss->sys[iv->first + j].nr == nr) {
				v[k] = (double)ss->sys[iv->first + j].count;
				break;
			}
	}
	(void)ii;
}

static double interval_secs(const struct replay_model *m, int64_t iv)
{
	return (double)(iv > 0 ? iv : m->interval_ns) / 1e9;
}

static void draw_syscalls(struct replay_model *m, struct replay_ui *ui, struct grid *g, int x,
			  int y, int w, int h)
{
	struct syscalls_series *ss = syscalls_series(m);
	static const struct grid_col cols[] = {
	    {"syscall", 22, false}, {"count", 11, true}, {"rate/s", 11, true}, {"errors", 8, true},
	    {"p50", 9, true},	    {"p99", 9, true},	 {"mean", 9, true},    {"total", 9, true}};
	char buf[256], a[32], b[32], c[32];
	ssize_t ii = syscalls_series__at(ss, m->pos_ns);
	uint64_t calls = 0, errs = 0, pcalls = 0, ptotal = 0;
	size_t n, i, first, hn, nt = 0;
	struct sys_row *rows;
	int row, tw, hw, off;
	double *v;

	if (replay__not_collected(m, "syscalls", buf, sizeof(buf))) {
		replay__wrapped(g, x, y, w, h, buf, 0, GC_MUTED);
		return;
	}
	if (ii < 0) {
		grid__textf(g, x, y, w, 0, GC_MUTED,
			    "no syscall interval has ended by %s (the first ends at %s)",
			    replay__fmt_pos(a, sizeof(a), m->pos_ns),
			    ss->nsysi ? replay__fmt_pos(b, sizeof(b), ss->sysi[0].t) : "-");
		return;
	}
	if (replay__stale(m, ss->sysi[ii].t)) {
		grid__textf(g, x, y, w, 0, GC_MUTED,
			    "no syscalls in the interval ending at %s (the last ones ended %s)",
			    replay__fmt_pos(a, sizeof(a), m->pos_ns),
			    replay__fmt_pos(b, sizeof(b), ss->sysi[ii].t));
		return;
	}
	rows = sys_rows(m, ui, (size_t)ii, ui->sort, &n);
	if (!rows)
		return;
	for (i = 0; i < ss->sysi[ii].n; i++) {
		const struct rm_sys *s = &ss->sys[ss->sysi[ii].first + i];

		if (s->probe) {
			pcalls += s->count;
			ptotal += s->total_ns;
			continue;
		}
		calls += s->count;
		errs += s->errors;
		nt++;
	}
	grid__textf(g, x, y, w, GA_BOLD, GC_TITLE,
		    "interval %s .. %s (%s): %zu syscalls, %s calls, %s errors  [eBPF]",
		    replay__fmt_pos(a, sizeof(a),
				    ss->sysi[ii].t -
					(int64_t)(interval_secs(m, ss->sysi[ii].interval) * 1e9)),
		    replay__fmt_pos(b, sizeof(b), ss->sysi[ii].t),
		    fmt_ns(c, sizeof(c), (uint64_t)(interval_secs(m, ss->sysi[ii].interval) * 1e9)),
		    nt, fmt_count(buf, sizeof(buf), calls),
		    fmt_count(buf + 64, sizeof(buf) - 64, errs));
	grid__textf(g, x, y + 1, w, 0, GC_MUTED,
		    "sort: %s (s)   filter: %s (/)   latency p50/p99: log2 histogram estimates",
		    sys_sorts[ui->sort], *ui->filter ? ui->filter : "none");
	/* a capture with probe overhead gets its line in every interval: the layout holds */
	off = ss->sys_probe ? 1 : 0;
	if (off)
		grid__textf(g, x, y + 2, w, 0, GC_MUTED,
			    "probe overhead, not counted above: %s calls, %s in the uprobe "
			    "trampolines' syscalls (uretprobe, uprobe)",
			    fmt_count(a, sizeof(a), pcalls), fmt_ns(b, sizeof(b), ptotal));
	{ /* the target's calls per interval, up to this one */
		size_t f0, hn0, k, j;
		double *tv = replay__history((size_t)ii, w - 30, &f0, &hn0), tmax = 0;

		grid__text(g, x, y + 2 + off, 28, "all syscalls per interval", 0, GC_MUTED);
		for (k = 0; tv && k < hn0; k++) {
			const struct rm_sys_interval *iv = &ss->sysi[f0 + k];

			for (j = 0; j < iv->n; j++)
				if (!ss->sys[iv->first + j].probe)
					tv[k] += (double)ss->sys[iv->first + j].count;
			if (tv[k] > tmax)
				tmax = tv[k];
		}
		if (tv)
			grid__sparkline(g, x + 30, y + 2 + off, w - 30, tv, hn0, tmax, GC_GOOD);
		free(tv);
	}
	tw = grid__header(g, x, y + 3 + off, cols, sizeof(cols) / sizeof(cols[0]),
			  GA_BOLD | GA_UNDERLINE, GC_TITLE);
	hw = w - tw - 2;
	if (hw >= 6)
		grid__text(g, x + tw + 1, y + 3 + off, hw, "history (count)",
			   GA_BOLD | GA_UNDERLINE, GC_TITLE);
	if (ui->scroll > (int)n - 1)
		ui->scroll = n ? (int)n - 1 : 0;
	if (ui->scroll < 0)
		ui->scroll = 0;
	ui->rows = h - 4 - off;
	v = replay__history((size_t)ii, hw, &first, &hn);
	for (i = (size_t)ui->scroll, row = y + 4 + off; i < n && row < y + h; i++, row++) {
		const struct sys_row *r = &rows[i];
		char cnt[32], rate[32], err[32], p50[32], p99[32], mean[32], tot[32];
		const char *cells[8];
		double max = 0;
		size_t k;

		cells[0] = r->s->name;
		cells[1] = fmt_count(cnt, sizeof(cnt), r->s->count);
		snprintf(rate, sizeof(rate), "%.1f",
			 (double)r->s->count / interval_secs(m, ss->sysi[ii].interval));
		cells[2] = rate;
		cells[3] = fmt_count(err, sizeof(err), r->s->errors);
		cells[4] = r->has_pct ? fmt_ns(p50, sizeof(p50), r->p50) : NULL;
		cells[5] = r->has_pct ? fmt_ns(p99, sizeof(p99), r->p99) : NULL;
		cells[6] = r->s->completed
			       ? fmt_ns(mean, sizeof(mean),
					(r->s->total_ns + r->s->completed / 2) / r->s->completed)
			       : NULL;
		cells[7] = r->s->completed ? fmt_ns(tot, sizeof(tot), r->s->total_ns) : NULL;
		grid__row(g, x, row, cols, 8, cells, 0, GC_DEFAULT);
		if (v && hw >= 6) {
			sys_history(m, (size_t)ii, r->s->nr, v, first, hn);
			for (k = 0; k < hn; k++)
				if (v[k] > max)
					max = v[k];
			grid__sparkline(g, x + tw + 1, row, hw, v, hn, max, GC_GOOD);
		}
	}
	if (!n)
		grid__text(g, x, y + 4 + off, w, "no syscall matches the filter", 0, GC_MUTED);
	free(v);
	free(rows);
}

/* the Overview's section: the top five of the interval at the position */
static int syscalls_overview(struct replay_model *m, struct grid *g, int x, int y, int w)
{
	struct syscalls_series *ss = syscalls_series(m);
	char buf[256], a[32], b[32];
	ssize_t ii = syscalls_series__at(ss, m->pos_ns);
	int row = y;
	size_t i, n;

	if (replay__not_collected(m, "syscalls", buf, sizeof(buf))) {
		row += replay__wrapped(g, x, row, w, 2, buf, 0, GC_MUTED);
	} else if (ii < 0 || replay__stale(m, ss->sysi[ii].t)) {
		grid__text(g, x, row++, w, "no syscalls in the interval at this position", 0,
			   GC_MUTED);
	} else {
		struct sys_row *rows = sys_rows(m, NULL, (size_t)ii, 0, &n);

		for (i = 0; rows && i < n && i < 5; i++, row++)
			grid__textf(
			    g, x, row, w, 0, GC_DEFAULT, "%-22s %11s calls  %10.1f/s  p99 %s",
			    rows[i].s->name, fmt_count(a, sizeof(a), rows[i].s->count),
			    (double)rows[i].s->count / interval_secs(m, ss->sysi[ii].interval),
			    rows[i].has_pct ? fmt_ns(b, sizeof(b), rows[i].p99) : "-");
		free(rows);
	}
	return row + 1 - y; /* and a blank line */
}

static const struct replay_view syscalls_view = {
    .name = "Syscalls",
    .id = "syscalls",
    .position = 20,
    .probe = "syscalls",
    .source = "syscall_stat and syscall_hist (eBPF raw_syscalls)",
    .draw = draw_syscalls,
    .sort_names = sys_sorts,
    .overview_title = "Top syscalls (this interval)",
    .overview_position = 20,
    .overview_rows = 6, /* five syscalls */
    .overview = syscalls_overview,
};

const struct replay_view *const syscalls_views[] = {&syscalls_view, NULL};
