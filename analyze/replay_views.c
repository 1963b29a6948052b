/* replay_views.c — the replay viewer's tabs: what each shows at the playback position, drawn into
 * a character grid; the frame around them; key handling. */
#include "analyze/replay_views.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "analyze/output.h"
#include "common/duration.h"

/* ------------------------------------------------------------------ helpers */

char *replay__fmt_pos(char *buf, size_t len, int64_t ns)
{
	int64_t ds = (ns < 0 ? 0 : ns) / 100000000; /* tenths of a second */
	int64_t s = ds / 10, h = s / 3600;

	if (h)
		snprintf(buf, len, "%lld:%02lld:%02lld.%lld", (long long)h,
			 (long long)(s / 60 % 60), (long long)(s % 60), (long long)(ds % 10));
	else
		snprintf(buf, len, "%02lld:%02lld.%lld", (long long)(s / 60), (long long)(s % 60),
			 (long long)(ds % 10));
	return buf;
}

int replay__parse_time(const char *s, int64_t *ns)
{
	size_t len = s ? strlen(s) : 0;
	uint64_t v;

	/* "5." is no time here, although ptop-record takes it: replay read a time as the window
	 * "5...", whose start is "5" and whose end "." is none */
	if (!len || (s[len - 1] == '.' && !strchr(s, ':')))
		return -EINVAL;
	if (duration__parse(s, INT64_MAX, DURATION_CLOCK, &v))
		return -EINVAL;
	*ns = (int64_t)v;
	return 0;
}

static const char *val_bytes(char *buf, size_t len, int64_t v)
{
	return v < 0 ? "-" : fmt_bytes(buf, len, (uint64_t)v);
}

/* "not collected — STATE: REASON" for a probe that did not run; NULL when it did */
static const char *not_collected(const struct replay_model *m, int probe, char *buf, size_t len)
{
	const struct probe_info *p;

	if (probe < 0) {
		snprintf(buf, len, "no collector records this yet");
		return buf;
	}
	p = &m->probes[probe];
	if (probe__active(p))
		return NULL;
	snprintf(buf, len, "not collected \u2014 %.15s: %.200s", p->state,
		 *p->reason ? p->reason : "no reason recorded");
	return buf;
}

/* a full-width message, wrapped onto several lines */
static int draw_wrapped(struct grid *g, int x, int y, int w, int h, const char *s, uint8_t attr,
			uint8_t colour)
{
	int rows = 0, len = (int)strlen(s);

	while (len > 0 && rows < h && w > 0) {
		int n = len;

		if (grid__text_width(s) > w) {
			n = w < len ? w : len;
			while (n > 0 && s[n] != ' ' && s[n])
				n--;
			if (n == 0)
				n = w < len ? w : len;
		}
		{
			char line[512];

			snprintf(line, sizeof(line), "%.*s", n, s);
			grid__text(g, x, y + rows, w, line, attr, colour);
		}
		s += n;
		len -= n;
		while (*s == ' ') {
			s++;
			len--;
		}
		rows++;
	}
	return rows;
}

/* values of series [first, i] for a sparkline of W columns: at most 2W, malloc'd */
static double *history(size_t i, int w, size_t *first, size_t *n)
{
	size_t want = (size_t)(w > 0 ? w : 1) * 2;

	*first = i + 1 > want ? i + 1 - want : 0;
	*n = i + 1 - *first;
	return calloc(*n ? *n : 1, sizeof(double));
}

/* the interval at the position is stale when it ended more than one interval before it */
static bool stale(const struct replay_model *m, int64_t t)
{
	int64_t age, twice;

	/* a corrupt DB's times and interval may be 2^63 apart: no signed overflow */
	if (__builtin_sub_overflow(m->pos_ns, t, &age))
		return t < m->pos_ns;
	if (__builtin_mul_overflow(m->interval_ns, 2, &twice))
		return false;
	return age >= twice;
}

/* ------------------------------------------------------------------ syscalls */

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
	const struct rm_sys_interval *iv = &m->sysi[ii];
	struct sys_row *r = calloc(iv->n ? iv->n : 1, sizeof(*r));
	size_t i;

	*n = 0;
	if (!r)
		return NULL;
	for (i = 0; i < iv->n; i++) {
		const struct rm_sys *s = &m->sys[iv->first + i];
		struct sys_row *x;

		if (s->probe) /* probe overhead: shown apart, never among the target's */
			continue;
		if (ui && *ui->filter && !strstr(s->name, ui->filter))
			continue;
		x = &r[(*n)++];
		x->s = s;
		x->has_pct = !replay_model__sys_pct(m, s, 50, &x->p50) &&
			     !replay_model__sys_pct(m, s, 99, &x->p99);
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
	size_t k, j;

	for (k = 0; k < n; k++) {
		const struct rm_sys_interval *iv = &m->sysi[first + k];

		v[k] = 0; /* the probe was active: an interval without the syscall counted 0 */
		for (j = 0; j < iv->n; j++)
			if (m->sys[iv->first + j].nr == nr) {
				v[k] = (double)m->sys[iv->first + j].count;
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
	static const struct grid_col cols[] = {
	    {"syscall", 22, false}, {"count", 11, true}, {"rate/s", 11, true}, {"errors", 8, true},
	    {"p50", 9, true},	    {"p99", 9, true},	 {"mean", 9, true},    {"total", 9, true}};
	char buf[256], a[32], b[32], c[32];
	ssize_t ii = replay_model__sys_at(m, m->pos_ns);
	uint64_t calls = 0, errs = 0, pcalls = 0, ptotal = 0;
	size_t n, i, first, hn, nt = 0;
	struct sys_row *rows;
	int row, tw, hw, off;
	double *v;

	if (not_collected(m, RP_SYSCALLS, buf, sizeof(buf))) {
		draw_wrapped(g, x, y, w, h, buf, 0, GC_MUTED);
		return;
	}
	if (ii < 0) {
		grid__textf(g, x, y, w, 0, GC_MUTED,
			    "no syscall interval has ended by %s (the first ends at %s)",
			    replay__fmt_pos(a, sizeof(a), m->pos_ns),
			    m->nsysi ? replay__fmt_pos(b, sizeof(b), m->sysi[0].t) : "-");
		return;
	}
	if (stale(m, m->sysi[ii].t)) {
		grid__textf(g, x, y, w, 0, GC_MUTED,
			    "no syscalls in the interval ending at %s (the last ones ended %s)",
			    replay__fmt_pos(a, sizeof(a), m->pos_ns),
			    replay__fmt_pos(b, sizeof(b), m->sysi[ii].t));
		return;
	}
	rows = sys_rows(m, ui, (size_t)ii, ui->sort, &n);
	if (!rows)
		return;
	for (i = 0; i < m->sysi[ii].n; i++) {
		const struct rm_sys *s = &m->sys[m->sysi[ii].first + i];

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
				    m->sysi[ii].t -
					(int64_t)(interval_secs(m, m->sysi[ii].interval) * 1e9)),
		    replay__fmt_pos(b, sizeof(b), m->sysi[ii].t),
		    fmt_ns(c, sizeof(c), (uint64_t)(interval_secs(m, m->sysi[ii].interval) * 1e9)),
		    nt, fmt_count(buf, sizeof(buf), calls),
		    fmt_count(buf + 64, sizeof(buf) - 64, errs));
	grid__textf(g, x, y + 1, w, 0, GC_MUTED,
		    "sort: %s (s)   filter: %s (/)   latency p50/p99: log2 histogram estimates",
		    sys_sorts[ui->sort], *ui->filter ? ui->filter : "none");
	/* a capture with probe overhead gets its line in every interval: the layout holds */
	off = m->sys_probe ? 1 : 0;
	if (off)
		grid__textf(g, x, y + 2, w, 0, GC_MUTED,
			    "probe overhead, not counted above: %s calls, %s in the uprobe "
			    "trampolines' syscalls (uretprobe, uprobe)",
			    fmt_count(a, sizeof(a), pcalls), fmt_ns(b, sizeof(b), ptotal));
	{ /* the target's calls per interval, up to this one */
		size_t f0, hn0, k, j;
		double *tv = history((size_t)ii, w - 30, &f0, &hn0), tmax = 0;

		grid__text(g, x, y + 2 + off, 28, "all syscalls per interval", 0, GC_MUTED);
		for (k = 0; tv && k < hn0; k++) {
			const struct rm_sys_interval *iv = &m->sysi[f0 + k];

			for (j = 0; j < iv->n; j++)
				if (!m->sys[iv->first + j].probe)
					tv[k] += (double)m->sys[iv->first + j].count;
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
	v = history((size_t)ii, hw, &first, &hn);
	for (i = (size_t)ui->scroll, row = y + 4 + off; i < n && row < y + h; i++, row++) {
		const struct sys_row *r = &rows[i];
		char cnt[32], rate[32], err[32], p50[32], p99[32], mean[32], tot[32];
		const char *cells[8];
		double max = 0;
		size_t k;

		cells[0] = r->s->name;
		cells[1] = fmt_count(cnt, sizeof(cnt), r->s->count);
		snprintf(rate, sizeof(rate), "%.1f",
			 (double)r->s->count / interval_secs(m, m->sysi[ii].interval));
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

/* ------------------------------------------------------------------ overview */

static void draw_memory(struct replay_model *m, struct replay_ui *ui, struct grid *g, int x, int y,
			int w, int h);
static bool cgroup_capture(const struct replay_model *m);
static void draw_cg_lines(struct replay_model *m, struct grid *g, int x, int y, int w, int h);
static void draw_timeline(struct replay_model *m, struct replay_ui *ui, struct grid *g, int x,
			  int y, int w, int h);

static void draw_cpu_line(struct replay_model *m, struct grid *g, int x, int y, int w)
{
	char buf[256], a[32];
	ssize_t ci = replay_model__cpu_at(m, m->pos_ns);
	size_t first, n, k;
	double *v, pct;

	if (not_collected(m, RP_CPU, buf, sizeof(buf))) {
		grid__textf(g, x, y, w, 0, GC_MUTED, "CPU      %s", buf);
		return;
	}
	if (ci < 0) {
		grid__text(g, x, y, w, "CPU      no sample yet", 0, GC_MUTED);
		return;
	}
	pct = replay_model__cpu_pct(m, (size_t)ci);
	grid__textf(g, x, y, 32, GA_BOLD, GC_DEFAULT, "CPU %7s %s", fmt_pct(a, sizeof(a), pct),
		    m->cpu[ci].oncpu >= 0		 ? "eBPF"
		    : !strcmp(m->mode, "cgroup") ? "cpu.stat"
						 : "/proc");
	v = history((size_t)ci, w - 34, &first, &n);
	if (!v)
		return;
	for (k = 0; k < n; k++)
		v[k] = replay_model__cpu_pct(m, first + k);
	grid__sparkline(g, x + 34, y, w - 34, v, n, 100.0, GC_GOOD);
	free(v);
	grid__textf(g, x, y + 1, 32, 0, GC_MUTED, "threads %s  samples %zu",
		    m->cpu[ci].threads >= 0 ? fmt_count(a, sizeof(a), (uint64_t)m->cpu[ci].threads)
					    : "-",
		    (size_t)ci + 1);
}

static void draw_mem_lines(struct replay_model *m, struct grid *g, int x, int y, int w, int h)
{
	static const char *const names[] = {"RSS", "PSS", "USS"};
	char buf[256], a[32], b[32];
	ssize_t mi = replay_model__mem_at(m, m->pos_ns);
	int k;

	if (not_collected(m, RP_MEMORY, buf, sizeof(buf))) {
		draw_wrapped(g, x, y, w, h, buf, 0, GC_MUTED);
		return;
	}
	if (mi < 0) {
		grid__text(g, x, y, w, "no memory sample yet", 0, GC_MUTED);
		return;
	}
	for (k = 0; k < 3 && k < h; k++) {
		size_t first, n, i;
		double *v, max = 0;

		v = history((size_t)mi, w - 24, &first, &n);
		if (!v)
			return;
		for (i = 0; i < n; i++) {
			const struct rm_mem *s = &m->mem[first + i];
			int64_t x2 = k == 0 ? s->rss : k == 1 ? s->pss : s->uss;

			v[i] = x2 < 0 ? NAN : (double)x2;
			if (x2 > max)
				max = (double)x2;
		}
		{
			const struct rm_mem *s = &m->mem[mi];
			int64_t cur = k == 0 ? s->rss : k == 1 ? s->pss : s->uss;

			grid__textf(g, x, y + k, 22, k == 1 ? GA_BOLD : 0, GC_DEFAULT, "%s %10s",
				    names[k], val_bytes(a, sizeof(a), cur));
		}
		grid__sparkline(g, x + 24, y + k, w - 24, v, n, max, GC_GOOD);
		free(v);
	}
	(void)b;
}

static void draw_overview(struct replay_model *m, struct replay_ui *ui, struct grid *g, int x,
			  int y, int w, int h)
{
	char buf[256], a[32], b[32], c[32];
	ssize_t ii = replay_model__sys_at(m, m->pos_ns);
	int row = y, lw = w;
	size_t i, n;

	(void)ui;
	grid__text(g, x, row++, w, "CPU", GA_BOLD | GA_UNDERLINE, GC_TITLE);
	draw_cpu_line(m, g, x, row, lw);
	row += 3;

	grid__text(g, x, row++, w, "Top syscalls (this interval)", GA_BOLD | GA_UNDERLINE,
		   GC_TITLE);
	if (not_collected(m, RP_SYSCALLS, buf, sizeof(buf))) {
		row += draw_wrapped(g, x, row, w, 2, buf, 0, GC_MUTED);
	} else if (ii < 0 || stale(m, m->sysi[ii].t)) {
		grid__text(g, x, row++, w, "no syscalls in the interval at this position", 0,
			   GC_MUTED);
	} else {
		struct sys_row *rows = sys_rows(m, NULL, (size_t)ii, 0, &n);

		for (i = 0; rows && i < n && i < 5; i++, row++)
			grid__textf(
			    g, x, row, w, 0, GC_DEFAULT, "%-22s %11s calls  %10.1f/s  p99 %s",
			    rows[i].s->name, fmt_count(a, sizeof(a), rows[i].s->count),
			    (double)rows[i].s->count / interval_secs(m, m->sysi[ii].interval),
			    rows[i].has_pct ? fmt_ns(b, sizeof(b), rows[i].p99) : "-");
		free(rows);
	}
	row++;
	if (row + 4 >= y + h)
		return;
	grid__text(g, x, row++, w, "Memory", GA_BOLD | GA_UNDERLINE, GC_TITLE);
	if (cgroup_capture(m))
		draw_cg_lines(m, g, x, row, lw, 3);
	else
		draw_mem_lines(m, g, x, row, lw, 3);
	row += 4;
	if (row + 2 >= y + h)
		return;
	grid__text(g, x, row++, w, "Events", GA_BOLD | GA_UNDERLINE, GC_TITLE);
	grid__textf(g, x, row++, w, 0, GC_DEFAULT,
		    "events recorded %s   drops by %s: %s   capture %s",
		    fmt_count(a, sizeof(a), m->events), replay__fmt_pos(c, sizeof(c), m->pos_ns),
		    fmt_count(b, sizeof(b), replay_model__drops_until(m, m->pos_ns)),
		    m->meta.complete ? "complete" : m->meta.read_end);
	{
		ssize_t ei = replay_model__event_at(m, m->pos_ns);

		if (ei >= 0)
			grid__textf(g, x, row++, w, 0,
				    m->events_list[ei].warn ? GC_WARN : GC_DEFAULT,
				    "latest event %s %s: %s",
				    replay__fmt_pos(c, sizeof(c), m->events_list[ei].t),
				    m->events_list[ei].kind, m->events_list[ei].text);
		else
			grid__text(g, x, row++, w, "latest event: none yet (Timeline tab: 7)", 0,
				   GC_MUTED);
	}
	/* the other tabs in one line each: what they hold at this position, or why nothing */
	for (i = 0; i < replay_nviews && row < y + h; i++) {
		const struct replay_view *v = &replay_views[i];

		if (v->draw == draw_overview || v->draw == draw_syscalls ||
		    v->draw == draw_memory || v->draw == draw_timeline)
			continue;
		if (v->probe == RP_HEAP && !not_collected(m, RP_HEAP, buf, sizeof(buf))) {
			ssize_t hi = replay_model__heap_at(m, m->pos_ns);

			grid__textf(g, x, row++, w, 0, GC_DEFAULT, "%-9s live %s", v->name,
				    hi >= 0 ? val_bytes(a, sizeof(a), m->heap[hi].live_bytes)
					    : "no snapshot yet");
			continue;
		}
		if (v->probe == RP_CPU && !not_collected(m, RP_CPU, buf, sizeof(buf))) {
			ssize_t ci = replay_model__cpu_at(m, m->pos_ns);

			grid__textf(g, x, row++, w, 0, GC_DEFAULT, "%-9s %s threads", v->name,
				    ci >= 0 && m->cpu[ci].threads >= 0
					? fmt_count(a, sizeof(a), (uint64_t)m->cpu[ci].threads)
					: "-");
			continue;
		}
		not_collected(m, v->probe, buf, sizeof(buf));
		grid__textf(g, x, row++, w, 0, GC_MUTED, "%-9s %s", v->name, buf);
	}
}

/* ------------------------------------------------------------------ memory */

static const char *const mem_sorts[] = {"pss", "rss", "size", "name", NULL};

static int mem_sort_col;

static int cmp_group(const void *pa, const void *pb)
{
	const struct rm_vma_group *a = pa, *b = pb;
	int64_t ka, kb;

	if (mem_sort_col == 3)
		return strcmp(a->name, b->name);
	ka = mem_sort_col == 1 ? a->rss : mem_sort_col == 2 ? a->size : a->pss;
	kb = mem_sort_col == 1 ? b->rss : mem_sort_col == 2 ? b->size : b->pss;
	if (ka != kb)
		return ka > kb ? -1 : 1;
	return strcmp(a->name, b->name);
}

/* the VMAs of the group drilled into, in snapshot SI */
static void draw_vmas(struct replay_model *m, struct replay_ui *ui, struct grid *g, int x, int y,
		      int w, int h, size_t si)
{
	static const struct grid_col cols[] = {
	    {"address", 33, false}, {"perms", 5, false}, {"offset", 10, true}, {"size", 10, true},
	    {"rss", 10, true},	    {"pss", 10, true},	 {"uss", 10, true},    {"swap", 10, true}};
	char a[32], b[32], c[32], d[32], e[32], f[32], addr[48], off[24];
	struct rm_vma *v = NULL;
	size_t n = 0, i;
	int r;

	if (replay_model__vmas(m, si, ui->drill, &v, &n)) {
		grid__text(g, x, y, w, "VMAs: cannot read the snapshot", 0, GC_WARN);
		return;
	}
	grid__textf(g, x, y, w, GA_BOLD | GA_UNDERLINE, GC_TITLE,
		    "VMAs of %s at snapshot %s: %zu  (Esc: back to the groups)", ui->drill,
		    replay__fmt_pos(a, sizeof(a), m->snaps[si].t), n);
	grid__header(g, x, y + 1, cols, 8, GA_BOLD, GC_TITLE);
	if (ui->scroll > (int)n - 1)
		ui->scroll = n ? (int)n - 1 : 0;
	ui->rows = h - 2;
	for (i = (size_t)ui->scroll, r = y + 2; i < n && r < y + h; i++, r++) {
		const char *cells[8];

		snprintf(addr, sizeof(addr), "%016llx-%016llx", (unsigned long long)v[i].start,
			 (unsigned long long)v[i].end);
		snprintf(off, sizeof(off), "%llx", (unsigned long long)v[i].offset);
		cells[0] = addr;
		cells[1] = v[i].perms;
		cells[2] = v[i].offset >= 0 ? off : NULL;
		cells[3] = v[i].size >= 0 ? val_bytes(a, sizeof(a), v[i].size) : NULL;
		cells[4] = v[i].rss >= 0 ? val_bytes(b, sizeof(b), v[i].rss) : NULL;
		cells[5] = v[i].pss >= 0 ? val_bytes(c, sizeof(c), v[i].pss) : NULL;
		cells[6] = v[i].uss >= 0 ? val_bytes(d, sizeof(d), v[i].uss) : NULL;
		cells[7] = v[i].swap >= 0 ? val_bytes(e, sizeof(e), v[i].swap) : NULL;
		grid__row(g, x, r, cols, 8, cells, 0, GC_DEFAULT);
	}
	(void)f;
	free(v);
}

/* ------------------------------------------------------------------ memory of a whole cgroup */

/* a capture of a whole cgroup (ptop-record --cgroup): its collector replaces the per-process ones
 */
static bool cgroup_capture(const struct replay_model *m)
{
	return probe__active(&m->probes[RP_CGROUP]) && !probe__active(&m->probes[RP_MEMORY]);
}

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
	snprintf(buf, len, "current %s / limit %s%s  peak %s", val_bytes(a, sizeof(a), s->current),
		 s->limit < 0 ? "none" : val_bytes(b, sizeof(b), s->limit), d,
		 val_bytes(c, sizeof(c), s->peak));
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
	size_t first, n, k;
	double *v, max = 0;

	if (w < 6)
		return;
	v = history(ci, w, &first, &n);
	for (k = 0; v && k < n; k++) {
		const struct cg_sample *s = &m->cg.s[first + k];

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
	ssize_t ci = replay_model__cg_at(m, m->pos_ns);
	const struct rm_cgroup *c = NULL;
	const struct cg_sample *s;
	char buf[256], a[160];

	if (ci < 0) {
		grid__text(g, x, y, w, "no cgroup sample yet", 0, GC_MUTED);
		return;
	}
	s = &m->cg.s[ci];
	cg_usage(s, a, sizeof(a));
	grid__textf(g, x, y, w, GA_BOLD, GC_DEFAULT, "cgroup %s %s  %s",
		    *m->cg.path ? m->cg.path : "?", *s->lane ? s->lane : "-", a);
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
	if (replay_model__cgroup(m, (size_t)ci, &c)) {
		grid__text(g, x, y + 2, w, "cgroup: cannot read the samples", 0, GC_WARN);
		return;
	}
	cg_oom_text(c, buf, sizeof(buf));
	grid__textf(g, x, y + 2, w, 0, GC_DEFAULT, "OOM so far: %s", buf);
}

static const char *const cg_sorts[] = {"pss", "rss", "uss", "comm", NULL}; /* as mem_sorts */

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
	static const struct grid_col cols[] = {
	    {"pid", 8, true},  {"comm", 16, false}, {"unit", 24, false}, {"rss", 10, true},
	    {"pss", 10, true}, {"uss", 10, true},   {"state", 8, false}};
	ssize_t ci = replay_model__cg_at(m, m->pos_ns);
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
		    m->cg.n ? replay__fmt_pos(b, sizeof(b), m->cg.s[0].time_ns - m->meta.base_ns)
			    : "-");
		return;
	}
	s = &m->cg.s[ci];
	if (replay_model__cgroup(m, (size_t)ci, &c)) {
		grid__text(g, x, y, w, "cgroup: cannot read the samples", 0, GC_WARN);
		return;
	}
	grid__textf(g, x, row++, w, GA_BOLD | GA_UNDERLINE, GC_TITLE,
		    "cgroup %s  lane %s  sample %zu of %zu at %s  [cgroup collector]",
		    *m->cg.path ? m->cg.path : "(path not recorded)", *s->lane ? s->lane : "none",
		    (size_t)ci + 1, m->cg.n,
		    replay__fmt_pos(b, sizeof(b), s->time_ns - m->meta.base_ns));
	if (*m->cg.v1_path)
		grid__textf(g, x, row++, w, 0, GC_MUTED, "v1 memory cgroup: %s", m->cg.v1_path);
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
			n +=
			    snprintf(buf + n, sizeof(buf) - (size_t)n, " %s %s",
				     cg_stat__fig_name(k), val_bytes(b, sizeof(b), c->stat.fig[k]));
	if (!i)
		snprintf(buf + n, sizeof(buf) - (size_t)n, " %s",
			 c->stat.at ? "none of its figures in this sample" : "not read");
	row += draw_wrapped(g, x, row, w, 2, buf, 0, GC_DEFAULT);
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
		cells[3] = p->rss >= 0 ? val_bytes(a, sizeof(a), p->rss) : NULL;
		cells[4] = p->pss >= 0 ? val_bytes(b, sizeof(b), p->pss) : NULL;
		cells[5] = p->uss >= 0 ? val_bytes(c2, sizeof(c2), p->uss) : NULL;
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

static void draw_memory(struct replay_model *m, struct replay_ui *ui, struct grid *g, int x, int y,
			int w, int h)
{
	static const struct grid_col cols[] = {
	    {"mapping", 40, false}, {"vmas", 5, true}, {"size", 10, true}, {"rss", 10, true},
	    {"pss", 10, true},	    {"uss", 10, true}, {"swap", 10, true}};
	char buf[256], a[32], b[32], c[32], d[32], e[32], f[32];
	ssize_t mi = replay_model__mem_at(m, m->pos_ns), si;
	const struct rm_vma_group *groups;
	struct rm_vma_group *sorted = NULL;
	size_t ng = 0, i, nshown = 0;
	int row = y, r;

	if (cgroup_capture(m)) {
		draw_cg_memory(m, ui, g, x, y, w, h);
		return;
	}
	grid__text(g, x, row++, w, "RSS / PSS / USS over time  [/proc smaps_rollup]",
		   GA_BOLD | GA_UNDERLINE, GC_TITLE);
	draw_mem_lines(m, g, x, row, w, 3);
	row += 4;
	if (!not_collected(m, RP_MEMORY, buf, sizeof(buf)) && mi >= 0) {
		const struct rm_mem *s = &m->mem[mi];
		struct {
			const char *name;
			int64_t v;
		} parts[] = {{"anon", s->pss_anon},
			     {"file", s->pss_file},
			     {"shmem", s->pss_shmem},
			     {"swap", s->swap}};

		grid__textf(g, x, row++, w, GA_BOLD | GA_UNDERLINE, GC_TITLE,
			    "Composition of PSS at %s (sample %zu of %zu)",
			    replay__fmt_pos(a, sizeof(a), s->t), (size_t)mi + 1, m->nmem);
		for (i = 0; i < 4; i++, row++) {
			grid__textf(g, x, row, 20, 0, GC_DEFAULT, "%-6s %12s", parts[i].name,
				    val_bytes(a, sizeof(a), parts[i].v));
			if (parts[i].v >= 0 && s->pss > 0)
				grid__bar(g, x + 22, row, 30,
					  (double)parts[i].v /
					      (double)(s->pss + (i == 3 ? s->swap : 0)),
					  GC_GOOD);
		}
		grid__textf(g, x, row++, w, 0, GC_MUTED, "faults this interval: minor %s, major %s",
			    s->minflt >= 0 ? fmt_count(a, sizeof(a), (uint64_t)s->minflt) : "-",
			    s->majflt >= 0 ? fmt_count(b, sizeof(b), (uint64_t)s->majflt) : "-");
		row++;
	}
	if (row >= y + h)
		return;
	si = replay_model__snap_at(m, m->pos_ns);
	if (not_collected(m, RP_VMAS, buf, sizeof(buf))) {
		grid__text(g, x, row++, w, "VMA groups", GA_BOLD | GA_UNDERLINE, GC_TITLE);
		draw_wrapped(g, x, row, w, y + h - row, buf, 0, GC_MUTED);
		return;
	}
	if (si < 0) {
		grid__text(g, x, row++, w, "VMA groups: no snapshot taken by this position", 0,
			   GC_MUTED);
		return;
	}
	if (*ui->drill) {
		draw_vmas(m, ui, g, x, row, w, y + h - row, (size_t)si);
		return;
	}
	if (replay_model__vma_groups(m, (size_t)si, &groups, &ng)) {
		grid__text(g, x, row++, w, "VMA groups: cannot read the snapshot", 0, GC_WARN);
		return;
	}
	grid__textf(g, x, row++, w, GA_BOLD | GA_UNDERLINE, GC_TITLE,
		    "VMA groups at snapshot %s (%lld VMAs; %zu snapshots up to here)  sort %s (s)  "
		    "filter %s (/)",
		    replay__fmt_pos(a, sizeof(a), m->snaps[si].t),
		    (long long)m->snaps[si].vma_count, (size_t)si + 1, mem_sorts[ui->sort],
		    *ui->filter ? ui->filter : "none");
	grid__header(g, x, row++, cols, 7, GA_BOLD, GC_TITLE);
	sorted = calloc(ng ? ng : 1, sizeof(*sorted));
	if (!sorted)
		return;
	for (i = 0; i < ng; i++)
		if (!*ui->filter || strstr(groups[i].name, ui->filter))
			sorted[nshown++] = groups[i];
	mem_sort_col = ui->sort;
	if (nshown)
		qsort(sorted, nshown, sizeof(*sorted), cmp_group);
	if (ui->scroll > (int)nshown - 1)
		ui->scroll = nshown ? (int)nshown - 1 : 0;
	if (ui->scroll < 0)
		ui->scroll = 0;
	ui->rows = y + h - row;
	ui->selected[0] = 0;
	for (i = (size_t)ui->scroll, r = row; i < nshown && r < y + h; i++, r++) {
		const struct rm_vma_group *gr = &sorted[i];
		char vm[32];
		const char *cells[7];
		const char *name = gr->name;
		int nw = grid__text_width(name);

		if (nw > 40) /* keep the end of a long path: the file name */
			name += strlen(name) - 39;
		snprintf(vm, sizeof(vm), "%lld", (long long)gr->vmas);
		cells[0] = name;
		cells[1] = vm;
		cells[2] = gr->size >= 0 ? val_bytes(a, sizeof(a), gr->size) : NULL;
		cells[3] = gr->rss >= 0 ? val_bytes(b, sizeof(b), gr->rss) : NULL;
		cells[4] = gr->pss >= 0 ? val_bytes(c, sizeof(c), gr->pss) : NULL;
		cells[5] = gr->uss >= 0 ? val_bytes(d, sizeof(d), gr->uss) : NULL;
		cells[6] = gr->swap >= 0 ? val_bytes(e, sizeof(e), gr->swap) : NULL;
		grid__row(g, x, r, cols, 7, cells, 0, GC_DEFAULT);
		if (i == (size_t)ui->scroll) { /* the selected row: Enter drills into it */
			grid__paint(g, x, r, w, 1, GA_REVERSE, GC_ACCENT);
			snprintf(ui->selected, sizeof(ui->selected), "%s", gr->name);
		}
	}
	(void)f;
	free(sorted);
}

static int memory_key(struct replay_model *m, struct replay_ui *ui, int key)
{
	(void)m;
	if (key == RK_ENTER && !*ui->drill && *ui->selected) {
		snprintf(ui->drill, sizeof(ui->drill), "%s", ui->selected);
		ui->scroll = 0;
		return 1;
	}
	if ((key == RK_ESC || key == RK_BACKSPACE) && *ui->drill) {
		ui->drill[0] = 0;
		ui->scroll = 0;
		return 1;
	}
	return 0;
}

/* ------------------------------------------------------------------ threads, heap, timeline */

static void draw_threads(struct replay_model *m, struct replay_ui *ui, struct grid *g, int x, int y,
			 int w, int h)
{
	char buf[256], a[32];
	ssize_t ci = replay_model__cpu_at(m, m->pos_ns);

	(void)ui;
	if (not_collected(m, RP_CPU, buf, sizeof(buf))) {
		draw_wrapped(g, x, y, w, h, buf, 0, GC_MUTED);
		return;
	}
	grid__text(g, x, y, w, "Thread count  [/proc status]", GA_BOLD | GA_UNDERLINE, GC_TITLE);
	if (ci >= 0 && m->cpu[ci].threads >= 0) {
		size_t first, n, k;
		double *v = history((size_t)ci, w - 20, &first, &n), max = 0;

		grid__textf(g, x, y + 1, 18, GA_BOLD, GC_DEFAULT, "threads %s",
			    fmt_count(a, sizeof(a), (uint64_t)m->cpu[ci].threads));
		for (k = 0; v && k < n; k++) {
			int64_t t = m->cpu[first + k].threads;

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
	draw_wrapped(g, x, y + 3, w, 2,
		     "per-thread CPU, state and syscalls: no collector records this yet", 0,
		     GC_MUTED);
}

static const char *basename_of(const char *path)
{
	const char *s = path ? strrchr(path, '/') : NULL;

	return s ? s + 1 : path ? path : "";
}

static const struct heap_site *find_site(const struct heap_sites *hs, const char *func)
{
	for (size_t k = 0; hs && k < hs->n; k++)
		if (!strcmp(hs->site[k].func, func))
			return &hs->site[k];
	return NULL;
}

/* the stack of the heap site drilled into (ui->drill names its function) */
static void draw_heap_stack(struct replay_ui *ui, struct grid *g, int x, int y, int w, int h,
			    struct heap_sites *iv, struct heap_sites *hist)
{
	const struct heap_site *s = find_site(iv, ui->drill);
	struct heap_sites *from = iv;
	char *text = NULL, *p, *e;
	size_t len = 0;
	int row = y + 1, skip = ui->scroll;
	FILE *f;

	if (!s) {
		s = find_site(hist, ui->drill);
		from = hist;
	}
	grid__textf(g, x, y, w, GA_BOLD | GA_UNDERLINE, GC_TITLE,
		    "Stack of %s, the allocating function first  (Esc: back to the call sites)",
		    ui->drill);
	if (!s) {
		grid__text(g, x, row, w, "no such call site by this position", 0, GC_MUTED);
		return;
	}
	f = open_memstream(&text, &len);
	if (!f || heap_sites__stack(from, s->stack, f) || fclose(f)) {
		if (f)
			fclose(f);
		free(text);
		grid__text(g, x, row, w, "cannot print the stack", 0, GC_WARN);
		return;
	}
	ui->rows = h - 1;
	for (p = text; p && *p && row < y + h; p = e ? e + 1 : NULL) {
		e = strchr(p, '\n');
		if (e)
			*e = 0;
		if (skip-- > 0)
			continue;
		grid__text(g, x, row++, w, p + strspn(p, " "), 0, GC_DEFAULT);
		if (!e)
			break;
	}
	free(text);
}

static void draw_heap(struct replay_model *m, struct replay_ui *ui, struct grid *g, int x, int y,
		      int w, int h)
{
	static const struct grid_col cols[] = {
	    {"live", 10, true},	    {"live#", 8, true},	     {"allocated", 10, true},
	    {"allocs", 8, true},    {"function", 28, false}, {"file:line", 34, false},
	    {"module", 20, false}};
	char buf[256], a[32], b[32], c[32], d[32], loc[300];
	ssize_t hi = replay_model__heap_at(m, m->pos_ns);
	struct heap_sites *iv = NULL, *hist = NULL;
	size_t first, n, k, shown;
	double *v, max = 0;
	int row, sus_rows, r, err;

	if (not_collected(m, RP_HEAP, buf, sizeof(buf))) {
		draw_wrapped(g, x, y, w, h, buf, 0, GC_MUTED);
		return;
	}
	if (hi < 0) {
		grid__text(g, x, y, w, "no heap snapshot by this position", 0, GC_MUTED);
		return;
	}
	err = replay_model__heap_sites(m, (size_t)hi, &iv, &hist);
	if (!err && *ui->drill) {
		draw_heap_stack(ui, g, x, y, w, h, iv, hist);
		return;
	}
	grid__textf(g, x, y, w, GA_BOLD | GA_UNDERLINE, GC_TITLE,
		    "Heap at %s (lane %s, snapshot %zu of %zu)",
		    replay__fmt_pos(a, sizeof(a), m->heap[hi].t), m->heap[hi].lane, (size_t)hi + 1,
		    m->nheap);
	grid__textf(g, x, y + 1, w, 0, GC_DEFAULT, "this interval: %s allocations, %s",
		    m->heap[hi].alloc_count >= 0
			? fmt_count(a, sizeof(a), (uint64_t)m->heap[hi].alloc_count)
			: "-",
		    val_bytes(b, sizeof(b), m->heap[hi].alloc_bytes));
	row = y + 2;
	if (m->heap[hi].live_bytes < 0) {
		grid__text(g, x, row++, w, "live bytes, leaks: not measured by this lane", 0,
			   GC_MUTED);
	} else {
		grid__textf(g, x, row, 26, GA_BOLD, GC_DEFAULT, "live %s",
			    val_bytes(c, sizeof(c), m->heap[hi].live_bytes));
		v = history((size_t)hi, w - 28, &first, &n);
		for (k = 0; v && k < n; k++) {
			int64_t l = m->heap[first + k].live_bytes;

			v[k] = l < 0 ? NAN : (double)l;
			if (l > max)
				max = (double)l;
		}
		if (v)
			grid__sparkline(g, x + 28, row, w - 28, v, n, max, GC_GOOD);
		free(v);
		row++;
		grid__textf(g, x, row++, w, 0, GC_DEFAULT,
			    "older than the leak age: %s",
			    val_bytes(a, sizeof(a), m->heap[hi].leak_bytes));
	}
	if (m->heap[hi].sample_bytes > 0)
		grid__textf(g, x, row++, w, 0, GC_MUTED,
			    "call sites sampled every %lld bytes on average: totals exact, split "
			    "estimated",
			    (long long)m->heap[hi].sample_bytes);
	if (err) {
		grid__textf(g, x, row, w, 0, GC_WARN, "call sites: cannot read them (%s)",
			    strerror(-err));
		return;
	}
	if (!iv->collected || !iv->n_snap) {
		grid__text(g, x, row, w, "call sites: none in this interval", 0, GC_MUTED);
		return;
	}
	row += draw_wrapped(g, x, row, w, 2, iv->census, 0, GC_MUTED);
	/* the leak suspects take the bottom: their title and up to 5 */
	sus_rows = hist->live_measured ? 1 + (int)(hist->n_suspect ? (hist->n_suspect < 5
									  ? hist->n_suspect
									  : 5)
								  : 1)
				       : 0;
	if (y + h - row < sus_rows + 4)
		sus_rows = 0;
	grid__textf(g, x, row++, w, GA_BOLD | GA_UNDERLINE, GC_TITLE,
		    "Top call sites in this interval by %s: %zu  filter %s (/)  Enter: stack",
		    iv->live_measured ? "live bytes" : "bytes allocated", iv->n,
		    *ui->filter ? ui->filter : "none");
	grid__header(g, x, row++, cols, 7, GA_BOLD, GC_TITLE);
	ui->selected[0] = 0;
	ui->rows = y + h - sus_rows - row;
	for (k = 0, shown = 0, r = row; k < iv->n; k++) {
		const struct heap_site *s = &iv->site[k];
		const char *cells[7];

		if (*ui->filter && !strstr(s->func, ui->filter))
			continue;
		if (shown++ < (size_t)ui->scroll)
			continue;
		if (r >= y + h - sus_rows)
			continue;
		if (s->file && s->line)
			snprintf(loc, sizeof(loc), "%s:%u", s->file, s->line);
		else
			snprintf(loc, sizeof(loc), "%s", s->file ? s->file : "");
		cells[0] = s->live_bytes >= 0 ? val_bytes(a, sizeof(a), s->live_bytes) : NULL;
		cells[1] = s->live_count >= 0 ? fmt_count(b, sizeof(b), (uint64_t)s->live_count)
					      : NULL;
		cells[2] = fmt_bytes(c, sizeof(c), s->alloc_bytes);
		cells[3] = fmt_count(d, sizeof(d), s->alloc_count);
		cells[4] = s->func;
		cells[5] = *loc ? loc + (strlen(loc) > 34 ? strlen(loc) - 34 : 0) : NULL;
		cells[6] = basename_of(s->module);
		grid__row(g, x, r, cols, 7, cells, 0, GC_DEFAULT);
		if (shown - 1 == (size_t)ui->scroll) { /* the selected row: Enter drills into it */
			grid__paint(g, x, r, w, 1, GA_REVERSE, GC_ACCENT);
			snprintf(ui->selected, sizeof(ui->selected), "%s", s->func);
		}
		r++;
	}
	if (ui->scroll > 0 && (size_t)ui->scroll >= shown)
		ui->scroll = shown ? (int)shown - 1 : 0;
	if (!sus_rows)
		return;
	row = y + h - sus_rows;
	grid__textf(g, x, row++, w, GA_BOLD | GA_UNDERLINE, GC_TITLE,
		    "Leak suspects up to here: %zu (live allocations older than %s, by trend score)",
		    hist->n_suspect, fmt_ns(a, sizeof(a), (uint64_t)hist->leak_age_ns));
	if (!hist->n_suspect)
		grid__text(g, x, row, w, "none", 0, GC_MUTED);
	for (k = 0; k < hist->n_suspect && row < y + h; k++, row++) {
		const struct heap_site *s = &hist->suspect[k];

		grid__textf(g, x, row, w, 0, GC_WARN,
			    "score %.2f (%s, %zu snapshots)  live %s  oldest %s  %s (%s)",
			    s->trend.score, s->trend.confidence, s->trend.n,
			    val_bytes(a, sizeof(a), s->live_bytes),
			    s->oldest_age_ns >= 0 ? fmt_ns(b, sizeof(b), (uint64_t)s->oldest_age_ns)
						  : "-",
			    s->func, basename_of(s->module));
	}
}

static void draw_timeline(struct replay_model *m, struct replay_ui *ui, struct grid *g, int x,
			  int y, int w, int h)
{
	ssize_t last = replay_model__event_at(m, m->pos_ns), i;
	char a[32];
	int row = y + 1;

	grid__textf(
	    g, x, y, w, GA_BOLD | GA_UNDERLINE, GC_TITLE,
	    "Events up to %s, newest first: %zd of %zu (drops, mappings, VMA snapshots, probe "
	    "changes, the end)",
	    replay__fmt_pos(a, sizeof(a), m->pos_ns), last + 1, m->nevents);
	if (ui->scroll > last)
		ui->scroll = last > 0 ? (int)last : 0;
	ui->rows = h - 1;
	for (i = last - ui->scroll; i >= 0 && row < y + h; i--, row++) {
		const struct rm_event *e = &m->events_list[i];

		grid__textf(g, x, row, w, 0, e->warn ? GC_WARN : GC_DEFAULT, "%9s  %-13s %s",
			    replay__fmt_pos(a, sizeof(a), e->t), e->kind, e->text);
	}
	if (last < 0)
		grid__text(g, x, row, w, "no event by this position", 0, GC_MUTED);
}

static void draw_none(struct replay_model *m, struct replay_ui *ui, struct grid *g, int x, int y,
		      int w, int h)
{
	(void)m;
	(void)ui;
	draw_wrapped(g, x, y, w, h, "no collector records this yet", 0, GC_MUTED);
}

const struct replay_view replay_views[] = {
    {"Overview", "overview", -1, "every collector, summarized", draw_overview, NULL},
    {"Syscalls", "syscalls", RP_SYSCALLS, "syscall_stat and syscall_hist (eBPF raw_syscalls)",
     draw_syscalls, sys_sorts},
    {"Network", "network", -1, "no collector records network activity yet", draw_none, NULL},
    {"Threads", "threads", RP_CPU, "cpu_sample threads (/proc)", draw_threads, NULL},
    {"I/O", "io", -1, "no collector records I/O yet", draw_none, NULL},
    {"FDs", "fds", -1, "no collector records file descriptors yet", draw_none, NULL},
    {"Timeline", "timeline", -1, "drop_notice, mapping (new, gone), vma_snapshot, capture end",
     draw_timeline, NULL},
    {"Memory", "memory", RP_MEMORY, "memory_sample (/proc smaps_rollup, statm), vma (smaps)",
     draw_memory, mem_sorts, memory_key},
    {"Heap", "heap", RP_HEAP, "heap_snapshot, heap_site, stack (allocator uprobes)", draw_heap,
     NULL, memory_key},
};
const size_t replay_nviews = sizeof(replay_views) / sizeof(replay_views[0]);

int replay__find_view(const char *s)
{
	size_t i;

	if (!s)
		return -1;
	if (s[0] >= '1' && s[0] <= '9' && !s[1])
		return s[0] - '1' < (int)replay_nviews ? s[0] - '1' : -1;
	for (i = 0; i < replay_nviews; i++)
		if (!strcasecmp(s, replay_views[i].id) || !strcasecmp(s, replay_views[i].name))
			return (int)i;
	return -1;
}

/* ------------------------------------------------------------------ the frame */

static void draw_header(struct replay_model *m, struct grid *g)
{
	char tgt[400], a[32], b[32], c[64], sp[16];
	int n;

	if (m->pid >= 0)
		snprintf(tgt, sizeof(tgt), "%s (pid %lld)", *m->comm ? m->comm : "?",
			 (long long)m->pid);
	else
		snprintf(tgt, sizeof(tgt), "%s", *m->cgroup ? m->cgroup : *m->comm ? m->comm : "?");
	if (*m->cgroup && m->pid >= 0 && !strcmp(m->mode, "cgroup"))
		snprintf(tgt + strlen(tgt), sizeof(tgt) - strlen(tgt), " cgroup %s", m->cgroup);
	if (*m->container)
		snprintf(tgt + strlen(tgt), sizeof(tgt) - strlen(tgt), " container %.12s",
			 m->container);
	grid__fill(g, 0, 0, g->w, 1, ' ', GA_REVERSE, GC_TITLE);
	n = grid__textf(g, 0, 0, g->w, GA_REVERSE | GA_BOLD, GC_TITLE, " ptop replay  %s", tgt);
	grid__textf(g, n, 0, g->w - n, GA_REVERSE, GC_TITLE, "  mode %s  recorder %s  started %s",
		    *m->mode ? m->mode : "?", *m->recorder_version ? m->recorder_version : "?",
		    m->start_realtime_ns >= 0 ? fmt_wall(c, sizeof(c), m->start_realtime_ns)
					      : "unknown");
	n = grid__textf(g, 0, 1, g->w, GA_BOLD, GC_DEFAULT, " %s %s / %s  speed %s",
			m->playing ? "\u25b6 playing" : "\u23f8 paused",
			replay__fmt_pos(a, sizeof(a), m->pos_ns),
			replay__fmt_pos(b, sizeof(b), m->duration_ns),
			replay_model__speed_str(m, sp, sizeof(sp)));
	if (m->meta.complete)
		grid__text(g, n, 1, g->w - n, "  capture complete", 0, GC_MUTED);
	else
		grid__textf(g, n, 1, g->w - n, GA_BOLD, GC_WARN, "  TRUNCATED (%s)%s%s",
			    m->meta.read_end, *m->meta.read_message ? ": " : "",
			    m->meta.read_message);
}

static void draw_tabs(struct replay_ui *ui, struct grid *g)
{
	int x = 0;
	size_t i;

	for (i = 0; i < replay_nviews && x < g->w; i++) {
		bool sel = (int)i == ui->tab;

		x += grid__textf(g, x, 2, g->w - x, sel ? GA_REVERSE | GA_BOLD : 0,
				 sel ? GC_ACCENT : GC_TITLE, " %zu %s ", i + 1,
				 replay_views[i].name);
	}
}

static void draw_footer(struct replay_ui *ui, struct grid *g)
{
	int y = g->h - 1;

	grid__fill(g, 0, y, g->w, 1, ' ', GA_REVERSE, GC_TITLE);
	if (ui->prompt)
		grid__textf(g, 0, y, g->w, GA_REVERSE | GA_BOLD, GC_TITLE, " %s: %s_",
			    ui->prompt == 't' ? "jump to time (12.5s, 1:30)" : "filter by name",
			    ui->input);
	else if (*ui->status)
		grid__textf(g, 0, y, g->w, GA_REVERSE, GC_WARN, " %s", ui->status);
	else
		grid__text(
		    g, 0, y, g->w,
		    " q quit  space pause  \u2190\u2192 step  [ ] speed  g/G start/end  t jump  "
		    "/ filter  s sort  1-9 tabs  ? help",
		    GA_REVERSE, GC_TITLE);
}

static void draw_help(struct replay_model *m, struct grid *g)
{
	static const char *const keys[] = {
	    "Space, p       pause / play",
	    "\u2190 \u2192            step to the previous / next interval end",
	    "Shift-\u2190 \u2192      ten intervals",
	    "[ ]            halve / double the speed (1/4x .. 64x)",
	    "g G            start / end",
	    "t              jump to a time (12.5s, 1:30, 1500ms)",
	    "/              filter the table by name (Enter applies, Esc clears)",
	    "s              next sort column",
	    "\u2191 \u2193 PgUp PgDn  scroll the table",
	    "1-9 F1-F9 Tab  switch tabs (Shift-Tab back)",
	    "Enter, Esc     drill in, back: Memory a group's VMAs, Heap a site's stack",
	    "?              this help;  q  quit",
	};
	int w = g->w - 8, h = g->h - 6, x = 4, y = 3, row;
	char buf[400], nc[300];
	size_t i;

	grid__fill(g, x, y, w, h, ' ', 0, GC_DEFAULT);
	grid__box(g, x, y, w, h, "help \u2014 press ? or Esc to close", GC_ACCENT);
	row = y + 1;
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]) && row < y + h - 1; i++)
		grid__text(g, x + 2, row++, w - 4, keys[i], 0, GC_DEFAULT);
	row++;
	if (row < y + h - 1)
		grid__text(g, x + 2, row++, w - 4, "Where each tab's data came from:", GA_BOLD,
			   GC_TITLE);
	for (i = 0; i < replay_nviews && row < y + h - 1; i++) {
		const struct replay_view *v = &replay_views[i];
		const struct probe_info *p = v->probe >= 0 ? &m->probes[v->probe] : NULL;

		if (v->draw == draw_memory && cgroup_capture(m))
			p = &m->probes[RP_CGROUP];
		if (v->draw == draw_memory && cgroup_capture(m))
			snprintf(buf, sizeof(buf),
				 "%-9s cgroup_sample, cgroup_stat, cgroup_psi, cgroup_proc; probe "
				 "cgroup active (%s)",
				 v->name, p->source);
		else if (v->probe < 0)
			snprintf(buf, sizeof(buf), "%-9s %s", v->name, v->source);
		else if (probe__active(p))
			snprintf(buf, sizeof(buf), "%-9s %s; probe %s active (%s)", v->name,
				 v->source, rm_probe_names[v->probe], p->source);
		else
			snprintf(buf, sizeof(buf), "%-9s %s", v->name,
				 not_collected(m, v->probe, nc, sizeof(nc)));
		grid__text(g, x + 2, row++, w - 4, buf, 0,
			   p && !probe__active(p) ? GC_MUTED : GC_DEFAULT);
	}
}

void replay__render(struct replay_model *m, struct replay_ui *ui, struct grid *g)
{
	const struct replay_view *v;

	grid__clear(g);
	if (g->w < REPLAY_MIN_W || g->h < REPLAY_MIN_H) {
		char msg[128];

		snprintf(msg, sizeof(msg), "terminal too small: %dx%d, ptop replay needs %dx%d",
			 g->w, g->h, REPLAY_MIN_W, REPLAY_MIN_H);
		draw_wrapped(g, 0, g->h / 2, g->w, g->h - g->h / 2, msg, GA_BOLD, GC_WARN);
		return;
	}
	if (ui->tab < 0 || ui->tab >= (int)replay_nviews)
		ui->tab = 0;
	v = &replay_views[ui->tab];
	draw_header(m, g);
	draw_tabs(ui, g);
	v->draw(m, ui, g, 1, 4, g->w - 2, g->h - 5);
	draw_footer(ui, g);
	if (ui->help)
		draw_help(m, g);
}

/* ------------------------------------------------------------------ keys */

static void switch_tab(struct replay_ui *ui, int tab)
{
	int n = (int)replay_nviews;

	tab = ((tab % n) + n) % n;
	if (tab != ui->tab) {
		ui->tab = tab;
		ui->scroll = 0;
		ui->sort = 0;
		ui->filter[0] = 0;
		ui->selected[0] = 0;
		ui->drill[0] = 0;
	}
}

static int prompt_key(struct replay_model *m, struct replay_ui *ui, int key)
{
	size_t len = strlen(ui->input);

	if (key == RK_ESC) {
		if (ui->prompt == '/')
			ui->filter[0] = 0;
		ui->prompt = 0;
	} else if (key == RK_ENTER || key == '\r') {
		if (ui->prompt == 't') {
			int64_t t;

			if (replay__parse_time(ui->input, &t))
				snprintf(ui->status, sizeof(ui->status),
					 "not a time: \"%s\" (try 12.5s, 1:30 or 1500ms)",
					 ui->input);
			else
				replay_model__seek(m, t);
		} else {
			snprintf(ui->filter, sizeof(ui->filter), "%s", ui->input);
			ui->scroll = 0;
		}
		ui->prompt = 0;
	} else if (key == RK_BACKSPACE || key == 8) {
		if (len)
			ui->input[len - 1] = 0;
	} else if (key >= 0x20 && key < 0x7f && len + 1 < sizeof(ui->input)) {
		ui->input[len] = (char)key;
		ui->input[len + 1] = 0;
	}
	if (ui->prompt == '/')
		snprintf(ui->filter, sizeof(ui->filter), "%s", ui->input); /* live filter */
	return 0;
}

/* The status line after an arrow: the interval the position now ends (index K of m->ends),
 * so a short first interval is seen as such, and what the arrows step by. */
static void step_status(struct replay_ui *ui, const struct replay_model *m, ssize_t k)
{
	int64_t from, to;

	if (k < 0) {
		snprintf(ui->status, sizeof(ui->status), "at %.3f s; arrows step from one %s",
			 (double)m->pos_ns / 1e9,
			 m->nends ? "interval end to the next" : "interval of the capture to the next");
		return;
	}
	from = k ? m->ends[k - 1] : 0;
	to = m->ends[k];
	snprintf(ui->status, sizeof(ui->status),
		 "interval %zd of %zu: %.3f..%.3f s (%.3f s); arrows step from one interval end "
		 "to the next, t jumps to a time",
		 k + 1, m->nends, (double)from / 1e9, (double)to / 1e9, (double)(to - from) / 1e9);
}

int replay__key(struct replay_model *m, struct replay_ui *ui, int key)
{
	const struct replay_view *v = &replay_views[ui->tab];
	int page = ui->rows > 1 ? ui->rows - 1 : 10;

	if (ui->prompt)
		return prompt_key(m, ui, key);
	ui->status[0] = 0;
	if (ui->help && (key == '?' || key == RK_ESC || key == 'q')) {
		ui->help = false;
		return 0;
	}
	if (v->on_key && v->on_key(m, ui, key))
		return 0;
	switch (key) {
	case 'q':
	case 'Q':
		return 1;
	case ' ':
	case 'p':
		if (!m->playing && m->pos_ns >= m->duration_ns)
			replay_model__seek(m, 0); /* play again from the start */
		m->playing = !m->playing;
		break;
	case RK_LEFT:
		step_status(ui, m, replay_model__step(m, -1));
		break;
	case RK_RIGHT:
		step_status(ui, m, replay_model__step(m, 1));
		break;
	case RK_SLEFT:
		step_status(ui, m, replay_model__step(m, -10));
		break;
	case RK_SRIGHT:
		step_status(ui, m, replay_model__step(m, 10));
		break;
	case '[':
		replay_model__speed(m, -1);
		break;
	case ']':
		replay_model__speed(m, 1);
		break;
	case 'g':
	case RK_HOME:
		replay_model__seek(m, 0);
		break;
	case 'G':
	case RK_END:
		replay_model__seek(m, m->duration_ns);
		break;
	case 't':
	case '/':
		ui->prompt = key;
		ui->input[0] = 0;
		if (key == '/')
			snprintf(ui->input, sizeof(ui->input), "%s", ui->filter);
		break;
	case 's':
		if (v->sort_names) {
			ui->sort++;
			if (!v->sort_names[ui->sort])
				ui->sort = 0;
		}
		break;
	case RK_UP:
		ui->scroll--;
		break;
	case RK_DOWN:
		ui->scroll++;
		break;
	case RK_PGUP:
		ui->scroll -= page;
		break;
	case RK_PGDN:
		ui->scroll += page;
		break;
	case RK_TAB:
		switch_tab(ui, ui->tab + 1);
		break;
	case RK_BTAB:
		switch_tab(ui, ui->tab - 1);
		break;
	case '?':
		ui->help = !ui->help;
		break;
	case RK_ENTER:
		snprintf(ui->status, sizeof(ui->status), "nothing to drill into on this tab");
		break;
	default:
		if (key >= '1' && key <= '9' && key - '1' < (int)replay_nviews)
			switch_tab(ui, key - '1');
		else if (key >= RK_F1 && key < RK_F1 + (int)replay_nviews)
			switch_tab(ui, key - RK_F1);
		break;
	}
	if (ui->scroll < 0)
		ui->scroll = 0;
	return 0;
}
