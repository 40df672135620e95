/* Recursive removal of a scratch directory that a sandbox had for its
 * own: anything may have been planted in it (symlinks to host
 * directories, a mount over a subdirectory in some namespace, a tree
 * deeper than the fd limit, directories without write permission). The
 * walk works only relative to directory fds, opens one directory at a
 * time with RESOLVE_NO_SYMLINKS | RESOLVE_NO_XDEV | RESOLVE_BENEATH, and
 * climbs back through "..", checking that it arrives where it came from.
 * It never follows a symlink and never enters a mount point: such an
 * entry is left, with its parents, and reported. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/openat2.h>

#include "guard/guard.h"

#ifndef SYS_openat2
#define SYS_openat2 437	/* unified number, for older headers */
#endif

struct ident {
	dev_t dev;
	ino_t ino;
};

struct walk {
	struct diag *d;
	dev_t root_dev;
	struct ident *stack, *skip;
	size_t depth, cap, nskip, skipcap;
	int failures;
};

static int push(struct ident **a, size_t *n, size_t *cap, struct ident id)
{
	if (*n == *cap) {
		size_t nc = *cap ? *cap * 2 : 32;
		struct ident *na = realloc(*a, nc * sizeof(**a));

		if (!na)
			return -1;
		*a = na;
		*cap = nc;
	}
	(*a)[(*n)++] = id;
	return 0;
}

static bool skipped(const struct walk *w, const struct stat *st)
{
	for (size_t i = 0; i < w->nskip; i++)
		if (w->skip[i].dev == st->st_dev && w->skip[i].ino == st->st_ino)
			return true;
	return false;
}

/* Remember an entry that stays; the first failure is the one reported. */
static void leave(struct walk *w, const struct stat *st, int err,
		  const char *name, const char *why)
{
	if (!w->failures++)
		diag_fail(w->d, EXIT_SYSCALL, err,
			  "unable to remove '%s' in the scratch directory%s",
			  name, why);
	if (st)
		push(&w->skip, &w->nskip, &w->skipcap,
		     (struct ident){ st->st_dev, st->st_ino });
}

/* Open the directory name inside dirfd without following a symlink and
 * without crossing a mount point. */
static int open_below(int dirfd, const char *name)
{
	static bool no_openat2;
	struct open_how how = {
		.flags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC,
		.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS |
			   RESOLVE_NO_XDEV | RESOLVE_BENEATH,
	};
	int fd;

	if (!no_openat2) {
		fd = (int)syscall(SYS_openat2, dirfd, name, &how, sizeof(how));
		if (fd >= 0 || (errno != ENOSYS && errno != E2BIG))
			return fd;
		no_openat2 = true;
	}
	/* Before Linux 5.6: a bind mount from the same filesystem is not
	 * seen here, only other filesystems (st_dev, checked by the
	 * caller) and mount points that rmdir refused with EBUSY. */
	return openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
				   O_CLOEXEC);
}

/* A directory the sandbox left without read or search permission (mode
 * 0) cannot be opened to be emptied. It is the caller's: give the bits
 * back through an O_PATH fd (which needs none, and is checked to be the
 * entry scanned, never a symlink), then open it again. */
static int open_below_chmod(int dirfd, const char *name,
			    const struct stat *st)
{
	char proc[64];
	struct stat pst;
	int pfd = openat(dirfd, name,
			 O_PATH | O_NOFOLLOW | O_DIRECTORY | O_CLOEXEC), r;

	if (pfd < 0)
		return -1;
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", pfd);
	r = fstat(pfd, &pst) < 0 || pst.st_dev != st->st_dev ||
			    pst.st_ino != st->st_ino ?
		    -1 :
		    chmod(proc, 0700);
	close(pfd);
	if (r < 0) {
		errno = EACCES;
		return -1;
	}
	return open_below(dirfd, name);
}

/* Scan cur once. Returns an fd of a subdirectory to descend into, -1
 * when cur is done (left says whether anything stays in it), -2 on an
 * error that stops the walk. */
static int scan(struct walk *w, int cur, bool *left)
{
	struct dirent *e;
	struct stat st, cst;
	int rfd, child = -1;
	DIR *dp;

	*left = false;
	rfd = openat(cur, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	dp = rfd >= 0 ? fdopendir(rfd) : NULL;
	if (!dp) {
		if (rfd >= 0)
			close(rfd);
		leave(w, NULL, errno, ".", ": cannot list a directory");
		return -2;
	}
	while ((e = readdir(dp))) {
		const char *n = e->d_name;

		if (!strcmp(n, ".") || !strcmp(n, ".."))
			continue;
		if (fstatat(cur, n, &st, AT_SYMLINK_NOFOLLOW) < 0) {
			if (errno != ENOENT) {
				leave(w, NULL, errno, n, "");
				*left = true;
			}
			continue;
		}
		if (skipped(w, &st)) {
			*left = true;
			continue;
		}
		if (!S_ISDIR(st.st_mode)) {
			/* Symlinks included: the link goes, never its
			 * target. */
			if (unlinkat(cur, n, 0) < 0 && errno != ENOENT) {
				leave(w, &st, errno, n, "");
				*left = true;
			}
			continue;
		}
		if (st.st_dev != w->root_dev) {
			leave(w, &st, 0, n, ": it is a mount point");
			*left = true;
			continue;
		}
		if (unlinkat(cur, n, AT_REMOVEDIR) == 0 || errno == ENOENT)
			continue;
		if (errno != ENOTEMPTY && errno != EEXIST) {
			leave(w, &st, errno, n,
			      errno == EBUSY ? " (a mount point)" : "");
			*left = true;
			continue;
		}
		child = open_below(cur, n);
		if (child < 0 && errno == EACCES)
			child = open_below_chmod(cur, n, &st);
		if (child < 0) {
			leave(w, &st, errno, n,
			      errno == EXDEV ? ": it is a mount point" : "");
			*left = true;
			continue;
		}
		if (fstat(child, &cst) < 0 || cst.st_dev != st.st_dev ||
		    cst.st_ino != st.st_ino) {
			close(child);
			child = -1;
			leave(w, &st, 0, n, ": it changed while removed");
			*left = true;
			continue;
		}
		/* The sandbox may have taken its own write or search bit
		 * away; the files are the caller's, so give it back. */
		if ((cst.st_mode & 0700) != 0700)
			fchmod(child, 0700);
		break;
	}
	closedir(dp);
	if (child < 0)
		return -1;
	if (push(&w->stack, &w->depth, &w->cap,
		 (struct ident){ cst.st_dev, cst.st_ino }) < 0) {
		close(child);
		leave(w, NULL, ENOMEM, ".", "");
		return -2;
	}
	return child;
}

int rmtree_at(struct diag *d, int dirfd, const char *name)
{
	struct walk w = { .d = d };
	struct stat st;
	bool left;
	int cur, next;

	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return errno == ENOENT ? 0 :
			diag_fail(d, EXIT_SYSCALL, errno,
				  "unable to inspect %s", name);
	if (!S_ISDIR(st.st_mode)) {
		if (unlinkat(dirfd, name, 0) < 0 && errno != ENOENT)
			return diag_fail(d, EXIT_SYSCALL, errno,
					 "unable to remove %s", name);
		return 0;
	}
	/* The common case, a sandbox that left nothing: one rmdir, which
	 * follows no symlink and refuses a mount point (EBUSY). Anything
	 * else (ENOTEMPTY, EBUSY, EACCES, ...) takes the walk below. */
	if (unlinkat(dirfd, name, AT_REMOVEDIR) == 0)
		return 0;
	cur = open_below(dirfd, name);
	if (cur < 0)
		return diag_fail(d, EXIT_SYSCALL, errno, "unable to open %s",
				 name);
	if (fstat(cur, &st) < 0 ||
	    push(&w.stack, &w.depth, &w.cap,
		 (struct ident){ st.st_dev, st.st_ino }) < 0) {
		close(cur);
		return diag_fail(d, EXIT_SYSCALL, errno, "unable to walk %s",
				 name);
	}
	w.root_dev = st.st_dev;
	if ((st.st_mode & 0700) != 0700)
		fchmod(cur, 0700);
	for (;;) {
		next = scan(&w, cur, &left);
		if (next >= 0) {
			close(cur);
			cur = next;
			continue;
		}
		if (next == -2 || w.depth == 1)
			break;
		/* cur is done: climb back, and make sure ".." is the
		 * directory we came down from. */
		next = openat(cur, "..", O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
					 O_CLOEXEC);
		if (next < 0 || fstat(next, &st) < 0 ||
		    st.st_dev != w.stack[w.depth - 2].dev ||
		    st.st_ino != w.stack[w.depth - 2].ino) {
			if (next >= 0)
				close(next);
			leave(&w, NULL, 0, "..",
			      ": the tree was moved while it was removed");
			break;
		}
		if (left)
			push(&w.skip, &w.nskip, &w.skipcap, w.stack[w.depth - 1]);
		w.depth--;
		close(cur);
		cur = next;
	}
	close(cur);
	free(w.stack);
	free(w.skip);
	if (!w.failures && unlinkat(dirfd, name, AT_REMOVEDIR) < 0 &&
	    errno != ENOENT)
		return diag_fail(d, EXIT_SYSCALL, errno,
				 "unable to remove %s", name);
	return w.failures ? -1 : 0;
}
