/* walker_probe FILE [GENERATIONS [CHAINS]]: CHAINS (default 1) fork walkers, the process chain that
 * outruns a tree kill which lists first and kills afterwards: each
 * generation forks, the parent exits at once, the child leaves the
 * session (setsid) and does the same. Every generation appends its pid
 * and a newline to FILE, so a test sees whether the chain still runs.
 * Stops by itself after GENERATIONS (default 1000000), so a survivor of
 * a failed test ends on its own. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long gens = argc > 2 ? atol(argv[2]) : 1000000;
	long chains = argc > 3 ? atol(argv[3]) : 1;
	char line[24];
	int fd, n;

	if (argc < 2) {
		fprintf(stderr, "usage: walker_probe FILE [GENERATIONS]\n");
		return 100;
	}
	fd = open(argv[1], O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0)
		return 111;
	/* Each extra chain starts from a child of the first process. */
	while (--chains > 0 && fork() > 0)
		;
	for (long g = 0; g < gens; g++) {
		pid_t p = fork();

		if (p < 0) {
			usleep(1000);
			continue;
		}
		if (p > 0)
			_exit(0);
		setsid();
		n = snprintf(line, sizeof(line), "%d\n", (int)getpid());
		if (write(fd, line, (size_t)n) < 0)
			return 111;
	}
	return 0;
}
