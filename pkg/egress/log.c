/* The egress log: one JSON record per connection on the guard's status fd
 * (docs/GUARD.md "Status records"), written with one write(2) when the
 * connection ends, and one stderr line per refused request. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "egress/internal.h"

static const char *proto_name(enum px_kind k)
{
	switch (k) {
	case PX_CONNECT: return "\"connect\"";
	case PX_HTTP: return "\"http\"";
	case PX_SOCKS5: return "\"socks5\"";
	default: return "null";
	}
}

static const char *verdict_name(int v)
{
	return v == V_ALLOW ? "allow" : v == V_DENY ? "deny" : "error";
}

/* "\"text\"" JSON-escaped into buf, or null for an empty text. */
static const char *jstr(char *buf, size_t len, const char *s)
{
	if (!s || !*s)
		return "null";
	buf[0] = '"';
	diag_json_escape(buf + 1, len - 2, s);
	strcat(buf, "\"");
	return buf;
}

void eg_log_conn(const struct eg_ctx *c, const struct conn *k, uint64_t now)
{
	char host[PX_HOST_MAX * 2 + 8], rule[768], reason[768], addr[64];
	char a[PX_ADDR_TEXT], line[4096];
	const char *known = k->parsed ? k->req.host.name : NULL;
	int n;

	if (c->status_fd < 0)
		return;
	if (k->have_addr)
		snprintf(addr, sizeof(addr), "\"%s\"", px_addr_text(&k->addr, a));
	else
		snprintf(addr, sizeof(addr), "null");
	n = snprintf(line, sizeof(line),
		     "{\"event\":\"egress\",\"proto\":%s,\"host\":%s,"
		     "\"port\":%u,\"addr\":%s,\"verdict\":\"%s\",\"rule\":%s,"
		     "\"status\":%d,\"reason\":%s,\"bytes_up\":%llu,"
		     "\"bytes_down\":%llu,\"ms\":%llu}\n",
		     k->parsed ? proto_name(k->req.kind) : "null",
		     jstr(host, sizeof(host), known), k->parsed ? k->req.port : 0,
		     addr, verdict_name(k->verdict),
		     jstr(rule, sizeof(rule), k->rule_text),
		     k->status, jstr(reason, sizeof(reason), k->reason),
		     (unsigned long long)k->nup, (unsigned long long)k->ndown,
		     (unsigned long long)(now - k->t0));
	if (n <= 0 || (size_t)n >= sizeof(line))
		return;
	/* One write: a pipe takes it whole (under PIPE_BUF), and a file's
	 * offset is shared with the guard's own records under the kernel's
	 * file position lock. A reader that went away costs nothing. */
	while (write(c->status_fd, line, (size_t)n) < 0 && errno == EINTR)
		;
}

/* One line to the caller's stderr, whole (retried only on EINTR). */
static void put_err(const char *line, size_t n)
{
	while (write(2, line, n) < 0 && errno == EINTR)
		;
}

/* At most EG_DENY_LINES lines a second: a loop of refused requests must
 * not flood the caller's terminal or log (the status records keep every
 * one). */
#define EG_DENY_LINES 10

void eg_log_denied(const struct conn *k)
{
	static uint64_t second;
	static unsigned shown, hidden;
	uint64_t s = eg_now() / 1000;
	char line[1024];
	int n;

	if (s != second) {
		n = hidden ? snprintf(line, sizeof(line), "pysbx-proxy: %u "
				      "more refusals in one second not shown "
				      "here (each has its status record)\n",
				      hidden) : 0;
		if (n > 0)
			put_err(line, (size_t)n);
		second = s;
		shown = hidden = 0;
	}
	if (shown >= EG_DENY_LINES) {
		hidden++;
		return;
	}
	shown++;
	n = snprintf(line, sizeof(line), "pysbx-proxy: denied %s %s:%u: %s\n",
		     k->req.kind == PX_CONNECT ? "CONNECT" :
		     k->req.kind == PX_SOCKS5 ? "SOCKS5 CONNECT" : "HTTP",
		     k->req.host.name, k->req.port, k->reason);
	if (n > 0)
		put_err(line, (size_t)n < sizeof(line) ? (size_t)n :
			sizeof(line) - 1);
}
