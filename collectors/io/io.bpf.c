// SPDX-License-Identifier: GPL-2.0
/* io.bpf.c — the io collector's eBPF lanes.
 *
 * --io-events: the target's file-system events (opens denied with EACCES or EPERM, files
 * created, deletions, renames, truncations), one ring buffer record each: they are rare.
 *
 * --io-files: per file and operation, aggregated in the kernel (never an event per read or
 * write): raw_tp/sys_enter keeps the entry time per thread (io_start); raw_tp/sys_exit
 * resolves the fd to its struct file through the current task (files->fdt->fd[fd]) and
 * adds the call to io_files, keyed by the file's identity (dev, ino), the process and the
 * operation: calls, errors, bytes, time in the call, its log2 histogram; the maximum per
 * generation in the entry. A file identity seen the first time (io_seen) sends one io_seen
 * record with its path walked up its dentries (crossing mounts). io_uring requests are
 * counted at tp_btf/io_uring_submit_req (by the target's threads) and
 * tp_btf/io_uring_complete (on the rings the target submitted to) by opcode; per file at
 * their completion (a request's file is assigned after its submission's tracepoint), with
 * the time from submission to completion.
 *
 * raw_tp (no tracefs: no per-syscall tracepoint): after the target filter, the syscall
 * number's kind (filled by user space from the syscall table's names); the paths are read
 * from the caller's memory at exit, with the registers the call was made with.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>

#include "collectors/io/io.h"
#include "filter.bpf.h"
#include "sysregs.bpf.h"

char LICENSE[] SEC("license") = "GPL";

/* include/linux/fs.h: the open created the file (a #define, not in BTF; checked by
 * collectors/io/e2e/io_files.sh: a new file is "created", an existing one is not). */
#define FMODE_CREATED_BIT (1u << 20)

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

/* What runs (set before load: the branches of a lane that is off are removed). */
const volatile bool events_on = false; /* --io-events */
const volatile bool files_on = false;  /* --io-files */

/* The generation the maxima are written under; the recorder flips it each poll. */
__u64 io_gen = 0;

struct start {
	__u64 ts;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, IO_MAX_INFLIGHT);
	__type(key, __u32);
	__type(value, struct start);
} io_start SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, IO_MAX_FILES);
	__type(key, struct io_file_key);
	__type(value, struct io_file_val);
} io_files SEC(".maps");


struct seen_key {
	__u64 ino;
	__u32 dev;
	__u32 tgid;
	__u32 gen;
	__u32 pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4 * IO_MAX_FILES);
	__type(key, struct seen_key);
	__type(value, __u8);
} io_seen SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, IO_URING_OPS);
	__type(key, __u32);
	__type(value, struct io_uring_val);
} io_uring SEC(".maps");

/* The rings (struct io_ring_ctx) the target submitted to: their completions are its. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 1024);
	__type(key, __u64);
	__type(value, __u32);
} io_rings SEC(".maps");

/* The submission time of the target's io_uring requests in flight, by request. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, IO_MAX_INFLIGHT);
	__type(key, __u64);
	__type(value, __u64);
} io_req_start SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, IO_CNT_MAX);
	__type(key, __u32);
	__type(value, __u64);
} io_counters SEC(".maps");

static __always_inline void counter_inc(__u32 idx)
{
	__u64 *v = bpf_map_lookup_elem(&io_counters, &idx);

	if (v)
		*v += 1;
}

/* The current task's struct file of FD, or NULL. */
static __always_inline struct file *fd_file(__s64 fd)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	struct fdtable *fdt;
	struct file **fds, *f = NULL;
	unsigned int max;

	if (fd < 0)
		return NULL;
	fdt = BPF_CORE_READ(task, files, fdt);
	if (!fdt)
		return NULL;
	max = BPF_CORE_READ(fdt, max_fds);
	if ((__u64)fd >= max)
		return NULL;
	fds = BPF_CORE_READ(fdt, fd);
	if (!fds || bpf_probe_read_kernel(&f, sizeof(f), &fds[fd]))
		return NULL;
	return f;
}

/* Fill K's file identity from F; false if F has no inode. */
static __always_inline bool file_key(struct file *f, struct io_file_key *k)
{
	struct inode *in = BPF_CORE_READ(f, f_inode);

	if (!in)
		return false;
	k->ino = BPF_CORE_READ(in, i_ino);
	k->dev = BPF_CORE_READ(in, i_sb, s_dev);
	k->mode = BPF_CORE_READ(in, i_mode) & 0170000;
	k->gen = BPF_CORE_READ(in, i_generation);
	return true;
}

/* The walk up a file's dentries, written straight into the ring buffer record E
 * reserved before it (struct io_seen, or struct io_seen_long for a path that did not fit
 * in it; no per-CPU scratch record: a program preempted mid-walk, on the same CPU, would
 * have it overwritten by the next). The count of names lives in the record, not on the
 * BPF stack: the verifier knows a count on the stack exactly, one value per iteration,
 * and verified all that follows the loop once per value (84,000 instructions processed
 * for io_exit, bench/README.md "Verified instructions"); ring buffer memory is unknown
 * to it. */
struct io_walk {
	struct dentry *d;
	struct mount *mnt;
	void *e;
};

/* One step up from W->d: to its parent, returning the dentry whose name is the next
 * component; else NULL: on to its mount point at the root of its mount (W->d set), or
 * done (W->d NULL: the root reached; a record's truncated stays set until then, so a
 * walk whose loop ran out is cut).
 * (W's fields are copied into locals: a CO-RE read of W's own fields would relocate
 * against a type the kernel lacks.) */
static __always_inline struct dentry *walk_up(struct io_walk *w)
{
	struct dentry *d = w->d, *parent, *mroot;
	struct mount *mnt = w->mnt, *mp;
	struct task_struct *task;
	struct fs_struct *fs;

	if (!d || !w->e)
		goto done;
	/* the process's root (a chroot): the walk ends there, as d_path() and /proc/PID/fd
	 * end theirs. Read at each step, not kept in W: two more pointers on io_exit's stack
	 * take its stack and this callback's past the verifier's 512 bytes. */
	task = (struct task_struct *)bpf_get_current_task();
	fs = BPF_CORE_READ(task, fs);
	if (fs && d == BPF_CORE_READ(fs, root.dentry) &&
	    &mnt->mnt == BPF_CORE_READ(fs, root.mnt))
		goto done;
	mroot = BPF_CORE_READ(mnt, mnt.mnt_root);
	if (d == mroot) { /* the root of its mount: on to the mount point */
		mp = BPF_CORE_READ(mnt, mnt_parent);
		if (!mp || mp == mnt)
			goto done;
		w->d = BPF_CORE_READ(mnt, mnt_mountpoint);
		w->mnt = mp;
		return NULL;
	}
	parent = BPF_CORE_READ(d, d_parent);
	if (!parent || parent == d)
		goto done;
	w->d = parent;
	return d;
done:
	w->d = NULL;
	return NULL;
}

/* One step of the walk into a struct io_seen: a name of IO_NAME - 1 bytes at most
 * (longer: cut, its bit set in cut), IO_DEPTH of them (deeper: truncated). */
static long walk_step(__u32 i, void *ctx)
{
	struct io_walk *w = ctx;
	struct io_seen *e = w->e;
	struct dentry *d = walk_up(w);
	const unsigned char *name;
	char c = 0;
	long len;
	__u32 n;

	if (!d) {
		if (w->d)
			return 0;
		e->truncated = 0; /* the root reached */
		return 1;
	}
	n = e->depth;
	if (n >= IO_DEPTH) {
		e->truncated = 1;
		return 1;
	}
	name = BPF_CORE_READ(d, d_name.name);
	len = bpf_probe_read_kernel_str(e->name[n], IO_NAME, name);
	if (len < 0)
		e->name[n][0] = 0;
	else if (len == IO_NAME && /* filled: cut if the name goes on */
		 !bpf_probe_read_kernel(&c, 1, name + IO_NAME - 1) && c)
		e->cut |= 1u << n;
	e->depth = n + 1;
	return 0;
}

/* One step of the walk into a struct io_seen_long: each name NUL-terminated after the
 * last, until IO_PATH_LONG bytes are used (then truncated). */
static long walk_long(__u32 i, void *ctx)
{
	struct io_walk *w = ctx;
	struct io_seen_long *e = w->e;
	struct dentry *d = walk_up(w);
	const unsigned char *name;
	__u32 off;
	long len;

	if (!d) {
		if (w->d)
			return 0;
		e->truncated = 0; /* the root reached */
		return 1;
	}
	off = e->len;
	if (off >= IO_PATH_LONG || BPF_CORE_READ(d, d_name.len) >= IO_SEEN_NAME) {
		e->truncated = 1;
		return 1;
	}
	off &= IO_PATH_LONG - 1; /* what the verifier needs: off + IO_SEEN_NAME fits in buf */
	name = BPF_CORE_READ(d, d_name.name);
	len = bpf_probe_read_kernel_str(&e->buf[off], IO_SEEN_NAME, name);
	if (len <= 0) {
		e->buf[off] = 0;
		len = 1;
	}
	e->len = off + (__u32)len;
	return 0;
}

/* The path of F into a ring buffer io_seen record, walked up its dentries (and up the
 * mounts it crosses), the first time the process sees the file; when it does not fit
 * there (deeper than IO_DEPTH, or a name cut), walked again into an io_seen_long record
 * sent instead (cut only past PATH_MAX bytes). A record is reserved first and filled in
 * place (nothing per CPU is shared across a preemption). */
static __always_inline void send_seen(struct file *f, const struct io_file_key *k, __u32 tid)
{
	struct seen_key sk = {.ino = k->ino, .dev = k->dev, .tgid = k->tgid, .gen = k->gen};
	struct io_walk w = {};
	struct io_seen_long *l;
	struct vfsmount *vm;
	struct io_seen *e;
	__u8 one = 1;

	if (bpf_map_lookup_elem(&io_seen, &sk) ||
	    bpf_map_update_elem(&io_seen, &sk, &one, BPF_NOEXIST))
		return; /* seen before (a look-up first: an LRU update costs much more) */
	e = bpf_ringbuf_reserve(&io_events, sizeof(*e), 0);
	if (!e) {
		counter_inc(IO_CNT_SEEN_LOST);
		bpf_map_delete_elem(&io_seen, &sk); /* try again at its next call */
		return;
	}
	e->depth = 0;
	e->truncated = 1; /* until the walk reaches the root */
	e->cut = 0;
	w.d = BPF_CORE_READ(f, f_path.dentry);
	vm = BPF_CORE_READ(f, f_path.mnt);
	w.mnt = (struct mount *)((void *)vm - bpf_core_field_offset(struct mount, mnt));
	w.e = e;
	bpf_loop(IO_DEPTH + 8, walk_step, &w, 0);
	e->ts = bpf_ktime_get_ns();
	e->tid = tid;
	e->kind = IO_EV_SEEN;
	e->ino = k->ino;
	e->dev = k->dev;
	e->tgid = k->tgid;
	e->gen = k->gen;
	if (!e->truncated && !e->cut) {
		bpf_ringbuf_submit(e, 0);
		return;
	}
	/* the whole path, when the ring has room (else the short one, marked where cut) */
	l = bpf_ringbuf_reserve(&io_events, sizeof(*l), 0);
	if (!l) {
		bpf_ringbuf_submit(e, 0);
		return;
	}
	bpf_ringbuf_discard(e, 0);
	l->len = 0;
	l->truncated = 1;
	w.d = BPF_CORE_READ(f, f_path.dentry);
	w.mnt = (struct mount *)((void *)vm - bpf_core_field_offset(struct mount, mnt));
	w.e = l;
	bpf_loop(IO_PATH_LONG / 2 + IO_DEPTH, walk_long, &w, 0);
	l->ts = bpf_ktime_get_ns();
	l->tid = tid;
	l->kind = IO_EV_SEEN_LONG;
	l->ino = k->ino;
	l->dev = k->dev;
	l->tgid = k->tgid;
	l->gen = k->gen;
	l->pad = 0;
	bpf_ringbuf_submit(l, 0);
}

/* Add one call to F's (K's) entry, and to its generation's maximum. */
static __always_inline void file_add(struct io_file_key *k, long ret, __u64 dt, bool timed)
{
	struct io_file_val *v, zero = {};
	__u64 gen;

	v = bpf_map_lookup_elem(&io_files, k);
	if (!v) {
		if (bpf_map_update_elem(&io_files, k, &zero, BPF_NOEXIST) &&
		    !bpf_map_lookup_elem(&io_files, k)) {
			counter_inc(IO_CNT_FILES_FULL);
			return;
		}
		v = bpf_map_lookup_elem(&io_files, k);
		if (!v)
			return;
	}
	v->calls++;
	if (ret < 0)
		v->errors++;
	else
		v->bytes += (__u64)ret;
	if (!timed)
		return;
	v->time_ns += dt;
	v->timed++;
	v->hist[ptop_log2_bucket(dt, IO_HIST)]++;
	gen = io_gen;
	if (v->max_gen != gen) {
		v->max_gen = gen;
		v->max_ns = dt;
	} else if (dt > v->max_ns) {
		v->max_ns = dt;
	}
}

/* A per-file operation OP's exit: resolve its fd and count it. */
static __always_inline void op_exit(__u64 id, struct pt_regs *regs, __u32 op, long ret)
{
	struct io_file_key k = {};
	struct start *st;
	struct file *f;
	__u32 tid = (__u32)id;
	__u64 dt = 0;
	bool timed = false;

	st = bpf_map_lookup_elem(&io_start, &tid);
	if (st && st->ts) { /* the entry stays, emptied: no delete per call */
		dt = bpf_ktime_get_ns() - st->ts;
		timed = true;
		st->ts = 0;
	}
	f = fd_file((__s64)(int)ptop_sys_arg(regs, op == IO_OP_SENDFILE ? 2 : 1));
	if (!f || !file_key(f, &k)) {
		if (ret >= 0) /* it had a file: closed by another thread meanwhile */
			counter_inc(IO_CNT_NO_FILE);
		return;
	}
	k.tgid = (__u32)(id >> 32);
	k.op = (__u16)op;
	if (op == IO_OP_FSYNC || op == IO_OP_FDATASYNC || op == IO_OP_SYNC_FILE_RANGE)
		ret = ret < 0 ? ret : 0;
	/* its path first: an entry of io_files the recorder reads has its path sent */
	send_seen(f, &k, tid);
	file_add(&k, ret, dt, timed);
}

SEC("raw_tp/sys_enter")
int io_enter(struct bpf_raw_tracepoint_args *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct start st, *sp;
	__u32 key, tid, *kind;
	__u64 nr;

	if (!files_on || !ptop_current_is_target(id))
		return 0;
	nr = ctx->args[1];
	if (nr >= IO_MAX_NR)
		return 0;
	key = (__u32)nr;
	kind = bpf_map_lookup_elem(&io_kind, &key);
	if (!kind || *kind < IO_K_OP)
		return 0;
	tid = (__u32)id;
	sp = bpf_map_lookup_elem(&io_start, &tid); /* the thread's entry, once made */
	if (sp) {
		sp->ts = bpf_ktime_get_ns();
		return 0;
	}
	st.ts = bpf_ktime_get_ns();
	if (bpf_map_update_elem(&io_start, &tid, &st, BPF_ANY))
		counter_inc(IO_CNT_INFLIGHT_FULL);
	return 0;
}

SEC("tp_btf/io_uring_submit_req")
int BPF_PROG(io_uring_submit, struct io_kiocb *req)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct io_uring_val *u;
	__u64 ring, ts, rq;
	__u32 op, tgid = (__u32)(id >> 32);

	if (!ptop_current_is_target(id))
		return 0;
	op = BPF_CORE_READ(req, opcode);
	ring = (__u64)BPF_CORE_READ(req, ctx);
	bpf_map_update_elem(&io_rings, &ring, &tgid, BPF_ANY);
	if (op >= IO_URING_OPS)
		return 0;
	u = bpf_map_lookup_elem(&io_uring, &op);
	if (u)
		u->submitted++;
	ts = bpf_ktime_get_ns();
	rq = (__u64)req;
	bpf_map_update_elem(&io_req_start, &rq, &ts, BPF_ANY);
	return 0;
}

SEC("tp_btf/io_uring_complete")
int BPF_PROG(io_uring_done, struct io_ring_ctx *rctx, void *reqp, struct io_uring_cqe *cqe)
{
	struct io_kiocb *req = reqp;
	struct io_file_key k = {};
	struct io_uring_val *u;
	struct file *f;
	__u64 ring = (__u64)rctx, rq, *ts, dt = 0;
	bool timed = false;
	__u32 op, *tgid;
	__s32 res;

	tgid = bpf_map_lookup_elem(&io_rings, &ring);
	if (!tgid || !req)
		return 0;
	op = BPF_CORE_READ(req, opcode);
	if (op >= IO_URING_OPS)
		return 0;
	res = BPF_CORE_READ(cqe, res);
	u = bpf_map_lookup_elem(&io_uring, &op);
	if (u) {
		u->completed++;
		if (res < 0)
			u->errors++;
		else
			u->bytes += (__u64)res;
	}
	rq = (__u64)req;
	ts = bpf_map_lookup_elem(&io_req_start, &rq);
	if (ts) {
		dt = bpf_ktime_get_ns() - *ts;
		timed = true;
		bpf_map_delete_elem(&io_req_start, &rq);
	}
	/* the request's file is assigned when it is issued, after the submission's
	 * tracepoint: a file's io_uring row counts completions */
	f = BPF_CORE_READ(req, file);
	if (!f || !file_key(f, &k))
		return 0;
	k.tgid = *tgid;
	k.op = (__u16)(IO_OP_URING + op);
	send_seen(f, &k, (__u32)bpf_get_current_pid_tgid());
	file_add(&k, res, dt, timed);
	return 0;
}

/* The flags of an open of KIND (IO_K_OPEN .. IO_K_OPENAT2) made with REGS: creat(path,
 * mode) is open(path, O_CREAT | O_WRONLY | O_TRUNC, mode) by definition (its argument 2 is
 * the mode); openat2's are in its struct open_how (argument 3, in the caller's memory). */
static __always_inline __u64 open_flags(__u32 kind, struct pt_regs *regs)
{
	__u64 fl = 0;

	switch (kind) {
	case IO_K_OPEN:
		return ptop_sys_arg(regs, 2);
	case IO_K_CREAT:
		return 01101; /* O_CREAT | O_WRONLY | O_TRUNC */
	case IO_K_OPENAT2: /* struct open_how's first member: __u64 flags */
		if (bpf_probe_read_user(&fl, sizeof(fl), (void *)ptop_sys_arg(regs, 3)))
			return 0;
		return fl;
	default:
		return ptop_sys_arg(regs, 3);
	}
}

/* Whether the user's string at P is longer than LEN - 1 bytes. */
static __always_inline bool path_goes_on(__u64 p, __u32 len)
{
	char c = 0;

	return !bpf_probe_read_user(&c, 1, (void *)(p + len - 1)) && c;
}

/* The caller's strings of arguments P1 and P2 (0: none) into BUF (PLEN bytes each: the
 * first, then the second); the IO_CUT_* bits of those that did not fit (PLEN a constant:
 * the verifier checks the writes against the record). */
static __always_inline __u32 read_paths(char *buf, __u32 plen, struct pt_regs *regs, int p1,
					int p2)
{
	__u32 cut = 0;
	__u64 a;
	long n;

	buf[0] = 0;
	buf[plen] = 0;
	if (p1) {
		a = ptop_sys_arg(regs, p1);
		n = bpf_probe_read_user_str(buf, plen, (void *)a);
		if (n < 0)
			buf[0] = 0;
		else if (n == plen && path_goes_on(a, plen))
			cut |= IO_CUT_PATH;
	}
	if (p2) {
		a = ptop_sys_arg(regs, p2);
		n = bpf_probe_read_user_str(buf + plen, plen, (void *)a);
		if (n < 0)
			buf[plen] = 0;
		else if (n == plen && path_goes_on(a, plen))
			cut |= IO_CUT_PATH2;
	}
	return cut;
}

SEC("raw_tp/sys_exit")
int io_exit(struct bpf_raw_tracepoint_args *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct pt_regs *regs;
	struct io_fs_event *e;
	struct io_file_key fk = {};
	__u32 key, *kind, ev = 0, zero = 0;
	int p1 = 0, p2 = 0, len = 0;
	__u64 flags = 0;
	long ret;
	__u64 nr;

	if (!ptop_current_is_target(id))
		return 0;
	regs = (struct pt_regs *)ctx->args[0];
	nr = ptop_sys_nr(regs);
	if (nr >= IO_MAX_NR)
		return 0;
	key = (__u32)nr;
	kind = bpf_map_lookup_elem(&io_kind, &key);
	if (!kind || *kind == IO_K_NONE)
		return 0;
	ret = (long)ctx->args[1];
	if (*kind >= IO_K_OP) {
		if (files_on)
			op_exit(id, regs, *kind - IO_K_OP, ret);
		return 0;
	}
	if (!events_on)
		return 0;
	switch (*kind) {
	case IO_K_OPEN:
	case IO_K_CREAT:
	case IO_K_OPENAT:
	case IO_K_OPENAT2:
		p1 = *kind == IO_K_OPEN || *kind == IO_K_CREAT ? 1 : 2;
		flags = open_flags(*kind, regs);
		if (ret >= 0) { /* created? O_CREAT and the file's FMODE_CREATED */
			struct file *f;

			if (!(flags & 0100))
				return 0;
			f = fd_file(ret);
			if (!f || !(BPF_CORE_READ(f, f_mode) & FMODE_CREATED_BIT))
				return 0;
			ev = IO_EV_CREATED;
			break;
		}
		if (ret != -13 && ret != -1) /* EACCES, EPERM */
			return 0;
		ev = IO_EV_DENIED;
		break;
	case IO_K_UNLINK:
	case IO_K_UNLINKAT:
		if (ret)
			return 0;
		ev = IO_EV_DELETED;
		p1 = *kind == IO_K_UNLINK ? 1 : 2;
		flags = *kind == IO_K_UNLINK ? 0 : ptop_sys_arg(regs, 3);
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
		if (!p1) { /* ftruncate: its fd's file now (its number may be reused later) */
			struct file *f = fd_file((__s64)(int)ptop_sys_arg(regs, 1));

			if (f && file_key(f, &fk)) {
				fk.tgid = (__u32)(id >> 32);
				send_seen(f, &fk, (__u32)id); /* its path, before the event */
			} else {
				fk.dev = 0;
			}
		}
		break;
	default:
		return 0;
	}
	e = bpf_ringbuf_reserve(&io_events, sizeof(*e) + 2 * IO_PATH_MAX, 0);
	if (!e) {
		__u64 *lost = bpf_map_lookup_elem(&io_lost, &zero);

		if (lost)
			*lost += 1;
		return 0;
	}
	e->ts = bpf_ktime_get_ns();
	e->tid = (__u32)id;
	e->tgid = (__u32)(id >> 32);
	e->dev = fk.dev;
	e->ino = fk.ino;
	e->gen = fk.gen;
	e->kind = ev;
	e->ret = ret;
	e->nr = key;
	e->flags = flags;
	e->length = len ? ptop_sys_arg(regs, len) : 0;
	e->fd = p1 ? -1 : (__s32)ptop_sys_arg(regs, 1);
	e->plen = IO_PATH_MAX;
	e->pad = 0;
	e->cut = read_paths(e->path, IO_PATH_MAX, regs, p1, p2);
	if (e->cut) { /* a path longer: the event again with room for PATH_MAX bytes each */
		struct io_fs_event *l;

		l = bpf_ringbuf_reserve(&io_events, sizeof(*l) + 2 * IO_PATH_LONG, 0);
		if (l) { /* (else the short one: the paths cut, and marked) */
			__builtin_memcpy(l, e, sizeof(*l));
			l->plen = IO_PATH_LONG;
			l->cut = read_paths(l->path, IO_PATH_LONG, regs, p1, p2);
			bpf_ringbuf_discard(e, 0);
			bpf_ringbuf_submit(l, 0);
			return 0;
		}
	}
	bpf_ringbuf_submit(e, 0);
	return 0;
}
