/* The guard's main body: pysbx-clean's main, and `pysbx run` in-process
 * (the front door builds this argv and calls it: one process, no exec).
 * Enforces the wall-clock timeout, forwards signals, kills the whole
 * sandbox when it ends, owns the scratch directory, reports the exit
 * status (docs/GUARD.md). */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "chain/chain.h"
#include "guard/guard.h"
#include "util/num.h"

enum {
	OPT_STATUS_FD = 0x2000,
	OPT_DIE_WITH_PARENT,
	OPT_SCRATCH_PARENT,
	OPT_SWEEP,
	OPT_LANDLOCK_IF_ASKED,
	OPT_REPORT_DENIALS,
};

static int duration(struct diag *d, const char *opt, const char *arg,
		    bool none_ok, uint64_t *ms)
{
	if (none_ok && !strcmp(arg, "none")) {
		*ms = 0;
		return 0;
	}
	if (num_duration_ms(arg, ms) || (none_ok && !*ms))
		return diag_fail(d, EXIT_USAGE, 0,
				 "%s '%s' is not a duration (use e.g. 500ms, "
				 "30s, 5m, 1h%s)", opt, arg,
				 none_ok ? " or none" : "");
	return 0;
}

int guard_parse_args(struct diag *d, struct chain *c, struct guard_opts *o,
		     const char **sweep, int argc, char **argv)
{
	static const struct option longopts[] = {
		CHAIN_LONGOPTS,
		{ "timeout", required_argument, NULL, 't' },
		{ "kill-after", required_argument, NULL, 'k' },
		{ "status-fd", required_argument, NULL, OPT_STATUS_FD },
		{ "die-with-parent", no_argument, NULL, OPT_DIE_WITH_PARENT },
		{ "report-denials", no_argument, NULL, OPT_REPORT_DENIALS },
		{ "scratch-parent", required_argument, NULL,
		  OPT_SCRATCH_PARENT },
		{ "sweep", required_argument, NULL, OPT_SWEEP },
		/* pysbx session's: as pysbx run, the chain holds a
		 * pysbx-landlock step to drop unless `landlock yes` */
		{ "landlock-if-asked", no_argument, NULL,
		  OPT_LANDLOCK_IF_ASKED },
		{ 0 },
	};
	long fd;
	int opt, r;

	/* Reset getopt: the front door has parsed its own argv before
	 * (glibc and musl both take optind = 0 as a full reset). */
	optind = 0;
	c->argv = argv;
	while ((opt = getopt_long(argc, argv, CHAIN_SHORTOPTS "t:k:",
				  longopts, NULL)) != -1) {
		r = chain_opt(d, c, opt, optarg);
		if (r < 0)
			return -1;
		if (r > 0)
			continue;
		if (opt == 't') {
			o->timeout_set = true;
			r = duration(d, "-t", optarg, true, &o->timeout_ms);
		} else if (opt == 'k') {
			o->kill_after_set = true;
			r = duration(d, "-k", optarg, false,
				     &o->kill_after_ms);
		} else if (opt == OPT_STATUS_FD) {
			if (num_int(optarg, 0, 1 << 20, &fd))
				return diag_fail(d, EXIT_USAGE, 0,
						 "--status-fd '%s' is not a "
						 "file descriptor", optarg);
			o->status_fd = (int)fd;
		} else if (opt == OPT_DIE_WITH_PARENT) {
			o->die_with_parent = true;
		} else if (opt == OPT_REPORT_DENIALS) {
			o->report_denials = true;
		} else if (opt == OPT_SCRATCH_PARENT) {
			o->scratch_parent = optarg;
		} else if (opt == OPT_SWEEP) {
			*sweep = optarg;
		} else if (opt == OPT_LANDLOCK_IF_ASKED) {
			guard_landlock_if_asked = true;
		}
		if (r < 0)
			return -1;
	}
	if (*sweep) {
		if (optind != argc || c->policy || o->scratch_parent)
			return diag_fail(d, EXIT_USAGE, 0,
					 "--sweep PARENT takes no other "
					 "argument (see %s --help)", d->prog);
		return 0;
	}
	if (o->status_fd >= 0 &&
	    chain_output_fd(d, o->status_fd, "--status-fd") < 0)
		return -1;
	return chain_args_done(d, c, argc, argv);
}

/* A scratch directory that could not be removed: warn, and say what
 * was left in the exit record. Apart from guard_main, so that its buffer
 * is not on the stack while the sandbox runs. */
static __attribute__((noinline)) void scratch_left(struct diag *d,
						   struct run_result *res)
{
	char why[sizeof(d->msg) + 256];

	snprintf(why, sizeof(why), "%s%s%s", d->msg, d->err ? ": " : "",
		 d->err ? strerror(d->err) : "");
	diag_warn(d, "%s; left for --sweep", why);
	diag_json_escape(res->scratch_error, sizeof(res->scratch_error), why);
}

const char *guard_prog = "pysbx-clean";
bool guard_landlock_if_asked;

int guard_main(int argc, char **argv)
{
	struct diag d = DIAG_INIT(guard_prog, "clean");
	struct guard_opts o = { .status_fd = -1, .caller = getppid() };
	struct run_result res;
	struct scratch s;
	struct chain c;
	const char *sweep = NULL;
	char *env = NULL;

	chain_init(&c, GUARD_USAGE);
	c.help = GUARD_OPTIONS_HELP;
	scratch_init(&s);
	run_result_init(&res);
	if (guard_parse_args(&d, &c, &o, &sweep, argc, argv) < 0)
		goto fail;
	if (sweep) {
		if (scratch_sweep(&d, sweep, stdout) < 0)
			diag_exit(&d);
		return 0;
	}
	if (guard_resolve(&d, &c, &o, &s) < 0)
		goto fail;
	if (o.mode != MODE_NONE) {
		res.mode = mode_name(o.mode);
		status_set_mode(res.mode);
	}
	guard_denials_init();
	if (o.report_denials && o.mode == MODE_LANDLOCK_ONLY)
		diag_warn(&d, "report denials: denials are not reported in "
			  "Landlock-only mode (no pid namespace, so no "
			  "supervisor the target cannot stop)");

	/* Standalone, the target learns its scratch dir from the
	 * environment; in the chain the policy says where it goes. */
	if (s.mode != SCRATCH_NONE && !o.chain &&
	    asprintf(&env, "SCRATCH=%s", s.path) < 0) {
		diag_fail(&d, EXIT_SYSCALL, ENOMEM,
			  "unable to build the sandbox's environment");
		goto fail;
	}
	if (guard_run(&d, &o, &c, env, &res) < 0)
		goto fail;
	free(env);
	guard_explain_end(&d, &o, &res);
	guard_denials_end(&d, &o);
	guard_mode_hint(&d, &o, c.policy, &res);
	if (scratch_remove(&d, &s) < 0)
		scratch_left(&d, &res);
	status_exit(o.status_fd, &res);
	return res.code;
fail:
	/* Its own diag: the failure being reported is d's. */
	scratch_remove(&(struct diag)DIAG_INIT(d.prog, d.stage), &s);
	status_fail(o.status_fd, &d);
	diag_exit(&d);
}
