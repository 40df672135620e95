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

#define HEXLEN 16

void scratch_init(struct scratch *s)
{
	memset(s, 0, sizeof(*s));
	s->parent_fd = s->lock_fd = -1;
}

/* Why st is not a safe directory to hold (or be) a scratch dir, or NULL.
 * level 0: a directory on the way (only its mode is checked: inside a
 * user namespace "/" and "/tmp" belong to an unmapped owner); 1: the
 * parent, the caller's or root's; 2: the scratch dir itself (adopt): the
 * caller's own, and nobody else may write there, even with the sticky
 * bit. */
static const char *unsafe_dir(const struct stat *st, int level)
{
	uid_t me = geteuid();
	bool strict = level == 2;

	if (!S_ISDIR(st->st_mode))
		return "is not a directory";
	if (strict && st->st_uid != me)
		return "is not owned by the caller";
	if (level && st->st_uid != me && st->st_uid != 0)
		return "is owned by another user";
	if ((st->st_mode & (S_IWGRP | S_IWOTH)) &&
	    (strict || !(st->st_mode & S_ISVTX)))
		return "is writable by group or others (and not sticky)";
	return NULL;
}

/* Resolve path once, then walk it again from "/" with O_NOFOLLOW,
 * checking every directory on the way: a directory that others can write
 * (without the sticky bit) would let them swap what follows, redirecting
 * the scratch dir or what is removed.
 * Returns an O_PATH fd of the last directory, resolved path in out. */
static int open_checked(struct diag *d, const char *what, const char *path,
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
	fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
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

static int random_name(struct diag *d, char *name, size_t len)
{
	unsigned char r[HEXLEN / 2];
	ssize_t n;

	do
		n = syscall(SYS_getrandom, r, sizeof(r), 0);
	while (n < 0 && errno == EINTR);
	if (n != (ssize_t)sizeof(r))
		return diag_fail(d, EXIT_SYSCALL, n < 0 ? errno : EIO,
				 "unable to get random bytes");
	snprintf(name, len, SCRATCH_PREFIX);
	for (size_t i = 0; i < sizeof(r); i++)
		snprintf(name + strlen(name), len - strlen(name), "%02x",
			 r[i]);
	return 0;
}

/* The lock file appears in the parent already locked: made anonymous
 * with O_TMPFILE, flock'ed, then linked in. Where O_TMPFILE or /proc is
 * missing: create, lock, and check that the name is still ours (a sweep
 * may have taken it for an orphan and unlinked it in between). */
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

int scratch_create(struct diag *d, struct scratch *s, const char *parent)
{
	char resolved[PATH_MAX], lock[64];
	struct stat st;
	int dfd;

	s->parent_fd = open_checked(d, "scratch parent", parent, false,
				    resolved);
	if (s->parent_fd < 0)
		return -1;
	for (int tries = 0;; tries++) {
		if (random_name(d, s->name, sizeof(s->name)) < 0)
			return -1;
		snprintf(lock, sizeof(lock), "%s" SCRATCH_LOCK_SUFFIX,
			 s->name);
		s->lock_fd = make_lock(s->parent_fd, lock);
		if (s->lock_fd >= 0) {
			if (mkdirat(s->parent_fd, s->name, 0700) == 0)
				break;
			close(s->lock_fd);
			s->lock_fd = -1;
			if (errno != EEXIST) {
				int e = errno;

				unlinkat(s->parent_fd, lock, 0);
				return diag_fail(d, EXIT_SYSCALL, e,
						 "unable to create %s/%s",
						 resolved, s->name);
			}
		} else if (errno != EEXIST && errno != EAGAIN) {
			return diag_fail(d, EXIT_SYSCALL, errno,
					 "unable to create the lock file "
					 "%s/%s", resolved, lock);
		}
		if (tries > 8)
			return diag_fail(d, EXIT_SYSCALL, EEXIST,
					 "unable to create a scratch directory "
					 "in %s", resolved);
	}
	s->mode = SCRATCH_CREATE;
	if (snprintf(s->path, sizeof(s->path), "%s%s%s", resolved,
		     strcmp(resolved, "/") ? "/" : "", s->name) >=
	    (int)sizeof(s->path))
		return diag_fail(d, EXIT_USAGE, ENAMETOOLONG,
				 "unable to use scratch parent %s", resolved);
	/* Exactly 0700 whatever the umask; and check what we got. */
	dfd = openat(s->parent_fd, s->name,
		     O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd < 0 || fchmod(dfd, 0700) < 0 || fstat(dfd, &st) < 0 ||
	    st.st_uid != geteuid()) {
		int e = dfd < 0 ? errno : errno ? errno : EPERM;

		if (dfd >= 0)
			close(dfd);
		return diag_fail(d, EXIT_SYSCALL, e, "unable to secure %s",
				 s->path);
	}
	close(dfd);
	return 0;
}

int scratch_adopt(struct diag *d, struct scratch *s, const char *dir)
{
	int fd = open_checked(d, "scratch directory", dir, true, s->path);

	if (fd < 0)
		return -1;
	close(fd);
	s->mode = SCRATCH_ADOPT;
	return 0;
}

int scratch_remove(struct diag *d, struct scratch *s)
{
	char lock[64];
	int r = 0;

	if (s->mode == SCRATCH_CREATE) {
		r = rmtree_at(d, s->parent_fd, s->name);
		/* Keep the lock file when something is left: a sweep (in
		 * a mount namespace where nothing is mounted there) can
		 * finish the job once the lock is free. */
		snprintf(lock, sizeof(lock), "%s" SCRATCH_LOCK_SUFFIX,
			 s->name);
		if (r == 0)
			unlinkat(s->parent_fd, lock, 0);
	}
	if (s->lock_fd >= 0)
		close(s->lock_fd);
	if (s->parent_fd >= 0)
		close(s->parent_fd);
	s->lock_fd = s->parent_fd = -1;
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

/* Open and try to take the lock of name; -1 if it is held, missing or
 * not ours. */
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

static int sweep_one(struct diag *d, int pfd, const char *resolved,
		     const char *name, FILE *out)
{
	char lock[64], dir[64];
	struct stat st;
	int lfd, r = 0;

	if (scratch_name(name, "")) {
		if (fstatat(pfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
		    !S_ISDIR(st.st_mode) || st.st_uid != geteuid())
			return 0;
		snprintf(lock, sizeof(lock), "%s" SCRATCH_LOCK_SUFFIX, name);
		lfd = try_lock(pfd, lock);
		if (lfd < 0)
			return 0;	/* live, or no lock: not ours to judge */
		r = rmtree_at(d, pfd, name);
		if (r == 0) {
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
