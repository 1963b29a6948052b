/* array.h — growing the malloc'd arrays both programs collect into. */
#ifndef PTOP_COMMON_ARRAY_H
#define PTOP_COMMON_ARRAY_H

#include <errno.h>
#include <stdlib.h>

/* Make room for element N of the array *P, which holds *CAP elements of SZ bytes:
 * when N is past the end, double it (64 elements at first; N + 1 when that is more).
 * 0, or -ENOMEM (no memory, or more than SIZE_MAX bytes) with *P and *CAP unchanged. */
static inline int array__grow(void **p, size_t *cap, size_t n, size_t sz)
{
	size_t c, bytes;
	void *q;

	if (n < *cap)
		return 0;
	c = *cap ? *cap * 2 : 64;
	if (c <= n)
		c = n + 1;
	if (__builtin_mul_overflow(c, sz, &bytes))
		return -ENOMEM;
	q = realloc(*p, bytes);
	if (!q)
		return -ENOMEM;
	*p = q;
	*cap = c;
	return 0;
}

#endif
