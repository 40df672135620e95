#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "chain/chain.h"
#include "front/front.h"
#include "guard/guard.h"

/* "A" SEP "B" at *s, which then points past its NUL. */
static char *put(char **s, const char *a, char sep, const char *b)
{
	char *w = *s;

	*s += sprintf(w, "%s%c%s", a, sep, b) + 1;
	return w;
}

enum { RUN_STATUS_FD = 0x2000, RUN_SCRATCH_PARENT, RUN_DIE_WITH_PARENT,
       RUN_REPORT_DENIALS };

/* The guard's options pysbx run passes on (bwrap's --json-status-fd,
 * nsjail's --time_limit): the guard checks their values. */
static int guard_word(struct diag *d, struct chain *c, int opt,
		      const char *arg)
{
	const char *w;

	switch (opt) {
	case 't':
		w = "--timeout";
		break;
	case 'k':
		w = "--kill-after";
		break;
	case RUN_STATUS_FD:
		w = "--status-fd";
		break;
	case RUN_SCRATCH_PARENT:
		w = "--scratch-parent";
		break;
	case RUN_DIE_WITH_PARENT:
		w = "--die-with-parent";
		break;
	case RUN_REPORT_DENIALS:
		w = "--report-denials";
		break;
	default:
		return 0;
	}
	for (unsigned i = 0; i < c->nguard_words; i++)
		if (!strcmp(c->guard_words[i], w))
			return diag_fail(d, EXIT_USAGE, 0, "%s is given twice",
					 w);
	c->guard_words[c->nguard_words++] = w;
	if (arg)
		c->guard_words[c->nguard_words++] = arg;
	return 1;
}

int front_run_parse(struct diag *d, struct chain *c, int argc, char **argv)
{
	static const struct option longopts[] = {
		CHAIN_LONGOPTS,
		{ "timeout", required_argument, NULL, 't' },
		{ "kill-after", required_argument, NULL, 'k' },
		{ "status-fd", required_argument, NULL, RUN_STATUS_FD },
		{ "scratch-parent", required_argument, NULL,
		  RUN_SCRATCH_PARENT },
		{ "die-with-parent", no_argument, NULL, RUN_DIE_WITH_PARENT },
		{ "report-denials", no_argument, NULL, RUN_REPORT_DENIALS },
		{ 0 },
	};
	int opt, r;

	chain_init(c, FRONT_RUN_USAGE);
	c->help = GUARD_RUN_HELP;
	c->front = 1;
	optind = 0;	/* a full reset (glibc and musl): starts at argv[1] */
	c->argv = argv;
	while ((opt = getopt_long(argc, argv, CHAIN_SHORTOPTS "t:k:",
				  longopts, NULL)) != -1) {
		if ((r = guard_word(d, c, opt, optarg)) != 0) {
			if (r < 0)
				return -1;
			continue;
		}
		/* chain_opt's own failure is already in d (code 100). It
		 * was once copied onto itself (vsnprintf of d->msg into
		 * d->msg), which printed an empty "pysbx: fatal: ". */
		if (opt == CHAIN_OPT_PLAN_FD || opt == CHAIN_OPT_REPORT_FD ||
		    opt == CHAIN_OPT_PARTIAL || opt == CHAIN_OPT_NEXT_FD ||
		    opt == CHAIN_OPT_SCRATCH_ID || opt == CHAIN_OPT_NOTIFY_FD)
			r = 0;	/* the chain's own: never from a caller */
		else
			r = chain_opt(d, c, opt, optarg);
		if (r < 0)
			return -1;
		if (r == 0)
			return diag_fail(d, EXIT_USAGE, 0,
					 "pysbx run does not take the chain's "
					 "own --plan-fd, --report-fd, --next-fd, "
					 "--notify-fd, --scratch-id or --partial (see pysbx run "
					 "--help)");
	}
	if (chain_args_done(d, c, argc, argv) < 0)
		return -1;
	if (!c->policy)
		return diag_fail(d, EXIT_USAGE, 0,
				 "pysbx run needs -p POLICY");
	return 0;
}

int front_run_argv(struct diag *d, const struct chain *c, const char *dir,
		   struct run_argv *ra)
{
	/* pysbx-landlock too: the guard drops it unless the plan says
	 * `landlock yes` (guard_landlock_if_asked). */
	static const char *const steps[] = { "pysbx-clean", "pysbx-mount",
					     "pysbx-exec", "pysbx-landlock",
					     "pysbx-seccomp" };
	size_t n = 0, len = 0, k = 0, i;
	char *s;

	for (char **a = c->next; *a; a++)
		n++;
	for (i = 0; i < 5; i++)
		len += strlen(dir) + 1 + strlen(steps[i]) + 1;
	for (i = 0; i < c->vars.n; i++)
		len += strlen(c->vars.name[i]) + 1 +
		       strlen(c->vars.value[i]) + 1;
	ra->argv = calloc(n + 2 * c->vars.n + c->nguard_words + 16,
			  sizeof(*ra->argv));
	ra->strs = malloc(len);
	if (!ra->argv || !ra->strs) {
		front_run_argv_free(ra);
		return diag_fail(d, EXIT_SYSCALL, ENOMEM, "out of memory");
	}
	s = ra->strs;
	ra->argv[k++] = put(&s, dir, '/', steps[0]);
	ra->argv[k++] = "-p";
	ra->argv[k++] = (char *)c->policy;
	if (c->allow_untrusted)
		ra->argv[k++] = "--allow-untrusted";
	for (i = 0; i < c->nguard_words; i++)
		ra->argv[k++] = (char *)c->guard_words[i];
	for (i = 0; i < c->vars.n; i++) {
		ra->argv[k++] = "-D";
		ra->argv[k++] = put(&s, c->vars.name[i], '=',
				    c->vars.value[i]);
	}
	/* "--" before each next program: a target named "--bind" or "-p"
	 * is never taken for an option of ours. */
	for (i = 1; i < 5; i++) {
		ra->argv[k++] = "--";
		ra->argv[k++] = put(&s, dir, '/', steps[i]);
		if (!strcmp(steps[i], "pysbx-landlock")) {
			ra->argv[k++] = "--paths";
			ra->argv[k++] = "inside";
		}
	}
	ra->argv[k++] = "--";
	for (char **a = c->next; *a; a++)
		ra->argv[k++] = *a;
	ra->argv[k] = NULL;
	ra->argc = (int)k;
	return 0;
}

void front_run_argv_free(struct run_argv *ra)
{
	free(ra->argv);
	free(ra->strs);
	ra->argv = NULL;
	ra->strs = NULL;
	ra->argc = 0;
}

/* The guard's argv, in a frame of its own: the PATH_MAX buffer of the
 * directory is gone before the guard runs (every page of stack the
 * guard touches stays resident while the sandbox runs). */
static __attribute__((noinline)) int guard_argv(struct diag *d, int argc,
						char **argv,
						struct run_argv *ra)
{
	char dir[PATH_MAX - 32];
	struct chain c;

	/* The siblings are exec'd from this binary's directory by
	 * absolute path, never by a PATH search the caller steers. */
	if (front_run_parse(d, &c, argc, argv) < 0 ||
	    front_policy_path(d, c.policy, &c.policy) < 0 ||
	    front_self_dir(d, dir, sizeof(dir)) < 0 ||
	    front_run_argv(d, &c, dir, ra) < 0)
		return -1;
	return 0;
}

int front_run(struct diag *d, int argc, char **argv)
{
	struct run_argv ra;

	if (guard_argv(d, argc, argv, &ra) < 0)
		return -1;
	/* The guard's work in this very process: no exec of pysbx-clean.
	 * Its messages are pysbx's, as the user typed it. */
	guard_prog = "pysbx";
	guard_landlock_if_asked = true;
	return guard_main(ra.argc, ra.argv);
}
