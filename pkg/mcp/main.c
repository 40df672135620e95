/* `pysbx mcp`: options, the default session started and checked, then
 * the loop: one poll(2) over stdin, the sessions' sockets and a
 * signalfd. One thread; no timer while idle. */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "mcp/mcp.h"

static int parse_max(struct diag *d, const char *s, int *out)
{
	char *e;
	long v;

	errno = 0;
	v = strtol(s, &e, 10);
	if (errno || e == s || *e || v < 1 || v > MCP_SESSIONS_MAX)
		return diag_fail(d, EXIT_USAGE, 0, "--max-sessions must be a "
				 "number from 1 to %d, not '%s'",
				 MCP_SESSIONS_MAX, s);
	*out = (int)v;
	return 0;
}

/* Our options out of argv; the rest is the session's. */
static int options(struct diag *d, struct mcp *m, int argc, char **argv)
{
	m->max_sessions = MCP_SESSIONS_DEFAULT;
	m->sargv = calloc((size_t)argc + 1, sizeof(char *));
	if (!m->sargv)
		return diag_fail(d, EXIT_SYSCALL, ENOMEM, "unable to start");
	m->sargv[m->sargc++] = "session";
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			printf("usage: %s\n\nsession options: %s\n",
			       MCP_USAGE, SESSION_USAGE);
			return 1;
		}
		if (!strncmp(a, "--max-sessions=", 15)) {
			if (parse_max(d, a + 15, &m->max_sessions) < 0)
				return -1;
		} else if (!strcmp(a, "--max-sessions")) {
			if (i + 1 == argc)
				return diag_fail(d, EXIT_USAGE, 0,
						 "--max-sessions needs a number");
			if (parse_max(d, argv[++i], &m->max_sessions) < 0)
				return -1;
		} else if (!strcmp(a, "--")) {
			return diag_fail(d, EXIT_USAGE, 0, "pysbx mcp takes no "
					 "program (usage: pysbx mcp --help)");
		} else {
			m->sargv[m->sargc++] = argv[i];
		}
	}
	return 0;
}

/* The default session, started now: its options are checked (a bad one
 * ends it with its own diagnostic and exit code, which become ours), its
 * policy parsed, before the client's first call. */
static int first_session(struct diag *d, struct mcp *m)
{
	static const char status[] = "{\"id\":0,\"action\":\"status\"}\n";
	struct mcp_child *c = &m->ch[m->nch++];
	char msg[256];
	int st;

	memset(c, 0, sizeof(*c));
	snprintf(c->name, sizeof(c->name), "default");
	c->fd = -1;
	if (child_spawn(m, c, msg, sizeof(msg)) < 0)
		return diag_fail(d, EXIT_SYSCALL, 0, "%s", msg);
	if (write(c->fd, status, sizeof(status) - 1) ==
	    (ssize_t)sizeof(status) - 1) {
		for (;;) {
			struct pollfd p = { c->fd, POLLIN, 0 };

			if (poll(&p, 1, 60000) <= 0 || child_read(m, c) < 0)
				break;
			/* The answer (not a call's: none runs) was read. */
			if (c->inlen == 0)
				return 0;
		}
	}
	close(c->fd);
	c->fd = -1;
	kill(c->pid, SIGTERM);
	if (waitpid(c->pid, &st, 0) == c->pid && WIFEXITED(st) &&
	    WEXITSTATUS(st)) {
		/* Its diagnostic is on stderr already. */
		d->code = WEXITSTATUS(st);
		return -1;
	}
	return diag_fail(d, EXIT_SYSCALL, 0, "the session did not start");
}

static int serve(struct mcp *m)
{
	struct pollfd p[2 + MCP_SESSIONS_MAX];
	char *in;
	size_t len = 0;
	bool skipping = false, eof = false;

	in = mmap(NULL, MCP_FRAME_MAX + 1, PROT_READ | PROT_WRITE,
		  MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (in == MAP_FAILED)
		return -1;
	while (!m->quit && !eof && !m->w.err) {
		int n = 2;

		p[0] = (struct pollfd){ 0, POLLIN, 0 };
		p[1] = (struct pollfd){ m->sfd, POLLIN, 0 };
		for (int i = 0; i < m->nch; i++)
			p[n++] = (struct pollfd){ m->ch[i].fd, POLLIN, 0 };
		if (poll(p, (nfds_t)n, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (p[1].revents) {
			struct signalfd_siginfo si;

			while (read(m->sfd, &si, sizeof(si)) == sizeof(si))
				if (si.ssi_signo != SIGCHLD && !m->quit)
					m->quit = (int)si.ssi_signo;
			child_reap(m);
		}
		for (int i = 0; i < m->nch; i++) {
			struct mcp_child *c = &m->ch[i];

			if (!p[2 + i].revents || c->fd < 0 ||
			    p[2 + i].fd != c->fd)
				continue;
			if (child_read(m, c) < 0) {
				/* Its end is handled when it is reaped. */
				close(c->fd);
				c->fd = -1;
			}
		}
		if (!p[0].revents)
			continue;
		{
			ssize_t k = read(0, in + len, MCP_FRAME_MAX - len);
			char *nl;

			if (k < 0 && errno != EAGAIN && errno != EINTR)
				break;
			if (k == 0) {
				eof = true;
				/* A last message without its newline. */
				if (len && !skipping)
					in[len++] = '\n';
			}
			if (k > 0)
				len += (size_t)k;
			while ((nl = memchr(in, '\n', len))) {
				size_t l = (size_t)(nl - in);

				if (skipping)
					skipping = false;
				else
					mcp_message(m, in, l);
				memmove(in, nl + 1, len - l - 1);
				len -= l + 1;
			}
			if (len == MCP_FRAME_MAX) {
				if (!skipping)
					mcp_too_large(m);
				skipping = true;
				len = 0;
			}
			if (len == 0)
				madvise(in, MCP_FRAME_MAX, MADV_DONTNEED);
		}
	}
	/* Stdin closed, a signal, or the client stopped reading: every
	 * session ends now, running executes included (their sandboxes are
	 * killed, their scratch directories removed). */
	child_stop_all(m);
	return 0;
}

int mcp_main(int argc, char **argv)
{
	static struct mcp m;
	struct diag d = DIAG_INIT("pysbx", "mcp");
	sigset_t mask;
	int r;

	m.sfd = -1;
	m.spawn = child_spawn;
	m.send = child_send;
	m.interrupt = child_interrupt;
	jw_init(&m.w, 1);
	r = options(&d, &m, argc, argv);
	if (r)
		return r > 0 ? 0 : (diag_emit(&d), d.code);
	/* Room for the most any --max-sessions allows: the cap is the
	 * check in child_for, not the array's end. */
	if (!(m.ch = calloc(MCP_SESSIONS_MAX, sizeof(*m.ch)))) {
		diag_fail(&d, EXIT_SYSCALL, ENOMEM, "unable to start");
		goto fail;
	}
	sigemptyset(&mask);
	sigaddset(&mask, SIGCHLD);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGHUP);
	signal(SIGPIPE, SIG_IGN);
	if (sigprocmask(SIG_BLOCK, &mask, NULL) < 0 ||
	    (m.sfd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC)) < 0) {
		diag_fail(&d, EXIT_SYSCALL, errno, "unable to set up signals");
		goto fail;
	}
	if (first_session(&d, &m) < 0) {
		if (d.msg[0])
			diag_emit(&d);
		return d.code ? d.code : EXIT_SYSCALL;
	}
	if (serve(&m) < 0) {
		diag_fail(&d, EXIT_SYSCALL, ENOMEM, "unable to map buffers");
		goto fail;
	}
	return m.quit ? 128 + m.quit : 0;
fail:
	diag_emit(&d);
	return d.code ? d.code : EXIT_SYSCALL;
}
