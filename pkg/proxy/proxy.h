/* proxy: the parser of the requests a sandboxed program sends to the
 * egress proxy (HTTP CONNECT, absolute-form HTTP, SOCKS5), and its
 * replies. No I/O, no allocation: every buffer is the caller's. The bytes
 * parsed here are written by the sandbox: this is the toolkit's largest
 * attack surface, fuzzed by test/fuzz/fuzz_proxy.c (with pkg/netaddr's
 * host parser and pkg/policy's rule matching). docs/NETWORK.md documents
 * the proxy.
 */
#ifndef PYSBX_PROXY_H
#define PYSBX_PROXY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "netaddr/netaddr.h"

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
