/* Which Landlock ABI the kernel offers, and what each one brought. */
#include <errno.h>
#include <unistd.h>

#include "landlock/landlock.h"

int ll_abi(struct diag *d, int force, int *abi)
{
	long v = syscall(SYS_landlock_create_ruleset, NULL, 0,
			 LL_CREATE_RULESET_VERSION);

	if (v < 0) {
		/* ENOSYS: not built in; EOPNOTSUPP: not enabled (lsm=). */
		if (errno != ENOSYS && errno != EOPNOTSUPP)
			return diag_fail(d, EXIT_SYSCALL, errno,
					 "unable to ask the kernel for its "
					 "Landlock ABI");
		v = 0;
	}
	/* Rights and flags of an ABI above ours are unknown to this code:
	 * use what we know, all of which the kernel has. */
	if (v > LL_ABI_MAX)
		v = LL_ABI_MAX;
	*abi = force >= 0 && force < v ? force : (int)v;
	return 0;
}

const char *ll_abi_kernel(int abi)
{
	static const char *const rel[] = { "-", "5.13", "5.19", "6.2", "6.7",
					   "6.10", "6.12", "6.15" };

	return abi >= 0 && abi <= LL_ABI_MAX ? rel[abi] : "?";
}
