/* What the policy makes of the session's variables, learned by parsing it
 * as the guard will, in a child process: the parser's memory never
 * becomes the host's (pkg/util/alloc.c keeps every page it touched), and
 * the host stays small. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
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

static void child(const struct sess *s, unsigned omit, const char *ws,
		  const char *roots, int fd)
{
	struct probe pr = { 0 };
	struct perr *e = malloc(sizeof(*e));
	char *strs = malloc(OWN_COUNT * (PATH_MAX + 64)), err[256];
	struct vars v = { 0 };
	struct plan p;

	if (!e || !strs || plan_init(&p) < 0)
		_exit(111);
	for (int i = 0; i < OWN_COUNT; i++) {
		char *b = strs + (size_t)i * (PATH_MAX + 64);

		if (!(omit & (1u << i)) &&
		    own_value(s, i, ws, roots, b, PATH_MAX + 64) == 0)
			vars_add_arg(&v, b, err, sizeof(err));
	}
	for (size_t i = 0; i < s->nvars; i++)
		vars_add_arg(&v, s->vars[i], err, sizeof(err));
	policy_parse_file(&p, s->policy, &v, 0, e);
	pr.warnings = (int)e->warnings;
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
			pr.unused |= 1u << k;
			continue;
		}
		if (strstr(e->msg[i], ": error: "))
			pr.errors++;
		if (!pr.first[0])
			snprintf(pr.first, sizeof(pr.first), "%s", e->msg[i]);
	}
	if (e->total > e->n)
		pr.errors++;
	_exit(write(fd, &pr, sizeof(pr)) == (ssize_t)sizeof(pr) ? 0 : 111);
}

int sess_probe(const struct sess *s, unsigned omit, const char *ws,
	       const char *roots, struct probe *pr)
{
	int pfd[2], st;
	ssize_t k;
	pid_t pid;

	memset(pr, 0, sizeof(*pr));
	if (pipe2(pfd, O_CLOEXEC) < 0)
		return -1;
	pid = fork();
	if (pid < 0) {
		close(pfd[0]);
		close(pfd[1]);
		return -1;
	}
	if (pid == 0) {
		close(pfd[0]);
		child(s, omit, ws, roots, pfd[1]);
	}
	close(pfd[1]);
	do
		k = read(pfd[0], pr, sizeof(*pr));
	while (k < 0 && errno == EINTR);
	close(pfd[0]);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	return k == (ssize_t)sizeof(*pr) ? 0 : -1;
}
