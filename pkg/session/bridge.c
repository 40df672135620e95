/* The tool bridge (docs/SESSION.md, "Tool bridge"): the client declares
 * tools; code inside the sandbox calls them as async functions; each call
 * goes worker -> host (a "call" frame) -> client (a tool_call event) and
 * back (a tool_result request, a "ret" frame).
 *
 * The worker runs user code, so a call frame is hostile input like every
 * other frame: before the client sees a call, the host checks that it
 * belongs to the running execute, names a declared tool, carries a JSON
 * object of arguments within the frame limit and is at most the 16th in
 * flight. A call that fails a check is answered to the worker with an
 * error (Python raises RuntimeError) and never reaches the client. */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "session/host.h"
#include "util/jv.h"

static void mbuf_sink(void *ctx, const char *p, size_t n)
{
	mbuf_put(ctx, p, n);
}

void mbuf_jw(struct jw *w, struct mbuf *b)
{
	jw_init(w, -1);
	w->sink = mbuf_sink;
	w->ctx = b;
}

#define BR_TOOLS_MAX 64
#define BR_NAME_MAX 64
#define BR_DESC_MAX 4096
#define BR_SCHEMA_MAX (32 * 1024)
#define BR_RECORDS_MAX 64
#define BR_PREVIEW 4096
#define BR_NODES 16384
/* Slots for calls in flight: more than the bound, which is the check in
 * br_frame, not the array's end. */
#define BR_SLOTS 64

struct br_tool {
	char name[BR_NAME_MAX + 1];
	char py[BR_NAME_MAX + 2];
};

struct br_call {
	bool live;
	char cid[24];		/* the worker's id of the call */
	unsigned serial;	/* callId "call-N" */
	unsigned rec;		/* its record, or BR_RECORDS_MAX */
	uint64_t t0;
};

struct br_rec {
	unsigned serial;
	char name[BR_NAME_MAX + 1];
	char started[64];
	uint64_t t0;
	long long dur;		/* -1: still running */
	const char *status;
	size_t in_bytes, in_len, out_bytes, out_len;
	char in[BR_PREVIEW], out[BR_PREVIEW];
};

struct bridge {
	size_t ntools;
	struct br_tool tools[BR_TOOLS_MAX];
	char *spec;		/* the declared tools as JSON, for the worker */
	size_t spec_len;
	unsigned spec_gen;	/* the worker generation that has it */
	struct br_call fly[BR_SLOTS];
	unsigned nfly;
	struct br_rec *rec;	/* BR_RECORDS_MAX, mapped */
	unsigned nrec, omitted;
	unsigned serial;
	bool live;		/* an execute runs */
	uint64_t t0;
	char nonce[17];
	const char *reqid;	/* the execute's "id" as JSON text, "" none */
	/* frames to the worker, written as the socket takes them */
	char *out;
	size_t out_len, out_off, out_cap, frame_end;
	bool blocked;		/* another request waits on stdin */
	unsigned dropped;	/* tool_results that matched no call */
	char why[420];		/* the last one refused */
};

static struct jv_node nodes[BR_NODES];

static struct bridge *br_get(struct sess *s)
{
	if (!s->br && (s->br = calloc(1, sizeof(*s->br)))) {
		s->br->rec = mmap(NULL, BR_RECORDS_MAX * sizeof(struct br_rec),
				  PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
				  -1, 0);
		if (s->br->rec == MAP_FAILED) {
			free(s->br);
			s->br = NULL;
		}
	}
	return s->br;
}

/* --- names -------------------------------------------------------------- */

static bool name_ok(const char *s, size_t n)
{
	if (!n || n > BR_NAME_MAX)
		return false;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '_' || c == '-' ||
		      c == '.' || c == ':' || c == '/'))
			return false;
	}
	return true;
}

/* A Python identifier for a tool name: other characters become '_', a
 * leading digit gets a '_' before it, a keyword one after it. */
static void py_name(const char *name, char *py)
{
	static const char *const kw[] = {
		"False", "None", "True", "and", "as", "assert", "async",
		"await", "break", "class", "continue", "def", "del", "elif",
		"else", "except", "finally", "for", "from", "global", "if",
		"import", "in", "is", "lambda", "nonlocal", "not", "or", "pass",
		"raise", "return", "try", "while", "with", "yield",
	};
	size_t k = 0;

	if (name[0] >= '0' && name[0] <= '9')
		py[k++] = '_';
	for (const char *p = name; *p; p++)
		py[k++] = ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
			   (*p >= '0' && *p <= '9')) ? *p : '_';
	py[k] = '\0';
	for (size_t i = 0; i < sizeof(kw) / sizeof(kw[0]); i++)
		if (!strcmp(py, kw[i])) {
			py[k++] = '_';
			py[k] = '\0';
		}
}

/* --- responses ------------------------------------------------------------ */

static void head(struct jw *w, const char *id, bool ok)
{
	jw_begin(w);
	if (id[0]) {
		jw_key(w, "id");
		jw_raw(w, id, strlen(id));
	}
	jw_kbool(w, "ok", ok);
}

static int refuse(struct jw *w, const char *id, const char *code,
		  const char *msg)
{
	head(w, id, false);
	jw_key(w, "error");
	jw_begin(w);
	jw_kstr(w, "code", code);
	jw_kstr(w, "message", msg);
	jw_end(w);
	jw_end(w);
	return jw_flush(w);
}

/* The request's "id" as the session echoes it (a string of at most 127
 * bytes or a number of at most 31 characters), into id. */
static bool id_ok(const struct jv *j, int v, char *id)
{
	size_t n;

	if (v == -1)
		return id[0] = '\0', true;
	if (jv_type(j, v) != JV_STR && jv_type(j, v) != JV_NUM)
		return false;
	n = j->node[v].end - j->node[v].start;
	if (n >= (jv_type(j, v) == JV_STR ? REQ_ID_MAX : 32))
		return false;
	memcpy(id, j->src + j->node[v].start, n);
	id[n] = '\0';
	return true;
}

/* Only these members (each once). -1: msg says which is not. */
static int members(const struct jv *j, const char *const *ok, size_t nok,
		   char *msg, size_t len)
{
	uint32_t i = 1;

	for (uint32_t m = 0; m < j->node[0].n; m++) {
		size_t k;
		char key[64];

		for (k = 0; k < nok; k++)
			if (jv_is(j, (int)i, ok[k]))
				break;
		if (k == nok) {
			if (jv_str(j, (int)i, key, sizeof(key)) < 0)
				snprintf(key, sizeof(key), "?");
			snprintf(msg, len, "unknown field '%s'", key);
			return -1;
		}
		if (jv_get(j, 0, ok[k]) == -2) {
			snprintf(msg, len, "field '%s' given twice", ok[k]);
			return -1;
		}
		i = j->node[i + 1].next;
	}
	return 0;
}

/* --- the tools action ------------------------------------------------------- */

static int declare(struct sess *s, const struct jv *j, const char *id,
		   struct jw *w)
{
	static const char *const ok[] = { "action", "id", "tools" };
	static const char *const tok[] = { "name", "description",
					   "inputSchema" };
	struct bridge *b = br_get(s);
	struct br_tool tools[BR_TOOLS_MAX];
	int arr = jv_get(j, 0, "tools");
	struct mbuf spec = { 0 };
	struct jw sw;
	char msg[256];
	uint32_t i;
	size_t n;

	if (!b)
		return refuse(w, id, "bad_request", "out of memory");
	if (members(j, ok, 3, msg, sizeof(msg)) < 0)
		return refuse(w, id, "bad_field", msg);
	if (jv_type(j, arr) != JV_ARR)
		return refuse(w, id, "bad_field", "tools must be an array of "
			      "{name, description, inputSchema}");
	n = j->node[arr].n;
	if (n > BR_TOOLS_MAX) {
		snprintf(msg, sizeof(msg), "tools has more than %d entries",
			 BR_TOOLS_MAX);
		return refuse(w, id, "bad_field", msg);
	}
	mbuf_jw(&sw, &spec);
	jw_raw(&sw, "[", 1);
	i = (uint32_t)arr + 1;
	for (size_t t = 0; t < n; t++) {
		int o = (int)i, v;
		char name[BR_NAME_MAX + 1];
		long nl;

		if (jv_type(j, o) != JV_OBJ)
			goto bad_tool;
		{
			struct jv sub = *j;
			uint32_t k = (uint32_t)o + 1;

			(void)sub;
			for (uint32_t m = 0; m < j->node[o].n; m++) {
				size_t x;

				for (x = 0; x < 3; x++)
					if (jv_is(j, (int)k, tok[x]))
						break;
				if (x == 3 || jv_get(j, o, tok[x]) == -2)
					goto bad_tool;
				k = j->node[k + 1].next;
			}
		}
		v = jv_get(j, o, "name");
		nl = jv_str(j, v, name, sizeof(name));
		if (nl < 0 || !name_ok(name, (size_t)nl)) {
			mbuf_free(&spec);
			return refuse(w, id, "bad_field", "a tool name is 1 to 64 "
				      "of A-Z a-z 0-9 _ - . : /");
		}
		memcpy(tools[t].name, name, (size_t)nl + 1);
		py_name(name, tools[t].py);
		for (size_t u = 0; u < t; u++)
			if (!strcmp(tools[u].py, tools[t].py) ||
			    !strcmp(tools[u].name, name)) {
				snprintf(msg, sizeof(msg), "tools '%.64s' and "
					 "'%.64s' have the same Python name "
					 "'%.66s'", tools[u].name, name,
					 tools[t].py);
				mbuf_free(&spec);
				return refuse(w, id, "bad_field", msg);
			}
		if (!strcmp(tools[t].py, "available_tools")) {
			mbuf_free(&spec);
			return refuse(w, id, "bad_field", "a tool cannot be "
				      "named available_tools");
		}
		jw_raw(&sw, t ? ",{" : "{", t ? 2 : 1);
		sw.first = true;
		jw_kstr(&sw, "name", tools[t].name);
		jw_kstr(&sw, "py", tools[t].py);
		v = jv_get(j, o, "description");
		if (v >= 0) {
			if (jv_type(j, v) != JV_STR ||
			    j->node[v].end - j->node[v].start > BR_DESC_MAX)
				goto bad_tool;
			jw_key(&sw, "description");
			jw_raw(&sw, j->src + j->node[v].start,
			       j->node[v].end - j->node[v].start);
		}
		v = jv_get(j, o, "inputSchema");
		if (v >= 0) {
			if (jv_type(j, v) != JV_OBJ ||
			    j->node[v].end - j->node[v].start > BR_SCHEMA_MAX)
				goto bad_tool;
			jw_key(&sw, "inputSchema");
			jw_raw(&sw, j->src + j->node[v].start,
			       j->node[v].end - j->node[v].start);
		}
		jw_end(&sw);
		i = j->node[o].next;
	}
	jw_raw(&sw, "]", 1);
	if (sw.len)
		sw.sink(sw.ctx, sw.buf, sw.len);
	if (spec.oom) {
		mbuf_free(&spec);
		return refuse(w, id, "bad_request", "out of memory");
	}
	memcpy(b->tools, tools, n * sizeof(tools[0]));
	b->ntools = n;
	free(b->spec);
	b->spec = malloc(spec.len + 1);
	if (b->spec)
		memcpy(b->spec, spec.p, spec.len);
	b->spec_len = b->spec ? spec.len : 0;
	b->spec_gen = 0;
	mbuf_free(&spec);
	head(w, id, true);
	jw_kstr(w, "action", "tools");
	jw_key(w, "tools");
	jw_raw(w, "[", 1);
	for (size_t t = 0; t < n; t++) {
		if (t)
			jw_raw(w, ",", 1);
		jw_begin(w);
		jw_kstr(w, "name", b->tools[t].name);
		jw_kstr(w, "pythonName", b->tools[t].py);
		jw_end(w);
	}
	jw_raw(w, "]", 1);
	jw_end(w);
	return jw_flush(w);
bad_tool:
	mbuf_free(&spec);
	return refuse(w, id, "bad_field", "a tool is an object with name (a "
		      "string), description (a string, at most 4 KiB) and "
		      "inputSchema (an object, at most 32 KiB), nothing else");
}

/* --- frames to the worker ----------------------------------------------- */

/* Queue one frame ("ret": cid and ok or err) for the worker. */
static void ret_frame(struct bridge *b, const char *cid, bool ok,
		      const char *v, size_t vl)
{
	struct mbuf pl = { 0 }, fr = { 0 };
	char hdr[24];
	size_t need;

	/* Netstrings of netstrings (frame.c), built without a size cap:
	 * the worker reads what the host sends without limits. */
	const char *kv[][2] = { { "t", "ret" }, { "cid", cid },
				{ ok ? "ok" : "err", NULL } };
	for (int k = 0; k < 3; k++) {
		const char *val = kv[k][1] ? kv[k][1] : v;
		size_t len = kv[k][1] ? strlen(kv[k][1]) : vl;
		int h;

		h = snprintf(hdr, sizeof(hdr), "%zu:", strlen(kv[k][0]));
		mbuf_put(&pl, hdr, (size_t)h);
		mbuf_put(&pl, kv[k][0], strlen(kv[k][0]));
		mbuf_put(&pl, ",", 1);
		h = snprintf(hdr, sizeof(hdr), "%zu:", len);
		mbuf_put(&pl, hdr, (size_t)h);
		mbuf_put(&pl, val, len);
		mbuf_put(&pl, ",", 1);
	}
	snprintf(hdr, sizeof(hdr), "%zu:", pl.len);
	mbuf_put(&fr, hdr, strlen(hdr));
	mbuf_put(&fr, pl.p, pl.len);
	mbuf_put(&fr, ",", 1);
	mbuf_free(&pl);
	if (fr.oom)
		return mbuf_free(&fr);
	/* Sent bytes go first. */
	if (b->out_off && b->out_off == b->out_len)
		b->out_off = b->out_len = b->frame_end = 0;
	need = b->out_len + fr.len;
	if (need > b->out_cap) {
		char *np = realloc(b->out, need);

		if (!np)
			return mbuf_free(&fr);
		b->out = np;
		b->out_cap = need;
	}
	memcpy(b->out + b->out_len, fr.p, fr.len);
	b->out_len += fr.len;
	mbuf_free(&fr);
}

bool br_want_write(const struct sess *s)
{
	return s->br && s->br->out_off < s->br->out_len;
}

void br_flush(struct sess *s)
{
	struct bridge *b = s->br;

	while (b && b->out_off < b->out_len && s->sock >= 0) {
		ssize_t k = write(s->sock, b->out + b->out_off,
				  b->out_len - b->out_off);

		if (k <= 0)
			return;
		b->out_off += (size_t)k;
	}
}

/* --- records -------------------------------------------------------------- */

static void preview(char *dst, size_t *len, size_t *bytes, const char *p,
		    size_t n)
{
	size_t k = n;

	*bytes = n;
	if (k > BR_PREVIEW) {
		k = BR_PREVIEW;
		/* Not inside a UTF-8 sequence. */
		while (k && ((unsigned char)p[k] & 0xc0) == 0x80)
			k--;
	}
	memcpy(dst, p, k);
	*len = k;
}

static unsigned record(struct bridge *b, const char *name, size_t nl,
		       const char *args, size_t al)
{
	struct br_rec *r;
	struct timespec ts;
	struct tm tm;

	if (b->nrec == BR_RECORDS_MAX) {
		b->omitted++;
		return BR_RECORDS_MAX;
	}
	r = &b->rec[b->nrec];
	memset(r, 0, offsetof(struct br_rec, in));
	r->serial = ++b->serial;
	if (nl > BR_NAME_MAX)
		nl = BR_NAME_MAX;
	memcpy(r->name, name, nl);
	r->name[nl] = '\0';
	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	snprintf(r->started, sizeof(r->started),
		 "%04d-%02d-%02dT%02d:%02d:%02d.%03ldZ", tm.tm_year + 1900,
		 tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
		 (ts.tv_nsec / 1000000) % 1000);
	r->t0 = now_ms();
	r->dur = -1;
	r->status = "running";
	preview(r->in, &r->in_len, &r->in_bytes, args, al);
	return b->nrec++;
}

static void finish(struct bridge *b, unsigned rec, const char *status,
		   const char *p, size_t n)
{
	struct br_rec *r;

	if (rec >= b->nrec)
		return;
	r = &b->rec[rec];
	r->status = status;
	r->dur = (long long)(now_ms() - r->t0);
	preview(r->out, &r->out_len, &r->out_bytes, p, n);
}

/* --- a call from the worker ------------------------------------------------ */

/* Refuse a call: the worker gets an error (Python raises RuntimeError
 * with it); the client never hears of it. */
static void refuse_call(struct bridge *b, const char *cid, unsigned rec,
			const char *msg)
{
	ret_frame(b, cid, false, msg, strlen(msg));
	finish(b, rec, "refused", msg, strlen(msg));
}

int br_frame(struct sess *s, const struct frame *f)
{
	struct bridge *b = s->br;
	const char *t, *id, *cid, *name, *args;
	size_t tl, il, cl, nl, al;
	char cidbuf[24], msg[200];
	struct br_call *c = NULL;
	unsigned rec;
	struct jv j;
	int tool = -1;

	t = frame_get(f, "t", &tl);
	if (!t || tl != 4 || memcmp(t, "call", 4))
		return -1;
	id = frame_get(f, "id", &il);
	cid = frame_get(f, "cid", &cl);
	name = frame_get(f, "name", &nl);
	args = frame_get(f, "args", &al);
	/* Without a cid nothing can be answered: the channel is broken. */
	if (!cid || !cl || cl >= sizeof(cidbuf) || f->n > 5)
		return -2;
	for (size_t i = 0; i < cl; i++)
		if (cid[i] < '0' || cid[i] > '9')
			return -2;
	memcpy(cidbuf, cid, cl);
	cidbuf[cl] = '\0';
	if (!b || !b->live)
		return -2;
	rec = record(b, name ? name : "", name ? nl : 0, args ? args : "",
		     args ? al : 0);
	if (!id || il != 16 || memcmp(id, b->nonce, 16))
		return refuse_call(b, cidbuf, rec, "a call outside the "
				   "running execute"), 0;
	for (unsigned i = 0; i < BR_SLOTS; i++)
		if (b->fly[i].live && !strcmp(b->fly[i].cid, cidbuf))
			return refuse_call(b, cidbuf, rec, "a call id "
					   "already in flight"), 0;
	for (size_t i = 0; name && i < b->ntools; i++)
		if (strlen(b->tools[i].name) == nl &&
		    !memcmp(b->tools[i].name, name, nl))
			tool = (int)i;
	if (tool < 0) {
		snprintf(msg, sizeof(msg), "no tool named '%.*s' is declared",
			 name ? (int)(nl > 64 ? 64 : nl) : 0, name ? name : "");
		return refuse_call(b, cidbuf, rec, msg), 0;
	}
	if (!args || al > SESS_FRAME_MAX ||
	    jv_parse(&j, args, al, nodes, BR_NODES) < 0 ||
	    jv_type(&j, 0) != JV_OBJ)
		return refuse_call(b, cidbuf, rec, "the arguments are not a "
				   "JSON object (at most 128 KiB)"), 0;
	if (b->nfly >= BR_INFLIGHT_MAX) {
		snprintf(msg, sizeof(msg), "more than %d bridged calls in "
			 "flight", BR_INFLIGHT_MAX);
		return refuse_call(b, cidbuf, rec, msg), 0;
	}
	for (unsigned i = 0; i < BR_SLOTS; i++)
		if (!b->fly[i].live) {
			c = &b->fly[i];
			break;
		}
	c->live = true;
	memcpy(c->cid, cidbuf, cl + 1);
	c->serial = rec < BR_RECORDS_MAX ? b->rec[rec].serial : ++b->serial;
	c->rec = rec;
	b->nfly++;
	/* The client's turn. */
	jw_begin(s->w);
	jw_kstr(s->w, "event", "tool_call");
	jw_key(s->w, "id");
	if (b->reqid && b->reqid[0])
		jw_raw(s->w, b->reqid, strlen(b->reqid));
	else
		jw_raw(s->w, "null", 4);
	snprintf(msg, sizeof(msg), "call-%u", c->serial);
	jw_kstr(s->w, "callId", msg);
	jw_kstr(s->w, "name", b->tools[tool].name);
	jw_key(s->w, "arguments");
	jw_raw(s->w, args, al);
	jw_end(s->w);
	jw_flush(s->w);
	return 0;
}

/* --- a tool_result from the client --------------------------------------------- */

static void note_drop(struct bridge *b, const char *why)
{
	b->dropped++;
	snprintf(b->why, sizeof(b->why), "%s", why);
}

static void tool_result(struct sess *s, const struct jv *j)
{
	static const char *const ok[] = { "action", "callId", "content",
					  "error" };
	struct bridge *b = br_get(s);
	int vid = jv_get(j, 0, "callId"), vc = jv_get(j, 0, "content");
	int ve = jv_get(j, 0, "error");
	char callid[40], msg[400];
	struct mbuf v = { 0 };
	struct br_call *c = NULL;

	if (!b)
		return;
	if (members(j, ok, 4, msg, sizeof(msg)) < 0)
		return note_drop(b, msg);
	if (jv_str(j, vid, callid, sizeof(callid)) < 0)
		return note_drop(b, "a tool_result without a callId");
	if ((vc >= 0) == (ve >= 0) || jv_type(j, vc >= 0 ? vc : ve) != JV_STR)
		return note_drop(b, "a tool_result needs content or error (a "
				 "string), not both");
	for (unsigned i = 0; b->live && i < BR_SLOTS; i++) {
		char name[40];

		snprintf(name, sizeof(name), "call-%u", b->fly[i].serial);
		if (b->fly[i].live && !strcmp(name, callid))
			c = &b->fly[i];
	}
	if (!c)
		return note_drop(b, "a tool_result for no call in flight "
				 "(ended, or never made)");
	if (jv_mbuf(j, vc >= 0 ? vc : ve, &v) < 0)
		return note_drop(b, "out of memory");
	ret_frame(b, c->cid, vc >= 0, v.p, v.len);
	finish(b, c->rec, vc >= 0 ? "ok" : "error", v.p, v.len);
	mbuf_free(&v);
	c->live = false;
	b->nfly--;
	br_flush(s);
}

/* Is line a request of the bridge's? 1: tools (answered) or tool_result
 * (taken), 0: not one (for req_parse), -1: the caller is gone. */
int br_request(struct sess *s, const char *line, size_t n, struct jw *w)
{
	struct jv j;
	char id[REQ_ID_MAX];
	int a;

	/* Cheap: most requests are not the bridge's. */
	if (!memmem(line, n, "tool", 4))
		return 0;
	if (jv_parse(&j, line, n, nodes, BR_NODES) < 0 ||
	    jv_type(&j, 0) != JV_OBJ)
		return 0;
	a = jv_get(&j, 0, "action");
	if (jv_is(&j, a, "tool_result")) {
		tool_result(s, &j);
		return 1;
	}
	if (!jv_is(&j, a, "tools"))
		return 0;
	if (!id_ok(&j, jv_get(&j, 0, "id"), id))
		return refuse(w, "", "bad_field", "id must be a string (at "
			      "most 127 bytes) or a number") < 0 ? -1 : 1;
	return declare(s, &j, id, w) < 0 ? -1 : 1;
}

/* --- while an execute runs ------------------------------------------------------- */

bool br_want_input(const struct sess *s)
{
	return s->br && s->br->live && s->br->nfly && !s->br->blocked &&
	       !s->inb->eof;
}

void br_input(struct sess *s)
{
	struct inbuf *in = s->inb;
	ssize_t k;

	k = read(0, in->p + in->len, SESS_FRAME_MAX - in->len);
	if (k == 0)
		in->eof = true;
	if (k > 0)
		in->len += (size_t)k;
	br_take(s);
}

void br_take(struct sess *s)
{
	struct inbuf *in = s->inb;
	struct bridge *b = s->br;

	if (!b)
		return;
	/* tool_result lines are the bridge's, wherever they are; any other
	 * line waits, in its place, for the end of the execute. */
	for (size_t off = in->busy; off < in->len;) {
		char *p = in->p + off, *nl = memchr(p, '\n', in->len - off);
		size_t l;
		struct jv j;

		if (!nl)
			break;
		l = (size_t)(nl - p);
		if (jv_parse(&j, p, l, nodes, BR_NODES) < 0 ||
		    jv_type(&j, 0) != JV_OBJ ||
		    !jv_is(&j, jv_get(&j, 0, "action"), "tool_result")) {
			off += l + 1;
			continue;
		}
		tool_result(s, &j);
		memmove(p, nl + 1, in->len - off - l - 1);
		in->len -= l + 1;
	}
	if (in->len == SESS_FRAME_MAX)
		b->blocked = true;
	if (in->eof) {
		/* Nobody will answer: the calls in flight fail now. */
		static const char m[] = "the client closed its input";

		for (unsigned i = 0; i < BR_SLOTS; i++) {
			struct br_call *c = &b->fly[i];

			if (!c->live)
				continue;
			ret_frame(b, c->cid, false, m, sizeof(m) - 1);
			finish(b, c->rec, "error", m, sizeof(m) - 1);
			c->live = false;
		}
		b->nfly = 0;
		br_flush(s);
	}
}

/* The frames the worker needs before an execute: the declared tools, if
 * this worker has not had them. Appended to out. */
void br_begin(struct sess *s, const char *nonce, const char *reqid,
	      struct mbuf *pre)
{
	struct bridge *b = br_get(s);
	char hdr[24];
	struct mbuf pl = { 0 };

	if (!b)
		return;
	b->live = true;
	b->t0 = now_ms();
	b->nrec = b->omitted = 0;
	b->nfly = 0;
	b->blocked = false;
	memcpy(b->nonce, nonce, 16);
	b->nonce[16] = '\0';
	b->reqid = reqid;
	memset(b->fly, 0, sizeof(b->fly));
	/* The rest of a frame cut by the end of the last execute first. */
	if (b->out_off < b->frame_end)
		mbuf_put(pre, b->out + b->out_off, b->frame_end - b->out_off);
	b->out_off = b->out_len = b->frame_end = 0;
	if (s->inb && s->inb->eof)
		b->nfly = 0;
	if (!b->spec || b->spec_gen == s->gen)
		return;
	b->spec_gen = s->gen;
	mbuf_put(&pl, "1:t,5:tools,4:json,", 19);
	snprintf(hdr, sizeof(hdr), "%zu:", b->spec_len);
	mbuf_put(&pl, hdr, strlen(hdr));
	mbuf_put(&pl, b->spec, b->spec_len);
	mbuf_put(&pl, ",", 1);
	snprintf(hdr, sizeof(hdr), "%zu:", pl.len);
	mbuf_put(pre, hdr, strlen(hdr));
	mbuf_put(pre, pl.p, pl.len);
	mbuf_put(pre, ",", 1);
	mbuf_free(&pl);
}

/* The execute ended (status): calls still in flight are over; frames
 * not yet sent are dropped, but for the rest of one already begun. */
void br_end(struct sess *s, const char *status)
{
	struct bridge *b = s->br;
	static const char m[] = "the execute ended before the tool answered";
	const char *st;

	if (!b || !b->live)
		return;
	st = !strcmp(status, "timeout") ? "timeout" :
	     !strcmp(status, "cancelled") ? "cancelled" : "abandoned";
	for (unsigned i = 0; i < BR_SLOTS; i++)
		if (b->fly[i].live) {
			finish(b, b->fly[i].rec, st, m, sizeof(m) - 1);
			b->fly[i].live = false;
		}
	b->nfly = 0;
	b->live = false;
	/* A frame begun stays whole (the worker ignores a late "ret");
	 * those not begun are dropped. */
	b->frame_end = 0;
	if (s->sock >= 0 && b->out_off < b->out_len) {
		size_t off = 0;

		while (off <= b->out_off && off < b->out_len) {
			size_t n = strtoul(b->out + off, NULL, 10);
			size_t end = off + (size_t)(strchr(b->out + off, ':') -
						    (b->out + off)) + 2 + n;

			if (b->out_off < end) {
				b->frame_end = b->out_off > off ? end : 0;
				break;
			}
			off = end;
		}
	}
	if (!b->frame_end)
		b->out_off = b->out_len = 0;
	if (b->dropped) {
		size_t l = strlen(s->notice);

		snprintf(s->notice + l, sizeof(s->notice) - l, "%s%u "
			 "tool_result(s) dropped (%s)", l ? "\n" : "",
			 b->dropped, b->why);
		b->dropped = 0;
	}
}

/* nestedCalls (and nestedCallsOmitted) of the execute's response. */
void br_report(struct sess *s, struct jw *w)
{
	struct bridge *b = s->br;

	jw_key(w, "nestedCalls");
	jw_raw(w, "[", 1);
	for (unsigned i = 0; b && i < b->nrec; i++) {
		struct br_rec *r = &b->rec[i];
		char id[24];

		if (i)
			jw_raw(w, ",", 1);
		jw_begin(w);
		snprintf(id, sizeof(id), "call-%u", r->serial);
		jw_kstr(w, "callId", id);
		jw_kstr(w, "name", r->name);
		jw_kstr(w, "startedAt", r->started);
		jw_knum(w, "startMs", (long long)(r->t0 - b->t0));
		jw_knum(w, "durationMs", r->dur < 0 ? 0 : r->dur);
		jw_kstr(w, "status", r->status);
		jw_kbytes(w, "input", r->in, r->in_len);
		jw_knum(w, "inputBytes", (long long)r->in_bytes);
		jw_kbool(w, "inputTruncated", r->in_len < r->in_bytes);
		jw_kbytes(w, "result", r->out, r->out_len);
		jw_knum(w, "resultBytes", (long long)r->out_bytes);
		jw_kbool(w, "resultTruncated", r->out_len < r->out_bytes);
		jw_end(w);
	}
	jw_raw(w, "]", 1);
	if (b && b->omitted)
		jw_knum(w, "nestedCallsOmitted", b->omitted);
}

void br_free(struct sess *s)
{
	struct bridge *b = s->br;

	if (!b)
		return;
	free(b->spec);
	free(b->out);
	munmap(b->rec, BR_RECORDS_MAX * sizeof(struct br_rec));
	free(b);
	s->br = NULL;
}
