/* The proxy's event loop: one thread, one poll(2) over the listener and
 * every connection's sockets, every socket non-blocking. A connection
 * only ever waits on its own sockets and deadlines, so a slow, silent or
 * hostile client holds one slot of EG_MAX_CONN and nothing else. */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "egress/internal.h"

static const char established[] = "HTTP/1.1 200 Connection established\r\n\r\n";

/* The parser's rewritten head of a PX_HTTP request (one at a time). */
static char out_head[PX_MAX_OUT];

uint64_t eg_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static struct conn *conns[EG_MAX_CONN];
static size_t nconns;
/* Out of fds (or memory) for a new connection: the listener stays out
 * of the poll set until a connection ends or this time passes, instead
 * of waking the loop at once for an accept that fails again. */
static uint64_t accept_resume;

static void conn_free(struct conn *k)
{
	if (k->cfd >= 0)
		close(k->cfd);
	if (k->ufd >= 0)
		close(k->ufd);
	eg_dns_close(&k->q);
	free(k->head);
	free(k->up.b);
	free(k->down.b);
	for (struct ebuf *b = &k->up; b; b = b == &k->up ? &k->down : NULL) {
		if (b->pr >= 0)
			close(b->pr);
		if (b->pw >= 0)
			close(b->pw);
	}
	free(k);
}

/* The connection is over: its record, then its sockets. */
static void conn_end(struct eg_ctx *c, size_t i, uint64_t now)
{
	struct conn *k = conns[i];

	eg_log_conn(c, k, now);
	conn_free(k);
	conns[i] = conns[--nconns];
	accept_resume = 0;
}

/* Write what fits now; the client's socket buffer is empty at this
 * point, so a reply of a few hundred bytes goes whole. */
static void send_now(int fd, const void *p, size_t n)
{
	while (send(fd, p, n, MSG_NOSIGNAL | MSG_DONTWAIT) < 0 && errno == EINTR)
		;
}

/* Refuse or fail the request: the reply (an HTTP response with the
 * reason as its body, or a SOCKS5 reply code), then drain the client
 * until it closes (closing with unread bytes would send a RST that can
 * overtake the reply). */
static void reply_error(struct conn *k, int status, int socks_rep,
			uint64_t now)
{
	char buf[1800], body[1400];
	unsigned char s5[10];

	k->status = status;
	if (k->parsed && k->req.kind == PX_SOCKS5) {
		send_now(k->cfd, s5, px_socks5_reply(s5, socks_rep));
	} else {
		if (k->verdict == V_DENY)
			snprintf(body, sizeof(body),
				 "pysbx-proxy: %s:%u is not allowed: %s\n",
				 k->req.host.name, k->req.port, k->reason);
		else
			snprintf(body, sizeof(body), "pysbx-proxy: %s\n",
				 k->reason);
		send_now(k->cfd, buf, px_http_response(buf, sizeof(buf),
							status, body));
	}
	shutdown(k->cfd, SHUT_WR);
	if (k->ufd >= 0) {
		close(k->ufd);
		k->ufd = -1;
	}
	eg_dns_close(&k->q);
	k->st = C_DRAIN;
	k->deadline = now + EG_DRAIN_MS;
}

static void deny(struct conn *k, uint64_t now)
{
	k->verdict = V_DENY;
	eg_log_denied(k);
	reply_error(k, 403, 2, now);
}

static void fail(struct conn *k, int status, int socks_rep, uint64_t now,
		 const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static void fail(struct conn *k, int status, int socks_rep, uint64_t now,
		 const char *fmt, ...)
{
	va_list ap;

	k->verdict = V_ERROR;
	va_start(ap, fmt);
	vsnprintf(k->reason, sizeof(k->reason), fmt, ap);
	va_end(ap);
	reply_error(k, status, socks_rep, now);
}

/* "unable to connect to HOST:PORT (ADDR): WHY" */
static void connect_failed(struct conn *k, int status, int rep, uint64_t now,
			   const char *why)
{
	char a[PX_ADDR_TEXT];

	fail(k, status, rep, now, "unable to connect to %s:%u (%s): %s",
	     k->req.host.name, k->req.port, px_addr_text(&k->addr, a), why);
}

/* --- connect ---------------------------------------------------------- */

static void start_relay(struct eg_ctx *c, struct conn *k, uint64_t now);

/* Try the addresses from k->ai on; connect() is non-blocking. */
static void try_connect(struct eg_ctx *c, struct conn *k, uint64_t now)
{
	int err = 0;

	(void)c;
	while (k->ai < k->naddr) {
		struct sockaddr_storage ss;
		socklen_t sl;
		struct px_addr *a = &k->addrs[k->ai++];
		int fd;

		memset(&ss, 0, sizeof(ss));
		if (a->family == 4) {
			struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;

			s4->sin_family = AF_INET;
			s4->sin_port = htons((uint16_t)k->req.port);
			memcpy(&s4->sin_addr, a->a, 4);
			sl = sizeof(*s4);
		} else {
			struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;

			s6->sin6_family = AF_INET6;
			s6->sin6_port = htons((uint16_t)k->req.port);
			memcpy(&s6->sin6_addr, a->a, 16);
			sl = sizeof(*s6);
		}
		k->addr = *a;
		k->have_addr = true;
		fd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK |
					  SOCK_CLOEXEC, 0);
		if (fd < 0) {
			err = errno;
			continue;
		}
		if (connect(fd, (struct sockaddr *)&ss, sl) == 0 ||
		    errno == EINPROGRESS) {
			k->ufd = fd;
			k->st = C_CONNECT;
			if (k->deadline < now || k->ai == 1)
				k->deadline = now + EG_CONNECT_MS;
			return;
		}
		err = errno;
		close(fd);
	}
	connect_failed(k, 502, 5, now, strerror(err ? err : ECONNREFUSED));
}

static void on_connected(struct eg_ctx *c, struct conn *k, uint64_t now)
{
	int err = 0;
	socklen_t el = sizeof(err);

	if (getsockopt(k->ufd, SOL_SOCKET, SO_ERROR, &err, &el) < 0)
		err = errno;
	if (err) {
		close(k->ufd);
		k->ufd = -1;
		if (k->ai < k->naddr) {
			try_connect(c, k, now);
			return;
		}
		connect_failed(k, 502, 5, now, strerror(err));
		return;
	}
	start_relay(c, k, now);
}

/* --- deciding and resolving ---------------------------------------- */

/* Keep the addresses the rules let the proxy connect to (px_addr_check:
 * deny rules naming them, non-public and the host's own ones unless
 * named), then connect; none left: 403 naming the first refusal. */
static void addresses_known(struct eg_ctx *c, struct conn *k, uint64_t now)
{
	const struct plan *p = c->plan;
	size_t keep = 0;
	char a[PX_ADDR_TEXT];

	k->reason[0] = 0;
	for (size_t i = 0; i < k->naddr; i++) {
		long rule = -1;
		enum px_addr_verdict v;

		v = px_addr_check(p, &k->req.host, k->req.port, &k->addrs[i],
				  c->own_unknown ? NULL : c->own,
				  c->own_unknown ? 1 : c->nown, &rule);
		if (v == PXA_OK) {
			k->addrs[keep++] = k->addrs[i];
			continue;
		}
		if (k->reason[0])
			continue;
		k->addr = k->addrs[i];
		k->have_addr = true;
		if (v == PXA_DENIED) {
			px_rule_text(p, rule, k->rule_text,
				     sizeof(k->rule_text));
			snprintf(k->reason, sizeof(k->reason),
				 "it resolves to %s, denied by %s",
				 px_addr_text(&k->addrs[i], a), k->rule_text);
		} else {
			snprintf(k->reason, sizeof(k->reason),
				 "it resolves to %s (%s), which no rule "
				 "names (add net-allow %s, or a net-resolve "
				 "pin, to allow it)",
				 px_addr_text(&k->addrs[i], a),
				 px_classify(&k->addrs[i]) != PX_PUBLIC ?
				 px_class_name(px_classify(&k->addrs[i])) :
				 c->own_unknown ? "perhaps an address of "
				 "this host, which has more than the proxy "
				 "can check" : "an address of this host",
				 a);
		}
	}
	k->naddr = keep;
	k->ai = 0;
	if (!keep) {
		if (!k->reason[0])
			snprintf(k->reason, sizeof(k->reason),
				 "%s has no address", k->req.host.name);
		if (!k->have_addr) {
			k->verdict = V_ERROR;
			reply_error(k, 502, 4, now);
			return;
		}
		deny(k, now);
		return;
	}
	k->reason[0] = 0;
	k->have_addr = false;
	try_connect(c, k, now);
}

static void on_dns(struct eg_ctx *c, struct conn *k, uint64_t now)
{
	int r = eg_dns_read(c, &k->q, k->req.host.name, k->addrs, &k->naddr,
			    EG_MAX_ADDR);

	if (r <= 0)
		return;
	eg_dns_close(&k->q);
	if (!k->naddr) {
		k->verdict = V_ERROR;
		snprintf(k->reason, sizeof(k->reason),
			 "unable to resolve %s: %s", k->req.host.name,
			 k->q.rcode == 3 ? "no such name" :
			 k->q.rcode ? "the name server refused" :
				      "no address");
		reply_error(k, 502, 4, now);
		return;
	}
	addresses_known(c, k, now);
}

static void resolve(struct eg_ctx *c, struct conn *k, uint64_t now)
{
	const struct px_addr *pin;

	if (k->req.host.kind == PX_IP) {
		k->addrs[0] = k->req.host.addr;
		k->naddr = 1;
	} else if ((pin = px_pin(c->plan, &k->req.host))) {
		k->addrs[0] = *pin;
		k->naddr = 1;
	} else {
		k->naddr = eg_hosts_lookup(c, k->req.host.name, k->addrs,
					   EG_MAX_ADDR);
	}
	if (k->naddr) {
		addresses_known(c, k, now);
		return;
	}
	if (eg_dns_start(c, &k->q, k->req.host.name, now) < 0) {
		k->verdict = V_ERROR;
		snprintf(k->reason, sizeof(k->reason),
			 "unable to resolve %s: %s", k->req.host.name,
			 c->nns ? strerror(errno) :
				  "no name server in /etc/resolv.conf");
		reply_error(k, 502, 4, now);
		return;
	}
	k->st = C_RESOLVE;
	k->deadline = now + EG_RESOLVE_MS;
}

static void decide(struct eg_ctx *c, struct conn *k, uint64_t now)
{
	long rule = -1;
	int allow = px_match(c->plan, &k->req.host, k->req.port, &rule);

	k->parsed = true;
	if (rule >= 0)
		px_rule_text(c->plan, rule, k->rule_text, sizeof(k->rule_text));
	if (!allow) {
		snprintf(k->reason, sizeof(k->reason), "%s",
			 rule < 0 ? "no rule allows it (default deny)" :
				    k->rule_text);
		deny(k, now);
		return;
	}
	k->verdict = V_ALLOW;
	resolve(c, k, now);
}

/* --- the request head ------------------------------------------------ */

static void on_head(struct eg_ctx *c, struct conn *k, uint64_t now)
{
	ssize_t r;
	enum px_res res;

	r = recv(k->cfd, k->head + k->nhead, PX_MAX_HEAD - k->nhead,
		 MSG_DONTWAIT);
	if (r < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (r <= 0) {
		snprintf(k->reason, sizeof(k->reason), "%s",
			 r ? "the client's connection failed" :
			     "the client closed before a complete request");
		k->st = C_DRAIN;
		k->deadline = now;
		return;
	}
	k->nhead += (size_t)r;
again:
	res = px_parse(&k->req, k->head, k->nhead, out_head, sizeof(out_head));
	if (res == PX_MORE) {
		if (k->nhead < PX_MAX_HEAD)
			return;
		/* The contract says the parser answers first; if it did
		 * not, this is still the end of it. */
		snprintf(k->reason, sizeof(k->reason),
			 "request head longer than %d bytes", PX_MAX_HEAD);
		reply_error(k, 431, 1, now);
		return;
	}
	if (res == PX_REPLY) {
		send_now(k->cfd, k->req.reply, k->req.nreply);
		memmove(k->head, k->head + k->req.used, k->nhead - k->req.used);
		k->nhead -= k->req.used;
		if (k->nhead)
			goto again;
		return;
	}
	if (res == PX_ERROR) {
		k->verdict = V_ERROR;
		k->status = k->req.status;
		snprintf(k->reason, sizeof(k->reason), "%s",
			 k->req.reason ? k->req.reason : "malformed request");
		if (k->req.nreply)
			send_now(k->cfd, k->req.reply, k->req.nreply);
		shutdown(k->cfd, SHUT_WR);
		k->st = C_DRAIN;
		k->deadline = now + EG_DRAIN_MS;
		return;
	}
	decide(c, k, now);
}

/* --- the relay ------------------------------------------------------- */

static int put(struct ebuf *b, const void *p, size_t n)
{
	if (b->off + b->len + n > EG_BUF)
		return -1;
	memcpy(b->b + b->off + b->len, p, n);
	b->len += n;
	return 0;
}

static void start_relay(struct eg_ctx *c, struct conn *k, uint64_t now)
{
	const char *rest = k->head + k->req.used;
	size_t nrest = k->nhead - k->req.used;
	unsigned char s5[10];
	int one = 1;

	(void)c;
	k->up.b = malloc(EG_BUF);
	k->down.b = malloc(EG_BUF);
	if (!k->up.b || !k->down.b) {
		fail(k, 503, 1, now, "out of memory");
		return;
	}
	for (struct ebuf *b = &k->up; b; b = b == &k->up ? &k->down : NULL) {
		int p[2];

		if (pipe2(p, O_NONBLOCK | O_CLOEXEC) == 0) {
			b->pr = p[0];
			b->pw = p[1];
		}
	}
	setsockopt(k->ufd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	setsockopt(k->cfd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (k->req.kind == PX_HTTP) {
		/* One request per connection: its head, then exactly its
		 * body; a pipelined second request is never passed on to
		 * an upstream that was chosen for the first. */
		put(&k->up, out_head, k->req.nout);
		k->nup += k->req.nout;
		if (nrest > k->req.body)
			nrest = (size_t)k->req.body;
		k->body_left = k->req.body - nrest;
	} else if (k->req.kind == PX_SOCKS5) {
		put(&k->down, s5, px_socks5_reply(s5, 0));
	} else {
		put(&k->down, established, sizeof(established) - 1);
	}
	put(&k->up, rest, nrest);
	k->nup += nrest;
	free(k->head);
	k->head = NULL;
	k->status = 200;
	k->st = C_RELAY;
	k->deadline = now + EG_IDLE_MS;
}

/* Is the client done sending (for PX_HTTP: its body passed)? */
static bool client_done(const struct conn *k)
{
	return k->ceof || (k->req.kind == PX_HTTP && !k->body_left);
}

static size_t pending(const struct ebuf *b)
{
	return b->len + b->pn;
}

/* One direction, src to dst through b: read (at most limit bytes) when
 * nothing is pending and the source is not done, write what is pending.
 * Returns -1 on a socket error, else whether anything moved. */
static int pump(int src, int dst, struct ebuf *b, short sev, uint64_t limit,
		bool done, bool *eof, uint64_t *count)
{
	ssize_t r;
	int moved = 0;

	if ((sev & (POLLIN | POLLHUP | POLLERR)) && !pending(b) && !done) {
		size_t want = limit < EG_BUF ? (size_t)limit : EG_BUF;

		if (b->pw >= 0)
			r = splice(src, NULL, b->pw, NULL, want,
				   SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
		else
			r = recv(src, b->b, want, MSG_DONTWAIT);
		if (r > 0) {
			moved = 1;
			if (b->pw >= 0) {
				b->pn = (size_t)r;
			} else {
				b->off = 0;
				b->len = (size_t)r;
			}
			*count += (uint64_t)r;
		} else if (r == 0) {
			*eof = true;
		} else if (errno != EAGAIN && errno != EINTR) {
			return -1;
		}
	}
	if (b->len)
		r = send(dst, b->b + b->off, b->len, MSG_DONTWAIT | MSG_NOSIGNAL);
	else if (b->pn)
		r = splice(b->pr, NULL, dst, NULL, b->pn,
			   SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
	else
		return moved;
	if (r > 0 && b->len) {
		b->off += (size_t)r;
		b->len -= (size_t)r;
	} else if (r > 0) {
		b->pn -= (size_t)r;
	} else if (r < 0 && errno != EAGAIN && errno != EINTR) {
		return -1;
	}
	return moved || r > 0;
}

/* Move bytes once each way; returns -1 when the connection is over (both
 * ways done, or a socket failed), else whether anything moved. */
static int relay_once(struct conn *k, short cev, short uev, uint64_t now)
{
	bool http = k->req.kind == PX_HTTP;
	uint64_t nup = k->nup;
	int a, b;

	a = pump(k->cfd, k->ufd, &k->up, cev, http ? k->body_left : UINT64_MAX,
		 client_done(k), &k->ceof, &k->nup);
	if (http)
		k->body_left -= k->nup - nup;
	b = pump(k->ufd, k->cfd, &k->down, uev, UINT64_MAX, k->ueof, &k->ueof,
		 &k->ndown);
	if (a < 0 || b < 0)
		return -1;
	if (a || b)
		k->deadline = now + EG_IDLE_MS;
	/* The client closed its side: pass the FIN on (a plain HTTP
	 * request keeps the upstream's write side open: some servers take
	 * a half-close for an abort). */
	if (k->ceof && !pending(&k->up) && !k->up_shut) {
		shutdown(k->ufd, SHUT_WR);
		k->up_shut = true;
	}
	if (k->ueof && !pending(&k->down)) {
		if (client_done(k) && !pending(&k->up))
			return -1;
		shutdown(k->cfd, SHUT_WR);
		if (http)
			return -1;
	}
	return a || b;
}

/* As long as bytes move (a few rounds at most, so that one busy
 * connection cannot starve the others): fewer trips through poll. */
static int relay(struct conn *k, short cev, short uev, uint64_t now)
{
	const short any = POLLIN;
	int r = relay_once(k, cev, uev, now);

	for (int i = 0; r > 0 && i < 8; i++)
		r = relay_once(k, any, any, now);
	return r < 0 ? -1 : 0;
}

/* --- the loop -------------------------------------------------------- */

static int take_listener(struct eg_ctx *c)
{
	char byte;
	struct iovec iov = { &byte, 1 };
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int))];
	} u;
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1,
			    .msg_control = u.buf,
			    .msg_controllen = sizeof(u.buf) };
	struct cmsghdr *cm;
	ssize_t r;

	r = recvmsg(c->chan, &m, MSG_CMSG_CLOEXEC | MSG_DONTWAIT);
	if (r < 0 && (errno == EAGAIN || errno == EINTR))
		return 0;
	cm = r == 1 ? CMSG_FIRSTHDR(&m) : NULL;
	close(c->chan);
	c->chan = -1;
	if (!cm || cm->cmsg_level != SOL_SOCKET ||
	    cm->cmsg_type != SCM_RIGHTS ||
	    cm->cmsg_len != CMSG_LEN(sizeof(int)))
		return -1;	/* the sandbox's setup failed: nothing to serve */
	memcpy(&c->lfd, CMSG_DATA(cm), sizeof(int));
	return 0;
}

static void accept_some(struct eg_ctx *c, uint64_t now)
{
	while (nconns < EG_MAX_CONN) {
		int fd = accept4(c->lfd, NULL, NULL,
				 SOCK_NONBLOCK | SOCK_CLOEXEC);
		struct conn *k;

		if (fd < 0) {
			if (errno == EMFILE || errno == ENFILE ||
			    errno == ENOBUFS || errno == ENOMEM)
				accept_resume = now + 100;
			return;
		}
		k = calloc(1, sizeof(*k));
		if (k)
			k->head = malloc(PX_MAX_HEAD);
		if (!k || !k->head) {
			free(k);
			close(fd);
			accept_resume = now + 100;
			return;
		}
		k->cfd = fd;
		k->ufd = k->q.fd = -1;
		k->up.pr = k->up.pw = k->down.pr = k->down.pw = -1;
		k->t0 = now;
		k->deadline = now + EG_HEAD_MS;
		k->st = C_HEAD;
		conns[nconns++] = k;
	}
}

static void on_deadline(struct eg_ctx *c, struct conn *k, uint64_t now)
{
	switch (k->st) {
	case C_HEAD:
		k->verdict = V_ERROR;
		snprintf(k->reason, sizeof(k->reason),
			 "no complete request head within %d s",
			 EG_HEAD_MS / 1000);
		reply_error(k, 408, 1, now);
		break;
	case C_RESOLVE:
		/* One of the two queries answered: enough. */
		if (k->naddr) {
			eg_dns_close(&k->q);
			addresses_known(c, k, now);
			break;
		}
		k->verdict = V_ERROR;
		snprintf(k->reason, sizeof(k->reason),
			 "unable to resolve %s: no answer within %d s",
			 k->req.host.name, EG_RESOLVE_MS / 1000);
		reply_error(k, 504, 4, now);
		break;
	case C_CONNECT:
		close(k->ufd);
		k->ufd = -1;
		connect_failed(k, 504, 4, now, "no answer within 10 s");
		break;
	case C_RELAY:
		snprintf(k->reason, sizeof(k->reason),
			 "idle for %d s", EG_IDLE_MS / 1000);
		break;
	case C_DRAIN:
		break;
	}
}

/* The poll set: [0] the signalfd, [1] the listener or the channel, then
 * up to two sockets per connection (client, upstream or DNS). */
static struct pollfd pfd[2 + 2 * EG_MAX_CONN];

static size_t fill(struct eg_ctx *c, uint64_t *next)
{
	size_t n = 2;

	pfd[0] = (struct pollfd){ c->sigfd, POLLIN, 0 };
	pfd[1] = (struct pollfd){ c->lfd >= 0 ? c->lfd : c->chan, POLLIN, 0 };
	if (c->lfd >= 0 && (nconns >= EG_MAX_CONN || accept_resume)) {
		pfd[1].fd = -1;
		if (accept_resume && accept_resume < *next)
			*next = accept_resume;
	}
	for (size_t i = 0; i < nconns; i++) {
		struct conn *k = conns[i];
		short ce = 0, ue = 0;
		int ufd = k->ufd;

		if (k->deadline < *next)
			*next = k->deadline;
		if (k->st == C_RESOLVE && k->q.retry_at &&
		    k->q.retry_at < *next)
			*next = k->q.retry_at;
		switch (k->st) {
		case C_HEAD:
		case C_DRAIN:
			ce = POLLIN;
			break;
		case C_RESOLVE:
			ufd = k->q.fd;
			ue = POLLIN;
			break;
		case C_CONNECT:
			ue = POLLOUT;
			break;
		case C_RELAY:
			if (!pending(&k->up) && !client_done(k))
				ce |= POLLIN;
			if (pending(&k->down))
				ce |= POLLOUT;
			if (!pending(&k->down) && !k->ueof)
				ue |= POLLIN;
			if (pending(&k->up))
				ue |= POLLOUT;
			break;
		}
		pfd[n++] = (struct pollfd){ ce ? k->cfd : -1, ce, 0 };
		pfd[n++] = (struct pollfd){ ue ? ufd : -1, ue, 0 };
	}
	return n;
}

/* SIGTERM: the run is over. Every connection still open gets its
 * record (reason "the run ended"). */
static void end_all(struct eg_ctx *c, uint64_t now)
{
	while (nconns) {
		struct conn *k = conns[nconns - 1];

		if (!k->reason[0])
			snprintf(k->reason, sizeof(k->reason), "the run ended");
		conn_end(c, nconns - 1, now);
	}
}

int egress_loop(struct eg_ctx *c)
{
	struct diag d = DIAG_INIT("pysbx-proxy", "proxy");
	bool lst;

	for (;;) {
		uint64_t now = eg_now(), next = now + 3600000;
		size_t n;

		if (accept_resume && accept_resume <= now)
			accept_resume = 0;
		n = fill(c, &next);
		int timeout = next > now ? (int)(next - now) : 0;

		if (poll(pfd, n, timeout) < 0 && errno != EINTR)
			return EXIT_SYSCALL;
		now = eg_now();
		if (pfd[0].revents) {
			end_all(c, now);
			return 0;
		}
		/* A connection waits on the listener. */
		lst = c->lfd >= 0 && pfd[1].fd == c->lfd && pfd[1].revents;
		if (pfd[1].revents && c->lfd < 0 && take_listener(c) < 0)
			return 0;
		if (lst && !c->ready && egress_ready(&d, c) < 0) {
			diag_emit(&d);
			return d.code;
		}
		/* Connections first (by their slots in pfd), new ones last. */
		for (size_t i = nconns, j; i-- > 0;) {
			struct conn *k = conns[i];
			short ce = pfd[2 + 2 * i].revents;
			short ue = pfd[3 + 2 * i].revents;
			bool over = false;

			switch (k->st) {
			case C_HEAD:
				if (ce)
					on_head(c, k, now);
				break;
			case C_RESOLVE:
				if (ue)
					on_dns(c, k, now);
				break;
			case C_CONNECT:
				if (ue)
					on_connected(c, k, now);
				break;
			case C_RELAY:
				if ((ce || ue) && relay(k, ce, ue, now) < 0)
					over = true;
				break;
			case C_DRAIN:
				if (ce) {
					char sink[4096];
					ssize_t r = recv(k->cfd, sink,
							 sizeof(sink),
							 MSG_DONTWAIT);

					over = r == 0 || (r < 0 &&
							  errno != EAGAIN &&
							  errno != EINTR);
				}
				break;
			}
			j = i;
			/* Still in C_RESOLVE: no answer from this name
			 * server yet; ask the next one. */
			if (!over && k->st == C_RESOLVE && k->q.retry_at &&
			    k->q.retry_at <= now &&
			    eg_dns_retry(c, &k->q, k->req.host.name, now) < 0)
				k->q.retry_at = 0;
			if (!over && k->deadline <= now) {
				on_deadline(c, k, now);
				over = k->st == C_RELAY ||
				       (k->st == C_DRAIN && k->deadline <= now);
			}
			if (over)
				conn_end(c, j, now);
		}
		if (lst)
			accept_some(c, now);
	}
}
