/* netaddr: IP addresses and host names as the network rules of a policy
 * and the egress proxy read them. Pure code: no I/O, no allocation, the
 * same answers with musl and glibc. Below pkg/policy (which parses rules
 * with it) and pkg/proxy (which parses requests with it).
 */
#ifndef PYSBX_NETADDR_H
#define PYSBX_NETADDR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

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

#endif
