/* Why a run ended, in one line, where the exit code alone would leave a
 * user guessing: 124 (was it the timeout or the program?) or 159 (a
 * SIGSYS from the syscall filter, or the program's own crash?). */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "guard/guard.h"

void guard_note_killers(struct guard_opts *o, const struct plan *p)
{
	size_t len = 0;

	o->killers[0] = '\0';
	if (p->sc_audit)
		return; /* nothing is killed: logged */
	if (p->sc_default == SC_KILL || p->sc_default == SC_TRAP) {
		snprintf(o->killers, sizeof(o->killers),
			 "every syscall it does not allow");
		return;
	}
	for (size_t i = 0; i < p->nsc; i++) {
		const struct sc_rule *r = &p->sc[i];
		int n;

		if (r->act != SC_KILL && r->act != SC_TRAP)
			continue;
		n = snprintf(o->killers + len, sizeof(o->killers) - len, "%s%s",
			     len ? ", " : "", r->name);
		if (n < 0 || (size_t)n >= sizeof(o->killers) - len) {
			strcpy(o->killers + sizeof(o->killers) - 6, ", ...");
			return;
		}
		len += (size_t)n;
	}
}

static void duration(char *buf, size_t len, uint64_t ms)
{
	if (ms % 1000)
		snprintf(buf, len, "%llums", (unsigned long long)ms);
	else
		snprintf(buf, len, "%llus", (unsigned long long)(ms / 1000));
}

void guard_explain_end(const struct diag *d, const struct guard_opts *o,
		       const struct run_result *r)
{
	char t[32];

	if (r->timeout) {
		duration(t, sizeof(t), o->timeout_ms);
		fprintf(stderr,
			"%s: the target ran past the timeout of %s "
			"and was stopped (exit %d)\n",
			d->prog, t, r->code);
	} else if (!r->error[0] &&
		   (r->signal == SIGSYS ||
		    /* without a pid namespace pysbx-exec relays the
		     * target's end as 128+N */
		    (!r->signal && r->code == 128 + SIGSYS && o->killers[0]))) {
		fprintf(stderr,
			"%s: the target was killed by the syscall "
			"filter (SIGSYS)%s%s; to see which call, add 'seccomp "
			"audit' to the policy (the kernel log names it) or run "
			"it under strace -f; to allow one, add 'seccomp allow "
			"NAME'\n",
			d->prog, o->killers[0] ? ": the policy kills on " : "",
			o->killers);
	}
}
