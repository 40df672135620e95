/* escape_probe: the escape attempts of test/security/escape.sh that
 * python cannot make, each printed as one line "NAME=RESULT" where RESULT
 * is "ok" (the call succeeded) or the errno's name (EPERM, ...):
 *
 *	escape_probe fsopen              fsopen("tmpfs") (new mount API)
 *	escape_probe open_tree PATH      open_tree(PATH, OPEN_TREE_CLONE)
 *	escape_probe move_mount PATH     move_mount of a detached tree to PATH
 *	escape_probe pivot_root          pivot_root(".", ".") in /
 *	escape_probe chroot PATH         chroot(PATH)
 *	escape_probe setns PATH          setns(open(PATH), 0)
 *	escape_probe tiocsti FD          ioctl(FD, TIOCSTI, "x")
 *	escape_probe tioclinux FD        ioctl(FD, TIOCLINUX, {TIOCL_PASTESEL})
 *	escape_probe ptrace PID          ptrace(PTRACE_ATTACH, PID)
 *	escape_probe pvwrite PID         process_vm_writev to PID
 *	escape_probe syslog              syslog(SYSLOG_ACTION_READ_ALL)
 *	escape_probe mknod PATH          mknod(PATH, S_IFCHR, makedev(1, 3))
 *	escape_probe link OLD NEW        link(OLD, NEW)
 *	escape_probe write PATH          open(PATH, O_WRONLY) and write "pwned"
 *	escape_probe kill PID SIG        kill(PID, SIG)
 *	escape_probe umount PATH         umount2(PATH, MNT_DETACH)
 *	escape_probe remount PATH        mount(NULL, PATH, MS_REMOUNT|MS_BIND)
 *	escape_probe mount_tmpfs PATH    mount("tmpfs", PATH, "tmpfs")
 *	escape_probe userns              unshare(CLONE_NEWUSER)
 *	escape_probe caps                CapEff of /proc/self/status
 *
 * Several subcommands may follow each other: "escape_probe fsopen
 * pivot_root" runs both. Exit status 0, or 100 for an unknown subcommand.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/uio.h>
#include <unistd.h>

#include "util/names.h"

#ifndef SYS_fsopen
#define SYS_fsopen 430
#endif
#ifndef SYS_open_tree
#define SYS_open_tree 428
#endif
#ifndef SYS_move_mount
#define SYS_move_mount 429
#endif
#define OPEN_TREE_CLONE_ 1
#define MOVE_MOUNT_F_EMPTY_PATH_ 0x00000004
#define AT_EMPTY_PATH_ 0x1000

static void say(const char *name, long r, int err)
{
	const char *n = r < 0 ? errno_name(err) : NULL;

	if (r >= 0)
		printf("%s=ok\n", name);
	else if (n)
		printf("%s=%s\n", name, n);
	else
		printf("%s=errno%d\n", name, err);
	fflush(stdout);
}

#define TRY(name, expr)                 \
	do {                            \
		long r_ = (long)(expr); \
		say(name, r_, errno);   \
	} while (0)

static long x_move_mount(const char *path)
{
	long t = syscall(SYS_open_tree, AT_FDCWD, "/", OPEN_TREE_CLONE_);

	/* The detached tree is what an attacker would move: its own
	 * failure is the answer when the filter stops open_tree first. */
	if (t < 0)
		return t;
	return syscall(SYS_move_mount, (int)t, "", AT_FDCWD, path,
		       MOVE_MOUNT_F_EMPTY_PATH_);
}

static long x_setns(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	return setns(fd, 0);
}

static long x_tioclinux(int fd)
{
	char sub = 3; /* TIOCL_PASTESEL: paste the selection as input */

	return ioctl(fd, TIOCLINUX, &sub);
}

static long x_pvwrite(pid_t pid)
{
	char buf[8] = "pwned";
	struct iovec l = { buf, sizeof(buf) };
	struct iovec r = { (void *)0x400000, sizeof(buf) };

	return syscall(SYS_process_vm_writev, pid, &l, 1, &r, 1, 0);
}

static long x_write(const char *path)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	long r;

	if (fd < 0)
		return -1;
	r = write(fd, "pwned", 5);
	close(fd);
	return r;
}

static long x_caps(void)
{
	char line[256];
	FILE *f = fopen("/proc/self/status", "re");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "CapEff:", 7))
			printf("capeff=%s", line + 7 + strspn(line + 7, "\t "));
	fclose(f);
	return 0;
}

int main(int argc, char **argv)
{
	int i = 1;

	while (i < argc) {
		const char *c = argv[i++];
		const char *a = i < argc ? argv[i] : "";
		const char *b = i + 1 < argc ? argv[i + 1] : "";

		errno = 0;
		if (!strcmp(c, "fsopen")) {
			TRY(c, syscall(SYS_fsopen, "tmpfs", 0));
		} else if (!strcmp(c, "open_tree")) {
			TRY(c, syscall(SYS_open_tree, AT_FDCWD, a,
				       OPEN_TREE_CLONE_));
			i++;
		} else if (!strcmp(c, "move_mount")) {
			TRY(c, x_move_mount(a));
			i++;
		} else if (!strcmp(c, "pivot_root")) {
			TRY(c, chdir("/") < 0 ? -1 :
				       syscall(SYS_pivot_root, ".", "."));
		} else if (!strcmp(c, "chroot")) {
			TRY(c, chroot(a));
			i++;
		} else if (!strcmp(c, "setns")) {
			TRY(c, x_setns(a));
			i++;
		} else if (!strcmp(c, "tiocsti")) {
			TRY(c, ioctl(atoi(a), TIOCSTI, "x"));
			i++;
		} else if (!strcmp(c, "tioclinux")) {
			TRY(c, x_tioclinux(atoi(a)));
			i++;
		} else if (!strcmp(c, "ptrace")) {
			TRY(c, ptrace(PTRACE_ATTACH, atoi(a), 0, 0));
			i++;
		} else if (!strcmp(c, "pvwrite")) {
			TRY(c, x_pvwrite(atoi(a)));
			i++;
		} else if (!strcmp(c, "syslog")) {
			char buf[64];

			TRY(c, syscall(SYS_syslog, 3, buf, sizeof(buf)));
		} else if (!strcmp(c, "mknod")) {
			TRY(c, mknod(a, S_IFCHR | 0666, makedev(1, 3)));
			i++;
		} else if (!strcmp(c, "link")) {
			TRY(c, link(a, b));
			i += 2;
		} else if (!strcmp(c, "write")) {
			TRY(c, x_write(a));
			i++;
		} else if (!strcmp(c, "kill")) {
			TRY(c, kill(atoi(a), atoi(b)));
			i += 2;
		} else if (!strcmp(c, "umount")) {
			TRY(c, umount2(a, MNT_DETACH));
			i++;
		} else if (!strcmp(c, "remount")) {
			TRY(c, mount(NULL, a, NULL, MS_REMOUNT | MS_BIND, NULL));
			i++;
		} else if (!strcmp(c, "mount_tmpfs")) {
			TRY(c, mount("tmpfs", a, "tmpfs", 0, NULL));
			i++;
		} else if (!strcmp(c, "userns")) {
			TRY(c, unshare(CLONE_NEWUSER));
		} else if (!strcmp(c, "caps")) {
			x_caps();
		} else {
			fprintf(stderr, "escape_probe: unknown subcommand %s\n",
				c);
			return 100;
		}
	}
	return 0;
}
