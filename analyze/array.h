/* array.h — growing the malloc'd arrays ptop-analyze collects rows into. */
#ifndef PTOP_ANALYZE_ARRAY_H
#define PTOP_ANALYZE_ARRAY_H

#include <errno.h>
#include <stdlib.h>

/* Make room for element N of the array *P, which holds *CAP elements of SZ bytes:
 * when N is past the end, double it (64 elements at first). 0, or -ENOMEM with *P
 * and *CAP unchanged. */
static inline int array__grow(void **p, size_t *cap, size_t n, size_t sz)
{
	size_t c;
	void *q;

	if (n < *cap)
		return 0;
	c = *cap ? *cap * 2 : 64;
	if (c <= n)
		c = n + 1;
	q = realloc(*p, c * sz);
	if (!q)
		return -ENOMEM;
	*p = q;
	*cap = c;
	return 0;
}

#endif
