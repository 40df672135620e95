/* The Landlock directives (pysbx-landlock reads them; docs/POLICY.md):
 *
 *	landlock yes|no			in the namespace chain too
 *	landlock-best-effort CLASS...	what the kernel may lack
 *	landlock-only deny|allow|always	may the run go without pysbx-mount
 */
#include <string.h>

#include "policy/internal.h"

static const struct {
	const char *name;
	unsigned bit;
} classes[] = {
	{ "fs", LL_BE_FS },
	{ "truncate", LL_BE_TRUNCATE },
	{ "tcp", LL_BE_TCP },
	{ "ioctl-dev", LL_BE_IOCTL_DEV },
	{ "scope-signal", LL_BE_SCOPE_SIGNAL },
	{ "scope-abstract-unix", LL_BE_SCOPE_UNIX },
	{ "all", LL_BE_ALL },
};
#define NCLASSES (sizeof(classes) / sizeof(classes[0]))

const char *ll_class_name(unsigned bit)
{
	for (size_t i = 0; i + 1 < NCLASSES; i++)
		if (classes[i].bit == bit)
			return classes[i].name;
	return NULL;
}

static const char *class_at(size_t i)
{
	return i < NCLASSES ? classes[i].name : NULL;
}

void d_landlock(struct ctx *c, const struct pos *pos, struct tok *t, int n)
{
	(void)n;
	if (dir_once(c, pos, &t[0], PAT_LANDLOCK))
		return;
	if (!strcmp(t[1].s, "yes") || !strcmp(t[1].s, "no"))
		c->p->landlock = t[1].s[0] == 'y';
	else
		perr_at(c, pos, t[1].col, "expected 'yes' or 'no', not '%s'",
			t[1].s);
}

void d_landlock_best(struct ctx *c, const struct pos *pos, struct tok *t,
		     int n)
{
	if (!c->p->at[PAT_LLBEST].line) {
		c->p->at[PAT_LLBEST] = *pos;
		c->p->at[PAT_LLBEST].col = t[0].col;
	}
	for (int i = 1; i < n; i++) {
		char dym[80];
		size_t j;

		for (j = 0; j < NCLASSES; j++)
			if (!strcmp(classes[j].name, t[i].s))
				break;
		if (j < NCLASSES) {
			c->p->ll_best_effort |= classes[j].bit;
			continue;
		}
		perr_at(c, pos, t[i].col,
			"unknown Landlock class '%s'%s (use fs, truncate, tcp, "
			"ioctl-dev, scope-signal, scope-abstract-unix or all)",
			t[i].s, dir_did_you_mean(dym, sizeof(dym), t[i].s, class_at));
	}
}

void d_landlock_only(struct ctx *c, const struct pos *pos, struct tok *t,
		     int n)
{
	static const char *const words[] = { "deny", "allow", "always" };

	(void)n;
	if (dir_once(c, pos, &t[0], PAT_LLONLY))
		return;
	for (int i = 0; i < 3; i++)
		if (!strcmp(t[1].s, words[i])) {
			c->p->ll_only = (enum ll_only)i;
			return;
		}
	perr_at(c, pos, t[1].col,
		"expected 'deny', 'allow' or 'always', not '%s'", t[1].s);
}
