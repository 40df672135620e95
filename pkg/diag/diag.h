/* diag: errors as values, carried up to main, printed once.
 *
 * Library code never exits and never prints: it records what failed in a
 * struct diag and returns -1. Only main calls diag_exit(), which prints
 *
 *	prog: fatal: unable to VERB OBJECT: strerror
 *	prog: hint: ...
 *
 * writes one JSON record to the chain's report fd (if any) and exits with
 * the code the failure carries (DESIGN.md "Exit status").
 */
#ifndef PYSBX_DIAG_H
#define PYSBX_DIAG_H

#include <stdarg.h>
#include <stddef.h>

enum {
	EXIT_USAGE = 100,	/* bad usage or invalid policy: nothing started */
	EXIT_SYSCALL = 111,	/* an isolation step failed: nothing untrusted ran */
	EXIT_TIMEOUT = 124,	/* the wall-clock timeout fired */
	EXIT_NOEXEC = 126,	/* the target could not be executed */
	EXIT_NOTFOUND = 127,	/* the target was not found */
};

struct diag {
	const char *prog;	/* "pysbx-mount": prefix of every message */
	const char *stage;	/* "mount": the stage named in JSON records */
	int code;		/* exit code of the recorded failure, 0 if none */
	int err;		/* errno of the failure, 0 if none */
	int report_fd;		/* chain report fd, -1 if none */
	char msg[1024];		/* "unable to mount /usr: ..." without prog */
	char hint[1024];	/* empty if no hint */
};

#define DIAG_INIT(prog, stage) { (prog), (stage), 0, 0, -1, "", "" }

/* Record a failure: code is the exit code, err an errno (0: none, then no
 * ": strerror" suffix). The message is printf-formatted. Returns -1 so that
 * callers can write `return diag_fail(...)`. A later call overwrites an
 * earlier one: the innermost caller records, outer callers only add hints. */
int diag_fail(struct diag *d, int code, int err, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* Attach a hint (the usual cause and its fix) to the recorded failure. */
void diag_hint(struct diag *d, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Print the recorded failure (and hint) to stderr and write its JSON
 * record to d->report_fd if set, without exiting (for a process that
 * reports a failure of its child and goes on). */
void diag_emit(const struct diag *d);

/* diag_emit, then exit with d->code (111 if none was recorded). */
_Noreturn void diag_exit(struct diag *d);

/* Print "prog: warning: ..." to stderr. */
void diag_warn(const struct diag *d, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Write one JSON line {"stage":..,"error":..,"errno":..,"code":..} to fd;
 * strings are escaped. Used by diag_exit and by steps that report without
 * exiting. Returns 0 or -1 (errors are ignored by callers: the report is
 * advisory, the exit code is authoritative). */
int diag_report(int fd, const char *stage, const char *error, int err,
		int code);

/* Copy src to dst with every byte a terminal could obey escaped as \xHH:
 * C0 controls, DEL, C1 controls and bytes that are not valid UTF-8.
 * diag_fail, diag_hint and diag_warn apply it to every message. */
void diag_term_escape(char *dst, size_t dstlen, const char *src);

/* JSON-escape src into dst (always NUL-terminated, truncated to fit). */
void diag_json_escape(char *dst, unsigned long dstlen, const char *src);

#endif
