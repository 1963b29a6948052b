/* duration.h — the one parser of the durations and times both programs take: --duration,
 * --interval and the other timing options of ptop-record, each side of ptop-analyze's
 * --window, replay's --at and its time prompt. */
#ifndef PTOP_COMMON_DURATION_H
#define PTOP_COMMON_DURATION_H

#include <stddef.h>
#include <stdint.h>

/* What a caller accepts besides the grammar every caller shares. */
enum duration_flags {
	/* 0 (in any unit: "0", "0.0s", "0.1ns") is -EINVAL */
	DURATION_NONZERO = 1 << 0,
	/* a number in exponent notation ("1e3", "2.5E3ms"), which the grammar does not take,
	 * is -EDOM, or -ERANGE when it stands for more than MAX ns whatever its unit */
	DURATION_EXPONENT = 1 << 1,
	/* a text with a ':' is a clock time, [H:]MM:SS, each part a non-negative number as
	 * strtod(3) reads it ("1:30", "1:00:01.5"), rounded to the nearest ns */
	DURATION_CLOCK = 1 << 2,
};

/* The grammar: DIGITS[.DIGITS][UNIT] with at least one digit ("2", "1.5s", ".5s", "1.",
 * "500ms"); UNIT is ns, us, ms, s, m or h, none meaning s; no sign, no space, no exponent,
 * nothing else before or after. Digits past the 18th after the point count for nothing;
 * a fraction of a ns is dropped. Stores the nanoseconds in *NS and returns 0; -EINVAL when
 * S is not of that form (or NULL, or empty), -ERANGE when it is above MAX (the whole part
 * alone above MAX is -ERANGE whatever follows it). *NS is unchanged on error. FLAGS: an OR
 * of enum duration_flags. */
int duration__parse(const char *s, uint64_t max, unsigned flags, uint64_t *ns);

/* The same grammar over the LEN bytes at S (which need not end there): the side of a
 * window. FLAGS: DURATION_NONZERO only. */
int duration__parse_n(const char *s, size_t len, uint64_t max, unsigned flags, uint64_t *ns);

#endif
