/* Opening mount sources and destinations once, component by component,
 * never following a symlink and never leaving the starting directory
 * (runc CVE-2021-30465: a workspace that swaps a directory for a symlink
 * must not redirect a mount). The fds are what gets mounted on, so the
 * path is never resolved a second time. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mnt/internal.h"
#include "mnt/sys.h"

int mnt_open_src(int hostfd, const char *src)
{
	while (*src == '/')
		src++;
	if (!*src)
		src = ".";
	return sys_openat2(hostfd, src, O_PATH | O_CLOEXEC, 0, MNT_RESOLVE);
}

static void set_bad(char *bad, size_t badlen, const char *dst, size_t n)
{
	if (bad && badlen)
		snprintf(bad, badlen, "%.*s", (int)n, dst);
}

/* Open directory component name below dirfd, creating it if missing. */
static int open_dir(int dirfd, const char *name, int mode, bool create)
{
	int fd;

	for (int tries = 0; tries < 2; tries++) {
		fd = sys_openat2(dirfd, name,
				 O_PATH | O_DIRECTORY | O_CLOEXEC, 0,
				 MNT_RESOLVE);
		if (fd >= 0 || errno != ENOENT || !create)
			return fd;
		if (mkdirat(dirfd, name, (mode_t)mode) < 0 &&
		    errno != EEXIST)
			return -1;
	}
	return fd;
}

static int open_file(int dirfd, const char *name, int mode)
{
	int fd;

	for (int tries = 0; tries < 2; tries++) {
		fd = sys_openat2(dirfd, name, O_PATH | O_CLOEXEC, 0,
				 MNT_RESOLVE);
		if (fd >= 0 || errno != ENOENT)
			return fd;
		/* O_EXCL: never truncate or reuse what a racer put here. */
		fd = sys_openat2(dirfd, name,
				 O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC,
				 (unsigned)mode, MNT_RESOLVE);
		if (fd >= 0)
			close(fd);
		else if (errno != EEXIST)
			return -1;
	}
	return sys_openat2(dirfd, name, O_PATH | O_CLOEXEC, 0, MNT_RESOLVE);
}

/* Walk dst's components below rootfd; the last one is opened as type. */
static int walk(int rootfd, const char *dst, enum dst_type type, int mode,
		bool parent_only, const char **base, char *bad,
		size_t badlen)
{
	char name[NAME_MAX + 1];
	const char *s = dst, *e;
	int cur = -1, fd;
	struct stat st;

	cur = fcntl(rootfd, F_DUPFD_CLOEXEC, 3);
	if (cur < 0)
		return -1;
	while (*s == '/')
		s++;
	for (; *s; s = e) {
		size_t n;
		bool last;

		e = strchrnul(s, '/');
		n = (size_t)(e - s);
		while (*e == '/')
			e++;
		last = !*e;
		if (n > NAME_MAX || (n == 2 && !memcmp(s, "..", 2)) ||
		    (n == 1 && *s == '.')) {
			errno = EINVAL;
			goto fail;
		}
		memcpy(name, s, n);
		name[n] = '\0';
		if (last && parent_only) {
			*base = s;
			return cur;
		}
		if (!last || type == DST_DIR)
			fd = open_dir(cur, name, last ? mode : 0755,
				      !last || type != DST_EXISTING);
		else if (type == DST_FILE)
			fd = open_file(cur, name, mode);
		else
			fd = sys_openat2(cur, name, O_PATH | O_CLOEXEC, 0,
					 MNT_RESOLVE);
		if (fd < 0) {
			set_bad(bad, badlen, dst, (size_t)(s - dst) + n);
			goto fail_errno;
		}
		close(cur);
		cur = fd;
	}
	if (parent_only) {
		/* dst is "/": it has no parent inside the root. */
		errno = EINVAL;
		goto fail;
	}
	if (fstat(cur, &st) < 0)
		goto fail;
	if (type == DST_FILE && S_ISDIR(st.st_mode)) {
		errno = EISDIR;
		goto fail;
	}
	if (type == DST_DIR && !S_ISDIR(st.st_mode)) {
		errno = ENOTDIR;
		goto fail;
	}
	return cur;
fail:
	set_bad(bad, badlen, dst, strlen(dst));
fail_errno: {
		int err = errno;

		close(cur);
		errno = err;
		return -1;
	}
}

int mnt_open_dst(int rootfd, const char *dst, enum dst_type type, int mode,
		 char *bad, size_t badlen)
{
	return walk(rootfd, dst, type, mode, false, NULL, bad, badlen);
}

int mnt_open_parent(int rootfd, const char *dst, const char **base,
		    char *bad, size_t badlen)
{
	return walk(rootfd, dst, DST_DIR, 0755, true, base, bad, badlen);
}
