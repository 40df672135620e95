/* pysbx: the front door. One policy -> the canonical chain; policy
 * check/show. `run` is the guard itself (pkg/guard's guard_main, called
 * in-process): no exec of pysbx-clean. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "chain/chain.h"
#include "front/front.h"
#include "mcp/mcp.h"
#include "session/session.h"

#define USAGE                                                                \
	FRONT_RUN_USAGE "\n"                                                \
	"       pysbx policy check|show POLICY [-D NAME=VALUE]...\n"         \
	"       pysbx check [--json]\n"                                      \
	"       " SESSION_USAGE "\n"                                          \
	"       " MCP_USAGE "\n"                                              \
	"       pysbx --help | --version\n"

static _Noreturn void usage(int code)
{
	fprintf(code ? stderr : stdout, "usage: %s%s", USAGE,
		CHAIN_EXIT_CODES);
	exit(code);
}

int main(int argc, char **argv)
{
	struct diag d = DIAG_INIT("pysbx", "front");

	if (argc < 2)
		usage(EXIT_USAGE);
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))
		usage(0);
	if (!strcmp(argv[1], "--version")) {
		printf("pysbx %s\n", PYSBX_VERSION);
		return 0;
	}
	if (!strcmp(argv[1], "run")) {
		int r = front_run(&d, argc - 1, argv + 1);

		if (r >= 0)
			return r;
	} else if (!strcmp(argv[1], "session"))
		return session_main(argc - 1, argv + 1);
	else if (!strcmp(argv[1], "mcp"))
		return mcp_main(argc - 1, argv + 1);
	else if (!strcmp(argv[1], "policy"))
		return front_policy(&d, argc - 1, argv + 1);
	else if (!strcmp(argv[1], "check")) {
		int r = front_check_args(&d, argc - 1, argv + 1);

		if (r >= 0)
			return r;
	}
	else
		diag_fail(&d, EXIT_USAGE, 0,
			  "unknown command '%s' (use run, session, mcp, policy or check)",
			  argv[1]);
	diag_exit(&d);
}
