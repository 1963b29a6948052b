/* workload_cpu.c — a CPU-bound workload for the CPU profile overhead bench: N units of
 * work, each a call 24 frames deep (so each sample walks a realistic stack) ending in
 * 4000 xorshift steps. Prints its own cost per unit: CPU time (getrusage, user+system)
 * and wall time, in ns.
 *
 * Usage: workload_cpu [-n UNITS]   (default 300000, ~2 s)
 * Output: "cpu_ns_per_unit X\nwall_ns_per_unit Y\n"
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static volatile uint64_t sink;

__attribute__((noinline)) static uint64_t leaf(uint64_t x)
{
	int i;

	for (i = 0; i < 4000; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		__asm__ volatile("" : "+r"(x));
	}
	return x;
}

__attribute__((noinline)) static uint64_t descend(uint64_t x, int depth)
{
	uint64_t r;

	if (!depth)
		return leaf(x);
	r = descend(x + 1, depth - 1);
	__asm__ volatile("" : "+r"(r));	/* not a tail call: the frame stays */
	return r;
}

static uint64_t ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static uint64_t cpu_ns(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ((uint64_t)ru.ru_utime.tv_sec + (uint64_t)ru.ru_stime.tv_sec) * 1000000000ULL +
	       ((uint64_t)ru.ru_utime.tv_usec + (uint64_t)ru.ru_stime.tv_usec) * 1000ULL;
}

int main(int argc, char **argv)
{
	long units = 300000, i;
	uint64_t c0, w0, x = 88172645463325252ULL;
	int opt;

	while ((opt = getopt(argc, argv, "n:")) != -1) {
		if (opt != 'n' || (units = atol(optarg)) <= 0) {
			fprintf(stderr, "usage: workload_cpu [-n UNITS]\n");
			return 2;
		}
	}
	c0 = cpu_ns();
	w0 = ns(CLOCK_MONOTONIC);
	for (i = 0; i < units; i++)
		x = descend(x, 24);
	sink = x;
	printf("cpu_ns_per_unit %.1f\nwall_ns_per_unit %.1f\n", (double)(cpu_ns() - c0) / units,
	       (double)(ns(CLOCK_MONOTONIC) - w0) / units);
	return 0;
}
