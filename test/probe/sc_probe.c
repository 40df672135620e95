/* sc_probe: call syscalls the way a hostile target would and print exactly
 * what happened, one line each:
 *
 *	sc_probe [-x] CALL...
 *
 *	NAME=ok            the call succeeded (returned >= 0)
 *	NAME=EPERM         it failed with that errno
 *	NAME=killed:SIGSYS the process making it was killed by that signal
 *
 * Each CALL runs in a forked child, so that a kill is observed by the
 * parent and the next CALL still runs. With -x the (single) CALL runs in
 * this process: a kill then ends the probe itself, as the shell sees it.
 * CALL is one of the names in calls[] below, or sys:NAME for a raw
 * syscall(NAME, 0, 0, 0, 0, 0, 0) by libseccomp's name table.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/keyctl.h>
#include <linux/sched.h>

#include "util/names.h"
#include <seccomp.h>

#define X32_BIT 0x40000000L
#define HI_BIT (1UL << 32)

/* Every call returns the raw result: >= 0, or -errno. */
static long sys(long nr, long a, long b, long c, long d, long e)
{
	long r = syscall(nr, a, b, c, d, e, 0);

	return r < 0 ? -errno : r;
}

/* A pipe: never a terminal, and no device node needed (a nodev mount). */
static long notty(void)
{
	int fd[2];

	return pipe(fd) < 0 ? -errno : fd[0];
}

static long c_getpid(void) { return sys(SYS_getpid, 0, 0, 0, 0, 0); }
static long c_socket_unix(void)
{
	return sys(SYS_socket, AF_UNIX, SOCK_STREAM, 0, 0, 0);
}
static long c_socket_unix_hi(void)
{
	return sys(SYS_socket, (long)(HI_BIT | AF_UNIX), SOCK_STREAM, 0, 0, 0);
}
static long c_socket_inet(void)
{
	return sys(SYS_socket, AF_INET, SOCK_STREAM, 0, 0, 0);
}
static long c_socket_inet6(void)
{
	return sys(SYS_socket, AF_INET6, SOCK_DGRAM, 0, 0, 0);
}
static long pair(long family, long type)
{
	int sv[2];

	return sys(SYS_socketpair, family, type, 0, (long)sv, 0);
}
static long c_socketpair(void) { return pair(AF_UNIX, SOCK_STREAM); }
static long c_socketpair_flags(void)
{
	return pair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK);
}
static long c_socketpair_seqpacket(void)
{
	return pair(AF_UNIX, SOCK_SEQPACKET);
}
static long c_socketpair_dgram(void) { return pair(AF_UNIX, SOCK_DGRAM); }
static long c_socketpair_dgram_flags(void)
{
	return pair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC);
}
/* AF_UNIX turns SOCK_RAW into a datagram socket */
static long c_socketpair_raw(void) { return pair(AF_UNIX, SOCK_RAW); }
static long c_socketpair_hi(void)
{
	return pair((long)(HI_BIT | AF_UNIX), SOCK_STREAM);
}
static long c_socketpair_dgram_hi(void)
{
	return pair(AF_UNIX, (long)(HI_BIT | SOCK_DGRAM));
}
static long c_socketpair_inet(void) { return pair(AF_INET, SOCK_STREAM); }
static long c_io_uring_setup(void)
{
	char params[120] = { 0 }; /* struct io_uring_params, zeroed */

	return sys(SYS_io_uring_setup, 1, (long)params, 0, 0, 0);
}
/* clone-like calls: a child (return 0) leaves at once. */
static long forked(long r)
{
	if (r == 0)
		_exit(0);
	if (r > 0)
		waitpid((pid_t)r, NULL, __WALL);
	return r;
}
static long c_clone3(void)
{
	struct clone_args ca;

	memset(&ca, 0, sizeof(ca));
	ca.flags = CLONE_NEWUSER;
	ca.exit_signal = SIGCHLD;
	return forked(sys(SYS_clone3, (long)&ca, sizeof(ca), 0, 0, 0));
}
static long c_clone3_plain(void)
{
	struct clone_args ca;

	memset(&ca, 0, sizeof(ca));
	ca.exit_signal = SIGCHLD;
	return forked(sys(SYS_clone3, (long)&ca, sizeof(ca), 0, 0, 0));
}
static long c_clone_newuser(void)
{
	return forked(sys(SYS_clone, CLONE_NEWUSER | SIGCHLD, 0, 0, 0, 0));
}
static long c_clone_plain(void)
{
	return forked(sys(SYS_clone, SIGCHLD, 0, 0, 0, 0));
}
static long c_unshare_user(void)
{
	return sys(SYS_unshare, CLONE_NEWUSER, 0, 0, 0, 0);
}
/* On a pipe, never a terminal: unfiltered, TIOCSTI fails ENOTTY instead
 * of typing into whoever runs the probe. */
static long c_ioctl_tiocsti(void)
{
	char ch = 'x';

	return sys(SYS_ioctl, notty(), TIOCSTI, (long)&ch, 0, 0);
}
static long c_ioctl_tiocsti_hi(void)
{
	char ch = 'x';

	return sys(SYS_ioctl, notty(), (long)(HI_BIT | TIOCSTI), (long)&ch,
		   0, 0);
}
static long c_ioctl_fionread(void)
{
	int n;

	return sys(SYS_ioctl, notty(), FIONREAD, (long)&n, 0, 0);
}
static long c_keyctl(void)
{
	return sys(SYS_keyctl, KEYCTL_GET_KEYRING_ID, KEY_SPEC_SESSION_KEYRING,
		   0, 0, 0);
}
static long c_add_key(void)
{
	/* an unknown key type: unfiltered ENODEV, nothing is added */
	return sys(SYS_add_key, (long)"pysbx-none", (long)"probe", (long)"x",
		   1, KEY_SPEC_SESSION_KEYRING);
}
static long c_request_key(void)
{
	return sys(SYS_request_key, (long)"user", (long)"pysbx-probe-none", 0,
		   0, 0);
}
static long c_ptrace(void)
{
	return sys(SYS_ptrace, 0 /* PTRACE_TRACEME */, 0, 0, 0, 0);
}
static long c_bpf(void) { return sys(SYS_bpf, -1, 0, 0, 0, 0); }
static long c_x32(void) { return sys(SYS_getpid | X32_BIT, 0, 0, 0, 0, 0); }

/* i386's getpid (20) through the 32-bit entry point. */
static long c_int80(void)
{
	long r = 20;

	__asm__ volatile("int $0x80" : "+a"(r) : : "memory", "r8", "r9",
			 "r10", "r11");
	return r;
}

static void *x32_thread(void *arg)
{
	(void)arg;
	c_x32();
	return NULL;
}
/* x32 from a second thread: KILL_PROCESS takes the whole process, a
 * thread-only kill would let pthread_join return. */
static long c_x32_thread(void)
{
	pthread_t t;
	int e = pthread_create(&t, NULL, x32_thread, NULL);

	if (e)
		return -e;
	pthread_join(t, NULL);
	return 0;
}

static const struct {
	const char *name;
	long (*fn)(void);
} calls[] = {
	{ "getpid", c_getpid },
	{ "socket_unix", c_socket_unix },
	{ "socket_unix_hi", c_socket_unix_hi },
	{ "socket_inet", c_socket_inet },
	{ "socket_inet6", c_socket_inet6 },
	{ "socketpair", c_socketpair },
	{ "socketpair_flags", c_socketpair_flags },
	{ "socketpair_seqpacket", c_socketpair_seqpacket },
	{ "socketpair_dgram", c_socketpair_dgram },
	{ "socketpair_dgram_flags", c_socketpair_dgram_flags },
	{ "socketpair_raw", c_socketpair_raw },
	{ "socketpair_hi", c_socketpair_hi },
	{ "socketpair_dgram_hi", c_socketpair_dgram_hi },
	{ "socketpair_inet", c_socketpair_inet },
	{ "io_uring_setup", c_io_uring_setup },
	{ "clone3", c_clone3 },
	{ "clone3_plain", c_clone3_plain },
	{ "clone_newuser", c_clone_newuser },
	{ "clone_plain", c_clone_plain },
	{ "unshare_user", c_unshare_user },
	{ "ioctl_tiocsti", c_ioctl_tiocsti },
	{ "ioctl_tiocsti_hi", c_ioctl_tiocsti_hi },
	{ "ioctl_fionread", c_ioctl_fionread },
	{ "keyctl", c_keyctl },
	{ "add_key", c_add_key },
	{ "request_key", c_request_key },
	{ "ptrace", c_ptrace },
	{ "bpf", c_bpf },
	{ "x32", c_x32 },
	{ "int80", c_int80 },
	{ "x32_thread", c_x32_thread },
};

static void say(const char *name, const char *what)
{
	char line[256];
	int n = snprintf(line, sizeof(line), "%s=%s\n", name, what);

	if (write(1, line, (size_t)n) != n)
		_exit(2);
}

static void say_result(const char *name, long r)
{
	const char *en = r < 0 ? errno_name((int)-r) : NULL;
	char num[32];

	if (r >= 0) {
		say(name, "ok");
	} else {
		snprintf(num, sizeof(num), "errno%ld", -r);
		say(name, en ? en : num);
	}
}

/* Run one call here; returns 0, or -1 if the name is unknown. */
static int run(const char *name)
{
	for (size_t i = 0; i < sizeof(calls) / sizeof(calls[0]); i++)
		if (!strcmp(calls[i].name, name)) {
			say_result(name, calls[i].fn());
			return 0;
		}
	if (!strncmp(name, "sys:", 4)) {
		int nr = seccomp_syscall_resolve_name(name + 4);

		if (nr < 0)
			return -1;
		say_result(name, sys(nr, 0, 0, 0, 0, 0));
		return 0;
	}
	return -1;
}

int main(int argc, char **argv)
{
	int inproc = argc > 1 && !strcmp(argv[1], "-x");

	if (argc < 2 + inproc) {
		fprintf(stderr, "usage: sc_probe [-x] CALL...\n");
		return 100;
	}
	if (inproc)
		return run(argv[2]) < 0 ? 100 : 0;
	for (int i = 1; i < argc; i++) {
		pid_t pid = fork();
		int st;

		if (pid < 0) {
			say(argv[i], "fork-failed");
			return 111;
		}
		if (pid == 0)
			_exit(run(argv[i]) < 0 ? 100 : 0);
		if (waitpid(pid, &st, 0) < 0)
			return 111;
		if (WIFSIGNALED(st)) {
			char what[64];
			const char *sn = signal_name(WTERMSIG(st));

			snprintf(what, sizeof(what), "killed:%s",
				 sn ? sn : "?");
			say(argv[i], what);
		} else if (WEXITSTATUS(st) == 100) {
			say(argv[i], "unknown-call");
		}
	}
	return 0;
}
