/* landlock: the plan's filesystem, TCP and scoping rules as a Landlock
 * ruleset, fitted to the kernel's ABI and applied to the calling process
 * (pysbx-landlock; docs/LANDLOCK.md).
 *
 * Three stages, as the rest of the toolkit: ll_from_plan maps the plan to
 * rules (no kernel involved, rights as of ABI 7), ll_fit drops what the
 * kernel's ABI lacks where the policy marks it best-effort and refuses
 * the rest, ll_apply opens the paths and restricts the process.
 */
#ifndef PYSBX_LANDLOCK_H
#define PYSBX_LANDLOCK_H

#include <stdbool.h>
#include <stdint.h>

#include "diag/diag.h"
#include "landlock/uapi.h"
#include "policy/policy.h"

/* The highest ABI this code knows. */
#define LL_ABI_MAX 7

/* The rights a directive grants (docs/LANDLOCK.md "Mapping"). */
#define LL_R (LL_FS_READ_FILE | LL_FS_READ_DIR)
#define LL_X LL_FS_EXECUTE
#define LL_W                                                            \
	(LL_FS_WRITE_FILE | LL_FS_TRUNCATE | LL_FS_MAKE_REG |           \
	 LL_FS_MAKE_DIR | LL_FS_MAKE_SYM | LL_FS_MAKE_SOCK |            \
	 LL_FS_MAKE_FIFO | LL_FS_REMOVE_FILE | LL_FS_REMOVE_DIR |       \
	 LL_FS_REFER)
/* What a rule on a file (not a directory) may hold. */
#define LL_FILE_RIGHTS                                                  \
	(LL_FS_EXECUTE | LL_FS_WRITE_FILE | LL_FS_READ_FILE |           \
	 LL_FS_TRUNCATE | LL_FS_IOCTL_DEV)

/* Which paths the rules name. */
enum ll_paths {
	LL_PATHS_HOST,		/* Landlock-only: the host's paths */
	LL_PATHS_INSIDE,	/* after pivot_root: the destinations */
};

enum {
	LL_RULE_TRY = 1 << 0,	/* a missing path grants nothing */
	LL_RULE_SHARED = 1 << 1, /* host tmpfs: only over a sticky,
				  * world-writable directory, else hidden */
};

struct ll_rule {
	char *path;		/* absolute, malloc'd */
	uint64_t access;	/* LL_FS_* */
	unsigned flags;		/* LL_RULE_* */
	const struct pos *pos;	/* the directive it comes from */
	const char *what;	/* its keyword */
};

/* Host paths: what a later directive takes away below an earlier grant
 * (mask, remount-ro, a read-only bind in a writable one). ll_apply
 * splits the grant around it (docs/LANDLOCK.md "Exclusions"). */
struct ll_excl {
	char *path;		/* absolute, malloc'd */
	uint64_t take;		/* LL_FS_* taken away */
	const struct pos *pos;
	const char *what;
};

struct ll_ruleset {
	struct ll_rule *rule;
	size_t nrule, cap;
	struct ll_excl *excl;	/* host paths only */
	size_t nexcl, cap_excl;
	uint64_t handled_fs;	/* LL_FS_* */
	uint64_t handled_net;	/* LL_NET_* */
	uint64_t scoped;	/* LL_SCOPE_* */
	int abi;		/* set by ll_fit; -1 before */
	int exec_fd;		/* the next program's fd (--next-fd):
				 * granted read and execute, -1: none */
};

void ll_init(struct ll_ruleset *rs);
void ll_free(struct ll_ruleset *rs);

/* The rules of plan p in mapping m, as of ABI 7 (every class handled),
 * and on host paths the exclusions that later directives make below
 * earlier grants. A directive the mapping cannot express (a bind to
 * another path, file, protect under a writable grant) is recorded in e,
 * positioned
 * ("file:line:col: error: ...", print with perr_print); returns 0, or
 * -1 when e has an error or memory ran out (e says which). */
int ll_from_plan(const struct plan *p, enum ll_paths m, struct ll_ruleset *rs,
		 struct perr *e);

/* The kernel's Landlock ABI (0: none) into *abi, lowered to force when
 * 0 <= force < the kernel's (tests; never raised). 0 or -1 (code 111:
 * the probe failed other than "not available"). */
int ll_abi(struct diag *d, int force, int *abi);

/* Keep what abi can enforce. A class it lacks (LL_BE_*) is dropped with
 * a warning on stderr when p marks it best-effort, else -1 with code 111
 * naming the class, the policy line it comes from and the ABI it needs.
 * forced: abi was lowered by --abi (said in the message). */
int ll_fit(struct diag *d, const struct plan *p, struct ll_ruleset *rs,
	   int abi, bool forced);

/* Open every path (no symlink followed), build the ruleset (a grant
 * with an exclusion below it is split: see split.c), set no_new_privs
 * and restrict the calling thread. With rs->abi 0 it does nothing. 0 or
 * -1 (code 111). */
int ll_apply(struct diag *d, const struct ll_ruleset *rs);

/* Add rule r (opened as fd, access: the rights this ABI handles) to the
 * ruleset rfd split around the exclusions x, which lie below r's path
 * or at it, by real path (split.c; called by ll_apply). 0 or -1 (code
 * 111). */
int ll_split(struct diag *d, int rfd, const struct ll_rule *r, int fd,
	     uint64_t access, const struct ll_excl *x, size_t nx);

/* The kernel release that brought abi ("6.7"), for hints. */
const char *ll_abi_kernel(int abi);

#endif
