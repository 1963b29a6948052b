/* bench_collector_floor.c — the bare-tracepoint floor of the threads, locks, signals and
 * lifecycle collectors (bench/overhead_issue23.sh): for each collector named, no-op
 * programs on the tracepoints that collector attaches, as many programs per tracepoint
 * as it has, held until SIGINT or SIGTERM. What a workload pays with this running is the
 * price of having those tracepoints on at all.
 *
 *   threads    tp_btf sched_switch, sched_wakeup, sched_process_fork, sched_process_exit
 *              (not task_rename: the benches' workloads never rename a thread)
 *   locks      raw_tp sys_enter, sys_exit (every system call of the machine)
 *   signals    tp_btf signal_generate, signal_deliver
 *   lifecycle  tp_btf sched_process_fork, sched_process_exec, sched_process_exit
 * Several names attach each one's set from its own copy of the programs: "threads
 * lifecycle" puts two no-op programs on sched_process_fork, as the two collectors do.
 * The programs are the other floors' (bpf/bench_sched_noop, bench_noop, bench_proc_noop).
 *
 * usage: bench_collector_floor NAME...   prints "attached" on stdout once all are live
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include <bpf/libbpf.h>

#include "bench/floor.h"
#include "bpf/bench_noop.skel.h"
#include "bpf/bench_proc_noop.skel.h"
#include "bpf/bench_sched_noop.skel.h"

#define MAX_SETS 16

/* One collector's no-op programs: its skeletons, loaded with only the programs it needs. */
struct set {
	struct bench_sched_noop_bpf *sched;
	struct bench_proc_noop_bpf *proc;
	struct bench_noop_bpf *sys;
};

/* Load only PROGS (NULL-terminated names) of OBJ. */
static void keep_only(struct bpf_object *obj, const char *const *progs)
{
	struct bpf_program *p;
	int keep;

	bpf_object__for_each_program(p, obj) {
		keep = 0;
		for (const char *const *n = progs; *n; n++)
			keep |= !strcmp(bpf_program__name(p), *n);
		bpf_program__set_autoload(p, keep);
	}
}

static int open_set(struct set *s, const char *name)
{
	static const char *const thr_sched[] = { "noop_sched_switch", "noop_sched_wakeup", NULL };
	static const char *const thr_proc[] = { "noop_fork", "noop_exit", NULL };
	static const char *const sig[] = { "noop_sig_generate", "noop_sig_deliver", NULL };
	static const char *const life[] = { "noop_fork", "noop_exec", "noop_exit", NULL };
	int err;

	memset(s, 0, sizeof(*s));
	if (!strcmp(name, "threads")) {
		s->sched = bench_sched_noop_bpf__open();
		s->proc = bench_proc_noop_bpf__open();
		if (!s->sched || !s->proc)
			return -errno;
		keep_only(s->sched->obj, thr_sched);
		keep_only(s->proc->obj, thr_proc);
	} else if (!strcmp(name, "locks")) {
		s->sys = bench_noop_bpf__open();
		if (!s->sys)
			return -errno;
	} else if (!strcmp(name, "signals") || !strcmp(name, "lifecycle")) {
		s->proc = bench_proc_noop_bpf__open();
		if (!s->proc)
			return -errno;
		keep_only(s->proc->obj, name[0] == 's' ? sig : life);
	} else {
		return -EINVAL;
	}
	err = s->sched ? bench_sched_noop_bpf__load(s->sched) : 0;
	if (!err && s->proc)
		err = bench_proc_noop_bpf__load(s->proc);
	if (!err && s->sys)
		err = bench_noop_bpf__load(s->sys);
	if (!err && s->sched)
		err = bench_sched_noop_bpf__attach(s->sched);
	if (!err && s->proc)
		err = bench_proc_noop_bpf__attach(s->proc);
	if (!err && s->sys)
		err = bench_noop_bpf__attach(s->sys);
	return err;
}

static void close_set(struct set *s)
{
	bench_sched_noop_bpf__destroy(s->sched);
	bench_proc_noop_bpf__destroy(s->proc);
	bench_noop_bpf__destroy(s->sys);
}

int main(int argc, char **argv)
{
	struct set sets[MAX_SETS];
	sigset_t set;
	int i, n = 0, err = 0, sig;

	if (argc < 2 || argc - 1 > MAX_SETS) {
		fprintf(stderr, "usage: bench_collector_floor threads|locks|signals|lifecycle...\n");
		return 2;
	}
	bench_floor__block(&set);
	for (i = 1; i < argc && !err; i++) {
		err = open_set(&sets[n++], argv[i]);
		if (err == -EINVAL) {
			fprintf(stderr, "bench_collector_floor: %s: not threads, locks, signals or"
					" lifecycle\n", argv[i]);
			err = 2;
		} else if (err) {
			fprintf(stderr, "bench_collector_floor: load or attach %s's no-op programs: %s"
					" (run as root)\n", argv[i], strerror(-err));
			err = 1;
		}
	}
	if (!err) {
		printf("attached\n");
		fflush(stdout);
		sigwait(&set, &sig);
	}
	for (i = 0; i < n; i++)
		close_set(&sets[i]);
	return err;
}
