/* bench_sched_floor.c — the threads collector's overhead floor: attaches bpf/bench_sched_noop.bpf.c
 * (no-op programs on tp_btf sched_switch and sched_wakeup) until SIGINT or
 * SIGTERM. What a context-switch loop pays with this running is the price of having the
 * tracepoints on at all; bench/overhead_threads.sh compares the threads collector against it.
 *
 * usage: bench_sched_floor    prints "attached" on stdout once the programs are live
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include <bpf/libbpf.h>

#include "bpf/bench_sched_noop.skel.h"

static int bench_sched_floor_main(void)
{
	struct bench_sched_noop_bpf *skel;
	sigset_t set;
	int err, sig;

	/* a shell starts background jobs with SIGINT ignored, and an ignored signal
	 * never reaches sigwait(): take the default back before blocking */
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigprocmask(SIG_BLOCK, &set, NULL);

	skel = bench_sched_noop_bpf__open_and_load();
	if (!skel) {
		err = -errno;
		fprintf(stderr, "bench_sched_floor: load no-op BPF: %s (run as root)\n",
			strerror(-err));
		return 1;
	}
	err = bench_sched_noop_bpf__attach(skel);
	if (err) {
		fprintf(stderr,
			"bench_sched_floor: attach tp_btf sched_switch/sched_wakeup: %s\n",
			strerror(-err));
		goto cleanup;
	}
	printf("attached\n");
	fflush(stdout);
	sigwait(&set, &sig);
cleanup:
	bench_sched_noop_bpf__destroy(skel);
	return err ? 1 : 0;
}

int main(void)
{
	return bench_sched_floor_main();
}
