/* units.h — parsing of the quantities both programs take on their command lines. */
#ifndef PTOP_COMMON_UNITS_H
#define PTOP_COMMON_UNITS_H

#include <stdint.h>

/* A whole number of bytes with an optional suffix, powers of 1024: B, K or k or KiB,
 * M or MiB, G or GiB, T or TiB ("512K", "4G", "0"). Stores it in *V and returns 0;
 * -EINVAL when S is not of that form (a sign, a fraction, another suffix), -ERANGE
 * when it is above MAX. *V is unchanged on error. */
int units__parse_bytes(const char *s, uint64_t max, uint64_t *v);

#endif
