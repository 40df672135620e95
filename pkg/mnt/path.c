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

/* Open directory component name below dirfd, creating it if missing.
 * fresh: dirfd was just created by us, so name cannot exist yet: mkdir
 * first and save the failed open (a racer's EEXIST is still handled by
 * the open that follows, which never follows a symlink). */
static int open_dir(int dirfd, const char *name, int mode, bool create,
		    bool *fresh)
{
	int fd;

	if (create && *fresh) {
		if (mkdirat(dirfd, name, (mode_t)mode) < 0 && errno != EEXIST)
			return -1;
		return sys_openat2(dirfd, name,
				   O_PATH | O_DIRECTORY | O_CLOEXEC, 0,
				   MNT_RESOLVE);
	}
	for (int tries = 0; tries < 2; tries++) {
		fd = sys_openat2(dirfd, name,
				 O_PATH | O_DIRECTORY | O_CLOEXEC, 0,
				 MNT_RESOLVE);
		if (fd >= 0 || errno != ENOENT || !create)
			return fd;
		if (mkdirat(dirfd, name, (mode_t)mode) == 0)
			*fresh = true;
		else if (errno != EEXIST)
			return -1;
	}
	return fd;
}

/* The last component as a file: created empty (O_EXCL: never truncate
 * or reuse what a racer put here) and kept open read-only, which serves
 * as a mount target as well as an O_PATH fd; or, when something exists
 * already, opened O_PATH. *isreg: the fd is known to be a new regular
 * file. */
static int open_file(int dirfd, const char *name, int mode, bool *isreg)
{
	int fd;

	for (int tries = 0; tries < 2; tries++) {
		fd = sys_openat2(dirfd, name,
				 O_CREAT | O_EXCL | O_RDONLY | O_CLOEXEC,
				 (unsigned)mode, MNT_RESOLVE);
		if (fd >= 0) {
			*isreg = true;
			return fd;
		}
		if (errno != EEXIST)
			return -1;
		fd = sys_openat2(dirfd, name, O_PATH | O_CLOEXEC, 0,
				 MNT_RESOLVE);
		if (fd >= 0 || errno != ENOENT)
			return fd;
		/* removed meanwhile: create it after all */
	}
	return -1;
}

/* Open component name below dir as the walk needs it: a directory on
 * the way or for DST_DIR, else the last component as type. *known: the
 * fd's type is settled without an fstat. */
static int open_component(int dir, const char *name, bool last,
			  enum dst_type type, int mode, bool *fresh,
			  bool *known)
{
	*known = true;	/* O_DIRECTORY, or DST_EXISTING: any type */
	if (!last || type == DST_DIR)
		return open_dir(dir, name, last ? mode : 0755,
				type != DST_EXISTING, fresh);
	if (type == DST_FILE) {
		*known = false;
		return open_file(dir, name, mode, known);
	}
	return sys_openat2(dir, name, O_PATH | O_CLOEXEC, 0, MNT_RESOLVE);
}

/* Walk dst's components below rootfd; the last one is opened as type.
 * parent_only returns the fd of the last component's parent, which is
 * rootfd itself (not a copy: the caller must not close it) when dst has
 * a single component. */
static int walk(int rootfd, const char *dst, enum dst_type type, int mode,
		bool parent_only, const char **base, char *bad,
		size_t badlen)
{
	char name[NAME_MAX + 1];
	const char *s = dst, *e;
	bool fresh = false, known = false;
	int cur = rootfd, fd;
	struct stat st;

	/* The callers' buffers are not zero-filled (4 KiB each): empty
	 * until a failure names the prefix. */
	if (bad && badlen)
		bad[0] = '\0';
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
		fd = open_component(cur, name, last, type, mode, &fresh,
				    &known);
		if (fd < 0) {
			set_bad(bad, badlen, dst, (size_t)(s - dst) + n);
			goto fail_errno;
		}
		if (cur != rootfd)
			close(cur);
		cur = fd;
	}
	if (cur == rootfd) {
		/* dst is "/": it has no parent inside the root, and as a
		 * destination it is the root itself (a copy: the caller
		 * closes it). */
		if (parent_only) {
			errno = EINVAL;
			goto fail;
		}
		cur = sys_openat2(rootfd, ".", O_PATH | O_CLOEXEC, 0,
				  MNT_RESOLVE);
		if (cur < 0)
			goto fail;
		known = type != DST_FILE;
	}
	if (!known) {
		/* The place of a file: anything but a directory. */
		if (fstat(cur, &st) < 0)
			goto fail;
		if (S_ISDIR(st.st_mode)) {
			errno = EISDIR;
			goto fail;
		}
	}
	return cur;
fail:
	set_bad(bad, badlen, dst, strlen(dst));
fail_errno: {
		int err = errno;

		if (cur >= 0 && cur != rootfd)
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
