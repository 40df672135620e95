/* reaper: the two processes of pysbx-mount that stay around while the
 * sandbox runs — the monitor outside the namespaces, and pid 1 inside.
 * Both wait with every signal blocked (the caller blocks them before the
 * clone, so none is lost) and read them from a signalfd.
 */
#ifndef PYSBX_REAPER_H
#define PYSBX_REAPER_H

#include <signal.h>
#include <stdbool.h>
#include <sys/types.h>

#include "reaper/sigsys.h"

/* The exit code for a wait status: the exit code, or 128+N for signal N. */
int reaper_code(int status);

/* Block every signal (the old mask in old, if not NULL). 0 or -1. */
int reaper_block_all(void *old);

/* The monitor's signalfd (every signal), made before pid 1 is cloned.
 * fd, or -1 (the monitor then only waits). */
int reaper_monitor_fd(void);

/* The monitor: forward every signal read from sfd to child (pid 1 of the
 * sandbox), until child ends. pid 1 runs in the monitor's memory
 * (CLONE_VM), so this makes raw system calls only and touches nothing
 * but its own stack: no errno, no libc state that pid 1 uses. Returns
 * child's raw wait status, or -1 when waiting failed. x86-64. */
int reaper_monitor(pid_t child, int sfd);

/* The signal that asks pid 1 to end the sandbox now: SIGKILL to every
 * process in it, after which pid 1 still does its work after the run
 * (protect's check) and exits. The guard sends it when the grace after
 * TERM is over, instead of killing pid 1 itself. */
#define REAPER_END_SIG SIGPWR

/* pid 1: reap every zombie; forward signals to target (SIGTERM stops the
 * whole namespace: CONT and TERM to every process in it; REAPER_END_SIG
 * kills it); when target ends, write its raw status to report_fd (if >=
 * 0), kill everything left in the namespace (when in_pidns) and return
 * the target's code. When death_fd reports that the monitor is gone (it
 * was killed, or the guard was), kill everything and return
 * 128+SIGKILL: pid 1 has no parent-death signal, so that it outlives a
 * SIGKILL of the guard or the monitor long enough to check the tree.
 * ss (NULL: none) is the syscall filter's supervisor (sigsys.h): its fd
 * is polled too, and a target it killed is reported as killed by
 * SIGSYS (exit 159), as the kernel's own kill would be. */
int reaper_init(pid_t target, int death_fd, int report_fd, bool in_pidns,
		struct sigsys_sup *ss);

#endif
