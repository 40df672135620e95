/* sigsys: pid 1 as the supervisor of the syscall filter's kills
 * (docs/SECCOMP.md "Naming the killed syscall").
 *
 * In a pid namespace, pysbx-seccomp loads the filter with the policy's
 * `kill` (and the foreign-ABI kill) as SECCOMP_RET_USER_NOTIF and sends
 * the listener to pid 1 over a socketpair whose other end travelled down
 * the chain (--notify-fd). For each notification pid 1 SIGKILLs the
 * caller's whole thread group through a pidfd taken before the
 * notification is checked to be still pending (so a reused pid is never
 * hit), answers EPERM (the call never runs) and writes one record to the
 * report fd: {"stage":"mount","event":"sigsys","syscall":NAME,"nr":N,
 * "arch":A,"pid":P,"comm":C,"target":true|false}.
 */
#ifndef PYSBX_REAPER_SIGSYS_H
#define PYSBX_REAPER_SIGSYS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct plan;

/* Records written per run; later kills are counted in the last one. */
#define SIGSYS_MAX_RECORDS 16

struct sigsys_sup {
	int sock;		/* pid 1's end of the socketpair, -1: closed */
	int listener;		/* the filter's listener, -1: none yet */
	int hostproc;		/* the host's procfs (names, thread groups),
				 * -1: none */
	int report_fd;		/* -1: none (the line goes to stderr) */
	pid_t target;		/* pid 1's child, in pid 1's namespace */
	long target_host;	/* its pid in hostproc's namespace, 0: unknown */
	bool target_killed;	/* the filter killed the target's process */
	unsigned kills;
	const struct plan *plan; /* report denials: the plan, else NULL
				  * (reaper/denials.h) */
	bool reporting;		/* pysbx-seccomp sent report_set */
	uint64_t report_set[512 / 64]; /* the x86_64 numbers the filter
				 * notifies on for report denials */
};

/* The fd pid 1 should poll for this supervisor (the socket until the
 * listener came, then the listener), or -1. */
int sigsys_pollfd(const struct sigsys_sup *s);

/* poll reported revents for that fd: take the listener, or handle one
 * notification. Kills what must die; never blocks. */
void sigsys_ready(struct sigsys_sup *s, short revents);

/* For denials.c: a number from a procfs file ("Pid:\t123") under
 * dirfd, or 0 (name, if not NULL, gets the Name: field, made plain);
 * the pid the host's procfs shows for a pidfd, or 0. */
long sigsys_proc_field(int dirfd, const char *path, const char *key,
		       char *name, size_t namelen);
long sigsys_host_pid(const struct sigsys_sup *s, int pidfd);

#endif
