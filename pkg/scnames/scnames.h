/* scnames: syscall names, argument constants and the named presets
 * a policy can use ("seccomp deny @keyring"). The parser resolves all of
 * them at parse time, so an unknown name is a positioned policy error. */
#ifndef PYSBX_SCNAMES_H
#define PYSBX_SCNAMES_H

#include <stddef.h>
#include <stdint.h>

/* Resolve a syscall name for the native ABI (x86_64), without libseccomp.
 * Returns 0 and sets *nr (a number < 0, libseccomp's pseudo number, for
 * the few names the presets use that exist only on other ABIs, e.g.
 * socketcall), or -1 for any other name: an unknown syscall. */
int sc_syscall_resolve(const char *name, int *nr);

/* The native (x86_64) name of syscall number nr, or NULL. */
const char *sc_syscall_name(int nr);

/* The highest native syscall number the build's kernel headers know: the
 * filter answers ENOSYS above it (docs/SECCOMP.md). */
int sc_syscall_max(void);

/* The tables sc_syscall_resolve searches, for tests: the i-th name of
 * the native table (other_abis 0, sorted by name) or of the other-ABI
 * names (1), with its number in *nr; NULL past the end. */
const char *sc_syscall_at(int other_abis, size_t i, int *nr);

/* Argument constants usable in conditions ("arg0==AF_UNIX"). 0 or -1. */
int sc_const(const char *name, uint64_t *value);

/* A preset: a named list of rule items in policy syntax, each "syscall"
 * or "syscall COND..." (e.g. "ioctl arg1&0xffffffff==TIOCSTI"). */
struct sc_preset {
	const char *name;	/* without the '@' */
	const char *doc;	/* one line for docs and `pysbx policy` */
	const char *const *items; /* NULL-terminated */
};

/* NULL-terminated by a zero entry. */
extern const struct sc_preset sc_presets[];

const struct sc_preset *sc_preset_find(const char *name);

/* Is argument arg (0..5) of the syscall called name an int or unsigned
 * int in the kernel, i.e. does the kernel ignore its high 32 bits? Only
 * the syscalls policies commonly filter by argument are listed. */
int sc_arg_is_32bit(const char *name, unsigned arg);

#endif
