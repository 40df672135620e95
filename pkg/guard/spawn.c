/* Starting the sandbox's first process the way posix_spawn does: clone
 * with CLONE_VM | CLONE_VFORK on a small stack of its own, so that the
 * guard's address space is never copied (no page tables to duplicate, no
 * copy-on-write faults afterwards) and the guard resumes once the child
 * has exec'd or exited.
 *
 * The child shares the guard's memory until its exec: it only makes
 * system calls (setpgid, prctl, getppid, fcntl, sigprocmask, execve) and
 * writes its failure into the shared struct spawn; everything that could
 * allocate, lock or print (the argv with --plan-fd/--report-fd, the
 * environment, the messages) is done by the guard, before and after.
 * Every signal is blocked across the clone, so that no handler could ever
 * run on the child's stack over the guard's memory (the guard installs
 * none today); the child restores the caller's mask just before execve. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "guard/guard.h"

extern char **environ;

enum { SP_OK, SP_PGID, SP_PDEATH, SP_EXEC };

struct spawn {
	const char *file;	/* c->next[0]: a path, or a name for PATH */
	int fd;			/* c->next_fd: exec'd instead of file */
	char **argv;
	char **envp;
	const char *path;	/* PATH of envp, for a name without '/' */
	const sigset_t *mask;	/* restored just before the exec */
	pid_t guard;
	int inherit[3];		/* fds whose close-on-exec is cleared */
	int cgroup;		/* the sandbox's cgroup.procs, or -1 */
	/* written by the child, read by the guard after the clone */
	volatile int what, err;
};

/* The child's only exit on failure: the reason is in the shared struct,
 * the message is the guard's to print. */
static int child_fail(struct spawn *s, int what, int err, int code)
{
	s->err = err;
	s->what = what;
	_exit(code);
}

static int child(void *arg)
{
	struct spawn *s = arg;
	int err;

	if (setpgid(0, 0) < 0)
		child_fail(s, SP_PGID, errno, EXIT_SYSCALL);
	/* Standalone, this is what stops the target when the guard is
	 * SIGKILLed (in the chain, pysbx-mount's monitor does the same and
	 * the pid namespace takes the rest). getppid() closes the race
	 * with a guard that died before the prctl. */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != s->guard)
		child_fail(s, SP_PDEATH, 0, EXIT_SYSCALL);
	/* Into the sandbox's own cgroup, if there is one: what this
	 * process becomes and every process it starts are killed by one
	 * write to cgroup.kill. If the move fails, the kill loop still
	 * finds them all. */
	if (s->cgroup >= 0)
		(void)!write(s->cgroup, "0", 1);
	for (int i = 0; i < 3; i++)
		if (s->inherit[i] >= 0)
			fcntl(s->inherit[i], F_SETFD, 0);
	sigprocmask(SIG_SETMASK, s->mask, NULL);
	/* A pysbx step: the file chain_open_next checked. A path: execve
	 * itself, as chain_execvpe would, without its PATH_MAX buffer one
	 * page further down the stack. */
	if (s->fd >= 0) {
		err = chain_execveat(s->fd, s->argv, s->envp);
	} else if (strchr(s->file, '/')) {
		execve(s->file, s->argv, s->envp);
		err = errno;
	} else {
		err = chain_execvpe(s->file, s->argv, s->envp);
	}
	child_fail(s, SP_EXEC, err, err == ENOENT || err == ENOTDIR ?
		   EXIT_NOTFOUND : EXIT_NOEXEC);
	return 0;
}

/* environ plus extra ("NAME=VALUE", replacing NAME), as putenv would. */
static char **build_env(const char *extra)
{
	size_t n = 0, k = 0, nlen;
	char **e;

	if (!extra)
		return environ;
	nlen = strcspn(extra, "=") + 1;
	while (environ[n])
		n++;
	e = calloc(n + 2, sizeof(*e));
	if (!e)
		return NULL;
	for (size_t i = 0; i < n; i++)
		if (strncmp(environ[i], extra, nlen))
			e[k++] = environ[i];
	e[k++] = (char *)extra;
	return e;
}

/* c->next with `--plan-fd N --report-fd M` after argv[0] for a pysbx
 * step, as chain_exec passes them, and `--proxy-fd K` when the guard
 * made the egress proxy's socketpair (only for pysbx-mount). */
static char **build_argv(struct chain *c, struct spawn *s, char *pfd,
			 char *rfd, char *xfd)
{
	char **argv = c->next, **nargv;
	size_t n = 0, k = 1;

	s->inherit[0] = s->inherit[1] = s->inherit[2] = -1;
	if (!chain_is_step(argv[0]) ||
	    (c->plan_fd < 0 && c->report_fd < 0 && c->proxy_fd < 0 &&
	     !c->allow_untrusted))
		return argv;
	while (argv[n])
		n++;
	nargv = calloc(n + 11, sizeof(*nargv));
	if (!nargv)
		return NULL;
	nargv[0] = argv[0];
	if (c->plan_fd >= 0) {
		snprintf(pfd, 16, "%d", c->plan_fd);
		nargv[k++] = "--plan-fd";
		nargv[k++] = pfd;
		s->inherit[0] = c->plan_fd;
	}
	if (c->report_fd >= 0) {
		snprintf(rfd, 16, "%d", c->report_fd);
		nargv[k++] = "--report-fd";
		nargv[k++] = rfd;
		s->inherit[1] = c->report_fd;
	}
	if (c->proxy_fd >= 0) {
		snprintf(xfd, 16, "%d", c->proxy_fd);
		nargv[k++] = "--proxy-fd";
		nargv[k++] = xfd;
		s->inherit[2] = c->proxy_fd;
	}
	if (c->allow_untrusted)
		nargv[k++] = "--allow-untrusted";
	if (c->scratch_arg) {
		nargv[k++] = "--scratch-id";
		nargv[k++] = c->scratch_arg;
	}
	memcpy(nargv + k, argv + 1, n * sizeof(*nargv));
	return nargv;
}

/* What the child would have printed before exiting: the message on
 * stderr and the failure record on the report pipe, from a fresh diag
 * of the guard's prog and stage (the guard's own stays as it was). Its
 * own frame: the diags' 4 KiB are on the stack only when the child
 * failed. */
static __attribute__((noinline)) void child_failed(const struct diag *gd,
						    const struct spawn *s,
						    struct chain *c)
{
	struct diag cd = DIAG_INIT(gd->prog, gd->stage), *d = &cd;
	struct diag emit;

	if (s->what == SP_PGID)
		diag_fail(d, EXIT_SYSCALL, s->err, "unable to give the "
			  "sandbox its own process group");
	else if (s->what == SP_PDEATH)
		return;		/* the guard is going away: no message */
	else if (s->err == ENOENT || s->err == ENOTDIR)
		diag_fail(d, EXIT_NOTFOUND, s->err, "unable to find %s%s%s",
			  s->file, strchr(s->file, '/') ? "" : " in PATH=",
			  strchr(s->file, '/') ? "" : s->path);
	else
		diag_fail(d, EXIT_NOEXEC, s->err, "unable to execute %s",
			  s->file);
	/* As diag_exit would, but on the report pipe the chain will read. */
	emit = *d;
	emit.report_fd = c->report_fd;
	diag_emit(&emit);
}

/* The clone, in a frame of its own below guard_spawn's: the child's
 * stack is this frame's buffer, and the argv and environment (snprintf,
 * calloc) are built before it exists, so that nothing of the guard ever
 * runs below it. Every page of stack the guard touches stays in its
 * resident set while the sandbox runs. */
static __attribute__((noinline)) pid_t spawn_clone(struct spawn *s)
{
	/* The child's stack: chain_execvpe's PATH_MAX buffer and a few
	 * small frames (it only makes system calls; every signal is
	 * blocked). Its top, the only part a path's execve touches, lies
	 * right below the caller's frame. */
	char stack[PATH_MAX + 2048] __attribute__((aligned(16)));

	return clone(child, stack + sizeof(stack),
		     CLONE_VM | CLONE_VFORK | SIGCHLD, s);
}

pid_t guard_spawn(struct diag *d, struct chain *c, const sigset_t *mask,
		  pid_t guard, const char *extra_env)
{
	struct spawn s = { .file = c->next[0], .fd = c->next_fd,
			   .mask = mask, .guard = guard,
			   .cgroup = guard_cgroup_procs() };
	char pfd[16], rfd[16], xfd[16];
	sigset_t all, old;
	pid_t pid;
	int err;

	s.argv = build_argv(c, &s, pfd, rfd, xfd);
	s.envp = build_env(extra_env);
	if (!s.argv || !s.envp)
		return diag_fail(d, EXIT_SYSCALL, ENOMEM,
				 "unable to build the sandbox's argv");
	s.path = chain_env_path(s.envp);
	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, &old);
	pid = spawn_clone(&s);
	err = errno;
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (s.argv != c->next)
		free(s.argv);
	if (s.envp != environ)
		free(s.envp);
	if (pid < 0)
		return diag_fail(d, EXIT_SYSCALL, err,
				 "unable to start the sandbox process");
	if (s.what != SP_OK)
		child_failed(d, &s, c);
	return pid;
}
