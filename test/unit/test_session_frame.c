/*
 * The worker channel's frame reader (pkg/session/frame.c): what it accepts,
 * what it refuses and why, fed whole or a byte at a time.
 */
#include "session/session.h"
#include "tap.h"

static char buf[SESS_FRAME_MAX];

/* Feed s (n bytes) in pieces of step bytes: the last status, the payload
 * of the first complete frame in out (NUL-terminated). */
static int feed(const char *s, size_t n, size_t step, char *out,
		const char **why)
{
	struct frame_rd r;
	size_t off = 0, used;
	int st = FRAME_MORE;

	frame_rd_init(&r, buf);
	out[0] = '\0';
	while (off < n) {
		size_t k = n - off < step ? n - off : step;

		st = frame_feed(&r, s + off, k, &used);
		off += used;
		if (st == FRAME_DONE) {
			memcpy(out, buf, r.len);
			out[r.len] = '\0';
			return st;
		}
		if (st == FRAME_BAD) {
			*why = r.why;
			return st;
		}
	}
	return st;
}

static void whole_and_bytewise(const char *s, int want, const char *payload,
			       const char *what)
{
	char out[256];
	const char *why = "";

	for (size_t step = 1; step <= 2; step++) {
		size_t n = strlen(s);
		int st = feed(s, n, step == 1 ? n : 1, out, &why);

		ok(st == want && (!payload || !strcmp(out, payload)),
		   "%s (%s)", what, step == 1 ? "whole" : "a byte at a time");
	}
}

int main(void)
{
	struct frame f;
	const char *why = NULL, *v;
	char big[16];
	size_t vl = 0, len = 0;
	char put[64];

	plan(22);
	whole_and_bytewise("12:1:t,5:ready,,", FRAME_DONE, "1:t,5:ready,",
			   "a frame is read");
	whole_and_bytewise("012:1:t,5:ready,,", FRAME_BAD, NULL,
			   "a leading zero is refused");
	whole_and_bytewise("12:1:t,5:ready,X", FRAME_BAD, NULL,
			   "a frame not ending in ',' is refused");
	whole_and_bytewise("garbage", FRAME_BAD, NULL,
			   "garbage is refused at its first byte");
	whole_and_bytewise("1234567:", FRAME_BAD, NULL,
			   "a length of seven digits is refused before its ':'");
	snprintf(big, sizeof(big), "%d:", SESS_FRAME_MAX + 1);
	whole_and_bytewise(big, FRAME_BAD, NULL,
			   "a length over 128 KiB is refused before any payload");
	whole_and_bytewise("30:1:t,", FRAME_MORE, NULL,
			   "a frame cut short waits for more");

	ok(frame_split("1:t,6:result,2:id,0:,", 21, &f, &why) == 0 &&
		   f.n == 2 && (v = frame_get(&f, "t", &vl)) && vl == 6 &&
		   !memcmp(v, "result", 6) && frame_get(&f, "id", &vl) &&
		   vl == 0,
	   "fields split; an empty value is a value");
	ok(frame_split("1:t,1:a,1:t,1:b,", 16, &f, &why) < 0 &&
		   !strcmp(why, "a frame has a key twice"),
	   "a key twice is refused");
	ok(frame_split("1:T,1:a,", 8, &f, &why) < 0,
	   "a key outside [a-z] is refused");
	ok(frame_split("1:t,9:a,", 8, &f, &why) < 0,
	   "a value longer than its frame is refused");
	ok(frame_split("1:t,", 4, &f, &why) < 0, "a key without a value is refused");
	ok(frame_split("1:t,01:a,", 9, &f, &why) < 0,
	   "a field length with a leading zero is refused");

	ok(frame_put(put, sizeof(put), &len, "code", 4) == 0 &&
		   len == 7 && !memcmp(put, "4:code,", 7),
	   "frame_put writes a netstring");
	ok(frame_put(put, 8, &len, "x", 1) < 0 && len == 7,
	   "frame_put refuses what does not fit and changes nothing");
	return done_testing();
}
