/* mnt: pysbx-mount's whole job — the namespaces, the uid/gid maps, the
 * filesystem view built from the plan's fs directives, pivot_root, the
 * extra user+mount namespace that locks every mount, and the capability
 * drop. docs/MOUNT.md explains the decisions.
 *
 * Process tree (DESIGN.md "Chain conventions"):
 *
 *	monitor (this process, outside every new namespace)
 *	  -> pid 1 of the new pid namespace (reaper, pkg/reaper)
 *	       -> child: enters the locking namespaces, drops every
 *	          capability and execs the next program
 *
 * pid 1 shares the monitor's memory and exits from pkg/mnt; the child
 * execs from pkg/mnt (it shares that memory until then); the monitor
 * returns the exit code main must exit with.
 */
#ifndef PYSBX_MNT_H
#define PYSBX_MNT_H

#include "chain/chain.h"
#include "diag/diag.h"
#include "policy/policy.h"

enum mnt_role {
	MNT_EXEC = 0,	/* no namespace asked for: exec chain->next as is */
	MNT_EXIT = 1,	/* the monitor is done: exit(exit_code) */
};

struct mnt_ctx {
	const struct plan *plan;
	struct chain *chain;	/* next_fd, pass_fds: the later steps, opened
				 * on the host (chain_open_next) */
	char **envp;		/* the environment handed to the next program */
	int proxy_fd;		/* --proxy-fd: where pid 1 sends the egress
				 * proxy's listener; -1: none */
	int exit_code;		/* MNT_EXIT: what to exit with */
};

/* Copy the process environment to the heap, wipe the original strings in
 * place (so /proc/PID/environ of the processes that stay around shows
 * nothing) and leave environ empty. Returns the copy, or NULL when out of
 * memory. */
char **mnt_take_environ(void);

/* Copy argv's strings to the heap (argv then points at the copies) and
 * overwrite the originals with the bare name "pysbx-mount", so that
 * /proc/1/cmdline inside names no host path. 0, or -1 out of memory. */
int mnt_take_argv(int argc, char **argv);

/* Carry out the plan's namespaces and filesystem view. Returns MNT_EXIT in
 * the monitor once pid 1 has ended (m->exit_code is pid 1's code; pid 1
 * itself exits with the target's code, or reports its setup failure and
 * exits, never returning); MNT_EXEC, doing nothing, when the plan
 * asks for no namespace at all (main execs the next program itself); -1
 * when setup failed (recorded in d with a hint; nothing untrusted was
 * started). The child of pid 1 never returns: it execs the next program
 * (all namespaces entered, every capability set empty, securebits
 * locked) or reports its failure and exits. */
int mnt_sandbox(struct diag *d, struct mnt_ctx *m);

/* Resolve rel (a path below rootfd, a root directory) following its
 * symlinks one by one inside that root, never out of it: out is the same
 * place with no symlink. -1 with errno (ENOENT: a component is missing).
 * Used for masks, and by `pysbx policy show` to say what each resolves
 * to on the host. */
int mnt_resolve_in(int rootfd, const char *rel, char *out, size_t outlen);

#endif
