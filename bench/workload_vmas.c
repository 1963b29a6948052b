/* workload_vmas.c — a target with many VMAs that needs its mmap lock, for
 * bench/overhead_smaps.sh.
 *
 *   workload_vmas NVMAS SECONDS
 *
 * Maps NVMAS one-page anonymous VMAs (alternating protections so that none
 * merge) and touches each, prints "ready PID" and waits for SIGUSR1 (so that a
 * recorder can attach first), then for SECONDS maps, touches and unmaps one
 * page in a loop (each mmap and munmap takes the mmap lock for writing, which a
 * reader of /proc/PID/smaps holds for reading while it walks the VMAs) and
 * prints "pairs N ns_per_pair X" (wall clock per mmap+munmap pair). Exit 1 on
 * a failed call.
 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int main(int argc, char **argv)
{
	long pg = sysconf(_SC_PAGESIZE);
	uint64_t t0, end, pairs = 0;
	long n, secs;
	char *base;
	sigset_t set;
	int sig;

	if (argc != 3 || (n = atol(argv[1])) <= 0 || (secs = atol(argv[2])) <= 0) {
		fprintf(stderr, "usage: workload_vmas NVMAS SECONDS\n");
		return 2;
	}
	/* one reservation, then every other page re-protected: n VMAs that cannot merge */
	base = mmap(NULL, (size_t)(2 * n) * (size_t)pg, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (base == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	for (long i = 0; i < 2 * n; i++) {
		base[i * pg] = 1;
		if (i % 2 && mprotect(base + i * pg, (size_t)pg, PROT_READ)) {
			perror("mprotect (raise vm.max_map_count for more VMAs)");
			return 1;
		}
	}
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigprocmask(SIG_BLOCK, &set, NULL);
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	if (sigwait(&set, &sig))
		return 1;

	t0 = now_ns();
	end = t0 + (uint64_t)secs * 1000000000ull;
	while (now_ns() < end) {
		for (int k = 0; k < 64; k++) {
			char *p = mmap(NULL, (size_t)pg, PROT_READ | PROT_WRITE,
				       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

			if (p == MAP_FAILED) {
				perror("mmap");
				return 1;
			}
			p[0] = 1;
			munmap(p, (size_t)pg);
		}
		pairs += 64;
	}
	printf("pairs %llu ns_per_pair %.1f\n", (unsigned long long)pairs,
	       (double)(now_ns() - t0) / (double)pairs);
	return 0;
}
