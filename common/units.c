/* units.c — parsing of the quantities both programs take on their command lines. */
#include "common/units.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int units__parse_bytes(const char *s, uint64_t max, uint64_t *v)
{
	static const struct {
		const char *name;
		uint64_t mult;
	} units[] = {
		{"", 1},	      {"B", 1},		    {"K", 1024},	  {"KiB", 1024},
		{"k", 1024},	      {"M", 1024 * 1024}, {"MiB", 1024 * 1024}, {"G", 1ull << 30},
		{"GiB", 1ull << 30}, {"T", 1ull << 40},	    {"TiB", 1ull << 40},
	};
	unsigned long long n;
	uint64_t r;
	char *end;
	size_t i;

	if (!s || s[0] < '0' || s[0] > '9')
		return -EINVAL; /* no sign, no space, no empty string */
	errno = 0;
	n = strtoull(s, &end, 10);
	if (errno)
		return -ERANGE;
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcmp(end, units[i].name))
			continue;
		if (__builtin_mul_overflow((uint64_t)n, units[i].mult, &r) || r > max)
			return -ERANGE;
		*v = r;
		return 0;
	}
	return -EINVAL;
}
