/* test_export.c — `export`: folded stacks (exact text) and the pprof profile,
 * decoded back (gunzip, then protobuf-c) and checked field by field.
 */
#include <errno.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include <cmocka.h>

#include "analyze/symbolize.h"
#include "proto/pprof.pb-c.h"

/* A hand-made profile: main -> work -> (leaf with helper inlined), a recursive
 * stack, an unnamed libc frame, and a kernel frame on top of one stack. */
static struct prof_func f_main[] = {{"main", "m.c", 10, false}};
static struct prof_func f_work[] = {{"work", "w.c", 20, false}};
static struct prof_func f_leaf[] = {{"helper", "h.h", 3, true}, {"leaf", "w.c", 33, false}};
static struct prof_func f_k[] = {{"do_syscall_64", NULL, 0, false}};
static struct prof_loc L[] = {
    {.kind = FRAME_USER,
     .module = "/bin/app",
     .build_id = "abcd",
     .ip = 0x1010,
     .addr = 0x1010,
     .offset = 0x10,
     .source = "dwarf",
     .n = 1,
     .f = f_main},
    {.kind = FRAME_USER,
     .module = "/bin/app",
     .build_id = "abcd",
     .ip = 0x1020,
     .addr = 0x101f,
     .offset = 0x1f,
     .source = "dwarf",
     .n = 1,
     .f = f_work},
    {.kind = FRAME_USER,
     .module = "/bin/app",
     .build_id = "abcd",
     .ip = 0x1030,
     .addr = 0x1030,
     .offset = 0x30,
     .source = "dwarf",
     .n = 2,
     .f = f_leaf},
    {.kind = FRAME_USER,
     .module = "/lib/libc.so.6",
     .ip = 0x7f00,
     .addr = 0x7f00,
     .offset = 0x2f00,
     .miss = "no_file"},
    {.kind = FRAME_KERNEL,
     .module = "[kernel]",
     .ip = 0xffff0001,
     .addr = 0xffff0001,
     .offset = 0xffff0001,
     .source = "kallsyms",
     .n = 1,
     .f = f_k},
};
static struct prof_loc *s1[] = {&L[2], &L[1], &L[0]};
static struct prof_loc *s2[] = {&L[1], &L[1], &L[0]};
static struct prof_loc *s3[] = {&L[4], &L[3], &L[0]};
static struct prof_loc *s4[] = {&L[2], &L[1], &L[0]}; /* the same names as s1 */
static struct prof_stack ST[] = {
    {.count = 7, .n = 3, .loc = s1},
    {.count = 4, .n = 3, .loc = s2},
    {.count = 2, .n = 3, .loc = s3},
    {.count = 1, .n = 3, .loc = s4},
};

static struct profile make_profile(void)
{
	struct profile p = {.collected = true,
			    .requested_hz = 100,
			    .n_stacks = 4,
			    .stacks = ST,
			    .t0_ns = 5000000000,
			    .t1_ns = 8000000000,
			    .stacked = 14};
	return p;
}

static void test_01_folded(void **state)
{
	struct profile p = make_profile();
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	(void)state;
	assert_int_equal(export_folded(&p, f), 0);
	fclose(f);
	assert_string_equal(buf, "main;libc.so.6+0x2f00;do_syscall_64_[k] 2\n"
				 "main;work;leaf;helper 8\n"
				 "main;work;work 4\n");
	free(buf);
}

static uint8_t *gunzip(const uint8_t *in, size_t len, size_t *outlen)
{
	z_stream zs = {0};
	size_t cap = 1 << 20;
	uint8_t *out = malloc(cap);

	assert_non_null(out);
	assert_int_equal(inflateInit2(&zs, 15 + 16), Z_OK);
	zs.next_in = (uint8_t *)in;
	zs.avail_in = (uInt)len;
	zs.next_out = out;
	zs.avail_out = (uInt)cap;
	assert_int_equal(inflate(&zs, Z_FINISH), Z_STREAM_END);
	*outlen = zs.total_out;
	inflateEnd(&zs);
	return out;
}

static const char *S(const Perftools__Profiles__Profile *p, int64_t i)
{
	assert_true(i >= 0 && (size_t)i < p->n_string_table);
	return p->string_table[i];
}

static const Perftools__Profiles__Location *loc_of(const Perftools__Profiles__Profile *p,
						   uint64_t id)
{
	for (size_t k = 0; k < p->n_location; k++)
		if (p->location[k]->id == id)
			return p->location[k];
	fail_msg("no location %" PRIu64, id);
	return NULL;
}

static const char *fname(const Perftools__Profiles__Profile *p, uint64_t fid)
{
	for (size_t k = 0; k < p->n_function; k++)
		if (p->function[k]->id == fid)
			return S(p, p->function[k]->name);
	fail_msg("no function %" PRIu64, fid);
	return NULL;
}

static void test_02_pprof_roundtrip(void **state)
{
	struct profile p = make_profile();
	Perftools__Profiles__Profile *pp;
	const Perftools__Profiles__Location *l;
	uint8_t *gz = NULL, *raw;
	size_t gzlen = 0, rawlen;
	uint64_t total = 0;

	(void)state;
	assert_int_equal(export_pprof(&p, 1700000000000000000LL, &gz, &gzlen), 0);
	assert_true(gzlen > 18);
	assert_int_equal(gz[0], 0x1f); /* gzip magic */
	assert_int_equal(gz[1], 0x8b);
	raw = gunzip(gz, gzlen, &rawlen);
	pp = perftools__profiles__profile__unpack(NULL, rawlen, raw);
	assert_non_null(pp);

	assert_string_equal(S(pp, 0), "");
	assert_int_equal(pp->n_sample_type, 2);
	assert_string_equal(S(pp, pp->sample_type[0]->type), "samples");
	assert_string_equal(S(pp, pp->sample_type[0]->unit), "count");
	assert_string_equal(S(pp, pp->sample_type[1]->type), "cpu");
	assert_string_equal(S(pp, pp->sample_type[1]->unit), "nanoseconds");
	assert_string_equal(S(pp, pp->period_type->type), "cpu");
	assert_int_equal(pp->period, 10000000); /* 1e9 / 100 Hz */
	assert_int_equal(pp->time_nanos, 1700000000000000000LL);
	assert_int_equal(pp->duration_nanos, 3000000000LL);

	assert_int_equal(pp->n_sample, 4);
	for (size_t k = 0; k < pp->n_sample; k++) {
		assert_int_equal(pp->sample[k]->n_value, 2);
		assert_int_equal(pp->sample[k]->value[1], pp->sample[k]->value[0] * 10000000);
		total += (uint64_t)pp->sample[k]->value[0];
	}
	assert_int_equal(total, 14);
	/* sample 0: the leaf first; the leaf's location has the inlined helper first */
	assert_int_equal(pp->sample[0]->value[0], 7);
	assert_int_equal(pp->sample[0]->n_location_id, 3);
	l = loc_of(pp, pp->sample[0]->location_id[0]);
	assert_int_equal(l->address, 0x1030);
	assert_int_equal(l->n_line, 2);
	assert_string_equal(fname(pp, l->line[0]->function_id), "helper");
	assert_int_equal(l->line[0]->line, 3);
	assert_string_equal(fname(pp, l->line[1]->function_id), "leaf");
	assert_int_equal(l->line[1]->line, 33);
	l = loc_of(pp, pp->sample[0]->location_id[2]);
	assert_string_equal(fname(pp, l->line[0]->function_id), "main");
	/* locations are shared: sample 3 has the same ids as sample 0 */
	assert_memory_equal(pp->sample[0]->location_id, pp->sample[3]->location_id,
			    3 * sizeof(uint64_t));
	/* 5 distinct locations, 3 mappings (app, libc, kernel) */
	assert_int_equal(pp->n_location, 5);
	assert_int_equal(pp->n_mapping, 3);
	l = loc_of(pp, pp->sample[2]->location_id[1]);
	assert_string_equal(fname(pp, l->line[0]->function_id), "libc.so.6+0x2f00");
	for (size_t k = 0; k < pp->n_mapping; k++)
		if (!strcmp(S(pp, pp->mapping[k]->filename), "/bin/app"))
			assert_string_equal(S(pp, pp->mapping[k]->build_id), "abcd");
	/* every function once: main work helper leaf libc+off do_syscall_64 */
	assert_int_equal(pp->n_function, 6);
	/* one process: no labels */
	for (size_t k = 0; k < pp->n_sample; k++)
		assert_int_equal(pp->sample[k]->n_label, 0);
	for (size_t k = 0; k < pp->n_string_table; k++)
		assert_string_not_equal(pp->string_table[k], "pid");

	perftools__profiles__profile__free_unpacked(pp, NULL);
	free(raw);
	free(gz);
}

static void test_03_empty(void **state)
{
	struct profile p = {.collected = true, .t0_ns = -1, .t1_ns = -1};
	Perftools__Profiles__Profile *pp;
	uint8_t *gz = NULL, *raw;
	size_t gzlen, rawlen;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	(void)state;
	assert_int_equal(export_folded(&p, f), 0);
	fclose(f);
	assert_int_equal(len, 0);
	free(buf);
	assert_int_equal(export_pprof(&p, 0, &gz, &gzlen), 0);
	raw = gunzip(gz, gzlen, &rawlen);
	pp = perftools__profiles__profile__unpack(NULL, rawlen, raw);
	assert_non_null(pp);
	assert_int_equal(pp->n_sample, 0);
	assert_int_equal(pp->period, 0); /* no rate known: no period invented */
	perftools__profiles__profile__free_unpacked(pp, NULL);
	free(raw);
	free(gz);
}

/* A cgroup's per-process profile: stacks of 100 (comm "alpha"), 200 (no comm:
 * its exe's base name), 300 (nothing known) and 400 (comm with a ';'). */
static struct prof_loc *s5[] = {&L[1], &L[0]};
static struct prof_stack STP[] = {
    {.count = 7, .n = 3, .loc = s1, .pid = 100},
    {.count = 4, .n = 3, .loc = s1, .pid = 200}, /* the same frames, another process */
    {.count = 2, .n = 2, .loc = s5, .pid = 300},
    {.count = 1, .n = 0, .loc = NULL, .no_user_stack = true, .pid = 100},
    {.count = 3, .n = 3, .loc = s4, .pid = 100}, /* merged with the first */
    {.count = 5, .n = 2, .loc = s5, .pid = 400},
};
static struct prof_proc PROCS[] = {
    {.pid = 100, .comm = "alpha", .exe = "/usr/bin/alpha", .samples = 11},
    {.pid = 400, .comm = "w;x", .samples = 5},
    {.pid = 200, .exe = "/opt/beta/bin/beta", .samples = 4},
    {.pid = 300, .samples = 2},
};

static struct profile make_per_process(void)
{
	struct profile p = {.collected = true,
			    .requested_hz = 100,
			    .n_stacks = 6,
			    .stacks = STP,
			    .n_procs = 4,
			    .procs = PROCS,
			    .t0_ns = 5000000000,
			    .t1_ns = 8000000000,
			    .stacked = 22,
			    .all_stacked = 22};
	return p;
}

/* Folded: each line starts with COMM-PID; pprof: a "pid" label per sample. */
static void test_04_per_process(void **state)
{
	struct profile p = make_per_process();
	Perftools__Profiles__Profile *pp;
	uint8_t *gz = NULL, *raw;
	size_t gzlen = 0, rawlen, len = 0;
	char *buf = NULL;
	FILE *f = open_memstream(&buf, &len);

	(void)state;
	assert_int_equal(export_folded(&p, f), 0);
	fclose(f);
	assert_string_equal(buf, "[unknown]-300;main;work 2\n"
				 "alpha-100;[no stack] 1\n"
				 "alpha-100;main;work;leaf;helper 10\n"
				 "beta-200;main;work;leaf;helper 4\n"
				 "w:x-400;main;work 5\n");
	free(buf);

	assert_int_equal(export_pprof(&p, 0, &gz, &gzlen), 0);
	raw = gunzip(gz, gzlen, &rawlen);
	pp = perftools__profiles__profile__unpack(NULL, rawlen, raw);
	assert_non_null(pp);
	assert_int_equal(pp->n_sample, 6);
	for (size_t k = 0; k < pp->n_sample; k++) {
		assert_int_equal(pp->sample[k]->n_label, 1);
		assert_string_equal(S(pp, pp->sample[k]->label[0]->key), "pid");
		assert_int_equal(pp->sample[k]->label[0]->num, STP[k].pid);
		assert_int_equal(pp->sample[k]->label[0]->str, 0);
		assert_int_equal(pp->sample[k]->value[0], (int64_t)STP[k].count);
	}
	/* the locations are the same whatever the process */
	assert_memory_equal(pp->sample[0]->location_id, pp->sample[1]->location_id,
			    3 * sizeof(uint64_t));
	perftools__profiles__profile__free_unpacked(pp, NULL);
	free(raw);
	free(gz);
}

/* Issue 10 (found by fuzz_db): a stack whose samples x 1e9 / Hz pass 2^63 ns (signed
 * overflow, UBSan) is refused with -EOVERFLOW, nothing written. */
static void test_05_pprof_overflow(void **state)
{
	struct prof_stack big[] = {{.count = 280390466888797ull, .n = 3, .loc = s1}};
	struct profile p = make_profile();
	uint8_t *gz = NULL;
	size_t gzlen = 0;

	(void)state;
	p.requested_hz = 99;
	p.stacks = big;
	p.n_stacks = 1;
	assert_int_equal(export_pprof(&p, 0, &gz, &gzlen), -EOVERFLOW);
	assert_null(gz);
	free(gz);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_01_folded),
	    cmocka_unit_test(test_02_pprof_roundtrip),
	    cmocka_unit_test(test_03_empty),
	    cmocka_unit_test(test_04_per_process),
	    cmocka_unit_test(test_05_pprof_overflow),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
