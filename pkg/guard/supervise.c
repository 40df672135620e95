/* The guard's wait: one process blocked in ppoll on a signalfd and the
 * report pipe, with the next deadline (timeout or grace) as its timeout.
 * No timer thread, no polling loop: it costs nothing while it waits. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "egress/egress.h"
#include "guard/guard.h"
#include "reaper/reaper.h"

/* Signals passed on to the sandbox, once each, unless the caller had
 * them ignored (nohup, a non-interactive shell's background job): what
 * the caller did not want to reach the guard does not reach the target. */
static const int forwarded[] = { SIGINT, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2 };
#define NFWD (sizeof(forwarded) / sizeof(forwarded[0]))

enum phase { RUNNING, STOPPING, ENDING, KILLED };

/* How long pid 1 has, once asked to end the sandbox, to kill it and check
 * the protected tree (a bounded scan) before the guard kills everything
 * itself. */
#define END_MS 5000

struct sup {
	const struct guard_opts *o;
	pid_t child;
	int sfd, rfd;		/* signalfd; report pipe read end (-1: EOF) */
	bool fwd[65];
	enum phase phase;
	bool timed_out;
	uint64_t start, kill_at;
	bool lazy;		/* the report pipe is read only at the end */
	struct report rep;
	int status;
	bool reaped;
	bool childless;		/* the last wait found no child at all */
	pid_t proxy;		/* the egress proxy while it lives, else 0 */
};

/* Field by field, as report_init: a whole-struct zeroing would touch
 * the report's 6 KiB of buffers, pages of the guard's stack that then
 * stay resident while the sandbox runs. */
static void sup_init(struct sup *s, const struct guard_opts *o)
{
	s->o = o;
	s->child = 0;
	s->sfd = s->rfd = -1;
	memset(s->fwd, 0, sizeof(s->fwd));
	s->phase = RUNNING;
	s->timed_out = s->lazy = s->reaped = s->childless = false;
	s->proxy = 0;
	s->start = s->kill_at = 0;
	report_init(&s->rep);
	s->rep.status_fd = o->status_fd;
	s->status = 0;
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* TERM and CONT (in this order: the TERM is then pending when the
 * process resumes, and a stopped process cannot sleep through it). In
 * the chain the monitor passes them on to pid 1; standalone the whole
 * process group gets them, as from timeout(1). */
static void signal_sandbox(struct sup *s, int sig)
{
	if (!s->reaped && !s->o->chain && kill(-s->child, sig) == 0 &&
	    getpgid(s->child) == s->child)
		return;
	if (!s->reaped)
		kill(s->child, sig);
}

static void stop(struct sup *s, bool timeout)
{
	if (s->phase != RUNNING)
		return;
	s->timed_out = timeout;
	s->phase = STOPPING;
	s->kill_at = now_ms() + s->o->kill_after_ms;
	signal_sandbox(s, SIGTERM);
	signal_sandbox(s, SIGCONT);
}

/* The grace is over (or TERM came twice). A sandbox of pysbx-mount is
 * ended by its pid 1 (REAPER_END_SIG, through the monitor: SIGKILL to
 * every process in it), which then checks the protected tree before it
 * exits: a SIGKILL of pid 1 would skip that check (docs/MOUNT.md
 * "protect"). The guard kills the whole tree itself when that has not
 * happened END_MS later, or when asked once more. */
static void kill_all(struct sup *s)
{
	if (s->phase < ENDING && s->o->wait_started && !s->reaped) {
		s->phase = ENDING;
		s->kill_at = now_ms() + END_MS;
		kill(s->child, REAPER_END_SIG);
		return;
	}
	s->phase = KILLED;
	guard_cgroup_kill();
	if (!s->reaped)
		kill_descendants(s->child);
}

static void proxy_died(int st);

static void reap(struct sup *s)
{
	pid_t p;
	int st;

	/* As subreaper the guard also collects the sandbox's orphans. */
	while ((p = waitpid(-1, &st, WNOHANG | __WALL)) > 0)
		if (p == s->child) {
			s->status = st;
			s->reaped = true;
		} else if (p == s->proxy) {
			/* The sandbox goes on without a way out: its
			 * connections to the listener are refused. */
			s->proxy = 0;
			proxy_died(st);
		}
	/* No child at all: as a subreaper the guard inherits every orphan
	 * (before their parent's death is reported), so no descendant is
	 * left either, and the tree kill has nothing to do. */
	s->childless = p < 0 && errno == ECHILD;
}

static void proxy_died(int st)
{
	struct diag d = DIAG_INIT(guard_prog, "clean");

	if (WIFSIGNALED(st))
		diag_warn(&d, "the network proxy was killed by signal %d%s",
			  WTERMSIG(st), WTERMSIG(st) == SIGSYS ?
			  " (its seccomp filter)" : "");
	else if (WEXITSTATUS(st))
		diag_warn(&d, "the network proxy exited with status %d",
			  WEXITSTATUS(st));
}

/* The proxy's socketpair: one end goes to pysbx-mount (--proxy-fd), which
 * sends the listener through it; the other, *keep, to the proxy, forked
 * once the chain runs (start_proxy): its start then overlaps the
 * sandbox's instead of delaying it, and the listener waits in the pair
 * until the proxy reads it. The guard keeps neither end. */
static int proxy_pair(struct diag *d, struct chain *c, int *keep)
{
	int sp[2];

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sp) < 0)
		return diag_fail(d, EXIT_SYSCALL, errno,
				 "unable to create the proxy's socketpair");
	*keep = sp[0];
	c->proxy_fd = sp[1];
	return 0;
}

/* Fork the proxy with its end. If that fails, the end is closed all the
 * same: the listener is closed with it (or pid 1's hand-over fails,
 * EPIPE, and pysbx-mount exits 111), so the sandbox has no way out:
 * never the host's network. */
static void start_proxy(struct sup *s, const struct chain *c, int end,
			pid_t self)
{
	struct diag d = DIAG_INIT(guard_prog, "clean");

	s->proxy = egress_start(&d, c->plan_fd, end, s->o->status_fd, self);
	close(end);
	if (s->proxy < 0) {
		s->proxy = 0;
		diag_warn(&d, "%s: %s; the sandbox has no network", d.msg,
			  strerror(d.err));
	}
}

static void on_signals(struct sup *s)
{
	struct signalfd_siginfo si;

	while (read(s->sfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
		int sig = (int)si.ssi_signo;

		if (sig == SIGCHLD)
			reap(s);
		else if (sig == SIGTERM && s->phase == RUNNING)
			stop(s, false);
		else if (sig == SIGTERM)
			kill_all(s);	/* asked twice: no more grace */
		else if (sig > 0 && sig < 65 && s->fwd[sig] && !s->reaped)
			kill(s->child, sig);
	}
}

static void on_report(struct sup *s)
{
	char buf[4096];
	ssize_t n;

	for (;;) {
		n = read(s->rfd, buf, sizeof(buf));
		if (n > 0) {
			if (report_feed(&s->rep, buf, (size_t)n) &&
			    s->o->wait_started)
				status_started(s->o->status_fd,
					       s->rep.started_pid);
			continue;
		}
		if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
			close(s->rfd);
			s->rfd = -1;
			/* Standalone, the pipe is close-on-exec in the
			 * child: EOF without a failure record means the
			 * exec of the target succeeded. */
			if (n == 0 && !s->o->chain && !s->rep.have_fail)
				status_started(s->o->status_fd, s->child);
			return;
		}
		if (n < 0 && errno == EINTR)
			continue;
		return;
	}
}

/* Whether the report pipe can wait until the run is over. Its records
 * are then needed only for the exit record; reading them as they come
 * would wake the guard in the middle of the sandbox's setup (a
 * cross-CPU wake-up, on the setup's critical path) just to write a
 * "started" record nobody asked for. The writers never block: the
 * chain writes a few records of at most 4 KiB each, far below a pipe of
 * 64 KiB (a user over fs.pipe-user-pages-soft gets smaller pipes: then
 * the pipe is read as it comes, as with --status-fd). */
static bool report_lazy(const struct guard_opts *o, int rfd)
{
	return o->status_fd < 0 && fcntl(rfd, F_GETPIPE_SZ) >= 65536;
}

/* The report pipe (rp[0] non-blocking), or none (-1, -1): standalone
 * without --status-fd, where nothing would read what it says (the
 * records only make the status records; the exit code is the child's
 * wait status). */
static int report_pipe(const struct guard_opts *o, int rp[2])
{
	rp[0] = rp[1] = -1;
	if (!o->chain && o->status_fd < 0)
		return 0;
	if (pipe2(rp, O_CLOEXEC) < 0)
		return -1;
	fcntl(rp[0], F_SETFL, O_NONBLOCK);
	return 0;
}

/* Block until a signal, a report record or the next deadline. */
static void wait_once(struct sup *s)
{
	struct pollfd pfd[2] = { { s->sfd, POLLIN, 0 }, { s->rfd, POLLIN, 0 } };
	uint64_t now = 0, at = 0;
	struct timespec ts, *tsp = NULL;
	int rfd = s->lazy ? -1 : s->rfd;

	if (s->phase == RUNNING && s->o->timeout_ms)
		at = s->start + s->o->timeout_ms;
	else if (s->phase == STOPPING || s->phase == ENDING)
		at = s->kill_at;
	if (at)
		now = now_ms();
	if (at && at <= now) {
		if (s->phase == RUNNING)
			stop(s, true);
		else
			kill_all(s);
		return;
	}
	if (at) {
		ts.tv_sec = (time_t)((at - now) / 1000);
		ts.tv_nsec = (long)((at - now) % 1000) * 1000000;
		tsp = &ts;
	}
	pfd[1].fd = rfd;
	if (ppoll(pfd, rfd >= 0 ? 2 : 1, tsp, NULL) < 0)
		return;
	if (pfd[0].revents)
		on_signals(s);
	if (rfd >= 0 && pfd[1].revents)
		on_report(s);
}

/* A monitor that died before pid 1 (killed) leaves pid 1, re-parented to
 * the guard: it SIGKILLs the sandbox and checks the protected tree on its
 * own (docs/MOUNT.md "protect"), and gets END_MS for that before the tree
 * kill (or until TERM comes twice more). */
static void wait_pid1(struct sup *s)
{
	uint64_t end = now_ms() + END_MS, now;

	reap(s);
	while (!s->childless && s->phase != KILLED && (now = now_ms()) < end) {
		struct pollfd pfd = { s->sfd, POLLIN, 0 };
		struct timespec ts = { (time_t)((end - now) / 1000),
				       (long)((end - now) % 1000) * 1000000 };

		if (ppoll(&pfd, 1, &ts, NULL) > 0)
			on_signals(s);
	}
}

static void result(struct sup *s, struct run_result *res)
{
	const struct report *r = &s->rep;
	struct rusage ru;
	int st = s->status;

	if (s->timed_out)
		res->code = EXIT_TIMEOUT;
	else if (WIFEXITED(st))
		res->code = WEXITSTATUS(st);
	else
		res->code = 128 + WTERMSIG(st);
	res->timeout = s->timed_out;
	res->sigsys = r->sigsys;
	if (r->have_fail)
		res->signal = 0;	/* the target never ran */
	else if (r->have_target)
		res->signal = WIFSIGNALED(r->target_status) ?
			      WTERMSIG(r->target_status) : 0;
	else if (!s->o->chain && WIFSIGNALED(st))
		res->signal = WTERMSIG(st);
	/* A failure record comes only from a step before the target's
	 * exec: pid 1's target record that follows it is the exit of the
	 * step that failed, not of the target. */
	if (r->have_fail) {
		snprintf(res->stage, sizeof(res->stage), "%s", r->fail_stage);
		snprintf(res->error, sizeof(res->error), "%s", r->fail_error);
		res->err = r->fail_errno;
	} else if (r->have_target || r->started || !s->o->wait_started) {
		snprintf(res->stage, sizeof(res->stage), "target");
	} else {
		/* The first step ended without a word (killed, or a
		 * timeout during setup). */
		snprintf(res->stage, sizeof(res->stage), "%s",
			 s->o->first_stage);
	}
	/* Only the status record reports the children's usage. */
	if (s->o->status_fd >= 0 && getrusage(RUSAGE_CHILDREN, &ru) == 0) {
		res->user_ms = (uint64_t)ru.ru_utime.tv_sec * 1000 +
			       (uint64_t)ru.ru_utime.tv_usec / 1000;
		res->sys_ms = (uint64_t)ru.ru_stime.tv_sec * 1000 +
			      (uint64_t)ru.ru_stime.tv_usec / 1000;
		res->max_rss_kb = ru.ru_maxrss;
	}
}

int guard_run(struct diag *d, const struct guard_opts *o, struct chain *c,
	      const char *extra_env, struct run_result *res)
{
	struct sup s;
	bool clock = o->status_fd >= 0 || o->timeout_ms;
	sigset_t set, old;
	struct sigaction sa;
	int rp[2], proxy_end = -1;
	pid_t self = getpid();

	sup_init(&s, o);
	sigemptyset(&set);
	for (size_t i = 0; i < NFWD; i++) {
		sigaddset(&set, forwarded[i]);
		s.fwd[forwarded[i]] = sigaction(forwarded[i], NULL, &sa) == 0 &&
				      sa.sa_handler != SIG_IGN;
	}
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGCHLD);
	/* SIGPIPE blocked, not ignored: a closed --status-fd reader gives
	 * EPIPE, and the child's restored mask leaves the target's SIGPIPE
	 * as the caller had it. */
	sigaddset(&set, SIGPIPE);
	if (sigprocmask(SIG_BLOCK, &set, &old) < 0)
		return diag_fail(d, EXIT_SYSCALL, errno,
				 "unable to block signals");
	sigdelset(&set, SIGPIPE);
	s.sfd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
	if (s.sfd < 0)
		return diag_fail(d, EXIT_SYSCALL, errno,
				 "unable to create a signalfd");
	if (prctl(PR_SET_CHILD_SUBREAPER, 1) < 0)
		return diag_fail(d, EXIT_SYSCALL, errno,
				 "unable to become a child subreaper");
	/* SIGTERM when the caller dies: the same stop sequence as a
	 * cancel. getppid() closes the race with a caller already gone. */
	if (o->die_with_parent && prctl(PR_SET_PDEATHSIG, SIGTERM) < 0)
		return diag_fail(d, EXIT_SYSCALL, errno,
				 "unable to set the guard's parent-death "
				 "signal");
	if (o->die_with_parent && getppid() != o->caller)
		return diag_fail(d, EXIT_SYSCALL, 0,
				 "the caller (pid %d) exited before the "
				 "sandbox started", (int)o->caller);
	if (report_pipe(o, rp) < 0)
		return diag_fail(d, EXIT_SYSCALL, errno,
				 "unable to create the report pipe");
	guard_cgroup_open();
	s.lazy = rp[0] >= 0 && report_lazy(o, rp[0]);
	fflush(NULL);
	/* The first clock read costs a vDSO lookup and a fault: only when
	 * a deadline or wall_ms needs it. */
	if (clock)
		s.start = now_ms();
	if (o->proxy && proxy_pair(d, c, &proxy_end) < 0) {
		if (rp[0] >= 0) {
			close(rp[0]);
			close(rp[1]);
		}
		close(s.sfd);
		return -1;
	}
	/* The child has its own group before it execs, and the guard runs
	 * again only after that exec (or the child's exit). */
	c->report_fd = rp[1];
	s.child = guard_spawn(d, c, &old, self, extra_env);
	c->report_fd = -1;
	if (c->proxy_fd >= 0) {
		close(c->proxy_fd);
		c->proxy_fd = -1;
	}
	if (rp[1] >= 0)
		close(rp[1]);
	/* The first step's program: exec'd, or failed; the guard keeps no
	 * handle on it. */
	if (c->next_fd >= 0) {
		close(c->next_fd);
		c->next_fd = -1;
	}
	if (s.child < 0) {
		guard_cgroup_close();
		if (rp[0] >= 0)
			close(rp[0]);
		if (proxy_end >= 0)
			close(proxy_end);
		close(s.sfd);
		return -1;
	}
	if (proxy_end >= 0)
		start_proxy(&s, c, proxy_end, self);
	s.rfd = rp[0];
	/* A step other than pysbx-mount runs in this very process: it has
	 * started once it exists. */
	if (o->chain && !o->wait_started)
		status_started(o->status_fd, s.child);
	while (!s.reaped)
		wait_once(&s);
	/* The sandbox's first process is gone: the proxy writes the records
	 * of what was still open and ends (it never keeps the run alive),
	 * before the wait for pid 1, which waits until the guard has no
	 * child left. */
	if (s.proxy) {
		egress_stop(s.proxy, s.sfd);
		s.proxy = 0;
	}
	if (o->wait_started)
		wait_pid1(&s);
	if (clock)
		res->wall_ms = now_ms() - s.start;
	if (!s.childless)
		kill_tree(s.child, s.sfd, s.child, &s.status, &s.reaped);
	guard_cgroup_close();
	/* Every writer is dead now: read what is left (still without
	 * blocking, in case one would not die). */
	if (s.rfd >= 0) {
		on_report(&s);
		if (s.rfd >= 0)
			close(s.rfd);
	}
	/* The signal mask stays as it is: a signal still pending would
	 * otherwise kill the guard before it reports. */
	close(s.sfd);
	result(&s, res);
	return 0;
}
