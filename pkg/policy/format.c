/* The canonical text of a resolved plan. plan_format's output is what
 * travels down the chain in the sealed memfd; plan_show's is what
 * `pysbx policy show` prints. Both print every value explicitly, quoted
 * where needed, so that parsing the text back gives the same plan. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "policy/policy.h"
#include "util/names.h"

struct out {
	char *s;
	size_t n, cap;
	int oom;	/* out of memory, or a write failed: add nothing more */
	/* The last position's file, already written quoted at s + fq (fqn
	 * bytes): the next line from the same file copies it. */
	const char *file;
	size_t fq, fqn;
	/* plan_write: the text goes to fd through s, flushed at the start
	 * of a line once half of it is used; -1: all of it stays in s. */
	int fd;
	int err;	/* the write's errno */
};

static void grow(struct out *o, size_t more)
{
	char *s;
	size_t cap;

	if (o->oom || o->n + more + 1 <= o->cap)
		return;
	/* A plan (6-8 KiB for the shipped policies) fits the first block
	 * (8 KiB with alloc.c's header): growing from 4 KiB copied it into
	 * a second block, two more pages to fault in the guard. */
	cap = o->cap ? o->cap : 8192 - 16;
	while (cap < o->n + more + 1)
		cap *= 2;
	s = realloc(o->s, cap);
	if (!s) {
		o->oom = 1;
		return;
	}
	o->s = s;
	o->cap = cap;
}

static void put(struct out *o, const char *s, size_t n)
{
	grow(o, n);
	if (o->oom)
		return;
	memcpy(o->s + o->n, s, n);
	o->n += n;
	o->s[o->n] = '\0';
}

static void str(struct out *o, const char *s)
{
	put(o, s, strlen(s));
}

/* v in base 10 or 16 (lower case), as printf's %llu and %llx. A plan's
 * hundreds of numbers and words went through vsnprintf: formatting was
 * over half of the guard's instructions before the first exec. */
static void unum(struct out *o, unsigned long long v, unsigned base)
{
	char b[24], *e = b + sizeof(b), *d = e;

	do {
		*--d = "0123456789abcdef"[v % base];
		v /= base;
	} while (v);
	put(o, d, (size_t)(e - d));
}

/* Bytes of s written earlier at off, again at the end: grown first, so
 * that put's own grow cannot move them. */
static void again(struct out *o, size_t off, size_t n)
{
	grow(o, n);
	if (!o->oom)
		put(o, o->s + off, n);
}

/* Most fragments are literal text or short numbers: format into a stack
 * buffer with one vsnprintf (a plan has hundreds of fragments, and two
 * passes each were most of plan_format's time), two passes only for a
 * long one. */
static void add(struct out *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void add(struct out *o, const char *fmt, ...)
{
	char small[128];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(small, sizeof(small), fmt, ap);
	va_end(ap);
	if (n < 0) {
		o->oom = 1;
		return;
	}
	if ((size_t)n < sizeof(small)) {
		put(o, small, (size_t)n);
		return;
	}
	grow(o, (size_t)n);
	if (o->oom)
		return;
	va_start(ap, fmt);
	vsnprintf(o->s + o->n, o->cap - o->n, fmt, ap);
	va_end(ap);
	o->n += (size_t)n;
}

/* The bytes a word may hold unquoted: letters, digits and
 * "/_.,:=+-@%^!<>&". A table (strspn builds one at every call), constant
 * (no page of writable data to fault in). */
static const unsigned char is_safe[256] = {
	['a' ... 'z'] = 1, ['A' ... 'Z'] = 1, ['0' ... '9'] = 1,
	['/'] = 1, ['_'] = 1, ['.'] = 1, [','] = 1, [':'] = 1, ['='] = 1,
	['+'] = 1, ['-'] = 1, ['@'] = 1, ['%'] = 1, ['^'] = 1, ['!'] = 1,
	['<'] = 1, ['>'] = 1, ['&'] = 1,
};

static size_t bare_len(const char *s)
{
	size_t n = 0;

	while (is_safe[(unsigned char)s[n]])
		n++;
	return n;
}

/* A word: bare when it holds only safe characters, else double-quoted
 * with every special byte escaped ($ always, so "${" never reappears). */
static void quoted(struct out *o, const char *s)
{
	size_t len = bare_len(s), run;

	if (*s && !s[len] && s[0] != '#') {
		put(o, s, len);
		return;
	}
	put(o, "\"", 1);
	while (*s) {
		unsigned char ch;

		/* Copy the run of bytes that need no escape in one go. */
		run = strcspn(s, "\"\\$\x7f\x01\x02\x03\x04\x05\x06\x07"
				 "\x08\t\n\x0b\x0c\r\x0e\x0f\x10\x11\x12\x13"
				 "\x14\x15\x16\x17\x18\x19\x1a\x1b\x1c\x1d"
				 "\x1e\x1f");
		put(o, s, run);
		s += run;
		if (!*s)
			break;
		ch = (unsigned char)*s++;
		if (ch == '"' || ch == '\\' || ch == '$') {
			char esc[2] = { '\\', (char)ch };

			put(o, esc, 2);
		} else if (ch == '\n') {
			put(o, "\\n", 2);
		} else if (ch == '\t') {
			put(o, "\\t", 2);
		} else {
			add(o, "\\x%02x", ch);
		}
	}
	put(o, "\"", 1);
}

static void word(struct out *o, const char *s)
{
	put(o, " ", 1);
	quoted(o, s);
}

static const char *const fs_names[] = {
	[FS_BIND] = "bind",	     [FS_RO_BIND] = "ro-bind",
	[FS_DEV_BIND] = "dev-bind",  [FS_TMPFS] = "tmpfs",
	[FS_PROC] = "proc",	     [FS_DEV] = "dev",
	[FS_DIR] = "dir",	     [FS_SYMLINK] = "symlink",
	[FS_FILE] = "file",	     [FS_REMOUNT_RO] = "remount-ro",
	[FS_MASK] = "mask",	     [FS_PROTECT] = "protect",
};

const char *fs_kind_name(enum fs_kind k)
{
	return (unsigned)k < sizeof(fs_names) / sizeof(fs_names[0])
		       ? fs_names[k]
		       : "?";
}

/* plan_write's buffer: a page with alloc.c's header. A line that does
 * not fit (a long `file` content) grows it as in plan_format. */
#define WRITE_BUF (4096 - 16)

static void flush(struct out *o)
{
	size_t off = 0;

	while (!o->oom && off < o->n) {
		ssize_t w = write(o->fd, o->s + off, o->n - off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			o->err = w < 0 ? errno : EIO;
			o->oom = 1;
			break;
		}
		off += (size_t)w;
	}
	o->n = 0;
	/* The last file's quoted text went out with the rest. */
	o->file = NULL;
}

/* Start a line: with its origin in a plan, bare in `show`. Only here does
 * plan_write flush: again() below copies bytes of an earlier line. */
static void line(struct out *o, int with_pos, const struct pos *pos,
		 const char *kw)
{
	if (o->fd >= 0 && o->n >= WRITE_BUF / 2)
		flush(o);
	if (with_pos) {
		put(o, "@", 1);
		if (pos->file == o->file) {
			again(o, o->fq, o->fqn);
		} else {
			o->fq = o->n;
			quoted(o, pos->file);
			o->file = pos->file;
			o->fqn = o->n - o->fq;
		}
		put(o, ":", 1);
		unum(o, pos->line, 10);
		put(o, ":", 1);
		unum(o, pos->col ? pos->col : 1, 10);
		put(o, " ", 1);
	}
	str(o, kw);
}

/* Where a scalar line came from: its directive, or the top file when the
 * value is a default. */
static const struct pos *at(const struct plan *p, enum plan_at s)
{
	return p->at[s].line ? &p->at[s] : &p->top;
}

static void u64(struct out *o, uint64_t v)
{
	if (v == RLIM_INFINITY)
		add(o, " unlimited");
	else
		add(o, " %llu", (unsigned long long)v);
}

/* A duration in the largest unit that divides it (90s, not 90000ms). */
static void dur(struct out *o, uint64_t ms, int human)
{
	if (human && ms && !(ms % 3600000))
		add(o, " %lluh", (unsigned long long)(ms / 3600000));
	else if (human && ms && !(ms % 60000))
		add(o, " %llum", (unsigned long long)(ms / 60000));
	else if (human && ms && !(ms % 1000))
		add(o, " %llus", (unsigned long long)(ms / 1000));
	else
		add(o, " %llums", (unsigned long long)ms);
}

/* `policy show`: a byte count (or a count written with K, M, ...) in the
 * unit the policy wrote it in (u, enum unit_written); a default
 * (UW_NONE) in the largest exact unit, as a user writes it (512M, not
 * 536870912). Into buf (32 bytes). */
static const char *size_txt(char *buf, uint64_t v, unsigned char u)
{
	static const char sfx[] = "KMGT";
	int k = -1;

	if (u >= UW_K && u <= UW_T && v &&
	    !(v % (1ULL << (10 * (u - UW_K + 1))))) {
		k = u - UW_K;
		v >>= 10 * (k + 1);
	} else if (u == UW_NONE && v) {
		while (k < 3 && !(v % 1024)) {
			v /= 1024;
			k++;
		}
	}
	if (k < 0)
		snprintf(buf, 32, "%llu", (unsigned long long)v);
	else
		snprintf(buf, 32, "%llu%c", (unsigned long long)v, sfx[k]);
	return buf;
}

static void size_w(struct out *o, uint64_t v, unsigned char u)
{
	char buf[32];

	if (v == RLIM_INFINITY)
		u64(o, v);
	else
		add(o, " %s", size_txt(buf, v, u));
}

/* The same for a duration in ms. */
static void dur_w(struct out *o, uint64_t ms, unsigned char u)
{
	static const struct { unsigned char u; uint64_t mul; const char *s; }
		units[] = { { UW_MS, 1, "ms" }, { UW_S, 1000, "s" },
			    { UW_MIN, 60000, "m" }, { UW_H, 3600000, "h" } };

	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (units[i].u == u && !(ms % units[i].mul)) {
			add(o, " %llu%s", (unsigned long long)(ms / units[i].mul),
			    units[i].s);
			return;
		}
	dur(o, ms, 1);
}

static bool bytes_limit(int resource)
{
	return resource == RLIMIT_AS || resource == RLIMIT_CORE ||
	       resource == RLIMIT_DATA || resource == RLIMIT_FSIZE ||
	       resource == RLIMIT_MEMLOCK || resource == RLIMIT_MSGQUEUE ||
	       resource == RLIMIT_RSS || resource == RLIMIT_STACK;
}

/* A limit's value: raw in a plan; in `show` as written (cpu and rttime
 * written as a duration are converted back from seconds or µs). */
static void rl_value_w(struct out *o, int wp, int res, uint64_t v,
		       unsigned char u)
{
	if (wp || v == RLIM_INFINITY) {
		u64(o, v);
	} else if (bytes_limit(res)) {
		size_w(o, v, u);
	} else if (u >= UW_MS && res == RLIMIT_CPU && v <= UINT64_MAX / 1000) {
		dur_w(o, v * 1000, u);
	} else if (u >= UW_MS && res == RLIMIT_RTTIME && !(v % 1000)) {
		dur_w(o, v / 1000, u);
	} else {
		u64(o, v);
	}
}

static void action(struct out *o, enum sc_action a, int err)
{
	const char *en;

	switch (a) {
	case SC_ALLOW: str(o, " allow"); break;
	case SC_KILL: str(o, " kill"); break;
	case SC_LOG: str(o, " log"); break;
	case SC_TRAP: str(o, " trap"); break;
	case SC_ERRNO:
		en = errno_name(err);
		if (en) {
			str(o, " errno=");
			str(o, en);
		} else
			add(o, " errno=%d", err);
		break;
	}
}

/* An option's value (size=64M): raw in a plan, as written in `show`. */
static void num_w(struct out *o, int wp, uint64_t v, unsigned char u)
{
	char buf[32];

	add(o, "%s", wp || u == UW_NONE ? size_txt(buf, v, UW_1) :
		     size_txt(buf, v, u));
}

static void fs_op(struct out *o, int wp, const struct fs_op *f)
{
	char kw[32];

	snprintf(kw, sizeof(kw), "%s%s", fs_kind_name(f->kind),
		 f->try_ ? "-try" : "");
	line(o, wp, &f->pos, kw);
	switch (f->kind) {
	case FS_BIND: case FS_RO_BIND: case FS_DEV_BIND: case FS_SYMLINK:
		word(o, f->src);
		word(o, f->dst);
		break;
	case FS_FILE:
		word(o, f->dst);
		word(o, f->src);
		break;
	case FS_PROTECT: {
		const char *p = f->src, *e;

		word(o, f->dst);
		add(o, " depth=%llu", (unsigned long long)f->inodes);
		for (; *p; p = *e ? e + 1 : e) {
			char pat[PLAN_MAX_LINE];

			e = strchrnul(p, '\n');
			snprintf(pat, sizeof(pat), "%.*s", (int)(e - p), p);
			word(o, pat);
		}
		add(o, "\n");
		return;
	}
	default:
		word(o, f->dst);
	}
	if (f->size) {
		add(o, " %s=", f->kind == FS_DEV ? "shm-size" : "size");
		num_w(o, wp, f->size, f->size_unit);
	}
	if (f->inodes) {
		add(o, " %s=", f->kind == FS_DEV ? "ptys" : "inodes");
		num_w(o, wp, f->inodes, f->inodes_unit);
	}
	if (f->mode >= 0)
		add(o, " mode=%04o", (unsigned)f->mode);
	add(o, "\n");
}

/* noinline: inlined into render, it made the programs 300 bytes larger
 * (register pressure). */
static __attribute__((noinline)) void sc_rule(struct out *o, int wp,
					      const struct sc_rule *r)
{
	static const char *const ops[] = { "==", "!=", "<", "<=", ">", ">=",
					   "==" };

	line(o, wp, &r->pos, "seccomp");
	action(o, r->act, r->err);
	word(o, r->name);
	if (r->ncond)
		str(o, " if");
	for (unsigned k = 0; k < r->ncond; k++) {
		const struct sc_cond *cd = &r->cond[k];

		str(o, " arg");
		unum(o, cd->arg, 10);
		if (cd->op == SC_MASKED_EQ) {
			str(o, "&0x");
			unum(o, cd->mask, 16);
		}
		str(o, ops[cd->op]);
		str(o, "0x");
		unum(o, cd->value, 16);
	}
	put(o, "\n", 1);
}

static void landlock(struct out *o, const struct plan *p, int wp)
{
	static const char *const only[] = { "deny", "allow", "always" };

	if (p->landlock) {
		line(o, wp, at(p, PAT_LANDLOCK), "landlock");
		add(o, " yes\n");
	}
	if (p->ll_best_effort) {
		line(o, wp, at(p, PAT_LLBEST), "landlock-best-effort");
		for (unsigned b = 1; b < LL_BE_ALL; b <<= 1)
			if (p->ll_best_effort & b)
				add(o, " %s", ll_class_name(b));
		add(o, "\n");
	}
	if (p->ll_only != LL_ONLY_DENY) {
		line(o, wp, at(p, PAT_LLONLY), "landlock-only");
		add(o, " %s\n", only[p->ll_only]);
	}
}

static void net(struct out *o, const struct plan *p, int wp);

static void render(struct out *o, const struct plan *p, int wp)
{
	if (p->ns) {
		line(o, wp, at(p, PAT_UNSHARE), "unshare");
		for (unsigned b = 1; b <= NS_CGROUP; b <<= 1)
			if (p->ns & b)
				add(o, " %s", ns_name(b));
		add(o, "\n");
	}
	if (p->uid >= 0) {
		line(o, wp, at(p, PAT_UID), "uid");
		add(o, " %ld\n", p->uid);
	}
	if (p->gid >= 0) {
		line(o, wp, at(p, PAT_GID), "gid");
		add(o, " %ld\n", p->gid);
	}
	if (p->hostname) {
		line(o, wp, at(p, PAT_HOSTNAME), "hostname");
		word(o, p->hostname);
		add(o, "\n");
	}
	if (p->nested_userns) {
		line(o, wp, at(p, PAT_NESTED), "nested-userns");
		add(o, " allow\n");
	} else if (!wp && (p->ns & NS_USER)) {
		add(o, "nested-userns deny\n");
	}
	if (!wp && !p->ns)
		add(o, "# no unshare: no namespace, the host's files, "
		       "processes and network\n");
	for (size_t i = 0; i < p->nfs; i++)
		fs_op(o, wp, &p->fs[i]);
	for (size_t i = 0; i < p->nrl; i++) {
		const struct rlimit_op *r = &p->rl[i];

		line(o, wp, &r->pos, "limit");
		add(o, " %s", rlimit_name(r->resource));
		if (r->flags & RL_SOFT_HARD)
			add(o, " hard");
		else
			rl_value_w(o, wp, r->resource, r->soft, r->soft_unit);
		if (r->flags & RL_KEEP_HARD)
			add(o, " keep");
		else
			rl_value_w(o, wp, r->resource, r->hard, r->hard_unit);
		add(o, "\n");
	}
	for (size_t i = 0; i < p->nenv; i++) {
		const struct env_op *e = &p->env[i];
		char *kv;

		if (!e->value) {
			line(o, wp, &e->pos, "env-pass");
			word(o, e->name);
			add(o, "\n");
			continue;
		}
		line(o, wp, &e->pos, "env");
		kv = malloc(strlen(e->name) + strlen(e->value) + 2);
		if (!kv) {
			o->oom = 1;
			return;
		}
		sprintf(kv, "%s=%s", e->name, e->value);
		word(o, kv);
		free(kv);
		add(o, "\n");
	}
	if (!wp && !p->nenv)
		add(o, "# no env or env-pass: the target's environment is "
		       "empty\n");
	if (p->chdir) {
		line(o, wp, at(p, PAT_CHDIR), "chdir");
		word(o, p->chdir);
		add(o, "\n");
	} else if (!wp) {
		add(o, (p->ns & NS_MOUNT) ?
		       "# no chdir: / of the new root\n" :
		       "# no chdir: the caller's directory\n");
	}
	if (p->umask >= 0) {
		line(o, wp, at(p, PAT_UMASK), "umask");
		add(o, " %04o\n", (unsigned)p->umask);
	} else if (!wp) {
		add(o, "# no umask: the caller's\n");
	}
	line(o, wp, at(p, PAT_SESSION), "new-session");
	add(o, p->new_session ? " yes\n" : " no\n");
	line(o, wp, at(p, PAT_DIESIG), "die-signal");
	if (p->die_signal && signal_name(p->die_signal))
		add(o, " %s\n", signal_name(p->die_signal));
	else if (p->die_signal)
		add(o, " %d\n", p->die_signal);
	else
		add(o, " none\n");
	line(o, wp, at(p, PAT_STDIN), "stdin");
	add(o, p->stdin_null ? " null\n" : " inherit\n");
	if (p->nkeep_fds) {
		line(o, wp, at(p, PAT_KEEPFD), "keep-fd");
		for (size_t i = 0; i < p->nkeep_fds; i++)
			add(o, " %d", p->keep_fds[i]);
		add(o, "\n");
	}
	if (p->sc_set || !wp) {
		line(o, wp, at(p, PAT_SCDEFAULT), "seccomp");
		add(o, " default");
		action(o, p->sc_default, p->sc_default_err);
		add(o, "\n");
	}
	if (p->sc_audit) {
		line(o, wp, at(p, PAT_AUDIT), "seccomp");
		add(o, " audit\n");
	}
	for (size_t i = 0; i < p->nsc; i++)
		sc_rule(o, wp, &p->sc[i]);
	landlock(o, p, wp);
	line(o, wp, at(p, PAT_TIMEOUT), "timeout");
	/* The plan too keeps the unit the policy wrote: a step's `policy
	 * show` then prints what the front door's does (exact either way). */
	if (p->timeout_ms)
		dur_w(o, p->timeout_ms, p->timeout_unit);
	else
		add(o, " none");
	add(o, " kill-after");
	dur_w(o, p->kill_after_ms, p->kill_after_unit);
	add(o, "\n");
	if (p->die_with_parent) {
		line(o, wp, at(p, PAT_DWP), "die-with-parent");
		add(o, "\n");
	} else if (!wp) {
		add(o, "# no die-with-parent: the run goes on if its caller dies\n");
	}
	if (p->report_denials) {
		line(o, wp, at(p, PAT_REPORT), "report");
		add(o, " denials\n");
	}
	if (p->scratch != SCRATCH_NONE) {
		line(o, wp, at(p, PAT_SCRATCH), "scratch");
		add(o, p->scratch == SCRATCH_CREATE ? " create" : " adopt");
		word(o, p->scratch_path);
		add(o, "\n");
	} else if (!wp) {
		add(o, "# no scratch: no scratch directory\n");
	}
	net(o, p, wp);
}

/* The network proxy's lines: hosts and addresses were validated at parse
 * time (letters, digits, ".-_*:[]"), bare words for the lexer. */
static void net(struct out *o, const struct plan *p, int wp)
{
	char a[PX_ADDR_TEXT];

	if (!p->net_proxy)
		return;
	line(o, wp, at(p, PAT_PROXY), "net-proxy");
	str(o, " port=");
	unum(o, p->proxy_port, 10);
	put(o, "\n", 1);
	for (size_t i = 0; i < p->npx; i++) {
		const struct px_rule *r = &p->px[i];

		line(o, wp, &r->pos, r->deny ? "net-deny" : "net-allow");
		put(o, " ", 1);
		str(o, r->host);
		if (r->port) {
			put(o, ":", 1);
			unum(o, r->port, 10);
		}
		put(o, "\n", 1);
	}
	for (size_t i = 0; i < p->npin; i++) {
		line(o, wp, &p->pin[i].pos, "net-resolve");
		put(o, " ", 1);
		str(o, p->pin[i].name);
		put(o, "=", 1);
		str(o, px_addr_text(&p->pin[i].addr, a));
		put(o, "\n", 1);
	}
}

static void plan_text(struct out *o, const struct plan *p)
{
	add(o, "pysbx-plan 1");
	word(o, p->top.file ? p->top.file : "<plan>");
	add(o, "\n");
	render(o, p, 1);
	add(o, "end\n");
}

char *plan_format(const struct plan *p, size_t *len)
{
	struct out o = { .fd = -1 };

	plan_text(&o, p);
	if (o.oom) {
		free(o.s);
		return NULL;
	}
	*len = o.n;
	return o.s;
}

int plan_write(const struct plan *p, int fd)
{
	struct out o = { .fd = fd };

	o.s = malloc(WRITE_BUF);
	if (!o.s)
		return ENOMEM;
	o.cap = WRITE_BUF;
	plan_text(&o, p);
	flush(&o);
	free(o.s);
	return o.oom ? (o.err ? o.err : ENOMEM) : 0;
}

char *plan_show(const struct plan *p)
{
	struct out o = { .fd = -1 };

	render(&o, p, 0);
	if (o.oom || !o.s) {
		free(o.s);
		return NULL;
	}
	return o.s;
}
