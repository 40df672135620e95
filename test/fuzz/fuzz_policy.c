/* libFuzzer target: the policy parser.
 *
 * The input is a policy file given to policy_parse_buf with a few -D
 * variables (one with spaces, quotes, '#' and "${", one with "..", one
 * empty, one long). When it parses, the resolved plan must survive the
 * chain protocol: plan_format -> policy_parse_plan -> plan_format gives
 * byte-identical text, and plan_show gives the same text for both plans.
 * Any difference aborts, so libFuzzer keeps the input as a crash.
 *
 * Includes resolve against a fixed directory that the target fills at
 * start-up (/tmp/pysbx-fuzz-inc): a file with directives, a subdirectory
 * and a file that includes itself, so that include, relative paths and
 * cycle detection are reached without reading anything else.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"
#include "policy/policy.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct vars vars;
static char longval[5000];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	static const char *const defs[] = {
		"W=/home/a b/#c\"${X}",
		"P=/usr",
		"N=3",
		"DOTS=..",
		"EMPTY=",
		"SPACE=a b",
		"HOME=/home/fuzz",
	};
	char err[256], *lv;

	(void)argc;
	(void)argv;
	for (size_t i = 0; i < sizeof(defs) / sizeof(defs[0]); i++)
		if (vars_add_arg(&vars, defs[i], err, sizeof(err)) < 0) {
			fprintf(stderr, "fuzz_policy: %s\n", err);
			abort();
		}
	/* A value longer than a policy line: expansions may exceed it. */
	lv = longval;
	lv += sprintf(lv, "LONG=");
	for (int i = 0; i < 1100; i++)
		lv += sprintf(lv, "/abc");
	if (vars_add_arg(&vars, longval, err, sizeof(err)) < 0)
		abort();

	fuzz_inc_dir();
	return 0;
}

#define die(what, a, b) fuzz_die("fuzz_policy", what, a, b)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct plan p, q;
	struct perr e;
	char *t1 = NULL, *t2 = NULL, *s1 = NULL, *s2 = NULL;
	size_t l1, l2;

	if (plan_init(&p) < 0)
		abort();
	if (policy_parse_buf(&p, FUZZ_INC_DIR "/fuzz.policy", (const char *)data,
			     size, &vars, PARSE_NO_SCRATCH, &e) < 0) {
		/* Errors are counted and capped, never lost. */
		if (!e.total || e.n > PLAN_MAX_ERRORS || e.n > e.total)
			die("a failed parse recorded no error", NULL, NULL);
		plan_free(&p);
		return 0;
	}
	if (e.total)
		die("a successful parse recorded errors", e.msg[0], NULL);

	t1 = plan_format(&p, &l1);
	if (!t1 || strlen(t1) != l1)
		die("plan_format failed", t1, NULL);
	if (plan_init(&q) < 0)
		abort();
	if (policy_parse_plan(&q, t1, l1, &e) < 0)
		die("the plan of a valid policy does not parse back",
		    e.n ? e.msg[0] : "?", t1);
	t2 = plan_format(&q, &l2);
	if (!t2 || l1 != l2 || memcmp(t1, t2, l1))
		die("plan_format(policy_parse_plan(plan_format(p))) differs",
		    t1, t2);

	s1 = plan_show(&p);
	s2 = plan_show(&q);
	if (!s1 || !s2 || strcmp(s1, s2))
		die("plan_show differs after the round trip", s1, s2);

	free(t1);
	free(t2);
	free(s1);
	free(s2);
	plan_free(&q);
	plan_free(&p);
	return 0;
}
