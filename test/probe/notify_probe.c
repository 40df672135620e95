/* notify_probe: what a call gets when the filter answers it with
 * SECCOMP_RET_USER_NOTIF and nobody listens (the supervisor, pid 1, is
 * gone): prints the errno name ("ENOSYS") or "ran" if the call ran.
 * report denials relies on it: its calls fail closed without pid 1. */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

int main(void)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_mkdir, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { 4, f };
	char dir[64];
	int fd;

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return 111;
	fd = (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
			  SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog);
	if (fd < 0) {
		perror("seccomp");
		return 111;
	}
	close(fd);	/* the listener's last reference: no supervisor */
	snprintf(dir, sizeof(dir), "/tmp/notify_probe.%d", (int)getpid());
	if (syscall(SYS_mkdir, dir, 0700) == 0) {
		rmdir(dir);
		puts("ran");
		return 0;
	}
	puts(errno == ENOSYS ? "ENOSYS" : strerror(errno));
	return 0;
}
