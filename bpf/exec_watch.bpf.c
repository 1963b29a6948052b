// SPDX-License-Identifier: GPL-2.0
/* exec_watch.bpf.c — tells the recorder that the target exec'd, and in COMMAND mode
 * holds the new program before its first instruction.
 *
 * sched_process_exec fires in the exec'ing task after the new image is in place and
 * before it returns to user space. When the task is the target (its tgid; an exec
 * keeps it), the program writes an event to the ring buffer and, when hold is set,
 * sends the task SIGSTOP with bpf_send_signal(): the signal is handled on the way
 * back to user space, so the new program stops before it runs. The recorder then
 * re-attaches what the new program needs (record/exec_watch.c) and sends SIGCONT. A
 * SIGCONT that comes before the stop took effect discards the pending SIGSTOP, so
 * either order ends with the program running. The task is held only when the event
 * reached the ring buffer: otherwise nobody would continue it (the loss is counted).
 *
 * hold_seq counts the holds, release_seq (written by the recorder, through the mmap of
 * .bss) the last one it continued: the recorder's guard process (record/exec_watch.c)
 * reads both when the recorder dies, and continues the task only when a hold is open.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "exec_watch.h"

char LICENSE[] SEC("license") = "GPL";

#define SIGSTOP_NR 19

const volatile __u32 targ_tgid = 0;
const volatile __u32 hold = 0;

__u64 lost = 0;		/* events the ring buffer had no room for (target not held) */
__u64 send_failed = 0;	/* bpf_send_signal() failures (target not held) */
__u64 hold_seq = 0;	/* holds so far; only this program writes it (one exec at a time) */
__u64 release_seq = 0;	/* the last hold the recorder continued (user space writes it) */

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
} ew_events SEC(".maps");

SEC("tp_btf/sched_process_exec")
int BPF_PROG(ew_exec, struct task_struct *p, pid_t old_pid, struct linux_binprm *bprm)
{
	struct exec_watch_event *e;

	if (!targ_tgid || (__u32)(bpf_get_current_pid_tgid() >> 32) != targ_tgid)
		return 0;
	e = bpf_ringbuf_reserve(&ew_events, sizeof(*e), 0);
	if (!e) {
		__sync_fetch_and_add(&lost, 1);
		return 0;
	}
	e->time_ns = bpf_ktime_get_ns();
	e->tgid = targ_tgid;
	e->held = 0;
	e->seq = 0;
	if (hold) {
		/* counted once sent: a hold that is counted is one the task has */
		if (bpf_send_signal(SIGSTOP_NR) == 0) {
			e->held = 1;
			e->seq = ++hold_seq;
		} else {
			__sync_fetch_and_add(&send_failed, 1);
		}
	}
	bpf_ringbuf_submit(e, 0);
	return 0;
}
