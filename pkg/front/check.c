/* check: `pysbx check`, what this kernel and environment allow.
 *
 * Every probe runs in a forked child and sends its struct probe_out back
 * through a pipe, so that unshare, mounts, seccomp filters or closed fds
 * never reach this process, and a probe that crashes or hangs (alarm) is
 * reported as missing instead of taking the command down.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "front/check.h"
#include "front/front.h"
#include "util/file.h"
#include "util/names.h"

#define PROBE_SECONDS 10 /* a probe that takes longer is broken */

enum {
	F_REQUIRED = 1, /* the shipped policies need it: exit 111 without */
	F_USERNS = 2, /* probed inside a user namespace */
};

struct feature {
	const char *name;
	int (*probe)(struct probe_out *o);
	int flags;
	const char *use; /* optional features: what needs them */
};

static const struct feature features[] = {
	{ "user-ns", probe_userns, F_REQUIRED, NULL },
	{ "mount-ns", probe_ns_mount, F_REQUIRED | F_USERNS, NULL },
	{ "pid-ns", probe_ns_pid, F_REQUIRED | F_USERNS, NULL },
	{ "ipc-ns", probe_ns_ipc, F_REQUIRED | F_USERNS, NULL },
	{ "uts-ns", probe_ns_uts, F_REQUIRED | F_USERNS, NULL },
	{ "net-ns", probe_ns_net, F_REQUIRED | F_USERNS, NULL },
	{ "cgroup-ns", probe_ns_cgroup, F_USERNS,
	  "only policies with 'unshare cgroup'" },
	{ "proc", probe_proc, F_REQUIRED | F_USERNS, NULL },
	{ "seccomp", probe_seccomp, F_REQUIRED, NULL },
	{ "seccomp-kill-process", probe_seccomp_kill_process, F_REQUIRED,
	  NULL },
	{ "seccomp-log", probe_seccomp_log, 0,
	  "only policies with 'seccomp log' or 'seccomp audit'" },
	/* pysbx-mount opens every path with openat2 and mounts through fds
	 * with the new mount API, without a fallback (DESIGN.md invariant
	 * 3): both are required. */
	{ "openat2", probe_openat2, F_REQUIRED, NULL },
	{ "mount-api", probe_mount_api, F_REQUIRED | F_USERNS, NULL },
	{ "close-range", probe_close_range, 0,
	  "pysbx-exec falls back to close(2)" },
	{ "landlock", probe_landlock, 0,
	  "for Landlock-only mode and 'landlock yes'" },
	{ "cgroup2", probe_cgroup2, 0,
	  "info only: for aggregate memory and pids limits" },
};

#define NFEATURES (sizeof(features) / sizeof(features[0]))

int probe_set(struct probe_out *o, int ok, const char *fmt, ...)
{
	va_list ap;

	o->ok = ok;
	va_start(ap, fmt);
	vsnprintf(o->detail, sizeof(o->detail), fmt, ap);
	va_end(ap);
	return ok;
}

const char *check_mount_dir(void)
{
	struct stat st;

	return stat("/tmp", &st) == 0 && S_ISDIR(st.st_mode) ? "/tmp" : "/";
}

static ssize_t read_full(int fd, void *buf, size_t len)
{
	size_t got = 0;
	ssize_t n;

	while (got < len) {
		n = read(fd, (char *)buf + got, len - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	return (ssize_t)got;
}

int check_seccomp_mode(void)
{
	/* The status text is about 1.5 KiB, "Seccomp:" near its end. */
	char buf[4096];
	uint64_t mode;

	if (file_read_at(AT_FDCWD, "/proc/self/status", buf, sizeof(buf)) <= 0 ||
	    file_status_num(buf, "Seccomp", 10, &mode) < 0)
		return -1;
	return (int)mode;
}

/* Why a child sent no result: its exit status in words. */
static void describe_death(struct probe_out *o, int st)
{
	const char *sig;

	if (WIFSIGNALED(st)) {
		sig = signal_name(WTERMSIG(st));
		probe_set(o, 0, "the probe was killed by %s%s",
			  sig ? sig : "a signal",
			  WTERMSIG(st) == SIGALRM ? " (it hung)" : "");
	} else {
		probe_set(o, 0, "the probe exited %d without a result",
			  WEXITSTATUS(st));
	}
}

/* Run one probe in a child; its result (or why there is none) in o. */
static void run_probe(const struct feature *f, struct probe_out *o)
{
	struct probe_out r;
	int p[2], st = 0;
	pid_t pid;
	ssize_t n;

	memset(o, 0, sizeof(*o));
	if (pipe2(p, O_CLOEXEC) < 0) {
		probe_set(o, 0, "unable to create a pipe: %s", strerror(errno));
		return;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		probe_set(o, 0, "unable to fork: %s", strerror(errno));
		close(p[0]);
		close(p[1]);
		return;
	}
	if (pid == 0) {
		close(p[0]);
		alarm(PROBE_SECONDS);
		memset(&r, 0, sizeof(r));
		f->probe(&r);
		/* Smaller than PIPE_BUF: one atomic write. */
		_exit(write(p[1], &r, sizeof(r)) == (ssize_t)sizeof(r) ? 0 : 1);
	}
	close(p[1]);
	n = read_full(p[0], o, sizeof(*o));
	close(p[0]);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (n != (ssize_t)sizeof(*o))
		describe_death(o, st);
	o->ok = o->ok == 1;
	o->detail[sizeof(o->detail) - 1] = '\0';
}

static void print_text(const struct feature *f, const struct probe_out *o,
		       int width)
{
	printf("%-8s%-*s %s", o->ok ? "ok" : "missing", width, f->name,
	       o->detail);
	if (!o->ok && f->use)
		printf(" (optional: %s)", f->use);
	putchar('\n');
}

static void print_json(const struct feature *f, const struct probe_out *o)
{
	char esc[2 * sizeof(o->detail) + 8];

	diag_json_escape(esc, sizeof(esc), o->detail);
	printf("{\"feature\":\"%s\",\"status\":\"%s\",\"required\":%s,"
	       "\"detail\":\"%s\"}\n",
	       f->name, o->ok ? "ok" : "missing",
	       f->flags & F_REQUIRED ? "true" : "false", esc);
}

/* One line per shipped policy: the mode pysbx run picks here, and why.
 * Returns how many would not run. */
static int print_modes(int json, int width, int *nll)
{
	struct check_mode m;
	char esc[2 * sizeof(m.reason) + 8];
	int refused = 0;

	*nll = 0;
	for (size_t i = 0; i < check_npolicies(); i++) {
		check_policy_mode(i, &m);
		refused += !strcmp(m.mode, "refused");
		*nll += !strcmp(m.mode, "landlock-only");
		if (json) {
			diag_json_escape(esc, sizeof(esc), m.reason);
			printf("{\"policy\":\"%s\",\"mode\":\"%s\","
			       "\"reason\":\"%s\"}\n", m.policy, m.mode, esc);
		} else {
			printf("%-8s%-*s %s: %s\n", "policy", width,
			       m.policy, m.mode, m.reason);
		}
	}
	return refused;
}

/* The last line: the verdict and the missing features by name. */
static void print_summary(int json, const char *req, int nreq, const char *opt,
			  int nopt, int nll, int userns)
{
	if (json) {
		long abi = syscall(SYS_landlock_create_ruleset, NULL, 0,
				   1U /* LANDLOCK_CREATE_RULESET_VERSION */);

		printf("{\"summary\":\"%s\",\"missing_required\":%d,"
		       "\"missing_optional\":%d,\"landlock_abi\":%ld,"
		       "\"namespaces\":%s,\"landlock_only\":%d}\n",
		       nreq ? "missing" : "ok", nreq, nopt, abi > 0 ? abi : 0,
		       userns ? "true" : "false", nll);
	} else if (nreq) {
		printf("pysbx check: %d feature%s the shipped policies need "
		       "%s missing (%s): a policy that needs namespaces will "
		       "not run%s; apply the fixes above "
		       "(docs/TROUBLESHOOTING.md)\n",
		       nreq, nreq == 1 ? "" : "s", nreq == 1 ? "is" : "are",
		       req, nll ? " (the 'policy' lines say which run in "
		       "Landlock-only mode)" : "");
	} else {
		printf("pysbx check: ok: everything the shipped policies need "
		       "works");
		if (nopt)
			printf(" (optional, missing: %s)", opt);
		putchar('\n');
	}
}

static void add_name(char *list, size_t len, const char *name)
{
	size_t n = strlen(list);

	snprintf(list + n, len - n, "%s%s", n ? ", " : "", name);
}

static int check_run(int json)
{
	char req[512] = "", opt[512] = "";
	int width = 0, userns_ok = 1, nreq = 0, nopt = 0, nll;
	struct probe_out o;

	for (size_t i = 0; i < NFEATURES; i++)
		if ((int)strlen(features[i].name) > width)
			width = (int)strlen(features[i].name);
	for (size_t i = 0; i < NFEATURES; i++) {
		const struct feature *f = &features[i];

		if ((f->flags & F_USERNS) && !userns_ok)
			probe_set(&o, 0,
				  "not probed: needs a user namespace "
				  "(see user-ns)");
		else
			run_probe(f, &o);
		if (!strcmp(f->name, "user-ns"))
			userns_ok = o.ok;
		if (!o.ok && (f->flags & F_REQUIRED)) {
			nreq++;
			add_name(req, sizeof(req), f->name);
		} else if (!o.ok) {
			nopt++;
			add_name(opt, sizeof(opt), f->name);
		}
		if (json)
			print_json(f, &o);
		else
			print_text(f, &o, width + 1);
	}
	print_modes(json, width + 1, &nll);
	print_summary(json, req, nreq, opt, nopt, nll, userns_ok);
	fflush(stdout);
	return nreq ? EXIT_SYSCALL : 0;
}

int front_check_args(struct diag *d, int argc, char **argv)
{
	int json = 0;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json")) {
			json = 1;
		} else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			printf("usage: pysbx check [--json]\n"
			       "Probe what this kernel and environment allow, "
			       "one line per feature\n(docs/TROUBLESHOOTING.md)."
			       "\n  --json  one JSON object per feature\n"
			       "exit status: 0 when the shipped policies can "
			       "run, 111 when a feature\n  they need is "
			       "missing, 100 bad usage.\n");
			return 0;
		} else
			return diag_fail(d, EXIT_USAGE, 0,
					 "check: unknown "
					 "argument '%s' (usage: pysbx check "
					 "[--json])",
					 argv[i]);
	}
	return check_run(json);
}
