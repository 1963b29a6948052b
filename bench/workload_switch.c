/* workload_switch.c — a context-switch-heavy target for bench/overhead_threads.sh and
 * bench/overhead_issue23.sh: two threads pinned to one CPU pass one byte back and forth
 * through two pipes, so every message is one context switch from the writer (which then
 * blocks reading) to the reader. With -m futex they pass the turn through one futex word
 * instead: each message is a FUTEX_WAKE of the other thread and a FUTEX_WAIT that sleeps
 * until the turn comes back (a futex-heavy target: every switch is a futex wait).
 *
 * usage: workload_switch [-m pipe|futex] [-r SWITCHES_PER_S] [-n SWITCHES] [-c CPU] [-w]
 *   -m MODE   pipe (the default) or futex
 *   -r RATE   pace to RATE switches per second (0, the default: as fast as it can); the
 *             pinger sleeps between batches of 64 round trips when ahead
 *   -n N      switches (default 200000; rounded up to an even number)
 *   -c CPU    the CPU both threads are pinned to (default: the last one)
 *   -w        print "pid N" and wait for SIGUSR1 before starting
 * Prints: "switches N cpu_ns T ns_per_switch X rate R" (T: the process's user+system CPU
 * time over the loop, from getrusage; R: switches per second reached).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "workload.h"

static int ping[2], pong[2];
static uint64_t rounds;
static int use_futex;
static int turn; /* -m futex: whose turn it is, 0 the pinger's, 1 the ponger's */

static void die(const char *what)
{
	perror(what);
	exit(1);
}

static long futex(int *word, int op, int val)
{
	return syscall(SYS_futex, word, op, val, NULL, NULL, 0);
}

/* -m futex: give the turn to the other thread (ME's is ME, the other's !ME), wake it,
 * and sleep until the turn is ME's again. */
static void futex_pass(int me)
{
	__atomic_store_n(&turn, !me, __ATOMIC_SEQ_CST);
	if (futex(&turn, FUTEX_WAKE_PRIVATE, 1) < 0)
		die("futex wake");
	while (__atomic_load_n(&turn, __ATOMIC_SEQ_CST) != me)
		if (futex(&turn, FUTEX_WAIT_PRIVATE, !me) < 0 && errno != EAGAIN && errno != EINTR)
			die("futex wait");
}

static void *ponger(void *arg)
{
	char b;

	(void)arg;
	if (use_futex) {
		while (__atomic_load_n(&turn, __ATOMIC_SEQ_CST) != 1)
			if (futex(&turn, FUTEX_WAIT_PRIVATE, 0) < 0 && errno != EAGAIN &&
			    errno != EINTR)
				die("futex wait");
		for (uint64_t i = 0; i + 1 < rounds; i++)
			futex_pass(1);
		__atomic_store_n(&turn, 0, __ATOMIC_SEQ_CST); /* the last: no wait after */
		futex(&turn, FUTEX_WAKE_PRIVATE, 1);
		return NULL;
	}
	for (uint64_t i = 0; i < rounds; i++)
		if (read(ping[0], &b, 1) != 1 || write(pong[1], &b, 1) != 1)
			die("ponger read/write");
	return NULL;
}

int main(int argc, char **argv)
{
	uint64_t n = 200000, c0, c1, t0, t1;
	double rate = 0;
	int opt, wait = 0, cpu = -1;
	pthread_t t;
	cpu_set_t cs;
	char b = 'x';

	while ((opt = getopt(argc, argv, "m:r:n:c:w")) != -1) {
		switch (opt) {
		case 'm':
			if (strcmp(optarg, "pipe") && strcmp(optarg, "futex")) {
				fprintf(stderr, "workload_switch: -m %s: not pipe or futex\n", optarg);
				return 2;
			}
			use_futex = !strcmp(optarg, "futex");
			break;
		case 'r':
			rate = atof(optarg);
			break;
		case 'n':
			n = strtoull(optarg, NULL, 10);
			break;
		case 'c':
			cpu = atoi(optarg);
			break;
		case 'w':
			wait = 1;
			break;
		default:
			fprintf(stderr, "usage: workload_switch [-m pipe|futex] [-r SWITCHES_PER_S] "
					"[-n SWITCHES] [-c CPU] [-w]\n");
			return 2;
		}
	}
	rounds = (n + 1) / 2;
	if (cpu < 0)
		cpu = (int)sysconf(_SC_NPROCESSORS_ONLN) - 1;
	CPU_ZERO(&cs);
	CPU_SET(cpu, &cs);
	if (sched_setaffinity(0, sizeof(cs), &cs)) /* the threads inherit it */
		die("sched_setaffinity");
	if (pipe(ping) || pipe(pong))
		die("pipe");
	if (wait && wait_for_start())
		return 1;
	if (pthread_create(&t, NULL, ponger, NULL))
		die("pthread_create");
	c0 = cpu_ns();
	t0 = mono_ns();
	for (uint64_t i = 0; i < rounds; i++) {
		if (use_futex)
			futex_pass(0);
		else if (write(ping[1], &b, 1) != 1 || read(pong[0], &b, 1) != 1)
			die("pinger write/read");
		if (rate > 0 && (i & 63) == 63) {
			uint64_t due = t0 + (uint64_t)((double)(i + 1) * 2e9 / rate), now = mono_ns();

			if (due > now) {
				struct timespec ts = { (time_t)((due - now) / 1000000000ULL),
						       (long)((due - now) % 1000000000ULL) };

				nanosleep(&ts, NULL);
			}
		}
	}
	c1 = cpu_ns();
	t1 = mono_ns();
	pthread_join(t, NULL);
	printf("switches %llu cpu_ns %llu ns_per_switch %.1f rate %.0f\n",
	       (unsigned long long)(rounds * 2), (unsigned long long)(c1 - c0),
	       (double)(c1 - c0) / (double)(rounds * 2), (double)rounds * 2e9 / (double)(t1 - t0));
	return 0;
}
