/* proxy: the egress proxy's pure code: host names and addresses, the
 * rules of the policy (net-allow, net-deny, net-resolve), and the parser
 * of the requests a sandboxed program sends to the proxy (HTTP CONNECT,
 * absolute-form HTTP, SOCKS5). No I/O, no allocation: every buffer is the
 * caller's. The bytes parsed here are written by the sandbox: this is
 * the toolkit's largest attack surface, fuzzed by test/fuzz/fuzz_proxy.c.
 * docs/POLICY.md documents the rules, docs/NETWORK.md the proxy.
 */
#ifndef PYSBX_PROXY_H
#define PYSBX_PROXY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

struct plan;
struct px_rule;

/* --- addresses ------------------------------------------------------- */

/* An IP address; an IPv4-mapped IPv6 address (::ffff:a.b.c.d) is stored
 * as the IPv4 address it maps (it reaches that host), so that a rule or
 * a check that names one names the other too. */
struct px_addr {
	uint8_t family;		/* 4 or 6 */
	uint8_t a[16];		/* network order; IPv4: the first 4 bytes */
};

/* IPv6 literals are written in brackets ("[::1]"), IPv4 dotted-decimal:
 * at most "[" + 45 + "]" + NUL. */
#define PX_ADDR_TEXT 48

/* Parse an IPv4 literal (exactly four decimal parts 0-255, no leading
 * zeros) or an IPv6 literal (RFC 4291 text, with or without brackets, no
 * zone id) of n bytes. Returns 0, or -1. Same answer with musl and glibc
 * (no inet_pton). */
int px_addr_parse(const char *s, size_t n, struct px_addr *out);
/* A port of n bytes: 1-65535 in decimal, no sign, no leading zero.
 * Returns 0 and sets *out, or -1. */
int px_port_parse(const char *s, size_t n, unsigned *out);
/* Canonical text (RFC 5952: lower case, longest zero run as "::"; IPv6
 * in brackets) into buf (PX_ADDR_TEXT bytes); returns buf. */
char *px_addr_text(const struct px_addr *a, char *buf);
/* From a sockaddr_in or sockaddr_in6 (len bytes). Returns 0, or -1 for
 * any other family or a short len. */
int px_addr_from_sa(const struct sockaddr *sa, socklen_t len,
		    struct px_addr *out);
bool px_addr_eq(const struct px_addr *a, const struct px_addr *b);
/* Does a reach the address r names? a equals r, or a is ::ffff:R or
 * 64:ff9b::R (IPv4-mapped, NAT64) for the IPv4 address R. */
bool px_addr_same(const struct px_addr *r, const struct px_addr *a);
/* ::ffff:a.b.c.d is stored as the IPv4 address it reaches. */
void px_addr_unmap(struct px_addr *a);

enum px_class {
	PX_PUBLIC,		/* none of the below */
	PX_UNSPEC,		/* 0.0.0.0/8, :: */
	PX_LOOPBACK,		/* 127/8, ::1 */
	PX_PRIVATE,		/* 10/8, 172.16/12, 192.168/16, fc00::/7,
				 * fec0::/10, 64:ff9b:1::/48 */
	PX_LINKLOCAL,		/* 169.254/16 (cloud metadata), fe80::/10 */
	PX_CGNAT,		/* 100.64/10 */
	PX_MULTICAST,		/* 224/4, ff00::/8, 255.255.255.255 */
	PX_RESERVED,		/* 192.0.0/24, 198.18/15, 240/4, docs
				 * (192.0.2, 198.51.100, 203.0.113,
				 * 2001:db8::/32), 100::/64, ::/96,
				 * 2001::/23, 2002::/16 (6to4), 192.88.99/24 */
};
/* NAT64 (64:ff9b::/96) takes the class of the IPv4 address it embeds. */
enum px_class px_classify(const struct px_addr *a);
const char *px_class_name(enum px_class c);	/* "loopback", ... */

/* --- host names ------------------------------------------------------ */

#define PX_HOST_MAX 253		/* bytes of a name, as DNS allows */

/* A destination as a request or a rule names it. */
struct px_host {
	enum { PX_NAME, PX_IP } kind;
	char name[PX_HOST_MAX + 1]; /* PX_NAME: lower case, no trailing dot;
				     * PX_IP: px_addr_text's canonical text */
	struct px_addr addr;	/* PX_IP */
};

enum px_host_err {
	PXH_OK,
	PXH_EMPTY,		/* "" */
	PXH_LONG,		/* over 253 bytes, or a label over 63 */
	PXH_CHAR,		/* a byte outside [A-Za-z0-9._-] (NUL, CR, LF,
				 * space, '%', '@', '\\', non-ASCII...) */
	PXH_LABEL,		/* an empty label ("a..b", ".a") or one that
				 * starts or ends with '-' */
	PXH_NUMERIC,		/* last label numeric ("1.2.3", "0x7f.1",
				 * "2130706433", "1.02.3.4"): an address in a
				 * form resolvers read differently */
	PXH_IPV6,		/* bad IPv6 literal or a zone id ("%eth0") */
	PXH_UPPER,		/* strict: upper case */
	PXH_DOT,		/* strict: trailing dot */
};

/* Parse a host of n bytes: "[v6]", a dotted-quad IPv4, or a name.
 * Requests (strict false): lower-cased, one trailing dot dropped. Policy
 * rules (strict true): upper case and a trailing dot are errors. No IDNA:
 * non-ASCII is PXH_CHAR. */
enum px_host_err px_host_parse(const char *s, size_t n, bool strict,
			       struct px_host *out);
const char *px_host_strerror(enum px_host_err e); /* for 400 bodies */

/* --- rules ----------------------------------------------------------- */

/* How a rule names hosts (struct px_rule in policy/policy.h). */
enum px_rule_kind {
	PXR_NAME,		/* example.com: that name only */
	PXR_SUFFIX,		/* *.example.com: names below it, not itself */
	PXR_ANY,		/* *: every host (net-deny only) */
	PXR_IP,			/* 10.0.0.1, [::1]: that address only */
};

/* The verdict for host h (already parsed) and port (1-65535): 1 allow,
 * 0 deny. *rule: index into p->px of the deciding rule, -1 for the
 * default (no rule matched: deny). Every matching net-deny beats every
 * net-allow; among rules of one kind the first in the plan decides. */
int px_match(const struct plan *p, const struct px_host *h, unsigned port,
	     long *rule);

/* Does rule r name host h (its port aside)? */
bool px_host_match(const struct px_rule *r, const struct px_host *h);

/* The pinned address of name h (net-resolve), or NULL: then resolve. */
const struct px_addr *px_pin(const struct plan *p, const struct px_host *h);

enum px_addr_verdict {
	PXA_OK,
	PXA_DENIED,		/* a net-deny rule names this address */
	PXA_NONPUBLIC,		/* not PX_PUBLIC and nothing names it */
	PXA_OWN,		/* one of own[]: the host's own addresses */
};
/* May the proxy connect to a, an address h (allowed by px_match)
 * resolved to, on port? Refused: an address a net-deny rule names (*rule
 * set; deny wins over names too), then a non-public one or one of
 * own[nown] (the host's interface addresses), unless an allow rule names
 * the address literally (for this port) or a net-resolve pin of h gives
 * it. "Names" covers the IPv4-mapped and NAT64 forms of an IPv4 address
 * (px_addr_same). An unspecified address (0.0.0.0, ::) is refused even
 * when named: a connect to it reaches this host. own == NULL with nown
 * != 0: the host's addresses are unknown (more than the proxy holds), so
 * every address no rule names counts as possibly the host's (PXA_OWN). */
enum px_addr_verdict px_addr_check(const struct plan *p,
				   const struct px_host *h, unsigned port,
				   const struct px_addr *a,
				   const struct px_addr *own, size_t nown,
				   long *rule);

/* "net-allow *.example.com:443 (t.policy:3:11)": the rule's directive,
 * text and position, for the 403 body, stderr and the egress log; "no
 * rule allows it (default deny)" for -1. Truncated to fit len. */
char *px_rule_text(const struct plan *p, long rule, char *buf, size_t len);

/* --- requests -------------------------------------------------------- */

#define PX_MAX_HEAD 16384	/* bytes of a request head; past: 431 */
#define PX_MAX_LINE 8192	/* bytes of the request line; past: 414 */
#define PX_MAX_HEADERS 100	/* header lines; past: 431 */
/* Room for the rewritten head of a PX_HTTP request (the head can only
 * shrink, but for "Host:" and "Connection: close" added). */
#define PX_MAX_OUT (PX_MAX_HEAD + 512)
#define PX_MAX_REPLY 512	/* bytes of r->reply */

enum px_kind { PX_UNKNOWN, PX_CONNECT, PX_HTTP, PX_SOCKS5 };

enum px_res {
	PX_ERROR = -1,		/* send r->reply (r->nreply bytes), close */
	PX_MORE = 0,		/* need more bytes: call again with all */
	PX_DONE = 1,		/* a request: see r */
	PX_REPLY = 2,		/* SOCKS5 greeting: send r->reply, drop the
				 * first r->used bytes, call again */
};

struct px_req {
	/* Zero the whole struct once per connection; the parser keeps
	 * its place in it across calls. */
	enum px_kind kind;
	struct px_host host;	/* PX_DONE: the destination, validated */
	unsigned port;		/* PX_DONE: 1-65535 */
	size_t used;		/* PX_DONE/PX_REPLY: bytes of buf consumed
				 * (the head); what follows is the body
				 * (PX_HTTP) or tunnel data (CONNECT/SOCKS) */
	size_t nout;		/* PX_HTTP: bytes of the head in out */
	uint64_t body;		/* PX_HTTP: Content-Length (0: none) */
	int status;		/* PX_ERROR, HTTP: 400, 411, 414, 431, 505 */
	const char *reason;	/* PX_ERROR: static text, no client bytes */
	int socks_rep;		/* PX_ERROR, SOCKS5: REP code sent */
	char reply[PX_MAX_REPLY];
	size_t nreply;
	/* private */
	int stage;
	size_t scan, line_end;
};

/* Parse the bytes the client has sent so far, buf[0..len) (a caller
 * buffer of at least PX_MAX_HEAD bytes: it never needs more). For PX_HTTP,
 * the head to send upstream is written to out (outcap >= PX_MAX_OUT
 * bytes): origin-form request line, the caller's version, "Host:" from
 * the target, every header but Host, Proxy-*, the hop-by-hop ones and
 * those Connection names, then "Connection: close". Never reads beyond
 * len, never writes beyond outcap. */
enum px_res px_parse(struct px_req *r, const char *buf, size_t len,
		     char *out, size_t outcap);

/* A whole HTTP/1.1 response with a text/plain body and "Connection:
 * close" into buf; returns its length (truncated bodies still fit). */
size_t px_http_response(char *buf, size_t cap, int status,
			const char *body);
const char *px_status_text(int status);	/* "Forbidden", ... */

/* SOCKS5 reply (RFC 1928) with code rep (0 success, 2 not allowed by
 * ruleset, 4 host unreachable, 5 refused, 1 general failure) and
 * address 0.0.0.0:0: writes 10 bytes to out, returns 10. */
size_t px_socks5_reply(unsigned char *out, int rep);

#endif
