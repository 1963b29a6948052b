/* workload_secmem — a target for bench/overhead_security.sh: a JIT's pattern, mprotect(2)
 * of one page to read+write then to read+execute, at RATE pairs per second for SECONDS, in
 * batches every millisecond (the rest of the time it sleeps); and, with -m, also an mmap
 * and munmap of an anonymous read+execute page per pair. It measures its own CPU time
 * (user + system, getrusage), so a tracer's cost shows as CPU per pair.
 *
 * usage: workload_secmem -r RATE -d SECONDS [-n] [-m] [-w]
 *   -n   no PROT_EXEC at all (read+write, then read): calls the tracer lets by
 *   -m   also mmap+munmap a read+execute anonymous page per pair
 *   -w   print "pid N" and wait for SIGUSR1 before starting (a tracer attaches first)
 * Prints: "pairs N cpu_ns T ns_per_pair X"
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "workload.h"

static double seconds, rate;
static uint64_t pairs;
static int no_exec, with_mmap;

static void usage(void)
{
	fprintf(stderr, "usage: workload_secmem -r RATE -d SECONDS [-n] [-m] [-w]\n");
	exit(2);
}

__attribute__((noipa)) static int loop(char *page)
{
	int second = no_exec ? PROT_READ : PROT_READ | PROT_EXEC;
	uint64_t t0 = mono_ns(), due;

	while (workload_due(t0, rate, seconds, &due)) {
		for (; pairs < due; pairs++) {
			if (mprotect(page, 4096, PROT_READ | PROT_WRITE) ||
			    mprotect(page, 4096, second))
				return 1;
			if (with_mmap) {
				void *p = mmap(NULL, 4096, second, MAP_PRIVATE | MAP_ANONYMOUS,
					       -1, 0);

				if (p == MAP_FAILED || munmap(p, 4096))
					return 1;
			}
		}
		workload_nap();
	}
	return 0;
}

int main(int argc, char **argv)
{
	int opt, wait = 0, r;
	uint64_t c0, c1;
	char *page;

	while ((opt = getopt(argc, argv, "r:d:nmw")) != -1) {
		switch (opt) {
		case 'n':
			no_exec = 1;
			break;
		case 'm':
			with_mmap = 1;
			break;
		default:
			if (!workload_opt(opt, optarg, &rate, &seconds, &wait))
				usage();
		}
	}
	if (!(rate > 0) || !(seconds > 0))
		usage();
	page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (page == MAP_FAILED)
		return 1;
	if (wait && wait_for_start())
		return 1;
	c0 = cpu_ns();
	r = loop(page);
	c1 = cpu_ns();
	if (r) {
		perror("workload_secmem: mprotect or mmap");
		return 1;
	}
	printf("pairs %llu cpu_ns %llu ns_per_pair %.1f\n", (unsigned long long)pairs,
	       (unsigned long long)(c1 - c0), (double)(c1 - c0) / (double)pairs);
	return 0;
}
