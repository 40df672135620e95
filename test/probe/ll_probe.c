/* ll_probe: what a Landlock-restricted process may do, one line per
 * action, "ACTION=ok" or "ACTION=ERRNO":
 *
 *	ll_probe read:PATH write:PATH mkdir:PATH trunc:PATH ls:PATH
 *	         connect:PORT bind:PORT kill:PID uconnect:NAME
 *	         exec:PROG  (runs PROG ARGS... as the rest of argv; last)
 *
 * connect/bind use 127.0.0.1 TCP; uconnect an abstract unix socket. */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <dirent.h>
#include <unistd.h>

static const char *ename(int e)
{
	switch (e) {
	case EACCES: return "EACCES";
	case EPERM: return "EPERM";
	case ENOENT: return "ENOENT";
	case ECONNREFUSED: return "ECONNREFUSED";
	case EXDEV: return "EXDEV";
	case EROFS: return "EROFS";
	case ESRCH: return "ESRCH";
	case EADDRINUSE: return "EADDRINUSE";
	default: return strerror(e);
	}
}

static int tcp(const char *port, int bind_it)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	int s = socket(AF_INET, SOCK_STREAM, 0), r;

	if (s < 0)
		return -1;
	a.sin_port = htons((unsigned short)atoi(port));
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	r = bind_it ? bind(s, (void *)&a, sizeof(a))
		    : connect(s, (void *)&a, sizeof(a));
	close(s);
	return r;
}

static int uconnect(const char *name)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int s = socket(AF_UNIX, SOCK_STREAM, 0), r;
	size_t n = strlen(name);

	if (s < 0 || n + 1 > sizeof(a.sun_path))
		return -1;
	memcpy(a.sun_path + 1, name, n);	/* abstract: leading NUL */
	r = connect(s, (void *)&a, (socklen_t)(sizeof(sa_family_t) + 1 + n));
	close(s);
	return r;
}

static int act(const char *verb, const char *arg)
{
	int fd;

	if (!strcmp(verb, "read")) {
		char b[16];

		if ((fd = open(arg, O_RDONLY)) < 0)
			return -1;
		(void)!read(fd, b, sizeof(b));
		return close(fd);
	}
	if (!strcmp(verb, "write")) {
		if ((fd = open(arg, O_WRONLY | O_CREAT | O_APPEND, 0644)) < 0)
			return -1;
		(void)!write(fd, "x\n", 2);
		return close(fd);
	}
	if (!strcmp(verb, "trunc"))
		return truncate(arg, 0);
	if (!strcmp(verb, "mkdir"))
		return mkdir(arg, 0755);
	if (!strcmp(verb, "ls")) {
		DIR *d = opendir(arg);

		return d ? closedir(d) : -1;
	}
	if (!strcmp(verb, "connect"))
		return tcp(arg, 0);
	if (!strcmp(verb, "bind"))
		return tcp(arg, 1);
	if (!strcmp(verb, "kill"))
		return kill(atoi(arg), 0);
	if (!strcmp(verb, "uconnect"))
		return uconnect(arg);
	errno = EINVAL;
	return -1;
}

int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		char *colon = strchr(argv[i], ':');

		if (!colon) {
			fprintf(stderr, "ll_probe: bad action '%s'\n", argv[i]);
			return 2;
		}
		*colon = '\0';
		if (!strcmp(argv[i], "exec")) {
			fflush(stdout);
			argv[i] = colon + 1;
			execv(argv[i], argv + i);
			printf("exec=%s\n", ename(errno));
			return 1;
		}
		if (act(argv[i], colon + 1) == 0)
			printf("%s:%s=ok\n", argv[i], colon + 1);
		else
			printf("%s:%s=%s\n", argv[i], colon + 1, ename(errno));
	}
	return 0;
}
