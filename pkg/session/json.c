/* The caller's side of the protocol: one JSON object a line in, one out.
 *
 * Requests are parsed strictly (RFC 8259 syntax, UTF-8 only, no duplicate
 * or unknown member, bounded nesting) and decoded in place: a decoded
 * string is never longer than its JSON text, so it is written over it.
 * Responses turn arbitrary bytes (the sandbox's output) into valid JSON
 * strings: invalid UTF-8 becomes U+FFFD, byte by byte. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "session/session.h"

#define DEPTH_MAX 16

struct rd {
	char *p, *end;
	const char *code;	/* error code */
	char *msg;
	size_t msglen;
};

static int fail(struct rd *r, const char *code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(struct rd *r, const char *code, const char *fmt, ...)
{
	va_list ap;

	if (r->code)
		return -1;	/* the first failure is the one reported */
	r->code = code;
	va_start(ap, fmt);
	vsnprintf(r->msg, r->msglen, fmt, ap);
	va_end(ap);
	return -1;
}

static void ws(struct rd *r)
{
	while (r->p < r->end && (*r->p == ' ' || *r->p == '\t' ||
				 *r->p == '\r' || *r->p == '\n'))
		r->p++;
}

/* The length of the UTF-8 sequence at s (at most n bytes), 0 if invalid
 * (overlong, surrogate, past U+10FFFF, truncated). */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	unsigned char c = s[0], lo = 0x80, hi = 0xbf;
	size_t k;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		k = 2;
	else if (c >= 0xe0 && c <= 0xef) {
		k = 3;
		if (c == 0xe0)
			lo = 0xa0;
		else if (c == 0xed)
			hi = 0x9f;
	} else if (c >= 0xf0 && c <= 0xf4) {
		k = 4;
		if (c == 0xf0)
			lo = 0x90;
		else if (c == 0xf4)
			hi = 0x8f;
	} else
		return 0;
	if (n < k || s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < k; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return k;
}

static int hex4(const char *p, unsigned *v)
{
	*v = 0;
	for (int i = 0; i < 4; i++) {
		char c = p[i];

		*v <<= 4;
		if (c >= '0' && c <= '9')
			*v |= (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			*v |= (unsigned)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			*v |= (unsigned)(c - 'A' + 10);
		else
			return -1;
	}
	return 0;
}

static char *put_utf8(char *w, unsigned cp)
{
	if (cp < 0x80) {
		*w++ = (char)cp;
	} else if (cp < 0x800) {
		*w++ = (char)(0xc0 | cp >> 6);
		*w++ = (char)(0x80 | (cp & 0x3f));
	} else if (cp < 0x10000) {
		*w++ = (char)(0xe0 | cp >> 12);
		*w++ = (char)(0x80 | ((cp >> 6) & 0x3f));
		*w++ = (char)(0x80 | (cp & 0x3f));
	} else {
		*w++ = (char)(0xf0 | cp >> 18);
		*w++ = (char)(0x80 | ((cp >> 12) & 0x3f));
		*w++ = (char)(0x80 | ((cp >> 6) & 0x3f));
		*w++ = (char)(0x80 | (cp & 0x3f));
	}
	return w;
}

/* A string at r->p (the opening quote), decoded in place. *out points to
 * the decoded bytes (NUL-terminated), *len their number; raw (if not
 * NULL) gets the JSON text, quotes included. */
static int string(struct rd *r, char **out, size_t *len, char **raw,
		  size_t *rawlen)
{
	char *start = r->p, *w;
	unsigned cp, lo;

	r->p++;
	w = r->p;
	*out = w;
	/* Find the end first, so that raw can be copied before the text
	 * is decoded over itself. */
	for (char *q = r->p;; q++) {
		if (q >= r->end)
			return fail(r, "bad_request", "a string is not closed");
		if (*q == '\\') {
			q++;
			if (q >= r->end)
				return fail(r, "bad_request",
					    "a string is not closed");
		} else if (*q == '"') {
			if (raw) {
				*raw = start;
				*rawlen = (size_t)(q + 1 - start);
			}
			break;
		}
	}
	if (raw) {
		r->p = start;	/* the caller copies raw, then decodes */
		return 0;
	}
	while (*r->p != '"') {
		unsigned char c = (unsigned char)*r->p;
		size_t k;

		if (c < 0x20)
			return fail(r, "bad_request", "a string holds a raw "
				    "control character (escape it)");
		if (c != '\\') {
			k = utf8_len((unsigned char *)r->p,
				     (size_t)(r->end - r->p));
			if (!k)
				return fail(r, "bad_request",
					    "a string is not valid UTF-8");
			memmove(w, r->p, k);
			w += k;
			r->p += k;
			continue;
		}
		r->p++;
		switch (*r->p++) {
		case '"': *w++ = '"'; continue;
		case '\\': *w++ = '\\'; continue;
		case '/': *w++ = '/'; continue;
		case 'b': *w++ = '\b'; continue;
		case 'f': *w++ = '\f'; continue;
		case 'n': *w++ = '\n'; continue;
		case 'r': *w++ = '\r'; continue;
		case 't': *w++ = '\t'; continue;
		case 'u': break;
		default:
			return fail(r, "bad_request", "a string has an "
				    "invalid escape");
		}
		if (r->end - r->p < 4 || hex4(r->p, &cp) < 0)
			return fail(r, "bad_request", "a \\u escape needs "
				    "four hex digits");
		r->p += 4;
		if (cp >= 0xdc00 && cp <= 0xdfff)
			return fail(r, "bad_request", "a string has a lone "
				    "low surrogate");
		if (cp >= 0xd800 && cp <= 0xdbff) {
			if (r->end - r->p < 6 || r->p[0] != '\\' ||
			    r->p[1] != 'u' || hex4(r->p + 2, &lo) < 0 ||
			    lo < 0xdc00 || lo > 0xdfff)
				return fail(r, "bad_request", "a string has a "
					    "lone high surrogate");
			r->p += 6;
			cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
		}
		w = put_utf8(w, cp);
	}
	r->p++;
	*len = (size_t)(w - *out);
	*w = '\0';	/* at most at the closing quote: already read */
	return 0;
}

static int decode(struct rd *r, char **out, size_t *len)
{
	return string(r, out, len, NULL, NULL);
}

static int number(struct rd *r, char **s, size_t *len)
{
	char *p = r->p;

	*s = p;
	if (p < r->end && *p == '-')
		p++;
	if (p < r->end && *p == '0')
		p++;
	else if (p < r->end && *p >= '1' && *p <= '9')
		while (p < r->end && *p >= '0' && *p <= '9')
			p++;
	else
		return fail(r, "bad_request", "a value is not valid JSON");
	if (p < r->end && *p == '.') {
		if (++p >= r->end || *p < '0' || *p > '9')
			return fail(r, "bad_request", "a number has no digits "
				    "after its point");
		while (p < r->end && *p >= '0' && *p <= '9')
			p++;
	}
	if (p < r->end && (*p == 'e' || *p == 'E')) {
		p++;
		if (p < r->end && (*p == '+' || *p == '-'))
			p++;
		if (p >= r->end || *p < '0' || *p > '9')
			return fail(r, "bad_request", "a number has no digits "
				    "in its exponent");
		while (p < r->end && *p >= '0' && *p <= '9')
			p++;
	}
	*len = (size_t)(p - *s);
	r->p = p;
	return 0;
}

static int word(struct rd *r, const char *w)
{
	size_t n = strlen(w);

	if ((size_t)(r->end - r->p) < n || memcmp(r->p, w, n))
		return fail(r, "bad_request", "a value is not valid JSON");
	r->p += n;
	return 0;
}

/* Any value, checked and skipped. */
static int value(struct rd *r, int depth)
{
	char *s;
	size_t n;

	if (depth > DEPTH_MAX)
		return fail(r, "bad_request", "values nest deeper than %d",
			    DEPTH_MAX);
	ws(r);
	if (r->p >= r->end)
		return fail(r, "bad_request", "a value is missing");
	switch (*r->p) {
	case '"':
		return decode(r, &s, &n);
	case 't':
		return word(r, "true");
	case 'f':
		return word(r, "false");
	case 'n':
		return word(r, "null");
	case '[':
	case '{': {
		char close = *r->p == '[' ? ']' : '}';

		r->p++;
		ws(r);
		if (r->p < r->end && *r->p == close) {
			r->p++;
			return 0;
		}
		for (;;) {
			if (close == '}') {
				ws(r);
				if (r->p >= r->end || *r->p != '"' ||
				    decode(r, &s, &n) < 0)
					return fail(r, "bad_request",
						    "an object's key is not "
						    "a string");
				ws(r);
				if (r->p >= r->end || *r->p++ != ':')
					return fail(r, "bad_request",
						    "a key has no ':'");
			}
			if (value(r, depth + 1) < 0)
				return -1;
			ws(r);
			if (r->p < r->end && *r->p == ',') {
				r->p++;
				continue;
			}
			if (r->p < r->end && *r->p == close) {
				r->p++;
				return 0;
			}
			return fail(r, "bad_request", "a ',' or '%c' is "
				    "missing", close);
		}
	}
	default:
		return number(r, &s, &n);
	}
}

static int boolean(struct rd *r, const char *key, bool *b)
{
	ws(r);
	if (r->p < r->end && *r->p == 't' && word(r, "true") == 0)
		return *b = true, 0;
	if (r->p < r->end && *r->p == 'f' && word(r, "false") == 0)
		return *b = false, 0;
	return fail(r, "bad_field", "%s must be true or false", key);
}

static int timeout(struct rd *r, struct request *q)
{
	char buf[40], *s, *e;
	size_t n;
	double v;

	ws(r);
	if (r->p >= r->end || !(*r->p == '-' || (*r->p >= '0' &&
						 *r->p <= '9')))
		return fail(r, "bad_field", "timeoutSeconds must be a number "
			    "from 1 to %d", SESS_TIMEOUT_MAX);
	if (number(r, &s, &n) < 0)
		return -1;
	if (n >= sizeof(buf))
		return fail(r, "bad_field", "timeoutSeconds must be a number "
			    "from 1 to %d", SESS_TIMEOUT_MAX);
	memcpy(buf, s, n);
	buf[n] = '\0';
	errno = 0;
	v = strtod(buf, &e);
	if (*e || !isfinite(v) || v < 1 || v > SESS_TIMEOUT_MAX)
		return fail(r, "bad_field", "timeoutSeconds must be a number "
			    "from 1 to %d", SESS_TIMEOUT_MAX);
	q->timeout_ms = (unsigned)(v * 1000);
	return 0;
}

static int id(struct rd *r, struct request *q)
{
	char *raw, *s;
	size_t n;

	ws(r);
	if (r->p < r->end && *r->p == '"') {
		if (string(r, &s, &n, &raw, &n) < 0)
			return -1;
		if (n >= sizeof(q->id))
			return fail(r, "bad_field", "id is longer than %zu "
				    "bytes", sizeof(q->id) - 1);
		/* Validated by decoding: then it is written back verbatim. */
		memcpy(q->id, raw, n);
		q->id[n] = '\0';
		if (decode(r, &s, &n) < 0) {
			q->id[0] = '\0';
			return -1;
		}
		return 0;
	}
	if (r->p < r->end && (*r->p == '-' || (*r->p >= '0' && *r->p <= '9'))) {
		if (number(r, &s, &n) < 0)
			return -1;
		if (n >= 32)
			return fail(r, "bad_field", "id is a number longer than "
				    "31 characters");
		memcpy(q->id, s, n);
		q->id[n] = '\0';
		return 0;
	}
	return fail(r, "bad_field", "id must be a string or a number");
}

static int roots(struct rd *r, struct request *q)
{
	char *s;
	size_t n;

	ws(r);
	if (r->p >= r->end || *r->p != '[')
		return fail(r, "bad_field", "readRoots must be an array of "
			    "strings");
	r->p++;
	ws(r);
	q->roots_given = true;
	if (r->p < r->end && *r->p == ']')
		return r->p++, 0;
	for (;;) {
		ws(r);
		if (r->p >= r->end || *r->p != '"')
			return fail(r, "bad_field", "readRoots must be an "
				    "array of strings");
		if (decode(r, &s, &n) < 0)
			return -1;
		if (q->nroots == REQ_ROOTS_MAX)
			return fail(r, "bad_field", "readRoots has more than "
				    "%d entries", REQ_ROOTS_MAX);
		if (strlen(s) != n)
			return fail(r, "bad_field", "a read root holds a NUL");
		q->roots[q->nroots++] = s;
		ws(r);
		if (r->p < r->end && *r->p == ',') {
			r->p++;
			continue;
		}
		if (r->p < r->end && *r->p == ']')
			return r->p++, 0;
		return fail(r, "bad_request", "a ',' or ']' is missing");
	}
}

enum {
	F_ACTION = 1 << 0, F_ID = 1 << 1, F_CODE = 1 << 2, F_TIMEOUT = 1 << 3,
	F_FRESH = 1 << 4, F_WS = 1 << 5, F_ROOTS = 1 << 6,
};

static const struct {
	const char *name;
	unsigned bit;
} fields[] = {
	{ "action", F_ACTION }, { "id", F_ID }, { "code", F_CODE },
	{ "timeoutSeconds", F_TIMEOUT }, { "fresh", F_FRESH },
	{ "workspaceWritable", F_WS }, { "readRoots", F_ROOTS },
};

static int member(struct rd *r, struct request *q, const char *key,
		  unsigned bit, char **action)
{
	size_t n;
	bool b;

	switch (bit) {
	case F_ACTION:
		ws(r);
		if (r->p >= r->end || *r->p != '"')
			return fail(r, "bad_field", "action must be a string");
		return decode(r, action, &n);
	case F_ID:
		return id(r, q);
	case F_CODE:
		ws(r);
		if (r->p >= r->end || *r->p != '"')
			return fail(r, "bad_field", "code must be a string");
		return decode(r, &q->code, &q->code_len);
	case F_TIMEOUT:
		return timeout(r, q);
	case F_FRESH:
		return boolean(r, key, &q->fresh);
	case F_WS:
		if (boolean(r, key, &b) < 0)
			return -1;
		q->ws_writable = b;
		return 0;
	default:
		return roots(r, q);
	}
}

/* Which members each action takes (besides action and id). */
static unsigned allowed(enum req_action a)
{
	switch (a) {
	case REQ_EXECUTE:
		return F_CODE | F_TIMEOUT | F_FRESH;
	case REQ_MOUNTS:
		return F_WS | F_ROOTS;
	default:
		return 0;
	}
}

static int object(struct rd *r, struct request *q, unsigned *seen,
		  char **action)
{
	char *key;
	size_t n, i;

	ws(r);
	if (r->p >= r->end || *r->p++ != '{')
		return fail(r, "bad_request", "a request is a JSON object");
	ws(r);
	if (r->p < r->end && *r->p == '}')
		return r->p++, 0;
	for (;;) {
		ws(r);
		if (r->p >= r->end || *r->p != '"')
			return fail(r, "bad_request", "an object's key is not "
				    "a string");
		if (decode(r, &key, &n) < 0)
			return -1;
		ws(r);
		if (r->p >= r->end || *r->p++ != ':')
			return fail(r, "bad_request", "a key has no ':'");
		for (i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
			if (strlen(fields[i].name) == n &&
			    !memcmp(fields[i].name, key, n))
				break;
		if (i == sizeof(fields) / sizeof(fields[0])) {
			/* Still parsed: a broken line is bad_request. */
			if (value(r, 1) < 0)
				return -1;
			return fail(r, "bad_field", "unknown field '%.64s'",
				    key);
		}
		if (*seen & fields[i].bit)
			return fail(r, "bad_request", "field '%s' given twice",
				    fields[i].name);
		*seen |= fields[i].bit;
		if (member(r, q, fields[i].name, fields[i].bit, action) < 0)
			return -1;
		ws(r);
		if (r->p < r->end && *r->p == ',') {
			r->p++;
			continue;
		}
		if (r->p < r->end && *r->p == '}')
			return r->p++, 0;
		return fail(r, "bad_request", "a ',' or '}' is missing");
	}
}

int req_parse(char *line, size_t n, struct request *q, const char **code,
	      char *msg, size_t msglen)
{
	static const char *const names[] = { "execute", "reset", "status",
					     "mounts" };
	struct rd r = { line, line + n, NULL, msg, msglen };
	char *action = NULL;
	unsigned seen = 0, extra;
	size_t i;

	memset(q, 0, sizeof(*q));
	q->ws_writable = -1;
	q->timeout_ms = SESS_TIMEOUT_DEFAULT * 1000;
	msg[0] = '\0';
	if (object(&r, q, &seen, &action) == 0) {
		ws(&r);
		if (r.p != r.end)
			fail(&r, "bad_request", "text after the request's "
			     "object");
	}
	if (r.code)
		goto bad;
	q->action = REQ_EXECUTE;
	if (action) {
		for (i = 0; i < 4; i++)
			if (!strcmp(action, names[i]))
				break;
		if (i == 4) {
			fail(&r, "unknown_action", "unknown action '%.64s' "
			     "(use execute, reset, status or mounts)", action);
			goto bad;
		}
		q->action = (enum req_action)i;
	}
	extra = seen & ~(F_ACTION | F_ID) & ~allowed(q->action);
	for (i = 0; extra && i < sizeof(fields) / sizeof(fields[0]); i++)
		if (extra & fields[i].bit) {
			fail(&r, "bad_field", "%s does not take '%s'",
			     names[q->action], fields[i].name);
			goto bad;
		}
	if (q->action == REQ_EXECUTE && !q->code) {
		fail(&r, "bad_field", "execute needs code (a string)");
		goto bad;
	}
	if (q->action == REQ_EXECUTE && q->code_len > SESS_SOURCE_MAX) {
		fail(&r, "code_too_large", "code is %zu bytes, more than the "
		     "limit of %d", q->code_len, SESS_SOURCE_MAX);
		goto bad;
	}
	return 0;
bad:
	*code = r.code;
	return -1;
}

/* --- the writer ------------------------------------------------------ */

void jw_init(struct jw *w, int fd)
{
	w->fd = fd;
	w->err = 0;
	w->sink = NULL;
	w->ctx = NULL;
	w->first = true;
	w->len = 0;
}

static void drain(struct jw *w)
{
	size_t off = 0;

	if (w->sink) {
		w->sink(w->ctx, w->buf, w->len);
		w->len = 0;
		return;
	}
	while (off < w->len && !w->err) {
		ssize_t k = write(w->fd, w->buf + off, w->len - off);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			w->err = k < 0 ? errno : EIO;
		else
			off += (size_t)k;
	}
	w->len = 0;
}

void jw_raw(struct jw *w, const char *s, size_t n)
{
	while (n) {
		size_t k = sizeof(w->buf) - w->len;

		if (k > n)
			k = n;
		memcpy(w->buf + w->len, s, k);
		w->len += k;
		s += k;
		n -= k;
		if (w->len == sizeof(w->buf))
			drain(w);
	}
}

void jw_begin(struct jw *w)
{
	jw_raw(w, "{", 1);
	w->first = true;
}

void jw_end(struct jw *w)
{
	jw_raw(w, "}", 1);
	w->first = false;
}

void jw_key(struct jw *w, const char *key)
{
	if (!w->first)
		jw_raw(w, ",", 1);
	w->first = false;
	jw_raw(w, "\"", 1);
	jw_raw(w, key, strlen(key));
	jw_raw(w, "\":", 2);
}

void jw_str(struct jw *w, const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, run = 0;

	jw_raw(w, "\"", 1);
	while (i < n) {
		unsigned char c = p[i];
		size_t k = c < 0x80 ? 1 : utf8_len(p + i, n - i);
		char e[6];

		if (k && c >= 0x20 && c != '"' && c != '\\') {
			i += k;
			run += k;
			continue;
		}
		jw_raw(w, (const char *)p + i - run, run);
		run = 0;
		if (!k) {
			jw_raw(w, "\\ufffd", 6);
		} else if (c == '"' || c == '\\') {
			e[0] = '\\';
			e[1] = (char)c;
			jw_raw(w, e, 2);
		} else if (c == '\n') {
			jw_raw(w, "\\n", 2);
		} else if (c == '\t') {
			jw_raw(w, "\\t", 2);
		} else if (c == '\r') {
			jw_raw(w, "\\r", 2);
		} else {
			memcpy(e, "\\u00", 4);
			e[4] = hex[c >> 4];
			e[5] = hex[c & 15];
			jw_raw(w, e, 6);
		}
		i++;
	}
	jw_raw(w, (const char *)p + i - run, run);
	jw_raw(w, "\"", 1);
}

void jw_kstr(struct jw *w, const char *key, const char *s)
{
	jw_key(w, key);
	jw_str(w, s, strlen(s));
}

void jw_kbytes(struct jw *w, const char *key, const char *s, size_t n)
{
	jw_key(w, key);
	jw_str(w, s, n);
}

void jw_knum(struct jw *w, const char *key, long long v)
{
	char b[32];

	jw_key(w, key);
	jw_raw(w, b, (size_t)snprintf(b, sizeof(b), "%lld", v));
}

void jw_kbool(struct jw *w, const char *key, bool v)
{
	jw_key(w, key);
	jw_raw(w, v ? "true" : "false", v ? 4 : 5);
}

void jw_knull(struct jw *w, const char *key)
{
	jw_key(w, key);
	jw_raw(w, "null", 4);
}

int jw_flush(struct jw *w)
{
	jw_raw(w, "\n", 1);
	drain(w);
	return w->err ? -1 : 0;
}
