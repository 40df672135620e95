/* What the policy makes of the session's variables, learned by parsing it
 * as the guard will, in the host itself. A child process would keep the
 * parser's memory out of the host, but its fork, the copy-on-write faults
 * on both sides and its exit cost 0.5-2.7 ms of a cold start on the VMs
 * we measure (docs/BENCHMARKS.md); the parser's arena chunks stay in the
 * host for reuse by the next probe (pkg/util/alloc.c keeps what it
 * touched): 60 KiB with python.policy. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "policy/policy.h"
#include "session/host.h"

const char *const sess_own_vars[OWN_COUNT] = {
	"SESSION_FD", "SCRATCH_MODE", "SCRATCH_DIR", "WORKSPACE",
	"WORKSPACE_MOUNT", "READ_ROOTS",
};

/* "NAME=VALUE" of our variable i for this session, or NULL (not set). */
static int own_value(const struct sess *s, int i, const char *ws,
		     const char *roots, char *buf, size_t len)
{
	const char *v = NULL;
	char fd[8];

	switch (i) {
	case OWN_SESSION_FD:
		snprintf(fd, sizeof(fd), "%d", SESS_WORKER_FD);
		v = fd;
		break;
	case OWN_SCRATCH_MODE:
		v = "adopt";
		break;
	case OWN_SCRATCH_DIR:
		v = s->scratch.path;
		break;
	case OWN_WORKSPACE:
		v = s->workspace;
		break;
	case OWN_WORKSPACE_MOUNT:
		v = ws;
		break;
	default:
		v = roots;
	}
	if (!v)
		return -1;
	return (size_t)snprintf(buf, len, "%s=%s", sess_own_vars[i], v) <
			       len ? 0 : -1;
}

int sess_probe(const struct sess *s, unsigned omit, const char *ws,
	       const char *roots, struct probe *pr)
{
	struct perr *e = calloc(1, sizeof(*e));
	char *strs = malloc(OWN_COUNT * (PATH_MAX + 64)), err[256];
	struct vars v = { 0 };
	struct plan p;

	memset(pr, 0, sizeof(*pr));
	if (!e || !strs || plan_init(&p) < 0) {
		free(e);
		free(strs);
		errno = ENOMEM;
		return -1;
	}
	for (int i = 0; i < OWN_COUNT; i++) {
		char *b = strs + (size_t)i * (PATH_MAX + 64);

		if (!(omit & (1u << i)) &&
		    own_value(s, i, ws, roots, b, PATH_MAX + 64) == 0)
			vars_add_arg(&v, b, err, sizeof(err));
	}
	for (size_t i = 0; i < s->nvars; i++)
		vars_add_arg(&v, s->vars[i], err, sizeof(err));
	policy_parse_file(&p, s->policy, &v, 0, e);
	pr->warnings = (int)e->warnings;
	for (size_t i = 0; i < e->n; i++) {
		const char *m = strstr(e->msg[i], ": error: -D ");
		int k;

		for (k = 0; m && k < OWN_COUNT; k++) {
			size_t n = strlen(sess_own_vars[k]);

			if (!strncmp(m + 12, sess_own_vars[k], n) &&
			    !strncmp(m + 12 + n, " is not used", 12))
				break;
		}
		if (m && k < OWN_COUNT) {
			pr->unused |= 1u << k;
			continue;
		}
		if (strstr(e->msg[i], ": error: "))
			pr->errors++;
		if (!pr->first[0])
			snprintf(pr->first, sizeof(pr->first), "%s", e->msg[i]);
	}
	if (e->total > e->n)
		pr->errors++;
	plan_free(&p);
	/* vars_add_arg's copies of the names (the parser keeps its
	 * built-ins in a table of its own). */
	for (size_t i = 0; i < v.n; i++)
		free((char *)v.name[i]);
	free(e);
	free(strs);
	return 0;
}
