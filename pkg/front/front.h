/* front: the subcommands of the pysbx front door. */
#ifndef PYSBX_FRONT_H
#define PYSBX_FRONT_H

#include "diag/diag.h"

/* pysbx run -p POLICY [-D N=V]... [--] PROG [ARG]...: exec the canonical
 * chain with absolute paths to the sibling programs. Returns only on
 * failure (recorded in d). argv[0] is "run". */
int front_run(struct diag *d, int argc, char **argv);

/* pysbx policy check|show FILE [-D N=V]...: 0 valid, 100 invalid. */
int front_policy(struct diag *d, int argc, char **argv);

/* pysbx check: what this kernel allows; 0 when the shipped policies can
 * run. */
int front_check(struct diag *d);

#endif
