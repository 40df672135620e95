#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include <linux/audit.h>
#include <linux/openat2.h>
#include <linux/seccomp.h>

#include "diag/diag.h"
#include "reaper/denials.h"
#include "reaper/sigsys.h"
#include "scnames/scnames.h"
#include "seccomp/report.h"

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#define PIDFD_THREAD_FLAG O_EXCL	/* PIDFD_THREAD, Linux 6.9 */
#define X32_BIT 0x40000000
#define STATX_MNT_ID_BIT 0x1000U
#define STATX_MNT_ID_OFF 144	/* stx_mnt_id in struct statx */

/* Distinct (kind, path) pairs pid 1 remembers; a call on one more is
 * counted, not examined further (docs/DENIALS.md "Floods"). */
#define DEN_TABLE 256
#define DEN_PATH 4096
/* Longest path a record carries: the guard reads lines of 4096 bytes,
 * and an escaped byte takes up to six. */
#define DEN_REC_PATH 300

enum den_kind {
	DK_NONE, DK_OUTSIDE, DK_RO, DK_MASKED, DK_PROTECTED, DK_MISSING_SRC,
};
static const char *const kind_name[] = {
	"", "outside", "read-only", "masked", "protected", "missing-source",
};

/* What the call does to one path. */
enum den_op { DO_READ, DO_WRITE, DO_CREATE, DO_REMOVE, DO_EXEC, DO_CHDIR };
static const char *const op_name[] = {
	"read", "write", "create", "remove", "exec", "chdir",
};

static struct {
	uint64_t hash[DEN_TABLE];
	unsigned count[DEN_TABLE];
	unsigned n;
	unsigned long long more, unchecked;
} den;

/* Only the numbers pysbx-seccomp said its filter notifies on for report
 * denials (the calls the policy allows outright): any other is a kill. */
int denials_is_report(const struct sigsys_sup *s,
		      const struct seccomp_notif *req)
{
	unsigned nr = (unsigned)req->data.nr;

	return s->reporting && req->data.arch == AUDIT_ARCH_X86_64 &&
	       !(nr & X32_BIT) && nr < 512 &&
	       (s->report_set[nr / 64] >> (nr % 64) & 1);
}

/* A NUL-terminated string at addr in pid's memory, read page by page
 * (the string may end just before an unmapped page). Its length, or -1. */
static ssize_t read_str(pid_t pid, uint64_t addr, char *buf, size_t len)
{
	size_t off = 0;

	if (!addr)
		return -1;
	while (off + 1 < len) {
		size_t want = 4096 - ((addr + off) & 4095);
		struct iovec l, r;
		ssize_t n;
		char *z;

		if (want > len - 1 - off)
			want = len - 1 - off;
		l = (struct iovec){ buf + off, want };
		r = (struct iovec){ (void *)(uintptr_t)(addr + off), want };
		n = process_vm_readv(pid, &l, 1, &r, 1, 0);
		if (n <= 0)
			return -1;
		z = memchr(buf + off, '\0', (size_t)n);
		if (z)
			return z - buf;
		off += (size_t)n;
	}
	return -1;	/* longer than PATH_MAX: the kernel refuses it too */
}

/* base + "/" + rel with ".", ".." and "//" folded (lexically). */
static int join_norm(const char *base, const char *rel, char *out, size_t len)
{
	char tmp[2 * DEN_PATH];
	size_t n = 0;
	const char *p;

	if (snprintf(tmp, sizeof(tmp), "%s/%s", rel[0] == '/' ? "" : base,
		     rel) >= (int)sizeof(tmp))
		return -1;
	for (p = tmp; *p;) {
		const char *e;
		size_t cl;

		while (*p == '/')
			p++;
		if (!*p)
			break;
		e = strchr(p, '/');
		cl = e ? (size_t)(e - p) : strlen(p);
		if (cl == 1 && p[0] == '.') {
		} else if (cl == 2 && p[0] == '.' && p[1] == '.') {
			while (n > 0 && out[n - 1] != '/')
				n--;
			if (n > 0)
				n--;
		} else {
			if (n + 1 + cl + 1 > len)
				return -1;
			out[n++] = '/';
			memcpy(out + n, p, cl);
			n += cl;
		}
		p += cl;
	}
	if (!n)
		out[n++] = '/';
	out[n] = '\0';
	return 0;
}

/* Is path dst itself or below it? */
static bool under(const char *path, const char *dst)
{
	size_t n = strlen(dst);

	if (!strcmp(dst, "/"))
		return true;
	return !strncmp(path, dst, n) && (path[n] == '/' || !path[n]);
}

/* The fs directive with the longest destination at or above path (a
 * protect counts by its directory), or NULL: what decides the view
 * there. */
static const struct fs_op *deciding(const struct plan *p, const char *path,
				    bool with_protect)
{
	const struct fs_op *best = NULL;

	for (size_t i = 0; i < p->nfs; i++) {
		const struct fs_op *f = &p->fs[i];

		if ((f->kind == FS_PROTECT && !with_protect) ||
		    f->kind == FS_SYMLINK || !under(path, f->dst))
			continue;
		/* Later lines mount over earlier ones at the same place. */
		if (!best || strlen(f->dst) >= strlen(best->dst))
			best = f;
	}
	return best;
}

/* Does abs pass through a symlink line's destination? */
static bool via_symlink(const struct plan *p, const char *abs)
{
	for (size_t i = 0; i < p->nfs; i++)
		if (p->fs[i].kind == FS_SYMLINK && under(abs, p->fs[i].dst))
			return true;
	return false;
}

static int mnt_id(int dirfd, const char *path, uint64_t *id)
{
	unsigned char stx[256];

	memset(stx, 0, sizeof(stx));
	if (syscall(SYS_statx, dirfd, path,
		    AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT |
			    (path[0] ? 0 : AT_EMPTY_PATH),
		    STATX_MNT_ID_BIT, stx) < 0)
		return -1;
	memcpy(id, stx + STATX_MNT_ID_OFF, sizeof(*id));
	return 0;
}

/* The path of an O_PATH fd in the view (pid 1's root is the view's). */
static int fd_path(const struct sigsys_sup *s, int fd, char *out, size_t len)
{
	char link[48];
	ssize_t n;

	snprintf(link, sizeof(link), "self/fd/%d", fd);
	n = readlinkat(s->hostproc, link, out, len - 1);
	if (n <= 0 || out[0] != '/')
		return -1;
	out[n] = '\0';
	return 0;
}

/* The mount point of the mount canon (an existing path) is on: the
 * highest directory above it with the same mount id. */
static void mount_point(const char *canon, char *mp, size_t len)
{
	char parent[DEN_PATH], *slash;
	uint64_t id, up;

	snprintf(mp, len, "%s", canon);
	if (mnt_id(AT_FDCWD, mp, &id) < 0)
		return;
	while (strcmp(mp, "/")) {
		snprintf(parent, sizeof(parent), "%s", mp);
		slash = strrchr(parent, '/');
		slash[slash == parent] = '\0';
		if (mnt_id(AT_FDCWD, parent, &up) < 0 || up != id)
			return;
		snprintf(mp, len, "%s", parent);
	}
}

struct verdict {
	enum den_kind kind;
	const struct fs_op *op;
	char at[DEN_PATH];	/* the path in the view that decides */
};

/* A write to the existing canon (a file, or the directory a name is
 * made in or removed from): a read-only mount there is a denial. */
static void ro_check(const struct sigsys_sup *s, int fd, struct verdict *v)
{
	struct statfs sf;
	char mp[DEN_PATH];
	const struct fs_op *f;

	char canon[DEN_PATH];

	if (fstatfs(fd, &sf) < 0 || !(sf.f_flags & ST_RDONLY) ||
	    fd_path(s, fd, canon, sizeof(canon)) < 0)
		return;
	mount_point(canon, mp, sizeof(mp));
	v->kind = DK_RO;
	for (size_t i = s->plan->nfs; i-- > 0;) {
		f = &s->plan->fs[i];
		if (f->kind != FS_PROTECT && f->kind != FS_SYMLINK &&
		    !strcmp(f->dst, mp)) {
			v->op = f;
			return;
		}
	}
	/* No line mounts there: protect made it (each protected path, and
	 * each directory between it and protect's DIR, is a mount). */
	for (size_t i = 0; i < s->plan->nfs; i++) {
		f = &s->plan->fs[i];
		if (f->kind == FS_PROTECT && under(mp, f->dst)) {
			v->kind = DK_PROTECTED;
			v->op = f;
			return;
		}
	}
	v->op = deciding(s->plan, mp, false);
}

/* Is abs itself a mount point? Then a rename onto it or its removal
 * fails with EBUSY: named as protected (protect made it) or read-only. */
static bool mount_point_at(const struct sigsys_sup *s, const char *abs,
			   struct verdict *v)
{
	char parent[DEN_PATH], *slash;
	uint64_t a, b;

	snprintf(parent, sizeof(parent), "%s", abs);
	slash = strrchr(parent, '/');
	if (!slash || !strcmp(abs, "/"))
		return false;
	slash[slash == parent] = '\0';
	if (mnt_id(AT_FDCWD, abs, &a) < 0 || mnt_id(AT_FDCWD, parent, &b) < 0 ||
	    a == b)
		return false;
	v->kind = DK_RO;
	v->op = NULL;
	for (size_t i = s->plan->nfs; i-- > 0;) {
		const struct fs_op *f = &s->plan->fs[i];

		if (f->kind != FS_SYMLINK && f->kind != FS_PROTECT &&
		    !strcmp(f->dst, abs)) {
			v->op = f;
			return true;
		}
	}
	for (size_t i = 0; i < s->plan->nfs; i++) {
		const struct fs_op *f = &s->plan->fs[i];

		if (f->kind == FS_PROTECT && under(abs, f->dst)) {
			v->kind = DK_PROTECTED;
			v->op = f;
			return true;
		}
	}
	v->op = deciding(s->plan, abs, false);
	return true;
}

/* A -try line whose source was missing: nothing is mounted at its
 * destination (a mount point has another mount id than its parent). */
static const struct fs_op *try_missing(const struct plan *p, const char *path)
{
	for (size_t i = 0; i < p->nfs; i++) {
		const struct fs_op *f = &p->fs[i];
		char parent[DEN_PATH], *slash;
		uint64_t a, b;

		if (!f->try_ || !under(path, f->dst) || !strcmp(f->dst, "/"))
			continue;
		snprintf(parent, sizeof(parent), "%s", f->dst);
		slash = strrchr(parent, '/');
		slash[slash == parent] = '\0';
		if (mnt_id(AT_FDCWD, f->dst, &a) < 0 ||
		    (mnt_id(AT_FDCWD, parent, &b) == 0 && a == b))
			return f;
	}
	return NULL;
}

static void classify(const struct sigsys_sup *s, const char *abs,
		     enum den_op op, bool nofollow, struct verdict *v)
{
	const struct plan *p = s->plan;
	const struct fs_op *f;
	char e[DEN_PATH], *slash;
	size_t rest;
	int fd;

	v->kind = DK_NONE;
	v->op = NULL;
	snprintf(v->at, sizeof(v->at), "%s", abs);
	f = deciding(p, abs, false);
	if (f && f->kind == FS_MASK) {
		v->kind = DK_MASKED;
		v->op = f;
		return;
	}
	/* A read inside a tree a line mounts from the host: what is
	 * missing there is missing on the host too, so no look is needed
	 * (most calls of a program are these: an import's opens under
	 * /usr). Not through a symlink line, not under a -try line. */
	if ((op == DO_READ || op == DO_EXEC || op == DO_CHDIR) && f &&
	    f->kind != FS_TMPFS && f->kind != FS_DIR && !f->try_ &&
	    !via_symlink(p, abs))
		return;
	fd = open(abs, O_PATH | O_CLOEXEC | (nofollow ? O_NOFOLLOW : 0));
	if (fd >= 0) {
		if (op == DO_WRITE)
			ro_check(s, fd, v);
		close(fd);
		/* Replacing or removing a mount point: EBUSY (protect's
		 * files and directories are mount points). */
		if ((op == DO_CREATE || op == DO_REMOVE) &&
		    mount_point_at(s, abs, v))
			return;
		if (op != DO_REMOVE)
			return;
	} else if (errno != ENOENT) {
		return;	/* EACCES, ELOOP...: the caller's own rights */
	}
	/* The deepest existing directory above abs. */
	snprintf(e, sizeof(e), "%s", abs);
	rest = 0;
	for (;;) {
		slash = strrchr(e, '/');
		if (!slash)
			return;
		slash[slash == e] = '\0';
		rest++;
		fd = open(e, O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (fd >= 0)
			break;
		if (errno != ENOENT && errno != ENOTDIR)
			return;
	}
	/* Removing an existing name, or making one where only the last
	 * component is new: a write to that directory. */
	if (op == DO_REMOVE || (op == DO_CREATE && rest == 1)) {
		if (op == DO_CREATE || access(abs, F_OK) == 0 || errno != ENOENT)
			ro_check(s, fd, v);
		close(fd);
		return;
	}
	close(fd);
	f = try_missing(p, abs);
	if (f) {
		v->kind = DK_MISSING_SRC;
		v->op = f;
		return;
	}
	/* Missing in the view: a denial only where no host directory is
	 * mounted (the root, a tmpfs, a dir), and only if the caller can
	 * see it on the host: the guard checks that, with its ids. */
	f = deciding(p, abs, false);
	if (f && f->kind != FS_TMPFS && f->kind != FS_DIR)
		return;
	v->kind = DK_OUTSIDE;
	v->op = f;
	/* A new name: what the host has is the directory it goes in. */
	if (op == DO_CREATE && (slash = strrchr(v->at, '/')))
		slash[slash == v->at] = '\0';
}

static uint64_t fnv(enum den_kind k, const char *s)
{
	uint64_t h = 1469598103934665603ULL ^ (uint64_t)k;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

static const char *fs_name(const struct fs_op *f, char *buf, size_t len)
{
	static const char *const n[] = {
		[FS_BIND] = "bind", [FS_RO_BIND] = "ro-bind",
		[FS_DEV_BIND] = "dev-bind", [FS_TMPFS] = "tmpfs",
		[FS_PROC] = "proc", [FS_DEV] = "dev", [FS_DIR] = "dir",
		[FS_SYMLINK] = "symlink", [FS_FILE] = "file",
		[FS_REMOUNT_RO] = "remount-ro", [FS_MASK] = "mask",
		[FS_PROTECT] = "protect",
	};

	snprintf(buf, len, "%s%s", n[f->kind], f->try_ ? "-try" : "");
	return buf;
}

/* JSON string or null, raw bytes kept (the guard needs them for the
 * host check and escapes them for a terminal itself). */
static void jstr(char *out, size_t len, const char *s)
{
	char esc[6 * DEN_REC_PATH + 8];

	if (!s) {
		snprintf(out, len, "null");
		return;
	}
	diag_json_escape(esc, sizeof(esc), s);
	snprintf(out, len, "\"%s\"", esc);
}

/* One record to the guard, or without one (pysbx-mount alone) a line
 * on stderr. false: it did not fit in a report line. */
static bool record(struct sigsys_sup *s, const struct seccomp_notif *req,
		   const char *asked, enum den_op op, const struct verdict *v,
		   unsigned id)
{
	char path[6 * DEN_REC_PATH + 16], at[6 * DEN_REC_PATH + 16];
	char src[6 * DEN_REC_PATH + 16], dst[6 * DEN_REC_PATH + 16];
	char comm[20] = "?", where[600] = "null", dir[32] = "null", b[24];
	char line[4096], proc[48];
	const char *sc = sc_syscall_name(req->data.nr);
	long hp = 0;
	int pidfd, n;

	pidfd = (int)syscall(SYS_pidfd_open, req->pid, PIDFD_THREAD_FLAG);
	if (pidfd < 0)
		pidfd = (int)syscall(SYS_pidfd_open, req->pid, 0);
	if (pidfd >= 0) {
		hp = sigsys_host_pid(s, pidfd);
		close(pidfd);
	}
	if (hp > 0) {
		snprintf(proc, sizeof(proc), "%ld/status", hp);
		sigsys_proc_field(s->hostproc, proc, "Pid:\t", comm,
				  sizeof(comm));
	}
	jstr(path, sizeof(path), asked);
	jstr(at, sizeof(at), v->at);
	jstr(src, sizeof(src), v->op && v->op->kind != FS_PROTECT &&
					       v->op->kind != FS_MASK ?
				       v->op->src : NULL);
	jstr(dst, sizeof(dst), v->op ? v->op->dst : NULL);
	if (v->op) {
		char f[6 * DEN_REC_PATH + 8];

		diag_json_escape(f, sizeof(f), v->op->pos.file);
		snprintf(where, sizeof(where), "\"%.500s:%u\"", f,
			 v->op->pos.line);
		snprintf(dir, sizeof(dir), "\"%s\"", fs_name(v->op, b, sizeof(b)));
	}
	if (s->report_fd < 0) {
		char e[4 * DEN_REC_PATH + 8];

		diag_term_escape(e, sizeof(e), v->at);
		fprintf(stderr, "pysbx-mount: denied (%s): %s, %s by pid %u "
			"(%s)%s%s\n", kind_name[v->kind], e, op_name[op],
			req->pid, comm, v->op ? ", decided by " : "",
			v->op ? where : "");
		return true;
	}
	n = snprintf(line, sizeof(line),
		     "{\"stage\":\"mount\",\"event\":\"denial\",\"id\":%u,"
		     "\"kind\":\"%s\",\"path\":%s,\"at\":%s,\"op\":\"%s\","
		     "\"syscall\":\"%s\",\"pid\":%u,\"comm\":\"%s\","
		     "\"directive\":%s,\"line\":%s,\"src\":%s,\"dst\":%s}\n",
		     id, kind_name[v->kind], path, at, op_name[op],
		     sc ? sc : "?", req->pid, comm, dir, where, src, dst);
	if (n <= 0 || (size_t)n >= sizeof(line))
		return false;
	if (write(s->report_fd, line, (size_t)n) != n) {
		/* advisory: the call went on whatever this says */
	}
	return true;
}

/* One path of the call: classify, count, record the first time. */
static void one_path(struct sigsys_sup *s, const struct seccomp_notif *req,
		     const char *asked, const char *abs, enum den_op op,
		     bool nofollow)
{
	static struct verdict v;
	uint64_t h;
	unsigned i;

	classify(s, abs, op, nofollow, &v);
	if (v.kind == DK_NONE)
		return;
	h = fnv(v.kind, v.at);
	for (i = 0; i < den.n && den.hash[i] != h; i++)
		;
	if (i < den.n) {
		den.count[i]++;
		return;
	}
	if (den.n == DEN_TABLE || strlen(asked) > DEN_REC_PATH ||
	    strlen(v.at) > DEN_REC_PATH) {
		/* Not named. A candidate nobody checked on the host is not
		 * known to be a denial: counted apart. */
		if (v.kind == DK_OUTSIDE)
			den.unchecked++;
		else
			den.more++;
		return;
	}
	if (!record(s, req, asked, op, &v, den.n)) {
		den.more += v.kind != DK_OUTSIDE;
		den.unchecked += v.kind == DK_OUTSIDE;
		return;
	}
	den.hash[den.n] = h;
	den.count[den.n] = 1;
	den.n++;
}

static enum den_op open_op(uint64_t flags, bool exists_check, const char *abs)
{
	bool write = (flags & O_ACCMODE) != O_RDONLY || (flags & O_TRUNC);

	if ((flags & O_CREAT) && !(exists_check && access(abs, F_OK) == 0))
		return DO_CREATE;
	return write ? DO_WRITE : DO_READ;
}

/* The directory a relative path starts from: the caller's cwd, or its
 * dirfd, as the host's procfs links them (paths in the view). */
static int base_of(const struct sigsys_sup *s, pid_t pid, long *hp, int dirfd,
		   char *out, size_t len)
{
	char link[64];
	ssize_t n;

	if (!*hp) {
		int pidfd = (int)syscall(SYS_pidfd_open, pid, PIDFD_THREAD_FLAG);

		if (pidfd < 0)
			pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
		if (pidfd < 0)
			return -1;
		*hp = sigsys_host_pid(s, pidfd);
		close(pidfd);
		if (*hp <= 0)
			return -1;
	}
	if (dirfd == AT_FDCWD)
		snprintf(link, sizeof(link), "%ld/cwd", *hp);
	else
		snprintf(link, sizeof(link), "%ld/fd/%d", *hp, dirfd);
	n = readlinkat(s->hostproc, link, out, len - 1);
	if (n <= 0 || out[0] != '/')
		return -1;
	out[n] = '\0';
	return 0;
}

void denials_notified(struct sigsys_sup *s, const struct seccomp_notif *req)
{
	static char asked[2][DEN_PATH], abs[2][DEN_PATH], base[DEN_PATH];
	const struct sc_report_call *c = sc_report_call(req->data.nr);
	struct seccomp_notif_resp resp;
	enum den_op op[2];
	bool ok[2] = { false, false };
	uint64_t flags = 0;
	long hp = 0;
	int k;

	/* Read what the call names while the caller waits; nothing of
	 * this decides the call. */
	for (k = 0; c && k < 2; k++) {
		int pi = k ? c->path2 : c->path, di = k ? c->dirfd2 : c->dirfd;
		int dirfd = di >= 0 ? (int)req->data.args[di] : AT_FDCWD;

		if (pi < 0 || read_str((pid_t)req->pid, req->data.args[pi],
				       asked[k], DEN_PATH) <= 0)
			continue;
		if (asked[k][0] != '/' &&
		    base_of(s, (pid_t)req->pid, &hp, dirfd, base,
			    sizeof(base)) < 0)
			continue;
		ok[k] = join_norm(base, asked[k], abs[k], DEN_PATH) == 0;
	}
	if (c && c->op == RP_OPEN && c->flags >= 0)
		flags = req->data.args[c->flags];
	if (c && c->op == RP_OPENAT2) {
		struct iovec l = { &flags, sizeof(flags) };
		struct iovec r = { (void *)(uintptr_t)req->data.args[2],
				   sizeof(flags) };

		if (process_vm_readv((pid_t)req->pid, &l, 1, &r, 1, 0) !=
		    sizeof(flags))
			flags = 0;
	}
	/* Still the caller's memory we read? Else the pid was reused. */
	if (ioctl(s->listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &req->id) < 0)
		ok[0] = ok[1] = false;
	/* Always "continue": the kernel decides, as without reporting. A
	 * path changed between our look and the kernel's gains nothing. */
	memset(&resp, 0, sizeof(resp));
	resp.id = req->id;
	resp.flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
	ioctl(s->listener, SECCOMP_IOCTL_NOTIF_SEND, &resp);
	if (!c)
		return;
	switch (c->op) {
	case RP_OPEN:
	case RP_OPENAT2:
		op[0] = open_op(flags, ok[0], abs[0]);
		break;
	case RP_CREATE:
		op[0] = DO_CREATE;
		break;
	case RP_REMOVE:
	case RP_RENAME:
		op[0] = DO_REMOVE;
		break;
	case RP_EXEC:
		op[0] = DO_EXEC;
		break;
	case RP_CHDIR:
		op[0] = DO_CHDIR;
		break;
	case RP_LINK:
		op[0] = DO_READ;
		break;
	default:
		op[0] = DO_WRITE;	/* META, WRITE */
	}
	op[1] = DO_CREATE;
	for (k = 0; k < 2; k++)
		if (ok[k])
			one_path(s, req, asked[k], abs[k], op[k],
				 c->nofollow && !(k == 0 && c->op == RP_LINK));
}

void denials_flush(struct sigsys_sup *s)
{
	char line[160];
	int n;

	if (!s->plan || s->report_fd < 0)
		return;
	for (unsigned i = 0; i < den.n; i++) {
		if (den.count[i] < 2)
			continue;
		n = snprintf(line, sizeof(line),
			     "{\"stage\":\"mount\",\"event\":\"denial-count\","
			     "\"id\":%u,\"count\":%u}\n", i, den.count[i]);
		if (write(s->report_fd, line, (size_t)n) != n)
			return;
	}
	n = snprintf(line, sizeof(line),
		     "{\"stage\":\"mount\",\"event\":\"denials\",\"more\":%llu,"
		     "\"unchecked\":%llu}\n", den.more, den.unchecked);
	if (write(s->report_fd, line, (size_t)n) != n) {
		/* advisory */
	}
}
