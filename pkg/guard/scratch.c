/* Scratch directories: made private and unpredictable, locked for the
 * guard's lifetime, removed without ever leaving the directory through a
 * symlink or a mount point, swept when their guard died. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/openat2.h>

#include "guard/guard.h"
#include "util/file.h"

#define HEXLEN 16

void scratch_init(struct scratch *s)
{
	/* Field by field: a memset would touch the whole PATH_MAX buffer,
	 * one more page of the guard's stack for as long as it lives. */
	s->mode = SCRATCH_NONE;
	s->path[0] = s->name[0] = '\0';
	s->parent_fd = s->lock_fd = -1;
	s->lock_file = false;
}

/* Is uid the kernel's stand-in for an owner this user namespace does not
 * map (overflowuid), while we run in a user namespace other than the
 * host's? There "/" and "/tmp" show as owned by it, and who really owns
 * them cannot be known from here (the guard of a nested run, or one
 * started under `unshare -Ur`). Read only when such an owner is met. */
static bool unmapped_owner(uid_t uid)
{
	char buf[64];
	unsigned long inside, outside, count;

	if (file_read_at(AT_FDCWD, "/proc/sys/kernel/overflowuid", buf,
			 sizeof(buf)) <= 0 || strtoul(buf, NULL, 10) != uid)
		return false;
	/* The host's namespace maps every id to itself, all 2^32 - 1. */
	if (file_read_at(AT_FDCWD, "/proc/self/uid_map", buf, sizeof(buf)) <= 0 ||
	    sscanf(buf, "%lu %lu %lu", &inside, &outside, &count) != 3)
		return false;
	return !(inside == 0 && outside == 0 && count == 4294967295UL);
}

/* Why st is not a safe directory to hold (or be) a scratch dir, or NULL.
 * level 0: a directory on the way; 1: the parent; both the caller's or
 * root's, as the trust check of a policy wants (pkg/trust): the owner of
 * a directory above can always rename what lies below it, so another
 * user's directory anywhere on the way could swap the scratch dir between
 * the guard's mkdir and pysbx-mount's bind (inside a user namespace an
 * owner it does not map is let through on the way: unknowable there).
 * 2: the scratch dir itself
 * (adopt): the caller's own, and nobody else may write there, even with
 * the sticky bit. */
static const char *unsafe_dir(const struct stat *st, int level)
{
	uid_t me = geteuid();
	bool strict = level == 2;

	if (!S_ISDIR(st->st_mode))
		return "is not a directory";
	if (strict && st->st_uid != me)
		return "is not owned by the caller";
	if (st->st_uid != me && st->st_uid != 0 &&
	    (level || !unmapped_owner(st->st_uid)))
		return "is owned by another user";
	if ((st->st_mode & (S_IWGRP | S_IWOTH)) &&
	    (strict || !(st->st_mode & S_ISVTX)))
		return "is writable by group or others (and not sticky)";
	return NULL;
}

/* Is path absolute and already in realpath(3)'s form but for symlinks:
 * no empty, "." or ".." component, no trailing slash? */
static bool canonical(const char *path)
{
	const char *s, *e;

	if (path[0] != '/')
		return false;
	if (!path[1])
		return true;
	for (s = path + 1;; s = e + 1) {
		e = strchrnul(s, '/');
		if (e == s || (e - s == 1 && s[0] == '.') ||
		    (e - s == 2 && s[0] == '.' && s[1] == '.'))
			return false;
		if (!*e)
			return true;
	}
}

/* open_checked's usual case: a canonical path walked from "/" with
 * O_NOFOLLOW, every directory safe. Then it needs no realpath(3): a walk
 * that crossed no symlink resolved it. Any doubt (a symlink, a missing or
 * unsafe directory) returns -1 without a word, and open_checked takes
 * the long way, which names the problem. */
static int open_plain(const char *path, bool strict)
{
	char name[NAME_MAX + 1];
	const char *s = path + 1, *e;
	struct stat st;
	int fd, nfd;

	if (!canonical(path) || strlen(path) >= PATH_MAX)
		return -1;
	fd = openat(AT_FDCWD, "/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	for (;;) {
		if (fd < 0 || fstat(fd, &st) < 0 ||
		    unsafe_dir(&st, *s ? 0 : strict ? 2 : 1))
			break;
		if (!*s)
			return fd;
		e = strchrnul(s, '/');
		if ((size_t)(e - s) > NAME_MAX)
			break;
		memcpy(name, s, (size_t)(e - s));
		name[e - s] = '\0';
		nfd = openat(fd, name, O_PATH | O_DIRECTORY | O_NOFOLLOW |
				       O_CLOEXEC);
		close(fd);
		fd = nfd;
		s = *e ? e + 1 : e;
	}
	if (fd >= 0)
		close(fd);
	return -1;
}

/* open_checked the long way: realpath(3), then the walk, naming what
 * is wrong. Kept apart so that its buffers (and realpath's 8 KiB) weigh
 * on the guard's stack only when it is needed. */
static __attribute__((noinline)) int open_resolved(struct diag *d,
						    const char *what,
						    const char *path,
						    bool strict, char *out)
{
	struct stat st;
	const char *why;
	char *p, *comp, *save = NULL, walk[PATH_MAX], cur[PATH_MAX] = "";
	int fd, nfd;

	if (!realpath(path, out))
		return diag_fail(d, errno == ENOENT || errno == ENOTDIR ?
				 EXIT_USAGE : EXIT_SYSCALL, errno,
				 "unable to resolve %s %s", what, path);
	snprintf(walk, sizeof(walk), "%s", out);
	fd = openat(AT_FDCWD, "/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return diag_fail(d, EXIT_SYSCALL, errno, "unable to open /");
	for (p = walk;; p = NULL) {
		comp = strtok_r(p, "/", &save);
		if (fstat(fd, &st) < 0) {
			close(fd);
			return diag_fail(d, EXIT_SYSCALL, errno,
					 "unable to inspect %s", out);
		}
		why = unsafe_dir(&st, comp ? 0 : strict ? 2 : 1);
		if (why) {
			close(fd);
			diag_fail(d, EXIT_USAGE, 0,
				  "unable to use %s %s: %s %s", what, path,
				  *cur ? cur : "/", why);
			diag_hint(d, "use a directory of your own (mode "
				  "0700) or a sticky one such as /tmp, on a "
				  "path that only you or root can change");
			return -1;
		}
		if (!comp)
			return fd;
		snprintf(cur + strlen(cur), sizeof(cur) - strlen(cur), "/%s",
			 comp);
		nfd = openat(fd, comp, O_PATH | O_DIRECTORY | O_NOFOLLOW |
				       O_CLOEXEC);
		close(fd);
		if (nfd < 0)
			return diag_fail(d, EXIT_SYSCALL, errno,
					 "unable to open %s %s (changed while "
					 "it was checked?)", what, out);
		fd = nfd;
	}
}

/* Resolve path once, then walk it again from "/" with O_NOFOLLOW,
 * checking every directory on the way: a directory that others can write
 * (without the sticky bit) would let them swap what follows, redirecting
 * the scratch dir or what is removed.
 * Returns an O_PATH fd of the last directory, resolved path in out. */
static int open_checked(struct diag *d, const char *what, const char *path,
			bool strict, char *out)
{
	int fd = open_plain(path, strict);

	if (fd >= 0) {
		snprintf(out, PATH_MAX, "%s", path);
		return fd;
	}
	return open_resolved(d, what, path, strict, out);
}

static int random_name(struct diag *d, char *name, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	unsigned char r[HEXLEN / 2];
	size_t pl = strlen(SCRATCH_PREFIX);
	ssize_t n;

	if (len < pl + HEXLEN + 1)
		return diag_fail(d, EXIT_SYSCALL, ENAMETOOLONG,
				 "unable to name a scratch directory");
	do
		n = syscall(SYS_getrandom, r, sizeof(r), 0);
	while (n < 0 && errno == EINTR);
	if (n != (ssize_t)sizeof(r))
		return diag_fail(d, EXIT_SYSCALL, n < 0 ? errno : EIO,
				 "unable to get random bytes");
	memcpy(name, SCRATCH_PREFIX, pl);
	for (size_t i = 0; i < sizeof(r); i++) {
		name[pl + 2 * i] = hex[r[i] >> 4];
		name[pl + 2 * i + 1] = hex[r[i] & 15];
	}
	name[pl + HEXLEN] = '\0';
	return 0;
}

/* The legacy lock file PARENT/NAME.lock, for a filesystem that cannot
 * flock a directory (NFS emulates flock with POSIX locks, which need a
 * file open for writing). It appears in the parent already locked: made
 * anonymous with O_TMPFILE, flock'ed, then linked in. Where O_TMPFILE or
 * /proc is missing: create, lock, and check that the name is still ours
 * (a sweep may have taken it for an orphan and unlinked it in between).
 * A sweep that finds the directory first tries to flock the directory,
 * fails the same way, and leaves it alone. */
static int make_lock(int pfd, const char *lock)
{
	char proc[64];
	struct stat a, b;
	int fd, e;

	fd = openat(pfd, ".", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd >= 0) {
		snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
		if (flock(fd, LOCK_EX | LOCK_NB) == 0 &&
		    linkat(AT_FDCWD, proc, pfd, lock, AT_SYMLINK_FOLLOW) == 0)
			return fd;
		e = errno;
		close(fd);
		if (e == EEXIST)
			return errno = e, -1;
	}
	fd = openat(pfd, lock, O_CREAT | O_EXCL | O_RDWR | O_NOFOLLOW |
			       O_CLOEXEC, 0600);
	if (fd < 0)
		return -1;
	if (flock(fd, LOCK_EX | LOCK_NB) < 0 || fstat(fd, &a) < 0 ||
	    fstatat(pfd, lock, &b, AT_SYMLINK_NOFOLLOW) < 0 ||
	    a.st_ino != b.st_ino || a.st_dev != b.st_dev) {
		close(fd);
		return errno = EAGAIN, -1;
	}
	return fd;
}

static bool same_inode(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

/* The directory fd is the one we made, still under its name, ours, and
 * exactly 0700 whatever the umask. 0, 1: the name no longer leads to it
 * (a sweep removed it before our lock), -1 with errno. */
static int check_new_dir(struct scratch *s, int fd)
{
	struct stat st, at;

	if (fstat(fd, &st) < 0)
		return -1;
	s->dev = st.st_dev;
	s->ino = st.st_ino;
	if (fstatat(s->parent_fd, s->name, &at, AT_SYMLINK_NOFOLLOW) < 0)
		return errno == ENOENT ? 1 : -1;
	if (!same_inode(&st, &at))
		return 1;
	if (st.st_uid != geteuid())
		return errno = EPERM, -1;
	if ((st.st_mode & 07777) != 0700 && fchmod(fd, 0700) < 0)
		return -1;
	return 0;
}

/* Lock the directory s->name that we just made: the directory is its
 * own lock (flock of an fd of it, held until the guard exits). A sweep
 * may see the directory before our flock: if it took the lock first, our
 * flock fails; if it already removed the directory, the name no longer
 * leads to the inode we locked. Either way the name is given up, and 1
 * says to try another. Once our flock holds and the name still leads to
 * it, no sweep can take it. Where a directory cannot be flock'ed, the
 * lock file NAME.lock is made instead (a sweep's flock of the directory
 * fails there too, so it leaves the directory alone until the lock file
 * says more). 0, 1, or -1 with errno. */
static int lock_new_dir(struct scratch *s)
{
	char lock[64];
	int fd, r;

	fd = openat(s->parent_fd, s->name,
		    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? 1 : -1;
	snprintf(lock, sizeof(lock), "%s" SCRATCH_LOCK_SUFFIX, s->name);
	if (flock(fd, LOCK_EX | LOCK_NB) == 0) {
		s->lock_fd = fd;
	} else if (errno == EWOULDBLOCK || errno == EINTR) {
		close(fd);
		return 1;
	} else {
		s->lock_fd = make_lock(s->parent_fd, lock);
		if (s->lock_fd < 0) {
			r = errno == EEXIST || errno == EAGAIN ? 1 : -1;
			close(fd);
			return r;
		}
		s->lock_file = true;
	}
	r = check_new_dir(s, fd);
	if (fd != s->lock_fd)
		close(fd);
	if (r) {
		int e = errno;

		if (s->lock_file)
			unlinkat(s->parent_fd, lock, 0);
		close(s->lock_fd);
		s->lock_fd = -1;
		s->lock_file = false;
		errno = e;
	}
	return r;
}

int scratch_create(struct diag *d, struct scratch *s, const char *parent)
{
	char resolved[PATH_MAX];
	int r = 1;

	s->parent_fd = open_checked(d, "scratch parent", parent, false,
				    resolved);
	if (s->parent_fd < 0)
		return -1;
	for (int tries = 0; r > 0 && tries < 10; tries++) {
		if (random_name(d, s->name, sizeof(s->name)) < 0)
			return -1;
		if (mkdirat(s->parent_fd, s->name, 0700) < 0) {
			if (errno != EEXIST)
				return diag_fail(d, EXIT_SYSCALL, errno,
						 "unable to create %s/%s",
						 resolved, s->name);
			continue;
		}
		r = lock_new_dir(s);
	}
	if (r < 0) {
		int e = errno;

		/* Only an empty directory goes; a sweep takes the rest. */
		unlinkat(s->parent_fd, s->name, AT_REMOVEDIR);
		return diag_fail(d, EXIT_SYSCALL, e, "unable to secure %s%s%s",
				 resolved, strcmp(resolved, "/") ? "/" : "",
				 s->name);
	}
	if (r > 0)
		return diag_fail(d, EXIT_SYSCALL, EEXIST,
				 "unable to create a scratch directory in %s",
				 resolved);
	s->mode = SCRATCH_CREATE;
	if (snprintf(s->path, sizeof(s->path), "%s%s%s", resolved,
		     strcmp(resolved, "/") ? "/" : "", s->name) >=
	    (int)sizeof(s->path))
		return diag_fail(d, EXIT_USAGE, ENAMETOOLONG,
				 "unable to use scratch parent %s", resolved);
	return 0;
}

int scratch_adopt(struct diag *d, struct scratch *s, const char *dir)
{
	int fd = open_checked(d, "scratch directory", dir, true, s->path);
	struct stat st;

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0) {
		close(fd);
		return diag_fail(d, EXIT_SYSCALL, errno, "unable to inspect %s",
				 s->path);
	}
	s->dev = st.st_dev;
	s->ino = st.st_ino;
	/* A shared lock: runs that adopt the same directory coexist, and a
	 * sweep (LOCK_EX) never removes it while one runs. Best effort: an
	 * adopted directory needed no lock before. */
	s->lock_fd = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	close(fd);
	if (s->lock_fd >= 0 && flock(s->lock_fd, LOCK_SH | LOCK_NB) < 0 &&
	    errno == EWOULDBLOCK) {
		close(s->lock_fd);
		s->lock_fd = -1;
		return diag_fail(d, EXIT_SYSCALL, EWOULDBLOCK,
				 "unable to adopt %s: a --sweep is removing it",
				 s->path);
	}
	s->mode = SCRATCH_ADOPT;
	return 0;
}

/* Is the name no longer the directory we made? Then someone who can
 * write the parent moved ours away and may have put another there
 * (pysbx-mount refused to bind it): that one is not ours to empty. */
static int moved_away(struct diag *d, const struct scratch *s)
{
	struct stat st;

	if (fstatat(s->parent_fd, s->name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return 0;	/* gone: rmtree_at says nothing either */
	if (st.st_dev == s->dev && st.st_ino == s->ino)
		return 0;
	return diag_fail(d, EXIT_SYSCALL, 0, "unable to remove %s: it is no "
			 "longer the scratch directory made for this run "
			 "(moved or replaced since); left as it is", s->path);
}

int scratch_remove(struct diag *d, struct scratch *s)
{
	char lock[64];
	int r = 0;

	if (s->mode == SCRATCH_CREATE) {
		r = moved_away(d, s);
		if (r == 0)
			r = rmtree_at(d, s->parent_fd, s->name);
		/* Keep the lock file when something is left: a sweep (in
		 * a mount namespace where nothing is mounted there) can
		 * finish the job once the lock is free. */
		snprintf(lock, sizeof(lock), "%s" SCRATCH_LOCK_SUFFIX,
			 s->name);
		if (r == 0 && s->lock_file)
			unlinkat(s->parent_fd, lock, 0);
	}
	if (s->lock_fd >= 0)
		close(s->lock_fd);
	if (s->parent_fd >= 0)
		close(s->parent_fd);
	s->lock_fd = s->parent_fd = -1;
	s->lock_file = false;
	s->mode = SCRATCH_NONE;
	return r;
}

/* Is name "pysbx-" + 16 lowercase hex digits, followed by suffix? */
static bool scratch_name(const char *name, const char *suffix)
{
	size_t pl = strlen(SCRATCH_PREFIX);

	if (strncmp(name, SCRATCH_PREFIX, pl))
		return false;
	for (size_t i = 0; i < HEXLEN; i++)
		if (!strchr("0123456789abcdef", name[pl + i]) ||
		    !name[pl + i])
			return false;
	return !strcmp(name + pl + HEXLEN, suffix);
}

/* Is there a lock file lock that a guard of ours made: a regular file
 * the caller owns? Anything else under that name (planted by another
 * user in a sticky parent such as /tmp, or a symlink) is no guard's
 * lock: the directory's own flock decides, so nobody else can keep a
 * sweep from removing the caller's stale directories. When lstat fails
 * otherwise than ENOENT, the lock is taken to be there (the directory
 * is left alone). */
static bool lock_is_ours(int pfd, const char *lock, struct stat *st)
{
	if (fstatat(pfd, lock, st, AT_SYMLINK_NOFOLLOW) < 0)
		return errno != ENOENT;
	return S_ISREG(st->st_mode) && st->st_uid == geteuid();
}

/* Open and try to take the lock of the lock file name; -1 if it is
 * held, missing or not ours. */
static int try_lock(int pfd, const char *lock)
{
	struct stat st;
	int fd = openat(pfd, lock, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
				   O_CLOEXEC);

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    st.st_uid != geteuid() || flock(fd, LOCK_EX | LOCK_NB) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* A directory the sandbox left without read permission (chmod 0 of its
 * own /scratch) cannot be opened to try its lock. It is the caller's:
 * give the owner bits back through an O_PATH fd, checked to be the
 * inode that was scanned (this undoes only what a sandbox did to its
 * own top directory, live or not). */
static int reopen_chmod(int pfd, const char *name, const struct stat *st)
{
	char proc[64];
	struct stat pst;
	int fd = openat(pfd, name, O_PATH | O_NOFOLLOW | O_DIRECTORY |
				   O_CLOEXEC), r;

	if (fd < 0)
		return -1;
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	r = fstat(fd, &pst) == 0 && same_inode(&pst, st) &&
	    chmod(proc, (st->st_mode & 07777) | 0700) == 0;
	close(fd);
	if (!r)
		return -1;
	return openat(pfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
				 O_NONBLOCK | O_CLOEXEC);
}

/* Take the lock of the directory name itself (st: what the scan saw);
 * -1 if it is held, or cannot be tried, or the name changed. */
static int try_lock_dir(int pfd, const char *name, const struct stat *st)
{
	struct stat fst;
	int fd = openat(pfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
				   O_NONBLOCK | O_CLOEXEC);

	if (fd < 0 && errno == EACCES)
		fd = reopen_chmod(pfd, name, st);
	if (fd < 0)
		return -1;
	if (fstat(fd, &fst) < 0 || !same_inode(&fst, st) ||
	    flock(fd, LOCK_EX | LOCK_NB) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

static int sweep_one(struct diag *d, int pfd, const char *resolved,
		     const char *name, FILE *out)
{
	char lock[64], dir[64];
	struct stat st, lst;
	bool lock_file;
	int lfd, r = 0;

	if (scratch_name(name, "")) {
		if (fstatat(pfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
		    !S_ISDIR(st.st_mode) || st.st_uid != geteuid())
			return 0;
		/* When NAME.lock exists, it is the lock (an older guard,
		 * or a filesystem that cannot flock a directory): such a
		 * guard does not hold the directory's own lock. */
		snprintf(lock, sizeof(lock), "%s" SCRATCH_LOCK_SUFFIX, name);
		lock_file = lock_is_ours(pfd, lock, &lst);
		lfd = lock_file ? try_lock(pfd, lock) :
				  try_lock_dir(pfd, name, &st);
		if (lfd < 0)
			return 0;	/* live, or not ours to judge */
		r = rmtree_at(d, pfd, name);
		if (r == 0) {
			if (lock_file)
				unlinkat(pfd, lock, 0);
			fprintf(out, "%s/%s\n", resolved, name);
		}
		close(lfd);
		return r < 0 ? -1 : 1;
	}
	if (!scratch_name(name, SCRATCH_LOCK_SUFFIX))
		return 0;
	/* A lock whose directory is gone: its guard died between the two
	 * removals. */
	snprintf(dir, sizeof(dir), "%.*s", (int)(strlen(name) -
			strlen(SCRATCH_LOCK_SUFFIX)), name);
	if (fstatat(pfd, dir, &st, AT_SYMLINK_NOFOLLOW) == 0 ||
	    errno != ENOENT)
		return 0;
	lfd = try_lock(pfd, name);
	if (lfd < 0)
		return 0;
	if (fstatat(pfd, dir, &st, AT_SYMLINK_NOFOLLOW) < 0 &&
	    errno == ENOENT)
		unlinkat(pfd, name, 0);
	close(lfd);
	return 0;
}

int scratch_sweep(struct diag *d, const char *parent, FILE *out)
{
	char resolved[PATH_MAX];
	struct dirent *e;
	DIR *dp;
	int pfd, rfd, n = 0, failed = 0, r;
	struct diag first = DIAG_INIT(d->prog, d->stage);

	pfd = open_checked(d, "scratch parent", parent, false, resolved);
	if (pfd < 0)
		return -1;
	rfd = openat(pfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	dp = rfd >= 0 ? fdopendir(rfd) : NULL;
	if (!dp) {
		int err = errno;

		if (rfd >= 0)
			close(rfd);
		close(pfd);
		return diag_fail(d, EXIT_SYSCALL, err, "unable to read %s",
				 resolved);
	}
	while ((e = readdir(dp))) {
		r = sweep_one(d, pfd, resolved, e->d_name, out);
		if (r > 0)
			n++;
		if (r < 0 && !failed++)
			first = *d;
	}
	closedir(dp);
	close(pfd);
	if (failed) {
		*d = first;
		return -1;
	}
	return n;
}
