/* fuzz_frame: the host's reader of the worker channel (pkg/session
 * frame.c), which reads bytes written by a process that runs user code.
 *
 * The input's first byte seeds how the rest is cut into reads (1 to 300
 * bytes each, as a pipe may deliver them); the rest is the stream. Checked:
 * - fed in pieces or all at once, the reader returns the same frames and
 *   fails at the same point with the same reason;
 * - a frame's payload never exceeds SESS_FRAME_MAX (the buffer is exactly
 *   that large: ASan sees one byte more);
 * - a payload that splits into fields: every field lies inside it, keys
 *   are [a-z]{1,16} and distinct, frame_get finds each; written back with
 *   frame_put the fields give the same payload byte for byte, and that
 *   payload framed again reads back as one identical frame. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"
#include "session/session.h"

struct out {
	size_t nframes;
	uint64_t hash;
	const char *why;
	size_t consumed;
};

static uint64_t mix(uint64_t h, const char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)p[i]) * 0x100000001b3ull;
	return h ^ n;
}

static void check_payload(const char *p, size_t n)
{
	struct frame f;
	const char *why = NULL, *v;
	char *re, *fr, *buf;
	size_t len = 0, vlen, used;
	struct frame_rd r;

	if (n > SESS_FRAME_MAX)
		fuzz_die("fuzz_frame", "payload over the limit", NULL, NULL);
	if (frame_split(p, n, &f, &why) < 0) {
		if (!why)
			fuzz_die("fuzz_frame", "split failed without a reason",
				 NULL, NULL);
		return;
	}
	re = malloc(n + 1);
	for (size_t i = 0; i < f.n; i++) {
		const struct frame_field *x = &f.f[i];

		if (x->key < p || x->key + x->klen > p + n || x->val < p ||
		    x->val + x->vlen > p + n)
			fuzz_die("fuzz_frame", "a field outside its frame",
				 NULL, NULL);
		if (x->klen < 1 || x->klen > 16)
			fuzz_die("fuzz_frame", "a bad key length", NULL, NULL);
		for (size_t j = 0; j < x->klen; j++)
			if (x->key[j] < 'a' || x->key[j] > 'z')
				fuzz_die("fuzz_frame", "a bad key", NULL,
					 NULL);
		for (size_t j = 0; j < i; j++)
			if (f.f[j].klen == x->klen &&
			    !memcmp(f.f[j].key, x->key, x->klen))
				fuzz_die("fuzz_frame", "a key twice", NULL,
					 NULL);
		if (frame_put(re, n + 1, &len, x->key, x->klen) < 0 ||
		    frame_put(re, n + 1, &len, x->val, x->vlen) < 0)
			fuzz_die("fuzz_frame", "fields do not fit back",
				 NULL, NULL);
		if (x->klen < 17) {
			char k[17];

			memcpy(k, x->key, x->klen);
			k[x->klen] = '\0';
			v = frame_get(&f, k, &vlen);
			if (v != x->val || vlen != x->vlen)
				fuzz_die("fuzz_frame", "frame_get missed",
					 k, NULL);
		}
	}
	if (len != n || memcmp(re, p, n))
		fuzz_die("fuzz_frame", "fields written back differ", NULL,
			 NULL);
	free(re);
	fr = malloc(n + 16);
	len = 0;
	if (frame_put(fr, n + 16, &len, p, n) < 0)
		fuzz_die("fuzz_frame", "a payload does not frame", NULL, NULL);
	buf = malloc(SESS_FRAME_MAX);
	frame_rd_init(&r, buf);
	if (frame_feed(&r, fr, len, &used) != FRAME_DONE || used != len ||
	    r.len != n || memcmp(buf, p, n))
		fuzz_die("fuzz_frame", "a framed payload does not read back",
			 NULL, NULL);
	free(buf);
	free(fr);
}

static void run(const uint8_t *data, size_t size, unsigned seed, bool whole,
		struct out *o)
{
	char *buf = malloc(SESS_FRAME_MAX);
	struct frame_rd r;
	size_t off = 0;

	frame_rd_init(&r, buf);
	memset(o, 0, sizeof(*o));
	o->hash = 1469598103934665603ull;
	while (off < size) {
		size_t k = size - off, used;
		int st;

		if (!whole) {
			seed = seed * 1103515245u + 12345u;
			k = 1 + (seed >> 16) % 300;
			if (k > size - off)
				k = size - off;
		}
		while (k) {
			st = frame_feed(&r, (const char *)data + off, k, &used);
			if (used > k)
				fuzz_die("fuzz_frame", "used more than given",
					 NULL, NULL);
			off += used;
			k -= used;
			if (st == FRAME_BAD) {
				o->why = r.why;
				o->consumed = off;
				if (!r.why)
					fuzz_die("fuzz_frame", "bad without a "
						 "reason", NULL, NULL);
				free(buf);
				return;
			}
			if (st == FRAME_DONE) {
				if (r.len > SESS_FRAME_MAX || !r.len)
					fuzz_die("fuzz_frame", "a frame's "
						 "length out of range", NULL,
						 NULL);
				o->nframes++;
				o->hash = mix(o->hash, buf, r.len);
				if (whole)
					check_payload(buf, r.len);
			} else if (k) {
				fuzz_die("fuzz_frame", "more without using "
					 "everything", NULL, NULL);
			}
		}
	}
	o->consumed = off;
	free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct out a, b;

	if (size < 1)
		return 0;
	run(data + 1, size - 1, data[0], true, &a);
	run(data + 1, size - 1, data[0], false, &b);
	if (a.nframes != b.nframes || a.hash != b.hash || a.why != b.why ||
	    a.consumed != b.consumed)
		fuzz_die("fuzz_frame", "pieces and whole differ", a.why,
			 b.why);
	return 0;
}
