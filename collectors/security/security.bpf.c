// SPDX-License-Identifier: GPL-2.0
/* security.bpf.c — the security collector's eBPF lane: memory the target makes executable
 * (mmap and mprotect/pkey_mprotect asking for PROT_EXEC), ptrace attaches to the target or
 * by it, and the execs of the target that changed its credentials (set-user-ID,
 * set-group-ID, file capabilities).
 *
 * No tracefs here, so no per-syscall tracepoint: raw_tp/sys_enter and raw_tp/sys_exit run
 * at every syscall of the machine. The entry compares the syscall number with the few it
 * wants first (user space sets them from the syscall table), then the target (one helper
 * call), then the protection asked for; only a call that asks for PROT_EXEC is kept, by
 * thread, until its exit. The exit looks the thread up (calls of other threads cost a
 * failed hash lookup), reads the VMA at the address (bpf_find_vma: its range and file),
 * takes the user stack (a frame-pointer walk, or a stack copy unwound offline) and sends
 * one event through a ring. ptrace attaches are kept from any process whose tracee is the
 * target's main thread, and from the target whatever its tracee.
 *
 * tp_btf/sched_process_exec sees the target's execs with their new credentials: one that
 * made the effective ids differ from the real ones, gave a non-root user capabilities, or
 * that the kernel made a secure exec (AT_SECURE) is sent.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>

#include "collectors/security/security.h"
#include "filter.bpf.h"
#include "sysregs.bpf.h"
#include "stackmap.bpf.h"
#include "stackcopy.bpf.h"

char LICENSE[] SEC("license") = "GPL";

/* the syscall numbers (user space: from the syscall table); -1: none here */
const volatile __s64 nr_mmap = -1;
const volatile __s64 nr_mprotect = -1;
const volatile __s64 nr_pkey_mprotect = -1;
const volatile __s64 nr_ptrace = -1;
const volatile __u32 sec_user_stacks = SEC_USER_FP;

#define PROT_WRITE 0x2
#define PROT_EXEC 0x4
#define PTRACE_ATTACH 16
#define PTRACE_SEIZE 0x4206

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, SEC_PENDING);
	__type(key, __u32);
	__type(value, struct sec_pending);
} sec_pending SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, SEC_RING_BYTES);
} sec_events SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, SEC_CNT_MAX);
	__type(key, __u32);
	__type(value, __u64);
} sec_counters SEC(".maps");

/* an event is built here, not on the BPF stack */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct sec_event);
} sec_ev_buf SEC(".maps");

SM_STACK_MAP(SEC_STACKS, BPF_F_NO_PREALLOC) sec_stacks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct sm_ips);
} sec_walk SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct sc_copy);
} sec_copy_buf SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, SEC_COPIED_ENTRIES);
	__type(key, __u64);
	__type(value, __u8);
} sec_copied SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, SEC_COPY_RING_BYTES);
} sec_copies SEC(".maps");

SC_VMAS_MAP(4) sec_vmas SEC(".maps");

static __always_inline void counter_inc(__u32 idx)
{
	__u64 *v = bpf_map_lookup_elem(&sec_counters, &idx);

	if (v)
		__sync_fetch_and_add(v, 1);
}

SEC("raw_tp/sys_enter")
int sec_enter(struct bpf_raw_tracepoint_args *ctx)
{
	__s64 nr = (__s64)ctx->args[1];
	struct pt_regs *regs = (struct pt_regs *)ctx->args[0];
	__u64 id, prot;
	struct sec_pending p = {};
	__u32 tid;

	if (nr != nr_mmap && nr != nr_mprotect && nr != nr_pkey_mprotect && nr != nr_ptrace)
		return 0;
	id = bpf_get_current_pid_tgid();
	tid = (__u32)id;
	if (nr == nr_ptrace) {
		__u64 req = ptop_sys_arg(regs, 1);
		__u32 tracee = (__u32)ptop_sys_arg(regs, 2);

		if (req != PTRACE_ATTACH && req != PTRACE_SEIZE)
			return 0;
		/* the target's main thread by anyone (pid mode), or anyone by the target */
		if (!(targ_tgid && tracee == targ_tgid) && !ptop_current_is_target(id))
			return 0;
		p.kind = SEC_K_PTRACE;
		p.flags = (__u32)req;
		p.fd = (__s32)tracee;
	} else {
		if (!ptop_current_is_target(id))
			return 0;
		prot = ptop_sys_arg(regs, 3); /* mmap, mprotect, pkey_mprotect: the third */
		if (!(prot & PROT_EXEC))
			return 0;
		p.kind = nr == nr_mmap ? SEC_K_MMAP : SEC_K_MPROTECT;
		p.addr = ptop_sys_arg(regs, 1);
		p.len = ptop_sys_arg(regs, 2);
		p.prot = (__u32)prot;
		if (nr == nr_mmap) {
			p.flags = (__u32)ptop_sys_arg(regs, 4);
			p.fd = (__s32)ptop_sys_arg(regs, 5);
		} else {
			p.fd = -1;
		}
	}
	if (bpf_map_update_elem(&sec_pending, &tid, &p, BPF_ANY))
		counter_inc(SEC_CNT_PENDING_FULL);
	return 0;
}

/* bpf_find_vma's callback: the VMA's range and file into the event (the file's pointer
 * in e->fp, for walk_path) */
struct vma_ctx {
	struct sec_event *e;
	struct file *f;
};

static long vma_cb(struct task_struct *task, struct vm_area_struct *vma, void *data)
{
	struct vma_ctx *v = data;
	struct sec_event *e = v->e;
	struct file *f = BPF_CORE_READ(vma, vm_file);
	const unsigned char *name;

	e->has_vma = 1;
	e->vm_start = BPF_CORE_READ(vma, vm_start);
	e->vm_end = BPF_CORE_READ(vma, vm_end);
	e->anon = !f;
	v->f = f;
	if (f) {
		e->ino = BPF_CORE_READ(f, f_inode, i_ino);
		name = BPF_CORE_READ(f, f_path.dentry, d_name.name);
		bpf_probe_read_kernel_str(e->file, sizeof(e->file), name);
	}
	return 0;
}

/* F's path into e->comp, its own name first, from dentry to parent and, at a mount's
 * root, on from the dentry it is mounted on, up to the task's root (as /proc/PID/maps
 * and d_path have it: a chroot's or a container's own), else the mounts' (every read
 * is a probe read: a file unmapped meanwhile gives a path cut short, not a fault). One
 * step per bpf_loop call, so that the verifier checks the step once. */
struct path_walk {
	struct sec_event *e;
	struct dentry *d;
	struct mount *mnt;
	struct dentry *root_d; /* the task's root (chroot, container): where the path starts */
	struct mount *root_mnt;
	__u32 n;
};

/* The struct mount a struct vfsmount is the member mnt of (CO-RE: its offset as the
 * running kernel has it). */
static __always_inline struct mount *real_mount(struct vfsmount *vm)
{
	return (struct mount *)((void *)vm - bpf_core_field_offset(struct mount, mnt));
}

static long path_step(__u32 i, void *arg)
{
	struct path_walk *w = arg;
	struct dentry *d = w->d, *parent = BPF_CORE_READ(d, d_parent); /* locals: CO-RE */
	struct mount *mnt = w->mnt, *mp;

	if (d == w->root_d && mnt == w->root_mnt) { /* the task's root, as d_path stops */
		w->e->path_done = 1;
		return 1;
	}
	if (d == parent || !parent) { /* a mount's root: on to where it is mounted */
		mp = BPF_CORE_READ(mnt, mnt_parent);
		if (!mp || mp == mnt) {
			w->e->path_done = 1;
			return 1;
		}
		w->d = BPF_CORE_READ(mnt, mnt_mountpoint);
		w->mnt = mp;
		return 0;
	}
	if (w->n >= SEC_COMPS)
		return 1;
	bpf_probe_read_kernel_str(w->e->comp[w->n & (SEC_COMPS - 1)], SEC_COMP_LEN,
				  BPF_CORE_READ(d, d_name.name));
	w->n++;
	w->d = parent;
	return 0;
}

static __always_inline void walk_path(struct sec_event *e, struct file *f)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct path_walk w = {
	    .e = e,
	    .d = BPF_CORE_READ(f, f_path.dentry),
	    .mnt = real_mount(BPF_CORE_READ(f, f_path.mnt)),
	    .root_d = BPF_CORE_READ(task, fs, root.dentry),
	    .root_mnt = real_mount(BPF_CORE_READ(task, fs, root.mnt)),
	};

	bpf_loop(SEC_COMPS + 8, path_step, &w, 0);
	e->comps = w.n;
}

/* The user stack of the call (REGS: the registers it was made with) into *SK: a walk, or
 * a copy sent once per key. 0 or -errno. */
static __always_inline long take_stack(void *ctx, struct pt_regs *regs, __u64 id,
				       struct sm_key *sk)
{
	struct sc_copy *c;
	struct sm_ips *buf;
	__u32 zero = 0;
	long err;

	if (sec_user_stacks != SEC_USER_COPY) {
		buf = bpf_map_lookup_elem(&sec_walk, &zero);
		if (!buf)
			return -ENOENT;
		return sm_take(ctx, &sec_stacks, buf, BPF_F_USER_STACK, sk);
	}
	c = bpf_map_lookup_elem(&sec_copy_buf, &zero);
	if (!c)
		return -ENOENT;
	err = sc_take_send(c, &sec_vmas, &sec_copied, &sec_copies, regs, id, sk);
	if (err == -ENOSPC) {
		counter_inc(SEC_CNT_COPY_LOST);
		return 0; /* the event keeps its key; the next call there sends the copy */
	}
	return err;
}

SEC("raw_tp/sys_exit")
int sec_exit(struct bpf_raw_tracepoint_args *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tid = (__u32)id, zero = 0;
	struct pt_regs *regs = (struct pt_regs *)ctx->args[0];
	struct task_struct *task;
	struct sec_pending *p;
	struct sec_event *e;
	__u64 sz;

	p = bpf_map_lookup_elem(&sec_pending, &tid);
	if (!p)
		return 0;
	e = bpf_map_lookup_elem(&sec_ev_buf, &zero);
	if (!e) {
		bpf_map_delete_elem(&sec_pending, &tid);
		return 0;
	}
	__builtin_memset(e, 0, offsetof(struct sec_event, comp));
	e->kind = p->kind;
	e->prot = p->prot;
	e->flags = p->flags;
	e->fd = p->fd;
	e->addr = p->addr;
	e->len = p->len;
	bpf_map_delete_elem(&sec_pending, &tid);
	e->time_ns = bpf_ktime_get_ns();
	e->pid = (__u32)(id >> 32);
	e->tid = tid;
	e->ret = (__s64)ctx->args[1];
	bpf_get_current_comm(e->comm, sizeof(e->comm));
	if (e->kind != SEC_K_PTRACE && !(e->ret < 0 && e->ret >= -4095)) {
		struct vma_ctx v = {.e = e}; /* bpf_find_vma's context must be on the stack */
		__u64 at = e->kind == SEC_K_MMAP ? (__u64)e->ret : e->addr;

		task = bpf_get_current_task_btf();
		bpf_find_vma(task, at, vma_cb, &v, 0);
		if (v.f)
			walk_path(e, v.f);
	}
	if (take_stack(ctx, regs, id, &e->stack)) {
		e->stack.hash = 0;
		counter_inc(SEC_CNT_STACK_FAIL);
	}
	/* the path's components that were read only: an anonymous mapping's event is a
	 * quarter of the whole */
	sz = offsetof(struct sec_event, comp) + (__u64)(e->comps & (SEC_COMPS - 1)) * SEC_COMP_LEN;
	if (e->comps >= SEC_COMPS)
		sz = sizeof(*e);
	if (bpf_ringbuf_output(&sec_events, e, sz, 0))
		counter_inc(SEC_CNT_RING_FULL);
	return 0;
}

SEC("tp_btf/sched_process_exec")
int BPF_PROG(sec_exec, struct task_struct *p, pid_t old_pid, struct linux_binprm *bprm)
{
	const struct cred *cr;
	struct sec_event *e;
	__u32 zero = 0;
	__u64 capp = 0, cape = 0;
	bool changed;

	if (!ptop_task_is_target(p))
		return 0;
	cr = p->cred;
	e = bpf_map_lookup_elem(&sec_ev_buf, &zero);
	if (!e)
		return 0;
	__builtin_memset(e, 0, offsetof(struct sec_event, comp));
	e->uid = BPF_CORE_READ(cr, uid.val);
	e->euid = BPF_CORE_READ(cr, euid.val);
	e->gid = BPF_CORE_READ(cr, gid.val);
	e->egid = BPF_CORE_READ(cr, egid.val);
	/* kernel_cap_t: two u32 before 6.3, one u64 since: the same 8 bytes */
	bpf_probe_read_kernel(&capp, sizeof(capp), &cr->cap_permitted);
	bpf_probe_read_kernel(&cape, sizeof(cape), &cr->cap_effective);
	e->cap_permitted = capp;
	e->cap_effective = cape;
	if (bpf_core_field_exists(bprm->secureexec))
		e->secureexec = BPF_CORE_READ_BITFIELD_PROBED(bprm, secureexec);
	changed = e->euid != e->uid || e->egid != e->gid || e->secureexec ||
		  (e->uid != 0 && capp != 0);
	if (!changed)
		return 0;
	e->kind = SEC_K_EXEC;
	e->time_ns = bpf_ktime_get_ns();
	e->pid = (__u32)p->tgid;
	e->tid = (__u32)p->pid;
	e->fd = -1;
	bpf_probe_read_kernel_str(e->file, sizeof(e->file), BPF_CORE_READ(bprm, filename));
	bpf_probe_read_kernel_str(e->comm, sizeof(e->comm), p->comm);
	if (bpf_ringbuf_output(&sec_events, e, offsetof(struct sec_event, comp), 0))
		counter_inc(SEC_CNT_RING_FULL);
	return 0;
}

/* Failed capability checks of the target, per capability (kernels with the
 * capability:cap_capable tracepoint, 6.14 and later; user space turns the program off
 * where the tracepoint is not). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, SEC_CAPS);
	__type(key, __u32);
	__type(value, __u64);
} sec_cap_denied SEC(".maps");

SEC("tp_btf/cap_capable")
int BPF_PROG(sec_cap, const struct cred *cred, struct user_namespace *target_ns,
	     const struct user_namespace *capable_ns, int cap, int ret)
{
	__u32 k = (__u32)cap;
	__u64 *v;

	if (!ret || !ptop_current_is_target(bpf_get_current_pid_tgid()))
		return 0;
	if (k >= SEC_CAPS)
		k = SEC_CAPS - 1; /* beyond the known ones: the last slot */
	v = bpf_map_lookup_elem(&sec_cap_denied, &k);
	if (v)
		(*v)++;
	return 0;
}
