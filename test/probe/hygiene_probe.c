/* hygiene_probe: what a target can still see or take from inside the
 * sandbox (test/security/hygiene.sh). One line of output per check: "ok",
 * an errno name, or the value asked for.
 *
 *	hygiene_probe late FLAG PATH  print "ready", wait (10 s at most) until
 *	                              FLAG exists,
 *	                              then: open PATH for reading, for writing
 *	hygiene_probe ptys            open /dev/ptmx until it fails: "N ERRNO"
 *	hygiene_probe files DIR       create empty files in DIR until it fails
 *	                              (both stop at 100000: "100000 unbounded")
 *	hygiene_probe personality     this process's personality, %08x
 *	hygiene_probe addr            the address of a stack variable and of a
 *	                              fresh mapping (ASLR: differ run to run)
 *	hygiene_probe cmdline PID     /proc/PID/cmdline, NULs shown as '|'
 *	hygiene_probe getlimit PID    prlimit(PID, RLIMIT_NOFILE, NULL, &old)
 *	hygiene_probe cpulimit PID    prlimit(PID, RLIMIT_CPU, {0, 0}): the
 *	                              attack on pid 1, for real
 *	hygiene_probe syscall NR      syscall(NR, AT_FDCWD, "/nonexistent", 0, 0)
 *	hygiene_probe modify_ldt      modify_ldt(0, buf, sizeof(buf)): read
 *	hygiene_probe fanotify        fanotify_init(FAN_CLASS_NOTIF, 0)
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "util/names.h"

static const char *err_name(int e)
{
	static char buf[32];
	const char *n = errno_name(e);

	if (n)
		return n;
	snprintf(buf, sizeof(buf), "errno %d", e);
	return buf;
}

static int result(long r)
{
	puts(r >= 0 ? "ok" : err_name(errno));
	return 0;
}

static int late(const char *flag, const char *path)
{
	struct timespec ts = { 0, 20 * 1000 * 1000 };
	int fd;

	puts("ready");
	for (int i = 0; i < 500 && access(flag, F_OK) < 0; i++)
		nanosleep(&ts, NULL);
	if (access(flag, F_OK) < 0) {
		puts("no flag");
		return 1;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	result(fd);
	if (fd >= 0)
		close(fd);
	fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
	return result(fd);
}

static int count_until_fail(int (*make)(const char *, unsigned),
			    const char *arg)
{
	unsigned n = 0;

	/* Far above every bound under test, and small enough that an
	 * unbounded tmpfs (a regression) does not pin gigabytes. */
	while (n < 100000 && make(arg, n) >= 0)
		n++;
	printf("%u %s\n", n, n == 100000 ? "unbounded" : err_name(errno));
	return 0;
}

static int make_pty(const char *unused, unsigned n)
{
	(void)unused;
	(void)n;
	return open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC);
}

static int make_file(const char *dir, unsigned n)
{
	char path[4096];
	int fd;

	snprintf(path, sizeof(path), "%s/f%u", dir, n);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd >= 0)
		close(fd);
	return fd;
}

static int cmdline(const char *pid)
{
	char path[64], buf[8192];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%s/cmdline", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return result(-1);
	n = read(fd, buf, sizeof(buf));
	close(fd);
	if (n < 0)
		return result(-1);
	for (ssize_t i = 0; i < n; i++)
		putchar(buf[i] ? buf[i] : '|');
	putchar('\n');
	return 0;
}

int main(int argc, char **argv)
{
	const char *c = argc > 1 ? argv[1] : "";
	const char *a = argc > 2 ? argv[2] : "";
	struct rlimit rl = { 0, 0 };
	int local;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!strcmp(c, "late") && argc > 3)
		return late(a, argv[3]);
	if (!strcmp(c, "ptys"))
		return count_until_fail(make_pty, NULL);
	if (!strcmp(c, "files"))
		return count_until_fail(make_file, a);
	if (!strcmp(c, "personality")) {
		printf("%08x\n", (unsigned)personality(0xffffffff));
		return 0;
	}
	if (!strcmp(c, "addr")) {
		void *m = mmap(NULL, 4096, PROT_READ,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		printf("%p %p\n", (void *)&local, m);
		return 0;
	}
	if (!strcmp(c, "cmdline"))
		return cmdline(a);
	if (!strcmp(c, "getlimit"))
		return result(syscall(SYS_prlimit64, atoi(a), RLIMIT_NOFILE,
				      NULL, &rl));
	if (!strcmp(c, "cpulimit"))
		return result(
			syscall(SYS_prlimit64, atoi(a), RLIMIT_CPU, &rl, NULL));
	if (!strcmp(c, "syscall"))
		return result(syscall(atol(a), AT_FDCWD, "/nonexistent", 0, 0));
	if (!strcmp(c, "modify_ldt")) {
		char buf[16];

		return result(syscall(SYS_modify_ldt, 0, buf, sizeof(buf)));
	}
	if (!strcmp(c, "fanotify"))
		return result(
			syscall(SYS_fanotify_init, 0 /* FAN_CLASS_NOTIF */, 0));
	fprintf(stderr, "hygiene_probe: unknown command '%s'\n", c);
	return 2;
}
