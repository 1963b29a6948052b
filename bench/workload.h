/* workload.h — what the bench/workload_*.c programs share: their clocks (the
 * monotonic time, the process's own CPU time) and the start a tracer waits for (-w).
 * Header only: a workload stays one plain program, no ptop code (Makefile). */
#ifndef PTOP_BENCH_WORKLOAD_H
#define PTOP_BENCH_WORKLOAD_H

#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

/* CLOCK_MONOTONIC in ns. */
static inline uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* This process's CPU time (user + system, getrusage) in ns: a tracer's cost shows in it. */
static inline uint64_t cpu_ns(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ((uint64_t)ru.ru_utime.tv_sec + (uint64_t)ru.ru_stime.tv_sec) * 1000000000ull +
	       ((uint64_t)ru.ru_utime.tv_usec + (uint64_t)ru.ru_stime.tv_usec) * 1000ull;
}

/* -w: print "pid N" and wait for SIGUSR1 (a tracer attaches first). SIGUSR1 stays
 * blocked. 0, or -1 when the wait failed. */
static inline int wait_for_start(void)
{
	sigset_t set;
	int sig;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigprocmask(SIG_BLOCK, &set, NULL);
	printf("pid %d\n", (int)getpid());
	fflush(stdout);
	return sigwait(&set, &sig) != 0 ? -1 : 0;
}

#endif
