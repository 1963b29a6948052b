/* test_stack_table.c — the capture's stack table (record/stack_table.h): one id per
 * distinct stack by content (per process in cgroup mode, kernel stacks shared), the
 * content hash, and, when run as root, the stack-map reader (stackmap__read) and the
 * Stack writer (stack_table__emit) on a real BPF hash map.
 *
 * The run loop's rec_emit_* are replaced by tests/rec_double.h, which keeps every record
 * emitted, packed, in order.
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
#include <cmocka.h>

#include <bpf/bpf.h>

#include "record/collector.h"
#include "record/stack_table.h"
#include "tests/rec_double.h"

static void test_01_stack_table(void **state)
{
	uint64_t a[] = { 0x401000, 0x401234, 0x7f0000001000 };
	uint64_t b[] = { 0x401000, 0x401234 };
	uint64_t ips[3], id, id2;
	struct stack_table *t;
	uint64_t i;

	(void)state;
	t = stack_table__new();
	assert_non_null(t);
	assert_int_equal(stack_table__intern(t, false, 0, a, 3, &id), 1);
	assert_int_equal(id, 1);
	/* the same content again, from another buffer: same id, not new */
	memcpy(ips, a, sizeof(a));
	assert_int_equal(stack_table__intern(t, false, 0, ips, 3, &id2), 0);
	assert_int_equal(id2, 1);
	/* a prefix, the same ips marked kernel, and the empty stack are each their own */
	assert_int_equal(stack_table__intern(t, false, 0, b, 2, &id), 1);
	assert_int_equal(id, 2);
	assert_int_equal(stack_table__intern(t, true, 0, a, 3, &id), 1);
	assert_int_equal(id, 3);
	assert_int_equal(stack_table__intern(t, false, 0, NULL, 0, &id), 1);
	assert_int_equal(id, 4);
	assert_int_equal(stack_table__intern(t, false, 0, NULL, 0, &id), 0);
	assert_int_equal(id, 4);
	assert_int_equal(stack_table__count(t), 4);
	/* the table grows past its first size and keeps every id */
	for (i = 0; i < 5000; i++) {
		ips[0] = 0x1000 + i;
		ips[1] = i * 7;
		assert_int_equal(stack_table__intern(t, false, 0, ips, 2, &id), 1);
		assert_int_equal(id, 5 + i);
	}
	for (i = 0; i < 5000; i++) {
		ips[0] = 0x1000 + i;
		ips[1] = i * 7;
		assert_int_equal(stack_table__intern(t, false, 0, ips, 2, &id), 0);
		assert_int_equal(id, 5 + i);
	}
	assert_int_equal(stack_table__intern(t, false, 0, a, 3, &id), 0);
	assert_int_equal(id, 1);
	assert_int_equal(stack_table__count(t), 5004);
	stack_table__free(t);
	stack_table__free(NULL);
}

/* cgroup mode: a user stack is one process's; the same ips in another process are
 * another stack, in the same process the same one. Kernel stacks are shared. */
static void test_02_stack_table_pids(void **state)
{
	uint64_t a[] = { 0x401000, 0x401234, 0x7f0000001000 };
	uint64_t ips[3], id, i;
	struct stack_table *t;
	struct rec_ctx rctx = { 0 };
	Ptop__V1__Record *rec;
	int r;

	(void)state;
	t = stack_table__new();
	assert_non_null(t);
	assert_int_equal(stack_table__intern(t, false, 100, a, 3, &id), 1);
	assert_int_equal(id, 1);
	assert_int_equal(stack_table__intern(t, false, 200, a, 3, &id), 1);
	assert_int_equal(id, 2);
	memcpy(ips, a, sizeof(a));
	assert_int_equal(stack_table__intern(t, false, 100, ips, 3, &id), 0);
	assert_int_equal(id, 1);
	assert_int_equal(stack_table__intern(t, false, 200, ips, 3, &id), 0);
	assert_int_equal(id, 2);
	/* pid 0 (a one-process capture, the heap lanes) is a key of its own */
	assert_int_equal(stack_table__intern(t, false, 0, a, 3, &id), 1);
	assert_int_equal(id, 3);
	/* a kernel stack is the same in every process: the pid is not part of its key */
	assert_int_equal(stack_table__intern(t, true, 100, a, 3, &id), 1);
	assert_int_equal(id, 4);
	assert_int_equal(stack_table__intern(t, true, 200, a, 3, &id), 0);
	assert_int_equal(id, 4);
	assert_int_equal(stack_table__intern(t, true, 0, a, 3, &id), 0);
	assert_int_equal(id, 4);
	assert_int_equal(stack_table__count(t), 4);
	/* through growth: 3000 stacks in each of two processes, every id kept */
	for (i = 0; i < 3000; i++) {
		ips[0] = 0x1000 + i;
		assert_int_equal(stack_table__intern(t, false, 7, ips, 1, &id), 1);
		assert_int_equal(id, 5 + 2 * i);
		assert_int_equal(stack_table__intern(t, false, 4194304, ips, 1, &id), 1);
		assert_int_equal(id, 6 + 2 * i);
	}
	for (i = 0; i < 3000; i++) {
		ips[0] = 0x1000 + i;
		assert_int_equal(stack_table__intern(t, false, 4194304, ips, 1, &id), 0);
		assert_int_equal(id, 6 + 2 * i);
		assert_int_equal(stack_table__intern(t, false, 7, ips, 1, &id), 0);
		assert_int_equal(id, 5 + 2 * i);
	}
	assert_int_equal(stack_table__intern(t, false, 200, a, 3, &id), 0);
	assert_int_equal(id, 2);
	assert_int_equal(stack_table__count(t), 6004);
	stack_table__free(t);

	/* the writer: one Stack record per (pid, ips) of a user stack, each once; one for a
	 * kernel stack whatever the pid */
	rec_double_reset();
	t = stack_table__new();
	assert_non_null(t);
	assert_int_equal(stack_table__emit(&rctx, t, false, 100, a, 3, &id), 0);
	assert_int_equal(id, 1);
	assert_int_equal(stack_table__emit(&rctx, t, false, 200, a, 3, &id), 0);
	assert_int_equal(id, 2);
	assert_int_equal(stack_table__emit(&rctx, t, false, 100, a, 3, &id), 0);
	assert_int_equal(id, 1);
	assert_int_equal(stack_table__emit(&rctx, t, true, 100, a, 3, &id), 0);
	assert_int_equal(id, 3);
	assert_int_equal(stack_table__emit(&rctx, t, true, 200, a, 3, &id), 0);
	assert_int_equal(id, 3);
	assert_int_equal(rec_double.n_records, 3);
	for (r = 0; r < 3; r++) {
		rec = rec_double_record(r);
		assert_int_equal(rec->kind_case, PTOP__V1__RECORD__KIND_STACK);
		assert_int_equal(rec->stack->id, r + 1);
		assert_int_equal(rec->stack->kernel, r == 2);
		assert_int_equal(rec->stack->n_ips, 3);
		assert_memory_equal(rec->stack->ips, a, sizeof(a));
		ptop__v1__record__free_unpacked(rec, NULL);
	}
	stack_table__free(t);
	rec_double_reset();
}

static void test_03_hash(void **state)
{
	uint64_t a[] = { 1, 2, 3 }, b[] = { 1, 2, 3 }, c[] = { 3, 2, 1 };

	(void)state;
	assert_true(stack_table__hash(false, a, 3) == stack_table__hash(false, b, 3));
	assert_true(stack_table__hash(false, a, 3) != stack_table__hash(true, a, 3));
	assert_true(stack_table__hash(false, a, 3) != stack_table__hash(false, c, 3));
	assert_true(stack_table__hash(false, a, 3) != stack_table__hash(false, a, 2));
}

/* The shared stack-map reader and the Stack record writer, on a real hash map of the
 * bpf/stackmap.h layout (root only: a BPF map is made). */
static void test_04_stackmap(void **state)
{
	struct sm_key k = { .hash = 0x1234567890abcdefULL | 1, .nr = 3, .kernel = 0 };
	struct sm_key none = { 0 }, missing = k;
	struct sm_ips v = { { 0x401000, 0x401100, 0x401200 } };
	const uint64_t *vi = (const uint64_t *)v.ips;
	struct stack_table *t;
	struct rec_ctx ctx = { 0 };
	uint64_t ips[SM_MAX_DEPTH] = { 0 }, id = 0, id2 = 0;
	Ptop__V1__Record *rec;
	int fd;

	(void)state;
	fd = bpf_map_create(BPF_MAP_TYPE_HASH, "sm_test", sizeof(struct sm_key),
			    sizeof(struct sm_ips), 16, NULL);
	if (fd < 0) {
		printf("SKIP: cannot make a BPF map here: %s\n", strerror(errno));
		skip();
	}
	assert_int_equal(bpf_map_update_elem(fd, &k, &v, BPF_NOEXIST), 0);
	assert_int_equal(stackmap__read(fd, &k, ips, SM_MAX_DEPTH), 3);
	assert_memory_equal(ips, v.ips, 3 * sizeof(uint64_t));
	assert_int_equal(stackmap__read(fd, &k, ips, 2), 2);	/* bounded by MAX */
	assert_int_equal(stackmap__read(fd, &none, ips, SM_MAX_DEPTH), 0);	/* no stack */
	missing.nr = 4;
	assert_int_equal(stackmap__read(fd, &missing, ips, SM_MAX_DEPTH), 0);	/* not there */
	close(fd);

	/* written once, before anything refers to it; the same content, the same id */
	rec_double_reset();
	t = stack_table__new();
	assert_non_null(t);
	assert_int_equal(stack_table__emit(&ctx, t, false, 0, vi, 3, &id), 0);
	assert_int_equal(stack_table__emit(&ctx, t, false, 0, vi, 3, &id2), 0);
	assert_true(id != 0);
	assert_int_equal(id, id2);
	assert_int_equal(rec_double.n_records, 1);
	rec = rec_double_record(0);
	assert_int_equal(rec->kind_case, PTOP__V1__RECORD__KIND_STACK);
	assert_int_equal(rec->stack->id, id);
	assert_int_equal(rec->stack->n_ips, 3);
	assert_memory_equal(rec->stack->ips, v.ips, 3 * sizeof(uint64_t));
	ptop__v1__record__free_unpacked(rec, NULL);
	/* the kernel flag makes another stack; no ips, no stack */
	assert_int_equal(stack_table__emit(&ctx, t, true, 0, vi, 3, &id2), 0);
	assert_true(id2 != id);
	assert_int_equal(stack_table__emit(&ctx, t, false, 0, vi, 0, &id2), 0);
	assert_int_equal(id2, 0);
	assert_int_equal(rec_double.n_records, 2);
	stack_table__free(t);
	rec_double_reset();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_01_stack_table),
		cmocka_unit_test(test_02_stack_table_pids),
		cmocka_unit_test(test_03_hash),
		cmocka_unit_test(test_04_stackmap),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
