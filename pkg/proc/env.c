#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
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

/* The variables that send clients to the egress proxy (net-proxy), in
 * the spellings curl, pip (requests), git, wget and Node read. The policy
 * may set any of them itself: then its value is the one given. */
static const char *const proxy_vars[] = {
	"http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY",
	"all_proxy", "NO_PROXY", "no_proxy",
};
#define NPROXY_VARS (sizeof(proxy_vars) / sizeof(proxy_vars[0]))

static bool policy_sets(const struct plan *p, const char *name)
{
	for (size_t i = 0; i < p->nenv; i++)
		if (!strcmp(p->env[i].name, name))
			return true;
	return false;
}

static size_t add_proxy_vars(const struct plan *p, char **env)
{
	size_t k = 0;

	for (size_t i = 0; i < NPROXY_VARS; i++) {
		const char *n = proxy_vars[i];
		char *s;

		if (policy_sets(p, n))
			continue;
		s = arena_alloc_raw(p->arena, 64);
		if (!s)
			return (size_t)-1;
		/* Only loopback exists inside: local servers are reached
		 * directly, everything else through the proxy. */
		if (n[0] == 'N' || n[0] == 'n')
			snprintf(s, 64, "%s=localhost,127.0.0.1,::1", n);
		else
			snprintf(s, 64, "%s=http://127.0.0.1:%u", n,
				 p->proxy_port);
		env[k++] = s;
	}
	return k;
}

char **proc_env_build(struct diag *d, const struct plan *p,
		      char *const caller[])
{
	/* In the plan's arena, which lives until the exec: a malloc here
	 * would be the first block on a page of its own (a page fault). */
	char **env = arena_alloc(p->arena, (p->nenv + NPROXY_VARS + 1) *
					   sizeof(*env));
	size_t k = 0;

	if (!env) {
		diag_fail(d, EXIT_SYSCALL, ENOMEM,
			  "unable to build the environment");
		return NULL;
	}
	if (p->net_proxy && (k = add_proxy_vars(p, env)) == (size_t)-1) {
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
