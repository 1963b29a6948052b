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
	int tab;	    /* index into replay_views */
	int scroll;	    /* first row shown of the tab's table */
	int sort;	    /* sort column of the tab's table */
	char filter[64];    /* name filter of the tab's table ("" none) */
	bool help;	    /* the ? overlay is shown */
	int prompt;	    /* 0: none, 't': jump to a time, '/': filter */
	char input[64];	    /* what was typed at the prompt */
	char status[160];   /* a one-line message for the footer ("" none) */
	int rows;	    /* rows the tab's table showed last (for PgUp/PgDn) */
	char selected[128]; /* the name of the selected (top) row, set by the tab's draw */
	char drill[128];    /* the row drilled into with Enter ("" none; Esc goes back) */
};

struct replay_view {
	const char *name;   /* "Syscalls": the tab bar */
	const char *id;	    /* "syscalls": --tab */
	int probe;	    /* enum rm_probe its data comes from; -1: no collector yet */
	const char *source; /* what it shows and from where (for the help overlay) */
	void (*draw)(struct replay_model *m, struct replay_ui *ui, struct grid *g, int x, int y,
		     int w, int h);
	const char *const *sort_names; /* the columns s cycles through; NULL: none */
	/* the tab's own keys (Enter to drill in, Esc back); 1 when it used KEY. May be NULL. */
	int (*on_key)(struct replay_model *m, struct replay_ui *ui, int key);
};

extern const struct replay_view replay_views[];
extern const size_t replay_nviews;

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

#endif
