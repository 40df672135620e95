/* User namespaces: clone flags, uid/gid maps, the nested-userns limit and
 * the locking namespace, and the hints for a kernel that refuses them. */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "mnt/internal.h"
#include "mnt/sys.h"
#include "util/file.h"

#ifndef PROC_SUPER_MAGIC
#define PROC_SUPER_MAGIC 0x9fa0
#endif

unsigned long mnt_clone_flags(unsigned ns)
{
	unsigned long f = CLONE_NEWUSER;

	if (ns & NS_MOUNT)
		f |= CLONE_NEWNS;
	if (ns & NS_PID)
		f |= CLONE_NEWPID;
	if (ns & NS_IPC)
		f |= CLONE_NEWIPC;
	if (ns & NS_UTS)
		f |= CLONE_NEWUTS;
	if (ns & NS_NET)
		f |= CLONE_NEWNET;
	if (ns & NS_CGROUP)
		f |= CLONE_NEWCGROUP;
	return f;
}

int mnt_open_proc(struct diag *d, int dirfd, const char *path)
{
	struct statfs sf;
	int fd = sys_openat2(dirfd, path, O_PATH | O_DIRECTORY | O_CLOEXEC, 0,
			     dirfd == AT_FDCWD ? RESOLVE_NO_SYMLINKS
					       : MNT_RESOLVE);

	if (fd < 0)
		return diag_fail(d, EXIT_SYSCALL, errno,
				 "unable to open the host's /proc");
	if (fstatfs(fd, &sf) < 0 || sf.f_type != PROC_SUPER_MAGIC) {
		close(fd);
		return diag_fail(d, EXIT_SYSCALL, 0,
				 "unable to use the host's /proc: it is not a "
				 "procfs");
	}
	return fd;
}

static int write_at(int dirfd, const char *path, const char *s)
{
	size_t n = strlen(s);
	int fd = openat(dirfd, path, O_WRONLY | O_CLOEXEC);
	ssize_t w;
	int e;

	if (fd < 0)
		return -1;
	w = write(fd, s, n);
	e = errno;
	close(fd);
	errno = e;
	if (w >= 0 && (size_t)w != n)
		errno = EIO;
	return w >= 0 && (size_t)w == n ? 0 : -1;
}

static int write_maps(struct diag *d, int procfd, const char *dir,
		      long in_uid, uid_t uid, long in_gid, gid_t gid)
{
	static const char *const files[] = { "setgroups", "uid_map",
					     "gid_map" };
	char path[64], line[3][64];

	snprintf(line[0], sizeof(line[0]), "deny\n");
	snprintf(line[1], sizeof(line[1]), "%ld %u 1\n", in_uid,
		 (unsigned)uid);
	snprintf(line[2], sizeof(line[2]), "%ld %u 1\n", in_gid,
		 (unsigned)gid);
	for (int i = 0; i < 3; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, files[i]);
		if (write_at(procfd, path, line[i]) < 0) {
			diag_fail(d, EXIT_SYSCALL, errno,
				  "unable to write /proc/%s", path);
			mnt_hint_userns(d, errno, files[i]);
			return -1;
		}
	}
	return 0;
}

int mnt_write_maps(struct diag *d, int procfd, const struct plan *p,
		   uid_t uid, gid_t gid)
{
	return write_maps(d, procfd, "self", p->uid >= 0 ? p->uid : (long)uid,
			  uid, p->gid >= 0 ? p->gid : (long)gid, gid);
}

/* -1 when the sysctl does not exist or cannot be read. */
static long sysctl_value(const char *path)
{
	long v;

	return file_read_long(path, &v) == 0 ? v : -1;
}

void mnt_hint_userns(struct diag *d, int err, const char *what)
{
	long clone = sysctl_value("/proc/sys/kernel/unprivileged_userns_clone");
	long max = sysctl_value("/proc/sys/user/max_user_namespaces");
	long aa = sysctl_value(
		"/proc/sys/kernel/apparmor_restrict_unprivileged_userns");

	if (clone == 0)
		diag_hint(d, "unprivileged user namespaces are disabled "
			  "(kernel.unprivileged_userns_clone = 0); enable "
			  "them: sudo sysctl -w "
			  "kernel.unprivileged_userns_clone=1");
	else if (max == 0)
		diag_hint(d, "user namespaces are disabled "
			  "(user.max_user_namespaces = 0); enable them: sudo "
			  "sysctl -w user.max_user_namespaces=15000");
	else if (err == ENOSPC || err == EUSERS)
		diag_hint(d, "the user namespace limit is reached "
			  "(user.max_user_namespaces = %ld here, or a "
			  "sandbox around this one, such as bwrap "
			  "--disable-userns or a pysbx policy without "
			  "'nested-userns allow', forbids nested user "
			  "namespaces)", max);
	else if (aa == 1 && (err == EPERM || err == EACCES))
		diag_hint(d, "AppArmor restricts unprivileged user namespaces "
			  "(kernel.apparmor_restrict_unprivileged_userns = 1, "
			  "Ubuntu 23.10 and later): the namespace is created "
			  "but %s is refused; install an AppArmor profile "
			  "that allows userns for pysbx-mount (docs/MOUNT.md) "
			  "or sudo sysctl -w "
			  "kernel.apparmor_restrict_unprivileged_userns=0",
			  what);
	else if (err == EPERM || err == EACCES)
		diag_hint(d, "the kernel refused %s in a new user namespace; "
			  "inside a container this is usually its seccomp "
			  "profile blocking unshare/clone with namespace "
			  "flags (Docker's default): run the container with "
			  "--security-opt seccomp=unconfined or a profile "
			  "that allows them, or with user namespaces allowed",
			  what);
	else if (err == EINVAL || err == ENOSYS)
		diag_hint(d, "this kernel lacks user namespace support "
			  "(CONFIG_USER_NS) or one of the namespaces the "
			  "policy unshares");
}

int mnt_limit_userns(struct diag *d, int procfd)
{
	/* max_user_namespaces is counted per user namespace and applies to
	 * every descendant: with 1 here, the locking namespace the child
	 * creates next is the last one; the target's unshare(CLONE_NEWUSER)
	 * fails with ENOSPC. The target cannot raise it: the value lives in
	 * this namespace, where it holds no capability. */
	if (write_at(procfd, "sys/user/max_user_namespaces", "1\n") < 0)
		return diag_fail(d, EXIT_SYSCALL, errno,
				 "unable to write "
				 "/proc/sys/user/max_user_namespaces in the "
				 "sandbox's user namespace");
	return 0;
}

int mnt_enter_locked_ns(struct diag *d, int procfd, bool mountns)
{
	uid_t uid = getuid();
	gid_t gid = getgid();

	if (unshare(CLONE_NEWUSER | (mountns ? CLONE_NEWNS : 0)) < 0) {
		diag_fail(d, EXIT_SYSCALL, errno,
			  "unable to enter the locking user namespace");
		mnt_hint_userns(d, errno, "a nested user namespace");
		return -1;
	}
	/* /proc/self of a non-dumpable process belongs to root, whom this
	 * namespace does not map: the map files could not be opened. The
	 * flag belongs to the memory, which we share with pid 1 until our
	 * exec (vfork): non-dumpable again right after the maps. */
	if (prctl(PR_SET_DUMPABLE, 1, 0, 0, 0) < 0)
		return diag_fail(d, EXIT_SYSCALL, errno,
				 "unable to set the dumpable flag");
	if (write_maps(d, procfd, "self", (long)uid, uid, (long)gid, gid) < 0)
		return -1;
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0)
		return diag_fail(d, EXIT_SYSCALL, errno,
				 "unable to clear the dumpable flag");
	return 0;
}
