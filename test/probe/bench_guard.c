/* bench_guard: the guard's duties and nothing else, the floor of
 * pysbx-clean's work in scripts/bench.sh (with bench_hop, bench_ref -f:
 * the "floor with the steps' duties" rows):
 *
 *   bench_guard PARENT PROG [ARG...]
 *
 * makes a fresh directory under PARENT, runs PROG in a vfork child with
 * every argument "{}" replaced by that directory's path (the scratch dir
 * the sandbox binds), waits for it, removes the directory and exits with
 * PROG's code; PARENT "-": no directory (a scratch dir adopted, not
 * made). One more process above the sandbox and one directory made
 * and removed per run are what any guard with a per-run scratch dir costs;
 * the timeout, signal forwarding, plan and diagnostics are pysbx's own. No
 * stdio: a small binary, like the hops. */
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char *decimal(char *p, unsigned long v)
{
	char d[24];
	int n = 0;

	do
		d[n++] = (char)('0' + v % 10);
	while (v /= 10);
	while (n)
		*p++ = d[--n];
	return p;
}

/* argv in a vfork child, every "{}" replaced by dir (if any); its code. */
static int run(char **argv, char *dir)
{
	int st;
	pid_t pid;

	for (char **a = argv; dir && *a; a++)
		if (!strcmp(*a, "{}"))
			*a = dir;
	pid = vfork();
	if (pid == 0) {
		execv(argv[0], argv);
		_exit(127);
	}
	while (pid > 0 && waitpid(pid, &st, 0) != pid)
		;
	if (pid < 0)
		return 111;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

int main(int argc, char **argv)
{
	char dir[4096], *p;
	struct timespec t;
	size_t len;
	int code;

	if (argc < 3 || (len = strlen(argv[1])) > sizeof(dir) - 64)
		return 100;
	if (!strcmp(argv[1], "-"))
		return run(argv + 2, NULL);
	clock_gettime(CLOCK_MONOTONIC, &t);
	p = memcpy(dir, argv[1], len);
	p = decimal(memcpy(p + len, "/guard-", 7) + 7, (unsigned long)getpid());
	*p++ = '-';
	*decimal(p, (unsigned long)t.tv_nsec) = 0;
	if (mkdir(dir, 0700) < 0)
		return 111;
	code = run(argv + 2, dir);
	return rmdir(dir) < 0 ? 111 : code;
}
