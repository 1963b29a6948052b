// SPDX-License-Identifier: GPL-2.0
/* lifecycle.bpf.c — the lifecycle collector's kernel side: the forks, execs and exits of
 * the target's whole subtree, as it grows (tp_btf sched_process_fork, sched_process_exec,
 * sched_process_exit), one ring-buffer event each.
 *
 * Which processes are the target's: with --pid or a command, lc_procs, a hash of tgids that
 * user space seeds with the target and its descendants at the start, and a fork by one of
 * them adds the child (an exit takes it off); with --cgroup, every process of the cgroup
 * subtree (bpf/filter.bpf.h). New threads are not events here (the threads collector's);
 * an exit is the process's when its last thread exits.
 *
 * lc_exec is the run's one program on sched_process_exec: it also serves the exec watch
 * (bpf/exec_watch.bpf.h: tell the recorder the target exec'd, hold the new program),
 * which heap and goalloc follow. When lifecycle does not run, record.c loads lc_exec
 * alone with lc_record 0: the watch is served, no lifecycle event is made.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>

#include "collectors/lifecycle/lifecycle.h"
#include "exec_watch.bpf.h"
#include "filter.bpf.h"

char LICENSE[] SEC("license") = "GPL";

const volatile __u32 lc_record = 1; /* 0: lc_exec serves the exec watch only */

__u64 lc_lost = 0;	/* events the ring had no room for */
__u64 lc_untracked = 0; /* new processes lc_procs had no room for: their events are lost */

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, LC_PROCS);
	__type(key, __u32);
	__type(value, __u32); /* its parent's tgid (0: seeded by user space) */
} lc_procs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, LC_RING_BYTES);
} lc_events SEC(".maps");

/* Is the process TGID (task T) the target's? */
static __always_inline bool followed(struct task_struct *t, __u32 tgid)
{
	if (targ_cgid && !targ_tgid)
		return ptop_task_is_target(t);
	return bpf_map_lookup_elem(&lc_procs, &tgid) != NULL;
}

SEC("tp_btf/sched_process_fork")
int BPF_PROG(lc_fork, struct task_struct *parent, struct task_struct *child)
{
	__u32 ptgid = (__u32)BPF_CORE_READ(parent, tgid);
	__u32 pid = (__u32)BPF_CORE_READ(child, pid), tgid = (__u32)BPF_CORE_READ(child, tgid);
	struct lc_event *e;

	if (pid != tgid) /* a thread */
		return 0;
	if (targ_cgid && !targ_tgid) {
		if (!ptop_task_is_target(child))
			return 0;
	} else {
		if (!bpf_map_lookup_elem(&lc_procs, &ptgid))
			return 0;
		if (bpf_map_update_elem(&lc_procs, &tgid, &ptgid, BPF_ANY)) {
			__sync_fetch_and_add(&lc_untracked, 1);
			return 0;
		}
	}
	e = bpf_ringbuf_reserve(&lc_events, sizeof(*e), 0);
	if (!e) {
		__sync_fetch_and_add(&lc_lost, 1);
		return 0;
	}
	e->time_ns = bpf_ktime_get_ns();
	e->kind = LC_FORK;
	e->pid = tgid;
	e->tid = (__u32)BPF_CORE_READ(parent, pid);
	e->ppid = ptgid;
	e->status = 0;
	e->pad = 0;
	e->cpu_ns = 0;
	BPF_CORE_READ_STR_INTO(&e->comm, child, comm);
	bpf_ringbuf_submit(e, 0);
	return 0;
}

SEC("tp_btf/sched_process_exec")
int BPF_PROG(lc_exec, struct task_struct *p, pid_t old_pid, struct linux_binprm *bprm)
{
	__u32 tgid = (__u32)BPF_CORE_READ(p, tgid);
	unsigned long start, end;
	struct lc_exec *e;
	const char *fn;
	__u64 size;
	__u32 n;

	exec_watch_on_exec(tgid);
	if (!lc_record || !followed(p, tgid))
		return 0;
	e = bpf_ringbuf_reserve(&lc_events, sizeof(*e), 0);
	if (!e) {
		__sync_fetch_and_add(&lc_lost, 1);
		return 0;
	}
	e->h.time_ns = bpf_ktime_get_ns();
	e->h.kind = LC_EXEC;
	e->h.pid = tgid;
	e->h.tid = (__u32)BPF_CORE_READ(p, pid);
	e->h.ppid = (__u32)old_pid;
	e->h.status = 0;
	e->h.pad = 0;
	e->h.cpu_ns = 0;
	BPF_CORE_READ_STR_INTO(&e->h.comm, p, comm);
	e->argc = (__u32)BPF_CORE_READ(bprm, argc);
	fn = BPF_CORE_READ(bprm, filename);
	if (bpf_probe_read_kernel_str(e->filename, sizeof(e->filename), fn) < 0)
		e->filename[0] = '\0';
	/* the new program's argument strings, on its stack: its mm is current's now */
	start = BPF_CORE_READ(p, mm, arg_start);
	end = BPF_CORE_READ(p, mm, arg_end);
	size = end > start ? end - start : 0;
	e->args_size = size;
	n = size < LC_ARGS ? (__u32)size : LC_ARGS;
	asm volatile("" : "+r"(n));
	if (n > LC_ARGS)
		n = LC_ARGS;
	if (n && bpf_probe_read_user(e->args, n, (const void *)start))
		n = 0;
	e->args_len = n;
	bpf_ringbuf_submit(e, 0);
	return 0;
}

SEC("tp_btf/sched_process_exit")
int BPF_PROG(lc_exit, struct task_struct *p)
{
	__u32 tgid = (__u32)BPF_CORE_READ(p, tgid);
	struct lc_event *e;

	if (!followed(p, tgid))
		return 0;
	/* the process's exit is its last thread's: signal->live has been counted down */
	if (BPF_CORE_READ(p, signal, live.counter) != 0)
		return 0;
	if (!(targ_cgid && !targ_tgid))
		bpf_map_delete_elem(&lc_procs, &tgid);
	e = bpf_ringbuf_reserve(&lc_events, sizeof(*e), 0);
	if (!e) {
		__sync_fetch_and_add(&lc_lost, 1);
		return 0;
	}
	e->time_ns = bpf_ktime_get_ns();
	e->kind = LC_EXIT;
	e->pid = tgid;
	e->tid = (__u32)BPF_CORE_READ(p, pid);
	e->ppid = 0;
	e->status = (__s32)BPF_CORE_READ(p, exit_code);
	e->pad = 0;
	/* the threads already gone were added to signal's sum when they were released */
	e->cpu_ns = BPF_CORE_READ(p, signal, sum_sched_runtime) +
		    BPF_CORE_READ(p, se.sum_exec_runtime);
	BPF_CORE_READ_STR_INTO(&e->comm, p, comm);
	bpf_ringbuf_submit(e, 0);
	return 0;
}
