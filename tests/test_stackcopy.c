/* test_stackcopy.c — the recorder's side of the stack copies (record/stackcopy.h): the
 * --user-stacks words; the frame-pointer census of a module's function entries (a
 * fixture built without frame pointers, this test built with them); --user-stacks
 * auto for a command; each copy written once as a Stack with its copy, found again by
 * (process, key); and the VMA table a process's copies start from.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "record/collector.h"
#include "record/stackcopy.h"
#include "record/stack_table.h"
#include "tests/rec_double.h"


/* the fixture built with -O2 -fomit-frame-pointer, beside this test's build */
static const char *nofp_fixture(void)
{
	static char path[4096 + 32];
	char self[4096];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	char *slash;

	if (n <= 0)
		return NULL;
	self[n] = 0;
	slash = strrchr(self, '/');	/* .../tests/test_stackcopy */
	if (!slash)
		return NULL;
	*slash = 0;
	snprintf(path, sizeof(path), "%s/fixtures/heap_nofp", self);
	return access(path, R_OK) == 0 ? path : NULL;
}

static void test_01_words(void **state)
{
	enum user_stacks m;

	(void)state;
	assert_int_equal(user_stacks_parse("fp", &m), 0);
	assert_int_equal(m, USER_STACKS_FP);
	assert_int_equal(user_stacks_parse("dwarf", &m), 0);
	assert_int_equal(m, USER_STACKS_DWARF);
	assert_int_equal(user_stacks_parse("auto", &m), 0);
	assert_int_equal(m, USER_STACKS_AUTO);
	assert_int_equal(user_stacks_parse("lbr", &m), -EINVAL);
	assert_int_equal(user_stacks_parse(NULL, &m), -EINVAL);
	assert_string_equal(user_stacks_name(USER_STACKS_AUTO), "auto");
	assert_string_equal(user_stacks_name(USER_STACKS_DWARF), "dwarf");
	assert_null(user_stacks_name((enum user_stacks)7));
}

static void test_02_census(void **state)
{
	const char *nofp = nofp_fixture();
	struct fp_census c;
	char why[256];

	(void)state;
	/* this test: built with -fno-omit-frame-pointer */
	assert_int_equal(fp_census__module("/proc/self/exe", &c), 0);
	printf("# self: %u of %u functions set up rbp\n", c.with_fp, c.functions);
	assert_true(c.usable);
	assert_true(fp_census__has_fp(&c));
	assert_int_equal(fp_census__module("/nonexistent/module", &c), -ENOENT);
	assert_false(fp_census__has_fp(&c));
	if (!nofp) {
		printf("# heap_nofp not built beside this test: its census is not checked\n");
		return;
	}
	assert_int_equal(fp_census__module(nofp, &c), 0);
	printf("# heap_nofp: %u of %u functions set up rbp\n", c.with_fp, c.functions);
	assert_true(c.usable && c.functions >= 4);
	assert_false(fp_census__has_fp(&c));
	/* a command built without frame pointers: stack copies, and the reason names it */
	assert_int_equal(user_stacks__auto(0, nofp, why, sizeof(why)), USER_STACKS_DWARF);
	printf("# auto for heap_nofp: %s\n", why);
	assert_non_null(strstr(why, "no frame pointers in heap_nofp"));
}

static void test_03_copies(void **state)
{
	static struct sc_copy c;
	struct stack_table *t = stack_table__new();
	struct stack_copies *s = stack_copies__capture();
	struct rec_ctx ctx = { 0 };
	Ptop__V1__Record *rec;
	uint64_t id = 0, id2 = 0;

	(void)state;
	assert_non_null(t);
	assert_non_null(s);
	rec_double_reset();
	memset(&c, 0, sizeof(c));
	c.hash = 0x1234567890abcdefULL;
	c.tgid = 77;
	c.tid = 78;
	c.ip = 0x401000;
	c.sp = 0x7ffc0000;
	c.bp = 0x7ffc0010;
	c.time_ns = 5;
	c.bytes = 24;
	c.flags = SC_F_SHORT;
	c.words[0] = 0x401234;
	c.words[2] = 0x7ffc0008;
	assert_int_equal(stack_copies__add(&ctx, s, t, &c, SC_HDR_BYTES + 24), 0);
	assert_int_equal(rec_double.n_records, 1);
	rec = rec_double_record(0);
	assert_int_equal(rec->kind_case, PTOP__V1__RECORD__KIND_STACK);
	assert_non_null(rec->stack->copy);
	assert_int_equal(rec->stack->n_ips, 0);
	assert_false(rec->stack->kernel);
	assert_int_equal(rec->stack->copy->pid, 77);
	assert_int_equal(rec->stack->copy->tid, 78);
	assert_int_equal(rec->stack->copy->ip, 0x401000);
	assert_int_equal(rec->stack->copy->sp, 0x7ffc0000);
	assert_int_equal(rec->stack->copy->bp, 0x7ffc0010);
	assert_int_equal(rec->stack->copy->flags, SC_F_SHORT);
	assert_int_equal(rec->stack->copy->stack.len, 24);
	assert_memory_equal(rec->stack->copy->stack.data, c.words, 24);
	id = rec->stack->id;
	assert_true(id > 0);
	ptop__v1__record__free_unpacked(rec, NULL);

	/* the same key again: no second record, one id */
	assert_int_equal(stack_copies__add(&ctx, s, t, &c, SC_HDR_BYTES + 24), 0);
	assert_int_equal(rec_double.n_records, 1);
	assert_int_equal(stack_copies__find(s, 77, c.hash, &id2), 0);
	assert_int_equal(id2, id);
	/* the same key in another process is another stack */
	assert_int_equal(stack_copies__find(s, 78, c.hash, &id2), -ENOENT);
	c.tgid = 78;
	assert_int_equal(stack_copies__add(&ctx, s, t, &c, SC_HDR_BYTES + 24), 0);
	assert_int_equal(rec_double.n_records, 2);
	assert_int_equal(stack_copies__find(s, 78, c.hash, &id2), 0);
	assert_true(id2 != id);
	/* ids come from the capture's stack table: an interned stack gets another */
	{
		uint64_t ips[1] = { 0x401000 }, sid = 0;

		assert_int_equal(stack_table__intern(t, false, 0, ips, 1, &sid), 1);
		assert_true(sid != id && sid != id2);
	}
	/* malformed records are refused, not written */
	assert_int_equal(stack_copies__add(&ctx, s, t, &c, SC_HDR_BYTES + 16), -EINVAL);
	c.bytes = SC_MAX_BYTES + 8;
	assert_int_equal(stack_copies__add(&ctx, s, t, &c, sizeof(c)), -EINVAL);
	c.bytes = 8;
	c.hash = 0;
	assert_int_equal(stack_copies__add(&ctx, s, t, &c, SC_HDR_BYTES + 8), -EINVAL);
	assert_int_equal(rec_double.n_records, 2);
	assert_int_equal(stack_copies__find(s, 77, 0, &id2), -ENOENT);
	/* many keys: the set grows */
	c.hash = 1;
	for (int i = 0; i < 2000; i++) {
		c.hash = 0x100 + (uint64_t)i * 0x9E3779B97F4A7C15ULL;
		c.hash |= 1;
		assert_int_equal(stack_copies__add(&ctx, s, t, &c, SC_HDR_BYTES + 8), 0);
		rec_double_reset();
	}
	assert_int_equal(stack_copies__count(s), 2002);
	stack_table__free(t);
}

static void test_04_vmas(void **state)
{
	struct sc_vmas t;
	struct stat st;
	/* the thread's own stack (under ASan a local may live on its fake stack) */
	uint64_t code = (uint64_t)(uintptr_t)&test_04_vmas,
		 local = (uint64_t)(uintptr_t)__builtin_frame_address(0);
	int in_code = -1, in_stack = -1;

	(void)state;
	assert_int_equal(sc_vmas__read(getpid(), &t), 0);
	assert_int_equal(stat("/proc/self/exe", &st), 0);
	assert_int_equal(t.ino, st.st_ino);
	assert_int_equal(t.mm, 0);
	assert_true(t.fixed > 0 && t.fixed <= SC_VMAS * 2 / 3);
	assert_true(t.map_count > t.fixed);
	for (unsigned k = 0; k < SC_VMAS; k++) {
		if (t.start[k] <= code && code < t.end[k])
			in_code = (int)k;
		if (t.start[k] <= local && local < t.end[k])
			in_stack = (int)k;
	}
	/* this function's code is in an executable entry kept while learning; the stack
	 * in a writable one */
	assert_true(in_code >= 0 && in_code < (int)t.fixed);
	assert_true(t.exec & (1u << in_code));
	assert_true(in_stack >= 0);
	assert_false(t.exec & (1u << in_stack));
	assert_int_equal(sc_vmas__read(999999999, &t), -ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_01_words),
		cmocka_unit_test(test_02_census),
		cmocka_unit_test(test_03_copies),
		cmocka_unit_test(test_04_vmas),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
