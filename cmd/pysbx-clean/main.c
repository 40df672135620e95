/* pysbx-clean: the lifecycle guard. Stays outside every namespace,
 * enforces the wall-clock timeout, forwards signals, kills the whole
 * sandbox when it ends, owns the scratch directory, reports the exit
 * status (docs/GUARD.md). The body is pkg/guard/main.c, shared with
 * `pysbx run`. */
#include "guard/guard.h"

int main(int argc, char **argv)
{
	return guard_main(argc, argv);
}
