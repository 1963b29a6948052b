/* hindex.c — an open-addressing hash index over an array its user keeps. */
#include "common/hindex.h"

#include <errno.h>
#include <stdlib.h>

int hindex__reserve(struct hindex *x, size_t n, size_t min, hindex_hash_fn *hash,
		    const void *arr)
{
	size_t ns, *slot;

	if (2 * (n + 1) <= x->nslot)
		return 0;
	ns = x->nslot ? 2 * x->nslot : min;
	slot = calloc(ns, sizeof(*slot));
	if (!slot)
		return -ENOMEM;
	for (size_t k = 0; k < n; k++) {
		size_t i = (size_t)hash(arr, k) & (ns - 1);

		while (slot[i])
			i = (i + 1) & (ns - 1);
		slot[i] = k + 1;
	}
	free(x->slot);
	x->slot = slot;
	x->nslot = ns;
	return 0;
}

void hindex__free(struct hindex *x)
{
	free(x->slot);
	x->slot = NULL;
	x->nslot = 0;
}
