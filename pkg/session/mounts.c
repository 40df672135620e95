/* The mounts action (not yet): refused. */
#include "session/host.h"

int sess_mounts(struct sess *s, const struct request *q, struct jw *w)
{
	(void)s;
	(void)q;
	jw_begin(w);
	jw_kbool(w, "ok", false);
	jw_key(w, "error");
	jw_begin(w);
	jw_kstr(w, "code", "unknown_action");
	jw_kstr(w, "message", "mounts is not supported yet");
	jw_end(w);
	jw_end(w);
	return jw_flush(w);
}
