/* protect DIR [depth=N] PATTERN...: keep the paths below DIR that change
 * how later commands behave (git hooks and config, rc files, keys) as
 * they are, for the host as well as inside (docs/POLICY.md "protect",
 * docs/SECURITY.md "Protected paths").
 *
 * The design pins the tree: every matching path is bound read-only onto
 * itself, and every directory between DIR and it becomes a mount point
 * (a writable bind of itself), so that renaming or removing a parent
 * fails with EBUSY instead of carrying the read-only binds away. The
 * scan collects first, then mounts top-down through fresh openat2 walks
 * (no symlink, never out of DIR), so that no mount lands on a directory
 * that a later mount hides.
 *
 * A match named .git is a repository: its real git dir (through a
 * symlink, a "gitdir:" file, commondir, modules/ and worktrees/) is
 * pinned with config, config.worktree, commondir, hooks (and the
 * targets of symlinked hooks), info, the files config includes and the
 * directory core.hooksPath names read-only; objects, refs, logs, index,
 * HEAD and the lock files git makes for them stay writable.
 *
 * After the run, pid 1 scans again (mnt_protect_check): a match that did
 * not exist at start (a new .env, *.pem, .git, a dangling link that now
 * resolves, a hooksPath directory) is reported on stderr and as a status
 * record; a new commondir or config.worktree in a protected git dir,
 * which would redirect the host's git, is also renamed aside. When pid 1
 * is SIGKILLed, the monitor does that check (mnt_protect_killed), or,
 * when it dies too, the next start does, from pid 1's record (recover,
 * protrec.c). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <linux/stat.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "mnt/internal.h"
#include "mnt/sys.h"

#define PROTECT_MAX 4096	/* mounts per directive: fail closed above */
#define SEEN_MAX 16384		/* paths remembered per directive */
#define LINK_HOPS 40		/* as the kernel's MAXSYMLINKS */
#define GIT_NEST 8		/* gitdir/commondir/modules levels followed */
#define CONFIG_MAX (256 << 10)
#define INCLUDE_DEPTH 10	/* git's own bound on nested config includes */
#define DIRS_MAX 100000	/* directories a scan opens: a .git is looked
				 * for at any depth; fail closed above */
#define INCLUDE_MAX 64		/* config files read per worktree of a git
				 * dir: a fan-out of includes must not hang
				 * the start; fail closed above */

enum ent_kind { E_PIN, E_RO };
enum seen_kind {
	S_MATCH,	/* a matching path as found at start */
	S_RO,		/* bound read-only */
	S_GITDIR,	/* a git dir protected as a repository */
	S_LINK,		/* a match that is a symlink leading out or nowhere */
	S_WATCH,	/* missing at start, must not appear (hooksPath) */
	S_MODULE,	/* a directory below modules/ at start */
	S_TODO,		/* a rebase to-do list at start (ino: its hash) */
};

struct ent {
	char *rel;
	enum ent_kind kind;
	dev_t dev;
	ino_t ino;
};

struct seen {
	char *rel;
	enum seen_kind kind;
	dev_t dev;
	ino_t ino;
};

/* One protect directive: what the scan found, kept in pid 1 for the
 * check after the run. */
struct prot {
	const struct fs_op *op;
	char **pat;
	bool *neg, *slash;
	unsigned char *how;	/* enum pat_how */
	const char **tail;	/* a pattern's last component */
	unsigned char *tailhow;
	size_t npat;
	struct ent *e;
	size_t ne, cape;
	struct seen *s;
	size_t ns, caps;
	size_t nro;
	bool git;		/* .git matches: looked for at any depth */
	size_t ndirs;		/* directories opened by the current scan */
	bool unchecked;		/* the check after the run hit DIRS_MAX */
	char **defused;		/* git dirs made harmless after the run */
	size_t ndef, capdef;
	int ifd;		/* inotify: lock files made next to them */
	char **wrel;		/* the watched directory of each wd - 1 */
	size_t nw;
	int rec;		/* this run's record of it (protrec.c), -1 */
	char key[128];		/* DIR's identity in it */
};

static struct prot *prots;
static size_t nprots;

struct walk {
	struct diag *d;
	struct prot *p;
	int rootfd;	/* DIR */
	int report_fd;
	bool post;	/* the check after the run */
	bool earlier;	/* ... of an earlier run, found at this start */
	bool killed;	/* ... by the monitor: pid 1 was SIGKILLed */
	int hostfd;	/* at start: the host's root, -1 */
	const struct plan *plan;
};

static char *xstrdup(struct walk *w, const char *s)
{
	char *c = strdup(s);

	if (!c)
		diag_fail(w->d, EXIT_SYSCALL, ENOMEM, "unable to protect %s",
			  w->p->op->dst);
	return c;
}

static const char *base_of(const char *rel)
{
	const char *b = strrchr(rel, '/');

	return b ? b + 1 : rel;
}

/* --- patterns ----------------------------------------------------------- */

/* Most patterns are names or "*.ext": compared without fnmatch, which
 * makes matching a 25k-entry tree cheap (docs/POLICY.md "protect"). */
enum pat_how { P_FNMATCH, P_LITERAL, P_SUFFIX, P_PREFIX };

static enum pat_how how_of(const char *pat)
{
	size_t n = strlen(pat);

	if (!strpbrk(pat, "*?[\\"))
		return P_LITERAL;
	if (pat[0] == '*' && !strpbrk(pat + 1, "*?[\\/"))
		return P_SUFFIX;
	if (n && pat[n - 1] == '*' && strcspn(pat, "*?[\\/") == n - 1)
		return P_PREFIX;
	return P_FNMATCH;
}

/* Does the name base match pattern pat of kind how (no '/' in pat)? */
static bool name_match(const char *pat, enum pat_how how, const char *base)
{
	size_t bl, pl;

	switch (how) {
	case P_LITERAL:
		return !strcmp(pat, base);
	case P_SUFFIX:
		/* fnmatch without FNM_PERIOD: '*' matches a leading '.' */
		bl = strlen(base);
		pl = strlen(pat) - 1;
		return bl >= pl && !strcmp(base + bl - pl, pat + 1);
	case P_PREFIX:
		return !strncmp(pat, base, strlen(pat) - 1);
	default:
		return !fnmatch(pat, base, 0);
	}
}

static int split_patterns(struct prot *p)
{
	size_t n = 1;

	for (const char *s = p->op->src; *s; s++)
		n += *s == '\n';
	p->pat = calloc(n, sizeof(*p->pat));
	p->neg = calloc(n, sizeof(*p->neg));
	p->slash = calloc(n, sizeof(*p->slash));
	p->how = calloc(n, sizeof(*p->how));
	p->tail = calloc(n, sizeof(*p->tail));
	p->tailhow = calloc(n, sizeof(*p->tailhow));
	if (!p->pat || !p->neg || !p->slash || !p->how || !p->tail ||
	    !p->tailhow)
		return -1;
	for (const char *s = p->op->src; *s;) {
		const char *e = strchrnul(s, '\n');
		bool neg = *s == '!';

		p->pat[p->npat] = strndup(s + neg, (size_t)(e - s - neg));
		if (!p->pat[p->npat])
			return -1;
		p->neg[p->npat] = neg;
		p->how[p->npat] = (unsigned char)how_of(p->pat[p->npat]);
		p->tail[p->npat] = base_of(p->pat[p->npat]);
		/* a bracket expression may hold a '/': then fnmatch */
		p->tailhow[p->npat] = (unsigned char)(strchr(p->pat[p->npat],
							     '[') ?
			P_FNMATCH : how_of(p->tail[p->npat]));
		p->slash[p->npat++] = memchr(s, '/', (size_t)(e - s));
		s = *e ? e + 1 : e;
	}
	return 0;
}

static bool match_one(const struct prot *p, size_t i, const char *rel,
		      const char *base)
{
	if (!p->slash[i])
		return name_match(p->pat[i], p->how[i], base);
	/* The pattern's last component must match the name first: most
	 * names fail there without an fnmatch of the whole path. */
	if (!name_match(p->tail[i], p->tailhow[i], base))
		return false;
	for (const char *s = rel;;) {
		if (!fnmatch(p->pat[i], s, FNM_PATHNAME))
			return true;
		s = strchr(s, '/');
		if (!s++)
			return false;
	}
}

/* The last pattern that matches decides. */
static bool matches(const struct prot *p, const char *rel)
{
	const char *base = base_of(rel);
	bool hit = false;

	/* A pattern can only change the answer when it says the
	 * opposite of it: the others need no fnmatch. */
	for (size_t i = 0; i < p->npat; i++)
		if (hit == p->neg[i] && match_one(p, i, rel, base))
			hit = !p->neg[i];
	return hit;
}

/* --- reports ------------------------------------------------------------ */

/* One status record (through the guard: {"event":"protect",...}) and one
 * escaped stderr line. */
static void report(struct walk *w, const char *what, const char *rel,
		   const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static void report(struct walk *w, const char *what, const char *rel,
		   const char *fmt, ...)
{
	char path[PLAN_MAX_PATH * 2 + 2], esc[PLAN_MAX_PATH * 6 + 16],
		msg[1024], line[PLAN_MAX_PATH * 6 + 128];
	va_list ap;
	int n;

	snprintf(path, sizeof(path), "%s%s%s", w->p->op->dst, *rel ? "/" : "",
		 rel);
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	diag_warn(w->d, "%s %s (protect at %s:%u%s)", path, msg,
		  w->p->op->pos.file, w->p->op->pos.line, w->earlier ?
		  "; an earlier run on this directory was killed before its "
		  "check after the run: checked at this start" : w->killed ?
		  "; the sandbox's pid 1 was killed: checked from outside" :
		  "");
	if (w->report_fd < 0)
		return;
	diag_json_escape(esc, sizeof(esc), path);
	n = snprintf(line, sizeof(line),
		     "{\"stage\":\"mount\",\"event\":\"protect\",\"what\":"
		     "\"%s\",\"path\":\"%s\"%s}\n", what, esc,
		     w->earlier ? ",\"run\":\"earlier\"" : "");
	if (n > 0 && (size_t)n < sizeof(line) &&
	    write(w->report_fd, line, (size_t)n) != n) {
		/* advisory: the stderr line stands */
	}
}

/* --- what the scan remembers --------------------------------------------- */

/* Room for one more of n elements in *arr (capacity *cap, doubled from
 * first, never above max): 0, or -1 when over max or out of memory. */
static int grow(void **arr, size_t *cap, size_t n, size_t size, size_t first,
		size_t max)
{
	size_t c;
	void *a;

	if (n < *cap)
		return 0;
	c = *cap ? *cap * 2 : first;
	if (c > max || !(a = realloc(*arr, c * size)))
		return -1;
	*arr = a;
	*cap = c;
	return 0;
}

static int remember(struct walk *w, const char *rel, enum seen_kind k,
		    const struct stat *st)
{
	struct prot *p = w->p;

	if (w->post)
		return 0;
	if (grow((void **)&p->s, &p->caps, p->ns, sizeof(*p->s), 64,
		 SEEN_MAX) < 0)
		return diag_fail(w->d, EXIT_SYSCALL, ENOMEM,
				 "unable to protect %s: more than %d "
				 "paths to remember (at %s:%u)",
				 p->op->dst, SEEN_MAX, p->op->pos.file,
				 p->op->pos.line);
	p->s[p->ns] = (struct seen){ xstrdup(w, rel), k, st ? st->st_dev : 0,
				     st ? st->st_ino : 0 };
	return p->s[p->ns++].rel ? 0 : -1;
}

static int cmp_seen(const void *a, const void *b)
{
	const struct seen *x = a, *y = b;
	int c = strcmp(x->rel, y->rel);

	return c ? c : (int)x->kind - (int)y->kind;
}

/* Was rel seen at start as kind (any kind: -1), with the same inode when
 * st is given? p->s is sorted by then. */
static bool was_seen(const struct prot *p, const char *rel, int kind,
		     const struct stat *st)
{
	size_t lo = 0, hi = p->ns;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (strcmp(p->s[mid].rel, rel) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < p->ns && !strcmp(p->s[lo].rel, rel); lo++)
		if ((kind < 0 || (int)p->s[lo].kind == kind) &&
		    (!st || (p->s[lo].dev == st->st_dev &&
			     p->s[lo].ino == st->st_ino)))
			return true;
	return false;
}

static int add_ent(struct walk *w, const char *rel, enum ent_kind k,
		   const struct stat *st)
{
	struct prot *p = w->p;

	if (grow((void **)&p->e, &p->cape, p->ne, sizeof(*p->e), 32,
		 SIZE_MAX) < 0)
		return diag_fail(w->d, EXIT_SYSCALL, ENOMEM,
				 "unable to protect %s", p->op->dst);
	p->e[p->ne] = (struct ent){ xstrdup(w, rel), k, st ? st->st_dev : 0,
				    st ? st->st_ino : 0 };
	return p->e[p->ne++].rel ? 0 : -1;
}

/* Every directory between DIR and rel becomes a mount point. */
static int pin_up(struct walk *w, const char *rel)
{
	char pre[PLAN_MAX_PATH + 1];

	snprintf(pre, sizeof(pre), "%s", rel);
	for (char *s = strrchr(pre, '/'); s; s = strrchr(pre, '/')) {
		*s = '\0';
		if (add_ent(w, pre, E_PIN, NULL) < 0)
			return -1;
	}
	return 0;
}

static bool is_ro(const struct prot *p, const char *rel)
{
	for (size_t i = 0; i < p->ns; i++)
		if (p->s[i].kind == S_RO && !strcmp(p->s[i].rel, rel))
			return true;
	return false;
}

static int protect_inside(struct walk *w, const char *rel, unsigned lvl);
static int protect_path(struct walk *w, const char *rel);
static DIR *open_dir_rel(struct walk *w, const char *rel);
static int too_many_dirs(struct walk *w);

/* rel read-only, pinned (a directory: with what its entries lead to). */
static int protect_ro(struct walk *w, const char *rel, const struct stat *st)
{
	if (w->post)
		return 0;
	if (S_ISREG(st->st_mode) && st->st_nlink > 1) {
		diag_fail(w->d, EXIT_SYSCALL, 0,
			  "unable to protect %s/%s: it has %lu hard links, "
			  "and writing another name would change it (at "
			  "%s:%u)", w->p->op->dst, rel,
			  (unsigned long)st->st_nlink, w->p->op->pos.file,
			  w->p->op->pos.line);
		diag_hint(w->d, "find the other names with 'find %s "
			  "-samefile %s/%s' and remove them, or give the file "
			  "a name of its own (cp -p, then mv over it)",
			  w->p->op->dst, w->p->op->dst, rel);
		return -1;
	}
	/* A directory reached twice (a symlink inside it to itself): its
	 * entries are done. */
	if (S_ISDIR(st->st_mode) && is_ro(w->p, rel))
		return 0;
	if (add_ent(w, rel, E_RO, st) < 0 || remember(w, rel, S_RO, st) < 0)
		return -1;
	w->p->nro++;
	if (pin_up(w, rel) < 0)
		return -1;
	return S_ISDIR(st->st_mode) ? protect_inside(w, rel, 0) : 0;
}

#define INSIDE_DEPTH 16

/* A protected directory's bind covers its own entries, not the target
 * of a symlink in it (elsewhere in DIR), nor another name (a hard link
 * elsewhere in DIR) of a file in it: a run that made the directory
 * (.devcontainer, .vscode, .claude...) could have left either, and a
 * later run would change the protected file through it. So the first
 * is protected too, and the second stops the run, as for a match. */
static int protect_inside(struct walk *w, const char *rel, unsigned lvl)
{
	struct dirent *de;
	int r = 0;
	DIR *dir;

	if (lvl > INSIDE_DEPTH || !(dir = open_dir_rel(w, rel)))
		return 0;
	while (!r && (de = readdir(dir))) {
		char sub[PLAN_MAX_PATH + 1];
		struct stat st;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..") ||
		    snprintf(sub, sizeof(sub), "%s/%s", rel, de->d_name) >=
			    (int)sizeof(sub) ||
		    fstatat(dirfd(dir), de->d_name, &st,
			    AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		if (S_ISLNK(st.st_mode))
			r = protect_path(w, sub);
		else if (S_ISREG(st.st_mode) && st.st_nlink > 1)
			r = protect_ro(w, sub, &st);
		/* A repository in it (a clone with hard-linked objects)
		 * is read-only as a whole already. */
		else if (S_ISDIR(st.st_mode) && strcmp(de->d_name, ".git"))
			r = ++w->p->ndirs > DIRS_MAX ? too_many_dirs(w) :
				protect_inside(w, sub, lvl + 1);
	}
	closedir(dir);
	return r;
}

/* A git dir: a mount point itself (no rename, no rmdir), writable. */
static int pin(struct walk *w, const char *rel, const struct stat *st)
{
	if (w->post)
		return 0;
	if (add_ent(w, rel, E_PIN, st) < 0 ||
	    remember(w, rel, S_GITDIR, st) < 0)
		return -1;
	return pin_up(w, rel);
}

static bool is_gitdir(const struct prot *p, const char *rel)
{
	for (size_t i = 0; i < p->ns; i++)
		if (p->s[i].kind == S_GITDIR && !strcmp(p->s[i].rel, rel))
			return true;
	return false;
}

/* --- resolving symlinks below DIR ------------------------------------------ */

/* Resolve rel below rootfd as the kernel would, one component at a time,
 * never letting the kernel follow a link: out is the path below the root
 * with no symlink in it. An absolute target is below the root only when
 * it starts with rootpath (the root's own absolute path, "" for the
 * sandbox's root, where ".." stops as at "/"). -1 with errno ENOENT
 * (dangling), EXDEV (leads out), ELOOP, ENAMETOOLONG. */
static int resolve(int rootfd, const char *rootpath, const char *rel,
		   char *out, size_t outlen)
{
	char todo[PLAN_MAX_PATH + 1], link[PLAN_MAX_PATH + 1],
		tmp[PLAN_MAX_PATH * 2 + 2];
	size_t rl = strlen(rootpath), hops = 0;
	bool top = !*rootpath;

	out[0] = '\0';
	if (snprintf(todo, sizeof(todo), "%s", rel) >= (int)sizeof(todo))
		goto toolong;
	while (todo[0]) {
		char *c = todo, *e = strchrnul(c, '/'), *rest = *e ? e + 1 : e;
		size_t ol = strlen(out);
		struct stat st;
		ssize_t n;
		int fd;

		*e = '\0';
		if (!*c || !strcmp(c, ".")) {
			memmove(todo, rest, strlen(rest) + 1);
			continue;
		}
		if (!strcmp(c, "..")) {
			char *s = strrchr(out, '/');

			if (!ol && !top) {
				errno = EXDEV;
				return -1;
			}
			if (s)
				*s = '\0';
			else
				out[0] = '\0';
			memmove(todo, rest, strlen(rest) + 1);
			continue;
		}
		if (ol + strlen(c) + 2 > outlen)
			goto toolong;
		snprintf(out + ol, outlen - ol, "%s%s", ol ? "/" : "", c);
		fd = sys_openat2(rootfd, out, O_PATH | O_NOFOLLOW | O_CLOEXEC,
				 0, MNT_RESOLVE);
		if (fd < 0 || fstat(fd, &st) < 0) {
			if (fd >= 0)
				close(fd);
			if (errno == ENOTDIR)
				errno = ENOENT;
			return -1;
		}
		if (!S_ISLNK(st.st_mode)) {
			close(fd);
			memmove(todo, rest, strlen(rest) + 1);
			continue;
		}
		n = readlinkat(fd, "", link, sizeof(link) - 1);
		close(fd);
		if (n <= 0 || ++hops > LINK_HOPS) {
			errno = n < 0 ? errno : ELOOP;
			return -1;
		}
		link[n] = '\0';
		out[ol] = '\0';
		if (link[0] == '/') {
			if (!top && (strncmp(link, rootpath, rl) ||
				     (link[rl] && link[rl] != '/'))) {
				errno = EXDEV;
				return -1;
			}
			out[0] = '\0';
			n = snprintf(tmp, sizeof(tmp), "%s/%s",
				     link + (top ? 0 : rl), rest);
		} else {
			n = snprintf(tmp, sizeof(tmp), "%s/%s", link, rest);
		}
		if (n >= (ssize_t)sizeof(todo))
			goto toolong;
		memcpy(todo, tmp, (size_t)n + 1);
	}
	return 0;
toolong:
	errno = ENAMETOOLONG;
	return -1;
}

int mnt_resolve_in(int rootfd, const char *rel, char *out, size_t outlen)
{
	return resolve(rootfd, "", rel, out, outlen);
}

static int lstat_rel(struct walk *w, const char *rel, struct stat *st)
{
	return fstatat(w->rootfd, rel, st, AT_SYMLINK_NOFOLLOW);
}

/* A path whose name the scan must protect and that may be a symlink
 * (a match, a hook, a hooksPath): protect what it reaches below DIR. A
 * link leading out of DIR or nowhere is left: nothing out of DIR is
 * writable through it (a policy binding more host directories writable
 * protects those too); it is reported, and the check after the run
 * reports it if it resolves below DIR by then. */
static int protect_path(struct walk *w, const char *rel)
{
	char real[PLAN_MAX_PATH + 1];
	struct stat st;

	if (lstat_rel(w, rel, &st) < 0)
		return 0;	/* gone meanwhile */
	if (!S_ISLNK(st.st_mode))
		return protect_ro(w, rel, &st);
	if (resolve(w->rootfd, w->p->op->dst, rel, real, sizeof(real)) < 0 ||
	    lstat_rel(w, real, &st) < 0) {
		int e = errno;

		char why[96];

		if (w->post)
			return 0;
		if (remember(w, rel, S_LINK, NULL) < 0)
			return -1;
		/* A loop, a name too long, a directory the run made
		 * unreadable on the way: nothing reachable to protect now,
		 * and refusing the run would let a run stop every later
		 * one. Reported; the check after the run reports it if it
		 * resolves by then. */
		snprintf(why, sizeof(why), e == EXDEV ? "leads out" :
			 e == ENOENT ? "does not resolve" :
			 "cannot be resolved (%s)", strerror(e));
		report(w, "link", rel, "is a symlink that %s: nothing below "
		       "the directory to protect; left as it is", why);
		return 0;
	}
	return protect_ro(w, real, &st);
}

/* --- git ------------------------------------------------------------------ */

/* Up to len bytes of rel below DIR (no symlink followed), NUL-terminated;
 * -1 if it cannot be read. */
static ssize_t read_rel(struct walk *w, const char *rel, char *buf,
			size_t len)
{
	int fd = sys_openat2(w->rootfd, rel, O_RDONLY | O_NOFOLLOW |
				     O_CLOEXEC | O_NONBLOCK, 0, MNT_RESOLVE);
	ssize_t n = 0, r;
	struct stat st;

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return -1;
	}
	while ((size_t)n + 1 < len &&
	       (r = read(fd, buf + n, len - 1 - (size_t)n)) > 0)
		n += r;
	close(fd);
	buf[n] = '\0';
	return n;
}

/* path as git wrote it (absolute, or relative to the directory rel_dir
 * below DIR) as a path below DIR in out; false when it lies out of DIR. */
static bool below_dir(struct walk *w, const char *rel_dir, const char *path,
		      char *out, size_t outlen)
{
	const char *dst = w->p->op->dst;
	size_t dl = strlen(dst);

	if (path[0] == '/') {
		if (strncmp(path, dst, dl) || (path[dl] && path[dl] != '/'))
			return false;
		snprintf(out, outlen, "%s", path + dl + (path[dl] == '/'));
		return true;
	}
	snprintf(out, outlen, "%s%s%s", rel_dir, *rel_dir ? "/" : "", path);
	return true;
}

static void dir_of(const char *rel, char *out, size_t outlen)
{
	const char *s = strrchr(rel, '/');

	snprintf(out, outlen, "%.*s", s ? (int)(s - rel) : 0, rel);
}

static void trim(char **s)
{
	char *e;

	while (**s == ' ' || **s == '\t')
		(*s)++;
	e = *s + strlen(*s);
	while (e > *s && strchr(" \t\r\n", e[-1]))
		*--e = '\0';
}

/* A git config value: quotes removed, a comment (# or ; outside quotes)
 * cut. */
static void config_value(char *v)
{
	char *o = v;
	bool q = false;

	for (char *s = v; *s; s++) {
		if (*s == '"') {
			q = !q;
			continue;
		}
		if (!q && (*s == '#' || *s == ';'))
			break;
		if (*s == '\\' && s[1])
			s++;
		*o++ = *s;
	}
	*o = '\0';
	o = v;
	trim(&o);
	memmove(v, o, strlen(o) + 1);
}

/* One config file being scanned: read from real, named name (git takes
 * a relative include relative to the directory of the name it opened). */
struct config {
	const char *real, *name;
	const char *wt;		/* where hooksPath is relative to; NULL: unknown */
	unsigned depth;		/* include level */
	unsigned *files;	/* read so far for this worktree */
};

static int config_path(struct walk *w, const struct config *c,
		       const char *sect, char *value);

/* The directory rel beneath the workspace root (no symlink, no way out),
 * or NULL: a directory that cannot be opened has nothing to scan. */
static DIR *open_dir_rel(struct walk *w, const char *rel)
{
	int fd = sys_openat2(w->rootfd, rel, O_RDONLY | O_DIRECTORY |
			     O_CLOEXEC, 0, MNT_RESOLVE);
	DIR *dir;

	if (fd < 0)
		return NULL;
	if (!(dir = fdopendir(fd)))
		close(fd);
	return dir;
}

/* One line of a git config file, trimmed; a "[section]" prefix is
 * recorded in sect (its first word, as git's section name) and skipped.
 * false: a header without its ']' (the line is ignored, as git would
 * refuse the file). */
static bool config_line(char **line, char *sect, size_t size)
{
	trim(line);
	if ((*line)[0] == '[') {
		size_t n = strcspn(*line + 1, " \t\"]");

		snprintf(sect, size, "%.*s", (int)n, *line + 1);
		if (!(*line = strchr(*line, ']')))
			return false;
		++*line;
		trim(line);
	}
	return true;
}

/* The keys of a config file that name files: core.hooksPath and
 * include.path / includeIf.*.path, in included files too (a checked-in
 * .gitconfig is a common place for hooksPath). */
static int scan_config(struct walk *w, const struct config *c)
{
	char sect[64] = "", *buf, *line, *next;
	int r = 0;

	if (w->post)
		return 0;	/* nothing to bind after the run */
	if (++*c->files > INCLUDE_MAX)
		return diag_fail(w->d, EXIT_SYSCALL, 0,
				 "unable to protect %s: more than %d config "
				 "files included, at %s (at %s:%u)",
				 w->p->op->dst, INCLUDE_MAX, c->name,
				 w->p->op->pos.file, w->p->op->pos.line);
	if (!(buf = malloc(CONFIG_MAX)))
		return diag_fail(w->d, EXIT_SYSCALL, ENOMEM,
				 "unable to read %s/%s", w->p->op->dst, c->real);
	if (read_rel(w, c->real, buf, CONFIG_MAX) < 0) {
		free(buf);
		return 0;
	}
	for (line = buf; !r && line; line = next) {
		char *eq, *key;

		if ((next = strchr(line, '\n')))
			*next++ = '\0';
		if (!config_line(&line, sect, sizeof(sect)))
			continue;
		if (!*line || *line == '#' || *line == ';' ||
		    !(eq = strchr(line, '=')))
			continue;
		*eq = '\0';
		key = line;
		trim(&key);
		line = eq + 1;
		config_value(line);
		if ((!strcasecmp(sect, "core") && !strcasecmp(key, "hookspath")) ||
		    ((!strcasecmp(sect, "include") ||
		      !strcasecmp(sect, "includeif")) &&
		     !strcasecmp(key, "path")))
			r = config_path(w, c, sect, line);
	}
	free(buf);
	return r;
}

static int config_path(struct walk *w, const struct config *c,
		       const char *sect, char *value)
{
	char rel[PLAN_MAX_PATH + 1], real[PLAN_MAX_PATH + 1],
		dir[PLAN_MAX_PATH + 1];
	bool hooks = !strcasecmp(sect, "core");
	struct stat st;

	if (!*value || value[0] == '~')
		return 0;	/* the caller's home: not below DIR */
	/* hooksPath is relative to the worktree (where hooks run), an
	 * include to the including file's directory. */
	if (hooks && !c->wt && value[0] != '/')
		return 0;
	dir_of(c->name, dir, sizeof(dir));
	if (!below_dir(w, hooks ? c->wt : dir, value, rel, sizeof(rel)))
		return 0;
	if (resolve(w->rootfd, w->p->op->dst, rel, real, sizeof(real)) < 0 ||
	    lstat_rel(w, real, &st) < 0)
		/* Not there yet: it must not appear during the run. */
		return remember(w, rel, S_WATCH, NULL);
	if (protect_ro(w, real, &st) < 0)
		return -1;
	/* Its keys count as the includer's (git stops past 10 levels). */
	if (!hooks && S_ISREG(st.st_mode) && c->depth < INCLUDE_DEPTH) {
		struct config inc = { real, rel, c->wt, c->depth + 1,
				      c->files };

		return scan_config(w, &inc);
	}
	return 0;
}

static int git_dir(struct walk *w, const char *g, const char *wt,
		   unsigned nest);

/* A directory holding HEAD or config is a git dir (or what git would
 * take for one). */
static bool is_repo(struct walk *w, const char *rel)
{
	char f[PLAN_MAX_PATH + 16];
	struct stat st;

	snprintf(f, sizeof(f), "%s/HEAD", rel);
	if (lstat_rel(w, f, &st) == 0)
		return true;
	snprintf(f, sizeof(f), "%s/config", rel);
	return lstat_rel(w, f, &st) == 0;
}

/* Every git dir below modules/ (submodules may nest: a/b/c). */
static int git_modules(struct walk *w, const char *rel, unsigned nest)
{
	char sub[PLAN_MAX_PATH + 1], f[PLAN_MAX_PATH + 16],
		buf[PLAN_MAX_PATH + 1], wt[PLAN_MAX_PATH + 1];
	struct dirent *de;
	int r = 0;
	DIR *dir;

	if (nest > GIT_NEST)
		return 0;
	if (!(dir = open_dir_rel(w, rel)))
		return 0;
	while (!r && (de = readdir(dir))) {
		struct stat st;

		if (de->d_name[0] == '.' &&
		    (!de->d_name[1] || !strcmp(de->d_name, "..")))
			continue;
		if (snprintf(sub, sizeof(sub), "%s/%s", rel, de->d_name) >=
			    (int)sizeof(sub) ||
		    lstat_rel(w, sub, &st) < 0 || !S_ISDIR(st.st_mode))
			continue;
		if (!strcmp(de->d_name, "hooks"))
			continue;
		if (remember(w, sub, S_MODULE, NULL) < 0)
			return -1;
		if (!is_repo(w, sub)) {
			r = git_modules(w, sub, nest + 1);
			continue;
		}
		/* A linked worktree's gitdir names its .git file: that
		 * worktree uses this git dir (and its commondir's). */
		snprintf(f, sizeof(f), "%s/gitdir", sub);
		if (read_rel(w, f, buf, sizeof(buf)) > 0) {
			char *c = buf;

			trim(&c);
			if (below_dir(w, sub, c, f, sizeof(f))) {
				dir_of(f, wt, sizeof(wt));
				r = git_dir(w, sub, wt, nest + 1);
				continue;
			}
		}
		r = git_dir(w, sub, NULL, nest + 1);
	}
	closedir(dir);
	return r;
}

/* remotes/ and branches/: git takes a remote's URL from remotes/NAME
 * (or branches/NAME) when config has none, and a push to a local path
 * runs that repository's receive hooks. */
static const char *const git_ro[] = { "config", "config.worktree",
				      "commondir", "hooks", "info",
				      "remotes", "branches", NULL };
/* Names git follows that, made during the run (where none was at
 * start), would run or redirect the host's git: renamed aside after the
 * run. */
static const char *const git_redirect[] = { "config", "config.worktree",
					    "commondir", "hooks", "remotes",
					    "branches", NULL };

static int git_hooks(struct walk *w, const char *g)
{
	char rel[PLAN_MAX_PATH + 1], h0[PLAN_MAX_PATH + 1];
	struct dirent *de;
	int r = 0;
	DIR *dir;

	snprintf(h0, sizeof(h0), "%s/hooks", g);
	if (resolve(w->rootfd, w->p->op->dst, h0, rel, sizeof(rel)) < 0)
		return 0;	/* reported by protect_path */
	if (!(dir = open_dir_rel(w, rel)))
		return 0;
	while (!r && (de = readdir(dir))) {
		char h[PLAN_MAX_PATH + 1];
		struct stat st;

		if (de->d_name[0] == '.' ||
		    snprintf(h, sizeof(h), "%s/%s", rel, de->d_name) >=
			    (int)sizeof(h) ||
		    lstat_rel(w, h, &st) < 0)
			continue;
		/* The hooks dir's bind covers its own entries; a link's
		 * target and another name of a hook file it does not. */
		if (S_ISLNK(st.st_mode))
			r = protect_path(w, h);
		else if (S_ISREG(st.st_mode) && st.st_nlink > 1)
			r = protect_ro(w, h, &st);
	}
	closedir(dir);
	return r;
}

/* What of git dir g depends on the worktree wt that uses it: a relative
 * core.hooksPath in its config (and config.worktree, and the files they
 * include), and so in the config commondir leads to. Done for every
 * worktree that reaches g, not only the first one the scan met. */
static int git_worktree(struct walk *w, const char *g, const char *wt,
			unsigned nest)
{
	static const char *const cfg[] = { "config", "config.worktree" };
	char rel[PLAN_MAX_PATH + 1], buf[PLAN_MAX_PATH + 1],
		real[PLAN_MAX_PATH + 1];

	for (size_t i = 0; i < 2; i++) {
		unsigned files = 0;
		struct config c = { rel, rel, wt, 0, &files };

		snprintf(rel, sizeof(rel), "%s/%s", g, cfg[i]);
		if (scan_config(w, &c) < 0)
			return -1;
	}
	snprintf(rel, sizeof(rel), "%s/commondir", g);
	if (read_rel(w, rel, buf, sizeof(buf)) > 0) {
		char *c = buf, cd[PLAN_MAX_PATH + 1];

		trim(&c);
		if (below_dir(w, g, c, cd, sizeof(cd)) &&
		    resolve(w->rootfd, w->p->op->dst, cd, real,
			    sizeof(real)) == 0 &&
		    git_dir(w, real, wt, nest + 1) < 0)
			return -1;
	}
	return 0;
}

/* Rename rel to rel.pysbx-refused-TIME (in aside) in its directory,
 * opened beneath DIR without following a symlink: a run still live on
 * the workspace (when the check is a killed run's) cannot swap a parent
 * for a link and so have a file elsewhere renamed. 0 or -1. */
static int rename_rel(struct walk *w, const char *rel, char *aside,
		      size_t len)
{
	char dir[PLAN_MAX_PATH + 1];
	const char *base = base_of(rel);
	int fd, r;

	dir_of(rel, dir, sizeof(dir));
	snprintf(aside, len, "%s.pysbx-refused-%ld", base, (long)time(NULL));
	fd = sys_openat2(w->rootfd, *dir ? dir : ".", O_PATH | O_DIRECTORY |
			 O_CLOEXEC, 0, MNT_RESOLVE);
	if (fd < 0)
		return -1;
	r = renameat(fd, base, fd, aside);
	close(fd);
	return r;
}

/* Rename rel to rel.pysbx-refused-TIME and report it (why: how it got
 * there). */
static void move_aside(struct walk *w, const char *rel, const char *why)
{
	char aside[PLAN_MAX_PATH + 64];

	if (rename_rel(w, rel, aside, sizeof(aside)) == 0)
		report(w, "moved", rel, "%s and would redirect git on the "
		       "host: moved to %s", why, aside);
	else
		report(w, "created", rel, "%s and would redirect git on the "
		       "host; it could not be moved aside (%s): remove it",
		       why, strerror(errno));
}

/* Is key (lower case) of section sect set to true in config file rel?
 * Only the file itself, as git reads a repository's extensions. */
static bool config_true(struct walk *w, const char *rel, const char *sect,
			const char *key)
{
	char s[64] = "", *buf = malloc(CONFIG_MAX), *line, *next;
	bool on = false;

	if (!buf || read_rel(w, rel, buf, CONFIG_MAX) < 0) {
		free(buf);
		return false;
	}
	for (line = buf; line; line = next) {
		char *eq;

		if ((next = strchr(line, '\n')))
			*next++ = '\0';
		if (!config_line(&line, s, sizeof(s)))
			continue;
		if (strcasecmp(s, sect) || !*line)
			continue;
		if ((eq = strchr(line, '=')))
			*eq = '\0';
		trim(&line);
		if (strcasecmp(line, key))
			continue;
		if (!eq) {
			on = true;	/* a bare key is true */
			continue;
		}
		line = eq + 1;
		config_value(line);
		on = !strcasecmp(line, "true") || !strcasecmp(line, "yes") ||
		     !strcasecmp(line, "on") || !strcmp(line, "1");
	}
	free(buf);
	return on;
}

/* What an earlier run may have left that git never makes, refused at
 * the start of every run (a run killed before its own check could not
 * move it aside): a commondir in a git dir that is not a linked
 * worktree's (worktrees/NAME), and a config.worktree that the
 * repository's config does not enable (a later extensions.worktreeConfig
 * would make the host's git read it). */
static void git_leftovers(struct walk *w, const char *g)
{
	char rel[PLAN_MAX_PATH + 16], dir[PLAN_MAX_PATH + 1],
		cfg[PLAN_MAX_PATH + 16], buf[PLAN_MAX_PATH + 1];
	bool linked;
	struct stat st;

	dir_of(g, dir, sizeof(dir));
	linked = !strcmp(base_of(dir), "worktrees");
	snprintf(rel, sizeof(rel), "%s/commondir", g);
	if (!linked && lstat_rel(w, rel, &st) == 0)
		move_aside(w, rel, "is a commondir in a git dir that is not a "
			   "linked worktree's (left by an earlier run?)");
	snprintf(rel, sizeof(rel), "%s/config.worktree", g);
	if (lstat_rel(w, rel, &st) < 0)
		return;
	/* The repository's config: the commondir's for a linked worktree. */
	snprintf(cfg, sizeof(cfg), "%s/config", g);
	if (linked) {
		char *c = buf, cd[PLAN_MAX_PATH + 1], real[PLAN_MAX_PATH + 1];

		snprintf(cfg, sizeof(cfg), "%s/commondir", g);
		if (read_rel(w, cfg, buf, sizeof(buf)) <= 0)
			return;
		trim(&c);
		if (!below_dir(w, g, c, cd, sizeof(cd)) ||
		    resolve(w->rootfd, w->p->op->dst, cd, real,
			    sizeof(real)) < 0)
			return;	/* out of DIR: config.worktree stays RO */
		snprintf(cfg, sizeof(cfg), "%s/config", real);
	}
	if (!config_true(w, cfg, "extensions", "worktreeconfig"))
		move_aside(w, rel, "is a config.worktree that the repository's "
			   "config does not enable (left by an earlier run?)");
}

/* A rebase (or cherry-pick) in progress keeps its to-do list in the git
 * dir, which must stay writable for git to work; an "exec" line in it
 * runs a shell command when the host's git continues the rebase (git
 * rebase --continue). */
static const char *const git_todo[] = { "rebase-merge/git-rebase-todo",
					"sequencer/todo", NULL };

/* FNV-1a of the to-do list rel, and whether it has an exec line; false
 * when it cannot be read. */
static bool todo_read(struct walk *w, const char *rel, uint64_t *hash,
		      bool *exec)
{
	char *buf = malloc(CONFIG_MAX), *line, *next;
	ssize_t n;

	if (!buf || (n = read_rel(w, rel, buf, CONFIG_MAX)) < 0) {
		free(buf);
		return false;
	}
	*hash = 14695981039346656037ULL;
	for (ssize_t i = 0; i < n; i++)
		*hash = (*hash ^ (unsigned char)buf[i]) * 1099511628211ULL;
	*exec = false;
	for (line = buf; line && !*exec; line = next) {
		size_t l;

		if ((next = strchr(line, '\n')))
			*next++ = '\0';
		line += strspn(line, " \t");
		l = strcspn(line, " \t");
		*exec = (l == 4 && !strncmp(line, "exec", 4)) ||
			(l == 1 && line[0] == 'x');
	}
	free(buf);
	return true;
}

/* At start (remember each to-do list's hash), after the run (move aside
 * one with an exec line that is new or changed), and in a repository
 * made during the run (move aside any with an exec line; returns how
 * many). */
static int git_todos(struct walk *w, const char *g, bool made)
{
	char rel[PLAN_MAX_PATH + 64], aside[PLAN_MAX_PATH + 64];
	int moved = 0;

	for (size_t i = 0; git_todo[i]; i++) {
		struct stat st = { 0 };
		uint64_t h;
		bool exec;

		snprintf(rel, sizeof(rel), "%s/%s", g, git_todo[i]);
		if (!todo_read(w, rel, &h, &exec))
			continue;
		st.st_ino = (ino_t)h;
		if (!w->post) {
			if (remember(w, rel, S_TODO, &st) < 0)
				return -1;
			continue;
		}
		if (!exec || (!made && was_seen(w->p, rel, S_TODO, &st)))
			continue;
		if (made) {
			moved += rename_rel(w, rel, aside, sizeof(aside)) == 0;
			continue;
		}
		if (rename_rel(w, rel, aside, sizeof(aside)) == 0)
			report(w, "moved", rel, "is a to-do list with exec lines "
			       "written during the run: git rebase --continue "
			       "on the host would run them; moved to %s", aside);
		else
			report(w, "created", rel, "is a to-do list with exec "
			       "lines written during the run: git rebase "
			       "--continue on the host would run them; it could "
			       "not be moved aside (%s): remove it",
			       strerror(errno));
	}
	return moved;
}

/* g: a git dir below DIR; wt: a worktree using it (NULL: not known). */
static int git_dir(struct walk *w, const char *g, const char *wt,
		   unsigned nest)
{
	char rel[PLAN_MAX_PATH + 1];
	struct stat st;

	if (nest > GIT_NEST)
		return 0;
	if (is_gitdir(w->p, g))	/* seen: only what this worktree adds */
		return wt ? git_worktree(w, g, wt, nest) : 0;
	if (lstat_rel(w, g, &st) < 0 || !S_ISDIR(st.st_mode))
		return 0;
	git_leftovers(w, g);
	if (pin(w, g, &st) < 0 || git_todos(w, g, false) < 0)
		return -1;
	for (size_t i = 0; git_ro[i]; i++) {
		snprintf(rel, sizeof(rel), "%s/%s", g, git_ro[i]);
		if (lstat_rel(w, rel, &st) == 0 && protect_path(w, rel) < 0)
			return -1;
	}
	if (git_hooks(w, g) < 0 || git_worktree(w, g, wt, nest) < 0)
		return -1;
	/* A .git directory's parent is its main worktree, however the
	 * scan got here (a linked worktree's commondir). */
	if (!strcmp(base_of(g), ".git")) {
		dir_of(g, rel, sizeof(rel));
		if ((!wt || strcmp(wt, rel)) &&
		    git_worktree(w, g, rel, nest) < 0)
			return -1;
	}
	snprintf(rel, sizeof(rel), "%s/modules", g);
	if (git_modules(w, rel, nest) < 0)
		return -1;
	snprintf(rel, sizeof(rel), "%s/worktrees", g);
	return git_modules(w, rel, nest);
}

/* A match named .git: a directory, a symlink to one, or a file with a
 * "gitdir:" line (a worktree, a submodule, --separate-git-dir). */
static int git_entry(struct walk *w, const char *rel, const struct stat *st)
{
	char wt[PLAN_MAX_PATH + 1], real[PLAN_MAX_PATH + 1],
		buf[PLAN_MAX_PATH + 16], g[PLAN_MAX_PATH + 1];
	char *c = buf;

	dir_of(rel, wt, sizeof(wt));
	if (S_ISDIR(st->st_mode))
		return git_dir(w, rel, wt, 0);
	if (S_ISLNK(st->st_mode)) {
		if (resolve(w->rootfd, w->p->op->dst, rel, real,
			    sizeof(real)) < 0)
			return protect_path(w, rel);	/* reported */
		return git_dir(w, real, wt, 0);
	}
	if (!S_ISREG(st->st_mode))
		return protect_ro(w, rel, st);
	/* The file itself: rewritten, it would point the host's git
	 * elsewhere. */
	if (protect_ro(w, rel, st) < 0)
		return -1;
	if (read_rel(w, rel, buf, sizeof(buf)) <= 0)
		return 0;
	trim(&c);
	if (strncmp(c, "gitdir:", 7))
		return 0;
	c += 7;
	trim(&c);
	if (!below_dir(w, wt, c, g, sizeof(g))) {
		report(w, "link", rel, "names a git dir out of the directory "
		       "(a worktree or submodule of a repository elsewhere): "
		       "not writable through it, left as it is");
		return remember(w, rel, S_LINK, NULL);
	}
	if (resolve(w->rootfd, w->p->op->dst, g, real, sizeof(real)) < 0)
		return 0;
	return git_dir(w, real, wt, 0);
}

/* --- the scan ------------------------------------------------------------- */

/* A match found by the scan at start. */
static int on_match(struct walk *w, const char *rel, const struct stat *st)
{
	if (remember(w, rel, S_MATCH, st) < 0)
		return -1;
	if (!strcmp(base_of(rel), ".git"))
		return git_entry(w, rel, st);
	return protect_path(w, rel);
}

static void git_new(struct walk *w, const char *rel, const struct stat *st);

/* A match found by the check after the run. */
static int on_match_after(struct walk *w, const char *rel,
			  const struct stat *st)
{
	if (!strcmp(base_of(rel), ".git") && !was_seen(w->p, rel, S_MATCH, st)) {
		git_new(w, rel, st);
		return 0;
	}
	if (!was_seen(w->p, rel, S_MATCH, st))
		report(w, "created", rel, "%s during the run under a "
		       "protected name: review it before trusting it",
		       S_ISLNK(st->st_mode) ? "is a symlink made" :
		       was_seen(w->p, rel, -1, NULL) ? "was replaced" :
						       "was created");
	return 0;
}

/* More than DIRS_MAX directories: at start the run is refused; after
 * it, what was not reached is said to be unchecked (and the run fails,
 * mnt_protect_check). */
static int too_many_dirs(struct walk *w)
{
	if (w->post) {
		w->p->unchecked = true;
		return -1;
	}
	diag_fail(w->d, EXIT_SYSCALL, 0,
		  "unable to protect %s: more than %d directories below it "
		  "(a repository is looked for at any depth) (at %s:%u)",
		  w->p->op->dst, DIRS_MAX, w->p->op->pos.file,
		  w->p->op->pos.line);
	diag_hint(w->d, "protect a smaller directory (the project, not "
		  "the whole home)");
	return -1;
}

static int scan_dir(struct walk *w, int fd, char *rel, size_t len,
		    unsigned level)
{
	struct dirent *de;
	DIR *dir = fdopendir(fd);
	int r = 0;

	if (!dir) {
		close(fd);
		return w->post ? 0 : mnt_op_fail(w->d, w->p->op, errno, NULL, "");
	}
	while (!r && (de = readdir(dir))) {
		size_t n = strlen(de->d_name);
		unsigned char t = de->d_type;
		struct stat st;

		if (de->d_name[0] == '.' &&
		    (n == 1 || (n == 2 && de->d_name[1] == '.')))
			continue;
		if (len + n + 2 > PLAN_MAX_PATH)
			continue;
		if (len)
			rel[len] = '/';
		memcpy(rel + len + !!len, de->d_name, n + 1);
		/* Below the depth, only a .git is looked for: a repository
		 * at any depth runs its config and hooks for the host's git
		 * (through a gitlink, or in a shell that cd's there). */
		if (level <= w->p->op->inodes ? matches(w->p, rel) :
		    !strcmp(de->d_name, ".git") && matches(w->p, rel)) {
			if (fstatat(dirfd(dir), de->d_name, &st,
				    AT_SYMLINK_NOFOLLOW) == 0)
				r = w->post ? on_match_after(w, rel, &st)
					    : on_match(w, rel, &st);
		} else if ((level < w->p->op->inodes || w->p->git) &&
			   (t == DT_DIR || t == DT_UNKNOWN)) {
			/* Only directories are opened: the scan costs a
			 * readdir per directory and a syscall per match. */
			int c = -1;

			if (++w->p->ndirs > DIRS_MAX)
				r = too_many_dirs(w);
			else
				c = sys_openat2(dirfd(dir), de->d_name,
						O_RDONLY | O_DIRECTORY |
							O_NOFOLLOW | O_CLOEXEC,
						0, MNT_RESOLVE);
			if (c >= 0)
				r = scan_dir(w, c, rel, len + (len ? 1 : 0) + n,
					     level + 1);
		}
		rel[len] = '\0';
	}
	closedir(dir);
	return r;
}

static int scan(struct walk *w)
{
	char rel[PLAN_MAX_PATH + 1] = "";
	int fd = sys_openat2(w->rootfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC,
			     0, MNT_RESOLVE);

	w->p->ndirs = 0;
	w->p->git = matches(w->p, ".git");

	if (fd < 0)
		return w->post ? 0 : mnt_op_fail(w->d, w->p->op, errno, NULL, "");
	return scan_dir(w, fd, rel, 0, 1);
}

/* --- mounting, top-down ------------------------------------------------------ */

static size_t depth_of(const char *rel)
{
	size_t n = 0;

	for (; *rel; rel++)
		n += *rel == '/';
	return n;
}

static int cmp_ent(const void *a, const void *b)
{
	const struct ent *x = a, *y = b;
	size_t dx = depth_of(x->rel), dy = depth_of(y->rel);
	int c;

	if (dx != dy)
		return dx < dy ? -1 : 1;
	c = strcmp(x->rel, y->rel);
	/* read-only first: it wins over a pin of the same path */
	return c ? c : (int)y->kind - (int)x->kind;
}

static int apply(struct walk *w)
{
	struct prot *p = w->p;
	size_t count = 0;

	qsort(p->e, p->ne, sizeof(*p->e), cmp_ent);
	for (size_t i = 0; i < p->ne; i++) {
		const struct ent *e = &p->e[i];
		unsigned long long attrs = e->kind == E_RO ?
			MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV : 0;
		char extra[PLAN_MAX_PATH + 16];
		struct stat st;
		int fd, tree, err;

		if (i && !strcmp(e->rel, p->e[i - 1].rel))
			continue;
		if (++count > PROTECT_MAX)
			return diag_fail(w->d, EXIT_SYSCALL, 0,
					 "unable to protect %s: more than %d "
					 "paths to bind (at %s:%u)", p->op->dst,
					 PROTECT_MAX, p->op->pos.file,
					 p->op->pos.line);
		/* Opened again through the mounts made so far: what an
		 * upper mount hides is never mounted on. */
		fd = sys_openat2(w->rootfd, e->rel, O_PATH | O_CLOEXEC, 0,
				 MNT_RESOLVE);
		err = fd < 0 ? errno : 0;
		if (!err && e->ino && (fstat(fd, &st) < 0 ||
				       st.st_dev != e->dev ||
				       st.st_ino != e->ino))
			err = ESTALE;	/* swapped by the host meanwhile */
		if (!err) {
			tree = mnt_clone_with(fd, attrs);
			if (tree < 0 || mnt_attach(tree, fd) < 0)
				err = errno;
		}
		if (fd >= 0)
			close(fd);
		if (err) {
			snprintf(extra, sizeof(extra), " (path %s)", e->rel);
			mnt_op_fail(w->d, p->op, err, NULL, extra);
			diag_hint(w->d, "the path changed or could not be "
				  "bound while the sandbox started; protection "
				  "is all or nothing: run again");
			return -1;
		}
	}
	return 0;
}

#define WATCH_MAX 64

/* Git and most editors write a file as NAME.lock (or a temporary name)
 * and rename it over NAME: on a protected NAME the rename fails with
 * EBUSY, and some commands (git branch --set-upstream-to) still say they
 * succeeded. The directories of read-only paths are watched for new
 * NAME.lock files, so that after the run the refusal can be named. Best
 * effort: no inotify (the per-user instance limit), no note. */
static void watch_locks(struct walk *w)
{
	struct prot *p = w->p;

	p->ifd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (p->ifd < 0 || !(p->wrel = calloc(WATCH_MAX, sizeof(*p->wrel))))
		return;
	for (size_t i = 0; i < p->ne && p->nw < WATCH_MAX; i++) {
		char dir[PLAN_MAX_PATH + 1];
		int fd, wd;

		if (p->e[i].kind != E_RO)
			continue;
		dir_of(p->e[i].rel, dir, sizeof(dir));
		fd = sys_openat2(w->rootfd, *dir ? dir : ".",
				 O_PATH | O_DIRECTORY | O_CLOEXEC, 0,
				 MNT_RESOLVE);
		/* inotify takes a path: the directory's own, as cwd */
		if (fd < 0 || fchdir(fd) < 0) {
			if (fd >= 0)
				close(fd);
			continue;
		}
		wd = inotify_add_watch(p->ifd, ".", IN_CREATE | IN_ONLYDIR);
		close(fd);
		if (wd > 0 && (size_t)wd <= WATCH_MAX && !p->wrel[wd - 1] &&
		    (p->wrel[wd - 1] = strdup(dir)))
			p->nw++;
	}
	if (chdir("/") < 0) {
		/* the cwd is not used again before pivot_root's fchdir */
	}
}

/* Was rel noted already? If not, note it (the seen entry's own string:
 * it outlives the loop). */
static bool once(const char **noted, size_t *n, size_t max,
		 const struct prot *p, const char *rel)
{
	for (size_t i = 0; i < *n; i++)
		if (!strcmp(noted[i], rel))
			return true;
	for (size_t i = 0; i < p->ns && *n < max; i++)
		if (!strcmp(p->s[i].rel, rel)) {
			noted[(*n)++] = p->s[i].rel;
			break;
		}
	return false;
}

/* After the run: a NAME.lock made next to a protected NAME. */
static void note_refusals(struct walk *w)
{
	struct prot *p = w->p;
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	const char *noted[16];
	size_t nnoted = 0;
	ssize_t n;

	if (p->ifd < 0)
		return;
	while ((n = read(p->ifd, buf, sizeof(buf))) > 0)
		for (char *q = buf; q < buf + n;) {
			struct inotify_event *ev = (struct inotify_event *)q;
			char rel[PLAN_MAX_PATH + 1];
			size_t l = ev->len ? strlen(ev->name) : 0;
			const char *dir = ev->wd > 0 && ev->wd <= WATCH_MAX ?
				p->wrel[ev->wd - 1] : NULL;

			q += sizeof(*ev) + ev->len;
			if (!dir || l <= 5 || strcmp(ev->name + l - 5, ".lock"))
				continue;
			snprintf(rel, sizeof(rel), "%s%s%.*s", dir,
				 *dir ? "/" : "", (int)(l - 5), ev->name);
			if (!was_seen(p, rel, S_RO, NULL))
				continue;
			if (once(noted, &nnoted, 16, p, rel))
				continue;
			report(w, "refused", rel, "is protected: a command "
			       "tried to replace it during the run (%s), and "
			       "the sandbox refused the write, whatever the "
			       "command said", ev->name);
		}
	close(p->ifd);
	p->ifd = -1;
}

static int recover(struct walk *w);
static int record(struct walk *w);
static bool host_dir(const struct plan *pl, const struct fs_op *op, char *out,
		     size_t len);

int mnt_protect(struct diag *d, struct mnt_build *b, const struct fs_op *op)
{
	char bad[PLAN_MAX_PATH + 1];
	struct walk w = { d, NULL, -1, d->report_fd, false, false, false,
			  -1, NULL };
	struct prot *ps = realloc(prots, (nprots + 1) * sizeof(*prots));
	int r;

	if (!ps)
		return diag_fail(d, EXIT_SYSCALL, ENOMEM, "unable to protect %s",
				 op->dst);
	prots = ps;
	w.p = memset(&prots[nprots++], 0, sizeof(*prots));
	w.p->op = op;
	w.p->ifd = -1;
	w.p->rec = -1;
	w.hostfd = b->hostfd;
	w.plan = b->plan;
	if (split_patterns(w.p) < 0)
		return diag_fail(d, EXIT_SYSCALL, ENOMEM, "unable to protect %s",
				 op->dst);
	w.rootfd = mnt_open_dst(b->rootfd, op->dst, DST_EXISTING, 0, bad,
				sizeof(bad));
	if (w.rootfd < 0)
		return mnt_op_fail(d, op, errno, bad, "");
	r = recover(&w);
	if (!r)
		r = scan(&w);
	if (!r)
		r = apply(&w);
	if (!r && w.p->nro)
		watch_locks(&w);
	qsort(w.p->s, w.p->ns, sizeof(*w.p->s), cmp_seen);
	if (!r)
		r = record(&w);
	close(w.rootfd);
	return r;
}

/* --- after the run ------------------------------------------------------------ */

/* The keys a repository's config keeps when the sandbox made it: they
 * describe the repository (format, worktree, author) and run nothing.
 * Everything else (core.fsmonitor, core.hooksPath, core.sshCommand,
 * aliases, filters, remotes, includes...) stays in the file moved aside. */
static bool config_kept(const char *sect, const char *key)
{
	static const char *const keep[] = {
		"core.repositoryformatversion", "core.filemode", "core.bare",
		"core.logallrefupdates", "core.ignorecase",
		"core.precomposeunicode", "core.symlinks", "core.worktree",
		"extensions.objectformat", "extensions.refstorage",
		"user.name", "user.email", NULL
	};
	char k[160];

	snprintf(k, sizeof(k), "%s.%s", sect, key);
	for (size_t i = 0; keep[i]; i++)
		if (!strcasecmp(k, keep[i]))
			return true;
	return false;
}

/* The kept keys of config file rel (config_kept) as a config git reads,
 * each value quoted, in out (CONFIG_MAX bytes), its length in *n: true
 * when that is all the file holds (it then stays as it is). A bare key,
 * a subsection, a value with a quote, a backslash (a continued line) or
 * a newline is never kept. */
static bool config_filter(struct walk *w, const char *rel, char *out,
			  size_t *n)
{
	char sect[64] = "", last[64] = "", *buf = malloc(CONFIG_MAX), *line,
	     *next;
	bool sub = false, all = true;

	*n = 0;
	if (!buf || read_rel(w, rel, buf, CONFIG_MAX) < 0) {
		free(buf);
		return false;
	}
	for (line = buf; line; line = next) {
		char *eq, *key;

		if ((next = strchr(line, '\n')))
			*next++ = '\0';
		trim(&line);
		if (line[0] == '[') {
			size_t l = strcspn(line + 1, " \t\"].");

			snprintf(sect, sizeof(sect), "%.*s", (int)l, line + 1);
			sub = line[1 + l] != ']';	/* [remote "x"], [a.b] */
			line = strchr(line, ']');
			if (!line++) {
				all = false;
				continue;
			}
			trim(&line);
		}
		if (!*line || *line == '#' || *line == ';')
			continue;
		if (sub || !(eq = strchr(line, '='))) {
			all = false;
			continue;
		}
		*eq = '\0';
		key = line;
		trim(&key);
		line = eq + 1;
		config_value(line);
		if (!config_kept(sect, key) || strpbrk(line, "\"\\\n") ||
		    *n + strlen(sect) + strlen(key) + strlen(line) + 16 >
			    CONFIG_MAX) {
			all = false;
			continue;
		}
		if (strcmp(last, sect)) {
			*n += (size_t)sprintf(out + *n, "[%s]\n", sect);
			snprintf(last, sizeof(last), "%s", sect);
		}
		*n += (size_t)sprintf(out + *n, "\t%s = \"%s\"\n", key, line);
	}
	free(buf);
	return all;
}

/* Rename rel aside (silently: the caller reports once). */
static bool rename_aside(struct walk *w, const char *rel)
{
	char aside[PLAN_MAX_PATH + 64];
	struct stat st;

	if (lstat_rel(w, rel, &st) < 0)
		return false;
	return rename_rel(w, rel, aside, sizeof(aside)) == 0;
}

/* Does rel hold what git would take from it: a directory with an entry
 * (hooks: one not named *.sample, which git never runs), or anything
 * else that is there? */
static bool holds_any(struct walk *w, const char *rel, bool hooks)
{
	struct dirent *de;
	bool any = false;
	DIR *dir;
	int fd = sys_openat2(w->rootfd, rel, O_RDONLY | O_DIRECTORY |
				     O_NOFOLLOW | O_CLOEXEC, 0, MNT_RESOLVE);

	if (fd < 0)
		return errno != ENOENT;
	if (!(dir = fdopendir(fd))) {
		close(fd);
		return true;
	}
	while (!any && (de = readdir(dir))) {
		size_t l = strlen(de->d_name);

		any = strcmp(de->d_name, ".") && strcmp(de->d_name, "..") &&
		      (!hooks || l < 7 || strcmp(de->d_name + l - 7, ".sample"));
	}
	closedir(dir);
	return any;
}

static int git_defuse(struct walk *w, const char *g, unsigned nest);

/* Every git dir below rel (modules/ nests: modules/a/b/sub). */
static int defuse_below(struct walk *w, const char *rel, unsigned nest,
			unsigned lvl)
{
	char sub[PLAN_MAX_PATH + 1];
	struct dirent *de;
	int moved = 0;
	DIR *dir;

	if (lvl > 32)
		return 0;
	if (!(dir = open_dir_rel(w, rel)))
		return 0;
	while ((de = readdir(dir))) {
		struct stat st;
		int r;

		if (de->d_name[0] == '.' ||
		    snprintf(sub, sizeof(sub), "%s/%s", rel, de->d_name) >=
			    (int)sizeof(sub) ||
		    lstat_rel(w, sub, &st) < 0 || !S_ISDIR(st.st_mode))
			continue;
		r = is_repo(w, sub) ? git_defuse(w, sub, nest + 1) :
				      defuse_below(w, sub, nest, lvl + 1);
		moved += r > 0 ? r : 0;
	}
	closedir(dir);
	return moved;
}

/* Git dir g, made during the run (or reached only through a .git made
 * during it): what the host's git would run from it is moved aside --
 * hooks (but samples), config.worktree, remotes, branches, a commondir
 * leading anywhere but a git dir protected at start, and a config with
 * any key but the repository's format settings (config_kept), which
 * gets a config of those settings in its place, so the repository stays
 * usable. The same for the git dirs below its modules/ and worktrees/.
 * Returns how many names were moved, -1 when g was done before. */
static int git_defuse(struct walk *w, const char *g, unsigned nest)
{
	static const char *const names[] = { "hooks", "config.worktree",
					     "remotes", "branches", NULL };
	char rel[PLAN_MAX_PATH + 1], buf[PLAN_MAX_PATH + 1],
		cd[PLAN_MAX_PATH + 1], real[PLAN_MAX_PATH + 1];
	struct prot *p = w->p;
	char *c = buf, *out;
	int moved = 0;
	size_t n;

	for (size_t i = 0; i < p->ndef; i++)
		if (!strcmp(p->defused[i], g))
			return -1;
	if (nest > GIT_NEST || grow((void **)&p->defused, &p->capdef, p->ndef,
				    sizeof(*p->defused), 8, SEEN_MAX) < 0 ||
	    !(p->defused[p->ndef] = strdup(g)))
		return 0;
	p->ndef++;
	snprintf(rel, sizeof(rel), "%s/config", g);
	out = malloc(CONFIG_MAX);
	if (out && lstat_rel(w, rel, &(struct stat){ 0 }) == 0 &&
	    !config_filter(w, rel, out, &n) && rename_aside(w, rel)) {
		int fd = n ? sys_openat2(w->rootfd, rel, O_WRONLY | O_CREAT |
						 O_EXCL | O_NOFOLLOW |
						 O_CLOEXEC, 0644, MNT_RESOLVE) :
			     -1;

		if (fd >= 0) {
			if (write(fd, out, n) != (ssize_t)n) {
				/* short: git reads what is there */
			}
			close(fd);
		}
		moved++;
	}
	free(out);
	for (size_t i = 0; names[i]; i++) {
		snprintf(rel, sizeof(rel), "%s/%s", g, names[i]);
		if (holds_any(w, rel, i == 0) && rename_aside(w, rel))
			moved++;
	}
	snprintf(rel, sizeof(rel), "%s/commondir", g);
	if (read_rel(w, rel, buf, sizeof(buf)) >= 0) {
		trim(&c);
		if ((!below_dir(w, g, c, cd, sizeof(cd)) ||
		     resolve(w->rootfd, p->op->dst, cd, real, sizeof(real)) < 0 ||
		     !is_gitdir(p, real)) && rename_aside(w, rel))
			moved++;
	}
	moved += git_todos(w, g, true);
	snprintf(rel, sizeof(rel), "%s/modules", g);
	moved += defuse_below(w, rel, nest, 0);
	snprintf(rel, sizeof(rel), "%s/worktrees", g);
	return moved + defuse_below(w, rel, nest, 0);
}

/* A .git made during the run (a directory, a symlink, a gitdir: file):
 * the git dir it leads to is defused unless it was protected at start. */
static void git_new(struct walk *w, const char *rel, const struct stat *st)
{
	char wt[PLAN_MAX_PATH + 1], buf[PLAN_MAX_PATH + 16],
		g[PLAN_MAX_PATH + 1], real[PLAN_MAX_PATH + 1];
	char *c = buf;
	int moved;

	dir_of(rel, wt, sizeof(wt));
	if (S_ISDIR(st->st_mode)) {
		snprintf(real, sizeof(real), "%s", rel);
	} else if (S_ISLNK(st->st_mode)) {
		if (resolve(w->rootfd, w->p->op->dst, rel, real,
			    sizeof(real)) < 0)
			goto plain;
	} else {
		if (!S_ISREG(st->st_mode) ||
		    read_rel(w, rel, buf, sizeof(buf)) <= 0)
			goto plain;
		trim(&c);
		if (strncmp(c, "gitdir:", 7))
			goto plain;
		c += 7;
		trim(&c);
		if (!below_dir(w, wt, c, g, sizeof(g)) ||
		    resolve(w->rootfd, w->p->op->dst, g, real,
			    sizeof(real)) < 0)
			goto plain;
	}
	if (is_gitdir(w->p, real) || !is_repo(w, real) ||
	    (moved = git_defuse(w, real, 0)) <= 0)
		goto plain;
	report(w, "moved", rel, "was created during the run: a repository "
	       "whose hooks or config git on the host would run (through a "
	       "gitlink, or in a shell that enters it): %d of its names in "
	       "%s/%s were moved to NAME.pysbx-refused-TIME (a config keeps "
	       "its format settings); review them", moved, w->p->op->dst,
	       real);
	return;
plain:
	report(w, "created", rel, "was created during the run under a "
	       "protected name: review it before trusting it");
}

/* A new commondir or config.worktree in a protected git dir: renamed
 * aside (the host's git would follow it), and reported. */
static void check_gitdir(struct walk *w, const char *g)
{
	char rel[PLAN_MAX_PATH + 1];
	struct stat st;

	for (size_t i = 0; git_ro[i]; i++) {
		bool redirect = false;

		snprintf(rel, sizeof(rel), "%s/%s", g, git_ro[i]);
		if (lstat_rel(w, rel, &st) < 0 || was_seen(w->p, rel, S_RO, &st))
			continue;
		for (size_t k = 0; git_redirect[k]; k++)
			redirect |= !strcmp(git_ro[i], git_redirect[k]);
		if (!redirect) {
			report(w, "created", rel, "was created during the run: "
			       "git on the host will use it; review it");
			continue;
		}
		move_aside(w, rel, "was created during the run");
	}
	git_todos(w, g, false);
}

/* A git dir made below rel (g/modules, where names nest: a/b/sub) during
 * the run (git submodule add): its hooks and config are the sandbox's. */
static void check_modules(struct walk *w, const char *rel, unsigned lvl)
{
	char sub[PLAN_MAX_PATH + 1];
	struct dirent *de;
	DIR *dir;

	if (lvl > 32)
		return;
	if (!(dir = open_dir_rel(w, rel)))
		return;
	while ((de = readdir(dir))) {
		struct stat st;
		int moved;

		if (de->d_name[0] == '.' ||
		    snprintf(sub, sizeof(sub), "%s/%s", rel, de->d_name) >=
			    (int)sizeof(sub) ||
		    lstat_rel(w, sub, &st) < 0 || !S_ISDIR(st.st_mode) ||
		    was_seen(w->p, sub, S_GITDIR, NULL))
			continue;
		if (!is_repo(w, sub)) {
			check_modules(w, sub, lvl + 1);
			continue;
		}
		if (was_seen(w->p, sub, S_MODULE, NULL))
			continue;
		moved = git_defuse(w, sub, 0);
		if (moved > 0)
			report(w, "moved", sub, "was created during the run: a "
			       "submodule's git dir, whose hooks or config git "
			       "on the host would run: %d of its names were "
			       "moved to NAME.pysbx-refused-TIME (a config "
			       "keeps its format settings); review them",
			       moved);
		else if (!moved)
			report(w, "created", sub, "was created during the run: "
			       "a submodule's git dir; review it");
	}
	closedir(dir);
}

static void check_one(struct walk *w)
{
	struct prot *p = w->p;
	char real[PLAN_MAX_PATH + 1];
	struct stat st;

	scan(w);
	for (size_t i = 0; i < p->ns; i++) {
		const struct seen *s = &p->s[i];

		if (s->kind == S_GITDIR) {
			char rel[PLAN_MAX_PATH + 16];

			check_gitdir(w, s->rel);
			snprintf(rel, sizeof(rel), "%s/modules", s->rel);
			check_modules(w, rel, 0);
		}
		else if (s->kind == S_WATCH && lstat_rel(w, s->rel, &st) == 0)
			report(w, "created", s->rel, "was created during the "
			       "run where core.hooksPath points: git on the "
			       "host runs hooks from it; review it");
		else if (s->kind == S_LINK &&
			 resolve(w->rootfd, p->op->dst, s->rel, real,
				 sizeof(real)) == 0)
			report(w, "created", s->rel, "now leads to %s/%s, made "
			       "during the run: review it", p->op->dst, real);
	}
}

int mnt_protect_check(struct diag *d, int code)
{
	struct walk w = { d, NULL, -1, d->report_fd, true, false, false,
			  -1, NULL };
	int root;

	if (!nprots)
		return code;
	/* Every process of the sandbox gone first: nothing may change the
	 * tree while it is checked. */
	while (waitpid(-1, NULL, __WALL) > 0 || errno == EINTR)
		;
	root = openat(AT_FDCWD, "/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	for (size_t i = 0; root >= 0 && i < nprots; i++) {
		char bad[PLAN_MAX_PATH + 1];

		w.p = &prots[i];
		w.rootfd = mnt_open_dst(root, w.p->op->dst, DST_EXISTING, 0, bad,
					sizeof(bad));
		if (w.rootfd < 0)
			continue;
		check_one(&w);
		if (w.p->unchecked) {
			report(&w, "unchecked", "", "holds more than %d "
			       "directories: the check after the run stopped "
			       "there, and a repository made below was not "
			       "made harmless; review every new .git before "
			       "git runs there", DIRS_MAX);
			if (!code)
				code = EXIT_SYSCALL;
		}
		note_refusals(&w);
		close(w.rootfd);
		if (code && w.p->nro)
			diag_warn(d, "%zu path%s below %s %s read-only in this "
				  "sandbox (protect at %s:%u): a write there "
				  "that failed with 'Read-only file system' or "
				  "'Device or resource busy' was refused by "
				  "the sandbox", w.p->nro,
				  w.p->nro == 1 ? "" : "s", w.p->op->dst,
				  w.p->nro == 1 ? "is" : "are",
				  w.p->op->pos.file, w.p->op->pos.line);
	}
	if (root >= 0)
		close(root);
	return code;
}

/* --- a run killed before its check --------------------------------------- */

/* pid 1 checks the tree after the run; a SIGKILL of pid 1 itself (a kill
 * of every pid of the tree, a cgroup kill) skips that. So before the
 * target starts, pid 1 writes what the check needs (the patterns, the
 * depth and what the scan saw) to a record outside the sandbox's reach
 * (protrec.c), and removes it once its check is done. Every later start
 * that protects the same directory runs the check of each record whose
 * pid 1 is gone first, before its own scan. */

/* The protected directory's identity: device, inode and birth time (a
 * directory made later where one was deleted gets the same inode number
 * but not the same birth time; 0 where the filesystem has none). */
static int dir_key(int fd, char *key, size_t len)
{
	struct statx sx;

	if (syscall(SYS_statx, fd, "", AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW,
		    STATX_INO | STATX_BTIME, &sx) < 0)
		return -1;
	if (!(sx.stx_mask & STATX_BTIME))
		sx.stx_btime.tv_sec = 0, sx.stx_btime.tv_nsec = 0;
	snprintf(key, len, "pysbx-protect-2 %u:%u %llu %lld.%09u",
		 sx.stx_dev_major, sx.stx_dev_minor,
		 (unsigned long long)sx.stx_ino,
		 (long long)sx.stx_btime.tv_sec, sx.stx_btime.tv_nsec);
	return 0;
}

/* Append s and its NUL to buf (size *cap, length *n). */
static int put(char **buf, size_t *n, size_t *cap, const char *s)
{
	size_t l = strlen(s) + 1;

	while (*n + l > *cap) {
		char *b = realloc(*buf, *cap * 2);

		if (!b)
			return -1;
		*buf = b;
		*cap *= 2;
	}
	memcpy(*buf + *n, s, l);
	*n += l;
	return 0;
}

/* The record: depth, patterns, DIR's path on the host ("" if unknown),
 * then kind, device, inode and path of every seen entry, each a
 * NUL-terminated string. */
static int record(struct walk *w)
{
	struct prot *p = w->p;
	size_t n = 0, cap = 4096;
	char key[128], num[64], host[PLAN_MAX_PATH + 1] = "",
		*buf = malloc(cap);
	int r = -1, e = ENOMEM;

	if (!buf || dir_key(w->rootfd, key, sizeof(key)) < 0) {
		e = buf ? errno : ENOMEM;
		goto out;
	}
	if (!w->plan || !host_dir(w->plan, p->op, host, sizeof(host)))
		host[0] = '\0';
	snprintf(num, sizeof(num), "%llu", (unsigned long long)p->op->inodes);
	if (put(&buf, &n, &cap, num) < 0 ||
	    put(&buf, &n, &cap, p->op->src) < 0 ||
	    put(&buf, &n, &cap, host) < 0)
		goto out;
	for (size_t i = 0; i < p->ns; i++) {
		snprintf(num, sizeof(num), "%d %llu %llu", (int)p->s[i].kind,
			 (unsigned long long)p->s[i].dev,
			 (unsigned long long)p->s[i].ino);
		if (put(&buf, &n, &cap, num) < 0 ||
		    put(&buf, &n, &cap, p->s[i].rel) < 0)
			goto out;
	}
	r = 0;
out:
	if (r < 0)
		diag_fail(w->d, EXIT_SYSCALL, e, "unable to record the "
			  "protected tree %s (at %s:%u)",
			  p->op->dst, p->op->pos.file, p->op->pos.line);
	else if ((r = mnt_protect_record(w->d, key, buf, n)) >= 0) {
		p->rec = r;
		memcpy(p->key, key, sizeof(p->key));
		r = 0;
	}
	free(buf);
	return r;
}

/* The next NUL-terminated string of a record, or NULL at its end. */
static const char *next_str(const char **at, const char *end)
{
	const char *s = *at;
	size_t l;

	if (s >= end)
		return NULL;
	l = strnlen(s, (size_t)(end - s));
	if (s + l >= end)
		return NULL;
	*at = s + l + 1;
	return s;
}

struct recovery {
	struct walk *w;
	char key[128];	/* this start's DIR */
};

/* One stale record (mnt_protect_stale): its check, reported as an
 * earlier run's. This directive's DIR: on this start's view of it.
 * Another directory: at its path on the host (the host's root is still
 * there while the sandbox is built), if that is still the directory the
 * record names (a workspace moved since is checked by a start on it; a
 * deleted one never). 0 when checked to the end. */
static int recover_one(void *arg, const char *key, const char *body,
		       size_t len)
{
	struct recovery *rc = arg;
	struct walk w = *rc->w;
	const char *at = body, *end = body + len, *depth, *pats, *host, *k;
	struct fs_op op = *w.p->op;
	struct prot p = { 0 };
	char other[128];
	int r = 1;

	if (!(depth = next_str(&at, end)) || !(pats = next_str(&at, end)) ||
	    !(host = next_str(&at, end)))
		return 0;	/* not ours to read: dropped */
	if (strcmp(key, rc->key)) {
		if (host[0] != '/' || !host[1] || w.hostfd < 0)
			return 1;
		w.rootfd = sys_openat2(w.hostfd, host + 1, O_PATH |
				       O_DIRECTORY | O_CLOEXEC, 0,
				       MNT_RESOLVE);
		if (w.rootfd < 0)
			return 1;
		if (dir_key(w.rootfd, other, sizeof(other)) < 0 ||
		    strcmp(other, key))
			goto out;
		op.dst = host;
	}
	r = -1;
	op.src = pats;
	op.inodes = strtoull(depth, NULL, 10);
	p.op = &op;
	p.ifd = -1;
	p.rec = -1;
	if (split_patterns(&p) < 0)
		goto out;
	while ((k = next_str(&at, end))) {
		const char *rel = next_str(&at, end);
		unsigned long long dev, ino;
		int kind;

		if (!rel || sscanf(k, "%d %llu %llu", &kind, &dev, &ino) != 3 ||
		    kind < S_MATCH || kind > S_TODO ||
		    grow((void **)&p.s, &p.caps, p.ns, sizeof(*p.s), 64,
			 SEEN_MAX) < 0)
			goto out;
		p.s[p.ns++] = (struct seen){ (char *)rel, (enum seen_kind)kind,
					     (dev_t)dev, (ino_t)ino };
	}
	qsort(p.s, p.ns, sizeof(*p.s), cmp_seen);
	w.p = &p;
	w.post = w.earlier = true;
	check_one(&w);
	if (p.unchecked)
		report(&w, "unchecked", "", "holds more than %d directories: "
		       "the check of the earlier run stopped there; review "
		       "every new .git before git runs there", DIRS_MAX);
	else
		r = 0;
out:
	if (w.rootfd != rc->w->rootfd)
		close(w.rootfd);
	for (size_t i = 0; i < p.npat; i++)
		free(p.pat[i]);
	free(p.pat), free(p.neg), free(p.slash), free(p.how), free(p.tail);
	free(p.tailhow), free(p.s);
	for (size_t i = 0; i < p.ndef; i++)
		free(p.defused[i]);
	free(p.defused);
	return r;
}

/* Every stale record, this directory's and others', before this
 * directive's own scan: before its sandbox exists. */
static int recover(struct walk *w)
{
	struct recovery rc = { w, "" };

	if (dir_key(w->rootfd, rc.key, sizeof(rc.key)) < 0)
		return mnt_op_fail(w->d, w->p->op, errno, NULL, "");
	mnt_protect_stale(recover_one, &rc);
	return 0;
}

/* Where DIR (a path inside the sandbox) is on the host: below the
 * source of the last bind whose destination holds it. */
static bool host_dir(const struct plan *pl, const struct fs_op *op, char *out,
		     size_t len)
{
	const struct fs_op *b = NULL;
	const char *rest;

	for (const struct fs_op *f = pl->fs; f < op; f++) {
		size_t n = strlen(f->dst);

		if ((f->kind == FS_BIND || f->kind == FS_RO_BIND ||
		     f->kind == FS_DEV_BIND) &&
		    !strncmp(op->dst, f->dst, n) &&
		    (op->dst[n] == '/' || !op->dst[n] || n == 1))
			b = f;
	}
	if (!b)
		return false;
	/* bind / /: DIR is its own path; bind SRC /: SRC then DIR */
	rest = op->dst + (strlen(b->dst) == 1 ? 0 : strlen(b->dst));
	return snprintf(out, len, "%s%s", strcmp(b->src, "/") ? b->src : "",
			*rest || strcmp(b->src, "/") ? rest : "/") < (int)len;
}

void mnt_protect_killed(struct diag *d, const struct plan *pl)
{
	for (size_t i = 0; i < nprots; i++) {
		struct prot *p = &prots[i];
		struct walk w = { d, p, -1, d->report_fd, true, false, true,
				  -1, NULL };
		char dir[PLAN_MAX_PATH + 1], key[128];
		int fd;

		if (p->rec < 0 || !host_dir(pl, p->op, dir, sizeof(dir)))
			continue;
		w.rootfd = sys_openat2(AT_FDCWD, dir, O_PATH | O_DIRECTORY |
				       O_CLOEXEC, 0, RESOLVE_NO_SYMLINKS |
				       RESOLVE_NO_MAGICLINKS);
		/* The very directory pid 1 protected, and no start is
		 * checking its record now: else the next start does. */
		if (w.rootfd < 0 || dir_key(w.rootfd, key, sizeof(key)) < 0 ||
		    strcmp(key, p->key) ||
		    (fd = mnt_protect_retake((size_t)p->rec)) < 0) {
			if (w.rootfd >= 0)
				close(w.rootfd);
			continue;
		}
		check_one(&w);
		if (p->unchecked)
			report(&w, "unchecked", "", "holds more than %d "
			       "directories: the check stopped there; review "
			       "every new .git before git runs there",
			       DIRS_MAX);
		else
			mnt_protect_retaken((size_t)p->rec, fd);
		if (p->unchecked)
			close(fd);
		close(w.rootfd);
	}
}
