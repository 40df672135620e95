/* exec_probe: reports the process state it was started with, for
 * test/integration/exec.sh, and sets up odd callers to start others.
 *
 *   exec_probe [SECTION]...   print SECTIONs (default: all of them):
 *     ids      "pid N", "ppid N", "sid N", "pgid N"
 *     cwd      "cwd PATH"
 *     status   the Umask, Cap*, NoNewPrivs, SigBlk and SigIgn lines of
 *              /proc/self/status, as they are
 *     prctl    "pdeathsig N", "securebits 0xN"
 *     fds      "fd N TARGET" for each open fd (not the one reading)
 *     env      the environment, one entry a line
 *     limits   /proc/self/limits as it is
 *   exec_probe exit N         exit with N
 *   exec_probe raise SIG      die of signal SIG (a number)
 *   exec_probe pause FILE     write the pid to FILE, then wait for a signal
 *   exec_probe dirty -- PROG [ARG]...
 *       exec PROG with SIGINT, SIGQUIT, SIGHUP and SIGPIPE ignored and
 *       SIGTERM, SIGUSR1, SIGUSR2 and SIGALRM blocked
 *   exec_probe no-close-range ERRNO -- PROG [ARG]...
 *       exec PROG under a seccomp filter failing close_range with ERRNO
 *       (a number), as an old kernel or a container's filter does
 *   exec_probe seal POLICY [-D NAME=VALUE]... -- PROG [ARG]...
 *       resolve POLICY, seal the plan in a memfd and exec PROG (a pysbx
 *       step) with --plan-fd, as the chain does
 *   exec_probe seal-text FILE -- PROG [ARG]...
 *       the same with FILE's bytes as the plan, unparsed (a plan no guard
 *       would make)
 *   exec_probe seal-weak FILE -- PROG [ARG]...
 *       the same, but the memfd is not sealed against writes
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stddef.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/filter.h>
#include <linux/seccomp.h>

#include "chain/chain.h"

#ifndef SYS_close_range
#define SYS_close_range 436
#endif

extern char **environ;

static void cat(const char *path, const char *const *prefixes)
{
	char line[4096];
	FILE *f = fopen(path, "re");

	if (!f) {
		printf("error %s: %s\n", path, strerror(errno));
		return;
	}
	while (fgets(line, sizeof(line), f)) {
		if (!prefixes) {
			fputs(line, stdout);
			continue;
		}
		for (const char *const *p = prefixes; *p; p++)
			if (!strncmp(line, *p, strlen(*p))) {
				fputs(line, stdout);
				break;
			}
	}
	fclose(f);
}

static void fds(void)
{
	DIR *dir = opendir("/proc/self/fd");
	struct dirent *e;
	int n[1024], k = 0;

	if (!dir) {
		printf("error /proc/self/fd: %s\n", strerror(errno));
		return;
	}
	while ((e = readdir(dir)) && k < 1024)
		if (e->d_name[0] != '.' && atoi(e->d_name) != dirfd(dir))
			n[k++] = atoi(e->d_name);
	closedir(dir);
	for (int i = 0; i < k; i++)	/* sorted, small n */
		for (int j = i + 1; j < k; j++)
			if (n[j] < n[i]) {
				int t = n[i];

				n[i] = n[j];
				n[j] = t;
			}
	for (int i = 0; i < k; i++) {
		char path[64], target[PATH_MAX];
		ssize_t r;

		snprintf(path, sizeof(path), "/proc/self/fd/%d", n[i]);
		r = readlink(path, target, sizeof(target) - 1);
		target[r < 0 ? 0 : r] = '\0';
		printf("fd %d %s\n", n[i], target);
	}
}

static void section(const char *s)
{
	static const char *const st[] = { "Umask:", "Cap", "NoNewPrivs:",
					  "SigBlk:", "SigIgn:", NULL };
	char cwd[PATH_MAX];
	int sig = -1;

	if (!strcmp(s, "ids")) {
		printf("pid %d\nppid %d\nsid %d\npgid %d\n", (int)getpid(),
		       (int)getppid(), (int)getsid(0), (int)getpgrp());
	} else if (!strcmp(s, "cwd")) {
		printf("cwd %s\n", getcwd(cwd, sizeof(cwd)) ? cwd : "?");
	} else if (!strcmp(s, "status")) {
		cat("/proc/self/status", st);
	} else if (!strcmp(s, "prctl")) {
		prctl(PR_GET_PDEATHSIG, &sig, 0, 0, 0);
		printf("pdeathsig %d\nsecurebits 0x%x\n", sig,
		       (unsigned)prctl(PR_GET_SECUREBITS, 0, 0, 0, 0));
	} else if (!strcmp(s, "fds")) {
		fds();
	} else if (!strcmp(s, "env")) {
		for (char **e = environ; *e; e++)
			printf("%s\n", *e);
	} else if (!strcmp(s, "limits")) {
		cat("/proc/self/limits", NULL);
	} else {
		fprintf(stderr, "exec_probe: unknown section %s\n", s);
		exit(2);
	}
}

/* argv after "--" */
static char **rest(char **argv)
{
	while (*argv && strcmp(*argv, "--"))
		argv++;
	if (!*argv || !argv[1]) {
		fprintf(stderr, "exec_probe: no program after --\n");
		exit(2);
	}
	return argv + 1;
}

static int run(char **argv)
{
	execvp(argv[0], argv);
	fprintf(stderr, "exec_probe: exec %s: %s\n", argv[0], strerror(errno));
	return 127;
}

static int dirty(char **argv)
{
	sigset_t set;

	signal(SIGINT, SIG_IGN);
	signal(SIGQUIT, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGUSR2);
	sigaddset(&set, SIGALRM);
	sigprocmask(SIG_BLOCK, &set, NULL);
	return run(rest(argv));
}

static int no_close_range(const char *err, char **argv)
{
	/* Classic BPF, no libseccomp: close_range fails with err, all
	 * else is allowed (a test helper, native ABI only matters). */
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_close_range, 0, 1),
		BPF_STMT(BPF_RET | BPF_K,
			 SECCOMP_RET_ERRNO | (atoi(err) & SECCOMP_RET_DATA)),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { sizeof(f) / sizeof(*f), f };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0) < 0) {
		fprintf(stderr, "exec_probe: unable to install the filter: "
			"%s\n", strerror(errno));
		return 111;
	}
	return run(rest(argv));
}

static int seal(char **argv)
{
	struct diag d = DIAG_INIT("exec_probe", "probe");
	struct chain c;
	struct plan p;
	struct perr e;
	char err[256];

	chain_init(&c, "exec_probe seal POLICY [-D N=V]... -- PROG...");
	for (char **a = argv + 1; *a && strcmp(*a, "--"); a++)
		if (!strcmp(*a, "-D") && a[1] &&
		    !vars_add_arg(&c.vars, a[1], err, sizeof(err)))
			a++;
	c.next = rest(argv);
	if (plan_init(&p) < 0 ||
	    policy_parse_file(&p, argv[0], &c.vars, 0, &e) < 0) {
		perr_print(&e, "exec_probe", argv[0]);
		return 100;
	}
	c.plan_fd = plan_seal(&d, &p);
	if (c.plan_fd < 0)
		diag_exit(&d);
	chain_exec(&d, &c, environ);
	diag_exit(&d);
}

static int seal_text(char **argv, int seals)
{
	struct diag d = DIAG_INIT("exec_probe", "probe");
	char buf[65536];
	struct chain c;
	FILE *f = fopen(argv[0], "re");
	size_t n = f ? fread(buf, 1, sizeof(buf), f) : 0;

	if (!f || ferror(f))
		return 111;
	fclose(f);
	chain_init(&c, "exec_probe seal-text FILE -- PROG...");
	c.next = rest(argv);
	c.plan_fd = memfd_create("pysbx-plan", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (c.plan_fd < 0 || write(c.plan_fd, buf, n) != (ssize_t)n ||
	    fcntl(c.plan_fd, F_ADD_SEALS, seals) < 0)
		return 111;
	chain_exec(&d, &c, environ);
	diag_exit(&d);
}

int main(int argc, char **argv)
{
	static const char *const all[] = { "ids", "cwd", "status", "prctl",
					   "fds", "env", "limits" };

	if (argc >= 3 && !strcmp(argv[1], "exit"))
		return atoi(argv[2]);
	if (argc >= 3 && !strcmp(argv[1], "raise")) {
		signal(atoi(argv[2]), SIG_DFL);
		raise(atoi(argv[2]));
		return 1;
	}
	if (argc >= 3 && !strcmp(argv[1], "pause")) {
		FILE *f = fopen(argv[2], "we");

		if (!f || fprintf(f, "%d\n", (int)getpid()) < 0 || fclose(f))
			return 111;
		for (;;)
			pause();
	}
	if (argc >= 2 && !strcmp(argv[1], "dirty"))
		return dirty(argv + 2);
	if (argc >= 3 && !strcmp(argv[1], "no-close-range"))
		return no_close_range(argv[2], argv + 3);
	if (argc >= 3 && !strcmp(argv[1], "seal"))
		return seal(argv + 2);
	if (argc >= 3 && !strcmp(argv[1], "seal-text"))
		return seal_text(argv + 2, F_SEAL_SEAL | F_SEAL_SHRINK |
						   F_SEAL_GROW | F_SEAL_WRITE);
	if (argc >= 3 && !strcmp(argv[1], "seal-weak"))
		return seal_text(argv + 2, F_SEAL_SEAL | F_SEAL_SHRINK |
						   F_SEAL_GROW);
	if (argc < 2)
		for (size_t i = 0; i < sizeof(all) / sizeof(*all); i++)
			section(all[i]);
	for (int i = 1; i < argc; i++)
		section(argv[i]);
	fflush(stdout);
	return ferror(stdout) ? 1 : 0;
}
