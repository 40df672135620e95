/* The sandbox in a cgroup v2 of its own, where the caller runs in a
 * cgroup delegated to it (systemd's Delegate=yes, a container's own
 * cgroup namespace): then the tree kill is one write to cgroup.kill,
 * which the kernel carries out for every process of the cgroup at once
 * and which no fork can outrun (a fork into a cgroup being killed
 * fails). Without one (no cgroup v2, a v1-only or hybrid host whose v2
 * cgroup is not the caller's, a kernel before 5.14 without cgroup.kill)
 * nothing here is used, and the kill loop (kill.c) does the whole job;
 * it runs after cgroup.kill anyway, for anything that left the cgroup.
 *
 * Best effort and silent: nothing here can fail a run. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <linux/magic.h>
#include <unistd.h>

#include "guard/guard.h"
#include "util/file.h"

static int cg_parent = -1;	/* the caller's cgroup directory */
static int cg_procs = -1;	/* ours: cgroup.procs, for the child */
static char cg_name[32];	/* ours: "pysbx-PID" under cg_parent */

/* Where the cgroup v2 hierarchy is mounted: /sys/fs/cgroup (a v2-only
 * host) or /sys/fs/cgroup/unified (a hybrid one, systemd's layout). */
static const char *v2_mount(void)
{
	static const char *const where[] = { "/sys/fs/cgroup",
					     "/sys/fs/cgroup/unified" };
	struct statfs sf;

	for (size_t i = 0; i < 2; i++)
		if (statfs(where[i], &sf) == 0 &&
		    sf.f_type == CGROUP2_SUPER_MAGIC)
			return where[i];
	return NULL;
}

/* "0::/PATH" of /proc/self/cgroup: our cgroup v2. */
static int own_cgroup(char *out, size_t len)
{
	char buf[1024], *p;
	ssize_t n = file_read_at(AT_FDCWD, "/proc/self/cgroup", buf,
				 sizeof(buf) - 1);

	if (n <= 0)
		return -1;
	buf[n] = '\0';
	p = strncmp(buf, "0::", 3) ? strstr(buf, "\n0::") : buf - 1;
	if (!p)
		return -1;
	p += 4;
	p[strcspn(p, "\n")] = '\0';
	if (*p != '/' || strstr(p, "/.."))
		return -1;
	snprintf(out, len, "%s", p);
	return 0;
}

/* Remove the empty pysbx-PID cgroups of guards that are gone (one
 * SIGKILLed could not remove its own). */
static void sweep_stale(void)
{
	int fd = openat(cg_parent, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *dp = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *e;

	if (!dp) {
		if (fd >= 0)
			close(fd);
		return;
	}
	while ((e = readdir(dp))) {
		char *end;
		long pid;

		if (strncmp(e->d_name, "pysbx-", 6))
			continue;
		pid = strtol(e->d_name + 6, &end, 10);
		/* rmdir of a cgroup that still has a process fails. */
		if (!*end && pid > 0 && kill((pid_t)pid, 0) < 0 &&
		    errno == ESRCH)
			unlinkat(cg_parent, e->d_name, AT_REMOVEDIR);
	}
	closedir(dp);
}

int guard_cgroup_open(void)
{
	char path[640], own[512];
	const char *mnt;
	struct stat st;
	int fd;

	/* Root passes every permission check: whether its cgroup was
	 * delegated to it cannot be told, and a system cgroup is not for
	 * pysbx to divide. */
	if (geteuid() == 0 || !(mnt = v2_mount()) ||
	    own_cgroup(own, sizeof(own)) < 0 ||
	    (size_t)snprintf(path, sizeof(path), "%s%s", mnt, own) >=
		    sizeof(path))
		return -1;
	fd = openat(AT_FDCWD, path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	/* Delegated to the caller: its directory and cgroup.procs are the
	 * caller's to write (moving a process needs the latter, in the
	 * common ancestor of both cgroups). */
	if (fstat(fd, &st) < 0 || st.st_uid != geteuid() ||
	    faccessat(fd, "cgroup.procs", W_OK, AT_EACCESS) < 0) {
		close(fd);
		return -1;
	}
	cg_parent = fd;
	sweep_stale();
	snprintf(cg_name, sizeof(cg_name), "pysbx-%d", (int)getpid());
	if (mkdirat(fd, cg_name, 0755) < 0 && errno != EEXIST)
		goto fail;
	snprintf(path, sizeof(path), "%s/cgroup.kill", cg_name);
	if (faccessat(fd, path, W_OK, AT_EACCESS) < 0)
		goto fail_rmdir;
	snprintf(path, sizeof(path), "%s/cgroup.procs", cg_name);
	cg_procs = openat(fd, path, O_WRONLY | O_CLOEXEC);
	if (cg_procs < 0)
		goto fail_rmdir;
	return cg_procs;
fail_rmdir:
	unlinkat(fd, cg_name, AT_REMOVEDIR);
fail:
	close(fd);
	cg_parent = -1;
	return -1;
}

int guard_cgroup_procs(void)
{
	return cg_procs;
}

static int cg_write(const char *file, const char *val)
{
	char path[64];
	int fd, r;

	snprintf(path, sizeof(path), "%s/%s", cg_name, file);
	fd = openat(cg_parent, path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	r = write(fd, val, strlen(val)) < 0 ? -1 : 0;
	close(fd);
	return r;
}

static ssize_t cg_read(const char *file, char *buf, size_t len)
{
	char path[64];

	snprintf(path, sizeof(path), "%s/%s", cg_name, file);
	return file_read_at(cg_parent, path, buf, len);
}

/* Frozen within about 50 ms? (A task in uninterruptible sleep delays
 * it; then the loops alone do the kill.) */
static bool frozen(void)
{
	struct timespec ms = { 0, 1000 * 1000 };
	char buf[256];

	for (int i = 0; i < 50; i++) {
		ssize_t n = cg_read("cgroup.events", buf, sizeof(buf) - 1);

		if (n <= 0)
			return false;
		buf[n] = '\0';
		if (strstr(buf, "frozen 1"))
			return true;
		nanosleep(&ms, NULL);
	}
	return false;
}

/* Is pid a descendant of the guard (its parent chain leads here)? */
static bool descendant(pid_t pid)
{
	pid_t self = getpid();

	for (int depth = 0; depth < 4096 && pid > 1; depth++) {
		char path[32], buf[512], *s;

		snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
		if (file_read_at(AT_FDCWD, path, buf, sizeof(buf) - 1) <= 0)
			return false;
		buf[sizeof(buf) - 1] = '\0';
		s = strrchr(buf, ')');
		if (!s || sscanf(s + 2, "%*c %d", &pid) != 1)
			return false;
		if (pid == self)
			return true;
	}
	return false;
}

/* Every process in the cgroup is ours to kill: the sandbox's own. One
 * that is not was moved in (by a sandbox that can write the caller's
 * cgroup files): then cgroup.kill is not used, and the loops kill only
 * the guard's descendants. */
static bool only_ours(void)
{
	char buf[4096], *s, *end;
	ssize_t n = cg_read("cgroup.procs", buf, sizeof(buf) - 1);

	if (n < 0 || n == (ssize_t)sizeof(buf) - 1)
		return false;
	buf[n] = '\0';
	for (s = buf; *s; s = end) {
		long pid = strtol(s, &end, 10);

		if (end == s)
			break;
		if (!descendant((pid_t)pid))
			return false;
	}
	return true;
}

void guard_cgroup_kill(void)
{
	if (cg_parent < 0)
		return;
	/* Frozen, the sandbox can neither fork nor move a process in or
	 * out while the guard checks what the cgroup holds. */
	if (cg_write("cgroup.freeze", "1") < 0)
		return;
	if (frozen() && only_ours())
		cg_write("cgroup.kill", "1");
	/* Killed tasks exit even while frozen; the rest (none of ours, or
	 * all of them when the kill was not made) run on for the loops. */
	cg_write("cgroup.freeze", "0");
}

void guard_cgroup_close(void)
{
	if (cg_procs >= 0)
		close(cg_procs);
	cg_procs = -1;
	if (cg_parent < 0)
		return;
	/* Empty once every process of it exited; else (one that would not
	 * die) it stays, and a later guard's sweep removes it. */
	unlinkat(cg_parent, cg_name, AT_REMOVEDIR);
	close(cg_parent);
	cg_parent = -1;
}
