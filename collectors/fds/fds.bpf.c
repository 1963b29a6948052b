// SPDX-License-Identifier: GPL-2.0
/* fds.bpf.c — the fds collector's eBPF lane (--fd-stacks): fds opened and closed by the
 * target, per syscall, counted in the kernel at raw_tp/sys_exit; and, per opening site
 * (the user stack of the call), the fds it opened and how many of them are still open.
 *
 * No tracefs here, so no per-syscall tracepoint: the program runs at every syscall exit
 * of every process, and the target filter comes first (one helper call). For the target
 * it reads the syscall number from pt_regs and looks its kind up in fd_kind, which user
 * space fills from the syscall table's names; only then does it count. An fd's opening
 * site is kept in fd_owner (fd -> stack key); a close, or a dup2/dup3 onto it, takes it
 * off its site's live count. An fd the kernel closes without a close call (exec's
 * close-on-exec, close_range) is taken off by user space, which compares fd_owner with
 * /proc/PID/fd at each poll (record.c).
 *
 * The site's stack is a frame-pointer walk (bpf_get_stack), or under --user-stacks dwarf
 * (and auto, for a target without frame pointers) a copy of the stack's top with the
 * registers the call was made with (bpf/stackcopy.h): the site is keyed by the copy's
 * key, the copy sent to user space once per key and unwound offline by ptop-analyze.
 * Either way the counting stays here, per site; nothing is sent per open.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>

#include "collectors/fds/fds.h"
#include "filter.bpf.h"
#include "sysregs.bpf.h"
#include "stackmap.bpf.h"
#include "stackcopy.bpf.h"

char LICENSE[] SEC("license") = "GPL";

const volatile bool fd_stacks = false; /* --fd-stacks: keep opening sites */
/* how the sites' user stacks are taken: FDS_USER_FP or FDS_USER_COPY */
const volatile __u32 fd_user_stacks = FDS_USER_FP;

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, FDS_MAX_NR);
	__type(key, __u32);
	__type(value, __u32);
} fd_kind SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, FDS_MAX_NR);
	__type(key, __u32);
	__type(value, struct fds_stat);
} fd_stats SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, FDS_CNT_MAX);
	__type(key, __u32);
	__type(value, __u64);
} fd_counters SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, FDS_OWNERS);
	__type(key, __u32);
	__type(value, struct fds_owner);
} fd_owner SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, FDS_SITES);
	__type(key, struct sm_key);
	__type(value, struct fds_site);
} fd_sites SEC(".maps");

SM_STACK_MAP(FDS_SITES, BPF_F_NO_PREALLOC) fd_stacks_map SEC(".maps");

/* the stack walk buffer: sys_exit's programs run with preemption off */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct sm_ips);
} fd_walk SEC(".maps");

/* --user-stacks dwarf: where an open's stack copy is made, one per CPU (as fd_walk) */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct sc_copy);
} fd_copy_buf SEC(".maps");

/* the copies sent already, by key: a copy goes out once, its opens are counted by key */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, FDS_COPIED_ENTRIES);
	__type(key, __u64);
	__type(value, __u8);
} fd_copied SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, FDS_COPY_RING_BYTES);
} fd_copies SEC(".maps");

/* close_range: the fds open in its range at its entry, by thread, until its exit */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, FDS_RANGING);
	__type(key, __u32);
	__type(value, __u64);
} fd_ranging SEC(".maps");

/* the target's VMAs the copies have met (user space fills them every interval) */
SC_VMAS_MAP(4) fd_vmas SEC(".maps");

static __always_inline void counter_inc(__u32 idx)
{
	__u64 *v = bpf_map_lookup_elem(&fd_counters, &idx);

	if (v)
		__sync_fetch_and_add(v, 1);
}

/* FD is no longer open: off its site's live count. The delete decides who takes it off:
 * user space deletes the entries of fds the kernel closed without a close call
 * (record.c), and whoever deletes an entry first is the one that counts it. */
static __always_inline void fd_gone(__u32 fd, bool unseen)
{
	struct fds_owner *o = bpf_map_lookup_elem(&fd_owner, &fd), copy;
	struct fds_site *s;

	if (!o)
		return;
	copy = *o;
	if (bpf_map_delete_elem(&fd_owner, &fd))
		return;
	s = bpf_map_lookup_elem(&fd_sites, &copy.key);
	if (s && s->live)
		__sync_fetch_and_sub(&s->live, 1);
	if (s && unseen)
		__sync_fetch_and_add(&s->closed_unseen, 1);
}

/* FD was opened at the site SK (hash 0: no stack); REPLACES: by dup2 or dup3, which
 * close the fd first when it is open. */
static __always_inline void fd_new(__u32 fd, struct sm_key *sk, bool replaces)
{
	struct fds_site *s, zero = {};
	struct fds_owner o;

	/* an entry for FD: dup2/dup3 onto an open fd closed it; any other call is given
	 * only a free number, so the fd it held was closed without a close call (exec,
	 * close_range) and user space has not yet seen it missing */
	fd_gone(fd, !replaces);
	if (!sk->hash)
		return;
	s = bpf_map_lookup_elem(&fd_sites, sk);
	if (!s) {
		if (bpf_map_update_elem(&fd_sites, sk, &zero, BPF_NOEXIST) &&
		    !bpf_map_lookup_elem(&fd_sites, sk)) {
			counter_inc(FDS_CNT_SITE_FULL);
			return;
		}
		s = bpf_map_lookup_elem(&fd_sites, sk);
		if (!s)
			return;
	}
	__sync_fetch_and_add(&s->opened, 1);
	__sync_fetch_and_add(&s->live, 1);
	o.key = *sk;
	o.opened_ns = bpf_ktime_get_ns();
	if (bpf_map_update_elem(&fd_owner, &fd, &o, BPF_ANY))
		counter_inc(FDS_CNT_OWNER_FULL);
}

/* Copy the user stack of the call (REGS: the registers it was made with), key *SK by the
 * copy and send it once per key (sc_take_send). sys_exit's programs run with interrupts
 * on: bpf_find_vma may be called as often as in a uprobe. */
static __always_inline long take_copy(struct pt_regs *regs, __u64 id, struct sm_key *sk)
{
	__u32 zero = 0;
	struct sc_copy *c = bpf_map_lookup_elem(&fd_copy_buf, &zero);
	long err;

	if (!c)
		return -ENOENT;
	err = sc_take_send(c, &fd_vmas, &fd_copied, &fd_copies, regs, id, sk);
	if (err == -ENOSPC)
		counter_inc(FDS_CNT_COPY_LOST);
	return err;
}

/* Count the fds open in a range of the open-fd bitmap, one word a step. */
struct range_walk {
	unsigned long *bits; /* fdt->open_fds */
	__u32 first, last;   /* the fds of the range (last < max_fds) */
	__u64 count;
};

static long range_step(__u32 i, void *arg)
{
	struct range_walk *w = arg;
	__u32 word = w->first / 64 + i, lo, hi;
	__u64 bits = 0;

	if (word > w->last / 64)
		return 1;
	if (bpf_probe_read_kernel(&bits, sizeof(bits), &w->bits[word]))
		return 1;
	lo = word == w->first / 64 ? w->first % 64 : 0;
	hi = word == w->last / 64 ? w->last % 64 : 63;
	bits >>= lo;
	if (hi - lo < 63)
		bits &= (1ull << (hi - lo + 1)) - 1;
	w->count += __builtin_popcountll(bits);
	return 0;
}

/* close_range's entry: how many fds of its range are open (those it will close), kept
 * for its exit. With CLOSE_RANGE_CLOEXEC it closes none: nothing kept. */
SEC("raw_tp/sys_enter")
int fd_enter(struct bpf_raw_tracepoint_args *ctx)
{
	__u64 id = bpf_get_current_pid_tgid(), nr = ctx->args[1], first, last;
	struct pt_regs *regs = (struct pt_regs *)ctx->args[0];
	struct range_walk w = {};
	struct task_struct *task;
	struct fdtable *fdt;
	__u32 key, tid = (__u32)id, *kind, max_fds;

	if (!ptop_current_is_target(id) || nr >= FDS_MAX_NR)
		return 0;
	key = (__u32)nr;
	kind = bpf_map_lookup_elem(&fd_kind, &key);
	if (!kind || *kind != FDS_K_CLOSE_RANGE)
		return 0;
	if (ptop_sys_arg(regs, 3) & 4 /* CLOSE_RANGE_CLOEXEC */)
		return 0;
	first = (__u32)ptop_sys_arg(regs, 1);
	last = (__u32)ptop_sys_arg(regs, 2);
	task = bpf_get_current_task_btf();
	fdt = BPF_CORE_READ(task, files, fdt);
	max_fds = BPF_CORE_READ(fdt, max_fds);
	if (last >= max_fds)
		last = max_fds ? max_fds - 1 : 0;
	if (max_fds && first <= last) {
		if (last / 64 - first / 64 >= FDS_RANGE_WORDS) { /* too wide to count */
			counter_inc(FDS_CNT_RANGE_LOST);
			return 0;
		}
		w.bits = BPF_CORE_READ(fdt, open_fds);
		w.first = (__u32)first;
		w.last = (__u32)last;
		bpf_loop(FDS_RANGE_WORDS, range_step, &w, 0);
	}
	if (bpf_map_update_elem(&fd_ranging, &tid, &w.count, BPF_ANY))
		counter_inc(FDS_CNT_RANGE_LOST);
	return 0;
}

SEC("raw_tp/sys_exit")
int fd_exit(struct bpf_raw_tracepoint_args *ctx)
{
	struct pt_regs *regs;
	struct fds_stat *st;
	struct sm_key sk = {};
	struct sm_ips *buf;
	__u32 key, zero = 0, *kind, n = 0;
	int fds[2] = {-1, -1};
	long ret;
	__u64 nr, id = bpf_get_current_pid_tgid();

	if (!ptop_current_is_target(id))
		return 0;
	regs = (struct pt_regs *)ctx->args[0];
	nr = ptop_sys_nr(regs);
	if (nr >= FDS_MAX_NR)
		return 0;
	key = (__u32)nr;
	kind = bpf_map_lookup_elem(&fd_kind, &key);
	if (!kind || *kind == FDS_K_NONE)
		return 0;
	st = bpf_map_lookup_elem(&fd_stats, &key);
	if (!st)
		return 0;
	/* fcntl: only the commands that make an fd are opens (failed ones too) */
	if (*kind == FDS_K_FCNTL && ptop_sys_arg(regs, 2) != 0 /* F_DUPFD */ &&
	    ptop_sys_arg(regs, 2) != 1030 /* F_DUPFD_CLOEXEC */)
		return 0;
	ret = (long)ctx->args[1];
	if (ret >= -4095 && ret <= -1) {
		if (*kind == FDS_K_CLOSE_RANGE) {
			__u32 tid = (__u32)id;

			bpf_map_delete_elem(&fd_ranging, &tid);
		}
		st->failed++;
		if (ret == -24 || ret == -23) /* EMFILE, ENFILE */
			st->emfile++;
		return 0;
	}
	switch (*kind) {
	case FDS_K_CLOSE:
		st->closed++;
		if (fd_stacks)
			fd_gone((__u32)ptop_sys_arg(regs, 1), false);
		return 0;
	case FDS_K_CLOSE_RANGE: {
		__u32 tid = (__u32)id;
		__u64 *cnt = bpf_map_lookup_elem(&fd_ranging, &tid);

		if (cnt) { /* none with CLOSE_RANGE_CLOEXEC; lost: counted at its entry */
			st->closed += *cnt;
			bpf_map_delete_elem(&fd_ranging, &tid);
		}
		return 0;
	}
	case FDS_K_PAIR_A1:
	case FDS_K_PAIR_A4:
		if (bpf_probe_read_user(fds, sizeof(fds),
					(void *)ptop_sys_arg(regs, *kind == FDS_K_PAIR_A1 ? 1 : 4)))
			fds[0] = fds[1] = -1;
		n = 2;
		break;
	default:
		fds[0] = (int)ret;
		n = 1;
		break;
	}
	st->opened += n;
	if (!fd_stacks)
		return 0;
	if (fd_user_stacks == FDS_USER_COPY) {
		long err = take_copy(regs, id, &sk);

		/* a copy the ring had no room for: counted as such, the open still
		 * credited to its key (the next open there sends the copy again) */
		if (err && err != -ENOSPC) {
			/* -EAGAIN: the scan's per-CPU state was another scan's meanwhile */
			counter_inc(err == -EAGAIN ? FDS_CNT_STACK_CLOBBERED : FDS_CNT_STACK_FAIL);
			sk.hash = 0;
		}
	} else {
		buf = bpf_map_lookup_elem(&fd_walk, &zero);
		if (!buf || sm_take(ctx, &fd_stacks_map, buf, BPF_F_USER_STACK, &sk)) {
			counter_inc(FDS_CNT_STACK_FAIL);
			sk.hash = 0;
		}
	}
	if (fds[0] >= 0)
		fd_new((__u32)fds[0], &sk, *kind == FDS_K_DUP2);
	if (n == 2 && fds[1] >= 0)
		fd_new((__u32)fds[1], &sk, false);
	return 0;
}
