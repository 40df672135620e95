/* mcp: `pysbx mcp`, the session as a Model Context Protocol server on
 * stdio (docs/MCP.md).
 *
 *   server.c  JSON-RPC 2.0 over newline-delimited stdio: initialize,
 *             ping, tools/list, tools/call, notifications/cancelled and
 *             progress; the loop
 *   tool.c    the python tool: its schemas, its arguments turned into a
 *             session request, the session's response turned into the
 *             model's text and structuredContent
 *   child.c   one `pysbx session` per named session: a forked child
 *             running session_main on a socketpair, the JSON-lines
 *             protocol of docs/SESSION.md on it
 *
 * The MCP server is a front end of the session, not a second one: every
 * request the model makes becomes a session request line, handled by
 * pkg/session's own loop (host.c) in a child process, and every answer is
 * that loop's response line, rendered. A child per named session keeps
 * sessions apart (each its own sandbox, scratch directory and process)
 * and lets this process keep reading stdin (ping, cancel, other
 * sessions) while one executes. Like every pkg/ module, nothing here
 * exits but the forked child; only mcp_main returns the exit code.
 */
#ifndef PYSBX_MCP_H
#define PYSBX_MCP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "session/session.h"
#include "util/jv.h"
#include "util/mbuf.h"

#define MCP_FRAME_MAX (1024 * 1024)	/* one message from the client */
#define MCP_NODES_MAX 8192		/* JSON values in one message */
#define MCP_SESSIONS_DEFAULT 8
#define MCP_SESSIONS_MAX 64
#define MCP_SESSION_NAME_MAX 64
#define MCP_QUEUE_MAX 32		/* calls waiting, all sessions */
#define MCP_TEXT_MAX (50 * 1024)	/* the model-facing text */
#define MCP_TEXT_LINES 2000
#define MCP_REPLY_MAX (16 * 1024 * 1024)	/* one session response */
#define MCP_ID_MAX 160			/* a request id, as JSON text */

#define MCP_V_OLD "2025-06-18"
#define MCP_V_NEW "2025-11-25"

#define MCP_USAGE                                                            \
	"pysbx mcp [--max-sessions N] [session options: -p POLICY, -D, "     \
	"--workspace DIR, ...]"

/* `pysbx mcp ...` (argv[0] "mcp"): serve MCP on stdin and stdout until
 * EOF or SIGTERM/SIGINT/SIGHUP. 0 at a clean end, 100 bad usage, 111 a
 * system call failed, 128+N after signal N. */
int mcp_main(int argc, char **argv);

/* --- tool.c -------------------------------------------------------- */

enum { TOOL_PYTHON = 0, TOOL_COUNT };

extern const char *const mcp_tool_names[TOOL_COUNT];

/* The tools/list result's "tools" array, as JSON text. */
void tool_list(struct jw *w);

/* What a tools/call of the python tool asks for. */
struct tool_call {
	char session[MCP_SESSION_NAME_MAX + 1];
	char error[256];	/* the arguments are refused: why */
};

/* The python tool's arguments (node args of j, or -1: none) as a session
 * request line (with "id":seq, no newline) into line. 0, or -1 with
 * c->error set (a tool error, for the model to correct). */
int tool_request(const struct jv *j, int args, unsigned seq,
		 struct tool_call *c, struct mbuf *line);

/* The session's response (parsed: jp, NULL when it did not parse) as a
 * tools/call result
 * object ({"content":[...],"structuredContent":{...},"isError":...})
 * written to w; structuredContent is the response with "session" (the
 * session's name) for its "id". note: a line for the model first (the session was
 * restarted), or NULL. A response that does not parse (it never should)
 * is a tool error saying so. */
void tool_result(struct jw *w, const struct jv *jp, const char *note,
		 const char *session);

/* A tools/call result that is only an error text for the model. */
void tool_error(struct jw *w, const char *msg);

/* Bounded copy: at most max bytes and lines of src into b, head and
 * tail kept around a "[... N bytes, M lines omitted ...]" line, never
 * splitting a UTF-8 sequence. Returns the lines written. */
size_t tool_clip(struct mbuf *b, const char *src, size_t n, size_t max,
		 size_t lines);

/* --- server.c ------------------------------------------------------ */

struct mcp_call;

struct mcp_child {
	char name[MCP_SESSION_NAME_MAX + 1];
	pid_t pid;		/* 0: not running */
	int fd;			/* the session's stdin and stdout; -1 */
	char *in;		/* MCP_REPLY_MAX, mapped */
	size_t inlen;
	bool skipping;		/* inside a response over MCP_REPLY_MAX */
	struct mcp_call *run;	/* sent, its response pending */
	unsigned seq;
	unsigned restarts;
	bool lost;		/* it ended: say so in the next result */
	bool ending;		/* interrupted by a signal that ends it: no
				 * call is sent until it is reaped */
	int status;		/* its wait status then */
};

struct mcp_call {
	char id[MCP_ID_MAX];		/* the JSON-RPC id, as JSON text */
	char token[MCP_ID_MAX];		/* the progressToken, "" none */
	struct mbuf line;		/* the session request line */
	struct mcp_child *child;
	bool cancelled;
	unsigned progress;
	struct mcp_call *next;
};

struct mcp {
	int max_sessions;
	int sargc;
	char **sargv;		/* "session" and the session options */
	struct mcp_child *ch;	/* max_sessions of them */
	int nch;
	struct mcp_call *queue;	/* waiting calls, in arrival order */
	int nqueued;
	bool initialized;
	char version[16];
	int sfd;
	int quit;
	struct jw w;		/* to the client (fd 1) */
	/* Start the session of c (child.c; the fuzz target's own). 0, or
	 * -1 with msg (the model is told). */
	int (*spawn)(struct mcp *m, struct mcp_child *c, char *msg,
		     size_t len);
	/* Send the request line of call to its session. 0 or -1. */
	int (*send)(struct mcp *m, struct mcp_call *call);
	/* Interrupt the running execute of c. */
	void (*interrupt)(struct mcp *m, struct mcp_child *c);
};

/* Handle one message from the client (line, n bytes, no newline; the
 * buffer is the caller's and may be changed). Answers go to m->w. */
void mcp_message(struct mcp *m, char *line, size_t n);

/* A response line (or an event) of c's session. */
void mcp_reply(struct mcp *m, struct mcp_child *c, char *line, size_t n);

/* c's session ended (status: its wait status): its running call gets a
 * tool error; waiting ones start a new session. */
void mcp_child_ended(struct mcp *m, struct mcp_child *c);

/* The call (no longer any session's run) failed: the model gets msg as a
 * tool error (unless the call was cancelled); the call is freed. */
void mcp_call_failed(struct mcp *m, struct mcp_call *c, const char *msg);

/* Send waiting calls to idle sessions. */
void mcp_pump(struct mcp *m);

/* Free every call, waiting or running (the end; the fuzz target). */
void mcp_free_calls(struct mcp *m);

/* A message over MCP_FRAME_MAX was skipped. */
void mcp_too_large(struct mcp *m);

/* --- child.c ------------------------------------------------------- */

int child_spawn(struct mcp *m, struct mcp_child *c, char *msg, size_t len);
int child_send(struct mcp *m, struct mcp_call *call);
void child_interrupt(struct mcp *m, struct mcp_child *c);
/* Read what c's session wrote; whole lines go to mcp_reply. -1 at EOF. */
int child_read(struct mcp *m, struct mcp_child *c);
/* End every session (SIGTERM, then wait, bounded) */
void child_stop_all(struct mcp *m);
/* Reap ended sessions (WNOHANG). */
void child_reap(struct mcp *m);

#endif
