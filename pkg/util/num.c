#include <stdint.h>
#include <string.h>

#include "util/num.h"

/* Parse digits of base 10 or 16 from *s, advancing it; at least one digit. */
static int digits(const char **s, uint64_t *out)
{
	const char *p = *s;
	unsigned base = 10;
	uint64_t v = 0;
	const char *start;

	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
		base = 16;
		p += 2;
	}
	start = p;
	for (;; p++) {
		unsigned d;

		if (*p >= '0' && *p <= '9')
			d = (unsigned)(*p - '0');
		else if (base == 16 && *p >= 'a' && *p <= 'f')
			d = (unsigned)(*p - 'a' + 10);
		else if (base == 16 && *p >= 'A' && *p <= 'F')
			d = (unsigned)(*p - 'A' + 10);
		else
			break;
		if (v > (UINT64_MAX - d) / base)
			return NUM_OVERFLOW;
		v = v * base + d;
	}
	if (p == start)
		return NUM_NOT_NUMBER;
	*s = p;
	*out = v;
	return NUM_OK;
}

int num_u64(const char *s, uint64_t *out)
{
	int r;

	if (!*s)
		return NUM_EMPTY;
	r = digits(&s, out);
	if (r)
		return r;
	return *s ? NUM_NOT_NUMBER : NUM_OK;
}

int num_u64_max(const char *s, uint64_t max, uint64_t *out)
{
	int r = num_u64(s, out);

	if (!r && *out > max)
		return NUM_OVERFLOW;
	return r;
}

static int scaled(uint64_t v, uint64_t mul, uint64_t *out)
{
	if (mul && v > UINT64_MAX / mul)
		return NUM_OVERFLOW;
	*out = v * mul;
	return NUM_OK;
}

int num_size(const char *s, uint64_t *out)
{
	uint64_t v, mul = 1;
	int r;

	if (!*s)
		return NUM_EMPTY;
	r = digits(&s, &v);
	if (r)
		return r;
	if (*s) {
		switch (*s) {
		case 'K': case 'k': mul = 1ULL << 10; break;
		case 'M': case 'm': mul = 1ULL << 20; break;
		case 'G': case 'g': mul = 1ULL << 30; break;
		case 'T': case 't': mul = 1ULL << 40; break;
		default: return NUM_BAD_SUFFIX;
		}
		if (s[1])
			return NUM_BAD_SUFFIX;
	}
	return scaled(v, mul, out);
}

int num_duration_ms(const char *s, uint64_t *out)
{
	uint64_t v, mul;
	int r;

	if (!*s)
		return NUM_EMPTY;
	r = digits(&s, &v);
	if (r)
		return r;
	if (!*s)
		return NUM_NO_UNIT;
	if (!strcmp(s, "ms"))
		mul = 1;
	else if (!strcmp(s, "s"))
		mul = 1000;
	else if (!strcmp(s, "m"))
		mul = 60 * 1000;
	else if (!strcmp(s, "h"))
		mul = 3600 * 1000;
	else
		return NUM_BAD_SUFFIX;
	return scaled(v, mul, out);
}

int num_mode(const char *s, int *out)
{
	int v = 0;
	const char *p = s;

	if (!*s)
		return NUM_EMPTY;
	for (; *p; p++) {
		if (*p < '0' || *p > '7')
			return NUM_NOT_NUMBER;
		v = v * 8 + (*p - '0');
		if (v > 07777)
			return NUM_OVERFLOW;
	}
	*out = v;
	return NUM_OK;
}

int num_int(const char *s, long min, long max, long *out)
{
	uint64_t v;
	int neg = 0, r;

	if (*s == '-') {
		neg = 1;
		s++;
	}
	r = num_u64(s, &v);
	if (r)
		return r;
	if (v > (uint64_t)INT64_MAX)
		return NUM_OVERFLOW;
	if (neg && min >= 0)
		return NUM_NOT_NUMBER;
	if (neg ? -(int64_t)v < min : (int64_t)v > max)
		return NUM_OVERFLOW;
	if (!neg && (int64_t)v < min)
		return NUM_OVERFLOW;
	*out = neg ? -(long)v : (long)v;
	return NUM_OK;
}
