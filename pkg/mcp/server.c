/* JSON-RPC 2.0 over stdio, as MCP's stdio transport has it: one message
 * a line, no batches (both revisions served, 2025-06-18 and 2025-11-25,
 * removed them), requests answered in any order. Every message of the
 * client is parsed strictly and bounded; a malformed one gets its error
 * and the server keeps serving. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "chain/chain.h"
#include "mcp/mcp.h"

enum {
	RPC_PARSE = -32700,
	RPC_INVALID = -32600,
	RPC_METHOD = -32601,
	RPC_PARAMS = -32602,
};

static void rpc_head(struct mcp *m, const char *id)
{
	jw_begin(&m->w);
	jw_kstr(&m->w, "jsonrpc", "2.0");
	jw_key(&m->w, "id");
	jw_raw(&m->w, id, strlen(id));
}

static void rpc_error(struct mcp *m, const char *id, int code,
		      const char *msg)
{
	rpc_head(m, id);
	jw_key(&m->w, "error");
	jw_begin(&m->w);
	jw_knum(&m->w, "code", code);
	jw_kstr(&m->w, "message", msg);
	jw_end(&m->w);
	jw_end(&m->w);
	jw_flush(&m->w);
}

/* Begin a result: the caller writes the value, then rpc_end. */
static void rpc_result(struct mcp *m, const char *id)
{
	rpc_head(m, id);
	jw_key(&m->w, "result");
}

static void rpc_end(struct mcp *m)
{
	jw_end(&m->w);
	jw_flush(&m->w);
}

/* A JSON-RPC id MCP accepts (a string or an integer; not null) copied
 * as its JSON text into out. */
static bool id_text(const struct jv *j, int v, char *out)
{
	size_t n;

	if (jv_type(j, v) != JV_STR && jv_type(j, v) != JV_NUM)
		return false;
	n = j->node[v].end - j->node[v].start;
	if (n >= MCP_ID_MAX)
		return false;
	memcpy(out, j->src + j->node[v].start, n);
	out[n] = '\0';
	if (jv_type(j, v) == JV_NUM && strpbrk(out, ".eE"))
		return false;
	return true;
}

/* --- calls ------------------------------------------------------------- */

static void call_free(struct mcp_call *c)
{
	mbuf_free(&c->line);
	free(c);
}

static void progress(struct mcp *m, struct mcp_call *c, const char *msg,
		     size_t n)
{
	if (!c->token[0])
		return;
	jw_begin(&m->w);
	jw_kstr(&m->w, "jsonrpc", "2.0");
	jw_kstr(&m->w, "method", "notifications/progress");
	jw_key(&m->w, "params");
	jw_begin(&m->w);
	jw_key(&m->w, "progressToken");
	jw_raw(&m->w, c->token, strlen(c->token));
	jw_knum(&m->w, "progress", c->progress++);
	jw_kbytes(&m->w, "message", msg, n);
	jw_end(&m->w);
	jw_end(&m->w);
	jw_flush(&m->w);
}

static void call_error(struct mcp *m, struct mcp_call *c, const char *msg)
{
	if (!c->cancelled) {
		rpc_result(m, c->id);
		tool_error(&m->w, msg);
		rpc_end(m);
	}
	call_free(c);
}

void mcp_call_failed(struct mcp *m, struct mcp_call *c, const char *msg)
{
	call_error(m, c, msg);
	mcp_pump(m);
}

void mcp_pump(struct mcp *m)
{
	struct mcp_call **pp = &m->queue;

	while (*pp) {
		struct mcp_call *c = *pp;
		struct mcp_child *ch = c->child;
		char msg[512];

		/* Busy, or its old process is still ending. */
		if (ch->run || ch->ending || (ch->fd < 0 && ch->pid)) {
			pp = &c->next;
			continue;
		}
		*pp = c->next;
		m->nqueued--;
		if (ch->fd < 0 && m->spawn(m, ch, msg, sizeof(msg)) < 0) {
			call_error(m, c, msg);
			continue;
		}
		ch->run = c;
		if (m->send(m, c) < 0) {
			/* Its end comes as EOF: the call gets its error
			 * then. */
			continue;
		}
		snprintf(msg, sizeof(msg), "running in session '%s'",
			 ch->name);
		progress(m, c, msg, strlen(msg));
	}
}

void mcp_child_ended(struct mcp *m, struct mcp_child *c)
{
	struct mcp_call *run = c->run;
	char msg[256];

	c->run = NULL;
	c->lost = true;
	c->ending = false;
	c->restarts++;
	if (run) {
		if (WIFEXITED(c->status))
			snprintf(msg, sizeof(msg), "the session '%s' ended "
				 "during the call (exit code %d); its state is "
				 "lost, the next call starts a new one",
				 c->name, WEXITSTATUS(c->status));
		else
			snprintf(msg, sizeof(msg), "the session '%s' ended "
				 "during the call (signal %d); its state is "
				 "lost, the next call starts a new one",
				 c->name, WTERMSIG(c->status));
		call_error(m, run, msg);
	}
	mcp_pump(m);
}

void mcp_reply(struct mcp *m, struct mcp_child *c, char *line, size_t n)
{
	static struct jv_node nodes[MCP_NODES_MAX];
	struct mcp_call *run = c->run;
	char note[160];
	struct jv j;
	bool ok;

	ok = jv_parse(&j, line, n, nodes, MCP_NODES_MAX) == 0 &&
	     jv_type(&j, 0) == JV_OBJ;
	/* An event of the running execute (docs/SESSION.md): not its end. */
	if (ok && jv_get(&j, 0, "event") >= 0)
		return;
	/* The start-up status, or a late answer after the call ended. */
	if (!run)
		return;
	c->run = NULL;
	if (!run->cancelled) {
		rpc_result(m, run->id);
		snprintf(note, sizeof(note), "[session '%s' was restarted: "
			 "earlier state is lost]", c->name);
		tool_result(&m->w, ok ? &j : NULL, c->lost ? note : NULL,
			    c->name);
		rpc_end(m);
		c->lost = false;
	}
	call_free(run);
	mcp_pump(m);
}

/* --- methods ------------------------------------------------------------ */

static void initialize(struct mcp *m, const struct jv *j, int params,
		       const char *id)
{
	int v = jv_get(j, params, "protocolVersion");

	if (m->initialized)
		return rpc_error(m, id, RPC_INVALID, "the server is already "
				 "initialized");
	if (jv_type(j, v) != JV_STR)
		return rpc_error(m, id, RPC_PARAMS, "initialize needs "
				 "params.protocolVersion (a string)");
	/* The client's revision when we serve it, else our newest: the
	 * client decides whether it can go on. */
	snprintf(m->version, sizeof(m->version), "%s",
		 jv_is(j, v, MCP_V_OLD) ? MCP_V_OLD : MCP_V_NEW);
	m->initialized = true;
	rpc_result(m, id);
	jw_begin(&m->w);
	jw_kstr(&m->w, "protocolVersion", m->version);
	jw_key(&m->w, "capabilities");
	jw_raw(&m->w, "{\"tools\":{\"listChanged\":false}}", 31);
	m->w.first = false;
	jw_key(&m->w, "serverInfo");
	jw_begin(&m->w);
	jw_kstr(&m->w, "name", "pysbx");
	jw_kstr(&m->w, "title", "pysbx: sandboxed Python");
	jw_kstr(&m->w, "version", PYSBX_VERSION);
	jw_end(&m->w);
	jw_kstr(&m->w, "instructions", "The python tool runs code in a "
		"persistent sandboxed interpreter: define variables in one "
		"call, use them in the next. Write files under /scratch; the "
		"project is read-only at /workspace; there is no network.");
	jw_end(&m->w);
	rpc_end(m);
}

static struct mcp_child *child_for(struct mcp *m, const char *name)
{
	struct mcp_child *c;

	for (int i = 0; i < m->nch; i++)
		if (!strcmp(m->ch[i].name, name))
			return &m->ch[i];
	if (m->nch == m->max_sessions)
		return NULL;
	c = &m->ch[m->nch++];
	memset(c, 0, sizeof(*c));
	snprintf(c->name, sizeof(c->name), "%s", name);
	c->fd = -1;
	return c;
}

static void tools_call(struct mcp *m, const struct jv *j, int params,
		       const char *id)
{
	int name = jv_get(j, params, "name");
	int args = jv_get(j, params, "arguments");
	int meta = jv_get(j, params, "_meta");
	int tok = jv_get(j, meta, "progressToken");
	struct tool_call tc;
	struct mcp_call *c;
	char msg[256];

	if (jv_type(j, params) != JV_OBJ)
		return rpc_error(m, id, RPC_PARAMS, "tools/call needs params "
				 "(an object)");
	if (jv_type(j, name) != JV_STR)
		return rpc_error(m, id, RPC_PARAMS, "tools/call needs "
				 "params.name (a string)");
	if (name == -2 || args == -2 || meta == -2)
		return rpc_error(m, id, RPC_PARAMS, "a member of params is "
				 "given twice");
	if (args >= 0 && jv_type(j, args) != JV_OBJ)
		return rpc_error(m, id, RPC_PARAMS, "params.arguments must be "
				 "an object");
	if (!jv_is(j, name, mcp_tool_names[TOOL_PYTHON]))
		return rpc_error(m, id, RPC_PARAMS, "unknown tool (this server "
				 "has: python)");
	if (!(c = calloc(1, sizeof(*c))))
		return rpc_error(m, id, -32603, "out of memory");
	snprintf(c->id, sizeof(c->id), "%s", id);
	if (tok >= 0 && !id_text(j, tok, c->token))
		c->token[0] = '\0';
	if (tool_request(j, args, 0, &tc, &c->line) < 0) {
		rpc_result(m, id);
		tool_error(&m->w, tc.error);
		rpc_end(m);
		return call_free(c);
	}
	if (m->nqueued >= MCP_QUEUE_MAX) {
		snprintf(msg, sizeof(msg), "more than %d calls are waiting; "
			 "try again when one has ended", MCP_QUEUE_MAX);
		return call_error(m, c, msg);
	}
	if (!(c->child = child_for(m, tc.session))) {
		snprintf(msg, sizeof(msg), "at most %d sessions run at once "
			 "(the server's --max-sessions): use one of those "
			 "already started", m->max_sessions);
		return call_error(m, c, msg);
	}
	/* In arrival order: a session runs its calls one after another. */
	{
		struct mcp_call **pp = &m->queue;

		while (*pp)
			pp = &(*pp)->next;
		*pp = c;
		m->nqueued++;
	}
	mcp_pump(m);
}

static void cancelled(struct mcp *m, const struct jv *j, int params)
{
	char id[MCP_ID_MAX];
	struct mcp_call **pp;

	if (!id_text(j, jv_get(j, params, "requestId"), id))
		return;
	for (pp = &m->queue; *pp; pp = &(*pp)->next)
		if (!strcmp((*pp)->id, id)) {
			struct mcp_call *c = *pp;

			*pp = c->next;
			m->nqueued--;
			call_free(c);
			return;
		}
	for (int i = 0; i < m->nch; i++) {
		struct mcp_call *c = m->ch[i].run;

		if (c && !c->cancelled && !strcmp(c->id, id)) {
			/* No answer is sent for it (the protocol says so);
			 * the execute is interrupted as the session's
			 * cancel does. */
			c->cancelled = true;
			m->interrupt(m, &m->ch[i]);
			return;
		}
	}
}

void mcp_too_large(struct mcp *m)
{
	char msg[96];

	snprintf(msg, sizeof(msg), "a message is longer than the frame limit "
		 "of %d bytes", MCP_FRAME_MAX);
	rpc_error(m, "null", RPC_INVALID, msg);
}

void mcp_message(struct mcp *m, char *line, size_t n)
{
	static struct jv_node nodes[MCP_NODES_MAX];
	char id[MCP_ID_MAX] = "null", method[64], msg[160];
	int vid, vm, vp, vv;
	struct jv j;
	size_t k;

	for (k = 0; k < n && (line[k] == ' ' || line[k] == '\t' ||
			      line[k] == '\r'); k++)
		;
	if (k == n)
		return;
	if (jv_parse(&j, line, n, nodes, MCP_NODES_MAX) < 0) {
		snprintf(msg, sizeof(msg), "%s: %s", j.too_big ?
			 "Invalid Request" : "Parse error", j.why);
		return rpc_error(m, "null", j.too_big ? RPC_INVALID :
				 RPC_PARSE, msg);
	}
	if (jv_type(&j, 0) == JV_ARR) {
		snprintf(msg, sizeof(msg), "Invalid Request: JSON-RPC batches "
			 "are not supported in protocol revision %s",
			 m->initialized ? m->version : MCP_V_NEW);
		return rpc_error(m, "null", RPC_INVALID, msg);
	}
	if (jv_type(&j, 0) != JV_OBJ)
		return rpc_error(m, "null", RPC_INVALID, "Invalid Request: a "
				 "message is a JSON object");
	vid = jv_get(&j, 0, "id");
	vm = jv_get(&j, 0, "method");
	vp = jv_get(&j, 0, "params");
	vv = jv_get(&j, 0, "jsonrpc");
	if (vid >= 0 && !id_text(&j, vid, id)) {
		snprintf(id, sizeof(id), "null");
		return rpc_error(m, id, RPC_INVALID, "Invalid Request: id must "
				 "be a string or an integer");
	}
	if (vid == -2 || vm == -2 || vp == -2 || vv == -2)
		return rpc_error(m, id, RPC_INVALID, "Invalid Request: a "
				 "member is given twice");
	if (!jv_is(&j, vv, "2.0"))
		return rpc_error(m, id, RPC_INVALID, "Invalid Request: "
				 "jsonrpc must be \"2.0\"");
	if (vm < 0) {
		/* An answer to a request of ours: we send none. */
		if (vid >= 0 && (jv_get(&j, 0, "result") >= 0 ||
				 jv_get(&j, 0, "error") >= 0))
			return;
		return rpc_error(m, id, RPC_INVALID, "Invalid Request: no "
				 "method");
	}
	if (jv_type(&j, vm) != JV_STR)
		return rpc_error(m, id, RPC_INVALID, "Invalid Request: method "
				 "must be a string");
	if (vp >= 0 && jv_type(&j, vp) != JV_OBJ) {
		if (vid < 0)
			return;
		return rpc_error(m, id, RPC_PARAMS, "Invalid params: params "
				 "must be an object");
	}
	if (jv_str(&j, vm, method, sizeof(method)) < 0)
		method[0] = '\0';
	if (vid < 0) {
		/* Notifications are never answered, not even with an
		 * error. */
		if (!strcmp(method, "notifications/cancelled"))
			cancelled(m, &j, vp);
		return;
	}
	if (!strcmp(method, "initialize"))
		return initialize(m, &j, vp, id);
	if (!strcmp(method, "ping")) {
		rpc_result(m, id);
		jw_raw(&m->w, "{}", 2);
		return rpc_end(m);
	}
	if (!m->initialized)
		return rpc_error(m, id, RPC_INVALID, "Invalid Request: the "
				 "server is not initialized (send initialize "
				 "first)");
	if (!strcmp(method, "tools/list")) {
		rpc_result(m, id);
		jw_begin(&m->w);
		jw_key(&m->w, "tools");
		tool_list(&m->w);
		jw_end(&m->w);
		return rpc_end(m);
	}
	if (!strcmp(method, "tools/call"))
		return tools_call(m, &j, vp, id);
	snprintf(msg, sizeof(msg), "Method not found: '%.64s'", method);
	rpc_error(m, id, RPC_METHOD, msg);
}

void mcp_free_calls(struct mcp *m)
{
	while (m->queue) {
		struct mcp_call *c = m->queue;

		m->queue = c->next;
		call_free(c);
	}
	m->nqueued = 0;
	for (int i = 0; i < m->nch; i++)
		if (m->ch[i].run) {
			call_free(m->ch[i].run);
			m->ch[i].run = NULL;
		}
}
