/* libFuzzer target: command-line parsing.
 *
 * The input is an argv: its bytes split at NUL bytes. The first byte B
 * chooses what parses it:
 *
 *   B < 0x80, even: the option loop every chain step runs (getopt_long
 *         with CHAIN_SHORTOPTS/CHAIN_LONGOPTS, chain_opt,
 *         chain_args_done), then chain_load_plan with what it gathered.
 *         Checked: a success leaves a next program and never both -p and
 *         --plan-fd; a failure is a usage error (100) with a message; the
 *         message's JSON escaping (the report fd record) is well formed
 *         and fits.
 *   B < 0x80, odd: `pysbx policy check|show ...` (front_policy).
 *   B >= 0x80, (B & 0x7f) % 3 == 0: pysbx-clean's options
 *         (guard_parse_args: -t, -k, --status-fd, --die-with-parent,
 *         --scratch-parent, --sweep and the common ones).
 *   ... == 1: pysbx-seccomp's options (sc_parse_args: --log, --bpf,
 *         --export, --list and the common ones).
 *   ... == 2: `pysbx run ...`: front_run_parse, then the guard's argv
 *         front_run_argv builds (in directory ((B & 0x7f) / 3) % 3 of
 *         run_dirs[]), then that argv through the guard's parser and each
 *         step's (as chain_exec hands it on): every step must find the
 *         next one, pysbx-seccomp the target's words, verbatim.
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
#include <limits.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "chain/chain.h"
#include "front/front.h"
#include "fuzz_common.h"
#include "guard/guard.h"
#include "policy/policy.h"
#include "seccomp/args.h"
#include "seccomp/compile.h"

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
static char *names[MAX_ARGS + 2 * PLAN_MAX_VARS];
static size_t nnames;
static int devnull = -1;
/* Where `pysbx run` may live: self_dir's result, any path without NUL
 * shorter than PATH_MAX - 32 (a space, an option-like name, the longest). */
static char long_dir[PATH_MAX - 33];
static const char *run_dirs[] = { "/usr/local/bin", "/home/a b/--/-p",
				  long_dir };


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
	/* The longest directory self_dir can return: "/xxx.../xxx". */
	memset(long_dir, 'x', sizeof(long_dir) - 1);
	for (size_t i = 0; i < sizeof(long_dir) - 1; i += 200)
		long_dir[i] = '/';
	return 0;
}

/* Could getopt_long read this word as -h, --help or --version? Such
 * words are dropped: chain_opt exits the process for them. Conservative:
 * it also drops words that getopt would take as an option's argument. */
static int exits(const char *w, const char *withargs)
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
		if (strchr(withargs, *s))
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
	if (c.vars.n > PLAN_MAX_DEFINES)
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

/* A failed parse: a usage error (100, or 111 with an errno where allowed)
 * with a message, whose report record is well formed. */
static void failed(const struct diag *d, const char *who, int sys_ok)
{
	if (!d->msg[0] || !(d->code == EXIT_USAGE ||
			    (sys_ok && d->code == EXIT_SYSCALL && d->err)))
		fuzz_die("fuzz_args", who, d->msg, NULL);
	json(d->msg);
}

static void guard_args(int argc, char **argv)
{
	struct diag d = DIAG_INIT("pysbx-clean", "clean");
	struct guard_opts o = { .status_fd = -1 };
	const char *sweep = NULL;
	struct chain c;

	chain_init(&c, GUARD_USAGE);
	if (guard_parse_args(&d, &c, &o, &sweep, argc, argv) < 0) {
		/* 111: --status-fd could not be made close-on-exec. */
		failed(&d, "pysbx-clean: usage error without code 100",
		       o.status_fd >= 0);
		return;
	}
	if (sweep) {
		if (c.next || c.policy || o.scratch_parent || optind != argc)
			fuzz_die("fuzz_args", "--sweep with other arguments",
				 sweep, NULL);
		return;
	}
	if (!c.next || c.next != argv + optind || !c.next[0])
		fuzz_die("fuzz_args", "pysbx-clean: no next program", NULL,
			 NULL);
	if (c.policy && c.plan_fd >= 0)
		fuzz_die("fuzz_args", "pysbx-clean: -p and --plan-fd", NULL,
			 NULL);
	if (c.vars.n > PLAN_MAX_DEFINES)
		fuzz_die("fuzz_args", "pysbx-clean: too many -D", NULL, NULL);
	if (o.status_fd < -1 || o.status_fd > 1 << 20 ||
	    (o.timeout_ms && !o.timeout_set) ||
	    (o.kill_after_ms && !o.kill_after_set))
		fuzz_die("fuzz_args", "pysbx-clean: options out of range",
			 NULL, NULL);
}

static void seccomp_args(int argc, char **argv)
{
	struct diag d = DIAG_INIT("pysbx-seccomp", "seccomp");
	struct sc_opts o = { 0, NULL, NULL, 0 };
	struct chain c;

	chain_init(&c, SC_USAGE);
	if (sc_parse_args(&d, &c, &o, argc, argv) < 0) {
		failed(&d, "pysbx-seccomp: usage error without code 100", 0);
		return;
	}
	if (c.policy && c.plan_fd >= 0)
		fuzz_die("fuzz_args", "pysbx-seccomp: -p and --plan-fd", NULL,
			 NULL);
	if (!c.next) {
		if (optind != argc || !(o.export || o.list))
			fuzz_die("fuzz_args", "pysbx-seccomp: no program and "
				 "nothing to export or list", NULL, NULL);
		return;
	}
	if (c.next != argv + optind || !c.next[0])
		fuzz_die("fuzz_args", "pysbx-seccomp: bad next program", NULL,
			 NULL);
	if (o.flags & ~SC_COMPILE_AUDIT)
		fuzz_die("fuzz_args", "pysbx-seccomp: unknown flag", NULL,
			 NULL);
}

/* One chain step as chain_exec starts it: argv0, then --plan-fd and
 * --report-fd, then the step's own argv. Returns a malloc'd argv. */
static char **step_argv(char **next, int *argc)
{
	static char *fds[] = { "--plan-fd", "3", "--report-fd", "4" };
	int n = 0;
	char **a;

	while (next[n])
		n++;
	a = calloc((size_t)n + 6, sizeof(*a));
	if (!a)
		abort();
	a[0] = next[0];
	memcpy(a + 1, fds, sizeof(fds));
	memcpy(a + 5, next + 1, (size_t)n * sizeof(*a));	/* and NULL */
	*argc = n + 4;
	return a;
}

/* pysbx-landlock, which `pysbx run` puts before pysbx-seccomp for a
 * policy that says `landlock yes`: its own options (--paths, --abi) and
 * the common ones; returns where its next program starts. */
static char **skip_landlock(char **next)
{
	static struct option longopts[] = {
		CHAIN_LONGOPTS,
		{ "paths", required_argument, NULL, 1000 },
		{ "abi", required_argument, NULL, 1001 },
		{ 0 },
	};
	struct diag sd = DIAG_INIT("landlock", "step");
	struct chain sc;
	int argc, opt, r = 0;
	char **argv = step_argv(next, &argc);

	chain_init(&sc, "step");
	optind = 0;
	while (r >= 0 && (opt = getopt_long(argc, argv, CHAIN_SHORTOPTS,
					    longopts, NULL)) != -1)
		if (opt < 1000)
			r = chain_opt(&sd, &sc, opt, optarg) > 0 ? 0 : -1;
	if (r >= 0)
		r = chain_args_done(&sd, &sc, argc, argv);
	if (r < 0 || sc.policy || sc.vars.n || !sc.next || sc.next < argv + 5)
		fuzz_die("fuzz_args", "pysbx run: pysbx-landlock misread its "
			 "argv", sd.msg, NULL);
	next += sc.next - argv - 4;
	free(argv);
	return next;
}

/* The guard's argv that `pysbx run` built, as the chain reads it: the
 * guard finds pysbx-mount with the same -p, -D and --allow-untrusted;
 * mount finds exec, exec finds seccomp (common options), and seccomp's
 * own parser finds the target: the very words given, nothing consumed. */
static void check_run_argv(const struct chain *c, const struct run_argv *ra,
			   const char *dir)
{
	static const char *const steps[] = { "pysbx-mount", "pysbx-exec",
					     "pysbx-seccomp" };
	static struct option longopts[] = { CHAIN_LONGOPTS, { 0 } };
	struct diag d = DIAG_INIT("pysbx-clean", "clean");
	struct guard_opts o = { .status_fd = -1 };
	const char *sweep = NULL;
	size_t dlen = strlen(dir);
	struct chain g;
	char **next;
	int n = 0;

	while (c->next[n])
		n++;
	if (ra->argc < n + 1 || ra->argv[ra->argc] ||
	    strcmp(ra->argv[ra->argc - n - 1], "--"))
		fuzz_die("fuzz_args", "pysbx run: no -- before the target",
			 ra->argv[0], NULL);
	for (int i = 0; i < n; i++)
		if (ra->argv[ra->argc - n + i] != c->next[i])
			fuzz_die("fuzz_args", "pysbx run: target word not "
				 "copied verbatim", c->next[i], NULL);
	if (strncmp(ra->argv[0], dir, dlen) ||
	    strcmp(ra->argv[0] + dlen, "/pysbx-clean"))
		fuzz_die("fuzz_args", "pysbx run: argv[0] is not the guard",
			 ra->argv[0], dir);

	chain_init(&g, GUARD_USAGE);
	if (guard_parse_args(&d, &g, &o, &sweep, ra->argc, ra->argv) < 0)
		fuzz_die("fuzz_args", "pysbx run: the guard refused its argv",
			 d.msg, ra->argv[0]);
	if (sweep || !g.policy || strcmp(g.policy, c->policy) ||
	    g.allow_untrusted != c->allow_untrusted || g.plan_fd >= 0 ||
	    g.report_fd >= 0 || o.timeout_set || o.kill_after_set ||
	    o.die_with_parent || o.scratch_parent || o.status_fd != -1)
		fuzz_die("fuzz_args", "pysbx run: the guard read other "
			 "options", c->policy, g.policy);
	if (g.vars.n != c->vars.n)
		fuzz_die("fuzz_args", "pysbx run: -D count changed", NULL,
			 NULL);
	for (size_t i = 0; i < g.vars.n; i++)
		if (strcmp(g.vars.name[i], c->vars.name[i]) ||
		    strcmp(g.vars.value[i], c->vars.value[i]))
			fuzz_die("fuzz_args", "pysbx run: -D changed",
				 c->vars.value[i], g.vars.value[i]);

	next = g.next;
	for (int i = 0; i < 3; i++) {
		struct diag sd = DIAG_INIT(steps[i] + 6, "step");
		struct sc_opts so = { 0, NULL, NULL, 0 };
		struct chain sc;
		int argc, opt, r = 0;
		char **argv;

		if (i == 2 && !strncmp(next[0], dir, dlen) &&
		    next[0][dlen] == '/' &&
		    !strcmp(next[0] + dlen + 1, "pysbx-landlock"))
			next = skip_landlock(next);
		if (strncmp(next[0], dir, dlen) || next[0][dlen] != '/' ||
		    strcmp(next[0] + dlen + 1, steps[i]))
			fuzz_die("fuzz_args", "pysbx run: a step is not next",
				 next[0], steps[i]);
		argv = step_argv(next, &argc);
		chain_init(&sc, "step");
		if (i < 2) {
			optind = 0;
			while (r >= 0 &&
			       (opt = getopt_long(argc, argv, CHAIN_SHORTOPTS,
						  longopts, NULL)) != -1)
				r = chain_opt(&sd, &sc, opt, optarg) > 0 ?
					    0 : -1;
			if (r >= 0)
				r = chain_args_done(&sd, &sc, argc, argv);
		} else {
			r = sc_parse_args(&sd, &sc, &so, argc, argv);
		}
		if (r < 0 || sc.policy || sc.vars.n || sc.plan_fd != 3 ||
		    sc.report_fd != 4 || so.flags || so.bpf || so.export ||
		    so.list || !sc.next)
			fuzz_die("fuzz_args", "pysbx run: a step misread its "
				 "argv", steps[i], sd.msg);
		/* sc.next points into argv: back into the guard's argv. */
		if (sc.next < argv + 5)
			fuzz_die("fuzz_args", "pysbx run: a step took its own "
				 "fds for its next program", steps[i], NULL);
		next += sc.next - argv - 4;
		if (i == 2)
			for (int j = 0; j <= n; j++)
				if (next[j] != c->next[j])
					fuzz_die("fuzz_args", "pysbx run: "
						 "seccomp's target differs",
						 c->next[j], next[j]);
		free(argv);
	}
}

static void run_args(int argc, char **argv, const char *dir)
{
	struct diag d = DIAG_INIT("pysbx", "front");
	struct run_argv ra;
	struct chain c;

	if (front_run_parse(&d, &c, argc, argv) < 0) {
		failed(&d, "pysbx run: usage error without code 100", 0);
		return;
	}
	if (!c.policy || !c.next || c.next != argv + optind || !c.next[0])
		fuzz_die("fuzz_args", "pysbx run: accepted without -p or a "
			 "program", NULL, NULL);
	if (front_run_argv(&d, &c, dir, &ra) < 0)
		fuzz_die("fuzz_args", "pysbx run: argv not built", d.msg, NULL);
	check_run_argv(&c, &ra, dir);
	front_run_argv_free(&ra);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const argv0[] = { "pysbx-exec", "policy",
					     "pysbx-clean", "pysbx-seccomp",
					     "run" };
	char *buf, *argv[MAX_ARGS + 2];
	int argc = 0, mode;
	size_t len;

	if (size < 1)
		return 0;
	/* 0 chain, 1 policy, 2 guard, 3 seccomp, 4 run */
	mode = data[0] & 0x80 ? 2 + (data[0] & 0x7f) % 3 : data[0] & 1;
	len = size - 1;
	buf = malloc(size);	/* the words and a final NUL */
	if (!buf)
		abort();
	memcpy(buf, data + 1, len);
	buf[len] = '\0';
	argv[argc++] = (char *)argv0[mode];
	/* "a\0\0b" is three words, "a\0" one: a final NUL ends a word. */
	for (size_t off = 0; off < len && argc < MAX_ARGS + 1;) {
		char *w = buf + off;

		if (!exits(w, mode == 2 ? "pDtk" : "pD"))
			argv[argc++] = w;
		off += strlen(w) + 1;
	}
	argv[argc] = NULL;
	switch (mode) {
	case 0:
		chain_args(argc, argv);
		break;
	case 1:
		policy_args(argc, argv);
		break;
	case 2:
		guard_args(argc, argv);
		break;
	case 3:
		seccomp_args(argc, argv);
		break;
	default:
		run_args(argc, argv, run_dirs[((data[0] & 0x7f) / 3) % 3]);
	}
	for (size_t i = 0; i < nnames; i++)
		free(names[i]);
	nnames = 0;
	free(buf);
	return 0;
}
