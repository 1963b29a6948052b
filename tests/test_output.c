/* test_output.c — unit tests for analyze/output.c: tables, CSV, JSON, human units. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analyze/output.h"

/* An in-memory FILE and its text. */
struct mem {
	FILE *f;
	char *buf;
	size_t len;
};

static void mem_open(struct mem *m)
{
	m->buf = NULL;
	m->len = 0;
	m->f = open_memstream(&m->buf, &m->len);
	assert_non_null(m->f);
}

/* Close the stream and return its text (the caller frees it with mem_free). */
static const char *mem_text(struct mem *m)
{
	fclose(m->f);
	m->f = NULL;
	return m->buf;
}

static void mem_free(struct mem *m)
{
	if (m->f)
		fclose(m->f);
	free(m->buf);
}

static struct table *sample_table(void)
{
	static const char *const cols[] = {"name", "count", "ratio"};
	struct table *t = table__new(3, cols);

	assert_non_null(t);
	assert_int_equal(table__add_row(t), 0);
	assert_int_equal(table__set_text(t, 0, "read"), 0);
	assert_int_equal(table__set_int(t, 1, 12345, NULL), 0);
	assert_int_equal(table__set_real(t, 2, 0.5, NULL), 0);
	assert_int_equal(table__add_row(t), 0);
	assert_int_equal(table__set_text(t, 0, "getppid"), 0);
	assert_int_equal(table__set_int(t, 1, 7, NULL), 0);
	/* ratio left NULL: not measured */
	return t;
}

static void test_01_table_text_alignment(void **state)
{
	struct table *t = sample_table();
	struct mem m;

	(void)state;
	mem_open(&m);
	assert_int_equal(table__print(t, m.f, OUT_TEXT), 0);
	/* text left-aligned, numbers right-aligned, NULL as "-", no trailing spaces */
	assert_string_equal(mem_text(&m), "name     count  ratio\n"
					  "read     12345    0.5\n"
					  "getppid      7      -\n");
	mem_free(&m);
	table__free(t);
}

static void test_02_table_text_display_and_utf8_width(void **state)
{
	static const char *const cols[] = {"what", "bytes"};
	struct table *t = table__new(2, cols);
	struct mem m;

	(void)state;
	assert_non_null(t);
	assert_int_equal(table__set_null_text(t, "NULL"), 0);
	assert_int_equal(table__add_row(t), 0);
	assert_int_equal(table__set_text(t, 0, "caf\xc3\xa9"), 0); /* 4 code points */
	assert_int_equal(table__set_int(t, 1, 1572864, "1.50 MiB"), 0);
	assert_int_equal(table__add_row(t), 0);
	assert_int_equal(table__set_text(t, 0, "a\tb\nc"), 0); /* escaped, one line */
	assert_int_equal(table__add_row(t), 0);
	mem_open(&m);
	assert_int_equal(table__print(t, m.f, OUT_TEXT), 0);
	assert_string_equal(mem_text(&m), "what        bytes\n"
					  "caf\xc3\xa9     1.50 MiB\n"
					  "a\\tb\\nc      NULL\n"
					  "NULL         NULL\n");
	mem_free(&m);
	/* CSV and JSON print the value, not the display text */
	mem_open(&m);
	assert_int_equal(table__print(t, m.f, OUT_CSV), 0);
	assert_string_equal(mem_text(&m), "what,bytes\ncaf\xc3\xa9,1572864\n\"a\tb\nc\",\n,\n");
	mem_free(&m);
	table__free(t);
}

static void test_03_csv_quoting(void **state)
{
	static const char *const cols[] = {"a,b", "plain"};
	struct table *t = table__new(2, cols);
	struct mem m;

	(void)state;
	assert_non_null(t);
	assert_int_equal(table__add_row(t), 0);
	assert_int_equal(table__set_text(t, 0, "x,y"), 0);
	assert_int_equal(table__set_text(t, 1, "say \"hi\""), 0);
	assert_int_equal(table__add_row(t), 0);
	assert_int_equal(table__set_text(t, 0, "line1\nline2"), 0);
	assert_int_equal(table__set_text(t, 1, "cr\rhere"), 0);
	assert_int_equal(table__add_row(t), 0);
	assert_int_equal(table__set_text(t, 0, ""), 0); /* empty string: "" */
	/* column 1 stays NULL: an empty field */
	assert_int_equal(table__add_row(t), 0);
	assert_int_equal(table__set_text(t, 0, " spaces kept "), 0);
	assert_int_equal(table__set_real(t, 1, -2.25, NULL), 0);
	mem_open(&m);
	assert_int_equal(table__print(t, m.f, OUT_CSV), 0);
	assert_string_equal(mem_text(&m), "\"a,b\",plain\n"
					  "\"x,y\",\"say \"\"hi\"\"\"\n"
					  "\"line1\nline2\",\"cr\rhere\"\n"
					  "\"\",\n"
					  " spaces kept ,-2.25\n");
	mem_free(&m);
	table__free(t);
}

static void test_04_table_json_types_and_null(void **state)
{
	struct table *t = sample_table();
	struct mem m;

	(void)state;
	mem_open(&m);
	assert_int_equal(table__print(t, m.f, OUT_JSON), 0);
	assert_string_equal(mem_text(&m),
			    "[\n"
			    "{\"name\": \"read\", \"count\": 12345, \"ratio\": 0.5},\n"
			    "{\"name\": \"getppid\", \"count\": 7, \"ratio\": null}\n"
			    "]\n");
	mem_free(&m);
	table__free(t);

	/* an empty result is an empty array; a non-finite real is null */
	{
		static const char *const cols[] = {"x"};

		t = table__new(1, cols);
		assert_non_null(t);
		mem_open(&m);
		assert_int_equal(table__print(t, m.f, OUT_JSON), 0);
		assert_string_equal(mem_text(&m), "[]\n");
		mem_free(&m);
		assert_int_equal(table__add_row(t), 0);
		assert_int_equal(table__set_real(t, 0, NAN, NULL), 0);
		mem_open(&m);
		assert_int_equal(table__print(t, m.f, OUT_JSON), 0);
		assert_string_equal(mem_text(&m), "[\n{\"x\": null}\n]\n");
		mem_free(&m);
		table__free(t);
	}
}

static void test_05_json_escaping_controls(void **state)
{
	struct mem m;

	(void)state;
	mem_open(&m);
	json__write_string(m.f, "q\" b\\ \b\f\n\r\t \x01\x1f\x7f end");
	assert_string_equal(mem_text(&m),
			    "\"q\\\" b\\\\ \\b\\f\\n\\r\\t \\u0001\\u001f\\u007f end\"");
	mem_free(&m);
}

static void test_06_json_escaping_utf8(void **state)
{
	struct mem m;

	(void)state;
	/* valid UTF-8 of 2, 3 and 4 bytes passes through unchanged */
	mem_open(&m);
	json__write_string(m.f, "caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x98\x80");
	assert_string_equal(mem_text(&m),
			    "\"caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x98\x80\"");
	mem_free(&m);

	/* invalid bytes become U+FFFD, one per byte that cannot start a sequence:
	 * a lone 0xff, a cut 3-byte sequence, an overlong '/', a surrogate */
	mem_open(&m);
	json__write_string(m.f, "a\xff"
				"b\xe6\x97"
				"c\xc0\xaf"
				"d\xed\xa0\x80"
				"e");
	assert_string_equal(mem_text(&m), "\"a\\ufffdb\\ufffd\\ufffdc\\ufffd\\ufffdd"
					  "\\ufffd\\ufffd\\ufffde\"");
	mem_free(&m);
}

static void test_07_json_writer_nesting(void **state)
{
	struct json j;
	struct mem m;

	(void)state;
	mem_open(&m);
	json__init(&j, m.f, false);
	json__begin_object(&j);
	json__kv_string(&j, "name", "x");
	json__kv_int(&j, "count", -3);
	json__key(&j, "big");
	json__uint(&j, UINT64_MAX);
	json__kv_real(&j, "r", 0.1);
	json__kv_real(&j, "inf", INFINITY);
	json__kv_null(&j, "none");
	json__kv_bool(&j, "ok", true);
	json__kv_string(&j, "nul", NULL);
	json__key(&j, "list");
	json__begin_array(&j);
	json__int(&j, 1);
	json__begin_object(&j);
	json__end_object(&j);
	json__begin_array(&j);
	json__end_array(&j);
	json__end_array(&j);
	json__end_object(&j);
	assert_int_equal(json__end(&j), 0);
	assert_string_equal(mem_text(&m),
			    "{\"name\":\"x\",\"count\":-3,\"big\":18446744073709551615,\"r\":0.1,"
			    "\"inf\":null,\"none\":null,\"ok\":true,\"nul\":null,"
			    "\"list\":[1,{},[]]}\n");
	mem_free(&m);

	/* pretty */
	mem_open(&m);
	json__init(&j, m.f, true);
	json__begin_object(&j);
	json__key(&j, "a");
	json__begin_array(&j);
	json__int(&j, 1);
	json__int(&j, 2);
	json__end_array(&j);
	json__end_object(&j);
	assert_int_equal(json__end(&j), 0);
	assert_string_equal(mem_text(&m), "{\n  \"a\": [\n    1,\n    2\n  ]\n}\n");
	mem_free(&m);
}

static void test_08_json_writer_misuse(void **state)
{
	struct json j;
	struct mem m;

	(void)state;
	/* a value in an object without a key */
	mem_open(&m);
	json__init(&j, m.f, false);
	json__begin_object(&j);
	json__int(&j, 1);
	json__end_object(&j);
	assert_int_equal(json__end(&j), -EINVAL);
	mem_free(&m);

	/* not closed */
	mem_open(&m);
	json__init(&j, m.f, false);
	json__begin_array(&j);
	assert_int_equal(json__end(&j), -EINVAL);
	mem_free(&m);

	/* closing the wrong kind */
	mem_open(&m);
	json__init(&j, m.f, false);
	json__begin_array(&j);
	json__end_object(&j);
	assert_int_equal(json__end(&j), -EINVAL);
	mem_free(&m);

	/* a key with its value missing */
	mem_open(&m);
	json__init(&j, m.f, false);
	json__begin_object(&j);
	json__key(&j, "k");
	json__end_object(&j);
	assert_int_equal(json__end(&j), -EINVAL);
	mem_free(&m);

	/* two top-level values */
	mem_open(&m);
	json__init(&j, m.f, false);
	json__int(&j, 1);
	json__int(&j, 2);
	assert_int_equal(json__end(&j), -EINVAL);
	mem_free(&m);

	/* too deep */
	mem_open(&m);
	json__init(&j, m.f, false);
	for (int i = 0; i < JSON_MAX_DEPTH + 2; i++)
		json__begin_array(&j);
	assert_int_equal(json__end(&j), -EINVAL);
	mem_free(&m);
}

static void test_09_human_bytes(void **state)
{
	char b[32];

	(void)state;
	assert_string_equal(fmt_bytes(b, sizeof(b), 0), "0 B");
	assert_string_equal(fmt_bytes(b, sizeof(b), 1023), "1023 B");
	assert_string_equal(fmt_bytes(b, sizeof(b), 1024), "1.00 KiB");
	assert_string_equal(fmt_bytes(b, sizeof(b), 1536), "1.50 KiB");
	assert_string_equal(fmt_bytes(b, sizeof(b), 10 * 1024 * 1024), "10.0 MiB");
	assert_string_equal(fmt_bytes(b, sizeof(b), 300ull << 20), "300 MiB");
	assert_string_equal(fmt_bytes(b, sizeof(b), (1ull << 20) - 1), "1.00 MiB");
	assert_string_equal(fmt_bytes(b, sizeof(b), 1000 * 1024), "1000 KiB");
	assert_string_equal(fmt_bytes(b, sizeof(b), 5ull << 30), "5.00 GiB");
	assert_string_equal(fmt_bytes_signed(b, sizeof(b), -512), "-512 B");
	assert_string_equal(fmt_bytes_signed(b, sizeof(b), 3 << 20), "+3.00 MiB");
	assert_string_equal(fmt_bytes_signed(b, sizeof(b), 0), "0 B");
	assert_string_equal(fmt_bytes_signed(b, sizeof(b), INT64_MIN), "-8.00 EiB");
}

static void test_10_human_durations_pct_counts(void **state)
{
	char b[32];

	(void)state;
	assert_string_equal(fmt_ns(b, sizeof(b), 0), "0 ns");
	assert_string_equal(fmt_ns(b, sizeof(b), 999), "999 ns");
	assert_string_equal(fmt_ns(b, sizeof(b), 1000), "1.00 us");
	assert_string_equal(fmt_ns(b, sizeof(b), 1448), "1.45 us");
	assert_string_equal(fmt_ns(b, sizeof(b), 12345), "12.3 us");
	assert_string_equal(fmt_ns(b, sizeof(b), 5551746), "5.55 ms");
	assert_string_equal(fmt_ns(b, sizeof(b), 2240000000ull), "2.24 s");
	assert_string_equal(fmt_ns(b, sizeof(b), 61000000000ull), "1m01s");
	assert_string_equal(fmt_ns(b, sizeof(b), 3723000000000ull), "1h02m");
	assert_string_equal(fmt_pct(b, sizeof(b), 12.34), "12.3%");
	assert_string_equal(fmt_pct(b, sizeof(b), 0), "0.0%");
	assert_string_equal(fmt_pct(b, sizeof(b), NAN), "-");
	assert_string_equal(fmt_count(b, sizeof(b), 0), "0");
	assert_string_equal(fmt_count(b, sizeof(b), 999), "999");
	assert_string_equal(fmt_count(b, sizeof(b), 1000), "1,000");
	assert_string_equal(fmt_count(b, sizeof(b), 1234567), "1,234,567");
	assert_string_equal(fmt_secs(b, sizeof(b), 2500000000ll), "2.500");
	assert_string_equal(fmt_secs(b, sizeof(b), 999999), "0.001");
	assert_string_equal(fmt_secs(b, sizeof(b), -1500000000ll), "-1.500");
	assert_string_equal(fmt_wall(b, sizeof(b), 0), "1970-01-01T00:00:00.000Z");
	assert_string_equal(fmt_wall(b, sizeof(b), 1700000000123456789ll),
			    "2023-11-14T22:13:20.123Z");
	assert_string_equal(fmt_wall(b, sizeof(b), -1), "-");
}

static void test_11_format_parse_and_bad_cells(void **state)
{
	static const char *const cols[] = {"a"};
	enum out_format f = OUT_TEXT;
	struct table *t;

	(void)state;
	assert_int_equal(out_format__parse("json", &f), 0);
	assert_int_equal(f, OUT_JSON);
	assert_int_equal(out_format__parse("csv", &f), 0);
	assert_int_equal(f, OUT_CSV);
	assert_int_equal(out_format__parse("text", &f), 0);
	assert_int_equal(f, OUT_TEXT);
	assert_int_equal(out_format__parse("xml", &f), -EINVAL);
	assert_int_equal(out_format__parse(NULL, &f), -EINVAL);

	assert_null(table__new(0, cols));
	t = table__new(1, cols);
	assert_non_null(t);
	assert_int_equal(table__set_int(t, 0, 1, NULL), -EINVAL); /* no row yet */
	assert_int_equal(table__add_row(t), 0);
	assert_int_equal(table__set_int(t, 1, 1, NULL), -EINVAL); /* no such column */
	for (int i = 0; i < 100; i++) {				  /* growth */
		assert_int_equal(table__add_row(t), 0);
		assert_int_equal(table__set_int(t, 0, i, NULL), 0);
	}
	assert_int_equal(table__rows(t), 101);
	table__free(t);
	table__free(NULL);
}

/* ------------------------------------------------------------------ the row model */

/* T rendered in FMT (COLS: its N columns, NULL every one) is WANT. */
static void assert_rendered(const struct table *t, enum out_format fmt, const size_t *cols,
			    size_t n, const char *want)
{
	struct mem m;

	mem_open(&m);
	assert_int_equal(table__print_cols(t, m.f, fmt, cols, n), 0);
	assert_string_equal(mem_text(&m), want);
	mem_free(&m);
}

/* T written by table__json as a compact JSON document is WANT. */
static void assert_json_rows(const struct table *t, const char *want)
{
	struct json j;
	struct mem m;

	mem_open(&m);
	json__init(&j, m.f, false);
	table__json(t, &j, NULL, 0);
	assert_int_equal(json__end(&j), 0);
	assert_string_equal(mem_text(&m), want);
	mem_free(&m);
}

/* Two processes, one with a figure not measured; text headers apart from CSV/JSON keys. */
static struct table *rows_table(void)
{
	static const char *const cols[] = {"pid", "process", "pss", "share"};
	struct table *t = table__new(4, cols);

	assert_non_null(t);
	assert_int_equal(table__set_key(t, 1, "comm"), 0);
	assert_int_equal(table__set_key(t, 3, "share_pct"), 0);
	assert_int_equal(table__set_null_text(t, "not measured"), 0);
	assert_int_equal(table__add_row(t), 0);
	assert_int_equal(table__set_int(t, 0, 4242, NULL), 0);
	assert_int_equal(table__set_text(t, 1, "server"), 0);
	assert_int_equal(table__set_int(t, 2, 1572864, "1.5 MiB"), 0);
	assert_int_equal(table__set_real(t, 3, 62.5, "62.5%"), 0);
	assert_int_equal(table__add_row(t), 0);
	assert_int_equal(table__set_int(t, 0, 7, NULL), 0);
	assert_int_equal(table__set_text(t, 1, "sh"), 0);
	/* pss and share not measured: NULL, never 0 */
	return t;
}

static void test_12_rows_three_renderings(void **state)
{
	struct table *t = rows_table();
	struct json j;
	struct mem m;

	(void)state;
	assert_rendered(t, OUT_TEXT, NULL, 0,
			" pid  process           pss         share\n"
			"4242  server        1.5 MiB         62.5%\n"
			"   7  sh       not measured  not measured\n");

	assert_rendered(t, OUT_CSV, NULL, 0,
			"pid,comm,pss,share_pct\n"
			"4242,server,1572864,62.5\n"
			"7,sh,,\n");

	/* the same rows inside a report */
	mem_open(&m);
	json__init(&j, m.f, true);
	json__begin_object(&j);
	json__kv_int(&j, "seen", 2);
	json__key(&j, "processes");
	table__json(t, &j, NULL, 0);
	json__end_object(&j);
	assert_int_equal(json__end(&j), 0);
	assert_string_equal(mem_text(&m), "{\n"
					  "  \"seen\": 2,\n"
					  "  \"processes\": [\n"
					  "    {\n"
					  "      \"pid\": 4242,\n"
					  "      \"comm\": \"server\",\n"
					  "      \"pss\": 1572864,\n"
					  "      \"share_pct\": 62.5\n"
					  "    },\n"
					  "    {\n"
					  "      \"pid\": 7,\n"
					  "      \"comm\": \"sh\",\n"
					  "      \"pss\": null,\n"
					  "      \"share_pct\": null\n"
					  "    }\n"
					  "  ]\n"
					  "}\n");
	mem_free(&m);

	/* and as a JSON document of its own */
	assert_rendered(
	    t, OUT_JSON, NULL, 0,
	    "[\n"
	    "{\"pid\": 4242, \"comm\": \"server\", \"pss\": 1572864, \"share_pct\": 62.5},\n"
	    "{\"pid\": 7, \"comm\": \"sh\", \"pss\": null, \"share_pct\": null}\n"
	    "]\n");
	table__free(t);
}

static void test_13_rows_escaping_in_each_rendering(void **state)
{
	static const char *const cols[] = {"what", "n"};
	struct table *t = table__new(2, cols);

	(void)state;
	assert_non_null(t);
	assert_int_equal(table__set_key(t, 0, "wh\"at"), 0);
	assert_int_equal(table__add_row(t), 0);
	assert_int_equal(table__set_text(t, 0, "a,\"b\"\n\tc\xc3\xa9"), 0);
	assert_int_equal(table__set_int(t, 1, -3, NULL), 0);
	assert_int_equal(table__add_row(t), 0);
	assert_int_equal(table__set_text(t, 0, ""), 0);
	assert_int_equal(table__set_int(t, 1, INT64_MAX, NULL), 0);

	/* text: one line per row, controls escaped, width in code points */
	assert_rendered(t, OUT_TEXT, NULL, 0,
			"what                           n\n"
			"a,\"b\"\\n\\tc\xc3\xa9                   -3\n"
			"             9223372036854775807\n");

	/* CSV: the field quoted, its quotes doubled; the empty string is "" */
	assert_rendered(t, OUT_CSV, NULL, 0,
			"\"wh\"\"at\",n\n"
			"\"a,\"\"b\"\"\n\tc\xc3\xa9\",-3\n"
			"\"\",9223372036854775807\n");

	/* JSON: escaped key and value */
	assert_json_rows(t, "[{\"wh\\\"at\":\"a,\\\"b\\\"\\n\\tc\xc3\xa9\",\"n\":-3},"
			    "{\"wh\\\"at\":\"\",\"n\":9223372036854775807}]\n");
	table__free(t);
}

static void test_14_rows_column_views(void **state)
{
	static const size_t some[] = {3, 0};
	static const size_t bad[] = {0, 4};
	struct table *t = rows_table();
	struct json j;
	struct mem m;

	(void)state;
	/* a rendering of chosen columns, in its own order; alignment per shown column */
	assert_rendered(t, OUT_TEXT, some, 2,
			"       share   pid\n"
			"       62.5%  4242\n"
			"not measured     7\n");
	assert_rendered(t, OUT_CSV, some, 2, "share_pct,pid\n62.5,4242\n,7\n");
	mem_open(&m);
	assert_int_equal(table__print_cols(t, m.f, OUT_CSV, bad, 2), -EINVAL);
	mem_free(&m);

	/* one row's fields inside an object, with keys of the caller around them */
	mem_open(&m);
	json__init(&j, m.f, false);
	json__begin_object(&j);
	json__kv_string(&j, "kind", "top");
	table__json_fields(t, &j, 1, some, 2);
	json__kv_bool(&j, "last", true);
	json__end_object(&j);
	assert_int_equal(json__end(&j), 0);
	assert_string_equal(mem_text(&m),
			    "{\"kind\":\"top\",\"share_pct\":null,\"pid\":7,\"last\":true}\n");
	mem_free(&m);

	/* a row or column out of range is misuse */
	mem_open(&m);
	json__init(&j, m.f, false);
	json__begin_object(&j);
	table__json_fields(t, &j, 2, NULL, 0);
	json__end_object(&j);
	assert_int_equal(json__end(&j), -EINVAL);
	mem_free(&m);
	mem_open(&m);
	json__init(&j, m.f, false);
	json__begin_object(&j);
	table__json_fields(t, &j, 0, bad, 2);
	json__end_object(&j);
	assert_int_equal(json__end(&j), -EINVAL);
	mem_free(&m);
	table__free(t);
}

static void test_15_rows_bool_json_display_and_accessors(void **state)
{
	static const char *const cols[] = {"limit", "unlimited", "argv"};
	struct table *t = table__new(3, cols);

	(void)state;
	assert_non_null(t);
	assert_int_equal(table__add_row(t), 0);
	/* a NULL shown as "none": still NULL in CSV and JSON */
	assert_int_equal(table__set_display(t, 0, "none"), 0);
	assert_int_equal(table__set_bool(t, 1, true, NULL), 0);
	assert_int_equal(table__set_json(t, 2, "[\"a\",\"b c\"]", "a 'b c'"), 0);
	assert_int_equal(table__add_row(t), 0);
	assert_int_equal(table__set_int(t, 0, 1024, "1.00 KiB"), 0);
	assert_int_equal(table__set_bool(t, 1, false, NULL), 0);
	assert_int_equal(table__set_json(t, 2, NULL, NULL), 0);

	assert_rendered(t, OUT_TEXT, NULL, 0,
			"   limit  unlimited  argv\n"
			"    none  yes        a 'b c'\n"
			"1.00 KiB  no         -\n");
	assert_rendered(t, OUT_CSV, NULL, 0,
			"limit,unlimited,argv\n"
			",true,\"[\"\"a\"\",\"\"b c\"\"]\"\n"
			"1024,false,\n");
	assert_rendered(t, OUT_JSON, NULL, 0,
			"[\n"
			"{\"limit\": null, \"unlimited\": true, \"argv\": [\"a\",\"b c\"]},\n"
			"{\"limit\": 1024, \"unlimited\": false, \"argv\": null}\n"
			"]\n");

	/* what a prose rendering reads */
	assert_int_equal(table__rows(t), 2);
	assert_int_equal(table__cols(t), 3);
	assert_int_equal(table__type(t, 0, 0), CELL_NULL);
	assert_null(table__value(t, 0, 0));
	assert_string_equal(table__shown(t, 0, 0), "none");
	assert_int_equal(table__type(t, 1, 0), CELL_INT);
	assert_string_equal(table__value(t, 1, 0), "1024");
	assert_string_equal(table__shown(t, 1, 0), "1.00 KiB");
	assert_int_equal(table__type(t, 0, 1), CELL_BOOL);
	assert_string_equal(table__value(t, 0, 1), "true");
	assert_int_equal(table__type(t, 0, 2), CELL_JSON);
	assert_string_equal(table__shown(t, 1, 2), "-");
	assert_int_equal(table__type(t, 2, 0), CELL_NULL);
	assert_null(table__value(t, 0, 3));
	assert_null(table__shown(t, 2, 0));
	assert_int_equal(table__set_display(t, 3, "x"), -EINVAL);
	assert_int_equal(table__set_key(t, 3, "x"), -EINVAL);
	table__free(t);
}

static void test_16_rows_numbers(void **state)
{
	static const char *const cols[] = {"v"};
	static const double reals[] = {0.1, 1.0 / 3, 1e21, -2.5, 0};
	static const char *const want[] = {"0.1", "0.3333333333333333", "1e+21", "-2.5", "0"};
	struct table *t = table__new(1, cols);

	(void)state;
	assert_non_null(t);
	for (size_t i = 0; i < sizeof(reals) / sizeof(reals[0]); i++) {
		assert_int_equal(table__add_row(t), 0);
		assert_int_equal(table__set_real(t, 0, reals[i], NULL), 0);
	}
	assert_int_equal(table__add_row(t), 0);
	assert_int_equal(table__set_int(t, 0, INT64_MIN, NULL), 0);
	/* a real reads back as the same double, in every rendering */
	for (size_t i = 0; i < sizeof(reals) / sizeof(reals[0]); i++) {
		assert_string_equal(table__value(t, i, 0), want[i]);
		assert_true(strtod(table__value(t, i, 0), NULL) == reals[i]);
	}
	assert_json_rows(t, "[{\"v\":0.1},{\"v\":0.3333333333333333},{\"v\":1e+21},"
			    "{\"v\":-2.5},{\"v\":0},{\"v\":-9223372036854775808}]\n");
	/* numbers right-aligned */
	assert_rendered(t, OUT_TEXT, NULL, 0,
			"                   v\n"
			"                 0.1\n"
			"  0.3333333333333333\n"
			"               1e+21\n"
			"                -2.5\n"
			"                   0\n"
			"-9223372036854775808\n");
	table__free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_01_table_text_alignment),
	    cmocka_unit_test(test_02_table_text_display_and_utf8_width),
	    cmocka_unit_test(test_03_csv_quoting),
	    cmocka_unit_test(test_04_table_json_types_and_null),
	    cmocka_unit_test(test_05_json_escaping_controls),
	    cmocka_unit_test(test_06_json_escaping_utf8),
	    cmocka_unit_test(test_07_json_writer_nesting),
	    cmocka_unit_test(test_08_json_writer_misuse),
	    cmocka_unit_test(test_09_human_bytes),
	    cmocka_unit_test(test_10_human_durations_pct_counts),
	    cmocka_unit_test(test_11_format_parse_and_bad_cells),
	    cmocka_unit_test(test_12_rows_three_renderings),
	    cmocka_unit_test(test_13_rows_escaping_in_each_rendering),
	    cmocka_unit_test(test_14_rows_column_views),
	    cmocka_unit_test(test_15_rows_bool_json_display_and_accessors),
	    cmocka_unit_test(test_16_rows_numbers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
