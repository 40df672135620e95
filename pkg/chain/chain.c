#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "chain/chain.h"
#include "trust/trust.h"
#include "util/num.h"

#define PLAN_MAX_BYTES (4 << 20)
#define SEALS (F_SEAL_SEAL | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE)

void chain_init(struct chain *c, const char *usage)
{
	opterr = 0;	/* bad_option says it, on one line */
	memset(c, 0, sizeof(*c));
	c->plan_fd = c->report_fd = c->next_fd = -1;
	c->proxy_fd = c->notify_fd = -1;
	c->usage = usage;
}

static int fd_arg(struct diag *d, const char *opt, const char *arg, int *fd)
{
	long v;

	if (num_int(arg, 0, INT_MAX, &v))
		return diag_fail(d, EXIT_USAGE, 0,
				 "%s '%s' is not a file descriptor number",
				 opt, arg);
	*fd = (int)v;
	return 0;
}

/* --scratch-id DEV:INO:PATH (the guard's; pysbx-mount checks it). */
static int scratch_id_arg(struct diag *d, struct chain *c, const char *arg)
{
	unsigned long long dev, ino;
	int n = -1;

	if (sscanf(arg, "%llu:%llu:%n", &dev, &ino, &n) != 2 || n < 0 ||
	    arg[n] != '/')
		return diag_fail(d, EXIT_USAGE, 0, "--scratch-id '%s' is not "
				 "DEV:INO:PATH", arg);
	c->scratch_dev = dev;
	c->scratch_ino = ino;
	c->scratch_dir = arg + n;
	return 0;
}

/* An unknown option: which, the nearest option of any pysbx program, and
 * where the full usage is (it spans lines; a message is one). getopt's
 * own message is off (opterr = 0): one line, ours. */
static int bad_option(struct diag *d, const struct chain *c)
{
	static const char *const known[] = {
		"policy", "define", "allow-untrusted", "partial", "help",
		"version", "timeout", "kill-after", "status-fd",
		"scratch-parent", "die-with-parent", "report-denials", "sweep",
		"export",
		"list", "bpf", "log", "proxy-fd", NULL,
	};
	const char *w = c->argv && optind > 0 ? c->argv[optind - 1] : NULL;
	const char *cmd = c->front ? "pysbx run" : d->prog;
	const char *best = NULL;
	size_t bestd = 3;
	char name[64];

	if (!w || strncmp(w, "--", 2) || !w[2]) {
		if (optopt)
			return diag_fail(d, EXIT_USAGE, 0, "unknown option "
					 "'-%c' (see %s --help)", optopt, cmd);
		return diag_fail(d, EXIT_USAGE, 0, "bad option (see %s --help)",
				 cmd);
	}
	snprintf(name, sizeof(name), "%.*s", (int)strcspn(w + 2, "="), w + 2);
	for (const char *const *k = known; *k; k++) {
		size_t dist = policy_distance(name, *k);

		if (dist < bestd) {
			bestd = dist;
			best = *k;
		}
	}
	if (best && bestd && bestd < strlen(name))
		return diag_fail(d, EXIT_USAGE, 0, "unknown option '--%s' (did "
				 "you mean '--%s'?; see %s --help)", name,
				 best, cmd);
	return diag_fail(d, EXIT_USAGE, 0, "unknown option '--%s' (see %s "
			 "--help)", name, cmd);
}

int chain_opt(struct diag *d, struct chain *c, int opt, const char *arg)
{
	char err[256];

	switch (opt) {
	case 'p':
		if (c->policy)
			return diag_fail(d, EXIT_USAGE, 0,
					 "-p is given twice");
		c->policy = arg;
		return 1;
	case 'D':
		if (c->vars.n >= PLAN_MAX_DEFINES)
			return diag_fail(d, EXIT_USAGE, 0,
					 "too many -D variables (max %d)",
					 PLAN_MAX_DEFINES);
		if (vars_add_arg(&c->vars, arg, err, sizeof(err)))
			return diag_fail(d, EXIT_USAGE, 0, "%s", err);
		return 1;
	case CHAIN_OPT_PLAN_FD:
		return fd_arg(d, "--plan-fd", arg, &c->plan_fd) ? -1 : 1;
	case CHAIN_OPT_REPORT_FD:
		return fd_arg(d, "--report-fd", arg, &c->report_fd) ? -1 : 1;
	case CHAIN_OPT_NEXT_FD:
		/* The first is the next program's; the others are passed on
		 * to it, in order. */
		if (c->next_fd < 0)
			return fd_arg(d, "--next-fd", arg, &c->next_fd) ? -1 : 1;
		if (c->npass == CHAIN_MAX_PASS)
			return diag_fail(d, EXIT_USAGE, 0,
					 "more than %d --next-fd", CHAIN_MAX_PASS + 1);
		return fd_arg(d, "--next-fd", arg, &c->pass_fds[c->npass++]) ?
		       -1 : 1;
	case CHAIN_OPT_SCRATCH_ID:
		return scratch_id_arg(d, c, arg) ? -1 : 1;
	case CHAIN_OPT_NOTIFY_FD:
		return fd_arg(d, "--notify-fd", arg, &c->notify_fd) ? -1 : 1;
	case 'h':
		printf("usage: %s\n%s"
		       "common options:\n"
		       "  -p POLICY          read the policy (docs/POLICY.md)\n"
		       "  -D NAME=VALUE      define ${NAME}, taken verbatim\n"
		       "  --allow-untrusted  accept a policy others could change\n"
		       "%s"
		       "  --help, --version\n%s",
		       c->usage, c->help ? c->help : "", c->front ? "" :
		       "  --partial          apply only this step's part of the "
		       "policy: the other\n"
		       "                     steps' directives are applied "
		       "elsewhere (without it,\n"
		       "                     a policy that has some is refused)\n"
		       "  --plan-fd N, --report-fd N, --next-fd N, --notify-fd N,\n"
		       "  --scratch-id ID    set by the previous step of the "
		       "chain\n",
		       CHAIN_EXIT_CODES);
		exit(0);
	case CHAIN_OPT_VERSION:
		printf("%s %s\n", d->prog, PYSBX_VERSION);
		exit(0);
	case CHAIN_OPT_PARTIAL:
		c->partial = 1;
		return 1;
	case CHAIN_OPT_ALLOW_UNTRUSTED:
		c->allow_untrusted = 1;
		return 1;
	case '?':
		return bad_option(d, c);
	case ':':
		if (optopt > 0 && optopt < 128)
			return diag_fail(d, EXIT_USAGE, 0, "-%c needs a value "
					 "(see %s --help)", optopt,
					 c->front ? "pysbx run" : d->prog);
		return diag_fail(d, EXIT_USAGE, 0, "%s needs a value (see %s "
				 "--help)", c->argv && optind > 0 &&
				 c->argv[optind - 1] ? c->argv[optind - 1] :
				 "an option", c->front ? "pysbx run" : d->prog);
	}
	return 0;
}

int chain_args_done(struct diag *d, struct chain *c, int argc, char **argv)
{
	if (optind >= argc)
		return diag_fail(d, EXIT_USAGE, 0,
				 "no program to run (usage: %.*s)",
				 (int)strcspn(c->usage, "\n"), c->usage);
	if (c->policy && c->plan_fd >= 0)
		return diag_fail(d, EXIT_USAGE, 0,
				 "-p and --plan-fd exclude each other");
	c->next = argv + optind;
	return 0;
}

int chain_output_fd(struct diag *d, int fd, const char *opt)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl < 0 || (fl & O_ACCMODE) == O_RDONLY)
		return diag_fail(d, EXIT_USAGE, fl < 0 ? errno : 0,
				 "%s %d is not open for writing", opt, fd);
	/* Never let it reach the target: only chain_exec re-opens the
	 * report fd, for a later step. */
	if (fcntl(fd, F_SETFD, FD_CLOEXEC) < 0)
		return diag_fail(d, EXIT_SYSCALL, errno,
				 "unable to set close-on-exec on fd %d", fd);
	return 0;
}

int chain_scratch_var(struct diag *d, const struct vars *v,
		      enum scratch_mode mode)
{
	if (mode != SCRATCH_CREATE)
		return 0;
	for (size_t i = 0; i < v->n; i++)
		if (!strcmp(v->name[i], "SCRATCH"))
			return diag_fail(d, EXIT_USAGE, 0,
					 "-D SCRATCH=...: SCRATCH is the "
					 "directory the guard creates");
	return 0;
}

void chain_resolve_vars(struct vars *v)
{
	struct stat cwd, st;
	char *real;

	if (stat(".", &cwd) < 0)
		return;
	for (size_t i = 0; i < v->n; i++) {
		/* Only the directory the caller stands in: an earlier
		 * sandbox could have planted a link anywhere below a
		 * writable workspace, and following it would bind
		 * whatever the link names. getcwd() has no symlinks. */
		if (v->value[i][0] != '/' || stat(v->value[i], &st) < 0 ||
		    st.st_dev != cwd.st_dev || st.st_ino != cwd.st_ino ||
		    !(real = getcwd(NULL, 0)))
			continue;
		if (strcmp(real, v->value[i]))
			v->value[i] = real;	/* lives until exit */
		else
			free(real);
	}
}

/* --notify-fd: a socket (pid 1's socketpair), never the target's. */
static int notify_fd_check(struct diag *d, int fd)
{
	struct stat st;

	if (fstat(fd, &st) < 0 || !S_ISSOCK(st.st_mode))
		return diag_fail(d, EXIT_USAGE, 0,
				 "--notify-fd %d is not a socket", fd);
	if (fcntl(fd, F_SETFD, FD_CLOEXEC) < 0)
		return diag_fail(d, EXIT_SYSCALL, errno,
				 "unable to set close-on-exec on fd %d", fd);
	return 0;
}

/* The parser's diagnostics. Not on the stack: 10 KiB of messages there
 * would push the parser's frames onto pages of their own, a page fault
 * each in every run (the messages are written only on error). */
static struct perr perr;

int chain_load_plan(struct diag *d, struct chain *c, struct plan *p,
		    unsigned parse_flags)
{
	struct perr *e = &perr;

	if (c->report_fd >= 0) {
		if (chain_output_fd(d, c->report_fd, "--report-fd") < 0)
			return -1;
		d->report_fd = c->report_fd;
	}
	/* Never the target's: only chain_exec hands it to a later step. */
	if (c->next_fd >= 0 && fcntl(c->next_fd, F_SETFD, FD_CLOEXEC) < 0)
		return diag_fail(d, EXIT_USAGE, errno,
				 "--next-fd %d is not an open file",
				 c->next_fd);
	for (unsigned i = 0; i < c->npass; i++)
		if (fcntl(c->pass_fds[i], F_SETFD, FD_CLOEXEC) < 0)
			return diag_fail(d, EXIT_USAGE, errno,
					 "--next-fd %d is not an open file",
					 c->pass_fds[i]);
	if (c->notify_fd >= 0 && notify_fd_check(d, c->notify_fd) < 0)
		return -1;
	if (plan_init(p) < 0)
		return diag_fail(d, EXIT_SYSCALL, ENOMEM,
				 "unable to allocate the plan");
	if (c->plan_fd >= 0)
		return plan_read_fd(d, c->plan_fd, p, parse_flags);
	if (!c->policy)
		return 0;
	chain_resolve_vars(&c->vars);
	if (policy_parse_file(p, c->policy, &c->vars, parse_flags, e) < 0) {
		perr_print(e, d->prog, c->policy);
		return diag_fail(d, EXIT_USAGE, 0, "invalid policy %s",
				 c->policy);
	}
	if (!c->allow_untrusted && trust_plan(d, p) < 0)
		return -1;
	if (chain_check_applied(d, c, p) < 0)
		return -1;
	return 0;
}

int plan_seal(struct diag *d, const struct plan *p)
{
	int fd, err;

	fd = memfd_create("pysbx-plan", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0)
		return diag_fail(d, EXIT_SYSCALL, errno,
				 "unable to create the plan memfd");
	/* Written through one page: the whole text in one heap buffer took
	 * 2-5 pages of the guard for as long as the sandbox runs (a plan
	 * passes 8 KiB once its paths are long). */
	err = plan_write(p, fd);
	if (err) {
		close(fd);
		return diag_fail(d, EXIT_SYSCALL, err, err == ENOMEM ?
				 "unable to serialise the plan" :
				 "unable to write the plan memfd");
	}
	if (fcntl(fd, F_ADD_SEALS, SEALS) < 0) {
		close(fd);
		return diag_fail(d, EXIT_SYSCALL, errno,
				 "unable to seal the plan memfd");
	}
	return fd;
}

int plan_read_fd(struct diag *d, int fd, struct plan *p, unsigned flags)
{
	struct perr *e = &perr;
	struct stat st;
	char *buf;
	size_t off = 0;
	int seals;

	seals = fcntl(fd, F_GET_SEALS);
	if (seals < 0)
		return diag_fail(d, EXIT_USAGE, errno,
				 "--plan-fd %d is not a sealed memfd", fd);
	/* Without these seals another holder of the fd could change the
	 * plan between two steps' reads. */
	if ((seals & SEALS) != SEALS)
		return diag_fail(d, EXIT_USAGE, 0,
				 "--plan-fd %d is not sealed against writes "
				 "(seals 0x%x)", fd, (unsigned)seals);
	if (fcntl(fd, F_SETFD, FD_CLOEXEC) < 0 || fstat(fd, &st) < 0)
		return diag_fail(d, EXIT_SYSCALL, errno,
				 "unable to inspect --plan-fd %d", fd);
	if (st.st_size <= 0 || st.st_size > PLAN_MAX_BYTES)
		return diag_fail(d, EXIT_USAGE, 0,
				 "--plan-fd %d holds %lld bytes, not a plan",
				 fd, (long long)st.st_size);
	/* In the plan's arena: the parser splits it in place and the
	 * plan's strings point into it, no copy of each word. */
	buf = plan_text_buf(p, (size_t)st.st_size);
	if (!buf)
		return diag_fail(d, EXIT_SYSCALL, ENOMEM,
				 "unable to read the plan");
	/* pread: the file offset is shared with every other step. */
	while (off < (size_t)st.st_size) {
		ssize_t r = pread(fd, buf + off, (size_t)st.st_size - off,
				  (off_t)off);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return diag_fail(d, EXIT_SYSCALL, r ? errno : EIO,
					 "unable to read --plan-fd %d", fd);
		off += (size_t)r;
	}
	if (policy_parse_plan_inplace(p, buf, off, flags, e) < 0)
		return diag_fail(d, EXIT_USAGE, 0, "malformed plan on fd %d: %s",
				 fd, e->n ? e->msg[0] : "?");
	return 0;
}

int chain_is_step(const char *argv0)
{
	const char *b = strrchr(argv0, '/');

	b = b ? b + 1 : argv0;
	return !strcmp(b, "pysbx-mount") || !strcmp(b, "pysbx-exec") ||
	       !strcmp(b, "pysbx-landlock") || !strcmp(b, "pysbx-seccomp");
}

/* The canonical order; -1 for anything else. */
static int step_rank(const char *name)
{
	static const char *const order[] = { "clean", "mount", "exec",
					     "landlock", "seccomp" };

	for (int i = 0; i < 5; i++)
		if (!strcmp(name, order[i]))
			return i;
	return -1;
}

int chain_step_after(const char *stage, const char *argv0)
{
	const char *b = strrchr(argv0, '/');

	b = b ? b + 1 : argv0;
	if (!chain_is_step(argv0))
		return 0;
	return step_rank(b + strlen("pysbx-")) > step_rank(stage);
}

int chain_takes_value(const char *opt)
{
	static const char *const with_value[] = {
		"-p", "-D", "--policy", "--define", "--plan-fd", "--report-fd",
		"--next-fd", "--export", "--bpf", "--abi", "--paths",
		"--proxy-fd", "--notify-fd", NULL,
	};

	for (const char *const *w = with_value; *w; w++)
		if (!strcmp(opt, *w))
			return 1;
	return 0;
}

int chain_seccomp_follows(const char *stage, char **next)
{
	return chain_step_follows(stage, next, "seccomp");
}

int chain_step_follows(const char *stage, char **next, const char *want)
{
	size_t i = 0;

	while (next[i] && chain_step_after(stage, next[i])) {
		stage = strrchr(next[i], '-') + 1;
		if (!strcmp(stage, want))
			return 1;
		/* Its options; then "--" or the first other word: the next
		 * program (getopt's "+", as every step parses). */
		for (i++; next[i] && next[i][0] == '-' && next[i][1]; i++) {
			if (!strcmp(next[i], "--")) {
				i++;
				break;
			}
			if (chain_takes_value(next[i]) && next[i + 1])
				i++;
		}
	}
	return 0;
}

/* The file a bare name names in PATH, as chain_execvpe would exec it
 * (the first executable entry), into buf; a name with '/' as it is. */
static const char *find_prog(const char *name, char *const envp[],
			     char *buf, size_t len)
{
	const char *p, *e;

	if (strchr(name, '/'))
		return name;
	for (p = chain_env_path(envp);; p = e + 1) {
		e = strchrnul(p, ':');
		if (snprintf(buf, len, "%.*s%s%s", (int)(e - p), p,
			     e > p ? "/" : "", name) < (int)len &&
		    access(buf, X_OK) == 0)
			return buf;
		if (!*e)
			return name;	/* the open names what is missing */
	}
}

static int open_prog(struct diag *d, const struct chain *c,
		     const struct plan *p, const char *name,
		     char *const envp[])
{
	char buf[PATH_MAX];

	return trust_open_prog(d, p, find_prog(name, envp, buf, sizeof(buf)),
			       !c->allow_untrusted);
}

/* The index in next of the pysbx step that next[i] runs after its own
 * options (as chain_seccomp_follows walks them), or 0 if none. */
static size_t step_after_next(char **next, size_t i)
{
	const char *stage = strrchr(next[i], '-') + 1;

	for (i++; next[i] && next[i][0] == '-' && next[i][1]; i++) {
		if (!strcmp(next[i], "--")) {
			i++;
			break;
		}
		if (chain_takes_value(next[i]) && next[i + 1])
			i++;
	}
	return next[i] && chain_step_after(stage, next[i]) ? i : 0;
}

int chain_drop_step(char **next, const char *name)
{
	size_t i = 0, j, n;

	while (next[i]) {
		const char *b = strrchr(next[i], '/');

		b = b ? b + 1 : next[i];
		if (!chain_is_step(next[i]))
			return 0;
		if (!strcmp(b, name))
			break;
		if (!(i = step_after_next(next, i)))
			return 0;
	}
	if (!next[i])
		return 0;
	/* Its options up to and including "--", as getopt's "+" sees
	 * them; the next program starts at j. */
	for (j = i + 1; next[j] && next[j][0] == '-' && next[j][1]; j++) {
		if (!strcmp(next[j], "--")) {
			j++;
			break;
		}
		if (chain_takes_value(next[j]) && next[j + 1])
			j++;
	}
	for (n = 0; next[j + n]; n++)
		next[i + n] = next[j + n];
	next[i + n] = NULL;
	return 1;
}

int chain_open_next(struct diag *d, struct chain *c, const struct plan *p,
		    char *const envp[], bool both)
{
	size_t i = 0;

	if (!chain_step_after(d->stage, c->next[0]))
		return 0;	/* the target: exec'd by name, later */
	if (c->next_fd >= 0) {
		if (c->allow_untrusted)
			return 0;
		if (trust_prog_fd(d, c->next_fd, c->next[0]) < 0)
			return -1;
		for (unsigned k = 0; k < c->npass; k++)
			if (trust_prog_fd(d, c->pass_fds[k], "a later step") < 0)
				return -1;
		return 0;
	}
	c->next_fd = open_prog(d, c, p, c->next[0], envp);
	if (c->next_fd < 0)
		return -1;
	while (both && c->npass < CHAIN_MAX_PASS &&
	       (i = step_after_next(c->next, i))) {
		int fd = open_prog(d, c, p, c->next[i], envp);

		if (fd < 0)
			return -1;
		c->pass_fds[c->npass++] = fd;
	}
	return 0;
}

int chain_execveat(int fd, char **argv, char *const envp[])
{
	syscall(SYS_execveat, fd, "", argv, envp, AT_EMPTY_PATH);
	if (errno != ENOENT)
		return errno;
	/* A "#!" script (a test's stand-in for a step; the real steps are
	 * static ELF programs): its interpreter opens /dev/fd/N, which
	 * close-on-exec would have closed. It inherits the fd. */
	if (fcntl(fd, F_SETFD, 0) < 0)
		return errno;
	syscall(SYS_execveat, fd, "", argv, envp, AT_EMPTY_PATH);
	return errno;
}

const char *chain_env_path(char *const envp[])
{
	for (size_t i = 0; envp && envp[i]; i++)
		if (!strncmp(envp[i], "PATH=", 5))
			return envp[i] + 5;
	return "/usr/local/bin:/usr/bin:/bin";
}

int chain_execvpe(const char *file, char **argv, char *const envp[])
{
	const char *path = chain_env_path(envp), *p, *e;
	size_t flen = strlen(file);
	char buf[PATH_MAX];
	int seen_eacces = 0;

	if (strchr(file, '/')) {
		execve(file, argv, envp);
		return errno;
	}
	if (!*file || flen > NAME_MAX)
		return ENOENT;
	for (p = path;; p = e + 1) {
		size_t n;

		e = strchrnul(p, ':');
		n = (size_t)(e - p);
		if (n + 1 + flen < sizeof(buf)) {
			char *q = buf;

			/* memcpy, not stdio: a CLONE_VFORK child runs this */
			if (n) {
				memcpy(q, p, n);
				q += n;
				*q++ = '/';
			}
			memcpy(q, file, flen + 1);
			execve(buf, argv, envp);
			if (errno == EACCES)
				seen_eacces = 1;
			else if (errno != ENOENT && errno != ENOTDIR)
				return errno;
		}
		if (!*e)
			break;
	}
	return seen_eacces ? EACCES : ENOENT;
}

/* ENOENT from execve of a file that exists: chain_explain_enoent on
 * the file, or on the first one of that name in PATH. */
static int explain_enoent(struct diag *d, const char *what, const char *file,
			  char *const envp[])
{
	const char *p, *e;
	char buf[PATH_MAX];

	if (strchr(file, '/'))
		return chain_explain_enoent(d, what, file, 0);
	for (p = chain_env_path(envp);; p = e + 1) {
		e = strchrnul(p, ':');
		if (snprintf(buf, sizeof(buf), "%.*s/%s", (int)(e - p), p,
			     file) < (int)sizeof(buf) &&
		    e > p && access(buf, X_OK) == 0)
			return chain_explain_enoent(d, what, buf, 0);
		if (!*e)
			return -1;
	}
}

int chain_exec(struct diag *d, struct chain *c, char *const envp[])
{
	char **argv = c->next, **nargv = NULL;
	const char *what = "";
	char pfd[16], rfd[16], nfd[16], xfd[CHAIN_MAX_PASS][16];
	int err;

	if (chain_step_after(d->stage, argv[0]) &&
	    (c->plan_fd >= 0 || c->report_fd >= 0 || c->npass ||
	     c->notify_fd >= 0 || c->allow_untrusted)) {
		size_t n = 0, k = 1;

		while (argv[n])
			n++;
		nargv = calloc(n + 10 + 2 * CHAIN_MAX_PASS, sizeof(*nargv));
		if (!nargv)
			return diag_fail(d, EXIT_SYSCALL, ENOMEM,
					 "unable to build the next argv");
		nargv[0] = argv[0];
		if (c->plan_fd >= 0) {
			snprintf(pfd, sizeof(pfd), "%d", c->plan_fd);
			nargv[k++] = "--plan-fd";
			nargv[k++] = pfd;
			fcntl(c->plan_fd, F_SETFD, 0);
		}
		if (c->report_fd >= 0) {
			snprintf(rfd, sizeof(rfd), "%d", c->report_fd);
			nargv[k++] = "--report-fd";
			nargv[k++] = rfd;
			fcntl(c->report_fd, F_SETFD, 0);
		}
		if (c->notify_fd >= 0) {
			snprintf(nfd, sizeof(nfd), "%d", c->notify_fd);
			nargv[k++] = "--notify-fd";
			nargv[k++] = nfd;
			fcntl(c->notify_fd, F_SETFD, 0);
		}
		for (unsigned i = 0; i < c->npass; i++) {
			snprintf(xfd[i], sizeof(xfd[i]), "%d", c->pass_fds[i]);
			nargv[k++] = "--next-fd";
			nargv[k++] = xfd[i];
			fcntl(c->pass_fds[i], F_SETFD, 0);
		}
		if (c->allow_untrusted)
			nargv[k++] = "--allow-untrusted";
		memcpy(nargv + k, argv + 1, n * sizeof(*nargv));
		argv = nargv;
	}
	/* The very file that was checked, whatever its name leads to now
	 * (after pivot_root: nothing). Close-on-exec, and the steps are
	 * static ELF programs: no interpreter needs to reopen it by name. */
	if (c->next_fd >= 0 && chain_step_after(d->stage, argv[0])) {
		err = chain_execveat(c->next_fd, argv, envp);
	} else {
		err = chain_execvpe(argv[0], argv, envp);
	}
	for (unsigned i = 0; i < c->npass; i++)
		fcntl(c->pass_fds[i], F_SETFD, FD_CLOEXEC);
	if (c->plan_fd >= 0)
		fcntl(c->plan_fd, F_SETFD, FD_CLOEXEC);
	if (c->report_fd >= 0)
		fcntl(c->report_fd, F_SETFD, FD_CLOEXEC);
	if (c->notify_fd >= 0)
		fcntl(c->notify_fd, F_SETFD, FD_CLOEXEC);
	free(nargv);
	/* The target's own failure, in the chain: the user's program, not
	 * the step that happened to exec it, is what failed. */
	if (!chain_is_step(c->next[0]) && c->plan_fd >= 0) {
		what = "the target ";
		d->prog = "pysbx";
	}
	if (err == ENOENT && explain_enoent(d, what, c->next[0], envp) == 0)
		;	/* the file is there, its interpreter is not */
	else if (err == ENOENT || err == ENOTDIR)
		diag_fail(d, EXIT_NOTFOUND, err, "unable to find %s%s%s%s",
			  what, c->next[0],
			  strchr(c->next[0], '/') ? "" : " in PATH=",
			  strchr(c->next[0], '/') ? "" : chain_env_path(envp));
	else
		diag_fail(d, EXIT_NOEXEC, err, "unable to execute %s%s", what,
			  c->next[0]);
	return -1;
}

int chain_report_status(int fd, int status)
{
	char line[160];
	int n;

	if (fd < 0)
		return 0;
	n = snprintf(line, sizeof(line),
		     "{\"stage\":\"target\",\"status\":%d,\"exit\":%d,"
		     "\"signal\":%d}\n",
		     status, WIFEXITED(status) ? WEXITSTATUS(status) : -1,
		     WIFSIGNALED(status) ? WTERMSIG(status) : 0);
	return write(fd, line, (size_t)n) == n ? 0 : -1;
}
