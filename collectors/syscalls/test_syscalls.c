/* test_syscalls.c — the syscalls collector: its pure parts (names, histogram trim,
 * counter deltas, the interval message) on made-up counters, and, when run as
 * root, the real BPF programs attached to this test's own process, checked
 * against calls it makes a known number of times.
 *
 * The run loop's rec_emit_* are replaced here by fakes that keep what the
 * collector emits, so the assertions read the same messages a capture would hold.
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>
#include <bpf/libbpf.h>

#include "record/collector.h"
#include "record/bpf_util.h"
#include "collectors/syscalls/record.h"

extern const struct collector_ops syscalls_collector;

/* ------------------------------------------------------------------ fakes */


#include "tests/rec_double.h"

/* The stat of syscall NR in emitted event I (unpacked into *EV, freed by caller). */
static const Ptop__V1__SyscallStat *find_stat(int i, uint32_t nr, Ptop__V1__Event **ev)
{
	size_t k;

	*ev = rec_double_event(i, PTOP__V1__EVENT__PAYLOAD_SYSCALLS);
	for (k = 0; k < (*ev)->syscalls->n_stats; k++)
		if ((*ev)->syscalls->stats[k]->nr == nr)
			return (*ev)->syscalls->stats[k];
	return NULL;
}

/* ------------------------------------------------------------------ pure parts */

static void test_01_names(void **state)
{
	(void)state;
	assert_string_equal(syscalls__name(110), "getppid");
	assert_string_equal(syscalls__name(0), "read");
	assert_string_equal(syscalls__name(39), "getpid");
	/* ptop's own table, not the build machine's headers (Debian 12's end at 450) */
	assert_string_equal(syscalls__name(335), "uretprobe");
	assert_string_equal(syscalls__name(467), "open_tree_attr");
	assert_null(syscalls__name(400));
	assert_null(syscalls__name(1000));
	assert_null(syscalls__name(UINT32_MAX));
}

static void test_02_hist_len(void **state)
{
	uint64_t h[SC_HIST_BUCKETS] = { 0 };

	(void)state;
	assert_int_equal(syscalls__hist_len(h, SC_HIST_BUCKETS), 0);
	h[0] = 1;
	assert_int_equal(syscalls__hist_len(h, SC_HIST_BUCKETS), 1);
	h[0] = 0;
	h[2] = 5;
	assert_int_equal(syscalls__hist_len(h, SC_HIST_BUCKETS), 3);
	h[SC_HIST_BUCKETS - 1] = 1;
	assert_int_equal(syscalls__hist_len(h, SC_HIST_BUCKETS), SC_HIST_BUCKETS);
	assert_int_equal(syscalls__hist_len(h, 0), 0);
}

static void test_03_delta(void **state)
{
	struct sc_stat cur = { 0 }, prev = { 0 };
	struct sc_delta d;

	(void)state;
	assert_false(syscalls__delta(&cur, &prev, &d));
	prev.count = UINT64_MAX - 1;	/* a counter that wrapped still diffs right */
	cur.count = 3;
	prev.total_ns = 100;
	cur.total_ns = 250;
	cur.hist[7] = 4;
	prev.hist[7] = 1;
	cur.unmatched = prev.unmatched = 9;
	assert_true(syscalls__delta(&cur, &prev, &d));
	assert_int_equal(d.count, 5);
	assert_int_equal(d.total_ns, 150);
	assert_int_equal(d.hist[7], 3);
	assert_int_equal(d.hist[6], 0);
	assert_int_equal(d.unmatched, 0);
	/* a change only in the histogram is a change */
	memset(&cur, 0, sizeof(cur));
	memset(&prev, 0, sizeof(prev));
	cur.hist[63] = 1;
	assert_true(syscalls__delta(&cur, &prev, &d));
}

static void test_04_sum_cpus(void **state)
{
	struct sc_stat percpu[3] = { 0 }, sum;

	(void)state;
	percpu[0].count = 1;
	percpu[1].count = 10;
	percpu[2].count = 100;
	percpu[0].hist[3] = 2;
	percpu[2].hist[3] = 5;
	percpu[1].errors = 7;
	syscalls__sum_cpus(percpu, 3, &sum);
	assert_int_equal(sum.count, 111);
	assert_int_equal(sum.hist[3], 7);
	assert_int_equal(sum.errors, 7);
	assert_int_equal(sum.completed, 0);
}

static void test_05_interval(void **state)
{
	struct sc_stat *cur = calloc(SC_MAX_NR, sizeof(*cur));
	struct sc_stat *prev = calloc(SC_MAX_NR, sizeof(*prev));
	struct sc_interval *iv = calloc(1, sizeof(*iv));
	Ptop__V1__SyscallStats *back;
	uint8_t buf[4096];
	size_t n, len;

	(void)state;
	assert_non_null(cur);
	assert_non_null(prev);
	assert_non_null(iv);
	/* nothing changed: an empty interval, still a valid message */
	assert_int_equal(syscalls__interval(cur, prev, SC_MAX_NR, iv), 0);
	assert_int_equal(iv->msg.n_stats, 0);

	cur[110].count = prev[110].count = 50;	/* unchanged: left out */
	cur[0].count = 3;
	cur[0].completed = 3;
	cur[0].total_ns = 3000;
	cur[0].hist[9] = 2;
	cur[0].hist[10] = 1;
	cur[1000].count = 1;			/* not in the table */
	cur[1000].unmatched = 1;
	cur[3].errors = 2;			/* only errors changed */
	prev[3].errors = 0;
	n = syscalls__interval(cur, prev, SC_MAX_NR, iv);
	assert_int_equal(n, 3);
	assert_int_equal(iv->msg.stats[0]->nr, 0);
	assert_string_equal(iv->msg.stats[0]->name, "read");
	assert_int_equal(iv->msg.stats[0]->count, 3);
	assert_int_equal(iv->msg.stats[0]->total_ns, 3000);
	assert_int_equal(iv->msg.stats[0]->n_latency_log2_hist, 11);
	assert_int_equal(iv->msg.stats[0]->latency_log2_hist[9], 2);
	assert_int_equal(iv->msg.stats[0]->latency_log2_hist[10], 1);
	assert_int_equal(iv->msg.stats[1]->nr, 3);
	assert_string_equal(iv->msg.stats[1]->name, "close");
	assert_int_equal(iv->msg.stats[1]->errors, 2);
	assert_int_equal(iv->msg.stats[1]->n_latency_log2_hist, 0);
	assert_int_equal(iv->msg.stats[2]->nr, 1000);
	assert_string_equal(iv->msg.stats[2]->name, "sys_1000");
	assert_int_equal(iv->msg.stats[2]->unmatched, 1);

	/* what it points to survives a pack/unpack round trip */
	len = ptop__v1__syscall_stats__get_packed_size(&iv->msg);
	assert_true(len <= sizeof(buf));
	ptop__v1__syscall_stats__pack(&iv->msg, buf);
	back = ptop__v1__syscall_stats__unpack(NULL, len, buf);
	assert_non_null(back);
	assert_int_equal(back->n_stats, 3);
	assert_int_equal(back->stats[0]->latency_log2_hist[10], 1);
	ptop__v1__syscall_stats__free_unpacked(back, NULL);
	free(cur);
	free(prev);
	free(iv);
}

/* ------------------------------------------------------------------ real BPF */

static struct rec_ctx ctx;
static struct collector col;

static int bpf_setup(void **state)
{
	char reason[256];

	(void)state;
	memset(&ctx, 0, sizeof(ctx));
	memset(&col, 0, sizeof(col));
	ctx.pid = getpid();
	ctx.interval_ns = 1000000000ULL;
	col.ops = &syscalls_collector;
	col.ctx = &ctx;
	rec_double_reset();
	if (bpf_util__can_trace(reason, sizeof(reason)) != 0) {
		printf("SKIP: %s\n", reason);
		return 0;
	}
	assert_int_equal(col.ops->check(&col), PTOP__V1__PROBE_STATE__PROBE_STATE_ACTIVE);
	if (col.ops->start(&col) != 0)
		fail_msg("start: %s", col.reason);
	return 0;
}

static int bpf_teardown(void **state)
{
	(void)state;
	if (col.ops)
		col.ops->stop(&col);
	rec_double_reset();
	return 0;
}

static bool bpf_running(void)
{
	return col.priv != NULL;
}

static void test_06_getppid_exact(void **state)
{
	const Ptop__V1__SyscallStat *s;
	Ptop__V1__Event *ev;
	uint64_t sum = 0;
	size_t k;
	int i;

	(void)state;
	if (!bpf_running())
		skip();
	assert_int_equal(col.ops->poll(&col, rec_now_ns(), POLL_FIRST), 0);
	for (i = 0; i < 1000; i++)
		syscall(SYS_getppid);
	assert_int_equal(col.ops->poll(&col, rec_now_ns(), 0), 0);
	assert_int_equal(rec_double.n_events, 2);
	s = find_stat(1, SYS_getppid, &ev);
	assert_non_null(s);
	assert_string_equal(s->name, "getppid");
	assert_int_equal(s->count, 1000);
	assert_int_equal(s->completed, 1000);
	assert_int_equal(s->errors, 0);
	assert_int_equal(s->unmatched, 0);
	assert_true(s->total_ns > 0);
	assert_true(s->n_latency_log2_hist > 0);
	assert_true(s->latency_log2_hist[s->n_latency_log2_hist - 1] > 0);
	for (k = 0; k < s->n_latency_log2_hist; k++)
		sum += s->latency_log2_hist[k];
	assert_int_equal(sum, 1000);
	assert_int_equal(ev->interval_ns > 0, 1);
	rec_double_free_event(ev);
	/* a third poll with no getppid in between leaves it out */
	assert_int_equal(col.ops->poll(&col, rec_now_ns(), 0), 0);
	assert_null(find_stat(2, SYS_getppid, &ev));
	rec_double_free_event(ev);
	assert_int_equal(rec_double_drops("map_full"), 0);
	assert_int_equal(rec_double_drops("nr_out_of_range"), 0);
}

static void test_07_errors_and_range(void **state)
{
	const Ptop__V1__SyscallStat *s;
	Ptop__V1__Event *ev;
	int i;

	(void)state;
	if (!bpf_running())
		skip();
	assert_int_equal(col.ops->poll(&col, rec_now_ns(), POLL_FIRST), 0);
	for (i = 0; i < 10; i++)
		assert_int_equal(syscall(SYS_close, -1), -1);
	assert_int_equal(syscall(5000), -1);	/* outside the table: ENOSYS */
	assert_int_equal(errno, ENOSYS);
	assert_int_equal(col.ops->poll(&col, rec_now_ns(), 0), 0);
	s = find_stat(1, SYS_close, &ev);
	assert_non_null(s);
	assert_int_equal(s->count, 10);
	assert_int_equal(s->completed, 10);
	assert_int_equal(s->errors, 10);
	rec_double_free_event(ev);
	assert_int_equal(rec_double_drops("nr_out_of_range"), 1);
}

static int pipe_fds[2];

static void *blocked_reader(void *arg)
{
	char c;

	(void)arg;
	return (void *)(intptr_t)read(pipe_fds[0], &c, 1);
}

/* 'S' once the thread TID sleeps (in its read). */
static char thread_state(pid_t tid)
{
	char path[64], buf[512], *p;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", tid);
	f = fopen(path, "r");
	if (!f)
		return '?';
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	p = strrchr(buf, ')');
	return p && p[1] == ' ' ? p[2] : '?';
}

static pid_t reader_tid;

static void *blocked_reader_tid(void *arg)
{
	reader_tid = syscall(SYS_gettid);
	return blocked_reader(arg);
}

static void test_08_unmatched(void **state)
{
	const Ptop__V1__SyscallStat *s;
	Ptop__V1__Event *ev;
	pthread_t th;
	void *ret;

	(void)state;
	if (!bpf_running())
		skip();
	/* restart with a thread already inside read(): its exit has no entry stamp */
	col.ops->stop(&col);
	rec_double_reset();
	assert_int_equal(pipe(pipe_fds), 0);
	reader_tid = 0;
	assert_int_equal(pthread_create(&th, NULL, blocked_reader_tid, NULL), 0);
	while (__atomic_load_n(&reader_tid, __ATOMIC_SEQ_CST) == 0 || thread_state(reader_tid) != 'S')
		sched_yield();
	assert_int_equal(col.ops->start(&col), 0);
	assert_int_equal(col.ops->poll(&col, rec_now_ns(), POLL_FIRST), 0);
	assert_int_equal(write(pipe_fds[1], "x", 1), 1);
	assert_int_equal(pthread_join(th, &ret), 0);
	assert_int_equal((intptr_t)ret, 1);
	assert_int_equal(col.ops->poll(&col, rec_now_ns(), 0), 0);
	s = find_stat(1, SYS_read, &ev);
	assert_non_null(s);
	assert_int_equal(s->unmatched, 1);
	assert_int_equal(s->count, 0);
	assert_int_equal(s->completed, 0);
	assert_int_equal(s->total_ns, 0);
	assert_int_equal(s->n_latency_log2_hist, 0);
	rec_double_free_event(ev);
	close(pipe_fds[0]);
	close(pipe_fds[1]);
}

/* Calls that leave the CPU mid-syscall keep their latency: the stamp moves from
 * the CPU slot into task storage at the switch-out and sys_exit finds it there. */
static void test_10_blocked_latency(void **state)
{
	const Ptop__V1__SyscallStat *s;
	struct timespec ms = { 0, 1000000 };
	Ptop__V1__Event *ev;
	pthread_t th;
	size_t k;
	void *ret;
	int i;

	(void)state;
	if (!bpf_running())
		skip();
	assert_int_equal(pipe(pipe_fds), 0);
	assert_int_equal(col.ops->poll(&col, rec_now_ns(), POLL_FIRST), 0);
	/* a thread blocks in read() after attach; released once it sleeps there */
	reader_tid = 0;
	assert_int_equal(pthread_create(&th, NULL, blocked_reader_tid, NULL), 0);
	while (__atomic_load_n(&reader_tid, __ATOMIC_SEQ_CST) == 0 || thread_state(reader_tid) != 'S')
		sched_yield();
	assert_int_equal(write(pipe_fds[1], "x", 1), 1);
	assert_int_equal(pthread_join(th, &ret), 0);
	assert_int_equal((intptr_t)ret, 1);
	/* five sleeps of at least 1 ms each */
	for (i = 0; i < 5; i++)
		assert_int_equal(syscall(SYS_nanosleep, &ms, NULL), 0);
	assert_int_equal(col.ops->poll(&col, rec_now_ns(), 0), 0);

	/* the blocked read, and the reads of /proc by thread_state(): all matched */
	s = find_stat(1, SYS_read, &ev);
	assert_non_null(s);
	assert_true(s->count >= 1);
	assert_int_equal(s->completed, s->count);
	assert_int_equal(s->unmatched, 0);
	rec_double_free_event(ev);

	s = find_stat(1, SYS_nanosleep, &ev);
	assert_non_null(s);
	assert_int_equal(s->count, 5);
	assert_int_equal(s->completed, 5);
	assert_true(s->total_ns >= 5 * 1000000ULL);
	/* every latency is >= 1 ms, so buckets below 2^19 ns (524 us) are empty */
	for (k = 0; k < s->n_latency_log2_hist && k < 19; k++)
		assert_int_equal(s->latency_log2_hist[k], 0);
	rec_double_free_event(ev);
	assert_int_equal(rec_double_drops("map_full"), 0);
	close(pipe_fds[0]);
	close(pipe_fds[1]);
}

#if defined(__x86_64__)
/* A 32-bit syscall from this 64-bit process: int 0x80 takes the i386 number. */
static long int80(long nr)
{
	long ret;

	__asm__ volatile("int $0x80" : "=a"(ret) : "a"(nr) : "memory", "r8", "r9", "r10", "r11");
	return ret;
}

/* Runs FN in a child and returns its wait status (-1 if fork or waitpid failed).
 * The child takes back the default action of every fault signal first: cmocka's
 * handlers, inherited from this process, would catch the fault, longjmp into a copy
 * of the test runner and report this case failed from the child (issue 19: a kernel
 * without IA32 emulation faults on int 0x80). */
static int probe_in_child(int (*fn)(void))
{
	static const int faults[] = { SIGSEGV, SIGILL, SIGBUS, SIGFPE, SIGSYS };
	int status;
	size_t k;
	pid_t pid = fork();

	if (pid == 0) {
		for (k = 0; k < sizeof(faults) / sizeof(faults[0]); k++)
			signal(faults[k], SIG_DFL);
		_exit(fn());
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	return status;
}

static int getpid_by_int80(void)
{
	return int80(20) == getpid() ? 0 : 1; /* i386 20: getpid */
}

/* Whether int 0x80 works here (IA32 emulation): tried in a child, which a fault kills. */
static bool have_int80(void)
{
	int status = probe_in_child(getpid_by_int80);

	return status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/* What int 0x80 does without IA32 emulation: a general protection fault (SIGSEGV).
 * Vector 0x81 has no gate a user may call on any x86_64 kernel. */
static int fault_like_no_ia32(void)
{
	__asm__ volatile("int $0x81" ::: "memory");
	return 0;
}
#endif

/* 32-bit syscalls are numbered by the i386 table (20 is getpid there, writev on
 * x86_64): counted as compat_syscall drops, never under the 64-bit name. */
static void test_12_compat_syscalls(void **state)
{
#if defined(__x86_64__)
	const Ptop__V1__SyscallStat *s;
	Ptop__V1__Event *ev;
	uint64_t before;
	int i;

	(void)state;
	if (!bpf_running())
		skip();
	if (!have_int80()) {
		printf("SKIP: int 0x80 does not work here (no IA32 emulation)\n");
		skip();
	}
	assert_int_equal(col.ops->poll(&col, rec_now_ns(), POLL_FIRST), 0);
	before = rec_double_drops("compat_syscall");
	for (i = 0; i < 100; i++)
		assert_int_equal(int80(20), getpid());
	assert_int_equal(col.ops->poll(&col, rec_now_ns(), 0), 0);
	assert_int_equal(rec_double_drops("compat_syscall") - before, 100);
	s = find_stat(1, 20, &ev); /* x86_64 20: writev, never called here */
	assert_null(s);
	rec_double_free_event(ev);
#else
	(void)state;
	skip();
#endif
}

/* The probe's child dies of the fault itself, as on a kernel without IA32 emulation,
 * rather than running on in cmocka's handler (which printed a failure of this case). */
static void test_13_int80_probe_fault(void **state)
{
#if defined(__x86_64__)
	int status;

	(void)state;
	status = probe_in_child(fault_like_no_ia32);
	assert_int_not_equal(status, -1);
	assert_true(WIFSIGNALED(status));
	assert_int_equal(WTERMSIG(status), SIGSEGV);
#else
	(void)state;
	skip();
#endif
}

static void test_09_check_no_ebpf(void **state)
{
	struct rec_ctx c2 = { .no_ebpf = true, .caps_only = true };
	struct collector col2 = { .ops = &syscalls_collector, .ctx = &c2 };

	(void)state;
	assert_int_equal(col2.ops->check(&col2), PTOP__V1__PROBE_STATE__PROBE_STATE_UNSUPPORTED);
	assert_string_equal(col2.reason, "--no-ebpf: syscalls are counted only by eBPF tracepoints");
	assert_null(col2.priv);
}

/* libbpf's messages land in the reason of a failed load, not on stderr. */
static void test_11_libbpf_log(void **state)
{
	struct bpf_object *obj;
	char reason[256];

	(void)state;
	bpf_util__open_log(false);
	assert_string_equal(bpf_util__last_error(), "");
	obj = bpf_object__open_file("/nonexistent/ptop-test.bpf.o", NULL);
	assert_null(obj);
	assert_non_null(strstr(bpf_util__last_error(), "/nonexistent/ptop-test.bpf.o"));
	bpf_util__format_error(reason, sizeof(reason), "open test BPF", -ENOENT);
	assert_non_null(strstr(reason, "open test BPF: No such file or directory (libbpf: "));
	/* a new attempt starts with no message */
	bpf_util__open_log(false);
	bpf_util__format_error(reason, sizeof(reason), "load", -EPERM);
	assert_string_equal(reason, "load: Operation not permitted");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_01_names),
		cmocka_unit_test(test_02_hist_len),
		cmocka_unit_test(test_03_delta),
		cmocka_unit_test(test_04_sum_cpus),
		cmocka_unit_test(test_05_interval),
		cmocka_unit_test_setup_teardown(test_06_getppid_exact, bpf_setup, bpf_teardown),
		cmocka_unit_test_setup_teardown(test_07_errors_and_range, bpf_setup, bpf_teardown),
		cmocka_unit_test_setup_teardown(test_08_unmatched, bpf_setup, bpf_teardown),
		cmocka_unit_test(test_09_check_no_ebpf),
		cmocka_unit_test_setup_teardown(test_10_blocked_latency, bpf_setup, bpf_teardown),
		cmocka_unit_test(test_11_libbpf_log),
		cmocka_unit_test_setup_teardown(test_12_compat_syscalls, bpf_setup, bpf_teardown),
		cmocka_unit_test(test_13_int80_probe_fault),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
