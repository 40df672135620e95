/* The python tool: seed 000's interface (action, code, timeoutSeconds)
 * plus seed 003's named sessions. Its arguments become one session
 * request line, checked by the session's own parser (pkg/session json.c);
 * the session's response becomes the model's text, bounded, and the
 * structuredContent, verbatim. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcp/mcp.h"

const char *const mcp_tool_names[TOOL_COUNT] = { "python" };

/* member_str takes only strings below this: the larger ones (stdout,
 * stderr) go through an mbuf, mapped and given back. */
#define MBUF_MAP (64 * 1024)

/* --- the schemas ----------------------------------------------------- */

#define DESCRIPTION                                                           \
	"Run Python 3 in a persistent interpreter inside a pysbx sandbox "    \
	"(no network, the project read-only at /workspace, a writable "       \
	"/scratch). Variables, imports and functions survive across calls " \
	"of the same session. Returns stdout, stderr, the final "             \
	"expression's repr and a short traceback. action: execute "           \
	"(default: run code), reset (kill the interpreter, /scratch stays), " \
	"status (readiness and limits). timeoutSeconds 1-120 (default 30); "  \
	"a timeout loses the interpreter's state. session: a name for an "    \
	"independent interpreter (default \\\"default\\\")."

static const char input_schema[] =
	"{\"type\":\"object\",\"properties\":{"
	"\"action\":{\"type\":\"string\",\"enum\":[\"execute\",\"reset\","
	"\"status\"],\"default\":\"execute\",\"description\":\"execute runs "
	"code; reset kills the interpreter and its state; status reports "
	"without starting anything\"},"
	"\"code\":{\"type\":\"string\",\"maxLength\":65536,\"description\":"
	"\"Python source (execute only); the last expression's repr is "
	"returned\"},"
	"\"timeoutSeconds\":{\"type\":\"number\",\"minimum\":1,\"maximum\":"
	"120,\"default\":30,\"description\":\"wall time of this execute\"},"
	"\"session\":{\"type\":\"string\",\"pattern\":"
	"\"^[A-Za-z0-9_.-]{1,64}$\",\"description\":\"an independent "
	"interpreter and sandbox; omitted: the default session\"}"
	"},\"additionalProperties\":false}";

/* The session's response (docs/SESSION.md): what every action has, and
 * the execute's members; more may come (additionalProperties). */
static const char output_schema[] =
	"{\"type\":\"object\",\"properties\":{"
	"\"ok\":{\"type\":\"boolean\"},"
	"\"action\":{\"type\":\"string\"},"
	"\"session\":{\"type\":\"string\"},"
	"\"status\":{\"type\":\"string\"},"
	"\"stdout\":{\"type\":\"string\"},"
	"\"stderr\":{\"type\":\"string\"},"
	"\"stdoutBytes\":{\"type\":\"integer\"},"
	"\"stderrBytes\":{\"type\":\"integer\"},"
	"\"outputTruncated\":{\"type\":\"boolean\"},"
	"\"value\":{\"type\":[\"string\",\"null\"]},"
	"\"valueTruncated\":{\"type\":\"boolean\"},"
	"\"exception\":{\"type\":[\"object\",\"null\"]},"
	"\"message\":{\"type\":\"string\"},"
	"\"stateLost\":{\"type\":\"boolean\"},"
	"\"stateLostReason\":{\"type\":[\"string\",\"null\"]},"
	"\"workerStarted\":{\"type\":\"boolean\"},"
	"\"generation\":{\"type\":\"integer\"},"
	"\"durationMs\":{\"type\":\"integer\"},"
	"\"notice\":{\"type\":\"string\"},"
	"\"error\":{\"type\":\"object\"}"
	"},\"required\":[\"ok\"]}";

void tool_list(struct jw *w)
{
	jw_raw(w, "[", 1);
	jw_begin(w);
	jw_kstr(w, "name", "python");
	jw_kstr(w, "title", "Python (sandboxed, persistent)");
	jw_key(w, "description");
	jw_raw(w, "\"" DESCRIPTION "\"", sizeof(DESCRIPTION) + 1);
	jw_key(w, "inputSchema");
	jw_raw(w, input_schema, sizeof(input_schema) - 1);
	jw_key(w, "outputSchema");
	jw_raw(w, output_schema, sizeof(output_schema) - 1);
	/* It changes /scratch (and /workspace when the user made it
	 * writable), not the world: no network in the default policy. */
	jw_key(w, "annotations");
	jw_begin(w);
	jw_kstr(w, "title", "Python (sandboxed)");
	jw_kbool(w, "readOnlyHint", false);
	jw_kbool(w, "destructiveHint", false);
	jw_kbool(w, "idempotentHint", false);
	jw_kbool(w, "openWorldHint", false);
	jw_end(w);
	jw_end(w);
	jw_raw(w, "]", 1);
}

/* --- arguments -> a session request ------------------------------------ */

static bool name_ok(const char *s, size_t n)
{
	if (!n || n > MCP_SESSION_NAME_MAX)
		return false;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '_' || c == '.' ||
		      c == '-'))
			return false;
	}
	return true;
}

static int refuse(struct tool_call *c, const char *msg)
{
	snprintf(c->error, sizeof(c->error), "%s", msg);
	return -1;
}

/* A string member decoded and written again as a JSON string: the
 * session gets text it can parse whatever escapes the client used. */
static int copy_str(const struct jv *j, int v, const char *key,
		    struct jw *w, struct tool_call *c)
{
	struct mbuf s = { 0 };

	if (jv_type(j, v) != JV_STR) {
		snprintf(c->error, sizeof(c->error), "%s must be a string",
			 key);
		return -1;
	}
	if (jv_mbuf(j, v, &s) < 0)
		return refuse(c, "out of memory");
	jw_kbytes(w, key, s.p, s.len);
	mbuf_free(&s);
	return 0;
}

int tool_request(const struct jv *j, int args, unsigned seq,
		 struct tool_call *c, struct mbuf *line)
{
	static const char *const known[] = { "action", "code",
					     "timeoutSeconds", "session" };
	struct jw w;
	int v;

	snprintf(c->session, sizeof(c->session), "default");
	c->error[0] = '\0';
	if (args >= 0 && jv_type(j, args) != JV_OBJ)
		return refuse(c, "arguments must be an object");
	/* The session's parser refuses unknown members too, but "session"
	 * is ours, and a refusal should name the tool's arguments. */
	if (args >= 0) {
		uint32_t i = (uint32_t)args + 1;

		for (uint32_t m = 0; m < j->node[args].n; m++) {
			size_t k;

			for (k = 0; k < 4; k++)
				if (jv_is(j, (int)i, known[k]))
					break;
			if (k == 4)
				return refuse(c, "unknown argument (use action, "
					      "code, timeoutSeconds, session)");
			if (jv_get(j, args, known[k]) == -2) {
				snprintf(c->error, sizeof(c->error),
					 "argument %s given twice", known[k]);
				return -1;
			}
			i = j->node[i + 1].next;
		}
	}
	if ((v = jv_get(j, args, "session")) >= 0) {
		char name[MCP_SESSION_NAME_MAX + 1];
		long n = jv_str(j, v, name, sizeof(name));

		if (n < 0 || !name_ok(name, (size_t)n))
			return refuse(c, "session must be 1 to 64 of A-Z a-z "
				      "0-9 _ . -");
		memcpy(c->session, name, (size_t)n + 1);
	}
	/* Only what the model may choose: mounts are the user's (the
	 * server's options), not the model's. */
	if ((v = jv_get(j, args, "action")) >= 0 && !jv_is(j, v, "execute") &&
	    !jv_is(j, v, "reset") && !jv_is(j, v, "status"))
		return refuse(c, "action must be execute, reset or status");
	mbuf_jw(&w, line);
	jw_begin(&w);
	jw_knum(&w, "id", seq);
	if (v >= 0 && copy_str(j, v, "action", &w, c) < 0)
		return -1;
	if ((v = jv_get(j, args, "code")) >= 0) {
		if (jv_type(j, v) != JV_STR)
			return refuse(c, "code must be a string");
		if (copy_str(j, v, "code", &w, c) < 0)
			return -1;
	}
	if ((v = jv_get(j, args, "timeoutSeconds")) >= 0) {
		/* A number goes as it is: the session checks its range. */
		if (jv_type(j, v) != JV_NUM)
			return refuse(c, "timeoutSeconds must be a number from "
				      "1 to 120");
		jw_key(&w, "timeoutSeconds");
		jw_raw(&w, j->src + j->node[v].start,
		       j->node[v].end - j->node[v].start);
	}
	jw_end(&w);
	jw_raw(&w, "\n", 1);
	if (w.len)
		w.sink(w.ctx, w.buf, w.len);
	if (line->oom)
		return refuse(c, "out of memory");
	return 0;
}

/* --- the session's response -> a tool result --------------------------- */

/* Bytes of a UTF-8 sequence starting with c (1 for a stray byte). */
static size_t seq_len(unsigned char c)
{
	return c < 0xc0 ? 1 : c < 0xe0 ? 2 : c < 0xf0 ? 3 : 4;
}

static size_t count_lines(const char *s, size_t n)
{
	size_t k = 0;

	for (const char *p = s; (p = memchr(p, '\n', n - (size_t)(p - s)));
	     p++)
		k++;
	return k;
}

size_t tool_clip(struct mbuf *b, const char *s, size_t n, size_t max,
		 size_t lines)
{
	size_t total = count_lines(s, n) + (n && s[n - 1] != '\n');
	size_t h = 0, t = n, hl = 0, tl = 0, half, halfl;
	char mark[128];

	if (n <= max && total <= lines) {
		mbuf_put(b, s, n);
		return total;
	}
	/* Head and tail, each about half the budget, the mark between. */
	half = max > 256 ? (max - 128) / 2 : max / 2;
	halfl = lines > 2 ? (lines - 1) / 2 : 1;
	while (h < n && hl < halfl) {
		const char *nl = memchr(s + h, '\n', n - h);
		size_t e = nl ? (size_t)(nl - s) + 1 : n;

		if (e > half) {
			/* A first line longer than half: cut inside it, on a
			 * character boundary. */
			while (!hl && h < n &&
			       h + seq_len((unsigned char)s[h]) <= half)
				h += seq_len((unsigned char)s[h]);
			break;
		}
		h = e;
		hl++;
	}
	while (t > h && tl < halfl) {
		size_t st = t;

		if (s[st - 1] == '\n')
			st--;
		while (st > h && s[st - 1] != '\n')
			st--;
		if (n - st > half) {
			/* The last line alone is too long: its end. */
			while (!tl && t > h && n - t < half) {
				size_t k = t - 1;

				while (k > h && ((unsigned char)s[k] & 0xc0) ==
				       0x80)
					k--;
				if (n - k > half)
					break;
				t = k;
			}
			break;
		}
		t = st;
		tl++;
	}
	mbuf_put(b, s, h);
	if (h && s[h - 1] != '\n')
		mbuf_put(b, "\n", 1);
	snprintf(mark, sizeof(mark), "[... %zu bytes, %zu lines omitted ...]\n",
		 t - h, count_lines(s + h, t - h));
	mbuf_put(b, mark, strlen(mark));
	mbuf_put(b, s + t, n - t);
	return hl + tl + 3;
}

/* A small member of the response (status, value, traceback: at most a
 * few KiB) as a decoded string (malloc'd), or NULL. */
static char *member_str(const struct jv *j, int obj, const char *key,
			size_t *len)
{
	int v = jv_get(j, obj, key);
	size_t cap;
	char *s;
	long n;

	if (jv_type(j, v) != JV_STR)
		return NULL;
	cap = j->node[v].end - j->node[v].start + 1;
	if (cap > MBUF_MAP || !(s = malloc(cap)))
		return NULL;
	if ((n = jv_str(j, v, s, cap)) < 0) {
		free(s);
		return NULL;
	}
	*len = (size_t)n;
	return s;
}


static bool member_true(const struct jv *j, int obj, const char *key)
{
	return jv_type(j, jv_get(j, obj, key)) == JV_TRUE;
}

static void line_put(struct mbuf *b, const char *s)
{
	if (b->len && b->p[b->len - 1] != '\n')
		mbuf_put(b, "\n", 1);
	mbuf_put(b, s, strlen(s));
}

/* Section labels, for text that is not the code's own output. */
static void section(struct mbuf *b, const char *label, const char *s,
		    size_t n, size_t max, size_t lines, size_t *used)
{
	line_put(b, label);
	if (label[0])
		mbuf_put(b, "\n", 1);
	*used += tool_clip(b, s, n, max, lines) + 1;
}

/* The text of an execute's response. */
static void execute_text(struct mbuf *b, const struct jv *j, bool *err)
{
	size_t n, used = 0, budget = MCP_TEXT_MAX - 4096;
	char *s, tmp[512], st[40];
	int ex;

	if ((s = member_str(j, 0, "status", &n)))
		snprintf(st, sizeof(st), "%.32s", s);
	else
		snprintf(st, sizeof(st), "unknown");
	free(s);
	*err = strcmp(st, "ok") != 0;
	if ((s = member_str(j, 0, "notice", &n))) {
		line_put(b, "[notice] ");
		used += tool_clip(b, s, n, 1024, 10);
		free(s);
	}
	/* stderr first into its own budget, so that stdout gets the rest. */
	{
		struct mbuf e = { 0 }, raw = { 0 };
		size_t el = 0;

		if (jv_mbuf(j, jv_get(j, 0, "stderr"), &raw) == 0 && raw.len)
			el = tool_clip(&e, raw.p, raw.len, 12 * 1024, 400);
		mbuf_free(&raw);
		if (jv_mbuf(j, jv_get(j, 0, "stdout"), &raw) == 0 && raw.len)
			used += tool_clip(b, raw.p, raw.len,
					  budget - e.len - 2048,
					  MCP_TEXT_LINES - 100 - el);
		mbuf_free(&raw);
		if (e.len) {
			line_put(b, "[stderr]\n");
			mbuf_put(b, e.p, e.len);
			used += el + 1;
		}
		mbuf_free(&e);
	}
	if (member_true(j, 0, "outputTruncated"))
		line_put(b, "[output passed the session's limit: the rest "
			 "was not kept]");
	if ((s = member_str(j, 0, "value", &n))) {
		section(b, "[value]", s, n, 4096, 40, &used);
		free(s);
	}
	ex = jv_get(j, 0, "exception");
	if (jv_type(j, ex) == JV_OBJ) {
		char *tb = member_str(j, ex, "traceback", &n);

		/* A short traceback: its end names the error. */
		if (tb && n) {
			section(b, "[error]", tb, n, 3072, 30, &used);
		} else {
			char *t = member_str(j, ex, "type", &n);
			char *m = member_str(j, ex, "message", &n);

			snprintf(tmp, sizeof(tmp), "[error] %.200s: %.280s",
				 t ? t : "Exception", m ? m : "");
			line_put(b, tmp);
			free(t);
			free(m);
		}
		free(tb);
	} else if (*err) {
		char *m = member_str(j, 0, "message", &n);

		snprintf(tmp, sizeof(tmp), "[%.32s] ", st);
		line_put(b, tmp);
		if (m)
			tool_clip(b, m, n, 1024, 10);
		free(m);
	}
	if (member_true(j, 0, "stateLost")) {
		char *r = member_str(j, 0, "stateLostReason", &n);

		*err = true;
		snprintf(tmp, sizeof(tmp), "[state lost (%.64s): the next "
			 "execute starts a fresh interpreter]", r ? r : "?");
		line_put(b, tmp);
		free(r);
	} else if (strcmp(st, "ok") && strcmp(st, "error")) {
		line_put(b, "[state kept: variables and imports survive]");
	}
	if (!b->len)
		mbuf_put(b, "(no output)", 11);
}

static void other_text(struct mbuf *b, const struct jv *j, const char *act,
		       bool *err)
{
	char tmp[512], *s;
	size_t n;
	int g = jv_get(j, 0, "generation");
	long long gen = 0;

	if (jv_type(j, g) == JV_NUM)
		gen = strtoll(j->src + j->node[g].start, NULL, 10);
	*err = false;
	if (!strcmp(act, "reset")) {
		snprintf(tmp, sizeof(tmp), "reset: %s; the next execute starts "
			 "a fresh interpreter (/scratch is kept)",
			 member_true(j, 0, "killed") ? "the interpreter was "
			 "killed" : "no interpreter was running");
		line_put(b, tmp);
		return;
	}
	if (!strcmp(act, "status")) {
		snprintf(tmp, sizeof(tmp), "status: %s, %llu interpreter(s) "
			 "started so far",
			 member_true(j, 0, "ready") ? "an interpreter is ready"
			 : "no interpreter running (the next execute starts "
			 "one)", gen);
		line_put(b, tmp);
		if ((s = member_str(j, 0, "python", &n))) {
			snprintf(tmp, sizeof(tmp), "python %.40s", s);
			line_put(b, tmp);
			free(s);
		}
		line_put(b, "limits: code 64 KiB, timeout 1-120 s (default "
			 "30), output 1 MiB, repr 8 KiB; /scratch is writable, "
			 "/workspace is the project");
		return;
	}
	snprintf(tmp, sizeof(tmp), "%.64s: done", act);
	line_put(b, tmp);
}

void tool_error(struct jw *w, const char *msg)
{
	jw_begin(w);
	jw_key(w, "content");
	jw_raw(w, "[", 1);
	jw_begin(w);
	jw_kstr(w, "type", "text");
	jw_kstr(w, "text", msg);
	jw_end(w);
	jw_raw(w, "]", 1);
	jw_kbool(w, "isError", true);
	jw_end(w);
}

/* The session's plots ("images": [{mimeType, data, bytes}], bounded and
 * checked by the session) as MCP image content. Only base64 text and an
 * image/ type pass; anything else is left to structuredContent. */
static void images(struct jw *w, const struct jv *j)
{
	int arr = jv_get(j, 0, "images");
	uint32_t i;

	if (jv_type(j, arr) != JV_ARR)
		return;
	i = (uint32_t)arr + 1;
	for (uint32_t k = 0; k < j->node[arr].n; k++) {
		int d = jv_get(j, (int)i, "data"), t = jv_get(j, (int)i, "mimeType");
		char mime[64];
		bool ok = jv_type(j, d) == JV_STR &&
			  jv_str(j, t, mime, sizeof(mime)) > 6 &&
			  !strncmp(mime, "image/", 6);

		for (uint32_t c = ok ? j->node[d].start + 1 : 0;
		     ok && c + 1 < j->node[d].end; c++) {
			char ch = j->src[c];

			ok = (ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') ||
			     (ch >= '0' && ch <= '9') || ch == '+' || ch == '/' ||
			     ch == '=';
		}
		if (ok) {
			jw_raw(w, ",", 1);
			jw_begin(w);
			jw_kstr(w, "type", "image");
			jw_key(w, "data");
			jw_raw(w, j->src + j->node[d].start,
			       j->node[d].end - j->node[d].start);
			jw_kstr(w, "mimeType", mime);
			jw_end(w);
		}
		i = j->node[i].next;
	}
}

/* The response object without its "id" (ours, not the model's). */
static void structured(struct jw *w, const struct jv *j,
		       const char *session)
{
	uint32_t i = 1;
	bool first = false;

	jw_key(w, "structuredContent");
	jw_begin(w);
	jw_kstr(w, "session", session);
	for (uint32_t m = 0; m < j->node[0].n; m++) {
		uint32_t v = i + 1;

		if (!jv_is(j, (int)i, "id") && !jv_is(j, (int)i, "session")) {
			if (!first)
				jw_raw(w, ",", 1);
			first = false;
			jw_raw(w, j->src + j->node[i].start,
			       j->node[v].end - j->node[i].start);
		}
		i = j->node[v].next;
	}
	jw_raw(w, "}", 1);
	w->first = false;
}

void tool_result(struct jw *w, const struct jv *jp, const char *note,
		 const char *session)
{
	struct mbuf b = { 0 };
	char act[32], *s;
	struct jv j;
	bool err = true;
	size_t sl;
	int v;

	if (!jp || jv_type(jp, 0) != JV_OBJ) {
		tool_error(w, "the session answered something that is not a "
			   "JSON object (a bug in pysbx)");
		return;
	}
	j = *jp;
	if (note)
		line_put(&b, note);
	if (!member_true(&j, 0, "ok")) {
		int e = jv_get(&j, 0, "error");
		char *m = member_str(&j, e, "message", &sl);

		line_put(&b, "error: ");
		if (m)
			tool_clip(&b, m, sl, 2048, 20);
		free(m);
	} else {
		act[0] = '\0';
		v = jv_get(&j, 0, "action");
		if (jv_str(&j, v, act, sizeof(act)) < 0)
			snprintf(act, sizeof(act), "execute");
		if (!strcmp(act, "execute"))
			execute_text(&b, &j, &err);
		else
			other_text(&b, &j, act, &err);
	}
	jw_begin(w);
	jw_key(w, "content");
	jw_raw(w, "[", 1);
	jw_begin(w);
	jw_kstr(w, "type", "text");
	s = b.p ? b.p : "";
	jw_kbytes(w, "text", s, b.len);
	jw_end(w);
	images(w, &j);
	jw_raw(w, "]", 1);
	structured(w, &j, session);
	jw_kbool(w, "isError", err);
	jw_end(w);
	mbuf_free(&b);
}
