/* THROWAWAY STUB in proxy-chain's branch only: proxy-core's pkg/proxy
 * replaces this file at the merge. Minimal behaviour behind the contract's
 * names (/work/notes/proxy-api.md) so that the mechanism can run. */
#include <arpa/inet.h>
#include <ctype.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy/policy.h"
#include "proxy/proxy.h"

int px_addr_parse(const char *s, size_t n, struct px_addr *out)
{
	char b[64];

	if (n >= sizeof(b))
		return -1;
	memcpy(b, s, n);
	b[n] = 0;
	memset(out, 0, sizeof(*out));
	if (inet_pton(AF_INET, b, out->a) == 1) {
		out->family = 4;
		return 0;
	}
	if (b[0] == '[' && n > 2 && b[n - 1] == ']') {
		b[n - 1] = 0;
		memmove(b, b + 1, n);
	}
	if (inet_pton(AF_INET6, b, out->a) == 1) {
		out->family = 6;
		return 0;
	}
	return -1;
}

char *px_addr_text(const struct px_addr *a, char *buf)
{
	char t[INET6_ADDRSTRLEN];

	if (a->family == 4) {
		inet_ntop(AF_INET, a->a, buf, PX_ADDR_TEXT);
		return buf;
	}
	inet_ntop(AF_INET6, a->a, t, sizeof(t));
	snprintf(buf, PX_ADDR_TEXT, "[%s]", t);
	return buf;
}

int px_addr_from_sa(const struct sockaddr *sa, socklen_t len,
		    struct px_addr *out)
{
	memset(out, 0, sizeof(*out));
	if (sa->sa_family == AF_INET && len >= sizeof(struct sockaddr_in)) {
		out->family = 4;
		memcpy(out->a, &((const struct sockaddr_in *)sa)->sin_addr, 4);
		return 0;
	}
	if (sa->sa_family == AF_INET6 && len >= sizeof(struct sockaddr_in6)) {
		out->family = 6;
		memcpy(out->a, &((const struct sockaddr_in6 *)sa)->sin6_addr, 16);
		return 0;
	}
	return -1;
}

bool px_addr_eq(const struct px_addr *a, const struct px_addr *b)
{
	return a->family == b->family &&
	       !memcmp(a->a, b->a, a->family == 4 ? 4 : 16);
}

enum px_class px_classify(const struct px_addr *a)
{
	const uint8_t *b = a->a;

	if (a->family == 4) {
		if (b[0] == 0)
			return PX_UNSPEC;
		if (b[0] == 127)
			return PX_LOOPBACK;
		if (b[0] == 10 || (b[0] == 172 && (b[1] & 0xf0) == 16) ||
		    (b[0] == 192 && b[1] == 168))
			return PX_PRIVATE;
		if (b[0] == 169 && b[1] == 254)
			return PX_LINKLOCAL;
		if (b[0] >= 224)
			return PX_MULTICAST;
		return PX_PUBLIC;
	}
	static const uint8_t lo[16] = { [15] = 1 }, z[16];
	if (!memcmp(b, lo, 16))
		return PX_LOOPBACK;
	if (!memcmp(b, z, 16))
		return PX_UNSPEC;
	if ((b[0] & 0xfe) == 0xfc)
		return PX_PRIVATE;
	if (b[0] == 0xfe && (b[1] & 0xc0) == 0x80)
		return PX_LINKLOCAL;
	if (b[0] == 0xff)
		return PX_MULTICAST;
	return PX_PUBLIC;
}

const char *px_class_name(enum px_class c)
{
	static const char *const n[] = { "public", "unspecified", "loopback",
					 "private", "link-local", "cgnat",
					 "multicast", "reserved" };
	return n[c];
}

enum px_host_err px_host_parse(const char *s, size_t n, bool strict,
			       struct px_host *out)
{
	(void)strict;
	memset(out, 0, sizeof(*out));
	if (!n)
		return PXH_EMPTY;
	if (n > PX_HOST_MAX)
		return PXH_LONG;
	if (px_addr_parse(s, n, &out->addr) == 0) {
		out->kind = PX_IP;
		px_addr_text(&out->addr, out->name);
		return PXH_OK;
	}
	for (size_t i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)s[i];

		if (!isalnum(ch) && ch != '.' && ch != '-')
			return PXH_CHAR;
		out->name[i] = (char)tolower(ch);
	}
	out->kind = PX_NAME;
	return PXH_OK;
}

const char *px_host_strerror(enum px_host_err e)
{
	return e == PXH_OK ? "ok" : "invalid host name";
}

static bool rule_hits(const struct px_rule *r, const struct px_host *h,
		      unsigned port)
{
	size_t hl, sl;

	if (r->port && r->port != port)
		return false;
	switch (r->kind) {
	case PXR_ANY:
		return true;
	case PXR_IP:
		return h->kind == PX_IP && px_addr_eq(&r->addr, &h->addr);
	case PXR_NAME:
		return h->kind == PX_NAME && !strcmp(r->host, h->name);
	case PXR_SUFFIX:
		hl = strlen(h->name);
		sl = strlen(r->host + 1);
		return h->kind == PX_NAME && hl > sl &&
		       !strcmp(h->name + hl - sl, r->host + 1);
	}
	return false;
}

int px_match(const struct plan *p, const struct px_host *h, unsigned port,
	     long *rule)
{
	*rule = -1;
	for (size_t i = 0; i < p->npx; i++)
		if (p->px[i].deny && rule_hits(&p->px[i], h, port)) {
			*rule = (long)i;
			return 0;
		}
	for (size_t i = 0; i < p->npx; i++)
		if (!p->px[i].deny && rule_hits(&p->px[i], h, port)) {
			*rule = (long)i;
			return 1;
		}
	return 0;
}

const struct px_addr *px_pin(const struct plan *p, const struct px_host *h)
{
	for (size_t i = 0; i < p->npin; i++)
		if (h->kind == PX_NAME && !strcmp(p->pin[i].name, h->name))
			return &p->pin[i].addr;
	return NULL;
}

enum px_addr_verdict px_addr_check(const struct plan *p,
				   const struct px_host *h, unsigned port,
				   const struct px_addr *a,
				   const struct px_addr *own, size_t nown,
				   long *rule)
{
	struct px_host ah = { .kind = PX_IP, .addr = *a };
	const struct px_addr *pin = px_pin(p, h);
	bool named = false;

	for (size_t i = 0; i < p->npx; i++) {
		const struct px_rule *r = &p->px[i];

		if (r->kind != PXR_IP || !rule_hits(r, &ah, port))
			continue;
		if (r->deny) {
			*rule = (long)i;
			return PXA_DENIED;
		}
		named = true;
	}
	if (pin && px_addr_eq(pin, a))
		named = true;
	if (named)
		return PXA_OK;
	for (size_t i = 0; i < nown; i++)
		if (px_addr_eq(&own[i], a))
			return PXA_OWN;
	return px_classify(a) == PX_PUBLIC ? PXA_OK : PXA_NONPUBLIC;
}

char *px_rule_text(const struct plan *p, long rule, char *buf, size_t len)
{
	const struct px_rule *r;

	if (rule < 0) {
		snprintf(buf, len, "no rule allows it (default deny)");
		return buf;
	}
	r = &p->px[rule];
	snprintf(buf, len, "%s %s%s%.0u (%s:%u:%u)",
		 r->deny ? "net-deny" : "net-allow", r->host,
		 r->port ? ":" : "", r->port, r->pos.file, r->pos.line,
		 r->pos.col);
	if (r->port)
		snprintf(buf, len, "%s %s:%u (%s:%u:%u)",
			 r->deny ? "net-deny" : "net-allow", r->host, r->port,
			 r->pos.file, r->pos.line, r->pos.col);
	return buf;
}

const char *px_status_text(int status)
{
	switch (status) {
	case 200: return "OK";
	case 400: return "Bad Request";
	case 403: return "Forbidden";
	case 408: return "Request Timeout";
	case 411: return "Length Required";
	case 414: return "URI Too Long";
	case 431: return "Request Header Fields Too Large";
	case 502: return "Bad Gateway";
	case 503: return "Service Unavailable";
	case 504: return "Gateway Timeout";
	case 505: return "HTTP Version Not Supported";
	}
	return "Error";
}

size_t px_http_response(char *buf, size_t cap, int status, const char *body)
{
	int n = snprintf(buf, cap,
			 "HTTP/1.1 %d %s\r\nContent-Type: text/plain\r\n"
			 "Content-Length: %zu\r\nConnection: close\r\n\r\n%s",
			 status, px_status_text(status), strlen(body), body);

	return n < 0 ? 0 : (size_t)n >= cap ? cap - 1 : (size_t)n;
}

size_t px_socks5_reply(unsigned char *out, int rep)
{
	memset(out, 0, 10);
	out[0] = 5;
	out[1] = (unsigned char)rep;
	out[3] = 1;
	return 10;
}

static enum px_res fail(struct px_req *r, int status, const char *why)
{
	char body[256];

	r->status = status;
	r->reason = why;
	snprintf(body, sizeof(body), "pysbx-proxy: %s\n", why);
	r->nreply = px_http_response(r->reply, sizeof(r->reply), status, body);
	return PX_ERROR;
}

enum px_res px_parse(struct px_req *r, const char *buf, size_t len,
		     char *out, size_t outcap)
{
	const char *end = memmem(buf, len, "\r\n\r\n", 4), *sp, *hp, *pe;
	char method[16];
	size_t ml, hl;
	int n;

	if (!end)
		return len >= PX_MAX_HEAD ? fail(r, 431, "head too large")
					  : PX_MORE;
	if (memchr(buf, 0, (size_t)(end - buf)))
		return fail(r, 400, "NUL in the request");
	sp = memchr(buf, ' ', (size_t)(end - buf));
	if (!sp || (ml = (size_t)(sp - buf)) >= sizeof(method))
		return fail(r, 400, "malformed request line");
	memcpy(method, buf, ml);
	method[ml] = 0;
	hp = sp + 1;
	r->used = (size_t)(end + 4 - buf);
	if (!strcmp(method, "CONNECT")) {
		pe = memchr(hp, ' ', (size_t)(end - hp));
		if (!pe)
			return fail(r, 400, "malformed request line");
		const char *colon = hp;
		for (const char *q = hp; q < pe; q++)
			if (*q == ':')
				colon = q;
		if (colon == hp)
			return fail(r, 400, "CONNECT needs a port");
		hl = (size_t)(colon - hp);
		if (px_host_parse(hp, hl, false, &r->host) != PXH_OK)
			return fail(r, 400, "invalid host");
		r->port = (unsigned)atoi(colon + 1);
		if (!r->port || r->port > 65535)
			return fail(r, 400, "invalid port");
		r->kind = PX_CONNECT;
		return PX_DONE;
	}
	if (strncmp(hp, "http://", 7))
		return fail(r, 400, "the request target must be http://HOST[:PORT]/PATH, or CONNECT HOST:PORT");
	hp += 7;
	pe = hp;
	while (pe < end && *pe != '/' && *pe != ' ' && *pe != ':')
		pe++;
	hl = (size_t)(pe - hp);
	if (px_host_parse(hp, hl, false, &r->host) != PXH_OK)
		return fail(r, 400, "invalid host");
	r->port = 80;
	if (*pe == ':') {
		r->port = (unsigned)atoi(pe + 1);
		while (pe < end && *pe != '/' && *pe != ' ')
			pe++;
	}
	const char *path = pe, *pathend = memchr(pe, ' ', (size_t)(end - pe));
	const char *eol = memmem(buf, (size_t)(end - buf) + 2, "\r\n", 2);
	if (!pathend || !eol)
		return fail(r, 400, "malformed request line");
	n = snprintf(out, outcap, "%s %.*s%.*s\r\nHost: %s\r\nConnection: close\r\n\r\n",
		     method, (int)(pathend - path), path, *path == '/' ? 0 : 1, "/",
		     r->host.name);
	(void)eol;
	/* the stub keeps only the request line (no headers): enough for tests */
	{
		/* rebuild: method path version */
		const char *ver = pathend + 1;
		int vl = (int)(eol - ver);
		n = snprintf(out, outcap, "%s %.*s %.*s\r\nHost: %s\r\nConnection: close\r\n\r\n",
			     method, (int)(pathend - path), *path == '/' ? path : "/", vl, ver,
			     r->host.name);
	}
	r->nout = (size_t)n;
	r->kind = PX_HTTP;
	return PX_DONE;
}
