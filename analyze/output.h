/* output.h — how ptop-analyze prints: aligned text tables, CSV, JSON, human units.
 *
 * A struct table is the row model of every report: its rows are built once, with
 * typed cells (NULL, integer, real, text, boolean, JSON), and rendered as an
 * aligned text table, as CSV (RFC 4180 quoting: a field holding a comma, a
 * quote, CR or LF is quoted and its quotes doubled; lines end with LF; NULL is
 * an empty unquoted field, the empty string is "") or as JSON (numbers as
 * numbers, NULL as null): a document of its own, or rows and fields written into
 * a larger report through a struct json. A cell may carry the text that text
 * output shows for it (its display: "1.5 MiB" for 1572864, "none" for a NULL
 * limit); CSV and JSON always write the value. A report whose text is prose reads
 * the same cells (table__shown) so no figure is formatted twice. A struct json
 * writes nested JSON objects for reports, escaping strings properly (control
 * characters as \uXXXX or \n-style escapes; valid UTF-8 passed through; invalid
 * bytes as U+FFFD).
 */
#ifndef PTOP_OUTPUT_H
#define PTOP_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum out_format {
	OUT_TEXT = 0,
	OUT_CSV,
	OUT_JSON,
};

/* Length of the valid UTF-8 sequence at S (1..4), or 0 if the bytes there are
 * not valid UTF-8 (bad lead, bad continuation, overlong, surrogate, > U+10FFFF). */
size_t utf8_seq(const unsigned char *s);

/* Parse "text", "csv" or "json" into *FMT. 0, or -EINVAL for anything else. */
int out_format__parse(const char *s, enum out_format *fmt);

/* ------------------------------------------------------------------ tables */

enum cell_type {
	CELL_NULL = 0, /* not measured: "-" (or the table's null text), empty CSV, JSON null */
	CELL_INT,
	CELL_REAL,
	CELL_TEXT,
	CELL_BOOL, /* text "yes"/"no", CSV "true"/"false", JSON true/false */
	CELL_JSON, /* a value that is JSON text already (an array): JSON writes it as it is */
};

struct table;

/* A table with NCOLS columns named NAMES (copied). Returns NULL and sets errno
 * (ENOMEM, EINVAL for NCOLS 0). Free with table__free. */
struct table *table__new(size_t ncols, const char *const *names);

void table__free(struct table *t);

/* Text shown for NULL cells in text output (copied); the default is "-". */
int table__set_null_text(struct table *t, const char *s);

/* The name of column COL in CSV headers and JSON keys (copied), when it is not the text
 * header given to table__new ("avg10_max" for "avg10 max"). 0, -EINVAL (COL out of
 * range) or -ENOMEM. */
int table__set_key(struct table *t, size_t col, const char *key);

/* Start a new row; its cells are NULL until set. 0 or -ENOMEM. */
int table__add_row(struct table *t);

/* Set cell COL of the last row. DISPLAY, when not NULL, is what text output
 * shows instead of the value (e.g. "1.5 MiB" for 1572864); CSV and JSON always
 * print the value. Strings are copied. A real that is not finite is stored as
 * NULL. 0, -EINVAL (no row yet, COL out of range) or -ENOMEM. */
int table__set_null(struct table *t, size_t col);
int table__set_int(struct table *t, size_t col, int64_t v, const char *display);
int table__set_real(struct table *t, size_t col, double v, const char *display);
int table__set_text(struct table *t, size_t col, const char *s);
/* A boolean; DISPLAY as above (NULL: "yes" or "no"). */
int table__set_bool(struct table *t, size_t col, bool v, const char *display);
/* JSON, text that must already be valid JSON (SQLite's json() of a column, say), written
 * as it is in JSON output; CSV writes the text; text output shows DISPLAY, or the text. */
int table__set_json(struct table *t, size_t col, const char *json, const char *display);
/* What text output shows for cell COL of the last row, whatever its type: a NULL cell
 * keeps its NULL in CSV and JSON ("none" for a limit not set, "not measured"). DISPLAY
 * NULL: the value again. 0, -EINVAL or -ENOMEM. */
int table__set_display(struct table *t, size_t col, const char *display);

size_t table__rows(const struct table *t);
size_t table__cols(const struct table *t);

/* Cell (ROW, COL): its type (CELL_NULL out of range); its value as CSV writes it (NULL
 * for a NULL cell or out of range); what text output shows for it, unescaped (its
 * display, else its value, else the null text; NULL out of range). The strings
 * belong to T. */
enum cell_type table__type(const struct table *t, size_t row, size_t col);
const char *table__value(const struct table *t, size_t row, size_t col);
const char *table__shown(const struct table *t, size_t row, size_t col);

/* Print T to F in FMT. Text: a header line, then the rows; a column is
 * right-aligned when every cell in it is a number or NULL, left-aligned
 * otherwise; widths count UTF-8 code points; control characters in text are
 * shown escaped (\n, \t, \xNN) so a row stays on one line. CSV: a header line,
 * then the rows. JSON: an array of objects keyed by column name, one object per
 * line. Returns 0 or -EIO when writing failed. */
int table__print(const struct table *t, FILE *f, enum out_format fmt);

/* table__print of the N columns COLS only, in that order (a rendering may leave columns
 * out or order them its own way); COLS NULL: every column. -EINVAL for a column out of
 * range. */
int table__print_cols(const struct table *t, FILE *f, enum out_format fmt, const size_t *cols,
		      size_t n);

struct json;

/* Write the rows of T into J as an array of objects keyed by column key, the N columns
 * COLS in that order (NULL: every column), where J expects a value. */
void table__json(const struct table *t, struct json *j, const size_t *cols, size_t n);

/* Write the cells of row ROW as keys and values into the object J has open (the caller
 * may write more keys around them). A row or column out of range is misuse: J's sticky
 * error becomes -EINVAL (json__end returns it). */
void table__json_fields(const struct table *t, struct json *j, size_t row, const size_t *cols,
			size_t n);

/* ------------------------------------------------------------------ CSV */

/* Write S as one CSV field (quoted when it holds , " CR or LF). */
void csv__field(FILE *f, const char *s);

/* ------------------------------------------------------------------ JSON */

#define JSON_MAX_DEPTH 32

/* A streaming JSON writer. Values inside an object must follow json__key.
 * Errors (too deep, a value where a key is due) are sticky: json__end
 * returns -EINVAL then. PRETTY indents by two spaces; otherwise compact. */
struct json {
	FILE *f;
	bool pretty;
	int depth;
	bool first[JSON_MAX_DEPTH];	/* nothing written yet at this depth */
	bool in_object[JSON_MAX_DEPTH]; /* the container at this depth is an object */
	bool want_value;		/* a key was written, its value is due */
	int err;			/* first error, 0 if none */
};

void json__init(struct json *j, FILE *f, bool pretty);
void json__begin_object(struct json *j);
void json__end_object(struct json *j);
void json__begin_array(struct json *j);
void json__end_array(struct json *j);
void json__key(struct json *j, const char *key);
void json__string(struct json *j, const char *s); /* NULL writes null */
void json__int(struct json *j, int64_t v);
void json__uint(struct json *j, uint64_t v);
void json__real(struct json *j, double v); /* not finite: null */
void json__bool(struct json *j, bool v);
void json__null(struct json *j);
/* Write S, which must already be valid JSON text, as the value. */
void json__raw(struct json *j, const char *s);

/* Convenience: key then value. */
void json__kv_string(struct json *j, const char *key, const char *s);
void json__kv_int(struct json *j, const char *key, int64_t v);
void json__kv_real(struct json *j, const char *key, double v);
void json__kv_bool(struct json *j, const char *key, bool v);
void json__kv_null(struct json *j, const char *key);

/* End the document: a newline, and the first error if any (-EINVAL for misuse,
 * -EIO when writing failed), else 0. */
int json__end(struct json *j);

/* Write S to F as a JSON string literal, quotes included. */
void json__write_string(FILE *f, const char *s);

/* ------------------------------------------------------------------ human units */

/* Bytes in binary units: "512 B", "1.5 KiB", "12.3 MiB", "1.20 GiB" (three
 * significant digits above 1 KiB). Returns BUF. */
char *fmt_bytes(char *buf, size_t len, uint64_t bytes);
/* Same with a sign: "+1.5 MiB", "-512 B", "0 B". */
char *fmt_bytes_signed(char *buf, size_t len, int64_t bytes);
/* A duration: "850 ns", "12.3 us", "4.56 ms", "1.23 s", "2m03s", "1h02m". */
char *fmt_ns(char *buf, size_t len, uint64_t ns);
/* A percentage with one decimal: "12.3%". Not finite: "-". */
char *fmt_pct(char *buf, size_t len, double pct);
/* A count with thousands separators: "1,234,567". */
char *fmt_count(char *buf, size_t len, uint64_t n);
/* Seconds with three decimals from ns: "12.345". */
char *fmt_secs(char *buf, size_t len, int64_t ns);
/* Wall time of REALTIME_NS in UTC, ISO 8601 with milliseconds. */
char *fmt_wall(char *buf, size_t len, int64_t realtime_ns);

/* The columns text written to F should fit: the terminal's width when F is a terminal,
 * else $COLUMNS when it holds a number from 20 to 10000, else 0 (no limit: a pipe or a
 * file gets whole lines). */
int out_width(FILE *f);

#endif
