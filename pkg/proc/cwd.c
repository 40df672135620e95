#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>

#include "proc/proc.h"

int proc_cwd_umask(struct diag *d, const struct plan *p)
{
	if (p->chdir && chdir(p->chdir) < 0) {
		diag_fail(d, EXIT_SYSCALL, errno,
			  POS_FMT ": unable to change directory to %s",
			  POS_ARGS(p->at[PAT_CHDIR]), p->chdir);
		if (d->err == ENOENT)
			diag_hint(d, "chdir names a directory as the target "
				  "sees it: inside a sandbox, mount it first");
		return -1;
	}
	if (p->umask >= 0)
		umask((mode_t)p->umask);
	return 0;
}
