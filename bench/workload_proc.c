/* workload_proc.c — a target for the signals, lifecycle and locks overhead bench
 * (bench/overhead_proc.sh): forks, fork+execs or signals, paced to a rate; the CPU time
 * per operation of the process and its children is what a tracer costs it.
 *
 * usage: workload_proc [-k fork|exec|signal|futex|futexwait] [-r OPS_PER_S] [-n OPS] [-w]
 *   -k KIND  fork: fork(2) a child that _exits at once, and wait for it; exec: the same,
 *            the child exec'ing /bin/true; signal: raise(SIGUSR1), taken by a handler
 *            (one signal_generate and one signal_deliver each); futex: futex(2)
 *            FUTEX_WAKE on a word no one waits on (a futex call that wakes no one: what
 *            the locks collector counts); futexwait: futex(2) FUTEX_WAIT with a value the
 *            word does not hold (returns EAGAIN at once: a wait counted, its stack taken)
 *            (default fork)
 *   -r RATE  operations per second (default 0: as fast as it can)
 *   -n OPS   make exactly OPS operations (default 2000)
 *   -w       print "pid N" and wait for SIGUSR1 before starting
 * Prints: "ops N cpu_ns T ns_per_op X rate R" (T: user+system CPU time of the loop, its
 * own and its reaped children's, getrusage; R: the operations per second achieved).
 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <linux/futex.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t got;
static int word; /* -k futex: the futex word no one waits on */

static void on_usr1(int sig)
{
	(void)sig;
	got++;
}

static uint64_t tv_ns(struct timeval tv)
{
	return (uint64_t)tv.tv_sec * 1000000000ULL + (uint64_t)tv.tv_usec * 1000ULL;
}

static uint64_t cpu_ns(void)
{
	struct rusage s, c;

	getrusage(RUSAGE_SELF, &s);
	getrusage(RUSAGE_CHILDREN, &c);
	return tv_ns(s.ru_utime) + tv_ns(s.ru_stime) + tv_ns(c.ru_utime) + tv_ns(c.ru_stime);
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

int main(int argc, char **argv)
{
	const char *kind = "fork";
	unsigned long long n, ops = 2000;
	uint64_t c0, c1, t0, t1;
	double rate = 0;
	int opt, wait = 0, sig, k;
	struct sigaction sa;
	sigset_t set;

	while ((opt = getopt(argc, argv, "k:r:n:w")) != -1) {
		switch (opt) {
		case 'k': kind = optarg; break;
		case 'r': rate = atof(optarg); break;
		case 'n': ops = strtoull(optarg, NULL, 10); break;
		case 'w': wait = 1; break;
		default:
			fprintf(stderr, "usage: workload_proc [-k fork|exec|signal|futex|futexwait] [-r RATE] [-n OPS] [-w]\n");
			return 2;
		}
	}
	k = !strcmp(kind, "fork")     ? 0
	    : !strcmp(kind, "exec")   ? 1
	    : !strcmp(kind, "signal") ? 2
	    : !strcmp(kind, "futex")  ? 3
	    : !strcmp(kind, "futexwait") ? 4
				      : -1;
	if (k < 0 || !ops) {
		fprintf(stderr, "workload_proc: -k %s: not fork, exec, signal, futex or futexwait\n",
			kind);
		return 2;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	sigemptyset(&sa.sa_mask);
	if (wait) {
		sigemptyset(&set);
		sigaddset(&set, SIGUSR1);
		sigprocmask(SIG_BLOCK, &set, NULL);
		printf("pid %d\n", (int)getpid());
		fflush(stdout);
		if (sigwait(&set, &sig) != 0)
			return 1;
		sigprocmask(SIG_UNBLOCK, &set, NULL);
	}
	sigaction(SIGUSR1, &sa, NULL);
	c0 = cpu_ns();
	t0 = mono_ns();
	for (n = 0; n < ops; n++) {
		if (k == 2) {
			raise(SIGUSR1);
		} else if (k == 3) {
			if (syscall(SYS_futex, &word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0) < 0) {
				perror("futex");
				return 1;
			}
		} else if (k == 4) { /* the word is 0: a wait for 1 returns EAGAIN at once */
			if (syscall(SYS_futex, &word, FUTEX_WAIT_PRIVATE, 1, NULL, NULL, 0) == 0) {
				fprintf(stderr, "workload_proc: a futex wait did not fail\n");
				return 1;
			}
		} else {
			pid_t c = fork();
			int status;

			if (c < 0) {
				perror("fork");
				return 1;
			}
			if (c == 0) {
				if (k == 1)
					execl("/bin/true", "true", (char *)NULL);
				_exit(0);
			}
			if (waitpid(c, &status, 0) != c) {
				perror("waitpid");
				return 1;
			}
		}
		if (rate > 0 && (k < 2 || (n & 63) == 63)) { /* signals, futex: in batches of 64 */
			uint64_t due = t0 + (uint64_t)((double)(n + 1) * 1e9 / rate), now = mono_ns();

			if (due > now) {
				struct timespec ts = { (time_t)((due - now) / 1000000000ULL),
						       (long)((due - now) % 1000000000ULL) };

				nanosleep(&ts, NULL);
			}
		}
	}
	c1 = cpu_ns();
	t1 = mono_ns();
	if (k == 2 && (unsigned long long)got != ops) {
		fprintf(stderr, "workload_proc: %llu signals taken of %llu\n",
			(unsigned long long)got, ops);
		return 1;
	}
	printf("ops %llu cpu_ns %llu ns_per_op %.1f rate %.0f\n", n, (unsigned long long)(c1 - c0),
	       (double)(c1 - c0) / (double)n, (double)n * 1e9 / (double)(t1 - t0));
	return 0;
}
