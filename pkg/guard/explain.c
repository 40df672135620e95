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
	o->nkill_rules = 0;
	o->kill_default = false;
	if (p->sc_audit)
		return; /* nothing is killed: logged */
	o->kill_default = p->sc_default == SC_KILL;
	for (size_t i = 0; i < p->nsc && o->nkill_rules < GUARD_MAX_KILL_RULES;
	     i++) {
		const struct sc_rule *r = &p->sc[i];

		if (r->act != SC_KILL)
			continue;
		snprintf(o->kill_rules[o->nkill_rules].name,
			 sizeof(o->kill_rules[0].name), "%s", r->name);
		snprintf(o->kill_rules[o->nkill_rules].where,
			 sizeof(o->kill_rules[0].where), "%s:%u",
			 r->pos.file ? r->pos.file : "the policy", r->pos.line);
		o->nkill_rules++;
	}
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

/* Which line of the policy killed k, and how to allow it. */
static void why(const struct guard_opts *o, const struct sigsys_rec *k,
		char *buf, size_t len)
{
	if (!k->name[0] && !strcmp(k->arch, "x86_64")) {
		snprintf(buf, len, ", a number the build's syscall table does "
			 "not name, denied by the policy's 'seccomp default "
			 "kill'");
		return;
	}
	if (!k->name[0]) {
		snprintf(buf, len, "; a foreign ABI (%s) is always killed and "
			 "cannot be allowed: run a 64-bit (x86_64) build",
			 k->arch);
		return;
	}
	for (unsigned i = 0; i < o->nkill_rules; i++)
		if (!strcmp(o->kill_rules[i].name, k->name)) {
			snprintf(buf, len, ", denied by %s (seccomp kill %s); "
				 "to allow it, add 'seccomp allow %s' to the "
				 "policy", o->kill_rules[i].where, k->name,
				 k->name);
			return;
		}
	if (o->kill_default)
		snprintf(buf, len, ", denied by the policy's 'seccomp default "
			 "kill'; to allow it, add 'seccomp allow %s' to the "
			 "policy", k->name);
	else
		snprintf(buf, len, ", denied by a rule the compiler adds "
			 "(pysbx-seccomp -p POLICY --list names it)");
}

/* pid 1 named the call (docs/SECCOMP.md "Naming the killed syscall"). */
static void explain_sigsys(const struct diag *d, const struct guard_opts *o,
			   const struct sigsys_rec *k)
{
	char call[96], more[64] = "", rest[400];

	if (k->name[0])
		snprintf(call, sizeof(call), "%s (%s nr %ld)", k->name,
			 k->arch, k->nr);
	else
		snprintf(call, sizeof(call), "nr %ld of %s", k->nr, k->arch);
	if (k->kills > 1)
		snprintf(more, sizeof(more), " (%ld kills in this run)",
			 k->kills);
	why(o, k, rest, sizeof(rest));
	fprintf(stderr, "%s: %s by the syscall filter: syscall %s by pid %ld "
		"(%s)%s%s\n", d->prog,
		k->target ? "the target was killed" :
			    "a process of the target was killed",
		call, k->pid, k->comm, rest, more);
}

void guard_explain_end(const struct diag *d, const struct guard_opts *o,
		       const struct run_result *r)
{
	char t[32];

	if (!r->error[0] && r->sigsys.have) {
		explain_sigsys(d, o, &r->sigsys);
		if (!r->timeout)
			return;
	}
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
