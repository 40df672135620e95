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
	struct plan p, q;
	struct perr e;
	char *t1 = NULL, *t2 = NULL, *s1 = NULL, *s2 = NULL;
	size_t l1, l2;

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

	t1 = plan_format(&p, &l1);
	if (!t1 || strlen(t1) != l1)
		die("plan_format failed", t1, NULL);
	if (plan_init(&q) < 0)
		abort();
	if (policy_parse_plan(&q, t1, l1, &e) < 0)
		die("a formatted plan does not parse back",
		    e.n ? e.msg[0] : "?", t1);
	t2 = plan_format(&q, &l2);
	if (!t2 || l1 != l2 || memcmp(t1, t2, l1))
		die("plan_format is not idempotent", t1, t2);

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
