#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "trust/trust.h"

#define OVERRIDE "pass --allow-untrusted only if you accept that risk"
#define MAX_DEPTH 64	/* components of a path walked without realpath */

/* What the checks need of one directory or file on the way. */
struct node {
	mode_t mode;
	uid_t uid;
	nlink_t nlink;
	dev_t dev;
	ino_t ino;
};

/* A resolved path and what lstat said of "/", each directory below it
 * and the file: node[0] is "/", node[n - 1] the file. */
struct walked {
	char real[PATH_MAX];
	struct node node[MAX_DEPTH];
	size_t n;
	struct node leaf;	/* the file itself, however it was walked */
};

static int owner_ok(uid_t uid)
{
	return uid == 0 || uid == getuid();
}

/* A file with a second name: whoever can write where that name lives
 * (a workspace the sandbox writes) changes this file too, whatever the
 * modes of this one's directories say. */
static int links_refused(struct diag *d, const struct node *leaf,
			 const char *real, const char *what)
{
	if (leaf->nlink <= 1 || S_ISDIR(leaf->mode))
		return 0;
	diag_fail(d, EXIT_USAGE, 0,
		  "refusing %s %s: it has %lu hard links, and a writer of "
		  "any other of them changes it", what, real,
		  (unsigned long)leaf->nlink);
	diag_hint(d, "give it a file of its own (cp, not ln); %s", OVERRIDE);
	return -1;
}

/* Why st fails the check, for the message. */
static const char *why(const struct node *st, char *buf, size_t len)
{
	if (!owner_ok(st->uid))
		snprintf(buf, len, "is owned by uid %u (neither you nor root)",
			 (unsigned)st->uid);
	else
		snprintf(buf, len, "is writable by %s",
			 (st->mode & S_IWOTH) ? "others" : "its group");
	return buf;
}

static struct node node_of(const struct stat *st)
{
	return (struct node){ st->st_mode, st->st_uid, st->st_nlink,
			      st->st_dev, st->st_ino };
}

/* What lstat said of the directories the walks of one start passed
 * ("/", /usr, /usr/local, ...: the policy, its includes and each pysbx
 * program share most of them), between trust_memo(true) and
 * trust_memo(false). Only for directories above a walked file, never
 * for the file itself, and never beyond one start: a directory checked
 * once is not checked again for the next start of a long-lived caller
 * (pysbx session). The same race as a second lstat a moment later. */
#define MEMO_MAX 32
static struct {
	int on;
	size_t n;
	struct { char *path; struct node node; } e[MEMO_MAX];
} memo;

void trust_memo(bool on)
{
	if (on) {
		memo.on++;
		return;
	}
	if (memo.on && --memo.on)
		return;
	for (size_t i = 0; i < memo.n; i++)
		free(memo.e[i].path);
	memo.n = 0;
}

/* lstat of a directory on the way, from the memo when it has it. */
static int lstat_dir(const char *path, struct node *out, struct stat *st)
{
	for (size_t i = 0; memo.on && i < memo.n; i++)
		if (!strcmp(memo.e[i].path, path)) {
			*out = memo.e[i].node;
			st->st_mode = out->mode;
			return 0;
		}
	if (fstatat(AT_FDCWD, path, st, AT_SYMLINK_NOFOLLOW) < 0)
		return -1;
	*out = node_of(st);
	if (memo.on && memo.n < MEMO_MAX && S_ISDIR(st->st_mode) &&
	    (memo.e[memo.n].path = strdup(path))) {
		memo.e[memo.n].node = *out;
		memo.n++;
	}
	return 0;
}

/* Append one lstat'ed component to w (w->real holds the path so far).
 * 0, or 1 when realpath(3) must decide: a symlink, a name that is not a
 * directory where one is needed, or any failure but a missing name
 * (-1, errno ENOENT: realpath fails the same way). */
static int step(struct walked *w, const char *name, size_t len, bool last)
{
	size_t at = strlen(w->real);
	struct stat st;

	if (w->n == MAX_DEPTH || at + (at > 1) + len >= sizeof(w->real))
		return 1;
	if (at > 1)
		w->real[at++] = '/';
	memcpy(w->real + at, name, len);
	w->real[at + len] = '\0';
	if (last) {
		if (fstatat(AT_FDCWD, w->real, &st, AT_SYMLINK_NOFOLLOW) < 0)
			return errno == ENOENT ? -1 : 1;
		w->node[w->n] = node_of(&st);
	} else if (lstat_dir(w->real, &w->node[w->n], &st) < 0) {
		return errno == ENOENT ? -1 : 1;
	}
	if (S_ISLNK(st.st_mode) || (!last && !S_ISDIR(st.st_mode)))
		return 1;
	w->n++;
	return 0;
}

/* Append each component of the path s (all directories but the last).
 * 0, -1 or 1 as step; "." and ".." are realpath's. */
static int walk_names(struct walked *w, const char *s)
{
	const char *e;
	size_t len;
	int r;

	for (; *s; s = *e ? e + 1 : e) {
		e = strchrnul(s, '/');
		len = (size_t)(e - s);
		if (!len)
			continue;
		if ((len == 1 && s[0] == '.') ||
		    (len == 2 && s[0] == '.' && s[1] == '.'))
			return 1;
		r = step(w, s, len, !*e);
		if (r)
			return r;
	}
	return 0;
}

/* Resolve path as realpath(3) would, when it needs no symlink resolved
 * (the usual case): one lstat per component, whose results the checks
 * reuse, where realpath and the checks made a readlink and a stat each
 * (and realpath's 8 KiB of stack, the deepest the guard ever went). 0
 * resolved (w filled); -1 a component is missing (errno ENOENT, as
 * realpath would fail); 1 realpath(3) must decide (a symlink, ".", "..",
 * a trailing slash, a path too deep). */
static int walk_plain(const char *path, struct walked *w)
{
	struct stat st;
	char *s, *e, save;
	int r;

	w->n = 0;
	if (!*path || path[strlen(path) - 1] == '/')
		return 1;
	if (lstat_dir("/", &w->node[0], &st) < 0)
		return 1;
	w->n = 1;
	strcpy(w->real, "/");
	/* A relative path: the working directory is canonical (getcwd);
	 * each of its directories is checked like the rest, walked in
	 * place (no second PATH_MAX buffer on the stack). */
	if (path[0] != '/') {
		if (!getcwd(w->real, sizeof(w->real)) || w->real[0] != '/')
			return 1;
		for (s = w->real + 1; *s; s = *e ? e + 1 : e) {
			e = strchrnul(s, '/');
			if (e == s || w->n == MAX_DEPTH)
				return 1;
			save = *e;
			*e = '\0';
			r = fstatat(AT_FDCWD, w->real, &st,
				    AT_SYMLINK_NOFOLLOW);
			*e = save;
			if (r < 0 || !S_ISDIR(st.st_mode))
				return 1;
			w->node[w->n++] = node_of(&st);
		}
	}
	r = walk_names(w, path);
	if (r)
		return r;
	return w->n > 1 ? 0 : 1;
}

/* Resolve symlinks once: the checks then hold for the file that is
 * really read, wherever a link pointed. */
static int resolve(struct diag *d, const char *path, const char *what,
		   char real[PATH_MAX])
{
	if (!realpath(path, real))
		return diag_fail(d, EXIT_USAGE, errno, "unable to resolve %s %s",
				 what, path);
	return 0;
}

/* The owner and mode checks of trust_path on the resolved path rp, for
 * a path walk_plain could not resolve: a stat of the file and of each
 * directory above it. */
static int owner_walk(struct diag *d, const char *rp, const char *path,
		      const char *what, struct node *out)
{
	char real[PATH_MAX], *slash;
	struct stat st, leaf;
	char reason[80];
	struct node n;

	snprintf(real, sizeof(real), "%s", rp);
	if (stat(real, &leaf) < 0)
		return diag_fail(d, EXIT_USAGE, errno, "unable to stat %s %s",
				 what, real);
	n = node_of(&leaf);
	if (!owner_ok(n.uid) || (n.mode & (S_IWGRP | S_IWOTH))) {
		diag_fail(d, EXIT_USAGE, 0, "refusing %s %s: it %s", what,
			  real, why(&n, reason, sizeof(reason)));
		diag_hint(d, "chmod go-w %s; %s", real, OVERRIDE);
		return -1;
	}
	if (links_refused(d, &n, real, what) < 0)
		return -1;
	*out = n;
	for (;;) {
		slash = strrchr(real, '/');
		if (!slash)
			break;
		if (slash == real)
			slash[1] = '\0';
		else
			*slash = '\0';
		if (stat(real, &st) < 0)
			return diag_fail(d, EXIT_USAGE, errno,
					 "unable to stat %s", real);
		n = node_of(&st);
		if (!owner_ok(n.uid) ||
		    ((n.mode & (S_IWGRP | S_IWOTH)) && !(n.mode & S_ISVTX))) {
			diag_fail(d, EXIT_USAGE, 0,
				  "refusing %s %s: directory %s %s, who could "
				  "replace it", what, path, real,
				  why(&n, reason, sizeof(reason)));
			diag_hint(d, "move it to a directory only you can "
				  "write; %s", OVERRIDE);
			return -1;
		}
		if (!strcmp(real, "/"))
			break;
	}
	return 0;
}

/* A directory that fails the check: its name is w->real cut after i
 * components. Apart from owner_check, so that the PATH_MAX buffer is on
 * the stack only on failure: every page of stack the guard touches
 * stays resident while the sandbox runs. */
static __attribute__((noinline)) int dir_refused(struct diag *d,
						 const struct walked *w,
						 size_t i, const char *path,
						 const char *what)
{
	char dir[PATH_MAX], reason[80], *slash;

	snprintf(dir, sizeof(dir), "%s", w->real);
	for (size_t k = w->n - 1; k > i; k--) {
		slash = strrchr(dir, '/');
		if (slash == dir)
			slash[1] = '\0';
		else
			*slash = '\0';
	}
	diag_fail(d, EXIT_USAGE, 0,
		  "refusing %s %s: directory %s %s, who could replace it", what,
		  path, dir, why(&w->node[i], reason, sizeof(reason)));
	diag_hint(d, "move it to a directory only you can write; %s", OVERRIDE);
	return -1;
}

/* The same checks on what walk_plain saw, in the same order: the file,
 * then each directory above it from the nearest up to "/". */
static int owner_check(struct diag *d, const struct walked *w,
		       const char *path, const char *what)
{
	const struct node *leaf = &w->node[w->n - 1];
	char reason[80];

	if (!owner_ok(leaf->uid) || (leaf->mode & (S_IWGRP | S_IWOTH))) {
		diag_fail(d, EXIT_USAGE, 0, "refusing %s %s: it %s", what,
			  w->real, why(leaf, reason, sizeof(reason)));
		diag_hint(d, "chmod go-w %s; %s", w->real, OVERRIDE);
		return -1;
	}
	if (links_refused(d, leaf, w->real, what) < 0)
		return -1;
	for (size_t i = w->n - 1; i-- > 0;) {
		const struct node *st = &w->node[i];

		if (!owner_ok(st->uid) ||
		    ((st->mode & (S_IWGRP | S_IWOTH)) && !(st->mode & S_ISVTX)))
			return dir_refused(d, w, i, path, what);
	}
	return 0;
}

/* Resolve path and check it and its directories; real gets the
 * resolved path. 0, or -1 with d set. */
static int walk_check(struct diag *d, const char *path, const char *what,
		      struct walked *w)
{
	if (walk_plain(path, w) == 0) {
		w->leaf = w->node[w->n - 1];
		return owner_check(d, w, path, what);
	}
	w->n = 0;	/* no nodes: under_by_inode stats on its own */
	if (resolve(d, path, what, w->real) < 0)
		return -1;
	return owner_walk(d, w->real, path, what, &w->leaf);
}

int trust_path(struct diag *d, const char *path, const char *what)
{
	struct walked w;

	return walk_check(d, path, what, &w);
}

/* Is path equal to or beneath dir (both resolved)? */
static int beneath(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	if (!strcmp(dir, "/"))
		return 1;
	return !strncmp(path, dir, n) && (path[n] == '/' || !path[n]);
}

/* realpath(3) of a bind source into w->real, or NULL when it does not
 * resolve (a missing -try source binds nothing). */
static const char *resolve_src(const char *src, struct walked *w)
{
	int r = walk_plain(src, w);

	if (r == 0)
		return w->real;
	w->n = 0;
	if (r < 0)
		return NULL;	/* missing, as realpath would say */
	return realpath(src, w->real);
}

/* The sources p binds read-write, each resolved once for every file
 * checked (and not from under a file's own walk: one PATH_MAX walk on
 * the stack at a time). real[i] is fs[i]'s resolved source, NULL when
 * it is no read-write bind or does not resolve. */
struct rw_srcs {
	char **real;
	struct stat *id;	/* real[i]'s device and inode */
};

static int rw_resolve(struct diag *d, const struct plan *p, struct rw_srcs *rw)
{
	struct walked w;
	const char *src;

	rw->real = NULL;
	rw->id = NULL;
	for (size_t i = 0; i < p->nfs; i++) {
		const struct fs_op *f = &p->fs[i];

		if (f->kind != FS_BIND && f->kind != FS_DEV_BIND)
			continue;
		if (!rw->real && (!(rw->real = calloc(p->nfs, sizeof(char *))) ||
				  !(rw->id = calloc(p->nfs, sizeof(*rw->id)))))
			goto nomem;
		src = resolve_src(f->src, &w);
		if (!src)
			continue;	/* binds nothing (a missing -try) */
		if (w.n) {	/* walk_plain's lstat: no link, stat's answer */
			rw->id[i].st_dev = w.node[w.n - 1].dev;
			rw->id[i].st_ino = w.node[w.n - 1].ino;
		} else if (stat(src, &rw->id[i]) < 0) {
			continue;
		}
		if (!(rw->real[i] = strdup(src)))
			goto nomem;
	}
	return 0;
nomem:
	return diag_fail(d, EXIT_SYSCALL, ENOMEM,
			 "unable to check the plan's read-write binds: out of "
			 "memory");
}

static void rw_free(const struct plan *p, struct rw_srcs *rw)
{
	for (size_t i = 0; rw->real && i < p->nfs; i++)
		free(rw->real[i]);
	free(rw->real);
	free(rw->id);
}

static long rw_match(const struct plan *p, const struct rw_srcs *rw,
		     dev_t dev, ino_t ino)
{
	for (size_t i = 0; i < p->nfs; i++)
		if (rw->real[i] && rw->id[i].st_dev == dev &&
		    rw->id[i].st_ino == ino)
			return (long)i;
	return -1;
}

/* The read-write source whose directory is real or one above it, by
 * device and inode: the same directory under another name (a bind
 * mount of it, a second mount of its filesystem) is caught where the
 * names differ. -1 if none. The nodes of w when walk_plain resolved
 * real (each component lstat'ed, none a symlink: what stat says too),
 * else one stat per directory; only when the plan binds something
 * read-write. */
static long under_by_inode(const struct plan *p, const struct rw_srcs *rw,
			   const struct walked *w)
{
	char dir[PATH_MAX], *slash;
	struct stat st;
	long i;

	for (size_t k = w->n; k-- > 0;)
		if ((i = rw_match(p, rw, w->node[k].dev, w->node[k].ino)) >= 0)
			return i;
	if (w->n)
		return -1;
	snprintf(dir, sizeof(dir), "%s", w->real);
	for (;;) {
		if (stat(dir, &st) == 0 &&
		    (i = rw_match(p, rw, st.st_dev, st.st_ino)) >= 0)
			return i;
		slash = strrchr(dir, '/');
		if (!slash || !strcmp(dir, "/"))
			return -1;
		slash[slash == dir] = '\0';
	}
}

/* real (resolved) must not lie under a source p binds read-write: by
 * name, and by the device and inode of each directory above it. */
static int not_writable_inside(struct diag *d, const struct plan *p,
			       const struct rw_srcs *rw,
			       const struct walked *w, const char *what)
{
	const char *real = w->real;
	long by_inode = rw->real ? under_by_inode(p, rw, w) : -1;

	for (size_t i = 0; rw->real && i < p->nfs; i++) {
		const struct fs_op *f = &p->fs[i];
		const char *src = rw->real[i];

		if (!src || (!beneath(real, src) && by_inode != (long)i))
			continue;
		diag_fail(d, EXIT_USAGE, 0,
			  "refusing %s %s: it lies under %s, which %s:%u "
			  "binds read-write into the sandbox, so the sandbox "
			  "could rewrite its next sandbox",
			  what, real, src, f->pos.file, f->pos.line);
		diag_hint(d, "keep policies and the pysbx programs outside "
			  "read-write mounts; %s", OVERRIDE);
		return -1;
	}
	return 0;
}

/* One file the plan depends on: resolved once, then owner, modes and
 * read-write binds checked on that resolved path. */
static int check_file(struct diag *d, const struct plan *p,
		      const struct rw_srcs *rw, const char *path,
		      const char *what)
{
	struct walked w;

	if (walk_check(d, path, what, &w) < 0 ||
	    not_writable_inside(d, p, rw, &w, what) < 0)
		return -1;
	return 0;
}

static int check_all(struct diag *d, const struct plan *p,
		     const struct rw_srcs *rw)
{
	char self[PATH_MAX];
	ssize_t n;

	for (size_t i = 0; i < p->nfiles; i++)
		if (check_file(d, p, rw, p->files[i], "policy") < 0)
			return -1;
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n < 0)
		return diag_fail(d, EXIT_SYSCALL, errno,
				 "unable to read /proc/self/exe");
	self[n] = '\0';
	return check_file(d, p, rw, self, "pysbx program");
}

int trust_plan(struct diag *d, const struct plan *p)
{
	struct rw_srcs rw;
	int r;

	trust_memo(true);
	r = rw_resolve(d, p, &rw);
	if (r == 0)
		r = check_all(d, p, &rw);
	rw_free(p, &rw);
	trust_memo(false);
	return r;
}

/* What fstat says of an fd about to be exec'd: a regular file nobody
 * but its owner can write, with no second name. */
static int prog_fd_ok(struct diag *d, int fd, const char *name,
		      const struct stat *st)
{
	char reason[80];
	struct node n = node_of(st);

	if (!S_ISREG(st->st_mode))
		return diag_fail(d, EXIT_NOEXEC, EACCES,
				 "unable to execute %s (fd %d): not a regular "
				 "file", name, fd);
	if (n.mode & (S_IWGRP | S_IWOTH)) {
		diag_fail(d, EXIT_USAGE, 0, "refusing pysbx program %s: it %s",
			  name, why(&n, reason, sizeof(reason)));
		diag_hint(d, "chmod go-w %s; %s", name, OVERRIDE);
		return -1;
	}
	return links_refused(d, &n, name, "pysbx program");
}

int trust_prog_fd(struct diag *d, int fd, const char *name)
{
	struct stat st;

	if (fcntl(fd, F_SETFD, FD_CLOEXEC) < 0 || fstat(fd, &st) < 0)
		return diag_fail(d, EXIT_USAGE, errno,
				 "--next-fd %d is not an open file", fd);
	return prog_fd_ok(d, fd, name, &st);
}

int trust_open_prog(struct diag *d, const struct plan *p, const char *path,
		    bool check)
{
	struct rw_srcs rw = { NULL, NULL };
	struct walked w;
	struct stat st;
	int fd, r = 0;

	/* What is not there is "not found" (127), as an exec would say,
	 * not a refusal. */
	if (access(path, F_OK) < 0 && (errno == ENOENT || errno == ENOTDIR))
		return diag_fail(d, EXIT_NOTFOUND, errno, "unable to find %s",
				 path);
	if (check) {
		r = p ? rw_resolve(d, p, &rw) : 0;
		if (r == 0)
			r = walk_check(d, path, "pysbx program", &w);
		if (r == 0 && p)
			r = not_writable_inside(d, p, &rw, &w,
						"pysbx program");
		if (p)
			rw_free(p, &rw);
		if (r < 0)
			return -1;
	}
	/* The resolved path, without following a link: the inode the
	 * checks saw, which the fstat below confirms. */
	fd = openat(AT_FDCWD, check ? w.real : path,
		    O_PATH | O_CLOEXEC | (check ? O_NOFOLLOW : 0));
	if (fd < 0)
		return diag_fail(d, errno == ENOENT || errno == ENOTDIR ?
				 EXIT_NOTFOUND : EXIT_NOEXEC, errno,
				 "unable to find %s", path);
	if (fstat(fd, &st) < 0) {
		r = diag_fail(d, EXIT_SYSCALL, errno, "unable to inspect %s",
			      path);
	} else if (check && (st.st_dev != w.leaf.dev ||
			     st.st_ino != w.leaf.ino)) {
		r = diag_fail(d, EXIT_USAGE, 0,
			      "refusing pysbx program %s: it changed while it "
			      "was checked", path);
	} else if (!S_ISREG(st.st_mode)) {
		r = diag_fail(d, EXIT_NOEXEC, EACCES, "unable to execute %s",
			      path);
	} else if (check) {
		r = prog_fd_ok(d, fd, path, &st);
		/* The owner too, which only the host sees as it is. */
		if (r == 0 && !owner_ok(st.st_uid))
			r = diag_fail(d, EXIT_USAGE, 0, "refusing pysbx program "
				      "%s: it is owned by uid %u (neither you "
				      "nor root)", path, (unsigned)st.st_uid);
	}
	if (r < 0) {
		close(fd);
		return -1;
	}
	return fd;
}
