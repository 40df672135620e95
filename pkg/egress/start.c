/* The proxy process: forked from the guard once the chain runs, outside
 * every namespace. It keeps stderr, the egress log (the guard's status
 * fd), its end of the guard's socketpair and, until it has read it, the
 * plan memfd; every other fd of the guard (scratch directory and its
 * lock, report pipe, signalfd, the caller's fds) is closed. Its start
 * (plan, name resolution files, the host's addresses, confinement) waits
 * for the first connection: egress_ready. */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <ifaddrs.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "chain/chain.h"
#include "egress/egress.h"

#ifndef SYS_close_range
#define SYS_close_range 436
#endif
#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif

/* Close every fd but keep[0..n) (n <= 4). */
static void close_others(int *keep, size_t n)
{
	int lo = 0;

	/* sort the few fds to keep */
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && keep[j - 1] > keep[j]; j--) {
			int t = keep[j];

			keep[j] = keep[j - 1];
			keep[j - 1] = t;
		}
	for (size_t i = 0; i <= n; i++) {
		int hi = i < n ? keep[i] - 1 : (int)(~0U >> 1);

		if (i < n && keep[i] < 0)
			continue;
		if (hi >= lo && syscall(SYS_close_range, lo, hi, 0) < 0)
			for (int fd = lo; fd <= hi && fd < 65536; fd++)
				close(fd);
		if (i < n)
			lo = keep[i] + 1;
	}
}

/* The host's own addresses: a destination that resolves to one of them
 * reaches a service on this host (PXA_OWN) unless a rule names it. */
static void own_addresses(struct eg_ctx *c)
{
	struct ifaddrs *ifa, *i;

	if (getifaddrs(&ifa) < 0) {
		c->own_unknown = true;	/* fail closed, as for too many */
		return;
	}
	for (i = ifa; i; i = i->ifa_next) {
		struct px_addr a;

		if (!i->ifa_addr ||
		    px_addr_from_sa(i->ifa_addr, sizeof(struct sockaddr_storage),
				    &a) < 0)
			continue;
		/* More than it can hold: fail closed, every address no
		 * rule names may be one of the host's (addresses_known). */
		if (c->nown == EG_MAX_OWN) {
			c->own_unknown = true;
			break;
		}
		c->own[c->nown++] = a;
	}
	freeifaddrs(ifa);
}

/* The proxy's own start, done when the first connection waits to be
 * accepted (egress_loop): a run that never connects does not pay for
 * it, and nothing the sandbox wrote is read before it. */
int egress_ready(struct diag *d, struct eg_ctx *c)
{
	static struct plan plan;
	sigset_t term;

	if (plan_init(&plan) < 0 ||
	    plan_read_fd(d, c->plan_fd, &plan, PARSE_SKIP_SECCOMP) < 0) {
		if (!d->code)
			diag_fail(d, EXIT_SYSCALL, errno,
				  "unable to start the network proxy");
		return -1;
	}
	close(c->plan_fd);
	c->plan_fd = -1;
	c->plan = &plan;
	eg_dns_init(c);
	own_addresses(c);
	if (egress_confine(d) < 0)
		return -1;
	/* From here on SIGTERM comes through a signalfd, so that open
	 * connections get their records first. */
	sigemptyset(&term);
	sigaddset(&term, SIGTERM);
	sigprocmask(SIG_BLOCK, &term, NULL);
	c->sigfd = signalfd(-1, &term, SFD_NONBLOCK | SFD_CLOEXEC);
	if (c->sigfd < 0)
		return diag_fail(d, EXIT_SYSCALL, errno,
				 "unable to create the proxy's signalfd");
	c->ready = true;
	return 0;
}

static int proxy_main(int plan_fd, int chan, int status_fd, pid_t guard)
{
	struct diag d = DIAG_INIT("pysbx-proxy", "proxy");
	struct eg_ctx c = { .chan = chan, .lfd = -1, .sigfd = -1,
			    .status_fd = status_fd, .plan_fd = plan_fd };
	int keep[4] = { 2, plan_fd, chan, status_fd };
	sigset_t term;
	int nul;

	/* Dies with the guard; a guard already gone: nothing to serve. */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != guard)
		return EXIT_SYSCALL;
	prctl(PR_SET_NAME, "pysbx-proxy");
	close_others(keep, 4);
	/* stdin, stdout: /dev/null, so that no socket ever becomes fd 0
	 * or 1 and nothing could write to the caller's stdout. */
	nul = open("/dev/null", O_RDWR | O_CLOEXEC);
	for (int fd = 0; fd < 2 && nul >= 0; fd++)
		if (nul != fd && fd != status_fd && fd != chan && fd != plan_fd)
			dup3(nul, fd, O_CLOEXEC);
	if (nul > 2)
		close(nul);
	if (getuid() == 0 && (setgroups(0, NULL) < 0 || setgid(65534) < 0 ||
			      setuid(65534) < 0)) {
		diag_fail(&d, EXIT_SYSCALL, errno,
			  "unable to drop root for the network proxy");
		diag_emit(&d);
		return d.code;
	}
	/* The guard's mask blocks every signal it handles; the rest stays
	 * blocked here (a terminal's SIGINT is the guard's to pass on). A
	 * SIGTERM (the end of the run) before egress_ready, when no
	 * connection can exist yet, simply ends the proxy. */
	sigemptyset(&term);
	sigaddset(&term, SIGTERM);
	signal(SIGTERM, SIG_DFL);
	sigprocmask(SIG_UNBLOCK, &term, NULL);
	return egress_loop(&c);
}

pid_t egress_start(struct diag *d, int plan_fd, int chan, int status_fd,
		   pid_t guard)
{
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return diag_fail(d, EXIT_SYSCALL, errno,
				 "unable to start the network proxy");
	if (pid == 0)
		_exit(proxy_main(plan_fd, chan, status_fd, guard));
	return pid;
}

void egress_stop(pid_t pid, int sfd)
{
	int pfd = (int)syscall(SYS_pidfd_open, pid, 0), st;
	struct pollfd p = { pfd, POLLIN, 0 };

	(void)sfd;
	kill(pid, SIGTERM);
	/* A pidfd is readable once the process has exited. */
	if (pfd >= 0) {
		poll(&p, 1, EG_STOP_MS);
		close(pfd);
	}
	if (waitpid(pid, &st, WNOHANG) == 0) {
		kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
	}
}
