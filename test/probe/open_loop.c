/* open_loop: N opens of PATH (a missing one, for report denials'
 * per-call cost), timed in-process with CLOCK_MONOTONIC: prints
 * "N calls, NS ns per call". scripts/bench-denials.sh runs it with and
 * without reporting. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct timespec a, b;
	long n;
	double ns;

	if (argc != 3 || (n = strtol(argv[1], NULL, 10)) <= 0) {
		fprintf(stderr, "usage: open_loop N PATH\n");
		return 100;
	}
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (long i = 0; i < n; i++) {
		int fd = open(argv[2], O_RDONLY | O_CLOEXEC);

		if (fd >= 0)
			close(fd);
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	ns = (double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec);
	printf("%ld calls, %.0f ns per call\n", n, ns / (double)n);
	return 0;
}
