/* workload_fds — a target for bench/overhead_fd_stacks.sh: openat(2) of /dev/null and
 * close(2) of the fd, at RATE pairs per second for SECONDS, in batches every millisecond
 * (the rest of the time it sleeps), from a worker thread DEPTH calls deep (a server's
 * handler: its stack is a thread's, so a stack copy reads its full 16 KiB). It measures
 * its own CPU time (user + system, getrusage), so a tracer's cost shows as CPU per pair.
 * Built twice: with frame pointers (workload_fds) and, as distributions build, without
 * (workload_fds_nofp).
 *
 * usage: workload_fds -r RATE -d SECONDS [-D DEPTH] [-w]
 *   -D   calls between the thread's start and the loop (default 12)
 *   -w   print "pid N" and wait for SIGUSR1 before starting (a tracer attaches first)
 * Prints: "pairs N cpu_ns T ns_per_pair X"
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "workload.h"

static double seconds, rate;
static uint64_t pairs;
static volatile unsigned long sink;

static void usage(void)
{
	fprintf(stderr, "usage: workload_fds -r RATE -d SECONDS [-D DEPTH] [-w]\n");
	exit(2);
}

/* The loop: open and close at RATE pairs per second until SECONDS have passed. */
__attribute__((noipa)) static int loop(void)
{
	uint64_t t0 = mono_ns(), due;

	while (workload_due(t0, rate, seconds, &due)) {
		for (; pairs < due; pairs++) {
			int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);

			if (fd < 0 || close(fd))
				return 1;
		}
		workload_nap();
	}
	return 0;
}

/* K more calls deep, each with a frame of its own, then the loop. */
__attribute__((noipa)) static int level(int k)
{
	volatile char pad[64];
	int r;

	pad[0] = (char)k;
	r = k > 0 ? level(k - 1) : loop();
	sink += (unsigned long)pad[0];
	return r;
}

static void *worker(void *arg)
{
	return (void *)(intptr_t)level((int)(intptr_t)arg);
}

int main(int argc, char **argv)
{
	uint64_t c0, c1;
	int opt, wait = 0, depth = 12;
	pthread_t th;
	void *ret;

	while ((opt = getopt(argc, argv, "r:d:D:w")) != -1) {
		switch (opt) {
		case 'D':
			depth = atoi(optarg);
			break;
		default:
			if (!workload_opt(opt, optarg, &rate, &seconds, &wait))
				usage();
		}
	}
	if (!(rate > 0) || !(seconds > 0) || depth < 0 || depth > 1000)
		usage();
	if (wait && wait_for_start())
		return 1;
	c0 = cpu_ns();
	if (pthread_create(&th, NULL, worker, (void *)(intptr_t)depth) || pthread_join(th, &ret))
		return 1;
	c1 = cpu_ns();
	if (ret) {
		perror("workload_fds: open or close");
		return 1;
	}
	printf("pairs %llu cpu_ns %llu ns_per_pair %.1f\n", (unsigned long long)pairs,
	       (unsigned long long)(c1 - c0), (double)(c1 - c0) / (double)pairs);
	return 0;
}
