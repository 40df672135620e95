/*
 * pkg/seccomp/load.c - loading a BPF program that is already built:
 * no_new_privs and the seccomp(2) call, apart from compile.c so that a
 * program with a precompiled filter (the egress proxy) does not link
 * libseccomp's generator.
 */
#include <errno.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/seccomp.h>
#include "seccomp/compile.h"
#include "util/alloc.h"

int sc_no_new_privs(struct diag *d)
{
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return diag_fail(d, EXIT_SYSCALL, errno,
				 "unable to set no_new_privs");
	return 0;
}

void sc_load_hint(struct diag *d, int err)
{
	if (err == ENOSYS || err == EINVAL)
		diag_hint(d, "the kernel lacks seccomp filters "
			  "(CONFIG_SECCOMP_FILTER), or a container's own filter "
			  "refuses seccomp(2)");
	else if (err == EACCES)
		diag_hint(d, "no_new_privs is not set and the process lacks "
			  "CAP_SYS_ADMIN");
}

int sc_bpf_load(struct diag *d, const char *what,
		const struct sock_filter *insns, size_t n)
{
	struct sock_fprog prog = { (unsigned short)n,
				   (struct sock_filter *)insns };

	alloc_prefault(0);	/* as in sc_load */
	if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) == 0)
		return 0;
	if (errno == EINVAL) {
		diag_fail(d, EXIT_USAGE, errno, "the kernel refused the BPF "
			  "program %s", what);
		diag_hint(d, "it is not a valid seccomp program (classic BPF, "
			  "ending in a return, jumps in range), or the kernel "
			  "lacks seccomp filters");
		return -1;
	}
	diag_fail(d, EXIT_SYSCALL, errno, "unable to load the BPF program %s",
		  what);
	sc_load_hint(d, errno);
	return -1;
}
