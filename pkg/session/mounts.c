/* The mounts action: the workspace's mode and the read roots change
 * between executes. The sandbox running with the old mounts (if any) is
 * killed; the next execute starts one with the new mounts and its result
 * says so (notice). Each read root is checked first by parsing the policy
 * with it alone, exactly as the guard will: a root the policy refuses
 * (one that collides with a sandbox path) or skips (one inside a
 * directory already mounted, the project) is left out, with the policy's
 * own reason, instead of making the next start fail. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy/policy.h"
#include "session/host.h"

/* The -D set of the chain (as sandbox.c builds it), with READ_ROOTS set
 * to root (NULL: none) and WORKSPACE_MOUNT to ws. */
static int vars_for(struct sess *s, struct vars *v, char *strs, size_t cap,
		    const char *ws, const char *root)
{
	char err[256];
	size_t used = 0;
	char *w;

	memset(v, 0, sizeof(*v));
#define ADD(...)                                                             \
	do {                                                                 \
		int n_ = snprintf(strs + used, cap - used, __VA_ARGS__);     \
		if (n_ < 0 || (size_t)n_ >= cap - used)                      \
			return -1;                                           \
		w = strs + used;                                             \
		used += (size_t)n_ + 1;                                      \
		if (vars_add_arg(v, w, err, sizeof(err)) < 0)                \
			return -1;                                           \
	} while (0)
	ADD("SESSION_FD=%d", SESS_WORKER_FD);
	ADD("SCRATCH_MODE=adopt");
	ADD("SCRATCH_DIR=%s", s->scratch.path);
	if (s->workspace)
		ADD("WORKSPACE=%s", s->workspace);
	if (ws)
		ADD("WORKSPACE_MOUNT=%s", ws);
	if (root)
		ADD("READ_ROOTS=%s", root);
#undef ADD
	for (size_t i = 0; i < s->nvars; i++)
		if (vars_add_arg(v, s->vars[i], err, sizeof(err)) < 0)
			return -1;
	return 0;
}

/* Why the policy will not take root as a read root ("" if it will). */
static void check_root(struct sess *s, const char *ws, const char *root,
		       char *why, size_t len, struct perr *e, char *strs,
		       size_t cap)
{
	struct vars v;
	struct plan p;
	const char *m;

	why[0] = '\0';
	if (root[0] != '/') {
		snprintf(why, len, "not an absolute path");
		return;
	}
	if (strchr(root, ':')) {
		snprintf(why, len, "a path holding ':' cannot be a read root");
		return;
	}
	if (vars_for(s, &v, strs, cap, ws, root) < 0 || plan_init(&p) < 0) {
		snprintf(why, len, "too long");
		return;
	}
	if (policy_parse_file(&p, s->policy, &v, 0, e) < 0 || e->warnings) {
		m = e->n ? e->msg[0] : "the policy refuses it";
		/* "file:line:col: error: MSG": the message alone. */
		if (strstr(m, ": error: "))
			m = strstr(m, ": error: ") + 9;
		else if (strstr(m, ": warning: "))
			m = strstr(m, ": warning: ") + 11;
		snprintf(why, len, "%s", m);
	}
	plan_free(&p);
}

static bool same(const char *a, const char *b)
{
	return !strcmp(a ? a : "", b ? b : "");
}

int sess_mounts(struct sess *s, const struct request *q, struct jw *w)
{
	static char *owned;	/* read_roots when this file made it */
	size_t cap = 64 * 1024, len = 0;
	char *roots = NULL, *strs = malloc(cap), why[512];
	const char *ws = s->ws_mount;
	struct perr *e = malloc(sizeof(*e));
	bool changed, killed = false, first = true;

	if (!strs || !e) {
		free(strs);
		free(e);
		jw_begin(w);
		jw_kbool(w, "ok", false);
		jw_key(w, "error");
		jw_begin(w);
		jw_kstr(w, "code", "no_memory");
		jw_kstr(w, "message", "out of memory");
		jw_end(w);
		jw_end(w);
		return jw_flush(w);
	}
	if (q->ws_writable >= 0)
		ws = q->ws_writable ? "bind" : "ro-bind";
	if (q->id[0]) {
		jw_begin(w);
		jw_key(w, "id");
		jw_raw(w, q->id, strlen(q->id));
	} else {
		jw_begin(w);
	}
	jw_kbool(w, "ok", true);
	jw_kstr(w, "action", "mounts");
	jw_key(w, "skipped");
	jw_raw(w, "[", 1);
	if (q->roots_given) {
		roots = malloc(REQ_ROOTS_MAX * (PATH_MAX + 1) + 1);
		if (roots)
			roots[0] = '\0';
		for (size_t i = 0; roots && i < q->nroots; i++) {
			check_root(s, ws, q->roots[i], why, sizeof(why), e,
				   strs, cap);
			if (!why[0] && strlen(q->roots[i]) > PATH_MAX)
				snprintf(why, sizeof(why), "too long");
			if (why[0]) {
				if (!first)
					jw_raw(w, ",", 1);
				first = false;
				jw_begin(w);
				jw_kstr(w, "path", q->roots[i]);
				jw_kstr(w, "reason", why);
				jw_end(w);
				continue;
			}
			len += (size_t)sprintf(roots + len, "%s%s",
					       len ? ":" : "", q->roots[i]);
		}
	}
	jw_raw(w, "]", 1);
	w->first = false;
	changed = !same(ws, s->ws_mount) ||
		  (q->roots_given && !same(roots, s->read_roots));
	if (changed) {
		if (ws != s->ws_mount)
			s->ws_mount = (char *)ws;
		if (q->roots_given) {
			free(owned);
			owned = roots;
			s->read_roots = roots && roots[0] ? roots : NULL;
			roots = NULL;
		}
		if (s->guard) {
			sbx_kill(s, false);
			killed = true;
		}
		snprintf(s->notice, sizeof(s->notice), "the mounts changed "
			 "(workspace %s, read roots '%s'): %s",
			 s->ws_mount && !strcmp(s->ws_mount, "bind") ?
				 "read-write" : "read-only",
			 s->read_roots ? s->read_roots : "",
			 killed ? "the sandbox was restarted with them and "
				  "the interpreter's state is lost" :
				  "the sandbox starts with them");
	}
	free(roots);
	jw_kbool(w, "changed", changed);
	jw_kbool(w, "killed", killed);
	jw_kbool(w, "workspaceWritable", s->ws_mount &&
					 !strcmp(s->ws_mount, "bind"));
	jw_kstr(w, "readRoots", s->read_roots ? s->read_roots : "");
	jw_end(w);
	free(strs);
	free(e);
	return jw_flush(w);
}
