/* replay_grid.c — the replay viewer's character grid and its drawing helpers (no curses). */
#include "analyze/replay_grid.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct grid *grid__new(int w, int h)
{
	struct grid *g;

	if (w < 1 || h < 1 || w > 10000 || h > 10000) {
		errno = EINVAL;
		return NULL;
	}
	g = calloc(1, sizeof(*g));
	if (!g)
		return NULL;
	g->cells = calloc((size_t)w * (size_t)h, sizeof(*g->cells));
	if (!g->cells) {
		free(g);
		errno = ENOMEM;
		return NULL;
	}
	g->w = w;
	g->h = h;
	grid__clear(g);
	return g;
}

void grid__free(struct grid *g)
{
	if (!g)
		return;
	free(g->cells);
	free(g);
}

int grid__resize(struct grid *g, int w, int h)
{
	struct grid_cell *c;

	if (w < 1 || h < 1 || w > 10000 || h > 10000)
		return -EINVAL;
	c = calloc((size_t)w * (size_t)h, sizeof(*c));
	if (!c)
		return -ENOMEM;
	free(g->cells);
	g->cells = c;
	g->w = w;
	g->h = h;
	grid__clear(g);
	return 0;
}

void grid__clear(struct grid *g)
{
	size_t i, n = (size_t)g->w * (size_t)g->h;

	for (i = 0; i < n; i++)
		g->cells[i] = (struct grid_cell){.ch = ' '};
}

int grid__cp_width(uint32_t cp)
{
	if ((cp >= 0x1100 && cp <= 0x115f) || (cp >= 0x2e80 && cp <= 0xa4cf && cp != 0x303f) ||
	    (cp >= 0xac00 && cp <= 0xd7a3) || (cp >= 0xf900 && cp <= 0xfaff) ||
	    (cp >= 0xfe30 && cp <= 0xfe4f) || (cp >= 0xff00 && cp <= 0xff60) ||
	    (cp >= 0xffe0 && cp <= 0xffe6) || (cp >= 0x1f300 && cp <= 0x1f64f) ||
	    (cp >= 0x1f900 && cp <= 0x1f9ff) || (cp >= 0x20000 && cp <= 0x3fffd))
		return 2;
	return 1;
}

/* Decode one code point from *S (advanced); invalid bytes give U+FFFD, controls '?'. */
static uint32_t next_cp(const char **s)
{
	const unsigned char *p = (const unsigned char *)*s;
	uint32_t cp;
	int n, i;

	if (p[0] < 0x80) {
		*s += 1;
		return p[0] < 0x20 || p[0] == 0x7f ? '?' : p[0];
	}
	if ((p[0] & 0xe0) == 0xc0) {
		n = 1;
		cp = p[0] & 0x1f;
	} else if ((p[0] & 0xf0) == 0xe0) {
		n = 2;
		cp = p[0] & 0x0f;
	} else if ((p[0] & 0xf8) == 0xf0) {
		n = 3;
		cp = p[0] & 0x07;
	} else {
		*s += 1;
		return 0xfffd;
	}
	for (i = 1; i <= n; i++) {
		if ((p[i] & 0xc0) != 0x80) {
			*s += i;
			return 0xfffd;
		}
		cp = cp << 6 | (p[i] & 0x3f);
	}
	*s += n + 1;
	if (cp < 0xa0 || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return cp >= 0x80 && cp < 0xa0 ? '?' : 0xfffd;
	return cp;
}

int grid__text_width(const char *s)
{
	int w = 0;

	while (s && *s)
		w += grid__cp_width(next_cp(&s));
	return w;
}

static struct grid_cell *cell(struct grid *g, int x, int y)
{
	if (x < 0 || y < 0 || x >= g->w || y >= g->h)
		return NULL;
	return &g->cells[(size_t)y * (size_t)g->w + (size_t)x];
}

/* put CP at (X, Y), fixing up a wide character it overwrites half of */
static void put(struct grid *g, int x, int y, uint32_t cp, int cw, uint8_t attr, uint8_t colour)
{
	struct grid_cell *c = cell(g, x, y), *o;

	if (!c)
		return;
	if (c->ch == 0 && (o = cell(g, x - 1, y)))
		o->ch = ' '; /* we overwrite the right half of a wide character */
	if (cw == 1 && (o = cell(g, x + 1, y)) && o->ch == 0)
		o->ch = ' '; /* ... or its left half */
	*c = (struct grid_cell){.ch = cp, .attr = attr, .colour = colour};
	if (cw == 2 && (o = cell(g, x + 1, y)))
		*o = (struct grid_cell){.ch = 0, .attr = attr, .colour = colour};
}

int grid__text(struct grid *g, int x, int y, int maxw, const char *s, uint8_t attr, uint8_t colour)
{
	int used = 0, limit;

	if (y < 0 || y >= g->h || !s)
		return 0;
	limit = g->w - x;
	if (maxw >= 0 && maxw < limit)
		limit = maxw;
	while (*s && used < limit) {
		uint32_t cp = next_cp(&s);
		int cw = grid__cp_width(cp);

		if (used + cw > limit)
			break;
		if (x + used >= 0)
			put(g, x + used, y, cp, cw, attr, colour);
		used += cw;
	}
	return used;
}

int grid__textf(struct grid *g, int x, int y, int maxw, uint8_t attr, uint8_t colour,
		const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return grid__text(g, x, y, maxw, buf, attr, colour);
}

int grid__text_right(struct grid *g, int x, int y, int w, const char *s, uint8_t attr,
		     uint8_t colour)
{
	int tw = grid__text_width(s);

	while (tw > w && *s) { /* drop leading characters until it fits */
		const char *p = s;

		tw -= grid__cp_width(next_cp(&p));
		s = p;
	}
	return grid__text(g, x + w - tw, y, tw, s, attr, colour);
}

void grid__fill(struct grid *g, int x, int y, int w, int h, uint32_t cp, uint8_t attr,
		uint8_t colour)
{
	int i, j;

	for (j = y; j < y + h; j++)
		for (i = x; i < x + w; i++)
			put(g, i, j, cp, 1, attr, colour);
}

void grid__paint(struct grid *g, int x, int y, int w, int h, uint8_t attr, uint8_t colour)
{
	int i, j;

	for (j = y; j < y + h; j++)
		for (i = x; i < x + w; i++) {
			struct grid_cell *c = cell(g, i, j);

			if (c) {
				c->attr |= attr;
				c->colour = colour;
			}
		}
}

void grid__box(struct grid *g, int x, int y, int w, int h, const char *title, uint8_t colour)
{
	int i;

	if (w < 2 || h < 2)
		return;
	for (i = x + 1; i < x + w - 1; i++) {
		put(g, i, y, 0x2500, 1, 0, colour);
		put(g, i, y + h - 1, 0x2500, 1, 0, colour);
	}
	for (i = y + 1; i < y + h - 1; i++) {
		put(g, x, i, 0x2502, 1, 0, colour);
		put(g, x + w - 1, i, 0x2502, 1, 0, colour);
	}
	put(g, x, y, 0x250c, 1, 0, colour);
	put(g, x + w - 1, y, 0x2510, 1, 0, colour);
	put(g, x, y + h - 1, 0x2514, 1, 0, colour);
	put(g, x + w - 1, y + h - 1, 0x2518, 1, 0, colour);
	if (title && *title && w > 4) {
		int n = grid__text(g, x + 2, y, w - 4, " ", GA_BOLD, colour);

		n += grid__text(g, x + 2 + n, y, w - 4 - n, title, GA_BOLD, colour);
		grid__text(g, x + 2 + n, y, w - 4 - n, " ", GA_BOLD, colour);
	}
}

/* braille dots of one column filled from the bottom to LEVEL (0..4); RIGHT: the right column */
static uint32_t braille_col(int level, bool right)
{
	static const uint8_t left_bits[4] = {0x40, 0x04, 0x02, 0x01};  /* dots 7, 3, 2, 1 */
	static const uint8_t right_bits[4] = {0x80, 0x20, 0x10, 0x08}; /* dots 8, 6, 5, 4 */
	uint32_t b = 0;
	int i;

	for (i = 0; i < level && i < 4; i++)
		b |= right ? right_bits[i] : left_bits[i];
	return b;
}

static int level_of(double v, double max)
{
	int l;

	if (isnan(v))
		return 0;
	if (!(max > 0) || v <= 0)
		return 1;
	l = 1 + (int)lround(v / max * 3.0);
	return l < 1 ? 1 : l > 4 ? 4 : l;
}

void grid__sparkline(struct grid *g, int x, int y, int w, const double *v, size_t n, double max,
		     uint8_t colour)
{
	size_t first, i;
	int col;

	if (w <= 0)
		return;
	first = n > (size_t)w * 2 ? n - (size_t)w * 2 : 0;
	/* right-aligned: the last value in the right half of the last column */
	col = w - (int)((n - first + 1) / 2);
	i = first;
	if ((n - first) % 2) { /* an odd count: the first value sits alone in a right half */
		put(g, x + col, y, 0x2800 + braille_col(level_of(v[i], max), true), 1, 0, colour);
		col++;
		i++;
	}
	for (; i + 1 < n; i += 2, col++) {
		uint32_t b = braille_col(level_of(v[i], max), false) |
			     braille_col(level_of(v[i + 1], max), true);

		put(g, x + col, y, 0x2800 + b, 1, 0, colour);
	}
}

void grid__bar(struct grid *g, int x, int y, int w, double frac, uint8_t colour)
{
	int eighths, i;

	if (w <= 0 || isnan(frac))
		return;
	if (frac < 0)
		frac = 0;
	if (frac > 1)
		frac = 1;
	eighths = (int)lround(frac * w * 8);
	for (i = 0; i < w; i++) {
		int e = eighths - i * 8;

		if (e >= 8)
			put(g, x + i, y, 0x2588, 1, 0, colour);
		else if (e > 0)
			put(g, x + i, y, 0x2590 - e, 1, 0, colour); /* U+2589..U+258F: 7/8..1/8 */
		else
			put(g, x + i, y, ' ', 1, 0, colour);
	}
}

int grid__row(struct grid *g, int x, int y, const struct grid_col *cols, size_t ncols,
	      const char *const *cells, uint8_t attr, uint8_t colour)
{
	int cx = x;
	size_t i;

	for (i = 0; i < ncols; i++) {
		const char *s = cells[i] ? cells[i] : "-";

		if (cols[i].right)
			grid__text_right(g, cx, y, cols[i].width, s, attr, colour);
		else
			grid__text(g, cx, y, cols[i].width, s, attr, colour);
		cx += cols[i].width + 1;
	}
	return cx - x - 1;
}

int grid__header(struct grid *g, int x, int y, const struct grid_col *cols, size_t ncols,
		 uint8_t attr, uint8_t colour)
{
	const char *titles[32];
	size_t i;

	if (ncols > 32)
		ncols = 32;
	for (i = 0; i < ncols; i++)
		titles[i] = cols[i].title;
	return grid__row(g, x, y, cols, ncols, titles, attr, colour);
}

int grid__utf8(uint32_t cp, char *out)
{
	int n;

	if (cp < 0x80) {
		out[0] = (char)cp;
		n = 1;
	} else if (cp < 0x800) {
		out[0] = (char)(0xc0 | cp >> 6);
		out[1] = (char)(0x80 | (cp & 0x3f));
		n = 2;
	} else if (cp < 0x10000) {
		out[0] = (char)(0xe0 | cp >> 12);
		out[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		out[2] = (char)(0x80 | (cp & 0x3f));
		n = 3;
	} else {
		out[0] = (char)(0xf0 | cp >> 18);
		out[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
		out[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
		out[3] = (char)(0x80 | (cp & 0x3f));
		n = 4;
	}
	out[n] = 0;
	return n;
}

char *grid__to_text(const struct grid *g)
{
	size_t cap = (size_t)g->w * (size_t)g->h * 4 + (size_t)g->h + 1, len = 0;
	char *out = malloc(cap);
	int x, y;

	if (!out)
		return NULL;
	for (y = 0; y < g->h; y++) {
		size_t end = len;

		for (x = 0; x < g->w; x++) {
			const struct grid_cell *c = &g->cells[(size_t)y * (size_t)g->w + (size_t)x];

			if (!c->ch)
				continue;
			len += (size_t)grid__utf8(c->ch, out + len);
			if (c->ch != ' ')
				end = len;
		}
		len = end;
		out[len++] = '\n';
	}
	out[len] = 0;
	return out;
}
