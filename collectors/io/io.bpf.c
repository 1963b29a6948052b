// SPDX-License-Identifier: GPL-2.0
/* io.bpf.c — the io collector's eBPF lane (--io-events): the target's file-system events
 * (opens denied with EACCES or EPERM, deletions, renames, truncations), one ring buffer
 * record each: they are rare, unlike reads and writes, which are never an event here.
 *
 * raw_tp/sys_exit (no tracefs: no per-syscall tracepoint): after the target filter, the
 * syscall number's kind (filled by user space from the syscall table's names); the paths
 * are read from the caller's memory at exit, with the registers the call was made with.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>

#include "collectors/io/io.h"
#include "filter.bpf.h"

char LICENSE[] SEC("license") = "GPL";

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, IO_MAX_NR);
	__type(key, __u32);
	__type(value, __u32);
} io_kind SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, IO_RINGBUF);
} io_events SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} io_lost SEC(".maps");

static __always_inline __u64 arg(struct pt_regs *regs, int n)
{
#if defined(__TARGET_ARCH_x86)
	switch (n) {
	case 1:
		return BPF_CORE_READ(regs, di);
	case 2:
		return BPF_CORE_READ(regs, si);
	case 3:
		return BPF_CORE_READ(regs, dx);
	default:
		return BPF_CORE_READ(regs, r10);
	}
#elif defined(__TARGET_ARCH_arm64)
	if (n == 1)
		return BPF_CORE_READ(regs, orig_x0);
	return BPF_CORE_READ(regs, regs[n - 1]);
#endif
}

static __always_inline __u64 regs_nr(struct pt_regs *regs)
{
#if defined(__TARGET_ARCH_x86)
	return BPF_CORE_READ(regs, orig_ax);
#elif defined(__TARGET_ARCH_arm64)
	return BPF_CORE_READ(regs, syscallno);
#endif
}

SEC("raw_tp/sys_exit")
int io_exit(struct bpf_raw_tracepoint_args *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct pt_regs *regs;
	struct io_fs_event *e;
	__u32 key, *kind, ev = 0, zero = 0;
	int p1 = 0, p2 = 0, fl = 0, len = 0;
	long ret;
	__u64 nr;

	if (!ptop_current_is_target(id))
		return 0;
	regs = (struct pt_regs *)ctx->args[0];
	nr = regs_nr(regs);
	if (nr >= IO_MAX_NR)
		return 0;
	key = (__u32)nr;
	kind = bpf_map_lookup_elem(&io_kind, &key);
	if (!kind || *kind == IO_K_NONE)
		return 0;
	ret = (long)ctx->args[1];
	switch (*kind) {
	case IO_K_OPEN:
	case IO_K_OPENAT:
		if (ret != -13 && ret != -1) /* EACCES, EPERM */
			return 0;
		ev = IO_EV_DENIED;
		p1 = *kind == IO_K_OPEN ? 1 : 2;
		fl = *kind == IO_K_OPEN ? 2 : 3;
		break;
	case IO_K_UNLINK:
	case IO_K_UNLINKAT:
		if (ret)
			return 0;
		ev = IO_EV_DELETED;
		p1 = *kind == IO_K_UNLINK ? 1 : 2;
		fl = *kind == IO_K_UNLINK ? 0 : 3;
		break;
	case IO_K_RENAME:
	case IO_K_RENAMEAT:
		if (ret)
			return 0;
		ev = IO_EV_RENAMED;
		p1 = *kind == IO_K_RENAME ? 1 : 2;
		p2 = *kind == IO_K_RENAME ? 2 : 4;
		break;
	case IO_K_TRUNCATE:
	case IO_K_FTRUNCATE:
		if (ret)
			return 0;
		ev = IO_EV_TRUNCATED;
		p1 = *kind == IO_K_TRUNCATE ? 1 : 0;
		len = 2;
		break;
	default:
		return 0;
	}
	e = bpf_ringbuf_reserve(&io_events, sizeof(*e), 0);
	if (!e) {
		__u64 *lost = bpf_map_lookup_elem(&io_lost, &zero);

		if (lost)
			*lost += 1;
		return 0;
	}
	e->ts = bpf_ktime_get_ns();
	e->tid = (__u32)id;
	e->kind = ev;
	e->ret = ret;
	e->nr = key;
	e->flags = fl ? arg(regs, fl) : 0;
	e->length = len ? arg(regs, len) : 0;
	e->fd = p1 ? -1 : (__s32)arg(regs, 1);
	e->path[0] = 0;
	e->path2[0] = 0;
	if (p1 && bpf_probe_read_user_str(e->path, sizeof(e->path), (void *)arg(regs, p1)) < 0)
		e->path[0] = 0;
	if (p2 && bpf_probe_read_user_str(e->path2, sizeof(e->path2), (void *)arg(regs, p2)) < 0)
		e->path2[0] = 0;
	bpf_ringbuf_submit(e, 0);
	return 0;
}
