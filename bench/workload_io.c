/* workload_io — a target for bench/overhead_io.sh: read(2) and write(2) of 64 bytes on a
 * file (alternately: pwrite at offset 0, then pread of it), at RATE syscalls per second for
 * SECONDS, in batches every millisecond; the rest of the time it sleeps. It measures its own
 * CPU time (user + system, getrusage), so a tracer's cost shows as CPU per syscall.
 *
 * usage: workload_io -r RATE -d SECONDS -f FILE [-w]
 *   -w   print "pid N" and wait for SIGUSR1 before starting (a tracer attaches first)
 * Prints: "calls N cpu_ns T ns_per_call X"
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "workload.h"

static void usage(void)
{
	fprintf(stderr, "usage: workload_io -r RATE -d SECONDS -f FILE [-w]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	static char buf[64];
	const char *file = NULL;
	double seconds = 0, rate = 0;
	uint64_t n = 0, c0, c1, t0, due = 0;
	int opt, fd, wait = 0;

	while ((opt = getopt(argc, argv, "r:d:f:w")) != -1) {
		switch (opt) {
		case 'f':
			file = optarg;
			break;
		default:
			if (!workload_opt(opt, optarg, &rate, &seconds, &wait))
				usage();
		}
	}
	if (!(rate > 0) || !(seconds > 0) || !file)
		usage();
	fd = open(file, O_RDWR | O_CREAT, 0600);
	if (fd < 0) {
		perror(file);
		return 1;
	}
	if (wait && wait_for_start())
		return 1;
	c0 = cpu_ns();
	t0 = mono_ns();
	while (workload_due(t0, rate, seconds, &due)) {
		for (; n < due; n++) {
			if (n & 1) {
				if (pread(fd, buf, sizeof(buf), 0) < 0)
					return 1;
			} else if (pwrite(fd, buf, sizeof(buf), 0) != (ssize_t)sizeof(buf)) {
				return 1;
			}
		}
		workload_nap();
	}
	c1 = cpu_ns();
	printf("calls %llu cpu_ns %llu ns_per_call %.1f\n", (unsigned long long)n,
	       (unsigned long long)(c1 - c0), (double)(c1 - c0) / (double)n);
	return 0;
}
