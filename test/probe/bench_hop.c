/* bench_hop: execs its arguments and does nothing else: scripts/bench.sh
 * times a chain of these to show what one execve of a small static binary
 * costs on the machine (the floor under every chain step). */
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc < 2)
		return 100;
	execv(argv[1], argv + 1);
	return 127;
}
