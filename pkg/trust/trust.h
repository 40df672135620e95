/* trust: a policy (and the toolkit) is trusted input only when nobody but
 * its owner or root can change it — neither another user nor the sandbox
 * it describes (DESIGN.md invariant 8, as doas refuses a config that
 * others can write). */
#ifndef PYSBX_TRUST_H
#define PYSBX_TRUST_H

#include "diag/diag.h"
#include "policy/policy.h"

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

#endif
