/* view.c — the heap collector's replay tab (Heap: live bytes over time, the call sites of the
 * snapshot at the position, a site's stack on Enter, the leak suspects up to it) and its line in
 * the Overview, as a struct replay_view (analyze/replay_views.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/output.h"
#include "analyze/replay_views.h"
#include "collectors/heap/replay.h"
#include "collectors/heap/report.h"

/* the Overview's line: live bytes at the position */
static int heap_line(struct replay_model *m, char *buf, size_t len)
{
	struct heap_series *hr = heap_series(m);
	ssize_t hi = heap_series__at(hr, m->pos_ns);
	char a[32];

	snprintf(buf, len, "live %s",
		 hi >= 0 ? replay__bytes(a, sizeof(a), hr->s[hi].live_bytes) : "no snapshot yet");
	return GC_DEFAULT;
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
	struct heap_series *hr = heap_series(m);
	static const struct grid_col cols[] = {{"live", 10, true},	{"live#", 8, true},
					       {"allocated", 10, true}, {"allocs", 8, true},
					       {"function", 28, false}, {"file:line", 34, false},
					       {"module", 20, false}};
	char buf[256], a[32], b[32], c[32], d[32], loc[300];
	ssize_t hi = heap_series__at(hr, m->pos_ns);
	struct heap_sites *iv = NULL, *hist = NULL;
	size_t first, n, k, shown;
	double *v, max = 0;
	int row, sus_rows, r, err;

	if (replay__not_collected(m, "heap", buf, sizeof(buf))) {
		replay__wrapped(g, x, y, w, h, buf, 0, GC_MUTED);
		return;
	}
	if (hi < 0) {
		grid__text(g, x, y, w, "no heap snapshot by this position", 0, GC_MUTED);
		return;
	}
	err = heap_series__sites(m, hr, (size_t)hi, &iv, &hist);
	if (!err && *ui->drill) {
		draw_heap_stack(ui, g, x, y, w, h, iv, hist);
		return;
	}
	grid__textf(g, x, y, w, GA_BOLD | GA_UNDERLINE, GC_TITLE,
		    "Heap at %s (lane %s, snapshot %zu of %zu)",
		    replay__fmt_pos(a, sizeof(a), hr->s[hi].t), hr->s[hi].lane, (size_t)hi + 1,
		    hr->n);
	grid__textf(g, x, y + 1, w, 0, GC_DEFAULT, "this interval: %s allocations, %s",
		    hr->s[hi].alloc_count >= 0
			? fmt_count(a, sizeof(a), (uint64_t)hr->s[hi].alloc_count)
			: "-",
		    replay__bytes(b, sizeof(b), hr->s[hi].alloc_bytes));
	row = y + 2;
	if (hr->s[hi].live_bytes < 0) {
		grid__text(g, x, row++, w, "live bytes, leaks: not measured by this lane", 0,
			   GC_MUTED);
	} else {
		grid__textf(g, x, row, 26, GA_BOLD, GC_DEFAULT, "live %s",
			    replay__bytes(c, sizeof(c), hr->s[hi].live_bytes));
		v = replay__history((size_t)hi, w - 28, &first, &n);
		for (k = 0; v && k < n; k++) {
			int64_t l = hr->s[first + k].live_bytes;

			v[k] = l < 0 ? NAN : (double)l;
			if (l > max)
				max = (double)l;
		}
		if (v)
			grid__sparkline(g, x + 28, row, w - 28, v, n, max, GC_GOOD);
		free(v);
		row++;
		grid__textf(g, x, row++, w, 0, GC_DEFAULT, "older than the leak age: %s",
			    replay__bytes(a, sizeof(a), hr->s[hi].leak_bytes));
	}
	if (hr->s[hi].sample_bytes > 0)
		grid__textf(g, x, row++, w, 0, GC_MUTED,
			    "call sites sampled every %lld bytes on average: totals exact, split "
			    "estimated",
			    (long long)hr->s[hi].sample_bytes);
	if (err) {
		grid__textf(g, x, row, w, 0, GC_WARN, "call sites: cannot read them (%s)",
			    strerror(-err));
		return;
	}
	if (!iv->collected || !iv->n_snap) {
		grid__text(g, x, row, w, "call sites: none in this interval", 0, GC_MUTED);
		return;
	}
	row += replay__wrapped(g, x, row, w, 2, iv->census, 0, GC_MUTED);
	/* the leak suspects take the bottom: their title and up to 5 */
	sus_rows =
	    hist->live_measured
		? 1 + (int)(hist->n_suspect ? (hist->n_suspect < 5 ? hist->n_suspect : 5) : 1)
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
		cells[0] = s->live_bytes >= 0 ? replay__bytes(a, sizeof(a), s->live_bytes) : NULL;
		cells[1] =
		    s->live_count >= 0 ? fmt_count(b, sizeof(b), (uint64_t)s->live_count) : NULL;
		cells[2] = fmt_bytes(c, sizeof(c), s->alloc_bytes);
		cells[3] = fmt_count(d, sizeof(d), s->alloc_count);
		cells[4] = s->func;
		if (strlen(loc) > 34) { /* keep the end (file:line), marked as cut */
			char tail[40];

			snprintf(tail, sizeof(tail), "...%s", loc + strlen(loc) - 31);
			snprintf(loc, sizeof(loc), "%s", tail);
		}
		cells[5] = *loc ? loc : NULL;
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
	grid__textf(
	    g, x, row++, w, GA_BOLD | GA_UNDERLINE, GC_TITLE,
	    "Leak suspects up to here: %zu (live allocations older than %s, by trend score)",
	    hist->n_suspect, fmt_ns(a, sizeof(a), (uint64_t)hist->leak_age_ns));
	if (!hist->n_suspect)
		grid__text(g, x, row, w, "none", 0, GC_MUTED);
	for (k = 0; k < hist->n_suspect && row < y + h; k++, row++) {
		const struct heap_site *s = &hist->suspect[k];

		grid__textf(
		    g, x, row, w, 0, GC_WARN,
		    "score %.2f (%s, %zu snapshots)  live %s  oldest %s  %s (%s)", s->trend.score,
		    s->trend.confidence, s->trend.n, replay__bytes(a, sizeof(a), s->live_bytes),
		    s->oldest_age_ns >= 0 ? fmt_ns(b, sizeof(b), (uint64_t)s->oldest_age_ns) : "-",
		    s->func, basename_of(s->module));
	}
}

static const struct replay_view heap_view = {
    .name = "Heap",
    .id = "heap",
    .position = 90,
    .probe = "heap",
    .source = "heap_snapshot, heap_site, stack (allocator uprobes)",
    .draw = draw_heap,
    .on_key = replay__drill_key,
    .overview_line = heap_line,
};

const struct replay_view *const heap_views[] = {&heap_view, NULL};
