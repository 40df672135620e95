/* The host's loop: read one request, answer it, repeat. While idle it
 * blocks in poll(2) on the caller's stdin, the sandbox's pipes and socket
 * and a signalfd: no timer, no busy wait. */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/wait.h>
#include <unistd.h>

#include "session/host.h"

/* Why a worker was lost, as reported in stateLostReason. */
#define LOST_TIMEOUT "timeout"
#define LOST_OUTPUT "output_limit"
#define LOST_DIED "worker_died"
#define LOST_PROTOCOL "protocol_error"
#define LOST_CANCELLED "cancelled"

struct ev {
	bool in, sock, out, err, sig;
};

/* One poll round over what matters now; deadline 0: none. */
static void wait_ev(struct sess *s, bool want_in, bool want_wr,
		    uint64_t deadline, struct ev *e)
{
	struct pollfd p[5] = {
		{ want_in ? 0 : -1, POLLIN, 0 },
		{ s->sock, (short)(POLLIN | (want_wr ? POLLOUT : 0)), 0 },
		{ s->out, POLLIN, 0 },
		{ s->err, POLLIN, 0 },
		{ s->sfd, POLLIN, 0 },
	};
	int timeout = -1;

	if (deadline) {
		uint64_t t = now_ms();

		timeout = t >= deadline ? 0 : (int)(deadline - t);
	}
	memset(e, 0, sizeof(*e));
	if (poll(p, 5, timeout) <= 0)
		return;
	e->in = p[0].revents;
	e->sock = p[1].revents;
	e->out = p[2].revents;
	e->err = p[3].revents;
	e->sig = p[4].revents;
	if (e->sig) {
		sbx_signals(s);
		sbx_reap(s);
	}
}

static void give_back(struct cap *c)
{
	/* The pages go back to the kernel: the host stays small while
	 * idle, whatever the last execute printed. */
	if (c->len > 4096)
		madvise(c->p, SESS_OUTPUT_MAX, MADV_DONTNEED);
	c->len = 0;
}

static void note(struct sess *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void note(struct sess *s, const char *fmt, ...)
{
	size_t n = strlen(s->notice);
	va_list ap;

	if (n && n < sizeof(s->notice) - 2) {
		s->notice[n++] = '\n';
		s->notice[n] = '\0';
	}
	va_start(ap, fmt);
	vsnprintf(s->notice + n, sizeof(s->notice) - n, fmt, ap);
	va_end(ap);
}

/* How the guard ended, in words. */
static void guard_end(const struct sess *s, char *buf, size_t len)
{
	if (!s->guard_done)
		snprintf(buf, len, "killed by the session");
	else if (WIFEXITED(s->guard_status))
		snprintf(buf, len, "exit code %d",
			 WEXITSTATUS(s->guard_status));
	else
		snprintf(buf, len, "signal %d", WTERMSIG(s->guard_status));
}

static int read_frame(struct sess *s, bool *more);
static int late_result(struct sess *s);

/* While idle: the sandbox spoke or ended. Output is discarded (it belongs
 * to no execute); anything on the channel, or the sandbox's end, loses
 * the worker, which the next execute reports. */
static void idle_event(struct sess *s, const struct ev *e)
{
	char how[64];
	ssize_t k = -2;

	if (e->out && s->out >= 0)
		sbx_read_output(s, &s->out, NULL);
	if (e->err && s->err >= 0)
		sbx_read_output(s, &s->err, NULL);
	while (e->sock && s->sock >= 0) {
		bool more;
		int st = read_frame(s, &more);

		/* The worker's own result of the last execute, after a
		 * forged one was answered: dropped once, said next time. */
		if (st == 1 && late_result(s) == 0) {
			if (more)
				continue;
			return;
		}
		k = st == 0 ? -2 : st == -1 ? 0 : 1;
		break;
	}
	if (k == -2 && !s->guard_done)
		return;
	sbx_kill(s, false);
	guard_end(s, how, sizeof(how));
	snprintf(s->lost, sizeof(s->lost), "%s",
		 k > 0 ? "the worker wrote to its channel between executes "
			 "(protocol error); the sandbox was killed"
		       : "the worker ended between executes");
	note(s, "%s (%s); its state is lost", s->lost, how);
}

/* --- responses ------------------------------------------------------- */

static void head(struct jw *w, const struct request *q, bool ok,
		 const char *action)
{
	jw_begin(w);
	if (q && q->id[0]) {
		jw_key(w, "id");
		jw_raw(w, q->id, strlen(q->id));
	}
	jw_kbool(w, "ok", ok);
	if (action)
		jw_kstr(w, "action", action);
}

static int refuse(struct jw *w, const struct request *q, const char *code,
		  const char *msg)
{
	head(w, q, false, NULL);
	jw_key(w, "error");
	jw_begin(w);
	jw_kstr(w, "code", code);
	jw_kstr(w, "message", msg);
	jw_end(w);
	jw_end(w);
	return jw_flush(w);
}

static void limits(struct jw *w)
{
	jw_key(w, "limits");
	jw_begin(w);
	jw_knum(w, "sourceBytes", SESS_SOURCE_MAX);
	jw_knum(w, "outputBytes", SESS_OUTPUT_MAX);
	jw_knum(w, "reprBytes", SESS_REPR_MAX);
	jw_knum(w, "tracebackBytes", SESS_TRACEBACK_MAX);
	jw_knum(w, "messageBytes", SESS_MESSAGE_MAX);
	jw_knum(w, "frameBytes", SESS_FRAME_MAX);
	jw_knum(w, "timeoutSecondsDefault", SESS_TIMEOUT_DEFAULT);
	jw_knum(w, "timeoutSecondsMax", SESS_TIMEOUT_MAX);
	jw_knum(w, "startupSeconds", SESS_STARTUP_MS / 1000);
	jw_end(w);
}

static int do_status(struct sess *s, const struct request *q, struct jw *w)
{
	head(w, q, true, "status");
	jw_kbool(w, "ready", s->guard && s->ready);
	jw_kstr(w, "mode", s->fresh ? "fresh" : "persistent");
	jw_knum(w, "generation", s->gen);
	if (s->guard && s->ready) {
		jw_knum(w, "workerPid", s->worker_pid);
		jw_kstr(w, "python", s->pyver);
	}
	limits(w);
	jw_key(w, "paths");
	jw_begin(w);
	jw_kstr(w, "policy", s->policy);
	jw_kstr(w, "scratch", s->scratch.path);
	jw_kstr(w, "sandboxScratch", "/scratch");
	if (s->workspace) {
		jw_kstr(w, "workspace", s->workspace);
		jw_kstr(w, "sandboxWorkspace", "/workspace");
	}
	jw_end(w);
	jw_key(w, "mounts");
	jw_begin(w);
	jw_kbool(w, "workspaceWritable",
		 s->ws_mount && !strcmp(s->ws_mount, "bind"));
	jw_kstr(w, "readRoots", s->read_roots ? s->read_roots : "");
	jw_end(w);
	jw_end(w);
	return jw_flush(w);
}

static int do_reset(struct sess *s, const struct request *q, struct jw *w)
{
	bool was = s->guard != 0;

	sbx_kill(s, false);
	s->lost[0] = '\0';
	s->notice[0] = '\0';
	head(w, q, true, "reset");
	jw_kbool(w, "killed", was);
	jw_knum(w, "generation", s->gen);
	jw_end(w);
	return jw_flush(w);
}

/* --- execute --------------------------------------------------------- */

struct result {
	const char *status;	/* ok error timeout output_limit
				 * worker_died protocol_error
				 * startup_failed cancelled */
	const char *message;
	char msgbuf[640];
	struct frame f;		/* the worker's result frame */
	bool have_frame;
	const char *lost;	/* stateLostReason, NULL: kept */
	bool started;		/* this execute started the worker */
	uint64_t t0;
};

static void fail_now(struct sess *s, struct result *r, const char *status,
		     const char *lost, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

/* The execute failed: kill the sandbox, keep the partial output. */
static void fail_now(struct sess *s, struct result *r, const char *status,
		     const char *lost, const char *fmt, ...)
{
	va_list ap;

	sbx_kill(s, true);
	r->status = status;
	r->lost = lost;
	r->have_frame = false;
	va_start(ap, fmt);
	vsnprintf(r->msgbuf, sizeof(r->msgbuf), fmt, ap);
	va_end(ap);
	r->message = r->msgbuf;
}

/* Give the channel's bytes to the frame reader: those left over from the
 * last read first, else one read. 1: a frame is complete (in s->rd; *more:
 * bytes follow it, kept for the next call); 0: nothing complete; -1: EOF
 * or an error; -2: a malformed stream (s->rd.why). */
static int read_frame(struct sess *s, bool *more)
{
	size_t used;
	int st;

	*more = false;
	if (!s->pend_len) {
		ssize_t k = read(s->sock, s->pend, sizeof(s->pend));

		if (k < 0)
			return errno == EAGAIN || errno == EINTR ? 0 : -1;
		if (k == 0)
			return -1;
		s->pend_off = 0;
		s->pend_len = (size_t)k;
	}
	while (s->pend_len) {
		st = frame_feed(&s->rd, s->pend + s->pend_off, s->pend_len,
				&used);
		s->pend_off += used;
		s->pend_len -= used;
		if (st == FRAME_BAD)
			return -2;
		if (st == FRAME_DONE) {
			*more = s->pend_len > 0;
			return 1;
		}
	}
	return 0;
}

static bool is(const char *v, size_t n, const char *want)
{
	return v && n == strlen(want) && !memcmp(v, want, n);
}

static void startup_failed(struct sess *s, struct result *r, const char *fmt,
			   ...) __attribute__((format(printf, 3, 4)));

/* r: startup_failed, with fmt and what the chain said on stderr. */
static void startup_failed(struct sess *s, struct result *r, const char *fmt,
			   ...)
{
	size_t n, e = s->cerr.len > 400 ? 400 : s->cerr.len;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->msgbuf, sizeof(r->msgbuf), fmt, ap);
	va_end(ap);
	n = strlen(r->msgbuf);
	if (e)
		snprintf(r->msgbuf + n, sizeof(r->msgbuf) - n, ": %.*s",
			 (int)e, s->cerr.p);
	r->status = "startup_failed";
	r->message = r->msgbuf;
	r->have_frame = false;
	/* The chain's messages are in the message; nothing printed while
	 * starting is an execute's output. */
	give_back(&s->cerr);
	give_back(&s->cout);
	s->overflow = false;
}

/* The ready frame: "t" ready, "pid", "py". 0, or -1 with *why. */
static int ready(struct sess *s, const char **why)
{
	struct frame f;
	const char *v;
	size_t vl;

	if (frame_split(s->rd.buf, s->rd.len, &f, why) < 0)
		return -1;
	v = frame_get(&f, "t", &vl);
	if (!is(v, vl, "ready"))
		return *why = "its first frame is not a ready frame", -1;
	if ((v = frame_get(&f, "pid", &vl)) && vl < 12) {
		char num[12];

		memcpy(num, v, vl);
		num[vl] = '\0';
		s->worker_pid = strtol(num, NULL, 10);
	}
	if ((v = frame_get(&f, "py", &vl)) && vl < sizeof(s->pyver)) {
		memcpy(s->pyver, v, vl);
		s->pyver[vl] = '\0';
	}
	return 0;
}

/* Start the worker and wait for its ready frame. 0, or -1 with r set. */
static int start(struct sess *s, struct result *r)
{
	struct diag d = DIAG_INIT("pysbx", "session");
	uint64_t deadline;
	const char *why = "";
	char how[64];
	bool more;
	struct ev e;
	int st;

	if (sbx_start(&d, s) < 0) {
		startup_failed(s, r, "%s%s%s", d.msg, d.err ? ": " : "",
			       d.err ? strerror(d.err) : "");
		return -1;
	}
	r->started = true;
	deadline = now_ms() + SESS_STARTUP_MS;
	for (;;) {
		wait_ev(s, false, false, deadline, &e);
		if (s->quit) {
			sbx_kill(s, true);
			startup_failed(s, r, "the session was asked to end");
			return -1;
		}
		if (e.out && s->out >= 0)
			sbx_read_output(s, &s->out, &s->cout);
		if (e.err && s->err >= 0)
			sbx_read_output(s, &s->err, &s->cerr);
		if (e.sock) {
			st = read_frame(s, &more);
			if (st == 1 && !more && ready(s, &why) == 0)
				break;
			if (st == 1 || st == -2) {
				if (st == -2)
					why = s->rd.why;
				else if (more)
					why = "more than a ready frame";
				sbx_kill(s, true);
				startup_failed(s, r, "the worker's channel is "
					       "broken: %s", why);
				return -1;
			}
			if (st == -1)
				goto ended;
		}
		if (s->guard_done)
			goto ended;
		if (now_ms() >= deadline) {
			sbx_kill(s, true);
			startup_failed(s, r, "the worker did not start within "
				       "%d s", SESS_STARTUP_MS / 1000);
			return -1;
		}
	}
	s->ready = true;
	/* What the chain said while starting (a skipped read root) is worth
	 * a notice; none of it is an execute's output. */
	if (s->cerr.len)
		note(s, "the sandbox said while starting: %.*s",
		     (int)(s->cerr.len > 200 ? 200 : s->cerr.len), s->cerr.p);
	give_back(&s->cout);
	give_back(&s->cerr);
	return 0;
ended:
	/* The guard says why on stderr (a policy error, a missing
	 * interpreter) and in its exit code: wait for it briefly. */
	deadline = now_ms() + 1000;
	while (!s->guard_done && now_ms() < deadline) {
		wait_ev(s, false, false, deadline, &e);
		if (e.err && s->err >= 0)
			sbx_read_output(s, &s->err, &s->cerr);
	}
	sbx_kill(s, true);
	guard_end(s, how, sizeof(how));
	startup_failed(s, r, "the sandbox ended before the worker was ready "
		       "(%s)", how);
	give_back(&s->cout);
	return -1;
}

/* Check a result frame: known keys only, its id is this request's, its
 * status ok or error. 0, or -1 with *why. */
static int check_result(struct sess *s, struct frame *f, const char *nonce,
			const char **why)
{
	static const char *const keys[] = { "t", "id", "status", "etype",
					    "emsg", "tb", "tbtrunc", "repr",
					    "reprtrunc" };
	const char *v;
	size_t vl;

	if (frame_split(s->rd.buf, s->rd.len, f, why) < 0)
		return -1;
	for (size_t i = 0; i < f->n; i++) {
		size_t k;

		for (k = 0; k < sizeof(keys) / sizeof(keys[0]); k++)
			if (is(f->f[i].key, f->f[i].klen, keys[k]))
				break;
		if (k == sizeof(keys) / sizeof(keys[0]))
			return *why = "a result has an unknown field", -1;
	}
	v = frame_get(f, "t", &vl);
	if (!is(v, vl, "result"))
		return *why = "a frame that is not a result", -1;
	v = frame_get(f, "id", &vl);
	if (!is(v, vl, nonce))
		return *why = "a result for another request", -1;
	v = frame_get(f, "status", &vl);
	if (!is(v, vl, "ok") && !is(v, vl, "error"))
		return *why = "a result without a valid status", -1;
	return 0;
}

/* Is the frame in s->rd the worker's result of the last answered
 * execute (s->late)? Then user code had forged the result that was
 * answered: the frame is dropped (once) and the next execute says so.
 * 0 if it was, -1 if not. */
static int late_result(struct sess *s)
{
	struct frame f;
	const char *why;

	if (!s->late[0] || check_result(s, &f, s->late, &why) < 0)
		return -1;
	s->late[0] = '\0';
	note(s, "the worker's own result of the previous execute came after "
	     "the one answered: user code had forged that one");
	return 0;
}

/* The worker ended (EOF, or the guard exited): its exit status says
 * how. Wait for it briefly, keeping the output. */
static void died(struct sess *s, struct result *r)
{
	uint64_t deadline = now_ms() + 1000;
	char how[64];
	struct ev e;

	while (!s->guard_done && now_ms() < deadline) {
		wait_ev(s, false, false, deadline, &e);
		if (e.out && s->out >= 0)
			sbx_read_output(s, &s->out, &s->cout);
		if (e.err && s->err >= 0)
			sbx_read_output(s, &s->err, &s->cerr);
	}
	sbx_kill(s, true);
	guard_end(s, how, sizeof(how));
	r->status = "worker_died";
	r->lost = LOST_DIED;
	r->have_frame = false;
	snprintf(r->msgbuf, sizeof(r->msgbuf), "the worker ended during the "
		 "execute (sandbox %s)", how);
	r->message = r->msgbuf;
}

/* Send the request frame (tx, txlen) and wait for its result. */
static void run(struct sess *s, const struct request *q, struct result *r,
		const char *tx, size_t txlen, const char *nonce)
{
	uint64_t deadline = now_ms() + q->timeout_ms;
	size_t sent = 0;
	const char *why, *v;
	bool more = false;
	struct ev e;
	size_t vl;
	int st;

	for (;;) {
		if (sent < txlen) {
			ssize_t k = write(s->sock, tx + sent, txlen - sent);

			if (k > 0)
				sent += (size_t)k;
			else if (k < 0 && errno != EAGAIN && errno != EINTR)
				return died(s, r);
		}
		if (sent == txlen)
			br_flush(s);
		/* Bytes already read wait in s->pend: no poll for them. */
		if (s->pend_len) {
			memset(&e, 0, sizeof(e));
			e.sock = true;
		} else {
			wait_ev(s, br_want_input(s),
				sent < txlen || br_want_write(s), deadline, &e);
		}
		/* The caller's answers to bridged calls. */
		if (e.in)
			br_input(s);
		if (s->quit)
			return fail_now(s, r, "cancelled", LOST_CANCELLED,
					"the session was asked to end");
		if (e.out && s->out >= 0)
			sbx_read_output(s, &s->out, &s->cout);
		if (e.err && s->err >= 0)
			sbx_read_output(s, &s->err, &s->cerr);
		if (s->overflow)
			return fail_now(s, r, "output_limit", LOST_OUTPUT,
					"stdout and stderr passed %d bytes; "
					"the sandbox was killed",
					SESS_OUTPUT_MAX);
		if (e.sock) {
			st = read_frame(s, &more);
			if (st == -1)
				return died(s, r);
			if (st == -2)
				return fail_now(s, r, "protocol_error",
						LOST_PROTOCOL, "the worker's "
						"channel is broken: %s",
						s->rd.why);
			if (st == 1 && late_result(s) == 0)
				continue;
			/* A bridged call: checked, then the caller's. */
			if (st == 1 && frame_split(s->rd.buf, s->rd.len, &r->f,
						   &why) == 0) {
				int b = br_frame(s, &r->f);

				if (b == -2)
					return fail_now(s, r, "protocol_error",
							LOST_PROTOCOL, "the "
							"worker's channel is "
							"broken: a malformed "
							"call");
				if (b == 0)
					continue;
			}
			if (st == 1)
				break;
		}
		if (s->guard_done)
			return died(s, r);
		if (now_ms() >= deadline)
			return fail_now(s, r, "timeout", LOST_TIMEOUT,
					"the execute ran past its timeout of "
					"%u ms; the sandbox was killed",
					q->timeout_ms);
	}
	if (check_result(s, &r->f, nonce, &why) < 0)
		return fail_now(s, r, "protocol_error", LOST_PROTOCOL,
				"the worker's channel is broken: %s", why);
	r->have_frame = true;
	memcpy(s->late, nonce, sizeof(s->late));
	v = frame_get(&r->f, "status", &vl);
	r->status = is(v, vl, "ok") ? "ok" : "error";
	/* Everything the worker printed is in the pipes already: it wrote
	 * it before it sent the result. */
	if (s->out >= 0)
		sbx_read_output(s, &s->out, &s->cout);
	if (s->err >= 0)
		sbx_read_output(s, &s->err, &s->cerr);
	if (s->overflow) {
		/* The result frame stays in s->rd.buf: it is kept. */
		sbx_kill(s, true);
		r->status = "output_limit";
		r->lost = LOST_OUTPUT;
		r->message = "stdout and stderr passed the limit; the sandbox "
			     "was killed";
	} else if (more) {
		/* More on the channel right after the result: user code
		 * writes to it. The result stays; the worker goes. */
		sbx_kill(s, true);
		r->lost = LOST_PROTOCOL;
		r->message = "the worker wrote more after its result "
			     "(protocol error); the sandbox was killed";
	}
}

static void field(struct jw *w, const struct frame *f, const char *fkey,
		  const char *key, size_t max, bool *cut)
{
	size_t vl = 0;
	const char *v = frame_get(f, fkey, &vl);

	if (!v) {
		jw_knull(w, key);
		return;
	}
	/* The host's own limit, whatever the worker claims. */
	if (vl > max) {
		vl = max;
		*cut = true;
	}
	jw_kbytes(w, key, v, vl);
}

static bool flag(const struct frame *f, const char *key)
{
	size_t vl;
	const char *v = frame_get(f, key, &vl);

	return is(v, vl, "1");
}

static int respond(struct sess *s, const struct request *q,
		   const struct result *r, struct jw *w)
{
	bool vcut = false, tcut = false, mcut = false;
	size_t vl;

	head(w, q, true, "execute");
	jw_kstr(w, "status", r->status);
	jw_kbytes(w, "stdout", s->cout.p, s->cout.len);
	jw_kbytes(w, "stderr", s->cerr.p, s->cerr.len);
	jw_knum(w, "stdoutBytes", (long long)s->cout.len);
	jw_knum(w, "stderrBytes", (long long)s->cerr.len);
	jw_kbool(w, "outputTruncated", s->overflow);
	if (r->have_frame && frame_get(&r->f, "repr", &vl)) {
		field(w, &r->f, "repr", "value", SESS_REPR_MAX, &vcut);
		jw_kbool(w, "valueTruncated", vcut || flag(&r->f, "reprtrunc"));
	} else {
		jw_knull(w, "value");
		jw_kbool(w, "valueTruncated", false);
	}
	if (r->have_frame && !strcmp(r->status, "error")) {
		jw_key(w, "exception");
		jw_begin(w);
		field(w, &r->f, "etype", "type", SESS_MESSAGE_MAX, &mcut);
		field(w, &r->f, "emsg", "message", SESS_MESSAGE_MAX, &mcut);
		field(w, &r->f, "tb", "traceback", SESS_TRACEBACK_MAX, &tcut);
		jw_kbool(w, "tracebackTruncated",
			 tcut || flag(&r->f, "tbtrunc"));
		jw_kbool(w, "messageTruncated", mcut);
		jw_end(w);
	} else {
		jw_knull(w, "exception");
	}
	if (r->message)
		jw_kstr(w, "message", r->message);
	jw_kbool(w, "stateLost", r->lost != NULL);
	if (r->lost)
		jw_kstr(w, "stateLostReason", r->lost);
	else
		jw_knull(w, "stateLostReason");
	jw_kbool(w, "workerStarted", r->started);
	jw_knum(w, "generation", s->gen);
	jw_kbool(w, "fresh", s->fresh || q->fresh);
	br_report(s, w);
	jw_knum(w, "durationMs", (long long)(now_ms() - r->t0));
	if (s->notice[0])
		jw_kstr(w, "notice", s->notice);
	jw_end(w);
	return jw_flush(w);
}

static int do_execute(struct sess *s, const struct request *q, char *tx,
		      struct jw *w)
{
	struct result r = { .status = "ok", .t0 = now_ms() };
	struct mbuf pre = { 0 };
	char *pl = tx + SESS_FRAME_MAX / 2;
	size_t cap = SESS_FRAME_MAX / 2 - 32, plen = 0, flen = 0;
	unsigned char rnd[8];
	char nonce[17];
	int ret;

	s->overflow = false;
	/* A fresh id per request: a result is accepted only with it. */
	if (getrandom(rnd, sizeof(rnd), 0) != sizeof(rnd))
		memset(rnd, 0, sizeof(rnd));
	for (int i = 0; i < 8; i++)
		snprintf(nonce + 2 * i, 3, "%02x", rnd[i]);
	if ((q->fresh || s->fresh) && s->guard)
		sbx_kill(s, false);
	if (!s->guard && start(s, &r) < 0)
		goto out;
	s->lost[0] = '\0';
	br_begin(s, nonce, q->id, &pre);
	/* The payload in the upper half of tx, framed into the lower. */
	if (frame_put(pl, cap, &plen, "t", 1) < 0 ||
	    frame_put(pl, cap, &plen, "exec", 4) < 0 ||
	    frame_put(pl, cap, &plen, "id", 2) < 0 ||
	    frame_put(pl, cap, &plen, nonce, 16) < 0 ||
	    frame_put(pl, cap, &plen, "code", 4) < 0 ||
	    frame_put(pl, cap, &plen, q->code, q->code_len) < 0 ||
	    frame_put(tx, SESS_FRAME_MAX / 2, &flen, pl, plen) < 0) {
		fail_now(s, &r, "protocol_error", LOST_PROTOCOL,
			 "the request does not fit in a frame");
		goto out;
	}
	if (pre.len) {
		/* The bridge's frames first, in the same write stream. */
		mbuf_put(&pre, tx, flen);
		if (pre.oom) {
			fail_now(s, &r, "protocol_error", LOST_PROTOCOL,
				 "out of memory for the request's frames");
			goto out;
		}
		run(s, q, &r, pre.p, pre.len, nonce);
	} else {
		run(s, q, &r, tx, flen, nonce);
	}
	br_end(s, r.status);
	if ((q->fresh || s->fresh) && s->guard)
		sbx_kill(s, true);
out:
	mbuf_free(&pre);
	ret = respond(s, q, &r, w);
	/* The result frame is answered: its pages go back (a frame being
	 * read after it is still in s->pend, not in fbuf). */
	if (s->rd.len > 4096)
		madvise(s->fbuf, SESS_FRAME_MAX, MADV_DONTNEED);
	s->notice[0] = '\0';
	give_back(&s->cout);
	give_back(&s->cerr);
	s->overflow = false;
	return ret;
}

/* --- requests -------------------------------------------------------- */

static int handle(struct sess *s, char *line, size_t n, char *tx,
		  struct jw *w)
{
	struct request q;
	const char *code;
	char msg[256];

	switch (br_request(s, line, n, w)) {
	case 1:
		return 0;
	case -1:
		return -1;
	}
	if (req_parse(line, n, &q, &code, msg, sizeof(msg)) < 0)
		return refuse(w, &q, code, msg);
	switch (q.action) {
	case REQ_EXECUTE:
		return do_execute(s, &q, tx, w);
	case REQ_RESET:
		return do_reset(s, &q, w);
	case REQ_STATUS:
		return do_status(s, &q, w);
	default:
		return sess_mounts(s, &q, w);
	}
}

static int too_large(struct jw *w)
{
	char msg[96];

	snprintf(msg, sizeof(msg), "a request line is longer than the frame "
		 "limit of %d bytes", SESS_FRAME_MAX);
	return refuse(w, NULL, REQ_ERR_TOO_LARGE, msg);
}

/* Handle the complete lines in in; refuse one longer than the frame limit
 * (then skip to its end). */
static int lines(struct sess *s, struct inbuf *in, char *tx, struct jw *w)
{
	while (!s->quit) {
		char *nl = memchr(in->p, '\n', in->len);
		size_t n;

		if (!nl) {
			if (in->len < SESS_FRAME_MAX)
				return 0;
			if (!in->skipping && too_large(w) < 0)
				return -1;
			in->skipping = true;
			in->len = 0;
			return 0;
		}
		n = (size_t)(nl - in->p);
		if (n && in->p[n - 1] == '\r')
			n--;
		in->busy = (size_t)(nl - in->p) + 1;
		if (in->skipping)
			in->skipping = false;
		else if (n && handle(s, in->p, n, tx, w) < 0)
			return -1;
		in->busy = 0;
		n = (size_t)(nl - in->p);
		memmove(in->p, nl + 1, in->len - n - 1);
		in->len -= n + 1;
	}
	return 0;
}

int sess_serve(struct sess *s)
{
	struct inbuf in = { NULL, 0, false, false, 0 };
	struct jw w;
	char *tx;
	struct ev e;

	in.p = mmap(NULL, SESS_FRAME_MAX + 1, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	tx = mmap(NULL, SESS_FRAME_MAX, PROT_READ | PROT_WRITE,
		  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (in.p == MAP_FAILED || tx == MAP_FAILED)
		return -1;
	jw_init(&w, 1);
	s->inb = &in;
	s->w = &w;
	while (!s->quit && !in.eof) {
		wait_ev(s, true, false, 0, &e);
		if (s->guard && (e.out || e.err || e.sock || s->guard_done))
			idle_event(s, &e);
		if (!e.in)
			continue;
		{
			ssize_t k = read(0, in.p + in.len,
					 SESS_FRAME_MAX - in.len);

			if (k < 0 && errno != EAGAIN && errno != EINTR)
				break;
			if (k == 0) {
				in.eof = true;
				/* A last line without its newline. */
				if (in.len && !in.skipping)
					in.p[in.len++] = '\n';
			}
			if (k > 0)
				in.len += (size_t)k;
		}
		if (lines(s, &in, tx, &w) < 0)
			break;	/* the caller is gone (EPIPE) */
		if (in.len == 0) {
			madvise(tx, SESS_FRAME_MAX, MADV_DONTNEED);
			madvise(in.p, SESS_FRAME_MAX + 1, MADV_DONTNEED);
		}
	}
	sbx_kill(s, false);
	return 0;
}
