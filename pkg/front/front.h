/* front: the subcommands of the pysbx front door. */
#ifndef PYSBX_FRONT_H
#define PYSBX_FRONT_H

#include <stddef.h>

#include "chain/chain.h"
#include "diag/diag.h"

#define FRONT_RUN_USAGE                                                      \
	"pysbx run -p POLICY [-D NAME=VALUE]... [-t|--timeout DURATION|none]\n" \
	"          [-k|--kill-after DURATION] [--status-fd N]\n"              \
	"          [--scratch-parent DIR] [--die-with-parent]\n"              \
	"          [--report-denials]\n"                                      \
	"          [--allow-untrusted] [--] PROG [ARG]..."

/* pysbx run -p POLICY [-D N=V]... [--] PROG [ARG]...: run the canonical
 * chain with absolute paths to the sibling programs, the guard
 * (pysbx-clean's guard_main) in this process. Returns the guard's exit
 * code (>= 0), or -1 on a usage failure recorded in d. A failure of the
 * guard itself exits through its own diag_exit. argv[0] is "run". */
int front_run(struct diag *d, int argc, char **argv);

/* front_run in pieces, so that they can be fuzzed in-process:
 *
 * front_run_parse: pysbx run's own command line (argv[0] "run") into c,
 * which it chain_init's. Resets getopt first (optind = 0). The common
 * options -p, -D, --allow-untrusted (--plan-fd, --report-fd and --partial
 * are refused) and the guard's -t/--timeout, -k/--kill-after,
 * --status-fd, --scratch-parent, --die-with-parent (kept in
 * c->guard_words, checked by the guard); -p is required; the first non-option
 * word, or the word after "--", starts the target's argv. Nothing is
 * opened, read or written, except that -h and --version print and exit(0)
 * (chain_opt). 0, or -1 with d set (code 100). */
int front_run_parse(struct diag *d, struct chain *c, int argc, char **argv);

/* The argv of the guard (pysbx-clean, in-process) for c:
 *   DIR/pysbx-clean -p POLICY [--allow-untrusted] [GUARD OPTIONS]
 *     [-D NAME=VALUE]...
 *     -- DIR/pysbx-mount -- DIR/pysbx-exec -- DIR/pysbx-seccomp -- TARGET...
 * The target's words are c->next's own pointers, copied after a "--" and
 * never parsed here, so none is taken for an option of a step. Pure: only
 * allocates (ra->argv, NULL-terminated, and ra->strs, which holds the
 * paths and the -D words). 0, or -1 with d set (111, out of memory). */
struct run_argv {
	int argc;
	char **argv;
	char *strs;
};
int front_run_argv(struct diag *d, const struct chain *c, const char *dir,
		   struct run_argv *ra);
/* Free what front_run_argv allocated (c's strings are not touched). */
void front_run_argv_free(struct run_argv *ra);

/* The directory of the running program (/proc/self/exe, symlinks
 * resolved) into dir. 0, or -1 with d set (111). */
int front_self_dir(struct diag *d, char *dir, size_t len);

/* -p's argument as a file: a word with a '/' or ending in ".policy" is a
 * path, taken as is; any other word is the name of a shipped policy,
 * PREFIX/share/pysbx/policies/NAME.policy where this program is
 * PREFIX/bin/pysbx (ROOT/policies/NAME.policy for ROOT/build/bin/pysbx).
 * *out: arg, or a static buffer. 0, or -1 with d set (100: no such
 * policy or a bad name; 111: /proc/self/exe unreadable). */
int front_policy_path(struct diag *d, const char *arg, const char **out);

/* pysbx policy check|show FILE [-D N=V]...: 0 valid, 100 invalid. */
int front_policy(struct diag *d, int argc, char **argv);

/* pysbx check [--json]: argv[0] is "check". Prints one line (or one JSON
 * object) per feature and a summary; returns 0 when every feature the
 * shipped policies need works, 111 when one is missing; -1 on bad usage,
 * recorded in d (exit 100 through diag_exit). */
int front_check_args(struct diag *d, int argc, char **argv);

#endif
