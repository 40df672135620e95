/* libFuzzer target: the plan reader (what pysbx-mount, pysbx-exec and
 * pysbx-seccomp parse from --plan-fd).
 *
 * The input is given to policy_parse_plan as it would be read from the
 * sealed memfd. When it parses, formatting is idempotent: the text
 * plan_format prints parses back, and formatting that second plan gives
 * byte-identical text (a step must see exactly the plan the first step
 * sealed). plan_show must work on both and agree. Read again with
 * PARSE_SKIP_SECCOMP (as pysbx-mount and pysbx-exec read it), the plan
 * must still parse and format as the whole plan without its seccomp
 * part: skipping may never change what the other lines say. Differences
 * abort.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"
#include "policy/policy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define die(what, a, b) fuzz_die("fuzz_plan", what, a, b)

static void skip_seccomp(struct plan *p, const uint8_t *data, size_t size)
{
	struct plan q;
	struct perr e;
	size_t la, lb;
	char *buf, *a, *b;

	if (plan_init(&q) < 0 || !(buf = plan_text_buf(&q, size)))
		abort();
	memcpy(buf, data, size);
	if (policy_parse_plan_inplace(&q, buf, size, PARSE_SKIP_SECCOMP,
				      &e) < 0)
		die("a plan read whole is refused with its seccomp lines "
		    "skipped", e.n ? e.msg[0] : "", NULL);
	if (q.nsc || q.sc_set || q.sc_audit)
		die("a skipped seccomp line was read", NULL, NULL);
	b = plan_format(&q, &lb);
	/* The whole plan, its seccomp part left out, formats the same. */
	{
		struct plan w = *p;

		w.nsc = 0;
		w.sc_set = w.sc_audit = false;
		a = plan_format(&w, &la);
	}
	if (!a || !b || la != lb || memcmp(a, b, la))
		die("skipping seccomp lines changed the rest of the plan", a, b);
	free(a);
	free(b);
	plan_free(&q);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct plan p;
	struct perr e;

	if (plan_init(&p) < 0)
		abort();
	if (policy_parse_plan(&p, (const char *)data, size, &e) < 0) {
		if (!e.total || e.n > PLAN_MAX_ERRORS ||
		    e.n > e.total + e.warnings)
			die("a refused plan recorded no error", NULL, NULL);
		plan_free(&p);
		return 0;
	}
	if (e.total)
		die("an accepted plan recorded errors", e.msg[0], NULL);

	skip_seccomp(&p, data, size);
	fuzz_round_trip("fuzz_plan", &p, NULL);
	return 0;
}
