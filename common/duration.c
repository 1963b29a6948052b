/* duration.c — the one parser of the durations and times both programs take. */
#include "common/duration.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define NS_PER_SEC 1000000000ull

int duration__parse_n(const char *s, size_t len, uint64_t max, unsigned flags, uint64_t *ns)
{
	static const struct {
		const char *name;
		uint64_t ns;
	} units[] = {
		{ "ns", 1 },	      { "us", 1000 },		{ "ms", 1000000 },
		{ "s", NS_PER_SEC }, { "m", 60 * NS_PER_SEC }, { "h", 3600 * NS_PER_SEC },
	};
	/* 128 bits: the whole part stays at most 10 * max + 9, its product with a unit below
	 * 2^64 * 3.6e12, the fraction below 1e18 * 3.6e12 */
	unsigned __int128 ip = 0, frac = 0, scale = 1, v;
	uint64_t unit = NS_PER_SEC;
	size_t i = 0, digits = 0, u;

	if (!s)
		return -EINVAL;
	for (; i < len && isdigit((unsigned char)s[i]); i++, digits++) {
		ip = ip * 10 + (unsigned)(s[i] - '0');
		if (ip > max)
			return -ERANGE;
	}
	if (i < len && s[i] == '.') {
		size_t fd = 0;

		for (i++; i < len && isdigit((unsigned char)s[i]); i++, fd++) {
			if (fd >= 18)
				continue; /* far below a nanosecond whatever the unit */
			frac = frac * 10 + (unsigned)(s[i] - '0');
			scale *= 10;
		}
		digits += fd;
	}
	if (!digits)
		return -EINVAL;
	if (i < len) {
		for (u = 0; u < sizeof(units) / sizeof(units[0]); u++)
			if (strlen(units[u].name) == len - i &&
			    !strncmp(s + i, units[u].name, len - i))
				break;
		if (u == sizeof(units) / sizeof(units[0]))
			return -EINVAL;
		unit = units[u].ns;
	}
	v = ip * unit + frac * unit / scale;
	if (v > max)
		return -ERANGE;
	if (v == 0 && (flags & DURATION_NONZERO))
		return -EINVAL;
	*ns = (uint64_t)v;
	return 0;
}

/* True when S is a number in exponent notation ("1e99", "2.5E3ms"): its digits, a '.',
 * an 'e' or 'E' and a digit, or a sign and a digit. */
static bool has_exponent(const char *s)
{
	const char *p = s;

	while (isdigit((unsigned char)*p) || *p == '.')
		p++;
	return p > s && (*p == 'e' || *p == 'E') &&
	       (isdigit((unsigned char)p[1]) ||
		((p[1] == '+' || p[1] == '-') && isdigit((unsigned char)p[2])));
}

/* True when S (has_exponent) stands for more than MAX ns, whatever its unit. */
static bool exponent_too_long(const char *s, uint64_t max)
{
	char *end;
	double v = strtod(s, &end);

	/* the unit is at most 3600 s = 3.6e12 ns; any unit counts as at least 1 ns */
	if (!strcmp(end, "h"))
		v *= 3600e9;
	else if (!strcmp(end, "m"))
		v *= 60e9;
	else if (!strcmp(end, "s") || !*end)
		v *= 1e9;
	else if (!strcmp(end, "ms"))
		v *= 1e6;
	else if (!strcmp(end, "us"))
		v *= 1e3;
	return v >= (double)max + 1.0;
}

/* [H:]MM:SS, S holding a ':'. */
static int parse_clock(const char *s, uint64_t max, uint64_t *ns)
{
	double part[3] = { 0 }, t;
	const char *p = s;
	char *end;
	int n = 0;

	while (n < 3) {
		part[n++] = strtod(p, &end);
		if (end == p || part[n - 1] < 0)
			return -EINVAL;
		if (*end == ':')
			p = end + 1;
		else if (!*end)
			break;
		else
			return -EINVAL;
	}
	if (n < 2 || *end)
		return -EINVAL;
	t = (n == 3 ? part[0] * 3600 + part[1] * 60 + part[2] : part[0] * 60 + part[1]) * 1e9;
	if (isnan(t))
		return -EINVAL;
	/* below 2^63, where llround is defined */
	if (!(t < 9223372036854775808.0) || (uint64_t)llround(t) > max)
		return -ERANGE;
	*ns = (uint64_t)llround(t);
	return 0;
}

int duration__parse(const char *s, uint64_t max, unsigned flags, uint64_t *ns)
{
	int r;

	if (!s)
		return -EINVAL;
	if ((flags & DURATION_CLOCK) && strchr(s, ':'))
		return parse_clock(s, max, ns);
	r = duration__parse_n(s, strlen(s), max, flags, ns);
	if (r == -EINVAL && (flags & DURATION_EXPONENT) && has_exponent(s))
		r = exponent_too_long(s, max) ? -ERANGE : -EDOM;
	return r;
}
