#include <errno.h>
#include <string.h>

#include "proc/proc.h"
#include "util/arena.h"

static const char *caller_value(char *const caller[], const char *name)
{
	size_t n = strlen(name);

	for (size_t i = 0; caller && caller[i]; i++)
		if (!strncmp(caller[i], name, n) && caller[i][n] == '=')
			return caller[i];
	return NULL;
}

char **proc_env_build(struct diag *d, const struct plan *p,
		      char *const caller[])
{
	/* In the plan's arena, which lives until the exec: a malloc here
	 * would be the first block on a page of its own (a page fault). */
	char **env = arena_alloc(p->arena, (p->nenv + 1) * sizeof(*env));
	size_t k = 0;

	if (!env) {
		diag_fail(d, EXIT_SYSCALL, ENOMEM,
			  "unable to build the environment");
		return NULL;
	}
	for (size_t i = 0; i < p->nenv; i++) {
		const struct env_op *e = &p->env[i];
		size_t nl = strlen(e->name);
		char *s;

		if (!e->value) {
			/* env-pass: the caller's "NAME=value" as it is. */
			const char *kv = caller_value(caller, e->name);

			if (kv)
				env[k++] = (char *)kv;
			continue;
		}
		s = arena_alloc_raw(p->arena, nl + strlen(e->value) + 2);
		if (!s) {
			diag_fail(d, EXIT_SYSCALL, ENOMEM,
				  "unable to build the environment");
			return NULL;
		}
		memcpy(s, e->name, nl);
		s[nl] = '=';
		strcpy(s + nl + 1, e->value);
		env[k++] = s;
	}
	env[k] = NULL;
	return env;
}
