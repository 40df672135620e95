/* The new root: a staging tmpfs becomes the root first, so that the host
 * tree hangs below it at /old and the sandbox's root tmpfs at /new, apart
 * from each other: a recursive bind of a host directory (even of "/")
 * can then never copy the sandbox's own root into itself. The policy's
 * directives populate /new; pivot_root into it and a lazy unmount of the
 * staging root leave nothing of the host reachable. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mnt/internal.h"
#include "mnt/sys.h"

#ifndef MNT_DETACH
#define MNT_DETACH 2
#endif

static int stage(struct diag *d, struct mnt_build *b)
{
	/* Private, not slave: nothing we mount propagates back to the
	 * host, and nothing the host mounts later (a USB stick, sshfs, a
	 * home unlocked at login) propagates in. The recursive clones of
	 * the binds copy each mount's propagation; made from private
	 * mounts, they are private too, and a mount that arrived later
	 * would carry its own flags (rw, no nosuid/nodev, unmasked). */
	if (sys_mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0) {
		diag_fail(d, EXIT_SYSCALL, errno,
			  "unable to make the mount namespace private");
		mnt_hint_userns(d, errno, "the first mount");
		return -1;
	}
	/* Only "old", "new" and (for masks) "empty" are ever made there,
	 * by us, and it is detached before anything untrusted runs: the
	 * smallest bounds do. */
	b->stagefd = mnt_tmpfs(d, "the staging root", 64 << 10, 0, 0755,
			       MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV |
				       MOUNT_ATTR_NOEXEC);
	if (b->stagefd < 0)
		return -1;
	/* On top of "/": lookups from the current root do not see it, the
	 * fd does; pivot_root then swaps the two. */
	if (syscall(SYS_move_mount, b->stagefd, "", AT_FDCWD, "/",
		    MOVE_MOUNT_F_EMPTY_PATH) < 0)
		return diag_fail(d, EXIT_SYSCALL, errno,
				 "unable to mount the staging root");
	if (mkdirat(b->stagefd, "old", 0700) < 0 ||
	    mkdirat(b->stagefd, "new", 0755) < 0)
		return diag_fail(d, EXIT_SYSCALL, errno,
				 "unable to populate the staging root");
	if (fchdir(b->stagefd) < 0 || sys_pivot_root(".", "old") < 0 ||
	    chdir("/") < 0)
		return diag_fail(d, EXIT_SYSCALL, errno,
				 "unable to pivot_root into the staging root");
	/* openat, not open: musl's open adds an fcntl for O_CLOEXEC. */
	b->hostfd = openat(AT_FDCWD, "/old", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (b->hostfd < 0)
		return diag_fail(d, EXIT_SYSCALL, errno,
				 "unable to open the host's root");
	return 0;
}

static int new_root(struct diag *d, struct mnt_build *b)
{
	int m = mnt_tmpfs(d, "the new root", 0, 0, 0755,
			  MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV);
	int dst;

	if (m < 0)
		return -1;
	dst = openat(b->stagefd, "new", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dst < 0 || sys_move_fd(m, dst) < 0) {
		close(m);
		return diag_fail(d, EXIT_SYSCALL, errno,
				 "unable to mount the new root");
	}
	close(dst);
	b->rootfd = m;
	return 0;
}

/* A directive mounted on "/": the root is now what lies on top. */
static int reopen_root(struct diag *d, struct mnt_build *b)
{
	int fd = openat(b->stagefd, "new", O_PATH | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0)
		return diag_fail(d, EXIT_SYSCALL, errno,
				 "unable to reopen the new root");
	close(b->rootfd);
	b->rootfd = fd;
	b->root_replaced = true;
	return 0;
}

static int pivot(struct diag *d, struct mnt_build *b)
{
	/* Our own root tmpfs holds only mount points and what 'dir',
	 * 'symlink' and 'file' made: read-only, like bwrap's. */
	if (!b->root_replaced && sys_setattr(b->rootfd, MOUNT_ATTR_RDONLY, 0))
		return diag_fail(d, EXIT_SYSCALL, errno,
				 "unable to make the new root read-only");
	if (fchdir(b->rootfd) < 0 || sys_pivot_root(".", ".") < 0)
		return diag_fail(d, EXIT_SYSCALL, errno,
				 "unable to pivot_root into the new root");
	/* The staging root (and the host's tree below it) now lies on top
	 * of ".": detach it, and nothing of it stays in mountinfo. */
	if (sys_umount2(".", MNT_DETACH) < 0 || chdir("/") < 0)
		return diag_fail(d, EXIT_SYSCALL, errno,
				 "unable to detach the old root");
	return 0;
}

int mnt_build_root(struct diag *d, struct mnt_ctx *m)
{
	const struct plan *p = m->plan;
	struct mnt_build b = { -1, -1, -1, false, -1, NULL, 0, m->chain,
			       m->plan };
	int procfd = -1, r = -1;

	if (stage(d, &b) < 0 || new_root(d, &b) < 0)
		goto out;
	procfd = mnt_open_proc(d, b.hostfd, "proc");
	if (procfd < 0)
		goto out;
	b.procfd = procfd;
	if (mnt_pseudo_init(d, &b, procfd) < 0)
		goto out;
	for (size_t i = 0; i < p->nfs; i++) {
		if (mnt_apply(d, &b, &p->fs[i]) < 0)
			goto out;
		if (!strcmp(p->fs[i].dst, "/") && reopen_root(d, &b) < 0)
			goto out;
	}
	if (pivot(d, &b) < 0)
		goto out;
	r = procfd;
	procfd = -1;
out:
	mnt_pseudo_free(&b);
	if (procfd >= 0)
		close(procfd);
	if (b.hostfd >= 0)
		close(b.hostfd);
	if (b.stagefd >= 0)
		close(b.stagefd);
	if (b.rootfd >= 0)
		close(b.rootfd);
	return r;
}
