/* bpf_stats.c — the kernel's own count of what BPF programs cost, for the benches
 * (bench/overhead_issue23.sh): how long each program ran, summed over its runs, and how
 * many runs (bpf_prog_info's run_time_ns and run_cnt).
 *
 * The kernel counts only while statistics are on. They are turned on here by the
 * BPF_ENABLE_STATS command of bpf(2), which returns a file descriptor: statistics stay on
 * while it is open and stop when it closes (at exit, however the process ends), so the
 * machine is left as it was. The kernel.bpf_stats_enabled sysctl is never written.
 *
 * usage: bpf_stats enable        turn statistics on, print "enabled", hold them on until
 *                                SIGINT or SIGTERM, or until its parent ends
 *        bpf_stats progs PID...  one line per BPF program the processes PID hold (a
 *                                program's fd or a link's, from /proc/PID/fdinfo):
 *                                "prog ID TYPE NAME RUN_TIME_NS RUN_CNT RECURSION_MISSES"
 *        bpf_stats hold PID...   open those programs and keep them open (they stay
 *                                readable after PID exits: a recorder ends with its
 *                                target), print "held N", then at each SIGUSR1 their
 *                                lines and "end", until SIGINT or SIGTERM (or its parent
 *                                ends)
 * The figures are cumulative since each program was loaded, counted only while statistics
 * were on: take them before and after, and subtract. Needs root (CAP_SYS_ADMIN).
 * Exits 2 for a usage error, 1 when the kernel refused.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#define MAX_PROGS 1024

static int usage(void)
{
	fprintf(stderr, "usage: bpf_stats enable | bpf_stats progs PID... | bpf_stats hold PID...\n");
	return 2;
}

static int cmd_enable(void)
{
	sigset_t set;
	int fd, sig;

	/* a shell starts background jobs with SIGINT ignored: take the default back */
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigprocmask(SIG_BLOCK, &set, NULL);
	/* the bench that started this may die without a word: end with it */
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	if (getppid() == 1)
		return 1;
	fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
	if (fd < 0) {
		fprintf(stderr, "bpf_stats: BPF_ENABLE_STATS: %s (%s)\n", strerror(errno),
			errno == EPERM ? "run as root"
			: errno == EINVAL ? "this kernel has no run-time statistics (Linux 5.8+)"
					  : "the kernel refused");
		return 1;
	}
	printf("enabled\n");
	fflush(stdout);
	sigwait(&set, &sig);
	close(fd);
	return 0;
}

/* The program id in /proc/PID/fdinfo/FD ("prog_id:"; a link's fdinfo names its program
 * too), or 0. */
static __u32 fd_prog_id(const char *pid, const char *fd)
{
	char path[PATH_MAX], line[256];
	unsigned int id = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%s/fdinfo/%s", pid, fd);
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "prog_id: %u", &id) == 1)
			break;
	fclose(f);
	return id;
}

/* Add to IDS (N of them) the programs PID holds; -1 when its fds cannot be read. */
static int pid_progs(const char *pid, __u32 *ids, int *n)
{
	char path[PATH_MAX], link[64];
	struct dirent *d;
	DIR *dir;
	ssize_t len;
	__u32 id;
	int i;

	snprintf(path, sizeof(path), "/proc/%s/fd", pid);
	dir = opendir(path);
	if (!dir) {
		fprintf(stderr, "bpf_stats: %s: %s\n", path, strerror(errno));
		return -1;
	}
	while ((d = readdir(dir))) {
		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/fd/%s", pid, d->d_name);
		len = readlink(path, link, sizeof(link) - 1);
		if (len < 0)
			continue;
		link[len] = '\0';
		if (strcmp(link, "anon_inode:bpf-prog") && strcmp(link, "anon_inode:bpf_link"))
			continue;
		id = fd_prog_id(pid, d->d_name);
		if (!id)
			continue;
		for (i = 0; i < *n && ids[i] != id; i++)
			;
		if (i == *n && *n < MAX_PROGS)
			ids[(*n)++] = id;
	}
	closedir(dir);
	return 0;
}

/* Print the line of the program FD (id ID); -1 when it cannot be read. */
static int print_prog(int fd, __u32 id)
{
	struct bpf_prog_info info;
	const char *type;
	__u32 len = sizeof(info);

	memset(&info, 0, sizeof(info));
	if (bpf_obj_get_info_by_fd(fd, &info, &len)) {
		fprintf(stderr, "bpf_stats: program %u: info: %s\n", id, strerror(errno));
		return -1;
	}
	if (len < offsetof(struct bpf_prog_info, recursion_misses) + sizeof(info.recursion_misses)) {
		fprintf(stderr, "bpf_stats: program %u: this kernel reports no run time"
				" (Linux 5.12+ for recursion_misses)\n", id);
		return -1;
	}
	type = libbpf_bpf_prog_type_str(info.type);
	printf("prog %u %s %s %llu %llu %llu\n", info.id, type ? type : "unknown",
	       info.name[0] ? info.name : "-", (unsigned long long)info.run_time_ns,
	       (unsigned long long)info.run_cnt, (unsigned long long)info.recursion_misses);
	return 0;
}

/* Open the programs the processes PIDS hold: their fds in FDS and ids in IDS, the count
 * in *N. 0, 1 when one could not be read, 2 for a usage error. */
static int open_progs(int argc, char **argv, int *fds, __u32 *ids, int *n)
{
	static __u32 found[MAX_PROGS];
	int nf = 0, i, fd, err = 0;

	for (i = 0; i < argc; i++) {
		if (strspn(argv[i], "0123456789") != strlen(argv[i]) || !argv[i][0]) {
			fprintf(stderr, "bpf_stats: %s is not a pid\n", argv[i]);
			return 2;
		}
		if (pid_progs(argv[i], found, &nf))
			err = 1;
	}
	*n = 0;
	for (i = 0; i < nf; i++) {
		fd = bpf_prog_get_fd_by_id(found[i]);
		if (fd < 0) {
			if (errno == ENOENT)
				continue; /* unloaded since */
			fprintf(stderr, "bpf_stats: program %u: %s\n", found[i], strerror(errno));
			err = 1;
			continue;
		}
		fds[*n] = fd;
		ids[(*n)++] = found[i];
	}
	return err;
}

static int cmd_progs(int argc, char **argv)
{
	static int fds[MAX_PROGS];
	static __u32 ids[MAX_PROGS];
	int n, i, err;

	err = open_progs(argc, argv, fds, ids, &n);
	if (err == 2)
		return 2;
	for (i = 0; i < n; i++) {
		if (print_prog(fds[i], ids[i]))
			err = 1;
		close(fds[i]);
	}
	return err;
}

/* hold PID...: keep the programs open (a program stays loaded, its figures readable,
 * after its owner exits: a recorder that ends with its target), print "held N", then at
 * each SIGUSR1 their lines and "end", until SIGINT or SIGTERM. */
static int cmd_hold(int argc, char **argv)
{
	static int fds[MAX_PROGS];
	static __u32 ids[MAX_PROGS];
	sigset_t set;
	int n, i, err, sig;

	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGUSR1);
	sigprocmask(SIG_BLOCK, &set, NULL);
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	err = open_progs(argc, argv, fds, ids, &n);
	if (err == 2)
		return 2;
	printf("held %d\n", n);
	fflush(stdout);
	while (!sigwait(&set, &sig) && sig == SIGUSR1) {
		for (i = 0; i < n; i++)
			if (print_prog(fds[i], ids[i]))
				err = 1;
		printf("end\n");
		fflush(stdout);
	}
	for (i = 0; i < n; i++)
		close(fds[i]);
	return err;
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "enable"))
		return cmd_enable();
	if (argc >= 3 && !strcmp(argv[1], "progs"))
		return cmd_progs(argc - 2, argv + 2);
	if (argc >= 3 && !strcmp(argv[1], "hold"))
		return cmd_hold(argc - 2, argv + 2);
	return usage();
}
