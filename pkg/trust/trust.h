/* trust: a policy (and the toolkit) is trusted input only when nobody but
 * its owner or root can change it — neither another user nor the sandbox
 * it describes (DESIGN.md invariant 8, as doas refuses a config that
 * others can write). */
#ifndef PYSBX_TRUST_H
#define PYSBX_TRUST_H

#include <stdbool.h>

#include "diag/diag.h"
#include "policy/policy.h"

/* Between trust_memo(true) and trust_memo(false) (nested pairs count),
 * what the checks learnt of a directory above a checked file is reused
 * by the next checks instead of asking the kernel again: one start's
 * policy, includes and programs share most of their directories. The
 * scope is one start, never longer. */
void trust_memo(bool on);

/* Check that path and every directory above it are owned by root or the
 * caller and not writable by group or others (a sticky directory such as
 * /tmp is accepted above a file the caller or root owns). what names the
 * path in the message ("policy", "pysbx program"). 0, or -1 with code 100
 * and a hint naming the flag that overrides. */
int trust_path(struct diag *d, const char *path, const char *what);

/* Check every policy file of p and the directory of the running program:
 * trust_path on each, and none may lie under a source the plan binds
 * read-write (the sandbox could rewrite its next sandbox). 0 or -1. */
int trust_plan(struct diag *d, const struct plan *p);

/* Open the program at path to exec it through the fd (execveat), never
 * by its name again: when check, first trust_path's checks, then that it
 * lies under no source p (if not NULL) binds read-write, by name or by
 * the device and inode of its directories, then that the fd is that very
 * inode, a regular file with one link and owned by root or the caller.
 * Without check (--allow-untrusted) only the open. Returns an O_PATH,
 * close-on-exec fd, or -1 (code 100 refused, 126/127 not executable or
 * missing, 111). */
int trust_open_prog(struct diag *d, const struct plan *p, const char *path,
		    bool check);

/* The checks an fd passed down from an earlier step (--next-fd) still
 * allows inside the sandbox, where the owner may show as unmapped: a
 * regular file, not writable by group or others, one link. Makes it
 * close-on-exec. 0 or -1 (code 100). */
int trust_prog_fd(struct diag *d, int fd, const char *name);

#endif
