#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "trust/trust.h"

#define OVERRIDE "pass --allow-untrusted only if you accept that risk"

static int owner_ok(const struct stat *st)
{
	return st->st_uid == 0 || st->st_uid == getuid();
}

/* Why st fails the check, for the message. */
static const char *why(const struct stat *st, char *buf, size_t len)
{
	if (!owner_ok(st))
		snprintf(buf, len, "is owned by uid %u (neither you nor root)",
			 (unsigned)st->st_uid);
	else
		snprintf(buf, len, "is writable by %s",
			 (st->st_mode & S_IWOTH) ? "others" : "its group");
	return buf;
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

/* The owner and mode checks of trust_path on the resolved path rp. */
static int owner_walk(struct diag *d, const char *rp, const char *path,
		      const char *what)
{
	char real[PATH_MAX], *slash;
	struct stat st, leaf;
	char reason[80];

	snprintf(real, sizeof(real), "%s", rp);
	if (stat(real, &leaf) < 0)
		return diag_fail(d, EXIT_USAGE, errno, "unable to stat %s %s",
				 what, real);
	if (!owner_ok(&leaf) || (leaf.st_mode & (S_IWGRP | S_IWOTH))) {
		diag_fail(d, EXIT_USAGE, 0, "refusing %s %s: it %s", what,
			  real, why(&leaf, reason, sizeof(reason)));
		diag_hint(d, "chmod go-w %s; %s", real, OVERRIDE);
		return -1;
	}
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
		if (!owner_ok(&st) ||
		    ((st.st_mode & (S_IWGRP | S_IWOTH)) &&
		     !(st.st_mode & S_ISVTX))) {
			diag_fail(d, EXIT_USAGE, 0,
				  "refusing %s %s: directory %s %s, who could "
				  "replace it", what, path, real,
				  why(&st, reason, sizeof(reason)));
			diag_hint(d, "move it to a directory only you can "
				  "write; %s", OVERRIDE);
			return -1;
		}
		if (!strcmp(real, "/"))
			break;
	}
	return 0;
}

int trust_path(struct diag *d, const char *path, const char *what)
{
	char real[PATH_MAX];

	if (resolve(d, path, what, real) < 0)
		return -1;
	return owner_walk(d, real, path, what);
}

/* Is path equal to or beneath dir (both resolved)? */
static int beneath(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	if (!strcmp(dir, "/"))
		return 1;
	return !strncmp(path, dir, n) && (path[n] == '/' || !path[n]);
}

/* real (resolved) must not lie under a source p binds read-write. */
static int not_writable_inside(struct diag *d, const struct plan *p,
			       const char *real, const char *what)
{
	char src[PATH_MAX];

	for (size_t i = 0; i < p->nfs; i++) {
		const struct fs_op *f = &p->fs[i];

		if (f->kind != FS_BIND && f->kind != FS_DEV_BIND)
			continue;
		if (!realpath(f->src, src))
			continue; /* a missing -try source binds nothing */
		if (beneath(real, src)) {
			diag_fail(d, EXIT_USAGE, 0,
				  "refusing %s %s: it lies under %s, which "
				  "%s:%u binds read-write into the sandbox, so "
				  "the sandbox could rewrite its next sandbox",
				  what, real, src, f->pos.file, f->pos.line);
			diag_hint(d, "keep policies and the pysbx programs "
				  "outside read-write mounts; %s", OVERRIDE);
			return -1;
		}
	}
	return 0;
}

/* One file the plan depends on: resolved once, then owner, modes and
 * read-write binds checked on that resolved path. */
static int check_file(struct diag *d, const struct plan *p, const char *path,
		      const char *what)
{
	char real[PATH_MAX];

	if (resolve(d, path, what, real) < 0 ||
	    owner_walk(d, real, path, what) < 0 ||
	    not_writable_inside(d, p, real, what) < 0)
		return -1;
	return 0;
}

int trust_plan(struct diag *d, const struct plan *p)
{
	char self[PATH_MAX];
	ssize_t n;

	for (size_t i = 0; i < p->nfiles; i++)
		if (check_file(d, p, p->files[i], "policy") < 0)
			return -1;
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n < 0)
		return diag_fail(d, EXIT_SYSCALL, errno,
				 "unable to read /proc/self/exe");
	self[n] = '\0';
	return check_file(d, p, self, "pysbx program");
}
