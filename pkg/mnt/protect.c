/* protect DIR [depth=N] PATTERN...: every path below DIR (up to N levels)
 * that matches makes a read-only bind of itself, so that a writable
 * workspace keeps its hooks, rc files and keys read-only.
 *
 * Matching (docs/MOUNT.md): a pattern without '/' matches a path's last
 * component, one with '/' matches its last components (".git/hooks"
 * matches "a/.git/hooks"); fnmatch(3) globbing; "!PATTERN" exempts; the
 * last pattern that matches decides. A protected directory is not
 * descended into (its bind covers everything below). Only what exists
 * now can be protected.
 *
 * A matching name that is a symlink is resolved beneath DIR (never out of
 * it, never through /proc magic links) and its target is protected: else
 * one run could turn .git/hooks into a link to a writable directory and
 * every later run would write hooks through it. A matching link that
 * leaves DIR or dangles stops the run (fail closed). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mnt/internal.h"
#include "mnt/sys.h"

#define PROTECT_MAX 4096	/* binds per directive: fail closed above */

struct walk {
	struct diag *d;
	const struct fs_op *op;
	int rootfd;		/* DIR itself: symlinks resolve beneath it */
	const char *pats;	/* one per line */
	unsigned depth, count;
};

static bool match_one(const char *pat, size_t n, const char *rel)
{
	char p[PLAN_MAX_PATH + 1];
	const char *s = rel;

	snprintf(p, sizeof(p), "%.*s", (int)n, pat);
	if (!memchr(pat, '/', n)) {
		const char *base = strrchr(rel, '/');

		return !fnmatch(p, base ? base + 1 : rel, 0);
	}
	for (;;) {
		if (!fnmatch(p, s, FNM_PATHNAME))
			return true;
		s = strchr(s, '/');
		if (!s++)
			return false;
	}
}

static bool matches(const char *pats, const char *rel)
{
	bool hit = false;

	for (const char *p = pats; *p;) {
		const char *e = strchrnul(p, '\n');
		bool neg = *p == '!';

		if (match_one(p + neg, (size_t)(e - p - neg), rel))
			hit = !neg;
		p = *e ? e + 1 : e;
	}
	return hit;
}

static int protect_fd(struct walk *w, int fd, const char *rel)
{
	int tree;

	if (++w->count > PROTECT_MAX)
		return diag_fail(w->d, EXIT_SYSCALL, 0,
				 "unable to protect %s: more than %d paths "
				 "match (at %s:%u)", w->op->dst, PROTECT_MAX,
				 w->op->pos.file, w->op->pos.line);
	tree = mnt_clone_with(fd, MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID |
					  MOUNT_ATTR_NODEV);
	if (tree < 0 || mnt_attach(tree, fd) < 0) {
		char extra[PLAN_MAX_PATH + 16];

		snprintf(extra, sizeof(extra), " (path %s)", rel);
		return mnt_op_fail(w->d, w->op, errno, NULL, extra);
	}
	return 0;
}

/* rel is a matching symlink below DIR: protect what it points to. */
static int protect_link(struct walk *w, const char *rel)
{
	int fd = sys_openat2(w->rootfd, rel, O_PATH | O_CLOEXEC, 0,
			     RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS), r;

	if (fd < 0)
		return diag_fail(w->d, EXIT_SYSCALL, errno,
				 "unable to protect %s/%s (%s:%u): it is a "
				 "symlink that %s", w->op->dst, rel,
				 w->op->pos.file, w->op->pos.line,
				 errno == EXDEV ? "leads out of the protected "
						  "directory"
						: "does not resolve");
	r = protect_fd(w, fd, rel);
	close(fd);
	return r;
}

static int walk_dir(struct walk *w, int dirfd, char *rel, size_t len,
		    unsigned level)
{
	int fd = sys_openat2(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC,
			     0, MNT_RESOLVE);
	struct dirent *de;
	DIR *dir;
	int r = 0;

	if (fd < 0 || !(dir = fdopendir(fd))) {
		if (fd >= 0)
			close(fd);
		return mnt_op_fail(w->d, w->op, errno, NULL, "");
	}
	while (!r && (de = readdir(dir))) {
		size_t n = strlen(de->d_name);
		struct stat st;
		int child;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (len + n + 2 > PLAN_MAX_PATH)
			continue;
		child = sys_openat2(fd, de->d_name, O_PATH | O_CLOEXEC, 0,
				    MNT_RESOLVE);
		sprintf(rel + len, "%s%s", len ? "/" : "", de->d_name);
		if (child < 0 && errno == ELOOP && matches(w->pats, rel)) {
			r = protect_link(w, rel);
			rel[len] = '\0';
			continue;
		}
		rel[len] = '\0';
		/* ELOOP: a symlink that matches nothing, not followed;
		 * ENOENT: gone meanwhile. */
		if (child < 0)
			continue;
		if (fstat(child, &st) < 0) {
			close(child);
			continue;
		}
		sprintf(rel + len, "%s%s", len ? "/" : "", de->d_name);
		if (matches(w->pats, rel))
			r = protect_fd(w, child, rel);
		else if (S_ISDIR(st.st_mode) && level < w->depth)
			r = walk_dir(w, child, rel, strlen(rel), level + 1);
		rel[len] = '\0';
		close(child);
	}
	closedir(dir);
	return r;
}

int mnt_protect(struct diag *d, struct mnt_build *b, const struct fs_op *op)
{
	char bad[PLAN_MAX_PATH + 1], rel[PLAN_MAX_PATH + 1];
	struct walk w = { d, op, -1, op->src, (unsigned)op->inodes, 0 };
	int fd = mnt_open_dst(b->rootfd, op->dst, DST_EXISTING, 0, bad,
			      sizeof(bad)), r;

	if (fd < 0)
		return mnt_op_fail(d, op, errno, bad, "");
	w.rootfd = fd;
	rel[0] = '\0';
	r = walk_dir(&w, fd, rel, 0, 1);
	close(fd);
	return r;
}
