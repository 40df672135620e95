/* check: the probes behind `pysbx check`, one function per feature.
 *
 * Internal to pkg/front. Every probe runs in a forked child (check.c does
 * the forking), so a probe may unshare, mount, load a seccomp filter or
 * close fds freely: nothing of it reaches the caller. A probe never exits
 * and never prints; it fills a struct probe_out that the child sends back
 * through a pipe.
 */
#ifndef PYSBX_FRONT_CHECK_H
#define PYSBX_FRONT_CHECK_H

#include <stddef.h>

#include "diag/diag.h"

struct probe_out {
	int ok; /* 1: the feature works */
	char detail[768]; /* ok: what was found; missing: "what failed:
				 * cause; fix: exact command" */
};

/* Record the outcome of a probe (printf-formatted detail). */
int probe_set(struct probe_out *o, int ok, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* The "Seccomp:" mode of the calling process from /proc/self/status (0
 * none, 1 strict, 2 filter), or -1 if unknown. */
int check_seccomp_mode(void);

/* A directory that exists and may be mounted over inside a private mount
 * namespace ("/tmp", else "/"). */
const char *check_mount_dir(void);

/* Enter a new user namespace and map the caller's uid and gid to 0 in it
 * (setgroups denied first, as an unprivileged process must). On failure
 * returns -1 with errno set and *step naming the call that failed
 * ("unshare(CLONE_NEWUSER)", "write /proc/self/uid_map", ...). */
int check_enter_userns(const char **step);

/* Explain why a user namespace step failed with err: the knob that refuses
 * it and the exact fix, written to buf. */
void check_userns_cause(int err, const char *step, char *buf, size_t len);

/* The probes (check_userns.c). */
int probe_userns(struct probe_out *o);
int probe_ns_mount(struct probe_out *o);
int probe_ns_pid(struct probe_out *o);
int probe_ns_ipc(struct probe_out *o);
int probe_ns_uts(struct probe_out *o);
int probe_ns_net(struct probe_out *o);
int probe_ns_cgroup(struct probe_out *o);
int probe_proc(struct probe_out *o);

/* The mode pysbx run would pick for a shipped policy here (check_mode.c):
 * mode "namespaces", "landlock-only" or "refused", and why. */
struct check_mode {
	char policy[32];
	char mode[16];
	char reason[720];
};
/* How many shipped policies there are; the i-th's mode into m (judged
 * in a child). 0 or a positive number (m->reason says what failed). */
size_t check_npolicies(void);
int check_policy_mode(size_t i, struct check_mode *m);

/* The probes (check_kernel.c). */
int probe_seccomp(struct probe_out *o);
int probe_seccomp_kill_process(struct probe_out *o);
int probe_seccomp_log(struct probe_out *o);
int probe_landlock(struct probe_out *o);
int probe_cgroup2(struct probe_out *o);
int probe_openat2(struct probe_out *o);
int probe_mount_api(struct probe_out *o);
int probe_close_range(struct probe_out *o);


#endif
