/* The directives of the policy language: one handler each, all checks
 * done here at parse time so that a plan that parsed is a plan the steps
 * can carry out. docs/POLICY.md documents every one of them. */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

#include "policy/internal.h"
#include "scnames/scnames.h"
#include "util/names.h"
#include "util/num.h"

typedef void handler(struct ctx *c, const struct pos *pos, struct tok *t,
		     int n);

static const char *num_why(int r)
{
	switch (r) {
	case NUM_EMPTY: return "is empty";
	case NUM_OVERFLOW: return "is too large";
	case NUM_BAD_SUFFIX: return "has an unknown suffix";
	case NUM_NO_UNIT: return "needs a unit (ms, s, m or h)";
	default: return "is not a number";
	}
}

/* Record that a scalar directive was set; 0 the first time, -1 after. */
static int once(struct ctx *c, const struct pos *pos, const struct tok *t,
		enum plan_at s)
{
	struct pos *first = &c->p->at[s];

	if (first->line) {
		perr_at(c, pos, t->col, "duplicate '%s' (first given at %s:%u)",
			t->s, first->file, first->line);
		return -1;
	}
	*first = *pos;
	first->col = t->col;
	return 0;
}

/* Validate and normalise an absolute path: no "..", no "." or "//". */
static const char *path_arg(struct ctx *c, const struct pos *pos,
			    const struct tok *t, const char *what)
{
	char *out, *o;
	const char *s = t->s;

	if (!t->len) {
		perr_at(c, pos, t->col, "%s path is empty", what);
		return NULL;
	}
	if (t->len > PLAN_MAX_PATH) {
		perr_at(c, pos, t->col, "%s path is longer than %d bytes",
			what, PLAN_MAX_PATH);
		return NULL;
	}
	if (s[0] != '/') {
		perr_at(c, pos, t->col, "%s path '%s' must be absolute", what,
			s);
		return NULL;
	}
	out = o = arena_alloc(c->a, t->len + 1);
	if (!out) {
		perr_at(c, pos, t->col, "out of memory");
		return NULL;
	}
	while (*s) {
		const char *e;
		size_t n;

		while (*s == '/')
			s++;
		e = strchrnul(s, '/');
		n = (size_t)(e - s);
		if (n == 2 && s[0] == '.' && s[1] == '.') {
			perr_at(c, pos, t->col,
				"%s path '%s' must not contain '..'", what,
				t->s);
			return NULL;
		}
		if (n && !(n == 1 && s[0] == '.')) {
			*o++ = '/';
			memcpy(o, s, n);
			o += n;
		}
		s = e;
	}
	if (o == out)
		*o++ = '/';
	*o = '\0';
	return out;
}

/* Does s hold sub (a few bytes)? Not strstr: musl's brings 1.3 KiB of
 * two-way code into every program, and for a needle over 4 bytes keeps
 * 2 KiB of tables on the stack (a page fault of stack per run). */
static int contains(const char *s, const char *sub)
{
	size_t n = strlen(sub);

	for (; *s; s++)
		if (!strncmp(s, sub, n))
			return 1;
	return 0;
}

/* Is " key " (k bytes of key) in allowed, " word word ... "? A quoted
 * key holding a space ("size mode=1") would match two words: refused. */
static int opt_allowed(const char *allowed, const char *key, size_t k)
{
	if (!k || memchr(key, ' ', k))
		return 0;
	for (const char *a = allowed; (a = strchr(a, ' ')) && a[1]; a++)
		if (!strncmp(a + 1, key, k) && a[1 + k] == ' ')
			return 1;
	return 0;
}

/* key=value options after the positional words of fs directives. */
struct opts {
	const char *size, *mode, *inodes, *shm, *ptys;
	unsigned size_col, mode_col, inodes_col, shm_col, ptys_col;
};

static int parse_opts(struct ctx *c, const struct pos *pos, struct tok *t,
		      int n, const char *allowed, struct opts *o)
{
	memset(o, 0, sizeof(*o));
	for (int i = 0; i < n; i++) {
		const char *eq = strchr(t[i].s, '=');
		size_t kl = eq ? (size_t)(eq - t[i].s) : 0;
		const char **slot = NULL;
		unsigned *col = NULL;

		if (eq && opt_allowed(allowed, t[i].s, kl)) {
			if (!strncmp(t[i].s, "size=", 5)) {
				slot = &o->size; col = &o->size_col;
			} else if (!strncmp(t[i].s, "mode=", 5)) {
				slot = &o->mode; col = &o->mode_col;
			} else if (!strncmp(t[i].s, "inodes=", 7)) {
				slot = &o->inodes; col = &o->inodes_col;
			} else if (!strncmp(t[i].s, "shm-size=", 9)) {
				slot = &o->shm; col = &o->shm_col;
			} else if (!strncmp(t[i].s, "ptys=", 5)) {
				slot = &o->ptys; col = &o->ptys_col;
			}
		}
		if (!slot) {
			perr_at(c, pos, t[i].col,
				"unknown option '%s' (this directive takes:%s)",
				t[i].s, allowed);
			return -1;
		}
		if (*slot) {
			perr_at(c, pos, t[i].col, "option '%.*s' given twice",
				(int)kl, t[i].s);
			return -1;
		}
		*slot = eq + 1;
		*col = t[i].col;
	}
	return 0;
}

/* The unit a size (K, M, G, T or none) or a duration (ms, s, m, h; none:
 * the kernel's unit) was written in, for `policy show`. */
static unsigned char size_unit(const char *s)
{
	switch (*s ? s[strlen(s) - 1] : 0) {
	case 'K': case 'k': return UW_K;
	case 'M': case 'm': return UW_M;
	case 'G': case 'g': return UW_G;
	case 'T': case 't': return UW_T;
	default: return UW_1;
	}
}

static unsigned char dur_unit(const char *s)
{
	size_t n = strlen(s);

	if (n >= 2 && !strcmp(s + n - 2, "ms"))
		return UW_MS;
	switch (n ? s[n - 1] : 0) {
	case 's': return UW_S;
	case 'm': return UW_MIN;
	case 'h': return UW_H;
	default: return UW_1;
	}
}

static int size_opt(struct ctx *c, const struct pos *pos, const char *v,
		    unsigned col, const char *what, uint64_t *out,
		    unsigned char *unit)
{
	int r;

	if (!v)
		return 0;
	*unit = size_unit(v);
	r = num_size(v, out);
	if (r) {
		perr_at(c, pos, col, "%s '%s' %s%s", what, v, num_why(r),
			r == NUM_BAD_SUFFIX ? " (use K, M or G)" : "");
		return -1;
	}
	if (!*out) {
		perr_at(c, pos, col, "%s must not be 0", what);
		return -1;
	}
	return 0;
}

static int mode_opt(struct ctx *c, const struct pos *pos, const char *v,
		    unsigned col, int *out)
{
	*out = -1;
	if (!v)
		return 0;
	if (num_mode(v, out)) {
		perr_at(c, pos, col,
			"mode '%s' is not an octal mode up to 07777", v);
		return -1;
	}
	return 0;
}

static struct fs_op *fs_new(struct ctx *c, const struct pos *pos,
			    const struct tok *t, enum fs_kind k)
{
	struct fs_op *op;

	if (c->p->nfs >= PLAN_MAX_FS) {
		perr_at(c, pos, t->col,
			"too many filesystem directives (max %d)", PLAN_MAX_FS);
		return NULL;
	}
	c->p->fs = plan_grow(c, c->p->fs, c->p->nfs, &c->p->cap_fs,
			     sizeof(*op));
	if (!c->p->fs) {
		perr_at(c, pos, t->col, "out of memory");
		return NULL;
	}
	op = &c->p->fs[c->p->nfs++];
	memset(op, 0, sizeof(*op));
	op->kind = k;
	op->mode = -1;
	op->pos = *pos;
	op->pos.col = t->col;
	return op;
}

static void d_bind(struct ctx *c, const struct pos *pos, struct tok *t, int n)
{
	const char *kw = t[0].s;
	size_t kl = strlen(kw);
	int try_ = kl > 4 && !strcmp(kw + kl - 4, "-try");
	enum fs_kind k = !strncmp(kw, "ro-", 3)	   ? FS_RO_BIND
			 : !strncmp(kw, "dev-", 4) ? FS_DEV_BIND
						   : FS_BIND;
	const char *src = path_arg(c, pos, &t[1], "source");
	const char *dst = path_arg(c, pos, &t[2], "destination");
	struct fs_op *op;

	(void)n;
	if (!src || !dst || !(op = fs_new(c, pos, &t[0], k)))
		return;
	op->try_ = try_;
	op->src = src;
	op->dst = dst;
}

static void d_tmpfs(struct ctx *c, const struct pos *pos, struct tok *t,
		    int n)
{
	const char *dst = path_arg(c, pos, &t[1], "destination");
	struct fs_op *op;
	struct opts o;
	uint64_t size = 0, inodes = 0;
	unsigned char su = UW_NONE, iu = UW_NONE;
	int mode;

	if (!dst || parse_opts(c, pos, t + 2, n - 2, " size mode inodes ", &o))
		return;
	if (size_opt(c, pos, o.size, o.size_col, "tmpfs size", &size, &su) ||
	    size_opt(c, pos, o.inodes, o.inodes_col, "tmpfs inodes",
		     &inodes, &iu) ||
	    mode_opt(c, pos, o.mode, o.mode_col, &mode))
		return;
	if (!(op = fs_new(c, pos, &t[0], FS_TMPFS)))
		return;
	op->dst = dst;
	op->size = size;
	op->inodes = inodes;
	op->size_unit = su;
	op->inodes_unit = iu;
	op->mode = mode;
}

static void d_dev(struct ctx *c, const struct pos *pos, struct tok *t, int n)
{
	const char *dst = path_arg(c, pos, &t[1], "destination");
	struct fs_op *op;
	struct opts o;
	uint64_t size = 0, ptys = 0;
	unsigned char su = UW_NONE, pu = UW_NONE;

	if (!dst || parse_opts(c, pos, t + 2, n - 2, " shm-size ptys ", &o) ||
	    size_opt(c, pos, o.shm, o.shm_col, "shm-size", &size, &su) ||
	    size_opt(c, pos, o.ptys, o.ptys_col, "ptys", &ptys, &pu))
		return;
	if (!(op = fs_new(c, pos, &t[0], FS_DEV)))
		return;
	op->dst = dst;
	op->size = size;
	op->inodes = ptys;
	op->size_unit = su;
	op->inodes_unit = pu;
}

static void d_dir(struct ctx *c, const struct pos *pos, struct tok *t, int n)
{
	const char *dst = path_arg(c, pos, &t[1], "destination");
	struct fs_op *op;
	struct opts o;
	int mode;

	if (!dst || parse_opts(c, pos, t + 2, n - 2, " mode ", &o) ||
	    mode_opt(c, pos, o.mode, o.mode_col, &mode))
		return;
	if (!(op = fs_new(c, pos, &t[0], FS_DIR)))
		return;
	op->dst = dst;
	op->mode = mode;
}

static void d_file(struct ctx *c, const struct pos *pos, struct tok *t,
		   int n)
{
	const char *dst = path_arg(c, pos, &t[1], "destination");
	struct fs_op *op;
	struct opts o;
	int mode;

	if (!dst || parse_opts(c, pos, t + 3, n - 3, " mode ", &o) ||
	    mode_opt(c, pos, o.mode, o.mode_col, &mode))
		return;
	if (!(op = fs_new(c, pos, &t[0], FS_FILE)))
		return;
	op->dst = dst;
	op->src = t[2].s;
	op->mode = mode;
}

static void d_symlink(struct ctx *c, const struct pos *pos, struct tok *t,
		      int n)
{
	const char *dst = path_arg(c, pos, &t[2], "destination");
	struct fs_op *op;

	(void)n;
	if (!t[1].len || t[1].len > PLAN_MAX_PATH) {
		perr_at(c, pos, t[1].col, "symlink target must be 1 to %d "
			"bytes", PLAN_MAX_PATH);
		return;
	}
	if (!dst || !(op = fs_new(c, pos, &t[0], FS_SYMLINK)))
		return;
	op->src = t[1].s;	/* resolved inside the sandbox, may be relative */
	op->dst = dst;
}

/* proc, remount-ro, mask: one destination. */
static void d_onepath(struct ctx *c, const struct pos *pos, struct tok *t,
		      int n)
{
	const char *dst = path_arg(c, pos, &t[1], "destination");
	enum fs_kind k = !strcmp(t[0].s, "proc")	 ? FS_PROC
			 : !strcmp(t[0].s, "remount-ro") ? FS_REMOUNT_RO
							 : FS_MASK;
	struct fs_op *op;

	(void)n;
	if (dst && (op = fs_new(c, pos, &t[0], k)))
		op->dst = dst;
}

/* Is path equal to dir or below it? */
static int beneath(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	if (!strcmp(dir, "/"))
		return 1;
	return !strncmp(path, dir, n) && (path[n] == '/' || !path[n]);
}

/* read-roots LIST: host directories, ':'-separated, each bound read-only
 * at its own path (the paths an agent's user already granted to its other
 * tools). A root that overlaps a path the policy has already mounted is
 * refused: it would shadow or be shadowed by a sandbox mount. A root
 * inside a directory bound at another path (the project) is redundant
 * and skipped with a warning. A root that does not exist grants nothing
 * (ro-bind-try). A path holding ':' cannot be a read root. */
static void d_readroots(struct ctx *c, const struct pos *pos, struct tok *t,
			int n)
{
	const char *s = t[1].s;

	(void)n;
	while (*s) {
		const char *e = strchrnul(s, ':');
		struct tok one = { NULL, (unsigned)(e - s), t[1].col };
		const char *root, *clash = NULL;
		const struct fs_op *at = NULL;
		struct fs_op *op;
		int redundant = 0;

		if (e == s) {
			s = *e ? e + 1 : e;
			continue;
		}
		one.s = arena_strndup(c->a, s, one.len);
		s = *e ? e + 1 : e;
		if (!one.s || !(root = path_arg(c, pos, &one, "read root")))
			continue;
		/* Inside a directory bound elsewhere (the project at
		 * /workspace) first: such a root is already readable there,
		 * wherever its host path lies. A bind at its own path (/usr)
		 * is a reserved path like any other. */
		for (size_t i = 0; i < c->p->nfs; i++) {
			const struct fs_op *f = &c->p->fs[i];

			if ((f->kind == FS_BIND || f->kind == FS_RO_BIND ||
			     f->kind == FS_DEV_BIND) && strcmp(f->src, f->dst) &&
			    beneath(root, f->src))
				redundant = 1;
		}
		for (size_t i = 0; i < c->p->nfs && !clash && !redundant; i++) {
			const struct fs_op *f = &c->p->fs[i];

			if (beneath(root, f->dst) || beneath(f->dst, root)) {
				clash = f->dst;
				at = f;
			}
		}
		if (clash) {
			perr_at(c, pos, t[1].col,
				"read root '%s' collides with the sandbox path "
				"'%s' ('%s' at %s:%u); a reserved path cannot be "
				"a read root", root, clash, fs_kind_name(at->kind),
				at->pos.file, at->pos.line);
			continue;
		}
		if (redundant) {
			pwarn_at(c, pos, t[1].col,
				 "read root '%s' lies inside a directory the "
				 "sandbox already mounts; skipped", root);
			continue;
		}
		if (!(op = fs_new(c, pos, &t[0], FS_RO_BIND)))
			return;
		op->src = op->dst = root;
		op->try_ = true;
	}
}

/* protect DIR [depth=N] PATTERN...: patterns are fnmatch(3) globs, matched
 * against the basename, or against the path below DIR when they hold a
 * '/'; a leading '!' excludes. Kept in src, one per line. */
static void d_protect(struct ctx *c, const struct pos *pos, struct tok *t,
		      int n)
{
	const char *dir = path_arg(c, pos, &t[1], "protect");
	uint64_t depth = 4;
	struct fs_op *op;
	size_t len = 0;
	char *pats;
	int first = 2;

	if (!dir)
		return;
	if (!strncmp(t[2].s, "depth=", 6)) {
		if (num_u64_max(t[2].s + 6, 16, &depth) || !depth) {
			perr_at(c, pos, t[2].col,
				"protect depth '%s' is not a number from 1 to "
				"16", t[2].s + 6);
			return;
		}
		first = 3;
	}
	if (first >= n) {
		perr_at(c, pos, t[0].col, "'protect' needs at least one pattern");
		return;
	}
	for (int i = first; i < n; i++) {
		if (!t[i].len || strchr(t[i].s, '\n') || contains(t[i].s, "..")) {
			perr_at(c, pos, t[i].col,
				"protect pattern '%s' must be non-empty, on one "
				"line and without '..'", t[i].s);
			return;
		}
		len += t[i].len + 1;
	}
	pats = arena_alloc(c->a, len + 1);
	if (!pats || !(op = fs_new(c, pos, &t[0], FS_PROTECT)))
		return;
	for (int i = first; i < n; i++) {
		strcat(pats, t[i].s);
		if (i + 1 < n)
			strcat(pats, "\n");
	}
	op->dst = dir;
	op->src = pats;
	op->inodes = depth;
}

size_t policy_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), row[32], i, j;

	if (la >= 31 || lb >= 31)
		return 99;
	for (j = 0; j <= lb; j++)
		row[j] = j;
	for (i = 1; i <= la; i++) {
		size_t diag = row[0];

		row[0] = i;
		for (j = 1; j <= lb; j++) {
			size_t up = row[j], best = diag + (a[i - 1] != b[j - 1]);

			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			diag = up;
			row[j] = best;
		}
	}
	return row[lb];
}

/* The name of a table a mistyped word is nearest to (at most two edits,
 * fewer than its length), or NULL. at(i) gives the i-th name, NULL past
 * the end. */
static const char *nearest(const char *word, const char *(*at)(size_t))
{
	const char *best = NULL, *name;
	size_t bestd = 3;

	for (size_t i = 0; (name = at(i)); i++) {
		size_t d = policy_distance(word, name);

		if (d < bestd) {
			bestd = d;
			best = name;
		}
	}
	return best && bestd < strlen(word) ? best : NULL;
}

/* " (did you mean 'X'?)" for nearest()'s answer, or "". */
static const char *did_you_mean(char *buf, size_t len, const char *word,
				const char *(*at)(size_t), const char *prefix)
{
	const char *n = nearest(word, at);

	if (!n)
		return "";
	snprintf(buf, len, " (did you mean '%s%s'?)", prefix, n);
	return buf;
}

static const struct {
	const char *name;
	unsigned bit;
} nsnames[] = {
	{ "user", NS_USER }, { "mount", NS_MOUNT }, { "pid", NS_PID },
	{ "ipc", NS_IPC },   { "uts", NS_UTS },	    { "net", NS_NET },
	{ "cgroup", NS_CGROUP },
};

static unsigned ns_bit(const char *name)
{
	for (size_t i = 0; i < sizeof(nsnames) / sizeof(nsnames[0]); i++)
		if (!strcmp(nsnames[i].name, name))
			return nsnames[i].bit;
	return 0;
}

static const char *ns_at(size_t i)
{
	if (i < sizeof(nsnames) / sizeof(nsnames[0]))
		return nsnames[i].name;
	return i == sizeof(nsnames) / sizeof(nsnames[0]) ? "all" : NULL;
}

const char *ns_name(unsigned bit)
{
	for (size_t i = 0; i < sizeof(nsnames) / sizeof(nsnames[0]); i++)
		if (nsnames[i].bit == bit)
			return nsnames[i].name;
	return NULL;
}

static void first_use(struct ctx *c, const struct pos *pos,
		      const struct tok *t, enum plan_at s)
{
	if (!c->p->at[s].line) {
		c->p->at[s] = *pos;
		c->p->at[s].col = t->col;
	}
}

static void d_unshare(struct ctx *c, const struct pos *pos, struct tok *t,
		      int n)
{
	first_use(c, pos, &t[0], PAT_UNSHARE);
	for (int i = 1; i < n; i++) {
		size_t j;

		if (!strcmp(t[i].s, "all")) {
			c->p->ns |= NS_USER | NS_MOUNT | NS_PID | NS_IPC |
				    NS_UTS | NS_NET | NS_CGROUP;
			continue;
		}
		for (j = 0; j < sizeof(nsnames) / sizeof(nsnames[0]); j++)
			if (!strcmp(nsnames[j].name, t[i].s))
				break;
		if (j == sizeof(nsnames) / sizeof(nsnames[0])) {
			char dym[80];
			const char *m = did_you_mean(dym, sizeof(dym), t[i].s,
						     ns_at, "");

			perr_at(c, pos, t[i].col,
				"unknown namespace '%s'%s (use user, mount, "
				"pid, ipc, uts, net, cgroup or all)", t[i].s,
				m);
			continue;
		}
		c->p->ns |= nsnames[j].bit;
	}
}

static void d_id(struct ctx *c, const struct pos *pos, struct tok *t, int n)
{
	int is_uid = !strcmp(t[0].s, "uid");
	long v;

	(void)n;
	if (once(c, pos, &t[0], is_uid ? PAT_UID : PAT_GID))
		return;
	if (num_int(t[1].s, 0, 4294967294L, &v)) {
		perr_at(c, pos, t[1].col,
			"%s '%s' is not a number from 0 to 4294967294",
			t[0].s, t[1].s);
		return;
	}
	if (is_uid)
		c->p->uid = v;
	else
		c->p->gid = v;
}

static void d_hostname(struct ctx *c, const struct pos *pos, struct tok *t,
		       int n)
{
	(void)n;
	if (once(c, pos, &t[0], PAT_HOSTNAME))
		return;
	if (!t[1].len || t[1].len > 64 ||
	    strspn(t[1].s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVW"
			   "XYZ0123456789-.") != t[1].len) {
		perr_at(c, pos, t[1].col,
			"hostname '%s' must be 1 to 64 letters, digits, '-' "
			"or '.'", t[1].s);
		return;
	}
	c->p->hostname = t[1].s;
}

/* A yes/no style word: returns 1 for yes, 0 for no, -1 after an error. */
static int choice(struct ctx *c, const struct pos *pos, const struct tok *t,
		  const char *yes, const char *no)
{
	if (!strcmp(t->s, yes))
		return 1;
	if (!strcmp(t->s, no))
		return 0;
	perr_at(c, pos, t->col, "expected '%s' or '%s', not '%s'", yes, no,
		t->s);
	return -1;
}

static void d_nested(struct ctx *c, const struct pos *pos, struct tok *t,
		     int n)
{
	int v;

	(void)n;
	if (!once(c, pos, &t[0], PAT_NESTED) &&
	    (v = choice(c, pos, &t[1], "allow", "deny")) >= 0)
		c->p->nested_userns = v;
}

static void d_session(struct ctx *c, const struct pos *pos, struct tok *t,
		      int n)
{
	int v;

	(void)n;
	if (!once(c, pos, &t[0], PAT_SESSION) &&
	    (v = choice(c, pos, &t[1], "yes", "no")) >= 0)
		c->p->new_session = v;
}

static void d_stdin(struct ctx *c, const struct pos *pos, struct tok *t,
		    int n)
{
	int v;

	(void)n;
	if (!once(c, pos, &t[0], PAT_STDIN) &&
	    (v = choice(c, pos, &t[1], "null", "inherit")) >= 0)
		c->p->stdin_null = v;
}

static void d_diesig(struct ctx *c, const struct pos *pos, struct tok *t,
		     int n)
{
	int sig;

	(void)n;
	if (once(c, pos, &t[0], PAT_DIESIG))
		return;
	if (!strcmp(t[1].s, "none")) {
		c->p->die_signal = 0;
		return;
	}
	sig = signal_by_name(t[1].s);
	if (sig < 0)
		perr_at(c, pos, t[1].col,
			"unknown signal '%s' (use a name such as SIGKILL, or "
			"none)", t[1].s);
	else
		c->p->die_signal = sig;
}

static void d_chdir(struct ctx *c, const struct pos *pos, struct tok *t,
		    int n)
{
	const char *dir;

	(void)n;
	if (!once(c, pos, &t[0], PAT_CHDIR) &&
	    (dir = path_arg(c, pos, &t[1], "chdir")))
		c->p->chdir = dir;
}

static void d_umask(struct ctx *c, const struct pos *pos, struct tok *t,
		    int n)
{
	int m;

	(void)n;
	if (once(c, pos, &t[0], PAT_UMASK))
		return;
	if (num_mode(t[1].s, &m) || m > 0777)
		perr_at(c, pos, t[1].col, "umask '%s' is not an octal mode up "
			"to 0777", t[1].s);
	else
		c->p->umask = m;
}

static void d_keepfd(struct ctx *c, const struct pos *pos, struct tok *t,
		     int n)
{
	first_use(c, pos, &t[0], PAT_KEEPFD);
	for (int i = 1; i < n; i++) {
		long fd;

		/* An empty word keeps nothing: `keep-fd ${SESSION_FD:-}`
		 * keeps an fd only for the caller that names it. */
		if (!t[i].s[0])
			continue;
		if (num_int(t[i].s, 3, 1023, &fd)) {
			perr_at(c, pos, t[i].col,
				"keep-fd '%s' is not a number from 3 to 1023 "
				"(0, 1 and 2 are always kept)", t[i].s);
			continue;
		}
		for (size_t j = 0; j < c->p->nkeep_fds; j++)
			if (c->p->keep_fds[j] == fd) {
				perr_at(c, pos, t[i].col,
					"keep-fd %ld given twice", fd);
				fd = -1;
			}
		if (fd < 0)
			continue;
		if (c->p->nkeep_fds >= PLAN_MAX_FDS) {
			perr_at(c, pos, t[i].col, "too many keep-fd (max %d)",
				PLAN_MAX_FDS);
			return;
		}
		c->p->keep_fds[c->p->nkeep_fds++] = (int)fd;
	}
}

static void env_add(struct ctx *c, const struct pos *pos, const struct tok *t,
		    const char *name, size_t nl, const char *value)
{
	struct env_op *e;

	if (!ident_ok(name, nl)) {
		perr_at(c, pos, t->col,
			"environment name '%.*s' must be letters, digits and "
			"'_', not starting with a digit", (int)nl, name);
		return;
	}
	for (size_t i = 0; i < c->p->nenv; i++)
		if (strlen(c->p->env[i].name) == nl &&
		    !memcmp(c->p->env[i].name, name, nl)) {
			perr_at(c, pos, t->col,
				"environment variable '%.*s' is already set at "
				"%s:%u", (int)nl, name, c->p->env[i].pos.file,
				c->p->env[i].pos.line);
			return;
		}
	if (c->p->nenv >= PLAN_MAX_ENV) {
		perr_at(c, pos, t->col, "too many environment entries (max %d)",
			PLAN_MAX_ENV);
		return;
	}
	c->p->env = plan_grow(c, c->p->env, c->p->nenv, &c->p->cap_env,
			      sizeof(*e));
	if (!c->p->env) {
		perr_at(c, pos, t->col, "out of memory");
		return;
	}
	e = &c->p->env[c->p->nenv++];
	e->name = arena_strndup(c->a, name, nl);
	e->value = value;
	e->pos = *pos;
	e->pos.col = t->col;
}

static void d_env(struct ctx *c, const struct pos *pos, struct tok *t, int n)
{
	for (int i = 1; i < n; i++) {
		const char *eq = strchr(t[i].s, '=');

		if (!eq) {
			perr_at(c, pos, t[i].col,
				"env entry '%s' has no '=' (use NAME=VALUE, or "
				"env-pass NAME to pass the caller's value)",
				t[i].s);
			continue;
		}
		env_add(c, pos, &t[i], t[i].s, (size_t)(eq - t[i].s), eq + 1);
	}
}

static void d_envpass(struct ctx *c, const struct pos *pos, struct tok *t,
		      int n)
{
	for (int i = 1; i < n; i++)
		env_add(c, pos, &t[i], t[i].s, t[i].len, NULL);
}

/* The rlimits by name; unit says how a value is read. */
enum unit { U_COUNT, U_BYTES, U_SECONDS, U_MICROS };
static const struct {
	const char *name;
	int resource;
	enum unit unit;
} rlimits[] = {
	{ "as", RLIMIT_AS, U_BYTES },		{ "core", RLIMIT_CORE, U_BYTES },
	{ "cpu", RLIMIT_CPU, U_SECONDS },	{ "data", RLIMIT_DATA, U_BYTES },
	{ "fsize", RLIMIT_FSIZE, U_BYTES },	{ "locks", RLIMIT_LOCKS, U_COUNT },
	{ "memlock", RLIMIT_MEMLOCK, U_BYTES },
	{ "msgqueue", RLIMIT_MSGQUEUE, U_BYTES },
	{ "nice", RLIMIT_NICE, U_COUNT },	{ "nofile", RLIMIT_NOFILE, U_COUNT },
	{ "nproc", RLIMIT_NPROC, U_COUNT },	{ "rss", RLIMIT_RSS, U_BYTES },
	{ "rtprio", RLIMIT_RTPRIO, U_COUNT },
	{ "rttime", RLIMIT_RTTIME, U_MICROS },
	{ "sigpending", RLIMIT_SIGPENDING, U_COUNT },
	{ "stack", RLIMIT_STACK, U_BYTES },
};
#define NRLIMITS (sizeof(rlimits) / sizeof(rlimits[0]))
_Static_assert(NRLIMITS <= PLAN_MAX_RL, "plan.rl holds one of each");

static const char *rl_at(size_t i)
{
	return i < NRLIMITS ? rlimits[i].name : NULL;
}

const char *rlimit_name(int resource)
{
	for (size_t i = 0; i < NRLIMITS; i++)
		if (rlimits[i].resource == resource)
			return rlimits[i].name;
	return NULL;
}

int rlimit_by_name(const char *name)
{
	for (size_t i = 0; i < NRLIMITS; i++)
		if (!strcmp(rlimits[i].name, name))
			return rlimits[i].resource;
	return -1;
}

static int rl_value(struct ctx *c, const struct pos *pos, const struct tok *t,
		    enum unit u, uint64_t *out, unsigned char *unit)
{
	uint64_t ms;
	int r;

	*unit = u == U_BYTES ? size_unit(t->s) :
		u == U_COUNT ? UW_1 : dur_unit(t->s);
	if (!strcmp(t->s, "unlimited")) {
		*unit = UW_NONE;
		*out = RLIM_INFINITY;
		return 0;
	}
	switch (u) {
	case U_BYTES:
		r = num_size(t->s, out);
		break;
	case U_COUNT:
		r = num_u64(t->s, out);
		break;
	default:
		/* A plain number is in the kernel's unit (seconds for cpu,
		 * microseconds for rttime); a duration is converted. */
		r = num_u64(t->s, out);
		if (r == NUM_NOT_NUMBER && !num_duration_ms(t->s, &ms)) {
			r = NUM_OK;
			if (u == U_SECONDS && ms % 1000) {
				perr_at(c, pos, t->col,
					"cpu limit '%s' must be whole seconds",
					t->s);
				return -1;
			}
			if (u == U_SECONDS)
				*out = ms / 1000;
			else if (ms > UINT64_MAX / 1000)
				r = NUM_OVERFLOW;
			else
				*out = ms * 1000;
		}
	}
	if (r == NUM_OK && *out == RLIM_INFINITY)
		r = NUM_OVERFLOW;
	if (r) {
		perr_at(c, pos, t->col, "limit value '%s' %s%s", t->s,
			num_why(r),
			r == NUM_BAD_SUFFIX ? " (use K, M or G)" : "");
		return -1;
	}
	return 0;
}

/* The chain's own steps after pysbx-exec (pysbx-seccomp, which compiles
 * and loads the filter) run under the limits before the target does: a
 * limit below what they need could never run anything. Measured on
 * x86_64: 512K of address space and 16K of stack suffice; the floors
 * leave a margin. A target that needs more fails in its own way. */
static int rl_floor(struct ctx *c, const struct pos *pos,
		    const struct tok *t, const struct rlimit_op *rl)
{
	uint64_t floor, v;
	const char *fs;

	switch (rl->resource) {
	case RLIMIT_AS:
	case RLIMIT_DATA:
		floor = (uint64_t)1 << 20;
		fs = "1M";
		break;
	case RLIMIT_STACK:
		floor = (uint64_t)32 << 10;
		fs = "32K";
		break;
	default:
		return 0;
	}
	if ((rl->flags & RL_SOFT_HARD) && (rl->flags & RL_KEEP_HARD))
		return 0;
	v = rl->flags & RL_SOFT_HARD ? rl->hard : rl->soft;
	if (v >= floor)
		return 0;
	perr_at(c, pos, t[2].col,
		"limit %s %s is below %s, what pysbx's own last step needs to "
		"start the target under it", t[1].s,
		rl->flags & RL_SOFT_HARD ? t[3].s : t[2].s, fs);
	return -1;
}

static void d_limit(struct ctx *c, const struct pos *pos, struct tok *t,
		    int n)
{
	struct rlimit_op *rl;
	size_t i;

	for (i = 0; i < NRLIMITS; i++)
		if (!strcmp(rlimits[i].name, t[1].s))
			break;
	if (i == NRLIMITS) {
		char dym[80];
		const char *m = did_you_mean(dym, sizeof(dym), t[1].s, rl_at,
					     "");

		perr_at(c, pos, t[1].col,
			"unknown limit '%s'%s (use as, core, cpu, data, fsize, "
			"locks, memlock, msgqueue, nice, nofile, nproc, rss, "
			"rtprio, rttime, sigpending or stack)", t[1].s, m);
		return;
	}
	if (c->have_rl[rlimits[i].resource]) {
		perr_at(c, pos, t[1].col, "duplicate limit '%s'", t[1].s);
		return;
	}
	rl = &c->p->rl[c->p->nrl];
	memset(rl, 0, sizeof(*rl));
	rl->resource = rlimits[i].resource;
	rl->pos = *pos;
	rl->pos.col = t[0].col;
	if (!strcmp(t[2].s, "hard")) {
		rl->flags |= RL_SOFT_HARD;
	} else if (rl_value(c, pos, &t[2], rlimits[i].unit, &rl->soft,
			    &rl->soft_unit)) {
		return;
	}
	if (n < 4) {
		if (rl->flags & RL_SOFT_HARD) {
			perr_at(c, pos, t[2].col,
				"soft limit 'hard' needs a hard value too "
				"(e.g. 'limit %s hard keep')", t[1].s);
			return;
		}
		rl->hard = rl->soft;
		rl->hard_unit = rl->soft_unit;
	} else if (!strcmp(t[3].s, "keep")) {
		rl->flags |= RL_KEEP_HARD;
	} else if (rl_value(c, pos, &t[3], rlimits[i].unit, &rl->hard,
			    &rl->hard_unit)) {
		return;
	} else if (!(rl->flags & RL_SOFT_HARD) && rl->soft > rl->hard) {
		perr_at(c, pos, t[2].col,
			"soft limit %s is above the hard limit %s", t[2].s,
			t[3].s);
		return;
	}
	if (rl_floor(c, pos, t, rl))
		return;
	c->have_rl[rl->resource] = 1;
	c->p->nrl++;
}

static const char *action_at(size_t i)
{
	static const char *const a[] = { "allow", "deny", "kill", "log",
					 "trap", "default", "audit" };

	return i < sizeof(a) / sizeof(a[0]) ? a[i] : NULL;
}

static int sc_action(struct ctx *c, const struct pos *pos, const struct tok *t,
		     enum sc_action *act, int *err)
{
	*err = 0;
	if (!strcmp(t->s, "allow")) {
		*act = SC_ALLOW;
	} else if (!strcmp(t->s, "deny")) {
		*act = SC_ERRNO;
		*err = 1; /* EPERM */
	} else if (!strncmp(t->s, "errno=", 6)) {
		*act = SC_ERRNO;
		*err = errno_by_name(t->s + 6);
		if (*err < 0) {
			perr_at(c, pos, t->col,
				"unknown errno '%s' (use a name such as EPERM "
				"or a number from 1 to 4095)", t->s + 6);
			return -1;
		}
	} else if (!strcmp(t->s, "kill")) {
		*act = SC_KILL;
	} else if (!strcmp(t->s, "log")) {
		*act = SC_LOG;
	} else if (!strcmp(t->s, "trap")) {
		*act = SC_TRAP;
	} else {
		char dym[80];
		const char *m = did_you_mean(dym, sizeof(dym), t->s,
					     action_at, "");

		perr_at(c, pos, t->col,
			"unknown seccomp action '%s'%s (use allow, deny, "
			"errno=NAME, kill, log or trap; or default, audit)",
			t->s, m);
		return -1;
	}
	return 0;
}

static int sc_value(const char *s, uint64_t *v)
{
	return sc_const(s, v) == 0 || num_u64(s, v) == NUM_OK ? 0 : -1;
}

/* "argN[&MASK]OP VALUE" in one word. */
static int sc_cond(struct ctx *c, const struct pos *pos, const struct tok *t,
		   struct sc_cond *out)
{
	static const struct {
		const char *s;
		enum sc_op op;
	} ops[] = { { "==", SC_EQ }, { "!=", SC_NE }, { "<=", SC_LE },
		    { ">=", SC_GE }, { "<", SC_LT },  { ">", SC_GT } };
	const char *s = t->s, *opp = NULL;
	char lhs[64], rhs[64];
	size_t k = 0, ol = 0;

	memset(out, 0, sizeof(*out));
	if (strncmp(s, "arg", 3) || s[3] < '0' || s[3] > '5')
		goto bad;
	out->arg = (unsigned)(s[3] - '0');
	for (const char *p = s + 4; *p && !opp; p++)
		for (k = 0; k < sizeof(ops) / sizeof(ops[0]); k++)
			if (!strncmp(p, ops[k].s, strlen(ops[k].s))) {
				opp = p;
				ol = strlen(ops[k].s);
				break;
			}
	if (!opp || (size_t)(opp - s) >= sizeof(lhs) ||
	    strlen(opp + ol) >= sizeof(rhs))
		goto bad;
	out->op = ops[k].op;
	memcpy(lhs, s + 4, (size_t)(opp - s - 4));
	lhs[opp - s - 4] = '\0';
	strcpy(rhs, opp + ol);
	if (lhs[0] == '&') {
		if (out->op != SC_EQ || sc_value(lhs + 1, &out->mask))
			goto bad;
		out->op = SC_MASKED_EQ;
	} else if (lhs[0]) {
		goto bad;
	}
	if (sc_value(rhs, &out->value))
		goto bad;
	return 0;
bad:
	perr_at(c, pos, t->col,
		"malformed condition '%s' (use argN==V, !=, <, <=, >, >= or "
		"argN&MASK==V, N from 0 to 5, V a number or a known constant)",
		t->s);
	return -1;
}

static const char *syscall_at(size_t i)
{
	int nr;

	return sc_syscall_at(0, i, &nr);
}

static const char *preset_at(size_t i)
{
	return sc_presets[i].name;
}

int sc_item(struct ctx *c, const struct pos *pos, unsigned col,
	    const char *name, struct tok *cond, int ncond, enum sc_action act,
	    int err)
{
	struct sc_cond *cd = NULL;
	struct sc_rule *r;
	uint64_t bit;
	bool known;
	int nr;

	if (sc_syscall_resolve(name, &nr)) {
		char dym[80];

		perr_at(c, pos, col, "unknown syscall '%s'%s", name,
			did_you_mean(dym, sizeof(dym), name, syscall_at, ""));
		return -1;
	}
	if (ncond > SC_MAX_COND) {
		perr_at(c, pos, col, "more than %d conditions on '%s'",
			SC_MAX_COND, name);
		return -1;
	}
	if (c->p->nsc >= PLAN_MAX_SC) {
		perr_at(c, pos, col, "too many seccomp rules (max %d)",
			PLAN_MAX_SC);
		return -1;
	}
	c->p->sc = plan_grow(c, c->p->sc, c->p->nsc, &c->p->cap_sc,
			     sizeof(*r));
	if (ncond)
		cd = arena_alloc(c->a, (size_t)ncond * sizeof(*cd));
	if (!c->p->sc || (ncond && !cd)) {
		perr_at(c, pos, col, "out of memory");
		return -1;
	}
	r = &c->p->sc[c->p->nsc];
	memset(r, 0, sizeof(*r));
	for (int i = 0; i < ncond; i++)
		if (sc_cond(c, pos, &cond[i], &cd[i]))
			return -1;
	/* Two unconditional rules for one syscall would contradict. The
	 * search (a plan has hundreds of rules, each parse of every step
	 * went through it) only for a syscall that has one already. */
	known = nr >= 0 && nr < 1024;
	bit = known ? (uint64_t)1 << (nr % 64) : 0;
	for (size_t i = 0; !ncond && (!known || (c->uncond[nr / 64] & bit)) &&
			   i < c->p->nsc; i++)
		if (c->p->sc[i].nr == nr && !c->p->sc[i].ncond &&
		    (c->p->sc[i].act != act || c->p->sc[i].err != err)) {
			perr_at(c, pos, col,
				"syscall '%s' already has a different rule at "
				"%s:%u", name, c->p->sc[i].pos.file,
				c->p->sc[i].pos.line);
			return -1;
		}
	if (!ncond && known)
		c->uncond[nr / 64] |= bit;
	r->name = name;	/* a word of the line (arena) or a preset's (static) */
	r->nr = nr;
	r->cond = cd;
	r->act = act;
	r->err = err;
	r->ncond = (unsigned)ncond;
	r->pos = *pos;
	r->pos.col = col;
	c->p->nsc++;
	return 0;
}

/* Expand one preset item "name [COND...]" plus the line's conditions. */
static void sc_preset_item(struct ctx *c, const struct pos *pos, unsigned col,
			   const char *item, struct tok *cond, int ncond,
			   enum sc_action act, int err)
{
	struct tok t[SC_MAX_COND + 2];
	char buf[256], *save = NULL, *w;
	size_t len = strlen(item);
	int n = 0;

	/* A bare name (most items): the preset's own string is the rule's
	 * name, as sc_item keeps it (read-only, static): no copy, no split. */
	if (!memchr(item, ' ', len)) {
		t[n++] = (struct tok){ (char *)item, (unsigned)len, col };
		w = NULL;
	} else if (len >= sizeof(buf)) {
		perr_at(c, pos, col, "preset item too long");
		return;
	} else {
		memcpy(buf, item, len + 1);
		w = strtok_r(buf, " ", &save);
	}
	for (; w && n < SC_MAX_COND + 1; w = strtok_r(NULL, " ", &save)) {
		t[n].s = arena_strdup(c->a, w);
		if (!t[n].s) {
			perr_at(c, pos, col, "out of memory");
			return;
		}
		t[n].len = (unsigned)strlen(w);
		t[n].col = col;
		n++;
	}
	if (n - 1 + ncond > SC_MAX_COND) {
		perr_at(c, pos, col, "more than %d conditions", SC_MAX_COND);
		return;
	}
	for (int i = 0; i < ncond; i++)
		t[n++] = cond[i];
	sc_item(c, pos, col, t[0].s, t + 1, n - 1, act, err);
}

static void d_seccomp(struct ctx *c, const struct pos *pos, struct tok *t,
		      int n)
{
	enum sc_action act;
	int err, nitems, ncond = 0;

	c->p->sc_set = true;
	if (!strcmp(t[1].s, "audit")) {
		if (n != 2)
			perr_at(c, pos, t[2].col, "'seccomp audit' takes no "
				"arguments");
		else if (!once(c, pos, &t[1], PAT_AUDIT))
			c->p->sc_audit = true;
		return;
	}
	if (!strcmp(t[1].s, "default")) {
		if (n != 3) {
			perr_at(c, pos, t[1].col,
				"'seccomp default' takes one action");
			return;
		}
		if (once(c, pos, &t[1], PAT_SCDEFAULT) ||
		    sc_action(c, pos, &t[2], &act, &err))
			return;
		c->p->sc_default = act;
		c->p->sc_default_err = err;
		return;
	}
	if (sc_action(c, pos, &t[1], &act, &err))
		return;
	for (nitems = 2; nitems < n && strcmp(t[nitems].s, "if"); nitems++)
		;
	if (nitems < n) {
		ncond = n - nitems - 1;
		if (!ncond) {
			perr_at(c, pos, t[nitems].col,
				"'if' needs at least one condition");
			return;
		}
	}
	if (nitems == 2) {
		perr_at(c, pos, t[1].col, "'seccomp %s' needs syscall names",
			t[1].s);
		return;
	}
	for (int i = 2; i < nitems; i++) {
		const struct sc_preset *pr;

		if (t[i].s[0] != '@') {
			sc_item(c, pos, t[i].col, t[i].s, t + nitems + 1,
				ncond, act, err);
			continue;
		}
		pr = sc_preset_find(t[i].s + 1);
		if (!pr) {
			char dym[80];

			perr_at(c, pos, t[i].col, "unknown preset '%s'%s (see "
				"docs/POLICY.md for the list)", t[i].s,
				did_you_mean(dym, sizeof(dym), t[i].s + 1,
					     preset_at, "@"));
			continue;
		}
		for (const char *const *it = pr->items; *it; it++)
			sc_preset_item(c, pos, t[i].col, *it, t + nitems + 1,
				       ncond, act, err);
	}
}

/* No timer the guard arms is meant to be longer: past it a value is a
 * typo (2^64 ms) or a unit mixed up, not a wish. */
#define MAX_WAIT_MS ((uint64_t)365 * 24 * 3600 * 1000)

static void d_timeout(struct ctx *c, const struct pos *pos, struct tok *t,
		      int n)
{
	int r;

	if (once(c, pos, &t[0], PAT_TIMEOUT))
		return;
	if (!strcmp(t[1].s, "none")) {
		c->p->timeout_ms = 0;
	} else if ((c->p->timeout_unit = dur_unit(t[1].s)),
		   (r = num_duration_ms(t[1].s, &c->p->timeout_ms)) ||
		   !c->p->timeout_ms) {
		perr_at(c, pos, t[1].col, "timeout '%s' %s", t[1].s,
			r ? num_why(r) : "must not be 0 (use none)");
		return;
	} else if (c->p->timeout_ms > MAX_WAIT_MS) {
		perr_at(c, pos, t[1].col, "timeout '%s' is longer than a year "
			"(8760h): write none for no timeout", t[1].s);
		return;
	}
	if (n == 2)
		return;
	if (n != 4 || strcmp(t[2].s, "kill-after")) {
		perr_at(c, pos, t[2].col,
			"expected 'timeout DURATION [kill-after DURATION]'");
		return;
	}
	c->p->kill_after_unit = dur_unit(t[3].s);
	if ((r = num_duration_ms(t[3].s, &c->p->kill_after_ms)))
		perr_at(c, pos, t[3].col, "kill-after '%s' %s", t[3].s,
			num_why(r));
	else if (c->p->kill_after_ms > MAX_WAIT_MS)
		perr_at(c, pos, t[3].col, "kill-after '%s' is longer than a "
			"year (8760h)", t[3].s);
}

static void d_dwp(struct ctx *c, const struct pos *pos, struct tok *t, int n)
{
	(void)n;
	if (!once(c, pos, &t[0], PAT_DWP))
		c->p->die_with_parent = true;
}

static void d_report(struct ctx *c, const struct pos *pos, struct tok *t,
		     int n)
{
	(void)n;
	if (once(c, pos, &t[0], PAT_REPORT))
		return;
	if (strcmp(t[1].s, "denials")) {
		perr_at(c, pos, t[1].col, "expected 'report denials'");
		return;
	}
	c->p->report_denials = true;
}

static void d_scratch(struct ctx *c, const struct pos *pos, struct tok *t,
		      int n)
{
	int v;
	const char *path;

	(void)n;
	if (once(c, pos, &t[0], PAT_SCRATCH))
		return;
	v = choice(c, pos, &t[1], "create", "adopt");
	path = path_arg(c, pos, &t[2], "scratch");
	if (v < 0 || !path)
		return;
	c->p->scratch = v ? SCRATCH_CREATE : SCRATCH_ADOPT;
	c->p->scratch_path = path;
}

static void d_include(struct ctx *c, const struct pos *pos, struct tok *t,
		      int n)
{
	(void)n;
	if (!t[1].len || contains(t[1].s, "/../") || !strncmp(t[1].s, "../", 3)
	    || !strcmp(t[1].s, "..")) {
		perr_at(c, pos, t[1].col,
			"include path '%s' must be non-empty and without '..'",
			t[1].s);
		return;
	}
	parse_include(c, pos, &t[1]);
}

static const struct {
	const char *name;
	handler *fn;
	int min, max;	/* argument count, -1: no maximum */
	const char *usage;
} table[] = {
	{ "unshare", d_unshare, 1, -1, "unshare NAMESPACE..." },
	{ "uid", d_id, 1, 1, "uid ID" },
	{ "gid", d_id, 1, 1, "gid ID" },
	{ "hostname", d_hostname, 1, 1, "hostname NAME" },
	{ "nested-userns", d_nested, 1, 1, "nested-userns allow|deny" },
	{ "bind", d_bind, 2, 2, "bind SOURCE DEST" },
	{ "bind-try", d_bind, 2, 2, "bind-try SOURCE DEST" },
	{ "ro-bind", d_bind, 2, 2, "ro-bind SOURCE DEST" },
	{ "ro-bind-try", d_bind, 2, 2, "ro-bind-try SOURCE DEST" },
	{ "dev-bind", d_bind, 2, 2, "dev-bind SOURCE DEST" },
	{ "dev-bind-try", d_bind, 2, 2, "dev-bind-try SOURCE DEST" },
	{ "tmpfs", d_tmpfs, 1, 4, "tmpfs DEST [size=S] [mode=M] [inodes=N]" },
	{ "proc", d_onepath, 1, 1, "proc DEST" },
	{ "dev", d_dev, 1, 2, "dev DEST [shm-size=S] [ptys=N]" },
	{ "dir", d_dir, 1, 2, "dir DEST [mode=M]" },
	{ "symlink", d_symlink, 2, 2, "symlink TARGET DEST" },
	{ "file", d_file, 2, 3, "file DEST CONTENT [mode=M]" },
	{ "remount-ro", d_onepath, 1, 1, "remount-ro DEST" },
	{ "mask", d_onepath, 1, 1, "mask DEST" },
	{ "protect", d_protect, 2, -1, "protect DIR [depth=N] PATTERN..." },
	{ "read-roots", d_readroots, 1, 1, "read-roots DIR[:DIR]..." },
	{ "limit", d_limit, 2, 3, "limit NAME VALUE [HARD]" },
	{ "env", d_env, 1, -1, "env NAME=VALUE..." },
	{ "env-pass", d_envpass, 1, -1, "env-pass NAME..." },
	{ "chdir", d_chdir, 1, 1, "chdir DIR" },
	{ "umask", d_umask, 1, 1, "umask MODE" },
	{ "new-session", d_session, 1, 1, "new-session yes|no" },
	{ "die-signal", d_diesig, 1, 1, "die-signal SIGNAL|none" },
	{ "stdin", d_stdin, 1, 1, "stdin null|inherit" },
	{ "keep-fd", d_keepfd, 1, -1, "keep-fd FD..." },
	{ "seccomp", d_seccomp, 1, -1, "seccomp ACTION SYSCALL... [if COND...]" },
	{ "timeout", d_timeout, 1, 3, "timeout DURATION|none [kill-after D]" },
	{ "die-with-parent", d_dwp, 0, 0, "die-with-parent" },
	{ "report", d_report, 1, 1, "report denials" },
	{ "scratch", d_scratch, 2, 2, "scratch create PARENT | adopt DIR" },
	{ "include", d_include, 1, 1, "include FILE" },
	{ "landlock", d_landlock, 1, 1, "landlock yes|no" },
	{ "landlock-best-effort", d_landlock_best, 1, -1,
	  "landlock-best-effort CLASS..." },
	{ "landlock-only", d_landlock_only, 1, 1,
	  "landlock-only deny|allow|always" },
	{ "net-proxy", d_netproxy, 0, 1, "net-proxy [port=PORT]" },
	{ "net-allow", d_netrule, 1, -1, "net-allow HOST[:PORT]..." },
	{ "net-deny", d_netrule, 1, -1, "net-deny HOST[:PORT]..." },
	{ "net-resolve", d_netresolve, 1, -1, "net-resolve NAME=ADDRESS..." },
};
#define NDIRECTIVES (sizeof(table) / sizeof(table[0]))

int dir_once(struct ctx *c, const struct pos *pos, const struct tok *t,
	     enum plan_at s)
{
	return once(c, pos, t, s);
}

const char *dir_did_you_mean(char *buf, size_t len, const char *word,
			     const char *(*at)(size_t))
{
	return did_you_mean(buf, len, word, at, "");
}

void directive(struct ctx *c, const struct pos *pos, struct tok *t, int n)
{
	size_t i, best = 0, bestd = 99;

	/* The first byte first: a plan has a hundred lines or more. */
	for (i = 0; i < NDIRECTIVES; i++)
		if (table[i].name[0] == t[0].s[0] &&
		    !strcmp(table[i].name, t[0].s))
			break;
	/* allow, deny, proxy, resolve: the network directives' own words
	 * (seccomp's allow and deny take syscalls, never hosts). */
	if (i == NDIRECTIVES && (!strcmp(t[0].s, "allow") ||
				 !strcmp(t[0].s, "deny") ||
				 !strcmp(t[0].s, "proxy") ||
				 !strcmp(t[0].s, "resolve"))) {
		perr_at(c, pos, t[0].col,
			"unknown directive '%s' (did you mean 'net-%s'?)",
			t[0].s, t[0].s);
		return;
	}
	if (i == NDIRECTIVES && (ns_bit(t[0].s) || rlimit_by_name(t[0].s) >= 0)) {
		perr_at(c, pos, t[0].col,
			"unknown directive '%s' (did you mean '%s %s'?)",
			t[0].s, ns_bit(t[0].s) ? "unshare" : "limit", t[0].s);
		return;
	}
	if (i == NDIRECTIVES) {
		for (size_t j = 0; j < NDIRECTIVES; j++) {
			size_t d = policy_distance(t[0].s, table[j].name);

			if (d < bestd) {
				bestd = d;
				best = j;
			}
		}
		if (bestd <= 2 && bestd < strlen(t[0].s))
			perr_at(c, pos, t[0].col,
				"unknown directive '%s' (did you mean '%s'?)",
				t[0].s, table[best].name);
		else
			perr_at(c, pos, t[0].col, "unknown directive '%s'",
				t[0].s);
		return;
	}
	if (n - 1 < table[i].min || (table[i].max >= 0 && n - 1 > table[i].max)) {
		perr_at(c, pos, t[0].col,
			"'%s' takes %s%d argument%s, not %d (usage: %s)",
			t[0].s, table[i].max < 0 ? "at least " :
			table[i].min != table[i].max ? "up to " : "",
			table[i].max < 0 || table[i].min == table[i].max ?
			table[i].min : table[i].max,
			(table[i].max < 0 || table[i].min == table[i].max ?
			 table[i].min : table[i].max) == 1 ? "" : "s",
			n - 1, table[i].usage);
		return;
	}
	table[i].fn(c, pos, t, n);
}

void plan_validate(struct ctx *c)
{
	struct plan *p = c->p;
	const struct pos *at;

	if (p->ns)
		p->ns |= NS_USER;
	if (p->nfs && !(p->ns & NS_MOUNT)) {
		at = &p->fs[0].pos;
		perr_at(c, at, at->col, "'%s' needs 'unshare mount'",
			fs_kind_name(p->fs[0].kind));
	}
	for (size_t i = 0; i < p->nfs; i++)
		if (p->fs[i].kind == FS_PROC && !(p->ns & NS_PID)) {
			at = &p->fs[i].pos;
			perr_at(c, at, at->col,
				"'proc' needs 'unshare pid' (a user namespace "
				"may only mount the procfs of its own pid "
				"namespace)");
		}
	plan_validate_layout(c);
	plan_validate_net(c);
	if (p->hostname && !(p->ns & NS_UTS)) {
		at = &c->p->at[PAT_HOSTNAME];
		perr_at(c, at, at->col ? at->col : 1,
			"'hostname' needs 'unshare uts'");
	}
	if ((p->uid >= 0 || p->gid >= 0) && !(p->ns & NS_USER)) {
		at = p->uid >= 0 ? &c->p->at[PAT_UID] : &c->p->at[PAT_GID];
		perr_at(c, at, at->col ? at->col : 1,
			"'uid' and 'gid' need a user namespace ('unshare "
			"user')");
	}
}
