/* netmatch: the verdicts of a policy's network rules (net-allow,
 * net-deny, net-resolve) for a host the proxy was asked for and for the
 * addresses it resolved to. docs/POLICY.md documents the rules.
 */
#ifndef PYSBX_NETMATCH_H
#define PYSBX_NETMATCH_H

#include "netaddr/netaddr.h"
#include "policy/policy.h"

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

#endif
