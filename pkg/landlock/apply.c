/* Carry the ruleset out: open each path once without following a link,
 * add the rules, no_new_privs, restrict. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "landlock/landlock.h"

/* A symlink anywhere in a rule's path would move the grant to wherever
 * it points (a link a sandbox planted in its workspace, proj -> $HOME):
 * refused, as pysbx-mount refuses it for a mount. */
static int open_rule_path(const char *path)
{
	struct open_how how = {
		.flags = O_PATH | O_CLOEXEC,
		.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
	};

	return (int)syscall(SYS_openat2, AT_FDCWD, path, &how, sizeof(how));
}

static int add_fd(struct diag *d, int rfd, int fd, uint64_t access,
		  const char *path, const struct ll_rule *r)
{
	struct ll_path_beneath pb = { access, fd };

	if (syscall(SYS_landlock_add_rule, rfd, LL_RULE_PATH_BENEATH, &pb,
		    0) == 0)
		return 0;
	if (r)
		return diag_fail(d, EXIT_SYSCALL, errno,
				 "unable to add the Landlock rule for %s "
				 "('%s' at %s:%u)", path, r->what,
				 r->pos->file, r->pos->line);
	return diag_fail(d, EXIT_SYSCALL, errno,
			 "unable to add the Landlock rule for %s", path);
}

/* A host tmpfs maps to the host's directory only when every user may
 * write there anyway (sticky, world-writable: /tmp, /dev/shm). */
static bool shared_ok(const struct stat *st)
{
	return S_ISDIR(st->st_mode) && (st->st_mode & S_ISVTX) &&
	       (st->st_mode & S_IWOTH);
}

static bool beneath(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	if (!strcmp(dir, "/"))
		return path[0] == '/';
	return !strncmp(path, dir, n) && (path[n] == '/' || !path[n]);
}

/* The exclusions as real paths (a symlink on the way to one must not
 * leave its object granted), plus every host tmpfs that cannot be
 * shared: hidden. One that does not exist hides nothing. */
static int resolve_excl(struct diag *d, const struct ll_ruleset *rs,
			struct ll_excl **out, size_t *n)
{
	struct ll_excl *x = calloc(rs->nexcl + rs->nrule + 1, sizeof(*x));
	char real[PATH_MAX];
	struct stat st;

	*out = x;
	*n = 0;
	if (!x)
		return diag_fail(d, EXIT_SYSCALL, ENOMEM,
				 "unable to allocate the Landlock rules");
	for (size_t i = 0; i < rs->nexcl + rs->nrule; i++) {
		const char *path;
		uint64_t take = ~0ULL;
		const struct pos *pos;
		const char *what;

		if (i < rs->nexcl) {
			path = rs->excl[i].path;
			take = rs->excl[i].take;
			pos = rs->excl[i].pos;
			what = rs->excl[i].what;
		} else {
			const struct ll_rule *r = &rs->rule[i - rs->nexcl];

			if (!(r->flags & LL_RULE_SHARED) ||
			    (stat(r->path, &st) == 0 && shared_ok(&st)))
				continue;
			path = r->path;
			pos = r->pos;
			what = r->what;
		}
		if (!realpath(path, real)) {
			if (errno == ENOENT)
				continue;
			return diag_fail(d, EXIT_SYSCALL, errno,
					 "unable to resolve %s ('%s' at %s:%u)",
					 path, what, pos->file, pos->line);
		}
		if (!(x[*n].path = strdup(real)))
			return diag_fail(d, EXIT_SYSCALL, ENOMEM,
					 "unable to allocate the Landlock rules");
		x[*n].take = take;
		x[*n].pos = pos;
		x[*n].what = what;
		(*n)++;
	}
	return 0;
}

static void free_excl(struct ll_excl *x, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(x[i].path);
	free(x);
}

static int add_rule(struct diag *d, int rfd, const struct ll_ruleset *rs,
		    const struct ll_rule *r, struct ll_excl *ex, size_t nex)
{
	uint64_t access = r->access & rs->handled_fs;
	struct ll_excl *mine = NULL;
	size_t nmine = 0;
	struct stat st;
	int fd, ret;

	fd = open_rule_path(r->path);
	if (fd < 0 && errno == ENOENT && (r->flags & LL_RULE_TRY))
		return 0;
	/* A host device node that is a symlink (containers make /dev/ptmx
	 * one to pts/ptmx, which the pts rule covers): no rule for the
	 * link, never one through it. */
	if (fd < 0 && errno == ELOOP && (r->flags & LL_RULE_TRY) &&
	    !strcmp(r->what, "dev") && lstat(r->path, &st) == 0 &&
	    S_ISLNK(st.st_mode))
		return 0;
	if (fd < 0)
		return diag_fail(d, EXIT_SYSCALL, errno,
				 "unable to open %s for its Landlock rule "
				 "('%s' at %s:%u)%s", r->path, r->what,
				 r->pos->file, r->pos->line,
				 errno == ELOOP ? " (a symlink is on its way)"
						: "");
	if (fstat(fd, &st) < 0) {
		ret = diag_fail(d, EXIT_SYSCALL, errno, "unable to stat %s",
				r->path);
		close(fd);
		return ret;
	}
	if ((r->flags & LL_RULE_SHARED) && !shared_ok(&st))
		access = 0;	/* hidden (an exclusion for earlier rules) */
	/* The exclusions of later directives at or below this one, in one
	 * block at the front of ex (their order does not matter). */
	for (size_t i = 0; i < nex && access; i++)
		if (ex[i].pos > r->pos && beneath(ex[i].path, r->path) &&
		    (ex[i].take & access)) {
			struct ll_excl t = ex[nmine];

			ex[nmine] = ex[i];
			ex[i] = t;
			nmine++;
		}
	mine = ex;
	if (!S_ISDIR(st.st_mode))
		access &= LL_FILE_RIGHTS;
	if (nmine)
		ret = ll_split(d, rfd, r, fd, access, mine, nmine);
	else
		ret = access ? add_fd(d, rfd, fd, access, r->path, r) : 0;
	close(fd);
	return ret;
}

int ll_apply(struct diag *d, const struct ll_ruleset *rs)
{
	struct ll_attr attr = { rs->handled_fs, rs->handled_net, rs->scoped };
	size_t size = rs->abi >= 6 ? sizeof(attr) :
		      rs->abi >= 4 ? 2 * sizeof(uint64_t) : sizeof(uint64_t);
	struct ll_excl *ex = NULL;
	size_t nex = 0;
	int rfd;

	if (rs->abi <= 0)
		return 0;
	if (rs->handled_fs && resolve_excl(d, rs, &ex, &nex) < 0) {
		free_excl(ex, nex);
		return -1;
	}
	rfd = (int)syscall(SYS_landlock_create_ruleset, &attr, size, 0);
	if (rfd < 0) {
		diag_fail(d, EXIT_SYSCALL, errno,
			  "unable to create a Landlock ruleset (ABI %d)",
			  rs->abi);
		free_excl(ex, nex);
		return -1;
	}
	for (size_t i = 0; i < rs->nrule; i++)
		if (rs->handled_fs &&
		    add_rule(d, rfd, rs, &rs->rule[i], ex, nex) < 0)
			goto fail;
	/* The next step, exec'd through its fd: reachable whatever the
	 * rules say of its path (after pivot_root it has none). */
	if (rs->exec_fd >= 0 && rs->handled_fs &&
	    add_fd(d, rfd, rs->exec_fd, LL_FS_READ_FILE | LL_FS_EXECUTE,
		   "the next program", NULL) < 0)
		goto fail;
	/* Unprivileged, landlock_restrict_self needs no_new_privs. */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) {
		diag_fail(d, EXIT_SYSCALL, errno, "unable to set no_new_privs");
		goto fail;
	}
	if (syscall(SYS_landlock_restrict_self, rfd, 0) < 0) {
		diag_fail(d, EXIT_SYSCALL, errno,
			  "unable to restrict this process with Landlock");
		goto fail;
	}
	close(rfd);
	free_excl(ex, nex);
	return 0;
fail:
	close(rfd);
	free_excl(ex, nex);
	return -1;
}
