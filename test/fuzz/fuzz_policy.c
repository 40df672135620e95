/* libFuzzer target: the policy parser.
 *
 * The input is a policy file given to policy_parse_buf with a few -D
 * variables (one with spaces, quotes, '#' and "${", one with "..", one
 * empty, one long). When it parses, the resolved plan must survive the
 * chain protocol: plan_format -> policy_parse_plan -> plan_format gives
 * byte-identical text, and plan_show gives the same text for both plans.
 * Any difference aborts, so libFuzzer keeps the input as a crash.
 *
 * Relative includes resolve in a fixed directory that the target fills
 * at start-up (fuzz_common.h): a file with directives, a subdirectory, a
 * file that includes itself, and links to the shipped policies.
 *
 * With PYSBX_FUZZ_PLAN_OUT=DIR set, the plan text of every input that
 * parses is written to DIR (named by its hash): scripts/fuzz.sh makes
 * fuzz_plan's seeds that way from this target's corpus.
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
static const char *plan_out;
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
		"WORKSPACE=/home/fuzz/work",
		"PROG=/usr/bin/true",
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
	plan_out = getenv("PYSBX_FUZZ_PLAN_OUT");
	return 0;
}

/* Save a plan as a seed for fuzz_plan, named by its FNV-1a hash. */
static void save_plan(const char *text, size_t len)
{
	uint64_t h = 14695981039346656037ULL;
	char path[4096];
	FILE *f;

	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)text[i]) * 1099511628211ULL;
	snprintf(path, sizeof(path), "%s/plan-%016llx", plan_out,
		 (unsigned long long)h);
	f = fopen(path, "w");
	if (!f)
		return;
	fwrite(text, 1, len, f);
	fclose(f);
}

#define die(what, a, b) fuzz_die("fuzz_policy", what, a, b)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct plan p;
	struct perr e;

	if (plan_init(&p) < 0)
		abort();
	if (policy_parse_buf(&p, FUZZ_INC_DIR "/fuzz.policy", (const char *)data,
			     size, &vars, PARSE_NO_SCRATCH, &e) < 0) {
		/* Errors are counted and capped, never lost. */
		if (!e.total || e.n > PLAN_MAX_ERRORS ||
		    e.n > e.total + e.warnings)
			die("a failed parse recorded no error", NULL, NULL);
		plan_free(&p);
		return 0;
	}
	if (e.total)
		die("a successful parse recorded errors", e.msg[0], NULL);

	fuzz_round_trip("fuzz_policy", &p, plan_out ? save_plan : NULL);
	return 0;
}
