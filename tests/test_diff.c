/* test_diff.c — unit tests for `diff` and its figures (analyze/diff.h, analyze/figures.h): the
 * --fail-on grammar, --min-delta, the two-proportion and Poisson-rate tests, the percentile's
 * interval in histogram buckets, the naming of sites by symbol, the verdict of a pair of
 * values, and two captures compared (a probe on one side only is not comparable). */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analyze/diff.h"
#include "analyze/figures.h"

/* ------------------------------------------------------------------ the gate grammar */

static void test_01_gate_grammar(void **state)
{
	static const struct {
		const char *expr, *pattern, *arg;
		bool has_arg;
		enum gate_op op;
		enum gate_kind kind;
		double threshold;
	} ok[] = {
	    {"heap.live_bytes > +10%", "heap.live_bytes", "", false, GATE_GT, GATE_REL, 10},
	    {"heap.live_bytes>+10%", "heap.live_bytes", "", false, GATE_GT, GATE_REL, 10},
	    {"mem.pss_peak > +50M", "mem.pss_peak", "", false, GATE_GT, GATE_DELTA, 50 << 20},
	    {"mem.pss_peak >= 1G", "mem.pss_peak", "", false, GATE_GE, GATE_LEVEL, 1 << 30},
	    {"syscalls.rate(openat) > +20%", "syscalls.rate(*)", "openat", true, GATE_GT, GATE_REL,
	     20},
	    {"cpu.share(parse_json) > +5pp", "cpu.share(*)", "parse_json", true, GATE_GT, GATE_PP,
	     5},
	    {"heap.site(*).live_bytes > +1M", "heap.site(*).live_bytes", "*", true, GATE_GT,
	     GATE_DELTA, 1 << 20},
	    {"  heap.live_bytes  <  -25%  ", "heap.live_bytes", "", false, GATE_LT, GATE_REL, -25},
	    {"syscalls.p99(read) > +2ms", "syscalls.p99(*)", "read", true, GATE_GT, GATE_DELTA,
	     2e6},
	    {"syscalls.p99(read) <= 1500", "syscalls.p99(*)", "read", true, GATE_LE, GATE_LEVEL,
	     1500},
	    {"cpu.share(operator()(int)) > +1pp", "cpu.share(*)", "operator()(int)", true, GATE_GT,
	     GATE_PP, 1},
	    {"heap.alloc_rate > +100", "heap.alloc_rate", "", false, GATE_GT, GATE_DELTA, 100},
	};
	static const char *const bad[] = {
	    "heap.live_bytes",		     /* no comparison */
	    "heap.live_bytes >",	     /* no threshold */
	    "> +10%",			     /* no figure */
	    "heap.nothing > +10%",	     /* no such figure */
	    "heap.live_bytes > 10%",	     /* a relative threshold without a sign */
	    "heap.live_bytes > +5pp",	     /* pp of bytes */
	    "cpu.share(f) > 5pp",	     /* pp without a sign */
	    "heap.live_bytes > +10x",	     /* not a unit */
	    "mem.pss_peak > +2ms",	     /* a time for bytes */
	    "syscalls.p99(read) > +50M",     /* a size for a time */
	    "syscalls.rate(() > +10%",	     /* an empty argument */
	    "syscalls.rate(openat > +10%",   /* unbalanced */
	    "heap.live_bytes > +1.5.2%",     /* not a number */
	};
	char err[256];
	struct gate g;

	(void)state;
	for (size_t k = 0; k < sizeof(ok) / sizeof(ok[0]); k++) {
		err[0] = '\0';
		assert_int_equal(gate__parse(ok[k].expr, &g, err, sizeof(err)), 0);
		assert_string_equal(g.pattern, ok[k].pattern);
		assert_string_equal(g.arg, ok[k].arg);
		assert_int_equal(g.has_arg, ok[k].has_arg);
		assert_int_equal(g.op, ok[k].op);
		assert_int_equal(g.kind, ok[k].kind);
		assert_true(fabs(g.threshold - ok[k].threshold) < 1e-9);
		assert_non_null(g.fig);
		assert_string_equal(g.fig->name, ok[k].pattern);
	}
	for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
		err[0] = '\0';
		if (gate__parse(bad[k], &g, err, sizeof(err)) != -EINVAL)
			fail_msg("accepted: '%s'", bad[k]);
		assert_non_null(strstr(err, "--fail-on"));
	}
	/* the messages say what to do */
	gate__parse("heap.live_bytes > 10%", &g, err, sizeof(err));
	assert_non_null(strstr(err, "+10%"));
	gate__parse("heap.nothing > +10%", &g, err, sizeof(err));
	assert_non_null(strstr(err, "ptop-analyze figures"));
}

static void test_02_gate_holds(void **state)
{
	struct gate g;
	char err[256];

	(void)state;
	assert_int_equal(gate__parse("heap.live_bytes > +10%", &g, err, sizeof(err)), 0);
	assert_true(gate__holds(&g, 10.5));
	assert_false(gate__holds(&g, 10));
	assert_true(gate__holds(&g, INFINITY)); /* from 0 to more */
	assert_false(gate__holds(&g, NAN));	/* 0 to 0 */
	assert_int_equal(gate__parse("heap.live_bytes >= +10%", &g, err, sizeof(err)), 0);
	assert_true(gate__holds(&g, 10));
	assert_int_equal(gate__parse("heap.live_bytes < -10%", &g, err, sizeof(err)), 0);
	assert_true(gate__holds(&g, -11));
	assert_false(gate__holds(&g, -10));
	assert_int_equal(gate__parse("heap.live_bytes <= -10%", &g, err, sizeof(err)), 0);
	assert_true(gate__holds(&g, -10));
}

static void test_03_min_delta(void **state)
{
	struct min_delta md = {0};
	char err[256];

	(void)state;
	assert_int_equal(min_delta__parse("10%", &md, err, sizeof(err)), 0);
	assert_true(md.has_rel && !md.has_abs && md.rel_pct == 10);
	assert_int_equal(min_delta__parse("50M", &md, err, sizeof(err)), 0);
	assert_true(md.has_rel && md.has_abs && md.abs_bytes == 50 << 20);
	assert_int_equal(min_delta__parse("2.5%", &md, err, sizeof(err)), 0);
	assert_true(md.rel_pct == 2.5);
	assert_int_equal(min_delta__parse("4096", &md, err, sizeof(err)), 0);
	assert_true(md.abs_bytes == 4096);
	assert_int_equal(min_delta__parse("%", &md, err, sizeof(err)), -EINVAL);
	assert_int_equal(min_delta__parse("10x", &md, err, sizeof(err)), -EINVAL);
	assert_int_equal(min_delta__parse("-5%", &md, err, sizeof(err)), -EINVAL);
	assert_int_equal(min_delta__parse("", &md, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "--min-delta"));
}

/* ------------------------------------------------------------------ the tests */

static void test_04_z_crit(void **state)
{
	(void)state;
	assert_true(fabs(fig_z_crit(0.95) - 1.959964) < 1e-5);
	assert_true(fabs(fig_z_crit(0.99) - 2.575829) < 1e-5);
	assert_true(fabs(fig_z_crit(0.999) - 3.290527) < 1e-5);
	assert_true(fig_z_crit(0.9999) > fig_z_crit(0.999));
}

static void test_05_two_proportion(void **state)
{
	double z = 0;

	(void)state;
	/* 50 of 100 against 70 of 100: pooled 0.6, se sqrt(0.24 x 0.02) */
	assert_int_equal(fig_two_proportion(50, 100, 70, 100, &z), 0);
	assert_true(fabs(z - 0.2 / sqrt(0.24 * 0.02)) < 1e-9);
	assert_int_equal(fig_two_proportion(70, 100, 50, 100, &z), 0);
	assert_true(z < 0);
	/* the same share of different totals: 0 */
	assert_int_equal(fig_two_proportion(30, 300, 60, 600, &z), 0);
	assert_true(fabs(z) < 1e-12);
	/* a function new in NEW: 0 of 300 against 250 of 600 is far past 99% */
	assert_int_equal(fig_two_proportion(0, 300, 250, 600, &z), 0);
	assert_true(z > fig_z_crit(0.99));
	/* too few: 1 of 300 against 3 of 300 (4 hits: fewer than 5 expected a side) */
	assert_int_equal(fig_two_proportion(1, 300, 3, 300, &z), -EDOM);
	assert_int_equal(fig_two_proportion(0, 0, 3, 300, &z), -EDOM);
	/* every sample in: no misses expected */
	assert_int_equal(fig_two_proportion(300, 300, 299, 300, &z), -EDOM);
}

static void test_06_poisson_rates(void **state)
{
	double z = 0;

	(void)state;
	/* 100 against 300 events in equal times: (300 - 200) / sqrt(400 x 0.25) = 10 */
	assert_int_equal(fig_poisson_rates(100, 1.0, 300, 1.0, &z), 0);
	assert_true(fabs(z - 10) < 1e-9);
	/* the same rate over twice the time: 0 */
	assert_int_equal(fig_poisson_rates(100, 1.0, 200, 2.0, &z), 0);
	assert_true(fabs(z) < 1e-12);
	/* 3 against 4 calls: too few to tell */
	assert_int_equal(fig_poisson_rates(3, 1.0, 4, 1.0, &z), -EDOM);
	assert_int_equal(fig_poisson_rates(100, 0, 100, 1.0, &z), -EDOM);
}

static void test_07_percentile_interval(void **state)
{
	uint64_t h[HIST_BUCKETS] = {0};
	int lo, hi;

	(void)state;
	h[10] = 1000;
	assert_int_equal(fig_hist_percentile_ci(h, HIST_BUCKETS, 50, 2.58, &lo, &hi), 0);
	assert_int_equal(lo, 10);
	assert_int_equal(hi, 10);
	/* half in 8, half in 12: the median's interval spans both */
	memset(h, 0, sizeof(h));
	h[8] = 500;
	h[12] = 500;
	assert_int_equal(fig_hist_percentile_ci(h, HIST_BUCKETS, 50, 2.58, &lo, &hi), 0);
	assert_int_equal(lo, 8);
	assert_int_equal(hi, 12);
	/* 14 calls cannot bound a p99 */
	memset(h, 0, sizeof(h));
	h[13] = 14;
	assert_int_equal(fig_hist_percentile_ci(h, HIST_BUCKETS, 99, 2.58, &lo, &hi), -EDOM);
	/* nor 5 calls a median at 99% */
	h[13] = 5;
	assert_int_equal(fig_hist_percentile_ci(h, HIST_BUCKETS, 50, 2.58, &lo, &hi), -EDOM);
}

/* ------------------------------------------------------------------ site identity */

static void test_08_site_names(void **state)
{
	/* the same program built twice: other paths, other addresses, the same symbols */
	const struct fig_site a[] = {
	    {"leak_site", "/tmp/old/regress", "regress.c", 40, true},
	    {"memcpy", "/usr/lib/libc.so.6", NULL, 0, true},
	    {"memcpy", "/tmp/old/regress", "mem.c", 3, true},
	    {"helper", "/tmp/old/regress", "a.c", 10, true},
	    {"helper", "/tmp/old/regress", "b.c", 20, true},
	    {"regress+0x1234", "/tmp/old/regress", NULL, 0, false},
	    {"regress+0x2000", "/tmp/old/regress", NULL, 0, false},
	};
	const struct fig_site b[] = {
	    {"leak_site", "/home/ci/new/regress", "regress.c", 41, true},
	    {"memcpy", "/lib/x86_64-linux-gnu/libc.so.6", NULL, 0, true},
	    {"memcpy", "/home/ci/new/regress", "mem.c", 3, true},
	    {"helper", "/home/ci/new/regress", "a.c", 11, true},
	    {"helper", "/home/ci/new/regress", "b.c", 21, true},
	    {"regress+0x1300", "/home/ci/new/regress", NULL, 0, false},
	    {"regress+0x2100", "/home/ci/new/regress", NULL, 0, false},
	};
	const char *const want[] = {
	    "leak_site",	       "memcpy@libc.so.6",	      "memcpy@regress",
	    "helper@regress:a.c:10",   "helper@regress:b.c:20",	      "[unnamed regress]",
	    "[unnamed regress]",
	};
	const size_t n = sizeof(a) / sizeof(a[0]);
	char *na[7], *nb[7];

	(void)state;
	assert_int_equal(fig_site__names(a, n, na), 0);
	assert_int_equal(fig_site__names(b, n, nb), 0);
	for (size_t k = 0; k < n; k++) {
		assert_string_equal(na[k], want[k]);
		/* by symbol, never by address or path: each matches its twin, but for a
		 * static function told apart by its line, which a rebuild may move */
		if (k != 3 && k != 4)
			assert_string_equal(na[k], nb[k]);
		free(na[k]);
		free(nb[k]);
	}
}

/* ------------------------------------------------------------------ verdicts */

static struct fig_family family(const char *name, bool measured)
{
	struct fig_family f = {0};

	f.fig = an_figure__find(name);
	assert_non_null(f.fig);
	f.measured = measured;
	f.complete = true;
	return f;
}

static void test_09_judge(void **state)
{
	struct diff_opts o = {.confidence = 0.99, .md = {.has_rel = true, .rel_pct = 10}};
	struct fig_family fb = family("heap.live_bytes", true), fn = fb;
	struct diff_row r = {.fig = fb.fig, .in_base = true, .in_new = true};
	double z = fig_z_crit(0.99);

	(void)state;
	/* an exact figure: --min-delta decides */
	r.base = 1000, r.new = 1050;
	diff_row__judge(&r, &fb, &fn, &o, z);
	assert_int_equal(r.status, DIFF_UNCHANGED);
	r.new = 2000;
	diff_row__judge(&r, &fb, &fn, &o, z);
	assert_int_equal(r.status, DIFF_CHANGED);
	assert_true(r.worse && fabs(r.rel_pct - 100) < 1e-9 && r.delta == 1000);
	r.new = 500;
	diff_row__judge(&r, &fb, &fn, &o, z);
	assert_int_equal(r.status, DIFF_CHANGED);
	assert_false(r.worse);
	/* an absolute --min-delta for bytes too */
	o.md.has_abs = true;
	o.md.abs_bytes = 1 << 20;
	diff_row__judge(&r, &fb, &fn, &o, z);
	assert_int_equal(r.status, DIFF_UNCHANGED);
	o.md.has_abs = false;
	/* memory from /proc: a change under its resolution is not claimed, whatever its share */
	fb = family("mem.rss_peak", true), fn = fb;
	r = (struct diff_row){.fig = fb.fig, .in_base = true, .in_new = true};
	r.base_count = r.new_count = 5; /* samples */
	r.base = 1 << 20, r.new = (1 << 20) + (200 << 10); /* +20% */
	diff_row__judge(&r, &fb, &fn, &o, z);
	assert_int_equal(r.status, DIFF_UNCHANGED);
	assert_true(r.noise); /* a gate does not fire on it (mem.pss_peak > +10%) */
	r.new = (1 << 20) + (300 << 10);
	diff_row__judge(&r, &fb, &fn, &o, z);
	assert_int_equal(r.status, DIFF_CHANGED);
	assert_false(r.noise);
	/* a peak from two samples, the first at the target's start: too few */
	r.base_count = 2;
	diff_row__judge(&r, &fb, &fn, &o, z);
	assert_int_equal(r.status, DIFF_TOO_FEW);
	r.base_count = 5;
	/* a peak read from samples an interval apart: a change within a step of the series next
	 * to it on either side is too few samples (a leak's last sample missed at its exit) */
	r = (struct diff_row){.fig = fb.fig, .in_base = true, .in_new = true};
	r.base_count = r.new_count = 5;
	r.base = 1.46e6, r.new = 1.12e6, r.base_spread = 0, r.new_spread = 400e3;
	diff_row__judge(&r, &fb, &fn, &o, z);
	assert_int_equal(r.status, DIFF_TOO_FEW);
	assert_true(r.noise);
	assert_non_null(strstr(r.reason, "within a step of the series"));
	r.new = 1.46e6 - 600e3; /* within the step and the resolution (256 KiB) together */
	diff_row__judge(&r, &fb, &fn, &o, z);
	assert_int_equal(r.status, DIFF_TOO_FEW);
	r.new = 0.5e6; /* past both */
	diff_row__judge(&r, &fb, &fn, &o, z);
	assert_int_equal(r.status, DIFF_CHANGED);
	assert_int_equal(r.reason[0], '\0');
	{
		struct fig_series s = {0};
		const double rise[] = {1, 2, 3, 5}, plateau[] = {1, 4, 4, 2}, spike[] = {1, 9, 2};

		for (size_t i = 0; i < 4; i++)
			fig_series__add(&s, rise[i]);
		assert_true(s.peak == 5 && s.peak_spread == 2 && s.last_spread == 2);
		memset(&s, 0, sizeof(s));
		for (size_t i = 0; i < 4; i++)
			fig_series__add(&s, plateau[i]);
		assert_true(s.peak == 4 && s.peak_spread == 0 && s.last_spread == 2);
		memset(&s, 0, sizeof(s));
		for (size_t i = 0; i < 3; i++)
			fig_series__add(&s, spike[i]);
		assert_true(s.peak == 9 && s.peak_spread == 7);
		memset(&s, 0, sizeof(s));
		fig_series__add(&s, 3);
		assert_true(s.peak == 3 && s.peak_spread == 0 && s.last_spread == 0);
	}
	/* a growth from too few samples */
	fb = family("mem.pss_growth", true), fn = fb;
	r = (struct diff_row){.fig = fb.fig, .in_base = true, .in_new = true};
	r.base = 1e6, r.new = 3e6, r.base_count = 4, r.new_count = 40;
	diff_row__judge(&r, &fb, &fn, &o, z);
	assert_int_equal(r.status, DIFF_TOO_FEW);
	r.base_count = 40;
	diff_row__judge(&r, &fb, &fn, &o, z);
	assert_int_equal(r.status, DIFF_CHANGED);

	/* a sampled share: the test decides */
	fb = family("cpu.share(*)", true), fn = fb;
	fb.of = 300, fn.of = 300;
	r = (struct diff_row){.fig = fb.fig, .in_base = true, .in_new = true};
	r.base_count = 30, r.new_count = 36; /* 10% -> 12%: +20%, within the noise */
	r.base = 10, r.new = 12;
	diff_row__judge(&r, &fb, &fn, &o, z);
	assert_int_equal(r.status, DIFF_NOT_SIGNIFICANT);
	assert_true(r.noise);
	r.new_count = 120, r.new = 40;
	diff_row__judge(&r, &fb, &fn, &o, z);
	assert_int_equal(r.status, DIFF_CHANGED);
	assert_false(r.noise);
	r.base_count = 1, r.new_count = 3, r.base = 1 / 3.0, r.new = 1;
	diff_row__judge(&r, &fb, &fn, &o, z);
	assert_int_equal(r.status, DIFF_TOO_FEW);
	/* new: from 0 */
	r.in_base = false, r.base_count = 0, r.base = 0, r.new_count = 120, r.new = 40;
	diff_row__judge(&r, &fb, &fn, &o, z);
	assert_int_equal(r.status, DIFF_CHANGED);
	assert_true(isinf(r.rel_pct) && r.rel_pct > 0);

	/* a rate of a count equal on both sides: the same work over runs of different lengths
	 * (issue 20: heap.alloc_rate +27.5% on the same 3,232,723 allocations) */
	fb = family("heap.alloc_rate", true), fn = fb;
	fb.exposure_s = 1.2, fn.exposure_s = 0.94;
	r = (struct diff_row){.fig = fb.fig, .in_base = true, .in_new = true};
	r.base_count = r.new_count = 3232723;
	r.base = 3232723 / 1.2, r.new = 3232723 / 0.94;
	diff_row__judge(&r, &fb, &fn, &o, z);
	assert_int_equal(r.status, DIFF_UNCHANGED);
	assert_true(r.same_count && r.noise);
	r.new_count = 2 * 3232723, r.new = r.new_count / 0.94; /* twice the allocations */
	diff_row__judge(&r, &fb, &fn, &o, z);
	assert_int_equal(r.status, DIFF_CHANGED);
	assert_false(r.same_count);
}

/* Estimates from a sampled heap: told from their sampling error (issue 20: 755 vs 632 for
 * a function that allocates 777 times in both) */
static void test_11_estimates(void **state)
{
	struct diff_opts o = {.confidence = 0.99, .md = {.has_rel = true, .rel_pct = 10}};
	struct fig_family fb = family("heap.site(*).alloc_count", true), fn = fb;
	struct diff_row r = {.fig = fb.fig, .in_base = true, .in_new = true};
	double z = fig_z_crit(0.99), zz;

	(void)state;
	assert_int_equal(fig_sampled_estimates(100, 1e6, 0, 200, 2e6, 0, &zz), -EDOM); /* exact */
	/* 20 vs 40 samples' worth of 1000 bytes at one sample per 100: 2 * (1500^2) / 15 per
	 * side, z = 1000 / sqrt(600000) */
	assert_int_equal(fig_sampled_estimates(1000, 1000, 100, 2000, 2000, 100, &zz), 0);
	assert_true(fabs(zz - 1000 / sqrt(2 * 2 * 1500.0 * 1500 / 15)) < 1e-9);
	/* an exact side has no error of its own */
	assert_int_equal(fig_sampled_estimates(1000, 1000, 0, 2000, 2000, 100, &zz), 0);
	assert_true(fabs(zz - 1000 / sqrt(2 * 1500.0 * 1500 / 15)) < 1e-9);
	/* too few samples expected */
	assert_int_equal(fig_sampled_estimates(10, 500, 100, 20, 700, 100, &zz), -EDOM);

	fb.sample_bytes = fn.sample_bytes = 512 << 10;
	/* 755 vs 632 allocations estimated from some 60 MiB (about 120 samples): noise */
	r.base = 755, r.new = 632, r.base_basis = 60 << 20, r.new_basis = 50 << 20;
	diff_row__judge(&r, &fb, &fn, &o, z);
	assert_true(r.estimated);
	assert_int_equal(r.status, DIFF_NOT_SIGNIFICANT);
	assert_true(r.noise);
	/* four times the allocations: a change even sampled */
	r.new = 4 * 755, r.new_basis = 240 << 20;
	diff_row__judge(&r, &fb, &fn, &o, z);
	assert_int_equal(r.status, DIFF_CHANGED);
	assert_false(r.noise);
	/* a few samples on a side: too few to tell */
	r.base = 40, r.new = 25, r.base_basis = 2 << 20, r.new_basis = 1 << 20;
	diff_row__judge(&r, &fb, &fn, &o, z);
	assert_int_equal(r.status, DIFF_TOO_FEW);
	/* the same figure exact on both sides: --min-delta decides, as before */
	fb.sample_bytes = fn.sample_bytes = 0;
	diff_row__judge(&r, &fb, &fn, &o, z);
	assert_false(r.estimated);
	assert_int_equal(r.status, DIFF_CHANGED);
}

/* A capture of one family (NAME), measured or not. */
static struct fig_capture *capture1(const char *name, bool measured, const char *reason)
{
	struct fig_capture *c = calloc(1, sizeof(*c));

	assert_non_null(c);
	c->fam = calloc(1, sizeof(*c->fam));
	assert_non_null(c->fam);
	c->n = 1;
	c->fam[0] = family(name, measured);
	c->fam[0].before_end_s = NAN; /* a figure of the whole window, as the core sets */
	if (!measured)
		snprintf(c->fam[0].reason, sizeof(c->fam[0].reason), "%s", reason);
	return c;
}

static void test_10_compare(void **state)
{
	struct diff_opts o = {.confidence = 0.99, .md = {.has_rel = true, .rel_pct = 10}};
	struct fig_capture *b, *n;
	struct diff d;

	(void)state;
	/* heap on BASE, disabled on NEW: one row, not comparable, the reason on NEW's side */
	b = capture1("heap.live_bytes", true, NULL);
	assert_int_equal(fig_family__add(&b->fam[0], NULL, 4096, 0), 0);
	n = capture1("heap.live_bytes", false, "heap disabled: off by default");
	assert_int_equal(diff__compare(b, n, &o, &d), 0);
	assert_int_equal(d.n, 1);
	assert_int_equal(d.row[0].status, DIFF_NOT_COMPARABLE);
	assert_string_equal(d.row[0].reason, "heap disabled on NEW: off by default");
	diff__free(&d);
	fig_capture__free(b);
	fig_capture__free(n);
	/* measured on neither side, for one reason: said once */
	b = capture1("heap.live_bytes", false, "heap disabled: off by default");
	n = capture1("heap.live_bytes", false, "heap disabled: off by default");
	assert_int_equal(diff__compare(b, n, &o, &d), 0);
	assert_int_equal(d.row[0].status, DIFF_NOT_COMPARABLE);
	assert_string_equal(d.row[0].reason,
			    "not measured on either side: heap disabled: off by default");
	diff__free(&d);
	fig_capture__free(b);
	fig_capture__free(n);

	/* states at one moment: compared only when taken about as far from the end */
	b = capture1("vma.group(*).rss", true, NULL);
	n = capture1("vma.group(*).rss", true, NULL);
	b->span_s = n->span_s = 1.0;
	assert_int_equal(fig_family__add(&b->fam[0], "[heap]", 1 << 20, 10), 0); /* 10 snapshots */
	assert_int_equal(fig_family__add(&n->fam[0], "[heap]", 3 << 20, 10), 0);
	b->fam[0].before_end_s = 0.1;
	n->fam[0].before_end_s = 0.5;
	assert_int_equal(diff__compare(b, n, &o, &d), 0);
	assert_int_equal(d.n, 1);
	/* below the series' resolution: too few samples (a gate is not fired by noise) */
	assert_int_equal(d.row[0].status, DIFF_TOO_FEW);
	assert_true(d.row[0].noise);
	assert_non_null(strstr(d.row[0].reason, "not the same moment"));
	assert_true(d.row[0].in_new && d.row[0].new == 3 << 20); /* NEW's value kept */
	diff__free(&d);
	/* taken at different moments, but unchanged: unchanged, and no gate fires on it */
	n->fam[0].val[0].v = 1 << 20;
	assert_int_equal(diff__compare(b, n, &o, &d), 0);
	assert_int_equal(d.row[0].status, DIFF_UNCHANGED);
	assert_true(d.row[0].noise);
	diff__free(&d);
	n->fam[0].val[0].v = 3 << 20;
	n->fam[0].before_end_s = 0.15;
	assert_int_equal(diff__compare(b, n, &o, &d), 0);
	assert_int_equal(d.row[0].status, DIFF_CHANGED);
	diff__free(&d);
	fig_capture__free(b);
	fig_capture__free(n);

	/* sites: one in both, one gone (proven: NEW complete), one new where BASE was cut */
	b = capture1("heap.site(*).live_bytes", true, NULL);
	n = capture1("heap.site(*).live_bytes", true, NULL);
	assert_int_equal(fig_family__add(&b->fam[0], "a", 1000, 0), 0);
	assert_int_equal(fig_family__add(&b->fam[0], "gone", 5000, 0), 0);
	assert_int_equal(fig_family__add(&n->fam[0], "a", 1000, 0), 0);
	assert_int_equal(fig_family__add(&n->fam[0], "fresh", 7000, 0), 0);
	b->fam[0].complete = false;
	snprintf(b->fam[0].note, sizeof(b->fam[0].note), "census: 64 of 900 sites shown");
	assert_int_equal(diff__compare(b, n, &o, &d), 0);
	assert_int_equal(d.n, 3);
	assert_string_equal(d.row[0].name, "heap.site(a).live_bytes");
	assert_int_equal(d.row[0].status, DIFF_UNCHANGED);
	assert_string_equal(d.row[1].name, "heap.site(gone).live_bytes");
	assert_int_equal(d.row[1].status, DIFF_CHANGED);
	assert_true(!d.row[1].in_new && d.row[1].new == 0 && d.row[1].rel_pct == -100);
	assert_string_equal(d.row[2].name, "heap.site(fresh).live_bytes");
	assert_int_equal(d.row[2].status, DIFF_NOT_REPORTED);
	assert_non_null(strstr(d.row[2].reason, "not reported on BASE (census: 64 of 900"));
	diff__free(&d);
	fig_capture__free(b);
	fig_capture__free(n);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_01_gate_grammar),	     cmocka_unit_test(test_02_gate_holds),
		cmocka_unit_test(test_03_min_delta),	     cmocka_unit_test(test_04_z_crit),
		cmocka_unit_test(test_05_two_proportion),    cmocka_unit_test(test_06_poisson_rates),
		cmocka_unit_test(test_07_percentile_interval), cmocka_unit_test(test_08_site_names),
		cmocka_unit_test(test_09_judge),	     cmocka_unit_test(test_10_compare),
		cmocka_unit_test(test_11_estimates),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
