/* egress internals: one connection of the proxy, the resolver's state. */
#ifndef PYSBX_EGRESS_INTERNAL_H
#define PYSBX_EGRESS_INTERNAL_H

#include "egress/egress.h"

enum cstate {
	C_HEAD,		/* reading the request head (EG_HEAD_MS) */
	C_RESOLVE,	/* waiting for DNS (EG_RESOLVE_MS) */
	C_CONNECT,	/* connect() in flight (EG_CONNECT_MS) */
	C_RELAY,	/* bytes both ways (EG_IDLE_MS without any) */
	C_DRAIN,	/* an error reply sent: read the rest (EG_DRAIN_MS) */
};

enum { V_ERROR, V_ALLOW, V_DENY };

/* One DNS lookup: an A and an AAAA query on one UDP socket. */
struct eg_dnsq {
	int fd;			/* -1: none */
	uint16_t id[2];		/* A, AAAA */
	bool done[2];
	unsigned tries;		/* nameservers tried so far */
	uint64_t retry_at;
	int rcode;		/* the last error answer, 0 none */
};

/* One direction of a relay: the bytes the proxy itself puts first (the
 * 200 line, a rewritten head, what came with the head) wait in b; the
 * rest goes through a pipe with splice(2), never copied to user space
 * (without a pipe, EMFILE: through b). */
struct ebuf {
	char *b;		/* EG_BUF bytes, NULL until the relay */
	size_t off, len;	/* pending: b[off .. off+len) */
	int pr, pw;		/* the pipe, -1: none */
	size_t pn;		/* bytes in the pipe */
};

struct conn {
	int cfd, ufd;		/* client (inside), upstream (host); -1 */
	enum cstate st;
	uint64_t t0, deadline;
	char *head;		/* PX_MAX_HEAD bytes: the client's first ones */
	size_t nhead;
	bool parsed;		/* req holds a valid destination */
	struct px_req req;
	struct eg_dnsq q;
	struct px_addr addrs[EG_MAX_ADDR];
	size_t naddr, ai;	/* addresses to try, the next one */
	struct px_addr addr;	/* the one tried or connected */
	bool have_addr;
	struct ebuf up, down;	/* client -> upstream, upstream -> client */
	bool ceof, ueof;	/* EOF read from the client / upstream */
	bool up_shut;		/* upstream's write side shut */
	uint64_t body_left;	/* PX_HTTP: client body bytes still to pass */
	uint64_t nup, ndown;	/* payload bytes relayed each way */
	int verdict;		/* V_* */
	int status;		/* HTTP status given to the client, 0: none */
	char rule_text[320];	/* the deciding rule (px_rule_text) */
	char reason[1024];	/* why refused or failed; empty: none */
};

/* log.c */
void eg_log_conn(const struct eg_ctx *c, const struct conn *k, uint64_t now);
void eg_log_denied(const struct conn *k);

/* dns.c: addresses of name from /etc/hosts (read at the start) into out;
 * returns how many (0: not there). */
size_t eg_hosts_lookup(const struct eg_ctx *c, const char *name,
		       struct px_addr *out, size_t max);
/* Start a DNS lookup of name: 0, or -1 (no nameserver, no socket: errno
 * in the reason). */
int eg_dns_start(const struct eg_ctx *c, struct eg_dnsq *q,
		 const char *name, uint64_t now);
/* q->fd is readable: take the answers. 1: complete (*n addresses, maybe
 * 0), 0: waiting for more, -1 a malformed or foreign datagram ignored. */
int eg_dns_read(const struct eg_ctx *c, struct eg_dnsq *q, const char *name,
		struct px_addr *out, size_t *n, size_t max);
/* The retry time came: ask the next nameserver. 0, or -1 when every one
 * was asked (give up). */
int eg_dns_retry(const struct eg_ctx *c, struct eg_dnsq *q, const char *name,
		 uint64_t now);
void eg_dns_close(struct eg_dnsq *q);

uint64_t eg_now(void);

#endif
