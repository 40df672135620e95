/* seccomp compile: the plan's syscall rules -> a libseccomp filter -> BPF,
 * and loading filters (compiled here or precompiled) into the kernel.
 *
 * What the compiler adds to the policy's own rules (docs/SECCOMP.md):
 *  - foreign ABIs kill the whole process (SCMP_FLTATR_ACT_BADARCH =
 *    KILL_PROCESS): i386 via int 0x80, and x32 (nr | 0x40000000), which
 *    libseccomp treats as a separate architecture that is not in the filter;
 *  - socket denied (any non-allow rule on socket) -> io_uring_setup, _enter
 *    and _register get that rule's action unless the policy names them
 *    (io_uring can create sockets with no socket(2) call);
 *  - clone filtered (a conditional or non-allow rule on clone), or a default
 *    that is not allow -> clone3 fails with ENOSYS unless the policy names it
 *    (clone3's flags live in memory seccomp cannot read; ENOSYS makes glibc
 *    fall back to clone, where the flags are checked);
 *  - prlimit64 with a pid (arg0) other than 0 fails with EPERM unless the
 *    policy names prlimit64 (pid 1's limits are not the target's);
 *  - ahead of libseccomp's program, a prefix answers ENOSYS for x86_64
 *    numbers above sc_syscall_max() (syscalls newer than the build);
 *  - conditions on arguments the kernel reads as 32-bit ints (ioctl's
 *    request, socket's family, ...): == becomes a masked compare of the low
 *    32 bits, and masks are cut to 32 bits, so 1<<32|TIOCSTI is TIOCSTI.
 * Rules whose action equals the default are skipped (libseccomp refuses
 * them), as are rules for syscalls that exist only on other ABIs
 * (socketcall on x86_64: its ABI is killed anyway). Audit mode turns every
 * action that is not allow, the default and the foreign-ABI action
 * included, into SECCOMP_RET_LOG.
 */
#ifndef PYSBX_SC_COMPILE_H
#define PYSBX_SC_COMPILE_H

#include <stddef.h>
#include <stdint.h>

#include <linux/filter.h>

/* Not <seccomp.h> here: it pulls in <elf.h>, whose PAT_UID and PAT_GID
 * macros would clash with policy.h's enum plan_at. */
#include "diag/diag.h"
#include "policy/policy.h"

#define SC_BPF_MAX_INSNS 4096	/* BPF_MAXINSNS: the kernel's limit */
#define SC_MAX_NOTES 8

enum {
	SC_COMPILE_AUDIT = 1 << 0,	/* as if the plan said `seccomp audit` */
	SC_COMPILE_NO_TREE = 1 << 1,	/* never use the binary-tree layout */
	SC_COMPILE_TREE = 1 << 2,	/* always use it (for measurements) */
};

struct sc_filter {
	void *ctx;		/* scmp_filter_ctx */
	unsigned rules;		/* rules given to libseccomp */
	unsigned added;		/* of those, added for bypass routes */
	unsigned skipped;	/* equal to the default, or other-ABI only */
	unsigned syscalls;	/* distinct syscalls with rules */
	int tree;		/* binary-tree optimisation in use */
	int audit;		/* every denial became a log */
	unsigned report;	/* path calls marked for report denials */
	uint64_t report_set[512 / 64]; /* their numbers */
	int reporting;		/* they go to pid 1's listener (loaded by
				 * sc_load_notify) */
	size_t nnotes;
	char notes[SC_MAX_NOTES][192]; /* "io_uring_setup: ERRNO(1) (...)" */
};

/* Build the filter for p's seccomp rules (an empty rule set still gets the
 * foreign-ABI kill). Returns 0, or -1 with d set: 100 for a rule libseccomp
 * rejects (the message starts with the rule's FILE:LINE:COL), 111 when out
 * of memory. On success the caller owns f and releases it with
 * sc_filter_free. */
int sc_compile(struct diag *d, const struct plan *p, unsigned flags,
	       struct sc_filter *f);

void sc_filter_free(struct sc_filter *f);

/* The filter's BPF program, the ENOSYS prefix included: a malloc'd array
 * of *n instructions. 0 or -1 (111; 100 when over SC_BPF_MAX_INSNS). */
int sc_filter_bpf(struct diag *d, struct sc_filter *f,
		  struct sock_filter **insns, size_t *n);

/* Write the raw BPF as loaded, prefix included (what bwrap --seccomp FD
 * reads) to fd. 0 or -1 (111). */
int sc_export(struct diag *d, struct sc_filter *f, int fd);

/* Write a human-readable listing to fd: a summary (rules, rules added,
 * skipped, instruction count, foreign-ABI action) and libseccomp's pseudo
 * filter code. 0 or -1 (111). */
int sc_list(struct diag *d, struct sc_filter *f, int fd);

/* prctl(PR_SET_NO_NEW_PRIVS): needed by an unprivileged seccomp load, and
 * what keeps a setuid binary from running with the filter's denials
 * against it. 0 or -1 (111). */
int sc_no_new_privs(struct diag *d);
/* The hint after a failed seccomp(2) load that failed with err. */
void sc_load_hint(struct diag *d, int err);

/* Load the compiled filter into this process. no_new_privs must be set.
 * 0 or -1 (111, with a hint when the kernel lacks seccomp). */
int sc_load(struct diag *d, struct sc_filter *f);

/* Can the filter's kills go to pid 1 (docs/SECCOMP.md "Naming the killed
 * syscall")? Not in audit mode, and only when p lets sendmsg through
 * unconditionally: pysbx-seccomp sends the listener with it after the
 * load, and a sendmsg the filter stopped would leave no supervisor. */
int sc_notify_ok(const struct plan *p, const struct sc_filter *f);

/* Load the compiled filter with every KILL_PROCESS (the policy's kill,
 * the foreign-ABI kill) as SECCOMP_RET_USER_NOTIF and a new listener
 * (SECCOMP_FILTER_FLAG_NEW_LISTENER | WAIT_KILLABLE_RECV), and send the
 * listener over sock. The kernel then refuses (EBUSY) any later filter
 * with a listener of its own, which could take the notifications and
 * let the call go on. A kernel without these flags (before 6.0), or a
 * filter in force that has a listener already (pysbx in pysbx), gets
 * the plain program (sc_load). 0 or -1 (111). */
int sc_load_notify(struct diag *d, struct sc_filter *f, int sock);

/* Read a precompiled BPF program from path ("-" is stdin): refuses an
 * empty file, a size that is not a multiple of 8 bytes (a truncated
 * instruction), more than SC_BPF_MAX_INSNS instructions and a read error
 * part way. Returns 0 with a malloc'd program, or -1 (100 or 111). */
int sc_bpf_read(struct diag *d, const char *path, struct sock_filter **insns,
		size_t *n);

/* Load a raw BPF program with seccomp(SECCOMP_SET_MODE_FILTER). The kernel
 * checks it; its EINVAL is reported as an invalid program (100). 0 or -1. */
int sc_bpf_load(struct diag *d, const char *what,
		const struct sock_filter *insns, size_t n);

/* "ALLOW", "ERRNO(EPERM)", "KILL_PROCESS", "LOG", "TRAP" into buf. */
const char *sc_action_str(enum sc_action a, int err, char *buf, size_t len);

#endif
