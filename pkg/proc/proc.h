/* proc: the process state a target starts with (pysbx-exec).
 *
 * Every function records a failure in a struct diag and returns -1 (code
 * 111 unless stated); none prints or exits. Errors about something the
 * policy asked for start with its position ("file:line:col: ").
 *
 * The order in which pysbx-exec calls these matters; proc_apply() is that
 * order, and docs/EXEC.md gives the reasons.
 */
#ifndef PYSBX_PROC_H
#define PYSBX_PROC_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "diag/diag.h"
#include "policy/policy.h"

/* What proc_apply needs besides the plan. */
struct proc_opts {
	pid_t parent;		/* getppid() as first seen in main */
	bool chain;		/* the plan came from --plan-fd */
	int plan_fd;		/* -1 if none: kept open (close-on-exec) */
	int report_fd;		/* -1 if none: kept open (close-on-exec) */
	int next_fd;		/* -1 if none: kept open (close-on-exec) */
	int notify_fd;		/* -1 if none: kept open (close-on-exec) */
	const int *pass_fds;	/* npass more, kept open likewise */
	unsigned npass;
};

/* Carry out the whole process part of p, in order: signals blocked and
 * dispositions reset; parent-death signal; capability check; new session
 * (may fork); fds; rlimits; capability drop (standalone root only) and
 * no_new_privs; cwd and umask. The caller then builds nothing more: it
 * calls proc_signals_unblock() and execs.
 *
 * Returns 0 in the process that goes on to exec the next program, -1 on
 * failure, or the pid of the child (> 0) in a parent that had to fork for
 * setsid(): that parent must call proc_wait_relay() and exit with its
 * result. */
pid_t proc_apply(struct diag *d, const struct plan *p,
		 const struct proc_opts *o);

/* "file:line:col" of a position, for messages. */
#define POS_FMT "%s:%u:%u"
#define POS_ARGS(p) ((p).file ? (p).file : "?"), (p).line, (p).col

/* What one read of /proc/self/status tells (creds.c). */
struct proc_status {
	uint64_t bnd, amb;	/* CapBnd, CapAmb */
	uint64_t sigign, sigcgt; /* SigIgn, SigCgt: bit N-1 for signal N */
};

/* --- signals.c ----------------------------------------------------------- */

/* Block every signal and reset every disposition to SIG_DFL (the caller's
 * ignored signals, e.g. SIGINT under nohup, must not reach the target).
 * Signals stay blocked until proc_signals_unblock(), so a signal sent
 * during setup is delivered, with its default action, just before exec.
 * With st (NULL: not known), only the signals it shows ignored or caught
 * are reset: every other one is at SIG_DFL already, and flags and masks
 * are cleared by the target's execve anyway. */
int proc_signals_reset(struct diag *d, const struct proc_status *st);
/* Empty the signal mask. */
int proc_signals_unblock(struct diag *d);

/* --- session.c ----------------------------------------------------------- */

/* PR_SET_PDEATHSIG(sig) (sig 0: nothing), then check that the parent is
 * still parent (getppid() == parent): a parent that died before the prctl
 * would otherwise be missed. parent 0 (the parent lies outside our pid
 * namespace) cannot be checked. */
int proc_deathsig(struct diag *d, int sig, pid_t parent);

/* Make a new session. setsid() fails (EPERM) for a process-group leader,
 * as a standalone pysbx-exec started by a shell with job control or by
 * pysbx-clean is: then fork as setsid(1) does. Returns 0 in the process
 * that is now a session leader, the child's pid in the parent, -1 on
 * failure. The child re-arms the parent-death signal relative to the
 * parent (fork clears it). */
pid_t proc_new_session(struct diag *d, int die_signal);

/* In the parent after proc_new_session forked: with every signal still
 * blocked, forward each signal received to the child and wait for it.
 * Returns the exit code to exit with: the child's exit code, or 128+N
 * when it was killed by signal N (after re-raising N on ourselves when N
 * does not dump core, so that our own parent sees the same signal). */
int proc_wait_relay(pid_t child);

/* --- creds.c ------------------------------------------------------------- */

struct proc_caps {
	uint64_t eff, prm, inh, bnd, amb;
};

/* One read of /proc/self/status, when /proc is a procfs that shows this
 * very process (its Pid line is ours). -1 when that cannot be trusted or
 * parsed (no /proc in the sandbox, another file system or another pid
 * namespace's procfs there): callers then ask the kernel call by call. */
int proc_status_read(struct proc_status *s);

/* Read all five capability sets: capget, and the bounding and ambient
 * sets from st, or from proc_status_read() (st NULL), or with two prctl
 * calls per capability. */
int proc_caps_read(struct diag *d, struct proc_caps *c);
int proc_caps_read_with(struct diag *d, struct proc_caps *c,
			const struct proc_status *st);

/* Check that no capability is held (st as for proc_caps_read_with).
 * Returns 0 when none is (the bounding set is ignored standalone when it
 * cannot be emptied: see EXEC.md), 1 when some are held but we run
 * standalone as root and will drop them with proc_caps_drop(), -1 (111,
 * naming the set and capability) else. */
int proc_caps_check(struct diag *d, bool chain, const struct proc_status *st);

/* Drop every capability for good: securebits locked (noroot,
 * no-setuid-fixup, keep-caps off, no-ambient-raise), bounding set
 * emptied, ambient cleared, effective/permitted/inheritable zeroed; then
 * verify that all five sets are empty. Needs CAP_SETPCAP. */
int proc_caps_drop(struct diag *d);

/* PR_SET_NO_NEW_PRIVS, verified with PR_GET_NO_NEW_PRIVS. */
int proc_no_new_privs(struct diag *d);

/* persona.c: the personality back to PER_LINUX (PER_LINUX32 stays), every
 * flag (ADDR_NO_RANDOMIZE, READ_IMPLIES_EXEC, ...) cleared. 0 or -1 (111). */
int proc_personality_reset(struct diag *d);

/* "cap_sys_admin" for 21; "cap_N" for unknown numbers (static buffer). */
const char *proc_cap_name(int cap);

/* --- rlimits.c ----------------------------------------------------------- */

/* Apply every `limit` of p. RL_SOFT_HARD: soft = the resulting hard
 * limit; RL_KEEP_HARD: the hard limit is left as it is. A failure names
 * the resource, the values and the cause (raising a hard limit needs
 * CAP_SYS_RESOURCE in the initial namespace). */
int proc_rlimits(struct diag *d, const struct plan *p);

/* --- env.c --------------------------------------------------------------- */

/* The target's environment: exactly the policy's env entries in policy
 * order (env-pass NAME: the caller's value from caller, skipped when the
 * caller has none), after, with net-proxy, the proxy variables
 * (http_proxy, https_proxy, HTTP_PROXY, HTTPS_PROXY, ALL_PROXY, all_proxy
 * = http://127.0.0.1:PORT; NO_PROXY, no_proxy = localhost,127.0.0.1,::1)
 * that the policy does not set itself. Nothing else, whatever caller
 * holds. Returns a
 * NULL-terminated array in p's arena (its strings are in the arena or
 * point into caller; they live until exec or plan_free) or NULL
 * (ENOMEM). */
char **proc_env_build(struct diag *d, const struct plan *p,
		      char *const caller[]);

/* --- fds.c --------------------------------------------------------------- */

/* stdin from /dev/null, which must be the null character device (1:3):
 * inside a sandbox without `dev /dev` it is missing and we say so. */
int proc_stdin_null(struct diag *d, const struct plan *p);

/* Close every fd but 0, 1, 2, p's keep-fds (made inheritable) and the
 * extra fds given (the chain's plan and report fds, which stay
 * close-on-exec). close_range(2) with a fallback over /proc/self/fd, then
 * over every number below the fd limit, when the kernel or a container's
 * seccomp filter refuses it. A keep-fd that is not open is an error. */
int proc_close_fds(struct diag *d, const struct plan *p, const int *extra,
		   size_t nextra);

/* --- cwd.c --------------------------------------------------------------- */

/* chdir(p->chdir) when set (the error names the path and the position)
 * and umask(p->umask) when >= 0. */
int proc_cwd_umask(struct diag *d, const struct plan *p);

#endif
