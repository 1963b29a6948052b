/* output.c — aligned text tables, CSV, JSON and human units for ptop-analyze (see output.h). */
#include "analyze/output.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

int out_format__parse(const char *s, enum out_format *fmt)
{
	if (!s)
		return -EINVAL;
	if (!strcmp(s, "text"))
		*fmt = OUT_TEXT;
	else if (!strcmp(s, "csv"))
		*fmt = OUT_CSV;
	else if (!strcmp(s, "json"))
		*fmt = OUT_JSON;
	else
		return -EINVAL;
	return 0;
}

/* ------------------------------------------------------------------ UTF-8 */

size_t utf8_seq(const unsigned char *s)
{
	unsigned char c = s[0];
	uint32_t cp;
	size_t n, i;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf) {
		n = 2;
		cp = c & 0x1f;
	} else if (c >= 0xe0 && c <= 0xef) {
		n = 3;
		cp = c & 0x0f;
	} else if (c >= 0xf0 && c <= 0xf4) {
		n = 4;
		cp = c & 0x07;
	} else {
		return 0;
	}
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80) /* also stops at the NUL */
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) || cp > 0x10ffff ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

/* S made fit for one line of a text table: valid UTF-8 kept, control
 * characters and invalid bytes escaped. Malloc'd, NULL on ENOMEM. */
static char *display_escape(const char *s)
{
	size_t len = strlen(s), i = 0, o = 0;
	char *out = malloc(len * 4 + 1);

	if (!out)
		return NULL;
	while (i < len) {
		const unsigned char *p = (const unsigned char *)s + i;
		size_t n = utf8_seq(p);

		if (n == 1 && *p >= 0x20 && *p != 0x7f) {
			out[o++] = (char)*p;
		} else if (n > 1) {
			memcpy(out + o, p, n);
			o += n;
		} else if (*p == '\n' || *p == '\t' || *p == '\r') {
			out[o++] = '\\';
			out[o++] = *p == '\n' ? 'n' : *p == '\t' ? 't' : 'r';
			n = 1;
		} else {
			o += (size_t)sprintf(out + o, "\\x%02x", *p);
			n = 1;
		}
		i += n;
	}
	out[o] = '\0';
	return out;
}

/* Display width in code points (continuation bytes do not count). */
static size_t display_width(const char *s)
{
	size_t w = 0;

	for (; *s; s++)
		if (((unsigned char)*s & 0xc0) != 0x80)
			w++;
	return w;
}

/* ------------------------------------------------------------------ tables */

struct cell {
	enum cell_type type;
	char *value;   /* canonical text of the value; NULL for CELL_NULL */
	char *display; /* text output; NULL: the value */
};

struct table {
	size_t ncols;
	char **names;	    /* text headers */
	char **keys;	    /* CSV and JSON names; NULL: the text header */
	struct cell *cells; /* rows * ncols */
	size_t rows, cap;   /* rows used, rows allocated */
	char *null_text;
};

struct table *table__new(size_t ncols, const char *const *names)
{
	struct table *t;
	size_t i;

	if (!ncols || !names) {
		errno = EINVAL;
		return NULL;
	}
	t = calloc(1, sizeof(*t));
	if (!t)
		goto err;
	t->ncols = ncols;
	t->names = calloc(ncols, sizeof(*t->names));
	t->keys = calloc(ncols, sizeof(*t->keys));
	t->null_text = strdup("-");
	if (!t->names || !t->keys || !t->null_text)
		goto err;
	for (i = 0; i < ncols; i++) {
		t->names[i] = strdup(names[i] ? names[i] : "");
		if (!t->names[i])
			goto err;
	}
	return t;
err:
	table__free(t);
	errno = ENOMEM;
	return NULL;
}

static void cell_clear(struct cell *c)
{
	free(c->value);
	free(c->display);
	memset(c, 0, sizeof(*c));
}

void table__free(struct table *t)
{
	size_t i;

	if (!t)
		return;
	for (i = 0; i < t->rows * t->ncols; i++)
		cell_clear(&t->cells[i]);
	free(t->cells);
	for (i = 0; i < t->ncols; i++) {
		if (t->names)
			free(t->names[i]);
		if (t->keys)
			free(t->keys[i]);
	}
	free(t->names);
	free(t->keys);
	free(t->null_text);
	free(t);
}

int table__set_null_text(struct table *t, const char *s)
{
	char *d = strdup(s ? s : "");

	if (!d)
		return -ENOMEM;
	free(t->null_text);
	t->null_text = d;
	return 0;
}

int table__set_key(struct table *t, size_t col, const char *key)
{
	char *d;

	if (col >= t->ncols)
		return -EINVAL;
	d = key ? strdup(key) : NULL;
	if (key && !d)
		return -ENOMEM;
	free(t->keys[col]);
	t->keys[col] = d;
	return 0;
}

/* The name of column C in CSV and JSON. */
static const char *col_key(const struct table *t, size_t c)
{
	return t->keys[c] ? t->keys[c] : t->names[c];
}

int table__add_row(struct table *t)
{
	if (t->rows == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 16;
		struct cell *c = realloc(t->cells, cap * t->ncols * sizeof(*c));

		if (!c)
			return -ENOMEM;
		t->cells = c;
		t->cap = cap;
	}
	memset(&t->cells[t->rows * t->ncols], 0, t->ncols * sizeof(*t->cells));
	t->rows++;
	return 0;
}

size_t table__rows(const struct table *t)
{
	return t->rows;
}

size_t table__cols(const struct table *t)
{
	return t->ncols;
}

static const struct cell *cell_get(const struct table *t, size_t row, size_t col)
{
	if (row >= t->rows || col >= t->ncols)
		return NULL;
	return &t->cells[row * t->ncols + col];
}

enum cell_type table__type(const struct table *t, size_t row, size_t col)
{
	const struct cell *c = cell_get(t, row, col);

	return c ? c->type : CELL_NULL;
}

const char *table__value(const struct table *t, size_t row, size_t col)
{
	const struct cell *c = cell_get(t, row, col);

	return c ? c->value : NULL;
}

/* What text output shows for C (before escaping). */
static const char *cell_shown(const struct table *t, const struct cell *c)
{
	return c->display ? c->display : c->type == CELL_NULL ? t->null_text : c->value;
}

const char *table__shown(const struct table *t, size_t row, size_t col)
{
	const struct cell *c = cell_get(t, row, col);

	return c ? cell_shown(t, c) : NULL;
}

static struct cell *cell_at(struct table *t, size_t col)
{
	if (!t->rows || col >= t->ncols)
		return NULL;
	return &t->cells[(t->rows - 1) * t->ncols + col];
}

static int cell_set(struct table *t, size_t col, enum cell_type type, const char *value,
		    const char *display)
{
	struct cell *c = cell_at(t, col);

	if (!c)
		return -EINVAL;
	cell_clear(c);
	c->type = type;
	if (type == CELL_NULL)
		return 0;
	c->value = strdup(value);
	if (display)
		c->display = strdup(display);
	if (!c->value || (display && !c->display)) {
		cell_clear(c);
		return -ENOMEM;
	}
	return 0;
}

int table__set_null(struct table *t, size_t col)
{
	return cell_set(t, col, CELL_NULL, NULL, NULL);
}

int table__set_int(struct table *t, size_t col, int64_t v, const char *display)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%" PRId64, v);
	return cell_set(t, col, CELL_INT, buf, display);
}

/* The shortest of %.15g..%.17g that reads back as V. */
static void real_text(char *buf, size_t len, double v)
{
	int prec;

	for (prec = 15; prec <= 17; prec++) {
		snprintf(buf, len, "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			return;
	}
}

int table__set_real(struct table *t, size_t col, double v, const char *display)
{
	char buf[40];

	if (!isfinite(v))
		return table__set_null(t, col);
	real_text(buf, sizeof(buf), v);
	return cell_set(t, col, CELL_REAL, buf, display);
}

int table__set_text(struct table *t, size_t col, const char *s)
{
	if (!s)
		return table__set_null(t, col);
	return cell_set(t, col, CELL_TEXT, s, NULL);
}

int table__set_bool(struct table *t, size_t col, bool v, const char *display)
{
	return cell_set(t, col, CELL_BOOL, v ? "true" : "false",
			display ? display
			: v	? "yes"
				: "no");
}

int table__set_json(struct table *t, size_t col, const char *json, const char *display)
{
	if (!json)
		return table__set_null(t, col);
	return cell_set(t, col, CELL_JSON, json, display);
}

int table__set_display(struct table *t, size_t col, const char *display)
{
	struct cell *c = cell_at(t, col);
	char *d;

	if (!c)
		return -EINVAL;
	d = display ? strdup(display) : NULL;
	if (display && !d)
		return -ENOMEM;
	free(c->display);
	c->display = d;
	return 0;
}

/* Column K of the rendering: COLS[K], or K when COLS is NULL. */
static size_t col_of(const size_t *cols, size_t k)
{
	return cols ? cols[k] : k;
}

static int print_text(const struct table *t, FILE *f, const size_t *cols, size_t nc)
{
	size_t nr = t->rows, r, c, i;
	size_t *width = calloc(nc, sizeof(*width));
	bool *right = calloc(nc, sizeof(*right));
	char **shown = calloc(nc * (nr + 1), sizeof(*shown));
	int err = 0;

	if (!width || !right || !shown) {
		err = -ENOMEM;
		goto cleanup;
	}
	for (c = 0; c < nc; c++) {
		enum cell_type type;

		right[c] = true;
		for (r = 0; r < nr; r++) {
			type = t->cells[r * t->ncols + col_of(cols, c)].type;
			if (type == CELL_TEXT || type == CELL_BOOL || type == CELL_JSON)
				right[c] = false;
		}
	}
	for (r = 0; r <= nr; r++) {
		for (c = 0; c < nc; c++) {
			const char *s;

			if (r == 0)
				s = t->names[col_of(cols, c)];
			else
				s = cell_shown(t, &t->cells[(r - 1) * t->ncols + col_of(cols, c)]);
			shown[r * nc + c] = display_escape(s);
			if (!shown[r * nc + c]) {
				err = -ENOMEM;
				goto cleanup;
			}
			i = display_width(shown[r * nc + c]);
			if (i > width[c])
				width[c] = i;
		}
	}
	for (r = 0; r <= nr; r++) {
		for (c = 0; c < nc; c++) {
			const char *s = shown[r * nc + c];
			size_t pad = width[c] - display_width(s);
			bool last = c + 1 == nc;

			if (c)
				fputs("  ", f);
			if (right[c])
				for (i = 0; i < pad; i++)
					fputc(' ', f);
			fputs(s, f);
			if (!right[c] && !last)
				for (i = 0; i < pad; i++)
					fputc(' ', f);
		}
		fputc('\n', f);
	}
cleanup:
	if (shown)
		for (i = 0; i < nc * (nr + 1); i++)
			free(shown[i]);
	free(shown);
	free(width);
	free(right);
	return err;
}

void csv__field(FILE *f, const char *s)
{
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

static void print_csv(const struct table *t, FILE *f, const size_t *cols, size_t nc)
{
	size_t r, c;

	for (c = 0; c < nc; c++) {
		if (c)
			fputc(',', f);
		csv__field(f, col_key(t, col_of(cols, c)));
	}
	fputc('\n', f);
	for (r = 0; r < t->rows; r++) {
		for (c = 0; c < nc; c++) {
			const struct cell *cl = &t->cells[r * t->ncols + col_of(cols, c)];

			if (c)
				fputc(',', f);
			if (cl->type == CELL_NULL)
				continue;
			if (cl->type == CELL_TEXT && !cl->value[0])
				fputs("\"\"", f); /* the empty string, not NULL */
			else
				csv__field(f, cl->value);
		}
		fputc('\n', f);
	}
}

/* Cell CL as a JSON value. */
static void cell_json(FILE *f, const struct cell *cl)
{
	if (cl->type == CELL_NULL)
		fputs("null", f);
	else if (cl->type == CELL_TEXT)
		json__write_string(f, cl->value);
	else
		fputs(cl->value, f); /* a number, true, false, or JSON text */
}

static void print_json(const struct table *t, FILE *f, const size_t *cols, size_t nc)
{
	size_t r, c;

	fputc('[', f);
	for (r = 0; r < t->rows; r++) {
		fputs(r ? ",\n{" : "\n{", f);
		for (c = 0; c < nc; c++) {
			size_t k = col_of(cols, c);

			if (c)
				fputs(", ", f);
			json__write_string(f, col_key(t, k));
			fputs(": ", f);
			cell_json(f, &t->cells[r * t->ncols + k]);
		}
		fputc('}', f);
	}
	fputs(t->rows ? "\n]\n" : "]\n", f);
}

int table__print(const struct table *t, FILE *f, enum out_format fmt)
{
	return table__print_cols(t, f, fmt, NULL, t->ncols);
}

int table__print_cols(const struct table *t, FILE *f, enum out_format fmt, const size_t *cols,
		      size_t n)
{
	int err = 0;

	if (!cols)
		n = t->ncols;
	for (size_t k = 0; cols && k < n; k++)
		if (cols[k] >= t->ncols)
			return -EINVAL;
	switch (fmt) {
	case OUT_TEXT:
		err = print_text(t, f, cols, n);
		break;
	case OUT_CSV:
		print_csv(t, f, cols, n);
		break;
	case OUT_JSON:
		print_json(t, f, cols, n);
		break;
	default:
		return -EINVAL;
	}
	if (!err && (fflush(f) || ferror(f)))
		err = -EIO;
	return err;
}

/* ------------------------------------------------------------------ JSON */

void json__write_string(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	fputc('"', f);
	while (*p) {
		size_t n = utf8_seq(p);

		if (n == 0) {
			fputs("\\ufffd", f); /* an invalid byte: the replacement character */
			p++;
			continue;
		}
		if (n > 1) {
			fwrite(p, 1, n, f);
			p += n;
			continue;
		}
		switch (*p) {
		case '"':
			fputs("\\\"", f);
			break;
		case '\\':
			fputs("\\\\", f);
			break;
		case '\b':
			fputs("\\b", f);
			break;
		case '\f':
			fputs("\\f", f);
			break;
		case '\n':
			fputs("\\n", f);
			break;
		case '\r':
			fputs("\\r", f);
			break;
		case '\t':
			fputs("\\t", f);
			break;
		default:
			if (*p < 0x20 || *p == 0x7f)
				fprintf(f, "\\u%04x", *p);
			else
				fputc(*p, f);
		}
		p++;
	}
	fputc('"', f);
}

void json__init(struct json *j, FILE *f, bool pretty)
{
	memset(j, 0, sizeof(*j));
	j->f = f;
	j->pretty = pretty;
	j->first[0] = true;
}

static void json_indent(struct json *j)
{
	int i;

	if (!j->pretty)
		return;
	fputc('\n', j->f);
	for (i = 0; i < j->depth; i++)
		fputs("  ", j->f);
}

/* Before any value: the separator, or check that a key was written. */
static bool json_pre_value(struct json *j)
{
	if (j->err)
		return false;
	if (j->depth > 0 && j->in_object[j->depth]) {
		if (!j->want_value) {
			j->err = -EINVAL;
			return false;
		}
		j->want_value = false;
		return true;
	}
	if (j->depth == 0 && !j->first[0]) {
		j->err = -EINVAL; /* one top-level value per document */
		return false;
	}
	if (!j->first[j->depth])
		fputc(',', j->f);
	if (j->depth > 0)
		json_indent(j);
	j->first[j->depth] = false;
	return true;
}

static void json_open(struct json *j, char c, bool object)
{
	if (!json_pre_value(j))
		return;
	if (j->depth + 1 >= JSON_MAX_DEPTH) {
		j->err = -EINVAL;
		return;
	}
	fputc(c, j->f);
	j->depth++;
	j->first[j->depth] = true;
	j->in_object[j->depth] = object;
}

static void json_close(struct json *j, char c, bool object)
{
	if (j->err)
		return;
	if (j->depth == 0 || j->in_object[j->depth] != object || j->want_value) {
		j->err = -EINVAL;
		return;
	}
	j->depth--;
	if (!j->first[j->depth + 1])
		json_indent(j);
	fputc(c, j->f);
}

void json__begin_object(struct json *j)
{
	json_open(j, '{', true);
}

void json__end_object(struct json *j)
{
	json_close(j, '}', true);
}

void json__begin_array(struct json *j)
{
	json_open(j, '[', false);
}

void json__end_array(struct json *j)
{
	json_close(j, ']', false);
}

void json__key(struct json *j, const char *key)
{
	if (j->err)
		return;
	if (j->depth == 0 || !j->in_object[j->depth] || j->want_value || !key) {
		j->err = -EINVAL;
		return;
	}
	if (!j->first[j->depth])
		fputc(',', j->f);
	j->first[j->depth] = false;
	json_indent(j);
	json__write_string(j->f, key);
	fputs(j->pretty ? ": " : ":", j->f);
	j->want_value = true;
}

void json__string(struct json *j, const char *s)
{
	if (!json_pre_value(j))
		return;
	if (s)
		json__write_string(j->f, s);
	else
		fputs("null", j->f);
}

void json__int(struct json *j, int64_t v)
{
	if (json_pre_value(j))
		fprintf(j->f, "%" PRId64, v);
}

void json__uint(struct json *j, uint64_t v)
{
	if (json_pre_value(j))
		fprintf(j->f, "%" PRIu64, v);
}

void json__real(struct json *j, double v)
{
	char buf[40];

	if (!json_pre_value(j))
		return;
	if (!isfinite(v)) {
		fputs("null", j->f);
		return;
	}
	real_text(buf, sizeof(buf), v);
	fputs(buf, j->f);
}

void json__bool(struct json *j, bool v)
{
	if (json_pre_value(j))
		fputs(v ? "true" : "false", j->f);
}

void json__null(struct json *j)
{
	if (json_pre_value(j))
		fputs("null", j->f);
}

void json__raw(struct json *j, const char *s)
{
	if (json_pre_value(j))
		fputs(s, j->f);
}

void table__json_fields(const struct table *t, struct json *j, size_t row, const size_t *cols,
			size_t n)
{
	if (!cols)
		n = t->ncols;
	if (row >= t->rows) {
		j->err = j->err ?: -EINVAL;
		return;
	}
	for (size_t c = 0; c < n; c++) {
		size_t k = col_of(cols, c);

		if (k >= t->ncols) {
			j->err = j->err ?: -EINVAL;
			return;
		}
		json__key(j, col_key(t, k));
		if (json_pre_value(j))
			cell_json(j->f, &t->cells[row * t->ncols + k]);
	}
}

void table__json(const struct table *t, struct json *j, const size_t *cols, size_t n)
{
	json__begin_array(j);
	for (size_t r = 0; r < t->rows; r++) {
		json__begin_object(j);
		table__json_fields(t, j, r, cols, n);
		json__end_object(j);
	}
	json__end_array(j);
}

void json__kv_string(struct json *j, const char *key, const char *s)
{
	json__key(j, key);
	json__string(j, s);
}

void json__kv_int(struct json *j, const char *key, int64_t v)
{
	json__key(j, key);
	json__int(j, v);
}

void json__kv_real(struct json *j, const char *key, double v)
{
	json__key(j, key);
	json__real(j, v);
}

void json__kv_bool(struct json *j, const char *key, bool v)
{
	json__key(j, key);
	json__bool(j, v);
}

void json__kv_null(struct json *j, const char *key)
{
	json__key(j, key);
	json__null(j);
}

int json__end(struct json *j)
{
	if (!j->err && (j->depth != 0 || j->want_value))
		j->err = -EINVAL;
	fputc('\n', j->f);
	if (!j->err && (fflush(j->f) || ferror(j->f)))
		j->err = -EIO;
	return j->err;
}

/* ------------------------------------------------------------------ human units */

char *fmt_bytes(char *buf, size_t len, uint64_t bytes)
{
	static const char *const unit[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
	double v = (double)bytes;
	int u = -1;

	if (bytes < 1024) {
		snprintf(buf, len, "%" PRIu64 " B", bytes);
		return buf;
	}
	/* the next unit from 1023.5 on, so that rounding never shows "1024 KiB" */
	while (v >= 1023.5 && u < 5) {
		v /= 1024;
		u++;
	}
	/* three significant digits, without rounding up past the unit */
	if (v < 9.995)
		snprintf(buf, len, "%.2f %s", v, unit[u]);
	else if (v < 99.95)
		snprintf(buf, len, "%.1f %s", v, unit[u]);
	else
		snprintf(buf, len, "%.0f %s", v, unit[u]);
	return buf;
}

char *fmt_bytes_signed(char *buf, size_t len, int64_t bytes)
{
	uint64_t mag = bytes < 0 ? (uint64_t)0 - (uint64_t)bytes : (uint64_t)bytes;
	char tmp[32];

	fmt_bytes(tmp, sizeof(tmp), mag);
	snprintf(buf, len, "%s%s", bytes > 0 ? "+" : bytes < 0 ? "-" : "", tmp);
	return buf;
}

char *fmt_ns(char *buf, size_t len, uint64_t ns)
{
	double v = (double)ns;

	if (ns < 1000)
		snprintf(buf, len, "%" PRIu64 " ns", ns);
	else if (ns < 1000000)
		snprintf(buf, len,
			 v < 9995    ? "%.2f us"
			 : v < 99950 ? "%.1f us"
				     : "%.0f us",
			 v / 1e3);
	else if (ns < 1000000000)
		snprintf(buf, len,
			 v < 9995e3    ? "%.2f ms"
			 : v < 99950e3 ? "%.1f ms"
				       : "%.0f ms",
			 v / 1e6);
	else if (ns < 60ull * 1000000000)
		snprintf(buf, len, v < 9995e6 ? "%.2f s" : "%.1f s", v / 1e9);
	else if (ns < 3600ull * 1000000000) {
		uint64_t s = ns / 1000000000;

		snprintf(buf, len, "%" PRIu64 "m%02" PRIu64 "s", s / 60, s % 60);
	} else {
		uint64_t m = ns / 60000000000ull;

		snprintf(buf, len, "%" PRIu64 "h%02" PRIu64 "m", m / 60, m % 60);
	}
	return buf;
}

char *fmt_pct(char *buf, size_t len, double pct)
{
	if (!isfinite(pct))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.1f%%", pct);
	return buf;
}

char *fmt_count(char *buf, size_t len, uint64_t n)
{
	char digits[32];
	size_t nd, i, o = 0;

	nd = (size_t)snprintf(digits, sizeof(digits), "%" PRIu64, n);
	for (i = 0; i < nd && o + 1 < len; i++) {
		if (i && (nd - i) % 3 == 0) {
			buf[o++] = ',';
			if (o + 1 >= len)
				break;
		}
		buf[o++] = digits[i];
	}
	if (len)
		buf[o < len ? o : len - 1] = '\0';
	return buf;
}

char *fmt_secs(char *buf, size_t len, int64_t ns)
{
	uint64_t mag = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
	uint64_t ms = (mag + 500000) / 1000000; /* rounded to the millisecond */

	snprintf(buf, len, "%s%" PRIu64 ".%03" PRIu64, ns < 0 ? "-" : "", ms / 1000, ms % 1000);
	return buf;
}

char *fmt_wall(char *buf, size_t len, int64_t realtime_ns)
{
	time_t secs = (time_t)(realtime_ns / 1000000000);
	long ms = (long)((realtime_ns % 1000000000) / 1000000);
	struct tm tm;
	char day[32];

	if (realtime_ns < 0 || !gmtime_r(&secs, &tm) ||
	    !strftime(day, sizeof(day), "%Y-%m-%dT%H:%M:%S", &tm)) {
		snprintf(buf, len, "-");
		return buf;
	}
	snprintf(buf, len, "%s.%03ldZ", day, ms);
	return buf;
}

int out_width(FILE *f)
{
	const char *env = getenv("COLUMNS");
	struct winsize ws;
	char *end;
	long v;

	if (isatty(fileno(f)) && !ioctl(fileno(f), TIOCGWINSZ, &ws) && ws.ws_col >= 20)
		return ws.ws_col;
	if (env && *env) {
		v = strtol(env, &end, 10);
		if (!*end && v >= 20 && v <= 10000)
			return (int)v;
	}
	return 0;
}
