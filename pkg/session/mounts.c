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

#include <limits.h>

#include "session/host.h"

/* Why the policy will not take root as a read root ("" if it will). */
static void check_root(struct sess *s, const char *ws, const char *root,
		       char *why, size_t len)
{
	struct probe pr;
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
	if (strlen(root) >= PATH_MAX) {
		snprintf(why, len, "too long");
		return;
	}
	if (sess_probe(s, s->omit, ws, root, &pr) < 0) {
		snprintf(why, len, "the policy could not be checked");
		return;
	}
	if (pr.unused & (1u << OWN_READ_ROOTS)) {
		snprintf(why, len, "the policy takes no read roots (no "
			 "${READ_ROOTS})");
		return;
	}
	if (pr.errors || pr.warnings) {
		m = pr.first[0] ? pr.first : "the policy refuses it";
		/* "file:line:col: error: MSG": the message alone. */
		if (strstr(m, ": error: "))
			m = strstr(m, ": error: ") + 9;
		else if (strstr(m, ": warning: "))
			m = strstr(m, ": warning: ") + 11;
		snprintf(why, len, "%s", m);
	}
}

static bool same(const char *a, const char *b)
{
	return !strcmp(a ? a : "", b ? b : "");
}

int sess_mounts(struct sess *s, const struct request *q, struct jw *w)
{
	static char *owned;	/* read_roots when this file made it */
	size_t len = 0;
	char *roots = NULL, why[512];
	const char *ws = s->ws_mount;
	bool changed, killed = false, first = true;

	if (q->ws_writable >= 0 && (s->omit & (1u << OWN_WORKSPACE_MOUNT))) {
		jw_begin(w);
		if (q->id[0]) {
			jw_key(w, "id");
			jw_raw(w, q->id, strlen(q->id));
		}
		jw_kbool(w, "ok", false);
		jw_key(w, "error");
		jw_begin(w);
		jw_kstr(w, "code", "bad_field");
		jw_kstr(w, "message", "the policy has no ${WORKSPACE_MOUNT}: "
			"its workspace mode cannot change");
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
			check_root(s, ws, q->roots[i], why, sizeof(why));
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
	return jw_flush(w);
}
