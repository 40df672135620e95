/* chain: what every step shares — the common options, the plan passed
 * down as a sealed memfd, the report fd, and exec'ing the next program.
 *
 * Protocol (DESIGN.md "Chain conventions"): the first step that reads the
 * policy resolves it into a plan, seals it in a memfd and passes
 * `--plan-fd N --report-fd M` to the next program when that program is a
 * pysbx step (pysbx-mount, pysbx-exec, pysbx-landlock, pysbx-seccomp, by
 * basename). Both fds
 * are close-on-exec everywhere else, so they never reach the target: the
 * last step's exec of the target closes them.
 */
#ifndef PYSBX_CHAIN_H
#define PYSBX_CHAIN_H

#include <getopt.h>
#include <limits.h>
#include <stdbool.h>

#include "diag/diag.h"
#include "policy/policy.h"

#define PYSBX_VERSION "0.1.0"

enum {
	CHAIN_OPT_PLAN_FD = 0x1000,
	CHAIN_OPT_REPORT_FD,
	CHAIN_OPT_VERSION,
	CHAIN_OPT_ALLOW_UNTRUSTED,
	CHAIN_OPT_PARTIAL,
	CHAIN_OPT_NEXT_FD,
	CHAIN_OPT_SCRATCH_ID,
	CHAIN_OPT_NOTIFY_FD,
};

/* getopt_long pieces every step includes: "+" stops at the first
 * non-option, so the next program's own options are never ours; ":"
 * tells a missing value (':') from an unknown option ('?'). */
#define CHAIN_SHORTOPTS "+:p:D:h"
#define CHAIN_LONGOPTS                                                       \
	{ "plan-fd", required_argument, NULL, CHAIN_OPT_PLAN_FD },          \
	{ "report-fd", required_argument, NULL, CHAIN_OPT_REPORT_FD },      \
	{ "next-fd", required_argument, NULL, CHAIN_OPT_NEXT_FD },          \
	{ "scratch-id", required_argument, NULL, CHAIN_OPT_SCRATCH_ID },    \
	{ "notify-fd", required_argument, NULL, CHAIN_OPT_NOTIFY_FD },      \
	{ "policy", required_argument, NULL, 'p' },                         \
	{ "define", required_argument, NULL, 'D' },                         \
	{ "help", no_argument, NULL, 'h' },                                 \
	{ "version", no_argument, NULL, CHAIN_OPT_VERSION },                \
	{ "allow-untrusted", no_argument, NULL, CHAIN_OPT_ALLOW_UNTRUSTED }, \
	{ "partial", no_argument, NULL, CHAIN_OPT_PARTIAL }

#define CHAIN_EXIT_CODES                                                     \
	"exit status: the target's own; 128+N if it was killed by signal N;\n" \
	"  100 bad usage or invalid policy (nothing was started);\n"          \
	"  111 a system call needed for isolation failed (nothing untrusted\n"\
	"      was started); 124 the wall-clock timeout fired;\n"            \
	"  126 the target could not be executed; 127 it was not found.\n"

/* Steps after the next one whose fds travel down (exec, landlock,
 * seccomp after pysbx-mount). */
#define CHAIN_MAX_PASS 3

struct chain {
	const char *policy;	/* -p FILE, NULL if none */
	struct vars vars;	/* -D NAME=VALUE */
	int plan_fd;		/* --plan-fd, -1 if none */
	int report_fd;		/* --report-fd, -1 if none */
	int next_fd;		/* the next program, opened and checked
				 * (chain_open_next, or --next-fd from an
				 * earlier step); -1 if none */
	int pass_fds[CHAIN_MAX_PASS]; /* the steps after it, in order,
				 * passed to it as one --next-fd each
				 * (pysbx-mount opens them all) */
	unsigned npass;
	int notify_fd;		/* --notify-fd: a socket to pid 1 of the
				 * sandbox, where pysbx-seccomp sends its
				 * filter's listener (docs/SECCOMP.md
				 * "Naming the killed syscall"); -1 if none */
	int proxy_fd;		/* --proxy-fd (pysbx-mount only): its end of
				 * the guard's socketpair, where the egress
				 * proxy's listener is sent; -1 if none */
	char **next;		/* argv of the next program */
	const char *usage;	/* printed by -h and after usage errors */
	const char *help;	/* -h: the program's own options, or NULL */
	int front;		/* pysbx run: no chain-only options */
	char **argv;		/* the command line, for an unknown option's
				 * did-you-mean (NULL: none) */
	int allow_untrusted;	/* skip the trust checks of pkg/trust */
	int partial;		/* --partial: the other steps' directives
				 * are applied elsewhere */
	/* --scratch-id DEV:INO:PATH, from the guard that made (or adopted)
	 * the scratch directory PATH: a bind of PATH must bind that very
	 * directory (pysbx-mount). scratch_dir NULL: none. */
	const char *scratch_dir;
	unsigned long long scratch_dev, scratch_ino;
	char *scratch_arg;	/* the guard's, as it passes it (heap) */
	/* pysbx run: the guard's own options as given (--timeout 5s ...),
	 * passed on to it word by word */
	const char *guard_words[12];
	unsigned nguard_words;
};

void chain_init(struct chain *c, const char *usage);

/* Handle one option that getopt_long returned. Returns 1 when it was a
 * common option, 0 when the caller must handle it, -1 on a usage error
 * (recorded in d with code 100). -h and --version print and exit 0. */
int chain_opt(struct diag *d, struct chain *c, int opt, const char *arg);

/* After the option loop: the rest of argv is the next program. -1 (code
 * 100) when there is none or -p and --plan-fd are both given. */
int chain_args_done(struct diag *d, struct chain *c, int argc, char **argv);

/* Get the plan: read it from --plan-fd, or parse -p's policy (errors are
 * printed, code 100) and check that it can be trusted (pkg/trust, unless
 * --allow-untrusted), or start from an empty plan (neither given). Also
 * validates --report-fd and sets d->report_fd. parse_flags: PARSE_*; a
 * plan from --plan-fd takes only PARSE_SKIP_SECCOMP of them, a policy
 * ignores that one. 0 or -1. */
int chain_load_plan(struct diag *d, struct chain *c, struct plan *p,
		    unsigned parse_flags);

/* A -D value that names the caller's current directory (same device and
 * inode) is replaced by getcwd(), its path without symlinks, once, here,
 * before any sandbox exists: `-D WORKSPACE=$PWD` works from a directory
 * reached through a symlink (cd-ing there was the caller's choice). Any
 * other value is left as given, so a symlink in it (perhaps planted by an
 * earlier sandbox) is refused while the sandbox is built. Called by
 * chain_load_plan before it parses a policy; pysbx policy does the same. */
void chain_resolve_vars(struct vars *v);

/* With `scratch create` (mode), ${SCRATCH} is the guard's to define: a
 * -D SCRATCH is refused (100). The guard and pysbx policy check both
 * call this. 0 or -1. */
int chain_scratch_var(struct diag *d, const struct vars *v,
		      enum scratch_mode mode);

/* Check that fd, given with option opt ("--report-fd", "--status-fd"),
 * is open for writing, and make it close-on-exec. 0, or -1 (code 100;
 * 111 if fcntl fails). */
int chain_output_fd(struct diag *d, int fd, const char *opt);

/* Serialise p into a new sealed memfd (close-on-exec). Returns the fd or
 * -1 (code 111). */
int plan_seal(struct diag *d, const struct plan *p);

/* Read a plan from a sealed memfd made by plan_seal: refuses an fd that is
 * not sealed against writes, shrinking and growing, or whose text is not a
 * complete plan. Marks the fd close-on-exec. flags: PARSE_SKIP_SECCOMP or
 * 0. 0 or -1 (code 100). */
int plan_read_fd(struct diag *d, int fd, struct plan *p, unsigned flags);

/* Is argv0 a pysbx step that takes --plan-fd (by basename)? */
int chain_is_step(const char *argv0);

/* Is argv0 a step that comes after the step whose diag stage is stage
 * ("clean", "mount", "exec", "landlock", "seccomp") in the canonical
 * chain? Only such
 * a program is given the plan and report fds: pysbx-seccomp, the last
 * step, never passes them on, even to a target named "pysbx-exec". */
int chain_step_after(const char *stage, const char *argv0);

/* Remove the pysbx step named name (by basename) from the chain next
 * runs, with its options and the "--" after them, in place (the array
 * stays NULL-terminated). Only a step where a step stands (after the
 * previous step's options) is removed, never a target's argument.
 * Returns 1 when removed, 0 when not found. */
int chain_drop_step(char **next, const char *name);

/* Does this option of a pysbx step take the next word as its value
 * ("-p", "--plan-fd", ...)? */
int chain_takes_value(const char *opt);

/* Run alone (-p, no --plan-fd) with a target, a step refuses a policy
 * that has directives for a step that neither it nor a pysbx step in
 * c->next applies (100, naming the first directive of each and pointing
 * at pysbx run), unless --partial was given. 0 or -1. */
int chain_check_applied(struct diag *d, const struct chain *c,
			const struct plan *p);

/* Is the step whose diag stage is want ("exec") among the pysbx steps
 * next runs in turn after stage (see chain_seccomp_follows)? */
int chain_step_follows(const char *stage, char **next, const char *want);

/* Will pysbx-seccomp read the plan: is it among the pysbx steps next runs
 * in turn after stage (each the program after the previous one's options
 * and "--", each after the one before in the canonical chain)? A step
 * before it may then leave the plan's seccomp lines unread
 * (PARSE_SKIP_SECCOMP): pysbx-seccomp reads every one and refuses a
 * malformed one before the target runs. Otherwise the whole plan is read,
 * so that a malformed line is refused all the same. */
int chain_seccomp_follows(const char *stage, char **next);

/* Open the next program when it is a later pysbx step (chain_step_after):
 * by the fd an earlier step passed (--next-fd, re-checked with
 * trust_prog_fd), or by its path (PATH of envp for a bare name) through
 * trust_open_prog with p's read-write binds, unless --allow-untrusted.
 * With both, every pysbx step after it too (c->pass_fds): pysbx-mount
 * opens every later step on the host, before pivot_root, so that none
 * needs to be inside the sandbox. A step given more than one --next-fd
 * re-checks each. 0 or -1. */
int chain_open_next(struct diag *d, struct chain *c, const struct plan *p,
		    char *const envp[], bool both);

/* Exec c->next with envp. A pysbx step that comes after d->stage (see
 * chain_step_after) gets `--plan-fd N --report-fd M` (and one `--next-fd K`
 * for each of c->pass_fds, `--allow-untrusted` when given) inserted after its
 * argv[0], inherits those fds, and is exec'd through c->next_fd when
 * chain_open_next opened it (execveat, AT_EMPTY_PATH: exactly the file
 * that was checked); any other program (the target) gets none of them
 * and is exec'd by name. A name without '/' is searched in envp's
 * PATH (default /usr/local/bin:/usr/bin:/bin). Returns only on failure:
 * 127 not found, 126 not executable (recorded in d). */
int chain_exec(struct diag *d, struct chain *c, char *const envp[]);

/* execve of the existing file path failed with ENOENT: find out whether
 * its ELF (PT_INTERP) or #! interpreter is missing (or a #! line ends in
 * CR) and record that in d (127) with the policy line to add as a hint.
 * what: "the target " or "" (prefixes path in the message). depth: 0
 * (it follows an interpreter's own interpreter a few levels).
 * 0 when explained, -1 when not (d untouched). */
int chain_explain_enoent(struct diag *d, const char *what, const char *path,
			 int depth);

/* execve file with argv and envp, searching envp's PATH (default
 * /usr/local/bin:/usr/bin:/bin) when file has no '/'. Allocates nothing
 * (a stack buffer per entry), so a CLONE_VFORK child may call it. Returns
 * the errno that tells most (EACCES beats ENOENT, as execvp). */
int chain_execvpe(const char *file, char **argv, char *const envp[]);

/* execveat(fd, "", argv, envp, AT_EMPTY_PATH): the file fd was opened
 * on, whatever its name leads to now. Only system calls (a CLONE_VFORK
 * child may call it). Returns the errno. */
int chain_execveat(int fd, char **argv, char *const envp[]);

/* The PATH an envp names, or the default. */
const char *chain_env_path(char *const envp[]);

/* Write the target's raw wait status to the report fd (pid 1 does this):
 * {"stage":"target","status":N,"exit":E,"signal":S}. */
int chain_report_status(int fd, int status);

#endif
