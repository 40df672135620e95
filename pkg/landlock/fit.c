/* Fit the rules to the kernel's ABI: never a silent downgrade. A class
 * the ABI lacks is dropped only where the policy marks it best-effort
 * (landlock-best-effort), with a warning; otherwise the run stops. */
#include <stdio.h>
#include <string.h>

#include "landlock/landlock.h"

struct class {
	unsigned bit;		/* LL_BE_* */
	int abi;		/* the ABI that brought it */
	const char *what;	/* for messages */
};

static const struct class classes[] = {
	{ LL_BE_FS, 1, "filesystem rules" },
	{ LL_BE_TRUNCATE, 3, "refusing truncate outside writable paths" },
	{ LL_BE_TCP, 4, "refusing TCP bind and connect" },
	{ LL_BE_IOCTL_DEV, 5, "refusing device ioctls outside dev paths" },
	{ LL_BE_SCOPE_SIGNAL, 6, "refusing signals to processes outside" },
	{ LL_BE_SCOPE_UNIX, 6,
	  "refusing abstract unix sockets made outside" },
};

/* The policy line a class comes from, and its keyword. */
static const struct pos *origin(const struct plan *p, unsigned bit,
				const char **kw)
{
	if (bit == LL_BE_TCP && p->at[PAT_UNSHARE].line) {
		*kw = "unshare net";
		return &p->at[PAT_UNSHARE];
	}
	if (bit != LL_BE_SCOPE_SIGNAL && bit != LL_BE_SCOPE_UNIX && p->nfs) {
		*kw = fs_kind_name(p->fs[0].kind);
		return &p->fs[0].pos;
	}
	if (p->at[PAT_LANDLOCK].line) {
		*kw = "landlock";
		return &p->at[PAT_LANDLOCK];
	}
	*kw = "the policy";
	return &p->top;
}

/* Does the ruleset need the class at all? */
static bool needed(const struct ll_ruleset *rs, unsigned bit)
{
	switch (bit) {
	case LL_BE_TCP:
		return rs->handled_net != 0;
	case LL_BE_SCOPE_SIGNAL:
		return rs->scoped & LL_SCOPE_SIGNAL;
	case LL_BE_SCOPE_UNIX:
		return rs->scoped & LL_SCOPE_ABSTRACT_UNIX;
	default:
		return rs->handled_fs != 0;
	}
}

static void drop(struct ll_ruleset *rs, unsigned bit)
{
	switch (bit) {
	case LL_BE_FS:
		rs->handled_fs = 0;
		break;
	case LL_BE_TRUNCATE:
		rs->handled_fs &= ~LL_FS_TRUNCATE;
		break;
	case LL_BE_TCP:
		rs->handled_net = 0;
		break;
	case LL_BE_IOCTL_DEV:
		rs->handled_fs &= ~LL_FS_IOCTL_DEV;
		break;
	case LL_BE_SCOPE_SIGNAL:
		rs->scoped &= ~LL_SCOPE_SIGNAL;
		break;
	case LL_BE_SCOPE_UNIX:
		rs->scoped &= ~LL_SCOPE_ABSTRACT_UNIX;
		break;
	}
}

int ll_fit(struct diag *d, const struct plan *p, struct ll_ruleset *rs,
	   int abi, bool forced)
{
	char why[128];

	snprintf(why, sizeof(why), "%s Landlock ABI %d%s",
		 forced ? "the" : "this kernel's", abi,
		 forced ? " (set by --abi or PYSBX_LANDLOCK_ABI)" : "");
	for (size_t i = 0; i < sizeof(classes) / sizeof(classes[0]); i++) {
		const struct class *c = &classes[i];
		const struct pos *at;
		const char *kw, *name = ll_class_name(c->bit);

		if (abi >= c->abi || !needed(rs, c->bit))
			continue;
		if (p->ll_best_effort & c->bit) {
			/* Without Landlock at all, 'fs' says it. */
			if (abi || (c->bit != LL_BE_TRUNCATE &&
				    c->bit != LL_BE_IOCTL_DEV))
				diag_warn(d, "not %s ('%s', best-effort): %s "
					  "lacks it (ABI %d, Linux %s)",
					  c->what, name, why, c->abi,
					  ll_abi_kernel(c->abi));
			drop(rs, c->bit);
			continue;
		}
		at = origin(p, c->bit, &kw);
		diag_fail(d, EXIT_SYSCALL, 0,
			  "unable to enforce Landlock '%s' (%s, for '%s' at "
			  "%s:%u): %s; it needs ABI %d", name, c->what, kw,
			  at->file ? at->file : "<plan>", at->line, why,
			  c->abi);
		diag_hint(d,
			  "Linux %s or later enforces it; or add "
			  "'landlock-best-effort %s' to the policy to run "
			  "without it", ll_abi_kernel(c->abi), name);
		return -1;
	}
	/* Rights this ABI does not know (REFER below 2: then the kernel
	 * refuses every rename or link across directories, stricter). */
	if (abi < 2)
		rs->handled_fs &= ~LL_FS_REFER;
	if (abi < 3)
		rs->handled_fs &= ~LL_FS_TRUNCATE;
	if (abi < 5)
		rs->handled_fs &= ~LL_FS_IOCTL_DEV;
	if (abi < 4)
		rs->handled_net = 0;
	if (abi < 6)
		rs->scoped = 0;
	if (!rs->handled_fs && !rs->handled_net && !rs->scoped)
		abi = 0;
	rs->abi = abi;
	return 0;
}
