/* replay_views.c — the replay viewer's core: the tab bar built from the collectors' views
 * (collectors/NAME/view.c, listed in their parts) and the core's own (Overview, Timeline, the
 * placeholders), the frame around them, key handling, and the helpers the views draw with. */
#include "analyze/replay_views.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "analyze/output.h"
#include "analyze/part.h"
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

const char *replay__bytes(char *buf, size_t len, int64_t v)
{
	return v < 0 ? "-" : fmt_bytes(buf, len, (uint64_t)v);
}

const char *replay__not_collected(const struct replay_model *m, const char *probe, char *buf,
				  size_t len)
{
	const struct probe_info *p = replay_model__probe(m, probe);

	if (!p) {
		snprintf(buf, len, "no collector records this yet");
		return buf;
	}
	if (probe__active(p))
		return NULL;
	snprintf(buf, len, "not collected \u2014 %.15s: %.200s", p->state,
		 *p->reason ? p->reason : "no reason recorded");
	return buf;
}

int replay__wrapped(struct grid *g, int x, int y, int w, int h, const char *s, uint8_t attr,
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

double *replay__history(size_t i, int w, size_t *first, size_t *n)
{
	size_t want = (size_t)(w > 0 ? w : 1) * 2;

	*first = i + 1 > want ? i + 1 - want : 0;
	*n = i + 1 - *first;
	return calloc(*n ? *n : 1, sizeof(double));
}

bool replay__stale(const struct replay_model *m, int64_t t)
{
	int64_t age, twice;

	/* a corrupt DB's times and interval may be 2^63 apart: no signed overflow */
	if (__builtin_sub_overflow(m->pos_ns, t, &age))
		return t < m->pos_ns;
	if (__builtin_mul_overflow(m->interval_ns, 2, &twice))
		return false;
	return age >= twice;
}

int replay__drill_key(struct replay_model *m, struct replay_ui *ui, int key)
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

/* ------------------------------------------------------------------ the core's tabs */

/* the Overview: the sections the tabs' views declare, then a line per tab that declares one */
static void draw_overview(struct replay_model *m, struct replay_ui *ui, struct grid *g, int x,
			  int y, int w, int h)
{
	const struct replay_tabs *t = replay__tabs();
	const struct replay_view *sec[REPLAY_TABS_MAX];
	char buf[256];
	size_t i, j, n = 0;
	int row = y;

	(void)ui;
	for (i = 0; i < t->n; i++) { /* in ascending overview position, stable */
		const struct replay_view *v = replay__tab_view(m, (int)i);

		if (!v->overview)
			continue;
		for (j = n++; j > 0 && sec[j - 1]->overview_position > v->overview_position; j--)
			sec[j] = sec[j - 1];
		sec[j] = v;
	}
	for (i = 0; i < n; i++) {
		if (y + h - (row + 1) < sec[i]->overview_rows)
			return;
		grid__text(g, x, row++, w, sec[i]->overview_title, GA_BOLD | GA_UNDERLINE,
			   GC_TITLE);
		row += sec[i]->overview(m, g, x, row, w);
	}
	/* the other tabs in one line each: what they hold at this position, or why nothing */
	for (i = 0; i < t->n && row < y + h; i++) {
		const struct replay_view *v = replay__tab_view(m, (int)i);
		int colour = GC_MUTED;

		if (!v->overview_line)
			continue;
		if (!v->probe || !replay__not_collected(m, v->probe, buf, sizeof(buf)))
			colour = v->overview_line(m, buf, sizeof(buf));
		grid__textf(g, x, row++, w, 0, (uint8_t)colour, "%-9s %s", v->name, buf);
	}
}

/* the Timeline's section of the Overview: events, drops, the latest event */
static int events_overview(struct replay_model *m, struct grid *g, int x, int y, int w)
{
	ssize_t ei = replay_model__event_at(m, m->pos_ns);
	char a[32], b[32], c[32];
	int row = y;

	grid__textf(g, x, row++, w, 0, GC_DEFAULT,
		    "events recorded %s   drops by %s: %s   capture %s",
		    fmt_count(a, sizeof(a), m->events), replay__fmt_pos(c, sizeof(c), m->pos_ns),
		    fmt_count(b, sizeof(b), replay_model__drops_until(m, m->pos_ns)),
		    m->meta.complete ? "complete" : m->meta.read_end);
	if (ei >= 0)
		grid__textf(g, x, row++, w, 0, m->events_list[ei].warn ? GC_WARN : GC_DEFAULT,
			    "latest event %s %s: %s",
			    replay__fmt_pos(c, sizeof(c), m->events_list[ei].t),
			    m->events_list[ei].kind, m->events_list[ei].text);
	else
		grid__textf(g, x, row++, w, 0, GC_MUTED,
			    "latest event: none yet (Timeline tab: %d)",
			    replay__find_view("timeline") + 1);
	return row - y;
}

/* whether event E passes the Timeline's filters: its category (c) and the / filter, a pid
 * when it is all digits (as `report events --pid`), else a word of its kind or text */
static bool timeline_shows(const struct replay_ui *ui, const struct rm_event *e)
{
	const char *f = ui->filter;

	if (*ui->category && strcmp(ui->category, e->category))
		return false;
	if (!*f)
		return true;
	if (f[strspn(f, "0123456789")] == 0)
		return e->pid == strtoll(f, NULL, 10);
	return strstr(e->kind, f) || strstr(e->text, f);
}

static void draw_timeline(struct replay_model *m, struct replay_ui *ui, struct grid *g, int x,
			  int y, int w, int h)
{
	ssize_t last = replay_model__event_at(m, m->pos_ns), i, shown = 0, skip;
	char a[32], pid[24];
	int row = y + 2;

	for (i = 0; i <= last; i++)
		shown += timeline_shows(ui, &m->events_list[i]);
	grid__textf(g, x, y, w, GA_BOLD | GA_UNDERLINE, GC_TITLE,
		    "Events up to %s, newest first: %zd of %zu (every part's, drops, probe changes, "
		    "the end)",
		    replay__fmt_pos(a, sizeof(a), m->pos_ns), shown, m->nevents);
	grid__textf(g, x, y + 1, w, 0, GC_MUTED, "c category: %s   / pid or word: %s",
		    *ui->category ? ui->category : "all", *ui->filter ? ui->filter : "any");
	if (ui->scroll > shown - 1)
		ui->scroll = shown > 1 ? (int)shown - 1 : 0;
	ui->rows = h - 2;
	skip = ui->scroll;
	for (i = last; i >= 0 && row < y + h; i--) {
		const struct rm_event *e = &m->events_list[i];

		if (!timeline_shows(ui, e) || skip-- > 0)
			continue;
		if (e->pid == RM_NULL)
			pid[0] = 0;
		else
			snprintf(pid, sizeof(pid), "%lld", (long long)e->pid);
		grid__textf(g, x, row++, w, 0, e->warn ? GC_WARN : GC_DEFAULT,
			    "%9s  %-10s %-13s %7s %s", replay__fmt_pos(a, sizeof(a), e->t),
			    e->category, e->kind, pid, e->text);
	}
	if (!shown)
		grid__text(g, x, row, w,
			   last < 0 ? "no event by this position"
				    : "no event by this position passes the filters",
			   0, GC_MUTED);
}

/* c: the next category of the capture's events (in order of first appearance), then all */
static int timeline_key(struct replay_model *m, struct replay_ui *ui, int key)
{
	size_t i, k;
	bool past = !*ui->category;

	if (key != 'c')
		return 0;
	for (i = 0; i < m->nevents; i++) {
		const char *c = m->events_list[i].category;

		for (k = 0; k < i && strcmp(m->events_list[k].category, c); k++)
			;
		if (k < i) /* seen before */
			continue;
		if (past) {
			snprintf(ui->category, sizeof(ui->category), "%s", c);
			ui->scroll = 0;
			return 1;
		}
		past = !strcmp(c, ui->category);
	}
	ui->category[0] = 0;
	ui->scroll = 0;
	return 1;
}

static void draw_none(struct replay_model *m, struct replay_ui *ui, struct grid *g, int x, int y,
		      int w, int h)
{
	(void)m;
	(void)ui;
	replay__wrapped(g, x, y, w, h, "no collector records this yet", 0, GC_MUTED);
}

/* the line of a tab no collector fills yet */
static int none_line(struct replay_model *m, char *buf, size_t len)
{
	(void)m;
	snprintf(buf, len, "no collector records this yet");
	return GC_MUTED;
}

/* The core's views. The collectors' take their places between them: Syscalls 20, Threads 40,
 * I/O 50, FDs 60, Memory 80, Heap 90; the Overview's sections CPU 10, Top syscalls 20, Memory 30. The
 * placeholders give way to a collector's view with their id. */
static const struct replay_view core_views[] = {
    {.name = "Overview",
     .id = "overview",
     .position = 10,
     .source = "every collector, summarized",
     .draw = draw_overview},
    {.name = "Network",
     .id = "network",
     .position = 30,
     .source = "no collector records network activity yet",
     .draw = draw_none,
     .overview_line = none_line},
    {.name = "Timeline",
     .id = "timeline",
     .position = 70,
     .source = NULL, /* built from the parts that add events: timeline_source */
     .draw = draw_timeline,
     .on_key = timeline_key,
     .overview_title = "Events",
     .overview_position = 40,
     .overview_rows = 2,
     .overview = events_overview},
};

/* The Timeline's source for the help overlay, "NAME drop notices, A, B, capture end": the
 * core's events and the series of the parts that add theirs (replay_series.events). */
static void timeline_source(const char *name, char *buf, size_t n)
{
	size_t len = (size_t)snprintf(buf, n, "%-9s drop notices", name);

	for (size_t i = 0; an_parts[i] && len < n; i++) {
		const struct replay_series *r = an_parts[i]->replay;

		if (r && r->events)
			len += (size_t)snprintf(buf + len, n - len, ", %s",
						r->what ? r->what : an_parts[i]->name);
	}
	if (len < n)
		snprintf(buf + len, n - len, ", capture end");
}

/* ------------------------------------------------------------------ the tab bar */

/* V into T: into the tab of its id, or a new one. A core view (CORE) yields to the parts' views
 * of its id, gathered before it. 0 or -E2BIG. */
static int tabs_add(struct replay_tabs *t, const struct replay_view *v, bool core)
{
	struct replay_tab *tb;
	size_t i;

	for (i = 0; i < t->n; i++) {
		tb = &t->tab[i];
		if (strcmp(tb->view[0]->id, v->id))
			continue;
		if (core)
			return 0;
		if (tb->nview == REPLAY_TAB_VIEWS)
			return -E2BIG;
		tb->view[tb->nview++] = v;
		return 0;
	}
	if (t->n == REPLAY_TABS_MAX)
		return -E2BIG;
	tb = &t->tab[t->n++];
	tb->view[0] = v;
	tb->nview = 1;
	return 0;
}

int replay_tabs__build(struct replay_tabs *t, const struct an_part *const *parts)
{
	const struct replay_view *const *v;
	struct replay_tab tmp;
	size_t i, j;
	int err = 0, e;

	memset(t, 0, sizeof(*t));
	for (i = 0; parts[i]; i++)
		for (v = parts[i]->views; v && *v; v++)
			if ((e = tabs_add(t, *v, false)))
				err = e;
	for (i = 0; i < sizeof(core_views) / sizeof(core_views[0]); i++)
		if ((e = tabs_add(t, &core_views[i], true)))
			err = e;
	for (i = 1; i < t->n; i++) { /* by position, stable */
		tmp = t->tab[i];
		for (j = i; j > 0 && t->tab[j - 1].view[0]->position > tmp.view[0]->position; j--)
			t->tab[j] = t->tab[j - 1];
		t->tab[j] = tmp;
	}
	return err;
}

const struct replay_tabs *replay__tabs(void)
{
	static struct replay_tabs tabs;
	static bool built;

	if (!built) {
		replay_tabs__build(&tabs, an_parts); /* test_replay checks that all fit */
		built = true;
	}
	return &tabs;
}

const struct replay_view *replay__tab_view(const struct replay_model *m, int tab)
{
	const struct replay_tabs *t = replay__tabs();
	const struct replay_tab *tb;
	size_t i;

	if (tab < 0 || tab >= (int)t->n)
		return NULL;
	tb = &t->tab[tab];
	/* the last whose probe ran: a later collector's view refines an earlier one's (the
	 * threads collector's per-thread table over cpu's thread count) */
	for (i = tb->nview; i-- > 0;) {
		const struct probe_info *p = replay_model__probe(m, tb->view[i]->probe);

		if (p && probe__active(p))
			return tb->view[i];
	}
	return tb->view[0];
}

int replay__find_view(const char *s)
{
	const struct replay_tabs *t = replay__tabs();
	size_t i;

	if (!s)
		return -1;
	if (s[0] >= '1' && s[0] <= '9' && !s[1])
		return s[0] - '1' < (int)t->n ? s[0] - '1' : -1;
	for (i = 0; i < t->n; i++)
		if (!strcasecmp(s, t->tab[i].view[0]->id) ||
		    !strcasecmp(s, t->tab[i].view[0]->name))
			return (int)i;
	return -1;
}

/* ------------------------------------------------------------------ the frame */

static void draw_header(struct replay_model *m, const struct replay_ui *ui, struct grid *g)
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
	if (*ui->follow) /* replay --follow: following, or how the recording ended */
		n += grid__textf(g, n, 1, g->w - n, GA_BOLD, GC_ACCENT, "  %s", ui->follow);
	if (ui->live)
		return; /* still being read: its read state is not an end yet */
	if (m->meta.complete)
		grid__text(g, n, 1, g->w - n, "  capture complete", 0, GC_MUTED);
	else
		grid__textf(g, n, 1, g->w - n, GA_BOLD, GC_WARN, "  TRUNCATED (%s)%s%s",
			    m->meta.read_end, *m->meta.read_message ? ": " : "",
			    m->meta.read_message);
}

static void draw_tabs(struct replay_ui *ui, struct grid *g)
{
	const struct replay_tabs *t = replay__tabs();
	int x = 0;
	size_t i;

	for (i = 0; i < t->n && x < g->w; i++) {
		bool sel = (int)i == ui->tab;

		x += grid__textf(g, x, 2, g->w - x, sel ? GA_REVERSE | GA_BOLD : 0,
				 sel ? GC_ACCENT : GC_TITLE, " %zu %s ", i + 1,
				 t->tab[i].view[0]->name);
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
	    "/              filter the table by name (Enter applies, Esc clears);",
	    "               on the Timeline a pid, or a word of the event",
	    "s              next sort column",
	    "c              Timeline: next category (lifecycle, drop, ...), then all",
	    "\u2191 \u2193 PgUp PgDn  scroll the table",
	    "1-9 F1-F9 Tab  switch tabs (Shift-Tab back)",
	    "Enter, Esc     drill in, back: Memory a group's VMAs, Heap a site's stack",
	    "?              this help;  q  quit",
	};
	const struct replay_tabs *t = replay__tabs();
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
	for (i = 0; i < t->n && row < y + h - 1; i++) {
		const struct replay_view *v = replay__tab_view(m, (int)i);
		const struct probe_info *p = replay_model__probe(m, v->probe);

		if (v->draw == draw_timeline)
			timeline_source(v->name, buf, sizeof(buf));
		else if (!v->probe)
			snprintf(buf, sizeof(buf), "%-9s %s", v->name, v->source);
		else if (p && probe__active(p))
			snprintf(buf, sizeof(buf), "%-9s %s; probe %s active (%s)", v->name,
				 v->source, v->probe, p->source);
		else
			snprintf(buf, sizeof(buf), "%-9s %s", v->name,
				 replay__not_collected(m, v->probe, nc, sizeof(nc)));
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
		replay__wrapped(g, 0, g->h / 2, g->w, g->h - g->h / 2, msg, GA_BOLD, GC_WARN);
		return;
	}
	if (ui->tab < 0 || ui->tab >= (int)replay__tabs()->n)
		ui->tab = 0;
	v = replay__tab_view(m, ui->tab);
	draw_header(m, ui, g);
	draw_tabs(ui, g);
	v->draw(m, ui, g, 1, 4, g->w - 2, g->h - 5);
	draw_footer(ui, g);
	if (ui->help)
		draw_help(m, g);
}

/* ------------------------------------------------------------------ keys */

static void switch_tab(struct replay_ui *ui, int tab)
{
	int n = (int)replay__tabs()->n;

	tab = ((tab % n) + n) % n;
	if (tab != ui->tab) {
		ui->tab = tab;
		ui->scroll = 0;
		ui->sort = 0;
		ui->filter[0] = 0;
		ui->category[0] = 0;
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
	int ntabs = (int)replay__tabs()->n, page = ui->rows > 1 ? ui->rows - 1 : 10;
	const struct replay_view *v;

	if (ui->prompt)
		return prompt_key(m, ui, key);
	if (ui->tab < 0 || ui->tab >= ntabs)
		ui->tab = 0;
	v = replay__tab_view(m, ui->tab);
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
		if (m->nends)
			snprintf(ui->status, sizeof(ui->status),
				 "end of the recording at %.3f s: interval %zu of %zu (ended %.3f "
				 "s); the left arrow shows interval %zu",
				 (double)m->pos_ns / 1e9, m->nends, m->nends,
				 (double)m->ends[m->nends - 1] / 1e9, m->nends > 1 ? m->nends - 1 : 1);
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
		if (key >= '1' && key <= '9' && key - '1' < ntabs)
			switch_tab(ui, key - '1');
		else if (key >= RK_F1 && key < RK_F1 + ntabs)
			switch_tab(ui, key - RK_F1);
		break;
	}
	if (ui->scroll < 0)
		ui->scroll = 0;
	return 0;
}
