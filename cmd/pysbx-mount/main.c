/* pysbx-mount: namespaces, the policy-built filesystem view, pivot_root,
 * locked mounts and the pid-1 reaper; the only step that ever holds
 * capabilities, and it drops them all before the next program. */
#include <fcntl.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "chain/chain.h"
#include "mnt/mnt.h"

#define USAGE "pysbx-mount [-p POLICY] [-D NAME=VALUE]... [--] PROG [ARG]..."

enum { OPT_PROXY_FD = 0x3000 };

/* --proxy-fd N: the guard's socketpair end for the egress proxy's
 * listener. Only the guard passes it, and only with a net-proxy plan. */
static int proxy_fd(struct diag *d, const char *arg, const struct plan *p,
		    int *fd)
{
	struct stat st;
	char *end;
	long v;

	if (!arg) {
		if (p->net_proxy)
			return diag_fail(d, EXIT_USAGE, 0,
					 "the policy asks for the network "
					 "proxy (net-proxy), which runs in "
					 "the guard: start the chain with "
					 "pysbx run or pysbx-clean");
		return 0;
	}
	v = strtol(arg, &end, 10);
	if (*end || v < 0 || v > 1 << 20 || fstat((int)v, &st) < 0 ||
	    !S_ISSOCK(st.st_mode))
		return diag_fail(d, EXIT_USAGE, 0,
				 "--proxy-fd '%s' is not a socket", arg);
	if (!p->net_proxy || !(p->ns & NS_NET))
		return diag_fail(d, EXIT_USAGE, 0,
				 "--proxy-fd needs a plan with net-proxy");
	*fd = (int)v;
	fcntl(*fd, F_SETFD, FD_CLOEXEC);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		CHAIN_LONGOPTS,
		{ "proxy-fd", required_argument, NULL, OPT_PROXY_FD },
		{ 0 },
	};
	const char *pfd = NULL;
	struct diag d = DIAG_INIT("pysbx-mount", "mount");
	struct mnt_ctx m;
	struct chain c;
	struct plan plan;
	unsigned skip;
	int opt, r;

	memset(&m, 0, sizeof(m));
	/* Before anything else: the processes that stay around keep no
	 * copy of the caller's environment where /proc shows it. */
	m.envp = mnt_take_environ();
	if (!m.envp || mnt_take_argv(argc, argv) < 0) {
		diag_fail(&d, EXIT_SYSCALL, 12, "unable to copy the environment and arguments");
		diag_exit(&d);
	}
	/* ${HOME}, as every step defines it: from the caller's environment. */
	for (char **e = m.envp; *e; e++)
		if (!strncmp(*e, "HOME=", 5))
			policy_builtin_home(*e + 5);
	chain_init(&c, USAGE);
	c.argv = argv;
	while ((opt = getopt_long(argc, argv, CHAIN_SHORTOPTS, longopts,
				  NULL)) != -1) {
		if (opt == OPT_PROXY_FD) {
			pfd = optarg;
			continue;
		}
		if (chain_opt(&d, &c, opt, optarg) <= 0)
			diag_exit(&d);
	}
	if (chain_args_done(&d, &c, argc, argv) < 0)
		diag_exit(&d);
	/* The seccomp lines are pysbx-seccomp's to read, if it comes. */
	skip = chain_seccomp_follows("mount", c.next) ? PARSE_SKIP_SECCOMP : 0;
	if (chain_load_plan(&d, &c, &plan, skip) < 0)
		diag_exit(&d);
	m.proxy_fd = -1;
	if (proxy_fd(&d, pfd, &plan, &m.proxy_fd) < 0)
		diag_exit(&d);
	/* Parse once: a later pysbx step gets this plan, sealed. */
	if (c.plan_fd < 0 && c.policy &&
	    chain_step_after("mount", c.next[0]) &&
	    (c.plan_fd = plan_seal(&d, &plan)) < 0)
		diag_exit(&d);
	/* The later steps, opened and checked here on the host: they are
	 * exec'd through these fds after pivot_root (nothing of the
	 * toolkit needs to be inside the sandbox). */
	if (chain_open_next(&d, &c, &plan, m.envp, true) < 0)
		diag_exit(&d);
	m.plan = &plan;
	m.chain = &c;
	r = mnt_sandbox(&d, &m);
	if (r < 0)
		diag_exit(&d);
	if (r == MNT_EXIT)
		exit(m.exit_code);
	chain_exec(&d, &c, m.envp);
	diag_exit(&d);
}
