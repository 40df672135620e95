/* session: `pysbx session`, a persistent sandboxed Python interpreter
 * behind a JSON-lines protocol (docs/SESSION.md).
 *
 *   frame.c    the worker channel's frames: netstrings of netstrings,
 *              parsed as hostile input (the worker runs user code)
 *   json.c     the caller's requests (one JSON object a line) in, the
 *              responses out (bytes made valid UTF-8 JSON strings)
 *   sandbox.c  start the chain (pysbx-clean ... python3 worker) with its
 *              pipes and socket; kill it whole; reap
 *   host.c     the loop: one request at a time, lazy start, timeouts,
 *              output limits, recovery
 *   main.c     options, the scratch directory, session_main
 *
 * The worker is policies/session_worker.py (and its build-time compiled
 * code), run as python3 -I -S -B -u -X utf8 -c BOOT inside the sandbox
 * (sandbox.c). Like every pkg/ module, nothing
 * here exits: only session_main returns the exit code.
 */
#ifndef PYSBX_SESSION_H
#define PYSBX_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "diag/diag.h"
#include "util/mbuf.h"

/* The limits of the protocol (docs/SESSION.md, "Limits"). */
#define SESS_SOURCE_MAX (64 * 1024)	/* code of one execute, UTF-8 */
#define SESS_OUTPUT_MAX (1024 * 1024)	/* stdout + stderr per execute */
#define SESS_REPR_MAX (8 * 1024)	/* the final expression's repr */
#define SESS_TRACEBACK_MAX (16 * 1024)	/* an exception's traceback */
#define SESS_MESSAGE_MAX (4 * 1024)	/* an exception's type, message */
#define SESS_FRAME_MAX (128 * 1024)	/* one request line, one frame */
#define SESS_TIMEOUT_DEFAULT 30		/* seconds */
#define SESS_TIMEOUT_MAX 120
#define SESS_STARTUP_MS 10000		/* worker start deadline */
#define SESS_CLEANUP_MS 5000		/* kill and reap deadline */
#define SESS_WORKER_FD 3		/* the channel, inside the sandbox */

#define SESSION_USAGE                                                        \
	"pysbx session [-p POLICY] [-D NAME=VALUE]... [--workspace DIR]\n"   \
	"         [--fresh] [--scratch-parent DIR] [--python PATH]\n"        \
	"         [--worker FILE] [--allow-untrusted]"

/* `pysbx session ...` (argv[0] "session"): serve the protocol on stdin
 * and stdout until EOF or SIGTERM/SIGINT/SIGHUP. Returns the exit code:
 * 0 at a clean end, 100 bad usage, 111 a system call failed (printed on
 * stderr as "pysbx: fatal: ..."). */
int session_main(int argc, char **argv);

/* --- frame.c ------------------------------------------------------- */

/* A frame on the worker channel, both ways:
 *
 *	LEN ":" PAYLOAD ","
 *
 * LEN decimal, no leading zero, 1..SESS_FRAME_MAX. The payload is a
 * sequence of netstrings of the same form, alternately a key ([a-z]{1,16},
 * no key twice) and its value (any bytes), at most FRAME_FIELDS pairs. */
#define FRAME_FIELDS 16

struct frame_field {
	const char *key, *val;
	size_t klen, vlen;
};

struct frame {
	size_t n;
	struct frame_field f[FRAME_FIELDS];
};

enum { FRAME_MORE = 0, FRAME_DONE = 1, FRAME_BAD = -1 };

/* The incremental reader. buf is the caller's, at least SESS_FRAME_MAX
 * bytes; nothing in it is trusted until frame_feed says FRAME_DONE. */
struct frame_rd {
	char *buf;
	size_t len;	/* payload length once the header is read, else 0 */
	size_t have;	/* payload bytes (and the final ',') read so far */
	char hdr[8];	/* the decimal length being read */
	size_t hlen;
	const char *why;	/* FRAME_BAD: what was wrong */
};

void frame_rd_init(struct frame_rd *r, char *buf);

/* Consume bytes from p (n of them) into the current frame. *used is set
 * to the number consumed (the rest belongs to later frames). FRAME_DONE:
 * a complete frame, r->buf[0 .. r->len) its payload, until the next call
 * (which starts a new frame). FRAME_BAD: r->why says why; the stream is
 * lost (no resynchronisation: the caller kills the sandbox).
 * FRAME_MORE: everything was consumed and the frame is incomplete. */
int frame_feed(struct frame_rd *r, const char *p, size_t n, size_t *used);

/* Split a complete payload into its fields. 0, or -1 with *why set. */
int frame_split(const char *p, size_t n, struct frame *f, const char **why);

/* The value of key in f, or NULL (then *vlen untouched). */
const char *frame_get(const struct frame *f, const char *key, size_t *vlen);

/* Append one netstring ("LEN:BYTES,") to dst (capacity cap, used *len).
 * 0, or -1 when it does not fit (dst unchanged). */
int frame_put(char *dst, size_t cap, size_t *len, const char *s, size_t n);

/* --- json.c -------------------------------------------------------- */

enum req_action { REQ_EXECUTE, REQ_RESET, REQ_STATUS, REQ_MOUNTS };

#define REQ_ID_MAX 128
#define REQ_ROOTS_MAX 32

struct request {
	enum req_action action;
	char id[REQ_ID_MAX];	/* the caller's "id" as JSON text, "" none */
	char *code;		/* execute: decoded UTF-8 (in the caller's
				 * buffer), NUL-terminated */
	size_t code_len;
	unsigned timeout_ms;
	bool fresh;		/* execute in a new sandbox, thrown away */
	/* mounts */
	int ws_writable;	/* -1: not given */
	bool roots_given;
	size_t nroots;
	char *roots[REQ_ROOTS_MAX];	/* decoded, in the caller's buffer */
};

/* Error codes of a refused request (the "error.code" of a response). */
#define REQ_ERR_BAD_JSON "bad_request"
#define REQ_ERR_TOO_LARGE "frame_too_large"

/* Parse one request line (not NUL-terminated; n bytes, no newline) in
 * place: strings are decoded into the same buffer, which must have one
 * spare byte after the line. 0, or -1 with *code (one of "bad_request",
 * "unknown_action", "bad_field", "code_too_large") and msg (a sentence,
 * NUL-terminated, at most msglen bytes) set. The id, if it was read, is in
 * r->id even when the request is refused. */
int req_parse(char *line, size_t n, struct request *r, const char **code,
	      char *msg, size_t msglen);

/* The response writer: JSON text into a small buffer flushed to fd with
 * full writes. A write error is sticky (w->err) and later output is
 * dropped: the caller checks once at the end of a response. */
struct jw {
	int fd;
	int err;
	/* If set, output goes here instead of fd (the fuzz targets). */
	void (*sink)(void *ctx, const char *p, size_t n);
	void *ctx;
	bool first;	/* no member yet in the current object */
	size_t len;
	char buf[4096];
};

void jw_init(struct jw *w, int fd);
void jw_raw(struct jw *w, const char *s, size_t n);
void jw_begin(struct jw *w);			/* { */
void jw_end(struct jw *w);			/* } */
void jw_key(struct jw *w, const char *key);	/* [,]"key": */
/* Bytes as a JSON string: valid UTF-8 is copied (controls, '"', '\\'
 * escaped), every invalid byte becomes U+FFFD. */
void jw_str(struct jw *w, const char *s, size_t n);
void jw_kstr(struct jw *w, const char *key, const char *s);
void jw_kbytes(struct jw *w, const char *key, const char *s, size_t n);
void jw_knum(struct jw *w, const char *key, long long v);
void jw_kbool(struct jw *w, const char *key, bool v);
void jw_knull(struct jw *w, const char *key);
/* The end of a response: "\n", flush. 0 or -1 (errno in w->err). */
int jw_flush(struct jw *w);
/* A writer appending to b instead of an fd (bridge.c). */
void mbuf_jw(struct jw *w, struct mbuf *b);

#endif
