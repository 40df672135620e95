/* egress_probe ACTION: confine this process exactly as the egress proxy
 * confines itself (egress_confine: no_new_privs, Landlock, the build's
 * precompiled seccomp filter), then try ACTION. Prints "survived ACTION"
 * (with "errno N" when the call failed) and exits 0 when the call
 * returned; a denied call kills the process with SIGSYS (status 159 in
 * a shell). Like the proxy, it uses no stdio once confined. 111: the
 * confinement itself failed; 100: usage.
 * test/integration/proxy_filter.sh runs it. */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "egress/egress.h"

#ifndef SYS_clone3
#define SYS_clone3 435
#endif

static long act(const char *a)
{
	static char *const argv[] = { "/bin/true", NULL };

	if (!strcmp(a, "none"))
		return 0;
	if (!strcmp(a, "open"))
		return syscall(SYS_open, "/etc/hostname", O_RDONLY);
	if (!strcmp(a, "openat"))
		return syscall(SYS_openat, AT_FDCWD, "/etc/hostname", O_RDONLY);
	if (!strcmp(a, "execve"))
		return syscall(SYS_execve, argv[0], argv, NULL);
	if (!strcmp(a, "fork"))
		return syscall(SYS_fork);
	if (!strcmp(a, "vfork"))
		return syscall(SYS_vfork);
	if (!strcmp(a, "clone"))
		return syscall(SYS_clone, SIGCHLD, 0, 0, 0, 0);
	if (!strcmp(a, "clone3"))
		return syscall(SYS_clone3, NULL, 0);
	if (!strcmp(a, "ptrace"))
		return syscall(SYS_ptrace, PTRACE_TRACEME, 0, 0, 0);
	if (!strcmp(a, "kill"))
		return syscall(SYS_kill, getppid(), 0);
	if (!strcmp(a, "x32-getpid"))
		return syscall(0x40000000 | SYS_getpid);
	if (!strcmp(a, "unix"))
		return socket(AF_UNIX, SOCK_STREAM, 0);
	if (!strcmp(a, "netlink"))
		return socket(AF_NETLINK, SOCK_RAW, 0);
	if (!strcmp(a, "raw"))
		return socket(AF_INET, SOCK_RAW, IPPROTO_ICMP);
	if (!strcmp(a, "packet"))
		return socket(AF_PACKET, SOCK_DGRAM, 0);
	if (!strcmp(a, "tcp"))
		return socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (!strcmp(a, "udp6"))
		return socket(AF_INET6, SOCK_DGRAM | SOCK_NONBLOCK, 0);
	if (!strcmp(a, "mmap-exec"))
		return (long)mmap(NULL, 4096, PROT_READ | PROT_EXEC,
				  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (!strcmp(a, "mprotect-exec")) {
		void *p = mmap(NULL, 4096, PROT_READ,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		return mprotect(p, 4096, PROT_READ | PROT_EXEC);
	}
	if (!strcmp(a, "mmap"))
		return (long)mmap(NULL, 4096, PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	return -2;
}

int main(int argc, char **argv)
{
	struct diag d = DIAG_INIT("egress_probe", "proxy");
	char out[64];
	int n, e;
	long r;

	if (argc != 2) {
		fprintf(stderr, "usage: egress_probe ACTION\n");
		return 100;
	}
	fflush(NULL);
	if (egress_confine(&d) < 0) {
		diag_emit(&d);
		return d.code;
	}
	r = act(argv[1]);
	e = errno;
	if (r == -2) {
		fprintf(stderr, "egress_probe: unknown action %s\n", argv[1]);
		return 100;
	}
	/* Not stdio: its first write to stdout asks the tty (ioctl), which
	 * the filter does not allow. */
	if (r == -1)
		n = snprintf(out, sizeof(out), "survived %s errno %d\n",
			     argv[1], e);
	else
		n = snprintf(out, sizeof(out), "survived %s\n", argv[1]);
	return write(1, out, (size_t)n) == n ? 0 : 1;
}
