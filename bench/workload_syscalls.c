/* workload_syscalls.c — a target for the syscall overhead bench: a loop of cheap
 * system calls (raw getppid(2), no libc cache) whose own CPU time per call is what
 * a tracer costs it.
 *
 * usage: workload_syscalls [-n CALLS | -d SECONDS] [-w]
 *   -n CALLS    make exactly CALLS calls (default 2000000)
 *   -d SECONDS  make calls for SECONDS of wall time instead
 *   -w          print "pid N" and wait for SIGUSR1 before starting, so a tracer
 *               can attach first
 * Prints one line: "calls N cpu_ns T ns_per_call X" where T is user+system CPU
 * time of the loop alone (getrusage before and after), X = T / N.
 */
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

static void usage(void)
{
	fprintf(stderr, "usage: workload_syscalls [-n CALLS | -d SECONDS] [-w]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	unsigned long long calls = 2000000, n = 0;
	double seconds = 0;
	uint64_t c0, c1, end;
	int wait = 0, opt;

	while ((opt = getopt(argc, argv, "n:d:w")) != -1) {
		switch (opt) {
		case 'n':
			calls = strtoull(optarg, NULL, 10);
			if (!calls)
				usage();
			break;
		case 'd':
			seconds = strtod(optarg, NULL);
			if (!(seconds > 0))
				usage();
			break;
		case 'w':
			wait = 1;
			break;
		default:
			usage();
		}
	}
	if (wait && wait_for_start())
		return 1;
	c0 = cpu_ns();
	if (seconds > 0) {
		end = mono_ns() + (uint64_t)(seconds * 1e9);
		do {
			for (int i = 0; i < 1000; i++)
				syscall(SYS_getppid);
			n += 1000;
		} while (mono_ns() < end);
	} else {
		for (n = 0; n < calls; n++)
			syscall(SYS_getppid);
	}
	c1 = cpu_ns();
	printf("calls %llu cpu_ns %llu ns_per_call %.1f\n", n, (unsigned long long)(c1 - c0),
	       (double)(c1 - c0) / (double)n);
	return 0;
}
