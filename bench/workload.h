/* workload.h — what the bench/workload_*.c programs share: their clocks (the
 * monotonic time, the process's own CPU time) and the start a tracer waits for (-w).
 * Header only: a workload stays one plain program, no ptop code (Makefile). */
#ifndef PTOP_BENCH_WORKLOAD_H
#define PTOP_BENCH_WORKLOAD_H

#include <signal.h>
#include <stdlib.h>
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

/* The options every paced workload takes: -r RATE (per second), -d SECONDS, -w (wait
 * for the start: wait_for_start). 1 when OPT was one of them (ARG: its argument), else
 * 0 (the caller's own option, or a usage error). */
static inline int workload_opt(int opt, const char *arg, double *rate, double *seconds,
			       int *wait)
{
	switch (opt) {
	case 'r':
		*rate = strtod(arg, NULL);
		return 1;
	case 'd':
		*seconds = strtod(arg, NULL);
		return 1;
	case 'w':
		*wait = 1;
		return 1;
	}
	return 0;
}

/* A paced loop's step: 0 once SECONDS have passed since T0 (mono_ns), else 1 with *DUE
 * the operations due by now at RATE per second, 1 ms's worth ahead; the loop runs them,
 * then sleeps 1 ms (workload_nap). */
static inline int workload_due(uint64_t t0, double rate, double seconds, uint64_t *due)
{
	uint64_t el = mono_ns() - t0;

	if (el >= (uint64_t)(seconds * 1e9))
		return 0;
	*due = (uint64_t)((double)el * rate / 1e9) + (uint64_t)(rate / 1000);
	return 1;
}

static inline void workload_nap(void)
{
	struct timespec ts = {0, 1000000};

	nanosleep(&ts, NULL);
}

#endif
