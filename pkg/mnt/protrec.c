/* Protect records: what the check after the run needs, kept where the
 * sandbox cannot reach while the run lasts, so that a run whose pid 1 was
 * SIGKILLed from outside (a tree kill, a cgroup kill) is still checked,
 * by the next start of a sandbox that protects a directory (docs/MOUNT.md
 * "protect").
 *
 * The state directory (state_where) holds one file per protect directive
 * of each live run, made by its pid 1 before the target starts and
 * flock()ed by it until its check is done: a record whose lock can be
 * taken belongs to a run whose pid 1 is gone without its check. The
 * directory must be the caller's, 0700, with nobody else able to replace
 * a directory above it, and lie below no source the plan binds
 * read-write: the sandbox can then neither forge, delete nor plant a
 * record. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mnt/internal.h"

#define REC_PREFIX "run-"
#define REC_MAGIC "pysbx-protect-2 "	/* how every record's key begins */
#define REC_MAX (64 << 20)	/* a record read back: SEEN_MAX paths */
#define RECS_MAX 64		/* records one run writes (protect lines) */

static int state_fd = -1;	/* opened on the host before the clone */
static char state_path[PATH_MAX];
static struct {
	int fd;
	char name[64];
} recs[RECS_MAX];
static size_t nrecs;

static const char *env_of(char **envp, const char *name)
{
	size_t n = strlen(name);

	for (; envp && *envp; envp++)
		if (!strncmp(*envp, name, n) && (*envp)[n] == '=')
			return *envp + n + 1;
	return NULL;
}

/* Where the records live: PYSBX_STATE_DIR or $XDG_STATE_HOME/pysbx
 * when set (absolute), else .local/state/pysbx in the first home we can
 * write (the password database's first: HOME may be /tmp for agent
 * frameworks and services, where another user could make .local; then
 * $HOME), else /tmp/pysbx-state-UID (a service without a home; lost at
 * reboot). */
static int state_where(char **envp, char *out, size_t len)
{
	const char *v = env_of(envp, "PYSBX_STATE_DIR");
	struct passwd *pw = getpwuid(getuid());
	const char *home[2] = { pw ? pw->pw_dir : NULL,
				env_of(envp, "HOME") };

	if (v && v[0] == '/')
		return snprintf(out, len, "%s", v) < (int)len ? 0 : -1;
	if ((v = env_of(envp, "XDG_STATE_HOME")) && v[0] == '/')
		return snprintf(out, len, "%s/pysbx", v) < (int)len ? 0 : -1;
	for (size_t i = 0; i < 2; i++)
		if (home[i] && home[i][0] == '/' && strcmp(home[i], "/") &&
		    access(home[i], W_OK) == 0)
			return snprintf(out, len, "%s/.local/state/pysbx",
					home[i]) < (int)len ? 0 : -1;
	return snprintf(out, len, "/tmp/pysbx-state-%u", (unsigned)getuid()) <
			       (int)len ? 0 : -1;
}

/* mkdir -p, the directories made 0700 (as XDG wants). */
static int make_dirs(const char *path)
{
	char p[PATH_MAX];

	snprintf(p, sizeof(p), "%s", path);
	for (char *s = p + 1;; s++) {
		if (*s && *s != '/')
			continue;
		char c = *s;

		*s = '\0';
		if (mkdir(p, 0700) < 0 && errno != EEXIST)
			return -1;
		if (!(*s = c))
			return 0;
	}
}

/* Why the resolved state directory real cannot hold records, or NULL:
 * it must be the caller's and 0700, and every directory above it root's
 * or the caller's and not writable by others (unless sticky), as a
 * policy's (pkg/trust). */
static const char *unsafe(const char *real, const struct stat *st)
{
	char dir[PATH_MAX], *s;
	struct stat up;

	if (!S_ISDIR(st->st_mode) || st->st_uid != getuid())
		return "is not a directory of the caller's";
	if (st->st_mode & 077)
		return "can be read or written by others (chmod 700 it)";
	snprintf(dir, sizeof(dir), "%s", real);
	while ((s = strrchr(dir, '/'))) {
		s[s == dir] = '\0';
		if (stat(dir, &up) < 0)
			return "has a directory above it that cannot be read";
		if ((up.st_uid && up.st_uid != getuid()) ||
		    ((up.st_mode & (S_IWGRP | S_IWOTH)) &&
		     !(up.st_mode & S_ISVTX)))
			return "lies in a directory another user can replace "
			       "it in";
		if (s == dir)
			break;
	}
	return NULL;
}

/* A source bound read-write at or above real (by name, or by the device
 * and inode of a directory on the way): the sandbox could write records.
 * Its index, or -1. */
static long bound_rw(const struct plan *p, const char *real)
{
	for (size_t i = 0; i < p->nfs; i++) {
		const struct fs_op *f = &p->fs[i];
		char src[PATH_MAX], dir[PATH_MAX], *s;
		struct stat sst, st;
		size_t n;

		if ((f->kind != FS_BIND && f->kind != FS_DEV_BIND) ||
		    !realpath(f->src, src) || stat(src, &sst) < 0)
			continue;
		n = strlen(src);
		if (!strcmp(src, "/") ||
		    (!strncmp(real, src, n) && (!real[n] || real[n] == '/')))
			return (long)i;
		snprintf(dir, sizeof(dir), "%s", real);
		for (;;) {
			if (stat(dir, &st) == 0 && st.st_dev == sst.st_dev &&
			    st.st_ino == sst.st_ino)
				return (long)i;
			if (!(s = strrchr(dir, '/')) || s == dir)
				break;
			*s = '\0';
		}
	}
	return -1;
}

static bool has_protect(const struct plan *p)
{
	for (size_t i = 0; i < p->nfs; i++)
		if (p->fs[i].kind == FS_PROTECT)
			return true;
	return false;
}

int mnt_protect_state(struct diag *d, const struct mnt_ctx *m)
{
	const struct plan *p = m->plan;
	char where[PATH_MAX], real[PATH_MAX];
	const char *why;
	struct stat st;
	long rw;

	if (!has_protect(p) || !(p->ns & NS_MOUNT))
		return 0;
	if (state_where(m->envp, where, sizeof(where)) < 0) {
		diag_fail(d, EXIT_SYSCALL, 0, "unable to find a state directory "
			  "for protect's records: no PYSBX_STATE_DIR, "
			  "XDG_STATE_HOME or home");
		diag_hint(d, "set PYSBX_STATE_DIR to a directory of your own "
			  "outside every directory the sandbox can write");
		return -1;
	}
	if (make_dirs(where) < 0 || !realpath(where, real)) {
		diag_fail(d, EXIT_SYSCALL, errno, "unable to make the state "
			  "directory %s", where);
		diag_hint(d, "set PYSBX_STATE_DIR to a directory of your own "
			  "outside every directory the sandbox can write");
		return -1;
	}
	state_fd = openat(AT_FDCWD, real, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (state_fd < 0 || fstat(state_fd, &st) < 0)
		return diag_fail(d, EXIT_SYSCALL, errno, "unable to open the "
				 "state directory %s", real);
	if ((why = unsafe(real, &st))) {
		diag_fail(d, EXIT_SYSCALL, 0, "refusing the state directory %s "
			  "for protect's records: it %s", real, why);
		diag_hint(d, "set PYSBX_STATE_DIR to a directory only you can "
			  "write (0700)");
		return -1;
	}
	if ((rw = bound_rw(p, real)) >= 0) {
		diag_fail(d, EXIT_SYSCALL, 0, "refusing the state directory %s "
			  "for protect's records: it lies under %s, which "
			  "%s:%u binds read-write into the sandbox, so the "
			  "sandbox could forge or delete them", real,
			  p->fs[rw].src, p->fs[rw].pos.file,
			  p->fs[rw].pos.line);
		diag_hint(d, "set PYSBX_STATE_DIR to a directory of your own "
			  "outside every directory the sandbox can write");
		return -1;
	}
	snprintf(state_path, sizeof(state_path), "%s", real);
	return 0;
}

int mnt_protect_record(struct diag *d, const char *key, const char *body,
		       size_t len)
{
	char tmp[80];
	size_t kl = strlen(key) + 1;
	unsigned long long rnd = 0;
	int fd;

	if (state_fd < 0 || nrecs >= RECS_MAX)
		return diag_fail(d, EXIT_SYSCALL, 0, "unable to record the "
				 "protected tree: no state directory");
	/* pid 1's own pid is 1 in every sandbox: a random name. */
	if (getrandom(&rnd, sizeof(rnd), 0) != sizeof(rnd))
		return diag_fail(d, EXIT_SYSCALL, errno, "unable to name a "
				 "record of the protected tree");
	snprintf(recs[nrecs].name, sizeof(recs[nrecs].name),
		 REC_PREFIX "%016llx-%zu", rnd, nrecs);
	snprintf(tmp, sizeof(tmp), ".%s", recs[nrecs].name);
	/* Locked before it has its name: a record is never seen unlocked
	 * while its run lives. */
	fd = openat(state_fd, tmp, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW |
			    O_CLOEXEC, 0600);
	if (fd < 0 || flock(fd, LOCK_EX | LOCK_NB) < 0 ||
	    write(fd, key, kl) != (ssize_t)kl ||
	    write(fd, body, len) != (ssize_t)len ||
	    renameat(state_fd, tmp, state_fd, recs[nrecs].name) < 0) {
		int e = errno;

		if (fd >= 0) {
			unlinkat(state_fd, tmp, 0);
			close(fd);
		}
		return diag_fail(d, EXIT_SYSCALL, e, "unable to write a record "
				 "of the protected tree in %s", state_path);
	}
	recs[nrecs].fd = fd;
	return (int)nrecs++;
}

int mnt_protect_retake(size_t i)
{
	struct stat a, b;
	int fd;

	/* recs[] is pid 1's, in the memory we share; its fds are not ours. */
	if (i >= nrecs || (fd = openat(state_fd, recs[i].name, O_RDONLY |
				       O_NOFOLLOW | O_CLOEXEC)) < 0)
		return -1;
	if (flock(fd, LOCK_EX | LOCK_NB) < 0 || fstat(fd, &a) < 0 ||
	    fstatat(state_fd, recs[i].name, &b, AT_SYMLINK_NOFOLLOW) < 0 ||
	    a.st_ino != b.st_ino || a.st_dev != b.st_dev) {
		close(fd);
		return -1;
	}
	return fd;
}

void mnt_protect_retaken(size_t i, int fd)
{
	unlinkat(state_fd, recs[i].name, 0);
	close(fd);
}

void mnt_protect_unrecord(void)
{
	for (size_t i = 0; i < nrecs; i++) {
		unlinkat(state_fd, recs[i].name, 0);
		close(recs[i].fd);
	}
	nrecs = 0;
}

/* Record fd read whole ("KEY\0BODY"), with *klen the key's length; NULL
 * if it is not one of ours. */
static char *read_rec(int fd, size_t *len, size_t *klen)
{
	size_t n = 0;
	struct stat st;
	char *buf;
	ssize_t r;

	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    st.st_uid != getuid() || st.st_nlink != 1 ||
	    st.st_size < (off_t)sizeof(REC_MAGIC) || st.st_size > REC_MAX ||
	    !(buf = malloc((size_t)st.st_size + 1)))
		return NULL;
	while (n < (size_t)st.st_size &&
	       (r = pread(fd, buf + n, (size_t)st.st_size - n, (off_t)n)) > 0)
		n += (size_t)r;
	buf[n] = '\0';
	if (n != (size_t)st.st_size || strncmp(buf, REC_MAGIC,
					       strlen(REC_MAGIC)) ||
	    (*klen = strnlen(buf, n)) >= n || *klen > 255) {
		free(buf);
		return NULL;
	}
	*len = n;
	return buf;
}

void mnt_protect_stale(int (*fn)(void *arg, const char *key,
				 const char *body, size_t len),
		       void *arg)
{
	struct dirent *de;
	DIR *dir;
	int dfd;

	if (state_fd < 0 || (dfd = openat(state_fd, ".", O_RDONLY |
					  O_DIRECTORY | O_CLOEXEC)) < 0)
		return;
	if (!(dir = fdopendir(dfd))) {
		close(dfd);
		return;
	}
	while ((de = readdir(dir))) {
		size_t len, kl;
		struct stat a, b;
		char *rec;
		int fd;

		if (strncmp(de->d_name, REC_PREFIX, strlen(REC_PREFIX)))
			continue;
		fd = openat(state_fd, de->d_name, O_RDONLY | O_NOFOLLOW |
				    O_NONBLOCK | O_CLOEXEC);
		if (fd < 0)
			continue;
		/* A record is whole before it has its name. Lock held:
		 * its pid 1 lives (or a start checks it now). Taken: its
		 * pid 1 is gone. Still the name's inode once locked, or
		 * another start has just checked and removed it. */
		if (!(rec = read_rec(fd, &len, &kl)) ||
		    flock(fd, LOCK_EX | LOCK_NB) < 0 || fstat(fd, &a) < 0 ||
		    fstatat(state_fd, de->d_name, &b, AT_SYMLINK_NOFOLLOW) < 0 ||
		    a.st_dev != b.st_dev || a.st_ino != b.st_ino) {
			free(rec);
			close(fd);
			continue;
		}
		/* 0: checked, the record goes; else it stays for a later
		 * start (its directory not found, or too large a check). */
		if (fn(arg, rec, rec + kl + 1, len - kl - 1) == 0)
			unlinkat(state_fd, de->d_name, 0);
		free(rec);
		close(fd);
	}
	closedir(dir);
}
