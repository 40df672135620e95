/* The seccomp compiler and lint: what each rule set compiles to (rules,
 * added bypass routes, masked compares, the foreign-ABI kill in the BPF),
 * the exact diagnostics, and the shipped policies' filters (instruction
 * counts and compile times are printed as diagnostics, never asserted). */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <linux/audit.h>
#include <linux/seccomp.h>

/* compile.h (policy.h) before <seccomp.h>, as in compile.c. */
#include "seccomp/compile.h"
#include <seccomp.h>
#include "seccomp/lint.h"
#include "scnames/scnames.h"
#include "tap.h"

static struct plan p;
static struct sc_filter f;
static struct diag d;
static char listing[65536];

/* Parse text as t.policy into p; bail out on a parse error. */
static void parse(const char *text)
{
	struct vars v = { 0 };
	struct perr e;

	plan_free(&p);
	plan_init(&p);
	if (policy_parse_buf(&p, "t.policy", text, strlen(text), &v,
			     PARSE_NO_SCRATCH, &e) < 0)
		bail_out("parse: %s", e.n ? e.msg[0] : "?");
}

/* Compile text; 0 or -1 (d holds the failure). The listing is kept. */
static int compile(const char *text, unsigned flags)
{
	int fd;
	ssize_t r;

	parse(text);
	sc_filter_free(&f);
	d = (struct diag)DIAG_INIT("t", "seccomp");
	if (sc_compile(&d, &p, flags, &f) < 0)
		return -1;
	fd = memfd_create("list", 0);
	listing[0] = '\0';
	if (fd >= 0 && sc_list(&d, &f, fd) == 0) {
		r = pread(fd, listing, sizeof(listing) - 1, 0);
		listing[r > 0 ? r : 0] = '\0';
	}
	if (fd >= 0)
		close(fd);
	return 0;
}

static int has(const char *needle)
{
	if (strstr(listing, needle))
		return 1;
	diag("listing lacks '%s'", needle);
	return 0;
}

static size_t insns(void)
{
	struct sock_filter *b;
	size_t n = 0;

	if (sc_filter_bpf(&d, &f, &b, &n) == 0)
		free(b);
	return n;
}

static void compiler(void)
{
	ok(compile("seccomp default allow\nseccomp allow read\n", 0) == 0 &&
		   f.rules == 1 && f.skipped == 1,
	   "a rule equal to the default is skipped, not refused (the one "
	   "rule: prlimit64 on others)");
	ok(compile("seccomp deny socket\n", 0) == 0 && f.added == 4,
	   "socket denied: three io_uring rules are added (and prlimit64's)");
	is_str(f.notes[0],
	       "io_uring_setup: ERRNO(EPERM) (socket is denied, t.policy:1:14)",
	       "the added route names its reason and position");
	ok(f.skipped == 1, "socketcall (i386 only) is skipped on x86_64");
	ok(compile("seccomp errno=EACCES socket if arg0!=AF_UNIX\n", 0) == 0 &&
		   has("if ($syscall == 425)\n    action ERRNO(13);"),
	   "a conditional socket denial also closes io_uring, with its errno");
	ok(compile("seccomp deny socket\nseccomp allow io_uring_setup\n", 0) ==
			   0 && f.added == 3,
	   "a rule for io_uring_setup keeps the policy's word for it");
	ok(compile("seccomp deny @namespaces\n", 0) == 0 && f.added == 2 &&
		   has("# added: clone3: ERRNO(ENOSYS) (clone is filtered"),
	   "clone flags filtered: clone3 gets ENOSYS");
	ok(compile("seccomp deny @namespaces\nseccomp kill clone3\n", 0) == 0 &&
		   f.added == 1,
	   "a clone3 rule of the policy wins over the added ENOSYS");
	ok(compile("seccomp deny keyctl\n", 0) == 0 &&
		   has("# added: prlimit64 if arg0 != 0: ERRNO(EPERM)") &&
		   has("if ($a0.hi32 == 0)\n      if ($a0.lo32 == 0)\n      "
		       "else\n        action ERRNO(1);"),
	   "prlimit64 on another process (pid != 0) is refused with EPERM");
	ok(compile("seccomp allow prlimit64\nseccomp deny keyctl\n", 0) == 0 &&
		   f.added == 0,
	   "a prlimit64 rule of the policy keeps the policy's word for it");
	{
		struct sock_filter *b = NULL;
		size_t n = 0;
		int max = sc_syscall_max();

		ok(compile("seccomp deny keyctl\n", 0) == 0 &&
			   sc_filter_bpf(&d, &f, &b, &n) == 0 && n > 6 &&
			   b[0].code == (BPF_LD | BPF_W | BPF_ABS) &&
			   b[0].k == 4 && b[1].k == AUDIT_ARCH_X86_64 &&
			   b[1].jf == 4 && b[3].k == 0x40000000 &&
			   b[3].jt == 2 && b[4].k == (unsigned)max &&
			   b[4].jf == 1 &&
			   b[5].k == (SECCOMP_RET_ERRNO | ENOSYS) &&
			   has("# x86_64 syscall numbers above"),
		   "the program starts with ENOSYS above the highest known "
		   "number, then libseccomp's");
		free(b);
		ok(max >= 435 && max < 1024, "the highest known number (%d) "
		   "is at least clone3's", max);
	}
	ok(compile("seccomp default errno=EPERM\nseccomp allow execve\n", 0) ==
			   0 && has("# added: clone3: ERRNO(ENOSYS) (not allowed "
				    "by default"),
	   "a refusing default: clone3 gets ENOSYS so that glibc falls back");
	ok(compile("seccomp deny ioctl if arg1==TIOCSTI\n", 0) == 0 &&
		   has("if ($a1.hi32 & 0x00000000 == 0)\n"
		       "      if ($a1.lo32 & 0xffffffff == 21522)"),
	   "ioctl arg1==V compares the low 32 bits only");
	ok(compile("seccomp deny ioctl if arg1&0x1ffffffff==TIOCSTI\n", 0) ==
			   0 && has("if ($a1.hi32 & 0x00000000 == 0)"),
	   "ioctl arg1's mask is cut to 32 bits");
	ok(compile("seccomp deny clone if arg0==0x100000000\n", 0) == 0 &&
		   has("if ($a0.hi32 == 1)"),
	   "clone's 64-bit flags are compared in full");
	ok(compile("seccomp default kill\nseccomp deny socket\nseccomp audit\n",
		   0) == 0 &&
		   has("# foreign ABIs (i386 int 0x80, x32 nr|0x40000000): LOG") &&
		   has("action LOG;\n# invalid") && has("AUDIT MODE") &&
		   !strstr(listing, "ERRNO"),
	   "audit: default, rules and foreign ABIs all log");
	ok(compile("seccomp deny socket\n", SC_COMPILE_AUDIT) == 0 && f.audit &&
		   !strstr(listing, "ERRNO"),
	   "SC_COMPILE_AUDIT (--log) does the same");
	is_int(compile("seccomp deny fcntl if arg1>1 arg1<5\n", 0), -1,
	       "libseccomp's refusal is an error");
	is_str(d.msg, "t.policy:1:14: libseccomp refused the rule "
		      "'ERRNO(EPERM) fcntl' with its conditions",
	       "... naming the rule's position");
	is_int(d.code, 100, "... exit 100");
}

/* The foreign-ABI checks, read from the BPF itself. */
static void bpf(void)
{
	struct sock_filter *b;
	size_t n = 0;
	int arch = 0, x32 = 0, kill = 0;

	compile("seccomp deny socket\n", 0);
	if (sc_filter_bpf(&d, &f, &b, &n) < 0)
		bail_out("bpf: %s", d.msg);
	for (size_t i = 0; i < n; i++) {
		if (b[i].code == (BPF_JMP | BPF_JEQ | BPF_K) &&
		    b[i].k == AUDIT_ARCH_X86_64)
			arch = 1;
		if (b[i].code == (BPF_JMP | BPF_JGE | BPF_K) &&
		    b[i].k == 0x40000000)
			x32 = 1;
		if (b[i].code == (BPF_RET | BPF_K) &&
		    b[i].k == SECCOMP_RET_KILL_PROCESS)
			kill = 1;
	}
	free(b);
	ok(arch, "the BPF checks the architecture is x86_64");
	ok(x32, "the BPF checks nr >= 0x40000000 (x32)");
	ok(kill, "the BPF returns KILL_PROCESS (not KILL_THREAD)");
	ok(compile("", 0) == 0 && has("KILL_PROCESS"),
	   "an empty rule set still kills foreign ABIs");
}

static const char *lint1(const char *text)
{
	static char out[600];
	struct sc_warning w[4];
	size_t n;

	parse(text);
	n = sc_lint(&p, w, 4);
	if (!n)
		return "none";
	snprintf(out, sizeof(out), "%s:%u:%u: %s%s", w[0].pos.file,
		 w[0].pos.line, w[0].pos.col, w[0].msg, n > 1 ? " (+more)" : "");
	return out;
}

static void lint(void)
{
	is_str(lint1("seccomp deny socket\nseccomp allow io_uring_setup\n"),
	       "t.policy:2:15: 'io_uring_setup' is allowed while socket is "
	       "denied at t.policy:1: io_uring creates sockets without calling "
	       "socket(2); deny it too (@io-uring)",
	       "lint: io_uring allowed while socket is denied");
	is_str(lint1("seccomp default errno=EPERM\nseccomp allow execve "
		     "io_uring_setup\n"),
	       "t.policy:2:22: 'io_uring_setup' is allowed while socket is "
	       "denied at t.policy:1: io_uring creates sockets without calling "
	       "socket(2); deny it too (@io-uring)",
	       "lint: ... also when the default denies socket");
	is_str(lint1("seccomp deny @namespaces\nseccomp allow clone3\n"),
	       "t.policy:2:15: 'clone3' is allowed while clone is filtered at "
	       "t.policy:1: clone3 passes its flags in memory seccomp cannot "
	       "read; use 'seccomp errno=ENOSYS clone3' (glibc then falls back "
	       "to clone)",
	       "lint: clone3 allowed while clone's flags are filtered");
	is_str(lint1("seccomp kill ioctl\nseccomp deny ioctl if arg1==1\n"),
	       "t.policy:2:14: this conditional rule on 'ioctl' never applies: "
	       "the unconditional rule at t.policy:1:14 decides every call",
	       "lint: a conditional rule shadowed by an unconditional one");
	is_str(lint1("seccomp allow ioctl\nseccomp deny ioctl if arg1==1\n"),
	       "none", "lint: ... not when the unconditional rule is the default");
	is_str(lint1("seccomp default kill\nseccomp allow execve\n"
		     "seccomp allow ioctl if arg1!=0x5412\n"),
	       "t.policy:3:15: 'arg1!=21522' compares all 64 bits of an "
	       "argument of 'ioctl' the kernel reads as a 32-bit int: a caller "
	       "can set the high bits to get past this rule; use == or "
	       "arg1&0xffffffff==VALUE",
	       "lint: a permissive != on a 32-bit argument");
	is_str(lint1("seccomp deny socket if arg0!=AF_UNIX\n"), "none",
	       "lint: a denying != fails closed: no warning");
	is_str(lint1("seccomp default errno=EPERM\nseccomp allow read\n"),
	       "t.policy:1:9: the default action refuses execve and no rule "
	       "allows it: the target cannot be started ('seccomp allow "
	       "execve')",
	       "lint: a default that refuses execve");
	is_str(lint1("seccomp deny socket\nseccomp audit\n"),
	       "t.policy:2:9: 'seccomp audit' is on: the filter only logs, it "
	       "denies nothing",
	       "lint: audit left on");
}

/* Run the BPF on a syscall with zero arguments; instructions executed, or
 * 0 for an instruction this small interpreter does not know. */
static size_t run_bpf(const struct sock_filter *b, size_t n, uint32_t nr)
{
	uint32_t data[16] = { nr, AUDIT_ARCH_X86_64 }, a = 0, mem[16] = { 0 };
	size_t pc = 0, steps = 0;

	while (pc < n) {
		const struct sock_filter *i = &b[pc++];
		int jmp = -1;

		steps++;
		switch (i->code) {
		case BPF_LD | BPF_W | BPF_ABS:
			a = i->k / 4 < 16 ? data[i->k / 4] : 0;
			break;
		case BPF_LD | BPF_MEM: a = mem[i->k & 15]; break;
		case BPF_ST: mem[i->k & 15] = a; break;
		case BPF_ALU | BPF_AND | BPF_K: a &= i->k; break;
		case BPF_JMP | BPF_JA: pc += i->k; break;
		case BPF_JMP | BPF_JEQ | BPF_K: jmp = a == i->k; break;
		case BPF_JMP | BPF_JGT | BPF_K: jmp = a > i->k; break;
		case BPF_JMP | BPF_JGE | BPF_K: jmp = a >= i->k; break;
		case BPF_JMP | BPF_JSET | BPF_K: jmp = (a & i->k) != 0; break;
		case BPF_RET | BPF_K: return steps;
		default: return 0;
		}
		if (jmp >= 0)
			pc += jmp ? i->jt : i->jf;
	}
	return 0;
}

/* The longest path through the filter over syscalls 0..511. */
static size_t worst_path(void)
{
	struct sock_filter *b;
	size_t n = 0, worst = 0;

	if (sc_filter_bpf(&d, &f, &b, &n) < 0)
		return 0;
	for (uint32_t nr = 0; nr < 512; nr++) {
		size_t s = run_bpf(b, n, nr);

		if (!s) {
			worst = 0;
			break;
		}
		if (s > worst)
			worst = s;
	}
	free(b);
	return worst;
}

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

/* Compile (and generate BPF) `rounds` times; the mean in microseconds. */
static double time_compile(unsigned flags, int rounds)
{
	double t0 = now_us();

	for (int i = 0; i < rounds; i++) {
		sc_filter_free(&f);
		if (sc_compile(&d, &p, flags, &f) < 0)
			return -1;
		insns();
	}
	return (now_us() - t0) / rounds;
}

/* Does the file at path contain needle (in its first 64 KiB)? */
static int file_uses(const char *path, const char *needle)
{
	static char buf[65536];
	FILE *fp = fopen(path, "r");
	size_t n;

	if (!fp)
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, fp);
	fclose(fp);
	buf[n] = '\0';
	return strstr(buf, needle) != NULL;
}

/* The whole of a small text file (static; NULL if unreadable). */
static const char *read_doc(const char *path)
{
	static char buf[1 << 16];
	FILE *fp = fopen(path, "r");
	size_t n;

	if (!fp)
		return NULL;
	n = fread(buf, 1, sizeof(buf) - 1, fp);
	fclose(fp);
	buf[n] = '\0';
	return buf;
}

static void shipped(void)
{
	const char *td = getenv("PYSBX_TESTDIR");
	char dir[4096], path[8192], row[256];
	const char *doc;
	struct dirent *de;
	DIR *dp;
	int seen = 0;

	snprintf(dir, sizeof(dir), "%s/../docs/SECCOMP.md", td ? td : "test");
	doc = read_doc(dir);
	snprintf(dir, sizeof(dir), "%s/../policies", td ? td : "test");
	dp = opendir(dir);
	if (!dp) {
		skip(1, "no policies directory at %s", dir);
		return;
	}
	while ((de = readdir(dp))) {
		struct vars v = { 0 };
		struct perr e;
		struct sc_warning w[4];
		size_t len = strlen(de->d_name), lin, tree, lpath, tpath;
		char err[64];
		double tl, tt;

		if (len < 8 || strcmp(de->d_name + len - 7, ".policy"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		/* Only what the policy uses: an unused -D is an error. */
		if (file_uses(path, "${WORKSPACE"))
			vars_add_arg(&v, "WORKSPACE=/tmp", err, sizeof(err));
		if (file_uses(path, "${PROG"))
			vars_add_arg(&v, "PROG=/bin/true", err, sizeof(err));
		plan_free(&p);
		plan_init(&p);
		if (policy_parse_file(&p, path, &v, PARSE_NO_SCRATCH, &e) < 0) {
			ok(0, "%s parses: %s", de->d_name, e.n ? e.msg[0] : "");
			continue;
		}
		tl = time_compile(SC_COMPILE_NO_TREE, 20);
		lin = insns();
		lpath = worst_path();
		tt = time_compile(SC_COMPILE_TREE, 20);
		tree = insns();
		tpath = worst_path();
		sc_filter_free(&f);
		ok(sc_compile(&d, &p, 0, &f) == 0 && insns() > 0 &&
			   insns() <= SC_BPF_MAX_INSNS,
		   "%s compiles within the kernel's limit", de->d_name);
		diag("%s: %u syscalls; linear: %zu insns, longest path %zu, "
		     "%.0f us; binary tree: %zu insns, longest path %zu, "
		     "%.0f us; chosen: %s", de->d_name, f.syscalls, lin, lpath,
		     tl, tree, tpath, tt, f.tree ? "tree" : "linear");
		is_int((long long)sc_lint(&p, w, 4), 0,
		       "%s has no seccomp lint warning", de->d_name);
		/* docs/SECCOMP.md's table says the same (no times: those
		 * are the machine's, not the code's). */
		snprintf(row, sizeof(row), "| %s | %u | %zu / %zu | %zu / %zu |",
			 de->d_name, f.syscalls, lin, lpath, tree, tpath);
		if (doc)
			ok(strstr(doc, row) != NULL, "docs/SECCOMP.md has the "
			   "row %s (a policy's filter changed: update the "
			   "table there)", row);
		else
			skip(1, "no docs/SECCOMP.md here to compare");
		seen++;
	}
	closedir(dp);
	ok(seen > 0, "found the shipped policies (%d)", seen);
}

/* The generated native table against libseccomp's, both ways, and the
 * other-ABI names against libseccomp's pseudo numbers. */
static void names(void)
{
	size_t n = 0, nf = 0, bad = 0, missing = 0, seen = 0;
	const char *name, *prev = NULL;
	int nr, l, top = 0, sorted = 1;

	for (n = 0; (name = sc_syscall_at(0, n, &nr)); n++) {
		sorted &= !prev || strcmp(prev, name) < 0;
		prev = name;
		top = nr > top ? nr : top;
		l = seccomp_syscall_resolve_name_arch(SCMP_ARCH_X86_64, name);
		if (l != nr && bad++ < 5)
			diag("%s: table %d, libseccomp %d", name, nr, l);
	}
	for (prev = NULL; (name = sc_syscall_at(1, nf, &nr)); nf++) {
		sorted &= !prev || strcmp(prev, name) < 0;
		prev = name;
	}
	ok(sorted && n >= 300, "the syscall tables are sorted, no duplicate "
	   "(%zu native names, %zu other-ABI names)", n, nf);
	is_int((long long)bad, 0, "every native name has libseccomp's x86_64 "
	       "number");
	/* libseccomp may know syscalls newer than the build's kernel
	 * headers: those are unknown to policies (docs/SECCOMP.md). */
	for (int k = 0; k < 1024; k++) {
		char *s = seccomp_syscall_resolve_num_arch(SCMP_ARCH_X86_64, k);

		if (!s)
			continue;
		if (k > top) {
			diag("newer than <asm/unistd_64.h>, unknown here: %s "
			     "(%d)", s, k);
		} else {
			seen++;
			if ((sc_syscall_resolve(s, &nr) < 0 || nr != k) &&
			    missing++ < 5)
				diag("libseccomp's %s (%d) is not in the "
				     "table", s, k);
		}
		free(s);
	}
	ok(!missing && seen == n, "every x86_64 syscall libseccomp knows up "
	   "to %d (%zu) resolves to its number", top, seen);
	bad = 0;
	for (size_t i = 0; (name = sc_syscall_at(1, i, &nr)); i++) {
		int r;

		l = seccomp_syscall_resolve_name_arch(SCMP_ARCH_X86_64, name);
		if ((l >= 0 || l != nr || l == __NR_SCMP_ERROR ||
		     sc_syscall_resolve(name, &r) < 0 || r != nr) &&
		    bad++ < 5)
			diag("%s: listed %d, libseccomp %d", name, nr, l);
	}
	is_int((long long)bad, 0, "each other-ABI name is libseccomp's pseudo "
	       "number, not an x86_64 syscall");
	bad = 0;
	for (const struct sc_preset *s = sc_presets; s->name; s++)
		for (const char *const *it = s->items; *it; it++) {
			char item[64];

			snprintf(item, sizeof(item), "%.*s",
				 (int)strcspn(*it, " "), *it);
			if (sc_syscall_resolve(item, &nr) < 0 && bad++ < 5)
				diag("@%s: %s does not resolve", s->name,
				     item);
		}
	is_int((long long)bad, 0, "every preset item resolves");
	ok(sc_syscall_resolve("socket", &nr) == 0 && nr == 41 &&
	   sc_syscall_resolve("_sysctl", &nr) == 0 && nr == 156 &&
	   sc_syscall_resolve("socketcall", &nr) == 0 && nr < 0,
	   "socket is 41, _sysctl 156, socketcall negative");
	ok(sc_syscall_resolve("sockett", &nr) < 0 &&
	   sc_syscall_resolve("", &nr) < 0 &&
	   sc_syscall_resolve("SOCKET", &nr) < 0 &&
	   sc_syscall_resolve("ipc", &nr) < 0,
	   "unknown names fail, as does ipc (other ABIs only, in no preset)");
}

/* What each preset holds, item by item: a policy's meaning depends on
 * it, and the shipped policies would hide a dropped item (another rule
 * often covers it). Changing a preset means changing this list. */
static void presets(void)
{
	static const struct {
		const char *name, *items;
	} want[] = {
		{ "python-tool",
		  "socket, socketpair arg0!=AF_UNIX, socketpair "
		  "arg1&0x2==0x2, ptrace, bpf, userfaultfd, perf_event_open, "
		  "process_vm_readv, process_vm_writev, kexec_load, "
		  "kexec_file_load, open_by_handle_at, name_to_handle_at, "
		  "fanotify_init, fanotify_mark" },
		{ "network",
		  "socket, socketpair, socketcall" },
		{ "inet",
		  "socket arg0!=AF_UNIX, socketpair arg0!=AF_UNIX, socketcall" },
		{ "proxy-client",
		  "socket arg0<2, socket arg0>10, socket arg0==3, socket "
		  "arg0==4, socket arg0==5, socket arg0==6, socket arg0==7, "
		  "socket arg0==8, socket arg0==9, socket arg1&0xf==2, socket "
		  "arg1&0xf==3, socket arg1&0xf==4, socket arg1&0xf==5, socket "
		  "arg1&0xf==6, socket arg1&0xf==10, socketpair arg0!=AF_UNIX, "
		  "socketpair arg1&0x2==0x2, socketcall" },
		{ "unix-sockets",
		  "socket arg0&0xffffffff==AF_UNIX, socketpair arg1&0x2==0x2, "
		  "socketcall" },
		{ "mount",
		  "mount, umount, umount2, pivot_root, chroot, fsopen, "
		  "fsconfig, fsmount, fspick, move_mount, open_tree, "
		  "mount_setattr" },
		{ "namespaces",
		  "unshare, setns, clone arg0&CLONE_NEWNS==CLONE_NEWNS, clone "
		  "arg0&CLONE_NEWCGROUP==CLONE_NEWCGROUP, clone "
		  "arg0&CLONE_NEWUTS==CLONE_NEWUTS, clone "
		  "arg0&CLONE_NEWIPC==CLONE_NEWIPC, clone "
		  "arg0&CLONE_NEWUSER==CLONE_NEWUSER, clone "
		  "arg0&CLONE_NEWPID==CLONE_NEWPID, clone "
		  "arg0&CLONE_NEWNET==CLONE_NEWNET" },
		{ "keyring",
		  "keyctl, add_key, request_key" },
		{ "module",
		  "init_module, finit_module, delete_module" },
		{ "syslog",
		  "syslog" },
		{ "tty-inject",
		  "ioctl arg1&0xffffffff==TIOCSTI, ioctl "
		  "arg1&0xffffffff==TIOCLINUX" },
		{ "io-uring",
		  "io_uring_setup, io_uring_enter, io_uring_register" },
		{ "debug",
		  "ptrace, process_vm_readv, process_vm_writev, "
		  "perf_event_open, kcmp, fanotify_init, fanotify_mark" },
		{ "obsolete",
		  "uselib, acct, quotactl, swapon, swapoff, reboot, _sysctl, "
		  "ustat, sysfs, lookup_dcookie, nfsservctl, vhangup, iopl, "
		  "ioperm, create_module, get_kernel_syms, query_module, "
		  "settimeofday, clock_settime, clock_adjtime, adjtimex, "
		  "pciconfig_read, pciconfig_write, kexec_load, "
		  "kexec_file_load, modify_ldt" },
		{ "handles",
		  "open_by_handle_at, name_to_handle_at" },
		{ "clock",
		  "settimeofday, clock_settime, clock_adjtime, adjtimex" },
		{ "raw-io",
		  "iopl, ioperm, pciconfig_read, pciconfig_write, "
		  "pciconfig_iobase" },
		{ "reboot",
		  "reboot, kexec_load, kexec_file_load" },
		{ "swap",
		  "swapon, swapoff" },
		{ "cpu-emulation",
		  "modify_ldt, vm86, vm86old, subpage_prot, switch_endian" },
		{ "bpf",
		  "bpf" },
	};
	size_t n = 0;

	for (const struct sc_preset *s = sc_presets; s->name; s++)
		n++;
	is_int((long long)n, (long long)(sizeof(want) / sizeof(want[0])),
	       "the number of presets");
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		const struct sc_preset *s = sc_preset_find(want[i].name);
		char got[1024] = "";

		for (const char *const *it = s ? s->items : NULL; it && *it;
		     it++)
			snprintf(got + strlen(got), sizeof(got) - strlen(got),
				 "%s%s", got[0] ? ", " : "", *it);
		is_str(got, want[i].items, "@%s holds exactly its list",
		       want[i].name);
	}
}

int main(void)
{
	plan_init(&p);
	names();
	presets();
	compiler();
	bpf();
	lint();
	shipped();
	sc_filter_free(&f);
	plan_free(&p);
	return done_testing();
}
