/* test_cpu.c — the cpu collector: tick conversion, /proc deltas and the eBPF
 * total's monotonic advance on made-up numbers, and, when run as root, both lanes
 * measuring this test process while it sleeps and burns CPU a known way.
 *
 * The run loop's rec_emit_* are replaced by fakes that keep what the collector
 * emits (packed, as a capture would hold it).
 */
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "record/collector.h"
#include "record/bpf_util.h"
#include "record/cgroupfs.h"
#include "collectors/cpu/record.h"
#include "record/procfs.h"

extern const struct collector_ops cpu_collector;

/* ------------------------------------------------------------------ fakes */

#include "tests/rec_double.h"

/* ------------------------------------------------------------------ pure parts */

static void test_01_ticks(void **state)
{
	(void)state;
	assert_int_equal(cpu__ticks_to_ns(0, 100), 0);
	assert_int_equal(cpu__ticks_to_ns(1, 100), 10000000ULL);
	assert_int_equal(cpu__ticks_to_ns(250, 100), 2500000000ULL);
	assert_int_equal(cpu__ticks_to_ns(3, 300), 10000000ULL);
	assert_int_equal(cpu__ticks_to_ns(1, 1000), 1000000ULL);
	/* 10^12 ticks (317 years at 100 Hz) does not overflow */
	assert_int_equal(cpu__ticks_to_ns(1000000000000ULL, 100), 10000000000000000000ULL);
	assert_int_equal(cpu__ticks_to_ns(5, 0), 0);
}

static void test_02_proc_sample(void **state)
{
	struct proc_stat a = { .utime = 100, .stime = 50, .num_threads = 1 };
	struct proc_stat b = { .utime = 130, .stime = 51, .num_threads = 4 };
	struct proc_status sa = { .voluntary_ctxt_switches = 10, .nonvoluntary_ctxt_switches = 2 };
	struct proc_status sb = { .voluntary_ctxt_switches = 17, .nonvoluntary_ctxt_switches = 2 };
	Ptop__V1__CpuProc pr = PTOP__V1__CPU_PROC__INIT;

	(void)state;
	cpu__proc_sample(&a, &sa, &b, &sb, 100, &pr);
	assert_int_equal(pr.user_ns, 300000000ULL);
	assert_int_equal(pr.system_ns, 10000000ULL);
	assert_int_equal(pr.user_ticks_total, 130);
	assert_int_equal(pr.system_ticks_total, 51);
	assert_int_equal(pr.threads, 4);
	assert_int_equal(pr.voluntary_switches, 7);
	assert_int_equal(pr.involuntary_switches, 0);
	/* a counter going backwards gives 0, not a huge wrapped delta */
	cpu__proc_sample(&b, &sb, &a, &sa, 100, &pr);
	assert_int_equal(pr.user_ns, 0);
	assert_int_equal(pr.voluntary_switches, 0);
	assert_int_equal(pr.user_ticks_total, 100);
}

static void test_03_oncpu_advance(void **state)
{
	uint64_t emitted = 0;

	(void)state;
	assert_int_equal(cpu__oncpu_advance(&emitted, 1000), 1000);
	assert_int_equal(cpu__oncpu_advance(&emitted, 1500), 500);
	/* an estimate that reads low (a slice ended between the reads) emits 0 ... */
	assert_int_equal(cpu__oncpu_advance(&emitted, 1200), 0);
	assert_int_equal(emitted, 1500);
	/* ... and the next one catches up: nothing counted twice or lost */
	assert_int_equal(cpu__oncpu_advance(&emitted, 2000), 500);
	assert_int_equal(emitted, 2000);
}

/* cpu.stat: the v2 core keys, with and without the cpu controller's */
static void test_07_cg_stat(void **state)
{
	static const char core[] = "usage_usec 1000\nuser_usec 700\nsystem_usec 300\n"
				   "nice_usec 0\ncore_sched.force_idle_usec 0\n";
	static const char ctl[] = "usage_usec 5000\nuser_usec 3000\nsystem_usec 1500\n"
				  "nice_usec 0\nnr_periods 40\nnr_throttled 12\n"
				  "throttled_usec 250000\nnr_bursts 0\nburst_usec 0\n";
	struct cpu_cg_stat a, b, back;
	Ptop__V1__CpuCgroup cg = PTOP__V1__CPU_CGROUP__INIT;

	(void)state;
	assert_int_equal(cpu__parse_cg_stat(core, &a), 0);
	assert_int_equal(a.usage_us, 1000);
	assert_int_equal(a.user_us, 700);
	assert_int_equal(a.system_us, 300);
	assert_false(a.throttling);
	assert_int_equal(cpu__parse_cg_stat(ctl, &b), 0);
	assert_true(b.throttling);
	assert_int_equal(b.periods, 40);
	assert_int_equal(b.throttled, 12);
	assert_int_equal(b.throttled_us, 250000);
	assert_int_equal(cpu__parse_cg_stat("user_usec 1\nsystem_usec 2\n", &back), -EINVAL);
	assert_int_equal(cpu__parse_cg_stat("usage_usec x\n", &back), -EINVAL);

	/* deltas in ns; throttling only when both readings have it */
	cpu__cg_sample(&a, &b, &cg);
	assert_int_equal(cg.usage_ns, 4000000);
	assert_int_equal(cg.user_ns, 2300000);
	assert_int_equal(cg.system_ns, 1200000);
	assert_false(cg.throttling);
	assert_int_equal(cg.periods, 0);
	back = b;
	b.periods = 50;
	b.throttled = 15;
	b.throttled_us = 300000;
	b.usage_us = 4000;	/* went back (it should not): 0 */
	cpu__cg_sample(&back, &b, &cg);
	assert_true(cg.throttling);
	assert_int_equal(cg.periods, 10);
	assert_int_equal(cg.throttled_periods, 3);
	assert_int_equal(cg.throttled_ns, 50000000);
	assert_int_equal(cg.usage_ns, 0);
}

/* ------------------------------------------------------------------ real BPF */

static struct rec_ctx ctx;
static struct collector col;

static void init_col(pid_t pid, bool no_ebpf)
{
	memset(&ctx, 0, sizeof(ctx));
	memset(&col, 0, sizeof(col));
	ctx.pid = pid;
	ctx.no_ebpf = no_ebpf;
	ctx.interval_ns = 1000000000ULL;
	col.ops = &cpu_collector;
	col.ctx = &ctx;
	rec_double_reset();
}

static int teardown(void **state)
{
	(void)state;
	if (col.ops)
		col.ops->stop(&col);
	rec_double_reset();
	return 0;
}

static bool can_trace(void)
{
	char reason[256];

	if (bpf_util__can_trace(reason, sizeof(reason)) == 0)
		return true;
	printf("SKIP: %s\n", reason);
	return false;
}

static void sleep_1ms(void)
{
	struct timespec ts = { 0, 1000000 };

	while (nanosleep(&ts, &ts) != 0)
		;
}

static void test_04_ebpf_lanes_agree(void **state)
{
	Ptop__V1__Event *ev;
	struct proc_stat st0, st;
	volatile uint64_t sink = 0;
	uint64_t proc_ns, ebpf_ns;
	long tck = sysconf(_SC_CLK_TCK);
	int i;

	(void)state;
	if (!can_trace())
		skip();
	init_col(getpid(), false);
	assert_int_equal(col.ops->check(&col), PTOP__V1__PROBE_STATE__PROBE_STATE_ACTIVE);
	assert_int_equal(col.source, PTOP__V1__PROBE_SOURCE__PROBE_SOURCE_EBPF);
	if (col.ops->start(&col) != 0)
		fail_msg("start: %s", col.reason);
	assert_int_equal(col.source, PTOP__V1__PROBE_SOURCE__PROBE_SOURCE_EBPF);
	assert_int_equal(col.ops->poll(&col, rec_now_ns(), POLL_FIRST), 0);

	/* 20 sleeps: at least 20 voluntary switch-outs, seen by both lanes */
	for (i = 0; i < 20; i++)
		sleep_1ms();
	assert_int_equal(col.ops->poll(&col, rec_now_ns(), 0), 0);
	ev = rec_double_event(1, PTOP__V1__EVENT__PAYLOAD_CPU);
	assert_non_null(ev->cpu->ebpf);
	assert_non_null(ev->cpu->proc);
	assert_true(ev->cpu->ebpf->switches >= 20);
	assert_true(ev->cpu->proc->voluntary_switches >= 20);
	assert_true(ev->cpu->ebpf->oncpu_ns > 0);
	assert_true(ev->cpu->proc->threads >= 1);
	rec_double_free_event(ev);

	/* burn 50 ticks of CPU (as /proc counts it), then both lanes must agree
	 * within 5 ticks: they measure the same thing two ways */
	assert_int_equal(procfs_read_stat(getpid(), &st0), 0);
	do {
		for (i = 0; i < 100000; i++)
			sink += i;
		assert_int_equal(procfs_read_stat(getpid(), &st), 0);
	} while (st.utime + st.stime < st0.utime + st0.stime + 50);
	assert_int_equal(col.ops->poll(&col, rec_now_ns(), 0), 0);
	ev = rec_double_event(2, PTOP__V1__EVENT__PAYLOAD_CPU);
	proc_ns = ev->cpu->proc->user_ns + ev->cpu->proc->system_ns;
	ebpf_ns = ev->cpu->ebpf->oncpu_ns;
	printf("# burn: ebpf %llu ns, /proc %llu ns\n", (unsigned long long)ebpf_ns,
	       (unsigned long long)proc_ns);
	assert_true(ebpf_ns + 5 * cpu__ticks_to_ns(1, tck) >= proc_ns);
	assert_true(proc_ns + 5 * cpu__ticks_to_ns(1, tck) >= ebpf_ns);
	rec_double_free_event(ev);
	assert_int_equal(rec_double.n_drops, 0);
}

static void test_05_no_ebpf(void **state)
{
	Ptop__V1__Event *ev;
	int i;

	(void)state;
	init_col(getpid(), true);
	assert_int_equal(col.ops->check(&col), PTOP__V1__PROBE_STATE__PROBE_STATE_ACTIVE);
	assert_int_equal(col.source, PTOP__V1__PROBE_SOURCE__PROBE_SOURCE_PROC);
	assert_int_equal(col.ops->start(&col), 0);
	for (i = 0; i < 5; i++)
		sleep_1ms();
	assert_int_equal(col.ops->poll(&col, rec_now_ns(), POLL_FIRST), 0);
	ev = rec_double_event(0, PTOP__V1__EVENT__PAYLOAD_CPU);
	assert_null(ev->cpu->ebpf);
	assert_non_null(ev->cpu->proc);
	assert_true(ev->cpu->proc->voluntary_switches >= 5);
	rec_double_free_event(ev);
}

static void pin_to_one_cpu(cpu_set_t *saved)
{
	cpu_set_t one;
	int cpu = sched_getcpu();

	assert_int_equal(sched_getaffinity(0, sizeof(*saved), saved), 0);
	assert_true(cpu >= 0);
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	assert_int_equal(sched_setaffinity(0, sizeof(one), &one), 0);
}

/* The target exits before the final poll: the eBPF lane still reports its last
 * slices, the /proc lane is absent, and nothing counts as a drop. */
static void test_06_target_gone(void **state)
{
	Ptop__V1__Event *ev;
	int fds[2], status;
	bool ebpf = false;
	char c = 0;
	cpu_set_t saved_cpus;
	pid_t child;
	int k;

	(void)state;
	for (k = 0; k < 2; k++) {
		if (k == 1) {
			if (!can_trace())
				break;
			ebpf = true;
		}
		/* One CPU for both: the parent's waitpid can then only return after
		 * the child's last sched_switch (on two CPUs the parent may poll
		 * between the child's exit_notify and its final switch). */
		if (ebpf)
			pin_to_one_cpu(&saved_cpus);
		assert_int_equal(pipe(fds), 0);
		child = fork();
		assert_true(child >= 0);
		if (child == 0) {
			close(fds[1]);
			if (read(fds[0], &c, 1) < 0)
				_exit(1);
			_exit(0);
		}
		close(fds[0]);
		init_col(child, !ebpf);
		assert_int_equal(col.ops->check(&col), PTOP__V1__PROBE_STATE__PROBE_STATE_ACTIVE);
		assert_int_equal(col.ops->start(&col), 0);
		assert_int_equal(col.ops->poll(&col, rec_now_ns(), POLL_FIRST), 0);
		assert_int_equal(write(fds[1], "x", 1), 1);
		close(fds[1]);
		assert_int_equal(waitpid(child, &status, 0), child);
		assert_int_equal(col.ops->poll(&col, rec_now_ns(), POLL_FINAL), 0);
		assert_int_equal(rec_double.n_drops, 0);
		if (ebpf) {
			assert_int_equal(rec_double.n_events, 2);
			ev = rec_double_event(1, PTOP__V1__EVENT__PAYLOAD_CPU);
			assert_non_null(ev->cpu->ebpf);
			assert_true(ev->cpu->ebpf->switches >= 1);	/* its exit */
			assert_null(ev->cpu->proc);
			rec_double_free_event(ev);
		} else {
			assert_int_equal(rec_double.n_events, 1);	/* only the first poll */
		}
		col.ops->stop(&col);
		if (ebpf)
			assert_int_equal(sched_setaffinity(0, sizeof(saved_cpus), &saved_cpus), 0);
	}
}

/* Cgroup mode without eBPF: the cgroup lane alone, on a new cgroup holding one child
 * that burns a known amount of CPU: the subtree's usage covers it; a removed cgroup
 * ends the lane without a drop. */
static char cg_dir[PATH_MAX + 64];	/* removed by the teardown if a test left it */

static int teardown_cgroup(void **state)
{
	if (cg_dir[0]) {
		rmdir(cg_dir);
		cg_dir[0] = '\0';
	}
	return teardown(state);
}

static void test_08_cgroup_lane(void **state)
{
	struct cgroupfs_mounts mnt;
	char *dir = cg_dir, procs[PATH_MAX + 80];
	Ptop__V1__Event *ev;
	int fds[2], status;
	pid_t child;
	FILE *f;
	char c = 0;

	(void)state;
	if (cgroupfs_read_mounts(&mnt) || !mnt.v2[0]) {
		printf("SKIP: no cgroup2 mount\n");
		skip();
	}
	snprintf(cg_dir, sizeof(cg_dir), "%s/ptop-test-cpu-%d", mnt.v2, (int)getpid());
	if (mkdir(dir, 0755)) {
		printf("SKIP: cannot create %s: %s\n", dir, strerror(errno));
		cg_dir[0] = '\0';
		skip();
	}
	assert_int_equal(pipe(fds), 0);
	child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		struct timespec ts;

		close(fds[1]);
		if (read(fds[0], &c, 1) < 0)
			_exit(1);
		do	/* 100 ms of its own CPU time */
			clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
		while (ts.tv_sec == 0 && ts.tv_nsec < 100000000);
		_exit(0);
	}
	close(fds[0]);
	snprintf(procs, sizeof(procs), "%s/cgroup.procs", dir);
	f = fopen(procs, "w");
	assert_non_null(f);
	fprintf(f, "%d\n", (int)child);
	assert_int_equal(fclose(f), 0);

	init_col(0, true);
	ctx.mode = PTOP__V1__TARGET_MODE__TARGET_MODE_CGROUP;
	ctx.cgroup_dir = dir;
	assert_int_equal(col.ops->check(&col), PTOP__V1__PROBE_STATE__PROBE_STATE_ACTIVE);
	assert_int_equal(col.source, PTOP__V1__PROBE_SOURCE__PROBE_SOURCE_PROC);
	assert_non_null(strstr(col.detail, "cpu.stat of the cgroup"));
	assert_non_null(strstr(col.detail, "no eBPF lane: --no-ebpf"));
	assert_int_equal(col.ops->start(&col), 0);
	assert_int_equal(write(fds[1], "x", 1), 1);
	close(fds[1]);
	assert_int_equal(waitpid(child, &status, 0), child);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_int_equal(col.ops->poll(&col, rec_now_ns(), 0), 0);
	ev = rec_double_event(0, PTOP__V1__EVENT__PAYLOAD_CPU);
	assert_null(ev->cpu->ebpf);
	assert_null(ev->cpu->proc);
	assert_non_null(ev->cpu->cgroup);
	/* the child's 100 ms, counted in microseconds */
	assert_true(ev->cpu->cgroup->usage_ns >= 99000000);
	assert_true(ev->cpu->cgroup->user_ns + ev->cpu->cgroup->system_ns > 0);
	rec_double_free_event(ev);
	assert_int_equal(rmdir(dir), 0);
	cg_dir[0] = '\0';
	assert_int_equal(col.ops->poll(&col, rec_now_ns(), POLL_FINAL), 0);
	assert_int_equal(rec_double.n_events, 1);
	assert_int_equal(rec_double.n_drops, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_01_ticks),
		cmocka_unit_test(test_02_proc_sample),
		cmocka_unit_test(test_03_oncpu_advance),
		cmocka_unit_test_teardown(test_04_ebpf_lanes_agree, teardown),
		cmocka_unit_test_teardown(test_05_no_ebpf, teardown),
		cmocka_unit_test_teardown(test_06_target_gone, teardown),
		cmocka_unit_test(test_07_cg_stat),
		cmocka_unit_test_teardown(test_08_cgroup_lane, teardown_cgroup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
