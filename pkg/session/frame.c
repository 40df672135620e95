/* The worker channel's frames. Everything read here was written by a
 * process that runs user code (the worker shares its interpreter with it),
 * so nothing is trusted: a length is checked against the limit before a
 * byte of the payload is stored, every field is checked to lie inside its
 * frame, and the first malformed byte ends the stream (no guessing where
 * the next frame starts: the caller kills the sandbox). */
#include <string.h>

#include "session/session.h"

void frame_rd_init(struct frame_rd *r, char *buf)
{
	r->buf = buf;
	r->len = 0;
	r->have = 0;
	r->hlen = 0;
	r->why = NULL;
}

/* "LEN:" at most 6 digits (SESS_FRAME_MAX has 6), no leading zero. */
static int header_byte(struct frame_rd *r, char c)
{
	size_t v = 0;

	if (c != ':') {
		if (c < '0' || c > '9')
			return r->why = "a frame does not start with its "
					"length", FRAME_BAD;
		if (r->hlen == 0 && c == '0')
			return r->why = "a frame length has a leading zero",
			       FRAME_BAD;
		if (r->hlen >= 6)
			return r->why = "a frame is longer than the limit",
			       FRAME_BAD;
		r->hdr[r->hlen++] = c;
		return FRAME_MORE;
	}
	if (r->hlen == 0)
		return r->why = "a frame has no length", FRAME_BAD;
	for (size_t i = 0; i < r->hlen; i++)
		v = v * 10 + (size_t)(r->hdr[i] - '0');
	if (v > SESS_FRAME_MAX)
		return r->why = "a frame is longer than the limit", FRAME_BAD;
	r->len = v;
	r->have = 0;
	return FRAME_MORE;
}

int frame_feed(struct frame_rd *r, const char *p, size_t n, size_t *used)
{
	size_t i = 0, k;

	if (r->why)
		return *used = 0, FRAME_BAD;
	/* A frame returned by the last call is over: start the next. */
	if (r->len && r->have == r->len + 1) {
		r->len = 0;
		r->have = 0;
		r->hlen = 0;
	}
	while (i < n && !r->len) {
		if (header_byte(r, p[i++]) == FRAME_BAD) {
			*used = i;
			return FRAME_BAD;
		}
	}
	if (!r->len) {
		*used = i;
		return FRAME_MORE;
	}
	k = r->len - (r->have < r->len ? r->have : r->len);
	if (k > n - i)
		k = n - i;
	memcpy(r->buf + r->have, p + i, k);
	r->have += k;
	i += k;
	if (r->have == r->len && i < n) {
		if (p[i++] != ',') {
			*used = i;
			r->why = "a frame does not end with ','";
			return FRAME_BAD;
		}
		r->have++;
		*used = i;
		return FRAME_DONE;
	}
	*used = i;
	return FRAME_MORE;
}

/* One netstring at p[*off], inside n: its bytes in *s, *slen. */
static int netstring(const char *p, size_t n, size_t *off, const char **s,
		     size_t *slen)
{
	size_t i = *off, v = 0, digits = 0;

	while (i < n && p[i] >= '0' && p[i] <= '9') {
		if (digits == 0 && p[i] == '0' && i + 1 < n &&
		    p[i + 1] != ':')
			return -1;	/* a leading zero */
		if (++digits > 6)
			return -1;
		v = v * 10 + (size_t)(p[i++] - '0');
	}
	if (!digits || i >= n || p[i] != ':')
		return -1;
	i++;
	/* v <= 999999 and i <= n: no overflow in the comparison. */
	if (v > n - i || v + 1 > n - i || p[i + v] != ',')
		return -1;
	*s = p + i;
	*slen = v;
	*off = i + v + 1;
	return 0;
}

static int key_ok(const char *k, size_t n)
{
	if (n < 1 || n > 16)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (k[i] < 'a' || k[i] > 'z')
			return 0;
	return 1;
}

int frame_split(const char *p, size_t n, struct frame *f, const char **why)
{
	size_t off = 0;

	f->n = 0;
	while (off < n) {
		struct frame_field *x;

		if (f->n == FRAME_FIELDS)
			return *why = "a frame has too many fields", -1;
		x = &f->f[f->n];
		if (netstring(p, n, &off, &x->key, &x->klen) < 0)
			return *why = "a frame's key is malformed", -1;
		if (!key_ok(x->key, x->klen))
			return *why = "a frame's key is not [a-z]{1,16}", -1;
		if (off >= n || netstring(p, n, &off, &x->val, &x->vlen) < 0)
			return *why = "a frame's value is malformed", -1;
		for (size_t j = 0; j < f->n; j++)
			if (f->f[j].klen == x->klen &&
			    !memcmp(f->f[j].key, x->key, x->klen))
				return *why = "a frame has a key twice", -1;
		f->n++;
	}
	return 0;
}

const char *frame_get(const struct frame *f, const char *key, size_t *vlen)
{
	size_t kl = strlen(key);

	for (size_t i = 0; i < f->n; i++)
		if (f->f[i].klen == kl && !memcmp(f->f[i].key, key, kl)) {
			*vlen = f->f[i].vlen;
			return f->f[i].val;
		}
	return NULL;
}

int frame_put(char *dst, size_t cap, size_t *len, const char *s, size_t n)
{
	char num[24];
	int h = 0;
	size_t v = n;

	do
		num[h++] = (char)('0' + v % 10);
	while ((v /= 10) && h < 20);
	if (cap < *len || cap - *len < (size_t)h + 2 + n)
		return -1;
	for (int i = 0; i < h; i++)
		dst[*len + i] = num[h - 1 - i];
	*len += (size_t)h;
	dst[(*len)++] = ':';
	memcpy(dst + *len, s, n);
	*len += n;
	dst[(*len)++] = ',';
	return 0;
}
