/* The host's state, shared by sandbox.c, host.c and main.c (internal to
 * pkg/session). */
#ifndef PYSBX_SESSION_HOST_H
#define PYSBX_SESSION_HOST_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "guard/guard.h"
#include "session/session.h"

#define SESS_VARS_MAX 64
#define SESS_WORKER_MAX (64 * 1024)	/* the worker's source */
#define SESS_PYC_MAX (128 * 1024)	/* its compiled code */

/* The variables the session sets for the policy, as bits of omit. */
enum {
	OWN_SESSION_FD,
	OWN_SCRATCH_MODE,
	OWN_SCRATCH_DIR,
	OWN_WORKSPACE,
	OWN_WORKSPACE_MOUNT,
	OWN_READ_ROOTS,
	OWN_COUNT
};
extern const char *const sess_own_vars[OWN_COUNT];

/* Captured output of one stream: pages of an anonymous mapping, touched
 * only as far as output came, given back after every execute (the host
 * stays small while idle). */
struct cap {
	char *p;
	size_t len;
};

/* The caller's input: requests, one a line. */
struct inbuf {
	char *p;		/* SESS_FRAME_MAX + 1, mapped */
	size_t len;
	bool skipping;		/* inside a line that was too long */
	bool eof;
	size_t busy;		/* the line being handled: its bytes stay at
				 * the front until it is answered */
};

struct bridge;

struct sess {
	/* configuration (main.c) */
	char dir[PATH_MAX];	/* the pysbx programs */
	const char *policy;
	bool allow_untrusted;
	bool fresh;		/* every execute in a new sandbox */
	const char *python;
	char *worker_src;	/* the worker's source */
	size_t worker_len;
	char *worker_pyc;	/* its precompiled code, or NULL */
	size_t pyc_len;
	const char *workspace;	/* -D WORKSPACE, NULL: the policy's */
	size_t nvars;
	char *vars[SESS_VARS_MAX];	/* the caller's -D NAME=VALUE */
	/* mounts that may change between executes */
	char *ws_mount;		/* WORKSPACE_MOUNT: NULL, "ro-bind", "bind" */
	char *read_roots;	/* READ_ROOTS, NULL: none */
	unsigned omit;		/* 1 << OWN_*: variables the policy does not
				 * use (passing them is an error) */
	struct scratch scratch;

	/* the sandbox (sandbox.c) */
	pid_t guard;		/* 0: none running */
	int sock, out, err;	/* host ends; -1 when closed */
	bool ready;		/* the worker said ready */
	bool guard_done;	/* the guard was reaped */
	int guard_status;	/* its wait status then */
	unsigned gen;		/* workers started so far */
	long worker_pid;	/* in the sandbox's pid namespace */
	char pyver[32];
	int sfd;		/* signalfd: SIGCHLD, SIGTERM, SIGINT, SIGHUP */
	int quit;		/* a signal asked us to end: its number */
	bool reap_failed;	/* a kill left a process behind */

	/* the channel */
	char *fbuf;		/* SESS_FRAME_MAX, mapped */
	struct frame_rd rd;
	size_t pend_off, pend_len;	/* read, not yet given to rd */
	char pend[16384];

	/* between executes */
	char lost[256];		/* why the last worker was lost while idle */
	char late[17];		/* the id of the last answered execute: its
				 * result may still come once, late, when
				 * user code forged the one answered */
	char notice[256];	/* for the next execute's result */

	/* capture of the current execute */
	struct cap cout, cerr;
	bool overflow;
	char startup[4096];	/* the first stderr bytes while starting */

	/* the tool bridge (bridge.c): the caller's input and output, which
	 * it reads and writes while an execute runs */
	struct inbuf *inb;
	struct jw *w;
	struct bridge *br;
	size_t startup_len;
};

/* --- host.c --------------------------------------------------------- */

/* Serve requests from fd 0, responses to fd 1, until EOF or a signal
 * (s->quit). The sandbox is killed at the end. 0, or -1 when the buffers
 * could not be mapped. */
int sess_serve(struct sess *s);

/* --- bridge.c ------------------------------------------------------- */

#define BR_INFLIGHT_MAX 16	/* bridged calls in flight, per execute */

/* A request of the bridge's: "tools" (answered on w) or "tool_result"
 * (taken; it gets no response line). 1 handled, 0 not one of them (for
 * req_parse), -1 the caller is gone. */
int br_request(struct sess *s, const char *line, size_t n, struct jw *w);

/* An execute begins (the worker is up): the frames to send before its
 * exec frame (the declared tools, when this worker has not had them)
 * are appended to pre. */
void br_begin(struct sess *s, const char *nonce, const char *reqid,
	      struct mbuf *pre);

/* A frame from the worker while the execute runs: 0 it was a call (taken:
 * forwarded to the caller as a tool_call event, or refused to the
 * worker), -1 not a call, -2 a call that cannot be answered (the channel
 * is broken). */
int br_frame(struct sess *s, const struct frame *f);

/* While an execute runs: read the caller's input (tool_result lines)? */
bool br_want_input(const struct sess *s);
void br_input(struct sess *s);
/* The tool_result lines among what s->inb holds after the line being
 * handled (br_input, after its read). */
void br_take(struct sess *s);
/* Frames queued for the worker? Write what the socket takes. */
bool br_want_write(const struct sess *s);
void br_flush(struct sess *s);

/* The execute ended with status: calls in flight are over. */
void br_end(struct sess *s, const char *status);

/* "nestedCalls" of the execute's response. */
void br_report(struct sess *s, struct jw *w);

/* Free the bridge (the session's end; the fuzz target). */
void br_free(struct sess *s);

/* --- mounts.c ------------------------------------------------------- */

/* The mounts action: a new workspace mode and read roots for the next
 * sandbox; the running one (if any) is killed and the next execute says
 * so. Roots that cannot be mounted are skipped, each with its reason, in
 * the response. Writes the response; 0 or -1 (the caller is gone). */
int sess_mounts(struct sess *s, const struct request *q, struct jw *w);

/* --- probe.c -------------------------------------------------------- */

struct probe {
	unsigned unused;	/* 1 << OWN_*: ours that the policy does not
				 * use */
	int errors, warnings;	/* other than those */
	char first[512];	/* the first other message, "" none */
};

/* Parse the policy as the guard will (our variables but those in omit,
 * WORKSPACE_MOUNT ws and READ_ROOTS roots when not NULL, the caller's
 * -D), in this process. 0, or -1 (errno ENOMEM) when out of memory. */
int sess_probe(const struct sess *s, unsigned omit, const char *ws,
	       const char *roots, struct probe *pr);

/* --- sandbox.c ------------------------------------------------------ */

/* Start the chain with a new worker (s->gen incremented). 0, or -1 with
 * d set (nothing is left running). */
int sbx_start(struct diag *d, struct sess *s);

/* Kill the whole sandbox (SIGKILL to the guard: the pid namespace takes
 * every process with it), reap everything (bounded by SESS_CLEANUP_MS),
 * read what is left in the output pipes (into the capture when capture
 * is true, else discarded), close the host's ends. No-op when none runs. */
void sbx_kill(struct sess *s, bool capture);

/* Read the signalfd (non-blocking): SIGTERM, SIGINT or SIGHUP set
 * s->quit (the first one); SIGCHLD only wakes the caller up. */
void sbx_signals(struct sess *s);

/* Reap whatever exited (WNOHANG); records the guard's status. */
void sbx_reap(struct sess *s);

/* Read what the pipe fd holds now into c (up to the output limit shared
 * by both captures; past it s->overflow is set and the rest is dropped),
 * or discard it when c is NULL. Returns 0, or -1 at EOF (fd closed and
 * set to -1). */
int sbx_read_output(struct sess *s, int *fd, struct cap *c);

/* Milliseconds of CLOCK_MONOTONIC. */
uint64_t now_ms(void);

#endif
