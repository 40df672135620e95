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
 * The ruleset grants nothing: pkg/landlock gives the ABI probe and the
 * kernel's definitions; the two calls that make and apply it are here. */
#include <errno.h>
#include <stdint.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "egress/egress.h"
#include "landlock/landlock.h"
#include "seccomp/compile.h"

#include "egress_bpf.h"

/* Every filesystem right an ABI knows: handled and not granted. */
static uint64_t ll_fs_rights(int abi)
{
	uint64_t r = (LL_FS_MAKE_SYM << 1) - 1;	/* ABI 1: EXECUTE..MAKE_SYM */

	if (abi >= 2)
		r |= LL_FS_REFER;
	if (abi >= 3)
		r |= LL_FS_TRUNCATE;
	if (abi >= 5)
		r |= LL_FS_IOCTL_DEV;
	return r;
}

/* The ruleset has no rule: nothing is granted, so none of
 * pkg/landlock's mapping, fitting or path opening applies; only its ABI
 * probe and definitions are used. */
static int landlock(struct diag *d)
{
	struct ll_attr a = { 0 };
	size_t size = sizeof(a.handled_access_fs);
	int abi, fd;

	if (ll_abi(d, -1, &abi) < 0)
		return -1;
	/* No Landlock (kernel, or boot option): the seccomp filter allows
	 * no open() either; Landlock is the second wall. */
	if (abi == 0)
		return 0;
	a.handled_access_fs = ll_fs_rights(abi);
	if (abi >= 4) {
		a.handled_access_net = LL_NET_BIND_TCP;
		size = 2 * sizeof(uint64_t);
	}
	if (abi >= 6) {
		a.scoped = LL_SCOPE_ABSTRACT_UNIX | LL_SCOPE_SIGNAL;
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
