/* bench_loop: a tight syscall loop for scripts/bench.sh, to measure what
 * a seccomp filter adds to each system call.
 *
 *   bench_loop N    make N getppid() and N read(fd, buf, 0) calls
 *
 * Prints nothing; exits 0, or 100 on bad usage, 111 when a read fails.
 * The read is of 0 bytes from /dev/null (or stdin when /dev/null cannot
 * be opened), so it stays in the kernel's fast path and needs no data.
 * Both calls go through syscall(2) so that libc cannot cache or skip
 * them. */
#include <fcntl.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	unsigned long n, i;
	char buf[1], *end;
	int fd;

	if (argc != 2 || !argv[1][0])
		return 100;
	n = strtoul(argv[1], &end, 10);
	if (*end)
		return 100;
	fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		fd = 0;
	for (i = 0; i < n; i++) {
		syscall(SYS_getppid);
		if (syscall(SYS_read, fd, buf, 0) < 0)
			return 111;
	}
	return 0;
}
