/* stackmap.bpf.h — kernel side of bpf/stackmap.h: walk a stack with bpf_get_stack(),
 * key it by a 64-bit hash of its ips, and keep its ips in a hash map under that key
 * (cpuprof, heap and goalloc take their stacks this way).
 *
 * A program defines its own stack map (SM_STACK_MAP) and its own walk buffer: a
 * per-CPU array where the program cannot be preempted (perf_event), task storage
 * where it can (uprobes run preemptible: another thread on the same CPU could
 * overwrite a per-CPU buffer between the walk and the store).
 */
#ifndef PTOP_BPF_STACKMAP_BPF_H
#define PTOP_BPF_STACKMAP_BPF_H

#include "stackmap.h"

#ifndef ENOMEM
#define ENOMEM 12
#endif
#ifndef EEXIST
#define EEXIST 17
#endif
#ifndef ENOENT
#define ENOENT 2
#endif

/* The type of a stack map of ENTRIES stacks with map flags FLAGS. */
#define SM_STACK_MAP(entries, flags)                 \
	struct {                                     \
		__uint(type, BPF_MAP_TYPE_HASH);     \
		__uint(max_entries, entries);        \
		__uint(map_flags, flags);            \
		__type(key, struct sm_key);          \
		__type(value, struct sm_ips);        \
	}

/* Walk the current thread's stack (user with BPF_F_USER_STACK in FLAGS, else kernel)
 * into BUF and key it in *SK. 0, -ENOENT for an empty walk, or the helper's -errno. */
static __always_inline long sm_walk(void *ctx, struct sm_ips *buf, __u64 flags, struct sm_key *sk)
{
	__u64 h = 0x9E3779B97F4A7C15ULL;
	__u32 i;
	long n;

	n = bpf_get_stack(ctx, buf->ips, sizeof(buf->ips), flags);
	if (n < 0)
		return n;
	if (n < (long)sizeof(__u64))
		return -ENOENT;
	sk->nr = (__u32)(n / sizeof(__u64));
	sk->kernel = !(flags & BPF_F_USER_STACK);
	/* a multiply-xorshift mix of every ip, in order */
	for (i = 0; i < SM_MAX_DEPTH; i++) {
		if (i >= sk->nr)
			break;
		h = (h ^ buf->ips[i]) * 0xBF58476D1CE4E5B9ULL;
		h ^= h >> 31;
	}
	sk->hash = h | 1;	/* never 0: 0 means "no stack" */
	return 0;
}

/* Keep BUF in the stack map MAP under SK unless a stack is there already (a look-up
 * first: the update takes the bucket's lock). 0, or -ENOMEM when the map is full. */
static __always_inline long sm_store(void *map, const struct sm_key *sk, const struct sm_ips *buf)
{
	long err;

	if (bpf_map_lookup_elem(map, sk))
		return 0;
	err = bpf_map_update_elem(map, sk, buf, BPF_NOEXIST);
	if (err && err != -EEXIST)
		return -ENOMEM;
	return 0;
}

/* sm_walk, then sm_store into MAP. 0, -ENOMEM (map full), or sm_walk's -errno. */
static __always_inline long sm_take(void *ctx, void *map, struct sm_ips *buf, __u64 flags,
				    struct sm_key *sk)
{
	long err = sm_walk(ctx, buf, flags, sk);

	if (err)
		return err;
	return sm_store(map, sk, buf);
}

#endif
