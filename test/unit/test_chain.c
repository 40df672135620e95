/* chain_seccomp_follows: which steps a chain's argv will run, as each
 * step parses its own options, so that a step leaves the plan's seccomp
 * lines unread only when pysbx-seccomp will read them. */
#include <string.h>

#include "chain/chain.h"
#include "tap.h"

#define ARGV(...) ((char *[]){ __VA_ARGS__, NULL })

static const struct {
	const char *stage;
	char **next;
	int want;
	const char *what;
} cases[] = {
	{ "mount", ARGV("/b/pysbx-exec", "--", "/b/pysbx-seccomp", "--", "prog"),
	  1, "mount: exec, then seccomp" },
	{ "exec", ARGV("/b/pysbx-seccomp", "prog"), 1, "exec: seccomp next" },
	{ "mount", ARGV("pysbx-exec", "-p", "x.policy", "-D", "A=1",
			"--plan-fd", "3", "pysbx-seccomp", "prog"),
	  1, "options and their values are skipped" },
	{ "mount", ARGV("/b/pysbx-exec", "--", "/usr/bin/prog", "pysbx-seccomp"),
	  0, "a target's argument named pysbx-seccomp does not count" },
	{ "mount", ARGV("/b/pysbx-exec", "-D", "pysbx-seccomp", "prog"),
	  0, "an option's value named pysbx-seccomp does not count" },
	{ "exec", ARGV("prog", "--", "pysbx-seccomp"),
	  0, "the target comes first: no seccomp step" },
	{ "seccomp", ARGV("pysbx-seccomp", "prog"),
	  0, "after seccomp, a program named pysbx-seccomp is the target" },
	{ "exec", ARGV("pysbx-mount", "--", "pysbx-seccomp", "prog"),
	  0, "a step out of the canonical order stops the walk" },
	{ "mount", ARGV("pysbx-exec", "-", "pysbx-seccomp"),
	  0, "'-' is a program, not an option" },
};

int main(void)
{
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		is_int(chain_seccomp_follows(cases[i].stage, cases[i].next),
		       cases[i].want, "%s", cases[i].what);
	return done_testing();
}
