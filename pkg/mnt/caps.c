/* Dropping every capability for good before the next step is exec'd. */
#include <errno.h>
#include <linux/securebits.h>
#include <string.h>
#include <sys/prctl.h>

#include "mnt/internal.h"
#include "mnt/sys.h"
#include "proc/proc.h"

/* Root inside the sandbox would regain a full permitted set at execve:
 * NOROOT stops that, NO_SETUID_FIXUP and KEEP_CAPS keep setuid() from
 * changing the sets, NO_CAP_AMBIENT_RAISE keeps the ambient set empty;
 * each is locked so that no later step can undo it. */
#define SECBITS (SECBIT_NOROOT | SECBIT_NOROOT_LOCKED |                   \
		 SECBIT_NO_SETUID_FIXUP | SECBIT_NO_SETUID_FIXUP_LOCKED |    \
		 SECBIT_KEEP_CAPS_LOCKED | SECBIT_NO_CAP_AMBIENT_RAISE |     \
		 SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED)

int mnt_drop_caps(struct diag *d)
{
	struct __user_cap_data_struct data[2];
	struct proc_caps c;
	int cap;

	if (prctl(PR_SET_SECUREBITS, SECBITS, 0, 0, 0) < 0)
		return diag_fail(d, EXIT_SYSCALL, errno,
				 "unable to lock the securebits");
	/* The bounding set: drop up to the first number the kernel does
	 * not know (EINVAL), whatever cap_last_cap this binary was built
	 * with; a drop that succeeded cleared its bit. No read before each:
	 * the whole set is verified once below. */
	for (cap = 0; prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) == 0; cap++)
		;
	if (errno != EINVAL || cap < 32)
		return diag_fail(d, EXIT_SYSCALL, errno,
				 "unable to drop capability %d from the "
				 "bounding set", cap);
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0)
		return diag_fail(d, EXIT_SYSCALL, errno,
				 "unable to clear the ambient capabilities");
	memset(data, 0, sizeof(data));
	if (sys_capset(data) < 0)
		return diag_fail(d, EXIT_SYSCALL, errno,
				 "unable to clear the capability sets");
	/* capget and one read of /proc/self/status (the prctl loop where
	 * no procfs shows this process). */
	if (proc_caps_read(d, &c) < 0)
		return -1;
	if (c.eff || c.prm || c.inh)
		return diag_fail(d, EXIT_SYSCALL, 0,
				 "unable to clear the capability sets: "
				 "some remain after capset");
	if (c.bnd || c.amb)
		return diag_fail(d, EXIT_SYSCALL, 0,
				 "unable to empty the %s set: 0x%llx remains",
				 c.bnd ? "bounding" : "ambient",
				 (unsigned long long)(c.bnd ? c.bnd : c.amb));
	return 0;
}
