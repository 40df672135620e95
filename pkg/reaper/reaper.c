#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "chain/chain.h"
#include "reaper/denials.h"
#include "reaper/reaper.h"

int reaper_code(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return 111;
}

int reaper_block_all(void *old)
{
	sigset_t all;

	sigfillset(&all);
	return sigprocmask(SIG_BLOCK, &all, old);
}

static int open_sigfd(void)
{
	sigset_t all;

	sigfillset(&all);
	return signalfd(-1, &all, SFD_CLOEXEC);
}

/* One signal from fd; 0 when none could be read. */
static int read_sig(int fd)
{
	struct signalfd_siginfo si;

	if (read(fd, &si, sizeof(si)) != (ssize_t)sizeof(si))
		return 0;
	return (int)si.ssi_signo;
}

int reaper_monitor_fd(void)
{
	return open_sigfd();
}

/* The syscall instruction, nothing else: the return value is -errno on
 * failure and errno is never written (see reaper_monitor). */
static long raw(long n, long a, long b, long c, long d)
{
	register long r10 __asm__("r10") = d;
	long r;

	__asm__ volatile("syscall"
			 : "=a"(r)
			 : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10)
			 : "rcx", "r11", "memory");
	return r;
}

int reaper_monitor(pid_t child, int sfd)
{
	struct signalfd_siginfo si;
	int status;
	long r;

	for (;;) {
		r = raw(SYS_wait4, child, (long)&status, sfd >= 0 ? WNOHANG : 0,
			0);
		if (r == child)
			return status;
		if (r < 0 && r != -EINTR)
			return -1;
		if (sfd < 0)
			continue;
		r = raw(SYS_read, sfd, (long)&si, sizeof(si), 0);
		if (r == (long)sizeof(si) && si.ssi_signo != SIGCHLD)
			raw(SYS_kill, child, si.ssi_signo, 0, 0);
	}
}

/* Everything in the namespace but us: kill(-1) from pid 1 of a pid
 * namespace reaches exactly that (and, outside one, the whole host's
 * processes of this uid: never without in_pidns). */
static void kill_all(bool in_pidns, pid_t target, int sig)
{
	if (in_pidns)
		kill(-1, sig);
	else
		kill(target, sig);
}

/* Any child left, running or not yet reaped? kill(-1) walks every
 * process of the system: skipped when the target was the last one here
 * (whatever else might still be in the namespace, such as a process
 * that entered it with setns, pid 1's exit SIGKILLs). */
static bool has_children(void)
{
	siginfo_t si;

	return waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT) == 0 ||
	       errno != ECHILD;
}

int reaper_init(pid_t target, int death_fd, int report_fd, bool in_pidns,
		struct sigsys_sup *ss)
{
	struct pollfd pf[3];
	int fd = open_sigfd(), status, sig;
	pid_t r;

	if (fd < 0) {
		kill_all(in_pidns, target, SIGKILL);
		return 111;
	}
	pf[0] = (struct pollfd){ .fd = fd, .events = POLLIN };
	pf[1] = (struct pollfd){ .fd = death_fd, .events = POLLIN };
	for (;;) {
		/* Reap every zombie, the target's last. */
		while ((r = waitpid(-1, &status, WNOHANG)) > 0)
			if (r == target) {
				if (ss && ss->target_killed &&
				    WIFSIGNALED(status) &&
				    WTERMSIG(status) == SIGKILL)
					status = SIGSYS; /* as W_EXITCODE(0, SIGSYS) */
				if (ss)
					denials_flush(ss);
				chain_report_status(report_fd, status);
				if (in_pidns && has_children())
					kill(-1, SIGKILL);
				return reaper_code(status);
			}
		if (r < 0 && errno == ECHILD) {
			kill_all(in_pidns, target, SIGKILL);
			return 111;
		}
		pf[2] = (struct pollfd){ .fd = ss ? sigsys_pollfd(ss) : -1,
					 .events = POLLIN };
		if (poll(pf, 3, -1) < 0 && errno != EINTR)
			return 111;
		if (pf[2].revents)
			sigsys_ready(ss, pf[2].revents);
		if (pf[1].revents) {
			/* The monitor died (pipe closed): end the sandbox. */
			kill_all(in_pidns, target, SIGKILL);
			return 128 + SIGKILL;
		}
		if (!(pf[0].revents & POLLIN))
			continue;
		sig = read_sig(fd);
		if (!sig || sig == SIGCHLD)
			continue;
		if (sig == SIGTERM) {
			/* A stop request, for daemons too. TERM before
			 * CONT: a stopped process wakes up to a pending
			 * TERM, never to run its own code first. */
			kill_all(in_pidns, target, SIGTERM);
			kill_all(in_pidns, target, SIGCONT);
		} else if (sig == REAPER_END_SIG) {
			/* The grace is over: the target is reaped next. */
			kill_all(in_pidns, target, SIGKILL);
		} else {
			kill(target, sig);
		}
	}
}
