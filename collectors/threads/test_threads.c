/* test_threads.c — the threads collector's pure parts (collectors/threads/record.h): the
 * /proc task stat parser, the estimate of a thread's figures with its periods still open,
 * and its --offcpu-min option (through the collector's option table). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <sqlite3.h>

#include "record/collector.h"
#include "collectors/threads/record.h"
#include "collectors/threads/report.h"

extern const struct collector_ops threads_collector;

static void test_task_stat(void **state)
{
	/* comm with a space and a ')'; processor (field 39) is 3 */
	static const char text[] =
		"4242 (a b) c) S 1 4242 4242 0 -1 4194560 100 0 0 0 7 3 0 0 20 0 3 0 12345 "
		"1000 100 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 3 0 0 0 0 0\n";
	char st = 0;
	int cpu = 0;

	(void)state;
	assert_int_equal(threads__parse_task_stat(text, &st, &cpu), 0);
	assert_int_equal(st, 'S');
	assert_int_equal(cpu, 3);
	/* cut before field 39: the state, no CPU */
	assert_int_equal(threads__parse_task_stat("1 (x) D 1 2 3\n", &st, &cpu), 0);
	assert_int_equal(st, 'D');
	assert_int_equal(cpu, -1);
	assert_int_equal(threads__parse_task_stat("1 (x", &st, &cpu), -EINVAL);
	assert_int_equal(threads__parse_task_stat("1 (x)", &st, &cpu), -EINVAL);
}

static void test_estimate(void **state)
{
	struct thr_stat s = { .oncpu_ns = 100, .off_ns = { 10, 20, 30 } };
	uint64_t est[4];

	(void)state;
	/* nothing open: the finished periods */
	threads__estimate(&s, 1000, est);
	assert_int_equal(est[0], 100);
	assert_int_equal(est[1], 10);
	assert_int_equal(est[2], 20);
	assert_int_equal(est[3], 30);
	/* on CPU since 900 */
	s.in_ts = 900;
	threads__estimate(&s, 1000, est);
	assert_int_equal(est[0], 200);
	/* a slice that starts after NOW counts nothing */
	s.in_ts = 1100;
	threads__estimate(&s, 1000, est);
	assert_int_equal(est[0], 100);
	s.in_ts = 0;
	/* asleep since 600, not woken: sleeping up to NOW */
	s.out_ts = 600;
	s.out_reason = THR_SLEEP;
	threads__estimate(&s, 1000, est);
	assert_int_equal(est[2], 20 + 400);
	assert_int_equal(est[1], 10);
	/* woken at 900: sleeping to 900, runnable from there */
	s.wake_ts = 900;
	threads__estimate(&s, 1000, est);
	assert_int_equal(est[2], 20 + 300);
	assert_int_equal(est[1], 10 + 100);
	/* a wakeup after NOW is not seen yet */
	threads__estimate(&s, 850, est);
	assert_int_equal(est[2], 20 + 250);
	assert_int_equal(est[1], 10);
	/* blocked (D) since 600 */
	s.wake_ts = 0;
	s.out_reason = THR_BLOCKED;
	threads__estimate(&s, 1000, est);
	assert_int_equal(est[3], 30 + 400);
	/* preempted: runnable */
	s.out_reason = THR_RUNNABLE;
	threads__estimate(&s, 1000, est);
	assert_int_equal(est[1], 10 + 400);
	/* a period that starts after NOW counts nothing */
	s.out_ts = 1200;
	threads__estimate(&s, 1000, est);
	assert_int_equal(est[1], 10);
	/* an exited thread has no open off-CPU period */
	s.out_ts = 600;
	s.exit_ts = 700;
	threads__estimate(&s, 1000, est);
	assert_int_equal(est[1], 10);
	assert_int_equal(est[2], 20);
	assert_int_equal(est[3], 30);
}

/* Parse --offcpu-min ARG with the collector's own parser: 0 or -EINVAL. */
static int parse(const char *arg, uint64_t *ns, bool *off)
{
	const struct collector_opt *o = threads_collector.opts;
	char err[256] = "";
	int r;

	while (o->name && strcmp(o->name, "offcpu-min"))
		o++;
	assert_non_null(o->name);
	r = o->parse(o, arg, (char *)threads_collector.settings + o->offset, err, sizeof(err));
	if (r)
		assert_non_null(strstr(err, "--offcpu-min"));
	memcpy(ns, (char *)threads_collector.settings + o->offset, sizeof(*ns));
	*off = *((bool *)((char *)threads_collector.settings + o->offset + sizeof(uint64_t)));
	return r;
}

static void test_offcpu_min(void **state)
{
	uint64_t ns;
	bool off;

	(void)state;
	assert_int_equal(parse("0", &ns, &off), 0);
	assert_int_equal(ns, 0);
	assert_false(off);
	assert_int_equal(parse("1us", &ns, &off), 0);
	assert_int_equal(ns, 1000);
	assert_int_equal(parse("2ms", &ns, &off), 0);
	assert_int_equal(ns, 2000000);
	assert_int_equal(parse("off", &ns, &off), 0);
	assert_true(off);
	assert_int_equal(parse("5us", &ns, &off), 0);
	assert_false(off); /* a later value turns the stacks back on */
	assert_int_equal(parse("61s", &ns, &off), -EINVAL);
	assert_int_equal(parse("soon", &ns, &off), -EINVAL);
	assert_int_equal(parse("-1us", &ns, &off), -EINVAL);
}

/* The export loader: the off-CPU profile summed per (user, kernel) stack over the window,
 * by time; per thread and reason when asked. */
static void test_offcpu_load(void **state)
{
	static const char sql[] =
		"CREATE TABLE offcpu_stack (cap INTEGER, time_ns INTEGER, interval_ns INTEGER, "
		"tid INTEGER, reason TEXT, user_stack_id INTEGER, kernel_stack_id INTEGER, "
		"total_ns INTEGER, count INTEGER);"
		/* two intervals of 1 s ending at 1 s and 2 s; another capture's row */
		"INSERT INTO offcpu_stack VALUES (1, 1000000000, 1000000000, 7, 'sleep', 3, 4, 100, 1);"
		"INSERT INTO offcpu_stack VALUES (1, 2000000000, 1000000000, 7, 'sleep', 3, 4, 200, 2);"
		"INSERT INTO offcpu_stack VALUES (1, 2000000000, 1000000000, 8, 'blocked', 3, 4, 50, 1);"
		"INSERT INTO offcpu_stack VALUES (1, 2000000000, 1000000000, 8, 'sleep', NULL, 5, 1000, 9);"
		"INSERT INTO offcpu_stack VALUES (2, 2000000000, 1000000000, 8, 'sleep', 3, 4, 7777, 1);";
	struct capture_meta m = { .cap = 1, .base_ns = 0 };
	struct window w = { 0 };
	struct offcpu_row *v = NULL;
	sqlite3 *db = NULL;
	size_t n = 0;

	(void)state;
	assert_int_equal(sqlite3_open(":memory:", &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
	assert_int_equal(threads_offcpu__load(db, &m, &w, false, &v, &n), 0);
	assert_int_equal(n, 2);
	assert_int_equal(v[0].user_stack_id, 0); /* no user stack: 0 */
	assert_int_equal(v[0].kernel_stack_id, 5);
	assert_int_equal(v[0].total_ns, 1000);
	assert_int_equal(v[0].count, 9);
	assert_int_equal(v[1].user_stack_id, 3);
	assert_int_equal(v[1].kernel_stack_id, 4);
	assert_int_equal(v[1].total_ns, 350); /* both threads, both reasons, capture 1 only */
	assert_int_equal(v[1].count, 4);
	assert_int_equal(v[1].tid, -1);
	free(v);
	assert_int_equal(threads_offcpu__load(db, &m, &w, true, &v, &n), 0);
	assert_int_equal(n, 3);
	assert_int_equal(v[1].tid, 7);
	assert_string_equal(v[1].reason, "sleep");
	assert_int_equal(v[1].total_ns, 300);
	free(v);
	/* the window 0..1.2 s holds the first interval only (by its midpoint) */
	w.has_end = true;
	w.end_ns = 1200000000;
	assert_int_equal(threads_offcpu__load(db, &m, &w, false, &v, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(v[0].total_ns, 100);
	free(v);
	sqlite3_close(db);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_task_stat),
		cmocka_unit_test(test_estimate),
		cmocka_unit_test(test_offcpu_min),
		cmocka_unit_test(test_offcpu_load),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
