/* view.c — the memory collector's replay tab (Memory: RSS / PSS / USS over time, the composition
 * of PSS, and the VMA groups of the vmas collector's snapshot at the position, each group's VMAs on
 * Enter) and its section of the Overview, as a struct replay_view (analyze/replay_views.h). The
 * vmas collector has no tab of its own: its snapshots are this tab's lower half. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/output.h"
#include "analyze/replay_views.h"
#include "collectors/memory/replay.h"
#include "collectors/vmas/replay.h"

static void draw_mem_lines(struct replay_model *m, struct grid *g, int x, int y, int w, int h)
{
	const struct memory_series *ms = memory_series(m);
	static const char *const names[] = {"RSS", "PSS", "USS"};
	char buf[256], a[32], b[32];
	ssize_t mi = memory_series__at(ms, m->pos_ns);
	int k;

	if (replay__not_collected(m, "memory", buf, sizeof(buf))) {
		replay__wrapped(g, x, y, w, h, buf, 0, GC_MUTED);
		return;
	}
	if (mi < 0) {
		grid__text(g, x, y, w, "no memory sample yet", 0, GC_MUTED);
		return;
	}
	for (k = 0; k < 3 && k < h; k++) {
		size_t first, n, i;
		double *v, max = 0;

		v = replay__history((size_t)mi, w - 24, &first, &n);
		if (!v)
			return;
		for (i = 0; i < n; i++) {
			const struct rm_mem *s = &ms->s[first + i];
			int64_t x2 = k == 0 ? s->rss : k == 1 ? s->pss : s->uss;

			v[i] = x2 < 0 ? NAN : (double)x2;
			if (x2 > max)
				max = (double)x2;
		}
		{
			const struct rm_mem *s = &ms->s[mi];
			int64_t cur = k == 0 ? s->rss : k == 1 ? s->pss : s->uss;

			grid__textf(g, x, y + k, 22, k == 1 ? GA_BOLD : 0, GC_DEFAULT, "%s %10s",
				    names[k], replay__bytes(a, sizeof(a), cur));
		}
		grid__sparkline(g, x + 24, y + k, w - 24, v, n, max, GC_GOOD);
		free(v);
	}
	(void)b;
}

/* the Overview's section: RSS, PSS and USS with their history */
static int memory_overview(struct replay_model *m, struct grid *g, int x, int y, int w)
{
	draw_mem_lines(m, g, x, y, w, 3);
	return 4; /* three lines and a blank one */
}

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
	struct vmas_series *vs = vmas_series(m);
	static const struct grid_col cols[] = {
	    {"address", 33, false}, {"perms", 5, false}, {"offset", 10, true}, {"size", 10, true},
	    {"rss", 10, true},	    {"pss", 10, true},	 {"uss", 10, true},    {"swap", 10, true}};
	char a[32], b[32], c[32], d[32], e[32], f[32], addr[48], off[24];
	struct rm_vma *v = NULL;
	size_t n = 0, i;
	int r;

	if (vmas_series__vmas(m, vs, si, ui->drill, &v, &n)) {
		grid__text(g, x, y, w, "VMAs: cannot read the snapshot", 0, GC_WARN);
		return;
	}
	grid__textf(g, x, y, w, GA_BOLD | GA_UNDERLINE, GC_TITLE,
		    "VMAs of %s at snapshot %s: %zu  (Esc: back to the groups)", ui->drill,
		    replay__fmt_pos(a, sizeof(a), vs->snaps[si].t), n);
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
		cells[3] = v[i].size >= 0 ? replay__bytes(a, sizeof(a), v[i].size) : NULL;
		cells[4] = v[i].rss >= 0 ? replay__bytes(b, sizeof(b), v[i].rss) : NULL;
		cells[5] = v[i].pss >= 0 ? replay__bytes(c, sizeof(c), v[i].pss) : NULL;
		cells[6] = v[i].uss >= 0 ? replay__bytes(d, sizeof(d), v[i].uss) : NULL;
		cells[7] = v[i].swap >= 0 ? replay__bytes(e, sizeof(e), v[i].swap) : NULL;
		grid__row(g, x, r, cols, 8, cells, 0, GC_DEFAULT);
	}
	(void)f;
	free(v);
}

static void draw_memory(struct replay_model *m, struct replay_ui *ui, struct grid *g, int x, int y,
			int w, int h)
{
	struct vmas_series *vs = vmas_series(m);
	const struct memory_series *ms = memory_series(m);
	static const struct grid_col cols[] = {
	    {"mapping", 40, false}, {"vmas", 5, true}, {"size", 10, true}, {"rss", 10, true},
	    {"pss", 10, true},	    {"uss", 10, true}, {"swap", 10, true}};
	char buf[256], a[32], b[32], c[32], d[32], e[32], f[32];
	ssize_t mi = memory_series__at(ms, m->pos_ns), si;
	const struct rm_vma_group *groups;
	struct rm_vma_group *sorted = NULL;
	size_t ng = 0, i, nshown = 0;
	int row = y, r;

	grid__text(g, x, row++, w, "RSS / PSS / USS over time  [/proc smaps_rollup]",
		   GA_BOLD | GA_UNDERLINE, GC_TITLE);
	draw_mem_lines(m, g, x, row, w, 3);
	row += 4;
	if (!replay__not_collected(m, "memory", buf, sizeof(buf)) && mi >= 0) {
		const struct rm_mem *s = &ms->s[mi];
		struct {
			const char *name;
			int64_t v;
		} parts[] = {{"anon", s->pss_anon},
			     {"file", s->pss_file},
			     {"shmem", s->pss_shmem},
			     {"swap", s->swap}};

		grid__textf(g, x, row++, w, GA_BOLD | GA_UNDERLINE, GC_TITLE,
			    "Composition of PSS at %s (sample %zu of %zu)",
			    replay__fmt_pos(a, sizeof(a), s->t), (size_t)mi + 1, ms->n);
		for (i = 0; i < 4; i++, row++) {
			grid__textf(g, x, row, 20, 0, GC_DEFAULT, "%-6s %12s", parts[i].name,
				    replay__bytes(a, sizeof(a), parts[i].v));
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
	si = vmas_series__at(vs, m->pos_ns);
	if (replay__not_collected(m, "vmas", buf, sizeof(buf))) {
		grid__text(g, x, row++, w, "VMA groups", GA_BOLD | GA_UNDERLINE, GC_TITLE);
		replay__wrapped(g, x, row, w, y + h - row, buf, 0, GC_MUTED);
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
	if (vmas_series__groups(m, vs, (size_t)si, &groups, &ng)) {
		grid__text(g, x, row++, w, "VMA groups: cannot read the snapshot", 0, GC_WARN);
		return;
	}
	grid__textf(g, x, row++, w, GA_BOLD | GA_UNDERLINE, GC_TITLE,
		    "VMA groups at snapshot %s (%lld VMAs; %zu snapshots up to here)  sort %s (s)  "
		    "filter %s (/)",
		    replay__fmt_pos(a, sizeof(a), vs->snaps[si].t),
		    (long long)vs->snaps[si].vma_count, (size_t)si + 1, mem_sorts[ui->sort],
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
		char cut[48];

		if (nw > 40) { /* keep the end of a long path, the file name, marked as cut */
			snprintf(cut, sizeof(cut), "...%s", name + strlen(name) - 36);
			name = cut;
		}
		snprintf(vm, sizeof(vm), "%lld", (long long)gr->vmas);
		cells[0] = name;
		cells[1] = vm;
		cells[2] = gr->size >= 0 ? replay__bytes(a, sizeof(a), gr->size) : NULL;
		cells[3] = gr->rss >= 0 ? replay__bytes(b, sizeof(b), gr->rss) : NULL;
		cells[4] = gr->pss >= 0 ? replay__bytes(c, sizeof(c), gr->pss) : NULL;
		cells[5] = gr->uss >= 0 ? replay__bytes(d, sizeof(d), gr->uss) : NULL;
		cells[6] = gr->swap >= 0 ? replay__bytes(e, sizeof(e), gr->swap) : NULL;
		grid__row(g, x, r, cols, 7, cells, 0, GC_DEFAULT);
		if (i == (size_t)ui->scroll) { /* the selected row: Enter drills into it */
			grid__paint(g, x, r, w, 1, GA_REVERSE, GC_ACCENT);
			snprintf(ui->selected, sizeof(ui->selected), "%s", gr->name);
		}
	}
	(void)f;
	free(sorted);
}

static const struct replay_view memory_view = {
    .name = "Memory",
    .id = "memory",
    .position = 80,
    .probe = "memory",
    .source = "memory_sample (/proc smaps_rollup, statm), vma (smaps)",
    .draw = draw_memory,
    .sort_names = mem_sorts,
    .on_key = replay__drill_key,
    .overview_title = "Memory",
    .overview_position = 30,
    .overview_rows = 4,
    .overview = memory_overview,
};

const struct replay_view *const memory_views[] = {&memory_view, NULL};
