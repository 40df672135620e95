#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "seccomp/lint.h"
#include "scnames/scnames.h"

struct lint {
	const struct plan *p;
	struct sc_warning *w;
	size_t max, n;
};

static void warn(struct lint *l, const struct pos *pos, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void warn(struct lint *l, const struct pos *pos, const char *fmt, ...)
{
	va_list ap;

	if (l->n < l->max) {
		l->w[l->n].pos = *pos;
		va_start(ap, fmt);
		vsnprintf(l->w[l->n].msg, sizeof(l->w[0].msg), fmt, ap);
		va_end(ap);
	}
	l->n++;
}

static int permits(enum sc_action a)
{
	return a == SC_ALLOW || a == SC_LOG;
}

static const struct sc_rule *first_rule(const struct plan *p,
					const char *name, int want_deny)
{
	for (size_t i = 0; i < p->nsc; i++)
		if (!strcmp(p->sc[i].name, name) &&
		    (!want_deny || p->sc[i].act != SC_ALLOW))
			return &p->sc[i];
	return NULL;
}

/* Where a plain call to name is refused: its first non-allow rule, or the
 * default when that refuses and no rule allows name. NULL if allowed. */
static const struct pos *denied(const struct plan *p, const char *name)
{
	const struct sc_rule *r = first_rule(p, name, 1);

	if (r)
		return &r->pos;
	if (permits(p->sc_default) || first_rule(p, name, 0))
		return NULL;
	return p->at[PAT_SCDEFAULT].line ? &p->at[PAT_SCDEFAULT] : &p->top;
}

static void io_uring(struct lint *l)
{
	static const char *const uring[] = {
		"io_uring_setup", "io_uring_enter", "io_uring_register",
	};
	const struct pos *s = denied(l->p, "socket");

	for (size_t i = 0; s && i < l->p->nsc; i++) {
		const struct sc_rule *r = &l->p->sc[i];

		for (size_t k = 0; k < 3; k++)
			if (!strcmp(r->name, uring[k]) && permits(r->act))
				warn(l, &r->pos,
				     "'%s' is allowed while socket is denied at "
				     "%s:%u: io_uring creates sockets without "
				     "calling socket(2); deny it too (@io-uring)",
				     r->name, s->file, s->line);
	}
}

static void clone3(struct lint *l)
{
	const struct sc_rule *c = NULL;

	for (size_t i = 0; i < l->p->nsc && !c; i++)
		if (!strcmp(l->p->sc[i].name, "clone") &&
		    (l->p->sc[i].ncond || l->p->sc[i].act != SC_ALLOW))
			c = &l->p->sc[i];
	for (size_t i = 0; c && i < l->p->nsc; i++) {
		const struct sc_rule *r = &l->p->sc[i];

		if (!strcmp(r->name, "clone3") && permits(r->act))
			warn(l, &r->pos,
			     "'clone3' is allowed while clone is filtered at "
			     "%s:%u: clone3 passes its flags in memory seccomp "
			     "cannot read; use 'seccomp errno=ENOSYS clone3' "
			     "(glibc then falls back to clone)",
			     c->pos.file, c->pos.line);
	}
}

static int same_action(const struct sc_rule *a, enum sc_action act, int err)
{
	return a->act == act && (act != SC_ERRNO || a->err == err);
}

static void shadowed(struct lint *l)
{
	const struct plan *p = l->p;

	for (size_t i = 0; i < p->nsc; i++) {
		const struct sc_rule *u = &p->sc[i];

		/* An unconditional rule equal to the default is skipped by
		 * the compiler: the conditional ones then do apply. */
		if (u->ncond || same_action(u, p->sc_default, p->sc_default_err))
			continue;
		for (size_t k = 0; k < p->nsc; k++) {
			const struct sc_rule *r = &p->sc[k];

			if (r->ncond && r->nr == u->nr &&
			    !same_action(r, u->act, u->err))
				warn(l, &r->pos,
				     "this conditional rule on '%s' never "
				     "applies: the unconditional rule at %s:%u:%u "
				     "decides every call", r->name, u->pos.file,
				     u->pos.line, u->pos.col);
		}
	}
}

static void wide_compare(struct lint *l)
{
	static const char *const opname[] = {
		[SC_EQ] = "==", [SC_NE] = "!=", [SC_LT] = "<", [SC_LE] = "<=",
		[SC_GT] = ">", [SC_GE] = ">=", [SC_MASKED_EQ] = "&==",
	};

	for (size_t i = 0; i < l->p->nsc; i++) {
		const struct sc_rule *r = &l->p->sc[i];

		for (unsigned k = 0; k < r->ncond; k++) {
			const struct sc_cond *c = &r->cond[k];
			/* A denial with != or > fails closed on high bits; a
			 * permission, or a denial with <, does not. */
			int open = permits(r->act) ? c->op != SC_EQ &&
							 c->op != SC_MASKED_EQ
						   : c->op == SC_LT ||
							 c->op == SC_LE;

			if (open && sc_arg_is_32bit(r->name, c->arg))
				warn(l, &r->pos,
				     "'arg%u%s%llu' compares all 64 bits of an "
				     "argument of '%s' the kernel reads as a "
				     "32-bit int: a caller can set the high bits "
				     "to get past this rule; use == or "
				     "arg%u&0xffffffff==VALUE",
				     c->arg, opname[c->op],
				     (unsigned long long)c->value, r->name,
				     c->arg);
		}
	}
}

static void exec_allowed(struct lint *l)
{
	const struct plan *p = l->p;
	const struct pos *at = p->at[PAT_SCDEFAULT].line ? &p->at[PAT_SCDEFAULT]
							: &p->top;
	const struct sc_rule *r = first_rule(p, "execve", 0);

	if (p->sc_default == SC_ALLOW || p->sc_default == SC_LOG)
		return;
	if (r && permits(r->act) && !r->ncond)
		return;
	warn(l, at, "the default action refuses execve and no rule allows "
		    "it: the target cannot be started ('seccomp allow execve')");
}

size_t sc_lint(const struct plan *p, struct sc_warning *w, size_t max)
{
	struct lint l = { p, w, max, 0 };

	if (!p->sc_set)
		return 0;
	if (p->sc_audit)
		warn(&l, &p->at[PAT_AUDIT],
		     "'seccomp audit' is on: the filter only logs, it denies "
		     "nothing");
	io_uring(&l);
	clone3(&l);
	shadowed(&l);
	wide_compare(&l);
	exec_allowed(&l);
	return l.n;
}
