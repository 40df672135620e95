/* sys: thin wrappers for the system calls musl (and older glibc) do not
 * wrap: the new mount API, openat2, pivot_root, capget/capset.
 *
 * <sys/mount.h> is not included anywhere in pkg/mnt: its MS_* macros clash
 * with <linux/mount.h> on some libcs, so mount(2) and umount2(2) are
 * wrapped here too. Every wrapper returns what the system call returns
 * (-1 with errno set on failure).
 */
#ifndef PYSBX_MNT_SYS_H
#define PYSBX_MNT_SYS_H

#include <fcntl.h>
#include <linux/capability.h>
#include <linux/mount.h>
#include <linux/openat2.h>
#include <sys/syscall.h>
#include <unistd.h>

static inline int sys_fsopen(const char *fs, unsigned flags)
{
	return (int)syscall(SYS_fsopen, fs, flags);
}

static inline int sys_fsconfig(int fd, unsigned cmd, const char *key,
			       const void *val, int aux)
{
	return (int)syscall(SYS_fsconfig, fd, cmd, key, val, aux);
}

static inline int sys_fsmount(int fd, unsigned flags, unsigned attrs)
{
	return (int)syscall(SYS_fsmount, fd, flags, attrs);
}

/* Attach the detached tree from_fd onto the directory or file to_fd. */
static inline int sys_move_fd(int from_fd, int to_fd)
{
	return (int)syscall(SYS_move_mount, from_fd, "", to_fd, "",
			    MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH);
}

/* A detached recursive copy of the mount tree at fd. */
static inline int sys_clone_tree(int fd)
{
	return (int)syscall(SYS_open_tree, fd, "",
			    OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC |
				    AT_RECURSIVE | AT_EMPTY_PATH);
}

/* Set (never clear) mount attributes on the mount at fd, optionally on
 * every mount below it: flags the host locked (noexec...) stay as they
 * are because nothing is cleared. */
static inline int sys_setattr(int fd, unsigned long long set, int recursive)
{
	struct mount_attr a = { .attr_set = set };

	return (int)syscall(SYS_mount_setattr, fd, "",
			    AT_EMPTY_PATH | (recursive ? AT_RECURSIVE : 0), &a,
			    sizeof(a));
}

static inline int sys_openat2(int dfd, const char *path, int flags,
			      unsigned mode, unsigned long long resolve)
{
	struct open_how how = { .flags = (unsigned long long)flags,
				.mode = mode,
				.resolve = resolve };

	return (int)syscall(SYS_openat2, dfd, path, &how, sizeof(how));
}

static inline int sys_pivot_root(const char *new_root, const char *put_old)
{
	return (int)syscall(SYS_pivot_root, new_root, put_old);
}

static inline int sys_mount(const char *src, const char *dst,
			    const char *type, unsigned long flags,
			    const void *data)
{
	return (int)syscall(SYS_mount, src, dst, type, flags, data);
}

static inline int sys_umount2(const char *path, int flags)
{
	return (int)syscall(SYS_umount2, path, flags);
}

static inline int sys_capset(struct __user_cap_data_struct data[2])
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };

	return (int)syscall(SYS_capset, &h, data);
}

static inline int sys_capget(struct __user_cap_data_struct data[2])
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };

	return (int)syscall(SYS_capget, &h, data);
}

#endif
