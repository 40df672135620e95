#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "chain/chain.h"
#include "front/front.h"
#include "guard/guard.h"

/* The directory of this binary: the siblings are exec'd from there by
 * absolute path, never by a PATH search the caller's environment steers. */
static int self_dir(struct diag *d, char *dir, size_t len)
{
	ssize_t n = readlink("/proc/self/exe", dir, len - 1);
	char *slash;

	if (n < 0)
		return diag_fail(d, EXIT_SYSCALL, errno,
				 "unable to read /proc/self/exe");
	dir[n] = '\0';
	slash = strrchr(dir, '/');
	if (!slash)
		return diag_fail(d, EXIT_SYSCALL, 0,
				 "unable to locate the pysbx programs");
	*slash = '\0';
	return 0;
}

int front_run(struct diag *d, int argc, char **argv)
{
	static const char *const steps[] = { "pysbx-mount", "pysbx-exec",
					     "pysbx-seccomp" };
	static const struct option longopts[] = { CHAIN_LONGOPTS, { 0 } };
	char dir[PATH_MAX - 32], paths[4][PATH_MAX];
	const char **nargv;
	struct chain c;
	size_t k = 0;
	int opt;

	chain_init(&c, "pysbx run -p POLICY [-D NAME=VALUE]... [--] PROG "
		       "[ARG]...");
	optind = 1;
	while ((opt = getopt_long(argc, argv, CHAIN_SHORTOPTS, longopts,
				  NULL)) != -1)
		if (chain_opt(d, &c, opt, optarg) <= 0)
			return diag_fail(d, EXIT_USAGE, 0,
					 "%s", d->code ? d->msg :
					 "pysbx run takes -p and -D only");
	if (chain_args_done(d, &c, argc, argv) < 0)
		return -1;
	if (!c.policy)
		return diag_fail(d, EXIT_USAGE, 0,
				 "pysbx run needs -p POLICY");
	if (self_dir(d, dir, sizeof(dir)) < 0)
		return -1;
	nargv = calloc((size_t)argc * 2 + 16, sizeof(*nargv));
	if (!nargv)
		return diag_fail(d, EXIT_SYSCALL, ENOMEM, "out of memory");
	snprintf(paths[0], PATH_MAX, "%s/pysbx-clean", dir);
	nargv[k++] = paths[0];
	nargv[k++] = "-p";
	nargv[k++] = c.policy;
	if (c.allow_untrusted)
		nargv[k++] = "--allow-untrusted";
	for (size_t i = 0; i < c.vars.n; i++) {
		char *kv = malloc(strlen(c.vars.name[i]) +
				  strlen(c.vars.value[i]) + 2);

		if (!kv)
			return diag_fail(d, EXIT_SYSCALL, ENOMEM,
					 "out of memory");
		sprintf(kv, "%s=%s", c.vars.name[i], c.vars.value[i]);
		nargv[k++] = "-D";
		nargv[k++] = kv;
	}
	/* "--" before each next program: a target named "--bind" or "-p"
	 * is never taken for an option of ours. */
	for (int i = 0; i < 3; i++) {
		snprintf(paths[i + 1], PATH_MAX, "%s/%s", dir, steps[i]);
		nargv[k++] = "--";
		nargv[k++] = paths[i + 1];
	}
	nargv[k++] = "--";
	for (char **a = c.next; *a; a++)
		nargv[k++] = *a;
	/* The guard's work in this very process: no exec of pysbx-clean.
	 * Its messages keep the prefix "pysbx-clean:", the stage they come
	 * from. */
	return guard_main((int)k, (char **)nargv);
}
