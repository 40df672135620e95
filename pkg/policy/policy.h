/* policy: the policy language and the resolved plan every step reads.
 *
 * A policy file is parsed (includes inlined, variables expanded, presets
 * expanded, syscall names resolved) into a struct plan before anything
 * touches the kernel. The plan is also what travels down the chain: it is
 * serialised to canonical text (plan_format), sealed in a memfd by the
 * first step and parsed back (policy_parse_plan) by the later ones. The
 * grammar is documented in docs/POLICY.md.
 *
 * Memory: every string and the plan's arrays live in the plan's arena and
 * are released by plan_free(); arrays have fixed caps so that a hostile
 * policy cannot make a step allocate without bound.
 */
#ifndef PYSBX_POLICY_H
#define PYSBX_POLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "netaddr/netaddr.h"

#define PLAN_MAX_FS 256		/* filesystem directives */
#define PLAN_MAX_ENV 128	/* env and env-pass entries */
#define PLAN_MAX_SC 1024	/* seccomp rules after preset expansion */
#define PLAN_MAX_FDS 32		/* keep-fd entries */
#define PLAN_MAX_DEFINES 60	/* -D variables */
#define PLAN_MAX_VARS 66	/* -D variables plus the 6 built-ins */
#define PLAN_MAX_ERRORS 20	/* diagnostics reported per parse */
#define PLAN_MAX_LINE 4096	/* bytes per policy line */
#define PLAN_MAX_PATH 4095	/* bytes per path, as PATH_MAX - 1 */
#define PLAN_MAX_FILE (1 << 20) /* bytes per policy file */
#define PLAN_MAX_INCLUDE_DEPTH 16
#define PLAN_MAX_FILES 64	/* policy files read (top + includes) */
#define SC_MAX_COND 6
#define PLAN_MAX_PX 256		/* net-allow and net-deny rules */
#define PLAN_MAX_PIN 64		/* net-resolve pins */
#define PLAN_PROXY_PORT 3128	/* net-proxy's default port */

/* Where a directive came from; file is owned by the plan's arena. */
struct pos {
	const char *file;
	unsigned line, col;
};

/* Namespace bits for plan.ns. */
enum {
	NS_USER = 1 << 0,
	NS_MOUNT = 1 << 1,
	NS_PID = 1 << 2,
	NS_IPC = 1 << 3,
	NS_UTS = 1 << 4,
	NS_NET = 1 << 5,
	NS_CGROUP = 1 << 6,
};

enum fs_kind {
	FS_BIND,	/* bind SRC DST: read-write bind, nodev */
	FS_RO_BIND,	/* ro-bind SRC DST: ro,nosuid,nodev, recursive */
	FS_DEV_BIND,	/* dev-bind SRC DST: device nodes usable */
	FS_TMPFS,	/* tmpfs DST [size=] [mode=] [inodes=] */
	FS_PROC,	/* proc DST: procfs of the new pid namespace */
	FS_DEV,		/* dev DST [shm-size=] [ptys=]: minimal /dev */
	FS_DIR,		/* dir DST [mode=] */
	FS_SYMLINK,	/* symlink TARGET DST (TARGET may be relative) */
	FS_FILE,	/* file DST CONTENT [mode=] */
	FS_REMOUNT_RO,	/* remount-ro DST */
	FS_MASK,	/* mask DST: hide what lies there (dir or file) */
	FS_PROTECT,	/* protect DIR [depth=N] PATTERN...: re-bind read-only
			 * every existing path under DIR matching a pattern */
};

/* The unit a size or duration was written in, so that `policy show`
 * prints it back as written (512M stays 512M, 90s stays 90s).
 * UW_NONE: not written (a default: the largest exact unit is shown);
 * UW_1: a plain number (bytes, a count, or the kernel's unit). */
enum unit_written { UW_NONE, UW_1, UW_K, UW_M, UW_G, UW_T, UW_MS, UW_S,
		    UW_MIN, UW_H };

struct fs_op {
	enum fs_kind kind;
	bool try_;		/* -try form: a missing source is skipped */
	const char *src;	/* bind source, symlink target, file content;
				 * protect: the patterns, one per line */
	const char *dst;	/* absolute, normalised, inside the sandbox */
	uint64_t size;		/* tmpfs size / dev shm size, 0: default */
	uint64_t inodes;	/* tmpfs nr_inodes, dev: devpts max (ptys=),
				 * 0: default; protect: depth */
	int mode;		/* permission bits, -1: default */
	unsigned char size_unit, inodes_unit; /* enum unit_written */
	struct pos pos;
};

/* One rlimit; values are RLIM_INFINITY for "unlimited". */
enum {
	RL_SOFT_HARD = 1 << 0,	/* soft is "hard": take the hard limit */
	RL_KEEP_HARD = 1 << 1,	/* hard is "keep": leave the hard limit */
};
struct rlimit_op {
	int resource;		/* RLIMIT_* */
	uint64_t soft, hard;
	unsigned flags;
	unsigned char soft_unit, hard_unit; /* enum unit_written */
	struct pos pos;
};

struct env_op {
	const char *name;
	const char *value;	/* NULL: pass through from the caller */
	struct pos pos;
};

enum sc_action {
	SC_ALLOW,
	SC_ERRNO,		/* return -1 with errno = err */
	SC_KILL,		/* kill the process */
	SC_LOG,			/* allow and log */
	SC_TRAP,		/* SIGSYS */
};

enum sc_op { SC_EQ, SC_NE, SC_LT, SC_LE, SC_GT, SC_GE, SC_MASKED_EQ };

struct sc_cond {
	unsigned arg;		/* 0..5 */
	enum sc_op op;
	uint64_t mask;		/* SC_MASKED_EQ only */
	uint64_t value;
};

/* A plan holds up to PLAN_MAX_SC of these and most have no condition:
 * cond points to ncond entries in the arena (NULL when ncond is 0), so
 * that a rule is 48 bytes, not 184, and every step touches (page-faults)
 * a few KiB less. */
struct sc_rule {
	const char *name;	/* syscall name as written */
	int nr;			/* native syscall number, resolved at parse */
	enum sc_action act;
	int err;		/* SC_ERRNO */
	unsigned ncond;		/* up to SC_MAX_COND */
	struct sc_cond *cond;
	struct pos pos;
};

/* How a net-allow or net-deny rule names hosts. */
enum px_rule_kind {
	PXR_NAME,		/* example.com: that name only */
	PXR_SUFFIX,		/* *.example.com: names below it, not itself */
	PXR_ANY,		/* *: every host (net-deny only) */
	PXR_IP,			/* 10.0.0.1, [::1]: that address only */
};

/* One net-allow or net-deny rule (docs/POLICY.md "Network proxy"). */
struct px_rule {
	bool deny;
	enum px_rule_kind kind;
	unsigned port;		/* 1-65535, 0: any */
	const char *host;	/* as written, without the port: "example.com",
				 * "*.example.com", "*", "10.0.0.1", "[::1]" */
	struct px_addr addr;	/* PXR_IP */
	struct pos pos;
};

/* net-resolve NAME=ADDR: NAME is not resolved, ADDR is used. */
struct px_pin {
	const char *name;	/* a valid lower-case name */
	struct px_addr addr;
	struct pos pos;
};

enum scratch_mode { SCRATCH_NONE, SCRATCH_CREATE, SCRATCH_ADOPT };

/* Directives that may appear once (and unshare, keep-fd: first use); the
 * plan keeps where each was given so that a step can name the line. */
enum plan_at {
	PAT_UNSHARE, PAT_UID, PAT_GID, PAT_HOSTNAME, PAT_NESTED, PAT_CHDIR,
	PAT_UMASK, PAT_SESSION, PAT_DIESIG, PAT_STDIN, PAT_KEEPFD, PAT_SCDEFAULT,
	PAT_AUDIT, PAT_TIMEOUT, PAT_DWP, PAT_SCRATCH, PAT_PROXY, PAT_LANDLOCK,
	PAT_LLBEST, PAT_LLONLY, PAT_REPORT, PAT_N
};

/* Landlock classes a policy may mark best-effort (landlock-best-effort):
 * each is dropped, with a warning, where the kernel's ABI lacks it;
 * any other one the kernel lacks stops the run (docs/LANDLOCK.md). */
enum {
	LL_BE_FS = 1 << 0,		/* ABI 1: the filesystem rules */
	LL_BE_TRUNCATE = 1 << 1,	/* ABI 3 */
	LL_BE_TCP = 1 << 2,		/* ABI 4 */
	LL_BE_IOCTL_DEV = 1 << 3,	/* ABI 5 */
	LL_BE_SCOPE_SIGNAL = 1 << 4,	/* ABI 6 */
	LL_BE_SCOPE_UNIX = 1 << 5,	/* ABI 6: abstract unix sockets */
	LL_BE_ALL = (1 << 6) - 1,
};

/* landlock-only: may the policy run without pysbx-mount? */
enum ll_only { LL_ONLY_DENY, LL_ONLY_ALLOW, LL_ONLY_ALWAYS };

struct plan {
	/* namespaces (pysbx-mount) */
	unsigned ns;		/* NS_* bits; NS_USER is always set if any */
	long uid, gid;		/* ids seen inside, -1: the caller's */
	const char *hostname;	/* NULL: keep */
	bool nested_userns;	/* allow user namespaces inside */
	struct fs_op *fs;
	size_t nfs;

	/* process state (pysbx-exec) */
	struct rlimit_op *rl;
	size_t nrl;
	struct env_op *env;
	size_t nenv;
	const char *chdir;	/* NULL: "/" inside a new root, else keep */
	int umask;		/* -1: keep */
	bool new_session;	/* default true */
	int die_signal;		/* parent-death signal, 0: none */
	bool stdin_null;	/* stdin from /dev/null */
	int keep_fds[PLAN_MAX_FDS];
	size_t nkeep_fds;

	/* syscall filter (pysbx-seccomp) */
	bool sc_set;		/* any seccomp directive seen */
	enum sc_action sc_default;
	int sc_default_err;
	bool sc_audit;		/* log what would be denied, deny nothing */
	struct sc_rule *sc;
	size_t nsc;

	/* Landlock (pysbx-landlock) */
	bool landlock;		/* landlock yes: in the namespace chain too */
	unsigned ll_best_effort; /* LL_BE_* */
	enum ll_only ll_only;

	/* lifecycle (pysbx-clean) */
	uint64_t timeout_ms;	/* 0: none */
	uint64_t kill_after_ms;	/* grace between TERM and KILL */
	unsigned char timeout_unit, kill_after_unit; /* enum unit_written */
	bool die_with_parent;
	bool report_denials;	/* report denials: pid 1 names what the view
				 * denies (docs/DENIALS.md) */
	enum scratch_mode scratch;
	const char *scratch_path; /* parent (create) or directory (adopt) */

	/* network proxy (the guard's; pkg/proxy) */
	bool net_proxy;		/* net-proxy: implies a net namespace */
	unsigned proxy_port;	/* listener 127.0.0.1:PORT inside */
	struct px_rule *px;	/* net-allow, net-deny in policy order */
	size_t npx;
	struct px_pin *pin;
	size_t npin;

	const char *files[PLAN_MAX_FILES]; /* every policy file read */
	size_t nfiles;
	struct pos top;		/* the top-level policy file, line 1 */
	struct pos at[PAT_N];	/* where each scalar was set, line 0: unset */
	size_t cap_fs, cap_env, cap_sc; /* room in fs, env, sc (they grow) */
	size_t cap_px, cap_pin;
	void *arena;		/* owns every pointer above */
};

/* One -D NAME=VALUE or built-in; values are taken verbatim. */
struct vars {
	size_t n;
	const char *name[PLAN_MAX_VARS];
	const char *value[PLAN_MAX_VARS];
};

/* Collected diagnostics: "file:line:col: error: msg" each. */
struct perr {
	size_t n;		/* errors recorded (capped) */
	size_t total;		/* errors seen, may exceed the cap */
	size_t warnings;
	char msg[PLAN_MAX_ERRORS][512];
};

/* Parse flags. */
enum {
	PARSE_NO_SCRATCH = 1 << 0, /* ${SCRATCH} is a placeholder (check/show) */
	/* Plan text only: skip the seccomp lines, for a step that has no use
	 * for them (pysbx-mount, pysbx-exec) when pysbx-seccomp follows it
	 * (chain_seccomp_follows): that one reads them all and refuses a
	 * malformed one before the target runs. */
	PARSE_SKIP_SECCOMP = 1 << 1,
};

/* The grace between TERM and KILL when neither the policy nor -k says
 * (POLICY.md, GUARD.md): plan_init's, and the guard's without a plan. */
#define PLAN_KILL_AFTER_MS 1000

/* Initialise an empty plan with the defaults documented in POLICY.md.
 * Returns 0, or -1 when out of memory. */
int plan_init(struct plan *p);
void plan_free(struct plan *p);

/* Add NAME=VALUE (as given to -D) to vars. Returns 0, or -1 with a message
 * in err (malformed name, missing '=', too many, duplicate). */
int vars_add_arg(struct vars *v, const char *arg, char *err, size_t errlen);
/* Add or replace a variable (used for built-ins such as SCRATCH). */
int vars_set(struct vars *v, const char *name, const char *value);

/* Where the built-in ${HOME} comes from when the environment is no longer
 * the caller's (pysbx-mount moves it off the stack first): the caller's
 * HOME value, or NULL for getenv("HOME"). */
void policy_builtin_home(const char *home);

/* The time zone name in the target of an /etc/localtime link
 * (".../zoneinfo/Europe/Paris" -> "Europe/Paris", pointing into link), or
 * "UTC" when there is none or it is not a plain relative name: the
 * built-in ${LOCALTIME}. */
const char *policy_zone_of_link(const char *link);

/* Parse the policy at path (with its includes) into p, which plan_init
 * prepared. Every error is recorded in e, positioned; returns 0 when e has
 * no error, else -1. Built-ins UID, GID (the caller's real ids) and HOME
 * (from the environment, when absolute) are defined unless vars sets them. */
int policy_parse_file(struct plan *p, const char *path, const struct vars *v,
		      unsigned flags, struct perr *e);

/* Same, from a buffer (name is used in positions; includes are relative to
 * the directory of name). */
int policy_parse_buf(struct plan *p, const char *name, const char *buf,
		     size_t len, const struct vars *v, unsigned flags,
		     struct perr *e);

/* Serialise p to canonical plan text (header "pysbx-plan 1", one
 * "@FILE:LINE:COL directive ..." line each, trailer "end"). Returns a
 * malloc'd NUL-terminated buffer and its length, or NULL when out of
 * memory. */
char *plan_format(const struct plan *p, size_t *len);

/* The same text written to fd through a buffer of one page, however long
 * the plan (the guard keeps every page it touches while the sandbox
 * runs). Returns 0, or an errno value (ENOMEM, or the write's). */
int plan_write(const struct plan *p, int fd);

/* Print the resolved plan as policy text (no positions) for `policy show`.
 * Returns a malloc'd string or NULL. */
char *plan_show(const struct plan *p);

/* Parse plan text made by plan_format back into p (plan_init first).
 * Stricter than a policy: header and trailer required, no variables, no
 * includes. Returns 0, or -1 with the reason in e. */
int policy_parse_plan(struct plan *p, const char *buf, size_t len,
		      struct perr *e);

/* The same without a copy, for a step that reads the plan: buf comes
 * from plan_text_buf(p, len) and holds len bytes of plan text; the parser
 * splits it in place and p's strings point into it. */
char *plan_text_buf(struct plan *p, size_t len);
int policy_parse_plan_inplace(struct plan *p, char *buf, size_t len,
			      unsigned flags, struct perr *e);

/* Print every recorded error to stderr, then a summary line
 * "prog: N errors in FILE; nothing was started". */
void perr_print(const struct perr *e, const char *prog, const char *file);

/* Edit distance of two short words (99 past 30 bytes), for
 * did-you-mean. */
size_t policy_distance(const char *a, const char *b);

/* Names for diagnostics and serialisation. */
const char *fs_kind_name(enum fs_kind k);
const char *rlimit_name(int resource);
int rlimit_by_name(const char *name);	/* -1 if unknown */
const char *ns_name(unsigned bit);
/* The name of one LL_BE_* bit ("tcp"), or NULL. */
const char *ll_class_name(unsigned bit);

#endif
