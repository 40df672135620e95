/*
 * tap.h - a tiny Test Anything Protocol helper for the unit tests.
 *
 * One test program per file, each with its own main:
 *
 *	#include "tap.h"
 *
 *	int main(void)
 *	{
 *		plan(2);			// or no plan, see done_testing()
 *		is_int(parse_size("4K"), 4096, "4K is 4096 bytes");
 *		is_str(msg, "x:1:1: error: ...", "reports the position");
 *		return done_testing();
 *	}
 *
 * Output goes to stdout and is flushed line by line, so that a crash loses no
 * result: "ok N - name", "not ok N - name", "ok N # SKIP reason", and "# ..."
 * for diagnostics. Every check returns 1 if it passed, 0 if not, so a test can
 * add detail: if (!ok(...)) diag("errno %d", e);
 *
 * Everything is static inline: a test includes this once, and functions it
 * does not call cause no unused-function warning.
 */
#ifndef PYSBX_TAP_H
#define PYSBX_TAP_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TAP_PRINTF(f, a) __attribute__((format(printf, f, a)))

struct tap_state {
	int planned; /* -1: no plan printed yet */
	int run;
	int failed;
};

static struct tap_state tap_ = { -1, 0, 0 };

static inline void tap_vline(const char *prefix, const char *fmt, va_list ap)
{
	fputs(prefix, stdout);
	vprintf(fmt, ap);
	putchar('\n');
	fflush(stdout);
}

/* Announce that n checks will follow; call at most once, before any check. */
static inline void plan(int n)
{
	tap_.planned = n;
	printf("1..%d\n", n);
	fflush(stdout);
}

/* Skip the whole program: prints "1..0 # SKIP reason" and exits 0. */
TAP_PRINTF(1, 2)
static inline void skip_all(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tap_vline("1..0 # SKIP ", fmt, ap);
	va_end(ap);
	exit(0);
}

/* A diagnostic line, "# ...": shown by the runner next to the result. */
TAP_PRINTF(1, 2)
static inline void diag(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tap_vline("# ", fmt, ap);
	va_end(ap);
}

static inline int tap_vresult(int pass, const char *fmt, va_list ap)
{
	char prefix[32];

	tap_.run++;
	if (!pass)
		tap_.failed++;
	snprintf(prefix, sizeof(prefix), "%sok %d - ", pass ? "" : "not ",
		 tap_.run);
	tap_vline(prefix, fmt, ap);
	return pass;
}

/* Pass if cond is true. */
TAP_PRINTF(2, 3)
static inline int ok(int cond, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tap_vresult(cond != 0, fmt, ap);
	va_end(ap);
	return cond != 0;
}

/* Pass if got == want; on failure shows both. */
TAP_PRINTF(3, 4)
static inline int is_int(long long got, long long want, const char *fmt, ...)
{
	va_list ap;
	int pass = got == want;

	va_start(ap, fmt);
	tap_vresult(pass, fmt, ap);
	va_end(ap);
	if (!pass) {
		diag("     got: %lld", got);
		diag("expected: %lld", want);
	}
	return pass;
}

/* Pass if both strings are equal, or both NULL; on failure shows both. */
TAP_PRINTF(3, 4)
static inline int is_str(const char *got, const char *want, const char *fmt,
			 ...)
{
	va_list ap;
	int pass;

	if (got == NULL || want == NULL)
		pass = got == want;
	else
		pass = strcmp(got, want) == 0;
	va_start(ap, fmt);
	tap_vresult(pass, fmt, ap);
	va_end(ap);
	if (!pass) {
		diag("     got: %s%s%s", got ? "'" : "", got ? got : "NULL",
		     got ? "'" : "");
		diag("expected: %s%s%s", want ? "'" : "", want ? want : "NULL",
		     want ? "'" : "");
	}
	return pass;
}

/* Record n checks as skipped: "ok N # SKIP reason". */
TAP_PRINTF(2, 3)
static inline void skip(int n, const char *fmt, ...)
{
	va_list ap;
	char prefix[32];

	while (n-- > 0) {
		tap_.run++;
		snprintf(prefix, sizeof(prefix), "ok %d # SKIP ", tap_.run);
		va_start(ap, fmt);
		tap_vline(prefix, fmt, ap);
		va_end(ap);
	}
}

/* Stop the whole run: the runner counts the program as failed. */
TAP_PRINTF(1, 2)
static inline void bail_out(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tap_vline("Bail out! ", fmt, ap);
	va_end(ap);
	exit(255);
}

/*
 * End the program's output: prints the plan if plan() was not called, and
 * returns the exit status for main: 0 if every check passed and as many ran
 * as were planned, 1 otherwise.
 */
static inline int done_testing(void)
{
	if (tap_.planned < 0) {
		plan(tap_.run);
	} else if (tap_.run != tap_.planned) {
		diag("planned %d tests but ran %d", tap_.planned, tap_.run);
		return 1;
	}
	if (tap_.failed) {
		diag("failed %d of %d tests", tap_.failed, tap_.run);
		return 1;
	}
	return 0;
}

#endif
