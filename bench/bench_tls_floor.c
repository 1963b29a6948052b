/* bench_tls_floor.c — the bare-trap floor of the tls bench (bench/overhead_tls.sh): attaches
 * two programs of bpf/bench_uprobe_noop.bpf.c that only count (its malloc_entry and
 * malloc_ret, used here as a plain counting uprobe and uretprobe) at the entry and the
 * return of SSL_write, SSL_read, SSL_write_ex and SSL_read_ex of the libssl process PID
 * maps, the way the tls collector attaches (record/uprobe_link.h: uprobe_multi links, else
 * perf-event uprobes), and holds them until SIGINT or SIGTERM. What the target pays with
 * this running is the price of the traps alone.
 *
 * usage: bench_tls_floor PID LIBSSL
 * Prints "attached: LIBSSL" once the probes are live, and on exit "hits entry N ret M".
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "bpf/bench_uprobe_noop.skel.h"
#include "record/uprobe_target.h" /* uprobe_target__elf_func */
#include "record/uprobe_link.h"

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

int main(int argc, char **argv)
{
	static const char *const fns[] = { "SSL_write", "SSL_read", "SSL_write_ex", "SSL_read_ex" };
	struct uprobe_link *links[2] = { NULL, NULL };
	struct bench_uprobe_noop_bpf *skel;
	uint64_t off[4], size;
	pid_t pid;
	int fd, err;

	if (argc != 3) {
		fprintf(stderr, "usage: bench_tls_floor PID LIBSSL\n");
		return 2;
	}
	pid = (pid_t)atoi(argv[1]);
	fd = open(argv[2], O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "bench_tls_floor: cannot open %s: %s\n", argv[2], strerror(errno));
		return 1;
	}
	for (int k = 0; k < 4; k++)
		if (uprobe_target__elf_func(fd, fns[k], &off[k], &size)) {
			fprintf(stderr, "bench_tls_floor: no %s in %s\n", fns[k], argv[2]);
			return 1;
		}
	close(fd);
	skel = bench_uprobe_noop_bpf__open();
	if (!skel) {
		fprintf(stderr, "bench_tls_floor: open: %s\n", strerror(errno));
		return 1;
	}
	err = uprobe_link__prepare(skel->progs.malloc_entry);
	err = err ?: uprobe_link__prepare(skel->progs.malloc_ret);
	err = err ?: bench_uprobe_noop_bpf__load(skel);
	if (err) {
		fprintf(stderr, "bench_tls_floor: load: %s\n", strerror(-err));
		return 1;
	}
	links[0] = uprobe_link__attach(skel->progs.malloc_entry, pid, argv[2], off, NULL, 4, false);
	links[1] = uprobe_link__attach(skel->progs.malloc_ret, pid, argv[2], off, NULL, 4, true);
	if (!links[0] || !links[1]) {
		fprintf(stderr, "bench_tls_floor: attach: %s\n", strerror(errno));
		return 1;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	printf("attached: %s\n", argv[2]);
	fflush(stdout);
	while (!stop)
		pause();
	uprobe_link__destroy(links, 2);
	printf("hits entry %llu ret %llu\n", (unsigned long long)skel->bss->hits_malloc,
	       (unsigned long long)skel->bss->hits_malloc_ret);
	bench_uprobe_noop_bpf__destroy(skel);
	return 0;
}
