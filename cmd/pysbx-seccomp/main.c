/* pysbx-seccomp: install the plan's syscall filter, then exec the target.
 * The last step of the chain: nothing runs between the load and execve. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "chain/chain.h"
#include "seccomp/compile.h"

#define USAGE                                                                \
	"pysbx-seccomp [-p policy] [-D name=value]... [--log] [--bpf FILE]\n" \
	"                     [--export FILE] [--list] [--] prog [arg...]\n"  \
	"  --log          log what the policy would deny instead (audit)\n"  \
	"  --bpf FILE     also load this precompiled BPF program\n"          \
	"  --export FILE  write the compiled BPF (bwrap --seccomp input);\n" \
	"                 '-' is stdout; prog is optional\n"                 \
	"  --list         print the filter for review; prog is optional"

enum { OPT_LOG = 0x2000, OPT_BPF, OPT_EXPORT, OPT_LIST };

static const struct option longopts[] = {
	CHAIN_LONGOPTS,
	{ "log", no_argument, NULL, OPT_LOG },
	{ "bpf", required_argument, NULL, OPT_BPF },
	{ "export", required_argument, NULL, OPT_EXPORT },
	{ "list", no_argument, NULL, OPT_LIST },
	{ NULL, 0, NULL, 0 },
};

struct opts {
	unsigned flags;
	const char *bpf, *export;
	int list;
};

static int export_to(struct diag *d, struct sc_filter *f, const char *path)
{
	int fd = 1, r;

	if (strcmp(path, "-")) {
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (fd < 0)
			return diag_fail(d, EXIT_SYSCALL, errno,
					 "unable to create %s", path);
	}
	r = sc_export(d, f, fd);
	if (fd != 1 && close(fd) < 0 && !r)
		r = diag_fail(d, EXIT_SYSCALL, errno, "unable to write %s",
			      path);
	return r;
}

static void parse_args(struct diag *d, struct chain *c, struct opts *o,
		       int argc, char **argv)
{
	int opt, r;

	while ((opt = getopt_long(argc, argv, CHAIN_SHORTOPTS, longopts,
				  NULL)) != -1) {
		r = chain_opt(d, c, opt, optarg);
		if (r < 0)
			diag_exit(d);
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
		if (c->policy && c->plan_fd >= 0) {
			diag_fail(d, EXIT_USAGE, 0,
				  "-p and --plan-fd exclude each other");
			diag_exit(d);
		}
		return;
	}
	if (chain_args_done(d, c, argc, argv) < 0)
		diag_exit(d);
}

int main(int argc, char **argv)
{
	struct diag d = DIAG_INIT("pysbx-seccomp", "seccomp");
	struct opts o = { 0, NULL, NULL, 0 };
	struct sock_filter *bpf = NULL;
	struct sc_filter f;
	struct chain c;
	struct plan p;
	extern char **environ;
	size_t nbpf = 0;

	chain_init(&c, USAGE);
	parse_args(&d, &c, &o, argc, argv);
	/* ${SCRATCH} is a placeholder here: no filter depends on a path. */
	if (chain_load_plan(&d, &c, &p, PARSE_NO_SCRATCH) < 0 ||
	    sc_compile(&d, &p, o.flags, &f) < 0)
		diag_exit(&d);
	if ((o.export && export_to(&d, &f, o.export) < 0) ||
	    (o.list && sc_list(&d, &f, 1) < 0))
		diag_exit(&d);
	if (!c.next)
		return 0;
	if (o.bpf && sc_bpf_read(&d, o.bpf, &bpf, &nbpf) < 0)
		diag_exit(&d);
	/* chain_load_plan made both close-on-exec; the target must not
	 * inherit either, so check rather than trust. */
	if ((c.plan_fd >= 0 && fcntl(c.plan_fd, F_SETFD, FD_CLOEXEC) < 0) ||
	    (c.report_fd >= 0 && fcntl(c.report_fd, F_SETFD, FD_CLOEXEC) < 0)) {
		diag_fail(&d, EXIT_SYSCALL, errno,
			  "unable to set close-on-exec on the chain's fds");
		diag_exit(&d);
	}
	fflush(stdout);
	if (sc_no_new_privs(&d) < 0 || sc_load(&d, &f) < 0 ||
	    (bpf && sc_bpf_load(&d, o.bpf, bpf, nbpf) < 0))
		diag_exit(&d);
	/* The filter is in force: from here on only the exec. */
	chain_exec(&d, &c, environ);
	diag_exit(&d);
}
