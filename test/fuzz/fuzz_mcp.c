/* fuzz_mcp: the MCP front end of `pysbx mcp` (pkg/mcp): the JSON-RPC
 * layer, the python tool's arguments, the rendering of session responses
 * and the bounded text.
 *
 * The input is lines. A line is, by its first byte:
 * - 0x01 K: the rest is a response line of session K % 3 (given to
 *   mcp_reply as the session's answer to its running call);
 * - 0x02 K: session K % 3 ends (mcp_child_ended);
 * - 0x03 A B: the rest is clipped by tool_clip to at most 300 + 64*A
 *   bytes and 3 + B lines;
 * - anything else: a message from the client (mcp_message).
 * The sessions are fakes (no fork): spawn and send record, interrupt
 * does nothing. Checked: everything the server writes is lines of valid
 * JSON, each an object with "jsonrpc":"2.0"; a request line sent to a
 * session is one valid JSON object with an "id"; tool_clip stays within
 * its bounds (bytes and lines, plus the mark) and keeps valid UTF-8
 * valid; no call leaks (ASan).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"
#include "mcp/mcp.h"

static struct jv_node nodes[MCP_NODES_MAX];
static struct mbuf out;
static int fake_pid = 1000;

static void check_json_lines(const char *what, const char *p, size_t n,
			     bool rpc)
{
	while (n) {
		const char *nl = memchr(p, '\n', n);
		size_t l;
		struct jv j;

		if (!nl)
			fuzz_die("fuzz_mcp", what, "a line without its newline",
				 NULL);
		l = (size_t)(nl - p);
		if (jv_parse(&j, p, l, nodes, MCP_NODES_MAX) < 0 ||
		    jv_type(&j, 0) != JV_OBJ)
			fuzz_die("fuzz_mcp", what, "not one JSON object",
				 j.why);
		if (rpc && !jv_is(&j, jv_get(&j, 0, "jsonrpc"), "2.0"))
			fuzz_die("fuzz_mcp", what, "no jsonrpc 2.0", NULL);
		if (!rpc && jv_type(&j, jv_get(&j, 0, "id")) != JV_NUM)
			fuzz_die("fuzz_mcp", what, "no id", NULL);
		p += l + 1;
		n -= l + 1;
	}
}

static int spawn(struct mcp *m, struct mcp_child *c, char *msg, size_t len)
{
	(void)m;
	if (c->name[0] == 'x') {
		snprintf(msg, len, "refused");
		return -1;
	}
	c->pid = fake_pid++;
	c->fd = 100;
	return 0;
}

static int sendl(struct mcp *m, struct mcp_call *call)
{
	(void)m;
	check_json_lines("a session request", call->line.p, call->line.len,
			 false);
	return 0;
}

static void interrupt(struct mcp *m, struct mcp_child *c)
{
	(void)m;
	(void)c;
}

static bool utf8_ok(const unsigned char *s, size_t n)
{
	struct jv j;
	struct mbuf b = { 0 };
	struct jw w;
	bool ok;

	/* Valid UTF-8 is what jw_str copies unchanged. */
	mbuf_jw(&w, &b);
	jw_str(&w, (const char *)s, n);
	jw_flush(&w);
	ok = jv_parse(&j, b.p, b.len - 1, nodes, MCP_NODES_MAX) == 0 &&
	     (size_t)(j.node[0].end - j.node[0].start) >= n + 2 &&
	     !strstr(b.p, "\\ufffd");
	mbuf_free(&b);
	return ok;
}

static void clip(const unsigned char *p, size_t n)
{
	size_t max, lines, got = 0, total = 0;
	struct mbuf b = { 0 };

	if (n < 2)
		return;
	max = 300 + 64 * (size_t)p[0];
	lines = 3 + p[1];
	p += 2;
	n -= 2;
	tool_clip(&b, (const char *)p, n, max, lines);
	for (size_t i = 0; i < n; i++)
		total += p[i] == '\n';
	total += n && p[n - 1] != '\n';
	for (size_t i = 0; i < b.len; i++)
		got += b.p[i] == '\n';
	if (b.len > max + 1 || got > lines + 3)
		fuzz_die("fuzz_mcp", "tool_clip passed its bounds", NULL, NULL);
	if (n <= max && total <= lines && (b.len != n || memcmp(b.p, p, n)))
		fuzz_die("fuzz_mcp", "tool_clip cut what fit", NULL, NULL);
	if (b.len && utf8_ok(p, n) && !utf8_ok((unsigned char *)b.p, b.len))
		fuzz_die("fuzz_mcp", "tool_clip split a UTF-8 sequence", NULL,
			 NULL);
	mbuf_free(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct mcp_child ch[3];
	struct mcp m = { 0 };
	char *buf = malloc(size + 1);
	size_t off = 0;

	memcpy(buf, data, size);
	buf[size] = '\n';
	memset(ch, 0, sizeof(ch));
	m.max_sessions = 3;
	m.ch = ch;
	m.spawn = spawn;
	m.send = sendl;
	m.interrupt = interrupt;
	mbuf_jw(&m.w, &out);
	out.len = 0;
	while (off < size) {
		char *nl = memchr(buf + off, '\n', size + 1 - off);
		size_t l = (size_t)(nl - (buf + off));
		char *line = buf + off;

		if (l >= 2 && line[0] == 1) {
			int k = (unsigned char)line[1] % 3;

			if (k < m.nch)
				mcp_reply(&m, &ch[k], line + 2, l - 2);
		} else if (l >= 2 && line[0] == 2) {
			int k = (unsigned char)line[1] % 3;

			if (k < m.nch && ch[k].pid) {
				ch[k].pid = 0;
				ch[k].fd = -1;
				ch[k].status = 0;
				mcp_child_ended(&m, &ch[k]);
			}
		} else if (l >= 1 && line[0] == 3) {
			clip((const unsigned char *)line + 1, l - 1);
		} else {
			mcp_message(&m, line, l);
		}
		if (m.w.len)
			m.w.sink(m.w.ctx, m.w.buf, m.w.len), m.w.len = 0;
		check_json_lines("a message to the client", out.p ? out.p : "",
				 out.len, true);
		out.len = 0;
		off += l + 1;
	}
	mcp_free_calls(&m);
	free(buf);
	return 0;
}
