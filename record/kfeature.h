/* kfeature.h — the kernel features ptop's eBPF lanes need: one table, each feature with
 * the first Linux version that has it and the probe that finds it on the running kernel.
 *
 * A probe asks the kernel, never its version: a feature is there when a tiny program or
 * map of its kind loads (libbpf_probe_bpf_*), when a link of its kind is accepted, or
 * when the kernel's BTF names the tracepoint. Each probe runs once per process (the
 * answer is kept), so --caps and a run probe alike and agree.
 *
 * Test hook: PTOP_TEST_REFUSE, a comma-separated list of feature names
 * ("uprobe_multi,tp_btf:sock_send_length"), makes those features read as absent, with
 * "refused by PTOP_TEST_REFUSE" as the reason, so that each fallback lane can be tested
 * on a kernel that has the preferred one.
 */
#ifndef PTOP_KFEATURE_H
#define PTOP_KFEATURE_H

#include <stdbool.h>
#include <stddef.h>

enum kfeature {
	KF_BTF,			/* /sys/kernel/btf/vmlinux */
	KF_TP_BTF,		/* BTF-typed raw tracepoint programs */
	KF_RINGBUF,		/* BPF_MAP_TYPE_RINGBUF */
	KF_TASK_STORAGE,	/* BPF_MAP_TYPE_TASK_STORAGE */
	KF_BPF_LOOP,		/* the bpf_loop helper */
	KF_FIND_VMA,		/* the bpf_find_vma helper */
	KF_ATTACH_COOKIE,	/* bpf_get_attach_cookie on perf-event kprobes/uprobes */
	KF_UPROBE_MULTI,	/* BPF_TRACE_UPROBE_MULTI links */
	KF_TP_SOCK_SEND_LENGTH,	/* the sock:sock_send_length tracepoint */
	KF_TP_SOCK_RECV_LENGTH,	/* the sock:sock_recv_length tracepoint */
	KF_TP_IO_URING_SUBMIT,	/* io_uring:io_uring_submit_req */
	KF_TP_IO_URING_COMPLETE,/* io_uring:io_uring_complete */
	KF_COUNT
};

struct kfeature_info {
	const char *name;	/* as PTOP_TEST_REFUSE and --caps name it: "uprobe_multi" */
	const char *since;	/* the first Linux version that has it: "6.6" */
	const char *probe;	/* how it is probed, for --caps */
	const char *what;	/* what it is, in a few words */
};

/* The table entry of F. */
const struct kfeature_info *kfeature_info(enum kfeature f);

/* Has the running kernel F? Probes once per process (needs the privileges to load BPF:
 * without them the answer is false, with that reason). WHY (may be NULL) gets a short
 * reason when it has not: "needs Linux 6.6: uprobe_multi (link refused: Invalid argument)". */
bool kfeature_have(enum kfeature f, char *why, size_t len);

/* Is NAME in PTOP_TEST_REFUSE? */
bool kfeature_refused(const char *name);

#endif
