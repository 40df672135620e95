#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "proc/proc.h"
#include "util/names.h"

int proc_deathsig(struct diag *d, int sig, pid_t parent)
{
	if (!sig)
		return 0;
	if (prctl(PR_SET_PDEATHSIG, (unsigned long)sig, 0, 0, 0) < 0)
		return diag_fail(d, EXIT_SYSCALL, errno,
				 "unable to set the parent-death signal %s",
				 signal_name(sig) ? signal_name(sig) : "?");
	/* The prctl only covers a parent that dies after it: one that died
	 * before has already handed us to a reaper. */
	if (parent && getppid() != parent)
		return diag_fail(d, EXIT_SYSCALL, 0,
				 "unable to start: the parent process %ld "
				 "exited during setup", (long)parent);
	return 0;
}

pid_t proc_new_session(struct diag *d, int die_signal)
{
	pid_t me, pid;

	if (setsid() >= 0)
		return 0;
	if (errno != EPERM)
		return diag_fail(d, EXIT_SYSCALL, errno,
				 "unable to start a new session");
	/* EPERM: we lead a process group (a shell with job control, or
	 * pysbx-clean, made us one). A child never does. */
	me = getpid();
	pid = fork();
	if (pid < 0)
		return diag_fail(d, EXIT_SYSCALL, errno,
				 "unable to fork for a new session");
	if (pid > 0)
		return pid;
	if (proc_deathsig(d, die_signal, me) < 0)
		return -1;
	if (setsid() < 0)
		return diag_fail(d, EXIT_SYSCALL, errno,
				 "unable to start a new session");
	return 0;
}

static int dumps_core(int sig)
{
	switch (sig) {
	case SIGABRT: case SIGBUS: case SIGFPE: case SIGILL: case SIGQUIT:
	case SIGSEGV: case SIGSYS: case SIGTRAP: case SIGXCPU: case SIGXFSZ:
		return 1;
	}
	return 0;
}

int proc_wait_relay(pid_t child)
{
	sigset_t all;
	siginfo_t si;
	int status, sig;

	sigfillset(&all);
	for (;;) {
		/* Signals are blocked (proc_signals_reset): a SIGCHLD that
		 * came before this call is pending, not lost. */
		sig = sigwaitinfo(&all, &si);
		if (sig < 0) {
			if (errno == EINTR)
				continue;
			/* Cannot wait for signals: still wait for the
			 * child, without forwarding. */
			while (waitpid(child, &status, 0) < 0)
				if (errno != EINTR)
					return EXIT_SYSCALL;
			break;
		}
		if (sig != SIGCHLD) {
			kill(child, sig);
			continue;
		}
		pid_t r = waitpid(child, &status, WNOHANG);

		if (r == child)
			break;
		if (r < 0 && errno != EINTR)
			return EXIT_SYSCALL;
	}
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	sig = WTERMSIG(status);
	/* Die of the same signal, so that whoever waits for us sees what
	 * the target saw; not for a core-dumping one, whose dump would be
	 * ours and say nothing about the target. */
	if (!dumps_core(sig) && sig != SIGKILL && sig != SIGSTOP) {
		sigset_t one;

		signal(sig, SIG_DFL);
		sigemptyset(&one);
		sigaddset(&one, sig);
		raise(sig);
		sigprocmask(SIG_UNBLOCK, &one, NULL);
	} else if (sig == SIGKILL) {
		raise(SIGKILL);
	}
	return 128 + sig;
}
