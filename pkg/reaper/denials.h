/* denials: pid 1 names what the sandbox's view denied (report denials,
 * docs/DENIALS.md).
 *
 * The path calls the policy allows outright come to pid 1 as seccomp
 * notifications (seccomp/report.h). pid 1 reads the path from the
 * caller's memory and its cwd or dirfd, answers
 * SECCOMP_USER_NOTIF_FLAG_CONTINUE (always: the kernel decides every
 * call, pid 1 never allows one), then looks at that path in the view
 * (pid 1 is in the target's mount namespace, without capabilities):
 * missing where no mount brings it (a candidate: the guard checks the
 * host with the caller's own credentials), under a read-only mount for a
 * write, masked, protected, or under a -try mount whose source was
 * missing. Each distinct (kind, path) goes to the report fd once:
 * {"stage":"mount","event":"denial","id":N,"kind":K,"path":P,"at":A,
 *  "op":O,"syscall":S,"pid":N,"comm":C,"directive":D,"line":"F:L",
 *  "src":S,"dst":D}
 * and when the target ends, the counts:
 * {"stage":"mount","event":"denials","calls":N,"more":M,"unchecked":U}
 * plus {"stage":"mount","event":"denial-count","id":N,"count":C} for each
 * path asked more than once. Tables are fixed: a flood costs time, never
 * memory, and every call is counted.
 */
#ifndef PYSBX_REAPER_DENIALS_H
#define PYSBX_REAPER_DENIALS_H

#include <linux/seccomp.h>

#include "policy/policy.h"

struct sigsys_sup;

/* Is this notification a reported call (not a kill)? Needs s->plan. */
int denials_is_report(const struct sigsys_sup *s,
		      const struct seccomp_notif *req);

/* Answer it with "continue" and record what the view denies. */
void denials_notified(struct sigsys_sup *s, const struct seccomp_notif *req);

/* The counts, when the target has ended. */
void denials_flush(struct sigsys_sup *s);

#endif
