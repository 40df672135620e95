/* pysbx-seccomp: install the plan's syscall filter, then exec the target.
 * The last step of the chain: nothing runs between the load and execve. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "chain/chain.h"
#include "seccomp/args.h"
#include "seccomp/compile.h"
#include "util/alloc.h"

/* The plan, libseccomp's rule database and its BPF generation touch about
 * 45 fresh heap pages (python.policy): on a VM where each page fault costs
 * microseconds, populate them 128 KiB at a time instead (alloc_prefault;
 * sc_load turns it off). */
#define PREFAULT ((size_t)128 << 10)

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

int main(int argc, char **argv)
{
	struct diag d = DIAG_INIT("pysbx-seccomp", "seccomp");
	struct sc_opts o = { 0, NULL, NULL, 0 };
	struct sock_filter *bpf = NULL;
	struct sc_filter f;
	struct chain c;
	struct plan p;
	extern char **environ;
	size_t nbpf = 0;

	alloc_prefault(PREFAULT);
	chain_init(&c, SC_USAGE);
	if (sc_parse_args(&d, &c, &o, argc, argv) < 0)
		diag_exit(&d);
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
	    (c.report_fd >= 0 && fcntl(c.report_fd, F_SETFD, FD_CLOEXEC) < 0) ||
	    (c.notify_fd >= 0 && fcntl(c.notify_fd, F_SETFD, FD_CLOEXEC) < 0)) {
		diag_fail(&d, EXIT_SYSCALL, errno,
			  "unable to set close-on-exec on the chain's fds");
		diag_exit(&d);
	}
	fflush(stdout);
	if (sc_no_new_privs(&d) < 0)
		diag_exit(&d);
	/* pid 1 of a pid namespace waits on --notify-fd: the kills go to
	 * it, and it names the syscall (docs/SECCOMP.md). */
	if (c.notify_fd >= 0 && sc_notify_ok(&p, &f) ?
		    sc_load_notify(&d, &f, c.notify_fd) < 0 :
		    sc_load(&d, &f) < 0)
		diag_exit(&d);
	if (bpf && sc_bpf_load(&d, o.bpf, bpf, nbpf) < 0)
		diag_exit(&d);
	/* Never silently: report denials that cannot report says so. */
	if (p.report_denials && !f.reporting)
		fprintf(stderr, "pysbx-seccomp: warning: report denials: "
			"denials are not reported in this run (%s)\n",
			f.audit ? "audit mode" :
			!f.report ? "the filter allows no path call "
				    "unconditionally" :
			c.notify_fd < 0 ? "no pid 1 supervisor: it needs "
					  "'unshare pid' and pysbx-mount" :
					  "the kernel refused a listener");
	/* The filter is in force: from here on only the exec. */
	chain_exec(&d, &c, environ);
	diag_exit(&d);
}
