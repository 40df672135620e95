/* The policy language: every rejection with its exact diagnostic, the
 * variables, includes, and the round trip through a sealed memfd. */
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "chain/chain.h"
#include "policy/policy.h"
#include "tap.h"

static struct perr e;
static char first[600];

/* Parse text as "t.policy" with the given -D args; the first diagnostic
 * (or "ok") is left in `first`. */
static const char *parse_v(const char *text, const char *const *defs)
{
	struct vars v = { 0 };
	struct plan p;
	char err[256];

	for (; defs && *defs; defs++)
		if (vars_add_arg(&v, *defs, err, sizeof(err)) < 0) {
			snprintf(first, sizeof(first), "vars: %s", err);
			return first;
		}
	plan_init(&p);
	if (policy_parse_buf(&p, "t.policy", text, strlen(text), &v, 0, &e) < 0)
		snprintf(first, sizeof(first), "%s", e.n ? e.msg[0] : "?");
	else
		snprintf(first, sizeof(first), "ok");
	plan_free(&p);
	for (size_t i = 0; i < v.n; i++)
		free((char *)v.name[i]);
	return first;
}

static char *show(const char *text, const char *const *defs);

static const char *parse(const char *text)
{
	return parse_v(text, NULL);
}

#define REJECT(text, msg) is_str(parse(text), msg, "rejects: %s", msg)
#define ACCEPT(text) is_str(parse(text), "ok", "accepts: %s", text)

static void rejections(void)
{
	char *line, *longpath;

	REJECT("limt nofile 1\n",
	       "t.policy:1:1: error: unknown directive 'limt' (did you mean "
	       "'limit'?)");
	REJECT("  frobnicate\n",
	       "t.policy:1:3: error: unknown directive 'frobnicate'");
	REJECT("unshare user mount\nro-bind /usr\n",
	       "t.policy:2:1: error: 'ro-bind' takes 2 arguments, not 1 "
	       "(usage: ro-bind SOURCE DEST)");
	REJECT("hostname a b\n",
	       "t.policy:1:1: error: 'hostname' takes 1 argument, not 2 "
	       "(usage: hostname NAME)");
	REJECT("unshare mount\nro-bind usr /usr\n",
	       "t.policy:2:9: error: source path 'usr' must be absolute");
	REJECT("unshare mount\nbind /x tmp\n",
	       "t.policy:2:9: error: destination path 'tmp' must be absolute");
	REJECT("unshare mount\nbind /a/../etc /x\n",
	       "t.policy:2:6: error: source path '/a/../etc' must not "
	       "contain '..'");
	REJECT("unshare mount\ndir /tmp/..\n",
	       "t.policy:2:5: error: destination path '/tmp/..' must not "
	       "contain '..'");
	is_str(parse_v("unshare mount\ndir /tmp/${X}\n",
		       (const char *const[]){ "X=..", NULL }),
	       "t.policy:2:5: error: destination path '/tmp/..' must not "
	       "contain '..'",
	       "rejects '..' that comes from a variable");
	{
		static const char nul[] = "hostname a\0b\n";
		struct plan p;

		plan_init(&p);
		policy_parse_buf(&p, "t.policy", nul, sizeof(nul) - 1, NULL, 0,
				 &e);
		is_str(e.n ? e.msg[0] : "ok",
		       "t.policy:1:11: error: NUL byte in policy",
		       "rejects a NUL byte");
		plan_free(&p);
	}
	REJECT("file /x \"a\\x00b\"\n",
	       "t.policy:1:11: error: NUL byte in policy");
	line = malloc(PLAN_MAX_LINE + 20);
	memset(line, 'x', PLAN_MAX_LINE + 10);
	memcpy(line, "env A=", 6);
	strcpy(line + PLAN_MAX_LINE + 10, "\n");
	REJECT(line, "t.policy:1:4097: error: line is longer than 4096 bytes");
	free(line);
	longpath = malloc(PLAN_MAX_PATH + 100);
	strcpy(longpath, "P=");
	for (int i = 0; i < PLAN_MAX_PATH / 4 + 1; i++)
		strcat(longpath, "/abc");
	is_str(parse_v("unshare mount\ndir ${P}\n",
		       (const char *const[]){ longpath, NULL }),
	       "t.policy:2:5: error: destination path is longer than 4095 "
	       "bytes",
	       "rejects an overlong path");
	free(longpath);
	REJECT("unshare mount\ntmpfs /tmp size=12Q\n",
	       "t.policy:2:12: error: tmpfs size '12Q' has an unknown suffix "
	       "(use K, M or G)");
	REJECT("limit nofile -1\n",
	       "t.policy:1:14: error: limit value '-1' is not a number");
	REJECT("limit as 18446744073709551616\n",
	       "t.policy:1:10: error: limit value '18446744073709551616' is "
	       "too large");
	REJECT("limit as 16777216T\n",
	       "t.policy:1:10: error: limit value '16777216T' is too large");
	REJECT("unshare mount\ntmpfs /tmp size=0\n",
	       "t.policy:2:12: error: tmpfs size must not be 0");
	/* A quoted key with a space once matched two allowed words and was
	 * silently dropped (it landed in the unused shm-size slot). */
	REJECT("unshare mount\ntmpfs /tmp \"size mode=1\"\n",
	       "t.policy:2:12: error: unknown option 'size mode=1' (this "
	       "directive takes: size mode inodes )");
	ACCEPT("limit core 0\n");
	REJECT("limit nofile 10 5\n",
	       "t.policy:1:14: error: soft limit 10 is above the hard limit 5");
	REJECT("limit nofle 1\n",
	       "t.policy:1:7: error: unknown limit 'nofle' (did you mean 'nofile'?) (use as, core, cpu, "
	       "data, fsize, locks, memlock, msgqueue, nice, nofile, nproc, "
	       "rss, rtprio, rttime, sigpending or stack)");
	REJECT("limit nofile 1\nlimit nofile 2\n",
	       "t.policy:2:7: error: duplicate limit 'nofile'");
	REJECT("unshare uts\nhostname a\nhostname b\n",
	       "t.policy:3:1: error: duplicate 'hostname' (first given at "
	       "t.policy:2)");
	REJECT("timeout 1s\ntimeout 2s\n",
	       "t.policy:2:1: error: duplicate 'timeout' (first given at "
	       "t.policy:1)");
	REJECT("timeout 30\n",
	       "t.policy:1:9: error: timeout '30' needs a unit (ms, s, m or h)");
	REJECT("seccomp deny sockett\n",
	       "t.policy:1:14: error: unknown syscall 'sockett' (did you mean 'socket'?)");
	REJECT("seccomp deny @nope\n",
	       "t.policy:1:14: error: unknown preset '@nope' (see "
	       "docs/POLICY.md for the list)");
	REJECT("seccomp deny socket\nseccomp kill socket\n",
	       "t.policy:2:14: error: syscall 'socket' already has a different "
	       "rule at t.policy:1");
	REJECT("seccomp deny ioctl if arg1=5\n",
	       "t.policy:1:23: error: malformed condition 'arg1=5' (use "
	       "argN==V, !=, <, <=, >, >= or argN&MASK==V, N from 0 to 5, V a "
	       "number or a known constant)");
	REJECT("env PATH\n",
	       "t.policy:1:5: error: env entry 'PATH' has no '=' (use "
	       "NAME=VALUE, or env-pass NAME to pass the caller's value)");
	REJECT("env A=1\nenv-pass A\n",
	       "t.policy:2:10: error: environment variable 'A' is already set "
	       "at t.policy:1");
	REJECT("chdir ${NOPE}\n",
	       "t.policy:1:7: error: undefined variable 'NOPE' (define it with "
	       "-D NOPE=VALUE or give a default: ${NOPE:-VALUE})");
	REJECT("chdir ${}\n",
	       "t.policy:1:7: error: malformed variable reference (use ${NAME} "
	       "or ${NAME:-default})");
	REJECT("hostname \"abc\n",
	       "t.policy:1:10: error: unterminated quoted string");
	REJECT("unshare mount\nro-bind /usr /usr\nproc /proc\n",
	       "t.policy:3:1: error: 'proc' needs 'unshare pid' (a user "
	       "namespace may only mount the procfs of its own pid namespace)");
	REJECT("ro-bind /usr /usr\n",
	       "t.policy:1:1: error: 'ro-bind' needs 'unshare mount'");
	REJECT("unshare net\nunshare pids\n",
	       "t.policy:2:9: error: unknown namespace 'pids' (did you mean 'pid'?) (use user, mount, "
	       "pid, ipc, uts, net, cgroup or all)");
	REJECT("chdir /x\numask 0999\n",
	       "t.policy:2:7: error: umask '0999' is not an octal mode up to "
	       "0777");
	REJECT("keep-fd 2\n",
	       "t.policy:1:9: error: keep-fd '2' is not a number from 3 to 1023 "
	       "(0, 1 and 2 are always kept)");
	REJECT("chdir ${SCRATCH}\n",
	       "t.policy:1:7: error: ${SCRATCH} is used but the policy has no "
	       "'scratch' directive");
	REJECT("scratch create /tmp\nchdir ${SCRATCH}\n",
	       "t.policy:2:7: error: ${SCRATCH} is created at run time by the "
	       "guard: run this policy with 'pysbx run' or 'pysbx-clean'");
	REJECT("unshare mount\nprotect /w depth=17 x\n",
	       "t.policy:2:12: error: protect depth '17' is not a number from 1 "
	       "to 16");
	REJECT("unshare mount\nprotect /w depth=2\n",
	       "t.policy:2:1: error: 'protect' needs at least one pattern");
	is_str(parse_v("unshare mount pid\nro-bind /usr /usr\nproc /proc\n"
		       "read-roots ${R}\n",
		       (const char *const[]){ "R=/srv/data:/usr/share", NULL }),
	       "t.policy:4:12: error: read root '/usr/share' collides with the "
	       "sandbox path '/usr' ('ro-bind' at t.policy:2); a reserved path "
	       "cannot be a read root",
	       "a read root under a sandbox path is refused with the reason");
	is_str(parse_v("unshare mount\ntmpfs /tmp\nread-roots ${R}\n",
		       (const char *const[]){ "R=/", NULL }),
	       "t.policy:3:12: error: read root '/' collides with the sandbox "
	       "path '/tmp' ('tmpfs' at t.policy:2); a reserved path cannot be "
	       "a read root",
	       "a read root above a sandbox path is refused");
	{
		char *s = show("unshare mount\nro-bind /srv/p /workspace\n"
			       "read-roots /opt/a::/srv/p/sub:/opt/b\n", NULL);

		ok(s && strstr(s, "ro-bind-try /opt/a /opt/a\n") &&
			   strstr(s, "ro-bind-try /opt/b /opt/b\n") &&
			   !strstr(s, "/srv/p/sub"),
		   "read roots become ro-bind-try at their own paths; one "
		   "inside the project is skipped");
		free(s);
	}
	REJECT("include ../x.policy\n",
	       "t.policy:1:9: error: include path '../x.policy' must be "
	       "non-empty and without '..'");
	is_str(parse_v("chdir /x\n", (const char *const[]){ "1X=a", NULL }),
	       "vars: -D '1X': a variable name is letters, digits and '_', not "
	       "starting with a digit",
	       "rejects a malformed -D name");
	is_str(parse_v("chdir /x\n", (const char *const[]){ "X", NULL }),
	       "vars: -D 'X' has no '=' (use -D NAME=VALUE)",
	       "rejects -D without '='");
}

static void all_errors(void)
{
	struct plan p;
	static const char text[] = "limt nofile 1\n"
				   "unshare mount\n"
				   "tmpfs /tmp size=64Q\n"
				   "seccomp deny sockett\n";

	plan_init(&p);
	policy_parse_buf(&p, "t.policy", text, sizeof(text) - 1, NULL, 0, &e);
	is_int((long long)e.total, 3, "three mistakes, three errors");
	is_str(e.msg[2], "t.policy:4:14: error: unknown syscall 'sockett' (did you mean 'socket'?)",
	       "the third error is positioned");
	plan_free(&p);
}

static char *show(const char *text, const char *const *defs)
{
	struct vars v = { 0 };
	struct plan p;
	char err[256], *out = NULL;

	for (; defs && *defs; defs++)
		vars_add_arg(&v, *defs, err, sizeof(err));
	plan_init(&p);
	if (!policy_parse_buf(&p, "t.policy", text, strlen(text), &v, 0, &e))
		out = plan_show(&p);
	plan_free(&p);
	for (size_t i = 0; i < v.n; i++)
		free((char *)v.name[i]);
	return out;
}

static void variables(void)
{
	char *s;

	s = show("unshare mount\nro-bind ${W} /workspace\n",
		 (const char *const[]){ "W=/home/a b/#c\"${X}", NULL });
	ok(s && strstr(s, "ro-bind \"/home/a b/#c\\\"\\${X}\" /workspace\n"),
	   "a -D value with space, #, quote and ${ stays one literal word");
	free(s);
	s = show("timeout ${T:-none}\nunshare mount\ndir ${D:-/opt}\n", NULL);
	ok(s && strstr(s, "timeout none") && strstr(s, "dir /opt\n"),
	   "${NAME:-default} takes the default");
	free(s);
	s = show("timeout ${T:-none}\n", (const char *const[]){ "T=5s", NULL });
	ok(s && strstr(s, "timeout 5s kill-after 1s"), "-D overrides the default");
	free(s);
	s = show("scratch adopt /var/tmp/s\nunshare mount\n"
		 "bind ${SCRATCH} /scratch\n", NULL);
	ok(s && strstr(s, "bind /var/tmp/s /scratch\n"),
	   "scratch adopt DIR defines ${SCRATCH}");
	free(s);
	s = show("unshare mount\ndir //a/./b//\n", NULL);
	ok(s && strstr(s, "dir /a/b\n"), "paths are normalised");
	free(s);
}

static void includes(void)
{
	char dir[] = "/tmp/pysbx-unit.XXXXXX", path[128];
	struct plan p;
	FILE *f;

	if (!mkdtemp(dir)) {
		skip(3, "no temporary directory");
		return;
	}
	snprintf(path, sizeof(path), "%s/sub", dir);
	mkdir(path, 0700);
	snprintf(path, sizeof(path), "%s/main.policy", dir);
	f = fopen(path, "w");
	fputs("unshare mount\ninclude sub/a.policy\n", f);
	fclose(f);
	snprintf(path, sizeof(path), "%s/sub/a.policy", dir);
	f = fopen(path, "w");
	fputs("dir /from-a\ninclude b.policy\n", f);
	fclose(f);
	snprintf(path, sizeof(path), "%s/sub/b.policy", dir);
	f = fopen(path, "w");
	fputs("include a.policy\n", f);
	fclose(f);
	snprintf(path, sizeof(path), "%s/main.policy", dir);
	plan_init(&p);
	policy_parse_file(&p, path, NULL, 0, &e);
	is_int((long long)e.total, 1, "an include cycle is one error");
	ok(e.n && strstr(e.msg[0], "/sub/b.policy:1:9: error: include cycle: "
				   "'") && strstr(e.msg[0], "/sub/a.policy' "
							    "includes itself"),
	   "the cycle is named at the including line: %s", e.n ? e.msg[0] : "");
	plan_free(&p);
	snprintf(path, sizeof(path), "%s/sub/b.policy", dir);
	f = fopen(path, "w");
	fputs("dir /from-b\n", f);
	fclose(f);
	snprintf(path, sizeof(path), "%s/main.policy", dir);
	plan_init(&p);
	policy_parse_file(&p, path, NULL, 0, &e);
	ok(!e.total && p.nfs == 2 && !strcmp(p.fs[1].dst, "/from-b") &&
		   strstr(p.fs[1].pos.file, "sub/b.policy"),
	   "includes resolve relative to the including file");
	plan_free(&p);
	snprintf(path, sizeof(path), "rm -rf %s", dir);
	if (system(path))
		diag("cleanup failed");
}

static const char full[] =
	"# a policy using every directive\n"
	"unshare user mount pid ipc uts net cgroup\n"
	"uid 1000\ngid 1000\nhostname sandbox\nnested-userns deny\n"
	"ro-bind /usr /usr\nro-bind-try /usr/lib64 /lib64\nbind /tmp /t\n"
	"dev-bind-try /dev/kvm /dev/kvm\n"
	"symlink usr/bin /bin\nproc /proc\ndev /dev shm-size=8M\n"
	"tmpfs /tmp size=64M mode=1777 inodes=1000\ndir /w mode=0700\n"
	"file /etc/hostname \"sandbox\\n\" mode=0644\nremount-ro /usr\n"
	"mask /usr/share\n"
	"protect /w depth=3 .git/hooks \"*.pem\" !.env.example .env.*\n"
	"limit as 512M\nlimit nofile 128 keep\nlimit stack hard keep\n"
	"limit cpu 2m\nlimit core 0\n"
	"env PATH=/usr/bin:/bin \"LANG=C.UTF-8\" \"X=a b\"\nenv-pass TERM\n"
	"chdir /w\numask 022\nnew-session yes\ndie-signal SIGTERM\n"
	"stdin null\nkeep-fd 3 7\n"
	"seccomp default allow\nseccomp deny @python-tool @keyring\n"
	"seccomp errno=ENOSYS clone3\n"
	"seccomp kill ioctl if arg1&0xffffffff==TIOCSTI\n"
	"seccomp log @syslog\n"
	"timeout 30s kill-after 2s\ndie-with-parent\nscratch adopt /var/tmp\n";

/* A plan line is longer than the policy line it came from: positions,
 * expansions and escapes. It must still read back (found by fuzzing). */
static void long_plan_lines(void)
{
	struct diag d = DIAG_INIT("test", "test");
	char *big = malloc(12010), *def = malloc(12020);
	struct vars v = { 0 };
	struct plan p, q;
	char err[256];
	int fd;

	memset(big, '"', 12000);
	big[12000] = '\0';
	snprintf(def, 12020, "C=%s", big);
	vars_add_arg(&v, def, err, sizeof(err));
	plan_init(&p);
	policy_parse_buf(&p, "t.policy", "unshare mount\nfile /x ${C}\n", 27,
			 &v, 0, &e);
	fd = plan_seal(&d, &p);
	plan_init(&q);
	ok(!e.total && fd >= 0 && plan_read_fd(&d, fd, &q, 0) == 0 &&
		   q.nfs == 1 && strlen(q.fs[0].src) == 12000,
	   "a 12000-byte expanded word (a 24 KiB plan line) round-trips");
	plan_free(&p);
	plan_free(&q);
	close(fd);
	free((char *)v.name[0]);
	free(big);
	free(def);
}

/* plan_write's text, read back from a memfd. NULL on failure. */
static char *written(const struct plan *p, size_t *len)
{
	int fd = memfd_create("w", 0);
	struct stat st;
	char *buf;

	if (fd < 0 || plan_write(p, fd) != 0 || fstat(fd, &st) < 0) {
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	*len = (size_t)st.st_size;
	buf = malloc(*len + 1);
	if (buf && pread(fd, buf, *len, 0) != (ssize_t)*len) {
		free(buf);
		buf = NULL;
	}
	close(fd);
	return buf;
}

/* plan_write (the guard's, through one page) and plan_format (whole, in
 * memory) must give the same bytes: with many flushes, with a position
 * file repeated across a flush (the copy of its quoted text must not
 * outlive the flush), and with one line longer than the page. */
static void write_equals_format(const char *name, const char *text,
				const struct vars *v, const char *desc)
{
	struct plan p;
	char *a, *b;
	size_t la = 0, lb = 0;

	plan_init(&p);
	policy_parse_buf(&p, name, text, strlen(text), v, 0, &e);
	a = plan_format(&p, &la);
	b = written(&p, &lb);
	ok(!e.total && a && b && la == lb && !memcmp(a, b, la), "%s", desc);
	free(a);
	free(b);
	plan_free(&p);
}

static void plan_write_cases(void)
{
	char name[400], *text, *big, *def, err[256];
	struct vars v = { 0 };
	size_t k = 0;

	write_equals_format("full.policy", full, NULL,
			    "plan_write gives plan_format's text (every directive)");
	/* 60 lines, each with a 300-byte quoted file name ("a b" needs
	 * quotes): the text is ~25 KiB, flushed a dozen times. */
	memset(name, 0, sizeof(name));
	memcpy(name, "/x/", 3);
	memset(name + 3, 'a', 300);
	memcpy(name + 303, " b/p.policy", 11);
	text = malloc(60 * 32);
	for (int i = 0; i < 60; i++)
		k += (size_t)sprintf(text + k, "env V%d=%d\n", i, i);
	write_equals_format(name, text, NULL,
			    "the same across flushes, with a long quoted position file");
	free(text);
	/* One line of ~24 KiB: longer than plan_write's page. */
	big = malloc(12010);
	def = malloc(12020);
	memset(big, '"', 12000);
	big[12000] = '\0';
	snprintf(def, 12020, "C=%s", big);
	vars_add_arg(&v, def, err, sizeof(err));
	write_equals_format("t.policy", "unshare mount\nfile /x ${C}\nenv A=1\n",
			    &v, "the same with a line longer than the buffer");
	free((char *)v.name[0]);
	free(big);
	free(def);
}

static void too_many_defines(void)
{
	struct vars v = { 0 };
	char arg[32], err[256];
	int r = 0, i;

	for (i = 0; i < 61 && !r; i++) {
		snprintf(arg, sizeof(arg), "V%d=x", i);
		r = vars_add_arg(&v, arg, err, sizeof(err));
	}
	is_int(i, 61, "the 61st -D is refused, not dropped");
	is_str(err, "too many -D variables (max 60)", "with the cap named");
	for (size_t k = 0; k < v.n; k++)
		free((char *)v.name[k]);
}

static void round_trip(void)
{
	struct diag d = DIAG_INIT("test", "test");
	struct plan p, q;
	char *a = NULL, *b = NULL, *w;
	size_t la, lb;
	int fd;

	plan_init(&p);
	if (policy_parse_buf(&p, "full.policy", full, sizeof(full) - 1, NULL,
			     0, &e) < 0)
		diag("%s", e.msg[0]);
	ok(!e.total, "a policy using every directive parses");
	a = plan_format(&p, &la);
	fd = plan_seal(&d, &p);
	ok(fd >= 0, "the plan is sealed in a memfd");
	ok(write(fd, "x", 1) < 0, "the sealed memfd refuses writes");
	plan_init(&q);
	ok(plan_read_fd(&d, fd, &q, 0) == 0, "the plan reads back: %s", d.msg);
	b = plan_format(&q, &lb);
	ok(a && b && la == lb && !memcmp(a, b, la),
	   "the plan round-trips through the memfd unchanged");
	ok(q.nsc == p.nsc && q.nfs == p.nfs && q.nenv == p.nenv &&
		   q.fs[7].mode == 01777 && !strcmp(q.fs[9].src, "sandbox\n") &&
		   q.rl[1].flags == RL_KEEP_HARD && q.die_signal == 15 &&
		   q.sc[q.nsc - 2].cond[0].op == SC_MASKED_EQ &&
		   !strcmp(q.fs[7].pos.file, "full.policy") &&
		   q.fs[7].pos.line == 14,
	   "typed fields and positions survive");
	plan_free(&q);
	close(fd);
	free(b);

	/* An unsealed memfd and a truncated plan are refused. */
	fd = memfd_create("x", MFD_ALLOW_SEALING);
	w = strstr(a, "end\n");
	if (write(fd, a, (size_t)(w - a)) < 0)
		diag("write");
	plan_init(&q);
	ok(plan_read_fd(&d, fd, &q, 0) < 0 &&
		   strstr(d.msg, "is not sealed against writes"),
	   "an unsealed plan fd is refused: %s", d.msg);
	plan_free(&q);
	fcntl(fd, F_ADD_SEALS,
	      F_SEAL_SEAL | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE);
	plan_init(&q);
	ok(plan_read_fd(&d, fd, &q, 0) < 0 && strstr(d.msg, "truncated"),
	   "a plan without its trailer is refused: %s", d.msg);
	plan_free(&q);
	close(fd);
	fd = open("/dev/null", O_RDONLY);
	plan_init(&q);
	ok(plan_read_fd(&d, fd, &q, 0) < 0 && strstr(d.msg, "not a sealed memfd"),
	   "a plan fd that is not a memfd is refused: %s", d.msg);
	plan_free(&q);
	close(fd);
	plan_free(&p);
	free(a);
}

/* Read plan text as a later step does (from a copy); the first
 * diagnostic (or "ok") is left in `first`. */
static const char *plan_text(const char *text, struct plan *p)
{
	plan_init(p);
	if (policy_parse_plan(p, text, strlen(text), &e) < 0)
		snprintf(first, sizeof(first), "%s", e.n ? e.msg[0] : "?");
	else
		snprintf(first, sizeof(first), "ok");
	return first;
}

#define PLAN_HEAD "pysbx-plan 1 t.policy\n@t.policy:1:1 unshare uts mount\n"

/* The plan reader splits lines of bare words in place and hands every
 * other line to the full lexer untouched: the same plan, the same
 * diagnostics. */
static void zone_names(void)
{
	is_str(policy_zone_of_link("/usr/share/zoneinfo/Europe/Paris"),
	       "Europe/Paris", "LOCALTIME: the name after zoneinfo/");
	is_str(policy_zone_of_link("../usr/share/zoneinfo/Etc/UTC"), "Etc/UTC",
	       "LOCALTIME: a relative link");
	is_str(policy_zone_of_link("/usr/share/zoneinfo/America/Port-au-Prince"),
	       "America/Port-au-Prince", "LOCALTIME: '-' and '_' are kept");
	is_str(policy_zone_of_link("/etc/tz"), "UTC",
	       "LOCALTIME: no zoneinfo/ in the link: UTC");
	is_str(policy_zone_of_link("/usr/share/zoneinfo/"), "UTC",
	       "LOCALTIME: an empty name: UTC");
	is_str(policy_zone_of_link("/usr/share/zoneinfo/../../../etc/shadow"),
	       "UTC", "LOCALTIME: a name with '..': UTC");
	is_str(policy_zone_of_link("/usr/share/zoneinfo/a b\nbind / /x"), "UTC",
	       "LOCALTIME: a name with a blank or newline: UTC");
}

static void plan_reader(void)
{
	char *many = malloc(2000);
	struct plan p;

	is_str(plan_text(PLAN_HEAD "@t.policy:2:5 hostname box\nend\n", &p),
	       "ok", "a plan of bare words reads");
	ok(p.hostname && !strcmp(p.hostname, "box") &&
		   !strcmp(p.at[PAT_HOSTNAME].file, "t.policy") &&
		   p.at[PAT_HOSTNAME].line == 2 && p.at[PAT_HOSTNAME].col == 5,
	   "its words and positions are kept");
	plan_free(&p);
	is_str(plan_text(PLAN_HEAD "@t.policy:3:1 file /x \"a b\\n\" "
			 "mode=0600\n@t.policy:4:1\thostname\tbox\nend\n", &p),
	       "ok", "quoted words and tabs go to the full lexer");
	ok(p.nfs == 1 && !strcmp(p.fs[0].src, "a b\n") &&
		   p.fs[0].mode == 0600 && !strcmp(p.hostname, "box"),
	   "... which reads them whole");
	plan_free(&p);
	is_str(plan_text(PLAN_HEAD "@t.policy:2:1 hostname ${H}\nend\n", &p),
	       "<plan>:3:24: error: variables are not allowed in a resolved "
	       "plan", "a variable in a plan is refused");
	plan_free(&p);
	is_str(plan_text(PLAN_HEAD "@t.policy:2:1 hostname a\x01" "b\nend\n", &p),
	       "<plan>:3:25: error: control character 0x01 in policy (write "
	       "it as \\xHH)", "a control character in a plan is refused");
	plan_free(&p);
	is_str(plan_text(PLAN_HEAD "@t.policy:2:1 hostname #x\nend\n", &p),
	       "t.policy:2:1: error: 'hostname' takes 1 argument, not 0 "
	       "(usage: hostname NAME)", "'#' starts a comment in a plan too");
	plan_free(&p);
	strcpy(many, PLAN_HEAD "@t.policy:2:1 unshare");
	for (int i = 0; i < 256; i++)
		strcat(many, " uts");
	strcat(many, "\nend\n");
	is_str(plan_text(many, &p),
	       "<plan>:3:1039: error: too many words on one line (max 256)",
	       "a plan line of more than 256 words is refused");
	plan_free(&p);
	is_str(plan_text(PLAN_HEAD "@t.policy:x:1 hostname box\nend\n", &p),
	       "<plan>:3:1: error: malformed plan line",
	       "a malformed position is refused");
	plan_free(&p);
	free(many);
}

/* Two unconditional rules on one syscall with different actions
 * contradict, wherever they come from; a conditional rule never does. */
static void seccomp_conflicts(void)
{
	REJECT("seccomp errno=EPERM read\nseccomp kill read\n",
	       "t.policy:2:14: error: syscall 'read' already has a different "
	       "rule at t.policy:1");
	ACCEPT("seccomp kill read\nseccomp kill read\n");
	ACCEPT("seccomp kill ioctl if arg1==1\nseccomp errno=EPERM ioctl\n");
	ACCEPT("seccomp errno=EPERM ioctl\nseccomp kill ioctl if arg1==1\n");
	REJECT("seccomp errno=EPERM @mount\nseccomp allow fsopen\n",
	       "t.policy:2:15: error: syscall 'fsopen' already has a different "
	       "rule at t.policy:1");
	REJECT("seccomp allow mount\nseccomp errno=EPERM @mount\n",
	       "t.policy:2:21: error: syscall 'mount' already has a different "
	       "rule at t.policy:1");
	/* No number on this ABI: still compared, by name's number. */
	REJECT("seccomp kill vm86\nseccomp errno=EPERM vm86\n",
	       "t.policy:2:21: error: syscall 'vm86' already has a different "
	       "rule at t.policy:1");
	/* read (0) and semget (64), write (1) and semop (65): one bit
	 * position in different words of a bitmap must not collide. */
	ACCEPT("seccomp kill read\nseccomp errno=EPERM semget\n"
	       "seccomp kill write\nseccomp allow semop\n");
	REJECT("seccomp kill semop\nseccomp kill write\nseccomp allow semop\n",
	       "t.policy:3:15: error: syscall 'semop' already has a different "
	       "rule at t.policy:1");
}

/* pysbx-mount and pysbx-exec skip a plan's seccomp lines; pysbx-seccomp
 * (flags 0) reads every one and refuses a bad one. */
static int read_plan(const char *text, unsigned flags, struct plan *p)
{
	size_t len = strlen(text);
	char *buf;

	plan_init(p);
	buf = plan_text_buf(p, len);
	memcpy(buf, text, len);
	return policy_parse_plan_inplace(p, buf, len, flags, &e);
}

static void plan_skip_seccomp(void)
{
	/* The second file is quoted, so its lines go through the lexer. */
	static const char *const texts[] = {
		PLAN_HEAD "@t.policy:2:1 seccomp default errno=EPERM\n"
		"@t.policy:3:1 seccomp allow read\n"
		"@t.policy:4:1 seccomp frobnicate write\n"
		"@t.policy:5:1 hostname box\nend\n",
		PLAN_HEAD "@\"t p.policy\":2:1 seccomp default errno=EPERM\n"
		"@\"t p.policy\":4:1 seccomp frobnicate write\n"
		"@t.policy:5:1 hostname box\nend\n",
	};
	struct plan p;
	char *bad;

	for (int i = 0; i < 2; i++) {
		ok(read_plan(texts[i], 0, &p) < 0 && e.n &&
			   strstr(e.msg[0], i ? "t p.policy:4:1" : "t.policy:4:1"),
		   "read whole, a malformed seccomp line is refused (%s file): "
		   "%s", i ? "quoted" : "bare", e.n ? e.msg[0] : "accepted");
		plan_free(&p);
		ok(read_plan(texts[i], PARSE_SKIP_SECCOMP, &p) == 0 &&
			   p.nsc == 0 && !p.sc_set && p.hostname &&
			   !strcmp(p.hostname, "box"),
		   "skipped, the seccomp lines are not read and the rest is "
		   "(%s file)", i ? "quoted" : "bare");
		plan_free(&p);
	}
	/* A quote inside the position word: its first space is quoted, so
	 * the words after it are not "seccomp ...". */
	ok(read_plan(PLAN_HEAD "@a\"b seccomp x\":1:1 hostname box\nend\n",
		     PARSE_SKIP_SECCOMP, &p) == 0 && p.hostname &&
		   !strcmp(p.hostname, "box"),
	   "a line whose quoted position holds \" seccomp \" is read, not "
	   "skipped");
	plan_free(&p);
	bad = strdup(texts[0]);
	memcpy(strstr(bad, "hostname box"), "hostname b x", 12);
	ok(read_plan(bad, PARSE_SKIP_SECCOMP, &p) < 0,
	   "skipping seccomp lines, any other malformed line is refused");
	plan_free(&p);
	free(bad);
}

/* ${PASSWD_HOME}: the home the password database gives the caller, for
 * credential masks when HOME is unset, /tmp or elsewhere. */
static void passwd_home(void)
{
	struct passwd *pw = getpwuid(getuid());
	char want[4200];
	char *t = show("unshare mount\nmask ${PASSWD_HOME:-/none}/.ssh\n", NULL);

	snprintf(want, sizeof(want), "mask %s/.ssh\n",
		 pw && pw->pw_dir && pw->pw_dir[0] == '/' ? pw->pw_dir : "/none");
	ok(t && strstr(t, want), "PASSWD_HOME is the password database's home: %s",
	   want);
	free(t);
}

int main(void)
{
	passwd_home();
	rejections();
	all_errors();
	variables();
	includes();
	round_trip();
	long_plan_lines();
	plan_write_cases();
	too_many_defines();
	zone_names();
	plan_reader();
	seccomp_conflicts();
	plan_skip_seccomp();
	return done_testing();
}
