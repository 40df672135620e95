/* front: the subcommands of the pysbx front door. */
#ifndef PYSBX_FRONT_H
#define PYSBX_FRONT_H

#include "diag/diag.h"

/* pysbx run -p POLICY [-D N=V]... [--] PROG [ARG]...: run the canonical
 * chain with absolute paths to the sibling programs, the guard
 * (pysbx-clean's guard_main) in this process. Returns the guard's exit
 * code (>= 0), or -1 on a usage failure recorded in d. A failure of the
 * guard itself exits through its own diag_exit. argv[0] is "run". */
int front_run(struct diag *d, int argc, char **argv);

/* pysbx policy check|show FILE [-D N=V]...: 0 valid, 100 invalid. */
int front_policy(struct diag *d, int argc, char **argv);

/* pysbx check [--json]: argv[0] is "check". Prints one line (or one JSON
 * object) per feature and a summary; returns 0 when every feature the
 * shipped policies need works, 111 when one is missing; -1 on bad usage,
 * recorded in d (exit 100 through diag_exit). */
int front_check_args(struct diag *d, int argc, char **argv);

#endif
