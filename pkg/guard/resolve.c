/* Policy -> plan for the chain. The scratch directory must exist before
 * the plan is final (${SCRATCH} is its path), and the policy must be
 * known valid before anything is created: hence two parses, the first
 * with ${SCRATCH} as a placeholder. Standalone without a policy, no
 * plan at all. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "guard/guard.h"

extern char **environ;

static void next_kind(struct guard_opts *o, const char *argv0)
{
	const char *b = strrchr(argv0, '/');

	b = b ? b + 1 : argv0;
	o->chain = chain_is_step(argv0);
	o->wait_started = !strcmp(b, "pysbx-mount");
	snprintf(o->first_stage, sizeof(o->first_stage), "%s",
		 o->chain ? b + strlen("pysbx-") : "target");
}

/* The policy, or in Landlock-only mode the text that includes it
 * (guard_mode): its files were read and checked by the first parse. */
static int wrap_or_file(struct plan *p, struct chain *c,
			const struct guard_opts *o, unsigned flags,
			struct perr *e)
{
	if (o->wrap)
		return policy_parse_buf(p, o->wrap_name, o->wrap,
					strlen(o->wrap), &c->vars, flags, e);
	return policy_parse_file(p, c->policy, &c->vars, flags, e);
}

/* The first parse again, from the Landlock-only text. */
static int parse_wrapped(struct diag *d, struct chain *c,
			 const struct guard_opts *o, struct plan *p)
{
	struct perr *e = malloc(sizeof(*e));
	int r = 0;

	if (!e)
		return diag_fail(d, EXIT_SYSCALL, ENOMEM,
				 "unable to allocate the plan");
	plan_free(p);
	if (plan_init(p) < 0) {
		free(e);
		return diag_fail(d, EXIT_SYSCALL, ENOMEM,
				 "unable to allocate the plan");
	}
	if (wrap_or_file(p, c, o, PARSE_NO_SCRATCH, e) < 0) {
		perr_print(e, d->prog, o->wrap_name);
		r = diag_fail(d, EXIT_USAGE, 0, "invalid policy %s in "
			      "Landlock-only mode", c->policy);
	}
	free(e);
	return r;
}

/* Parse the policy again with SCRATCH defined. The diagnostics (10 KiB)
 * live on the heap: on the stack they would push this second parse,
 * the deepest the guard ever goes, a few pages further down, and every
 * page it touches stays resident while the sandbox runs. */
static int parse_with_scratch(struct diag *d, struct chain *c,
			      const struct guard_opts *o, struct plan *p,
			      const char *path)
{
	struct perr *e;
	int r = 0;

	if (vars_set(&c->vars, "SCRATCH", path) < 0)
		return diag_fail(d, EXIT_USAGE, 0, "too many -D variables");
	e = malloc(sizeof(*e));
	if (!e)
		return diag_fail(d, EXIT_SYSCALL, ENOMEM,
				 "unable to allocate the plan");
	if (wrap_or_file(p, c, o, 0, e) < 0) {
		perr_print(e, d->prog, c->policy);
		r = diag_fail(d, EXIT_USAGE, 0,
			      "invalid policy %s (with SCRATCH=%s)", c->policy,
			      path);
	}
	free(e);
	return r;
}

static int make_scratch(struct diag *d, struct chain *c, struct plan *p,
			const struct guard_opts *o, struct scratch *s)
{
	if (c->plan_fd >= 0)
		return diag_fail(d, EXIT_USAGE, 0,
				 "a plan from --plan-fd is final: it cannot "
				 "get a new scratch directory (pass the "
				 "policy with -p)");
	if (chain_scratch_var(d, &c->vars, SCRATCH_CREATE) < 0)
		return -1;
	/* The parent lives in the first plan's arena, freed only below. */
	if (scratch_create(d, s, o->scratch_parent ? o->scratch_parent :
						      p->scratch_path) < 0)
		return -1;
	if (c->policy) {
		plan_free(p);
		if (plan_init(p) < 0)
			return diag_fail(d, EXIT_SYSCALL, ENOMEM,
					 "unable to allocate the plan");
		if (parse_with_scratch(d, c, o, p, s->path) < 0)
			return -1;
	}
	if (o->scratch_parent) {
		p->scratch = SCRATCH_CREATE;
		p->scratch_path = o->scratch_parent;
	}
	return 0;
}

/* Standalone without a policy (pysbx-clean -t 30s -- make): the plan's
 * defaults are all the guard needs. Its arena would be the process's
 * first allocation (a 64 MiB reservation and its first page faults),
 * for nothing. */
static bool no_plan(const struct chain *c, const struct guard_opts *o)
{
	return !c->policy && c->plan_fd < 0 && c->report_fd < 0 && !o->chain &&
	       !o->scratch_parent;
}

int guard_resolve(struct diag *d, struct chain *c, struct guard_opts *o,
		  struct scratch *s)
{
	struct plan p;
	int fd, r = -1;

	next_kind(o, c->next[0]);
	if (no_plan(c, o)) {
		if (!o->timeout_set)
			o->timeout_ms = 0;
		if (!o->kill_after_set)
			o->kill_after_ms = PLAN_KILL_AFTER_MS;
		return 0;
	}
	if (chain_load_plan(d, c, &p, PARSE_NO_SCRATCH) < 0)
		return -1;
	if (guard_mode(d, c, o, &p) < 0)
		goto out;
	if (o->wrap) {
		next_kind(o, c->next[0]);
		if (parse_wrapped(d, c, o, &p) < 0)
			goto out;
	}
	guard_note_killers(o, &p);
	if (guard_landlock_if_asked && !p.landlock &&
	    o->mode != MODE_LANDLOCK_ONLY)
		chain_drop_step(c->next, "pysbx-landlock");
	if (o->scratch_parent || p.scratch == SCRATCH_CREATE) {
		if (make_scratch(d, c, &p, o, s) < 0)
			goto out;
	} else if (p.scratch == SCRATCH_ADOPT) {
		/* The parser already defined SCRATCH as the directory. */
		if (scratch_adopt(d, s, p.scratch_path) < 0)
			goto out;
	}
	/* pysbx-mount binds ${SCRATCH} only if it is still this directory:
	 * its path could have been renamed or replaced since (the binding
	 * itself cannot use our fd: a mount of the host's namespace cannot
	 * be copied into the sandbox's, docs/GUARD.md). */
	if (s->mode != SCRATCH_NONE && o->chain) {
		size_t n = strlen(s->path) + 48;

		c->scratch_arg = malloc(n);
		if (!c->scratch_arg) {
			diag_fail(d, EXIT_SYSCALL, ENOMEM,
				  "unable to allocate the plan");
			goto out;
		}
		snprintf(c->scratch_arg, n, "%llu:%llu:%s",
			 (unsigned long long)s->dev,
			 (unsigned long long)s->ino, s->path);
	}
	if (o->timeout_set)
		p.timeout_ms = o->timeout_ms;
	if (o->kill_after_set)
		p.kill_after_ms = o->kill_after_ms;
	o->timeout_ms = p.timeout_ms;
	o->kill_after_ms = p.kill_after_ms;
	o->die_with_parent = p.die_with_parent = o->die_with_parent ||
						  p.die_with_parent;
	o->report_denials = p.report_denials = o->report_denials ||
						p.report_denials;
	if (guard_mode_plan(d, o, c->policy, c->allow_untrusted, &p) < 0)
		goto out;
	/* The proxy's listener is made in pysbx-mount's network namespace:
	 * without that step (Landlock-only mode included) there is nothing
	 * to listen in, and no network namespace to keep the sandbox in. */
	o->proxy = p.net_proxy;
	if (o->proxy && !o->wait_started) {
		diag_fail(d, EXIT_USAGE, 0,
			  "the policy's net-proxy needs pysbx-mount as the "
			  "program after the guard (its network namespace "
			  "holds the proxy's listener)");
		goto out;
	}
	/* The first step, opened and checked against this plan (its
	 * read-write binds), exec'd through the fd. */
	if (o->chain && chain_open_next(d, c, &p, environ, false) < 0)
		goto out;
	r = 0;
	/* Every later step reads this one plan, never the policy file. */
	if (o->chain) {
		fd = plan_seal(d, &p);
		if (fd < 0) {
			r = -1;
			goto out;
		}
		if (c->plan_fd >= 0)
			close(c->plan_fd);
		c->plan_fd = fd;
	}
out:
	/* The guard keeps no copy: its own part is in o. */
	plan_free(&p);
	return r;
}
