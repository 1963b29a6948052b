/* stackcopy.bpf.h — kernel side of bpf/stackcopy.h: copy the top of the current
 * thread's user stack, zero every word an unwinder cannot need, and key what is left.
 *
 * A word is kept when it holds an address inside the copy (a saved frame pointer, a
 * pointer to a local: kept, and hashed relative to sp, since the same frames sit
 * elsewhere in another sample) or an address in an executable mapping of the process
 * (a return address). Which mappings are executable the program learns with
 * bpf_find_vma, a few VMAs per copy at most, and remembers per process (struct
 * sc_vmas); a word in no VMA known yet is kept as it is (SC_F_UNKNOWN), so that the
 * walk offline is never cut, only the copy less lean. The scan runs in bpf_loop, so
 * the verifier checks its body once.
 */
#ifndef PTOP_BPF_STACKCOPY_BPF_H
#define PTOP_BPF_STACKCOPY_BPF_H

#include "stackcopy.h"
#include "stackmap.h"

#ifndef EBUSY
#define EBUSY 16
#endif
#ifndef EFAULT
#define EFAULT 14
#endif
#ifndef ENOENT
#define ENOENT 2
#endif
#ifndef ENOSPC
#define ENOSPC 28
#endif
#ifndef EAGAIN
#define EAGAIN 11
#endif
#define SC_VM_EXEC 0x4ULL
#define SC_USER_TOP 0x800000000000ULL	/* x86-64 user addresses are below */

/* The per-process VMA table a program keeps (ENTRIES processes). */
#define SC_VMAS_MAP(entries)                           \
	struct {                                       \
		__uint(type, BPF_MAP_TYPE_LRU_PERCPU_HASH); \
		__uint(max_entries, entries);          \
		__type(key, __u32);                    \
		__type(value, struct sc_vmas);         \
	}

/* A scan's figures live in a per-CPU map value, not on the BPF stack, and each word is
 * classified by a global function (sc_word), which the verifier checks once, on its
 * own, with its arguments unknown: what the loop's body keeps between words is then
 * nothing the verifier tells apart (a count of lookups left, a flag set on one path and
 * not another, a word's range refined by each comparison with the VMA table would each
 * make a state of their own, in every iteration of the bpf_loop, which Linux 6.8+
 * verifies as a loop). The scan once processed 1,000,001 instructions and failed on
 * Linux 6.18.44 (bench/README.md, "Verified instructions").
 *
 * Being per CPU, the figures are one run's only while no other run on that CPU starts
 * a scan. A perf_event program (cpuprof) is not preempted, but a uprobe program (heap)
 * runs with only migration off where the kernel is preemptible (PREEMPT_DYNAMIC,
 * preempt=full: uprobe_multi links run their program under rcu_read_lock, which does
 * not stop preemption), and so does a raw_tp on a syscall tracepoint (fds) on kernels
 * whose syscall tracepoints may fault; another thread's scan on the same CPU may then
 * run in between. So each scan takes a number of its own (seq, counted per CPU, never
 * cleared) and writes it in owner; when owner is no longer its number after the last
 * figure is read, another scan ran meanwhile and sc_take fails with -EAGAIN: the stack
 * is dropped (the caller counts it: stack_state_clobbered), never sent mixed. The
 * heap's copy itself (C) is per thread (task storage); --fd-stacks' is per CPU, read
 * after the check by the send only. */
struct sc_vars {
	__u64 seq;		/* scans started on this CPU */
	__u64 owner;		/* the seq of the scan the figures below are */
	__u64 lo, hi;		/* the copy: [sp, sp + bytes) */
	__u64 h;
	__u64 ms, me;		/* the VMA the last word fell in */
	__u64 fs, fe;		/* the last lookup's VMA */
	__u32 mx;		/* it is executable */
	__u32 lookups;		/* bpf_find_vma calls left */
	__u32 nwords;
	__u32 flags;
	__u32 fx;		/* the last lookup: executable */
	__u32 complete;		/* the table has every executable VMA (struct sc_vmas) */
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct sc_vars);
} sc_vars_buf SEC(".maps");

/* Test hook (PTOP_TEST_STACK_CLOBBER): each scan's figures are taken over, as by
 * another scan on its CPU, between the copy and the check; sc_take must then fail. */
const volatile __u32 sc_test_clobber = 0;

/* What the stack holds for a scan: pointers only (the same in every iteration). */
struct sc_scan {
	struct sc_copy *c;
	struct sc_vmas *vt;	/* NULL: none */
	struct sc_vars *v;
};

static __always_inline __u64 sc_mix(__u64 h, __u64 v)
{
	h = (h ^ v) * 0xBF58476D1CE4E5B9ULL;
	return h ^ (h >> 31);
}

static long sc_vma_cb(struct task_struct *task, struct vm_area_struct *vma, void *ctx)
{
	struct sc_vars *v = *(struct sc_vars **)ctx;

	if (v) {
		v->fs = vma->vm_start;
		v->fe = vma->vm_end;
		v->fx = (vma->vm_flags & SC_VM_EXEC) != 0;
	}
	return 0;
}

/* The VMA of V in the process's table T (may be NULL): 1 not executable, 2
 * executable, 0 not known; its range in x->ms/me. */
static __always_inline int sc_known(struct sc_vmas *t, struct sc_vars *x, __u64 v)
{
	int k;

	if (v >= x->ms && v < x->me)
		return 1 + (x->mx & 1);
	if (!t)
		return 0;
#pragma unroll
	for (k = 0; k < SC_VMAS; k++) {
		if (v >= t->start[k] && v < t->end[k]) {
			x->ms = t->start[k];
			x->me = t->end[k];
			x->mx = (t->exec >> k) & 1;
			return 1 + (x->mx & 1);
		}
	}
	return 0;
}

/* Ask the kernel for the VMA of V in TASK's address space and remember it in T (may be
 * NULL): as sc_known, or 0 when no call is left (or the mm was busy), -1 when V is in no
 * VMA. */
static __always_inline int sc_learn(struct task_struct *task, struct sc_vmas *t,
				    struct sc_vars *x, __u64 v)
{
	struct sc_vars *cbx = x;	/* bpf_find_vma's context must be on the stack */
	long err;
	__u32 k, mx;

	if (!x->lookups)
		return 0;
	x->lookups--;
	x->fx = 0;
	err = bpf_find_vma(task, v, sc_vma_cb, &cbx, 0);
	if (err == -EBUSY) {
		x->flags |= SC_F_VMA_BUSY;
		x->lookups = 0;
		return 0;
	}
	if (err)
		return -1;
	mx = x->fx & 1;
	x->ms = x->fs;
	x->me = x->fe;
	x->mx = mx;
	if (t) {
		k = t->fixed < SC_VMAS ? t->fixed : 0;
		k += t->next++ % (SC_VMAS - k);
		if (k < SC_VMAS) {
			t->start[k] = x->fs;
			t->end[k] = x->fe;
			t->exec = (t->exec & ~(1u << k)) | (mx << k);
		}
	}
	return 1 + mx;
}

/* Word I of the copy C, V, neither in the copy nor outside the user address space:
 * keep and hash it when it is in an executable VMA of the current task (or may be: no
 * lookup left), else zero it. VT: the process's VMA table, or NULL. Global, not
 * inlined: verified once, alone (see struct sc_vars); only the words that look like a
 * user address outside the stack come here (in a thread's stack, most are zeros). */
__attribute__((noinline)) int sc_word_vma(__u32 i, __u64 v, struct sc_copy *c,
					  struct sc_vmas *vt, struct sc_vars *x)
{
	__u32 w = i & (SC_MAX_WORDS - 1);
	int r;

	if (!c || !x)
		return 1;
	r = sc_known(vt, x, v);
	if (!r && x->complete)
		r = 1;	/* in no executable VMA: no return address */
	if (!r)
		r = sc_learn(bpf_get_current_task_btf(), vt, x, v);
	if (r == 0) {
		x->flags |= SC_F_UNKNOWN;	/* kept: it may be a return address */
	} else if (r != 2) {
		c->words[w] = 0;
		return 0;
	}
	x->h = sc_mix(sc_mix(x->h, i), v);
	return 0;
}

/* Classify word I of the copy; keep and hash it, or zero it. 1 past the last word. */
static __always_inline long sc_word(__u32 i, struct sc_scan *s, struct sc_vars *x)
{
	struct sc_copy *c = s->c;
	__u32 w = i & (SC_MAX_WORDS - 1);
	__u64 v;

	if (i >= x->nwords || !c)
		return 1;
	v = c->words[w];
	if (v >= x->lo && v < x->hi) {	/* a stack address: relative */
		x->h = sc_mix(sc_mix(x->h, i), (v - x->lo) | (1ULL << 62));
		return 0;
	}
	if (v < 0x10000 || v >= SC_USER_TOP) {
		c->words[w] = 0;
		return 0;
	}
	return sc_word_vma(i, v, c, s->vt, x);
}

/* Words classified per bpf_loop call: a call per word cost more than most words'
 * classification (the unused part of a thread's stack is zeros). 4 halved a 16 KiB
 * copy's time (bench/README.md, --fd-stacks); 8 gained little more. */
#define SC_WORDS_PER_CALL 4

/* bpf_loop body: words SC_WORDS_PER_CALL x I and the next ones. */
static long sc_words(__u32 i, void *ctx)
{
	struct sc_scan *s = ctx;
	struct sc_vars *x = s->v;
	__u32 k;

	if (!x)
		return 1;
#pragma unroll
	for (k = 0; k < SC_WORDS_PER_CALL; k++)
		if (sc_word(i * SC_WORDS_PER_CALL + k, s, x))
			return 1;
	return 0;
}

/* Copy the user stack from SP of TASK (the current thread, of process TGID) into C and
 * key it: C's header (hash, registers, bytes, flags) is filled, words an unwinder
 * cannot use are zeroed. VT: the process's VMA table (may be NULL); LOOKUPS:
 * bpf_find_vma calls allowed. Returns 0, -ENOENT without a user sp (or scratch),
 * -EFAULT when not even 8 bytes could be read, or -EAGAIN when another scan on this CPU
 * took over the per-CPU figures meanwhile (struct sc_vars): C is then not a stack. */
static __always_inline long sc_take(struct sc_copy *c, struct sc_vmas *vt, __u32 lookups,
				    struct task_struct *task, __u64 ip, __u64 sp, __u64 bp,
				    __u32 tgid, __u32 tid)
{
	struct sc_scan s = {};
	struct sc_vars *x;
	__u64 n = SC_MAX_BYTES;
	__u32 zero = 0;
	long err = -EFAULT;
	__u64 tok, h, bpo;
	__u32 xflags;
	int k;

	if (!sp || sp >= SC_USER_TOP)
		return -ENOENT;
	x = bpf_map_lookup_elem(&sc_vars_buf, &zero);
	if (!x)
		return -ENOENT;
	/* this scan's number (an atomic add: another run may take one meanwhile) */
	tok = __sync_fetch_and_add(&x->seq, 1) + 1;
	__builtin_memset(&x->lo, 0, sizeof(*x) - __builtin_offsetof(struct sc_vars, lo));
	x->owner = tok;
	c->flags = 0;
	s.vt = vt;
	s.v = x;
	x->lookups = lookups;
	if (vt && vt->complete &&
	    (__u32)BPF_CORE_READ(task, mm, map_count) == vt->map_count)
		x->complete = 1;
	/* the stack's own VMA says where it ends (the main thread's is near) */
	if (sc_known(vt, x, sp) || sc_learn(task, vt, x, sp) > 0) {
		if (x->me > sp && x->me - sp < n)
			n = x->me - sp;
	}
	n &= ~7ULL;
	asm volatile("" : "+r"(n));
	if (n >= 8 && n <= SC_MAX_BYTES)
		err = bpf_probe_read_user(c->words, n, (void *)sp);
	/* the end of the stack (or a page not present) within reach: a stack ends at a
	 * page boundary, so read up to each of the next ones, the farthest first */
	for (k = SC_MAX_BYTES / 4096; err && k >= 0; k--) {
		n = ((sp + 4096) & ~4095ULL) - sp + (__u64)k * 4096;
		if (n > SC_MAX_BYTES)
			continue;
		n &= ~7ULL;
		asm volatile("" : "+r"(n));
		if (n < 8 || n > SC_MAX_BYTES)
			continue;
		err = bpf_probe_read_user(c->words, n, (void *)sp);
	}
	if (err)
		return err;
	if (n < SC_MAX_BYTES)
		c->flags |= SC_F_SHORT;
	s.c = c;
	x->lo = sp;
	x->hi = sp + n;
	x->nwords = (__u32)(n / 8);
	x->h = sc_mix(sc_mix(0x9E3779B97F4A7C15ULL, ip), n);
	bpf_loop(SC_MAX_WORDS / SC_WORDS_PER_CALL, sc_words, &s, 0);
	h = x->h;
	xflags = x->flags;
	if (sc_test_clobber)
		x->owner = tok + 1;
	/* the last figure read: were they all this scan's? */
	asm volatile("" ::: "memory");
	if (*(volatile __u64 *)&x->owner != tok)
		return -EAGAIN;
	bpo = 0;
	if (bp >= sp && bp < sp + n) {
		bpo = bp;
		h = sc_mix(h, (bp - sp) | (1ULL << 61));
	}
	c->bp = bpo;
	c->hash = h | 1;
	c->tgid = tgid;
	c->tid = tid;
	c->ip = ip;
	c->sp = sp;
	c->time_ns = bpf_ktime_get_ns();
	c->bytes = (__u32)n;
	c->flags |= xflags;
	return 0;
}

/* An empty VMA table (too big for the BPF stack) to add one from. */
struct sc_vmas sc_vmas_zero = {};

/* The VMA table of process TGID (the current task's) in MAP, made empty when it has
 * none, or when it is another address space's (an exec since, or a table user space
 * filled before an exec). NULL when the map cannot take it. */
static __always_inline struct sc_vmas *sc_vmas_of(void *map, __u32 tgid,
						  struct task_struct *task)
{
	struct sc_vmas *t = bpf_map_lookup_elem(map, &tgid);
	struct mm_struct *mm = BPF_CORE_READ(task, mm);
	__u64 ino = BPF_CORE_READ(mm, exe_file, f_inode, i_ino);

	if (!t) {
		bpf_map_update_elem(map, &tgid, &sc_vmas_zero, BPF_NOEXIST);
		t = bpf_map_lookup_elem(map, &tgid);
		if (!t)
			return NULL;
	}
	if (t->mm == (__u64)mm)
		return t;
	if (t->mm || t->ino != ino) {	/* another address space's: afresh */
		__builtin_memset(t, 0, sizeof(*t));
	}
	t->mm = (__u64)mm;
	t->ino = ino;
	return t;
}

/* Copy the current thread's user stack at REGS (the registers a call was made with;
 * ID: its pid_tgid) into C, key *SK by the copy (kind SM_KIND_COPY) and send the copy
 * on the ring RING unless its hash is in COPIED (a hash map of __u64 to __u8: sent
 * before). VMAS: the program's SC_VMAS_MAP; uprobe-like contexts (bpf_find_vma as often
 * as in a uprobe). 0; -ENOSPC when the ring had no room (the hash is forgotten, so that
 * the next copy there is sent; the caller counts it); -EFAULT for a copy too big; or
 * sc_take's -errno. The collectors that take copies at a call (fds, locks, security)
 * share it. */
static __always_inline long sc_take_send(struct sc_copy *c, void *vmas, void *copied,
					 void *ring, struct pt_regs *regs, __u64 id,
					 struct sm_key *sk)
{
	struct task_struct *task = bpf_get_current_task_btf();
	__u32 n, tgid = (__u32)(id >> 32);
	__u8 one = 1;
	long err;

	err = sc_take(c, sc_vmas_of(vmas, tgid, task), SC_LOOKUPS_UPROBE, task,
		      BPF_CORE_READ(regs, ip), BPF_CORE_READ(regs, sp), BPF_CORE_READ(regs, bp),
		      tgid, (__u32)id);
	if (err)
		return err;
	sk->hash = c->hash;
	sk->nr = c->bytes / 8;
	sk->kernel = SM_KIND_COPY;
	if (bpf_map_update_elem(copied, &c->hash, &one, BPF_NOEXIST))
		return 0; /* sent before */
	n = c->bytes;
	if (n > SC_MAX_BYTES)
		return -EFAULT;
	if (bpf_ringbuf_output(ring, c, SC_HDR_BYTES + n, 0)) {
		bpf_map_delete_elem(copied, &c->hash);
		return -ENOSPC;
	}
	return 0;
}

#endif
