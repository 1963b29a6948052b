/* bench_goalloc_floor.c — the bare-trap floor of the goalloc bench: a BPF program that
 * only counts (bench_uprobe_noop's malloc_entry) on a Go executable's runtime.mallocgc,
 * at the very point the goalloc collector probes (goalloc__probe_point: the jbe of the
 * stack check, emulated, else +0), held until SIGINT or SIGTERM. What an allocating Go
 * target pays with this running is the price of the trap alone; the goalloc collector
 * is measured against it (bench/overhead_goalloc.sh).
 *
 * usage: bench_goalloc_floor --pid PID [--exe PATH]
 *   --pid PID   probe only this process
 *   --exe PATH  the Go executable (default: /proc/PID/exe)
 * Prints "attached: PATH runtime.mallocgc+N" on stdout once the probe is live, and on
 * exit "hits runtime.mallocgc N".
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "bpf/bench_uprobe_noop.skel.h"
#include "collectors/heap/record.h"

static void usage(void)
{
	fprintf(stderr, "usage: bench_goalloc_floor --pid PID [--exe PATH]\n");
	exit(2);
}

static int bench_goalloc_floor_main(int argc, char **argv)
{
	struct bench_uprobe_noop_bpf *skel = NULL;
	LIBBPF_OPTS(bpf_uprobe_opts, opts);
	struct bpf_link *link = NULL;
	struct goalloc_probe gp;
	char exe[PATH_MAX] = "", why[256];
	int pid = -1, err = 0, sig, i;
	sigset_t set;
	char *e;

	for (i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--pid")) {
			pid = (int)strtol(argv[i + 1], &e, 10);
			if (*e || pid <= 0)
				usage();
		} else if (!strcmp(argv[i], "--exe")) {
			snprintf(exe, sizeof(exe), "%s", argv[i + 1]);
		} else {
			usage();
		}
	}
	if (i != argc || pid <= 0)
		usage();
	if (!exe[0])
		snprintf(exe, sizeof(exe), "/proc/%d/exe", pid);

	/* a shell starts background jobs with SIGINT ignored, and an ignored signal
	 * never reaches sigwait(): take the default back before blocking */
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigprocmask(SIG_BLOCK, &set, NULL);

	err = goalloc__probe_point(exe, exe, &gp, why, sizeof(why));
	if (err) {
		fprintf(stderr, "bench_goalloc_floor: %s\n", why);
		return 1;
	}
	skel = bench_uprobe_noop_bpf__open_and_load();
	if (!skel) {
		err = -errno;
		fprintf(stderr, "bench_goalloc_floor: load the counting BPF programs: %s (run as root)\n",
			strerror(-err));
		return 1;
	}
	link = bpf_program__attach_uprobe_opts(skel->progs.malloc_entry, pid, exe,
					       (size_t)(gp.func_off + gp.probe_off), &opts);
	if (!link) {
		err = -errno;
		fprintf(stderr, "bench_goalloc_floor: attach a uprobe to %s runtime.mallocgc+%u: %s\n",
			exe, gp.probe_off, strerror(-err));
		goto cleanup;
	}
	printf("attached: %s runtime.mallocgc+%u%s\n", exe, gp.probe_off,
	       gp.stack_check ? " (stack-check jbe)" : " (stepped)");
	fflush(stdout);
	sigwait(&set, &sig);
	printf("hits runtime.mallocgc %llu\n", (unsigned long long)skel->bss->hits_malloc);
cleanup:
	bpf_link__destroy(link);
	bench_uprobe_noop_bpf__destroy(skel);
	return err ? 1 : 0;
}

int main(int argc, char **argv)
{
	return bench_goalloc_floor_main(argc, argv);
}
