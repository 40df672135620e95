#include <getopt.h>
#include <stddef.h>

#include "chain/chain.h"
#include "seccomp/args.h"
#include "seccomp/compile.h"

enum { OPT_LOG = 0x2000, OPT_BPF, OPT_EXPORT, OPT_LIST };

int sc_parse_args(struct diag *d, struct chain *c, struct sc_opts *o,
		  int argc, char **argv)
{
	static const struct option longopts[] = {
		CHAIN_LONGOPTS,
		{ "log", no_argument, NULL, OPT_LOG },
		{ "bpf", required_argument, NULL, OPT_BPF },
		{ "export", required_argument, NULL, OPT_EXPORT },
		{ "list", no_argument, NULL, OPT_LIST },
		{ NULL, 0, NULL, 0 },
	};
	int opt, r;

	optind = 0;	/* a full reset (glibc and musl) */
	c->argv = argv;
	while ((opt = getopt_long(argc, argv, CHAIN_SHORTOPTS, longopts,
				  NULL)) != -1) {
		r = chain_opt(d, c, opt, optarg);
		if (r < 0)
			return -1;
		if (r > 0)
			continue;
		if (opt == OPT_LOG)
			o->flags |= SC_COMPILE_AUDIT;
		else if (opt == OPT_BPF)
			o->bpf = optarg;
		else if (opt == OPT_EXPORT)
			o->export = optarg;
		else if (opt == OPT_LIST)
			o->list = 1;
	}
	/* Only exporting or listing: no program needed. */
	if (optind >= argc && (o->export || o->list)) {
		if (c->policy && c->plan_fd >= 0)
			return diag_fail(d, EXIT_USAGE, 0,
					 "-p and --plan-fd exclude each other");
		return 0;
	}
	return chain_args_done(d, c, argc, argv);
}
