/* num: full-consume, overflow-checked number parsing (never atoi).
 * Every function returns 0 on success or a negative code; num_strerror
 * turns the code into the phrase used in diagnostics. */
#ifndef PYSBX_NUM_H
#define PYSBX_NUM_H

#include <stdint.h>

enum {
	NUM_OK = 0,
	NUM_EMPTY = -1,		/* "" */
	NUM_NOT_NUMBER = -2,	/* "abc", "-1", "1.5" */
	NUM_OVERFLOW = -3,	/* past 2^64 - 1 (or the given max) */
	NUM_BAD_SUFFIX = -4,	/* "12Q" */
	NUM_NO_UNIT = -5,	/* duration without ms/s/m/h */
};

/* Decimal, or hex with 0x. */
int num_u64(const char *s, uint64_t *out);
/* Like num_u64 but also rejects values above max. */
int num_u64_max(const char *s, uint64_t max, uint64_t *out);
/* Bytes: a number with an optional K, M, G or T suffix (powers of 1024). */
int num_size(const char *s, uint64_t *out);
/* Milliseconds: a number with a required unit ms, s, m or h. */
int num_duration_ms(const char *s, uint64_t *out);
/* Octal permission bits up to 07777. */
int num_mode(const char *s, int *out);
/* Decimal int in [min, max] (fds, ids, errno values). */
int num_int(const char *s, long min, long max, long *out);

#endif
