/* The filesystem directives, carried out below the new root in policy
 * order. Every mount is made with the new mount API on fds: a detached
 * tree (fsmount or open_tree) is attached with move_mount onto the fd of
 * the destination, which path.c opened without following symlinks. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/sysinfo.h>
#include <unistd.h>

#include "mnt/internal.h"
#include "mnt/sys.h"

#define DEV_SHM_SIZE (64ULL << 20)
/* A tmpfs inode (shmem inode, dentry) pins about 1 KiB of kernel memory
 * that no size= counts: 1 M empty files in a 64 MiB tmpfs pinned 0.9 GB.
 * Unless the policy says inodes=, a tmpfs gets one inode per 8 KiB of its
 * size (128 per MiB, at least 64): the inodes then cost at most about an
 * eighth of the size on top of it. */
#define TMPFS_BYTES_PER_INODE 8192ULL
#define TMPFS_MIN_INODES 64ULL
/* devpts instances share the host-wide kernel.pty.max (minus the
 * reserve for the initial instance): without max= one sandbox can take
 * every pty of every other sandbox and container. */
#define DEVPTS_MAX 64ULL
#define MASK_ATTRS (MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | \
		    MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC)

static const char *what(const struct fs_op *op)
{
	static char buf[64];

	snprintf(buf, sizeof(buf), "%s%s", fs_kind_name(op->kind),
		 op->try_ ? "-try" : "");
	return buf;
}

/* "unable to ro-bind /a on /b (at policy:3)" + the errno, with a hint
 * for a symlink met on the way; extra is appended to the object. */
int mnt_op_fail(struct diag *d, const struct fs_op *op, int err,
		   const char *bad, const char *extra)
{
	char obj[PLAN_MAX_PATH * 2 + 64];
	bool bind = op->kind == FS_BIND || op->kind == FS_RO_BIND ||
		    op->kind == FS_DEV_BIND;

	if (err == ELOOP && bad && *bad) {
		diag_fail(d, EXIT_SYSCALL, 0,
			  "unable to %s %s: destination %s is a symlink (at "
			  "%s:%u)", what(op), op->dst, bad, op->pos.file,
			  op->pos.line);
		diag_hint(d, "pysbx never follows a symlink inside the new "
			  "root: a writable tree could otherwise redirect the "
			  "mount; remove the link or mount elsewhere");
		return -1;
	}
	if (bind)
		snprintf(obj, sizeof(obj), "%s on %s", op->src, op->dst);
	else if (op->kind == FS_SYMLINK)
		snprintf(obj, sizeof(obj), "%s -> %s", op->dst, op->src);
	else
		snprintf(obj, sizeof(obj), "%s", op->dst);
	diag_fail(d, EXIT_SYSCALL, err, "unable to %s %s%s (at %s:%u)",
		  what(op), obj, extra, op->pos.file, op->pos.line);
	return -1;
}

/* fsconfig and fsmount failures leave a message in the context. */
static void fs_log(struct diag *d, int fsfd)
{
	char buf[256];
	ssize_t n = read(fsfd, buf, sizeof(buf) - 1);

	if (n > 2) {
		buf[n] = '\0';
		buf[strcspn(buf, "\n")] = '\0';
		diag_hint(d, "the kernel said: %s", buf);
	}
}

static int fs_new(struct diag *d, const char *type, const char *what_,
		  const char *const *kv, unsigned attrs)
{
	int fs = sys_fsopen(type, FSOPEN_CLOEXEC), m;

	if (fs < 0) {
		diag_fail(d, EXIT_SYSCALL, errno, "unable to create a %s for %s",
			  type, what_);
		mnt_hint_userns(d, errno, "a mount");
		return -1;
	}
	for (; kv && kv[0]; kv += 2) {
		int r = kv[1] ? sys_fsconfig(fs, FSCONFIG_SET_STRING, kv[0],
					     kv[1], 0)
			      : sys_fsconfig(fs, FSCONFIG_SET_FLAG, kv[0],
					     NULL, 0);

		if (r < 0) {
			diag_fail(d, EXIT_SYSCALL, errno,
				  "unable to set %s=%s on the %s for %s", kv[0],
				  kv[1] ? kv[1] : "", type, what_);
			fs_log(d, fs);
			close(fs);
			return -1;
		}
	}
	if (sys_fsconfig(fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0) < 0 ||
	    (m = sys_fsmount(fs, FSMOUNT_CLOEXEC, attrs)) < 0) {
		int e = errno;

		diag_fail(d, EXIT_SYSCALL, e, "unable to mount a %s for %s",
			  type, what_);
		fs_log(d, fs);
		if (!strcmp(type, "proc") && e == EPERM)
			diag_hint(d, "the kernel refuses a new procfs while "
				  "parts of the host's /proc are hidden by "
				  "other mounts (a container's masked paths, "
				  "e.g. Docker's /proc/kcore): run the "
				  "container with --security-opt "
				  "systempaths=unconfined, or drop 'proc' "
				  "from the policy");
		else if (e == EPERM)
			mnt_hint_userns(d, e, "a mount");
		close(fs);
		return -1;
	}
	close(fs);
	return m;
}

/* The kernel's default size: half of the RAM. */
static unsigned long long tmpfs_default_size(void)
{
	struct sysinfo si;

	if (sysinfo(&si) < 0)
		return 0;
	return (unsigned long long)si.totalram * si.mem_unit / 2;
}

unsigned long long mnt_tmpfs_inodes(unsigned long long size)
{
	unsigned long long n;

	if (!size)
		size = tmpfs_default_size();
	n = size / TMPFS_BYTES_PER_INODE;
	return n < TMPFS_MIN_INODES ? TMPFS_MIN_INODES : n;
}

int mnt_tmpfs(struct diag *d, const char *what_, unsigned long long size,
	      unsigned long long inodes, int mode, unsigned attrs)
{
	char ssize[32], sinodes[32], smode[16];
	const char *kv[8];
	int k = 0;

	if (!inodes)
		inodes = mnt_tmpfs_inodes(size);

	snprintf(smode, sizeof(smode), "%o", mode >= 0 ? mode : 0755);
	kv[k++] = "mode";
	kv[k++] = smode;
	if (size) {
		snprintf(ssize, sizeof(ssize), "%llu", size);
		kv[k++] = "size";
		kv[k++] = ssize;
	}
	snprintf(sinodes, sizeof(sinodes), "%llu", inodes);
	kv[k++] = "nr_inodes";
	kv[k++] = sinodes;
	kv[k] = NULL;
	return fs_new(d, "tmpfs", what_, kv, attrs);
}

/* Attach the detached tree onto dst; closes tree. */
int mnt_attach(int tree, int dst)
{
	int r = sys_move_fd(tree, dst), e = errno;

	close(tree);
	errno = e;
	return r;
}

/* A recursive copy of the mount tree at src, with attrs added. */
int mnt_clone_with(int src, unsigned long long attrs)
{
	int tree = sys_clone_tree(src), e;

	if (tree < 0)
		return -1;
	if (attrs && sys_setattr(tree, attrs, 1) < 0) {
		e = errno;
		close(tree);
		errno = e;
		return -1;
	}
	return tree;
}

/* A bind of the guard's scratch directory by its path: the path must
 * still lead to the directory the guard made or adopted (--scratch-id).
 * Renamed away and replaced since (by a process of the caller's, e.g. in
 * another sandbox that can write the parent), it would give this
 * sandbox someone else's directory as /scratch: refused. */
static bool not_scratch(struct diag *d, const struct mnt_build *b,
			const struct fs_op *op, const struct stat *st)
{
	const struct chain *c = b->chain;

	if (!c || !c->scratch_dir || strcmp(op->src, c->scratch_dir) ||
	    ((unsigned long long)st->st_dev == c->scratch_dev &&
	     (unsigned long long)st->st_ino == c->scratch_ino))
		return false;
	diag_fail(d, EXIT_SYSCALL, 0, "unable to %s %s: source %s is no longer "
		  "the scratch directory the guard made (renamed or replaced "
		  "since; at %s:%u)", what(op), op->dst, op->src, op->pos.file,
		  op->pos.line);
	diag_hint(d, "something that can write %.*s moved it; nothing was "
		  "bound", (int)(strrchr(op->src, '/') - op->src), op->src);
	return true;
}

static int do_bind(struct diag *d, struct mnt_build *b,
		   const struct fs_op *op)
{
	unsigned long long attrs = MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV;
	char bad[PLAN_MAX_PATH + 1];
	struct stat st;
	int src, dst, tree;

	if (op->kind == FS_RO_BIND)
		attrs |= MOUNT_ATTR_RDONLY;
	else if (op->kind == FS_DEV_BIND)
		attrs = MOUNT_ATTR_NOSUID;
	src = mnt_open_src(b->hostfd, op->src);
	if (src < 0 && errno == ENOENT && op->try_)
		return 0;
	if (src < 0) {
		int e = errno;

		diag_fail(d, EXIT_SYSCALL, e == ELOOP ? 0 : e,
			  "unable to %s %s: source %s %s (at %s:%u)", what(op),
			  op->dst, op->src,
			  e == ELOOP ? "contains a symlink" : "cannot be opened",
			  op->pos.file, op->pos.line);
		if (e == ELOOP)
			diag_hint(d, "mount sources are opened without "
				  "following symlinks: name the real path "
				  "(realpath %s) in the policy, and recreate "
				  "links inside with 'symlink'", op->src);
		else if (e == ENOENT)
			diag_hint(d, "use %s-try to skip a source that may be "
				  "missing", fs_kind_name(op->kind));
		return -1;
	}
	if (fstat(src, &st) < 0) {
		close(src);
		return mnt_op_fail(d, op, errno, NULL, "");
	}
	if (not_scratch(d, b, op, &st)) {
		close(src);
		return -1;
	}
	dst = mnt_open_dst(b->rootfd, op->dst,
			   S_ISDIR(st.st_mode) ? DST_DIR : DST_FILE,
			   S_ISDIR(st.st_mode) ? 0755 : 0644, bad, sizeof(bad));
	if (dst < 0) {
		close(src);
		return mnt_op_fail(d, op, errno, bad, "");
	}
	tree = mnt_clone_with(src, attrs);
	close(src);
	if (tree < 0 || sys_move_fd(tree, dst) < 0) {
		int e = errno;

		if (tree >= 0)
			close(tree);
		close(dst);
		return mnt_op_fail(d, op, e, NULL, "");
	}
	close(dst);
	/* The copy's procfs, sysfs, ... submounts: covered (pseudo.c). */
	if (mnt_pseudo_below(b, op->src) &&
	    mnt_pseudo_mask(d, b, op, tree) < 0) {
		close(tree);
		return -1;
	}
	close(tree);
	return 0;
}

/* Mount the detached tree m on dst (created as a directory). m is closed,
 * unless keep: then it stays open for the caller (on success), still the
 * root of that mount, now attached, so that nothing has to be walked to
 * again. */
static int mount_dir(struct diag *d, struct mnt_build *b,
		     const struct fs_op *op, int m, int mode, bool keep)
{
	char bad[PLAN_MAX_PATH + 1];
	int dst = mnt_open_dst(b->rootfd, op->dst, DST_DIR, mode, bad,
			       sizeof(bad));

	if (dst < 0 || sys_move_fd(m, dst) < 0) {
		int e = errno;

		close(m);
		if (dst >= 0)
			close(dst);
		return mnt_op_fail(d, op, e, bad, "");
	}
	close(dst);
	if (!keep)
		close(m);
	return 0;
}

static int do_tmpfs(struct diag *d, struct mnt_build *b,
		    const struct fs_op *op)
{
	int m = mnt_tmpfs(d, op->dst, op->size, op->inodes, op->mode,
			  MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV);

	return m < 0 ? -1 : mount_dir(d, b, op, m, 0755, false);
}

/* Parts of a fresh procfs that stay read-only, as bwrap keeps them. */
static int proc_ro(int m)
{
	static const char *const ro[] = { "sys", "sysrq-trigger", "irq",
					  "bus" };

	for (size_t i = 0; i < sizeof(ro) / sizeof(ro[0]); i++) {
		int fd = sys_openat2(m, ro[i], O_PATH | O_CLOEXEC, 0,
				     MNT_RESOLVE), tree;

		if (fd < 0 && errno == ENOENT)
			continue;
		if (fd < 0)
			return -1;
		tree = mnt_clone_with(fd, MASK_ATTRS);
		if (tree < 0 || mnt_attach(tree, fd) < 0) {
			int e = errno;

			close(fd);
			errno = e;
			return -1;
		}
		close(fd);
	}
	return 0;
}

static int do_proc(struct diag *d, struct mnt_build *b,
		   const struct fs_op *op)
{
	int m = fs_new(d, "proc", op->dst, NULL,
		       MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV |
			       MOUNT_ATTR_NOEXEC);

	if (m < 0 || mount_dir(d, b, op, m, 0555, true) < 0)
		return -1;
	if (proc_ro(m) < 0) {
		int e = errno;

		close(m);
		return mnt_op_fail(d, op, e, NULL, " (read-only parts)");
	}
	close(m);
	return 0;
}

/* Bind the host's /dev/NAME on the empty file NAME in dev. */
static int dev_node(struct diag *d, struct mnt_build *b, int dev,
		    const char *name, bool optional)
{
	char host[32];
	int src, dst, tree;

	snprintf(host, sizeof(host), "/dev/%s", name);
	src = mnt_open_src(b->hostfd, host);
	if (src < 0 && errno == ENOENT && optional)
		return 0;
	if (src < 0)
		return diag_fail(d, EXIT_SYSCALL, errno,
				 "unable to open the host's %s", host);
	dst = mnt_open_dst(dev, name, DST_FILE, 0666, NULL, 0);
	tree = dst < 0 ? -1 : mnt_clone_with(src, MOUNT_ATTR_NOSUID |
						      MOUNT_ATTR_NOEXEC);
	if (tree < 0 || mnt_attach(tree, dst) < 0) {
		int e = errno;

		close(src);
		if (dst >= 0)
			close(dst);
		return diag_fail(d, EXIT_SYSCALL, e,
				 "unable to bind the host's %s in the new "
				 "/dev", host);
	}
	close(src);
	close(dst);
	return 0;
}

static int dev_mount(struct diag *d, int dev, const char *name, int m)
{
	int dst = -1;

	/* dev is our own new tmpfs: name is not there yet, no need to look
	 * first (the open still never follows a symlink). */
	if (mkdirat(dev, name, 0755) == 0 || errno == EEXIST)
		dst = mnt_open_dst(dev, name, DST_DIR, 0755, NULL, 0);
	if (dst < 0 || mnt_attach(m, dst) < 0) {
		int e = errno;

		if (dst < 0)
			close(m);
		else
			close(dst);
		return diag_fail(d, EXIT_SYSCALL, e,
				 "unable to mount /dev/%s in the new /dev", name);
	}
	close(dst);
	return 0;
}

static int do_dev(struct diag *d, struct mnt_build *b, const struct fs_op *op)
{
	static const char *const nodes[] = { "null", "zero", "full", "random",
					     "urandom", "tty" };
	static const char *const links[][2] = {
		{ "/proc/self/fd", "fd" },	{ "/proc/self/fd/0", "stdin" },
		{ "/proc/self/fd/1", "stdout" }, { "/proc/self/fd/2", "stderr" },
		{ "pts/ptmx", "ptmx" },
	};
	/* No gid=: a user namespace refuses gid=5 (DESIGN.md). */
	const char *pts[] = { "newinstance", NULL, "ptmxmode", "0666",
			      "mode", "620", "max", NULL, NULL };
	char shm[32], max[24];
	int m, dev;

	m = mnt_tmpfs(d, op->dst, 64 << 10, 0, 0755,
		      MOUNT_ATTR_NOSUID | MOUNT_ATTR_NOEXEC);
	if (m < 0 || mount_dir(d, b, op, m, 0755, true) < 0)
		return -1;
	dev = m;
	for (size_t i = 0; i < sizeof(nodes) / sizeof(nodes[0]); i++)
		if (dev_node(d, b, dev, nodes[i], !strcmp(nodes[i], "tty")))
			goto fail;
	snprintf(shm, sizeof(shm), "/dev/shm of %s", op->dst);
	m = mnt_tmpfs(d, shm, op->size ? op->size : DEV_SHM_SIZE, 0, 01777,
		      MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV |
			      MOUNT_ATTR_NOEXEC);
	if (m < 0 || dev_mount(d, dev, "shm", m) < 0)
		goto fail;
	snprintf(max, sizeof(max), "%llu",
		 op->inodes ? (unsigned long long)op->inodes : DEVPTS_MAX);
	pts[7] = max;
	m = fs_new(d, "devpts", "/dev/pts", pts,
		   MOUNT_ATTR_NOSUID | MOUNT_ATTR_NOEXEC);
	if (m < 0 || dev_mount(d, dev, "pts", m) < 0)
		goto fail;
	for (size_t i = 0; i < sizeof(links) / sizeof(links[0]); i++)
		if (symlinkat(links[i][0], dev, links[i][1]) < 0) {
			mnt_op_fail(d, op, errno, NULL, " (links)");
			goto fail;
		}
	/* Nothing may be added to /dev; /dev/shm stays writable. */
	if (sys_setattr(dev, MOUNT_ATTR_RDONLY, 0) < 0) {
		mnt_op_fail(d, op, errno, NULL, " read-only");
		goto fail;
	}
	close(dev);
	return 0;
fail:
	close(dev);
	return -1;
}

static int do_dir(struct diag *d, struct mnt_build *b, const struct fs_op *op)
{
	char bad[PLAN_MAX_PATH + 1];
	int fd = mnt_open_dst(b->rootfd, op->dst, DST_DIR,
			      op->mode >= 0 ? op->mode : 0755, bad,
			      sizeof(bad));

	if (fd < 0)
		return mnt_op_fail(d, op, errno, bad, "");
	close(fd);
	return 0;
}

/* mnt_open_parent hands back the root fd itself for a top-level name. */
static void close_parent(const struct mnt_build *b, int dir)
{
	if (dir != b->rootfd)
		close(dir);
}

/* Is base in dir a symlink to target? Out of line: its buffer is only
 * on the stack when a link is already there. */
static __attribute__((noinline)) bool same_link(int dir, const char *base,
						const char *target)
{
	char have[PLAN_MAX_PATH + 1];
	ssize_t n = readlinkat(dir, base, have, sizeof(have) - 1);

	if (n < 0)
		return false;
	have[n] = '\0';
	return !strcmp(have, target);
}

static int do_symlink(struct diag *d, struct mnt_build *b,
		      const struct fs_op *op)
{
	char bad[PLAN_MAX_PATH + 1];
	const char *base;
	int dir = mnt_open_parent(b->rootfd, op->dst, &base, bad, sizeof(bad));

	if (dir < 0)
		return mnt_op_fail(d, op, errno, bad, "");
	if (symlinkat(op->src, dir, base) < 0) {
		int e = errno;
		/* The same link twice (e.g. from two includes) is fine. */
		bool same = e == EEXIST && same_link(dir, base, op->src);

		close_parent(b, dir);
		return same ? 0 : mnt_op_fail(d, op, e, NULL, "");
	}
	close_parent(b, dir);
	return 0;
}

static int write_all(int fd, const char *s, size_t len)
{
	size_t off = 0;

	while (off < len) {
		ssize_t w = write(fd, s + off, len - off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			if (!w)
				errno = EIO;
			return -1;
		}
		off += (size_t)w;
	}
	return 0;
}

/* `file` over a file that is already there (a host file under a bind:
 * ci.policy's /etc/passwd over the host root): the content is made in the
 * staging root (ours alone) and mounted read-only on top. Only over a
 * regular file: a directory or device keeps EEXIST. */
static int file_over(struct diag *d, struct mnt_build *b,
		     const struct fs_op *op)
{
	static unsigned seq;
	char bad[PLAN_MAX_PATH + 1], name[32];
	struct stat st;
	int dst, src, m = -1, e;

	dst = mnt_open_dst(b->rootfd, op->dst, DST_EXISTING, 0, bad,
			   sizeof(bad));
	if (dst < 0)
		return mnt_op_fail(d, op, errno, bad, "");
	e = fstat(dst, &st) < 0 ? errno : !S_ISREG(st.st_mode) ? EEXIST : 0;
	if (e) {
		close(dst);
		return mnt_op_fail(d, op, e, NULL, "");
	}
	snprintf(name, sizeof(name), "file%u", seq++);
	src = sys_openat2(b->stagefd, name,
			  O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC,
			  (unsigned)(op->mode >= 0 ? op->mode : 0644),
			  MNT_RESOLVE);
	if (src >= 0 && !write_all(src, op->src, strlen(op->src)))
		m = mnt_clone_with(src, MASK_ATTRS);
	if (m < 0 || mnt_attach(m, dst) < 0) {
		e = errno;
		if (src >= 0)
			close(src);
		close(dst);
		return mnt_op_fail(d, op, e, NULL, " over the existing file");
	}
	close(src);
	close(dst);
	return 0;
}

static int do_file(struct diag *d, struct mnt_build *b, const struct fs_op *op)
{
	char bad[PLAN_MAX_PATH + 1];
	const char *base;
	int dir = mnt_open_parent(b->rootfd, op->dst, &base, bad, sizeof(bad));
	int fd, e;

	if (dir < 0)
		return mnt_op_fail(d, op, errno, bad, "");
	fd = sys_openat2(dir, base, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC,
			 (unsigned)(op->mode >= 0 ? op->mode : 0644),
			 MNT_RESOLVE);
	close_parent(b, dir);
	if (fd < 0 && errno == EEXIST)
		return file_over(d, b, op);
	if (fd < 0)
		return mnt_op_fail(d, op, errno, NULL, "");
	if (write_all(fd, op->src, strlen(op->src)) < 0) {
		e = errno;
		close(fd);
		return mnt_op_fail(d, op, e, NULL, "");
	}
	close(fd);
	return 0;
}

static int do_remount_ro(struct diag *d, struct mnt_build *b,
			 const struct fs_op *op)
{
	char bad[PLAN_MAX_PATH + 1];
	int fd = mnt_open_dst(b->rootfd, op->dst, DST_EXISTING, 0, bad,
			      sizeof(bad)), tree;

	if (fd < 0)
		return mnt_op_fail(d, op, errno, bad, "");
	/* A read-only copy on top, so that it works whether or not dst is a
	 * mount point, and covers every mount below it. */
	tree = mnt_clone_with(fd, MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID |
				      MOUNT_ATTR_NODEV);
	if (tree < 0 || mnt_attach(tree, fd) < 0) {
		int e = errno;

		close(fd);
		return mnt_op_fail(d, op, e, NULL, "");
	}
	close(fd);
	return 0;
}

/* Nothing of the host to hide there: a missing component, or one the
 * caller (the sandbox's uid) cannot search. */
static bool nothing_there(int err)
{
	return err == ENOENT || err == ENOTDIR || err == EACCES;
}

/* The same place masked twice (${HOME} and ${PASSWD_HOME} are usually
 * one directory; a link and its target) is masked once. */
static bool masked_before(const char *real)
{
	static char *done[64];
	static size_t n;

	for (size_t i = 0; i < n; i++)
		if (!strcmp(done[i], real))
			return true;
	if (n < sizeof(done) / sizeof(done[0]))
		done[n++] = strdup(real);
	return false;
}

static int do_mask(struct diag *d, struct mnt_build *b, const struct fs_op *op)
{
	char bad[PLAN_MAX_PATH + 1], real[PLAN_MAX_PATH + 2];
	struct stat st;
	int fd, m;

	/* A dotfile may be a symlink (~/.ssh -> dotfiles/ssh, as stow and
	 * home-manager make them): what the sandbox would read through it
	 * is the target, so the target is masked, resolved inside the new
	 * root (never out of it). Nothing is created on the way. */
	real[0] = '/';
	if (mnt_resolve_in(b->rootfd, op->dst + 1, real + 1,
			   sizeof(real) - 1) < 0) {
		if (nothing_there(errno))
			return 0;
		return mnt_op_fail(d, op, errno, NULL, " (resolving it)");
	}
	if (masked_before(real))
		return 0;
	fd = mnt_open_dst(b->rootfd, real, DST_EXISTING, 0, bad, sizeof(bad));
	if (fd < 0 && nothing_there(errno))
		return 0;
	if (fd < 0 || fstat(fd, &st) < 0)
		return mnt_op_fail(d, op, errno, bad, "");
	m = mnt_mask_tree(d, b, S_ISDIR(st.st_mode), op->dst);
	if (m < 0) {
		close(fd);
		return -1;
	}
	if (mnt_attach(m, fd) < 0) {
		int e = errno;

		close(fd);
		return mnt_op_fail(d, op, e, NULL, "");
	}
	close(fd);
	return 0;
}

int mnt_mask_tree(struct diag *d, struct mnt_build *b, bool dir,
		  const char *what_)
{
	int empty, m;

	if (dir)
		return mnt_tmpfs(d, what_, 4096, 1, 0755, MASK_ATTRS);
	/* Made on first use in the staging root (ours alone), read-only
	 * for everyone. */
	empty = sys_openat2(b->stagefd, "empty",
			    O_CREAT | O_RDONLY | O_CLOEXEC, 0444, MNT_RESOLVE);
	m = empty < 0 ? -1 : mnt_clone_with(empty, MASK_ATTRS);
	if (m < 0)
		diag_fail(d, EXIT_SYSCALL, errno,
			  "unable to make an empty file to mask %s", what_);
	if (empty >= 0)
		close(empty);
	return m;
}

int mnt_apply(struct diag *d, struct mnt_build *b, const struct fs_op *op)
{
	switch (op->kind) {
	case FS_BIND:
	case FS_RO_BIND:
	case FS_DEV_BIND:
		return do_bind(d, b, op);
	case FS_TMPFS:
		return do_tmpfs(d, b, op);
	case FS_PROC:
		return do_proc(d, b, op);
	case FS_DEV:
		return do_dev(d, b, op);
	case FS_DIR:
		return do_dir(d, b, op);
	case FS_SYMLINK:
		return do_symlink(d, b, op);
	case FS_FILE:
		return do_file(d, b, op);
	case FS_REMOUNT_RO:
		return do_remount_ro(d, b, op);
	case FS_MASK:
		return do_mask(d, b, op);
	case FS_PROTECT:
		return mnt_protect(d, b, op);
	}
	return diag_fail(d, EXIT_SYSCALL, EINVAL, "unable to carry out "
			 "filesystem directive %d", (int)op->kind);
}
