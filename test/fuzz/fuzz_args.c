/* libFuzzer target: command-line parsing.
 *
 * The input is an argv: its bytes split at NUL bytes. The first byte
 * chooses what parses it:
 *
 *   even: the option loop every chain step runs (getopt_long with
 *         CHAIN_SHORTOPTS/CHAIN_LONGOPTS, chain_opt, chain_args_done),
 *         then chain_load_plan with what it gathered. Checked: a success
 *         leaves a next program and never both -p and --plan-fd; a
 *         failure is a usage error (100) with a message; the message's
 *         JSON escaping (the report fd record) is well formed and fits.
 *   odd:  `pysbx policy check|show ...` (front_policy).
 *
 * In-process limits, on purpose:
 * - chain_opt prints and exit(0)s on -h/--help/--version: arguments that
 *   getopt could read as one of those are dropped from the argv.
 * - front_policy ends usage errors with diag_exit(), and leaves its -D
 *   names allocated (main exits right after). The Makefile links this
 *   target with --wrap for diag_exit (here: longjmp back), vars_add_arg
 *   (here: remember each name to free it), policy_parse_file (here: the
 *   file is looked up by basename in the fuzz include directory, so no
 *   other file is read) and perr_print (here: silent; its format is
 *   fuzzed through the parser targets' messages).
 */
#include <ctype.h>
#include <fcntl.h>
#include <getopt.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "chain/chain.h"
#include "front/front.h"
#include "fuzz_common.h"
#include "policy/policy.h"

#define MAX_ARGS 64

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The real functions, reached through the linker's --wrap. */
int __real_vars_add_arg(struct vars *v, const char *arg, char *err,
			size_t errlen);
int __real_policy_parse_file(struct plan *p, const char *path,
			     const struct vars *v, unsigned flags,
			     struct perr *e);
_Noreturn void __wrap_diag_exit(struct diag *d);
int __wrap_vars_add_arg(struct vars *v, const char *arg, char *err,
			size_t errlen);
int __wrap_policy_parse_file(struct plan *p, const char *path,
			     const struct vars *v, unsigned flags,
			     struct perr *e);
void __wrap_perr_print(const struct perr *e, const char *prog,
		       const char *file);

static jmp_buf exited;
static int exit_code;
static char *names[MAX_ARGS + PLAN_MAX_VARS];
static size_t nnames;
static int devnull = -1;

_Noreturn void __wrap_diag_exit(struct diag *d)
{
	exit_code = d->code ? d->code : EXIT_SYSCALL;
	longjmp(exited, 1);
}

int __wrap_vars_add_arg(struct vars *v, const char *arg, char *err,
			size_t errlen)
{
	int r = __real_vars_add_arg(v, arg, err, errlen);

	if (r == 0) {
		if (nnames >= sizeof(names) / sizeof(names[0]))
			abort();
		names[nnames++] = (char *)v->name[v->n - 1];
	}
	return r;
}

int __wrap_policy_parse_file(struct plan *p, const char *path,
			     const struct vars *v, unsigned flags,
			     struct perr *e)
{
	static const char *const known[] = { "a.policy", "b.policy",
					     "self.policy", "bad.policy" };
	const char *base = strrchr(path, '/');
	char real[256];

	base = base ? base + 1 : path;
	snprintf(real, sizeof(real), "%s/missing.policy", FUZZ_INC_DIR);
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (!strcmp(base, known[i]))
			snprintf(real, sizeof(real), "%s/%s%s", FUZZ_INC_DIR,
				 i == 1 ? "sub/" : "", base);
	return __real_policy_parse_file(p, real, v, flags, e);
}

void __wrap_perr_print(const struct perr *e, const char *prog,
		       const char *file)
{
	(void)e;
	(void)prog;
	(void)file;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fuzz_inc_dir();
	devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);
	/* front_policy prints "FILE: ok" and `show` output to stdout. */
	if (devnull < 0 || dup2(devnull, STDOUT_FILENO) < 0)
		abort();
	opterr = 0;
	return 0;
}

/* Could getopt_long read this word as -h, --help or --version? Such
 * words are dropped: chain_opt exits the process for them. Conservative:
 * it also drops words that getopt would take as an option's argument. */
static int exits(const char *w)
{
	if (w[0] != '-' || !w[1])
		return 0;
	if (w[1] == '-') {
		size_t n = strcspn(w + 2, "=");

		return n && (!strncmp(w + 2, "help", n) ||
			     !strncmp(w + 2, "version", n));
	}
	for (const char *s = w + 1; *s; s++) {
		if (*s == 'h')
			return 1;
		if (*s == 'p' || *s == 'D')
			return 0;	/* the rest is the option's argument */
	}
	return 0;
}

/* A JSON string body as diag_json_escape makes it: no raw control byte,
 * no bare quote, only \" \\ and \u00XX escapes. */
static void check_json(const char *s, size_t cap)
{
	size_t n = strlen(s);

	if (n >= cap)
		fuzz_die("fuzz_args", "JSON escape overran its buffer", s,
			 NULL);
	for (size_t i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)s[i];

		if (ch < 0x20 || ch == 0x7f || ch == '"')
			fuzz_die("fuzz_args", "raw byte in JSON string", s,
				 NULL);
		if (ch != '\\')
			continue;
		if (s[i + 1] == '"' || s[i + 1] == '\\') {
			i++;
		} else if (s[i + 1] == 'u' && i + 5 < n &&
			   !strncmp(s + i + 2, "00", 2) &&
			   isxdigit((unsigned char)s[i + 4]) &&
			   isxdigit((unsigned char)s[i + 5])) {
			i += 5;
		} else {
			fuzz_die("fuzz_args", "bad escape in JSON string", s,
				 NULL);
		}
	}
}

static void json(const char *msg)
{
	static const size_t caps[] = { 1, 7, 8, 9, 64, 2048 };

	for (size_t i = 0; i < sizeof(caps) / sizeof(caps[0]); i++) {
		char *dst = malloc(caps[i]);	/* exact: ASan sees overruns */

		if (!dst)
			abort();
		diag_json_escape(dst, caps[i], msg);
		check_json(dst, caps[i]);
		free(dst);
	}
	diag_report(devnull, "fuzz", msg, 0, EXIT_USAGE);
}

static void chain_args(int argc, char **argv)
{
	static struct option longopts[] = { CHAIN_LONGOPTS, { 0 } };
	struct diag d = DIAG_INIT("pysbx-exec", "exec");
	struct chain c;
	struct plan p;
	int opt, r = 0;

	chain_init(&c, "pysbx-exec [-p POLICY] [-D NAME=VALUE]... PROG");
	optind = 0;	/* glibc: a full reset, as for a new process */
	while ((opt = getopt_long(argc, argv, CHAIN_SHORTOPTS, longopts,
				  NULL)) != -1) {
		r = chain_opt(&d, &c, opt, optarg);
		if (r == 0)	/* no step-specific options here */
			r = diag_fail(&d, EXIT_USAGE, 0, "unexpected option");
		if (r < 0)
			break;
	}
	if (r >= 0)
		r = chain_args_done(&d, &c, argc, argv);
	if (r < 0) {
		if (d.code != EXIT_USAGE || !d.msg[0])
			fuzz_die("fuzz_args", "usage error without code 100",
				 d.msg, NULL);
		json(d.msg);
		return;
	}
	if (!c.next || c.next != argv + optind || !c.next[0])
		fuzz_die("fuzz_args", "success without a next program", NULL,
			 NULL);
	if (c.policy && c.plan_fd >= 0)
		fuzz_die("fuzz_args", "-p and --plan-fd both accepted", NULL,
			 NULL);
	if (c.vars.n > PLAN_MAX_VARS - 4)
		fuzz_die("fuzz_args", "too many -D accepted", NULL, NULL);
	/* The fds named here are the fuzzer's own: never write to them. */
	if (c.plan_fd >= 0 || c.report_fd >= 0)
		return;
	if (chain_load_plan(&d, &c, &p, 0) < 0)
		json(d.msg);
	plan_free(&p);
}

static void policy_args(int argc, char **argv)
{
	struct diag d = DIAG_INIT("pysbx", "front");

	exit_code = -1;
	if (setjmp(exited) == 0)
		exit_code = front_policy(&d, argc, argv);
	if (exit_code != 0 && exit_code != EXIT_USAGE &&
	    !(exit_code == EXIT_SYSCALL && d.err))
		fuzz_die("fuzz_args", "pysbx policy: unexpected exit code",
			 d.msg, NULL);
	if (exit_code && d.code)
		json(d.msg);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf, *argv[MAX_ARGS + 2];
	int argc = 0, mode;
	size_t len;

	if (size < 1)
		return 0;
	mode = data[0] & 1;
	len = size - 1;
	buf = malloc(size);	/* the words and a final NUL */
	if (!buf)
		abort();
	memcpy(buf, data + 1, len);
	buf[len] = '\0';
	argv[argc++] = mode ? "policy" : "pysbx-exec";
	/* "a\0\0b" is three words, "a\0" one: a final NUL ends a word. */
	for (size_t off = 0; off < len && argc < MAX_ARGS + 1;) {
		char *w = buf + off;

		if (!exits(w))
			argv[argc++] = w;
		off += strlen(w) + 1;
	}
	argv[argc] = NULL;
	if (mode)
		policy_args(argc, argv);
	else
		chain_args(argc, argv);
	for (size_t i = 0; i < nnames; i++)
		free(names[i]);
	nnames = 0;
	free(buf);
	return 0;
}
