/* hash.h — FNV-1a, 64-bit: the one hash of both programs, the preload library and the tests.
 *
 * Header-only (static inline, nothing but <stddef.h> and <stdint.h>) so that
 * preload/ptop_preload.c, which links no ptop code, uses the same one. Some of its values are
 * kept in captures (the heap's and the CPU profile's stack hashes): they never change;
 * tests/test_common.c pins them. The kernel sides hash nothing themselves (bpf_get_stackid
 * has its own), so no .bpf.c includes this. */
#ifndef PTOP_COMMON_HASH_H
#define PTOP_COMMON_HASH_H

#include <stddef.h>
#include <stdint.h>

#define FNV1A64_INIT 0xcbf29ce484222325ull /* the offset basis: the hash of nothing */
#define FNV1A64_PRIME 0x100000001b3ull

/* H continued over the N bytes at P. */
static inline uint64_t fnv1a64_bytes(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;

	while (n--)
		h = (h ^ *b++) * FNV1A64_PRIME;
	return h;
}

/* H continued over the bytes of string S, without its NUL; a NULL S adds nothing. */
static inline uint64_t fnv1a64_str(uint64_t h, const char *s)
{
	for (; s && *s; s++)
		h = (h ^ (unsigned char)*s) * FNV1A64_PRIME;
	return h;
}

/* H continued over the word W taken whole: one step of FNV-1a a word at a time (not the
 * same as over W's eight bytes). */
static inline uint64_t fnv1a64_word(uint64_t h, uint64_t w)
{
	return (h ^ w) * FNV1A64_PRIME;
}

/* H continued over the eight bytes of W, the low one first (its bytes in memory on a
 * little-endian machine, whatever the machine). */
static inline uint64_t fnv1a64_u64le(uint64_t h, uint64_t w)
{
	for (int b = 0; b < 64; b += 8)
		h = (h ^ ((w >> b) & 0xff)) * FNV1A64_PRIME;
	return h;
}

#endif
