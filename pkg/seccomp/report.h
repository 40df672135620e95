/* report: which system calls `report denials` sends to pid 1, and where
 * their paths are (docs/DENIALS.md). Shared by the compiler (which gives
 * these calls SECCOMP_RET_USER_NOTIF) and pid 1 (which must tell such a
 * notification from a kill by its number alone): both decide with
 * sc_report_eligible on the same plan. No libseccomp here.
 */
#ifndef PYSBX_SC_REPORT_H
#define PYSBX_SC_REPORT_H

#include <stdbool.h>

#include "policy/policy.h"

/* What a call does to its path, for the view's verdict on it. */
enum sc_report_op {
	RP_OPEN,	/* open flags decide: read, write, create */
	RP_OPENAT2,	/* the same, flags in struct open_how */
	RP_EXEC,
	RP_CREATE,	/* a new name: mkdir, mknod, symlink's link */
	RP_REMOVE,	/* unlink, rmdir */
	RP_RENAME,	/* the first path goes away, the second is made */
	RP_LINK,	/* the first path is read, the second is made */
	RP_META,	/* chmod, chown, utimes: a write to the inode */
	RP_WRITE,	/* truncate */
	RP_CHDIR,
};

/* One reported call: argument indexes, -1 where there is none (a dirfd
 * of -1 means AT_FDCWD). path2 is the second path of rename and link. */
struct sc_report_call {
	const char *name;
	int nr;
	signed char dirfd, path, dirfd2, path2, flags;
	unsigned char op;	/* enum sc_report_op */
	bool nofollow;		/* acts on a last symlink itself */
};

/* The call for x86_64 number nr, or NULL when it is not reported. */
const struct sc_report_call *sc_report_call(int nr);

/* The calls, for the compiler: n set to their count. */
const struct sc_report_call *sc_report_calls(unsigned *n);

/* Does this plan send nr to pid 1? Only with `report denials`, outside
 * audit mode, and only for a call the policy allows unconditionally
 * (no rule and an allow default, or unconditional allow rules only):
 * a notification for nr then cannot be a kill, so pid 1 may answer it
 * with "continue" (the kernel decides) and never needs to kill. */
bool sc_report_eligible(const struct plan *p, int nr);

/* The TRACE data that marks a reported call in the compiled program
 * until it is loaded (SECCOMP_RET_USER_NOTIF with pid 1's listener,
 * SECCOMP_RET_ALLOW without one). The policy language has no trace. */
#define SC_REPORT_MARK 0x7ea1u

#endif
