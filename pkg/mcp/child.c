/* One `pysbx session` per named session: a forked child that runs
 * session_main with its stdin and stdout on a socketpair. No exec: the
 * child is this same static binary, already mapped. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "mcp/mcp.h"

int child_spawn(struct mcp *m, struct mcp_child *c, char *msg, size_t len)
{
	pid_t parent = getpid(), pid;
	int sv[2];

	if (!c->in) {
		c->in = mmap(NULL, MCP_REPLY_MAX + 1, PROT_READ | PROT_WRITE,
			     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1,
			     0);
		if (c->in == MAP_FAILED) {
			c->in = NULL;
			snprintf(msg, len, "unable to start the session '%s': "
				 "%s", c->name, strerror(errno));
			return -1;
		}
	}
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0) {
		snprintf(msg, len, "unable to start the session '%s': %s",
			 c->name, strerror(errno));
		return -1;
	}
	pid = fork();
	if (pid < 0) {
		snprintf(msg, len, "unable to start the session '%s': %s",
			 c->name, strerror(errno));
		close(sv[0]);
		close(sv[1]);
		return -1;
	}
	if (pid == 0) {
		/* The server's death (even SIGKILL) ends the session, which
		 * then kills its sandbox and removes its scratch. */
		if (prctl(PR_SET_PDEATHSIG, SIGTERM) < 0 ||
		    getppid() != parent)
			_exit(EXIT_SYSCALL);
		if (dup2(sv[1], 0) < 0 || dup2(sv[1], 1) < 0)
			_exit(EXIT_SYSCALL);
		/* Nothing of the server's: other sessions' sockets, its
		 * signalfd. */
		syscall(SYS_close_range, 3, ~0U, 0);
		_exit(session_main(m->sargc, m->sargv));
	}
	close(sv[1]);
	c->fd = sv[0];
	c->pid = pid;
	c->inlen = 0;
	c->skipping = false;
	return 0;
}

int child_send(struct mcp *m, struct mcp_call *call)
{
	struct mcp_child *c = call->child;
	size_t off = 0;

	(void)m;
	while (off < call->line.len) {
		ssize_t k = write(c->fd, call->line.p + off,
				  call->line.len - off);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -1;
		off += (size_t)k;
	}
	return 0;
}

void child_interrupt(struct mcp *m, struct mcp_child *c)
{
	(void)m;
	/* SIGINT is the session's cancel (docs/SESSION.md): it answers the
	 * execute (cancelled, state lost) and ends; the next call starts a
	 * new session. */
	if (c->pid && kill(c->pid, SIGINT) == 0)
		c->ending = true;
}

int child_read(struct mcp *m, struct mcp_child *c)
{
	ssize_t k = read(c->fd, c->in + c->inlen, MCP_REPLY_MAX - c->inlen);
	bool big = false;
	char *nl;

	if (k < 0)
		return errno == EAGAIN || errno == EINTR ? 0 : -1;
	if (k == 0)
		return -1;
	c->inlen += (size_t)k;
	while ((nl = memchr(c->in, '\n', c->inlen))) {
		size_t n = (size_t)(nl - c->in);

		if (c->skipping)
			c->skipping = false;
		else
			mcp_reply(m, c, c->in, n);
		big |= n > 65536;
		memmove(c->in, nl + 1, c->inlen - n - 1);
		c->inlen -= n + 1;
	}
	if (c->inlen == MCP_REPLY_MAX) {
		/* Never from pkg/session, whose responses are bounded. */
		if (!c->skipping && c->run) {
			struct mcp_call *run = c->run;

			c->run = NULL;
			char msg[128];

			snprintf(msg, sizeof(msg), "the session's response "
				 "was over %d bytes", MCP_REPLY_MAX);
			mcp_call_failed(m, run, msg);
		}
		c->skipping = true;
		c->inlen = 0;
		big = true;
	}
	/* A big response's pages go back: the server stays small. */
	if (big && c->inlen == 0)
		madvise(c->in, MCP_REPLY_MAX, MADV_DONTNEED);
	return 0;
}

void child_reap(struct mcp *m)
{
	int st;
	pid_t pid;

	while ((pid = waitpid(-1, &st, WNOHANG)) > 0) {
		for (int i = 0; i < m->nch; i++) {
			struct mcp_child *c = &m->ch[i];

			if (c->pid != pid)
				continue;
			/* What it wrote before it ended is still read. */
			while (c->fd >= 0 && child_read(m, c) == 0)
				;
			if (c->fd >= 0)
				close(c->fd);
			c->fd = -1;
			c->pid = 0;
			c->status = st;
			mcp_child_ended(m, c);
		}
	}
}

void child_stop_all(struct mcp *m)
{
	struct timespec ts = { 0, 10 * 1000 * 1000 };
	int left = 0;

	for (int i = 0; i < m->nch; i++) {
		struct mcp_child *c = &m->ch[i];

		if (c->fd >= 0)
			close(c->fd);
		c->fd = -1;
		if (c->pid) {
			kill(c->pid, SIGTERM);
			left++;
		}
	}
	/* A session's own cleanup is bounded (5 s to reap its sandbox). */
	for (int t = 0; left && t < 1000; t++) {
		for (int i = 0; i < m->nch; i++) {
			struct mcp_child *c = &m->ch[i];

			if (c->pid && waitpid(c->pid, NULL, WNOHANG) == c->pid) {
				c->pid = 0;
				left--;
			}
		}
		if (left)
			nanosleep(&ts, NULL);
	}
	for (int i = 0; i < m->nch; i++)
		if (m->ch[i].pid) {
			kill(m->ch[i].pid, SIGKILL);
			waitpid(m->ch[i].pid, NULL, 0);
			m->ch[i].pid = 0;
		}
}
