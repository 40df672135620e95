/* `pysbx session`: options, the session's scratch directory, signals,
 * then the loop (host.c). */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <unistd.h>

#include "front/front.h"
#include "session/host.h"
#include "trust/trust.h"

enum {
	OPT_WORKSPACE = 0x3000,
	OPT_FRESH,
	OPT_SCRATCH_PARENT,
	OPT_PYTHON,
	OPT_WORKER,
	OPT_ALLOW_UNTRUSTED,
};

/* Variables the session sets itself. */
static const char *const own_vars[] = { "SESSION_FD", "SCRATCH_MODE",
					"SCRATCH_DIR", "SCRATCH" };

/* The directory of this binary, and beside it where the policies are:
 * DIR/../share/pysbx/policies once installed, DIR/../../policies in a
 * build tree (build/bin). */
static int self_dir(struct diag *d, char *dir, size_t len)
{
	ssize_t n = readlink("/proc/self/exe", dir, len - 1);
	char *slash;

	if (n < 0)
		return diag_fail(d, EXIT_SYSCALL, errno,
				 "unable to read /proc/self/exe");
	dir[n] = '\0';
	slash = strrchr(dir, '/');
	if (!slash || slash == dir)
		return diag_fail(d, EXIT_SYSCALL, 0,
				 "unable to locate the pysbx programs");
	*slash = '\0';
	return 0;
}

static char *find(const char *dir, const char *const *where, size_t n,
		  const char *name)
{
	char path[PATH_MAX + 64];
	struct stat st;

	for (size_t i = 0; i < n; i++) {
		if ((size_t)snprintf(path, sizeof(path), "%.*s%s%.32s",
				     PATH_MAX - 32, dir, where[i], name) >=
		    sizeof(path))
			continue;
		if (stat(path, &st) == 0 && S_ISREG(st.st_mode))
			return realpath(path, NULL);
	}
	return NULL;
}

static char *shipped(const char *dir, const char *name)
{
	static const char *const where[] = { "/../share/pysbx/policies/",
					     "/../../policies/" };

	return find(dir, where, 2, name);
}

/* The worker's code, compiled at build time (the Makefile's py_compile,
 * unchecked-hash): installed beside the policies, build/policies in a
 * build tree. The worker checks it against the source it is given and
 * compiles the source instead when it does not match. */
static char *shipped_pyc(const char *dir)
{
	static const char *const where[] = { "/../share/pysbx/policies/",
					     "/../policies/" };

	return find(dir, where, 2, "session_worker.pyc");
}

/* A file of at most max bytes, read whole; text: no NUL byte. */
static char *read_worker(struct diag *d, const char *path, size_t max,
			 bool text, size_t *lenp)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t len = 0;
	char *buf = malloc(max + 1);
	ssize_t k;

	if (fd < 0 || !buf) {
		free(buf);
		if (fd >= 0)
			close(fd);
		diag_fail(d, EXIT_USAGE, errno, "unable to open the worker %s",
			  path);
		return NULL;
	}
	while ((k = read(fd, buf + len, max + 1 - len)) > 0)
		len += (size_t)k;
	close(fd);
	if (k < 0 || len > max || (text && memchr(buf, '\0', len))) {
		free(buf);
		diag_fail(d, EXIT_USAGE, k < 0 ? errno : 0, "unable to read the "
			  "worker %s%s", path, k < 0 ? "" : text ? ": over 64 "
			  "KiB or not text" : ": too large");
		return NULL;
	}
	buf[len] = '\0';
	*lenp = len;
	return buf;
}

static int var(struct diag *d, struct sess *s, char *arg)
{
	char *eq = strchr(arg, '=');
	size_t n = eq ? (size_t)(eq - arg) : 0;

	if (!eq || !n)
		return diag_fail(d, EXIT_USAGE, 0, "-D '%s' is not NAME=VALUE",
				 arg);
	for (size_t i = 0; i < sizeof(own_vars) / sizeof(own_vars[0]); i++)
		if (strlen(own_vars[i]) == n && !strncmp(arg, own_vars[i], n))
			return diag_fail(d, EXIT_USAGE, 0, "-D %s is set by the "
					 "session itself", own_vars[i]);
	if (n == 9 && !strncmp(arg, "WORKSPACE", 9))
		s->workspace = eq + 1;
	else if (n == 15 && !strncmp(arg, "WORKSPACE_MOUNT", 15))
		s->ws_mount = eq + 1;
	else if (n == 10 && !strncmp(arg, "READ_ROOTS", 10))
		s->read_roots = eq + 1;
	else if (s->nvars == SESS_VARS_MAX)
		return diag_fail(d, EXIT_USAGE, 0, "more than %d -D",
				 SESS_VARS_MAX);
	else
		s->vars[s->nvars++] = arg;
	return 0;
}

static int parse(struct diag *d, struct sess *s, const char **parent,
		 const char **worker, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "policy", required_argument, NULL, 'p' },
		{ "define", required_argument, NULL, 'D' },
		{ "help", no_argument, NULL, 'h' },
		{ "workspace", required_argument, NULL, OPT_WORKSPACE },
		{ "fresh", no_argument, NULL, OPT_FRESH },
		{ "scratch-parent", required_argument, NULL,
		  OPT_SCRATCH_PARENT },
		{ "python", required_argument, NULL, OPT_PYTHON },
		{ "worker", required_argument, NULL, OPT_WORKER },
		{ "allow-untrusted", no_argument, NULL, OPT_ALLOW_UNTRUSTED },
		{ 0 },
	};
	int opt;

	optind = 0;
	while ((opt = getopt_long(argc, argv, "+p:D:h", longopts, NULL)) !=
	       -1) {
		switch (opt) {
		case 'p':
			s->policy = optarg;
			break;
		case 'D':
			if (var(d, s, optarg) < 0)
				return -1;
			break;
		case 'h':
			printf("usage: %s\n", SESSION_USAGE);
			return 1;
		case OPT_WORKSPACE:
			s->workspace = optarg;
			break;
		case OPT_FRESH:
			s->fresh = true;
			break;
		case OPT_SCRATCH_PARENT:
			*parent = optarg;
			break;
		case OPT_PYTHON:
			s->python = optarg;
			break;
		case OPT_WORKER:
			*worker = optarg;
			break;
		case OPT_ALLOW_UNTRUSTED:
			s->allow_untrusted = true;
			break;
		default:
			return diag_fail(d, EXIT_USAGE, 0, "bad option (usage: "
					 "pysbx session --help)");
		}
	}
	if (optind != argc)
		return diag_fail(d, EXIT_USAGE, 0, "pysbx session takes no "
				 "program (usage: pysbx session --help)");
	if (s->ws_mount && strcmp(s->ws_mount, "bind") &&
	    strcmp(s->ws_mount, "ro-bind"))
		return diag_fail(d, EXIT_USAGE, 0, "-D WORKSPACE_MOUNT must be "
				 "bind or ro-bind");
	return 0;
}

/* The scratch directory lives as long as the session: made like the
 * guard's (random name under a checked parent, flock'ed), then its lock
 * is made shared, so that each guard can adopt it (a shared lock too)
 * while a --sweep (exclusive) still sees it taken. A sweep that slipped in
 * while the lock changed (flock converts by dropping and taking again)
 * took or removed it: then another one is made. */
static int scratch(struct diag *d, struct sess *s, const char *parent)
{
	for (int tries = 0; tries < 8; tries++) {
		struct stat st;

		if (scratch_create(d, &s->scratch, parent) < 0)
			return -1;
		if (!s->scratch.lock_file &&
		    flock(s->scratch.lock_fd, LOCK_SH | LOCK_NB) == 0 &&
		    fstat(s->scratch.lock_fd, &st) == 0 && st.st_nlink > 0)
			return 0;
		if (s->scratch.lock_file)
			return diag_fail(d, EXIT_SYSCALL, EOPNOTSUPP,
					 "unable to lock the scratch directory "
					 "%s", s->scratch.path);
		scratch_remove(&(struct diag)DIAG_INIT(d->prog, d->stage),
			       &s->scratch);
		scratch_init(&s->scratch);
	}
	return diag_fail(d, EXIT_SYSCALL, EBUSY, "unable to keep a scratch "
			 "directory under %s (a sweep removes them)", parent);
}

/* Before serving: the policy parses with the session's variables, and
 * keeps the worker's channel. Ours it does not use are left out (an
 * unused -D is an error). Nothing is started. */
static int check_policy(struct diag *d, struct sess *s)
{
	struct probe pr;

	if (sess_probe(s, 0, s->ws_mount ? s->ws_mount : "ro-bind",
		       s->read_roots ? s->read_roots : "", &pr) < 0)
		return diag_fail(d, EXIT_SYSCALL, errno, "unable to check the "
				 "policy %s", s->policy);
	if (pr.errors) {
		diag_fail(d, EXIT_USAGE, 0, "the policy does not parse: %s",
			  pr.first);
		return -1;
	}
	if (pr.unused & (1u << OWN_SESSION_FD)) {
		diag_fail(d, EXIT_USAGE, 0, "the policy %s does not keep the "
			  "worker's channel", s->policy);
		diag_hint(d, "add the line: keep-fd ${SESSION_FD:-}");
		return -1;
	}
	s->omit = pr.unused;
	return 0;
}

static void *region(size_t n)
{
	void *p = mmap(NULL, n, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

int session_main(int argc, char **argv)
{
	static struct sess s;
	struct diag d = DIAG_INIT("pysbx", "session");
	const char *parent = "/tmp", *worker = NULL;
	char *wpath = NULL, *pyc = NULL, *cwd = NULL;
	sigset_t mask;
	int r;

	s.sock = s.out = s.err = s.sfd = -1;
	s.python = "/usr/bin/python3";
	scratch_init(&s.scratch);
	r = parse(&d, &s, &parent, &worker, argc, argv);
	if (r)
		return r > 0 ? 0 : (diag_emit(&d), d.code);
	if (self_dir(&d, s.dir, sizeof(s.dir)) < 0)
		goto fail;
	/* -p python: a shipped policy by its name, as for pysbx run. */
	if (s.policy && front_policy_path(&d, s.policy, &s.policy) < 0)
		goto fail;
	if (!s.policy && !(s.policy = shipped(s.dir, "python.policy"))) {
		diag_fail(&d, EXIT_USAGE, 0, "unable to find python.policy "
			  "beside %s (give -p POLICY)", s.dir);
		goto fail;
	}
	if (!worker && !(worker = wpath = shipped(s.dir,
						  "session_worker.py"))) {
		diag_fail(&d, EXIT_USAGE, 0, "unable to find session_worker.py "
			  "beside %s (give --worker FILE)", s.dir);
		goto fail;
	}
	/* The worker runs with the workspace and /scratch of every session:
	 * like a policy, nobody but its owner or root may change it. */
	if (!s.allow_untrusted && trust_path(&d, worker, "session worker") < 0)
		goto fail;
	if (!(s.worker_src = read_worker(&d, worker, SESS_WORKER_MAX, true,
					 &s.worker_len)))
		goto fail;
	/* The shipped worker's code, if it was built. */
	if (wpath && (pyc = shipped_pyc(s.dir)) &&
	    ((!s.allow_untrusted &&
	      trust_path(&d, pyc, "session worker") < 0) ||
	     !(s.worker_pyc = read_worker(&d, pyc, SESS_PYC_MAX, false,
					  &s.pyc_len))))
		goto fail;
	free(pyc);
	free(wpath);
	if (!s.workspace && !(s.workspace = cwd = getcwd(NULL, 0))) {
		diag_fail(&d, EXIT_SYSCALL, errno, "unable to get the current "
			  "directory (give --workspace DIR)");
		goto fail;
	}
	s.cout.p = region(SESS_OUTPUT_MAX);
	s.cerr.p = region(SESS_OUTPUT_MAX);
	s.fbuf = region(SESS_FRAME_MAX);
	if (!s.cout.p || !s.cerr.p || !s.fbuf) {
		diag_fail(&d, EXIT_SYSCALL, ENOMEM, "unable to map buffers");
		goto fail;
	}
	/* Orphans of a killed guard come to us, so that the host can wait
	 * until the whole sandbox is gone. */
	if (prctl(PR_SET_CHILD_SUBREAPER, 1) < 0) {
		diag_fail(&d, EXIT_SYSCALL, errno, "unable to become a child "
			  "subreaper");
		goto fail;
	}
	sigemptyset(&mask);
	sigaddset(&mask, SIGCHLD);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGHUP);
	signal(SIGPIPE, SIG_IGN);
	if (sigprocmask(SIG_BLOCK, &mask, NULL) < 0 ||
	    (s.sfd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC)) < 0) {
		diag_fail(&d, EXIT_SYSCALL, errno, "unable to set up signals");
		goto fail;
	}
	if (scratch(&d, &s, parent) < 0 || check_policy(&d, &s) < 0)
		goto fail;
	if (sess_serve(&s) < 0)
		diag_fail(&d, EXIT_SYSCALL, ENOMEM, "unable to map buffers");
	if (scratch_remove(&d, &s.scratch) < 0)
		diag_warn(&d, "%s; left for pysbx-clean --sweep", d.msg);
	free(cwd);
	if (d.code)
		goto fail;
	return s.quit ? 128 + s.quit : 0;
fail:
	scratch_remove(&(struct diag)DIAG_INIT(d.prog, d.stage), &s.scratch);
	diag_emit(&d);
	return d.code ? d.code : EXIT_SYSCALL;
}
