/* check_kernel: probes of seccomp, Landlock, cgroup v2, openat2, the new
 * mount API and close_range. Each runs in a child forked by check.c.
 *
 * <sys/mount.h> is not included: its MS_* macros clash with <linux/mount.h>
 * (see pkg/mnt/sys.h); mount(2) is called through syscall(2).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/close_range.h>
#include <linux/filter.h>
#include <linux/landlock.h>
#include <linux/magic.h>
#include <linux/mount.h>
#include <linux/openat2.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "front/check.h"
#include "util/file.h"

#define CGROUP_ROOT "/sys/fs/cgroup"

int probe_seccomp(struct probe_out *o)
{
	struct sock_filter allow = BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	struct sock_fprog prog = { 1, &allow };
	int mode = prctl(PR_GET_SECCOMP, 0, 0, 0, 0);
	long r;

	if (mode < 0)
		return probe_set(
			o, 0,
			"prctl(PR_GET_SECCOMP) failed: %s: the "
			"kernel is built without seccomp; fix: a kernel "
			"with CONFIG_SECCOMP_FILTER=y",
			strerror(errno));
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return probe_set(o, 0, "prctl(PR_SET_NO_NEW_PRIVS) failed: %s",
				 strerror(errno));
	r = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog);
	if (r < 0 && errno == ENOSYS) /* before 3.17: the prctl only */
		r = prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0);
	if (r < 0)
		return probe_set(
			o, 0,
			"loading an allow-all filter failed: "
			"%s; fix: a kernel with CONFIG_SECCOMP_FILTER=y "
			"and a container profile that allows seccomp(2)",
			strerror(errno));
	return probe_set(o, 1,
			 "an allow-all filter loaded after "
			 "no_new_privs%s",
			 mode == 2 ? ", stacked on the filter "
				     "this process already runs under" :
				     "");
}

/* SECCOMP_GET_ACTION_AVAIL for one action (kernel >= 4.14). */
static int action_probe(struct probe_out *o, unsigned action, const char *name,
			const char *use)
{
	if (syscall(SYS_seccomp, SECCOMP_GET_ACTION_AVAIL, 0, &action) == 0)
		return probe_set(o, 1,
				 "SECCOMP_GET_ACTION_AVAIL: %s is "
				 "available (%s)",
				 name, use);
	if (errno == EOPNOTSUPP)
		return probe_set(o, 0,
				 "SECCOMP_GET_ACTION_AVAIL: %s is not "
				 "supported by this kernel (%s); fix: Linux >= "
				 "4.14",
				 name, use);
	return probe_set(o, 0,
			 "seccomp(SECCOMP_GET_ACTION_AVAIL) failed: "
			 "%s: the kernel is older than 4.14 (%s); fix: Linux "
			 ">= 4.14",
			 strerror(errno), use);
}

int probe_seccomp_kill_process(struct probe_out *o)
{
	return action_probe(o, SECCOMP_RET_KILL_PROCESS, "KILL_PROCESS",
			    "the filter's kill action and wrong-ABI calls");
}

int probe_seccomp_log(struct probe_out *o)
{
	return action_probe(o, SECCOMP_RET_LOG, "LOG",
			    "for 'seccomp log' and 'seccomp audit'");
}

int probe_landlock(struct probe_out *o)
{
	char lsm[512];
	long abi = syscall(SYS_landlock_create_ruleset, NULL, 0,
			   LANDLOCK_CREATE_RULESET_VERSION);

	if (abi >= 0)
		return probe_set(o, 1, "Landlock ABI version %ld", abi);
	if (errno != EOPNOTSUPP)
		return probe_set(
			o, 0,
			"landlock_create_ruleset failed: %s: "
			"the kernel is built without Landlock; fix: "
			"Linux >= 5.13 with CONFIG_SECURITY_LANDLOCK=y",
			strerror(errno));
	if (file_read_line("/sys/kernel/security/lsm", lsm, sizeof(lsm)) < 0)
		snprintf(lsm, sizeof(lsm), "<the current list>");
	return probe_set(o, 0,
			 "landlock_create_ruleset failed: %s: built in "
			 "but not enabled at boot; fix: boot with "
			 "lsm=landlock,%s",
			 strerror(errno), lsm);
}

/* The caller's cgroup v2 path ("/user.slice/...") from /proc/self/cgroup. */
static int own_cgroup(char *buf, size_t len)
{
	FILE *f = fopen("/proc/self/cgroup", "re");
	char line[PATH_MAX];
	int found = -1;

	if (!f)
		return -1;
	while (found < 0 && fgets(line, sizeof(line), f))
		if (!strncmp(line, "0::", 3)) {
			line[strcspn(line, "\n")] = '\0';
			snprintf(buf, len, "%s", line + 3);
			found = 0;
		}
	fclose(f);
	return found;
}

int probe_cgroup2(struct probe_out *o)
{
	char rel[PATH_MAX], dir[PATH_MAX + 32], file[PATH_MAX + 64];
	char ctl[256];
	struct statfs sf;

	if (statfs(CGROUP_ROOT, &sf) < 0)
		return probe_set(o, 0,
				 "statfs %s failed: %s; fix: mount "
				 "cgroup2 there",
				 CGROUP_ROOT, strerror(errno));
	if (sf.f_type != CGROUP2_SUPER_MAGIC)
		return probe_set(o, 0,
				 "%s is not cgroup2 (a v1 or hybrid "
				 "hierarchy); fix: boot with "
				 "systemd.unified_cgroup_hierarchy=1",
				 CGROUP_ROOT);
	if (own_cgroup(rel, sizeof(rel)) < 0)
		return probe_set(o, 0, "no \"0::\" line in /proc/self/cgroup");
	snprintf(dir, sizeof(dir), "%s%s", CGROUP_ROOT,
		 strcmp(rel, "/") ? rel : "");
	snprintf(file, sizeof(file), "%s/cgroup.procs", dir);
	if (access(dir, W_OK) < 0 || access(file, W_OK) < 0)
		return probe_set(
			o, 0,
			"%s is not writable by uid %u (not "
			"delegated): %s; fix: start pysbx in a "
			"delegated cgroup: systemd-run --user --scope -p "
			"Delegate=yes pysbx ...",
			dir, (unsigned)geteuid(), strerror(errno));
	snprintf(file, sizeof(file), "%s/cgroup.controllers", dir);
	if (file_read_line(file, ctl, sizeof(ctl)) < 0 || !ctl[0])
		snprintf(ctl, sizeof(ctl), "none");
	return probe_set(o, 1, "%s is writable (delegated; controllers: %s)",
			 dir, ctl);
}

int probe_openat2(struct probe_out *o)
{
	struct open_how how = {
		.flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS |
			   RESOLVE_NO_MAGICLINKS,
	};
	int root = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);

	if (root < 0)
		return probe_set(o, 0, "open / failed: %s", strerror(errno));
	if (syscall(SYS_openat2, root, ".", &how, sizeof(how)) < 0)
		return probe_set(
			o, 0,
			"openat2 with RESOLVE_BENEATH|"
			"RESOLVE_NO_SYMLINKS failed: %s; fix: Linux >= "
			"5.6 (and a container profile that allows "
			"openat2)",
			strerror(errno));
	return probe_set(o, 1,
			 "openat2 with RESOLVE_BENEATH|"
			 "RESOLVE_NO_SYMLINKS|RESOLVE_NO_MAGICLINKS");
}

static int mount_api_missing(struct probe_out *o, const char *call,
			     const char *since)
{
	int e = errno;

	return probe_set(o, 0,
			 "%s in a user and mount namespace failed: %s%s%s",
			 call, strerror(e),
			 e == ENOSYS ? "; fix: Linux >= " : "",
			 e == ENOSYS ? since : "");
}

int probe_mount_api(struct probe_out *o)
{
	struct mount_attr ro = { .attr_set = MOUNT_ATTR_RDONLY };
	const char *step, *dir = check_mount_dir();
	int fs, mnt, tree;

	if (check_enter_userns(&step) < 0)
		return probe_set(o, 0, "%s failed: %s (see user-ns)", step,
				 strerror(errno));
	if (unshare(CLONE_NEWNS) < 0 ||
	    syscall(SYS_mount, NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		return probe_set(o, 0,
				 "a private mount namespace: %s (see "
				 "mount-ns)",
				 strerror(errno));
	fs = (int)syscall(SYS_fsopen, "tmpfs", FSOPEN_CLOEXEC);
	if (fs < 0)
		return mount_api_missing(o, "fsopen(\"tmpfs\")", "5.2");
	if (syscall(SYS_fsconfig, fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0) < 0)
		return mount_api_missing(o, "fsconfig(FSCONFIG_CMD_CREATE)",
					 "5.2");
	mnt = (int)syscall(SYS_fsmount, fs, FSMOUNT_CLOEXEC, MOUNT_ATTR_NOSUID);
	if (mnt < 0)
		return mount_api_missing(o, "fsmount", "5.2");
	tree = (int)syscall(SYS_open_tree, AT_FDCWD, dir,
			    OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
	if (tree < 0)
		return mount_api_missing(o, "open_tree(OPEN_TREE_CLONE)",
					 "5.2");
	if (syscall(SYS_mount_setattr, tree, "", AT_EMPTY_PATH, &ro,
		    sizeof(ro)) < 0)
		return mount_api_missing(o, "mount_setattr(MOUNT_ATTR_RDONLY)",
					 "5.12");
	if (syscall(SYS_move_mount, mnt, "", AT_FDCWD, dir,
		    MOVE_MOUNT_F_EMPTY_PATH) < 0)
		return mount_api_missing(o, "move_mount", "5.2");
	return probe_set(o, 1,
			 "fsopen/fsconfig/fsmount, open_tree, "
			 "mount_setattr and move_mount in a user namespace");
}

int probe_close_range(struct probe_out *o)
{
	int fd = fcntl(0, F_DUPFD_CLOEXEC, 100);

	if (fd < 0)
		fd = open("/", O_PATH | O_CLOEXEC);
	if (fd < 0)
		return probe_set(o, 0, "no fd to close: %s", strerror(errno));
	if (syscall(SYS_close_range, (unsigned)fd, (unsigned)fd, 0) < 0)
		return probe_set(
			o, 0,
			"close_range failed: %s; fix: Linux >= "
			"5.9 (pysbx-exec falls back to closing fds one "
			"by one)",
			strerror(errno));
	if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF)
		return probe_set(o, 0,
				 "close_range returned 0 but fd %d is "
				 "still open",
				 fd);
	if (syscall(SYS_close_range, (unsigned)fd, ~0U, CLOSE_RANGE_CLOEXEC) <
	    0)
		return probe_set(o, 1,
				 "close_range (CLOSE_RANGE_CLOEXEC: %s, "
				 "Linux >= 5.11)",
				 strerror(errno));
	return probe_set(o, 1, "close_range, with CLOSE_RANGE_CLOEXEC");
}
