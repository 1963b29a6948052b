/* replay_views.h — the replay viewer's tabs, frame layout and key handling (no curses).
 *
 * A frame is the header (target, mode, recorder, capture start, position, speed, play state,
 * truncation), the tab bar, the current tab's body and a footer line, drawn into a struct grid
 * by replay__render. The live viewer (replay.c + replay_term.c) and `replay --dump` use the same
 * function, so tests can render a frame at a given time to text. Keys arrive as the abstract
 * codes below (the terminal layer translates curses' codes) and replay__key applies them to the
 * model and the UI state.
 */
#ifndef PTOP_REPLAY_VIEWS_H
#define PTOP_REPLAY_VIEWS_H

#include <stdbool.h>
#include <stddef.h>

#include "analyze/replay_grid.h"
#include "analyze/replay_model.h"

#define REPLAY_MIN_W 80
#define REPLAY_MIN_H 24

/* keys: printable characters are themselves; the others are these */
enum replay_key {
	RK_NONE = 0,
	RK_ENTER = '\n',
	RK_ESC = 27,
	RK_BACKSPACE = 127,
	RK_LEFT = 0x10000,
	RK_RIGHT,
	RK_SLEFT, /* Shift-Left: ten intervals */
	RK_SRIGHT,
	RK_UP,
	RK_DOWN,
	RK_PGUP,
	RK_PGDN,
	RK_HOME,
	RK_END,
	RK_TAB,
	RK_BTAB,
	RK_RESIZE,
	RK_F1 = 0x10100, /* RK_F1 + n - 1 is Fn */
};

struct replay_ui {
	int tab;	    /* index into replay__tabs() */
	int scroll;	    /* first row shown of the tab's table */
	int sort;	    /* sort column of the tab's table */
	char filter[64];    /* name filter of the tab's table ("" none); on the Timeline a
			     * pid (digits) or a word of the event's kind or text */
	char category[16];  /* the Timeline's category filter, cycled with c ("" every one) */
	bool help;	    /* the ? overlay is shown */
	int prompt;	    /* 0: none, 't': jump to a time, '/': filter */
	char input[64];	    /* what was typed at the prompt */
	char status[160];   /* a one-line message for the footer ("" none) */
	int rows;	    /* rows the tab's table showed last (for PgUp/PgDn) */
	char selected[128]; /* the name of the selected (top) row, set by the tab's draw */
	char drill[128];    /* the row drilled into with Enter ("" none; Esc goes back) */
	/* replay --follow: "" when not following; the header says it instead of the
	 * capture's read state: LIVE while the capture is still being read, then how
	 * the recording ended */
	char follow[200];
	bool live;
};

/* One replay tab's content. The core declares the Overview, the Timeline and the placeholders of
 * the tabs no collector fills yet (analyze/replay_views.c); a collector declares its own in
 * collectors/NAME/view.c and lists them in its part (analyze/part.h: .views).
 *
 * The tab bar is built from them (replay__tabs): one tab per id, in ascending position. Views of
 * several parts may share an id (the Memory tab: the memory collector's for a process, the cgroup
 * collector's for a whole cgroup): the tab shows the first whose probe was active in the capture,
 * else the first. A core view yields its tab to a part's view of the same id: when a collector
 * declares a view with id "network", it takes the Network placeholder's place. Keys 1-9 and
 * F1-F9 select the first nine tabs. */
struct replay_view {
	const char *name;  /* "Syscalls": the tab bar */
	const char *id;	   /* "syscalls": --tab */
	int position;	   /* the tab's place in the bar, ascending; today Overview 10 .. Heap 90 */
	const char *probe; /* the part (probe) its data comes from: "syscalls"; NULL: none */
	const char *source; /* what it shows and from where (for the help overlay) */
	void (*draw)(struct replay_model *m, struct replay_ui *ui, struct grid *g, int x, int y,
		     int w, int h);
	const char *const *sort_names; /* the columns s cycles through; NULL: none */
	/* the tab's own keys (Enter to drill in, Esc back); 1 when it used KEY. May be NULL. */
	int (*on_key)(struct replay_model *m, struct replay_ui *ui, int key);

	/* Its section of the Overview (NULL overview: none): OVERVIEW_TITLE, then what OVERVIEW
	 * draws below it at (X, Y), W wide, saying itself when its probe did not run; it returns
	 * the rows it used (a blank line after it included), at most OVERVIEW_ROWS. Sections come
	 * in ascending OVERVIEW_POSITION; the Overview ends before one with fewer than
	 * OVERVIEW_ROWS rows left below its title. */
	const char *overview_title;
	int overview_position;
	int overview_rows;
	int (*overview)(struct replay_model *m, struct grid *g, int x, int y, int w);
	/* Its line among the Overview's last ones (NULL: none): the text after the tab's name
	 * ("live 1.2 MiB"), written into BUF; returns the line's colour (enum grid_colour). Not
	 * called when its probe did not run: the line says why instead. */
	int (*overview_line)(struct replay_model *m, char *buf, size_t len);
};

#define REPLAY_TABS_MAX 32 /* tabs in the bar */
#define REPLAY_TAB_VIEWS 4 /* views sharing one tab */

/* A tab of the bar: the views declaring its id (the parts' in collectors.def order; the core's
 * only when no part declares the id). Its name, id and position are its first view's. */
struct replay_tab {
	const struct replay_view *view[REPLAY_TAB_VIEWS];
	size_t nview;
};

struct replay_tabs {
	struct replay_tab tab[REPLAY_TABS_MAX]; /* in ascending position */
	size_t n;
};

struct an_part;

/* Build the tab bar into T from the core's views and those of PARTS (NULL-terminated, as
 * an_parts[]): one tab per id, in ascending position (ties: the parts' first, in PARTS order).
 * 0, or -E2BIG when there are more than REPLAY_TABS_MAX ids or REPLAY_TAB_VIEWS views of an id
 * (T then holds those that fit). */
int replay_tabs__build(struct replay_tabs *t, const struct an_part *const *parts);

/* The tab bar of an_parts[] (built on the first call; the viewer is single-threaded). */
const struct replay_tabs *replay__tabs(void);

/* The view tab TAB (an index into replay__tabs()) shows for M's capture: the last of its views
 * whose probe was active (a later collector's refines an earlier one's), else its first. NULL when there is no tab TAB. */
const struct replay_view *replay__tab_view(const struct replay_model *m, int tab);

/* The tab whose id (or name, case-insensitive, or number 1..9) is S; -1 when none. */
int replay__find_view(const char *s);

/* Draw the whole frame for the model's position into G (cleared first). Below 80x24 it draws only
 * a message saying the terminal is too small. */
void replay__render(struct replay_model *m, struct replay_ui *ui, struct grid *g);

/* Apply KEY. Returns 1 when the viewer should quit, else 0. */
int replay__key(struct replay_model *m, struct replay_ui *ui, int key);

/* Parse a time: seconds with an optional unit (12.5, 12.5s, 1500ms, 2m) or [H:]MM:SS[.f].
 * 0 or -EINVAL. */
int replay__parse_time(const char *s, int64_t *ns);

/* "MM:SS.f", or "H:MM:SS.f" from an hour on. Returns BUF. */
char *replay__fmt_pos(char *buf, size_t len, int64_t ns);

/* ------------------------------------------------------------------ for the views' draw */

/* "not collected \u2014 STATE: REASON" in BUF for probe PROBE (a part's name) when it did not run
 * in M's capture, "no collector records this yet" when PROBE is NULL or no part's; NULL when it
 * ran. */
const char *replay__not_collected(const struct replay_model *m, const char *probe, char *buf,
				  size_t len);

/* S as a message wrapped at spaces onto at most H lines of W columns at (X, Y). Returns the lines
 * used. */
int replay__wrapped(struct grid *g, int x, int y, int w, int h, const char *s, uint8_t attr,
		    uint8_t colour);

/* For a sparkline of W columns of a series up to index I: *FIRST and *N, the at most 2W values
 * ending at I, and a zeroed array of *N doubles (malloc'd, caller frees; NULL when out of
 * memory). */
double *replay__history(size_t i, int w, size_t *first, size_t *n);

/* True when an interval that ended at T is stale at M's position: it ended more than one
 * interval before it. */
bool replay__stale(const struct replay_model *m, int64_t t);

/* V bytes as text in BUF ("1.50 MiB"); "-" (not BUF) when not measured (negative). */
const char *replay__bytes(char *buf, size_t len, int64_t v);

/* The drill keys of a tab whose draw sets ui->selected: Enter drills into the selected row
 * (ui->drill), Esc or Backspace goes back. 1 when it used KEY (an on_key). */
int replay__drill_key(struct replay_model *m, struct replay_ui *ui, int key);

#endif
