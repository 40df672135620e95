/* The three processes of pysbx-mount: the monitor, pid 1 and the child
 * that execs the next step (see mnt.h). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "egress/egress.h"
#include "mnt/internal.h"
#include "mnt/sys.h"
#include "reaper/reaper.h"

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434	/* the same on every architecture */
#endif

extern char **environ;

static int exec_pipe = -1;	/* child -> pid 1: one byte = setup failed */
/* Set by pid 1 (in the memory the monitor shares) while only the target
 * runs: pid 1 then allocates nothing, so a SIGKILL of it leaves the heap
 * whole for the monitor's check (mnt_protect_killed). */
static volatile sig_atomic_t pid1_waiting;

char **mnt_take_environ(void)
{
	size_t n = 0;
	char **copy;

	while (environ && environ[n])
		n++;
	copy = calloc(n + 1, sizeof(*copy));
	if (!copy)
		return NULL;
	for (size_t i = 0; i < n; i++)
		if (!(copy[i] = strdup(environ[i])))
			return NULL;
	/* The strings live on the initial stack, which /proc/PID/environ
	 * shows: wipe them there. */
	for (size_t i = 0; i < n; i++)
		memset(environ[i], 0, strlen(environ[i]));
	static char *empty[1];
	environ = empty;
	return copy;
}

int mnt_take_argv(int argc, char **argv)
{
	static const char name[] = "pysbx-mount";
	char *start, *end;
	size_t len;

	if (argc < 1)
		return 0;
	start = argv[0];
	end = argv[argc - 1] + strlen(argv[argc - 1]) + 1;
	for (int i = 0; i < argc; i++)
		if (!(argv[i] = strdup(argv[i])))
			return -1;
	/* The strings live on the initial stack, which /proc/PID/cmdline
	 * shows for pid 1 too (it shares our memory): the toolkit's host
	 * path, the policy's, the -D values. What it shows instead is the
	 * bare name: the area's last byte is not NUL, so the kernel reads
	 * it as a process title up to the first NUL (setproctitle's rule). */
	if (end <= start || end - start > (1 << 20))
		return 0;	/* not one block: leave it */
	len = (size_t)(end - start);
	memset(start, 0, len);
	memcpy(start, name, len - 1 < sizeof(name) - 1 ? len - 1
						   : sizeof(name) - 1);
	if (len > sizeof(name))
		start[len - 1] = ' ';
	return 0;
}

static void exec_failed(void)
{
	if (exec_pipe >= 0 && write(exec_pipe, "x", 1) < 0)
		_exit(EXIT_SYSCALL);
}

static void report_started(int fd, pid_t pid)
{
	char line[80];
	int n;

	if (fd < 0)
		return;
	n = snprintf(line, sizeof(line),
		     "{\"stage\":\"mount\",\"event\":\"started\",\"pid\":%d}\n",
		     (int)pid);
	if (write(fd, line, (size_t)n) != n) {
		/* advisory: the exit code is authoritative */
	}
}

/* The child of pid 1: lock, drop, and exec the next step. It is a vfork
 * child: it runs in pid 1's memory (no page tables to copy, no
 * copy-on-write faults, nothing to tear down at its exec) while pid 1
 * waits, so it never returns: it execs or reports and _exits. The fds it
 * leaves open are close-on-exec. */
static _Noreturn void child(struct diag *d, struct mnt_ctx *m, int procfd,
			    const sigset_t *mask, mode_t umask_)
{
	if (mnt_enter_locked_ns(d, procfd, m->plan->ns & NS_MOUNT) < 0)
		goto fail;
	umask(umask_);
	if (mnt_drop_caps(d) < 0)
		goto fail;
	if (sigprocmask(SIG_SETMASK, mask, NULL) < 0) {
		diag_fail(d, EXIT_SYSCALL, errno,
			  "unable to restore the signal mask");
		goto fail;
	}
	chain_exec(d, m->chain, m->envp);
fail:
	exec_failed();
	diag_emit(d);
	_exit(d->code ? d->code : EXIT_SYSCALL);
}

/* vfork in a function of its own: after it returns in pid 1 nothing of
 * this frame is used again but the result. */
static pid_t spawn_child(struct diag *d, struct mnt_ctx *m, int procfd,
			 const sigset_t *mask, mode_t umask_)
{
	pid_t pid = vfork();

	if (pid == 0)
		child(d, m, procfd, mask, umask_);
	return pid;
}

/* pid 1 joins the target's (locked) mount namespace, and its own goes
 * at once: tearing a mount namespace down waits for an RCU grace period,
 * which now passes while the target starts instead of between the
 * target's exit and ours. Nothing to check: a speed-up only (setns on a
 * pidfd needs Linux 5.8), and pid 1 touches no file after this. */
static void join_mount_ns(pid_t child)
{
	int fd = (int)syscall(SYS_pidfd_open, child, 0);

	if (fd >= 0) {
		setns(fd, CLONE_NEWNS);	/* failed: pid 1 keeps its own */
		close(fd);
	}
}

/* What pid 1 can do before its maps exist (capabilities in its new
 * namespaces are its own from the clone on). The proxy's listener is
 * made here, in the new network namespace once lo is up, and handed
 * over at once: nothing of the sandbox exists yet that could hold it. */
static int pid1_early(struct diag *d, const struct plan *p, int fd)
{
	if (p->hostname && sethostname(p->hostname, strlen(p->hostname)) < 0)
		return diag_fail(d, EXIT_SYSCALL, errno,
				 "unable to set the hostname %s", p->hostname);
	if ((p->ns & NS_NET) && mnt_lo_up(d) < 0)
		return -1;
	if (fd >= 0 && egress_listen_send(d, fd, p->proxy_port) < 0)
		return -1;
	return 0;
}

/* What pid 1 is given: it runs in the monitor's memory (see mnt_sandbox)
 * on a stack of its own. */
struct pid1_args {
	struct diag *d;
	struct mnt_ctx *m;
	int hostproc;		/* the host's /proc, for our own maps */
	int sync[2];		/* the monitor holds [1] until it exits */
	int monitor_sfd;	/* the monitor's signalfd: not ours */
	const sigset_t *mask;
	uid_t uid;		/* the caller's, read before the clone */
	gid_t gid;
	pid_t hostpid;		/* ours, as the host sees it (the clone's
				 * CLONE_PARENT_SETTID writes it here) */
};

static bool monitor_gone(int sync_fd)
{
	return poll(&(struct pollfd){ .fd = sync_fd, .events = POLLIN }, 1,
		    0) != 0;
}

static int pid1(struct pid1_args *a)
{
	struct diag *d = a->d;
	struct mnt_ctx *m = a->m;
	const struct plan *p = m->plan;
	int procfd, ep[2], sv[2], status, early, sync_fd = a->sync[0];
	struct sigsys_sup ss = { 0 };
	mode_t old_umask;
	char c;
	pid_t pid;

	close(a->sync[1]);
	if (a->monitor_sfd >= 0)
		close(a->monitor_sfd);
	/* No parent-death signal: when the monitor dies (SIGKILL of the
	 * guard, of the front door, of their process group), pid 1 learns
	 * it from the pipe (the monitor holds its end until it exits), kills
	 * every process of the sandbox and still checks the protected tree
	 * before it exits (docs/MOUNT.md "protect"). Nothing else of the
	 * sandbox outlives the monitor. HUP already: it died before we
	 * started (getppid() cannot tell: 0 in a new pid namespace). */
	if (monitor_gone(sync_fd))
		_exit(EXIT_SYSCALL);
	/* The proxy's channel is closed in our fd table by the hand-over
	 * (the monitor closes its own copy once we are cloned). */
	early = pid1_early(d, p, m->proxy_fd);
	/* Our own maps: one line each, the caller's ids, which a process
	 * may write for its own user namespace. */
	if (mnt_write_maps(d, a->hostproc, p, a->uid, a->gid) < 0)
		return -1;
	close(a->hostproc);
	report_started(d->report_fd, a->hostpid);
	if (early < 0)
		return -1;
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0)
		return diag_fail(d, EXIT_SYSCALL, errno,
				 "unable to make pid 1 non-dumpable");
	old_umask = umask(0);
	if (p->ns & NS_MOUNT)
		procfd = mnt_build_root(d, m);
	else
		procfd = mnt_open_proc(d, AT_FDCWD, "/proc");
	if (procfd < 0)
		return -1;
	if (!p->nested_userns && mnt_limit_userns(d, procfd) < 0)
		return -1;
	if (pipe2(ep, O_CLOEXEC) < 0)
		return diag_fail(d, EXIT_SYSCALL, errno,
				 "unable to create a pipe");
	exec_pipe = ep[1];
	/* The syscall filter's kills come to us (reaper/sigsys.h): only
	 * as pid 1 of a pid namespace, which the target cannot kill. */
	ss.sock = ss.listener = -1;
	if ((p->ns & NS_PID) && chain_seccomp_follows("mount", m->chain->next)) {
		if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
			return diag_fail(d, EXIT_SYSCALL, errno,
					 "unable to create a socket pair");
		ss.sock = sv[0];
		m->chain->notify_fd = sv[1];
	} else if (p->report_denials && (p->ns & NS_PID)) {
		/* Never silently (docs/DENIALS.md); without a pid
		 * namespace pysbx-seccomp says it. */
		diag_warn(d, "report denials: denials are not reported in "
			  "this run (no pysbx-seccomp step follows)");
	}
	if (monitor_gone(sync_fd))
		return diag_fail(d, EXIT_SYSCALL, 0, "unable to start: the "
				 "monitor died");
	pid = spawn_child(d, m, procfd, a->mask, old_umask);
	if (pid < 0)
		return diag_fail(d, EXIT_SYSCALL, errno,
				 "unable to fork the target's process");
	/* Back here once the child has exec'd or exited. The later steps'
	 * fds were the child's to exec or pass on. */
	close(ep[1]);
	if (m->chain->notify_fd >= 0)
		close(m->chain->notify_fd);
	/* Kept for the supervisor: the host's procfs names the processes
	 * the filter kills (reaper/sigsys.c). */
	ss.hostproc = ss.sock >= 0 ? procfd : -1;
	if (ss.sock < 0)
		close(procfd);
	if (m->chain->next_fd >= 0)
		close(m->chain->next_fd);
	for (unsigned i = 0; i < m->chain->npass; i++)
		close(m->chain->pass_fds[i]);
	/* EOF (the exec closed the child's end): the exec happened. A
	 * byte: the child failed and has reported it: exit with its code
	 * and no target record. Waiting first keeps pid 1 off the CPU
	 * until the exec is through. */
	if (read(ep[0], &c, 1) == 1) {
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
		m->exit_code = reaper_code(status);
		return MNT_EXIT;
	}
	close(ep[0]);
	if (p->ns & NS_MOUNT)
		join_mount_ns(pid);
	/* pid 1 needs no privilege to reap and signal its own uid. */
	if (mnt_drop_caps(d) < 0) {
		kill(pid, SIGKILL);
		return -1;
	}
	ss.report_fd = d->report_fd;
	ss.target = pid;
	ss.plan = p->report_denials ? p : NULL;
	pid1_waiting = 1;
	m->exit_code = reaper_init(pid, sync_fd, d->report_fd, p->ns & NS_PID,
				   ss.sock >= 0 ? &ss : NULL);
	pid1_waiting = 0;
	/* Still holding the sandbox's view: what the run made under a
	 * protected name is reported before the guard learns the end. */
	if (p->ns & NS_MOUNT)
		m->exit_code = mnt_protect_check(d, m->exit_code);
	return MNT_EXIT;
}

/* pid 1's stack: 256 KiB (its deepest path, building the root, takes a
 * few tens) above a guard page; pages never touched cost nothing. Its
 * top, or NULL. */
#define PID1_STACK ((size_t)256 << 10)

static void *pid1_stack(void)
{
	char *s = mmap(NULL, PID1_STACK + 4096, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK,
		       -1, 0);

	if (s == MAP_FAILED || mprotect(s, 4096, PROT_NONE) < 0)
		return NULL;
	return s + PID1_STACK + 4096;
}

/* pid 1 never returns into the monitor's frames: it exits from here,
 * flushing and reporting as main would. */
static int pid1_entry(void *arg)
{
	struct pid1_args *a = arg;

	int r = pid1(a);

	/* The check is done, or the target never ran: a later start has
	 * nothing to check for this run. */
	mnt_protect_unrecord();
	if (r < 0)
		diag_exit(a->d);
	exit(a->m->exit_code);
}

int mnt_sandbox(struct diag *d, struct mnt_ctx *m)
{
	const struct plan *p = m->plan;
	struct pid1_args a = { 0 };
	int procfd, status;
	pid_t ppid = getppid(), pid;
	sigset_t mask;
	void *stack;

	if (!p->ns)
		return MNT_EXEC;
	if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0)
		return diag_fail(d, EXIT_SYSCALL, errno,
				 "unable to set the parent-death signal");
	if (getppid() != ppid)
		return diag_fail(d, EXIT_SYSCALL, 0,
				 "unable to start: the parent died");
	/* protect's records: their directory is opened here, on the host. */
	if (mnt_protect_state(d, m) < 0)
		return -1;
	procfd = mnt_open_proc(d, AT_FDCWD, "/proc");
	if (procfd < 0)
		return -1;
	/* EOF on it (we hold the write end until we exit) is pid 1's
	 * alarm. */
	if (pipe2(a.sync, O_CLOEXEC) < 0)
		return diag_fail(d, EXIT_SYSCALL, errno,
				 "unable to create a pipe");
	/* Blocked before the clone: pid 1 and the monitor read signals from
	 * a signalfd, and none may arrive before they listen. */
	if (reaper_block_all(&mask) < 0)
		return diag_fail(d, EXIT_SYSCALL, errno,
				 "unable to block signals");
	a.monitor_sfd = reaper_monitor_fd();
	stack = pid1_stack();
	if (!stack)
		return diag_fail(d, EXIT_SYSCALL, errno,
				 "unable to allocate pid 1's stack");
	a.d = d;
	a.m = m;
	a.hostproc = procfd;
	a.mask = &mask;
	a.uid = getuid();
	a.gid = getgid();
	/* pid 1 shares our memory (CLONE_VM): no copy of our address space
	 * to make, fault in and tear down, about a millisecond per start on
	 * the VMs we measured. Both run at once from here on, so while pid
	 * 1 lives we make raw system calls only (reaper_monitor): a libc
	 * call could write errno, pid 1's errno too. pid 1 must not use what
	 * libc caches of the thread (raise, abort). Neither creates a thread,
	 * so musl takes no lock (stdio's included) that pid 1's exit could
	 * leave held for ours. */
	pid = clone(pid1_entry, stack, mnt_clone_flags(p->ns) | CLONE_VM |
			    CLONE_PARENT_SETTID | SIGCHLD,
		    &a, &a.hostpid);
	if (pid < 0) {
		diag_fail(d, EXIT_SYSCALL, errno,
			  "unable to create the namespaces (%s)",
			  "clone with CLONE_NEWUSER");
		mnt_hint_userns(d, errno, "a new user namespace");
		return -1;
	}
	/* Our copy of the proxy's channel: pid 1 hands the listener over
	 * through its own. A close of an open fd leaves errno alone (pid 1
	 * shares it), as a raw system call would. */
	if (m->proxy_fd >= 0)
		close(m->proxy_fd);
	status = reaper_monitor(pid, a.monitor_sfd);
	/* pid 1 is gone: libc is ours again. a.sync[1] stayed open until
	 * here: pid 1's alarm. */
	m->exit_code = status < 0 ? EXIT_SYSCALL : reaper_code(status);
	/* pid 1 SIGKILLed from outside while the target ran (the kernel has
	 * ended every process of its namespace): its check after the run,
	 * done here on the host's paths. When we die too (a tree or cgroup
	 * kill), the next start does it from pid 1's record. */
	if (pid1_waiting && status >= 0 && WIFSIGNALED(status) &&
	    WTERMSIG(status) == SIGKILL && (p->ns & NS_MOUNT))
		mnt_protect_killed(d, p);
	return MNT_EXIT;
}
