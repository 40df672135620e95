#include <stddef.h>
#include <sys/syscall.h>

#include "seccomp/report.h"

#define C(n, d, p, d2, p2, fl, op, nf) \
	{ #n, SYS_##n, d, p, d2, p2, fl, op, nf }

/* Not stat, access, readlink and the like: programs probe paths all the
 * time, and a probe is not what a user needs to hear about. */
static const struct sc_report_call calls[] = {
	C(open, -1, 0, -1, -1, 1, RP_OPEN, false),
	C(creat, -1, 0, -1, -1, -1, RP_CREATE, false),
	C(openat, 0, 1, -1, -1, 2, RP_OPEN, false),
	C(openat2, 0, 1, -1, -1, 2, RP_OPENAT2, false),
	C(execve, -1, 0, -1, -1, -1, RP_EXEC, false),
	C(execveat, 0, 1, -1, -1, 4, RP_EXEC, false),
	C(mkdir, -1, 0, -1, -1, -1, RP_CREATE, true),
	C(mkdirat, 0, 1, -1, -1, -1, RP_CREATE, true),
	C(mknod, -1, 0, -1, -1, -1, RP_CREATE, true),
	C(mknodat, 0, 1, -1, -1, -1, RP_CREATE, true),
	C(unlink, -1, 0, -1, -1, -1, RP_REMOVE, true),
	C(unlinkat, 0, 1, -1, -1, -1, RP_REMOVE, true),
	C(rmdir, -1, 0, -1, -1, -1, RP_REMOVE, true),
	C(rename, -1, 0, -1, 1, -1, RP_RENAME, true),
	C(renameat, 0, 1, 2, 3, -1, RP_RENAME, true),
	C(renameat2, 0, 1, 2, 3, -1, RP_RENAME, true),
	C(link, -1, 0, -1, 1, -1, RP_LINK, true),
	C(linkat, 0, 1, 2, 3, -1, RP_LINK, true),
	C(symlink, -1, 1, -1, -1, -1, RP_CREATE, true),
	C(symlinkat, 1, 2, -1, -1, -1, RP_CREATE, true),
	C(chmod, -1, 0, -1, -1, -1, RP_META, false),
	C(fchmodat, 0, 1, -1, -1, -1, RP_META, false),
	C(chown, -1, 0, -1, -1, -1, RP_META, false),
	C(lchown, -1, 0, -1, -1, -1, RP_META, true),
	C(fchownat, 0, 1, -1, -1, -1, RP_META, false),
	C(truncate, -1, 0, -1, -1, -1, RP_WRITE, false),
	C(utime, -1, 0, -1, -1, -1, RP_META, false),
	C(utimes, -1, 0, -1, -1, -1, RP_META, false),
	C(utimensat, 0, 1, -1, -1, -1, RP_META, false),
	C(futimesat, 0, 1, -1, -1, -1, RP_META, false),
	C(chdir, -1, 0, -1, -1, -1, RP_CHDIR, false),
};

const struct sc_report_call *sc_report_calls(unsigned *n)
{
	*n = sizeof(calls) / sizeof(calls[0]);
	return calls;
}

const struct sc_report_call *sc_report_call(int nr)
{
	for (size_t i = 0; i < sizeof(calls) / sizeof(calls[0]); i++)
		if (calls[i].nr == nr)
			return &calls[i];
	return NULL;
}

bool sc_report_eligible(const struct plan *p, int nr)
{
	bool ruled = false;

	if (!p->report_denials || p->sc_audit || !sc_report_call(nr))
		return false;
	for (size_t i = 0; i < p->nsc; i++) {
		if (p->sc[i].nr != nr)
			continue;
		if (p->sc[i].act != SC_ALLOW || p->sc[i].ncond)
			return false;
		ruled = true;
	}
	return ruled || p->sc_default == SC_ALLOW;
}
