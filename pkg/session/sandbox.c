/* Start and kill the sandbox: the chain pysbx-clean -> pysbx-mount ->
 * pysbx-exec -> pysbx-seccomp -> python3 worker, exec'd as a child of the
 * host with fd 0 /dev/null, fd 1 and 2 pipes to the host, fd 3 the
 * worker's end of a socketpair.
 *
 * Why exec the guard rather than run its code in-process as `pysbx run`
 * does: the host must keep serving the caller while the sandbox runs, and
 * start a new guard after every kill; guard_main owns its process until
 * the run ends. The guard stays the one place that resolves the policy,
 * and its pid namespace is what makes the kill whole: SIGKILL of the
 * guard kills its child (parent-death signal), whose death kills pid 1,
 * whose death kills every process of the namespace, setsid'd daemons
 * included. The host is a child subreaper, so those processes are
 * re-parented to it and it can wait until they are all gone. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <poll.h>
#include <time.h>
#include <unistd.h>

#include "session/host.h"

extern char **environ;

uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static void closefd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* python3 -c BOOT: the worker's code comes on fd 3 before any frame,
 * as "%010zu%010zu" (the lengths of the compiled code and of the source),
 * the code, the source. The code is run when it is this interpreter's
 * (magic number) and was compiled from this source (its hash, as
 * importlib checks a checked-hash .pyc); otherwise the source is
 * compiled. The argv stays short: python3 pays for every byte of it at
 * start, more than unmarshalling the code costs. */
static const char boot[] =
	"import sys,os,marshal,_imp\n"
	"def r(n):\n"
	" b=b''\n"
	" while len(b)<n:\n"
	"  k=os.read(3,n-len(b))\n"
	"  if not k:os._exit(3)\n"
	"  b+=k\n"
	" return b\n"
	"try:h=r(20)\n"
	"except OSError:\n"
	" sys.stderr.write('pysbx session worker: fd 3 is not open: the "
	"policy must keep it (keep-fd ${SESSION_FD})\\n');os._exit(3)\n"
	"p=r(int(h[:10]));s=r(int(h[10:]))\n"
	"e=sys.modules.get('_frozen_importlib_external')\n"
	"c=marshal.loads(p[16:]) if e and p[:4]==e.MAGIC_NUMBER and "
	"p[4]&1 and p[8:16]==_imp.source_hash(e._RAW_MAGIC_NUMBER,s) "
	"else compile(s,'session_worker.py','exec')\n"
	"del r,h,p,s,e\n"
	"exec(c)\n";

/* The preamble above, on the host's end of the channel before the
 * sandbox starts: it fits in the socket's buffer, so nothing waits. */
static int send_code(struct diag *d, struct sess *s, int sock)
{
	char hdr[21];
	struct iovec iov[3] = {
		{ hdr, 20 },
		{ s->worker_pyc, s->worker_pyc ? s->pyc_len : 0 },
		{ s->worker_src, s->worker_len },
	};
	size_t want = 20 + iov[1].iov_len + iov[2].iov_len;
	int buf = (int)(2 * want);
	ssize_t k;

	snprintf(hdr, sizeof(hdr), "%010zu%010zu", iov[1].iov_len,
		 iov[2].iov_len);
	setsockopt(sock, SOL_SOCKET, SO_SNDBUF, &buf, sizeof(buf));
	k = writev(sock, iov, 3);
	if (k < 0 || (size_t)k != want)
		return diag_fail(d, EXIT_SYSCALL, k < 0 ? errno : EMSGSIZE,
				 "unable to hand the worker its code");
	return 0;
}

/* The chain's argv. Variables: ours first, then the caller's -D. */
static char **chain_argv(struct sess *s, char *strs, size_t cap)
{
	static const char *const steps[] = { "pysbx-mount", "pysbx-exec",
					     "pysbx-seccomp" };
	char **a = calloc(2 * SESS_VARS_MAX + 48, sizeof(*a));
	size_t k = 0, used = 0;

	if (!a)
		return NULL;
#define STR(...)                                                             \
	({                                                                   \
		char *w_ = strs + used;                                      \
		int n_ = snprintf(w_, cap - used, __VA_ARGS__);              \
		if (n_ < 0 || (size_t)n_ >= cap - used) {                    \
			free(a);                                             \
			return NULL;                                         \
		}                                                            \
		used += (size_t)n_ + 1;                                      \
		w_;                                                          \
	})
	a[k++] = STR("%s/pysbx-clean", s->dir);
	a[k++] = "--die-with-parent";
	a[k++] = "-p";
	a[k++] = (char *)s->policy;
	if (s->allow_untrusted)
		a[k++] = "--allow-untrusted";
	/* Only the variables the policy uses: another is an error. */
#define OWN(i) (!(s->omit & (1u << (i))))
	a[k++] = "-D";
	a[k++] = STR("SESSION_FD=%d", SESS_WORKER_FD);
	if (OWN(OWN_SCRATCH_MODE)) {
		a[k++] = "-D";
		a[k++] = "SCRATCH_MODE=adopt";
	}
	if (OWN(OWN_SCRATCH_DIR)) {
		a[k++] = "-D";
		a[k++] = STR("SCRATCH_DIR=%s", s->scratch.path);
	}
	if (s->workspace && OWN(OWN_WORKSPACE)) {
		a[k++] = "-D";
		a[k++] = STR("WORKSPACE=%s", s->workspace);
	}
	if (s->ws_mount && OWN(OWN_WORKSPACE_MOUNT)) {
		a[k++] = "-D";
		a[k++] = STR("WORKSPACE_MOUNT=%s", s->ws_mount);
	}
	if (s->read_roots && OWN(OWN_READ_ROOTS)) {
		a[k++] = "-D";
		a[k++] = STR("READ_ROOTS=%s", s->read_roots);
	}
#undef OWN
	for (size_t i = 0; i < s->nvars; i++) {
		a[k++] = "-D";
		a[k++] = s->vars[i];
	}
	for (size_t i = 0; i < 3; i++) {
		a[k++] = "--";
		a[k++] = STR("%s/%s", s->dir, steps[i]);
	}
	a[k++] = "--";
	a[k++] = (char *)s->python;
	a[k++] = "-I";
	a[k++] = "-S";
	a[k++] = "-B";
	a[k++] = "-u";
	a[k++] = "-X";
	a[k++] = "utf8";
	a[k++] = "-c";
	a[k++] = (char *)boot;
	a[k] = NULL;
#undef STR
	return a;
}

/* In the child, before the exec: only system calls. */
static _Noreturn void child(char **argv, int sock, int out, int err)
{
	sigset_t none;
	int null = open("/dev/null", O_RDONLY);

	/* fds 0..3 in place; dup2 clears close-on-exec. The host's own
	 * stdin and stdout (the protocol) never reach the sandbox. */
	if (null < 0 || dup2(null, 0) < 0 || dup2(out, 1) < 0 ||
	    dup2(err, 2) < 0 || dup2(sock, SESS_WORKER_FD) < 0)
		_exit(111);
	syscall(SYS_close_range, SESS_WORKER_FD + 1, ~0U, 0);
	signal(SIGPIPE, SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	execve(argv[0], argv, environ);
	_exit(errno == ENOENT ? 127 : 126);
}

int sbx_start(struct diag *d, struct sess *s)
{
	int sv[2] = { -1, -1 }, po[2] = { -1, -1 }, pe[2] = { -1, -1 };
	size_t cap = 4 * PATH_MAX + 64 * 1024;
	char *strs = malloc(cap), **argv = NULL;
	pid_t pid;

	s->ready = false;
	s->guard_done = false;
	s->worker_pid = 0;
	s->pyver[0] = '\0';
	s->startup_len = 0;
	s->pend_len = 0;
	frame_rd_init(&s->rd, s->fbuf);
	/* The sandbox may have chmod'ed its /scratch: the guard adopts only
	 * a directory nobody else can write. */
	fchmod(s->scratch.lock_fd, 0700);
	if (!strs || !(argv = chain_argv(s, strs, cap))) {
		free(strs);
		return diag_fail(d, EXIT_SYSCALL, ENOMEM,
				 "unable to build the sandbox's command line");
	}
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0 ||
	    pipe2(po, O_CLOEXEC) < 0 || pipe2(pe, O_CLOEXEC) < 0) {
		diag_fail(d, EXIT_SYSCALL, errno,
			  "unable to make the sandbox's pipes");
		goto fail;
	}
	fcntl(sv[0], F_SETFL, O_NONBLOCK);
	if (send_code(d, s, sv[0]) < 0)
		goto fail;
	pid = fork();
	if (pid < 0) {
		diag_fail(d, EXIT_SYSCALL, errno,
			  "unable to start the sandbox");
		goto fail;
	}
	if (pid == 0)
		child(argv, sv[1], po[1], pe[1]);
	s->gen++;
	s->guard = pid;
	s->sock = sv[0];
	s->out = po[0];
	s->err = pe[0];
	close(sv[1]);
	close(po[1]);
	close(pe[1]);
	fcntl(s->sock, F_SETFL, O_NONBLOCK);
	fcntl(s->out, F_SETFL, O_NONBLOCK);
	fcntl(s->err, F_SETFL, O_NONBLOCK);
	free(argv);
	free(strs);
	return 0;
fail:
	for (int i = 0; i < 2; i++) {
		closefd(&sv[i]);
		closefd(&po[i]);
		closefd(&pe[i]);
	}
	free(argv);
	free(strs);
	return -1;
}

void sbx_reap(struct sess *s)
{
	pid_t p;
	int st;

	while ((p = waitpid(-1, &st, WNOHANG)) > 0)
		if (p == s->guard) {
			s->guard_done = true;
			s->guard_status = st;
		}
}

int sbx_read_output(struct sess *s, int *fd, struct cap *c)
{
	char junk[4096];

	for (;;) {
		size_t room = 0;
		char *dst = junk;
		ssize_t k;

		if (c) {
			size_t total = s->cout.len + s->cerr.len;

			room = total < SESS_OUTPUT_MAX ? SESS_OUTPUT_MAX - total
						       : 0;
			dst = c->p + c->len;
		}
		/* Past the limit, read into junk: the caller sees overflow
		 * and kills the sandbox. */
		if (!c || !room) {
			dst = junk;
			room = sizeof(junk);
		}
		k = read(*fd, dst, room);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return 0;	/* EAGAIN: nothing more now */
		if (k == 0) {
			closefd(fd);
			return -1;
		}
		if (c && dst == junk)
			s->overflow = true;
		else if (c)
			c->len += (size_t)k;
	}
}

void sbx_signals(struct sess *s)
{
	struct signalfd_siginfo si;

	while (read(s->sfd, &si, sizeof(si)) == (ssize_t)sizeof(si))
		if (si.ssi_signo != SIGCHLD && !s->quit)
			s->quit = (int)si.ssi_signo;
}

/* Wait for SIGCHLD (or the deadline) on the signalfd. */
static void wait_child(struct sess *s, uint64_t deadline)
{
	struct pollfd p = { s->sfd, POLLIN, 0 };
	uint64_t t = now_ms();

	if (t < deadline)
		poll(&p, 1, (int)(deadline - t));
}

void sbx_kill(struct sess *s, bool capture)
{
	uint64_t deadline = now_ms() + SESS_CLEANUP_MS;

	if (!s->guard)
		return;
	if (!s->guard_done)
		kill(s->guard, SIGKILL);
	/* Every process re-parented to us, until none is left. The pipes
	 * are read meanwhile: a writer blocked on a full pipe still dies
	 * of SIGKILL, but reading keeps the partial output. */
	for (;;) {
		pid_t p;
		int st;

		while ((p = waitpid(-1, &st, WNOHANG)) > 0)
			if (p == s->guard && !s->guard_done) {
				s->guard_done = true;
				s->guard_status = st;
			}
		if (p < 0 && errno == ECHILD)
			break;
		if (now_ms() >= deadline) {
			s->reap_failed = true;
			break;
		}
		if (s->out >= 0)
			sbx_read_output(s, &s->out, capture ? &s->cout : NULL);
		if (s->err >= 0)
			sbx_read_output(s, &s->err, capture ? &s->cerr : NULL);
		wait_child(s, deadline);
		sbx_signals(s);
	}
	/* Every writer is gone: what is left in the pipes ends in EOF. */
	if (s->out >= 0)
		sbx_read_output(s, &s->out, capture ? &s->cout : NULL);
	if (s->err >= 0)
		sbx_read_output(s, &s->err, capture ? &s->cerr : NULL);
	closefd(&s->out);
	closefd(&s->err);
	closefd(&s->sock);
	s->guard = 0;
	s->ready = false;
	s->late[0] = '\0';
	s->pend_len = 0;
}
