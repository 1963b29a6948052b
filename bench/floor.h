/* floor.h — what the bench floors share (bench_floor.c, bench_net_floor.c,
 * bench_sched_floor.c): load and attach a skeleton of no-op programs, print "attached",
 * hold them until SIGINT or SIGTERM. What a workload pays with a floor running is the
 * price of having its tracepoints on at all; the overhead_*.sh scripts compare against it.
 *
 * BENCH_FLOOR_MAIN(PROG, SKEL, WHAT) defines main() for the skeleton SKEL (SKEL_bpf,
 * from bpf/SKEL.bpf.c): PROG names the program in its messages, WHAT the attach points.
 */
#ifndef PTOP_BENCH_FLOOR_H
#define PTOP_BENCH_FLOOR_H

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include <bpf/libbpf.h>

/* SIGINT and SIGTERM blocked into SET, to be taken by sigwait(). A shell starts
 * background jobs with SIGINT ignored, and an ignored signal never reaches sigwait():
 * the default is taken back before blocking. */
static inline void bench_floor__block(sigset_t *set)
{
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	sigemptyset(set);
	sigaddset(set, SIGINT);
	sigaddset(set, SIGTERM);
	sigprocmask(SIG_BLOCK, set, NULL);
}

#define BENCH_FLOOR_MAIN(PROG, SKEL, WHAT)                                                  \
	int main(void)                                                                      \
	{                                                                                   \
		struct SKEL##_bpf *skel;                                                    \
		sigset_t set;                                                               \
		int err, sig;                                                               \
                                                                                            \
		bench_floor__block(&set);                                                   \
		skel = SKEL##_bpf__open_and_load();                                         \
		if (!skel) {                                                                \
			err = -errno;                                                       \
			fprintf(stderr, PROG ": load no-op BPF: %s (run as root)\n",        \
				strerror(-err));                                            \
			return 1;                                                           \
		}                                                                           \
		err = SKEL##_bpf__attach(skel);                                             \
		if (err) {                                                                  \
			fprintf(stderr, PROG ": attach " WHAT ": %s\n", strerror(-err));    \
			goto cleanup;                                                       \
		}                                                                           \
		printf("attached\n");                                                       \
		fflush(stdout);                                                             \
		sigwait(&set, &sig);                                                        \
	cleanup:                                                                            \
		SKEL##_bpf__destroy(skel);                                                  \
		return err ? 1 : 0;                                                         \
	}

#endif
