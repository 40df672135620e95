/* The policy parser's driver: files, includes, lines, the plan text read
 * back by later steps, and the public entry points of policy.h. */
#include <errno.h>
#include <pwd.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "diag/diag.h"

#include "policy/internal.h"
#include "util/num.h"

int plan_init(struct plan *p)
{
	memset(p, 0, sizeof(*p));
	p->arena = arena_new();
	if (!p->arena)
		return -1;
	/* fs, env and sc grow as directives come (plan_grow): a plan that
	 * preallocated its caps would zero ~200 KiB at every step's start. */
	p->rl = arena_alloc_raw(p->arena, PLAN_MAX_RL * sizeof(*p->rl));
	if (!p->rl) {
		plan_free(p);
		return -1;
	}
	/* An empty plan (no -p) still formats: its lines need a file name. */
	p->top = (struct pos){ "<empty>", 1, 1 };
	p->uid = p->gid = -1;
	p->umask = -1;
	p->new_session = true;
	p->die_signal = SIGKILL;
	p->sc_default = SC_ALLOW;
	p->kill_after_ms = PLAN_KILL_AFTER_MS;
	p->proxy_port = PLAN_PROXY_PORT;
	return 0;
}

void *plan_grow(struct ctx *c, void *arr, size_t n, size_t *cap,
		size_t size)
{
	size_t ncap = *cap ? *cap * 2 : 16;
	void *na;

	if (n < *cap)
		return arr;
	/* The arena never frees: the old array stays until plan_free, at
	 * most doubling the memory the final array needs. Not zeroed: an
	 * element is written whole when it is added, and room never used
	 * is never touched. */
	na = arena_alloc_raw(c->a, ncap * size);
	if (!na)
		return NULL;
	if (n)
		memcpy(na, arr, n * size);
	*cap = ncap;
	return na;
}

void plan_free(struct plan *p)
{
	arena_free(p->arena);
	p->arena = NULL;
}

int ident_ok(const char *s, size_t n)
{
	if (!n || (s[0] >= '0' && s[0] <= '9'))
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!(s[i] == '_' || (s[i] >= 'A' && s[i] <= 'Z') ||
		      (s[i] >= 'a' && s[i] <= 'z') ||
		      (s[i] >= '0' && s[i] <= '9')))
			return 0;
	return 1;
}

int vars_set(struct vars *v, const char *name, const char *value)
{
	for (size_t i = 0; i < v->n; i++)
		if (!strcmp(v->name[i], name)) {
			v->value[i] = value;
			return 0;
		}
	if (v->n >= PLAN_MAX_VARS)
		return -1;
	v->name[v->n] = name;
	v->value[v->n++] = value;
	return 0;
}

int vars_add_arg(struct vars *v, const char *arg, char *err, size_t errlen)
{
	const char *eq = strchr(arg, '=');
	char *name;

	if (!eq) {
		snprintf(err, errlen, "-D '%s' has no '=' (use -D NAME=VALUE)",
			 arg);
		return -1;
	}
	if (eq - arg > 64 || !ident_ok(arg, (size_t)(eq - arg))) {
		snprintf(err, errlen,
			 "-D '%.*s': a variable name is letters, digits and "
			 "'_', not starting with a digit",
			 (int)(eq - arg), arg);
		return -1;
	}
	for (size_t i = 0; i < v->n; i++)
		if (strlen(v->name[i]) == (size_t)(eq - arg) &&
		    !memcmp(v->name[i], arg, (size_t)(eq - arg))) {
			snprintf(err, errlen, "-D %s is given twice",
				 v->name[i]);
			return -1;
		}
	/* Room for the built-ins UID, GID, HOME, PASSWD_HOME, LOCALTIME and
	 * SCRATCH (builtins()): past it a -D would be silently dropped, or
	 * ${SCRATCH} left as the placeholder. */
	if (v->n >= PLAN_MAX_DEFINES) {
		snprintf(err, errlen, "too many -D variables (max %d)",
			 PLAN_MAX_DEFINES);
		return -1;
	}
	name = strndup(arg, (size_t)(eq - arg));
	if (!name) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	v->name[v->n] = name;
	v->value[v->n++] = eq + 1;
	return 0;
}

/* Read a whole regular file (at most PLAN_MAX_FILE bytes). Returns a
 * malloc'd buffer or NULL with errno set (EFBIG when too large). */
static char *read_file(const char *path, size_t *len, struct stat *st)
{
	/* O_NONBLOCK: opening a FIFO (or /proc/kmsg) must not hang; the
	 * S_ISREG check below then refuses it. No effect on regular files. */
	int fd = openat(AT_FDCWD, path,	/* musl's open adds an fcntl */
			O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	char *buf = NULL;
	size_t n = 0, cap;
	int saved;

	if (fd < 0)
		return NULL;
	if (fstat(fd, st) < 0)
		goto fail;
	if (!S_ISREG(st->st_mode)) {
		errno = S_ISDIR(st->st_mode) ? EISDIR : EINVAL;
		goto fail;
	}
	if (st->st_size > PLAN_MAX_FILE) {
		errno = EFBIG;
		goto fail;
	}
	/* Sized from fstat, plus one byte to notice a file that grew. */
	cap = (size_t)st->st_size + 1;
	buf = malloc(cap + 1);
	if (!buf)
		goto fail;
	for (;;) {
		ssize_t r = read(fd, buf + n, cap - n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			goto fail;
		if (!r)
			break;
		n += (size_t)r;
		if (n == cap) {
			errno = EFBIG; /* changed while we read it */
			goto fail;
		}
	}
	close(fd);
	buf[n] = '\0';
	*len = n;
	return buf;
fail:
	saved = errno;
	free(buf);
	close(fd);
	errno = saved;
	return NULL;
}

/* Between policy_memo(true) and policy_memo(false): the files read
 * (kept, by the path the parser opened them by) and the built-in
 * variables, so that the guard's second parse (with ${SCRATCH} known)
 * reads nothing again. One start, never longer. */
#define MEMO_FILES 16
static struct {
	int on;
	bool builtins;	/* builtins() computed them for this start */
	size_t n;
	struct {
		char *path, *buf;
		size_t len;
		struct stat st;
	} f[MEMO_FILES];
} memo;

void policy_memo(bool on)
{
	if (on) {
		memo.on++;
		return;
	}
	if (memo.on && --memo.on)
		return;
	for (size_t i = 0; i < memo.n; i++) {
		free(memo.f[i].path);
		free(memo.f[i].buf);
	}
	memo.n = 0;
	memo.builtins = false;
}

/* read_file, or what it read for this start. *owned: the caller frees
 * the buffer (not kept in the memo). */
static char *read_memo(const char *path, size_t *len, struct stat *st,
		       bool *owned)
{
	char *buf;

	*owned = false;
	for (size_t i = 0; memo.on && i < memo.n; i++)
		if (!strcmp(memo.f[i].path, path)) {
			*len = memo.f[i].len;
			*st = memo.f[i].st;
			return memo.f[i].buf;
		}
	buf = read_file(path, len, st);
	if (buf && memo.on && memo.n < MEMO_FILES &&
	    (memo.f[memo.n].path = strdup(path))) {
		memo.f[memo.n].buf = buf;
		memo.f[memo.n].len = *len;
		memo.f[memo.n].st = *st;
		memo.n++;
		return buf;
	}
	*owned = true;
	return buf;
}

static int parse_file(struct ctx *c, const char *path, const struct pos *at)
{
	struct pos none = { path, 0, 0 };
	struct stat st;
	bool owned;
	size_t len;
	char *buf;
	int r;

	if (!at)
		at = &none;
	memset(&st, 0, sizeof(st));
	buf = read_memo(path, &len, &st, &owned);
	if (!buf) {
		if (errno == EFBIG && !st.st_size)
			perr_at(c, at, at->col,
				"policy '%s' has no size of its own (a /proc "
				"or /sys file?): copy it to a regular file",
				path);
		else if (errno == EFBIG)
			perr_at(c, at, at->col,
				"policy '%s' is larger than %d bytes", path,
				PLAN_MAX_FILE);
		else if (errno == EINVAL && st.st_mode)
			perr_at(c, at, at->col,
				"policy '%s' is %s, not a regular file", path,
				S_ISFIFO(st.st_mode) ? "a FIFO" :
				S_ISCHR(st.st_mode) ? "a character device" :
				S_ISBLK(st.st_mode) ? "a block device" :
				S_ISSOCK(st.st_mode) ? "a socket" :
				"a special file");
		else
			perr_at(c, at, at->col, "cannot read policy '%s': %s",
				path, strerror(errno));
		return -1;
	}
	for (int i = 0; i < c->depth; i++)
		if (c->dev[i] == st.st_dev && c->ino[i] == st.st_ino) {
			perr_at(c, at, at->col,
				"include cycle: '%s' includes itself", path);
			if (owned)
				free(buf);
			return -1;
		}
	/* Kept for the trust checks: every file that shaped the plan. */
	if (c->p->nfiles >= PLAN_MAX_FILES) {
		perr_at(c, at, at->col, "more than %d policy files included",
			PLAN_MAX_FILES);
		if (owned)
			free(buf);
		return -1;
	}
	c->p->files[c->p->nfiles++] = path;
	c->dev[c->depth] = st.st_dev;
	c->ino[c->depth] = st.st_ino;
	c->depth++;
	/* A UTF-8 byte order mark (Windows editors): said once, then the
	 * rest is read as if it were not there, so other errors show. */
	if (len >= 3 && !memcmp(buf, "\xef\xbb\xbf", 3)) {
		struct pos first = { path, 1, 1 };

		perr_at(c, &first, 1, "the file starts with a UTF-8 byte "
			"order mark (EF BB BF): save it without one");
		r = parse_text(c, path, buf + 3, len - 3);
	} else {
		r = parse_text(c, path, buf, len);
	}
	c->depth--;
	if (owned)
		free(buf);
	return r;
}

void parse_include(struct ctx *c, const struct pos *pos, const struct tok *t)
{
	const char *slash = strrchr(pos->file, '/');
	char *path;

	if (c->plan_mode || !pos->file[0]) {
		perr_at(c, pos, t->col, "include is not allowed here");
		return;
	}
	if (c->depth > PLAN_MAX_INCLUDE_DEPTH) {
		perr_at(c, pos, t->col, "includes nested deeper than %d",
			PLAN_MAX_INCLUDE_DEPTH);
		return;
	}
	if (t->s[0] == '/' || !slash) {
		path = arena_strdup(c->a, t->s);
	} else {
		size_t dl = (size_t)(slash - pos->file) + 1;

		path = arena_alloc(c->a, dl + t->len + 1);
		if (path) {
			memcpy(path, pos->file, dl);
			memcpy(path + dl, t->s, t->len + 1);
		}
	}
	if (!path) {
		perr_at(c, pos, t->col, "out of memory");
		return;
	}
	parse_file(c, path, &(struct pos){ pos->file, pos->line, t->col });
}

/* "@FILE:LINE:COL" of a plan line: split at the last two colons. The
 * word is cut in place: FILE stays where it is, for the plan to keep. */
static int plan_pos(char *s, struct pos *out)
{
	char *c2 = strrchr(s, ':'), *c1;
	long line, col;

	if (s[0] != '@' || !c2 || c2 == s)
		return -1;
	for (c1 = c2 - 1; c1 > s && *c1 != ':'; c1--)
		;
	if (c1 <= s + 1 || c2 - c1 > 24)
		return -1;
	*c2 = '\0';
	if (num_int(c1 + 1, 1, 1L << 30, &line) ||
	    num_int(c2 + 1, 1, 1L << 30, &col))
		return -1;
	*c1 = '\0';
	out->file = s + 1;
	out->line = (unsigned)line;
	out->col = (unsigned)col;
	return 0;
}

static int plan_line(struct ctx *c, const struct pos *pos, struct tok *t,
		     int n)
{
	struct pos at;

	if (plan_pos(t[0].s, &at) < 0 || n < 2) {
		perr_at(c, pos, 1, "malformed plan line");
		return -1;
	}
	for (int i = 1; i < n; i++)
		t[i].col = at.col;
	directive(c, &at, t + 1, n - 1);
	return 0;
}

/* Most of a plan's lines are seccomp rules: a step that does not use
 * them leaves them unread (PARSE_SKIP_SECCOMP), split into words or not.
 * Not split: as plan_format writes them, a bare position word, one space
 * and "seccomp ": then every lexer's first two words are those (a quoted
 * position, or a quote inside it, goes through the lexer first). */
static int skip_line(const struct ctx *c, const struct tok *t, int n)
{
	return (c->flags & PARSE_SKIP_SECCOMP) && n >= 2 &&
	       !strcmp(t[1].s, "seccomp");
}

static int skip_raw(const struct ctx *c, const char *s, size_t len)
{
	size_t n;

	if (!(c->flags & PARSE_SKIP_SECCOMP) || !len || s[0] != '@')
		return 0;
	n = lex_bare_run(s, len);
	return len - n >= 9 && !memcmp(s + n, " seccomp ", 9);
}

/* In plan mode buf (len + 1 bytes) is the plan's own copy: lex_plain
 * splits its lines in place. */
int parse_text(struct ctx *c, const char *file, const char *buf, size_t len)
{
	struct tok t[MAX_TOKS];
	struct pos pos = { file, 0, 1 };
	size_t off = 0;
	int state = 0;	/* plan mode: 0 before header, 1 body, 2 after end */
	size_t maxline = c->plan_mode ? PLAN_TEXT_MAX_LINE : PLAN_MAX_LINE;

	while (off < len) {
		const char *nl = memchr(buf + off, '\n', len - off);
		size_t ll = nl ? (size_t)(nl - buf - off) : len - off;
		int n = -1;

		pos.line++;
		if (ll > maxline) {
			perr_at(c, &pos, (unsigned)maxline + 1,
				"line is longer than %zu bytes", maxline);
			return -1;
		}
		if (c->plan_mode && state == 1 && skip_raw(c, buf + off, ll)) {
			off += ll + (nl ? 1 : 0);
			continue;
		}
		if (c->plan_mode)
			n = lex_plain((char *)buf + off, ll, t);
		if (n < 0)
			n = lex_line(c, &pos, buf + off, ll, t);
		off += ll + (nl ? 1 : 0);
		if (n <= 0)
			continue;
		if (!c->plan_mode) {
			directive(c, &pos, t, n);
			continue;
		}
		if (state == 0 && n == 3 && !strcmp(t[0].s, "pysbx-plan") &&
		    !strcmp(t[1].s, "1")) {
			c->p->top = (struct pos){ t[2].s, 1, 1 };
			state = 1;
		}
		else if (state == 1 && n == 1 && !strcmp(t[0].s, "end"))
			state = 2;
		else if (state == 1 && skip_line(c, t, n))
			continue;
		else if (state == 1)
			plan_line(c, &pos, t, n);
		else
			break;
		if (c->e->total)
			return -1;
	}
	if (c->plan_mode && (state != 2 || off < len)) {
		perr_at(c, &pos, 1, "plan is truncated or malformed");
		return -1;
	}
	return c->e->total ? -1 : 0;
}

/* Room in sc for a rule per line of the plan (most of a plan's lines
 * are seccomp rules; fs and env rarely outgrow plan_grow's first 16),
 * so that sc is not copied as it grows: each copy is pages to fault.
 * Only a hint (plan_grow still checks), and not zeroed: what is not
 * used is never touched. */
static void plan_reserve(struct ctx *c, const char *buf, size_t len)
{
	const char *s = buf, *end = buf + len;
	size_t n = 0;

	for (; s && s < end; n++)
		if ((s = memchr(s, '\n', (size_t)(end - s))))
			s++;
	if (n > PLAN_MAX_SC)
		n = PLAN_MAX_SC;
	if (n && (c->p->sc = arena_alloc_raw(c->a, n * sizeof(*c->p->sc))))
		c->p->cap_sc = n;
}

/* The host's time zone name, from the link /etc/localtime ->
 * .../zoneinfo/NAME (Debian, Fedora, Arch: `Europe/Paris`), for policies
 * that recreate the link inside ("symlink /usr/share/zoneinfo/${LOCALTIME}
 * /etc/localtime": a bind would refuse the link). "UTC" when it is not
 * such a link or the name is not a plain relative path. */
const char *policy_zone_of_link(const char *link)
{
	const char *z = strstr(link, "zoneinfo/");

	if (!z)
		return "UTC";
	z += strlen("zoneinfo/");
	if (!*z || strstr(z, "..") || z[strspn(z, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
					  "abcdefghijklmnopqrstuvwxyz"
					  "0123456789/_+-.")])
		return "UTC";
	return z;
}

static const char *localtime_zone(void)
{
	static char buf[256];
	ssize_t n = readlink("/etc/localtime", buf, sizeof(buf) - 1);

	if (n <= 0)
		return "UTC";
	buf[n] = '\0';
	return policy_zone_of_link(buf);
}

static const char *builtin_home;

void policy_builtin_home(const char *home)
{
	builtin_home = home;
}

static void builtins(struct vars *all, const struct vars *v)
{
	static char uid[24], gid[24], pwhome[PLAN_MAX_PATH + 1];
	static const char *zone;
	const char *home = builtin_home ? builtin_home : getenv("HOME");
	struct passwd *pw;

	if (!memo.builtins) {
		snprintf(uid, sizeof(uid), "%u", (unsigned)getuid());
		snprintf(gid, sizeof(gid), "%u", (unsigned)getgid());
		zone = localtime_zone();
		/* The home the password database names: HOME may be unset,
		 * /tmp (services, agent frameworks) or another directory
		 * altogether, and credential masks must cover the real one
		 * as well. */
		pwhome[0] = '\0';
		if ((pw = getpwuid(getuid())) && pw->pw_dir &&
		    pw->pw_dir[0] == '/' && strlen(pw->pw_dir) < sizeof(pwhome))
			strcpy(pwhome, pw->pw_dir);
		memo.builtins = memo.on > 0;
	}
	memset(all, 0, sizeof(*all));
	vars_set(all, "UID", uid);
	vars_set(all, "GID", gid);
	if (home && home[0] == '/')
		vars_set(all, "HOME", home);
	vars_set(all, "LOCALTIME", zone);
	if (pwhome[0])
		vars_set(all, "PASSWD_HOME", pwhome);
	/* -D wins over built-ins: it is the caller's explicit word. The
	 * total fits: -D is capped at PLAN_MAX_DEFINES by vars_add_arg. */
	for (size_t i = 0; v && i < v->n; i++)
		vars_set(all, v->name[i], v->value[i]);
}

/* A -D the policy never refers to is a mistake (-D TIMOUT=1s would
 * otherwise run without the timeout): an error, with the nearest name
 * the policy does use. SCRATCH is the guard's own. */
static void unused_vars(struct ctx *c, const char *name,
			const struct vars *caller)
{
	struct pos at = { name, 0, 0 };

	if (c->refs_lost || !caller)
		return;
	for (size_t i = 0; i < caller->n; i++) {
		const char *best = NULL;
		size_t k, bestd = 3;

		if (!strcmp(caller->name[i], "SCRATCH"))
			continue;
		for (k = 0; k < c->nrefs; k++) {
			size_t d = policy_distance(caller->name[i], c->refs[k]);

			if (!d)
				break;
			if (d < bestd) {
				bestd = d;
				best = c->refs[k];
			}
		}
		if (k < c->nrefs)
			continue;
		if (best && bestd < strlen(caller->name[i]))
			perr_at(c, &at, 0, "-D %s is not used by the policy "
				"(did you mean -D %s?)", caller->name[i],
				best);
		else
			perr_at(c, &at, 0, "-D %s is not used by the policy",
				caller->name[i]);
	}
}

static int parse_pass(struct plan *p, const char *name, const char *buf,
		      size_t len, const struct vars *v, unsigned flags,
		      struct perr *e, const struct vars *caller)
{
	struct ctx c;
	int r;

	memset(&c, 0, sizeof(c));
	c.p = p;
	c.a = p->arena;
	c.v = v;
	c.e = e;
	c.flags = flags;
	p->top = (struct pos){ arena_strdup(p->arena, name), 1, 1 };
	if (!p->top.file)
		return -1;
	if (buf) {
		r = parse_text(&c, p->top.file, buf, len);
	} else {
		r = parse_file(&c, p->top.file, NULL);
	}
	if (r == 0 && !e->total) {
		const char *sv = NULL;

		for (size_t i = 0; i < v->n; i++)
			if (!strcmp(v->name[i], "SCRATCH"))
				sv = v->value[i];
		if (c.scratch_use.line && !sv) {
			if (p->scratch == SCRATCH_NONE)
				perr_at(&c, &c.scratch_use, c.scratch_use.col,
					"${SCRATCH} is used but the policy has "
					"no 'scratch' directive");
			else if (p->scratch == SCRATCH_CREATE &&
				 !(flags & PARSE_NO_SCRATCH))
				perr_at(&c, &c.scratch_use, c.scratch_use.col,
					"${SCRATCH} is created at run time by "
					"the guard: run this policy with "
					"'pysbx run' or 'pysbx-clean'");
			else if (p->scratch == SCRATCH_ADOPT)
				return 1; /* again, with SCRATCH known */
		}
		if (!e->total)
			plan_validate(&c);
		if (!e->total)
			unused_vars(&c, p->top.file, caller);
	}
	return e->total ? -1 : 0;
}

static int parse_common(struct plan *p, const char *name, const char *buf,
			size_t len, const struct vars *v, unsigned flags,
			struct perr *e)
{
	struct vars all;
	int r;

	/* Only the counters: the 10 KiB of messages are written on use. */
	e->n = e->total = e->warnings = 0;
	builtins(&all, v);
	r = parse_pass(p, name, buf, len, &all, flags, e, v);
	if (r == 1) {
		/* scratch adopt DIR: ${SCRATCH} is DIR; copy it out of the
		 * arena before the plan is reset for the second pass. */
		char *dir = strdup(p->scratch_path);

		plan_free(p);
		if (!dir || plan_init(p) < 0) {
			free(dir);
			return -1;
		}
		if (vars_set(&all, "SCRATCH", dir) < 0) {
			free(dir);
			e->total++;
			snprintf(e->msg[e->n++], sizeof(e->msg[0]),
				 "%s:1:1: error: too many variables to define "
				 "${SCRATCH}", name);
			return -1;
		}
		r = parse_pass(p, name, buf, len, &all, flags, e, v);
		free(dir);
		/* strings were copied into the arena by the lexer */
	}
	return r;
}

int policy_parse_file(struct plan *p, const char *path, const struct vars *v,
		      unsigned flags, struct perr *e)
{
	return parse_common(p, path, NULL, 0, v, flags, e);
}

int policy_parse_buf(struct plan *p, const char *name, const char *buf,
		     size_t len, const struct vars *v, unsigned flags,
		     struct perr *e)
{
	return parse_common(p, name, buf, len, v, flags, e);
}

char *plan_text_buf(struct plan *p, size_t len)
{
	/* Not zeroed: the caller fills it. One byte more for lex_plain's
	 * NUL after the last word. */
	return len < SIZE_MAX / 2 ? arena_alloc_raw(p->arena, len + 1) : NULL;
}

/* buf: len + 1 bytes from plan_text_buf to split in place, or NULL to
 * copy src there first. */
static int parse_plan(struct plan *p, char *buf, const char *src,
		      size_t len, unsigned flags, struct perr *e)
{
	/* Static (and not const, which would put 1 KiB of zeros in every
	 * binary): 1 KiB less stack. A plan has no variables (lex.c refuses
	 * any before it would look one up). */
	static struct vars none;
	struct pos at = { "<plan>", 1, 1 };
	struct ctx c;

	/* Only the counters: the 10 KiB of messages are written on use. */
	e->n = e->total = e->warnings = 0;
	memset(&c, 0, sizeof(c));
	c.p = p;
	c.a = p->arena;
	c.v = &none;
	c.e = e;
	c.plan_mode = 1;
	c.flags = flags & PARSE_SKIP_SECCOMP;
	if (!buf && (buf = plan_text_buf(p, len)))
		memcpy(buf, src, len);
	if (!buf)
		perr_at(&c, &at, 1, "out of memory");
	else if (memchr(buf, '\0', len))
		perr_at(&c, &at, 1, "NUL byte in plan");
	if (e->total)
		return -1;
	plan_reserve(&c, buf, len);
	if (parse_text(&c, at.file, buf, len) < 0 || e->total)
		return -1;
	plan_validate(&c);
	return e->total ? -1 : 0;
}

int policy_parse_plan(struct plan *p, const char *buf, size_t len,
		      struct perr *e)
{
	return parse_plan(p, NULL, buf, len, 0, e);
}

int policy_parse_plan_inplace(struct plan *p, char *buf, size_t len,
			      unsigned flags, struct perr *e)
{
	return parse_plan(p, buf, NULL, len, flags, e);
}

void perr_print(const struct perr *e, const char *prog, const char *file)
{
	for (size_t i = 0; i < e->n; i++) {
		char esc[sizeof(e->msg[0]) * 4];

		/* A -D value or a file name may hold control bytes. */
		diag_term_escape(esc, sizeof(esc), e->msg[i]);
		fprintf(stderr, "%s\n", esc);
	}
	if (e->total + e->warnings > e->n)
		fprintf(stderr, "%s: ... and %zu more diagnostics\n", prog,
			e->total + e->warnings - e->n);
	if (e->total) {
		char esc[PLAN_MAX_PATH * 4 + 1];

		diag_term_escape(esc, sizeof(esc), file);
		fprintf(stderr, "%s: %zu error%s in %s; nothing was started\n",
			prog, e->total, e->total == 1 ? "" : "s", esc);
	}
}
