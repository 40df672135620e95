/* sigsys_probe: make a syscall the filter kills, the ways a target would,
 * and print what it saw before (a killed process prints nothing after):
 *
 *	sigsys_probe plain DIR        mkdir(DIR), then "survived: ERR"
 *	sigsys_probe thread DIR       the mkdir from a second thread
 *	sigsys_probe grandchild DIR.. each DIR's mkdir in a grandchild; the
 *	                              child prints "grandchild=killed:SIG"
 *	sigsys_probe int80 DIR        i386 mkdir (39) through int 0x80
 *	sigsys_probe pid1 DIR         kill, stop and ptrace pid 1 first
 *	sigsys_probe listener         seccomp(2) asking for a listener
 *	sigsys_probe stacked DIR      a filter of its own answers EACCES for
 *	                              mkdir, then mkdir(DIR)
 *	sigsys_probe fds              the fds it holds (no listener leaks)
 *	sigsys_probe catch DIR        a handler for every catchable signal,
 *	                              then mkdir(DIR)
 */
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

static const char *dir;

static void survived(long r)
{
	printf("survived: %s\n", r < 0 ? strerror(errno) : "ok");
}

static void *thread_main(void *arg)
{
	(void)arg;
	survived(mkdir(dir, 0755));
	return NULL;
}

static const char *signame(int status)
{
	static char buf[32];

	if (WIFEXITED(status))
		snprintf(buf, sizeof(buf), "exit:%d", WEXITSTATUS(status));
	else if (WTERMSIG(status) == SIGKILL)
		return "killed:SIGKILL";
	else if (WTERMSIG(status) == SIGSYS)
		return "killed:SIGSYS";
	else
		snprintf(buf, sizeof(buf), "killed:%d", WTERMSIG(status));
	return buf;
}

static int grandchildren(char **dirs)
{
	pid_t child = fork();
	int status;

	if (child == 0) {
		for (; *dirs; dirs++) {
			pid_t g = fork();

			if (g == 0) {
				survived(mkdir(*dirs, 0755));
				_exit(0);
			}
			waitpid(g, &status, 0);
			printf("grandchild=%s\n", signame(status));
			fflush(stdout);
		}
		_exit(0);
	}
	waitpid(child, &status, 0);
	return 0;
}

static void int80(void)
{
	char *low = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
	long r = 39;	/* i386 mkdir */

	if (low == MAP_FAILED)
		exit(1);
	snprintf(low, 4096, "%s", dir);
	__asm__ volatile("int $0x80"
			 : "+a"(r)
			 : "b"((long)low), "c"(0755L)
			 : "memory", "r8", "r9", "r10", "r11");
	printf("survived: %ld\n", r);
}

static int stacked(void)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_mkdir, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EACCES),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog p = { 4, f };

	if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &p) < 0)
		printf("own filter: %s\n", strerror(errno));
	survived(mkdir(dir, 0755));
	return 0;
}

static int listener(void)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog p = { 1, f };
	long r = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
			 SECCOMP_FILTER_FLAG_NEW_LISTENER, &p);

	printf("listener=%s\n", r < 0 ? strerror(errno) : "ok");
	return 0;
}

static int fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	char path[300], link[128];

	while (d && (e = readdir(d))) {
		ssize_t n;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/fd/%s", e->d_name);
		n = readlink(path, link, sizeof(link) - 1);
		link[n < 0 ? 0 : n] = '\0';
		if (atoi(e->d_name) > 2 && atoi(e->d_name) != dirfd(d))
			printf("fd %s: %s\n", e->d_name, link);
	}
	printf("fds done\n");
	return 0;
}

static void caught(int sig)
{
	char buf[32];
	int n = snprintf(buf, sizeof(buf), "caught %d\n", sig);

	if (write(1, buf, (size_t)n) < 0)
		_exit(3);
}

static void catch_all(void)
{
	struct sigaction sa = { .sa_handler = caught };

	for (int sig = 1; sig < NSIG; sig++)
		sigaction(sig, &sa, NULL);	/* KILL and STOP refuse */
}

int main(int argc, char **argv)
{
	pthread_t t;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc < 2)
		return 2;
	dir = argc > 2 ? argv[2] : "/nonexistent";
	if (!strcmp(argv[1], "plain")) {
		survived(mkdir(dir, 0755));
	} else if (!strcmp(argv[1], "thread")) {
		pthread_create(&t, NULL, thread_main, NULL);
		pthread_join(t, NULL);
		printf("joined\n");
	} else if (!strcmp(argv[1], "grandchild")) {
		return grandchildren(argv + 2);
	} else if (!strcmp(argv[1], "int80")) {
		int80();
	} else if (!strcmp(argv[1], "pid1")) {
		printf("kill=%s", kill(1, SIGKILL) < 0 ? strerror(errno) : "sent");
		printf(" stop=%s", kill(1, SIGSTOP) < 0 ? strerror(errno) : "sent");
		printf(" ptrace=%s\n", ptrace(PTRACE_ATTACH, 1, 0, 0) < 0 ?
					      strerror(errno) : "attached");
		survived(mkdir(dir, 0755));
	} else if (!strcmp(argv[1], "catch")) {
		catch_all();
		survived(mkdir(dir, 0755));
	} else if (!strcmp(argv[1], "listener")) {
		return listener();
	} else if (!strcmp(argv[1], "stacked")) {
		return stacked();
	} else if (!strcmp(argv[1], "fds")) {
		return fds();
	} else {
		return 2;
	}
	return 0;
}
