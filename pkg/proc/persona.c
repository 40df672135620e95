#include <errno.h>
#include <sys/personality.h>

#include "proc/proc.h"

/* The caller's personality flags pass through fork and execve: `setarch
 * -R` (ADDR_NO_RANDOMIZE) would turn ASLR off for the target, and
 * READ_IMPLIES_EXEC would make its readable mappings executable. Only the
 * execution domain stays (PER_LINUX32 changes what uname reports for a
 * 32-bit build, nothing of the isolation); every flag is cleared. */
int proc_personality_reset(struct diag *d)
{
	int cur = personality(0xffffffff), want;

	if (cur < 0)
		return diag_fail(d, EXIT_SYSCALL, errno,
				 "unable to read the personality");
	want = (cur & PER_MASK) == PER_LINUX32 ? PER_LINUX32 : PER_LINUX;
	if (cur != want && personality((unsigned long)want) < 0)
		return diag_fail(d, EXIT_SYSCALL, errno,
				 "unable to reset the personality");
	return 0;
}
