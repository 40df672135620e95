/* fuzz_bridge: the tool bridge of `pysbx session` (pkg/session/bridge.c):
 * the client's tools and tool_result lines, and call frames from the
 * worker, which runs user code (docs/SESSION.md, "Tool bridge").
 *
 * The input is lines; by the first byte:
 * - 'T': the rest is a request line (br_request: tools, tool_result);
 * - 'I': the rest is input that arrives while an execute runs (appended
 *   to the caller's buffer, then br_take);
 * - 'B': an execute begins (br_begin); 'E': it ends (br_end, timeout
 *   when the second byte is odd), then br_report;
 * - 'F': the rest is a frame payload from the worker (frame_split, then
 *   br_frame).
 * Checked: everything written to the client is lines of valid JSON; each
 * tool_call event names a tool the last accepted tools request declared,
 * and comes while an execute runs; between a 'B' and its 'E' at most 16
 * more events come than tool_result lines were given; nothing leaks or
 * overflows (ASan). The socket is closed (-1): frames for the worker are
 * queued, never written.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"
#include "session/host.h"
#include "util/jv.h"

static struct jv_node nodes[16384];
static struct mbuf out;
static char names[64][65];
static int nnames;

static void check(bool live, int *events)
{
	const char *p = out.p;
	size_t n = out.len;

	while (n) {
		const char *nl = memchr(p, '\n', n);
		size_t l;
		struct jv j;
		int v;

		if (!nl)
			fuzz_die("fuzz_bridge", "a line without its newline",
				 NULL, NULL);
		l = (size_t)(nl - p);
		if (jv_parse(&j, p, l, nodes, 16384) < 0 ||
		    jv_type(&j, 0) != JV_OBJ)
			fuzz_die("fuzz_bridge", "not one JSON object", j.why,
				 NULL);
		if (jv_is(&j, jv_get(&j, 0, "event"), "tool_call")) {
			char name[80];
			bool known = false;

			if (!live)
				fuzz_die("fuzz_bridge", "an event between "
					 "executes", NULL, NULL);
			v = jv_get(&j, 0, "name");
			if (jv_str(&j, v, name, sizeof(name)) < 0)
				fuzz_die("fuzz_bridge", "an event without a "
					 "name", NULL, NULL);
			for (int i = 0; i < nnames; i++)
				known |= !strcmp(names[i], name);
			if (!known)
				fuzz_die("fuzz_bridge", "an undeclared tool "
					 "reached the client", name, NULL);
			(*events)++;
		}
		if (jv_is(&j, jv_get(&j, 0, "action"), "tools") &&
		    jv_type(&j, jv_get(&j, 0, "ok")) == JV_TRUE) {
			int arr = jv_get(&j, 0, "tools");
			uint32_t i = (uint32_t)arr + 1;

			nnames = 0;
			for (uint32_t k = 0; k < j.node[arr].n; k++) {
				jv_str(&j, jv_get(&j, (int)i, "name"),
				       names[nnames++], 65);
				i = j.node[i].next;
			}
		}
		p += l + 1;
		n -= l + 1;
	}
	out.len = 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct sess s;
	static char inbuf[SESS_FRAME_MAX + 1];
	struct inbuf in = { inbuf, 0, false, false, 0 };
	struct jw w;
	char *buf = malloc(size + 1);
	size_t off = 0;
	bool live = false;
	int events = 0, answers = 0;

	memcpy(buf, data, size);
	buf[size] = '\n';
	memset(&s, 0, sizeof(s));
	s.sock = s.out = s.err = s.sfd = -1;
	s.gen = 1;
	s.inb = &in;
	mbuf_jw(&w, &out);
	s.w = &w;
	out.len = 0;
	nnames = 0;
	while (off < size) {
		char *line = buf + off, *nl = memchr(line, '\n', size + 1 - off);
		size_t l = (size_t)(nl - line);
		struct mbuf pre = { 0 };
		struct frame f;
		const char *why;

		if (l >= 1 && line[0] == 'T') {
			br_request(&s, line + 1, l - 1, &w);
		} else if (l >= 1 && line[0] == 'I' && live) {
			if (in.len + l <= SESS_FRAME_MAX) {
				memcpy(in.p + in.len, line + 1, l - 1);
				in.len += l - 1;
				in.p[in.len++] = '\n';
			}
			answers++;
			br_take(&s);
			/* The main loop's part: it reads what is left. */
			in.len = 0;
		} else if (l >= 1 && line[0] == 'B' && !live) {
			br_begin(&s, "0123456789abcdef", "7", &pre);
			live = true;
			events = answers = 0;
			s.gen++;
		} else if (l >= 1 && line[0] == 'E' && live) {
			br_end(&s, l > 1 && (line[1] & 1) ? "timeout" : "ok");
			jw_begin(&w);
			br_report(&s, &w);
			jw_end(&w);
			jw_flush(&w);
			live = false;
		} else if (l >= 1 && line[0] == 'F' && live) {
			if (frame_split(line + 1, l - 1, &f, &why) == 0)
				br_frame(&s, &f);
		}
		mbuf_free(&pre);
		check(live, &events);
		if (events > BR_INFLIGHT_MAX + answers)
			fuzz_die("fuzz_bridge", "more calls in flight than the "
				 "bound", NULL, NULL);
		off += l + 1;
	}
	if (live)
		br_end(&s, "ok");
	br_free(&s);
	out.len = 0;
	free(buf);
	return 0;
}
