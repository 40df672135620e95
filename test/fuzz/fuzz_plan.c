/* libFuzzer target: the plan reader (what pysbx-mount, pysbx-exec and
 * pysbx-seccomp parse from --plan-fd).
 *
 * The input is given to policy_parse_plan as it would be read from the
 * sealed memfd. When it parses, formatting is idempotent: the text
 * plan_format prints parses back, and formatting that second plan gives
 * byte-identical text (a step must see exactly the plan the first step
 * sealed). plan_show must work on both and agree. Differences abort.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"
#include "policy/policy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define die(what, a, b) fuzz_die("fuzz_plan", what, a, b)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct plan p;
	struct perr e;

	if (plan_init(&p) < 0)
		abort();
	if (policy_parse_plan(&p, (const char *)data, size, &e) < 0) {
		if (!e.total || e.n > PLAN_MAX_ERRORS || e.n > e.total)
			die("a refused plan recorded no error", NULL, NULL);
		plan_free(&p);
		return 0;
	}
	if (e.total)
		die("an accepted plan recorded errors", e.msg[0], NULL);

	fuzz_round_trip("fuzz_plan", &p, NULL);
	return 0;
}
