/* What the filesystem directives make, checked against each other before
 * anything runs: the refusals pysbx-mount would otherwise make halfway
 * through building the root (a path made twice, a path under a symlink or
 * a file, a file under a read-only mount), and what would be created on
 * the host through a read-write bind. `pysbx policy check` and every run
 * make them alike, since both parse. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "policy/internal.h"

/* Is a an ancestor of b, or b itself? Both absolute and normalised. */
static bool covers(const char *a, const char *b)
{
	size_t n = strlen(a);

	if (n == 1)
		return true; /* "/" */
	return !strncmp(a, b, n) && (b[n] == '\0' || b[n] == '/');
}

static bool is_mount(enum fs_kind k)
{
	return k == FS_BIND || k == FS_RO_BIND || k == FS_DEV_BIND ||
	       k == FS_TMPFS || k == FS_PROC || k == FS_DEV || k == FS_MASK;
}

static bool makes_entry(enum fs_kind k)
{
	return k == FS_DIR || k == FS_SYMLINK || k == FS_FILE;
}

/* The mount point's host path (the bind's source + the rest of dst)
 * would have to be created: a component is missing. One that is a
 * symlink is left to pysbx-mount, which refuses it with its own message;
 * a path through the scratch placeholder is not known yet, and a -try
 * bind may be skipped. */
static bool host_missing(const struct fs_op *bind, const char *dst)
{
	char path[2 * PLAN_MAX_PATH + 2];
	struct stat st;
	size_t base = strlen(bind->src);
	const char *rest =
		dst + (strlen(bind->dst) == 1 ? 0 : strlen(bind->dst));

	if (bind->try_ || strstr(bind->src, SCRATCH_PLACEHOLDER))
		return false;
	if (snprintf(path, sizeof(path), "%s%s", bind->src, rest) >=
	    (int)sizeof(path))
		return false;
	for (char *s = path + base; s; s = strchr(s + 1, '/')) {
		char was = *s;

		*s = '\0';
		if (s > path + base || base == 0) {
			if (lstat(path, &st) < 0) {
				*s = was;
				return errno == ENOENT;
			}
			if (S_ISLNK(st.st_mode)) {
				*s = was;
				return false;
			}
		}
		*s = was;
		if (!was)
			break;
	}
	return lstat(path, &st) < 0 && errno == ENOENT;
}

/* A `file` over a regular file the bind already shows (ci.policy's
 * /etc/passwd over the host root) is mounted on top of it: nothing is made
 * under the bind, whether it is read-only or not. */
static bool host_regular(const struct fs_op *bind, const char *dst)
{
	char path[2 * PLAN_MAX_PATH + 2];
	struct stat st;
	const char *rest = dst + (strlen(bind->dst) == 1 ? 0 :
				  strlen(bind->dst));

	if ((bind->kind != FS_BIND && bind->kind != FS_RO_BIND &&
	     bind->kind != FS_DEV_BIND) || strstr(bind->src, SCRATCH_PLACEHOLDER))
		return false;
	if (snprintf(path, sizeof(path), "%s%s", bind->src, rest) >=
	    (int)sizeof(path))
		return false;
	return lstat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static void check_one(struct ctx *c, size_t k)
{
	const struct plan *p = c->p;
	const struct fs_op *op = &p->fs[k], *cur = NULL;
	const char *what = fs_kind_name(op->kind);
	bool ro = false;

	for (size_t j = 0; j < k; j++) {
		const struct fs_op *o = &p->fs[j];

		if (!covers(o->dst, op->dst))
			continue;
		if (o->kind == FS_REMOUNT_RO) {
			ro = cur != NULL;
			continue;
		}
		/* A mount hides what lies under its path, wherever that
		 * is; an entry made inside a mount does not. */
		if (is_mount(o->kind) || (makes_entry(o->kind) &&
					  (!cur || covers(cur->dst, o->dst)))) {
			cur = o;
			ro = o->kind == FS_RO_BIND || o->kind == FS_MASK;
		}
	}
	if (!cur)
		return;
	if (!strcmp(cur->dst, op->dst)) {
		if (makes_entry(op->kind) && makes_entry(cur->kind))
			perr_at(c, &op->pos, op->pos.col,
				"'%s %s': %s is already made by '%s' at %s:%u",
				what, op->dst, op->dst, fs_kind_name(cur->kind),
				cur->pos.file, cur->pos.line);
		return;
	}
	if (cur->kind == FS_SYMLINK || cur->kind == FS_FILE) {
		perr_at(c, &op->pos, op->pos.col,
			"'%s %s': %s is a %s (made at %s:%u), and pysbx never "
			"follows a symlink or goes under a file inside the new "
			"root: mount at the real path instead",
			what, op->dst, cur->dst,
			cur->kind == FS_SYMLINK ? "symlink" : "file",
			cur->pos.file, cur->pos.line);
		return;
	}
	if (op->kind == FS_FILE && host_regular(cur, op->dst))
		return;
	if (ro && (op->kind == FS_FILE || op->kind == FS_SYMLINK)) {
		perr_at(c, &op->pos, op->pos.col,
			"'%s %s' cannot be made under the read-only mount of "
			"%s (at %s:%u): put it outside it, or under a tmpfs",
			what, op->dst, cur->dst, cur->pos.file, cur->pos.line);
		return;
	}
	if (cur->kind != FS_BIND && cur->kind != FS_DEV_BIND)
		return;
	if (makes_entry(op->kind))
		perr_at(c, &op->pos, op->pos.col,
			"'%s %s' would be made on the host, in %s, through the "
			"read-write bind of %s (at %s:%u): make it outside the "
			"bind, or mount a tmpfs there first",
			what, op->dst, cur->src, cur->dst, cur->pos.file,
			cur->pos.line);
	else if (op->kind != FS_MASK && host_missing(cur, op->dst))
		perr_at(c, &op->pos, op->pos.col,
			"'%s %s': its mount point does not exist in %s and would "
			"be made on the host through the read-write bind of %s "
			"(at %s:%u): create it there first, or mount elsewhere",
			what, op->dst, cur->src, cur->dst, cur->pos.file,
			cur->pos.line);
}

void plan_validate_layout(struct ctx *c)
{
	/* A plan was checked where its policy was parsed; the host paths
	 * it names need not be visible where a later step reads it. */
	if (c->plan_mode)
		return;
	for (size_t k = 0; k < c->p->nfs; k++) {
		enum fs_kind kind = c->p->fs[k].kind;

		if (is_mount(kind) && kind != FS_MASK)
			check_one(c, k);
		else if (makes_entry(kind))
			check_one(c, k);
	}
}
