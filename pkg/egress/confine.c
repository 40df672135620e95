/* The proxy parses bytes the sandbox wrote, outside the sandbox: it runs
 * with the least the loop needs. After its start (plan, /etc/hosts,
 * /etc/resolv.conf, the host's addresses) it gets
 *  - a Landlock ruleset that handles every filesystem right the kernel
 *    knows and grants none (no file can be opened, created, removed,
 *    executed), refuses TCP bind (ABI 4), and scopes abstract unix
 *    sockets and signals to its own domain (ABI 6);
 *  - a seccomp filter (pkg/egress/filter.h), compiled at build time into
 *    the BPF program loaded here (build/gen/egress_bpf.h, made by
 *    tools/egress-bpf.c): anything else kills the process; sockets only
 *    TCP and UDP over IPv4/IPv6 (no raw socket, even for root); no
 *    executable memory.
 * Started by root, it first becomes nobody (65534), which leaves it no
 * capability and no file of root's.
 * pkg/landlock is another step's; the proxy needs only the three system
 * calls, made here directly. */
#include <errno.h>
#include <stdint.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "egress/egress.h"
#include "seccomp/compile.h"

#include "egress_bpf.h"

#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset 444
#define SYS_landlock_restrict_self 446
#endif
#define LL_CREATE_RULESET_VERSION (1U << 0)

/* landlock_ruleset_attr as of ABI 6; older kernels take a prefix. */
struct ll_attr {
	uint64_t handled_access_fs;
	uint64_t handled_access_net;
	uint64_t scoped;
};

static uint64_t ll_fs_rights(int abi)
{
	uint64_t r = (1ULL << 13) - 1;	/* ABI 1: EXECUTE .. MAKE_SYM */

	if (abi >= 2)
		r |= 1ULL << 13;	/* REFER */
	if (abi >= 3)
		r |= 1ULL << 14;	/* TRUNCATE */
	if (abi >= 5)
		r |= 1ULL << 15;	/* IOCTL_DEV */
	return r;
}

static int landlock(struct diag *d)
{
	struct ll_attr a = { 0 };
	size_t size = sizeof(a.handled_access_fs);
	long abi;
	int fd;

	abi = syscall(SYS_landlock_create_ruleset, NULL, 0,
		      LL_CREATE_RULESET_VERSION);
	/* No Landlock (kernel, or boot option): the seccomp filter below
	 * allows no open() either; Landlock is the second wall. */
	if (abi < 0 && (errno == ENOSYS || errno == EOPNOTSUPP))
		return 0;
	if (abi < 0)
		return diag_fail(d, EXIT_SYSCALL, errno,
				 "unable to query Landlock");
	a.handled_access_fs = ll_fs_rights((int)abi);
	if (abi >= 4) {
		a.handled_access_net = 1ULL << 0;	/* BIND_TCP */
		size = 2 * sizeof(uint64_t);
	}
	if (abi >= 6) {
		a.scoped = 1ULL << 0 | 1ULL << 1;	/* abstract unix, signal */
		size = sizeof(a);
	}
	fd = (int)syscall(SYS_landlock_create_ruleset, &a, size, 0);
	if (fd < 0)
		return diag_fail(d, EXIT_SYSCALL, errno,
				 "unable to create the proxy's Landlock "
				 "ruleset");
	if (syscall(SYS_landlock_restrict_self, fd, 0) < 0) {
		int e = errno;

		close(fd);
		return diag_fail(d, EXIT_SYSCALL, e,
				 "unable to apply the proxy's Landlock "
				 "ruleset");
	}
	close(fd);
	return 0;
}

int egress_confine(struct diag *d)
{
	if (sc_no_new_privs(d) < 0 || landlock(d) < 0)
		return -1;
	return sc_bpf_load(d, "of the network proxy", eg_filter_bpf,
			   sizeof(eg_filter_bpf) / sizeof(eg_filter_bpf[0]));
}
