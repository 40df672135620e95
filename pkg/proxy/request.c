/* The requests a sandboxed program sends to the egress proxy: HTTP
 * CONNECT (authority-form), plain HTTP in absolute form, and SOCKS5
 * CONNECT. Every byte here is the sandbox's: the parser is strict (one
 * reading of each request, or a 4xx), bounded (PX_MAX_HEAD), never reads
 * past len nor writes past its buffers, and keeps no state but the
 * struct px_req the caller zeroed. A plain HTTP head is rebuilt for the
 * upstream from what was checked, never forwarded as received: what the
 * origin reads is what the rules were checked against. */
#include <stdio.h>
#include <string.h>

#include "proxy/proxy.h"

enum { ST_START, ST_HTTP, ST_SOCKS_REQ, ST_DONE, ST_FAILED };

#define MAX_CONN_TOKENS 16

/* RFC 9110 5.6.2 tchar. */
static bool tchar(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') ||
	       (c && strchr("!#$%&'*+-.^_`|~", c));
}

static unsigned char lc(unsigned char c)
{
	return c >= 'A' && c <= 'Z' ? (unsigned char)(c + 32) : c;
}

/* Does s[0..n) equal the lower-case word w, ignoring case? */
static bool ieq(const char *s, size_t n, const char *w)
{
	size_t i;

	for (i = 0; i < n && w[i]; i++)
		if (lc((unsigned char)s[i]) != (unsigned char)w[i])
			return false;
	return i == n && !w[i];
}

static bool span_ieq(const char *a, size_t an, const char *b, size_t bn)
{
	if (an != bn)
		return false;
	for (size_t i = 0; i < an; i++)
		if (lc((unsigned char)a[i]) != lc((unsigned char)b[i]))
			return false;
	return true;
}

static bool iprefix(const char *s, size_t n, const char *w)
{
	size_t k = strlen(w);

	return n >= k && ieq(s, k, w);
}

const char *px_status_text(int status)
{
	switch (status) {
	case 200: return "Connection established";
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
	size_t bl = strlen(body);

	if (!cap)
		return 0;
	for (;;) {
		int n = snprintf(buf, cap, "HTTP/1.1 %d %s\r\nContent-Type: "
				 "text/plain\r\nContent-Length: %zu\r\n"
				 "Connection: close\r\n\r\n%.*s", status,
				 px_status_text(status), bl, (int)bl, body);
		size_t over;

		if (n < 0)
			return 0;
		if ((size_t)n < cap)
			return (size_t)n;
		if (!bl)	/* not even the head fits: cut short */
			return cap - 1;
		/* A shorter body, and a Content-Length that says so (its
		 * digits only get fewer). */
		over = (size_t)n - (cap - 1);
		bl = over < bl ? bl - over : 0;
	}
}

size_t px_socks5_reply(unsigned char *out, int rep)
{
	out[0] = 5;
	out[1] = (unsigned char)rep;
	out[2] = 0;
	out[3] = 1;		/* ATYP IPv4: 0.0.0.0:0 */
	memset(out + 4, 0, 6);
	return 10;
}

static enum px_res fail(struct px_req *r, int status, const char *reason)
{
	char body[256];

	r->status = status;
	r->reason = reason;
	snprintf(body, sizeof(body), "pysbx-proxy: %s\n", reason);
	r->nreply = px_http_response(r->reply, sizeof(r->reply), status,
				     body);
	r->stage = ST_FAILED;
	return PX_ERROR;
}

static enum px_res socks_fail(struct px_req *r, int rep, const char *reason)
{
	r->socks_rep = rep;
	r->reason = reason;
	r->nreply = px_socks5_reply((unsigned char *)r->reply, rep);
	r->stage = ST_FAILED;
	return PX_ERROR;
}

/* SOCKS5 (RFC 1928): greeting, then a CONNECT request. */
static enum px_res socks(struct px_req *r, const unsigned char *b,
			 size_t len)
{
	size_t need, hl;
	enum px_host_err e;

	r->kind = PX_SOCKS5;
	if (r->stage == ST_START) {
		if (len < 2 || len < 2 + (size_t)b[1])
			return PX_MORE;
		r->used = 2 + (size_t)b[1];
		if (!memchr(b + 2, 0, b[1])) {
			/* none of the methods is "no authentication" */
			r->reply[0] = 5;
			r->reply[1] = (char)0xff;
			r->nreply = 2;
			r->reason = "no acceptable SOCKS5 method (only no "
				    "authentication)";
			r->stage = ST_FAILED;
			return PX_ERROR;
		}
		r->reply[0] = 5;
		r->reply[1] = 0;
		r->nreply = 2;
		r->stage = ST_SOCKS_REQ;
		return PX_REPLY;
	}
	if (len < 5)
		return PX_MORE;
	if (b[0] != 5 || b[2] != 0)
		return socks_fail(r, 1, "malformed SOCKS5 request");
	if (b[1] != 1)
		return socks_fail(r, 7, "only the SOCKS5 CONNECT command");
	switch (b[3]) {
	case 1: need = 4 + 4 + 2; break;
	case 3: need = 4 + 1 + (size_t)b[4] + 2; break;
	case 4: need = 4 + 16 + 2; break;
	default: return socks_fail(r, 8, "unknown SOCKS5 address type");
	}
	if (len < need)
		return PX_MORE;
	r->port = (unsigned)b[need - 2] << 8 | b[need - 1];
	if (!r->port)
		return socks_fail(r, 1, "port 0");
	memset(&r->host, 0, sizeof(r->host));
	if (b[3] == 3) {
		hl = b[4];
		e = hl ? px_host_parse((const char *)b + 5, hl, false,
				       &r->host)
		       : PXH_EMPTY;
		if (e)
			return socks_fail(r, 1, px_host_strerror(e));
	} else {
		struct px_addr *a = &r->host.addr;

		a->family = b[3] == 1 ? 4 : 6;
		memcpy(a->a, b + 4, a->family == 4 ? 4 : 16);
		/* ::ffff:a.b.c.d is a.b.c.d, as for every literal */
		if (a->family == 6 &&
		    !memcmp(a->a, "\0\0\0\0\0\0\0\0\0\0\xff\xff", 12)) {
			memmove(a->a, a->a + 12, 4);
			memset(a->a + 4, 0, 12);
			a->family = 4;
		}
		r->host.kind = PX_IP;
		px_addr_text(a, r->host.name);
	}
	r->used = need;
	r->stage = ST_DONE;
	return PX_DONE;
}

/* Find the end of the head (CRLF CRLF) in buf[0..len), from where the
 * last call stopped. Returns its length, 0 for "not yet", or -1 after
 * fail(). A bare CR or LF, or a NUL, ends the parse at once: with a
 * strict reading nothing downstream can split lines differently. */
static long head_end(struct px_req *r, const char *b, size_t len)
{
	size_t lim = len < PX_MAX_HEAD ? len : PX_MAX_HEAD;
	size_t i;

	for (i = r->scan; i < lim; i++) {
		if (b[i] == '\0') {
			fail(r, 400, "NUL byte in the request head");
			return -1;
		}
		if (b[i] == '\r') {
			if (i + 1 == lim)
				break;
			if (b[i + 1] != '\n') {
				fail(r, 400, "CR without LF in the request "
				     "head");
				return -1;
			}
			continue;
		}
		if (b[i] != '\n')
			continue;
		if (!i || b[i - 1] != '\r') {
			fail(r, 400, "LF without CR in the request head (lines "
			     "end with CRLF)");
			return -1;
		}
		if (!r->line_end)
			r->line_end = i + 1;
		if (i >= 3 && b[i - 2] == '\n')
			return (long)(i + 1);
	}
	r->scan = i;
	if (!r->line_end && i > PX_MAX_LINE) {
		fail(r, 414, "request line longer than 8192 bytes");
		return -1;
	}
	if (lim == PX_MAX_HEAD) {
		if (!r->line_end)
			fail(r, 414, "request line longer than 8192 bytes");
		else
			fail(r, 431, "request head longer than 16384 bytes");
		return -1;
	}
	return 0;
}

/* host[:port] of an authority (no userinfo). Port: *port unchanged when
 * absent; "host:" is an error. Returns 0, or -1 with *why set. */
static int authority(const char *s, size_t n, struct px_host *h,
		     unsigned *port, bool *has_port, const char **why)
{
	size_t hn = n;
	enum px_host_err e;

	*has_port = false;
	if (n && s[0] == '[') {
		const char *rb = memchr(s, ']', n);

		hn = rb ? (size_t)(rb - s) + 1 : n;
		if (hn < n && s[hn] != ':') {
			*why = "bytes after ']' in the host";
			return -1;
		}
	} else {
		const char *c = memrchr(s, ':', n);

		if (c)
			hn = (size_t)(c - s);
	}
	if (hn < n) {
		if (px_port_parse(s + hn + 1, n - hn - 1, port) < 0) {
			*why = "the port is not a number from 1 to 65535";
			return -1;
		}
		*has_port = true;
	}
	e = px_host_parse(s, hn, false, h);
	if (e) {
		*why = px_host_strerror(e);
		return -1;
	}
	return 0;
}

struct hdr {
	const char *s;		/* the whole line, without CRLF */
	size_t n;
	size_t name;		/* length of the name */
	const char *v;		/* value, OWS trimmed */
	size_t vn;
};

static bool hop_by_hop(const struct hdr *h)
{
	static const char *const drop[] = { "host", "connection", "keep-alive",
					    "te", "trailer", "upgrade",
					    "transfer-encoding" };

	for (size_t i = 0; i < sizeof(drop) / sizeof(drop[0]); i++)
		if (ieq(h->s, h->name, drop[i]))
			return true;
	return iprefix(h->s, h->name, "proxy-");
}

struct out {
	char *s;
	size_t n, cap;
	bool full;
};

static void put(struct out *o, const char *s, size_t n)
{
	if (o->full || n > o->cap - o->n) {
		o->full = true;
		return;
	}
	memcpy(o->s + o->n, s, n);
	o->n += n;
}

static void puts_(struct out *o, const char *s)
{
	put(o, s, strlen(s));
}

/* The head of buf[0..end): request line, then headers. */
static enum px_res http(struct px_req *r, const char *b, size_t end,
			char *out, size_t outcap)
{
	const char *line = b, *sp1, *sp2, *tgt, *ver, *why;
	size_t ln = r->line_end - 2, tn, vn, nh = 0, nconn = 0;
	struct hdr conn[MAX_CONN_TOKENS];
	const char *host_v = NULL;
	size_t host_n = 0;
	bool te = false, cl = false, has_port;
	uint64_t body = 0;
	struct out o = { out, 0, outcap, false };
	const char *path;
	size_t pn;

	/* METHOD SP request-target SP HTTP-version */
	sp1 = memchr(line, ' ', ln);
	if (!sp1 || sp1 == line)
		return fail(r, 400, "malformed request line");
	for (const char *p = line; p < sp1; p++)
		if (!tchar((unsigned char)*p))
			return fail(r, 400, "malformed request line");
	tgt = sp1 + 1;
	sp2 = memchr(tgt, ' ', (size_t)(line + ln - tgt));
	if (!sp2 || sp2 == tgt)
		return fail(r, 400, "malformed request line");
	tn = (size_t)(sp2 - tgt);
	for (size_t i = 0; i < tn; i++)
		if ((unsigned char)tgt[i] <= 0x20 ||
		    (unsigned char)tgt[i] >= 0x7f)
			return fail(r, 400, "malformed request line");
	ver = sp2 + 1;
	vn = (size_t)(line + ln - ver);
	if (vn == 8 && !memcmp(ver, "HTTP/", 5) && ver[5] >= '0' &&
	    ver[5] <= '9' && ver[6] == '.' && ver[7] >= '0' && ver[7] <= '9') {
		if (memcmp(ver, "HTTP/1.1", 8) && memcmp(ver, "HTTP/1.0", 8))
			return fail(r, 505, "only HTTP/1.0 and HTTP/1.1");
	} else {
		return fail(r, 400, "malformed request line");
	}

	/* Headers: each line up to CRLF, until the empty one. */
	for (const char *p = b + r->line_end; p < b + end - 2;) {
		const char *e = memchr(p, '\r', (size_t)(b + end - p));
		struct hdr h = { p, (size_t)(e - p), 0, NULL, 0 };
		size_t k;

		if (++nh > PX_MAX_HEADERS)
			return fail(r, 431, "more than 100 header lines");
		if (*p == ' ' || *p == '\t')
			return fail(r, 400, "obsolete line folding in a "
				    "header");
		for (k = 0; k < h.n && tchar((unsigned char)p[k]); k++)
			;
		if (k < h.n && (p[k] == ' ' || p[k] == '\t'))
			return fail(r, 400, "whitespace between a header name "
				    "and ':'");
		if (!k || k == h.n || p[k] != ':')
			return fail(r, 400, "malformed header line");
		h.name = k;
		h.v = p + k + 1;
		h.vn = h.n - k - 1;
		while (h.vn && (*h.v == ' ' || *h.v == '\t')) {
			h.v++;
			h.vn--;
		}
		while (h.vn && (h.v[h.vn - 1] == ' ' || h.v[h.vn - 1] == '\t'))
			h.vn--;
		for (size_t i = 0; i < h.vn; i++) {
			unsigned char c = (unsigned char)h.v[i];

			if ((c < 0x20 && c != '\t') || c == 0x7f)
				return fail(r, 400, "control byte in a header "
					    "value");
		}
		if (ieq(p, k, "host")) {
			if (host_v)
				return fail(r, 400, "more than one Host "
					    "header");
			host_v = h.v;
			host_n = h.vn;
		} else if (ieq(p, k, "content-length")) {
			if (cl)
				return fail(r, 400, "more than one "
					    "Content-Length header");
			cl = true;
			if (!h.vn || h.vn > 15)
				return fail(r, 400, "malformed Content-Length");
			for (size_t i = 0; i < h.vn; i++) {
				if (h.v[i] < '0' || h.v[i] > '9')
					return fail(r, 400, "malformed "
						    "Content-Length");
				body = body * 10 + (uint64_t)(h.v[i] - '0');
			}
		} else if (ieq(p, k, "transfer-encoding")) {
			te = true;
		} else if (ieq(p, k, "connection")) {
			/* Options: comma-separated tokens, each dropped
			 * below as a header name. */
			const char *v = h.v, *ve = h.v + h.vn;

			while (v < ve) {
				const char *t = v;

				while (t < ve && *t != ',')
					t++;
				struct hdr tok = { v, (size_t)(t - v), 0,
						   NULL, 0 };

				while (tok.n && (*tok.s == ' ' ||
						 *tok.s == '\t')) {
					tok.s++;
					tok.n--;
				}
				while (tok.n && (tok.s[tok.n - 1] == ' ' ||
						 tok.s[tok.n - 1] == '\t'))
					tok.n--;
				if (ieq(tok.s, tok.n, "content-length") ||
				    ieq(tok.s, tok.n, "host"))
					return fail(r, 400, "Connection names "
						    "Content-Length or Host");
				if (tok.n) {
					if (nconn == MAX_CONN_TOKENS)
						return fail(r, 400, "more than "
							    "16 Connection "
							    "options");
					tok.name = tok.n;
					conn[nconn++] = tok;
				}
				v = t + 1;
			}
		}
		p = e + 2;
	}
	if (te && cl)
		return fail(r, 400, "both Content-Length and "
			    "Transfer-Encoding");

	if (sp1 - line == 7 && !memcmp(line, "CONNECT", 7)) {
		r->kind = PX_CONNECT;
		if (te || body)
			return fail(r, 400, "a CONNECT request with a body");
		r->port = 0;
		if (authority(tgt, tn, &r->host, &r->port, &has_port, &why))
			return fail(r, 400, why);
		if (!has_port)
			return fail(r, 400, "CONNECT needs HOST:PORT");
		path = NULL;
		pn = 0;
	} else {
		const char *a = tgt + 7, *ae;

		r->kind = PX_HTTP;
		if (tn < 7 || !iprefix(tgt, tn, "http://")) {
			for (size_t i = 0; i + 3 <= tn; i++)
				if (!memcmp(tgt + i, "://", 3))
					return fail(r, 400, "only http:// "
						    "targets are proxied (use "
						    "CONNECT for https)");
			return fail(r, 400, "the request target must be "
				    "http://HOST[:PORT]/PATH, or CONNECT "
				    "HOST:PORT");
		}
		if (memchr(tgt, '#', tn))
			return fail(r, 400, "fragment ('#') in the request "
				    "target");
		for (ae = a; ae < tgt + tn && *ae != '/' && *ae != '?'; ae++)
			;
		if (memchr(a, '@', (size_t)(ae - a)))
			return fail(r, 400, "userinfo ('user@') in the "
				    "request target");
		r->port = 80;
		if (authority(a, (size_t)(ae - a), &r->host, &r->port,
			      &has_port, &why))
			return fail(r, 400, why);
		path = ae;
		pn = (size_t)(tgt + tn - ae);
		if (te)
			return fail(r, 411, "Transfer-Encoding in a proxied "
				    "request (send Content-Length)");
	}
	if (host_v) {
		struct px_host hh;
		unsigned hp = r->kind == PX_HTTP ? 80 : r->port;
		bool hport;

		if (authority(host_v, host_n, &hh, &hp, &hport, &why) ||
		    hh.kind != r->host.kind || strcmp(hh.name, r->host.name) ||
		    hp != r->port)
			return fail(r, 400, "the Host header does not match "
				    "the request target");
	}
	r->body = body;
	r->used = end;
	r->stage = ST_DONE;
	if (r->kind == PX_CONNECT)
		return PX_DONE;

	/* The head for the upstream: origin-form, Host from the target. */
	put(&o, line, (size_t)(sp1 - line) + 1);
	if (!pn || *path == '?')
		put(&o, "/", 1);
	put(&o, path, pn);
	put(&o, " ", 1);
	put(&o, ver, 8);
	puts_(&o, "\r\nHost: ");
	puts_(&o, r->host.name);
	if (r->port != 80) {
		char pb[8];

		snprintf(pb, sizeof(pb), ":%u", r->port);
		puts_(&o, pb);
	}
	puts_(&o, "\r\n");
	for (const char *p = b + r->line_end; p < b + end - 2;) {
		const char *e = memchr(p, '\r', (size_t)(b + end - p));
		struct hdr h = { p, (size_t)(e - p), 0, NULL, 0 };
		bool named = false;

		h.name = (size_t)((const char *)memchr(p, ':', h.n) - p);
		for (size_t i = 0; i < nconn; i++)
			if (span_ieq(p, h.name, conn[i].s, conn[i].n))
				named = true;
		if (!named && !hop_by_hop(&h)) {
			put(&o, p, h.n);
			put(&o, "\r\n", 2);
		}
		p = e + 2;
	}
	puts_(&o, "Connection: close\r\n\r\n");
	if (o.full)
		return fail(r, 431, "request head too large to forward");
	r->nout = o.n;
	return PX_DONE;
}

enum px_res px_parse(struct px_req *r, const char *buf, size_t len,
		     char *out, size_t outcap)
{
	const unsigned char *b = (const unsigned char *)buf;
	long end;

	/* Called again after the end: the same answer. */
	if (r->stage == ST_DONE || r->stage == ST_FAILED)
		return r->stage == ST_DONE ? PX_DONE : PX_ERROR;
	if (!len)
		return PX_MORE;
	if (r->stage == ST_SOCKS_REQ || (r->stage == ST_START && b[0] == 5))
		return socks(r, b, len);
	if (r->stage == ST_START) {
		if (b[0] == 4) {
			r->reason = "SOCKS4 is not supported (use SOCKS5)";
			r->stage = ST_FAILED;
			r->nreply = 0;
			return PX_ERROR;
		}
		if (!((b[0] >= 'A' && b[0] <= 'Z') ||
		      (b[0] >= 'a' && b[0] <= 'z')))
			return fail(r, 400, "not an HTTP or SOCKS5 request");
		r->stage = ST_HTTP;
	}
	end = head_end(r, buf, len);
	if (end <= 0)
		return end < 0 ? PX_ERROR : PX_MORE;
	return http(r, buf, (size_t)end, out, outcap);
}
