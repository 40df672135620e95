/* Internal interfaces of pkg/mnt, one section per file. Every function
 * returns 0 (or an fd) on success and -1 with the failure recorded in d. */
#ifndef PYSBX_MNT_INTERNAL_H
#define PYSBX_MNT_INTERNAL_H

#include <stdbool.h>
#include <sys/types.h>

#include "mnt/mnt.h"

/* Every openat2 below resolves without following any symlink and without
 * leaving the directory it starts from (DESIGN.md invariant 3). */
#define MNT_RESOLVE (RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | \
		     RESOLVE_NO_MAGICLINKS)

/* userns.c */
unsigned long mnt_clone_flags(unsigned ns);
/* Open the host procfs root (checked to be a procfs: the map writes must
 * reach the real one). */
int mnt_open_proc(struct diag *d, int dirfd, const char *path);
/* pid 1, for its own user namespace: setgroups deny, then one-line uid
 * and gid maps of the caller's uid and gid (to themselves, or to
 * plan->uid/gid). */
int mnt_write_maps(struct diag *d, int procfd, const struct plan *p,
		   uid_t uid, gid_t gid);
/* Attach the hint naming the usual cause of a refused user namespace,
 * mount or map write (sysctls, AppArmor, a container's seccomp). */
void mnt_hint_userns(struct diag *d, int err, const char *what);
/* In pid 1: allow one more user namespace below this one (the locking
 * one), so that the target can create none. */
int mnt_limit_userns(struct diag *d, int procfd);
/* In the child: unshare user (+ mount) and map the current ids 1:1. */
int mnt_enter_locked_ns(struct diag *d, int procfd, bool mountns);

/* caps.c: securebits locked, bounding, ambient, inheritable, permitted
 * and effective sets emptied (capget checks the last three empty; the
 * drops' results vouch for the first two). !execs (pid 1, which never
 * execs): no_new_privs instead of the bounding drops. */
int mnt_drop_caps(struct diag *d, bool execs);

/* net.c */
int mnt_lo_up(struct diag *d);

/* path.c */
enum dst_type { DST_DIR, DST_FILE, DST_EXISTING };
/* Open the policy source src (absolute) below hostfd without following
 * any symlink: O_PATH fd, or -1 with errno set. */
int mnt_open_src(int hostfd, const char *src);
/* Open dst (absolute, normalised) below rootfd, creating missing parents
 * (0755) and the last component (as type, with mode) without following
 * any symlink; DST_EXISTING creates nothing (ENOENT: a component is
 * missing), so a mask or protect never makes a directory on the host. O_PATH fd (a read-only one for a file made here, which
 * serves the same: mount target, fstat), or -1 with errno set and the
 * failing prefix of dst in bad (bad is "" on success). */
int mnt_open_dst(int rootfd, const char *dst, enum dst_type type, int mode,
		 char *bad, size_t badlen);
/* Open the parent directory of dst (creating it), and point *base at the
 * last component of dst. For a top-level dst that is rootfd itself: the
 * caller closes the result only when it differs from rootfd. */
int mnt_open_parent(int rootfd, const char *dst, const char **base,
		    char *bad, size_t badlen);

/* ops.c: the filesystem directives */
struct mnt_build {
	int hostfd;	/* the host's root directory (after the first pivot) */
	int stagefd;	/* the staging tmpfs: holds "old", "new" (and
			 * "empty", made by the first file mask) */
	int rootfd;	/* the new root: the topmost mount at stage/new */
	bool root_replaced; /* a directive mounted something on "/" */
	int procfd;	/* the host's procfs, for the mount table */
	char **pseudo;	/* the host's pseudo-fs mount points (pseudo.c) */
	size_t npseudo;
	const struct chain *chain; /* --scratch-id: the guard's scratch dir */
	const struct plan *plan;
};
int mnt_apply(struct diag *d, struct mnt_build *b, const struct fs_op *op);
/* The default nr_inodes of a tmpfs of size bytes (0: the kernel's default
 * size, half of the RAM): one per 8 KiB, at least 64. */
unsigned long long mnt_tmpfs_inodes(unsigned long long size);
/* A fresh tmpfs as a detached mount fd. size 0: the kernel's default,
 * inodes 0: mnt_tmpfs_inodes(size), mode -1: 0755. */
int mnt_tmpfs(struct diag *d, const char *what, unsigned long long size,
	      unsigned long long inodes, int mode, unsigned attrs);

/* An empty read-only mount to cover something with: a 4 KiB tmpfs of one
 * inode for a directory, else a bind of the staging root's empty file.
 * Detached mount fd, or -1 with d set. */
int mnt_mask_tree(struct diag *d, struct mnt_build *b, bool dir,
		  const char *what);

/* Attach the detached tree onto the fd dst; closes tree. */
int mnt_attach(int tree, int dst);
/* A detached recursive copy of the mount tree at src with attrs set (on
 * every mount of it); -1 with errno. */
int mnt_clone_with(int src, unsigned long long attrs);
/* Record the op's failure: "unable to KIND OBJECT (at FILE:LINE)". */
int mnt_op_fail(struct diag *d, const struct fs_op *op, int err,
		const char *bad, const char *extra);

/* pseudo.c: pseudo-filesystems (proc, sysfs, cgroup, devtmpfs, ...)
 * copied by recursive binds. */
bool mnt_is_pseudo_type(const char *type);
/* Read the host's pseudo-fs mount points (once, after the first pivot). */
int mnt_pseudo_init(struct diag *d, struct mnt_build *b, int procfd);
void mnt_pseudo_free(struct mnt_build *b);
/* Does the host have a pseudo-fs mounted strictly below src? */
bool mnt_pseudo_below(const struct mnt_build *b, const char *src);
/* Cover every pseudo-fs mount below the root of the attached bind tree
 * (not the root itself: the policy named it) with an empty read-only
 * mount. */
int mnt_pseudo_mask(struct diag *d, struct mnt_build *b,
		    const struct fs_op *op, int tree);

/* protect.c: re-bind read-only what matches the op's patterns below its
 * directory (docs/MOUNT.md "protect"). */
int mnt_protect(struct diag *d, struct mnt_build *b, const struct fs_op *op);
/* In pid 1 after the run, once every other process is gone: report (and
 * for git redirections and new repositories, rename aside) what was made
 * under a protected name during the run; with a failed target (code !=
 * 0), say which paths the sandbox kept read-only. Returns code, or 111
 * when it was 0 and the tree was too large to check completely. */
int mnt_protect_check(struct diag *d, int code);

/* protrec.c: the records that let a later start check a run whose pid 1
 * was SIGKILLed before its own check (docs/MOUNT.md "protect"). On the
 * host, before the clone, when the plan protects something: find, make
 * and check the state directory (the caller's, 0700, below no source
 * bound read-write) and open it. 0 or -1. */
int mnt_protect_state(struct diag *d, const struct mnt_ctx *m);
/* In pid 1, before the target starts: one record, key (a NUL-free
 * identity of the protected directory) then body, locked for as long as
 * pid 1 lives. Its index, or -1. */
int mnt_protect_record(struct diag *d, const char *key, const char *body,
		       size_t len);
/* In the monitor, once pid 1 was SIGKILLed: this run's record i locked
 * by us (fd), or -1 (a start is checking it); then removed. */
int mnt_protect_retake(size_t i);
void mnt_protect_retaken(size_t i, int fd);
/* In the monitor, once pid 1 was SIGKILLed while the target ran: the
 * check pid 1 could not do, on the host's paths (protect.c). */
void mnt_protect_killed(struct diag *d, const struct plan *p);
/* In pid 1, once its check is done (or the target never ran): remove
 * this run's records. */
void mnt_protect_unrecord(void);
/* For every record whose run's pid 1 is gone: fn(arg, its key, body,
 * len); a record fn returns 0 for is removed. */
void mnt_protect_stale(int (*fn)(void *arg, const char *key,
				 const char *body, size_t len),
		       void *arg);


/* root.c: the whole filesystem view; returns an fd of the host procfs
 * (kept for the map and sysctl writes after pivot_root). */
int mnt_build_root(struct diag *d, struct mnt_ctx *m);

#endif
