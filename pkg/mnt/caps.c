/* Dropping every capability for good before the next step is exec'd. */
#include <errno.h>
#include <linux/securebits.h>
#include <string.h>
#include <sys/prctl.h>

#include "mnt/internal.h"
#include "mnt/sys.h"

/* Root inside the sandbox would regain a full permitted set at execve:
 * NOROOT stops that, NO_SETUID_FIXUP and KEEP_CAPS keep setuid() from
 * changing the sets, NO_CAP_AMBIENT_RAISE keeps the ambient set empty;
 * each is locked so that no later step can undo it. */
#define SECBITS (SECBIT_NOROOT | SECBIT_NOROOT_LOCKED |                   \
		 SECBIT_NO_SETUID_FIXUP | SECBIT_NO_SETUID_FIXUP_LOCKED |    \
		 SECBIT_KEEP_CAPS_LOCKED | SECBIT_NO_CAP_AMBIENT_RAISE |     \
		 SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED)

int mnt_drop_caps(struct diag *d, bool execs)
{
	struct __user_cap_data_struct data[2];
	int cap;

	if (prctl(PR_SET_SECUREBITS, SECBITS, 0, 0, 0) < 0)
		return diag_fail(d, EXIT_SYSCALL, errno,
				 "unable to lock the securebits");
	/* The bounding set only bounds what an execve may grant (file
	 * capabilities). A process that never execs (pid 1) gets the same
	 * in one call: no_new_privs, with which no execve grants anything,
	 * where the drops take one call per capability (41 here). */
	if (!execs) {
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
			return diag_fail(d, EXIT_SYSCALL, errno,
					 "unable to set no_new_privs");
		goto sets;
	}
	/* The bounding set: drop up to the first number the kernel does
	 * not know (EINVAL), whatever cap_last_cap this binary was built
	 * with. A drop returns 0 only once its bit is clear, and the
	 * kernel's capabilities are numbered without gaps: the set is
	 * empty when the loop ends with EINVAL, no read-back needed. */
	for (cap = 0; prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) == 0; cap++)
		;
	if (errno != EINVAL || cap < 32)
		return diag_fail(d, EXIT_SYSCALL, errno,
				 "unable to drop capability %d from the "
				 "bounding set", cap);
sets:
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0)
		return diag_fail(d, EXIT_SYSCALL, errno,
				 "unable to clear the ambient capabilities");
	memset(data, 0, sizeof(data));
	if (sys_capset(data) < 0)
		return diag_fail(d, EXIT_SYSCALL, errno,
				 "unable to clear the capability sets");
	/* Read back (no /proc needed: the child runs this on the critical
	 * path, and reading /proc/self/status costs more than the drops).
	 * An ambient capability must be permitted and inheritable, so
	 * these two empty mean the ambient set is empty too. */
	if (sys_capget(data) < 0)
		return diag_fail(d, EXIT_SYSCALL, errno,
				 "unable to read the capability sets");
	if (data[0].effective | data[1].effective | data[0].permitted |
	    data[1].permitted | data[0].inheritable | data[1].inheritable)
		return diag_fail(d, EXIT_SYSCALL, 0,
				 "unable to clear the capability sets: "
				 "some remain after capset");
	return 0;
}
