/* llc_probe: the Landlock-only checks of test/packaging/landlock_podman.sh,
 * for an image with no shell (static, as every probe).
 *
 *   llc_probe outer WS OUTFILE PYSBX [PYSBX-RUN-ARGS...]
 *	outside the sandbox: listen on a loopback TCP port, start a victim
 *	process, run `PYSBX run PYSBX-RUN-ARGS... -- WS/llc_probe inner
 *	PORT VICTIM OUTFILE /tmp/llc_probe.PID` and, once it has returned,
 *	check that the victim lives, that the daemon the inner run left is
 *	gone and that OUTFILE was not made. Prints one line per check;
 *	exits with pysbx's code, or 1 when a check failed.
 *   llc_probe inner PORT VICTIM OUTFILE PIDFILE
 *	inside: create OUTFILE, connect to 127.0.0.1:PORT, signal VICTIM,
 *	start a setsid'd daemon and write its pid to PIDFILE. One line
 *	each, with the errno name of a refusal. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *ename(int e)
{
	switch (e) {
	case 0: return "ok";
	case EACCES: return "EACCES";
	case EPERM: return "EPERM";
	case ESRCH: return "ESRCH";
	case ECONNREFUSED: return "ECONNREFUSED";
	case ENOENT: return "ENOENT";
	default: return strerror(e);
	}
}

static int inner(char **argv)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	int fd, e;
	pid_t pid;
	char buf[32];

	fd = open(argv[4], O_WRONLY | O_CREAT | O_EXCL, 0644);
	printf("write outside the workspace: %s\n", ename(fd < 0 ? errno : 0));
	a.sin_port = htons((unsigned short)atoi(argv[2]));
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	fd = socket(AF_INET, SOCK_STREAM, 0);
	e = fd < 0 ? errno : connect(fd, (void *)&a, sizeof(a)) < 0 ? errno : 0;
	printf("TCP connect to the loopback listener: %s\n", ename(e));
	e = kill((pid_t)atoi(argv[3]), SIGKILL) < 0 ? errno : 0;
	printf("signal to a process outside: %s\n", ename(e));
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		setsid();
		if (fork() == 0) {
			char tmp[4096];

			/* Written whole, then renamed: the file is never
			 * seen empty. */
			snprintf(buf, sizeof(buf), "%d\n", (int)getpid());
			snprintf(tmp, sizeof(tmp), "%s.tmp", argv[5]);
			fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
			if (fd >= 0 && write(fd, buf, strlen(buf)) > 0 &&
			    close(fd) == 0)
				rename(tmp, argv[5]);
			for (;;)
				pause();
		}
		_exit(0);
	}
	waitpid(pid, NULL, 0);
	for (int i = 0; i < 200 && access(argv[5], F_OK); i++)
		usleep(10000);
	printf("daemon started: %s\n", access(argv[5], F_OK) ? "no" : "yes");
	return 0;
}

static int outer(int argc, char **argv)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t len = sizeof(a);
	char port[16], victim[16], pidfile[4096], prog[4096], buf[32];
	char **av = calloc((size_t)argc + 16, sizeof(*av));
	int lfd, st, k = 0, bad = 0;
	pid_t v, p;
	FILE *f;

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	lfd = socket(AF_INET, SOCK_STREAM, 0);
	if (!av || lfd < 0 || bind(lfd, (void *)&a, sizeof(a)) < 0 ||
	    listen(lfd, 8) < 0 || getsockname(lfd, (void *)&a, &len) < 0) {
		perror("llc_probe: listener");
		return 111;
	}
	snprintf(port, sizeof(port), "%d", ntohs(a.sin_port));
	v = fork();
	if (v == 0) {
		for (;;)
			pause();
	}
	snprintf(victim, sizeof(victim), "%d", (int)v);
	/* /tmp: writable in the sandbox of every shipped policy (their
	 * tmpfs /tmp is the host's shared /tmp in Landlock-only mode). */
	snprintf(pidfile, sizeof(pidfile), "/tmp/llc_probe.%d", (int)getpid());
	snprintf(prog, sizeof(prog), "%s/llc_probe", argv[2]);
	unlink(pidfile);
	av[k++] = argv[4];
	av[k++] = "run";
	for (int i = 5; i < argc; i++)
		av[k++] = argv[i];
	av[k++] = "--";
	av[k++] = prog;
	av[k++] = "inner";
	av[k++] = port;
	av[k++] = victim;
	av[k++] = argv[3];
	av[k++] = pidfile;
	fflush(stdout);
	p = fork();
	if (p == 0) {
		close(lfd);
		execv(av[0], av);
		_exit(127);
	}
	waitpid(p, &st, 0);
	printf("outer: the victim %s\n",
	       kill(v, 0) == 0 ? "lives" : (bad = 1, "is gone"));
	f = fopen(pidfile, "r");
	if (!f || !fgets(buf, sizeof(buf), f)) {
		printf("outer: no daemon pid\n");
		bad = 1;
	} else {
		/* Reaped by the guard (its subreaper), so the pid is free:
		 * ESRCH. A zombie would still be there. */
		int alive = kill((pid_t)atoi(buf), 0) == 0;

		printf("outer: the daemon %s\n", alive ? "survived" : "is gone");
		bad |= alive;
	}
	if (f)
		fclose(f);
	printf("outer: %s\n", access(argv[3], F_OK) ? "nothing was made outside"
						    : (bad = 1, "the file outside exists"));
	unlink(pidfile);
	kill(v, SIGKILL);
	if (bad)
		return 1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 6 && !strcmp(argv[1], "inner"))
		return inner(argv);
	if (argc >= 5 && !strcmp(argv[1], "outer"))
		return outer(argc, argv);
	fprintf(stderr, "usage: llc_probe outer WS OUTFILE PYSBX [ARGS...] | "
		"inner PORT VICTIM OUTFILE PIDFILE\n");
	return 100;
}
