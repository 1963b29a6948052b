/* test_exec_watch.c — seeing the target exec (record/exec_watch.c) on real child
 * processes: the /proc lane notices a new executable; the eBPF lane reports each exec
 * but the launch, holds the new program stopped until exec_watch__continue(), and lets
 * it go when freed; when the process holding the watch is killed, its guard lets a held
 * program go, and leaves a program that a user stopped alone. The waits below are
 * bounded waits for a state, not timings.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "record/bpf_util.h"
#include "record/exec_watch.h"
#include "tests/rec_double.h"

struct child {
	pid_t pid;
	int go;		/* write a byte to let it exec */
};

/* A child that waits for a byte on a pipe, then execs ARGV. */
static void spawn(struct child *c, char *const argv[])
{
	int p[2];
	char b;

	assert_int_equal(pipe(p), 0);
	c->pid = fork();
	assert_true(c->pid >= 0);
	if (c->pid == 0) {
		close(p[1]);
		if (read(p[0], &b, 1) != 1)
			_exit(126);
		execv(argv[0], argv);
		_exit(127);
	}
	close(p[0]);
	c->go = p[1];
}

static void release(struct child *c)
{
	assert_int_equal(write(c->go, "x", 1), 1);
	close(c->go);
}

static void reap(struct child *c)
{
	kill(c->pid, SIGKILL);
	kill(c->pid, SIGCONT);
	waitpid(c->pid, NULL, 0);
}

/* The state letter of PID in /proc/PID/stat ('T' when stopped); '?' if unreadable. */
static char proc_state(pid_t pid)
{
	char path[64], buf[512], *rp;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return '?';
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	rp = strrchr(buf, ')');
	return rp && rp[1] == ' ' ? rp[2] : '?';
}

static void nap_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* Wait (up to 10 s) for PID's state to be (IS) or not be (!IS) STATE. */
static bool wait_state(pid_t pid, char state, bool is)
{
	for (int i = 0; i < 1000; i++) {
		if ((proc_state(pid) == state) == is)
			return true;
		nap_ms(10);
	}
	return false;
}

/* Wait (up to 10 s) until PID runs PATH (/proc/PID/exe): its exec is done. */
static bool wait_exe(pid_t pid, const char *path)
{
	char link[64], exe[PATH_MAX];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/%d/exe", (int)pid);
	for (int i = 0; i < 1000; i++) {
		n = readlink(link, exe, sizeof(exe) - 1);
		if (n > 0 && (exe[n] = '\0', !strcmp(exe, path)))
			return true;
		nap_ms(10);
	}
	return false;
}

/* Call exec_watch__next until it reports an exec (up to 10 s). */
static int wait_exec(struct exec_watch *w, char *exe, size_t len, uint64_t *t)
{
	struct pollfd pfd = { .fd = exec_watch__fd(w), .events = POLLIN };
	int rc;

	for (int i = 0; i < 1000; i++) {
		rc = exec_watch__next(w, exe, len, t);
		if (rc)
			return rc;
		if (pfd.fd >= 0)
			poll(&pfd, 1, 10);
		else
			nap_ms(10);
	}
	return 0;
}

static char sleep_path[PATH_MAX];

static int setup(void **state)
{
	(void)state;
	if (!realpath("/bin/sleep", sleep_path))
		return -1;
	return 0;
}

/* Open a watch of PID; with EXEC_WATCH_BPF, on the feed of the collector that provides
 * one (collector_ops.exec_feed; here it runs for the watch alone, as when that collector
 * does not run). */
static int watch_open(pid_t pid, const char *exe, unsigned flags, struct exec_watch **w,
		      char *why, size_t wlen)
{
	static struct rec_ctx ctx;
	struct exec_feed feed;
	struct collector c;

	memset(&feed, 0, sizeof(feed));
	if (!(flags & EXEC_WATCH_BPF))
		return exec_watch__open(pid, exe, flags, NULL, w, why, wlen);
	for (size_t i = 0; collector_table[i]; i++) {
		if (!collector_table[i]->exec_feed)
			continue;
		memset(&c, 0, sizeof(c));
		c.ops = collector_table[i];
		c.ctx = &ctx;
		ctx.pid = pid;
		if (c.ops->exec_feed(&c, &feed))
			fail_msg("the exec feed of %s: %s", c.ops->name, feed.why);
		break;
	}
	if (!feed.obj)
		fail_msg("no collector provides an exec feed");
	return exec_watch__open(pid, exe, flags, &feed, w, why, wlen);
}

static bool can_trace(void)
{
	char why[200];

	return bpf_util__can_trace(why, sizeof(why)) == 0;
}

/* ---------------------------------------------------------------- /proc lane */

static void test_01_proc_lane(void **state)
{
	char *argv[] = { "/bin/sleep", "30", NULL };
	struct exec_watch *w;
	struct child c;
	char why[200], exe[PATH_MAX];
	uint64_t t = 0, t0 = rec_now_ns();

	(void)state;
	spawn(&c, argv);
	/* before the exec, the child runs this test's executable: the identity now */
	assert_int_equal(watch_open(c.pid, NULL, 0, &w, why, sizeof(why)), 0);
	assert_int_equal(exec_watch__fd(w), -1);
	assert_non_null(strstr(exec_watch__how(w), "/proc/PID/exe"));
	assert_int_equal(exec_watch__next(w, exe, sizeof(exe), &t), 0);
	release(&c);
	assert_int_equal(wait_exec(w, exe, sizeof(exe), &t), 1);
	assert_string_equal(exe, sleep_path);
	assert_true(t >= t0);
	assert_int_equal(exec_watch__count(w), 1);
	assert_int_equal(exec_watch__next(w, exe, sizeof(exe), &t), 0);	/* once */
	exec_watch__free(w);
	reap(&c);
}

/* The launch is the first exec: with EXEC_WATCH_LAUNCH it is not reported. In the /proc
 * lane, the identity given is the launched program's. */
static void test_02_proc_lane_launch(void **state)
{
	char *argv[] = { "/bin/sleep", "30", NULL };
	struct exec_watch *w;
	struct child c;
	char why[200], exe[PATH_MAX];
	uint64_t t;

	(void)state;
	spawn(&c, argv);
	assert_int_equal(watch_open(c.pid, sleep_path, EXEC_WATCH_LAUNCH, &w, why,
					  sizeof(why)), 0);
	release(&c);
	/* sleep is sleeping: exec'd (before that, the child is asleep in its read of the
	 * pipe, as the test binary: an exe the watch would take for an exec) */
	assert_true(wait_exe(c.pid, sleep_path));
	assert_true(wait_state(c.pid, 'S', true));
	assert_int_equal(exec_watch__next(w, exe, sizeof(exe), &t), 0);
	assert_int_equal(exec_watch__count(w), 0);
	exec_watch__free(w);
	reap(&c);
}

/* ---------------------------------------------------------------- eBPF lane */

static void test_03_bpf_hold(void **state)
{
	char *argv[] = { "/bin/sh", "-c", "exec /bin/sleep 30", NULL };
	struct exec_watch *w;
	struct child c;
	char why[200], exe[PATH_MAX];
	uint64_t t = 0, t0;

	(void)state;
	if (!can_trace())
		skip();
	spawn(&c, argv);
	assert_int_equal(watch_open(c.pid, "/bin/sh",
					  EXEC_WATCH_BPF | EXEC_WATCH_HOLD | EXEC_WATCH_LAUNCH, &w,
					  why, sizeof(why)),
			 0);
	if (exec_watch__fd(w) < 0)
		fail_msg("the eBPF lane did not load: %s", exec_watch__how(w));
	assert_non_null(strstr(exec_watch__how(w), "held"));
	t0 = rec_now_ns();
	release(&c);
	/* sh's own exec (the launch) is continued unreported; sh then execs sleep, which
	 * is reported and held */
	assert_int_equal(wait_exec(w, exe, sizeof(exe), &t), 1);
	assert_string_equal(exe, sleep_path);
	assert_true(t >= t0 && t <= rec_now_ns());
	assert_int_equal(exec_watch__count(w), 1);
	assert_true(wait_state(c.pid, 'T', true));	/* held: stopped */
	assert_true(exec_watch__held(w));
	nap_ms(50);
	assert_int_equal(proc_state(c.pid), 'T');	/* and stays so */
	exec_watch__continue(w);
	assert_true(wait_state(c.pid, 'T', false));
	assert_int_equal(exec_watch__next(w, exe, sizeof(exe), &t), 0);
	exec_watch__free(w);
	reap(&c);
}

/* Freed while it holds the program: the program goes on. */
static void test_04_free_continues(void **state)
{
	char *argv[] = { "/bin/sh", "-c", "exec /bin/sleep 30", NULL };
	struct exec_watch *w;
	struct child c;
	char why[200], exe[PATH_MAX];
	uint64_t t;

	(void)state;
	if (!can_trace())
		skip();
	spawn(&c, argv);
	assert_int_equal(watch_open(c.pid, "/bin/sh",
					  EXEC_WATCH_BPF | EXEC_WATCH_HOLD | EXEC_WATCH_LAUNCH, &w,
					  why, sizeof(why)),
			 0);
	release(&c);
	assert_int_equal(wait_exec(w, exe, sizeof(exe), &t), 1);
	assert_true(wait_state(c.pid, 'T', true));
	exec_watch__free(w);
	assert_true(wait_state(c.pid, 'T', false));
	reap(&c);
}

/* Without HOLD (--pid): reported, never stopped. */
static void test_05_bpf_no_hold(void **state)
{
	char *argv[] = { "/bin/sleep", "30", NULL };
	struct exec_watch *w;
	struct child c;
	char why[200], exe[PATH_MAX];
	uint64_t t;

	(void)state;
	if (!can_trace())
		skip();
	spawn(&c, argv);
	assert_int_equal(watch_open(c.pid, NULL, EXEC_WATCH_BPF, &w, why, sizeof(why)), 0);
	release(&c);
	assert_int_equal(wait_exec(w, exe, sizeof(exe), &t), 1);
	assert_string_equal(exe, sleep_path);
	assert_false(exec_watch__held(w));
	assert_true(wait_state(c.pid, 'S', true));
	exec_watch__free(w);
	reap(&c);
}

/* ------------------------------------------------------------------ the guard */

/* Fork a "recorder" that watches a child running sh -c 'exec sleep SECS' with HOLD,
 * lets it exec, and (with CONT) continues the held sleep; it writes the child's pid on
 * a pipe, then waits to be killed. This process is made a subreaper, so that the
 * child and the guard come back to it when the recorder dies. Returns the recorder's
 * pid and the child's in *TARGET. */
static pid_t fork_recorder(const char *secs, bool cont, pid_t *target)
{
	char cmd[64];
	char *argv[] = { "/bin/sh", "-c", cmd, NULL };
	int p[2];
	pid_t r;

	snprintf(cmd, sizeof(cmd), "exec /bin/sleep %s", secs);
	assert_int_equal(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
	assert_int_equal(pipe(p), 0);
	r = fork();
	assert_true(r >= 0);
	if (r == 0) {
		struct exec_watch *w;
		struct child c;
		char why[200], exe[PATH_MAX];
		uint64_t t;

		close(p[0]);
		spawn(&c, argv);
		if (watch_open(c.pid, "/bin/sh",
				     EXEC_WATCH_BPF | EXEC_WATCH_HOLD | EXEC_WATCH_LAUNCH, &w, why,
				     sizeof(why)) ||
		    exec_watch__fd(w) < 0)
			_exit(2);
		release(&c);
		if (wait_exec(w, exe, sizeof(exe), &t) != 1 || !wait_state(c.pid, 'T', true))
			_exit(3);
		if (cont) {
			exec_watch__continue(w);
			if (!wait_state(c.pid, 'T', false))
				_exit(4);
		}
		if (write(p[1], &c.pid, sizeof(c.pid)) != sizeof(c.pid))
			_exit(5);
		for (;;)
			pause();
	}
	close(p[1]);
	if (read(p[0], target, sizeof(*target)) != sizeof(*target)) {
		int st = 0;

		waitpid(r, &st, 0);
		fail_msg("the recorder failed: exit %d", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	}
	close(p[0]);
	return r;
}

/* How many children this process has (/proc/self/task/TID/children); the first in
 * *FIRST. */
static int children(pid_t *first)
{
	char path[64];
	long pid;
	int n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%d/children", (int)getpid());
	f = fopen(path, "r");
	assert_non_null(f);
	*first = 0;
	while (fscanf(f, "%ld", &pid) == 1)
		if (n++ == 0)
			*first = (pid_t)pid;
	fclose(f);
	return n;
}

/* Reap the children that end until only TARGET is left (-1: none), up to 10 s. */
static bool reap_all_but(pid_t target)
{
	pid_t first;
	int n;

	for (int i = 0; i < 1000; i++) {
		while (waitpid(-1, NULL, WNOHANG) > 0)
			;
		n = children(&first);
		if (target < 0 ? n == 0 : n == 1 && first == target)
			return true;
		nap_ms(10);
	}
	return false;
}

/* The recorder is SIGKILLed while it holds the program: its guard continues it. */
static void test_06_guard_releases(void **state)
{
	pid_t r, t;
	int st = -1;

	(void)state;
	if (!can_trace())
		skip();
	r = fork_recorder("0", false, &t);
	assert_int_equal(proc_state(t), 'T');
	kill(r, SIGKILL);
	assert_int_equal(waitpid(r, NULL, 0), r);
	/* the held sleep runs, and exits (it came back to this subreaper) */
	for (int i = 0; i < 1000 && waitpid(t, &st, WNOHANG) == 0; i++)
		nap_ms(10);
	if (!WIFEXITED(st)) {
		char s = proc_state(t);

		kill(t, SIGKILL);
		kill(t, SIGCONT);
		waitpid(t, NULL, 0);
		fail_msg("the held program did not go on after the recorder died (state %c)", s);
	}
	assert_int_equal(WEXITSTATUS(st), 0);
	assert_true(reap_all_but(-1));	/* the guard ended too */
	prctl(PR_SET_CHILD_SUBREAPER, 0);
}

/* The recorder continued the program, then a user stopped it, then the recorder was
 * killed: the guard leaves it stopped (ptop did not stop it). */
static void test_07_guard_spares_user_stop(void **state)
{
	pid_t r, t;
	char s;

	(void)state;
	if (!can_trace())
		skip();
	r = fork_recorder("30", true, &t);
	kill(t, SIGSTOP);
	assert_true(wait_state(t, 'T', true));
	kill(r, SIGKILL);
	assert_int_equal(waitpid(r, NULL, 0), r);
	assert_true(reap_all_but(t));	/* the guard has ended: it decided */
	s = proc_state(t);
	kill(t, SIGKILL);
	kill(t, SIGCONT);
	waitpid(t, NULL, 0);
	prctl(PR_SET_CHILD_SUBREAPER, 0);
	assert_int_equal(s, 'T');
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_01_proc_lane),
		cmocka_unit_test(test_02_proc_lane_launch),
		cmocka_unit_test(test_03_bpf_hold),
		cmocka_unit_test(test_04_free_continues),
		cmocka_unit_test(test_05_bpf_no_hold),
		cmocka_unit_test(test_06_guard_releases),
		cmocka_unit_test(test_07_guard_spares_user_stop),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
