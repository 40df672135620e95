/* check_mode: the lines of `pysbx check` that say, for each shipped
 * policy, the mode `pysbx run` would pick here and why: namespaces, or
 * Landlock-only (no pysbx-mount), or refused. The same decision as the
 * guard's (pkg/guard/mode.c): the probe of what pysbx-mount needs, the
 * policy's `landlock-only`, its rules on host paths, the kernel's ABI.
 * Each policy is judged in a child (check.c's reasons: a probe that
 * crashes or hangs must not take the command down). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "front/check.h"
#include "front/front.h"
#include "guard/guard.h"
#include "landlock/landlock.h"

/* The shipped policies, with the variables each needs to parse (values
 * that only have to be absolute paths: nothing is opened). */
static const struct {
	const char *name, *var;
} shipped[] = {
	{ "agent-shell", "WORKSPACE" }, { "ci", "WORKSPACE" },
	{ "minimal", "PROG" },		{ "python", "WORKSPACE" },
	{ "read-only", "WORKSPACE" },	{ "workspace-write", "WORKSPACE" },
};
#define NSHIPPED (sizeof(shipped) / sizeof(shipped[0]))

static int judge(const char *name, const char *var, struct check_mode *m)
{
	struct diag d = DIAG_INIT("pysbx", "check");
	const char *path;
	struct vars v = { 0 };
	struct mode_probe pr;
	struct ns_needs needs;
	struct ll_ruleset rs;
	struct plan p;
	struct perr *e = malloc(sizeof(*e));
	char at[300];
	int abi;

	if (!e || plan_init(&p) < 0)
		return snprintf(m->reason, sizeof(m->reason), "out of memory");
	snprintf(m->mode, sizeof(m->mode), "refused");
	if (front_policy_path(&d, name, &path) < 0)
		return snprintf(m->reason, sizeof(m->reason), "%.600s", d.msg);
	vars_set(&v, var, "/nonexistent");
	if (policy_parse_file(&p, path, &v, PARSE_NO_SCRATCH, e) < 0)
		return snprintf(m->reason, sizeof(m->reason), "%s",
				e->n ? e->msg[0] : "invalid policy");
	snprintf(at, sizeof(at), "%s:%u", p.at[PAT_LLONLY].file ?
		 p.at[PAT_LLONLY].file : path, p.at[PAT_LLONLY].line);
	mode_needs(&p, &needs);
	if (p.ll_only != LL_ONLY_ALWAYS) {
		if (mode_ns_probe(&needs, &pr) < 0)
			return snprintf(m->reason, sizeof(m->reason),
					"unable to %s: %s", pr.step,
					strerror(pr.err));
		if (pr.ok) {
			snprintf(m->mode, sizeof(m->mode), "namespaces");
			return snprintf(m->reason, sizeof(m->reason),
					"the namespaces and mounts it needs "
					"work here");
		}
		if (p.ll_only == LL_ONLY_DENY)
			return snprintf(m->reason, sizeof(m->reason),
					"namespaces are refused here (%s: %s) "
					"and the policy does not permit "
					"Landlock-only mode", pr.step,
					strerror(pr.err));
		snprintf(m->reason, sizeof(m->reason), "namespaces are "
			 "refused here (%s: %s) and 'landlock-only allow' "
			 "(%s)", pr.step, strerror(pr.err), at);
	} else {
		snprintf(m->reason, sizeof(m->reason),
			 "'landlock-only always' (%s)", at);
	}
	/* What the guard drops before it maps the rules (mode.c). */
	{
		size_t k = 0;

		for (size_t i = 0; i < p.nfs; i++)
			if (p.fs[i].kind != FS_PROTECT)
				p.fs[k++] = p.fs[i];
		p.nfs = k;
	}
	ll_init(&rs);
	if (ll_from_plan(&p, LL_PATHS_HOST, &rs, e) < 0) {
		size_t n = strlen(m->reason);

		return snprintf(m->reason + n, sizeof(m->reason) - n,
				", but it cannot run on host paths: %s",
				e->n ? e->msg[0] : "?");
	}
	if (ll_abi(&d, -1, &abi) < 0 || ll_fit(&d, &p, &rs, abi, false) < 0) {
		size_t n = strlen(m->reason);

		return snprintf(m->reason + n, sizeof(m->reason) - n,
				", but Landlock cannot enforce it here: %.400s",
				d.msg);
	}
	snprintf(m->mode, sizeof(m->mode), "landlock-only");
	{
		size_t n = strlen(m->reason);

		snprintf(m->reason + n, sizeof(m->reason) - n,
			 ": host paths under Landlock ABI %d", abi);
	}
	return 0;
}

int check_policy_mode(size_t i, struct check_mode *m)
{
	struct check_mode r;
	int pfd[2], st = 0, null;
	ssize_t n;
	pid_t pid;

	memset(m, 0, sizeof(*m));
	snprintf(m->policy, sizeof(m->policy), "%s", shipped[i].name);
	snprintf(m->mode, sizeof(m->mode), "refused");
	if (pipe2(pfd, O_CLOEXEC) < 0)
		return snprintf(m->reason, sizeof(m->reason),
				"unable to create a pipe: %s", strerror(errno));
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		close(pfd[0]);
		close(pfd[1]);
		return snprintf(m->reason, sizeof(m->reason),
				"unable to fork: %s", strerror(errno));
	}
	if (pid == 0) {
		close(pfd[0]);
		alarm(10);
		/* ll_fit's best-effort warnings are the run's, not ours. */
		null = open("/dev/null", O_WRONLY | O_CLOEXEC);
		if (null >= 0)
			dup2(null, 2);
		r = *m;
		judge(shipped[i].name, shipped[i].var, &r);
		_exit(write(pfd[1], &r, sizeof(r)) == (ssize_t)sizeof(r) ? 0 : 1);
	}
	close(pfd[1]);
	do
		n = read(pfd[0], &r, sizeof(r));
	while (n < 0 && errno == EINTR);
	close(pfd[0]);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (n != (ssize_t)sizeof(r))
		return snprintf(m->reason, sizeof(m->reason),
				"the check of this policy died (status %d)",
				st);
	*m = r;
	m->policy[sizeof(m->policy) - 1] = m->mode[sizeof(m->mode) - 1] =
		m->reason[sizeof(m->reason) - 1] = '\0';
	return 0;
}

size_t check_npolicies(void)
{
	return NSHIPPED;
}
