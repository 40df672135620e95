/*
 * The TAP helper prints exactly what test/run.sh parses. Each scenario runs
 * in a forked child with its own counters and its stdout in a pipe, so that
 * its failures are data here, not failures of this program.
 */
#include <errno.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tap.h"

struct outcome {
	char out[1024];
	int status; /* exit status, or -1 if it did not exit */
};

static void run_scenario(int (*fn)(void), struct outcome *o)
{
	int fds[2], st;
	size_t len = 0;
	ssize_t n;
	pid_t pid;

	memset(o, 0, sizeof(*o));
	o->status = -1;
	if (pipe(fds) < 0)
		bail_out("pipe: %s", strerror(errno));
	pid = fork();
	if (pid < 0)
		bail_out("fork: %s", strerror(errno));
	if (pid == 0) {
		close(fds[0]);
		if (dup2(fds[1], STDOUT_FILENO) < 0)
			_exit(111);
		tap_ = (struct tap_state){ -1, 0, 0 };
		exit(fn());
	}
	close(fds[1]);
	while (len < sizeof(o->out) - 1 &&
	       (n = read(fds[0], o->out + len, sizeof(o->out) - 1 - len)) > 0)
		len += (size_t)n;
	close(fds[0]);
	if (waitpid(pid, &st, 0) == pid && WIFEXITED(st))
		o->status = WEXITSTATUS(st);
}

static int all_pass(void)
{
	plan(3);
	ok(1, "a");
	is_int(2, 2, "b");
	is_str("x", "x", "c");
	return done_testing();
}

static int failures_without_plan(void)
{
	int r1 = is_int(1, 2, "num");
	int r2 = is_str("a", NULL, "str");
	int r3 = ok(0, "cond %d", 42);

	if (done_testing() != 1)
		return 2;
	return r1 == 0 && r2 == 0 && r3 == 0 ? 7 : 3;
}

static int skips(void)
{
	plan(2);
	skip(2, "no %s", "userns");
	return done_testing();
}

static int short_of_plan(void)
{
	plan(2);
	ok(1, "only");
	return done_testing();
}

static int skipped_program(void)
{
	skip_all("needs %s", "root");
	return 3;
}

int main(void)
{
	struct outcome o;

	plan(10);

	run_scenario(all_pass, &o);
	is_str(o.out, "1..3\nok 1 - a\nok 2 - b\nok 3 - c\n",
	       "passing checks print ok lines after the plan");
	is_int(o.status, 0, "all passing: done_testing returns 0");

	run_scenario(failures_without_plan, &o);
	is_str(o.out,
	       "not ok 1 - num\n"
	       "#      got: 1\n"
	       "# expected: 2\n"
	       "not ok 2 - str\n"
	       "#      got: 'a'\n"
	       "# expected: NULL\n"
	       "not ok 3 - cond 42\n"
	       "1..3\n"
	       "# failed 3 of 3 tests\n",
	       "failures show got/expected; a missing plan is printed at the end");
	is_int(o.status, 7,
	       "failed checks return 0 and done_testing returns 1");

	run_scenario(skips, &o);
	is_str(o.out, "1..2\nok 1 # SKIP no userns\nok 2 # SKIP no userns\n",
	       "skip prints one SKIP result per skipped check");
	is_int(o.status, 0, "skipped checks do not fail the program");

	run_scenario(short_of_plan, &o);
	is_str(o.out, "1..2\nok 1 - only\n# planned 2 tests but ran 1\n",
	       "running fewer checks than planned is reported");
	is_int(o.status, 1, "running fewer checks than planned fails");

	run_scenario(skipped_program, &o);
	is_str(o.out, "1..0 # SKIP needs root\n",
	       "skip_all prints an empty plan with the reason");
	is_int(o.status, 0, "skip_all exits 0");

	return done_testing();
}
