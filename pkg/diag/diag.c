#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diag/diag.h"

int diag_fail(struct diag *d, int code, int err, const char *fmt, ...)
{
	va_list ap;

	d->code = code;
	d->err = err;
	d->hint[0] = '\0';
	va_start(ap, fmt);
	vsnprintf(d->msg, sizeof(d->msg), fmt, ap);
	va_end(ap);
	return -1;
}

void diag_hint(struct diag *d, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(d->hint, sizeof(d->hint), fmt, ap);
	va_end(ap);
}

void diag_warn(const struct diag *d, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: warning: ", d->prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
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
