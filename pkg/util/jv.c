/* The bounded JSON reader (util/jv.h). */
#include <string.h>

#include "util/jv.h"

struct rd {
	struct jv *j;
	const char *p, *end;
	int depth;
};

static int bad(struct rd *r, const char *why)
{
	if (!r->j->why)
		r->j->why = why;
	return -1;
}

static void ws(struct rd *r)
{
	while (r->p < r->end && (*r->p == ' ' || *r->p == '\t' ||
				 *r->p == '\r' || *r->p == '\n'))
		r->p++;
}

/* The length of the UTF-8 sequence at s (n bytes left), 0 if invalid. */
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

static int node(struct rd *r, int type)
{
	struct jv *j = r->j;

	if (j->n == j->cap) {
		j->too_big = true;
		return bad(r, "the message has too many values");
	}
	j->node[j->n] = (struct jv_node){ (uint8_t)type,
					  (uint32_t)(r->p - j->src), 0, 0, 0 };
	return (int)j->n++;
}

static int string(struct rd *r)
{
	unsigned cp, lo;

	r->p++;
	while (r->p < r->end && *r->p != '"') {
		unsigned char c = (unsigned char)*r->p;
		size_t k;

		if (c < 0x20)
			return bad(r, "a string holds a raw control character");
		if (c != '\\') {
			k = utf8_len((const unsigned char *)r->p,
				     (size_t)(r->end - r->p));
			if (!k)
				return bad(r, "a string is not valid UTF-8");
			r->p += k;
			continue;
		}
		if (++r->p >= r->end)
			break;
		switch (*r->p++) {
		case '"': case '\\': case '/': case 'b': case 'f': case 'n':
		case 'r': case 't':
			continue;
		case 'u':
			break;
		default:
			return bad(r, "a string has an invalid escape");
		}
		if (r->end - r->p < 4 || hex4(r->p, &cp) < 0)
			return bad(r, "a \\u escape needs four hex digits");
		r->p += 4;
		if (cp >= 0xdc00 && cp <= 0xdfff)
			return bad(r, "a string has a lone low surrogate");
		if (cp >= 0xd800 && cp <= 0xdbff) {
			if (r->end - r->p < 6 || r->p[0] != '\\' ||
			    r->p[1] != 'u' || hex4(r->p + 2, &lo) < 0 ||
			    lo < 0xdc00 || lo > 0xdfff)
				return bad(r, "a string has a lone high "
					   "surrogate");
			r->p += 6;
		}
	}
	if (r->p >= r->end)
		return bad(r, "a string is not closed");
	r->p++;
	return 0;
}

static int number(struct rd *r)
{
	const char *p = r->p;

	if (p < r->end && *p == '-')
		p++;
	if (p < r->end && *p == '0')
		p++;
	else if (p < r->end && *p >= '1' && *p <= '9')
		while (p < r->end && *p >= '0' && *p <= '9')
			p++;
	else
		return bad(r, "a value is not valid JSON");
	if (p < r->end && *p == '.') {
		if (++p >= r->end || *p < '0' || *p > '9')
			return bad(r, "a number has no digits after its point");
		while (p < r->end && *p >= '0' && *p <= '9')
			p++;
	}
	if (p < r->end && (*p == 'e' || *p == 'E')) {
		p++;
		if (p < r->end && (*p == '+' || *p == '-'))
			p++;
		if (p >= r->end || *p < '0' || *p > '9')
			return bad(r, "a number has no digits in its exponent");
		while (p < r->end && *p >= '0' && *p <= '9')
			p++;
	}
	r->p = p;
	return 0;
}

static int word(struct rd *r, const char *w)
{
	size_t n = strlen(w);

	if ((size_t)(r->end - r->p) < n || memcmp(r->p, w, n))
		return bad(r, "a value is not valid JSON");
	r->p += n;
	return 0;
}

static int value(struct rd *r)
{
	struct jv *j = r->j;
	int i, type;

	ws(r);
	if (r->p >= r->end)
		return bad(r, "a value is missing");
	switch (*r->p) {
	case '"': type = JV_STR; break;
	case 't': type = JV_TRUE; break;
	case 'f': type = JV_FALSE; break;
	case 'n': type = JV_NULL; break;
	case '[': type = JV_ARR; break;
	case '{': type = JV_OBJ; break;
	default: type = JV_NUM; break;
	}
	if ((i = node(r, type)) < 0)
		return -1;
	switch (type) {
	case JV_STR:
		if (string(r) < 0)
			return -1;
		break;
	case JV_TRUE:
	case JV_FALSE:
	case JV_NULL:
		if (word(r, type == JV_TRUE ? "true" : type == JV_FALSE ?
			 "false" : "null") < 0)
			return -1;
		break;
	case JV_NUM:
		if (number(r) < 0)
			return -1;
		break;
	default: {
		char close = type == JV_ARR ? ']' : '}';

		if (++r->depth > JV_DEPTH_MAX) {
			j->too_big = true;
			return bad(r, "values nest too deep");
		}
		r->p++;
		ws(r);
		if (r->p < r->end && *r->p == close) {
			r->p++;
			r->depth--;
			break;
		}
		for (;;) {
			if (type == JV_OBJ) {
				int k;

				ws(r);
				if (r->p >= r->end || *r->p != '"')
					return bad(r, "an object's key is not "
						   "a string");
				if ((k = node(r, JV_STR)) < 0 || string(r) < 0)
					return -1;
				j->node[k].end = (uint32_t)(r->p - j->src);
				j->node[k].next = (uint32_t)j->n;
				ws(r);
				if (r->p >= r->end || *r->p++ != ':')
					return bad(r, "a key has no ':'");
			}
			if (value(r) < 0)
				return -1;
			j->node[i].n++;
			ws(r);
			if (r->p < r->end && *r->p == ',') {
				r->p++;
				continue;
			}
			if (r->p < r->end && *r->p == close) {
				r->p++;
				break;
			}
			return bad(r, type == JV_ARR ? "a ',' or ']' is "
				   "missing" : "a ',' or '}' is missing");
		}
		r->depth--;
	}
	}
	j->node[i].end = (uint32_t)(r->p - j->src);
	j->node[i].next = (uint32_t)j->n;
	return 0;
}

int jv_parse(struct jv *j, const char *src, size_t len,
	     struct jv_node *nodes, size_t cap)
{
	struct rd r = { j, src, src + len, 0 };

	memset(j, 0, sizeof(*j));
	j->src = src;
	j->len = len;
	j->node = nodes;
	j->cap = cap;
	/* Offsets are 32-bit. */
	if (len > UINT32_MAX / 2) {
		j->too_big = true;
		return bad(&r, "the message is too large");
	}
	if (value(&r) < 0)
		return -1;
	ws(&r);
	if (r.p != r.end)
		return bad(&r, "text after the message's value");
	return 0;
}

int jv_type(const struct jv *j, int i)
{
	return i < 0 || (size_t)i >= j->n ? JV_NULL : j->node[i].type;
}

/* Decode string node i into dst (cap bytes). Its length, or -1. */
long jv_str(const struct jv *j, int i, char *dst, size_t cap)
{
	const char *p, *end;
	size_t w = 0;
	unsigned cp, lo;

	if (jv_type(j, i) != JV_STR)
		return -1;
	p = j->src + j->node[i].start + 1;
	end = j->src + j->node[i].end - 1;
	while (p < end) {
		char tmp[4];
		size_t k = 1;

		if (*p != '\\') {
			tmp[0] = *p++;
		} else {
			p++;
			switch (*p++) {
			case 'b': tmp[0] = '\b'; break;
			case 'f': tmp[0] = '\f'; break;
			case 'n': tmp[0] = '\n'; break;
			case 'r': tmp[0] = '\r'; break;
			case 't': tmp[0] = '\t'; break;
			case 'u':
				/* Checked by jv_parse. */
				hex4(p, &cp);
				p += 4;
				if (cp >= 0xd800 && cp <= 0xdbff) {
					hex4(p + 2, &lo);
					p += 6;
					cp = 0x10000 + ((cp - 0xd800) << 10) +
					     (lo - 0xdc00);
				}
				if (cp < 0x80) {
					tmp[0] = (char)cp;
				} else if (cp < 0x800) {
					tmp[0] = (char)(0xc0 | cp >> 6);
					tmp[1] = (char)(0x80 | (cp & 0x3f));
					k = 2;
				} else if (cp < 0x10000) {
					tmp[0] = (char)(0xe0 | cp >> 12);
					tmp[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
					tmp[2] = (char)(0x80 | (cp & 0x3f));
					k = 3;
				} else {
					tmp[0] = (char)(0xf0 | cp >> 18);
					tmp[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
					tmp[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
					tmp[3] = (char)(0x80 | (cp & 0x3f));
					k = 4;
				}
				break;
			default:	/* '"', '\\', '/' */
				tmp[0] = p[-1];
			}
		}
		if (w + k >= cap)
			return -1;
		memcpy(dst + w, tmp, k);
		w += k;
	}
	if (w >= cap)
		return -1;
	dst[w] = '\0';
	return (long)w;
}

bool jv_is(const struct jv *j, int i, const char *s)
{
	size_t n = strlen(s);
	char buf[64];

	if (jv_type(j, i) != JV_STR || n >= sizeof(buf))
		return false;
	/* Short strings only: longer text cannot be equal to s. */
	if (j->node[i].end - j->node[i].start > 6 * n + 2)
		return false;
	return jv_str(j, i, buf, sizeof(buf)) == (long)n && !memcmp(buf, s, n);
}

int jv_get(const struct jv *j, int obj, const char *key)
{
	int found = -1;
	uint32_t i;

	if (jv_type(j, obj) != JV_OBJ)
		return -1;
	i = (uint32_t)obj + 1;
	for (uint32_t m = 0; m < j->node[obj].n; m++) {
		uint32_t v = i + 1;

		if (jv_is(j, (int)i, key)) {
			if (found >= 0)
				return -2;
			found = (int)v;
		}
		i = j->node[v].next;
	}
	return found;
}

/* String node v decoded into the empty b. 0, or -1. */
int jv_mbuf(const struct jv *j, int v, struct mbuf *b)
{
	size_t cap;
	long n;

	if (jv_type(j, v) != JV_STR)
		return -1;
	cap = j->node[v].end - j->node[v].start + 1;
	if (!mbuf_room(b, cap) || (n = jv_str(j, v, b->p, b->cap)) < 0)
		return -1;
	b->len = (size_t)n;
	return 0;
}
