/* bench_net_floor.c — the net collector's overhead floor: attaches bpf/bench_net_noop.bpf.c
 * (no-op programs on tp_btf sock_send_length/sock_recv_length) until SIGINT or
 * SIGTERM. What a send/recv loop pays with this running is the price of having the
 * tracepoints on at all; bench/overhead_net.sh compares the net collector against it.
 *
 * usage: bench_net_floor    prints "attached" on stdout once the programs are live
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include <bpf/libbpf.h>

#include "bpf/bench_net_noop.skel.h"

static int bench_net_floor_main(void)
{
	struct bench_net_noop_bpf *skel;
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

	skel = bench_net_noop_bpf__open_and_load();
	if (!skel) {
		err = -errno;
		fprintf(stderr, "bench_net_floor: load no-op BPF: %s (run as root)\n",
			strerror(-err));
		return 1;
	}
	err = bench_net_noop_bpf__attach(skel);
	if (err) {
		fprintf(stderr,
			"bench_net_floor: attach tp_btf sock_send_length/sock_recv_length: %s\n",
			strerror(-err));
		goto cleanup;
	}
	printf("attached\n");
	fflush(stdout);
	sigwait(&set, &sig);
cleanup:
	bench_net_noop_bpf__destroy(skel);
	return err ? 1 : 0;
}

int main(void)
{
	return bench_net_floor_main();
}
