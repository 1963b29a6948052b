/* workload_threads_alloc.c — THREADS threads, each making PAIRS malloc(64) + free pairs
 * as fast as it can, at once: what a heap recorder costs when threads on several CPUs
 * allocate together (a counter they all write bounces between their caches). Prints
 * the process's CPU time (user + system, getrusage) per pair, in ns, on stderr.
 *
 * usage: workload_threads_alloc THREADS PAIRS
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>

#define MAX_THREADS 64

static long pairs;
/* one slot a thread, a cache line apart: else the compiler drops the pair */
static void *volatile escape[MAX_THREADS * 8];

static void *run(void *arg)
{
	long k = (long)arg * 8;

	for (long i = 0; i < pairs; i++) {
		escape[k] = malloc(64);
		free(escape[k]);
	}
	return NULL;
}

static double cpu_ns(void)
{
	struct rusage r;

	getrusage(RUSAGE_SELF, &r);
	return (double)(r.ru_utime.tv_sec + r.ru_stime.tv_sec) * 1e9 +
	       (double)(r.ru_utime.tv_usec + r.ru_stime.tv_usec) * 1e3;
}

int main(int argc, char **argv)
{
	pthread_t t[MAX_THREADS];
	int n = argc == 3 ? atoi(argv[1]) : 0;
	double t0;

	pairs = argc == 3 ? atol(argv[2]) : 0;
	if (n < 1 || n > MAX_THREADS || pairs < 1) {
		fprintf(stderr, "usage: workload_threads_alloc THREADS(1-%d) PAIRS\n", MAX_THREADS);
		return 2;
	}
	t0 = cpu_ns();
	for (long i = 0; i < n; i++)
		if (pthread_create(&t[i], NULL, run, (void *)i)) {
			perror("pthread_create");
			return 1;
		}
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	fprintf(stderr, "ns/pair %.1f\n", (cpu_ns() - t0) / ((double)n * (double)pairs));
	return 0;
}
