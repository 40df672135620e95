/* The tree kill. Inside the chain, the sandbox's pid namespace makes it
 * exact (pid 1 dying takes everything with it); this is the guard's own
 * net, which also works standalone: the guard is a child subreaper, so
 * every orphan of the sandbox becomes its child, and every process whose
 * parent chain leads to the guard is found in the host's /proc. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "guard/guard.h"
#include "util/file.h"

/* Unified numbers (the same on every architecture), for older headers. */
#ifndef SYS_pidfd_send_signal
#define SYS_pidfd_send_signal 424
#endif
#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif

#define KILL_ROUNDS 500		/* 10 ms each at most: a stuck process */
#define KILL_FAST 2000		/* children-list rounds: microseconds each */

struct proc {
	pid_t pid, ppid;
	unsigned long long start;	/* starttime: pid + start is unique */
	char state;
	signed char desc;		/* -1 unknown, 0 no, 1 descendant */
};

static int read_stat(int procfd, pid_t pid, struct proc *p)
{
	char path[32], buf[1024], *s, *end;

	snprintf(path, sizeof(path), "%d/stat", (int)pid);
	if (file_read_at(procfd, path, buf, sizeof(buf)) <= 0)
		return -1;
	/* comm may hold spaces and parentheses: the last ')' ends it. */
	s = strrchr(buf, ')');
	if (!s || s[1] != ' ' || !s[2])
		return -1;
	p->pid = pid;
	p->state = s[2];
	s += 3;
	p->ppid = (pid_t)strtol(s, &end, 10);
	/* Fields 5..21 to skip, then starttime (22). */
	for (int i = 5; i <= 22; i++) {
		unsigned long long v = strtoull(end, &s, 10);

		if (s == end)
			return -1;
		end = s;
		if (i == 22)
			p->start = v;
	}
	p->desc = -1;
	return 0;
}

static int by_pid(const void *a, const void *b)
{
	const struct proc *x = a, *y = b;

	return (x->pid > y->pid) - (x->pid < y->pid);
}

static int descendant(struct proc *ps, size_t n, size_t i, pid_t self)
{
	size_t path[64], k = 0;
	int r = 0;

	/* Walk up until an answer is known; memoise on the way back. */
	for (;;) {
		struct proc key, *p;

		if (ps[i].desc >= 0) {
			r = ps[i].desc;
			break;
		}
		if (ps[i].ppid == self) {
			r = 1;
			ps[i].desc = 1;
			break;
		}
		key.pid = ps[i].ppid;
		p = ps[i].ppid > 1 ? bsearch(&key, ps, n, sizeof(*ps), by_pid)
				   : NULL;
		if (!p) {
			ps[i].desc = 0;
			break;
		}
		if (k < sizeof(path) / sizeof(path[0]))
			path[k++] = i;
		i = (size_t)(p - ps);
	}
	while (k)
		ps[path[--k]].desc = (signed char)r;
	return r;
}

/* SIGKILL pid if it is still the process we saw (same start time). */
static int kill_checked(int procfd, const struct proc *p)
{
	struct proc again;
	int pfd = (int)syscall(SYS_pidfd_open, p->pid, 0), r;

	if (pfd < 0) {
		if (errno != ENOSYS)
			return 0;
		return kill(p->pid, SIGKILL) == 0;	/* before Linux 5.3 */
	}
	r = read_stat(procfd, p->pid, &again) == 0 &&
	    again.start == p->start &&
	    syscall(SYS_pidfd_send_signal, pfd, SIGKILL, NULL, 0) == 0;
	close(pfd);
	return r;
}

int kill_descendants(pid_t pgid)
{
	struct proc *ps = NULL, *np;
	size_t n = 0, cap = 0;
	pid_t self = getpid();
	struct dirent *e;
	int procfd, fd, count = 0;
	DIR *dp;

	if (pgid > 0 && kill(-pgid, SIGKILL) == 0)
		count++;
	procfd = openat(AT_FDCWD, "/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (procfd < 0)
		return count;
	fd = dup(procfd);
	dp = fd >= 0 ? fdopendir(fd) : NULL;
	if (!dp) {
		if (fd >= 0)
			close(fd);
		close(procfd);
		return count;
	}
	while ((e = readdir(dp))) {
		char *end;
		long pid = strtol(e->d_name, &end, 10);

		if (*end || pid <= 0 || pid == self)
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 256;
			np = realloc(ps, cap * sizeof(*ps));
			if (!np)
				break;
			ps = np;
		}
		if (read_stat(procfd, (pid_t)pid, &ps[n]) == 0)
			n++;
	}
	closedir(dp);
	if (n)
		qsort(ps, n, sizeof(*ps), by_pid);
	for (size_t i = 0; i < n; i++)
		if (descendant(ps, n, i, self) && ps[i].state != 'Z' &&
		    ps[i].state != 'X')
			count += kill_checked(procfd, &ps[i]);
	free(ps);
	close(procfd);
	return count;
}

/* SIGKILL every child the kernel lists for us (orphans of the tree are
 * re-parented to us, their subreaper): one read instead of a walk of all
 * of /proc, so a fork walker's newest generation is caught within
 * microseconds of becoming ours. A child not yet reaped keeps its pid,
 * so kill(2) by pid cannot hit another process. The number signalled,
 * or -1 when the kernel has no children list (CONFIG_PROC_CHILDREN). */
static int kill_children(void)
{
	char path[48], buf[4096], *s, *end;
	ssize_t len;
	int n = 0;

	snprintf(path, sizeof(path), "/proc/self/task/%d/children",
		 (int)getpid());
	len = file_read_at(AT_FDCWD, path, buf, sizeof(buf));
	if (len < 0)
		return -1;
	for (s = buf; s < buf + len; s = end) {
		long pid = strtol(s, &end, 10);

		if (end == s)
			break;
		if (pid > 0 && kill((pid_t)pid, SIGKILL) == 0)
			n++;
	}
	return n;
}

static void reap(pid_t child, int *status, bool *reaped)
{
	pid_t p;
	int st;

	while ((p = waitpid(-1, &st, WNOHANG | __WALL)) > 0)
		if (p == child && !*reaped) {
			*status = st;
			*reaped = true;
		}
}

/* As a subreaper the guard inherits every orphan of its tree, so "no
 * child at all" proves that no descendant is left: the /proc walk, whose
 * cost grows with the host's process count, is then not needed. */
static bool no_children(void)
{
	siginfo_t si;

	return waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT | __WALL) < 0 &&
	       errno == ECHILD;
}

int kill_tree(pid_t pgid, int sfd, pid_t child, int *status, bool *reaped)
{
	struct pollfd pfd = { .fd = sfd, .events = POLLIN };
	struct timespec ts = { 0, 10 * 1000 * 1000 };
	char drain[512];

	/* The sandbox's cgroup, if it has one: every process of it at
	 * once. The loops below then find nothing, or what left it. */
	guard_cgroup_kill();
	/* First our own children, as fast as the kernel lists them: a fork
	 * walker's generations become ours one after the other. */
	for (int round = 0; round < KILL_FAST; round++) {
		reap(child, status, reaped);
		if (no_children())
			return 0;
		if (kill_children() <= 0)
			break;	/* the rest are deeper: the /proc walk */
		sched_yield();	/* let the killed ones exit */
	}
	for (int round = 0; round < KILL_ROUNDS; round++) {
		reap(child, status, reaped);
		if (no_children())
			return 0;
		/* The group id is safe to signal only while its leader is
		 * unreaped: after that the number may be reused. */
		int n = kill_descendants(*reaped ? 0 : pgid);

		reap(child, status, reaped);
		if (n == 0)
			return 0;
		/* Wait for a SIGCHLD (or 10 ms: a grandchild's death is
		 * not ours to hear about). */
		if (ppoll(&pfd, 1, &ts, NULL) > 0)
			while (read(sfd, drain, sizeof(drain)) > 0)
				;
		reap(child, status, reaped);
	}
	return -1;
}
