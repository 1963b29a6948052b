/* workload_alloc.c — a target for the heap overhead bench: units of fixed CPU work (a
 * xorshift loop, about 1 µs here) with allocations spread between them at a set rate,
 * from four call sites (four noinline functions), sizes 16–4096 bytes, each block
 * freed soon after (a ring of 64 live pointers). It reports its own CPU time
 * (getrusage, user+system) per unit of work, so what a recorder adds per allocation
 * shows as a rise of that figure against the same rate run untraced.
 *
 * usage: workload_alloc [-r RATE] [-d SECONDS | -n UNITS] [-c CPU] [-w]
 *   -r RATE     allocations per million units of work (default 1000000: one per unit,
 *               about 1M allocations per second untraced); 0 allocates nothing (the
 *               noise floor); spread evenly, so the work between allocations is fixed
 *   -d SECONDS  run for SECONDS of wall time (default 2)
 *   -n UNITS    run exactly UNITS units instead
 *   -c CPU      pin itself to CPU (for tracers that start it, e.g. heaptrack, while
 *               their own processes run elsewhere)
 *   -w          print "pid N" and wait for SIGUSR1 before starting, so a tracer can
 *               attach first
 * Prints one line:
 *   "units U allocs A cpu_ns T cpu_ns_per_unit X allocs_per_cpu_s R wall_s W"
 * where T is the user+system CPU time of the loop alone (getrusage before and after),
 * X = T / U, and R = A / (T / 1e9), the achieved allocation rate per CPU second.
 */
#define _GNU_SOURCE /* sched_setaffinity */
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "workload.h"

/* xorshift steps in one unit of work: about 1 µs on the development VM */
#define WORK_STEPS 640
/* live pointers: each block is freed RING allocations after it was made */
#define RING 64

static void *ring[RING];
static unsigned int ring_pos;
static uint64_t size_state = 0x9e3779b97f4a7c15ULL;
static volatile uint64_t sink;

/* the next size, 16 to 4096 bytes, from a fixed sequence (every run the same) */
static size_t next_size(void)
{
	size_state ^= size_state << 13;
	size_state ^= size_state >> 7;
	size_state ^= size_state << 17;
	return 16 + (size_t)(size_state % 4081);
}

/* keep p live for the next RING allocations; free the block it replaces */
static void hold(void *p)
{
	if (!p) {
		fprintf(stderr, "workload_alloc: out of memory\n");
		exit(1);
	}
	*(volatile char *)p = 1;
	free(ring[ring_pos]);
	ring[ring_pos] = p;
	ring_pos = (ring_pos + 1) % RING;
}

/* the four call sites: a heap profiler should name each with a quarter of the count */
__attribute__((noinline)) static void site_a(size_t n)
{
	hold(malloc(n));
	__asm__ volatile("" ::: "memory"); /* not a tail call: the frame stays */
}

__attribute__((noinline)) static void site_b(size_t n)
{
	hold(malloc(n));
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) static void site_c(size_t n)
{
	hold(malloc(n));
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) static void site_d(size_t n)
{
	hold(malloc(n));
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) static void allocate(uint64_t i)
{
	size_t n = next_size();

	switch (i & 3) {
	case 0:
		site_a(n);
		break;
	case 1:
		site_b(n);
		break;
	case 2:
		site_c(n);
		break;
	default:
		site_d(n);
		break;
	}
	__asm__ volatile("" ::: "memory");
}

/* one unit of work: WORK_STEPS xorshift steps, the same CPU cost every time */
__attribute__((noinline)) static uint64_t work(uint64_t x)
{
	for (int i = 0; i < WORK_STEPS; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		__asm__ volatile("" : "+r"(x));
	}
	return x;
}

static void usage(void)
{
	fprintf(stderr, "usage: workload_alloc [-r RATE] [-d SECONDS | -n UNITS] [-c CPU] [-w]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	uint64_t rate = 1000000, units = 0, u, allocs = 0, acc = 0, x = 88172645463325252ULL;
	uint64_t c0, c1, w0, w1, end = 0;
	double seconds = 2;
	int wait = 0, opt;
	long cpu;
	cpu_set_t cpus;
	char *e;

	while ((opt = getopt(argc, argv, "r:d:n:c:w")) != -1) {
		switch (opt) {
		case 'r':
			rate = strtoull(optarg, &e, 10);
			if (*e || e == optarg)
				usage();
			break;
		case 'd':
			seconds = strtod(optarg, &e);
			if (*e || !(seconds > 0))
				usage();
			break;
		case 'n':
			units = strtoull(optarg, &e, 10);
			if (*e || !units)
				usage();
			break;
		case 'c':
			cpu = strtol(optarg, &e, 10);
			if (*e || e == optarg || cpu < 0 || cpu >= CPU_SETSIZE)
				usage();
			CPU_ZERO(&cpus);
			CPU_SET(cpu, &cpus);
			if (sched_setaffinity(0, sizeof(cpus), &cpus)) {
				perror("workload_alloc: sched_setaffinity");
				return 1;
			}
			break;
		case 'w':
			wait = 1;
			break;
		default:
			usage();
		}
	}
	if (optind != argc)
		usage();
	if (wait && wait_for_start())
		return 1;
	c0 = cpu_ns();
	w0 = mono_ns();
	if (!units)
		end = w0 + (uint64_t)(seconds * 1e9);
	for (u = 0;; u++) {
		if (units ? u >= units : !(u & 63) && mono_ns() >= end)
			break;
		x = work(x);
		/* Bresenham: rate allocations per million units, evenly spread */
		for (acc += rate; acc >= 1000000; acc -= 1000000)
			allocate(allocs++);
	}
	c1 = cpu_ns();
	w1 = mono_ns();
	sink = x;
	for (int i = 0; i < RING; i++)
		free(ring[i]);
	printf("units %llu allocs %llu cpu_ns %llu cpu_ns_per_unit %.2f allocs_per_cpu_s %.0f "
	       "wall_s %.3f\n",
	       (unsigned long long)u, (unsigned long long)allocs, (unsigned long long)(c1 - c0),
	       (double)(c1 - c0) / (double)u,
	       c1 > c0 ? (double)allocs / ((double)(c1 - c0) / 1e9) : 0.0, (double)(w1 - w0) / 1e9);
	return 0;
}
