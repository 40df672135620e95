#include <unistd.h>

#include "proc/proc.h"

/* The order is the design (docs/EXEC.md): signals first, so that nothing
 * the caller set up fires during setup and the fork below loses no
 * signal; the capability check before any other work, to fail closed
 * early; the session (which may fork) before rlimits, since a low nproc
 * could forbid the fork; fds before rlimits, since a low nofile could
 * forbid opening /proc/self/fd in the fallback; rlimits while a
 * standalone root still holds CAP_SYS_RESOURCE; chdir after the drop, so
 * that it is checked with the target's own permissions. */
pid_t proc_apply(struct diag *d, const struct plan *p,
		 const struct proc_opts *o)
{
	struct proc_status st;
	int extra[4 + 4], nextra = 0, drop, have_st;
	pid_t pid;

	/* One read of /proc/self/status serves the signal reset and the
	 * capability check, where /proc allows (each call they save costs
	 * time in every run). */
	have_st = proc_status_read(&st) == 0;
	if (proc_signals_reset(d, have_st ? &st : NULL) < 0)
		return -1;
	if (proc_deathsig(d, p->die_signal, o->parent) < 0)
		return -1;
	/* pysbx-mount empties every set only when it makes a user
	 * namespace; a plan without `unshare` gets none, nor does a
	 * Landlock-only run (the guard seals such a plan with
	 * `landlock-only always`: no pysbx-mount before us), and the
	 * capabilities are then ours to check and drop, as standalone. */
	drop = proc_caps_check(d, o->chain && (p->ns & NS_USER) &&
			       p->ll_only != LL_ONLY_ALWAYS,
			       have_st ? &st : NULL);
	if (drop < 0)
		return -1;
	if (p->new_session) {
		pid = proc_new_session(d, p->die_signal);
		if (pid != 0)
			return pid;
	}
	if (o->plan_fd >= 0)
		extra[nextra++] = o->plan_fd;
	if (o->report_fd >= 0)
		extra[nextra++] = o->report_fd;
	if (o->next_fd >= 0)
		extra[nextra++] = o->next_fd;
	if (o->notify_fd >= 0)
		extra[nextra++] = o->notify_fd;
	for (unsigned i = 0; i < o->npass && i < 4; i++)
		extra[nextra++] = o->pass_fds[i];
	if (proc_close_fds(d, p, extra, (size_t)nextra) < 0)
		return -1;
	if (proc_stdin_null(d, p) < 0)
		return -1;
	if (proc_rlimits(d, p) < 0)
		return -1;
	if (drop && proc_caps_drop(d) < 0)
		return -1;
	if (proc_no_new_privs(d) < 0)
		return -1;
	if (proc_personality_reset(d) < 0)
		return -1;
	if (proc_cwd_umask(d, p) < 0)
		return -1;
	return 0;
}
