/* fuzz_proxy: the egress proxy's request parser and host checks
 * (pkg/proxy), which read bytes written by the sandboxed program.
 *
 * The input's first byte B chooses the mode; the rest is the data.
 *
 *   B % 4 < 3: a connection's bytes for px_parse. Parsed twice: all at
 *     once, and cut into reads of 1 to 64 bytes (sizes from B's upper
 *     bits); a SOCKS5 greeting answered (PX_REPLY) is dropped from the
 *     stream as the caller does. Checked: both give the same outcome
 *     (result, kind, host, port, used, body, status, reason, reply, the
 *     upstream head byte for byte); the input buffer is exactly the bytes
 *     received and out exactly PX_MAX_OUT (ASan sees one byte more); a
 *     request's host parses again to itself and holds only [a-z0-9._-]
 *     or an address; port 1-65535; used <= len; an HTTP error is a whole
 *     response with status 400, 411, 414, 431 or 505 and a reason; the
 *     upstream head of a plain HTTP request is CRLF lines only, no NUL,
 *     ends in an empty line, starts with METHOD SP '/', has exactly one
 *     Host line (the target's) and no Proxy-*, Transfer-Encoding,
 *     Connection (but "Connection: close") or Upgrade line. Then the
 *     request goes through px_match and px_addr_check of a fixed plan.
 *   B % 4 == 3: a host or address literal: px_host_parse (both modes)
 *     and px_addr_parse, against glibc's inet_pton and inet_ntop where
 *     they agree on the syntax (dotted-quad IPv4 without leading zeros,
 *     bracketless IPv6); the canonical text parses back to the same
 *     address; a v4 address and its ::ffff: form have one class.
 */
#include <arpa/inet.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"
#include "policy/netmatch.h"
#include "proxy/proxy.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct plan plan;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	static const char text[] =
		"unshare user net\nnet-proxy\n"
		"net-allow example.com *.example.org:443 10.0.0.1:8080 [::1]\n"
		"net-deny uploads.example.org *:22 93.184.216.34\n"
		"net-allow pinned.local\n"
		"net-resolve pinned.local=127.0.0.2\n";
	struct perr e;

	(void)argc;
	(void)argv;
	if (plan_init(&plan) < 0 ||
	    policy_parse_buf(&plan, "fuzz.policy", text, sizeof(text) - 1,
			     NULL, 0, &e) < 0) {
		fprintf(stderr, "fuzz_proxy: the fixed plan does not parse: "
			"%s\n", e.n ? e.msg[0] : "?");
		abort();
	}
	return 0;
}

struct result {
	enum px_res res;
	struct px_req r;
	char *out;		/* PX_MAX_OUT bytes */
};

/* Emulate a connection: the bytes arrive in pieces (step: 0 all at
 * once, else 1 + a pseudo-random size up to 64), each call sees every
 * byte of the current message so far, in a buffer of exactly that size. */
static void run(const uint8_t *d, size_t n, unsigned step, struct result *o)
{
	size_t base = 0, have = 0;
	uint32_t x = step * 2654435761u + 1;

	memset(&o->r, 0, sizeof(o->r));
	for (;;) {
		char *buf;

		if (!step) {
			have = n;
		} else {
			x = x * 1103515245u + 12345u;
			have += 1 + (x >> 16) % 64;
			if (have > n)
				have = n;
		}
		buf = malloc(have - base + 1);
		memcpy(buf, d + base, have - base);
		o->res = px_parse(&o->r, buf, have - base, o->out, PX_MAX_OUT);
		free(buf);
		if (o->res == PX_REPLY) {
			if (o->r.used > have - base)
				fuzz_die("fuzz_proxy", "PX_REPLY used more than "
					 "it had", NULL, NULL);
			base += o->r.used;
			continue;
		}
		if (o->res != PX_MORE || have == n)
			return;
	}
}

static void same(const struct result *a, const struct result *b)
{
	const struct px_req *x = &a->r, *y = &b->r;

	if (a->res != b->res || x->kind != y->kind ||
	    x->status != y->status || x->reason != y->reason ||
	    x->nreply != y->nreply || memcmp(x->reply, y->reply, x->nreply) ||
	    x->socks_rep != y->socks_rep)
		fuzz_die("fuzz_proxy", "in pieces and at once differ",
			 x->reason, y->reason);
	if (a->res == PX_DONE &&
	    (x->port != y->port || x->used != y->used || x->body != y->body ||
	     strcmp(x->host.name, y->host.name) || x->nout != y->nout ||
	     memcmp(a->out, b->out, x->nout)))
		fuzz_die("fuzz_proxy", "in pieces and at once differ (request)",
			 x->host.name, y->host.name);
}

static bool has_line(const char *h, size_t n, const char *prefix)
{
	size_t k = strlen(prefix);

	/* header lines only: a method may be named PROXY-X */
	for (size_t i = 1; i + k <= n; i++)
		if (h[i - 1] == '\n' && !strncasecmp(h + i, prefix, k))
			return true;
	return false;
}

static void check_head(const struct px_req *r, const char *h, size_t n)
{
	char host[PX_HOST_MAX + 20];
	size_t hosts = 0;

	if (n > PX_MAX_OUT || n < 4 || memcmp(h + n - 4, "\r\n\r\n", 4) ||
	    memchr(h, '\0', n))
		fuzz_die("fuzz_proxy", "head not CRLF-terminated or holds NUL",
			 NULL, NULL);
	for (size_t i = 0; i < n; i++)
		if ((h[i] == '\r') != (i + 1 < n && h[i + 1] == '\n'))
			fuzz_die("fuzz_proxy", "a bare CR or LF upstream", NULL,
				 NULL);
	{
		const char *sp = memchr(h, ' ', n);

		if (!sp || sp == h || sp[1] != '/')
			fuzz_die("fuzz_proxy", "upstream line not origin-form",
				 NULL, NULL);
	}
	for (size_t i = 1; i + 5 <= n; i++)
		if (h[i - 1] == '\n' && !strncasecmp(h + i, "host:", 5))
			hosts++;
	if (r->port == 80)
		snprintf(host, sizeof(host), "\nHost: %s\r\n", r->host.name);
	else
		snprintf(host, sizeof(host), "\nHost: %s:%u\r\n", r->host.name,
			 r->port);
	if (hosts != 1 || !memmem(h, n, host, strlen(host)))
		fuzz_die("fuzz_proxy", "not exactly the target's Host line",
			 NULL, NULL);
	if (has_line(h, n, "proxy-") || has_line(h, n, "transfer-encoding:") ||
	    has_line(h, n, "upgrade:") || has_line(h, n, "keep-alive:") ||
	    has_line(h, n, "te:") ||
	    !memmem(h, n, "\r\nConnection: close\r\n\r\n", 23))
		fuzz_die("fuzz_proxy", "a hop-by-hop header upstream", NULL,
			 NULL);
	{
		size_t c = 0;

		for (size_t i = 1; i + 11 <= n; i++)
			if (h[i - 1] == '\n' &&
			    !strncasecmp(h + i, "connection:", 11))
				c++;
		if (c != 1)
			fuzz_die("fuzz_proxy", "a client Connection header "
				 "upstream", NULL, NULL);
	}
}

static void check_request(const struct result *o, size_t n)
{
	const struct px_req *r = &o->r;
	struct px_host again;
	long rule;

	if (o->res == PX_ERROR) {
		if (!r->reason)
			fuzz_die("fuzz_proxy", "an error without a reason",
				 NULL, NULL);
		if (r->kind != PX_SOCKS5 && r->nreply &&
		    (strncmp(r->reply, "HTTP/1.1 ", 9) ||
		     !memmem(r->reply, r->nreply, "\r\n\r\n", 4) ||
		     !(r->status == 400 || r->status == 411 ||
		       r->status == 414 || r->status == 431 ||
		       r->status == 505)))
			fuzz_die("fuzz_proxy", "a malformed error response",
				 r->reason, NULL);
		return;
	}
	if (o->res != PX_DONE)
		return;
	if (r->port < 1 || r->port > 65535 || r->used > n)
		fuzz_die("fuzz_proxy", "port or used out of range", NULL, NULL);
	if (px_host_parse(r->host.name, strlen(r->host.name), true, &again) ||
	    strcmp(again.name, r->host.name) || again.kind != r->host.kind ||
	    (again.kind == PX_IP && !px_addr_eq(&again.addr, &r->host.addr)))
		fuzz_die("fuzz_proxy", "a request host that does not parse "
			 "to itself", r->host.name, again.name);
	if (r->kind == PX_HTTP)
		check_head(r, o->out, r->nout);
	if (px_match(&plan, &r->host, r->port, &rule) &&
	    (rule < 0 || plan.px[rule].deny))
		fuzz_die("fuzz_proxy", "allowed by no allow rule", NULL, NULL);
	if (r->host.kind == PX_IP) {
		long rule2;
		enum px_addr_verdict v = px_addr_check(
			&plan, &r->host, r->port, &r->host.addr, NULL, 0, &rule2);

		if (v == PXA_DENIED && (rule2 < 0 || !plan.px[rule2].deny))
			fuzz_die("fuzz_proxy", "denied by no deny rule", NULL,
				 NULL);
	}
}

static void requests(const uint8_t *d, size_t n, unsigned step)
{
	static char *out1, *out2;
	struct result a, b;

	/* Exactly PX_MAX_OUT bytes each: ASan sees a byte more. */
	if (!out1) {
		out1 = malloc(PX_MAX_OUT);
		out2 = malloc(PX_MAX_OUT);
	}
	a.out = out1;
	b.out = out2;
	run(d, n, 0, &a);
	run(d, n, step, &b);
	same(&a, &b);
	check_request(&a, n);
}

static void hosts(const uint8_t *d, size_t n)
{
	struct px_addr a, b;
	struct px_host h, h2;
	char text[PX_ADDR_TEXT], z[64], g[64];
	char *s = malloc(n + 1);
	unsigned char bin[16];

	memcpy(s, d, n);
	s[n] = '\0';
	if (!px_host_parse(s, n, false, &h)) {
		if (px_host_parse(h.name, strlen(h.name), true, &h2) ||
		    strcmp(h.name, h2.name))
			fuzz_die("fuzz_proxy", "a host's name does not parse to "
				 "itself", h.name, h2.name);
		if (h.kind == PX_NAME &&
		    strspn(h.name, "abcdefghijklmnopqrstuvwxyz0123456789.-_") !=
			    strlen(h.name))
			fuzz_die("fuzz_proxy", "a name holds another byte",
				 h.name, NULL);
	}
	if (!px_host_parse(s, n, true, &h2) &&
	    (px_host_parse(s, n, false, &h) || strcmp(h.name, h2.name)))
		fuzz_die("fuzz_proxy", "strict accepts what lax refuses", s,
			 NULL);
	if (px_addr_parse(s, n, &a) == 0) {
		px_addr_text(&a, text);
		if (px_addr_parse(text, strlen(text), &b) || !px_addr_eq(&a, &b))
			fuzz_die("fuzz_proxy", "address text does not parse "
				 "back", s, text);
		if (a.family == 4) {
			struct px_addr m = { 6, { 0 } };

			m.a[10] = m.a[11] = 0xff;
			memcpy(m.a + 12, a.a, 4);
			if (px_classify(&m) != px_classify(&a))
				fuzz_die("fuzz_proxy", "v4 and ::ffff:v4 "
					 "differ in class", text, NULL);
		}
	}
	/* Against glibc where both read the same syntax. */
	if (!memchr(s, ':', n) && strlen(s) == n) {
		int ours = px_addr_parse(s, n, &a) == 0;
		int theirs = inet_pton(AF_INET, s, bin) == 1;

		if (ours != theirs || (ours && memcmp(a.a, bin, 4)))
			fuzz_die("fuzz_proxy", "IPv4 parse differs from "
				 "inet_pton", s, NULL);
	} else if (strlen(s) == n && n && s[0] != '[') {
		int ours = px_addr_parse(s, n, &a) == 0;
		int theirs = inet_pton(AF_INET6, s, bin) == 1;

		if (ours != theirs)
			fuzz_die("fuzz_proxy", "IPv6 parse differs from "
				 "inet_pton", s, ours ? "ours accepts" :
				 "glibc accepts");
		if (ours && a.family == 6) {
			static const uint8_t zero[12];

			if (memcmp(a.a, bin, 16))
				fuzz_die("fuzz_proxy", "IPv6 bytes differ from "
					 "inet_pton", s, NULL);
			/* glibc writes ::a.b.c.d for these */
			if (memcmp(bin, zero, 12)) {
				inet_ntop(AF_INET6, bin, g, sizeof(g));
				snprintf(z, sizeof(z), "[%s]", g);
				if (strcmp(z, px_addr_text(&a, text)))
					fuzz_die("fuzz_proxy", "IPv6 text "
						 "differs from inet_ntop", z,
						 text);
			}
		}
	}
	free(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!size)
		return 0;
	if (data[0] % 4 == 3)
		hosts(data + 1, size - 1);
	else
		requests(data + 1, size - 1, 1u + data[0] / 4);
	return 0;
}
