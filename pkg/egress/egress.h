/* egress: the network proxy of a `net-proxy` sandbox (docs/NETWORK.md).
 *
 * The sandbox keeps its own network namespace with only loopback up.
 * pysbx-mount's pid 1 makes a TCP listener on 127.0.0.1:PORT *inside*
 * that namespace and sends it over a socketpair the guard made
 * (SCM_RIGHTS). A socket keeps the namespace it was made in: the proxy
 * process, forked from the guard and outside every namespace, accepts
 * the sandbox's connections on it and connects out from the host's
 * network, after checking each request against the plan's rules
 * (pkg/proxy: parser and matcher).
 *
 *   start.c   the proxy process: forked from the guard, closes every fd
 *             but its own; at the first connection (egress_ready) reads
 *             the plan, /etc/hosts, /etc/resolv.conf and the host's
 *             addresses, then confines itself
 *   confine.c its Landlock ruleset (no filesystem at all) and seccomp
 *             filter (filter.h, compiled into BPF at build time)
 *   loop.c    the event loop: accept, parse, decide, resolve, connect,
 *             relay; limits and timeouts
 *   dns.c     the resolver: pins, /etc/hosts, DNS over UDP (no file
 *             access after the start)
 *   log.c     the egress record on the guard's status fd, stderr lines
 *   listen.c  pysbx-mount's side: the listener, made and sent
 *
 * Only main exits: functions return -1 with a struct diag set. The proxy
 * process itself ends with _exit.
 */
#ifndef PYSBX_EGRESS_H
#define PYSBX_EGRESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "diag/diag.h"
#include "policy/policy.h"
#include "policy/netmatch.h"
#include "proxy/proxy.h"

/* Limits (docs/NETWORK.md "Limits"). */
#define EG_MAX_CONN 64		/* connections at once; more wait in the
				 * listener's backlog */
#define EG_HEAD_MS 10000	/* accept to a complete request head */
#define EG_RESOLVE_MS 5000	/* a name's resolution */
#define EG_CONNECT_MS 10000	/* connect() to the destination */
#define EG_IDLE_MS 300000	/* a relay with no byte either way */
#define EG_DRAIN_MS 2000	/* after an error reply: the client's rest */
#define EG_STOP_MS 1000		/* the guard's wait for the proxy at the end */
#define EG_BUF (64 << 10)	/* relay buffer per direction */
#define EG_MAX_ADDR 8		/* addresses tried per destination */
#define EG_MAX_OWN 1024		/* the host's addresses the proxy holds */

/* --- start.c (the guard's side) -------------------------------------- */

/* Fork the proxy process. plan_fd: the sealed plan memfd (the proxy reads
 * its rules from it, as every step does); chan: its end of the guard's
 * socketpair (the listener arrives there); status_fd: the egress log (-1:
 * none). The child closes every other fd, dies with the guard (parent-
 * death signal, checked against guard), confines itself and serves until
 * SIGTERM or until chan closes without a listener. Returns its pid in
 * the guard, or -1 with d set (111). */
pid_t egress_start(struct diag *d, int plan_fd, int chan, int status_fd,
		   pid_t guard);

/* The end of the run: SIGTERM to the proxy, which writes the records of
 * the connections still open and exits; wait for it at most EG_STOP_MS
 * (sfd: the guard's signalfd, for SIGCHLD), then SIGKILL. Reaps it.
 * Never fails. */
void egress_stop(pid_t pid, int sfd);

/* --- listen.c (pysbx-mount's pid 1, inside the new net namespace) ------ */

/* Make the TCP listener 127.0.0.1:port in the current network namespace
 * and send it over chan (SCM_RIGHTS); close both. 0, or -1 with d set
 * (111). */
int egress_listen_send(struct diag *d, int chan, unsigned port);

/* --- the proxy process (loop.c, dns.c, log.c, confine.c) --------------- */

struct eg_hosts;	/* /etc/hosts, read at the start */

struct eg_ctx {
	const struct plan *plan;
	int chan;		/* the guard's socketpair end, until the
				 * listener came; then -1 */
	int lfd;		/* the listener, -1 until it came */
	int sigfd;		/* SIGTERM, -1 until egress_ready */
	int plan_fd;		/* the plan memfd until egress_ready, then -1 */
	bool ready;		/* egress_ready done: confined */
	int status_fd;		/* the egress log, -1: none */
	struct px_addr own[EG_MAX_OWN];	/* the host's interface addresses */
	size_t nown;
	bool own_unknown;	/* more than EG_MAX_OWN: every unnamed
				 * address may be the host's */
	struct px_addr ns[3];	/* nameservers from /etc/resolv.conf */
	size_t nns;
	char *hosts;		/* /etc/hosts text, NUL-terminated, or NULL */
};

/* Confine the calling process: no_new_privs, a Landlock ruleset that
 * handles every filesystem right and grants none (and no TCP bind, no
 * abstract unix socket, no signal out of the domain, where the kernel
 * knows them), then a seccomp allow list of what the loop needs. A
 * kernel without Landlock is no failure (the filter allows no open
 * anyway); one without seccomp is. 0 or -1 with d set. */
int egress_confine(struct diag *d);

/* The proxy's start, when the first connection is there to accept:
 * read the plan (c->plan_fd), /etc/hosts, /etc/resolv.conf and the
 * host's addresses, egress_confine, take SIGTERM through a signalfd.
 * 0, or -1 with d set. */
int egress_ready(struct diag *d, struct eg_ctx *c);

/* Serve until SIGTERM or until chan closes without a listener; nothing
 * is accepted before egress_ready. Returns the exit code for the proxy
 * process. */
int egress_loop(struct eg_ctx *c);

/* Read /etc/resolv.conf's nameservers and /etc/hosts into c (before
 * egress_confine: no file is opened later). Missing files are no error
 * (no nameserver: only pins, literals and /etc/hosts resolve). */
void eg_dns_init(struct eg_ctx *c);

#endif
