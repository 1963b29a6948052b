/* test_budget.c — the smaps budget (record/procfs.c smaps_budget__*): the pure
 * credit arithmetic on made-up times and read costs, and the memory and vmas
 * collectors obeying it on a real child process (skipped reads marked, never
 * filled in; the final reads taken regardless).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "record/collector.h"
#include "record/procfs.h"
#include "collectors/vmas/record.h"
#include "tests/rec_double.h"

#define MS 1000000ull
#define S 1000000000ull

/* ---------------------------------------------------------------- arithmetic */

static void test_01_no_budget(void **state)
{
	struct smaps_budget b;

	(void)state;
	smaps_budget__init(&b, 0, S);
	for (int i = 0; i < 10; i++) {
		assert_true(smaps_budget__allow(&b, (uint64_t)i * S));
		smaps_budget__spend(&b, 5 * S); /* far over any budget */
	}
	assert_int_equal(b.reads, 10);
	assert_int_equal(b.skipped, 0);
	assert_int_equal(b.spent_ns, 50 * S);
}

/* A read of 3 budgets is paid back over the next intervals: the next read runs
 * 3 intervals after it, not before. */
static void test_02_overrun_pays_back(void **state)
{
	struct smaps_budget b;
	const uint64_t t0 = 1000 * S;

	(void)state;
	smaps_budget__init(&b, 150 * MS, S);
	assert_true(smaps_budget__allow(&b, t0)); /* starts full */
	smaps_budget__spend(&b, 450 * MS);
	assert_int_equal(b.credit_ns, -300 * (int64_t)MS);
	assert_false(smaps_budget__allow(&b, t0 + 1 * S)); /* -150 ms */
	assert_false(smaps_budget__allow(&b, t0 + 2 * S)); /* 0: not positive */
	assert_true(smaps_budget__allow(&b, t0 + 3 * S));  /* +150 ms */
	smaps_budget__spend(&b, 10 * MS);
	assert_int_equal(b.credit_ns, 140 * (int64_t)MS);
	/* cheap reads every interval all run */
	for (int i = 4; i < 20; i++) {
		assert_true(smaps_budget__allow(&b, t0 + (uint64_t)i * S));
		smaps_budget__spend(&b, 10 * MS);
	}
	assert_int_equal(b.reads, 18);
	assert_int_equal(b.skipped, 2);
	assert_int_equal(b.spent_ns, 450 * MS + 17 * 10 * MS);
}

/* The credit is capped at one interval's budget: a long quiet stretch does not
 * buy a burst of reads. Time that does not move adds nothing. */
static void test_03_cap_and_clock(void **state)
{
	struct smaps_budget b;

	(void)state;
	smaps_budget__init(&b, 100 * MS, S);
	assert_true(smaps_budget__allow(&b, 5 * S));
	assert_true(smaps_budget__allow(&b, 500 * S));
	assert_int_equal(b.credit_ns, 100 * (int64_t)MS);
	smaps_budget__spend(&b, 250 * MS); /* -150 ms */
	/* the same time, and a time before it: no credit */
	assert_false(smaps_budget__allow(&b, 500 * S));
	assert_false(smaps_budget__allow(&b, 499 * S));
	assert_int_equal(b.credit_ns, -150 * (int64_t)MS);
	/* half an interval: +50 ms */
	assert_false(smaps_budget__allow(&b, 500 * S + S / 2));
	assert_int_equal(b.credit_ns, -100 * (int64_t)MS);
	assert_true(smaps_budget__allow(&b, 502 * S)); /* +150: 50 ms */
	assert_int_equal(b.credit_ns, 50 * (int64_t)MS);
	/* a huge gap on a huge budget does not overflow */
	smaps_budget__init(&b, UINT64_MAX, 1);
	assert_true(smaps_budget__allow(&b, 1));
	smaps_budget__spend(&b, UINT64_MAX);
	assert_true(smaps_budget__allow(&b, UINT64_MAX));
	assert_true(b.credit_ns > 0);
}

/* Whatever the read costs, the time read over T stays within T * budget per
 * interval, plus one budget (the full start), plus one read (the overrun of
 * the last one). Read costs from a fixed pseudo-random sequence, reads tried
 * at uneven times. */
static void test_04_average_bound(void **state)
{
	const uint64_t budget = 150 * MS, interval = S, max_read = 2 * S;
	struct smaps_budget b;
	uint64_t now = 7 * S, x = 88172645463325252ull;

	(void)state;
	smaps_budget__init(&b, budget, interval);
	for (int i = 0; i < 5000; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		now += interval / 4 + x % interval; /* 0.25 .. 1.25 intervals */
		if (smaps_budget__allow(&b, now))
			smaps_budget__spend(&b, (x >> 20) % (i % 50 == 0 ? max_read : 20 * MS));
		/* at every point so far */
		assert_true((double)b.spent_ns <=
			    (double)(now - 7 * S) * budget / interval + budget + max_read);
	}
	assert_true(b.reads > 100);
	assert_true(b.skipped > 0);
}

/* The one recorder-wide budget: shared by its users, reset by the last put. */
static void test_05_shared(void **state)
{
	struct smaps_budget *a, *c;

	(void)state;
	a = smaps_budget__get(150 * MS, S);
	c = smaps_budget__get(999 * MS, 2 * S); /* the first get's settings hold */
	assert_ptr_equal(a, c);
	assert_int_equal(c->budget_ns, 150 * MS);
	assert_int_equal(c->users, 2);
	assert_true(smaps_budget__allow(a, S));
	smaps_budget__spend(a, 400 * MS);
	assert_false(smaps_budget__allow(c, 2 * S)); /* a's read is c's debt too */
	smaps_budget__put(a);
	assert_int_equal(c->spent_ns, 400 * MS);
	smaps_budget__put(c);
	smaps_budget__put(c); /* once too often: harmless */
	smaps_budget__put(NULL);
	a = smaps_budget__get(20 * MS, S);
	assert_int_equal(a->budget_ns, 20 * MS);
	assert_int_equal(a->spent_ns, 0);
	assert_int_equal(a->users, 1);
	smaps_budget__put(a);
}

/* ---------------------------------------------------------------- collectors */

extern const struct collector_ops memory_collector, vmas_collector;

static void start(struct collector *c, struct rec_ctx *ctx, const struct collector_ops *ops)
{
	memset(c, 0, sizeof(*c));
	c->ops = ops;
	c->ctx = ctx;
	assert_int_equal(ops->check(c), PTOP__V1__PROBE_STATE__PROBE_STATE_ACTIVE);
	assert_int_equal(ops->start(c), 0);
}

/* Fork a child that waits, make it CTX's target, and start the memory and vmas
 * collectors on it. Returns its pid (the caller kills and reaps it). */
static pid_t start_pair(struct rec_ctx *ctx, struct collector *mem, struct collector *vm)
{
	pid_t kid;

	rec_double_reset();
	kid = fork();
	assert_true(kid >= 0);
	if (kid == 0) {
		pause();
		_exit(0);
	}
	ctx->pid = kid;
	start(mem, ctx, &memory_collector);
	start(vm, ctx, &vmas_collector);
	return kid;
}

/* Poll memory then vmas, as the run loop does, at T0, T0 + 1 s ... N polls. */
static void poll_pair(struct collector *mem, struct collector *vm, uint64_t t0, int n)
{
	for (int i = 0; i < n; i++) {
		uint64_t t = t0 + (uint64_t)i * S;

		assert_int_equal(memory_collector.poll(mem, t, i ? 0 : POLL_FIRST), 0);
		assert_int_equal(vmas_collector.poll(vm, t, i ? 0 : POLL_FIRST), 0);
	}
}

/* A budget of 1 ns per second: the first reads run on the full budget, every
 * later one is refused (the debt never pays back in this test), the final ones
 * run regardless. The memory sample marks the skip and has no rollup; the
 * final VMA snapshot counts the skipped walks. */
static void test_06_collectors_skip(void **state)
{
	struct rec_ctx ctx = {.interval_ns = S, .smaps_budget_ns = 1};
	struct collector mem, vm;
	Ptop__V1__Event *ev;
	pid_t kid;
	int i;

	(void)state;
	vmas_settings.interval_ns = 2 * S; /* --vma-interval */
	kid = start_pair(&ctx, &mem, &vm);
	assert_non_null(strstr(mem.detail, "smaps budget"));
	poll_pair(&mem, &vm, 100 * S, 7); /* 100 s ... 106 s, then the final poll */
	assert_int_equal(memory_collector.poll(&mem, 107 * S, POLL_FINAL), 0);
	assert_int_equal(vmas_collector.poll(&vm, 107 * S, POLL_FINAL), 0);
	memory_collector.stop(&mem);
	vmas_collector.stop(&vm);
	kill(kid, SIGKILL);
	assert_int_equal(waitpid(kid, NULL, 0), kid);

	/* memory: 8 samples; vmas: the first and the final snapshot */
	assert_int_equal(rec_double.n_drops, 0);
	assert_int_equal(rec_double.n_events, 10);
	ev = rec_double_event(0, 0);
	assert_int_equal(ev->payload_case, PTOP__V1__EVENT__PAYLOAD_MEMORY);
	assert_non_null(ev->memory->rollup);
	assert_non_null(ev->memory->budget);
	assert_false(ev->memory->budget->rollup_skipped);
	assert_int_equal(ev->memory->budget->budget_ns, 1);
	assert_true(ev->memory->budget->spent_ns >= ev->memory->rollup->read_ns);
	rec_double_free_event(ev);
	ev = rec_double_event(1, 0);
	assert_int_equal(ev->payload_case, PTOP__V1__EVENT__PAYLOAD_VMAS);
	assert_int_equal(ev->vmas->skipped_walks, 0);
	assert_int_equal(ev->vmas->budget_ns, 1);
	assert_true(ev->vmas->n_vmas > 0);
	rec_double_free_event(ev);
	for (i = 2; i < 8; i++) {
		ev = rec_double_event(i, 0);
		assert_int_equal(ev->payload_case, PTOP__V1__EVENT__PAYLOAD_MEMORY);
		assert_null(ev->memory->rollup); /* never an old value in its place */
		assert_non_null(ev->memory->statm);
		assert_non_null(ev->memory->budget);
		assert_true(ev->memory->budget->rollup_skipped);
		/* the second sample's interval holds the first VMA walk */
		if (i == 2)
			assert_true(ev->memory->budget->spent_ns > 0);
		else
			assert_int_equal(ev->memory->budget->spent_ns, 0);
		rec_double_free_event(ev);
	}
	ev = rec_double_event(8, 0); /* the final memory sample */
	assert_non_null(ev->memory->rollup);
	assert_false(ev->memory->budget->rollup_skipped);
	assert_true(ev->memory->budget->spent_ns >= ev->memory->rollup->read_ns);
	rec_double_free_event(ev);
	ev = rec_double_event(9, 0); /* walks due at 102, 104, 106 s were skipped */
	assert_int_equal(ev->payload_case, PTOP__V1__EVENT__PAYLOAD_VMAS);
	assert_true(ev->vmas->final);
	assert_int_equal(ev->vmas->skipped_walks, 3);
	assert_true(ev->vmas->n_vmas > 0);
	assert_true(ev->vmas->walk_ns > 0);
	rec_double_free_event(ev);
	rec_double_reset();
}

/* A budget that is never short: nothing is skipped, and every sample says how
 * long its smaps reads took. */
static void test_07_collectors_within_budget(void **state)
{
	struct rec_ctx ctx = {.interval_ns = S, .smaps_budget_ns = S};
	struct collector mem, vm;
	Ptop__V1__Event *ev;
	pid_t kid;
	int i;

	(void)state;
	vmas_settings.interval_ns = S; /* --vma-interval */
	kid = start_pair(&ctx, &mem, &vm);
	poll_pair(&mem, &vm, 10 * S, 4);
	memory_collector.stop(&mem);
	vmas_collector.stop(&vm);
	kill(kid, SIGKILL);
	assert_int_equal(waitpid(kid, NULL, 0), kid);
	assert_int_equal(rec_double.n_events, 8);
	for (i = 0; i < 8; i++) {
		ev = rec_double_event(i, 0);
		if (i % 2 == 0) {
			assert_non_null(ev->memory->rollup);
			assert_false(ev->memory->budget->rollup_skipped);
			assert_true(ev->memory->budget->spent_ns >= ev->memory->rollup->read_ns);
		} else {
			assert_int_equal(ev->vmas->skipped_walks, 0);
			assert_int_equal(ev->vmas->budget_ns, S);
		}
		rec_double_free_event(ev);
	}
	rec_double_reset();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_01_no_budget),
	    cmocka_unit_test(test_02_overrun_pays_back),
	    cmocka_unit_test(test_03_cap_and_clock),
	    cmocka_unit_test(test_04_average_bound),
	    cmocka_unit_test(test_05_shared),
	    cmocka_unit_test(test_06_collectors_skip),
	    cmocka_unit_test(test_07_collectors_within_budget),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
