// SPDX-License-Identifier: GPL-2.0
/* goalloc.bpf.c — the Go lane of the heap feature, kernel side: one uprobe on a Go
 * executable's runtime.mallocgc, exact totals of every allocation, a stack for one
 * allocation per sampling interval of bytes, credited per call site.
 *
 * The size is the first argument, in RAX under Go's register ABI (amd64, Go 1.17+).
 * Sampling is the libc lane's (collectors/heap/heap.bpf.c): each CPU counts bytes down from an
 * exponentially distributed interval of mean ga_sample_bytes; the allocation that
 * crosses zero takes the stack and is credited with every allocation and byte since
 * the previous sample; ga_sample_bytes == 0: every allocation takes one. The stack is a
 * frame-pointer walk (Go keeps frame pointers) kept under a 64-bit hash of its ips, as
 * in the libc lane (bpf/stackmap.bpf.h); at mallocgc's entry it starts with the
 * caller's caller, so the caller's return address is read from the top of the stack
 * and kept beside the stack's key, as in the libc lane.
 * The probe sits at the jbe of the stack check (collectors/goalloc/record.c); a hit whose jbe is
 * taken (by the cmp's flags) goes to morestack and comes back to the entry, so it is
 * not counted.
 * No uretprobe (it would rewrite a return address on a goroutine stack the runtime may
 * move) and no free probe (Go frees by collection): nothing is known of what is live.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>

#include "collectors/heap/heap.h"
#include "filter.bpf.h"
#include "stackmap.bpf.h"

char LICENSE[] SEC("license") = "GPL";

const volatile __u64 ga_sample_bytes = 512 * 1024;	/* 0: every allocation */
const volatile __u32 ga_exp_table[HP_EXP_TABLE] = {};	/* -ln(u) x 2^16 quantiles */
/* the probe is at the jbe of mallocgc's `cmp 0x10(%r14),%rsp` (r14 is the goroutine g,
 * 0x10 its stackguard0): skip the hits that go to morestack, the function restarts */
const volatile bool ga_stack_check = false;

SM_STACK_MAP(HP_STACK_ENTRIES, BPF_F_NO_PREALLOC) ga_stacks SEC(".maps");

/* per thread (an M): where a sampled allocation's stack is walked (bpf/stackmap.bpf.h) */
struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct sm_ips);
} ga_walk SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, HP_SITE_ENTRIES);
	__type(key, struct hp_site_key);
	__type(value, struct hp_site);
} ga_sites SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct hp_counters);
} ga_counters SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct hp_sampler);
} ga_sampler SEC(".maps");

static __always_inline __s64 next_interval(void)
{
	__u32 r = bpf_get_prandom_u32() & (HP_EXP_TABLE - 1);
	__u64 v = (ga_sample_bytes * ga_exp_table[r]) >> 16;

	return v ? (__s64)v : 1;
}

SEC("uprobe")
int ga_mallocgc(struct pt_regs *ctx)
{
	__u64 id = bpf_get_current_pid_tgid(), size, cc = 0, cb = 0;
	struct hp_site_key key = {};
	struct hp_site zero = {}, *site;
	struct hp_counters *cnt;
	struct hp_sampler *s;
	struct sm_ips *buf;
	__u32 z = 0;
	bool take = false;

	if (!ptop_current_is_target(id))
		return 0;
	cnt = bpf_map_lookup_elem(&ga_counters, &z);
	s = bpf_map_lookup_elem(&ga_sampler, &z);
	if (!cnt || !s)
		return 0;
	/* the flags are the cmp's (CF | ZF: rsp <= stackguard0): this jbe goes to morestack
	 * and mallocgc starts again from its entry, to be counted then (the guard is not
	 * read again: the runtime may have set it to stackPreempt since the cmp) */
	if (ga_stack_check && (ctx->flags & ((1u << 0) | (1u << 6))))
		return 0;
	size = ctx->ax;		/* Go ABIInternal: the first integer argument */
	cnt->alloc_count++;
	cnt->alloc_bytes += size;
	if (ga_sample_bytes && size >= HP_BIG_ALLOC) {
		take = true;
		cc = 1;
		cb = size;
	} else {
		if (!s->seeded) {
			s->countdown = next_interval();
			s->seeded = 1;
		}
		s->acc_count++;
		s->acc_bytes += size;
		s->countdown -= (__s64)size;
		if (!ga_sample_bytes || s->countdown <= 0) {
			take = true;
			cc = s->acc_count;
			cb = s->acc_bytes;
			s->acc_count = 0;
			s->acc_bytes = 0;
			if (ga_sample_bytes)
				s->countdown = next_interval();
		}
	}
	if (!take)
		return 0;
	buf = bpf_task_storage_get(&ga_walk, bpf_get_current_task_btf(), NULL,
				   BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!buf || sm_take(ctx, &ga_stacks, buf, BPF_F_USER_STACK, &key.stack)) {
		cnt->stack_failures++;
		return 0;
	}
	cnt->samples++;
	if (bpf_probe_read_user(&key.caller, sizeof(key.caller), (void *)PT_REGS_SP(ctx)))
		key.caller = 0;
	site = bpf_map_lookup_elem(&ga_sites, &key);
	if (!site) {
		bpf_map_update_elem(&ga_sites, &key, &zero, BPF_NOEXIST);
		site = bpf_map_lookup_elem(&ga_sites, &key);
	}
	if (!site) {
		cnt->site_full++;
		return 0;
	}
	__sync_fetch_and_add(&site->alloc_count, cc);
	__sync_fetch_and_add(&site->alloc_bytes, cb);
	return 0;
}
