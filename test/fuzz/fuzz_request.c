/* fuzz_request: the caller's request parser and the response writer of
 * `pysbx session` (pkg/session json.c).
 *
 * The input is one request line, parsed in place from a buffer of exactly
 * its size plus the one spare byte the contract asks for. Checked:
 * - refused: an error code and a message are set;
 * - accepted: the action is known, the decoded code (execute) lies inside
 *   the buffer, is NUL-terminated and within SESS_SOURCE_MAX; the timeout
 *   is 1..120 s; read roots lie inside the buffer;
 * - the writer: jw_str of the decoded code, put back into a request, is
 *   parsed to the very same bytes (decode(encode(x)) == x); jw_str of the
 *   raw input bytes (any bytes) always makes a string the parser accepts.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"
#include "session/session.h"

struct mem {
	char *p;
	size_t len, cap;
};

static void sink(void *ctx, const char *p, size_t n)
{
	struct mem *m = ctx;

	if (m->len + n > m->cap) {
		m->cap = (m->len + n) * 2;
		m->p = realloc(m->p, m->cap);
		if (!m->p)
			abort();
	}
	memcpy(m->p + m->len, p, n);
	m->len += n;
}

/* {"action":"execute","code":<jw_str of s>} parsed back: the code. */
static void roundtrip(const char *s, size_t n, bool exact)
{
	struct mem m = { NULL, 0, 0 };
	struct request q;
	const char *code = NULL;
	char msg[256];
	struct jw w;
	char *line;

	jw_init(&w, -1);
	w.sink = sink;
	w.ctx = &m;
	jw_raw(&w, "{\"action\":\"execute\",\"code\":", 27);
	jw_str(&w, s, n);
	jw_raw(&w, "}", 1);
	jw_flush(&w);
	line = malloc(m.len + 1);
	memcpy(line, m.p, m.len);
	/* The line without its newline, as the host hands it over. */
	if (req_parse(line, m.len - 1, &q, &code, msg, sizeof(msg)) < 0) {
		if (code && !strcmp(code, "code_too_large") &&
		    n > SESS_SOURCE_MAX / 6)
			goto out;
		fuzz_die("fuzz_request", "jw_str made a string the parser "
			 "refuses", msg, NULL);
	}
	if (exact && (q.code_len != n || memcmp(q.code, s, n)))
		fuzz_die("fuzz_request", "decode(encode(x)) != x", s, q.code);
out:
	free(line);
	free(m.p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *line = malloc(size + 1), msg[256];
	const char *code = NULL;
	struct request q;

	memcpy(line, data, size);
	if (req_parse(line, size, &q, &code, msg, sizeof(msg)) < 0) {
		if (!code || !msg[0])
			fuzz_die("fuzz_request", "refused without a code or "
				 "message", code, msg);
	} else {
		if (q.action > REQ_MOUNTS)
			fuzz_die("fuzz_request", "unknown action", NULL, NULL);
		if (q.action == REQ_EXECUTE &&
		    (!q.code || q.code < line || q.code + q.code_len > line +
		     size || q.code[q.code_len] || q.code_len >
		     SESS_SOURCE_MAX))
			fuzz_die("fuzz_request", "bad code", NULL, NULL);
		if (q.timeout_ms < 1000 || q.timeout_ms > 120000)
			fuzz_die("fuzz_request", "bad timeout", NULL, NULL);
		for (size_t i = 0; i < q.nroots; i++)
			if (q.roots[i] < line || q.roots[i] +
			    strlen(q.roots[i]) > line + size)
				fuzz_die("fuzz_request", "bad root", NULL,
					 NULL);
		if (strlen(q.id) >= sizeof(q.id))
			fuzz_die("fuzz_request", "bad id", NULL, NULL);
		if (q.action == REQ_EXECUTE)
			roundtrip(q.code, q.code_len, true);
	}
	free(line);
	roundtrip((const char *)data, size, false);
	return 0;
}
