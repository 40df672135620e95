#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "proc/proc.h"

#ifndef SYS_close_range
#define SYS_close_range 436	/* the same number on every architecture */
#endif

int proc_stdin_null(struct diag *d, const struct plan *p)
{
	struct stat st;
	int fd;

	if (!p->stdin_null)
		return 0;
	/* openat, not open: musl's open adds an fcntl for O_CLOEXEC. */
	fd = openat(AT_FDCWD, "/dev/null", O_RDONLY | O_NOCTTY | O_CLOEXEC);
	if (fd < 0) {
		diag_fail(d, EXIT_SYSCALL, errno,
			  POS_FMT ": unable to open /dev/null for stdin",
			  POS_ARGS(p->at[PAT_STDIN]));
		if (d->err == ENOENT)
			diag_hint(d, "there is no /dev/null here: give the "
				  "sandbox a /dev (policy: dev /dev)");
		return -1;
	}
	/* Whatever lies at /dev/null inside a sandbox is what its policy
	 * put there: a regular file would hand the target data. */
	if (fstat(fd, &st) < 0 || !S_ISCHR(st.st_mode) ||
	    major(st.st_rdev) != 1 || minor(st.st_rdev) != 3) {
		close(fd);
		return diag_fail(d, EXIT_SYSCALL, 0,
				 POS_FMT ": unable to use /dev/null for stdin: "
				 "it is not the null device (char 1:3)",
				 POS_ARGS(p->at[PAT_STDIN]));
	}
	if (fd == 0)
		return fcntl(0, F_SETFD, 0) < 0 ?
			diag_fail(d, EXIT_SYSCALL, errno,
				  "unable to make stdin inheritable") : 0;
	if (dup2(fd, 0) < 0) {
		int e = errno;

		close(fd);
		return diag_fail(d, EXIT_SYSCALL, e,
				 "unable to redirect stdin from /dev/null");
	}
	close(fd);
	return 0;
}

static int kept(const int *keep, size_t n, int fd)
{
	if (fd <= 2)
		return 1;
	for (size_t i = 0; i < n; i++)
		if (keep[i] == fd)
			return 1;
	return 0;
}

/* At most PLAN_MAX_FDS + 2 numbers: insertion sort, where qsort's
 * deeper frames cost a page fault of stack. */
static void sort_fds(int *v, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		int x = v[i];
		size_t j = i;

		for (; j > 0 && v[j - 1] > x; j--)
			v[j] = v[j - 1];
		v[j] = x;
	}
}

/* Close every fd >= 3 not in keep (sorted) with close_range; -1 with
 * errno when the kernel refuses it. */
static int close_ranges(const int *keep, size_t n)
{
	unsigned lo = 3;

	for (size_t i = 0; i < n; i++) {
		if ((unsigned)keep[i] > lo &&
		    syscall(SYS_close_range, lo, (unsigned)keep[i] - 1, 0) < 0)
			return -1;
		if ((unsigned)keep[i] >= lo)
			lo = (unsigned)keep[i] + 1;
	}
	return (int)syscall(SYS_close_range, lo, ~0U, 0);
}

/* Close what /proc/self/fd lists; -1 when it cannot be read. The
 * numbers are collected first: closing while reading the directory would
 * close its own fd. */
static int close_listed(const int *keep, size_t n)
{
	DIR *dir = opendir("/proc/self/fd");
	struct dirent *e;
	int *fds = NULL, self;
	size_t nfds = 0, cap = 0;

	if (!dir)
		return -1;
	self = dirfd(dir);
	while ((e = readdir(dir))) {
		char *end;
		long fd = strtol(e->d_name, &end, 10);

		if (*end || e->d_name[0] == '.' || fd == self ||
		    kept(keep, n, (int)fd))
			continue;
		if (nfds == cap) {
			int *m = realloc(fds, (cap = cap ? cap * 2 : 64) *
					 sizeof(*fds));

			if (!m) {
				free(fds);
				closedir(dir);
				errno = ENOMEM;
				return -1;
			}
			fds = m;
		}
		fds[nfds++] = (int)fd;
	}
	closedir(dir);
	for (size_t i = 0; i < nfds; i++)
		close(fds[i]);
	free(fds);
	return 0;
}

/* Last resort, without close_range or /proc: every number below the fd
 * limit (fds at or above it exist only if the caller lowered it after
 * opening them; the cap bounds the loop). */
static void close_all_below_limit(const int *keep, size_t n)
{
	struct rlimit rl;
	long max = 1 << 16;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_max != RLIM_INFINITY &&
	    (long)rl.rlim_max > max)
		max = rl.rlim_max > (1 << 20) ? 1 << 20 : (long)rl.rlim_max;
	for (long fd = 3; fd < max; fd++)
		if (!kept(keep, n, (int)fd))
			close((int)fd);
}

int proc_close_fds(struct diag *d, const struct plan *p, const int *extra,
		   size_t nextra)
{
	int keep[PLAN_MAX_FDS + 8];
	size_t n = 0;

	for (size_t i = 0; i < p->nkeep_fds; i++) {
		int fd = p->keep_fds[i];

		for (size_t j = 0; j < nextra; j++)
			if (extra[j] == fd)
				return diag_fail(d, EXIT_SYSCALL, 0,
						 POS_FMT ": unable to keep fd "
						 "%d: it is the chain's own fd",
						 POS_ARGS(p->at[PAT_KEEPFD]),
						 fd);
		/* Kept means the target gets it: clear close-on-exec. */
		if (fcntl(fd, F_SETFD, 0) < 0) {
			diag_fail(d, EXIT_SYSCALL, errno,
				  POS_FMT ": unable to keep fd %d",
				  POS_ARGS(p->at[PAT_KEEPFD]), fd);
			if (d->err == EBADF)
				diag_hint(d, "keep-fd names an fd the caller "
					  "must pass open, e.g. %d<FILE in a "
					  "shell", fd);
			return -1;
		}
		keep[n++] = fd;
	}
	for (size_t j = 0; j < nextra && n < sizeof(keep) / sizeof(*keep); j++)
		if (extra[j] > 2)
			keep[n++] = extra[j];
	sort_fds(keep, n);
	/* ENOSYS before Linux 5.9; EPERM or ENOSYS from a container's
	 * seccomp filter that does not know it. */
	if (close_ranges(keep, n) == 0)
		return 0;
	if (errno != ENOSYS && errno != EPERM && errno != EINVAL)
		return diag_fail(d, EXIT_SYSCALL, errno,
				 "unable to close inherited fds");
	if (close_listed(keep, n) < 0)
		close_all_below_limit(keep, n);
	return 0;
}
