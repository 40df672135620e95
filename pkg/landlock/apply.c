/* Carry the ruleset out: open each path once without following a link,
 * add the rules, no_new_privs, restrict. */
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
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

/* An earlier rule that grants something at r's path or above. */
static const struct ll_rule *granted_above(const struct ll_ruleset *rs,
					   const struct ll_rule *r)
{
	for (const struct ll_rule *a = rs->rule; a < r; a++) {
		size_t n = strlen(a->path);

		if ((a->access & rs->handled_fs) &&
		    (!strcmp(a->path, "/") ||
		     (!strncmp(r->path, a->path, n) &&
		      (r->path[n] == '/' || !r->path[n]))))
			return a;
	}
	return NULL;
}

static int add_rule(struct diag *d, int rfd, const struct ll_ruleset *rs,
		    const struct ll_rule *r)
{
	uint64_t access = r->access & rs->handled_fs;
	struct stat st;
	int fd, ret;

	fd = open_rule_path(r->path);
	if (fd < 0 && errno == ENOENT && (r->flags & LL_RULE_TRY))
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
	if ((r->flags & LL_RULE_SHARED) && !shared_ok(&st)) {
		const struct ll_rule *a = granted_above(rs, r);

		close(fd);
		if (!a)
			return 0;	/* hidden: no rule */
		diag_fail(d, EXIT_SYSCALL, 0,
			  "unable to hide %s ('%s' at %s:%u) with Landlock: "
			  "it is not a sticky world-writable directory that "
			  "could be shared, and '%s %s' (%s:%u) grants access "
			  "to it", r->path, r->what, r->pos->file,
			  r->pos->line, a->what, a->path, a->pos->file,
			  a->pos->line);
		diag_hint(d, "without a mount namespace a tmpfs cannot be "
			  "made; remove the tmpfs line or the grant above it");
		return -1;
	}
	if (!S_ISDIR(st.st_mode))
		access &= LL_FILE_RIGHTS;
	ret = access ? add_fd(d, rfd, fd, access, r->path, r) : 0;
	close(fd);
	return ret;
}

int ll_apply(struct diag *d, const struct ll_ruleset *rs)
{
	struct ll_attr attr = { rs->handled_fs, rs->handled_net, rs->scoped };
	size_t size = rs->abi >= 6 ? sizeof(attr) :
		      rs->abi >= 4 ? 2 * sizeof(uint64_t) : sizeof(uint64_t);
	int rfd;

	if (rs->abi <= 0)
		return 0;
	rfd = (int)syscall(SYS_landlock_create_ruleset, &attr, size, 0);
	if (rfd < 0)
		return diag_fail(d, EXIT_SYSCALL, errno,
				 "unable to create a Landlock ruleset (ABI %d)",
				 rs->abi);
	for (size_t i = 0; i < rs->nrule; i++)
		if (rs->handled_fs && add_rule(d, rfd, rs, &rs->rule[i]) < 0)
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
	return 0;
fail:
	close(rfd);
	return -1;
}
