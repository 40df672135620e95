/* guard: pysbx-clean, the lifecycle guard that stays outside every
 * namespace so that nothing of a sandbox outlives it (docs/GUARD.md).
 *
 *   resolve.c    policy -> plan, with the scratch dir made first so that
 *                ${SCRATCH} is known; -t/-k/--die-with-parent applied
 *   main.c       guard_main: pysbx-clean's main, also run in-process by
 *                `pysbx run`
 *   spawn.c      start the sandbox's first process (clone CLONE_VM |
 *                CLONE_VFORK, as posix_spawn) in its own process group
 *   supervise.c  start the sandbox (spawn.c), wait on a
 *                signalfd and the report pipe (ppoll, no polling loop),
 *                forward signals, enforce the timeout (TERM, CONT, grace,
 *                KILL), die with the caller
 *   kill.c       the tree kill: SIGKILL every descendant (host /proc
 *                walk, pidfd-checked), reap, repeat until none is left
 *   scratch.c    create / adopt / remove / sweep scratch directories
 *   rmtree.c     the removal walk that never leaves the directory
 *   status.c     the chain's report records in, --status-fd records out
 *
 * Like every pkg/ module, nothing here exits or prints a fatal error: the
 * functions record failures in a struct diag and return -1; main reports.
 */
#ifndef PYSBX_GUARD_H
#define PYSBX_GUARD_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <signal.h>
#include <stdio.h>
#include <sys/types.h>

#include "chain/chain.h"
#include "diag/diag.h"
#include "policy/policy.h"

/* --- main.c -------------------------------------------------------- */

/* pysbx-clean's whole command line (argv[0] is the program): parse,
 * resolve, run, clean up, report. Returns the exit code of the run, or
 * exits through diag_exit (messages prefixed "pysbx-clean:") on a
 * failure of the guard itself. Resets getopt first, so a caller that
 * parsed its own options before (pysbx run) can call it in-process. */
int guard_main(int argc, char **argv);

/* The prefix of guard_main's messages: "pysbx-clean", or "pysbx" when
 * `pysbx run` runs the guard in its own process (a user who typed pysbx
 * run reads "pysbx:", as from pysbx policy check). */
extern const char *guard_prog;

/* pysbx run: the chain it built holds pysbx-landlock, which the guard
 * drops from it unless the plan says `landlock yes`. */
extern bool guard_landlock_if_asked;

#define GUARD_USAGE                                                         \
	"pysbx-clean [-p POLICY] [-D NAME=VALUE]... [-t DURATION|none]\n"   \
	"         [-k DURATION] [--status-fd N] [--die-with-parent]\n"      \
	"         [--report-denials]\n"                                     \
	"         [--scratch-parent DIR] PROG [ARG]...\n"                   \
	"       pysbx-clean --sweep PARENT"

/* The guard's own options, for -h (pysbx-clean and pysbx run). */
#define GUARD_OPTIONS_HELP                                                  \
	GUARD_RUN_HELP                                                      \
	"  --sweep PARENT      remove scratch directories left under "      \
	"PARENT by\n"                                                       \
	"                      runs that were killed, and exit\n"
#define GUARD_RUN_HELP                                                      \
	"  -t, --timeout DURATION|none  wall-clock limit (overrides the "      \
	"policy's)\n"                                                       \
	"  -k, --kill-after DURATION    grace between TERM and KILL\n"     \
	"  --status-fd N       write JSON status records (started, exit) "  \
	"to fd N\n"                                                         \
	"  --die-with-parent   end the run when the caller dies\n"        \
	"  --report-denials    name each path the sandbox's view denied "   \
	"(report denials)\n"                                                \
	"  --scratch-parent DIR  make the scratch directory under DIR\n"

struct guard_opts;

/* pysbx-clean's command line into c (chain_init'ed with GUARD_USAGE), o
 * (status_fd -1, the rest zero) and *sweep (NULL). Resets getopt first
 * (optind = 0). No side effect beyond that and --status-fd's check
 * (chain_output_fd: fcntl, close-on-exec), except that -h and --version
 * print and exit(0) (chain_opt). On success either *sweep is set (--sweep
 * PARENT, nothing else given) or c->next is the program to run. 0, or -1
 * with d set (code 100; 111 when --status-fd could not be made
 * close-on-exec). */
int guard_parse_args(struct diag *d, struct chain *c, struct guard_opts *o,
		     const char **sweep, int argc, char **argv);

/* --- scratch.c ------------------------------------------------------- */

#define SCRATCH_PREFIX "pysbx-"
#define SCRATCH_LOCK_SUFFIX ".lock"

struct scratch {
	enum scratch_mode mode;	/* SCRATCH_NONE, _CREATE or _ADOPT */
	char name[32];		/* CREATE: "pysbx-" + 16 hex digits */
	int parent_fd;		/* CREATE: the checked parent, O_DIRECTORY */
	int lock_fd;		/* CREATE: the directory itself, flock'ed
				 * (LOCK_EX), or PARENT/NAME.lock when
				 * lock_file; ADOPT: the directory, LOCK_SH */
	bool lock_file;		/* the directory could not be flock'ed */
	dev_t dev;		/* the directory's identity, as made or */
	ino_t ino;		/* adopted: pysbx-mount binds only it */
	/* Last: without a scratch directory, its untouched pages never
	 * become resident. */
	char path[PATH_MAX];	/* the directory: ${SCRATCH} */
};

void scratch_init(struct scratch *s);

/* Create a fresh directory PARENT/pysbx-XXXXXXXXXXXXXXXX, mode 0700,
 * with a random name, flock'ed (LOCK_EX) through s->lock_fd, an fd of the
 * directory itself, for as long as that stays open (a --sweep leaves a
 * locked directory alone). PARENT must be owned by root or the caller,
 * and neither it nor any directory on the way to it (symlinks resolved
 * once, then walked with O_NOFOLLOW) may be writable by group or others
 * unless sticky. A sweep that sees the directory before it is locked
 * either loses the race for the lock or removes it before the guard's
 * check: the guard then takes another name. Where a directory cannot be
 * flock'ed (NFS), the lock is the file PARENT/NAME.lock, made already
 * locked (O_TMPFILE + linkat). All fds are close-on-exec. 0, or -1 with
 * d set (100 for an unsafe parent, 111 otherwise). */
int scratch_create(struct diag *d, struct scratch *s, const char *parent);

/* Adopt an existing directory: it must be a directory owned by the caller
 * and not writable by group or others. It is never removed, and held
 * with a shared flock while the guard runs, so that a --sweep never
 * takes it for a dead guard's. 0 or -1. */
int scratch_adopt(struct diag *d, struct scratch *s, const char *dir);

/* End of the run. CREATE: remove the directory recursively (never
 * following a symlink, never entering another mount), then the lock file
 * if there is one, then release the lock. ADOPT: release its lock.
 * NONE: nothing. 0, or -1 with d set (the directory, or what could not
 * be removed, is left). */
int scratch_remove(struct diag *d, struct scratch *s);

/* Remove every scratch directory under parent whose lock is free (its
 * guard is gone): the directory's own flock, or its NAME.lock file when
 * there is one (a guard that could not flock the directory, or an older
 * guard); and lock files whose directory is gone. A directory whose lock
 * is held or cannot be tried, or that is not owned by the caller, is
 * left alone. Prints each removed path to out. Returns the number
 * removed, or -1 with d set (the first failure; the sweep still tries
 * every entry). */
int scratch_sweep(struct diag *d, const char *parent, FILE *out);

/* Remove dirfd/name and everything below it: unlinkat/openat2 relative
 * to directory fds only, no symlink followed (RESOLVE_NO_SYMLINKS), no
 * mount point entered (RESOLVE_NO_XDEV, and st_dev compared), an fd
 * depth of one (the walk climbs back through ".." and checks that it
 * reached the directory it left), directories made writable when the
 * sandbox took their write bit away. What cannot be removed is left and
 * named in d. 0 or -1. */
int rmtree_at(struct diag *d, int dirfd, const char *name);

/* --- status.c -------------------------------------------------------- */

/* One kill by the syscall filter, as pid 1 reported it
 * (reaper/sigsys.h); strings as received (validated, still escaped). */
struct sigsys_rec {
	bool have;
	char name[40];		/* "": no x86_64 name (a foreign ABI) */
	long nr;
	char arch[16];		/* "x86_64", "i386", "x32" */
	long pid;		/* in the sandbox's pid namespace */
	char comm[40];
	bool target;		/* the target's own process */
	long kills;		/* kills so far in this run */
};

/* Parsing report records (flat JSON objects, status.c): a string value
 * kept escaped (validated), a number in [min, max]; 0 or -1. One line
 * to fd in one write(2) (n: its length; fd < 0: nothing). */
int guard_json_str(const char *line, const char *key, char *out,
		   size_t outlen);
int guard_json_long(const char *line, const char *key, long min, long max,
		    long *out);
int guard_write_line(int fd, const char *line, int n);

/* --- denials.c ------------------------------------------------------- */

/* Paths of report denials named on stderr and as status records; the
 * rest are counted. */
#define GUARD_DENIALS_LISTED 64

/* Before the run. */
void guard_denials_init(void);
/* pid 1's records "denial", "denial-count", "denials" (reaper/denials.h):
 * checked (a path missing in the view is a denial only if the caller
 * can see it on the host), counted, passed on as `denial` records. */
void guard_denial_record(const char *event, const char *line, int status_fd);
struct guard_opts;
/* After the run: the `denials` status record and the stderr summary. */
void guard_denials_end(const struct diag *d, const struct guard_opts *o);

/* The chain's report records, read from the report pipe. Strings are
 * kept JSON-escaped, as received (validated: no raw control character,
 * no unescaped quote), so that they can be written out again verbatim. */
struct report {
	char buf[4096];		/* the current partial line */
	size_t len;
	bool overflow;		/* the current line is too long: dropped */
	bool started;		/* {"event":"started","pid":N} was seen */
	long started_pid;
	bool have_target;	/* {"stage":"target","status":N} */
	int target_status;	/* raw wait status */
	bool have_fail;		/* {"stage":S,"error":E,"errno":N,"code":C} */
	char fail_stage[32];
	char fail_error[2048];
	int fail_errno;
	int fail_code;
	int status_fd;		/* where protect records are passed on, -1 */
	struct sigsys_rec sigsys; /* the kill that ended the target, else
				 * the first */
};

/* An empty report. Field by field: the buffers are written only as
 * records come, so a run without them never touches their pages. */
void report_init(struct report *r);

/* Feed bytes read from the report pipe; complete lines are parsed. A
 * malformed line is ignored. Returns 1 when this input completed a
 * "started" record (the caller then writes its own), else 0. */
int report_feed(struct report *r, const char *p, size_t n);

/* The end of a run, as written to --status-fd. */
struct run_result {
	char stage[32];		/* "target", "clean", "mount", ... */
	char error[2048];	/* JSON-escaped; empty: none (null) */
	int err;		/* errno of a setup failure, 0 otherwise */
	int code;		/* the guard's exit code */
	int signal;		/* signal that killed the target, 0: none */
	bool timeout;		/* the wall-clock timeout fired */
	uint64_t wall_ms, user_ms, sys_ms;
	long max_rss_kb;
	char scratch_error[512]; /* JSON-escaped; empty: removed or none */
	const char *mode;	/* "namespaces", "landlock-only"; NULL:
				 * no pysbx-mount chain (no "mode" key) */
	struct sigsys_rec sigsys; /* the filter's kill, named by pid 1 */
};

/* A result with nothing in it (as zeroed), its buffers left untouched. */
void run_result_init(struct run_result *r);

/* {"event":"started","pid":N[,"mode":..]}; fd < 0: nothing. One
 * write(2). */
int status_started(int fd, long pid);
/* {"event":"exit","stage":..,"error":..,"errno":..,"code":..,
 *  "signal":..,"timeout":..,"wall_ms":..,"user_ms":..,"sys_ms":..,
 *  "max_rss_kb":..[,"scratch_error":..][,"mode":..]}; fd < 0: nothing. */
int status_exit(int fd, const struct run_result *r);
/* The mode the guard chose ("namespaces", "landlock-only"), added to
 * the started record as "mode"; NULL (the default): no such key. */
void status_set_mode(const char *mode);
/* The exit record of a failure of the guard itself (stage "clean"),
 * built from d as diag_exit prints it. */
int status_fail(int fd, const struct diag *d);

/* --- resolve.c ------------------------------------------------------- */

/* What the probe of mode.c tries beyond user and mount namespaces. */
struct ns_needs {
	bool hostname;		/* sethostname in a new UTS namespace */
	bool proc;		/* a fresh procfs in a new pid namespace */
};

/* How the sandbox is built (mode.c). */
enum run_mode {
	MODE_NONE,		/* the guard runs no pysbx-mount chain */
	MODE_NAMESPACES,	/* pysbx-mount builds it */
	MODE_LANDLOCK_ONLY,	/* no pysbx-mount: host paths, Landlock */
};

#define GUARD_MAX_KILL_RULES 24

struct guard_opts {
	/* from the command line */
	bool timeout_set, kill_after_set;
	uint64_t timeout_ms, kill_after_ms;
	bool die_with_parent;
	bool report_denials;	/* --report-denials, or the plan's
				 * `report denials` */
	int status_fd;		/* -1: none */
	const char *scratch_parent; /* --scratch-parent, NULL: none */
	pid_t caller;		/* getppid() at startup */
	/* derived from the next program */
	bool chain;		/* the next program is a pysbx step */
	bool wait_started;	/* it is pysbx-mount: "started" comes later */
	bool proxy;		/* the plan has net-proxy: the guard forks the
				 * egress proxy (pkg/egress) */
	char first_stage[16];	/* "mount", "exec", ... or "target" */
	/* from the plan: the syscalls it kills or traps on, for the line
	 * that explains a SIGSYS (empty: none; "..." when cut) */
	char killers[192];
	/* and each kill rule's syscall and position, to name the line that
	 * killed a call pid 1 reports (cut at GUARD_MAX_KILL_RULES) */
	struct {
		char name[32];
		char where[128];	/* FILE:LINE */
	} kill_rules[GUARD_MAX_KILL_RULES];
	unsigned nkill_rules;
	bool kill_default;	/* seccomp default kill */
	/* from the plan and the kernel (mode.c) */
	enum run_mode mode;
	char mode_why[200];	/* Landlock-only: why */
	char *wrap;		/* Landlock-only: the policy text parsed */
	char *wrap_name;	/* and its name, in the policy's directory */
	enum ll_only ll_only;	/* the policy's landlock-only */
	struct ns_needs needs;
};

/* --- mode.c ---------------------------------------------------------- */

/* Whether the namespaces and mounts p needs work for this process: in a
 * forked child that is thrown away, the first steps pysbx-mount takes
 * (unshare user and mount namespaces, uid/gid maps, make / private, a
 * tmpfs; sethostname when p sets a hostname; a fresh procfs in a new pid
 * namespace when p mounts one). r->ok, or the step that failed and its
 * errno. 0, or -1 when the probe itself could not run (r->step, r->err
 * say what). */
struct mode_probe {
	bool ok;
	const char *step;	/* static */
	int err;
};
int mode_ns_probe(const struct ns_needs *n, struct mode_probe *r);
/* What of the namespaces a plan needs the probe tries. */
void mode_needs(const struct plan *p, struct ns_needs *n);

/* "namespaces", "landlock-only", "none". */
const char *mode_name(enum run_mode m);

/* Pick the mode for the plan p of the first parse, when the first step
 * is pysbx-mount: namespaces, unless the policy says `landlock-only
 * always`, or `allow` and mode_ns_probe finds namespaces refused. For
 * Landlock-only: c->next becomes the chain without pysbx-mount, with
 * `pysbx-landlock --paths host` before pysbx-seccomp, and o->wrap the
 * policy text to parse instead of c->policy (the policy, plus seccomp
 * rules for what the mount namespace hid). Sets o->mode and
 * o->mode_why. 0 or -1 with d set. */
int guard_mode(struct diag *d, struct chain *c, struct guard_opts *o,
	       const struct plan *p);

/* In Landlock-only mode, after the final parse: drop what needs
 * pysbx-mount and the policy accepted losing (protect, with a warning
 * each), check that every rule has a host path, and (unless
 * allow_untrusted) that no policy file or pysbx program of the caller's
 * lies in a shared directory a tmpfs line makes writable (/tmp). 0, or
 * -1 with d set (100: the policy cannot run Landlock-only, and why). */
int guard_mode_plan(struct diag *d, struct guard_opts *o, const char *policy,
		    bool allow_untrusted, struct plan *p);

struct run_result;
/* After a run in namespace mode that pysbx-mount ended (111), for a
 * policy that does not permit Landlock-only mode: if namespaces are
 * refused here (mode_ns_probe), one hint line names the two routes. */
void guard_mode_hint(const struct diag *d, const struct guard_opts *o,
		     const char *policy, const struct run_result *r);

/* --- explain.c ------------------------------------------------------- */

/* The syscalls plan p kills or traps on, into o->killers. */
void guard_note_killers(struct guard_opts *o, const struct plan *p);

/* One line on stderr when the run ended by the timeout or the target was
 * killed by the syscall filter (SIGSYS): which, and what to do. */
void guard_explain_end(const struct diag *d, const struct guard_opts *o,
		       const struct run_result *r);

/* Standalone without a policy, scratch parent or report fd, only the
 * plan's defaults (no plan is made). Otherwise resolve the policy into
 * the plan: parse once with PARSE_NO_SCRATCH to
 * validate it and learn its scratch directive; create (or adopt) the
 * scratch directory; define SCRATCH and parse again; apply the command
 * line's -t, -k, --die-with-parent into o and the plan; fill o's derived
 * fields; seal the plan into c->plan_fd when the next program is a pysbx
 * step. On failure after the scratch dir was made, the caller removes it
 * (scratch_remove). 0 or -1 with d set. */
int guard_resolve(struct diag *d, struct chain *c, struct guard_opts *o,
		  struct scratch *s);

/* --- supervise.c ----------------------------------------------------- */

/* Run c->next under the guard: start a child (guard_spawn) in its own
 * process group which execs it (with --report-fd, a pipe the guard
 * reads, when it is a pysbx step); forward SIGINT, SIGHUP, SIGQUIT,
 * SIGUSR1 and SIGUSR2 (those the caller did not ignore) once to the
 * child; on SIGTERM, the caller's death (die_with_parent) or the timeout:
 * TERM and CONT to the sandbox, then after kill_after_ms SIGKILL to every
 * descendant. When the child has exited, every remaining descendant is
 * killed and reaped (the guard is a child subreaper). extra_env, if not
 * NULL, is added to the child's environment ("NAME=VALUE"). Fills res
 * (not the scratch fields; the children's usage only with --status-fd,
 * the only place it is reported). Returns 0, or -1 with d set when the guard
 * could not start the child. */
int guard_run(struct diag *d, const struct guard_opts *o, struct chain *c,
	      const char *extra_env, struct run_result *res);

/* --- spawn.c ------------------------------------------------------- */

/* Start c->next (with --plan-fd/--report-fd when it is a pysbx step, as
 * chain_exec does) in a child that shares the guard's memory until its
 * exec (clone CLONE_VM | CLONE_VFORK, as posix_spawn): the child puts
 * itself in its own process group, sets PR_SET_PDEATHSIG(SIGKILL) and
 * checks that its parent is still guard, restores mask, then execs with
 * environ plus extra_env (if not NULL, "NAME=VALUE" replacing NAME).
 * Returns when the child has exec'd or exited. When the child failed,
 * the guard prints its message and writes its failure record to
 * c->report_fd (stage d->stage) in its place; the child's exit status
 * (111, 126, 127) is collected by the caller as usual. Returns the
 * child's pid, or -1 with d set when no child could be started. */
pid_t guard_spawn(struct diag *d, struct chain *c, const sigset_t *mask,
		  pid_t guard, const char *extra_env);

/* --- cgroup.c -------------------------------------------------------- */

/* Where the caller's cgroup v2 is delegated to it (its directory and
 * cgroup.procs the caller's) and has cgroup.kill: make the sandbox's own
 * cgroup, pysbx-PID, below it. Returns the fd of its cgroup.procs (the
 * child writes "0" there before its exec), or -1: then none is used. */
int guard_cgroup_open(void);
/* That fd, or -1. */
int guard_cgroup_procs(void);
/* Kill every process of the sandbox's cgroup at once (cgroup.kill); no
 * effect without one. */
void guard_cgroup_kill(void);
/* Remove the sandbox's cgroup (once empty). */
void guard_cgroup_close(void);

/* --- kill.c ---------------------------------------------------------- */

/* Send SIGKILL to every live descendant of the calling process (walking
 * the host's /proc; each target checked through a pidfd, so that a
 * recycled pid is never signalled) and to the process group pgid (if
 * > 0). Returns the number of processes signalled. */
int kill_descendants(pid_t pgid);

/* Repeat kill_descendants and reaping until no descendant is left (or a
 * bound of rounds passes: a process stuck in the kernel). sfd is the
 * guard's signalfd (SIGCHLD), used to wait between rounds. Reaps
 * everything; if child's exit status was not collected before, it is
 * stored in *status. Returns 0, or -1 if some process would not die. */
int kill_tree(pid_t pgid, int sfd, pid_t child, int *status, bool *reaped);

#endif
