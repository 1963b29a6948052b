/* hindex.h — an open-addressing hash index over an array its user keeps: each slot holds an
 * element's index + 1 (0: empty), linear probing, at most half of the slots used. The user
 * keeps the elements and compares them; the index only finds where they are. */
#ifndef PTOP_COMMON_HINDEX_H
#define PTOP_COMMON_HINDEX_H

#include <stddef.h>
#include <stdint.h>

struct hindex {
	size_t *slot;
	size_t nslot; /* a power of two, or 0 */
};

/* The hash of element K of the user's array ARR. */
typedef uint64_t hindex_hash_fn(const void *arr, size_t k);

/* Make room for element N, when the array holds N (0 .. N-1, all in the index): when more
 * than half of the slots would be used, double them (MIN, a power of two, at first) and put
 * the N elements back, element K at HASH(ARR, K). 0, or -ENOMEM with X unchanged. */
int hindex__reserve(struct hindex *x, size_t n, size_t min, hindex_hash_fn *hash,
		    const void *arr);

/* Where the probe for hash H starts, and the slot after I: a lookup walks
 * for (i = hindex__home(x, h); x->slot[i]; i = hindex__next(x, i)) until its element, and
 * puts a new one (after hindex__reserve) at the empty slot it stops at. */
static inline size_t hindex__home(const struct hindex *x, uint64_t h)
{
	return (size_t)h & (x->nslot - 1);
}

static inline size_t hindex__next(const struct hindex *x, size_t i)
{
	return (i + 1) & (x->nslot - 1);
}

void hindex__free(struct hindex *x);

#endif
