/* exec_watch.bpf.h — the exec watch's kernel half (record/exec_watch.h), for the one
 * program of a run on tp_btf/sched_process_exec: the collector that provides the exec
 * feed (collector_ops.exec_feed) includes this file in its BPF object and calls
 * exec_watch_on_exec() first in that program, so that a run has one program on the
 * tracepoint, whoever else needs execs. It tells the recorder that the target exec'd,
 * and in COMMAND mode holds the new program before its first instruction.
 *
 * sched_process_exec fires in the exec'ing task after the new image is in place and
 * before it returns to user space. When the task is the target (its tgid; an exec
 * keeps it), the call writes an event to ew_events and, when hold is set, sends the
 * task SIGSTOP with bpf_send_signal(): the signal is handled on the way back to user
 * space, so the new program stops before it runs. The recorder then re-attaches what
 * the new program needs (record/exec_watch.c) and sends SIGCONT. A SIGCONT that comes
 * before the stop took effect discards the pending SIGSTOP, so either order ends with
 * the program running. The task is held only when the event reached the ring buffer:
 * otherwise nobody would continue it (the loss is counted).
 *
 * hold_seq counts the holds, release_seq (written by the recorder through its mmap of
 * ew_state) the last one it continued: the recorder's guard process reads both when
 * the recorder dies, and continues the task only when a hold is open.
 */
#ifndef PTOP_EXEC_WATCH_BPF_H
#define PTOP_EXEC_WATCH_BPF_H

#include "exec_watch.h"

#define EW_SIGSTOP 19

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__uint(map_flags, BPF_F_MMAPABLE);
	__type(key, __u32);
	__type(value, struct exec_watch_state);
} ew_state SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
} ew_events SEC(".maps");

/* In the sched_process_exec program, for the task of TGID that exec'd (current). */
static __always_inline void exec_watch_on_exec(__u32 tgid)
{
	struct exec_watch_event *e;
	struct exec_watch_state *st;
	__u32 zero = 0;

	st = bpf_map_lookup_elem(&ew_state, &zero);
	if (!st || !st->tgid || tgid != st->tgid)
		return;
	e = bpf_ringbuf_reserve(&ew_events, sizeof(*e), 0);
	if (!e) {
		__sync_fetch_and_add(&st->lost, 1);
		return;
	}
	e->time_ns = bpf_ktime_get_ns();
	e->tgid = tgid;
	e->held = 0;
	e->seq = 0;
	if (st->hold) {
		/* counted once sent: a hold that is counted is one the task has */
		if (bpf_send_signal(EW_SIGSTOP) == 0) {
			e->held = 1;
			e->seq = ++st->hold_seq;
		} else {
			__sync_fetch_and_add(&st->send_failed, 1);
		}
	}
	bpf_ringbuf_submit(e, 0);
}

#endif
