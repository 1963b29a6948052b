/* test_common.c — unit tests for common/: the duration parser (the grammar each caller
 * accepts), the FNV-1a hash (values pinned: some are kept in captures), the growable
 * array, the byte-size parser. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "record/stack_table.h"
#include "common/array.h"
#include "common/duration.h"
#include "common/hash.h"
#include "common/hindex.h"
#include "common/units.h"
#include "preload/ptop_preload.h"

#define SEC 1000000000ull
#define MS 1000000ull

/* The flags each caller passes. */
#define RECORD_FLAGS (DURATION_NONZERO | DURATION_EXPONENT) /* record/options.c */
#define REPLAY_FLAGS DURATION_CLOCK			     /* analyze/replay_views.c */
#define WINDOW_FLAGS 0					     /* analyze/report_util.c */

struct dcase {
	const char *s;
	int rc;
	uint64_t ns;
};

static void check(const struct dcase *c, size_t n, uint64_t max, unsigned flags)
{
	for (size_t i = 0; i < n; i++) {
		uint64_t v = 77;
		int r = duration__parse(c[i].s, max, flags, &v);

		if (r != c[i].rc)
			fail_msg("\"%s\" (flags %#x): rc %d, want %d", c[i].s ? c[i].s : "(null)",
				 flags, r, c[i].rc);
		if (!r && v != c[i].ns)
			fail_msg("\"%s\": %llu ns, want %llu", c[i].s, (unsigned long long)v,
				 (unsigned long long)c[i].ns);
		if (r && v != 77)
			fail_msg("\"%s\": *ns changed on error", c[i].s);
	}
}

/* ------------------------------------------------------------------ duration */

static void test_01_duration_units_and_fractions(void **state)
{
	static const struct dcase c[] = {
		{ "1", 0, SEC },	  { "1s", 0, SEC },		{ "1ns", 0, 1 },
		{ "1us", 0, 1000 },	  { "1ms", 0, MS },		{ "1m", 0, 60 * SEC },
		{ "1h", 0, 3600 * SEC },  { "1.5", 0, 1500 * MS },	{ ".5s", 0, 500 * MS },
		{ "1.", 0, SEC },	  { "1.s", 0, SEC },		{ "0.001ms", 0, 1000 },
		{ "2.5m", 0, 150 * SEC }, { "0.5h", 0, 1800 * SEC }, { "007s", 0, 7 * SEC },
		/* below a ns: dropped (floor), digits past the 18th count for nothing */
		{ "1.0000000001s", 0, SEC },
		{ "1.9999999999ns", 0, 1 },
		{ "1.1234567899s", 0, 1123456789 },
		{ "0.000000000000000001999h", 0, 0 },
		{ "0.0000000000000000019999999h", 0, 0 },
		{ "1.00000000000000000000000000009s", 0, SEC },
		{ "000000000000000000000000000000000001s", 0, SEC },
	};

	(void)state;
	check(c, sizeof(c) / sizeof(c[0]), UINT64_MAX, 0);
	check(c, sizeof(c) / sizeof(c[0]), INT64_MAX, WINDOW_FLAGS);
}

static void test_02_duration_malformed(void **state)
{
	static const char *const bad[] = {
		NULL,  "",	" ",	 ".",	 "s",	 "ms",	  ".s",	  "abc", "5x",	"1sec",
		"1S",  "1Ms",	"1 s",	 " 1s",	 "1s ",	 "\t1",	  "1\n",  "-1",	 "-1s", "+1s",
		"-0",  "1.2.3", "1..2",	 "1,5s", "0x10", "inf",	  "nan",  "1e3", "1e",	"1:30",
		"1ss", "1h1m",	"1.5.s", "١",	 "1 ",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		uint64_t v = 77;

		if (duration__parse(bad[i], UINT64_MAX, 0, &v) != -EINVAL ||
		    duration__parse(bad[i], UINT64_MAX, RECORD_FLAGS & ~DURATION_EXPONENT, &v) !=
			-EINVAL)
			fail_msg("\"%s\" was not -EINVAL", bad[i] ? bad[i] : "(null)");
		assert_true(v == 77);
	}
}

static void test_03_duration_overflow(void **state)
{
	static const struct dcase u64[] = {
		{ "18446744073709551615ns", 0, UINT64_MAX },
		{ "18446744073709551615", -ERANGE, 0 },
		{ "18446744073709551616ns", -ERANGE, 0 },
		{ "18446744073709551615.9ns", 0, UINT64_MAX },
		{ "18446744073.709551615", 0, UINT64_MAX },
		{ "18446744073.709551616", -ERANGE, 0 },
		{ "5124095h", 0, 5124095ull * 3600 * SEC },
		{ "5124096h", -ERANGE, 0 },
		{ "99999999999h", -ERANGE, 0 },
		/* the whole part alone too large: -ERANGE before the unit is read */
		{ "99999999999999999999999x", -ERANGE, 0 },
		{ "999999999999999999999999999999999999999999999999999ns", -ERANGE, 0 },
	};
	static const struct dcase i64[] = {
		{ "9223372036854775807ns", 0, INT64_MAX },
		{ "9223372036854775808ns", -ERANGE, 0 },
		{ "9223372036.854775807", 0, INT64_MAX },
		{ "9223372036.854775808", -ERANGE, 0 },
		{ "9223372036", 0, 9223372036 * SEC },
		{ "9223372037", -ERANGE, 0 },
		{ "99999999999999999999", -ERANGE, 0 },
		{ "9999999999h", -ERANGE, 0 },
		{ "99999999999999999999x", -ERANGE, 0 },
	};

	(void)state;
	check(u64, sizeof(u64) / sizeof(u64[0]), UINT64_MAX, 0);
	check(i64, sizeof(i64) / sizeof(i64[0]), INT64_MAX, 0);
}

static void test_04_duration_nonzero(void **state)
{
	static const struct dcase c[] = {
		{ "0", -EINVAL, 0 },	{ "0s", -EINVAL, 0 },	{ "0.0s", -EINVAL, 0 },
		{ "0.1ns", -EINVAL, 0 }, { "000", -EINVAL, 0 }, { "0.000000001", 0, 1 },
		{ "1ns", 0, 1 },
	};
	uint64_t v = 77;

	(void)state;
	check(c, sizeof(c) / sizeof(c[0]), UINT64_MAX, DURATION_NONZERO);
	/* without the flag, zero is a duration (a window starting at the capture's start) */
	assert_int_equal(duration__parse("0", INT64_MAX, 0, &v), 0);
	assert_true(v == 0);
	assert_int_equal(duration__parse("0.1ns", INT64_MAX, 0, &v), 0);
	assert_true(v == 0);
}

/* ptop-record: exponent notation is told apart (its own message), zero refused. */
static void test_05_duration_record_exponents(void **state)
{
	static const struct dcase c[] = {
		{ "1e3", -EDOM, 0 },	   { "1e3s", -EDOM, 0 },	{ "2.5E3ms", -EDOM, 0 },
		{ "1e-3", -EDOM, 0 },	   { "1e+3s", -EDOM, 0 },	{ ".5e1", -EDOM, 0 },
		{ "0e5", -EDOM, 0 },	   { "1e5x", -EDOM, 0 },	{ "1e99", -ERANGE, 0 },
		{ "1e99ms", -ERANGE, 0 },  { "1e10ns", -EDOM, 0 },	{ "2e19ns", -ERANGE, 0 },
		{ "1.8446744073709552e19ns", -ERANGE, 0 },		{ "5.1e6h", -EDOM, 0 },
		{ "5.2e6h", -ERANGE, 0 }, { "1e", -EINVAL, 0 },	{ "1ex", -EINVAL, 0 },
		{ "e3", -EINVAL, 0 },	   { "1e+", -EINVAL, 0 },	{ "-1e3", -EINVAL, 0 },
		{ "0", -EINVAL, 0 },	   { "1.5m", 0, 90 * SEC },
		{ "18446744073709551616ns", -ERANGE, 0 },
	};

	(void)state;
	check(c, sizeof(c) / sizeof(c[0]), UINT64_MAX, RECORD_FLAGS);
}

/* replay --at: [H:]MM:SS besides the grammar; the clock parts as strtod reads them. */
static void test_06_duration_clock(void **state)
{
	static const struct dcase c[] = {
		{ "1:30", 0, 90 * SEC },
		{ "0:00.5", 0, 500 * MS },
		{ "1:00:01.5", 0, 3601500 * MS },
		{ "0:0:1", 0, SEC },
		{ "0:61", 0, 61 * SEC },
		{ "00:00:00.5", 0, 500 * MS },
		{ "0:00.0000000016", 0, 2 }, /* rounded to the nearest ns, not down */
		{ "1:2:3:4", -EINVAL, 0 },
		{ "1:", -EINVAL, 0 },
		{ ":1", -EINVAL, 0 },
		{ "1:x", -EINVAL, 0 },
		{ "x:1", -EINVAL, 0 },
		{ "1:30s", -EINVAL, 0 },
		{ "0:00.5 ", -EINVAL, 0 },
		{ "-1:00", -EINVAL, 0 },
		{ "1:-1", -EINVAL, 0 },
		/* what strtod takes, kept as it was: leading space, a sign, -0, hex, exponents */
		{ " 0:00.5", 0, 500 * MS },
		{ "0: 00.5", 0, 500 * MS },
		{ "+0:00.5", 0, 500 * MS },
		{ "-0:00.5", 0, 500 * MS },
		{ "0x1:00", 0, 60 * SEC },
		{ "0:1e0", 0, SEC },
		/* no number of ns (llround's value was unspecified there) */
		{ "nan:00", -EINVAL, 0 },
		{ "inf:00", -ERANGE, 0 },
		{ "99999999999:00", -ERANGE, 0 },
		{ "153722867:00", 0, 153722867ull * 60 * SEC },
		{ "153722868:00", -ERANGE, 0 },
		/* no ':': the grammar */
		{ "12.5s", 0, 12500 * MS },
		{ "1500ms", 0, 1500 * MS },
		{ "0", 0, 0 },
		{ "abc", -EINVAL, 0 },
		{ "1e3", -EINVAL, 0 },
		{ "", -EINVAL, 0 },
		{ "9223372037", -ERANGE, 0 },
	};
	uint64_t v;

	(void)state;
	check(c, sizeof(c) / sizeof(c[0]), INT64_MAX, REPLAY_FLAGS);
	/* without the flag a ':' is malformed */
	assert_int_equal(duration__parse("1:30", INT64_MAX, 0, &v), -EINVAL);
}

/* A window's side: the LEN bytes at S, whatever follows them. */
static void test_07_duration_parse_n(void **state)
{
	uint64_t v = 77;

	(void)state;
	assert_int_equal(duration__parse_n("2s..5s", 2, INT64_MAX, 0, &v), 0);
	assert_true(v == 2 * SEC);
	assert_int_equal(duration__parse_n("500ms..", 5, INT64_MAX, 0, &v), 0);
	assert_true(v == 500 * MS);
	assert_int_equal(duration__parse_n("1.5..2", 3, INT64_MAX, 0, &v), 0);
	assert_true(v == 1500 * MS);
	assert_int_equal(duration__parse_n("1m", 1, INT64_MAX, 0, &v), 0); /* "1": seconds */
	assert_true(v == SEC);
	v = 77;
	assert_int_equal(duration__parse_n("2s..5s", 0, INT64_MAX, 0, &v), -EINVAL);
	assert_int_equal(duration__parse_n("2 ..", 2, INT64_MAX, 0, &v), -EINVAL);
	assert_int_equal(duration__parse_n("1.", 1, INT64_MAX, DURATION_NONZERO, &v), 0);
	assert_true(v == SEC);
	assert_int_equal(duration__parse_n("0..", 1, INT64_MAX, DURATION_NONZERO, &v), -EINVAL);
	assert_int_equal(duration__parse_n(NULL, 3, INT64_MAX, 0, &v), -EINVAL);
}

/* ------------------------------------------------------------------ hash */

/* Values of the five copies before they became one (heap and CPU profile stack hashes are
 * kept in captures): they must never change. */
static void test_08_fnv1a_pinned(void **state)
{
	static const uint64_t ips[3] = { 0x401000, 0x7f0012345678ull, 0xffffffff81000000ull };
	uint64_t inode = 1234567, h;

	(void)state;
	/* the published FNV-1a 64 test vectors */
	assert_true(fnv1a64_str(FNV1A64_INIT, "") == 0xcbf29ce484222325ull);
	assert_true(fnv1a64_str(FNV1A64_INIT, "a") == 0xaf63dc4c8601ec8cull);
	assert_true(fnv1a64_str(FNV1A64_INIT, "foobar") == 0x85944171f73967e8ull);
	assert_true(fnv1a64_bytes(FNV1A64_INIT, "foobar", 6) == 0x85944171f73967e8ull);
	assert_true(fnv1a64_str(FNV1A64_INIT, NULL) == FNV1A64_INIT);
	assert_true(fnv1a64_bytes(FNV1A64_INIT, NULL, 0) == FNV1A64_INIT);
	/* continued: the same as at once */
	assert_true(fnv1a64_str(fnv1a64_str(FNV1A64_INIT, "foo"), "bar") ==
		    0x85944171f73967e8ull);
	/* the CPU report's function key: module, 0x1f, name */
	h = fnv1a64_str(fnv1a64_bytes(fnv1a64_str(FNV1A64_INIT, "/bin/ls"), "\x1f", 1), "main");
	assert_true(h == 0xa34dfa277630656bull);
	h = fnv1a64_str(fnv1a64_bytes(fnv1a64_str(FNV1A64_INIT, NULL), "\x1f", 1), "main");
	assert_true(h == 0x1b04561aa59fea27ull);
	/* the mappings collector's module key: dev, then the inode's bytes */
	h = fnv1a64_bytes(fnv1a64_str(FNV1A64_INIT, "08:01"), &inode, sizeof(inode));
	assert_true(h == 0x7d528452d5489121ull);
	/* a word at a time differs from its bytes; its bytes low first are its memory here */
	assert_true(fnv1a64_word(FNV1A64_INIT, 0x61) == 0xaf63dc4c8601ec8cull);
	assert_true(fnv1a64_u64le(FNV1A64_INIT, ips[1]) ==
		    fnv1a64_bytes(FNV1A64_INIT, &ips[1], sizeof(ips[1])));
	assert_true(fnv1a64_word(FNV1A64_INIT, ips[1]) !=
		    fnv1a64_u64le(FNV1A64_INIT, ips[1]));
	/* the CPU profile's stack hash (kept in captures as stack ids' keys) */
	assert_true(stack_table__hash(false, ips, 3) == 0x94d8e6df4d9476c4ull);
	assert_true(stack_table__hash(true, ips, 3) == 0x92f926465b4371f0ull);
	assert_true(stack_table__hash(false, ips, 0) == 0xb75e96c4d07796c0ull);
	/* the preload library's stack hash (kept in captures) */
	assert_true(pl_stack_hash(ips, 3) == 0x9aaf5be667a45aafull);
	assert_true(pl_stack_hash(ips, 0) == 0x9091d60726574ae6ull);
}

/* ------------------------------------------------------------------ array */

static void test_09_array_grow(void **state)
{
	int *a = NULL, *before;
	size_t cap = 0, n;

	(void)state;
	assert_int_equal(array__grow((void **)&a, &cap, 0, sizeof(*a)), 0);
	assert_int_equal(cap, 64);
	for (n = 0; n < 1000; n++) {
		assert_int_equal(array__grow((void **)&a, &cap, n, sizeof(*a)), 0);
		assert_true(n < cap);
		a[n] = (int)n;
	}
	assert_int_equal(cap, 1024);
	for (n = 0; n < 1000; n++)
		assert_int_equal(a[n], (int)n);
	/* room already: nothing moves */
	before = a;
	assert_int_equal(array__grow((void **)&a, &cap, 5, sizeof(*a)), 0);
	assert_ptr_equal(a, before);
	assert_int_equal(cap, 1024);
	/* far past the end: at least N + 1 */
	assert_int_equal(array__grow((void **)&a, &cap, 5000, sizeof(*a)), 0);
	assert_int_equal(cap, 5001);
	free(a);
	/* its size in bytes past SIZE_MAX: -ENOMEM, *P and *CAP unchanged */
	a = NULL;
	cap = 0;
	assert_int_equal(array__grow((void **)&a, &cap, SIZE_MAX / 2, 4), -ENOMEM);
	assert_null(a);
	assert_int_equal(cap, 0);
}

/* ------------------------------------------------------------------ hindex */

static uint64_t mod8(const void *arr, size_t k)
{
	return ((const uint64_t *)arr)[k] % 8; /* many collisions, on purpose */
}

/* The slot holding index + 1 of V in ARR[0..n), or the empty one where it goes. */
static size_t find(const struct hindex *x, const uint64_t *arr, uint64_t v)
{
	size_t i;

	for (i = hindex__home(x, v % 8); x->slot[i]; i = hindex__next(x, i))
		if (arr[x->slot[i] - 1] == v)
			break;
	return i;
}

static void test_11_hindex(void **state)
{
	struct hindex x = { 0 };
	uint64_t arr[100];
	size_t n, i, *before;

	(void)state;
	for (n = 0; n < 100; n++) {
		arr[n] = n * 7 + 3;
		assert_int_equal(hindex__reserve(&x, n, 16, mod8, arr), 0);
		assert_true(2 * (n + 1) <= x.nslot);
		assert_true((x.nslot & (x.nslot - 1)) == 0);
		i = find(&x, arr, arr[n]);
		assert_int_equal(x.slot[i], 0); /* not there yet */
		x.slot[i] = n + 1;
	}
	assert_int_equal(x.nslot, 256);
	for (n = 0; n < 100; n++)
		assert_int_equal(x.slot[find(&x, arr, arr[n])], n + 1);
	assert_int_equal(x.slot[find(&x, arr, 5)], 0); /* 5 = 7k + 3 for no k */
	/* room already: the slots stay */
	before = x.slot;
	assert_int_equal(hindex__reserve(&x, 100, 16, mod8, arr), 0);
	assert_ptr_equal(x.slot, before);
	hindex__free(&x);
	assert_null(x.slot);
	assert_int_equal(x.nslot, 0);
	hindex__free(&x);
}

/* ------------------------------------------------------------------ units */

static void test_10_units_bytes(void **state)
{
	static const struct {
		const char *s;
		int rc;
		uint64_t v;
	} c[] = {
		{ "0", 0, 0 },		       { "512", 0, 512 },
		{ "512B", 0, 512 },	       { "4K", 0, 4096 },
		{ "4k", 0, 4096 },	       { "4KiB", 0, 4096 },
		{ "2M", 0, 2 << 20 },	       { "1GiB", 0, 1ull << 30 },
		{ "1T", 0, 1ull << 40 },       { "", -EINVAL, 0 },
		{ " 1K", -EINVAL, 0 },	       { "1K ", -EINVAL, 0 },
		{ "-1", -EINVAL, 0 },	       { "+1", -EINVAL, 0 },
		{ "1.5M", -EINVAL, 0 },	       { "1KB", -EINVAL, 0 },
		{ "1m", -EINVAL, 0 },	       { "1025", -ERANGE, 0 },
		{ "2K", -ERANGE, 0 },	       { "18446744073709551616", -ERANGE, 0 },
		{ "17179869184G", -ERANGE, 0 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		uint64_t v = 77, max = i < 10 ? UINT64_MAX : 1024;
		int r = units__parse_bytes(c[i].s, max, &v);

		if (r != c[i].rc || (!r && v != c[i].v) || (r && v != 77))
			fail_msg("\"%s\": rc %d v %llu", c[i].s, r, (unsigned long long)v);
	}
	assert_int_equal(units__parse_bytes(NULL, UINT64_MAX, &(uint64_t){ 0 }), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_01_duration_units_and_fractions),
		cmocka_unit_test(test_02_duration_malformed),
		cmocka_unit_test(test_03_duration_overflow),
		cmocka_unit_test(test_04_duration_nonzero),
		cmocka_unit_test(test_05_duration_record_exponents),
		cmocka_unit_test(test_06_duration_clock),
		cmocka_unit_test(test_07_duration_parse_n),
		cmocka_unit_test(test_08_fnv1a_pinned),
		cmocka_unit_test(test_09_array_grow),
		cmocka_unit_test(test_10_units_bytes),
		cmocka_unit_test(test_11_hindex),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
