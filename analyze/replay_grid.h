/* replay_grid.h — a character grid the replay views draw into and the terminal layer paints.
 *
 * A grid is W x H cells; each holds one Unicode code point, attributes (bold, reverse, dim) and
 * a colour pair index (0: the terminal's default). A wide character (CJK, emoji) takes two cells:
 * the second is a continuation cell (ch 0) the painter skips. Text is UTF-8, decoded here (no
 * locale needed); invalid bytes and control characters are shown as U+FFFD and '?'. Nothing is
 * ever written outside the grid: every helper clips. grid__to_text turns a grid into plain text
 * (UTF-8, trailing spaces trimmed) so tests and --dump see exactly what the terminal would.
 */
#ifndef PTOP_REPLAY_GRID_H
#define PTOP_REPLAY_GRID_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define GA_BOLD 0x01
#define GA_REVERSE 0x02
#define GA_DIM 0x04
#define GA_UNDERLINE 0x08

/* colour pairs the views use; the terminal layer maps them to colours */
enum grid_colour {
	GC_DEFAULT = 0,
	GC_TITLE,  /* headers, tab bar */
	GC_ACCENT, /* the selected tab, highlights */
	GC_GOOD,   /* sparklines, bars */
	GC_WARN,   /* truncated, drops */
	GC_MUTED,  /* "not collected", help text */
	GC_COUNT,
};

struct grid_cell {
	uint32_t ch; /* code point; 0: the right half of a wide character */
	uint8_t attr, colour;
};

struct grid {
	int w, h;
	struct grid_cell *cells; /* h rows of w cells */
};

/* A W x H grid of spaces (W, H >= 1). NULL and errno (EINVAL, ENOMEM). */
struct grid *grid__new(int w, int h);
void grid__free(struct grid *g);

/* Change the size (contents cleared). 0 or -EINVAL / -ENOMEM (the grid is unchanged then). */
int grid__resize(struct grid *g, int w, int h);

/* Every cell a space with no attributes. */
void grid__clear(struct grid *g);

/* Columns code point CP takes: 2 for wide characters, 1 otherwise. */
int grid__cp_width(uint32_t cp);

/* Columns the UTF-8 string S takes. */
int grid__text_width(const char *s);

/* Write UTF-8 S at (X, Y), at most MAXW columns (clipped to the grid too; MAXW < 0: to the grid's
 * edge). A wide character that does not fit is not drawn. Returns the columns written. */
int grid__text(struct grid *g, int x, int y, int maxw, const char *s, uint8_t attr, uint8_t colour);

/* printf into the grid, as grid__text. */
int grid__textf(struct grid *g, int x, int y, int maxw, uint8_t attr, uint8_t colour,
		const char *fmt, ...) __attribute__((format(printf, 7, 8)));

/* S right-aligned in the W columns starting at X (clipped on the left when longer). */
int grid__text_right(struct grid *g, int x, int y, int w, const char *s, uint8_t attr,
		     uint8_t colour);

/* Fill the rectangle with code point CP. */
void grid__fill(struct grid *g, int x, int y, int w, int h, uint32_t cp, uint8_t attr,
		uint8_t colour);

/* Set the attributes (OR) and colour of a rectangle without changing its text. */
void grid__paint(struct grid *g, int x, int y, int w, int h, uint8_t attr, uint8_t colour);

/* A box with light box-drawing lines and TITLE (may be NULL) in its top border. */
void grid__box(struct grid *g, int x, int y, int w, int h, const char *title, uint8_t colour);

/* A braille sparkline of N values in W columns at (X, Y), two values per column, the last value
 * at the right; values scaled to [0, MAX] over four dot rows. A NAN value (not measured) draws
 * no dot; a measured value draws at least the bottom dot, so 0 and "not measured" differ. When
 * N > 2W only the last 2W values are drawn. */
void grid__sparkline(struct grid *g, int x, int y, int w, const double *v, size_t n, double max,
		     uint8_t colour);

/* A horizontal bar of FRAC (0..1) of W columns in eighth blocks. */
void grid__bar(struct grid *g, int x, int y, int w, double frac, uint8_t colour);

/* A table column: its title, width and alignment. */
struct grid_col {
	const char *title;
	int width;
	bool right;
};

/* One table row at (X, Y): CELLS[i] in column i, columns separated by one space (a NULL cell
 * draws "-"). Returns the width used. */
int grid__row(struct grid *g, int x, int y, const struct grid_col *cols, size_t ncols,
	      const char *const *cells, uint8_t attr, uint8_t colour);

/* The header row of a table (the titles). */
int grid__header(struct grid *g, int x, int y, const struct grid_col *cols, size_t ncols,
		 uint8_t attr, uint8_t colour);

/* The grid as UTF-8 text, one line per row, trailing spaces trimmed, each line ending with \n.
 * Malloc'd (caller frees); NULL and errno ENOMEM. */
char *grid__to_text(const struct grid *g);

/* Encode CP as UTF-8 into OUT (at least 5 bytes, NUL-terminated). Returns the bytes written. */
int grid__utf8(uint32_t cp, char *out);

#endif
