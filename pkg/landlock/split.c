/* Host paths: a grant with exclusions below it (mask, remount-ro, a
 * read-only bind in a writable one, a hidden tmpfs). Landlock grants
 * are unions along the path, so the grant cannot stay on the directory
 * above an exclusion. Instead, on each directory on the way from the
 * granted path down to an exclusion, every entry but the one leading on
 * gets the grant, and the directory itself gets none: it can be
 * traversed, not listed, and nothing can be created in or removed from
 * it. Entries made there later get no rule (fail closed); symlinks get
 * none (access is checked at their target, which is ruled where it
 * lies). Exclusions are compared by their real paths (realpath), so a
 * symlink on the way to one cannot leave its object granted. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "landlock/landlock.h"

#define LL_MAX_SPLIT 4096	/* rules one split may add */

struct split {
	struct diag *d;
	int rfd;
	const struct ll_rule *r;
	const struct ll_excl *x;	/* the exclusions below r */
	size_t nx;
	unsigned added;
};

static bool beneath(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	if (!strcmp(dir, "/"))
		return path[0] == '/';
	return !strncmp(path, dir, n) && (path[n] == '/' || !path[n]);
}

static int add(struct split *s, int fd, const struct stat *st,
	       uint64_t access, const char *path)
{
	struct ll_path_beneath pb = { access, fd };

	if (!S_ISDIR(st->st_mode))
		pb.allowed_access &= LL_FILE_RIGHTS;
	if (!pb.allowed_access)
		return 0;
	if (++s->added > LL_MAX_SPLIT)
		return diag_fail(s->d, EXIT_SYSCALL, 0,
				 "unable to split the Landlock rule of '%s %s' "
				 "(%s:%u) around '%s %s': more than %d rules",
				 s->r->what, s->r->path, s->r->pos->file,
				 s->r->pos->line, s->x[0].what, s->x[0].path,
				 LL_MAX_SPLIT);
	if (syscall(SYS_landlock_add_rule, s->rfd, LL_RULE_PATH_BENEATH, &pb,
		    0) < 0)
		return diag_fail(s->d, EXIT_SYSCALL, errno,
				 "unable to add the Landlock rule for %s "
				 "('%s' at %s:%u)", path, s->r->what,
				 s->r->pos->file, s->r->pos->line);
	return 0;
}

static int walk(struct split *s, int fd, char *path, size_t len,
		uint64_t access)
{
	bool below = false;
	struct stat st;
	struct dirent *de;
	DIR *dir;
	int lfd, r = 0;

	for (size_t i = 0; i < s->nx; i++) {
		if (!strcmp(s->x[i].path, path))
			access &= ~s->x[i].take;
		else if (beneath(s->x[i].path, path))
			below = true;
	}
	if (!access)
		return 0;
	if (fstat(fd, &st) < 0)
		return diag_fail(s->d, EXIT_SYSCALL, errno,
				 "unable to stat %s", path);
	if (!below || !S_ISDIR(st.st_mode))
		return add(s, fd, &st, access, path);
	/* A directory we may not list (another user's): no rule for it
	 * or anything below, which denies more, never less. */
	lfd = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (lfd < 0)
		return errno == EACCES ? 0 :
		       diag_fail(s->d, EXIT_SYSCALL, errno,
				 "unable to list %s", path);
	if (!(dir = fdopendir(lfd))) {
		close(lfd);
		return diag_fail(s->d, EXIT_SYSCALL, errno,
				 "unable to list %s", path);
	}
	while (!r && (errno = 0, de = readdir(dir))) {
		size_t n = strlen(de->d_name);
		struct stat cst;
		int cfd;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (len + 1 + n >= PATH_MAX) {
			r = diag_fail(s->d, EXIT_SYSCALL, ENAMETOOLONG,
				      "unable to rule %s/%s", path, de->d_name);
			break;
		}
		cfd = openat(fd, de->d_name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (cfd < 0) {
			if (errno != ENOENT)	/* gone meanwhile: nothing */
				r = diag_fail(s->d, EXIT_SYSCALL, errno,
					      "unable to open %s/%s", path,
					      de->d_name);
			continue;
		}
		if (fstat(cfd, &cst) == 0 && !S_ISLNK(cst.st_mode)) {
			size_t clen = len;

			if (strcmp(path, "/"))
				path[clen++] = '/';
			memcpy(path + clen, de->d_name, n + 1);
			r = walk(s, cfd, path, clen + n, access);
			path[len] = '\0';
		}
		close(cfd);
	}
	if (!r && errno)
		r = diag_fail(s->d, EXIT_SYSCALL, errno, "unable to list %s",
			      path);
	closedir(dir);
	return r;
}

int ll_split(struct diag *d, int rfd, const struct ll_rule *r, int fd,
	     uint64_t access, const struct ll_excl *x, size_t nx)
{
	struct split s = { d, rfd, r, x, nx, 0 };
	char path[PATH_MAX];
	size_t len = strlen(r->path);

	if (len >= sizeof(path))
		return diag_fail(d, EXIT_SYSCALL, ENAMETOOLONG,
				 "unable to rule %s", r->path);
	memcpy(path, r->path, len + 1);
	return walk(&s, fd, path, len, access);
}
