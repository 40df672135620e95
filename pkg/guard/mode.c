/* The mode of a run: namespaces (pysbx-mount builds the sandbox) or
 * Landlock-only (no pysbx-mount: host paths under a Landlock ruleset),
 * for a policy that permits the second (`landlock-only allow|always`).
 *
 * Where user namespaces are refused, the refusal shows at different
 * steps: unshare itself (a container's seccomp profile, a sysctl), the
 * uid map or the first mount (Ubuntu's AppArmor restriction, a profile
 * that refuses mount), sethostname, or a fresh procfs under a masked
 * /proc (container runtimes). The probe takes the same first steps as
 * pysbx-mount, in a child that is thrown away, so that the answer is the
 * kernel's, not a guess from sysctls.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "guard/guard.h"
#include "landlock/landlock.h"

/* The steps, in order; the probe's child reports the index of the one
 * that failed and its errno. */
static const char *const steps[] = {
	"unshare(CLONE_NEWUSER|CLONE_NEWNS)",
	"write /proc/self/setgroups",
	"write /proc/self/uid_map",
	"write /proc/self/gid_map",
	"make the mount namespace private",
	"mount a tmpfs",
	"set the hostname",
	"unshare(CLONE_NEWPID)",
	"mount a fresh procfs",
};
enum { ST_UNSHARE, ST_SETGROUPS, ST_UIDMAP, ST_GIDMAP, ST_PRIVATE,
       ST_TMPFS, ST_HOSTNAME, ST_PIDNS, ST_PROC, ST_N };

static int write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), e;
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, s, strlen(s));	/* one write: the kernel's rule */
	e = errno;
	close(fd);
	errno = e;
	return n == (ssize_t)strlen(s) ? 0 : -1;
}

void mode_needs(const struct plan *p, struct ns_needs *n)
{
	n->hostname = p->hostname != NULL;
	n->proc = false;
	for (size_t i = 0; i < p->nfs; i++)
		if (p->fs[i].kind == FS_PROC)
			n->proc = true;
}

/* pid 1 of the probe's pid namespace: a procfs on dir. */
static int proc_child(const char *dir)
{
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (mount("proc", dir, "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC,
		  NULL) < 0)
		return errno ? errno : EPERM;
	return 0;
}

/* The child: returns 0 when everything worked, else 1 with the step
 * and its errno in r (which the child writes to the guard's pipe). */
static int probe_child(const struct ns_needs *p, uid_t uid, gid_t gid,
		       int r[2])
{
	struct stat st;
	const char *dir = stat("/tmp", &st) == 0 && S_ISDIR(st.st_mode) ?
			  "/tmp" : "/";
	int flags = CLONE_NEWUSER | CLONE_NEWNS, status;
	char map[64];
	pid_t pid;

#define FAIL(step) return r[0] = (step), r[1] = errno ? errno : EPERM, 1
	if (p->hostname)
		flags |= CLONE_NEWUTS;
	if (unshare(flags) < 0)
		FAIL(ST_UNSHARE);
	if (write_file("/proc/self/setgroups", "deny") < 0 && errno != ENOENT)
		FAIL(ST_SETGROUPS);
	snprintf(map, sizeof(map), "0 %u 1\n", (unsigned)uid);
	if (write_file("/proc/self/uid_map", map) < 0)
		FAIL(ST_UIDMAP);
	snprintf(map, sizeof(map), "0 %u 1\n", (unsigned)gid);
	if (write_file("/proc/self/gid_map", map) < 0)
		FAIL(ST_GIDMAP);
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		FAIL(ST_PRIVATE);
	if (mount("tmpfs", dir, "tmpfs", MS_NOSUID | MS_NODEV, "size=16k") < 0)
		FAIL(ST_TMPFS);
	if (p->hostname && sethostname("probe", 5) < 0)
		FAIL(ST_HOSTNAME);
	if (!p->proc)
		return 0;
	if (unshare(CLONE_NEWPID) < 0)
		FAIL(ST_PIDNS);
	pid = fork();
	if (pid < 0)
		FAIL(ST_PIDNS);
	if (pid == 0)
		_exit(proc_child(dir));
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			FAIL(ST_PROC);
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		errno = WIFEXITED(status) ? WEXITSTATUS(status) : EINTR;
		FAIL(ST_PROC);
	}
	return 0;
#undef FAIL
}

int mode_ns_probe(const struct ns_needs *p, struct mode_probe *r)
{
	uid_t uid = geteuid();
	gid_t gid = getegid();
	int status, fd[2], res[2] = { 0, 0 };
	ssize_t n;
	pid_t pid;

	r->ok = false;
	r->step = NULL;
	r->err = 0;
	if (pipe2(fd, O_CLOEXEC) < 0) {
		r->step = "create the probe's pipe";
		r->err = errno;
		return -1;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		r->step = "fork the probe";
		r->err = errno;
		close(fd[0]);
		close(fd[1]);
		return -1;
	}
	if (pid == 0) {
		close(fd[0]);
		if (probe_child(p, uid, gid, res))
			_exit(write(fd[1], res, sizeof(res)) == sizeof(res) ?
			      1 : 2);
		_exit(0);
	}
	close(fd[1]);
	do
		n = read(fd[0], res, sizeof(res));
	while (n < 0 && errno == EINTR);
	close(fd[0]);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR) {
			r->step = "wait for the probe";
			r->err = errno;
			return -1;
		}
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
		r->ok = true;
		return 0;
	}
	if (n == (ssize_t)sizeof(res) && res[0] >= 0 && res[0] < ST_N) {
		r->step = steps[res[0]];
		r->err = res[1];
	} else {
		r->step = "run the probe";
		r->err = 0;
	}
	return 0;
}

static const char *base(const char *path)
{
	const char *b = strrchr(path, '/');

	return b ? b + 1 : path;
}

/* The index after step next[i]'s options and its "--" (getopt's "+":
 * the first word that is not an option starts the next program). */
static size_t after_opts(char **next, size_t i)
{
	for (i++; next[i] && next[i][0] == '-' && next[i][1]; i++) {
		if (!strcmp(next[i], "--"))
			return i + 1;
		if (chain_takes_value(next[i]) && next[i + 1])
			i++;
	}
	return i;
}

/* The Landlock-only chain from the namespace one the front door built:
 *   DIR/pysbx-mount -- DIR/pysbx-exec -- [DIR/pysbx-landlock ... --]
 *   DIR/pysbx-seccomp -- TARGET...
 * becomes
 *   DIR/pysbx-exec -- DIR/pysbx-landlock --paths host --
 *   DIR/pysbx-seccomp -- TARGET...
 * pysbx-landlock from pysbx-mount's directory (the front door's). Any
 * other shape (a chain written by hand for pysbx-clean) is refused: the
 * guard does not guess where the Landlock step belongs in it. */
static char **landlock_argv(struct diag *d, char **next, char **dirbuf)
{
	size_t n = 0, i, k = 0, dl;
	char **a, *ll;

	while (next[n])
		n++;
	if (n < 2 || strcmp(next[1], "--"))
		goto shape;
	dl = (size_t)(base(next[0]) - next[0]);
	a = calloc(n + 8, sizeof(*a));
	ll = malloc(dl + sizeof("pysbx-landlock"));
	if (!a || !ll) {
		free(a);
		free(ll);
		diag_fail(d, EXIT_SYSCALL, ENOMEM, "out of memory");
		return NULL;
	}
	memcpy(ll, next[0], dl);
	memcpy(ll + dl, "pysbx-landlock", sizeof("pysbx-landlock"));
	*dirbuf = ll;
	for (i = 2; next[i] && chain_is_step(next[i]);) {
		const char *b = base(next[i]);
		size_t end = after_opts(next, i);

		if (!strcmp(b, "pysbx-mount"))
			break;
		if (!strcmp(b, "pysbx-seccomp")) {
			a[k++] = ll;
			a[k++] = "--paths";
			a[k++] = "host";
			a[k++] = "--";
			ll = NULL;
		}
		if (strcmp(b, "pysbx-landlock"))
			while (i < end)
				a[k++] = next[i++];
		i = end;
		if (!next[i - 1] || strcmp(next[i - 1], "--"))
			break;
	}
	if (ll || k == 0 || strcmp(base(a[0]), "pysbx-exec")) {
		free(a);
		goto shape;
	}
	while (next[i])
		a[k++] = next[i++];
	a[k] = NULL;
	return a;
shape:
	diag_fail(d, EXIT_USAGE, 0, "unable to run Landlock-only: the "
		  "chain after pysbx-mount is not `pysbx-exec -- "
		  "pysbx-seccomp -- PROG` (run the policy with pysbx run)");
	return NULL;
}

const char *mode_name(enum run_mode m)
{
	return m == MODE_LANDLOCK_ONLY ? "landlock-only" :
	       m == MODE_NAMESPACES ? "namespaces" : "none";
}

/* The policy's path as an include line can name it: no quote, blank,
 * backslash or '$' (the lexer would read them). */
static bool plain_path(const char *s)
{
	for (; *s; s++)
		if (*s <= ' ' || *s == '"' || *s == '\'' || *s == '\\' ||
		    *s == '$' || *s == '#' || *s == 0x7f)
			return false;
	return true;
}

int guard_mode(struct diag *d, struct chain *c, struct guard_opts *o,
	       const struct plan *p)
{
	struct mode_probe pr;
	char **a, *ll = NULL;

	o->mode = MODE_NONE;
	if (strcmp(base(c->next[0]), "pysbx-mount"))
		return 0;
	o->mode = MODE_NAMESPACES;
	o->ll_only = p->ll_only;
	mode_needs(p, &o->needs);
	if (p->ll_only == LL_ONLY_DENY)
		return 0;
	/* A plan without namespaces: nothing can be refused (pysbx-mount
	 * only execs the next step). */
	if (p->ll_only == LL_ONLY_ALLOW && !p->ns)
		return 0;
	if (p->ll_only == LL_ONLY_ALWAYS) {
		snprintf(o->mode_why, sizeof(o->mode_why),
			 "the policy says 'landlock-only always' (%s:%u)",
			 p->at[PAT_LLONLY].file, p->at[PAT_LLONLY].line);
	} else {
		if (mode_ns_probe(&o->needs, &pr) < 0)
			return diag_fail(d, EXIT_SYSCALL, pr.err,
					 "unable to %s", pr.step);
		if (pr.ok)
			return 0;
		snprintf(o->mode_why, sizeof(o->mode_why),
			 "namespaces are refused here (%s: %s)", pr.step,
			 pr.err ? strerror(pr.err) : "failed");
	}
	if (!c->policy || !plain_path(base(c->policy)))
		return diag_fail(d, EXIT_USAGE, 0, "unable to run %s "
				 "Landlock-only: its name has a blank, a quote, "
				 "'#' or '$'", c->policy ? c->policy :
				 "a plan from --plan-fd");
	a = landlock_argv(d, c->next, &ll);
	if (!a)
		return -1;
	/* Both live until the guard exits (the child execs them). */
	c->next = a;
	o->mode = MODE_LANDLOCK_ONLY;
	/* What the mount namespace hid and Landlock cannot: connect() to a
	 * host daemon's socket (no Landlock right covers it up to ABI 7),
	 * and a user namespace of the target's (nested-userns deny works
	 * by a limit inside the sandbox's own user namespace). */
	/* Includes are relative to the wrapper's name: the policy's own
	 * directory. */
	if (asprintf(&o->wrap, "include %s\nseccomp deny @unix-sockets\n%s",
		     base(c->policy), p->nested_userns ? "" :
		     "seccomp deny @namespaces\n") < 0 ||
	    asprintf(&o->wrap_name, "%.*s<landlock-only>",
		     (int)(base(c->policy) - c->policy), c->policy) < 0)
		return diag_fail(d, EXIT_SYSCALL, ENOMEM, "out of memory");
	return 0;
}

/* The host directory a tmpfs line (or dev's shm) becomes in
 * Landlock-only mode when it is shared (sticky and world-writable, as
 * pkg/landlock maps it), into root (resolved); else false. */
static bool shared_dir(const char *dst, const char *sub, char *root,
		       size_t len)
{
	char path[PATH_MAX];
	struct stat st;

	snprintf(path, sizeof(path), "%s%s", dst, sub);
	return realpath(path, root) && strlen(root) < len &&
	       stat(root, &st) == 0 && S_ISDIR(st.st_mode) &&
	       (st.st_mode & S_ISVTX) && (st.st_mode & S_IWOTH);
}

/* path lies under root, and it or a directory between them is the
 * caller's: from inside the shared directory the sandbox, which runs
 * as the caller, could rewrite or replace it. */
static bool caller_owned_under(const char *root, const char *path)
{
	char real[PATH_MAX];
	size_t n = strlen(root);
	struct stat st;

	if (!realpath(path, real) || strncmp(real, root, n) ||
	    (real[n] != '/' && strcmp(root, "/")))
		return false;
	while (strlen(real) > n) {
		if (lstat(real, &st) == 0 && st.st_uid == geteuid())
			return true;
		*strrchr(real, '/') = '\0';
	}
	return false;
}

/* Invariant 8 in Landlock-only mode: a `tmpfs` over the host's /tmp is
 * the host's shared /tmp, writable from inside (the read-write binds
 * are checked by pkg/trust already). A policy file or a pysbx program
 * that the caller owns there, or whose directory is the caller's, could
 * be rewritten by the sandbox for its next run: refused. Root's files
 * there cannot be (the sandbox has no capability). */
static int shared_trust(struct diag *d, const struct plan *p)
{
	static const char *const progs[] = { "pysbx", "pysbx-clean",
		"pysbx-exec", "pysbx-landlock", "pysbx-seccomp" };
	char root[PATH_MAX], exe[PATH_MAX], prog[PATH_MAX], *slash;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	exe[n > 0 ? n : 0] = '\0';
	slash = strrchr(exe, '/');
	for (size_t i = 0; i < p->nfs; i++) {
		const struct fs_op *f = &p->fs[i];
		const char *bad = NULL;

		if (!((f->kind == FS_TMPFS && shared_dir(f->dst, "", root,
							 sizeof(root))) ||
		      (f->kind == FS_DEV && shared_dir(f->dst, "/shm", root,
						       sizeof(root)))))
			continue;
		for (size_t k = 0; !bad && k < p->nfiles; k++)
			if (caller_owned_under(root, p->files[k]))
				bad = p->files[k];
		for (size_t k = 0; !bad && slash && k < 5; k++) {
			snprintf(prog, sizeof(prog), "%.*s/%s",
				 (int)(slash - exe), exe, progs[k]);
			if (caller_owned_under(root, prog))
				bad = progs[k];
		}
		if (!bad)
			continue;
		diag_fail(d, EXIT_USAGE, 0, "refusing %s in Landlock-only "
			  "mode: it lies under %s, which '%s %s' (%s:%u) "
			  "makes the host's shared directory, writable from "
			  "inside, and it or its directory is yours: the "
			  "sandbox could rewrite its next sandbox", bad, root,
			  fs_kind_name(f->kind), f->dst, f->pos.file,
			  f->pos.line);
		diag_hint(d, "keep policies and the pysbx programs outside "
			  "/tmp and /dev/shm, or owned by root, to run "
			  "Landlock-only (docs/SECURITY.md)");
		return -1;
	}
	return 0;
}

int guard_mode_plan(struct diag *d, struct guard_opts *o, const char *policy,
		    bool allow_untrusted, struct plan *p)
{
	char why[sizeof(o->mode_why) * 4];
	struct ll_ruleset *rs;
	struct perr *e;
	size_t k = 0;
	int r = 0;

	if (o->mode != MODE_LANDLOCK_ONLY)
		return 0;
	/* Never a silent downgrade: one line says so, first. */
	diag_term_escape(why, sizeof(why), o->mode_why);
	fprintf(stderr, "%s: Landlock-only mode: %s; host paths under "
		"Landlock, no namespaces (docs/SECURITY.md)\n", d->prog, why);
	/* protect keeps names read-only inside a writable tree with
	 * mounts; Landlock cannot narrow a grant below a writable path. A
	 * policy that permits Landlock-only accepts running without it:
	 * said here, once per line. */
	for (size_t i = 0; i < p->nfs; i++) {
		if (p->fs[i].kind != FS_PROTECT) {
			p->fs[k++] = p->fs[i];
			continue;
		}
		diag_warn(d, "Landlock-only mode: 'protect %s' (%s:%u) is not "
			  "applied: those names stay writable "
			  "(docs/SECURITY.md)", p->fs[i].dst,
			  p->fs[i].pos.file, p->fs[i].pos.line);
	}
	p->nfs = k;
	/* The sealed plan says which mode runs: pysbx-exec then knows that
	 * no pysbx-mount emptied the capability sets before it. */
	p->ll_only = LL_ONLY_ALWAYS;
	/* Every rule must have a host path (a bind to another place, a
	 * file made up by the policy cannot): checked here, before
	 * anything runs, with the policy's positions. */
	rs = malloc(sizeof(*rs));
	e = malloc(sizeof(*e));
	if (!rs || !e) {
		free(rs);
		free(e);
		return diag_fail(d, EXIT_SYSCALL, ENOMEM, "out of memory");
	}
	ll_init(rs);
	if (ll_from_plan(p, LL_PATHS_HOST, rs, e) < 0) {
		perr_print(e, d->prog, policy);
		r = diag_fail(d, EXIT_USAGE, 0, "%s cannot run in "
			      "Landlock-only mode (%s)", policy, o->mode_why);
	}
	ll_free(rs);
	free(rs);
	free(e);
	if (r == 0 && !allow_untrusted)
		r = shared_trust(d, p);
	return r;
}

void guard_mode_hint(const struct diag *d, const struct guard_opts *o,
		     const char *policy, const struct run_result *r)
{
	struct mode_probe pr;

	if (o->mode != MODE_NAMESPACES || o->ll_only != LL_ONLY_DENY ||
	    strcmp(r->stage, "mount") || r->code != EXIT_SYSCALL ||
	    mode_ns_probe(&o->needs, &pr) < 0 || pr.ok)
		return;
	fprintf(stderr, "%s: hint: %s does not permit Landlock-only mode, "
		"the way to run where namespaces are refused: add "
		"'landlock-only allow' to it (docs/SECURITY.md), or let "
		"pysbx-mount create namespaces (./build.sh install writes an "
		"AppArmor profile for it; docs/TROUBLESHOOTING.md)\n",
		d->prog, policy);
}
