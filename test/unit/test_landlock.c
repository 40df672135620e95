/* The plan -> Landlock ruleset mapping (pkg/landlock/map.c, fit.c) and
 * the Landlock directives: every rule with its rights, in both mappings,
 * the positioned refusals of the host mapping, the ABI fitting, the round
 * trip of the directives through plan text, and chain_drop_step. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chain/chain.h"
#include "landlock/landlock.h"
#include "tap.h"

static struct perr e;
static struct plan p;
static struct ll_ruleset rs;
static char buf[4096];

/* Parse text, map it; buf gets "PATH:RIGHTS:FLAGS;" per rule, or the
 * first error. */
static const char *map(const char *text, enum ll_paths m)
{
	size_t n = 0;

	memset(&e, 0, sizeof(e));
	plan_free(&p);
	plan_init(&p);
	ll_free(&rs);
	ll_init(&rs);
	if (policy_parse_buf(&p, "t.policy", text, strlen(text), NULL, 0,
			     &e) < 0)
		return e.msg[0];
	if (ll_from_plan(&p, m, &rs, &e) < 0) {
		snprintf(buf, sizeof(buf), "%zu:%s", e.n, e.msg[0]);
		return buf;
	}
	buf[0] = '\0';
	for (size_t i = 0; i < rs.nrule && n < sizeof(buf); i++)
		n += (size_t)snprintf(buf + n, sizeof(buf) - n,
				      "%s:%llx:%u;", rs.rule[i].path,
				      (unsigned long long)rs.rule[i].access,
				      rs.rule[i].flags);
	for (size_t i = 0; i < rs.nexcl && n < sizeof(buf); i++)
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "!%s:%llx@%u;",
				      rs.excl[i].path,
				      (unsigned long long)rs.excl[i].take,
				      rs.excl[i].pos->line);
	return buf;
}

#define NS "unshare user mount pid net\n"
#define RX (LL_R | LL_X)
#define RXW (LL_R | LL_X | LL_W)

static void rights(void)
{
	char want[1024];

	snprintf(want, sizeof(want), "/usr:%llx:0;/w:%llx:0;/d:%llx:1;",
		 (unsigned long long)RX, (unsigned long long)RXW,
		 (unsigned long long)(RXW | LL_FS_IOCTL_DEV));
	is_str(map(NS "ro-bind /usr /usr\nbind /h /w\ndev-bind-try /d /d\n",
		   LL_PATHS_INSIDE), want,
	       "inside: ro-bind R X, bind R X W on the destination, dev-bind "
	       "adds device ioctls, -try flagged");
	snprintf(want, sizeof(want),
		 "/tmp:%llx:0;/proc:%llx:0;/e:%llx:0;/f:%llx:0;",
		 (unsigned long long)RXW, (unsigned long long)LL_R,
		 (unsigned long long)LL_FS_READ_DIR,
		 (unsigned long long)LL_FS_READ_FILE);
	is_str(map(NS "tmpfs /tmp\nproc /proc\ndir /e\nfile /f x\n"
		   "symlink usr/bin /bin\nmask /m\nremount-ro /tmp\n",
		   LL_PATHS_INSIDE), want,
	       "inside: tmpfs R X W, proc R, dir list, file read; symlink, "
	       "mask and remount-ro add no rule");
	snprintf(want, sizeof(want), "/dev:%llx:0;/dev/shm:%llx:1;",
		 (unsigned long long)(LL_R | LL_FS_WRITE_FILE |
				      LL_FS_TRUNCATE | LL_FS_IOCTL_DEV),
		 (unsigned long long)(LL_R | LL_W));
	is_str(map(NS "dev /dev\n", LL_PATHS_INSIDE), want,
	       "inside: dev is the sandbox's own /dev, shm writable");
	map(NS "dev /dev\n", LL_PATHS_HOST);
	is_int((long long)rs.nrule, 9,
	       "host: dev is 7 named nodes, pts and shm, not the host's /dev");
	ok(strstr(buf, "/dev/shm:") && strstr(buf, ":3;") &&
		   !strstr(buf, "/dev:"),
	   "host: dev's shm is shared-only (try|shared), /dev has no rule");
	snprintf(want, sizeof(want), "/tmp:%llx:3;",
		 (unsigned long long)RXW);
	is_str(map(NS "tmpfs /tmp\n", LL_PATHS_HOST), want,
	       "host: a tmpfs is the host's directory if shared (flag)");
	map(NS "ro-bind /usr /usr\n", LL_PATHS_HOST);
	is_int((long long)rs.handled_net,
	       (long long)(LL_NET_BIND_TCP | LL_NET_CONNECT_TCP),
	       "unshare net: TCP bind and connect handled, no port rule");
	is_int((long long)rs.scoped,
	       (long long)(LL_SCOPE_SIGNAL | LL_SCOPE_ABSTRACT_UNIX),
	       "signals and abstract unix sockets always scoped");
	map("unshare user mount\nro-bind /usr /usr\n", LL_PATHS_HOST);
	is_int((long long)rs.handled_net, 0,
	       "without unshare net TCP is not ruled");
}

static void host_refusals(void)
{
	char want[1024];

	is_str(map(NS "bind /h /w\n", LL_PATHS_HOST),
	       "1:t.policy:2:1: error: 'bind /h /w': without a mount "
	       "namespace (Landlock-only) a path stays where it is on the "
	       "host, so the source and destination must be the same path",
	       "host: a bind to another path is refused, positioned");
	snprintf(want, sizeof(want), "/:%llx:0;!/home/u/.ssh:%llx@3;",
		 (unsigned long long)RX, ~0ULL);
	is_str(map(NS "ro-bind / /\nmask /home/u/.ssh\n", LL_PATHS_HOST),
	       want, "host: a mask under a granted path is an exclusion");
	ok(!strncmp(map(NS "mask /home/u/.ssh\nro-bind /usr /usr\n",
			LL_PATHS_HOST), "/usr:", 5) && !strchr(buf, '!'),
	   "host: a mask nothing grants is nothing (no rule, no exclusion)");
	snprintf(want, sizeof(want), "/w:%llx:3;/w/ro:%llx:0;!/w/ro:%llx@3;",
		 (unsigned long long)RXW, (unsigned long long)RX,
		 (unsigned long long)(LL_W | LL_FS_IOCTL_DEV));
	is_str(map(NS "tmpfs /w\nro-bind /w/ro /w/ro\n", LL_PATHS_HOST), want,
	       "host: a read-only bind inside a writable one excludes the "
	       "writes below it");
	ok(!strncmp(map(NS "ro-bind /w /w\nbind /w/rw /w/rw\n", LL_PATHS_HOST),
		    "/w:", 3) && !strchr(buf, '!'),
	   "host: a writable bind inside a read-only one needs none");
	snprintf(want, sizeof(want), "/w:%llx:0;!/w/x:%llx@3;",
		 (unsigned long long)RXW, (unsigned long long)LL_W);
	is_str(map(NS "bind /w /w\nremount-ro /w/x\n", LL_PATHS_HOST), want,
	       "host: remount-ro under a writable bind excludes the writes");
	is_str(map(NS "bind /w /w\nprotect /w .git\n", LL_PATHS_HOST),
	       "1:t.policy:3:1: error: 'protect /w' cannot be enforced by "
	       "Landlock: 'bind /w' (t.policy:2) grants writes there, and "
	       "without a mount namespace nothing takes them away below it",
	       "host: protect under a writable bind is refused, positioned");
	ok(!strncmp(map(NS "ro-bind /w /w\nprotect /w .git\n",
			LL_PATHS_HOST), "/w:", 3),
	   "host: protect where nothing is writable is moot: accepted");
	is_str(map(NS "file /etc/hosts x\n", LL_PATHS_HOST),
	       "1:t.policy:2:1: error: 'file /etc/hosts': without a mount "
	       "namespace (Landlock-only) a file's content cannot be provided; "
	       "the host's would be read instead",
	       "host: file is refused");
	ok(!strncmp(map(NS "tmpfs /w\nro-bind /w/ro /w/ro\nmask /w/m\n",
			LL_PATHS_INSIDE), "/w:", 3),
	   "inside: the same layering is the mounts' to enforce: accepted");
}

static void fit(void)
{
	struct diag d = DIAG_INIT("t", "landlock");

	map(NS "ro-bind /usr /usr\n", LL_PATHS_HOST);
	is_int(ll_fit(&d, &p, &rs, 3, true), -1, "ABI 3, TCP needed: refused");
	is_str(d.msg, "unable to enforce Landlock 'tcp' (refusing TCP bind "
	       "and connect, for 'unshare net' at t.policy:1): the Landlock "
	       "ABI 3 (set by --abi or PYSBX_LANDLOCK_ABI); it needs ABI 4",
	       "the message names class, line and ABI");
	is_int(d.code, 111, "exit 111");
	map(NS "ro-bind /usr /usr\nlandlock-best-effort tcp scope-signal "
	    "scope-abstract-unix ioctl-dev\n", LL_PATHS_HOST);
	is_int(ll_fit(&d, &p, &rs, 3, true), 0, "ABI 3 with best-effort: ok");
	ok(rs.handled_net == 0 && rs.scoped == 0 &&
		   !(rs.handled_fs & LL_FS_IOCTL_DEV) &&
		   (rs.handled_fs & LL_FS_TRUNCATE) && rs.abi == 3,
	   "ABI 3: TCP, scopes, ioctl dropped; truncate kept");
	map(NS "ro-bind /usr /usr\nlandlock-best-effort all\n", LL_PATHS_HOST);
	ll_fit(&d, &p, &rs, 1, true);
	ok(!(rs.handled_fs & (LL_FS_REFER | LL_FS_TRUNCATE)) &&
		   (rs.handled_fs & LL_FS_WRITE_FILE) && rs.abi == 1,
	   "ABI 1: REFER and TRUNCATE unknown, the rest handled");
	map(NS "ro-bind /usr /usr\nlandlock-best-effort all\n", LL_PATHS_HOST);
	ll_fit(&d, &p, &rs, 0, true);
	is_int(rs.abi, 0, "ABI 0 with fs best-effort: nothing to apply");
	map(NS "ro-bind /usr /usr\n", LL_PATHS_HOST);
	is_int(ll_fit(&d, &p, &rs, 7, false), 0, "ABI 7: everything enforced");
	is_int((long long)rs.handled_fs & LL_FS_IOCTL_DEV,
	       (long long)LL_FS_IOCTL_DEV, "ABI 7: device ioctls handled");
}

static void directives(void)
{
	char *text;
	size_t len;
	struct plan q;

	is_str(map("landlock maybe\n", LL_PATHS_HOST),
	       "t.policy:1:10: error: expected 'yes' or 'no', not 'maybe'",
	       "landlock takes yes or no");
	is_str(map("landlock-best-effort tpc\n", LL_PATHS_HOST),
	       "t.policy:1:22: error: unknown Landlock class 'tpc' (did you "
	       "mean 'tcp'?) (use fs, truncate, tcp, ioctl-dev, scope-signal, "
	       "scope-abstract-unix or all)",
	       "an unknown class, with did-you-mean");
	is_str(map("landlok yes\n", LL_PATHS_HOST),
	       "t.policy:1:1: error: unknown directive 'landlok' (did you mean "
	       "'landlock'?)", "a misspelt directive, with did-you-mean");
	is_str(map("landlock-only sometimes\n", LL_PATHS_HOST),
	       "t.policy:1:15: error: expected 'deny', 'allow' or 'always', "
	       "not 'sometimes'", "landlock-only's words");
	map("landlock yes\nlandlock-best-effort tcp\nlandlock-best-effort "
	    "truncate\nlandlock-only allow\n", LL_PATHS_HOST);
	text = plan_format(&p, &len);
	plan_init(&q);
	memset(&e, 0, sizeof(e));
	is_int(policy_parse_plan(&q, text, len, &e), 0,
	       "the directives survive plan text");
	ok(q.landlock && q.ll_best_effort == (LL_BE_TCP | LL_BE_TRUNCATE) &&
		   q.ll_only == LL_ONLY_ALLOW,
	   "landlock yes, both classes and landlock-only allow round-trip");
	ok(strstr(text, "landlock-best-effort truncate tcp\n") != NULL,
	   "one best-effort line, classes in ABI order");
	free(text);
	plan_free(&q);
}

static void drop_step(void)
{
	char *a[] = { "/b/pysbx-mount", "--", "/b/pysbx-exec", "--",
		      "/b/pysbx-landlock", "--paths", "inside", "--",
		      "/b/pysbx-seccomp", "--", "t", "pysbx-landlock", NULL };
	char *b[] = { "/b/pysbx-exec", "--", "prog", "/b/pysbx-landlock",
		      NULL };
	char got[256] = "";

	is_int(chain_drop_step(a, "pysbx-landlock"), 1, "the step is found");
	for (char **w = a; *w; w++)
		strcat(strcat(got, *w), " ");
	is_str(got, "/b/pysbx-mount -- /b/pysbx-exec -- /b/pysbx-seccomp -- "
	       "t pysbx-landlock ", "it goes with its options and its '--'; "
	       "the target's argument of that name stays");
	is_int(chain_drop_step(b, "pysbx-landlock"), 0,
	       "never a target's argument");
}

int main(void)
{
	plan_init(&p);
	ll_init(&rs);
	rights();
	host_refusals();
	fit();
	directives();
	drop_step();
	ll_free(&rs);
	plan_free(&p);
	return done_testing();
}
