/* The plan's filesystem directives as Landlock rules, in either mapping
 * (docs/LANDLOCK.md "Mapping"). Grants are unions along the path, so a
 * rule can only add rights: what a mount takes away below a granted path
 * (mask, remount-ro, a read-only bind inside a writable one) cannot be a
 * rule. Inside the namespace the mounts enforce it and the rules stay a
 * superset of them; on the host it becomes an exclusion that ll_apply
 * splits the grant around (split.c). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "landlock/landlock.h"

#define LL_MAX_RULES (2 * PLAN_MAX_FS + 16)

/* The nodes pysbx-mount's `dev` makes; on the host, the same names. */
static const char *const dev_nodes[] = { "null", "zero", "full", "random",
					 "urandom", "tty", "ptmx" };

void ll_init(struct ll_ruleset *rs)
{
	memset(rs, 0, sizeof(*rs));
	rs->abi = -1;
	rs->exec_fd = -1;
}

void ll_free(struct ll_ruleset *rs)
{
	for (size_t i = 0; i < rs->nrule; i++)
		free(rs->rule[i].path);
	free(rs->rule);
	rs->rule = NULL;
	rs->nrule = rs->cap = 0;
	for (size_t i = 0; i < rs->nexcl; i++)
		free(rs->excl[i].path);
	free(rs->excl);
	rs->excl = NULL;
	rs->nexcl = rs->cap_excl = 0;
}

static void perr_add(struct perr *e, const struct pos *pos, const char *fmt,
		     ...) __attribute__((format(printf, 3, 4)));
static void perr_add(struct perr *e, const struct pos *pos, const char *fmt,
		     ...)
{
	va_list ap;
	int n;

	e->total++;
	if (e->n >= PLAN_MAX_ERRORS)
		return;
	n = snprintf(e->msg[e->n], sizeof(e->msg[0]), "%s:%u:%u: error: ",
		     pos->file ? pos->file : "<plan>", pos->line,
		     pos->col ? pos->col : 1);
	if (n < 0 || (size_t)n >= sizeof(e->msg[0]))
		n = 0;
	va_start(ap, fmt);
	vsnprintf(e->msg[e->n] + n, sizeof(e->msg[0]) - (size_t)n, fmt, ap);
	va_end(ap);
	e->n++;
}

static int add(struct ll_ruleset *rs, struct perr *e, const struct fs_op *op,
	       const char *path, const char *leaf, uint64_t access,
	       unsigned flags)
{
	struct ll_rule *r;
	char *s;

	if (rs->nrule == LL_MAX_RULES) {
		perr_add(e, &op->pos, "more than %d Landlock rules",
			 LL_MAX_RULES);
		return -1;
	}
	if (rs->nrule == rs->cap) {
		size_t cap = rs->cap ? 2 * rs->cap : 32;
		struct ll_rule *n = realloc(rs->rule, cap * sizeof(*n));

		if (!n)
			goto oom;
		rs->rule = n;
		rs->cap = cap;
	}
	if (asprintf(&s, "%s%s%s", path,
		     leaf && strcmp(path, "/") ? "/" : "",
		     leaf ? leaf : "") < 0)
		goto oom;
	r = &rs->rule[rs->nrule++];
	r->path = s;
	r->access = access;
	r->flags = flags;
	r->pos = &op->pos;
	r->what = fs_kind_name(op->kind);
	return 0;
oom:
	perr_add(e, &op->pos, "out of memory for the Landlock rules");
	return -1;
}

/* Is path equal to dir or below it? */
static bool beneath(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	if (!strcmp(dir, "/"))
		return true;
	return !strncmp(path, dir, n) && (path[n] == '/' || !path[n]);
}

static int dev_rules(struct ll_ruleset *rs, struct perr *e,
		     const struct fs_op *op, enum ll_paths m)
{
	const uint64_t rw = LL_FS_READ_FILE | LL_FS_WRITE_FILE |
			    LL_FS_TRUNCATE | LL_FS_IOCTL_DEV;
	size_t i;

	if (m == LL_PATHS_INSIDE) {
		/* The sandbox's own minimal /dev: every node in it. */
		if (add(rs, e, op, op->dst, NULL, rw | LL_FS_READ_DIR, 0) < 0)
			return -1;
	} else {
		for (i = 0; i < sizeof(dev_nodes) / sizeof(dev_nodes[0]); i++)
			if (add(rs, e, op, op->dst, dev_nodes[i], rw,
				LL_RULE_TRY) < 0)
				return -1;
		if (add(rs, e, op, op->dst, "pts", rw | LL_FS_READ_DIR,
			LL_RULE_TRY) < 0)
			return -1;
	}
	/* A tmpfs in the sandbox; on the host, the shared one. */
	return add(rs, e, op, op->dst, "shm", LL_R | LL_W,
		   LL_RULE_TRY | (m == LL_PATHS_HOST ? LL_RULE_SHARED : 0));
}

static int add_excl(struct ll_ruleset *rs, struct perr *e,
		    const struct fs_op *op, uint64_t take)
{
	struct ll_excl *x;

	if (rs->nexcl == rs->cap_excl) {
		size_t cap = rs->cap_excl ? 2 * rs->cap_excl : 16;
		struct ll_excl *n = realloc(rs->excl, cap * sizeof(*n));

		if (!n)
			goto oom;
		rs->excl = n;
		rs->cap_excl = cap;
	}
	x = &rs->excl[rs->nexcl];
	if (!(x->path = strdup(op->dst)))
		goto oom;
	x->take = take;
	x->pos = &op->pos;
	x->what = fs_kind_name(op->kind);
	rs->nexcl++;
	return 0;
oom:
	perr_add(e, &op->pos, "out of memory for the Landlock rules");
	return -1;
}

/* On the host: op takes the rights take away at its path. Where a rule
 * of an earlier directive grants any of them there or above (in the
 * namespace a later mount covers an earlier one), that becomes an
 * exclusion, or, with refuse, a positioned error. */
static int narrowing(struct ll_ruleset *rs, struct perr *e,
		     const struct fs_op *op, uint64_t take, bool refuse)
{
	for (size_t i = 0; i < rs->nrule; i++) {
		const struct ll_rule *r = &rs->rule[i];

		if (r->pos >= &op->pos || !beneath(op->dst, r->path) ||
		    !(r->access & take))
			continue;
		if (!refuse)
			return add_excl(rs, e, op, take);
		perr_add(e, &op->pos,
			 "'%s %s' cannot be enforced by Landlock: '%s %s' "
			 "(%s:%u) grants %s there, and without a mount "
			 "namespace nothing takes them away below it",
			 fs_kind_name(op->kind), op->dst, r->what, r->path,
			 r->pos->file, r->pos->line,
			 (r->access & take & LL_W) ? "writes" : "access");
		return 0;
	}
	return 0;
}

static int one(struct ll_ruleset *rs, struct perr *e, const struct fs_op *op,
	       enum ll_paths m)
{
	unsigned try_ = op->try_ ? LL_RULE_TRY : 0;
	bool host = m == LL_PATHS_HOST;

	switch (op->kind) {
	case FS_BIND:
	case FS_RO_BIND:
	case FS_DEV_BIND:
		if (host && strcmp(op->src, op->dst)) {
			perr_add(e, &op->pos,
				 "'%s %s %s': without a mount namespace "
				 "(Landlock-only) a path stays where it is on "
				 "the host, so the source and destination must "
				 "be the same path", fs_kind_name(op->kind),
				 op->src, op->dst);
			return 0;
		}
		return add(rs, e, op, op->dst, NULL,
			   op->kind == FS_RO_BIND ? LL_R | LL_X :
			   op->kind == FS_BIND ? LL_R | LL_X | LL_W :
			   LL_R | LL_X | LL_W | LL_FS_IOCTL_DEV, try_);
	case FS_TMPFS:
		return add(rs, e, op, op->dst, NULL, LL_R | LL_X | LL_W,
			   host ? LL_RULE_TRY | LL_RULE_SHARED : 0);
	case FS_PROC:
		return add(rs, e, op, op->dst, NULL, LL_R,
			   host ? LL_RULE_TRY : 0);
	case FS_DEV:
		return dev_rules(rs, e, op, m);
	case FS_DIR:
		return add(rs, e, op, op->dst, NULL, LL_FS_READ_DIR,
			   host ? LL_RULE_TRY : 0);
	case FS_FILE:
		if (host) {
			perr_add(e, &op->pos,
				 "'file %s': without a mount namespace "
				 "(Landlock-only) a file's content cannot be "
				 "provided; the host's would be read instead",
				 op->dst);
			return 0;
		}
		return add(rs, e, op, op->dst, NULL, LL_FS_READ_FILE, 0);
	case FS_SYMLINK:
		/* Access through a link is checked at its target. */
		return 0;
	case FS_MASK:
	case FS_REMOUNT_RO:
	case FS_PROTECT:
		/* Inside: the mounts take these rights away (a rule cannot).
		 * On the host: checked once every rule is known. */
		return 0;
	}
	return 0;
}

int ll_from_plan(const struct plan *p, enum ll_paths m, struct ll_ruleset *rs,
		 struct perr *e)
{
	for (size_t i = 0; i < p->nfs; i++)
		if (one(rs, e, &p->fs[i], m) < 0)
			return -1;
	/* Rules are in the order of their directives (pos ascending). */
	if (m == LL_PATHS_HOST)
		for (size_t i = 0; i < p->nfs; i++) {
			const struct fs_op *op = &p->fs[i];
			uint64_t keep = 0;
			bool ruled = false;
			int r = 0;

			for (size_t k = 0; k < rs->nrule; k++)
				if (rs->rule[k].pos == &op->pos &&
				    !strcmp(rs->rule[k].path, op->dst)) {
					keep = rs->rule[k].access;
					ruled = true;
				}
			/* What each takes away in the namespace: a mask
			 * everything; a read-only layer the writes. A dir
			 * or a link takes nothing. */
			if (op->kind == FS_MASK)
				r = narrowing(rs, e, op, ~0ULL, false);
			else if (op->kind == FS_REMOUNT_RO)
				r = narrowing(rs, e, op, LL_W, false);
			else if (op->kind == FS_PROTECT)
				/* Which paths it protects is pysbx-mount's
				 * scan (git dirs and all): not a rule. */
				r = narrowing(rs, e, op, LL_W, true);
			else if (ruled && op->kind != FS_DIR)
				r = narrowing(rs, e, op,
					      (LL_W | LL_FS_IOCTL_DEV) & ~keep,
					      false);
			if (r < 0)
				return -1;
		}
	rs->handled_fs = LL_FS_EXECUTE | LL_FS_WRITE_FILE | LL_FS_READ_FILE |
			 LL_FS_READ_DIR | LL_FS_REMOVE_DIR | LL_FS_REMOVE_FILE |
			 LL_FS_MAKE_CHAR | LL_FS_MAKE_DIR | LL_FS_MAKE_REG |
			 LL_FS_MAKE_SOCK | LL_FS_MAKE_FIFO | LL_FS_MAKE_BLOCK |
			 LL_FS_MAKE_SYM | LL_FS_REFER | LL_FS_TRUNCATE |
			 LL_FS_IOCTL_DEV;
	/* No network: no TCP port at all (the policy's net namespace says
	 * so; without one the host's network is the policy's choice). */
	rs->handled_net = (p->ns & NS_NET) ?
			  LL_NET_BIND_TCP | LL_NET_CONNECT_TCP : 0;
	rs->scoped = LL_SCOPE_ABSTRACT_UNIX | LL_SCOPE_SIGNAL;
	return e->n ? -1 : 0;
}
