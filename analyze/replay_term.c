/* replay_term.c — the replay viewer's terminal layer: the only file that uses curses. It paints a
 * struct grid with ncursesw, reads keys, and restores the terminal on exit and on SIGINT/SIGTERM.
 */
#include "analyze/replay.h"

#include <errno.h>
#include <langinfo.h>
#include <locale.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <wchar.h>

#include <ncursesw/curses.h>

#include "analyze/replay_views.h"

struct term {
	bool colour;
};

static volatile sig_atomic_t interrupted;
static bool active;

static void on_signal(int sig)
{
	(void)sig;
	interrupted = 1;
}

bool term__interrupted(void)
{
	return interrupted != 0;
}

static void restore_at_exit(void)
{
	if (active) {
		endwin();
		active = false;
	}
}

/* colour pairs GC_* over the terminal's background: 256-colour indices, else the 8 basics */
static void init_colours(void)
{
	static const short c256[GC_COUNT] = {-1, 75, 214, 114, 203, 245};
	static const short c16[GC_COUNT] = {-1,		 COLOR_CYAN, COLOR_YELLOW,
					    COLOR_GREEN, COLOR_RED,  COLOR_WHITE};
	int i;

	start_color();
	use_default_colors();
	for (i = 1; i < GC_COUNT; i++)
		init_pair((short)i, COLORS >= 256 ? c256[i] : c16[i], -1);
}

struct term *term__open(char *err, size_t errlen)
{
	struct sigaction sa;
	struct term *t;
	const char *nc = getenv("NO_COLOR");

	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
		snprintf(err, errlen,
			 "replay needs a terminal; use --dump to print a frame as text");
		return NULL;
	}
	t = calloc(1, sizeof(*t));
	if (!t) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	setlocale(LC_ALL, "");
	if (strcmp(nl_langinfo(CODESET), "UTF-8"))
		setlocale(LC_CTYPE, "C.UTF-8"); /* box drawing and braille need UTF-8 */
	if (!newterm(NULL, stdout, stdin)) {
		snprintf(err, errlen, "cannot use the terminal (TERM=%s): check $TERM",
			 getenv("TERM") ? getenv("TERM") : "");
		free(t);
		return NULL;
	}
	active = true;
	atexit(restore_at_exit);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	set_escdelay(25);
	curs_set(0);
	t->colour = has_colors() && !(nc && *nc);
	if (t->colour)
		init_colours();
	return t;
}

void term__close(struct term *t)
{
	restore_at_exit();
	free(t);
}

void term__size(struct term *t, int *w, int *h)
{
	(void)t;
	getmaxyx(stdscr, *h, *w);
}

/* After an ESC that curses did not turn into a key: read the rest of the sequence (some terminfo
 * entries lack the shifted arrows tmux and xterm send). A lone ESC is RK_ESC; an unknown sequence
 * is swallowed whole so its bytes are not taken for keys. */
static int escape_sequence(void)
{
	static const struct {
		const char *seq;
		int key;
	} seqs[] = {{"[1;2C", RK_SRIGHT}, {"[1;2D", RK_SLEFT}, {"[Z", RK_BTAB},
		    {"[C", RK_RIGHT},	  {"[D", RK_LEFT},     {"[A", RK_UP},
		    {"[B", RK_DOWN},	  {"OC", RK_RIGHT},    {"OD", RK_LEFT}};
	char buf[16];
	size_t n = 0, i;
	wint_t ch;
	int rc;

	timeout(30);
	while (n + 1 < sizeof(buf)) {
		rc = get_wch(&ch);
		if (rc == ERR || rc == KEY_CODE_YES || ch > 0x7f)
			break;
		buf[n++] = (char)ch;
		buf[n] = 0;
		if (n > 1 && ch >= 0x40 && ch <= 0x7e)
			break; /* the final byte of a CSI or SS3 sequence */
	}
	buf[n] = 0;
	if (!n)
		return RK_ESC;
	for (i = 0; i < sizeof(seqs) / sizeof(seqs[0]); i++)
		if (!strcmp(buf, seqs[i].seq))
			return seqs[i].key;
	return 0;
}

int term__key(struct term *t, int timeout_ms)
{
	wint_t ch;
	int rc;

	(void)t;
	timeout(timeout_ms);
	rc = get_wch(&ch);
	if (rc == ERR)
		return 0;
	if (rc == KEY_CODE_YES) {
		switch (ch) {
		case KEY_LEFT:
			return RK_LEFT;
		case KEY_RIGHT:
			return RK_RIGHT;
		case KEY_SLEFT:
			return RK_SLEFT;
		case KEY_SRIGHT:
			return RK_SRIGHT;
		case KEY_UP:
			return RK_UP;
		case KEY_DOWN:
			return RK_DOWN;
		case KEY_PPAGE:
			return RK_PGUP;
		case KEY_NPAGE:
			return RK_PGDN;
		case KEY_HOME:
			return RK_HOME;
		case KEY_END:
			return RK_END;
		case KEY_BTAB:
			return RK_BTAB;
		case KEY_RESIZE:
			return RK_RESIZE;
		case KEY_ENTER:
			return RK_ENTER;
		case KEY_BACKSPACE:
			return RK_BACKSPACE;
		default:
			if (ch >= KEY_F(1) && ch <= KEY_F(12))
				return RK_F1 + (int)(ch - KEY_F(1));
			return 0;
		}
	}
	if (ch == 27)
		return escape_sequence();
	if (ch == '\t')
		return RK_TAB;
	if (ch == '\r' || ch == '\n')
		return RK_ENTER;
	if (ch == 8 || ch == 127)
		return RK_BACKSPACE;
	return (int)ch;
}

static attr_t attrs_of(const struct grid_cell *c)
{
	attr_t a = A_NORMAL;

	if (c->attr & GA_BOLD)
		a |= A_BOLD;
	if (c->attr & GA_REVERSE)
		a |= A_REVERSE;
	if (c->attr & GA_DIM)
		a |= A_DIM;
	if (c->attr & GA_UNDERLINE)
		a |= A_UNDERLINE;
	return a;
}

void term__paint(struct term *t, const struct grid *g)
{
	int x, y, sw, sh;

	getmaxyx(stdscr, sh, sw);
	erase();
	for (y = 0; y < g->h && y < sh; y++)
		for (x = 0; x < g->w && x < sw; x++) {
			const struct grid_cell *c = &g->cells[(size_t)y * (size_t)g->w + (size_t)x];
			wchar_t wc[2] = {(wchar_t)c->ch, 0};
			short pair = t->colour ? (short)c->colour : 0;
			cchar_t cc;

			if (!c->ch)
				continue; /* the right half of a wide character */
			setcchar(&cc, wc, attrs_of(c), pair, NULL);
			mvadd_wch(y, x, &cc);
		}
	refresh();
}
