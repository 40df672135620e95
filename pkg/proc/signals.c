#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "proc/proc.h"

int proc_signals_reset(struct diag *d, const struct proc_status *st)
{
	/* Without st, all of them: 62 system calls. */
	uint64_t set = st ? st->sigign | st->sigcgt : ~0ULL;
	struct sigaction sa;
	sigset_t all;

	sigfillset(&all);
	if (sigprocmask(SIG_SETMASK, &all, NULL) < 0)
		return diag_fail(d, EXIT_SYSCALL, errno,
				 "unable to block signals");
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	sigemptyset(&sa.sa_mask);
	for (int sig = 1; sig < _NSIG && sig <= 64; sig++) {
		if (sig == SIGKILL || sig == SIGSTOP ||
		    !(set & 1ULL << (sig - 1)))
			continue;
		if (sigaction(sig, &sa, NULL) == 0)
			continue;
		/* The libc refuses the numbers it reserves (32-34), yet a
		 * caller may have set SIG_IGN there with the raw syscall,
		 * and SIG_IGN survives exec. An all-zero kernel sigaction is
		 * SIG_DFL with no flags and an empty mask on every ABI. */
		if (errno == EINVAL) {
			long ksa[16] = { 0 };

			if (syscall(SYS_rt_sigaction, sig, ksa, NULL,
				    _NSIG / 8) == 0)
				continue;
		}
		return diag_fail(d, EXIT_SYSCALL, errno,
				 "unable to reset the disposition of signal %d",
				 sig);
	}
	return 0;
}

int proc_signals_unblock(struct diag *d)
{
	sigset_t none;

	sigemptyset(&none);
	if (sigprocmask(SIG_SETMASK, &none, NULL) < 0)
		return diag_fail(d, EXIT_SYSCALL, errno,
				 "unable to unblock signals");
	return 0;
}
