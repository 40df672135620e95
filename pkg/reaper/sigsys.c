#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/audit.h>
#include <linux/seccomp.h>

#include "reaper/denials.h"
#include "reaper/sigsys.h"
#include "scnames/scnames.h"

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_pidfd_send_signal
#define SYS_pidfd_send_signal 424
#endif
#define PIDFD_THREAD_FLAG O_EXCL	/* PIDFD_THREAD, Linux 6.9 */
#define X32_BIT 0x40000000
/* Linux 6.6: wake pid 1 on the caller's CPU and the caller on pid 1's
 * (a hand-over, not a wake-up through the run queue): a call that
 * waits for pid 1 costs microseconds instead of a scheduling slice on
 * a loaded machine. Not in the build's 6.1 headers. */
#ifndef SECCOMP_IOCTL_NOTIF_SET_FLAGS
#define SECCOMP_IOCTL_NOTIF_SET_FLAGS SECCOMP_IOW(4, __u64)
#endif
#define SYNC_WAKE_UP 1ULL	/* SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP */

/* i386's name for nr (an int 0x80 call), from the build's uapi header
 * (the Makefile generates it), or NULL. */
static const char *i386_name(unsigned nr)
{
	switch (nr) {
#define SC_SYSCALL(name, nr) case nr: return #name;
#include "syscalls_i386.h"
#undef SC_SYSCALL
	}
	return NULL;
}

int sigsys_pollfd(const struct sigsys_sup *s)
{
	return s->listener >= 0 ? s->listener : s->sock;
}

/* The one message pysbx-seccomp sends: a byte and the listener. Anything
 * else (EOF: no filter with kills was loaded) closes the socket. */
static void take_listener(struct sigsys_sup *s)
{
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(2 * sizeof(int))];
	} u;
	struct msghdr mh = { 0 };
	struct cmsghdr *cm;
	struct iovec iov;
	char msg[1 + sizeof(s->report_set)];
	__u64 id = 0;
	ssize_t r;

	iov = (struct iovec){ msg, sizeof(msg) };
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	mh.msg_control = u.buf;
	mh.msg_controllen = sizeof(u.buf);
	r = recvmsg(s->sock, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
	if (r < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	/* With report denials, the numbers of the reported calls follow
	 * (seccomp/compile.c send_fd); any other length: none. */
	if (r == (ssize_t)sizeof(msg) && s->plan) {
		memcpy(s->report_set, msg + 1, sizeof(s->report_set));
		s->reporting = true;
	}
	for (cm = r > 0 ? CMSG_FIRSTHDR(&mh) : NULL; cm;
	     cm = CMSG_NXTHDR(&mh, cm)) {
		size_t n;
		int fd[2];

		if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS)
			continue;
		n = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		if (n > 2)
			n = 2;	/* the buffer holds no more (MSG_CTRUNC) */
		memcpy(fd, CMSG_DATA(cm), n * sizeof(int));
		for (size_t i = 0; i < n; i++) {
			/* A listener answers ENOENT for an unknown id. */
			if (s->listener < 0 &&
			    ioctl(fd[i], SECCOMP_IOCTL_NOTIF_ID_VALID, &id) < 0 &&
			    errno == ENOENT) {
				s->listener = fd[i];
				/* Only where calls come often: report
				 * denials. Refused by an older kernel:
				 * the ordinary wake-up. */
				if (s->reporting)
					ioctl(fd[i],
					      SECCOMP_IOCTL_NOTIF_SET_FLAGS,
					      SYNC_WAKE_UP);
			} else {
				close(fd[i]);
			}
		}
	}
	close(s->sock);
	s->sock = -1;
}

/* A number from a procfs file ("Pid:\t123"), or 0. */
long sigsys_proc_field(int dirfd, const char *path, const char *key,
		       char *name, size_t namelen)
{
	char buf[2048], *p;
	ssize_t n;
	long v = 0;
	int fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);

	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	if (name && !strncmp(buf, "Name:\t", 6)) {
		size_t i = 0;

		/* The process chose it: only plain characters go on. */
		for (p = buf + 6; *p && *p != '\n' && i + 1 < namelen; p++)
			name[i++] = (*p >= 'A' && *p <= 'Z') ||
						    (*p >= 'a' && *p <= 'z') ||
						    (*p >= '0' && *p <= '9') ||
						    strchr("._+-:=@", *p) ?
					    *p : '?';
		name[i] = '\0';
	}
	for (p = buf; (p = strstr(p, key)); p++)
		if (p == buf || p[-1] == '\n') {
			v = strtol(p + strlen(key), NULL, 10);
			break;
		}
	return v > 0 ? v : 0;
}

/* The pid the host's procfs shows for a pidfd (fdinfo's Pid is in the
 * procfs's pid namespace), or 0. */
long sigsys_host_pid(const struct sigsys_sup *s, int pidfd)
{
	char path[48];

	if (s->hostproc < 0 || pidfd < 0)
		return 0;
	snprintf(path, sizeof(path), "self/fdinfo/%d", pidfd);
	return sigsys_proc_field(s->hostproc, path, "Pid:\t", NULL, 0);
}

static void describe(const struct seccomp_notif *req, char *name,
		     size_t namelen, char *arch, size_t archlen, int *nr)
{
	const char *n = NULL;

	*nr = req->data.nr;
	if (req->data.arch == AUDIT_ARCH_X86_64 && (*nr & X32_BIT)) {
		*nr &= ~X32_BIT;
		snprintf(arch, archlen, "x32");
	} else if (req->data.arch == AUDIT_ARCH_X86_64) {
		n = sc_syscall_name(*nr);
		snprintf(arch, archlen, "x86_64");
	} else if (req->data.arch == AUDIT_ARCH_I386) {
		n = i386_name((unsigned)*nr);
		snprintf(arch, archlen, "i386");
	} else {
		snprintf(arch, archlen, "0x%x", req->data.arch);
	}
	if (n)
		snprintf(name, namelen, "\"%s\"", n);
	else
		snprintf(name, namelen, "null");
}

static void record(struct sigsys_sup *s, const struct seccomp_notif *req,
		   const char *comm, bool target)
{
	char name[48], arch[16], line[400];
	int nr, n;

	describe(req, name, sizeof(name), arch, sizeof(arch), &nr);
	if (s->report_fd < 0) {
		/* No guard to explain it: say it here. */
		if (name[0] == '"')
			fprintf(stderr, "pysbx-mount: the syscall filter killed "
				"pid %u (%s): syscall %.*s (%s nr %d)\n",
				req->pid, comm, (int)strlen(name) - 2, name + 1,
				arch, nr);
		else
			fprintf(stderr, "pysbx-mount: the syscall filter killed "
				"pid %u (%s): syscall nr %d of %s\n", req->pid,
				comm, nr, arch);
		return;
	}
	n = snprintf(line, sizeof(line),
		     "{\"stage\":\"mount\",\"event\":\"sigsys\",\"syscall\":%s,"
		     "\"nr\":%d,\"arch\":\"%s\",\"pid\":%u,\"comm\":\"%s\","
		     "\"target\":%s,\"kills\":%u}\n",
		     name, nr, arch, req->pid, comm, target ? "true" : "false",
		     s->kills);
	if (n > 0 && (size_t)n < sizeof(line) &&
	    write(s->report_fd, line, (size_t)n) != n) {
		/* advisory: the kill itself is what counts */
	}
}

/* SIGKILL through the pidfd; true when it was sent or the caller is
 * already gone. */
static bool kill_caller(int pidfd)
{
	if (pidfd < 0)
		return false;
	return syscall(SYS_pidfd_send_signal, pidfd, SIGKILL, NULL, 0) == 0 ||
	       errno == ESRCH;
}

static void on_notification(struct sigsys_sup *s)
{
	struct seccomp_notif req;
	struct seccomp_notif_resp resp;
	char comm[20] = "?", path[32];
	long thread_host, tgid_host = 0;
	bool valid, target;
	int pidfd = -1;

	memset(&req, 0, sizeof(req));
	if (ioctl(s->listener, SECCOMP_IOCTL_NOTIF_RECV, &req) < 0)
		return;	/* the caller went away (killed, or a signal) */
	/* A path call of report denials: never a kill (the compiler
	 * sends only calls the policy allows outright). */
	if (s->plan && denials_is_report(s, &req)) {
		denials_notified(s, &req);
		return;
	}
	/* The pidfd first, then the check that the notification is still
	 * pending: only then is req.pid still the caller (the filter's
	 * WAIT_KILLABLE_RECV keeps it waiting now that we received it). A
	 * thread's pidfd needs PIDFD_THREAD (6.9); a leader's does not. */
	if (req.pid > 0) {
		pidfd = (int)syscall(SYS_pidfd_open, req.pid,
				     PIDFD_THREAD_FLAG);
		if (pidfd < 0)
			pidfd = (int)syscall(SYS_pidfd_open, req.pid, 0);
	}
	valid = ioctl(s->listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &req.id) == 0;
	if (valid && (thread_host = sigsys_host_pid(s, pidfd)) > 0) {
		snprintf(path, sizeof(path), "%ld/status", thread_host);
		tgid_host = sigsys_proc_field(s->hostproc, path, "Tgid:\t", comm,
				       sizeof(comm));
	}
	/* SIGKILL: uncatchable, and to the whole thread group, as
	 * KILL_PROCESS. Without a pidfd for a caller still waiting, end the
	 * sandbox instead (fail closed: pid 1 runs this only in its own
	 * pid namespace, where kill(-1) reaches exactly the sandbox). */
	if (valid && !kill_caller(pidfd))
		kill(-1, SIGKILL);
	/* An error, never SECCOMP_USER_NOTIF_FLAG_CONTINUE: should the
	 * caller still run when this arrives, the call fails. */
	memset(&resp, 0, sizeof(resp));
	resp.id = req.id;
	resp.error = -EPERM;
	ioctl(s->listener, SECCOMP_IOCTL_NOTIF_SEND, &resp);
	if (!valid) {
		if (pidfd >= 0)
			close(pidfd);
		return;
	}
	if (!s->target_host) {
		int t = (int)syscall(SYS_pidfd_open, s->target, 0);

		s->target_host = sigsys_host_pid(s, t);
		if (t >= 0)
			close(t);
	}
	target = tgid_host && s->target_host ? tgid_host == s->target_host
					     : (pid_t)req.pid == s->target;
	if (target)
		s->target_killed = true;
	if (pidfd >= 0)
		close(pidfd);
	if (++s->kills <= SIGSYS_MAX_RECORDS || target)
		record(s, &req, comm, target);
}

void sigsys_ready(struct sigsys_sup *s, short revents)
{
	if (s->listener < 0) {
		if (s->sock >= 0)
			take_listener(s);
		return;
	}
	if (revents & POLLIN) {
		on_notification(s);
	} else if (revents & (POLLHUP | POLLERR | POLLNVAL)) {
		/* No process is left under the filter: nothing to wait
		 * for (and a hung-up fd would keep poll from sleeping). */
		close(s->listener);
		s->listener = -1;
	}
}
