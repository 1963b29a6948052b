/* test_lifecycle_proc.c — the lifecycle collector's /proc lane (record_proc.c) on real
 * processes, the test deciding when each poll happens (no timing): a child there at the
 * start is known, not a fork; a new child is a fork with its parent; a child that execs
 * is an exec with /proc/PID/exe and /proc/PID/cmdline's argv; a child that exits has its
 * status unknown (no status, never a 0), while the launched command (COMMAND mode, this
 * process its parent) has its exact code; every event is at_poll, at the poll's time.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "collectors/lifecycle/record_proc.h"
#include "proto/capture.h"
#include "tests/rec_double.h"

/* A child that waits for a byte on a pipe, then execs ARGV (NULL: exits with CODE). */
struct child {
	pid_t pid;
	int go;
};

static void spawn(struct child *c, char *const argv[], int code)
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
		if (argv)
			execv(argv[0], argv);
		_exit(code);
	}
	close(p[0]);
	c->go = p[1];
}

static void go(struct child *c)
{
	assert_int_equal(write(c->go, "x", 1), 1);
	close(c->go);
}

/* Wait (bounded, 10 s) until /proc/PID/exe is PATH and its command line is there: the
 * exec is done (an exec sets the executable before the new arguments). */
static void wait_exe(pid_t pid, const char *path)
{
	char link[64], exe[PATH_MAX], cmdline[64], b[8];
	ssize_t n;
	FILE *f;

	snprintf(link, sizeof(link), "/proc/%d/exe", (int)pid);
	snprintf(cmdline, sizeof(cmdline), "/proc/%d/cmdline", (int)pid);
	for (int i = 0; i < 1000; i++) {
		n = readlink(link, exe, sizeof(exe) - 1);
		if (n > 0) {
			exe[n] = '\0';
			f = fopen(cmdline, "r");
			n = f ? (ssize_t)fread(b, 1, sizeof(b), f) : 0;
			if (f)
				fclose(f);
			if (!strcmp(exe, path) && n > 0)
				return;
		}
		usleep(10000);
	}
	fail_msg("pid %d did not exec %s", (int)pid, path);
}

/* Wait (bounded, 10 s) until PID is a zombie (exited, not reaped). */
static void wait_zombie(pid_t pid)
{
	siginfo_t si;

	memset(&si, 0, sizeof(si));
	for (int i = 0; i < 1000; i++) {
		if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 &&
		    si.si_pid == pid)
			return;
		usleep(10000);
	}
	fail_msg("pid %d did not exit", (int)pid);
}

static Ptop__V1__LifecycleEvent *lc_event(int i, uint64_t *t)
{
	Ptop__V1__Event *ev = rec_double_event(i, PTOP__V1__EVENT__PAYLOAD_COLLECTOR_PAYLOAD);
	Ptop__V1__LifecycleEvent *le = (Ptop__V1__LifecycleEvent *)capture_payload__unpack(
		ev, "lifecycle", &ptop__v1__lifecycle_event__descriptor);

	assert_non_null(le);
	*t = ev->time_ns;
	rec_double_free_event(ev);
	return le;
}

static void free_le(Ptop__V1__LifecycleEvent *le)
{
	protobuf_c_message_free_unpacked(&le->base, NULL);
}

static void test_proc_lane(void **state)
{
	char *true_argv[] = { "/bin/sleep", "30", NULL };
	struct rec_ctx ctx = { 0 };
	struct collector c = { 0 };
	struct lc_proc_lane *pl;
	struct child old, fresh, target;
	Ptop__V1__LifecycleEvent *le;
	char sleep_path[PATH_MAX];
	uint64_t t;

	(void)state;
	assert_non_null(realpath("/bin/sleep", sleep_path));
	/* this process plays the launched command's parent and the subtree's root is a
	 * child of it: the "target" below, whose own child OLD is there at the start */
	spawn(&old, NULL, 5);
	c.ctx = &ctx;
	ctx.pid = getpid();
	ctx.mode = PTOP__V1__TARGET_MODE__TARGET_MODE_PID;
	rec_double_reset();
	assert_int_equal(lc_proc__start(&c, &pl), 0);
	assert_int_equal(lc_proc__poll(&c, pl, 1000), 0);
	assert_int_equal(rec_double.n_events, 0); /* OLD was there: no fork */

	/* a new child that execs sleep: a fork, then (it runs another program than its
	 * parent) an exec, both at the poll */
	spawn(&fresh, true_argv, 0);
	go(&fresh);
	wait_exe(fresh.pid, sleep_path);
	assert_int_equal(lc_proc__poll(&c, pl, 2000), 0);
	assert_int_equal(rec_double.n_events, 2);
	le = lc_event(0, &t);
	assert_string_equal(le->kind, "fork");
	assert_int_equal(le->pid, fresh.pid);
	assert_int_equal(le->ppid, getpid());
	assert_true(le->at_poll);
	assert_int_equal(t, 2000);
	free_le(le);
	le = lc_event(1, &t);
	assert_string_equal(le->kind, "exec");
	assert_int_equal(le->pid, fresh.pid);
	assert_string_equal(le->filename, sleep_path);
	assert_int_equal(le->n_argv, 2);
	assert_string_equal(le->argv[0], "/bin/sleep");
	assert_string_equal(le->argv[1], "30");
	assert_int_equal(le->argc, 2);
	assert_true(le->at_poll);
	free_le(le);

	/* OLD exits 5: it is a zombie of this process, not the launched command (PID
	 * mode): its status is unknown, no status at all */
	go(&old);
	wait_zombie(old.pid);
	assert_int_equal(lc_proc__poll(&c, pl, 3000), 0);
	assert_int_equal(rec_double.n_events, 3);
	le = lc_event(2, &t);
	assert_string_equal(le->kind, "exit");
	assert_int_equal(le->pid, old.pid);
	assert_false(le->has_status);
	assert_int_equal(le->exit_code, 0); /* unset: has_status says it is not known */
	assert_true(le->at_poll);
	assert_int_equal(t, 3000);
	free_le(le);
	waitpid(old.pid, NULL, 0);
	kill(fresh.pid, SIGKILL);
	waitpid(fresh.pid, NULL, 0);
	lc_proc__free(pl);

	/* the launched command (COMMAND mode, this process its parent): its code, exact */
	spawn(&target, NULL, 7);
	ctx.pid = target.pid;
	ctx.mode = PTOP__V1__TARGET_MODE__TARGET_MODE_COMMAND;
	rec_double_reset();
	assert_int_equal(lc_proc__start(&c, &pl), 0);
	go(&target);
	wait_zombie(target.pid);
	assert_int_equal(lc_proc__poll(&c, pl, 4000), 0);
	assert_int_equal(rec_double.n_events, 1);
	le = lc_event(0, &t);
	assert_string_equal(le->kind, "exit");
	assert_int_equal(le->pid, target.pid);
	assert_true(le->has_status);
	assert_int_equal(le->exit_code, 7);
	assert_int_equal(le->signal, 0);
	free_le(le);
	waitpid(target.pid, NULL, 0);
	lc_proc__free(pl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_proc_lane),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
