/* The proxy parses bytes the sandbox wrote, outside the sandbox: it runs
 * with the least the loop needs. After its start (plan, /etc/hosts,
 * /etc/resolv.conf, the host's addresses) it gets
 *  - a Landlock ruleset that handles every filesystem right the kernel
 *    knows and grants none (no file can be opened, created, removed,
 *    executed), refuses TCP bind (ABI 4), and scopes abstract unix
 *    sockets and signals to its own domain (ABI 6);
 *  - a seccomp filter, built with pkg/seccomp from the allow list below:
 *    anything else kills the process; sockets only TCP and UDP over
 *    IPv4/IPv6 (no raw socket, even for root); no executable memory.
 * Started by root, it first becomes nobody (65534), which leaves it no
 * capability and no file of root's.
 * pkg/landlock is another step's; the proxy needs only the three system
 * calls, made here directly. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "egress/egress.h"
#include "seccomp/compile.h"

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

/* What the loop calls, and nothing else (scripts/mutate.sh checks that
 * a proxy that opens a file dies). mmap and mprotect without PROT_EXEC
 * (0x4): no new code in the process that reads the sandbox's bytes. */
static const char filter[] =
	"seccomp default kill\n"
	"seccomp allow read write writev close poll ppoll recvfrom sendto "
	"recvmsg connect accept4 getsockopt setsockopt shutdown "
	"clock_gettime exit exit_group rt_sigreturn brk munmap mremap "
	"madvise getrandom restart_syscall pipe2 splice rt_sigprocmask "
	"signalfd4\n"
	"seccomp allow socket if arg0==AF_INET arg1&0xf==1\n"
	"seccomp allow socket if arg0==AF_INET arg1&0xf==2\n"
	"seccomp allow socket if arg0==AF_INET6 arg1&0xf==1\n"
	"seccomp allow socket if arg0==AF_INET6 arg1&0xf==2\n"
	"seccomp allow mmap if arg2&0x4==0\n"
	"seccomp allow mprotect if arg2&0x4==0\n";

int egress_confine(struct diag *d)
{
	struct vars v = { 0 };
	struct sc_filter f;
	struct perr *e;
	struct plan p;
	int r = -1;

	if (plan_init(&p) < 0)
		return diag_fail(d, EXIT_SYSCALL, ENOMEM,
				 "unable to build the proxy's filter");
	e = calloc(1, sizeof(*e));
	if (!e || policy_parse_buf(&p, "<pysbx-proxy>", filter,
				   sizeof(filter) - 1, &v, 0, e) < 0) {
		diag_fail(d, EXIT_SYSCALL, e ? 0 : ENOMEM,
			  "unable to build the proxy's filter%s%s",
			  e && e->n ? ": " : "", e && e->n ? e->msg[0] : "");
		goto out;
	}
	if (sc_compile(d, &p, 0, &f) < 0)
		goto out;
	if (sc_no_new_privs(d) == 0 && landlock(d) == 0 && sc_load(d, &f) == 0)
		r = 0;
	sc_filter_free(&f);
out:
	free(e);
	plan_free(&p);
	return r;
}
