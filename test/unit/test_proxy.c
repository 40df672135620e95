/* The egress proxy's pure code (pkg/proxy) and its policy directives:
 * every rejected rule with its exact diagnostic, the plan round trip,
 * the matcher (deny wins, default deny), host and address checks, the
 * address classes, and the request parser, hostile inputs first. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "chain/chain.h"
#include "policy/policy.h"
#include "policy/netmatch.h"
#include "proxy/proxy.h"
#include "tap.h"

static struct perr e;

/* A test name on one line: control bytes shown as '|'. */
static const char *oneline(const char *s)
{
	static char buf[8][100];
	static int k;
	char *b = buf[k++ % 8];
	size_t i;

	for (i = 0; s[i] && i < sizeof(buf[0]) - 1; i++)
		b[i] = (unsigned char)s[i] < 0x20 ? '|' : s[i];
	b[i] = '\0';
	return b;
}
static char first[600];

#define NET "unshare user net\nnet-proxy\n"

static const char *parse_into(struct plan *p, const char *text)
{
	plan_init(p);
	if (policy_parse_buf(p, "t.policy", text, strlen(text), NULL, 0,
			     &e) < 0)
		snprintf(first, sizeof(first), "%s", e.n ? e.msg[0] : "?");
	else
		snprintf(first, sizeof(first), "ok");
	return first;
}

static const char *parse(const char *text)
{
	struct plan p;

	parse_into(&p, text);
	plan_free(&p);
	return first;
}

#define REJECT(text, msg) is_str(parse(text), msg, "rejects: %s", msg)
#define ACCEPT(text) is_str(parse(text), "ok", "accepts: %s", oneline(text))

static void directives(void)
{
	ACCEPT(NET "net-allow example.com *.example.org:443 10.0.0.1:8080 "
		   "[::1]:80 [2001:db8::1] xn--bcher-kva.example\n"
		   "net-deny * *:22 evil.example.com\n");
	ACCEPT(NET "net-resolve pypi.local=127.0.0.1 v6.local=::1 "
		   "b.local=[fe80::1]\n"
		   "net-allow pypi.local v6.local:443 *.local\n");
	ACCEPT("unshare user net\nnet-proxy port=8080\n");
	REJECT("unshare user\nnet-proxy\n",
	       "t.policy:2:1: error: 'net-proxy' needs a network namespace "
	       "('unshare net'): without one the sandbox has the host's "
	       "network and no rule would hold");
	REJECT("unshare user net\nnet-allow example.com\n",
	       "t.policy:2:11: error: 'net-allow' needs 'net-proxy' (without "
	       "the proxy, rules filter nothing)");
	REJECT("unshare user net\nnet-resolve a.b=1.2.3.4\n",
	       "t.policy:2:13: error: 'net-resolve' needs 'net-proxy' (without "
	       "the proxy, rules filter nothing)");
	REJECT(NET "net-proxy\n",
	       "t.policy:3:1: error: duplicate 'net-proxy' (first given at "
	       "t.policy:2)");
	REJECT("unshare user net\nnet-proxy port=0\n",
	       "t.policy:2:11: error: expected 'port=N' with N from 1 to "
	       "65535, not 'port=0'");
	REJECT("unshare user net\nnet-proxy 3128\n",
	       "t.policy:2:11: error: expected 'port=N' with N from 1 to "
	       "65535, not '3128'");
	REJECT(NET "net-allow *\n",
	       "t.policy:3:11: error: rule '*': '*' (every host) is allowed "
	       "only in net-deny; allow hosts by name ('*.example.com')");
	REJECT(NET "net-allow *:443\n",
	       "t.policy:3:11: error: rule '*:443': '*' (every host) is "
	       "allowed only in net-deny; allow hosts by name "
	       "('*.example.com')");
	REJECT(NET "net-allow Example.com\n",
	       "t.policy:3:11: error: host 'Example.com' must be lower case "
	       "(write 'example.com')");
	REJECT(NET "net-allow example.com.\n",
	       "t.policy:3:11: error: host 'example.com.' must not end with "
	       "'.' (write 'example.com')");
	REJECT(NET "net-allow a..b\n",
	       "t.policy:3:11: error: host 'a..b' is not valid: the host has "
	       "an empty label or one that starts or ends with '-'");
	REJECT(NET "net-allow .a.b\n",
	       "t.policy:3:11: error: host '.a.b' is not valid: the host has "
	       "an empty label or one that starts or ends with '-'");
	REJECT(NET "net-allow -a.b\n",
	       "t.policy:3:11: error: host '-a.b' is not valid: the host has "
	       "an empty label or one that starts or ends with '-'");
	REJECT(NET "net-allow a.*.b\n",
	       "t.policy:3:11: error: rule 'a.*.b': '*' must be the whole "
	       "host (net-deny *) or the whole first label ('*.example.com')");
	REJECT(NET "net-allow *a.b\n",
	       "t.policy:3:11: error: rule '*a.b': '*' must be the whole "
	       "host (net-deny *) or the whole first label ('*.example.com')");
	REJECT(NET "net-deny *.*.b\n",
	       "t.policy:3:10: error: rule '*.*.b': '*' must be the whole "
	       "host (net-deny *) or the whole first label ('*.example.com')");
	REJECT(NET "net-allow *.\n",
	       "t.policy:3:11: error: rule '*.': '*' must be the whole host "
	       "(net-deny *) or the whole first label ('*.example.com')");
	REJECT(NET "net-allow *.10.0.0.1\n",
	       "t.policy:3:11: error: rule '*.10.0.0.1': a wildcard needs a "
	       "name after '*.', not an address");
	REJECT(NET "net-allow *.Example.com\n",
	       "t.policy:3:11: error: wildcard suffix 'Example.com' must be "
	       "lower case (write 'example.com')");
	REJECT(NET "net-allow example.com:0\n",
	       "t.policy:3:11: error: rule 'example.com:0': port '0' is not a "
	       "number from 1 to 65535");
	REJECT(NET "net-allow example.com:65536\n",
	       "t.policy:3:11: error: rule 'example.com:65536': port '65536' "
	       "is not a number from 1 to 65535");
	REJECT(NET "net-allow example.com:\n",
	       "t.policy:3:11: error: rule 'example.com:': port '' is not a "
	       "number from 1 to 65535");
	REJECT(NET "net-allow example.com:044\n",
	       "t.policy:3:11: error: rule 'example.com:044': port '044' is "
	       "not a number from 1 to 65535");
	REJECT(NET "net-allow ::1\n",
	       "t.policy:3:11: error: rule '::1': an IPv6 address goes in "
	       "brackets, e.g. '[::1]' or '[::1]:443'");
	REJECT(NET "net-allow [::1]443\n",
	       "t.policy:3:11: error: rule '[::1]443': expected ':PORT' after "
	       "']'");
	REJECT(NET "net-allow [fe80::1%eth0]\n",
	       "t.policy:3:11: error: host '[fe80::1%eth0]' is not valid: the "
	       "host is not a valid IPv6 address in brackets (zone ids are "
	       "not accepted)");
	REJECT(NET "net-allow [1.2.3.4]\n",
	       "t.policy:3:11: error: host '[1.2.3.4]' is not valid: the host "
	       "is not a valid IPv6 address in brackets (zone ids are not "
	       "accepted)");
	REJECT(NET "net-allow 127.1\n",
	       "t.policy:3:11: error: host '127.1' is not valid: the host is a "
	       "number but not a dotted-quad IPv4 address (a.b.c.d, no "
	       "leading zeros)");
	REJECT(NET "net-allow 010.0.0.1\n",
	       "t.policy:3:11: error: host '010.0.0.1' is not valid: the host "
	       "is a number but not a dotted-quad IPv4 address (a.b.c.d, no "
	       "leading zeros)");
	REJECT(NET "net-allow 0x7f.0.0.1\n",
	       "t.policy:3:11: error: host '0x7f.0.0.1' is not valid: the host "
	       "is a number but not a dotted-quad IPv4 address (a.b.c.d, no "
	       "leading zeros)");
	REJECT(NET "net-allow b\xc3\xbc" "cher.de\n",
	       "t.policy:3:11: error: host 'b\xc3\xbc" "cher.de' is not valid: "
	       "the host holds a byte other than letters, digits, '.', '-' "
	       "and '_' (no IDNA: write xn-- names)");
	REJECT(NET "net-allow \"a b\"\n",
	       "t.policy:3:11: error: host 'a b' is not valid: the host holds "
	       "a byte other than letters, digits, '.', '-' and '_' (no IDNA: "
	       "write xn-- names)");
	REJECT(NET "net-allow http://example.com/\n",
	       "t.policy:3:11: error: rule 'http://example.com/': port "
	       "'//example.com/' is not a number from 1 to 65535");
	REJECT(NET "net-resolve a.b\n",
	       "t.policy:3:13: error: expected NAME=ADDRESS, not 'a.b'");
	REJECT(NET "net-resolve a.b=localhost\n",
	       "t.policy:3:13: error: net-resolve 'a.b=localhost': 'localhost' "
	       "is not an IPv4 address (a.b.c.d) or an IPv6 address");
	REJECT(NET "net-resolve 1.2.3.4=1.2.3.4\n",
	       "t.policy:3:13: error: net-resolve '1.2.3.4=1.2.3.4': '1.2.3.4' "
	       "is already an address");
	REJECT(NET "net-resolve A.b=1.2.3.4\n",
	       "t.policy:3:13: error: net-resolve name 'A.b' must be lower "
	       "case (write 'a.b')");
	REJECT(NET "net-resolve *.b=1.2.3.4\n",
	       "t.policy:3:13: error: net-resolve name '*.b' is not valid: the "
	       "host holds a byte other than letters, digits, '.', '-' and "
	       "'_' (no IDNA: write xn-- names)");
	REJECT(NET "net-resolve a.b=1.2.3.4\nnet-resolve a.b=1.2.3.5\n",
	       "t.policy:4:13: error: 'a.b' is already pinned at t.policy:3");
	/* A pin no request can ever use. */
	REJECT(NET "net-allow a.test\nnet-resolve b.test=1.2.3.4\n",
	       "t.policy:4:13: error: net-resolve pin 'b.test' is never used: "
	       "no net-allow rule allows it (allow the name, or remove the "
	       "pin)");
	REJECT(NET "net-allow *.b.test\nnet-resolve b.test=1.2.3.4\n",
	       "t.policy:4:13: error: net-resolve pin 'b.test' is never used: "
	       "no net-allow rule allows it (allow the name, or remove the "
	       "pin)");
	REJECT(NET "net-allow a.test:443\nnet-deny a.test:443\n"
	       "net-resolve a.test=1.2.3.4\n",
	       "t.policy:5:13: error: net-resolve pin 'a.test' is never used: "
	       "net-deny rules refuse it on every port a net-allow rule "
	       "allows (remove the pin)");
	REJECT(NET "net-allow *.test\nnet-deny a.test\n"
	       "net-resolve a.test=1.2.3.4\n",
	       "t.policy:5:13: error: net-resolve pin 'a.test' is never used: "
	       "net-deny rules refuse it on every port a net-allow rule "
	       "allows (remove the pin)");
	REJECT(NET "net-allow a.test\nnet-deny *\nnet-resolve a.test=1.2.3.4\n",
	       "t.policy:5:13: error: net-resolve pin 'a.test' is never used: "
	       "net-deny rules refuse it on every port a net-allow rule "
	       "allows (remove the pin)");
	ACCEPT(NET "net-resolve a.test=1.2.3.4\nnet-allow a.test\n");
	ACCEPT(NET "net-allow *.b.test\nnet-resolve a.b.test=1.2.3.4\n");
	ACCEPT(NET "net-allow a.test\nnet-deny a.test:1 a.test:2 *:3\n"
	       "net-resolve a.test=1.2.3.4\n");
	ACCEPT(NET "net-allow a.test:8080\nnet-deny a.test:443\n"
	       "net-resolve a.test=1.2.3.4\n");
	REJECT(NET "allow example.com\n",
	       "t.policy:3:1: error: unknown directive 'allow' (did you mean "
	       "'net-allow'?)");
	REJECT(NET "deny example.com\n",
	       "t.policy:3:1: error: unknown directive 'deny' (did you mean "
	       "'net-deny'?)");
	REJECT(NET "net-alow example.com\n",
	       "t.policy:3:1: error: unknown directive 'net-alow' (did you "
	       "mean 'net-allow'?)");
	REJECT(NET "net-allow\n",
	       "t.policy:3:1: error: 'net-allow' takes at least 1 argument, "
	       "not 0 (usage: net-allow HOST[:PORT]...)");
}

/* plan_format -> sealed memfd -> plan_read_fd -> plan_format: the same
 * text, and the typed fields and positions survive. */
static void round_trip(void)
{
	static const char text[] =
		NET "net-allow example.com *.example.org:443 10.0.0.1:8080 "
		"[0:0::1]:80 [::ffff:10.1.2.3]\n"
		"net-deny *:22 evil.example.org\n"
		"net-resolve pypi.local=127.0.0.1 v6.local=[::1]\n"
		"net-allow pypi.local v6.local\n";
	struct diag d = DIAG_INIT("test", "test");
	struct plan p, q;
	char *a, *b, *s;
	size_t la, lb;
	int fd;

	is_str(parse_into(&p, text), "ok", "a proxied policy parses");
	a = plan_format(&p, &la);
	fd = plan_seal(&d, &p);
	plan_init(&q);
	ok(fd >= 0 && plan_read_fd(&d, fd, &q, 0) == 0,
	   "the plan reads back from its memfd: %s", d.msg);
	b = plan_format(&q, &lb);
	ok(a && b && la == lb && !memcmp(a, b, la),
	   "the plan round-trips through the memfd unchanged");
	ok(q.net_proxy && q.proxy_port == 3128 && q.npx == 9 && q.npin == 2 &&
		   q.px[1].kind == PXR_SUFFIX && q.px[1].port == 443 &&
		   !strcmp(q.px[1].host, "*.example.org") &&
		   q.px[3].kind == PXR_IP && !strcmp(q.px[3].host, "[::1]") &&
		   !strcmp(q.px[4].host, "10.1.2.3") &&
		   q.px[4].addr.family == 4 && q.px[5].deny &&
		   q.px[5].kind == PXR_ANY && q.px[5].port == 22 &&
		   q.px[6].pos.line == 4 && q.px[6].pos.col == 15 &&
		   q.px[1].pos.col == 23 && !strcmp(q.pin[1].name, "v6.local") &&
		   q.pin[1].addr.family == 6 && q.pin[0].pos.col == 13,
	   "rules and pins keep their kinds, ports, addresses and positions");
	ok(a && strstr(a, "@t.policy:3:23 net-allow *.example.org:443\n") &&
		   strstr(a, "@t.policy:5:13 net-resolve pypi.local=127.0.0.1\n"),
	   "plan lines carry each rule's own position");
	s = plan_show(&q);
	ok(s && strstr(s, "net-proxy port=3128\nnet-allow example.com\n"
			  "net-allow *.example.org:443\nnet-allow "
			  "10.0.0.1:8080\nnet-allow [::1]:80\nnet-allow "
			  "10.1.2.3\nnet-deny *:22\nnet-deny evil.example.org\n"
			  "net-allow pypi.local\nnet-allow v6.local\n"
			  "net-resolve pypi.local=127.0.0.1\nnet-resolve "
			  "v6.local=[::1]\n"),
	   "policy show prints the rules canonically");
	if (s && !strstr(s, "net-proxy"))
		diag("%s", s);
	free(s);
	free(a);
	free(b);
	if (fd >= 0)
		close(fd);
	plan_free(&p);
	plan_free(&q);
}

static struct plan mp;

static const char *verdict(const char *host, unsigned port)
{
	static char buf[300];
	struct px_host h;
	char rt[200];
	long rule;
	int v;

	if (px_host_parse(host, strlen(host), false, &h)) {
		snprintf(buf, sizeof(buf), "bad host");
		return buf;
	}
	v = px_match(&mp, &h, port, &rule);
	snprintf(buf, sizeof(buf), "%s: %s", v ? "allow" : "deny",
		 px_rule_text(&mp, rule, rt, sizeof(rt)));
	return buf;
}

#define VERDICT(h, port, want) \
	is_str(verdict(h, port), want, "%s:%u -> %s", h, port, want)

static void matcher(void)
{
	static const char text[] =
		NET "net-allow example.com *.example.org:443 10.0.0.1:8080\n"
		"net-allow uploads.example.org [::1] pinned.local\n"
		"net-deny uploads.example.org *:22 *.evil.example.com\n"
		"net-allow *.example.com\n"
		"net-resolve pinned.local=127.0.0.2\n";

	is_str(parse_into(&mp, text), "ok", "the matcher's policy parses");
	VERDICT("example.com", 80, "allow: net-allow example.com "
		"(t.policy:3:11)");
	VERDICT("EXAMPLE.COM.", 80, "allow: net-allow example.com "
		"(t.policy:3:11)");
	VERDICT("a.example.org", 443, "allow: net-allow *.example.org:443 "
		"(t.policy:3:23)");
	VERDICT("a.b.example.org", 443, "allow: net-allow *.example.org:443 "
		"(t.policy:3:23)");
	VERDICT("example.org", 443, "deny: no rule allows it (default deny)");
	VERDICT("badexample.org", 443,
		"deny: no rule allows it (default deny)");
	VERDICT("a.example.org", 80, "deny: no rule allows it (default deny)");
	VERDICT("uploads.example.org", 443, "deny: net-deny "
		"uploads.example.org (t.policy:5:10)");
	VERDICT("example.com", 22, "deny: net-deny *:22 (t.policy:5:30)");
	VERDICT("x.evil.example.com", 80, "deny: net-deny *.evil.example.com "
		"(t.policy:5:35)");
	VERDICT("evil.example.com", 80, "allow: net-allow *.example.com "
		"(t.policy:6:11)");
	VERDICT("10.0.0.1", 8080, "allow: net-allow 10.0.0.1:8080 "
		"(t.policy:3:41)");
	VERDICT("10.0.0.1", 80, "deny: no rule allows it (default deny)");
	VERDICT("[::ffff:10.0.0.1]", 8080, "allow: net-allow 10.0.0.1:8080 "
		"(t.policy:3:41)");
	VERDICT("[0::1]", 5, "allow: net-allow [::1] (t.policy:4:31)");
	VERDICT("127.0.0.1", 80, "deny: no rule allows it (default deny)");
	VERDICT("example.net", 80, "deny: no rule allows it (default deny)");
	VERDICT("com", 80, "deny: no rule allows it (default deny)");
}

static void addr_checks(void)
{
	struct px_host h;
	struct px_addr a, own[2];
	long rule;

	px_host_parse("pinned.local", 12, false, &h);
	px_addr_parse("127.0.0.2", 9, &a);
	is_int(px_addr_check(&mp, &h, 80, &a, NULL, 0, &rule), PXA_OK,
	       "a pinned name may connect to its pinned loopback address");
	px_addr_parse("127.0.0.1", 9, &a);
	is_int(px_addr_check(&mp, &h, 80, &a, NULL, 0, &rule), PXA_NONPUBLIC,
	       "... but not to another loopback address");
	px_host_parse("example.com", 11, false, &h);
	is_int(px_addr_check(&mp, &h, 80, &a, NULL, 0, &rule), PXA_NONPUBLIC,
	       "an allowed name that resolves to 127.0.0.1 is refused");
	px_addr_parse("169.254.169.254", 15, &a);
	is_int(px_addr_check(&mp, &h, 80, &a, NULL, 0, &rule), PXA_NONPUBLIC,
	       "... and to the metadata address 169.254.169.254");
	px_addr_parse("[::ffff:192.168.1.1]", 20, &a);
	is_int(px_addr_check(&mp, &h, 80, &a, NULL, 0, &rule), PXA_NONPUBLIC,
	       "... and to an IPv4-mapped private address");
	px_addr_parse("10.0.0.1", 8, &a);
	is_int(px_addr_check(&mp, &h, 8080, &a, NULL, 0, &rule), PXA_OK,
	       "a private address that an allow rule names (with its port) "
	       "is reachable");
	is_int(px_addr_check(&mp, &h, 80, &a, NULL, 0, &rule), PXA_NONPUBLIC,
	       "... not on another port");
	px_addr_parse("93.184.216.34", 13, &a);
	is_int(px_addr_check(&mp, &h, 80, &a, NULL, 0, &rule), PXA_OK,
	       "a public address is reachable");
	own[0] = a;
	is_int(px_addr_check(&mp, &h, 80, &a, own, 1, &rule), PXA_OWN,
	       "... unless it is one of the host's own addresses");
	{
		struct px_addr m = { .family = 6 };

		m.a[10] = m.a[11] = 0xff;
		memcpy(m.a + 12, a.a, 4);
		is_int(px_addr_check(&mp, &h, 80, &m, own, 1, &rule), PXA_OWN,
		       "... also in its IPv4-mapped form (an AAAA answer)");
	}
	is_int(px_addr_check(&mp, &h, 80, &a, NULL, 1, &rule), PXA_OWN,
	       "the host's addresses unknown (too many): an unnamed public "
	       "address may be one of them");
	px_addr_parse("0.0.0.0", 7, &a);
	is_int(px_addr_check(&mp, &h, 80, &a, NULL, 0, &rule), PXA_NONPUBLIC,
	       "the unspecified address 0.0.0.0 is refused");
	{
		struct px_host u;

		px_host_parse("0.0.0.0", 7, false, &u);
		is_int(px_addr_check(&mp, &u, 80, &a, NULL, 0, &rule),
		       PXA_NONPUBLIC, "... even when the request names it");
	}
	px_addr_parse("93.184.216.34", 13, &a);
	{
		struct plan dp;

		is_str(parse_into(&dp, NET "net-allow *.example.com\n"
				  "net-deny 93.184.216.34 [2001:4860::1]:443\n"),
		       "ok", "deny rules by address parse");
		px_host_parse("a.example.com", 13, false, &h);
		is_int(px_addr_check(&dp, &h, 80, &a, NULL, 0, &rule),
		       PXA_DENIED, "a name resolving to a denied address is "
		       "refused (deny wins over names)");
		is_int(rule, 1, "... by that rule");
		px_addr_parse("[2001:4860::1]", 14, &a);
		is_int(px_addr_check(&dp, &h, 443, &a, NULL, 0, &rule),
		       PXA_DENIED, "... IPv6 with its port too");
		is_int(px_addr_check(&dp, &h, 80, &a, NULL, 0, &rule), PXA_OK,
		       "... but not on another port");
		a.family = 6;	/* ::ffff:93.184.216.34, as an AAAA gives it */
		memset(a.a, 0, 16);
		a.a[10] = a.a[11] = 0xff;
		a.a[12] = 93, a.a[13] = 184, a.a[14] = 216, a.a[15] = 34;
		is_int(px_addr_check(&dp, &h, 80, &a, NULL, 0, &rule),
		       PXA_DENIED, "an IPv4-mapped form of a denied address "
		       "is refused by that rule");
		is_int(px_addr_check(&dp, &h, 80, &a, own, 1, &rule),
		       PXA_DENIED, "... before the own-address check");
		a.a[1] = 0x64, a.a[2] = 0xff, a.a[3] = 0x9b;
		a.a[10] = a.a[11] = 0;
		is_int(px_addr_check(&dp, &h, 80, &a, NULL, 0, &rule),
		       PXA_DENIED, "... and its NAT64 form 64:ff9b::/96");
		plan_free(&dp);
	}
}

static const char *cls(const char *s)
{
	struct px_addr a;

	if (px_addr_parse(s, strlen(s), &a) < 0)
		return "unparsable";
	return px_class_name(px_classify(&a));
}

#define CLASS(a, want) is_str(cls(a), want, "%s is %s", a, want)

static void classes(void)
{
	struct sockaddr_in6 s6 = { .sin6_family = AF_INET6 };
	struct px_addr a;

	CLASS("0.0.0.0", "unspecified");
	CLASS("0.1.2.3", "unspecified");
	CLASS("127.0.0.1", "loopback");
	CLASS("127.255.255.254", "loopback");
	CLASS("10.1.2.3", "private");
	CLASS("172.16.0.1", "private");
	CLASS("172.31.255.255", "private");
	CLASS("172.32.0.1", "public");
	CLASS("192.168.0.1", "private");
	CLASS("169.254.169.254", "link-local");
	CLASS("100.64.0.1", "shared (CGNAT)");
	CLASS("100.127.255.255", "shared (CGNAT)");
	CLASS("100.128.0.1", "public");
	CLASS("224.0.0.1", "multicast");
	CLASS("255.255.255.255", "multicast");
	CLASS("240.0.0.1", "reserved");
	CLASS("192.0.2.1", "reserved");
	CLASS("198.18.0.1", "reserved");
	CLASS("8.8.8.8", "public");
	CLASS("[::]", "unspecified");
	CLASS("[::1]", "loopback");
	CLASS("[::ffff:127.0.0.1]", "loopback");
	CLASS("[::ffff:8.8.8.8]", "public");
	CLASS("[64:ff9b::a00:1]", "private");
	CLASS("[64:ff9b::808:808]", "public");
	CLASS("[64:ff9b:1::1]", "private");
	CLASS("[::127.0.0.1]", "reserved");
	CLASS("[fc00::1]", "private");
	CLASS("[fd12:3456::1]", "private");
	CLASS("[fe80::1]", "link-local");
	CLASS("[febf::1]", "link-local");
	CLASS("[fec0::1]", "private");
	CLASS("[ff02::1]", "multicast");
	CLASS("[2001:db8::1]", "reserved");
	CLASS("[2001::1]", "reserved");
	CLASS("[2002:7f00:1::1]", "reserved");
	CLASS("[100::1]", "reserved");
	CLASS("[2606:4700::1111]", "public");
	/* A resolver's answer, as getaddrinfo gives it. */
	s6.sin6_addr.s6_addr[10] = s6.sin6_addr.s6_addr[11] = 0xff;
	s6.sin6_addr.s6_addr[12] = 10;
	ok(px_addr_from_sa((struct sockaddr *)&s6, sizeof(s6), &a) == 0 &&
		   a.family == 4 && px_classify(&a) == PX_PRIVATE,
	   "a sockaddr_in6 holding ::ffff:10.0.0.0 is the IPv4 address, "
	   "private");
}

static const char *hostv(const char *s, size_t n)
{
	static char buf[300];
	struct px_host h;
	enum px_host_err r = px_host_parse(s, n, false, &h);

	if (r)
		snprintf(buf, sizeof(buf), "error %d", (int)r);
	else
		snprintf(buf, sizeof(buf), "%s %s",
			 h.kind == PX_IP ? "ip" : "name", h.name);
	return buf;
}

#define HOST(s, want) \
	is_str(hostv(s, sizeof(s) - 1), want, "host %s: %s", oneline(s), want)

static void hosts(void)
{
	char longname[300];

	HOST("Example.COM", "name example.com");
	HOST("example.com.", "name example.com");
	HOST("example.com..", "error 4");
	HOST(".", "error 4");
	HOST("", "error 1");
	HOST("a\0b.com", "error 3");
	HOST("a\r\nb.com", "error 3");
	HOST("a b.com", "error 3");
	HOST("a\tb.com", "error 3");
	HOST("b\xc3\xbc" "cher.de", "error 3");
	HOST("%65vil.com", "error 3");
	HOST("allowed@evil", "error 3");
	HOST("a\\b", "error 3");
	HOST("a-.com", "error 4");
	HOST("_srv.example.com", "name _srv.example.com");
	HOST("1.2.3.4", "ip 1.2.3.4");
	HOST("1.2.3.4.", "ip 1.2.3.4");
	HOST("01.2.3.4", "error 5");
	HOST("1.2.3", "error 5");
	HOST("2130706433", "error 5");
	HOST("0x7f000001", "error 5");
	HOST("a.0x10", "error 5");
	HOST("256.1.1.1", "error 5");
	HOST("example.123", "error 5");
	HOST("123.example", "name 123.example");
	HOST("[::1]", "ip [::1]");
	HOST("[0:0:0:0:0:0:0:1]", "ip [::1]");
	HOST("[2001:DB8:0:0:1:0:0:1]", "ip [2001:db8::1:0:0:1]");
	HOST("[2001:db8:0:1:1:1:1:1]", "ip [2001:db8:0:1:1:1:1:1]");
	HOST("[::ffff:1.2.3.4]", "ip 1.2.3.4");
	HOST("[fe80::1%25eth0]", "error 6");
	HOST("[fe80::1%eth0]", "error 6");
	HOST("[::1", "error 6");
	HOST("[:::1]", "error 6");
	HOST("[1::2::3]", "error 6");
	HOST("[12345::1]", "error 6");
	HOST("[1:2:3:4:5:6:7:8:9]", "error 6");
	HOST("[1:2:3:4:5:6:7::8]", "error 6");
	HOST("[::1.2.3]", "error 6");
	HOST("[1:2:3:4:5:6:7:1.2.3.4]", "error 6");
	HOST("[1:2:3:4:5:6:1.2.3.4]", "ip [1:2:3:4:5:6:102:304]");
	memset(longname, 'a', sizeof(longname));
	for (int i = 63; i < 300; i += 64)
		longname[i] = '.';
	ok(!strncmp(hostv(longname, 253), "name aaa", 8),
	   "a 253-byte name of 63-byte labels is valid");
	is_str(hostv(longname, 254), "error 2", "a 254-byte name is too long");
	is_str(hostv("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
		     "aaa.b", 66), "error 2", "a 64-byte label is too long");
}

/* Parse s (n bytes, all at once) and summarise the outcome. */
static const char *reqn(const char *s, size_t n, struct px_req *r)
{
	static char buf[PX_MAX_OUT + 300];
	static char out[PX_MAX_OUT];
	enum px_res v;

	memset(r, 0, sizeof(*r));
	v = px_parse(r, s, n, out, sizeof(out));
	if (v == PX_MORE)
		snprintf(buf, sizeof(buf), "more");
	else if (v == PX_ERROR && r->status)
		snprintf(buf, sizeof(buf), "%d %s", r->status, r->reason);
	else if (v == PX_ERROR)
		snprintf(buf, sizeof(buf), "error %d %s", r->socks_rep,
			 r->reason);
	else if (v == PX_REPLY)
		snprintf(buf, sizeof(buf), "reply %zu", r->used);
	else if (r->kind == PX_HTTP)
		snprintf(buf, sizeof(buf), "http %s %u body=%llu used=%zu\n%.*s",
			 r->host.name, r->port, (unsigned long long)r->body,
			 r->used, (int)r->nout, out);
	else
		snprintf(buf, sizeof(buf), "%s %s %u used=%zu",
			 r->kind == PX_CONNECT ? "connect" : "socks5",
			 r->host.name, r->port, r->used);
	return buf;
}

static struct px_req rq;

#define REQ(s, want) \
	is_str(reqn(s, sizeof(s) - 1, &rq), want, "%s", oneline(want))

/* The same result byte by byte as all at once. */
static void incremental(const char *s, size_t n, const char *what)
{
	static char all[PX_MAX_OUT + 300];
	static char out[PX_MAX_OUT];
	struct px_req r;
	enum px_res v = PX_MORE;
	size_t i;

	snprintf(all, sizeof(all), "%s", reqn(s, n, &rq));
	memset(&r, 0, sizeof(r));
	for (i = 1; i <= n && v == PX_MORE; i++)
		v = px_parse(&r, s, i, out, sizeof(out));
	ok(v == PX_ERROR ? r.status == rq.status && r.reason == rq.reason
			 : v == PX_DONE && r.used == rq.used &&
				   r.nout == rq.nout,
	   "fed one byte at a time, the same outcome: %s", what);
}

static void requests(void)
{
	static char big[PX_MAX_HEAD + 10];
	char rep[600];
	size_t n;

	REQ("CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n",
	    "connect example.com 443 used=59");
	REQ("CONNECT Example.COM.:443 HTTP/1.1\r\nHost: example.com\r\n\r\nTLS",
	    "connect example.com 443 used=56");
	REQ("CONNECT [::1]:8443 HTTP/1.1\r\n\r\n", "connect [::1] 8443 used=31");
	REQ("CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n",
	    "more");
	REQ("CONNECT example.com HTTP/1.1\r\n\r\n",
	    "400 CONNECT needs HOST:PORT");
	REQ("CONNECT example.com:0 HTTP/1.1\r\n\r\n",
	    "400 the port is not a number from 1 to 65535");
	REQ("CONNECT example.com:65536 HTTP/1.1\r\n\r\n",
	    "400 the port is not a number from 1 to 65535");
	REQ("CONNECT example.com: HTTP/1.1\r\n\r\n",
	    "400 the port is not a number from 1 to 65535");
	REQ("CONNECT example.com:443 HTTP/1.1\r\nHost: evil.com:443\r\n\r\n",
	    "400 the Host header does not match the request target");
	REQ("CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:444\r\n\r\n",
	    "400 the Host header does not match the request target");
	REQ("CONNECT example.com:443 HTTP/1.1\r\nTransfer-Encoding: chunked"
	    "\r\n\r\n", "400 a CONNECT request with a body");
	REQ("CONNECT example.com:443 HTTP/1.1\r\nContent-Length: 5\r\n\r\n",
	    "400 a CONNECT request with a body");
	REQ("CONNECT example.com:443 HTTP/1.1\r\nContent-Length: 0\r\n\r\n",
	    "connect example.com 443 used=55");
	REQ("CONNECT a\0b.com:443 HTTP/1.1\r\n\r\n",
	    "400 NUL byte in the request head");
	REQ("CONNECT allowed@evil:443 HTTP/1.1\r\n\r\n",
	    "400 the host holds a byte other than letters, digits, '.', '-' "
	    "and '_' (no IDNA: write xn-- names)");
	REQ("CONNECT [fe80::1%25eth0]:443 HTTP/1.1\r\n\r\n",
	    "400 the host is not a valid IPv6 address in brackets (zone ids "
	    "are not accepted)");
	REQ("CONNECT 2130706433:443 HTTP/1.1\r\n\r\n",
	    "400 the host is a number but not a dotted-quad IPv4 address "
	    "(a.b.c.d, no leading zeros)");

	REQ("GET http://example.com/a?b=c HTTP/1.1\r\nHost: example.com\r\n"
	    "User-Agent: t\r\nProxy-Authorization: Basic eA==\r\n"
	    "Proxy-Connection: keep-alive\r\nConnection: keep-alive, X-Secret"
	    "\r\nX-Secret: 1\r\nKeep-Alive: 5\r\nTE: trailers\r\nUpgrade: h2c"
	    "\r\nAccept: */*\r\n\r\n",
	    "http example.com 80 body=0 used=241\n"
	    "GET /a?b=c HTTP/1.1\r\nHost: example.com\r\nUser-Agent: t\r\n"
	    "Accept: */*\r\nConnection: close\r\n\r\n");
	REQ("POST HTTP://EXAMPLE.com:8080?q HTTP/1.0\r\nContent-Length: 3\r\n"
	    "\r\nabc",
	    "http example.com 8080 body=3 used=62\n"
	    "POST /?q HTTP/1.0\r\nHost: example.com:8080\r\nContent-Length: 3"
	    "\r\nConnection: close\r\n\r\n");
	REQ("GET http://[::1]:81 HTTP/1.1\r\n\r\n",
	    "http [::1] 81 body=0 used=32\n"
	    "GET / HTTP/1.1\r\nHost: [::1]:81\r\nConnection: close\r\n\r\n");
	REQ("GET http://allowed@evil/ HTTP/1.1\r\n\r\n",
	    "400 userinfo ('user@') in the request target");
	REQ("GET http://evil#@allowed/ HTTP/1.1\r\n\r\n",
	    "400 fragment ('#') in the request target");
	REQ("GET http://allowed/#x HTTP/1.1\r\n\r\n",
	    "400 fragment ('#') in the request target");
	REQ("GET http://allowed\\@evil/ HTTP/1.1\r\n\r\n",
	    "400 userinfo ('user@') in the request target");
	REQ("GET http://allowed\\.evil/ HTTP/1.1\r\n\r\n",
	    "400 the host holds a byte other than letters, digits, '.', '-' "
	    "and '_' (no IDNA: write xn-- names)");
	REQ("GET http://%65vil.com/ HTTP/1.1\r\n\r\n",
	    "400 the host holds a byte other than letters, digits, '.', '-' "
	    "and '_' (no IDNA: write xn-- names)");
	REQ("GET http://[fe80::1%25eth0]/ HTTP/1.1\r\n\r\n",
	    "400 the host is not a valid IPv6 address in brackets (zone ids "
	    "are not accepted)");
	REQ("GET http:///x HTTP/1.1\r\n\r\n", "400 the host is empty");
	REQ("GET http://a.com:/ HTTP/1.1\r\n\r\n",
	    "400 the port is not a number from 1 to 65535");
	REQ("GET https://example.com/ HTTP/1.1\r\n\r\n",
	    "400 only http:// targets are proxied (use CONNECT for https)");
	REQ("GET / HTTP/1.1\r\nHost: example.com\r\n\r\n",
	    "400 the request target must be http://HOST[:PORT]/PATH, or "
	    "CONNECT HOST:PORT");
	REQ("OPTIONS * HTTP/1.1\r\n\r\n",
	    "400 the request target must be http://HOST[:PORT]/PATH, or "
	    "CONNECT HOST:PORT");
	REQ("GET http://a.com/ HTTP/1.1\r\nHost: a.com\r\nHost: b.com\r\n\r\n",
	    "400 more than one Host header");
	REQ("GET http://a.com/ HTTP/1.1\r\nHost: b.com\r\n\r\n",
	    "400 the Host header does not match the request target");
	REQ("GET http://a.com/ HTTP/1.1\r\nHost: a.com:8080\r\n\r\n",
	    "400 the Host header does not match the request target");
	REQ("GET http://a.com/ HTTP/1.1\r\nHost: A.COM:80\r\n\r\n",
	    "http a.com 80 body=0 used=46\n"
	    "GET / HTTP/1.1\r\nHost: a.com\r\nConnection: close\r\n\r\n");
	REQ("GET http://a.com/ HTTP/1.1\r\nX: 1\rY: 2\r\n\r\n",
	    "400 CR without LF in the request head");
	REQ("GET http://a.com/ HTTP/1.1\nHost: a.com\n\n",
	    "400 LF without CR in the request head (lines end with CRLF)");
	REQ("GET http://a.com/ HTTP/1.1\r\nX: 1\r\n continued\r\n\r\n",
	    "400 obsolete line folding in a header");
	REQ("GET http://a.com/ HTTP/1.1\r\nHost : a.com\r\n\r\n",
	    "400 whitespace between a header name and ':'");
	REQ("GET http://a.com/ HTTP/1.1\r\nnocolon\r\n\r\n",
	    "400 malformed header line");
	REQ("GET http://a.com/ HTTP/1.1\r\nno colon\r\n\r\n",
	    "400 whitespace between a header name and ':'");
	REQ("GET http://a.com/ HTTP/1.1\r\n: x\r\n\r\n",
	    "400 malformed header line");
	REQ("GET http://a.com/ HTTP/1.1\r\nX: a\x01" "b\r\n\r\n",
	    "400 control byte in a header value");
	REQ("GET http://a.com/ HTTP/1.1\r\nX: caf\xc3\xa9\r\n\r\n",
	    "http a.com 80 body=0 used=40\n"
	    "GET / HTTP/1.1\r\nHost: a.com\r\nX: caf\xc3\xa9\r\nConnection: "
	    "close\r\n\r\n");
	REQ("POST http://a.com/ HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n",
	    "411 Transfer-Encoding in a proxied request (send Content-Length)");
	REQ("POST http://a.com/ HTTP/1.1\r\nContent-Length: 3\r\n"
	    "Transfer-Encoding: chunked\r\n\r\n",
	    "400 both Content-Length and Transfer-Encoding");
	REQ("POST http://a.com/ HTTP/1.1\r\nContent-Length: 3\r\n"
	    "Content-Length: 3\r\n\r\n",
	    "400 more than one Content-Length header");
	REQ("POST http://a.com/ HTTP/1.1\r\nContent-Length: 3, 3\r\n\r\n",
	    "400 malformed Content-Length");
	REQ("POST http://a.com/ HTTP/1.1\r\nContent-Length: -1\r\n\r\n",
	    "400 malformed Content-Length");
	REQ("POST http://a.com/ HTTP/1.1\r\nContent-Length: "
	    "99999999999999999999\r\n\r\n", "400 malformed Content-Length");
	REQ("POST http://a.com/ HTTP/1.1\r\nConnection: Content-Length\r\n"
	    "Content-Length: 3\r\n\r\n",
	    "400 Connection names Content-Length or Host");
	REQ("GET http://a.com/ HTTP/2.0\r\n\r\n", "505 only HTTP/1.0 and "
	    "HTTP/1.1");
	REQ("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", "505 only HTTP/1.0 and "
	    "HTTP/1.1");
	REQ("GET http://a.com/\r\n\r\n", "400 malformed request line");
	REQ("GET  http://a.com/ HTTP/1.1\r\n\r\n", "400 malformed request line");
	REQ("GET http://a.com/ HTTP/1.1 \r\n\r\n", "400 malformed request line");
	REQ("G\xc3T http://a.com/ HTTP/1.1\r\n\r\n",
	    "400 malformed request line");
	REQ("GET http://a.com/\x7f HTTP/1.1\r\n\r\n",
	    "400 malformed request line");
	REQ("\x16\x03\x01\x02\x00", "400 not an HTTP or SOCKS5 request");
	REQ(" GET http://a.com/ HTTP/1.1\r\n\r\n",
	    "400 not an HTTP or SOCKS5 request");

	/* Bounds: 414 for the request line, 431 for the head. */
	memset(big, 'a', sizeof(big));
	memcpy(big, "GET http://a.com/", 17);
	is_str(reqn(big, PX_MAX_LINE + 1, &rq),
	       "414 request line longer than 8192 bytes",
	       "a request line over 8192 bytes: 414 as soon as it is seen");
	is_str(reqn(big, PX_MAX_LINE, &rq), "more",
	       "... 8192 bytes without an end: more");
	n = (size_t)snprintf(big, sizeof(big), "GET http://a.com/ HTTP/1.1\r\n");
	while (n + 10 < PX_MAX_HEAD)
		n += (size_t)snprintf(big + n, sizeof(big) - n, "X: aaaaa\r\n");
	memset(big + n, 'a', sizeof(big) - n);
	is_str(reqn(big, PX_MAX_HEAD, &rq),
	       "431 request head longer than 16384 bytes",
	       "a head of 16384 bytes without its end: 431");
	n = (size_t)snprintf(big, sizeof(big), "GET http://a.com/ HTTP/1.1\r\n");
	for (int i = 0; i < 101; i++)
		n += (size_t)snprintf(big + n, sizeof(big) - n, "X: 1\r\n");
	n += (size_t)snprintf(big + n, sizeof(big) - n, "\r\n");
	is_str(reqn(big, n, &rq), "431 more than 100 header lines",
	       "101 header lines: 431");

	/* SOCKS5 */
	REQ("\x05\x01\x00", "reply 3");
	ok(rq.nreply == 2 && !memcmp(rq.reply, "\x05\x00", 2),
	   "a SOCKS5 greeting offering no-auth is answered 05 00");
	REQ("\x05\x02\x02", "more");
	REQ("\x05\x01\x02", "error 0 no acceptable SOCKS5 method (only no "
	    "authentication)");
	ok(rq.nreply == 2 && !memcmp(rq.reply, "\x05\xff", 2),
	   "... none acceptable: 05 FF");
	{
		struct px_req r;
		static char out[PX_MAX_OUT];
		static const char dom[] = "\x05\x01\x00\x03\x0b" "example.com"
					  "\x01\xbb" "data";
		static const char ip4[] = "\x05\x01\x00\x01\x0a\x00\x00\x01"
					  "\x1f\x90";
		static const char ip6[] = "\x05\x01\x00\x04\0\0\0\0\0\0\0\0\0"
					  "\0\xff\xff\x7f\0\0\x01\0\x50";

		memset(&r, 0, sizeof(r));
		px_parse(&r, "\x05\x01\x00", 3, out, sizeof(out));
		is_int(px_parse(&r, dom, 5, out, sizeof(out)), PX_MORE,
		       "SOCKS5 request in part: more");
		ok(px_parse(&r, dom, sizeof(dom) - 1, out, sizeof(out)) ==
			   PX_DONE && r.kind == PX_SOCKS5 && r.port == 443 &&
			   !strcmp(r.host.name, "example.com") && r.used == 18,
		   "SOCKS5 CONNECT to a domain name");
		memset(&r, 0, sizeof(r));
		r.stage = 2; /* after the greeting */
		ok(px_parse(&r, ip4, sizeof(ip4) - 1, out, sizeof(out)) ==
			   PX_DONE && r.host.kind == PX_IP && r.port == 8080 &&
			   !strcmp(r.host.name, "10.0.0.1"),
		   "SOCKS5 CONNECT to an IPv4 address");
		memset(&r, 0, sizeof(r));
		r.stage = 2;
		ok(px_parse(&r, ip6, sizeof(ip6) - 1, out, sizeof(out)) ==
			   PX_DONE && r.host.addr.family == 4 &&
			   !strcmp(r.host.name, "127.0.0.1"),
		   "SOCKS5 CONNECT to ::ffff:127.0.0.1 is 127.0.0.1");
		memset(&r, 0, sizeof(r));
		r.stage = 2;
		ok(px_parse(&r, "\x05\x02\x00\x01\x0a\0\0\x01\x1f\x90", 10, out,
			    sizeof(out)) == PX_ERROR && r.socks_rep == 7 &&
			   r.nreply == 10 && r.reply[1] == 7,
		   "SOCKS5 BIND: reply 7 (command not supported)");
		memset(&r, 0, sizeof(r));
		r.stage = 2;
		ok(px_parse(&r, "\x05\x01\x00\x05\x0a\0\0\x01\x1f\x90", 10, out,
			    sizeof(out)) == PX_ERROR && r.socks_rep == 8,
		   "SOCKS5 unknown address type: reply 8");
		memset(&r, 0, sizeof(r));
		r.stage = 2;
		ok(px_parse(&r, "\x05\x01\x00\x03\x03" "a\nb\x01\xbb", 10, out,
			    sizeof(out)) == PX_ERROR && r.socks_rep == 1,
		   "SOCKS5 domain with LF: reply 1");
		memset(&r, 0, sizeof(r));
		r.stage = 2;
		ok(px_parse(&r, "\x05\x01\x00\x03\x00\x01\xbb", 7, out,
			    sizeof(out)) == PX_ERROR && r.socks_rep == 1,
		   "SOCKS5 empty domain: reply 1");
		memset(&r, 0, sizeof(r));
		ok(px_parse(&r, "\x04\x01\x00\x50\x7f\0\0\x01", 8, out,
			    sizeof(out)) == PX_ERROR && !r.nreply &&
			   px_parse(&r, "\x04\x01", 2, out, sizeof(out)) ==
				   PX_ERROR,
		   "SOCKS4: closed without a reply (and called again: still "
		   "an error)");
	}

	incremental("CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443"
		    "\r\n\r\n", 59, "CONNECT");
	incremental("GET http://a.com/ HTTP/1.1\r\nX: 1\rY: 2\r\n\r\n", 42,
		    "bare CR");
	incremental("GET http://example.com/a?b=c HTTP/1.1\r\nProxy-"
		    "Authorization: x\r\nAccept: */*\r\n\r\n", 78, "plain GET");

	n = px_http_response(rep, sizeof(rep), 403, "pysbx-proxy: no\n");
	is_str(rep, "HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain\r\n"
	       "Content-Length: 16\r\nConnection: close\r\n\r\npysbx-proxy: no\n",
	       "px_http_response writes a whole response");
	is_int((long long)n, (long long)strlen(rep), "... and its length");
	/* Every status the proxy answers with has its reason phrase (RFC
	 * 9110), never the fallback. */
	{
		static const struct {
			int st;
			const char *text;
		} want[] = {
			{ 200, "Connection established" },
			{ 400, "Bad Request" },
			{ 403, "Forbidden" },
			{ 408, "Request Timeout" },
			{ 411, "Length Required" },
			{ 414, "URI Too Long" },
			{ 431, "Request Header Fields Too Large" },
			{ 502, "Bad Gateway" },
			{ 503, "Service Unavailable" },
			{ 504, "Gateway Timeout" },
			{ 505, "HTTP Version Not Supported" },
		};

		for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
			is_str(px_status_text(want[i].st), want[i].text,
			       "the reason phrase of %d", want[i].st);
	}
	n = px_http_response(rep, 100, 403, "0123456789012345678901234567890");
	ok(n == 99 || (n < 100 && strstr(rep, "Content-Length: ") &&
		       atoi(strstr(rep, "Content-Length: ") + 16) ==
			       (int)(n - (size_t)(strstr(rep, "\r\n\r\n") + 4 -
						  rep))),
	   "a body too long for the buffer is cut, Content-Length says so: %s",
	   oneline(rep));
}

int main(void)
{
	directives();
	round_trip();
	matcher();
	addr_checks();
	classes();
	hosts();
	requests();
	plan_free(&mp);
	return done_testing();
}
