#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/audit.h>
#include <linux/seccomp.h>
#include <stddef.h>

/* compile.h (policy.h) before <seccomp.h>: see compile.h. */
#include "seccomp/compile.h"
#include <seccomp.h>
#include "scnames/scnames.h"
#include "seccomp/report.h"
#include "util/alloc.h"
#include "util/names.h"

/* With this many distinct syscalls or more, libseccomp's binary tree beats
 * its linear list of compares (measured: docs/SECCOMP.md). */
#define SC_TREE_MIN_SYSCALLS 16

const char *sc_action_str(enum sc_action a, int err, char *buf, size_t len)
{
	const char *en;

	switch (a) {
	case SC_ALLOW: snprintf(buf, len, "ALLOW"); break;
	case SC_KILL: snprintf(buf, len, "KILL_PROCESS"); break;
	case SC_LOG: snprintf(buf, len, "LOG"); break;
	case SC_TRAP: snprintf(buf, len, "TRAP"); break;
	case SC_ERRNO:
		en = errno_name(err);
		if (en)
			snprintf(buf, len, "ERRNO(%s)", en);
		else
			snprintf(buf, len, "ERRNO(%d)", err);
		break;
	}
	return buf;
}

static uint32_t scmp_action(enum sc_action a, int err)
{
	switch (a) {
	case SC_ALLOW: return SCMP_ACT_ALLOW;
	case SC_ERRNO: return SCMP_ACT_ERRNO((uint16_t)err);
	case SC_KILL: return SCMP_ACT_KILL_PROCESS;
	case SC_LOG: return SCMP_ACT_LOG;
	case SC_TRAP: return SCMP_ACT_TRAP;
	}
	return SCMP_ACT_KILL_PROCESS;
}

/* Audit mode: whatever would deny or kill only logs. */
static void audit_action(enum sc_action *a, int *err)
{
	if (*a != SC_ALLOW && *a != SC_LOG) {
		*a = SC_LOG;
		*err = 0;
	}
}

/* By number: the parser resolved each rule's name, one name a number. */
static int has_rule(const struct plan *p, int nr)
{
	for (size_t i = 0; i < p->nsc; i++)
		if (p->sc[i].nr == nr)
			return 1;
	return 0;
}

/* The first rule on name whose action is not allow, or NULL. */
static const struct sc_rule *denying_rule(const struct plan *p,
					  const char *name)
{
	for (size_t i = 0; i < p->nsc; i++)
		if (!strcmp(p->sc[i].name, name) && p->sc[i].act != SC_ALLOW)
			return &p->sc[i];
	return NULL;
}

/* A rule on clone that filters by flags, or denies it outright. */
static const struct sc_rule *clone_filter_rule(const struct plan *p)
{
	for (size_t i = 0; i < p->nsc; i++)
		if (!strcmp(p->sc[i].name, "clone") &&
		    (p->sc[i].ncond || p->sc[i].act != SC_ALLOW))
			return &p->sc[i];
	return NULL;
}

struct comp {
	struct diag *d;
	const struct plan *p;
	struct sc_filter *f;
	enum sc_action def;
	int def_err;
	int audit;
};

static void note(struct sc_filter *f, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void note(struct sc_filter *f, const char *fmt, ...)
{
	va_list ap;

	if (f->nnotes >= SC_MAX_NOTES)
		return;
	va_start(ap, fmt);
	vsnprintf(f->notes[f->nnotes++], sizeof(f->notes[0]), fmt, ap);
	va_end(ap);
}

/* The condition as the kernel will see the argument: see compile.h. */
static struct scmp_arg_cmp arg_cmp(const char *name, const struct sc_cond *c)
{
	static const enum scmp_compare ops[] = {
		[SC_EQ] = SCMP_CMP_EQ,	 [SC_NE] = SCMP_CMP_NE,
		[SC_LT] = SCMP_CMP_LT,	 [SC_LE] = SCMP_CMP_LE,
		[SC_GT] = SCMP_CMP_GT,	 [SC_GE] = SCMP_CMP_GE,
		[SC_MASKED_EQ] = SCMP_CMP_MASKED_EQ,
	};
	struct scmp_arg_cmp a = { c->arg, ops[c->op], c->value, 0 };

	if (c->op == SC_MASKED_EQ) {
		a.datum_a = c->mask;
		a.datum_b = c->value;
	}
	if (sc_arg_is_32bit(name, c->arg)) {
		if (c->op == SC_EQ) {
			a.op = SCMP_CMP_MASKED_EQ;
			a.datum_a = 0xffffffffu;
			a.datum_b = c->value;
		} else if (c->op == SC_MASKED_EQ) {
			a.datum_a &= 0xffffffffu;
		}
	}
	return a;
}

static int add_rule(struct comp *k, const char *name, int nr,
		    enum sc_action act, int err, unsigned ncond,
		    const struct sc_cond *cond, const struct pos *pos)
{
	struct scmp_arg_cmp a[SC_MAX_COND] = { { 0, 0, 0, 0 } };
	char abuf[32];
	int rc;

	if (k->audit)
		audit_action(&act, &err);
	/* libseccomp refuses a rule that repeats the default (EACCES). */
	if (act == k->def && (act != SC_ERRNO || err == k->def_err)) {
		k->f->skipped++;
		return 0;
	}
	/* Other ABIs only (socketcall on x86_64): that ABI is killed. */
	if (nr < 0) {
		k->f->skipped++;
		return 0;
	}
	for (unsigned i = 0; i < ncond; i++)
		a[i] = arg_cmp(name, &cond[i]);
	rc = seccomp_rule_add_array(k->f->ctx, scmp_action(act, err), nr,
				    ncond, a);
	if (rc < 0) {
		diag_fail(k->d, rc == -ENOMEM ? EXIT_SYSCALL : EXIT_USAGE, -rc,
			  "%s:%u:%u: libseccomp refused the rule '%s %s'%s",
			  pos->file, pos->line, pos->col,
			  sc_action_str(act, err, abuf, sizeof(abuf)), name,
			  ncond ? " with its conditions" : "");
		if (rc == -EINVAL && ncond > 1)
			diag_hint(k->d, "libseccomp takes one condition per "
				  "argument in a rule, and no range: split it "
				  "into rules");
		return -1;
	}
	k->f->rules++;
	return 0;
}

/* A bypass route the policy left open: give it the action (see
 * compile.h), unless the policy has a rule of its own for it. */
static int add_route(struct comp *k, const char *name, enum sc_action act,
		     int err, const struct pos *why, const char *because)
{
	char abuf[32];
	unsigned before;
	int nr;

	if (sc_syscall_resolve(name, &nr) < 0 || has_rule(k->p, nr))
		return 0;
	before = k->f->rules;
	if (add_rule(k, name, nr, act, err, 0, NULL, why) < 0)
		return -1;
	if (k->f->rules == before)
		return 0;
	k->f->added++;
	if (k->audit)
		audit_action(&act, &err);
	note(k->f, "%s: %s (%s, %s:%u:%u)", name,
	     sc_action_str(act, err, abuf, sizeof(abuf)), because, why->file,
	     why->line, why->col);
	return 0;
}

static int add_prlimit(struct comp *k)
{
	static const struct sc_cond other = { 0, SC_NE, 0, 0 };
	enum sc_action act = SC_ERRNO;
	int nr, err = EPERM;
	char abuf[32];
	unsigned before;
	const struct pos *why = &k->p->top;

	if (sc_syscall_resolve("prlimit64", &nr) < 0 || has_rule(k->p, nr))
		return 0;
	before = k->f->rules;
	if (add_rule(k, "prlimit64", nr, act, err, 1, &other, why) < 0)
		return -1;
	if (k->f->rules == before)
		return 0;
	k->f->added++;
	if (k->audit)
		audit_action(&act, &err);
	note(k->f, "prlimit64 if arg0 != 0: %s (another process's limits, "
	     "pid 1's included)", sc_action_str(act, err, abuf, sizeof(abuf)));
	return 0;
}

static int add_routes(struct comp *k)
{
	static const char *const uring[] = {
		"io_uring_setup", "io_uring_enter", "io_uring_register",
		"socketcall",
	};
	const struct plan *p = k->p;
	const struct sc_rule *r;

	r = denying_rule(p, "socket");
	for (size_t i = 0; r && i < sizeof(uring) / sizeof(uring[0]); i++)
		if (add_route(k, uring[i], r->act, r->err, &r->pos,
			      "socket is denied") < 0)
			return -1;
	/* prlimit64 on another process: the target could set pid 1's
	 * RLIMIT_CPU to 0 and end the run with a false status (pid 0, the
	 * caller itself, as glibc's setrlimit/getrlimit pass it, stays
	 * allowed). A pid with high bits set is refused too: fail closed. */
	if (add_prlimit(k) < 0)
		return -1;
	r = clone_filter_rule(p);
	if (r)
		return add_route(k, "clone3", SC_ERRNO, ENOSYS, &r->pos,
				 "clone is filtered; its flags are visible, "
				 "clone3's are not");
	if (p->sc_default != SC_ALLOW)
		return add_route(k, "clone3", SC_ERRNO, ENOSYS,
				 p->at[PAT_SCDEFAULT].line ? &p->at[PAT_SCDEFAULT]
							  : &p->top,
				 "not allowed by default; glibc falls back to "
				 "clone on ENOSYS only");
	return 0;
}

/* report denials: the path calls the policy allows outright return
 * TRACE(SC_REPORT_MARK), which the load turns into USER_NOTIF for pid 1
 * (answered "continue": the kernel decides) or back into ALLOW. Nothing
 * is added without the directive: the filter stays byte for byte. */
static int add_reports(struct comp *k)
{
	const struct sc_report_call *c;
	unsigned n;
	int rc;

	c = sc_report_calls(&n);
	for (unsigned i = 0; i < n; i++) {
		if (!sc_report_eligible(k->p, c[i].nr))
			continue;
		rc = seccomp_rule_add_array(k->f->ctx,
					    SCMP_ACT_TRACE(SC_REPORT_MARK),
					    c[i].nr, 0, NULL);
		if (rc < 0)
			return diag_fail(k->d, EXIT_SYSCALL, -rc,
					 "unable to add the rule of report "
					 "denials for %s", c[i].name);
		k->f->rules++;
		k->f->report++;
		k->f->report_set[c[i].nr / 64] |= (uint64_t)1 << (c[i].nr % 64);
	}
	if (k->f->report)
		note(k->f, "%u path syscalls (open, execve, mkdir, ...): "
		     "USER_NOTIF to pid 1, answered CONTINUE (%s:%u:%u: "
		     "report denials)", k->f->report,
		     k->p->at[PAT_REPORT].line ? k->p->at[PAT_REPORT].file
					       : "--report-denials",
		     k->p->at[PAT_REPORT].line, k->p->at[PAT_REPORT].col);
	return 0;
}

/* The marks of add_reports become ret (ALLOW, or USER_NOTIF). */
static void set_reports(struct sock_filter *insns, size_t n, uint32_t ret)
{
	for (size_t i = 0; i < n; i++)
		if (insns[i].code == (BPF_RET | BPF_K) &&
		    insns[i].k == (SECCOMP_RET_TRACE | SC_REPORT_MARK))
			insns[i].k = ret;
}

static int set_attr(struct comp *k, enum scmp_filter_attr attr,
		    uint32_t value, const char *what)
{
	int rc = seccomp_attr_set(k->f->ctx, attr, value);

	if (rc < 0)
		return diag_fail(k->d, EXIT_SYSCALL, -rc,
				 "unable to set the seccomp attribute %s", what);
	return 0;
}

/* Distinct syscall numbers among the rules: a bitmap for the native
 * numbers, a search of the earlier rules for the rest (other-ABI names). */
static unsigned count_syscalls(const struct plan *p)
{
	uint64_t seen[1024 / 64] = { 0 };
	unsigned n = 0;

	for (size_t i = 0; i < p->nsc; i++) {
		int nr = p->sc[i].nr;
		size_t j;

		if (nr >= 0 && nr < 1024) {
			uint64_t bit = (uint64_t)1 << (nr % 64);

			n += !(seen[nr / 64] & bit);
			seen[nr / 64] |= bit;
			continue;
		}
		for (j = 0; j < i && p->sc[j].nr != nr; j++)
			;
		n += j == i;
	}
	return n;
}

int sc_compile(struct diag *d, const struct plan *p, unsigned flags,
	       struct sc_filter *f)
{
	struct comp k = { d, p, f, p->sc_default, p->sc_default_err, 0 };
	enum sc_action bad = SC_KILL;
	int bad_err = 0;

	memset(f, 0, sizeof(*f));
	k.audit = f->audit = p->sc_audit || (flags & SC_COMPILE_AUDIT);
	if (k.audit) {
		audit_action(&k.def, &k.def_err);
		audit_action(&bad, &bad_err);
	}
	/* API level 3 (Linux 4.14: the seccomp() syscall, the LOG and
	 * KILL_PROCESS actions, which pysbx requires anyway) stated rather
	 * than probed: otherwise seccomp_init spends 9 seccomp() calls
	 * finding out at every start (seccomp_api_get would probe too). A
	 * kernel without them refuses the load, which is reported as such. */
	if (seccomp_api_set(3) < 0)
		return diag_fail(d, EXIT_SYSCALL, EINVAL,
				 "unable to set the libseccomp API level");
	f->ctx = seccomp_init(scmp_action(k.def, k.def_err));
	if (!f->ctx)
		return diag_fail(d, EXIT_SYSCALL, ENOMEM,
				 "unable to create the seccomp filter");
	f->syscalls = count_syscalls(p);
	f->tree = !(flags & SC_COMPILE_NO_TREE) &&
		  ((flags & SC_COMPILE_TREE) ||
		   f->syscalls >= SC_TREE_MIN_SYSCALLS);
	/* KILL_PROCESS, not libseccomp's default KILL (thread only): the
	 * other threads must not go on after one tried a foreign ABI. */
	if (set_attr(&k, SCMP_FLTATR_ACT_BADARCH, scmp_action(bad, bad_err),
		     "ACT_BADARCH") < 0 ||
	    set_attr(&k, SCMP_FLTATR_API_SYSRAWRC, 1, "API_SYSRAWRC") < 0 ||
	    (f->tree &&
	     set_attr(&k, SCMP_FLTATR_CTL_OPTIMIZE, 2, "CTL_OPTIMIZE") < 0))
		goto fail;
	for (size_t i = 0; i < p->nsc; i++) {
		const struct sc_rule *r = &p->sc[i];

		/* An unconditional allow that report denials turns into
		 * a notification (add_reports). */
		if (!k.audit && sc_report_eligible(p, r->nr))
			continue;
		if (add_rule(&k, r->name, r->nr, r->act, r->err, r->ncond,
			     r->cond, &r->pos) < 0)
			goto fail;
	}
	if (add_routes(&k) < 0 || (!k.audit && add_reports(&k) < 0))
		goto fail;
	return 0;
fail:
	sc_filter_free(f);
	return -1;
}

void sc_filter_free(struct sc_filter *f)
{
	if (f->ctx)
		seccomp_release(f->ctx);
	f->ctx = NULL;
}

/* libseccomp's generator, called directly. Its API hands the program out
 * only through a file descriptor (seccomp_export_bpf writes what this
 * returns), and the memfd round trip that took (memfd_create, write,
 * fstat, pread, close: a shmem inode made and freed in every run) cost
 * pysbx-seccomp about 70 us in traced runs. Same generator, same
 * instructions: --export still goes through seccomp_export_bpf. The
 * declarations of libseccomp's src/gen_bpf.h, which is not installed (the
 * symbols are in the static library we link; cmd/pysbx-seccomp/systab.c
 * mirrors its syscall table the same way; the fuzz build links the
 * system's shared libseccomp, which hides them, and uses nothing from
 * this file): check them again before moving to another release. */
#if SCMP_VER_MAJOR != 2 || SCMP_VER_MINOR != 5 || SCMP_VER_MICRO != 4
#error "compile.c mirrors libseccomp 2.5.4's src/gen_bpf.h: check it"
#endif
struct db_filter_col;
struct bpf_program {
	uint16_t blk_cnt;
	struct sock_filter *blks;
};
int gen_bpf_generate(const struct db_filter_col *col,
		     struct bpf_program **prgm_ptr);
void gen_bpf_release(struct bpf_program *program);

/* The prefix every program starts with: x86_64 syscall numbers above the
 * highest the build's headers know get ENOSYS, whatever the rules and the
 * default say (libseccomp has no ranges). A syscall added to the kernel
 * after the build cannot be named by a policy, so it must not be allowed
 * by a deny list's default either; ENOSYS is what libcs expect of an
 * unknown syscall and fall back on. x32 numbers (bit 30) and other
 * architectures go on to libseccomp's program, which kills them. All
 * jumps are forward and relative, so libseccomp's program is appended
 * unchanged. */
enum { SC_PREFIX_LEN = 6 };

static void sc_prefix(struct sock_filter *out, int audit)
{
	const uint32_t max = (uint32_t)sc_syscall_max();
	const uint32_t deny = audit ? SECCOMP_RET_LOG
				    : SECCOMP_RET_ERRNO | (ENOSYS & SECCOMP_RET_DATA);
	const struct sock_filter prefix[SC_PREFIX_LEN] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 0, 4),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000u, 2, 0),
		BPF_JUMP(BPF_JMP | BPF_JGT | BPF_K, max, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, deny),
	};

	memcpy(out, prefix, sizeof(prefix));
}

int sc_filter_bpf(struct diag *d, struct sc_filter *f,
		  struct sock_filter **insns, size_t *n)
{
	struct bpf_program *prg = NULL;
	int rc;

	*insns = NULL;
	rc = gen_bpf_generate((const struct db_filter_col *)f->ctx, &prg);
	if (rc < 0)
		return diag_fail(d, EXIT_SYSCALL, -rc,
				 "unable to generate the BPF program");
	*n = prg->blk_cnt + SC_PREFIX_LEN;
	if (*n > SC_BPF_MAX_INSNS) {
		gen_bpf_release(prg);
		return diag_fail(d, EXIT_USAGE, E2BIG,
				 "the filter has %zu BPF instructions, more "
				 "than the kernel's %d", *n, SC_BPF_MAX_INSNS);
	}
	*insns = malloc(*n * sizeof(**insns));
	if (*insns) {
		sc_prefix(*insns, f->audit);
		memcpy(*insns + SC_PREFIX_LEN, prg->blks,
		       prg->blk_cnt * sizeof(**insns));
	}
	gen_bpf_release(prg);
	if (!*insns)
		return diag_fail(d, EXIT_SYSCALL, ENOMEM,
				 "unable to read the BPF program");
	return 0;
}

/* The program as it is loaded, prefix included (not seccomp_export_bpf,
 * which knows nothing of the prefix). */
int sc_export(struct diag *d, struct sc_filter *f, int fd)
{
	struct sock_filter *insns;
	size_t n, off = 0, len;
	int e;

	if (sc_filter_bpf(d, f, &insns, &n) < 0)
		return -1;
	set_reports(insns, n, SECCOMP_RET_ALLOW);
	len = n * sizeof(*insns);
	while (off < len) {
		ssize_t w = write(fd, (char *)insns + off, len - off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			e = w < 0 ? errno : EIO;
			free(insns);
			return diag_fail(d, EXIT_SYSCALL, e,
					 "unable to write the BPF program");
		}
		off += (size_t)w;
	}
	free(insns);
	return 0;
}

int sc_list(struct diag *d, struct sc_filter *f, int fd)
{
	struct sock_filter *insns;
	size_t n;
	int rc;

	if (sc_filter_bpf(d, f, &insns, &n) < 0)
		return -1;
	free(insns);
	dprintf(fd, "# pysbx-seccomp filter: %zu BPF instructions, %u rules "
		"on %u syscalls (%u added for bypass routes, %u skipped), "
		"%s layout%s\n",
		n, f->rules, f->syscalls, f->added, f->skipped,
		f->tree ? "binary-tree" : "linear",
		f->audit ? ", AUDIT MODE: nothing is denied, all is logged" :
			   "");
	dprintf(fd, "# foreign ABIs (i386 int 0x80, x32 nr|0x40000000): %s\n",
		f->audit ? "LOG" : "KILL_PROCESS");
	dprintf(fd, "# x86_64 syscall numbers above %d (newer than the "
		"build): %s, before any rule\n", sc_syscall_max(),
		f->audit ? "LOG" : "ERRNO(ENOSYS)");
	for (size_t i = 0; i < f->nnotes; i++)
		dprintf(fd, "# added: %s\n", f->notes[i]);
	rc = seccomp_export_pfc(f->ctx, fd);
	if (rc < 0)
		return diag_fail(d, EXIT_SYSCALL, -rc,
				 "unable to write the filter listing");
	return 0;
}

int sc_load(struct diag *d, struct sc_filter *f)
{
	struct sock_filter *insns;
	struct sock_fprog prog;
	size_t n;
	int e;

	/* Not seccomp_load: with the API level set instead of probed (see
	 * sc_compile), libseccomp 2.5.4 does not know the syscall's number.
	 * Same call, no flags (no TSYNC: pysbx-seccomp is single-threaded). */
	if (sc_filter_bpf(d, f, &insns, &n) < 0)
		return -1;
	/* No listener: the reported calls are allowed, as without the
	 * directive (pysbx-seccomp says that nothing is reported). */
	set_reports(insns, n, SECCOMP_RET_ALLOW);
	prog.len = (unsigned short)n;
	prog.filter = insns;
	/* The filter may deny madvise: the heap is no longer populated ahead
	 * (alloc_prefault) once one is loaded. */
	alloc_prefault(0);
	if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) == 0) {
		free(insns);
		return 0;
	}
	e = errno;
	free(insns);
	diag_fail(d, EXIT_SYSCALL, e, "unable to load the seccomp filter");
	sc_load_hint(d, e);
	return -1;
}

int sc_notify_ok(const struct plan *p, const struct sc_filter *f)
{
	bool allowed = p->sc_default == SC_ALLOW || p->sc_default == SC_LOG;

	if (f->audit)
		return 0;
	for (size_t i = 0; i < p->nsc; i++) {
		const struct sc_rule *r = &p->sc[i];

		if (r->nr != SYS_sendmsg)
			continue;
		if (r->act != SC_ALLOW && r->act != SC_LOG)
			return 0;
		if (!r->ncond)
			allowed = true;
	}
	return allowed;
}

/* "L", then, when calls are reported, the set of their numbers: pid 1
 * must tell a reported call from a kill by the very set this filter
 * notifies on (its own plan has no seccomp lines: PARSE_SKIP_SECCOMP). */
static int send_fd(int sock, int fd, const struct sc_filter *f)
{
	char msg[1 + sizeof(f->report_set)] = "L";
	size_t len = 1;

	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int))];
	} u;
	struct msghdr mh = { 0 };
	struct cmsghdr *cm;
	struct iovec iov;

	if (f->report) {
		memcpy(msg + 1, f->report_set, sizeof(f->report_set));
		len += sizeof(f->report_set);
	}
	iov = (struct iovec){ msg, len };
	memset(&u, 0, sizeof(u));
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	mh.msg_control = u.buf;
	mh.msg_controllen = sizeof(u.buf);
	cm = CMSG_FIRSTHDR(&mh);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &fd, sizeof(int));
	return sendmsg(sock, &mh, MSG_NOSIGNAL) == (ssize_t)len ? 0 : -1;
}

int sc_load_notify(struct diag *d, struct sc_filter *f, int sock)
{
	struct sock_filter *insns;
	struct sock_fprog prog;
	size_t n;
	int fd, e;

	if (sc_filter_bpf(d, f, &insns, &n) < 0)
		return -1;
	for (size_t i = 0; i < n; i++)
		if (insns[i].code == (BPF_RET | BPF_K) &&
		    insns[i].k == SECCOMP_RET_KILL_PROCESS)
			insns[i].k = SECCOMP_RET_USER_NOTIF;
	set_reports(insns, n, SECCOMP_RET_USER_NOTIF);
	prog.len = (unsigned short)n;
	prog.filter = insns;
	alloc_prefault(0);	/* as in sc_load */
	fd = (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
			  SECCOMP_FILTER_FLAG_NEW_LISTENER |
				  SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV,
			  &prog);
	e = errno;
	free(insns);
	/* EINVAL: a kernel without these flags (before 6.0). EBUSY: a
	 * filter already in force has a listener (pysbx inside pysbx: the
	 * kernel allows one per chain of filters). The kernel's kill. */
	if (fd < 0 && (e == EINVAL || e == EBUSY))
		return sc_load(d, f);
	if (fd < 0) {
		diag_fail(d, EXIT_SYSCALL, e, "unable to load the seccomp filter");
		sc_load_hint(d, e);
		return -1;
	}
	/* From here on a kill waits for pid 1: without the listener there
	 * it would fail with ENOSYS, so a failed send ends the step. */
	if (send_fd(sock, fd, f) < 0)
		return diag_fail(d, EXIT_SYSCALL, errno,
				 "unable to pass the syscall filter's "
				 "listener to pid 1");
	/* fd is close-on-exec (the kernel makes listeners so): the
	 * target never holds it. */
	f->reporting = f->report > 0;
	return 0;
}

int sc_bpf_read(struct diag *d, const char *path, struct sock_filter **insns,
		size_t *n)
{
	const size_t max = SC_BPF_MAX_INSNS * sizeof(struct sock_filter);
	size_t off = 0;
	char *buf;
	int fd;

	*insns = NULL;
	fd = strcmp(path, "-") ? open(path, O_RDONLY | O_CLOEXEC) : 0;
	if (fd < 0)
		return diag_fail(d, errno == ENOENT ? EXIT_USAGE : EXIT_SYSCALL,
				 errno, "unable to open the BPF program %s",
				 path);
	/* One byte more than allowed: seeing it means too long. */
	buf = malloc(max + 1);
	if (!buf) {
		if (fd)
			close(fd);
		return diag_fail(d, EXIT_SYSCALL, ENOMEM,
				 "unable to read the BPF program %s", path);
	}
	for (;;) {
		ssize_t r = read(fd, buf + off, max + 1 - off);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int e = errno;

			free(buf);
			if (fd)
				close(fd);
			return diag_fail(d, EXIT_SYSCALL, e,
					 "unable to read the BPF program %s",
					 path);
		}
		if (!r || (off += (size_t)r) > max)
			break;
	}
	if (fd)
		close(fd);
	if (!off || off > max || off % sizeof(struct sock_filter)) {
		free(buf);
		if (!off)
			return diag_fail(d, EXIT_USAGE, 0,
					 "the BPF program %s is empty", path);
		if (off > max)
			return diag_fail(d, EXIT_USAGE, 0,
					 "the BPF program %s has more than %d "
					 "instructions", path, SC_BPF_MAX_INSNS);
		return diag_fail(d, EXIT_USAGE, 0,
				 "the BPF program %s is %zu bytes, not a "
				 "multiple of %zu (truncated?)", path, off,
				 sizeof(struct sock_filter));
	}
	*insns = (struct sock_filter *)buf;
	*n = off / sizeof(struct sock_filter);
	return 0;
}
