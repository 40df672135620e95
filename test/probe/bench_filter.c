/* bench_filter: the seccomp step's duty and nothing else, the floor of
 * pysbx-seccomp's work in scripts/bench.sh:
 *
 *   bench_filter FILTER PROG [ARG...]
 *
 * reads FILTER (pysbx-seccomp --export output: the compiled filter),
 * sets no_new_privs, loads it and execs PROG. Compiling the filter at
 * every start could be skipped (a cache); loading it cannot. No stdio: a
 * small binary, like the hops. */
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	static struct sock_filter insn[4096];
	struct sock_fprog prog = { .filter = insn };
	int fd;
	ssize_t n;

	if (argc < 3)
		return 100;
	fd = open(argv[1], O_RDONLY | O_CLOEXEC);
	n = fd < 0 ? -1 : read(fd, insn, sizeof(insn));
	if (n <= 0 || n % 8)
		return 111;
	close(fd);
	prog.len = (unsigned short)(n / 8);
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
	    syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) < 0)
		return 111;
	execv(argv[2], argv + 2);
	return 127;
}
