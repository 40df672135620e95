/* pysbx-exec: the process state the target starts with — rlimits, an
 * environment of the policy's making, only the fds it keeps, no
 * capability and no_new_privs, cwd, umask, a new session, a parent-death
 * signal, default signal dispositions and an empty mask — then exec the
 * next program. See docs/EXEC.md. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "chain/chain.h"
#include "proc/proc.h"

#define USAGE "pysbx-exec [-p POLICY] [-D NAME=VALUE]... [--] PROG [ARG]..."

extern char **environ;

int main(int argc, char **argv)
{
	static const struct option longopts[] = { CHAIN_LONGOPTS, { 0 } };
	struct diag d = DIAG_INIT("pysbx-exec", "exec");
	/* First thing: the parent we must not outlive (proc_deathsig). */
	struct proc_opts o = { .parent = getppid() };
	struct chain c;
	struct plan plan;
	char **envp;
	pid_t child;
	unsigned skip;
	int opt;

	chain_init(&c, USAGE);
	c.argv = argv;
	while ((opt = getopt_long(argc, argv, CHAIN_SHORTOPTS, longopts,
				  NULL)) != -1)
		if (chain_opt(&d, &c, opt, optarg) <= 0) {
			if (!d.code)
				diag_fail(&d, EXIT_USAGE, 0, "bad option "
					  "(usage: %s)", USAGE);
			diag_exit(&d);
		}
	if (chain_args_done(&d, &c, argc, argv) < 0)
		diag_exit(&d);
	/* The seccomp lines are pysbx-seccomp's to read, if it comes. */
	skip = chain_seccomp_follows("exec", c.next) ? PARSE_SKIP_SECCOMP : 0;
	if (chain_load_plan(&d, &c, &plan, skip) < 0)
		diag_exit(&d);
	o.chain = c.plan_fd >= 0;
	o.plan_fd = c.plan_fd;
	o.report_fd = c.report_fd;
	o.notify_fd = c.notify_fd;

	/* From the caller's environment, before anything else runs. */
	envp = proc_env_build(&d, &plan, environ);
	if (!envp)
		diag_exit(&d);
	/* Before the cwd changes: a relative name means the caller's. */
	if (chain_open_next(&d, &c, &plan, envp, false) < 0)
		diag_exit(&d);
	o.next_fd = c.next_fd;
	o.pass_fds = c.pass_fds;
	o.npass = c.npass;
	child = proc_apply(&d, &plan, &o);
	if (child < 0)
		diag_exit(&d);
	if (child > 0) {
		/* We forked for setsid(): wait, forward, relay. The next
		 * program is the child's to exec. */
		if (c.next_fd >= 0)
			close(c.next_fd);
		for (unsigned i = 0; i < c.npass; i++)
			close(c.pass_fds[i]);
		return proc_wait_relay(child);
	}
	if (proc_signals_unblock(&d) < 0)
		diag_exit(&d);
	chain_exec(&d, &c, envp);
	diag_exit(&d);
}
