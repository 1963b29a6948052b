/* stack_table.c — the capture's stack table (record/stack_table.h): one id per distinct
 * stack, the Stack record written the first time a stack is seen, and the reader of a
 * bpf/stackmap.h stack map. Shared by every collector that writes stacks.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>

#include "common/hash.h"
#include "record/collector.h"
#include "record/stack_table.h"

struct st_stack {
	uint64_t hash;
	uint64_t id;
	uint64_t *ips;
	uint32_t n;
	uint32_t pid;			/* a user stack's process (cgroup mode); else 0 */
	bool kernel;
};

struct stack_table {
	struct st_stack *slots;		/* open addressing; id == 0: empty */
	size_t cap;			/* power of two */
	size_t count;
};

struct stack_table *stack_table__new(void)
{
	struct stack_table *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->cap = 1024;
	t->slots = calloc(t->cap, sizeof(*t->slots));
	if (!t->slots) {
		free(t);
		errno = ENOMEM;
		return NULL;
	}
	return t;
}

void stack_table__free(struct stack_table *t)
{
	size_t i;

	if (!t)
		return;
	for (i = 0; i < t->cap; i++)
		free(t->slots[i].ips);
	free(t->slots);
	free(t);
}

struct stack_table *stack_table__capture(void)
{
	static struct stack_table *capture;

	if (!capture)
		capture = stack_table__new();
	return capture;
}

size_t stack_table__count(const struct stack_table *t)
{
	return t ? t->count : 0;
}

uint64_t stack_table__hash(bool kernel, const uint64_t *ips, size_t n)
{
	uint64_t h = FNV1A64_INIT;	/* FNV-1a, 64-bit, a word at a time */
	size_t i;

	h = fnv1a64_word(h, kernel ? 0x6b : 0x75);
	h = fnv1a64_word(h, n);
	for (i = 0; i < n; i++)
		h = fnv1a64_word(h, ips[i]);
	/* final avalanche (splitmix64) so that the low bits index well */
	h ^= h >> 30;
	h *= 0xbf58476d1ce4e5b9ULL;
	h ^= h >> 27;
	h *= 0x94d049bb133111ebULL;
	return h ^ (h >> 31);
}

/* The table's hash of a (kernel, pid, ips) key: the content hash, mixed with the pid
 * when there is one (so pid 0, every stack of a one-process capture, hashes as before). */
static uint64_t key_hash(bool kernel, uint32_t pid, const uint64_t *ips, size_t n)
{
	uint64_t h = stack_table__hash(kernel, ips, n), p = pid;

	if (!pid)
		return h;
	p = (p ^ (p >> 16)) * 0x45d9f3b3335b369ULL;	/* spread the pid over 64 bits */
	return h ^ p ^ (p >> 32);
}

static struct st_stack *find_slot(struct st_stack *slots, size_t cap, uint64_t hash, bool kernel,
				  uint32_t pid, const uint64_t *ips, size_t n)
{
	size_t i = hash & (cap - 1);

	for (;; i = (i + 1) & (cap - 1)) {
		struct st_stack *s = &slots[i];

		if (!s->id)
			return s;
		if (s->hash == hash && s->kernel == kernel && s->pid == pid && s->n == n &&
		    (n == 0 || !memcmp(s->ips, ips, n * sizeof(*ips))))
			return s;
	}
}

static int grow_table(struct stack_table *t)
{
	size_t cap = t->cap * 2, i;
	struct st_stack *slots = calloc(cap, sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	for (i = 0; i < t->cap; i++) {
		struct st_stack *s = &t->slots[i];

		if (s->id)
			*find_slot(slots, cap, s->hash, s->kernel, s->pid, s->ips, s->n) = *s;
	}
	free(t->slots);
	t->slots = slots;
	t->cap = cap;
	return 0;
}

int stack_table__intern(struct stack_table *t, bool kernel, uint32_t pid, const uint64_t *ips,
			   size_t n, uint64_t *id)
{
	uint64_t hash;
	struct st_stack *s;
	int err;

	if (kernel)
		pid = 0;	/* kernel addresses mean the same in every process */
	hash = key_hash(kernel, pid, ips, n);
	s = find_slot(t->slots, t->cap, hash, kernel, pid, ips, n);
	if (s->id) {
		*id = s->id;
		return 0;
	}
	if ((t->count + 1) * 4 > t->cap * 3) {	/* keep the load under 3/4 */
		err = grow_table(t);
		if (err)
			return err;
		s = find_slot(t->slots, t->cap, hash, kernel, pid, ips, n);
	}
	s->ips = malloc(n ? n * sizeof(*ips) : 1);
	if (!s->ips)
		return -ENOMEM;
	if (n)
		memcpy(s->ips, ips, n * sizeof(*ips));
	s->n = (uint32_t)n;
	s->pid = pid;
	s->hash = hash;
	s->kernel = kernel;
	s->id = ++t->count;
	*id = s->id;
	return 1;
}

uint64_t stack_table__reserve(struct stack_table *t)
{
	return ++t->count;
}

int stackmap__read(int fd, const struct sm_key *sk, uint64_t *ips, size_t max)
{
	struct sm_ips v;
	size_t n;

	if (!sk->hash || !sk->nr || sk->nr > SM_MAX_DEPTH)
		return 0;
	if (bpf_map_lookup_elem(fd, sk, &v) != 0)
		return errno == ENOENT ? 0 : -errno;
	n = sk->nr < max ? sk->nr : max;
	memcpy(ips, v.ips, n * sizeof(*ips));
	return (int)n;
}

int stack_table__emit(struct rec_ctx *ctx, struct stack_table *t, bool kernel, uint32_t pid,
			 const uint64_t *ips, size_t n, uint64_t *id)
{
	Ptop__V1__Record rec = PTOP__V1__RECORD__INIT;
	Ptop__V1__Stack st = PTOP__V1__STACK__INIT;
	int r;

	*id = 0;
	if (!n)
		return 0;
	r = stack_table__intern(t, kernel, pid, ips, n, id);
	if (r < 0) {
		*id = 0;
		return 0;
	}
	if (r == 0)
		return 0;
	/* new: its record goes before the event that refers to it */
	st.id = *id;
	st.n_ips = n;
	st.ips = (uint64_t *)ips;
	st.kernel = kernel;
	rec.kind_case = PTOP__V1__RECORD__KIND_STACK;
	rec.stack = &st;
	return rec_emit(ctx, &rec);
}
