#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diag/diag.h"

/* Length of the UTF-8 sequence at s that is valid and prints: 0 for a
 * stray or overlong byte, a surrogate, or a C1 control (U+0080-U+009F,
 * which some terminals obey as ESC [ etc.). */
static size_t utf8_ok(const unsigned char *s)
{
	size_t n = s[0] >= 0xf0 ? 4 : s[0] >= 0xe0 ? 3 : s[0] >= 0xc2 ? 2 : 0;
	unsigned cp;

	if (!n || s[0] > 0xf4)
		return 0;
	cp = s[0] & (0x7f >> n);
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 ||
						  cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || (cp >= 0x80 && cp <= 0x9f))
		return 0;
	return n;
}

void diag_term_escape(char *dst, size_t dstlen, const char *src)
{
	const unsigned char *s = (const unsigned char *)src;
	size_t n = 0;

	if (!dstlen)
		return;
	while (*s && n + 5 < dstlen) {
		size_t k = *s < 0x80 ? (*s >= 0x20 && *s != 0x7f) : utf8_ok(s);

		if (!k) {
			n += (size_t)snprintf(dst + n, dstlen - n, "\\x%02x",
					      *s++);
			continue;
		}
		if (n + k >= dstlen)
			break;
		memcpy(dst + n, s, k);
		n += k;
		s += k;
	}
	dst[n] = '\0';
}

/* Format into dst, escaped for a terminal: a path the sandbox chose may
 * hold ESC sequences (OSC 52 writes the clipboard). */
static void vformat(char *dst, size_t dstlen, const char *fmt, va_list ap)
{
	char raw[2048];

	vsnprintf(raw, sizeof(raw), fmt, ap);
	diag_term_escape(dst, dstlen, raw);
}

int diag_fail(struct diag *d, int code, int err, const char *fmt, ...)
{
	va_list ap;

	d->code = code;
	d->err = err;
	d->hint[0] = '\0';
	va_start(ap, fmt);
	vformat(d->msg, sizeof(d->msg), fmt, ap);
	va_end(ap);
	return -1;
}

void diag_hint(struct diag *d, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vformat(d->hint, sizeof(d->hint), fmt, ap);
	va_end(ap);
}

void diag_warn(const struct diag *d, const char *fmt, ...)
{
	char msg[2048];
	va_list ap;

	va_start(ap, fmt);
	vformat(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fprintf(stderr, "%s: warning: %s\n", d->prog, msg);
}

void diag_json_escape(char *dst, unsigned long dstlen, const char *src)
{
	unsigned long n = 0;

	for (; *src && n + 7 < dstlen; src++) {
		unsigned char c = (unsigned char)*src;

		if (c == '"' || c == '\\') {
			dst[n++] = '\\';
			dst[n++] = (char)c;
		} else if (c < 0x20 || c == 0x7f) {
			n += (unsigned long)snprintf(dst + n, dstlen - n,
						     "\\u%04x", c);
		} else {
			dst[n++] = (char)c;
		}
	}
	dst[n] = '\0';
}

int diag_report(int fd, const char *stage, const char *error, int err,
		int code)
{
	char esc[2048], line[2300];
	int n;

	if (fd < 0)
		return 0;
	diag_json_escape(esc, sizeof(esc), error);
	n = snprintf(line, sizeof(line),
		     "{\"stage\":\"%s\",\"error\":\"%s\",\"errno\":%d,"
		     "\"code\":%d}\n",
		     stage, esc, err, code);
	if (n < 0 || (size_t)n >= sizeof(line))
		return -1;
	/* One write(2) of < PIPE_BUF bytes: records never interleave. */
	return write(fd, line, (size_t)n) == n ? 0 : -1;
}

void diag_emit(const struct diag *d)
{
	char full[1400];
	int code = d->code ? d->code : EXIT_SYSCALL;

	if (d->err)
		snprintf(full, sizeof(full), "%s: %s", d->msg,
			 strerror(d->err));
	else
		snprintf(full, sizeof(full), "%s", d->msg);
	fprintf(stderr, "%s: fatal: %s\n", d->prog, full);
	if (d->hint[0])
		fprintf(stderr, "%s: hint: %s\n", d->prog, d->hint);
	diag_report(d->report_fd, d->stage, full, d->err, code);
}

_Noreturn void diag_exit(struct diag *d)
{
	diag_emit(d);
	exit(d->code ? d->code : EXIT_SYSCALL);
}
