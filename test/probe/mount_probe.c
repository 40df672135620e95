/* mount_probe: tries things from inside a pysbx-mount sandbox and prints
 * the outcome, one line each (an errno name such as EROFS, or "ok").
 *
 *	mount_probe ls DIR          sorted entries of DIR
 *	mount_probe write PATH      create/truncate PATH and write "probe"
 *	mount_probe caps            CapInh..CapAmb lines of /proc/self/status
 *	mount_probe userns          unshare(CLONE_NEWUSER)
 *	mount_probe remount PATH    remount PATH read-write
 *	mount_probe umount PATH     unmount PATH (lazily)
 *	mount_probe net             network interface names, sorted
 *	mount_probe hostname | id | pids | mountinfo
 *	mount_probe cat PATH        PATH's content, or its errno
 *	mount_probe ptrace PID      PTRACE_ATTACH to PID
 *	mount_probe daemon MARKER   leave a setsid'd daemon behind and exit 0
 *	mount_probe exit N          exit with N
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/ptrace.h>
#include <unistd.h>

#include "util/names.h"

static int result(int r)
{
	const char *n;

	if (r >= 0) {
		puts("ok");
		return 0;
	}
	n = errno_name(errno);
	if (n)
		puts(n);
	else
		printf("errno %d\n", errno);
	return 0;
}

static int cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int list(const char *path, int only_digits)
{
	char *names[4096];
	size_t n = 0;
	struct dirent *de;
	DIR *d = opendir(path);

	if (!d)
		return result(-1);
	while ((de = readdir(d)) && n < 4096) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (only_digits && strspn(de->d_name, "0123456789") !=
					   strlen(de->d_name))
			continue;
		names[n++] = strdup(de->d_name);
	}
	closedir(d);
	qsort(names, n, sizeof(*names), cmp);
	for (size_t i = 0; i < n; i++)
		puts(names[i]);
	return 0;
}

static int cat(const char *path, const char *prefix)
{
	char line[4096];
	FILE *f = fopen(path, "re");

	if (!f)
		return result(-1);
	while (fgets(line, sizeof(line), f))
		if (!prefix || !strncmp(line, prefix, strlen(prefix)))
			fputs(line, stdout);
	fclose(f);
	return 0;
}

static int daemon_(const char *marker, char *self)
{
	pid_t pid = fork();

	if (pid < 0)
		return result(-1);
	if (pid > 0)
		return 0;	/* the target exits at once */
	setsid();
	if (fork() > 0)
		_exit(0);
	/* Grandchild: a daemon, reparented to pid 1, with a name the host
	 * can find in /proc/PID/cmdline. */
	close(0);
	close(1);
	execl(self, self, "daemon-sleep", marker, (char *)NULL);
	_exit(127);
}

int main(int argc, char **argv)
{
	const char *c = argc > 1 ? argv[1] : "";
	const char *a = argc > 2 ? argv[2] : "";
	char buf[256];
	int fd;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!strcmp(c, "ls"))
		return list(a, 0);
	if (!strcmp(c, "pids"))
		return list("/proc", 1);
	if (!strcmp(c, "write")) {
		fd = open(a, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (fd >= 0 && write(fd, "probe", 5) != 5)
			fd = -1;
		return result(fd);
	}
	if (!strcmp(c, "caps"))
		return cat("/proc/self/status", "Cap");
	if (!strcmp(c, "userns"))
		return result(unshare(CLONE_NEWUSER));
	if (!strcmp(c, "remount"))
		return result(mount(NULL, a, NULL, MS_REMOUNT | MS_BIND, NULL));
	if (!strcmp(c, "umount"))
		return result(umount2(a, MNT_DETACH));
	if (!strcmp(c, "net")) {
		struct if_nameindex *ifs = if_nameindex(), *i;
		char *names[256];
		size_t n = 0;

		if (!ifs)
			return result(-1);
		for (i = ifs; i->if_index && n < 256; i++)
			names[n++] = i->if_name;
		qsort(names, n, sizeof(*names), cmp);
		for (size_t k = 0; k < n; k++)
			puts(names[k]);
		return 0;
	}
	if (!strcmp(c, "hostname")) {
		if (gethostname(buf, sizeof(buf)) < 0)
			return result(-1);
		puts(buf);
		return 0;
	}
	if (!strcmp(c, "id")) {
		printf("uid=%u gid=%u euid=%u egid=%u\n", getuid(), getgid(),
		       geteuid(), getegid());
		return 0;
	}
	if (!strcmp(c, "mountinfo"))
		return cat("/proc/self/mountinfo", NULL);
	if (!strcmp(c, "cat"))
		return cat(a, NULL);
	if (!strcmp(c, "ptrace"))
		return result((int)ptrace(PTRACE_ATTACH, (pid_t)atoi(a), 0, 0));
	if (!strcmp(c, "daemon"))
		return daemon_(a, argv[0]);
	if (!strcmp(c, "daemon-sleep")) {
		for (;;)
			pause();
	}
	if (!strcmp(c, "exit"))
		return atoi(a);
	fprintf(stderr, "mount_probe: unknown command '%s'\n", c);
	return 2;
}
