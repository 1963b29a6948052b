// SPDX-License-Identifier: GPL-2.0
/* heap.bpf.c — the heap collector's kernel side: uprobes on the target's allocator
 * (malloc, calloc, realloc, free, posix_memalign, aligned_alloc, memalign, valloc,
 * pvalloc), exact totals for every call, a stack for one allocation per sampling
 * interval of bytes, and the live set of every allocation in a bounded hash map.
 *
 * hp_enter runs at an allocation function's entry (the attach cookie says which
 * function): it reads the size, decides whether this allocation takes a stack and
 * keeps both in the thread's task storage (a pointer away, cheaper than a hash keyed
 * by tid) until hp_exit, the uretprobe, sees the returned pointer.
 * The stack is a frame-pointer walk from the probe (bpf_get_stack into the thread's
 * own buffer), kept in hp_stacks under a 64-bit hash of its ips (bpf/stackmap.h: no
 * stack is lost to a bucket collision, as with bpf_get_stackid). The walk starts
 * with the caller's caller, because the allocator has not pushed a frame yet, so the
 * caller's own return address is read from the top of the stack at entry and kept
 * beside the stack's key (user space puts it as frame 1). The probes are placed by
 * user space where the stack pointer still points at that return address.
 *
 * Sampling: each CPU counts bytes down from an exponentially distributed interval of
 * mean hp_sample_bytes (hp_exp_table holds its quantiles, scaled by 2^16); the
 * allocation that crosses zero takes the stack and is credited with every allocation
 * and byte since the previous sample. Allocations of HP_BIG_ALLOC bytes or more always
 * take a stack, credited with themselves. hp_sample_bytes == 0: every allocation does.
 * A sample stands for its credit in all of its site's figures: allocated, live (while
 * it lives) and freed, so a site's live bytes are estimated like its bytes allocated.
 *
 * hp_free runs inside free (at an offset past its NULL check, with %rdi intact) and
 * removes the pointer from the live set. Frees of pointers the live set does not hold
 * (allocated before the probes attached) are counted apart. Calls of the allocator
 * made from inside another allocator call of the same thread (an allocator whose
 * calloc calls its malloc) are not counted twice: only the outermost call counts
 * (nested_call tells them from a call whose return was never seen). Probe hits that
 * are not counted are counted by reason: unmatched_entry, unmatched_return, attaching
 * (a return of a call in flight at the attach), filtered (another process).
 *
 * The peak and the temporaries (issue 13): every tracked allocation and free moves one
 * live total shared by all CPUs (hp_peak, an atomic add), and a total above the peak
 * becomes the peak with its time; each thread's last allocation (hp_last) makes its
 * next call, when it is the free of that block, a temporary (heaptrack's rule).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>

#include "collectors/heap/heap.h"
#include "filter.bpf.h"
#include "stackmap.bpf.h"
#include "stackcopy.bpf.h"

char LICENSE[] SEC("license") = "GPL";

/* --user-stacks: HP_USER_FP walks frame pointers; HP_USER_COPY copies the stack's top
 * (bpf/stackcopy.h), sent once per key, the site keyed by the copy's key. */
const volatile __u32 hp_user_stacks = HP_USER_FP;

const volatile __u64 hp_sample_bytes = 512 * 1024;	/* 0: every allocation */
const volatile bool hp_events = false;			/* --heap-events */
const volatile __u32 hp_exp_table[HP_EXP_TABLE] = {};	/* -ln(u) x 2^16 quantiles */

SM_STACK_MAP(HP_STACK_ENTRIES, BPF_F_NO_PREALLOC) hp_stacks SEC(".maps");

/* per thread: where a sampled allocation's stack is walked (a uprobe may be preempted,
 * so a per-CPU buffer could be overwritten by another thread between walk and store) */
struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct sm_ips);
} hp_walk SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, HP_SITE_ENTRIES);
	__type(key, struct hp_site_key);
	__type(value, struct hp_site);
} hp_sites SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, HP_LIVE_MAX);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, __u64);
	__type(value, struct hp_live);
} hp_live SEC(".maps");

/* per thread: task storage is a pointer away, no hash of the tid */
struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct hp_inflight);
} hp_inflight SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct hp_counters);
} hp_counters SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct hp_sampler);
} hp_sampler SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, HP_RINGBUF_BYTES);
} hp_events_rb SEC(".maps");

/* per thread: the address of its last allocation (0: a free came since) */
struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, __u64);
} hp_last SEC(".maps");

struct hp_peak hp_peak = {};

/* --user-stacks dwarf: where a thread's copy is made (a uprobe may be preempted) */
struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct sc_copy);
} hp_copy_buf SEC(".maps");

/* the copies sent already, by key (an LRU: one forgotten is sent again) */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, HP_COPIED_ENTRIES);
	__type(key, __u64);
	__type(value, __u8);
} hp_copied SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, HP_COPY_RING_BYTES);
} hp_copies SEC(".maps");

SC_VMAS_MAP(4) hp_vmas SEC(".maps");

static __always_inline struct hp_counters *counters(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&hp_counters, &zero);
}

static __always_inline __s64 next_interval(void)
{
	__u32 r = bpf_get_prandom_u32() & (HP_EXP_TABLE - 1);
	__u64 v = (hp_sample_bytes * hp_exp_table[r]) >> 16;

	return v ? (__s64)v : 1;
}

static __always_inline void emit_event(struct hp_counters *cnt, __u32 kind, __u32 func,
				       __u64 addr, __u64 size, const struct hp_site_key *site,
				       __u64 now)
{
	struct hp_event *e;

	if (!hp_events)
		return;
	e = bpf_ringbuf_reserve(&hp_events_rb, sizeof(*e), 0);
	if (!e) {
		cnt->events_lost++;
		return;
	}
	e->time_ns = now;
	e->addr = addr;
	e->size = size;
	e->site = *site;
	e->kind = kind;
	e->func = func;
	bpf_ringbuf_submit(e, 0);
}

/* Copy a site's live figures to its peak_live_* (bpf_for_each_map_elem's callback). */
static long copy_site(struct bpf_map *map, const struct hp_site_key *key, struct hp_site *s,
		      void *ctx)
{
	s->peak_live_count = s->live_count;
	s->peak_live_bytes = s->live_bytes;
	return 0;
}

/* The live total is V at NOW, a new peak: a new mark when it passed the last by enough,
 * taken by the CPU whose compare-and-swap moves it. */
static __always_inline void peak_mark(__u64 v, __u64 now)
{
	__u64 mark = hp_peak.mark_bytes;

	if (v <= mark ||
	    (v - mark < mark / HP_PEAK_MARGIN && now - hp_peak.mark_ns < HP_PEAK_MARK_NS))
		return;
	if (__sync_val_compare_and_swap(&hp_peak.mark_bytes, mark, v) != mark)
		return;	/* another CPU took it */
	hp_peak.mark_ns = now;
	bpf_for_each_map_elem(&hp_sites, copy_site, NULL, 0);
	__sync_fetch_and_add(&hp_peak.marks, 1);
}

/* The tracked live bytes moved by DELTA at NOW (the sites' figures already moved): a
 * new peak when they pass it. */
static __always_inline void live_move(__s64 delta, __u64 now)
{
	__s64 v = __sync_add_and_fetch(&hp_peak.live_total, delta);
	__u64 old = hp_peak.peak_bytes, seen;

	if (delta <= 0 || v <= 0 || (__u64)v <= old)
		return;
	for (int i = 0; i < HP_PEAK_TRIES; i++) {
		seen = __sync_val_compare_and_swap(&hp_peak.peak_bytes, old, (__u64)v);
		if (seen == old) {
			hp_peak.peak_time_ns = now;
			peak_mark((__u64)v, now);
			return;
		}
		if (seen >= (__u64)v)
			return;	/* another CPU raised it past ours */
		old = seen;
	}
	__sync_fetch_and_add(&hp_peak.peak_lost, 1);
}

/* A free of ADDR by this thread: whether ADDR was the thread's last allocation (a
 * temporary); any free ends the last allocation's chance. */
static __always_inline bool last_free(__u64 addr)
{
	__u64 *last = bpf_task_storage_get(&hp_last, bpf_get_current_task_btf(), NULL, 0);
	bool temp;

	if (!last)
		return false;
	temp = *last == addr;
	*last = 0;
	return temp;
}

/* An allocation of ADDR by this thread: its last. */
static __always_inline void last_alloc(__u64 addr)
{
	__u64 *last = bpf_task_storage_get(&hp_last, bpf_get_current_task_btf(), NULL,
					   BPF_LOCAL_STORAGE_GET_F_CREATE);

	if (last)
		*last = addr;
	else
		__sync_fetch_and_add(&hp_peak.last_lost, 1);
}

/* A probe hit in the target's memory by a process the filter does not take: a vfork
 * child sharing it, or a target whose pid the filter does not see. (A forked child has
 * its own memory: the kernel takes the breakpoints out of it before a program runs.)
 * Counted, not followed. */
static __always_inline void count_filtered(void)
{
	struct hp_counters *cnt = counters();

	if (cnt)
		cnt->filtered++;
}

/* Pairing an entry with its return. The uretprobe fires only for a call that passed
 * its function's breakpoint after the return probe was attached (user space attaches
 * it first), and a thread's returns come in the reverse order of its entries. An
 * entry seen while another is in flight (ACTIVE) is a call from inside it when it is
 * deeper on the stack (SP below the first one's), or a tail call (a jmp into another
 * allocator function: the same SP, whose return address the first call's uretprobe
 * has already replaced with its trampoline, so it differs from the one kept). At the
 * same SP with the same return address, or above it, the first call has returned
 * without its return seen (a lost return instance; before the fix of the attach
 * order, every call in flight between the entry and the return probe's attach): that
 * entry is dropped as unmatched and this call counts. */
static __always_inline bool nested_call(const struct hp_inflight *old, __u64 sp, __u64 ra)
{
	return sp < old->sp || (sp == old->sp && ra != old->ra);
}

/* Copy this thread's stack at the probe and key *SK by it (kind SM_KIND_COPY), sending
 * the copy unless its key was sent. 0; -ENOSPC when the ring had no room (the key is
 * forgotten, so that the next allocation there sends it); or sc_take's -errno. */
static __always_inline long take_copy(struct pt_regs *ctx, __u64 id, struct sm_key *sk)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct sc_copy *c;
	__u32 n, tgid = (__u32)(id >> 32);
	__u8 one = 1;
	long err;

	c = bpf_task_storage_get(&hp_copy_buf, task, NULL, BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!c)
		return -ENOMEM;
	err = sc_take(c, sc_vmas_of(&hp_vmas, tgid, task), SC_LOOKUPS_UPROBE, task, PT_REGS_IP(ctx),
		      PT_REGS_SP(ctx), ctx->bp, tgid, (__u32)id);
	if (err)
		return err;
	sk->hash = c->hash;
	sk->nr = c->bytes / 8;
	sk->kernel = SM_KIND_COPY;
	if (bpf_map_update_elem(&hp_copied, &c->hash, &one, BPF_NOEXIST))
		return 0;	/* sent before */
	n = c->bytes;
	if (n > SC_MAX_BYTES)
		return -EFAULT;
	if (bpf_ringbuf_output(&hp_copies, c, SC_HDR_BYTES + n, 0)) {
		bpf_map_delete_elem(&hp_copied, &c->hash);
		return -ENOSPC;
	}
	return 0;
}

SEC("uprobe")
int hp_enter(struct pt_regs *ctx)
{
	__u64 id = bpf_get_current_pid_tgid(), sp, ra;
	__u32 zero = 0, func;
	struct hp_inflight inf = {}, *old;
	struct hp_counters *cnt;
	struct hp_sampler *s;
	struct sm_ips *buf;
	bool take = false;

	if (!ptop_current_is_target(id)) {
		count_filtered();
		return 0;
	}
	cnt = counters();
	s = bpf_map_lookup_elem(&hp_sampler, &zero);
	if (!cnt || !s)
		return 0;
	old = bpf_task_storage_get(&hp_inflight, bpf_get_current_task_btf(), NULL,
				   BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!old) {
		cnt->inflight_lost++;
		return 0;
	}
	/* the return address at the top of the stack (the probe is placed where SP
	 * still points at it) */
	sp = PT_REGS_SP(ctx);
	if (bpf_probe_read_user(&ra, sizeof(ra), (void *)sp))
		ra = 0;
	if (old->active) {
		if (nested_call(old, sp, ra)) {
			old->depth++;	/* called from inside another allocator call */
			return 0;
		}
		cnt->unmatched_entry++;	/* that call returned unseen: start afresh */
	}
	func = (__u32)bpf_get_attach_cookie(ctx);
	inf.func = func;
	inf.sp = sp;
	inf.ra = ra;
	inf.seen = 1;
	switch (func) {
	case ALLOC_CALLOC:
		inf.size = PT_REGS_PARM1(ctx) * PT_REGS_PARM2(ctx);
		break;
	case ALLOC_REALLOC:
		inf.arg = PT_REGS_PARM1(ctx);
		inf.size = PT_REGS_PARM2(ctx);
		break;
	case ALLOC_POSIX_MEMALIGN:
		inf.arg = PT_REGS_PARM1(ctx);
		inf.size = PT_REGS_PARM3(ctx);
		break;
	case ALLOC_ALIGNED_ALLOC:
	case ALLOC_MEMALIGN:
		inf.size = PT_REGS_PARM2(ctx);
		break;
	default:
		inf.size = PT_REGS_PARM1(ctx);
		break;
	}

	if (hp_sample_bytes && inf.size >= HP_BIG_ALLOC) {
		take = true;
		inf.credit_count = 1;
		inf.credit_bytes = inf.size;
	} else {
		if (!s->seeded) {
			s->countdown = next_interval();
			s->seeded = 1;
		}
		s->acc_count++;
		s->acc_bytes += inf.size;
		s->countdown -= (__s64)inf.size;
		if (!hp_sample_bytes || s->countdown <= 0) {
			take = true;
			inf.credit_count = s->acc_count;
			inf.credit_bytes = s->acc_bytes;
			s->acc_count = 0;
			s->acc_bytes = 0;
			if (hp_sample_bytes)
				s->countdown = next_interval();
		}
	}
	if (take && hp_user_stacks == HP_USER_COPY) {
		long err = take_copy(ctx, id, &inf.site.stack);

		if (err) {
			if (err == -EAGAIN)	/* the scan's state was another's */
				cnt->stack_clobbered++;
			else
				cnt->stack_failures++;
			inf.site.stack.hash = 0;
		} else {
			cnt->samples++;
			inf.site.caller = 0;	/* in the copy */
		}
	} else if (take) {
		buf = bpf_task_storage_get(&hp_walk, bpf_get_current_task_btf(), NULL,
					   BPF_LOCAL_STORAGE_GET_F_CREATE);
		if (!buf || sm_take(ctx, &hp_stacks, buf, BPF_F_USER_STACK, &inf.site.stack)) {
			cnt->stack_failures++;
			inf.site.stack.hash = 0;
		} else {
			cnt->samples++;
			inf.site.caller = ra;
		}
	}
	inf.active = 1;
	*old = inf;
	return 0;
}

/* Take ADDR out of the live set: a free (or the old block of a realloc). */
static __always_inline void do_free(struct hp_counters *cnt, __u64 addr, __u32 func, __u64 now)
{
	struct hp_live *l, lv;
	struct hp_site *site;
	bool temp = last_free(addr);

	l = bpf_map_lookup_elem(&hp_live, &addr);
	if (!l) {
		cnt->free_untracked++;
		return;
	}
	lv = *l;
	if (bpf_map_delete_elem(&hp_live, &addr))
		return;		/* another thread freed it first (a double free) */
	cnt->free_count++;
	cnt->free_bytes += lv.size;
	cnt->live_count--;
	cnt->live_bytes -= lv.size;
	cnt->temporary_count += temp;
	live_move(-(__s64)lv.size, now);
	if (!lv.site.stack.hash)
		return;
	site = bpf_map_lookup_elem(&hp_sites, &lv.site);
	if (site) {
		if (temp)
			__sync_fetch_and_add(&site->temporary_count, lv.credit_count);
		__sync_fetch_and_sub(&site->live_count, lv.credit_count);
		__sync_fetch_and_sub(&site->live_bytes, lv.credit_bytes);
		__sync_fetch_and_add(&site->freed_count, lv.credit_count);
		__sync_fetch_and_add(&site->lifetime_ns_sum,
				     (now - lv.time_ns) * lv.credit_count);
	}
	emit_event(cnt, 2, func, addr, lv.size, &lv.site, now);
}

static __always_inline void do_alloc(struct hp_counters *cnt, __u64 addr,
				     const struct hp_inflight *inf, __u64 now)
{
	struct hp_live lv = {}, *l;
	struct hp_site *site = NULL;
	struct hp_site zero = {};
	long err;

	cnt->alloc_count++;
	cnt->alloc_bytes += inf->size;
	lv.size = inf->size;
	lv.time_ns = now;
	lv.site = inf->site;
	lv.credit_count = inf->credit_count;
	lv.credit_bytes = inf->credit_bytes;
	if (inf->site.stack.hash) {
		site = bpf_map_lookup_elem(&hp_sites, &inf->site);
		if (!site) {
			bpf_map_update_elem(&hp_sites, &inf->site, &zero, BPF_NOEXIST);
			site = bpf_map_lookup_elem(&hp_sites, &inf->site);
		}
		if (site) {
			__sync_fetch_and_add(&site->alloc_count, inf->credit_count);
			__sync_fetch_and_add(&site->alloc_bytes, inf->credit_bytes);
		} else {
			cnt->site_full++;
			lv.site.stack.hash = 0;
		}
	}
	err = bpf_map_update_elem(&hp_live, &addr, &lv, BPF_NOEXIST);
	if (err == -EEXIST) {
		/* the address was handed out again without a free we saw: drop the old */
		l = bpf_map_lookup_elem(&hp_live, &addr);
		if (l) {
			struct hp_site *os = NULL;

			cnt->live_count--;
			cnt->live_bytes -= l->size;
			live_move(-(__s64)l->size, now);
			if (l->site.stack.hash)
				os = bpf_map_lookup_elem(&hp_sites, &l->site);
			if (os) {
				__sync_fetch_and_sub(&os->live_count, l->credit_count);
				__sync_fetch_and_sub(&os->live_bytes, l->credit_bytes);
			}
		}
		err = bpf_map_update_elem(&hp_live, &addr, &lv, BPF_ANY);
	}
	if (err) {
		cnt->live_untracked++;
	} else {
		cnt->live_count++;
		cnt->live_bytes += lv.size;
		if (site && lv.site.stack.hash) {
			__sync_fetch_and_add(&site->live_count, lv.credit_count);
			__sync_fetch_and_add(&site->live_bytes, lv.credit_bytes);
		}
		live_move((__s64)lv.size, now);
	}
	last_alloc(addr);
	if (lv.site.stack.hash)
		emit_event(cnt, 1, inf->func, addr, lv.size, &lv.site, now);
}

SEC("uretprobe")
int hp_exit(struct pt_regs *ctx)
{
	__u64 id = bpf_get_current_pid_tgid(), ret, ptr = 0, now;
	struct hp_inflight *p, inf;
	struct hp_counters *cnt;

	if (!ptop_current_is_target(id)) {
		count_filtered();
		return 0;
	}
	cnt = counters();
	if (!cnt)
		return 0;
	p = bpf_task_storage_get(&hp_inflight, bpf_get_current_task_btf(), NULL, 0);
	if (p && p->active && p->depth) {
		p->depth--;
		return 0;
	}
	/* no entry seen for this call: none in flight, or the one in flight is an outer
	 * call (the outermost returns past its return address: SP above the entry's) */
	if (!p || !p->active || PT_REGS_SP(ctx) <= p->sp) {
		if (p && p->seen)
			cnt->unmatched_return++;	/* its entry was lost */
		else	/* the thread's first call seen: in flight at the attach */
			cnt->attaching++;
		return 0;
	}
	inf = *p;
	p->active = 0;
	ret = PT_REGS_RC(ctx);
	now = bpf_ktime_get_ns();
	switch (inf.func) {
	case ALLOC_POSIX_MEMALIGN:
		if ((int)ret != 0 || !inf.arg ||
		    bpf_probe_read_user(&ptr, sizeof(ptr), (void *)inf.arg))
			ptr = 0;
		break;
	case ALLOC_REALLOC:
		/* realloc(p, n): p is gone when a block came back, or when n == 0 freed it */
		if (inf.arg && (ret || !inf.size))
			do_free(cnt, inf.arg, ALLOC_REALLOC, now);
		ptr = ret;
		break;
	default:
		ptr = ret;
		break;
	}
	if (ptr)
		do_alloc(cnt, ptr, &inf, now);
	return 0;
}

SEC("uprobe")
int hp_free(struct pt_regs *ctx)
{
	__u64 id = bpf_get_current_pid_tgid(), addr;
	struct hp_inflight *inf;
	struct hp_counters *cnt;

	if (!ptop_current_is_target(id)) {
		count_filtered();
		return 0;
	}
	addr = PT_REGS_PARM1(ctx);
	if (!addr)
		return 0;
	inf = bpf_task_storage_get(&hp_inflight, bpf_get_current_task_btf(), NULL, 0);
	if (inf && inf->active)
		return 0;	/* inside another allocator call of this thread: counted there */
	cnt = counters();
	if (cnt)
		do_free(cnt, addr, ALLOC_FREE, bpf_ktime_get_ns());
	return 0;
}
