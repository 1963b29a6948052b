/* bench_proc_floor.c — the signals and lifecycle collectors' overhead floor: attaches
 * bpf/bench_proc_noop.bpf.c (no-op programs on tp_btf signal_generate, signal_deliver,
 * sched_process_fork, sched_process_exec, sched_process_exit) until SIGINT or SIGTERM.
 * bench/overhead_proc.sh compares the collectors against it.
 *
 * usage: bench_proc_floor    prints "attached" on stdout once the programs are live
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include <bpf/libbpf.h>

#include "bpf/bench_proc_noop.skel.h"

int main(void)
{
	struct bench_proc_noop_bpf *skel;
	sigset_t set;
	int err, sig;

	/* a shell starts background jobs with SIGINT ignored: take the default back */
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigprocmask(SIG_BLOCK, &set, NULL);
	skel = bench_proc_noop_bpf__open_and_load();
	if (!skel) {
		err = -errno;
		fprintf(stderr, "bench_proc_floor: load no-op BPF: %s (run as root)\n",
			strerror(-err));
		return 1;
	}
	err = bench_proc_noop_bpf__attach(skel);
	if (err) {
		fprintf(stderr, "bench_proc_floor: attach the signal and sched_process tracepoints: %s\n",
			strerror(-err));
		goto cleanup;
	}
	printf("attached\n");
	fflush(stdout);
	sigwait(&set, &sig);
cleanup:
	bench_proc_noop_bpf__destroy(skel);
	return err ? 1 : 0;
}
