/* check_userns: probes of user namespaces, the other namespace types and a
 * fresh procfs. Each runs in a child forked by check.c. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "front/check.h"
#include "util/file.h"

#ifndef CLONE_NEWCGROUP
#define CLONE_NEWCGROUP 0x02000000
#endif

#define KNOB_DEBIAN "/proc/sys/kernel/unprivileged_userns_clone"
#define KNOB_MAX "/proc/sys/user/max_user_namespaces"
#define KNOB_APPARMOR "/proc/sys/kernel/apparmor_restrict_unprivileged_userns"

/* Exit code of the procfs probe's pid 1 when proc mounted but does not
 * show the new pid namespace: not an errno value. */
#define PROC_WRONG_NS 250

static int write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), e;
	ssize_t n;

	if (fd < 0)
		return -1;
	/* One write: the kernel takes a map only from a single write(2). */
	n = write(fd, s, strlen(s));
	e = errno;
	close(fd);
	errno = e;
	return n == (ssize_t)strlen(s) ? 0 : -1;
}

int check_enter_userns(const char **step)
{
	char map[64];
	unsigned uid = (unsigned)geteuid(), gid = (unsigned)getegid();

	*step = "unshare(CLONE_NEWUSER)";
	if (unshare(CLONE_NEWUSER) < 0)
		return -1;
	/* Before gid_map, or an unprivileged writer is refused (since 3.19;
	 * older kernels have no setgroups file). */
	*step = "write \"deny\" to /proc/self/setgroups";
	if (write_file("/proc/self/setgroups", "deny") < 0 && errno != ENOENT)
		return -1;
	*step = "write /proc/self/uid_map";
	snprintf(map, sizeof(map), "0 %u 1\n", uid);
	if (write_file("/proc/self/uid_map", map) < 0)
		return -1;
	*step = "write /proc/self/gid_map";
	snprintf(map, sizeof(map), "0 %u 1\n", gid);
	if (write_file("/proc/self/gid_map", map) < 0)
		return -1;
	return 0;
}

/* Whether this process is already inside a user namespace: the initial
 * one maps every id (uid_map "0 0 4294967295"). */
static int in_userns(void)
{
	char map[128], *s = map, *end;
	unsigned long v[3];

	if (file_read_line("/proc/self/uid_map", map, sizeof(map)) < 0)
		return 0;
	/* As sscanf(map, "%u %u %u") would (no scanf: see check.c). */
	for (int i = 0; i < 3; i++, s = end) {
		v[i] = strtoul(s, &end, 10);
		if (end == s)
			return 0;
	}
	return !((unsigned)v[0] == 0 && (unsigned)v[1] == 0 &&
		 (unsigned)v[2] == 4294967295U);
}

void check_userns_cause(int err, const char *step, char *buf, size_t len)
{
	int at_unshare = !strncmp(step, "unshare", 7);
	long v;

	if (file_read_long(KNOB_DEBIAN, &v) == 0 && v == 0)
		snprintf(buf, len,
			 "kernel.unprivileged_userns_clone is 0 "
			 "(Debian/Ubuntu kernel knob); fix: sudo sysctl -w "
			 "kernel.unprivileged_userns_clone=1");
	else if (file_read_long(KNOB_MAX, &v) == 0 && v == 0)
		snprintf(buf, len,
			 "user.max_user_namespaces is 0 (user "
			 "namespaces disabled); fix: sudo sysctl -w "
			 "user.max_user_namespaces=15000");
	else if ((err == ENOSPC || err == EUSERS) && in_userns())
		snprintf(buf, len,
			 "this process already runs in a user "
			 "namespace whose creator forbids nesting (as bwrap "
			 "--disable-userns does) or the limit of 32 nested "
			 "levels is reached; fix: let the enclosing sandbox "
			 "allow nested user namespaces, or run pysbx outside "
			 "it");
	else if (err == ENOSPC || err == EUSERS)
		snprintf(buf, len,
			 "the limit of user namespaces is reached "
			 "(user.max_user_namespaces is %ld); fix: sudo sysctl "
			 "-w user.max_user_namespaces=15000",
			 file_read_long(KNOB_MAX, &v) == 0 ? v : -1L);
	else if (at_unshare && check_seccomp_mode() == 2)
		snprintf(buf, len,
			 "this process runs under a seccomp filter "
			 "(Seccomp: 2 in /proc/self/status) that refuses "
			 "unshare, as a container runtime's default profile "
			 "does; fix: run the container with a seccomp profile "
			 "that allows unshare and clone with namespace flags "
			 "(docker/podman: --security-opt seccomp=unconfined, "
			 "or a custom profile)");
	else if (file_read_long(KNOB_APPARMOR, &v) == 0 && v == 1)
		snprintf(buf, len,
			 "kernel.apparmor_restrict_unprivileged_userns "
			 "is 1: AppArmor lets the namespace be created but "
			 "takes every capability in it; fix: an AppArmor "
			 "profile for pysbx with the 'userns,' rule (see "
			 "docs/TROUBLESHOOTING.md), or sudo sysctl -w "
			 "kernel.apparmor_restrict_unprivileged_userns=0");
	else if (err == EPERM && at_unshare)
		snprintf(
			buf, len,
			"refused with none of the known sysctls "
			"set: a container's seccomp profile or an LSM, or a "
			"chroot (the kernel refuses CLONE_NEWUSER inside one); "
			"fix: allow unshare in the container's profile, or "
			"run outside the chroot");
	else if (err == EPERM)
		snprintf(buf, len,
			 "the namespace was created but holds no "
			 "privilege: an LSM (AppArmor, SELinux) confines it; "
			 "fix: allow user namespaces for pysbx in that LSM's "
			 "policy");
	else
		snprintf(buf, len,
			 "unexpected error; see "
			 "docs/TROUBLESHOOTING.md");
}

/* A failure of a user-namespace step, with its cause and fix. */
static int userns_missing(struct probe_out *o, int err, const char *step)
{
	char cause[600];

	check_userns_cause(err, step, cause, sizeof(cause));
	return probe_set(o, 0, "%s failed: %s: %s", step, strerror(err), cause);
}

int probe_userns(struct probe_out *o)
{
	const char *step, *dir = check_mount_dir();

	if (check_enter_userns(&step) < 0)
		return userns_missing(o, errno, step);
	step = "unshare(CLONE_NEWNS) in the user namespace";
	if (unshare(CLONE_NEWNS) < 0)
		return userns_missing(o, errno, step);
	step = "make / private (mount MS_REC|MS_PRIVATE)";
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		return userns_missing(o, errno, step);
	/* Ubuntu's AppArmor restriction lets everything above succeed on
	 * some versions and refuses here, at the first real mount. */
	step = "mount a tmpfs in the new mount namespace";
	if (mount("tmpfs", dir, "tmpfs", MS_NOSUID | MS_NODEV, "size=16k") < 0)
		return userns_missing(o, errno, step);
	return probe_set(o, 1,
			 "unshare(CLONE_NEWUSER), uid/gid maps, a tmpfs "
			 "mounted on %s in a new mount namespace",
			 dir);
}

struct nsinfo {
	int flag;
	const char *flagname; /* "CLONE_NEWPID" */
	const char *kind; /* "pid": user.max_pid_namespaces */
	const char *config; /* kernel option */
};

static int probe_ns(struct probe_out *o, const struct nsinfo *ns)
{
	const char *step;
	char knob[80];
	long v = -1;
	int e;

	if (check_enter_userns(&step) < 0)
		return probe_set(o, 0, "%s failed: %s (see user-ns)", step,
				 strerror(errno));
	if (unshare(ns->flag) == 0)
		return probe_set(o, 1, "unshare(%s) in a user namespace",
				 ns->flagname);
	e = errno;
	snprintf(knob, sizeof(knob), "/proc/sys/user/max_%s_namespaces",
		 ns->kind);
	file_read_long(knob, &v);
	if (e == EINVAL)
		return probe_set(o, 0,
				 "unshare(%s) failed: %s: the kernel is built "
				 "without %s; fix: a kernel with %s=y",
				 ns->flagname, strerror(e), ns->config,
				 ns->config);
	else if (e == ENOSPC)
		return probe_set(
			o, 0,
			"unshare(%s) failed: %s: user.max_%s_"
			"namespaces is %ld or exhausted; fix: sudo sysctl -w "
			"user.max_%s_namespaces=15000",
			ns->flagname, strerror(e), ns->kind, v, ns->kind);
	else
		return probe_set(
			o, 0,
			"unshare(%s) failed: %s: a seccomp filter or "
			"an LSM refuses it; fix: allow unshare with %s in "
			"the container's or LSM's policy",
			ns->flagname, strerror(e), ns->flagname);
}

int probe_ns_mount(struct probe_out *o)
{
	static const struct nsinfo ns = { CLONE_NEWNS, "CLONE_NEWNS", "mnt",
					  "CONFIG_NAMESPACES" };
	return probe_ns(o, &ns);
}

int probe_ns_pid(struct probe_out *o)
{
	static const struct nsinfo ns = { CLONE_NEWPID, "CLONE_NEWPID", "pid",
					  "CONFIG_PID_NS" };
	return probe_ns(o, &ns);
}

int probe_ns_ipc(struct probe_out *o)
{
	static const struct nsinfo ns = { CLONE_NEWIPC, "CLONE_NEWIPC", "ipc",
					  "CONFIG_IPC_NS" };
	return probe_ns(o, &ns);
}

int probe_ns_uts(struct probe_out *o)
{
	static const struct nsinfo ns = { CLONE_NEWUTS, "CLONE_NEWUTS", "uts",
					  "CONFIG_UTS_NS" };
	return probe_ns(o, &ns);
}

int probe_ns_net(struct probe_out *o)
{
	static const struct nsinfo ns = { CLONE_NEWNET, "CLONE_NEWNET", "net",
					  "CONFIG_NET_NS" };
	return probe_ns(o, &ns);
}

int probe_ns_cgroup(struct probe_out *o)
{
	static const struct nsinfo ns = { CLONE_NEWCGROUP, "CLONE_NEWCGROUP",
					  "cgroup", "CONFIG_CGROUPS" };
	return probe_ns(o, &ns);
}

/* pid 1 of the new pid namespace: mount a fresh procfs on /proc and check
 * that it shows this namespace. Returns an exit code: 0, an errno, or
 * PROC_WRONG_NS. */
static int proc_as_pid1(void)
{
	char self[16];
	ssize_t n;

	if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC,
		  NULL) < 0)
		return errno ? errno : EPERM;
	n = readlink("/proc/self", self, sizeof(self) - 1);
	if (n < 0)
		return errno;
	self[n] = '\0';
	return strcmp(self, "1") ? PROC_WRONG_NS : 0;
}

/* Count mounts that cover parts of /proc (a container runtime's masks such
 * as /proc/kcore or a read-only /proc/sys): with them the kernel refuses a
 * new procfs (mount_too_revealing). binfmt_misc sits on a permanently
 * empty directory and does not count. */
/* The fifth blank-separated word of line (a mountinfo line's mount
 * point), as sscanf(line, "%*s %*s %*s %*s %4095s") would read it, in
 * place: NULL when there is none. */
static char *fifth_word(char *line)
{
	char *w = line;

	for (int i = 0; i < 5; i++) {
		while (isspace((unsigned char)*w))
			w++;
		if (!*w)
			return NULL;
		line = w;
		while (*w && !isspace((unsigned char)*w))
			w++;
	}
	*w = '\0';
	return line;
}

static int count_proc_masks(char *first, size_t len)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char line[4096], *mp;
	int n = 0;

	*first = '\0';
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (!(mp = fifth_word(line)))
			continue;
		if (strncmp(mp, "/proc/", 6) ||
		    !strcmp(mp, "/proc/sys/fs/binfmt_misc"))
			continue;
		if (!n++)
			snprintf(first, len, "%.200s", mp);
	}
	fclose(f);
	return n;
}

static int proc_missing(struct probe_out *o, int err)
{
	char first[256];
	int n = err == EPERM ? count_proc_masks(first, sizeof(first)) : 0;

	if (n > 0)
		return probe_set(
			o, 0,
			"mount proc on /proc in a new pid namespace "
			"failed: %s: %d mount%s mask%s parts of this /proc "
			"(e.g. %s), as container runtimes do, and the kernel "
			"then refuses a fresh procfs; fix: run the container "
			"with /proc unmasked (docker: --security-opt "
			"systempaths=unconfined; podman: --security-opt "
			"unmask=ALL; Kubernetes: procMount: Unmasked)",
			strerror(err), n, n == 1 ? "" : "s", n == 1 ? "s" : "",
			first);
	else
		return probe_set(
			o, 0,
			"mount proc on /proc in a new pid namespace "
			"failed: %s: no mask over /proc found: an LSM or a "
			"seccomp filter refuses the mount; fix: allow mount "
			"in user namespaces in that policy",
			strerror(err));
}

int probe_proc(struct probe_out *o)
{
	const char *step;
	pid_t pid;
	int st;

	if (check_enter_userns(&step) < 0)
		return probe_set(o, 0, "%s failed: %s (see user-ns)", step,
				 strerror(errno));
	if (unshare(CLONE_NEWNS | CLONE_NEWPID) < 0)
		return probe_set(o, 0,
				 "unshare(CLONE_NEWNS|CLONE_NEWPID) "
				 "failed: %s (see mount-ns, pid-ns)",
				 strerror(errno));
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		return probe_set(o, 0,
				 "make / private failed: %s (see "
				 "user-ns)",
				 strerror(errno));
	pid = fork();
	if (pid < 0)
		return probe_set(o, 0,
				 "fork into the new pid namespace "
				 "failed: %s",
				 strerror(errno));
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		_exit(proc_as_pid1());
	}
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return probe_set(o, 0, "waitpid: %s", strerror(errno));
	if (!WIFEXITED(st))
		return probe_set(o, 0, "pid 1 of the probe died by signal %d",
				 WTERMSIG(st));
	else if (WEXITSTATUS(st) == PROC_WRONG_NS)
		return probe_set(o, 0,
				 "a procfs mounted but /proc/self is not pid 1 "
				 "of the new pid namespace");
	else if (WEXITSTATUS(st))
		return proc_missing(o, WEXITSTATUS(st));
	else
		return probe_set(o, 1,
				 "a fresh procfs mounted on /proc in a new pid "
				 "namespace (/proc/self is 1)");
}
