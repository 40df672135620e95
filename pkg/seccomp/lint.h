/* seccomp lint: known bypass routes and rules that do not do what they
 * say, found in a plan before anything runs (`pysbx policy check`).
 *
 * The compiler already closes the routes a policy leaves open by silence
 * (compile.h); lint warns where the policy keeps them open on purpose or
 * by a rule that cannot work:
 *  - io_uring_setup/enter/register allowed while socket is denied;
 *  - clone3 allowed while clone is filtered by its flags;
 *  - a conditional rule that an unconditional rule on the same syscall
 *    overrides (libseccomp keeps only the unconditional one);
 *  - a !=, <, <=, >, >= compare of an argument the kernel reads as a 32-bit
 *    int, where high bits set by the caller would slip past the rule;
 *  - a default that is not allow with no rule allowing execve (the target
 *    could not start);
 *  - `seccomp audit` left on (nothing is enforced).
 */
#ifndef PYSBX_SC_LINT_H
#define PYSBX_SC_LINT_H

#include <stddef.h>

#include "policy/policy.h"

struct sc_warning {
	struct pos pos;
	char msg[400];
};

/* Check p's seccomp rules. Stores at most max warnings in w (in policy
 * order of the checks) and returns how many were found, which may be more
 * than max. */
size_t sc_lint(const struct plan *p, struct sc_warning *w, size_t max);

#endif
