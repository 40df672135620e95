/* A step run on its own with a whole policy must not silently apply only
 * its part of it: pysbx-clean -p full.policy -- cmd would otherwise run
 * cmd unsandboxed with just the timeout. */
#include <stdio.h>
#include <string.h>

#include "chain/chain.h"

struct first {
	const char *what; /* the directive, as written */
	const struct pos *pos;
};

static bool at(const struct plan *p, enum plan_at s, const char *what,
	       struct first *f)
{
	if (!p->at[s].line)
		return false;
	f->what = what;
	f->pos = &p->at[s];
	return true;
}

/* The first directive of plan p that step stage applies, if any. */
static bool first_of(const struct plan *p, const char *stage, struct first *f)
{
	if (!strcmp(stage, "mount"))
		return at(p, PAT_UNSHARE, "unshare", f) ||
		       (p->nfs && (f->what = fs_kind_name(p->fs[0].kind),
				   f->pos = &p->fs[0].pos)) ||
		       at(p, PAT_UID, "uid", f) || at(p, PAT_GID, "gid", f) ||
		       at(p, PAT_HOSTNAME, "hostname", f) ||
		       at(p, PAT_NESTED, "nested-userns", f) ||
		       at(p, PAT_REPORT, "report denials", f);
	if (!strcmp(stage, "exec"))
		return (p->nrl &&
			(f->what = "limit", f->pos = &p->rl[0].pos)) ||
		       (p->nenv &&
			(f->what = p->env[0].value ? "env" : "env-pass",
			 f->pos = &p->env[0].pos)) ||
		       at(p, PAT_CHDIR, "chdir", f) ||
		       at(p, PAT_UMASK, "umask", f) ||
		       at(p, PAT_SESSION, "new-session", f) ||
		       at(p, PAT_DIESIG, "die-signal", f) ||
		       at(p, PAT_STDIN, "stdin", f) ||
		       at(p, PAT_KEEPFD, "keep-fd", f);
	if (!strcmp(stage, "seccomp"))
		return (p->nsc &&
			(f->what = "seccomp", f->pos = &p->sc[0].pos)) ||
		       at(p, PAT_SCDEFAULT, "seccomp default", f) ||
		       at(p, PAT_AUDIT, "seccomp audit", f);
	if (!strcmp(stage, "landlock"))
		return (p->landlock && at(p, PAT_LANDLOCK, "landlock", f)) ||
		       at(p, PAT_LLBEST, "landlock-best-effort", f);
	if (!strcmp(stage, "clean"))
		return (p->timeout_ms && at(p, PAT_TIMEOUT, "timeout", f)) ||
		       at(p, PAT_DWP, "die-with-parent", f) ||
		       at(p, PAT_SCRATCH, "scratch", f);
	return false;
}

int chain_check_applied(struct diag *d, const struct chain *c,
			const struct plan *p)
{
	static const char *const stages[] = { "clean", "mount", "exec",
					      "landlock", "seccomp" };
	char list[512];
	size_t len = 0, n = 0;
	struct first f;

	if (c->plan_fd >= 0 || c->partial || !c->policy || !c->next)
		return 0;
	list[0] = '\0';
	for (size_t i = 0; i < 5; i++) {
		if (!strcmp(stages[i], d->stage) ||
		    chain_step_follows(d->stage, c->next, stages[i]) ||
		    !first_of(p, stages[i], &f))
			continue;
		if (len < sizeof(list))
			len += (size_t)snprintf(list + len, sizeof(list) - len,
						"%s'%s' (%s:%u, pysbx-%s's)",
						n ? ", " : "", f.what,
						f.pos->file, f.pos->line,
						stages[i]);
		n++;
	}
	if (!n)
		return 0;
	diag_fail(d, EXIT_USAGE, 0,
		  "refusing policy %s: it has directives %s does not apply "
		  "and no later step of the chain would: %s",
		  c->policy, d->prog, list);
	diag_hint(d,
		  "run the whole chain with 'pysbx run -p %s', or pass "
		  "--partial if the rest is applied elsewhere",
		  c->policy);
	return -1;
}
