/* names: symbolic names for errno values and signals, both directions. */
#ifndef PYSBX_NAMES_H
#define PYSBX_NAMES_H

/* "EPERM" -> 1; also a plain decimal 1..4095. -1 if unknown. */
int errno_by_name(const char *name);
/* 1 -> "EPERM"; NULL if not in the table. */
const char *errno_name(int err);
/* "SIGKILL", "KILL" or a decimal 1..64 -> 9. -1 if unknown. */
int signal_by_name(const char *name);
/* 9 -> "SIGKILL"; NULL if not in the table. */
const char *signal_name(int sig);

#endif
