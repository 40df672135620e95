/* pysbx-landlock: restrict this process with a Landlock ruleset made
 * from the plan (filesystem, TCP, scoping), then exec the next program.
 * See docs/LANDLOCK.md. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chain/chain.h"
#include "landlock/landlock.h"
#include "util/num.h"

#define USAGE                                                          \
	"pysbx-landlock [-p POLICY] [-D NAME=VALUE]... [--paths host|inside] " \
	"[--] PROG [ARG]..."
#define HELP                                                           \
	"  --paths host       rules on the host's paths (default; sources and\n" \
	"                     destinations of binds must be equal)\n"     \
	"  --paths inside     rules on the paths inside a namespace sandbox,\n" \
	"                     after pivot_root (what pysbx run passes)\n" \
	"  --abi N            tests: use Landlock ABI N when the kernel's is\n" \
	"                     higher (also PYSBX_LANDLOCK_ABI=N); never raises\n"

enum { OPT_PATHS = 0x3000, OPT_ABI };

static struct perr perr;

/* --abi, else PYSBX_LANDLOCK_ABI, else -1: the kernel's. */
static int forced_abi(struct diag *d, const char *arg, int *abi)
{
	long v;

	if (!arg)
		arg = getenv("PYSBX_LANDLOCK_ABI");
	*abi = -1;
	if (!arg || !*arg)
		return 0;
	if (num_int(arg, 0, LL_ABI_MAX, &v))
		return diag_fail(d, EXIT_USAGE, 0,
				 "Landlock ABI '%s' is not a number from 0 "
				 "to %d", arg, LL_ABI_MAX);
	*abi = (int)v;
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		CHAIN_LONGOPTS,
		{ "paths", required_argument, NULL, OPT_PATHS },
		{ "abi", required_argument, NULL, OPT_ABI },
		{ 0 },
	};
	struct diag d = DIAG_INIT("pysbx-landlock", "landlock");
	enum ll_paths paths = LL_PATHS_HOST;
	const char *abi_arg = NULL;
	struct ll_ruleset rs;
	struct chain c;
	struct plan plan;
	extern char **environ;
	int opt, force, abi, r;

	chain_init(&c, USAGE);
	c.help = HELP;
	c.argv = argv;
	while ((opt = getopt_long(argc, argv, CHAIN_SHORTOPTS, longopts,
				  NULL)) != -1) {
		if (opt == OPT_PATHS && (!strcmp(optarg, "host") ||
					 !strcmp(optarg, "inside"))) {
			paths = optarg[0] == 'h' ? LL_PATHS_HOST
						 : LL_PATHS_INSIDE;
			continue;
		}
		if (opt == OPT_ABI) {
			abi_arg = optarg;
			continue;
		}
		r = opt == OPT_PATHS ? 0 : chain_opt(&d, &c, opt, optarg);
		if (r <= 0) {
			if (!d.code)
				diag_fail(&d, EXIT_USAGE, 0,
					  opt == OPT_PATHS ?
					  "--paths takes 'host' or 'inside' "
					  "(usage: %s)" : "bad option "
					  "(usage: %s)", USAGE);
			diag_exit(&d);
		}
	}
	if (chain_args_done(&d, &c, argc, argv) < 0 ||
	    forced_abi(&d, abi_arg, &force) < 0)
		diag_exit(&d);
	if (chain_load_plan(&d, &c, &plan,
			    chain_seccomp_follows("landlock", c.next) ?
			    PARSE_SKIP_SECCOMP : 0) < 0)
		diag_exit(&d);
	ll_init(&rs);
	if (ll_from_plan(&plan, paths, &rs, &perr) < 0) {
		perr_print(&perr, d.prog, c.policy ? c.policy : "the plan");
		diag_fail(&d, EXIT_USAGE, 0, "the policy cannot be mapped to "
			  "Landlock rules");
		diag_exit(&d);
	}
	if (ll_abi(&d, force, &abi) < 0 ||
	    ll_fit(&d, &plan, &rs, abi, force >= 0 && force == abi) < 0)
		diag_exit(&d);
	/* Opened (and checked) before the rules shut its path. */
	if (chain_open_next(&d, &c, &plan, environ, false) < 0)
		diag_exit(&d);
	rs.exec_fd = c.next_fd;
	if (ll_apply(&d, &rs) < 0)
		diag_exit(&d);
	chain_exec(&d, &c, environ);
	diag_exit(&d);
}
