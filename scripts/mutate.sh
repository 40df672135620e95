#!/usr/bin/env bash
# scripts/mutate.sh - prove that the tests guard the security invariants:
# plant known bugs, one at a time, and check that the suite catches each.
#
#   scripts/mutate.sh [-v] [--keep] [NAME...]   run every mutation (or those named)
#   scripts/mutate.sh --list                    list the mutations
#   scripts/mutate.sh --check                   only check that every original
#                                               text still occurs exactly once
#
# Each mutation (listed at the end of this file) is a small patch tied by
# name to an invariant of docs/DESIGN.md or a promise of docs/SECURITY.md:
# a file, the exact original text (which must occur exactly once in it),
# its replacement, and the tests (test/run.sh NAME filters) that should
# fail with it. For each, a scratch copy of the tree (made once, with a
# copy of build/ so that each mutation recompiles only what it changed)
# gets the patch, is built, and the named tests run (as root: as a private
# test uid, as in ./build.sh test). It ends with a table:
#
#   killed        a named test failed (the first failing line is shown)
#   SURVIVED      every named test passed: a hole in the suite
#   STALE         the original text no longer occurs exactly once: the
#                 code moved; update the mutation
#   BUILD-FAILED  the mutated tree does not compile: fix the mutation
#
# and exits 1 if any mutation is not killed, 0 otherwise (100: usage;
# 111: no build, or the unmutated tests fail). Not part of ./build.sh
# test: a full run takes a while (docs/TESTING.md says when to run it).
#
# Environment: JOBS (make -j, default 2), PYSBX_TEST_TIMEOUT (per test
# script, default 120 here: a mutation can make a test hang).
set -uo pipefail

cd "$(dirname "$0")/.." || exit 111
ROOT=$PWD
SELF=$ROOT/scripts/mutate.sh
JOBS=${JOBS:-2}
export PYSBX_TEST_TIMEOUT=${PYSBX_TEST_TIMEOUT:-120}
# The system python (no version-manager shims: one process per call).
PY=python3
[[ -x /usr/bin/python3 ]] && PY=/usr/bin/python3
VERBOSE=0 KEEP=0 MODE=run
NAMES=()

usage() {
	echo "usage: scripts/mutate.sh [-v] [--keep] [--list | --check] [NAME...]" >&2
	exit 100
}
while (($#)); do
	case $1 in
	--list) MODE=list ;;
	--check) MODE=check ;;
	--keep) KEEP=1 ;;
	-v) VERBOSE=1 ;;
	-h | --help) sed -n '2,/^set -uo/{/^#/s/^# \{0,1\}//p}' "$0"; exit 0 ;;
	-*) usage ;;
	*) NAMES+=("$1") ;;
	esac
	shift
done

# The mutations are parsed by python (exact text, tabs and all): one
# record per line on stdout, fields separated by \x1f, text fields
# escaped as JSON strings.
parse() {
	"$PY" - "$SELF" <<'EOF'
import json, sys
text = open(sys.argv[1], encoding="utf-8").read()
body = text.split("\n__MUTATIONS__\n", 1)[1]
muts, cur = [], None
for line in body.split("\n"):
    if line.startswith("@@ "):
        key, _, val = line[3:].partition(":")
        key, val = key.strip(), val.strip()
        if key == "name":
            cur = {"name": val, "old": [], "new": []}
            muts.append(cur)
        else:
            cur[key] = val
    elif line.startswith("-") and cur is not None:
        cur["old"].append(line[1:])
    elif line.startswith("+") and cur is not None:
        cur["new"].append(line[1:])
seen = set()
for m in muts:
    for k in ("invariant", "file", "tests"):
        if not m.get(k):
            sys.exit("mutate.sh: mutation %s has no %s" % (m["name"], k))
    if m["name"] in seen or not m["old"]:
        sys.exit("mutate.sh: mutation %s is duplicated or empty" % m["name"])
    seen.add(m["name"])
    print("\x1f".join([m["name"], m["invariant"], m["file"], m["tests"],
                       json.dumps("\n".join(m["old"])),
                       json.dumps("\n".join(m["new"]))]))
EOF
}

# apply FILE OLD NEW [check]: replace the one occurrence of OLD (JSON
# strings); exit 2 when OLD does not occur exactly once.
apply() {
	"$PY" - "$@" <<'EOF'
import json, sys
path, old, new = sys.argv[1], json.loads(sys.argv[2]), json.loads(sys.argv[3])
try:
    s = open(path, encoding="utf-8").read()
except OSError:
    sys.exit(2)
if s.count(old) != 1:
    sys.exit(2)
if len(sys.argv) < 5:
    open(path, "w", encoding="utf-8").write(s.replace(old, new, 1))
EOF
}

mapfile -t RECS < <(parse) || exit 111
[[ ${#RECS[@]} -gt 0 ]] || exit 111

wanted() {
	local n
	((${#NAMES[@]})) || return 0
	for n in "${NAMES[@]}"; do [[ $1 == "$n" ]] && return 0; done
	return 1
}
for n in "${NAMES[@]}"; do
	found=0
	for r in "${RECS[@]}"; do [[ ${r%%$'\x1f'*} == "$n" ]] && found=1; done
	((found)) || { echo "mutate.sh: no mutation named '$n' (see --list)" >&2; exit 100; }
done

if [[ $MODE == list ]]; then
	for r in "${RECS[@]}"; do
		IFS=$'\x1f' read -r name inv file tests _ <<<"$r"
		wanted "$name" || continue
		printf '%-28s %-28s %s\n    %s\n' "$name" "$file" "[$tests]" "$inv"
	done
	exit 0
fi

# --- stale check: every original must occur exactly once --------------------
stale=0
for r in "${RECS[@]}"; do
	IFS=$'\x1f' read -r name inv file tests old new <<<"$r"
	wanted "$name" || continue
	if ! apply "$ROOT/$file" "$old" "$new" check; then
		echo "mutate.sh: STALE: $name: its original text does not occur exactly once in $file" >&2
		stale=$((stale + 1))
	fi
done
if [[ $MODE == check ]]; then
	((stale == 0)) && echo "mutate.sh: every original text occurs exactly once"
	exit $((stale ? 1 : 0))
fi

[[ -f $ROOT/build/seccomp/lib/libseccomp.a && -x $ROOT/build/bin/pysbx ]] ||
	{ echo "mutate.sh: run ./build.sh first (needs build/)" >&2; exit 111; }

# --- the scratch tree --------------------------------------------------------
S=$(mktemp -d /tmp/pysbx-mutate.XXXXXX) || exit 111
cleanup() { ((KEEP)) && echo "mutate.sh: scratch tree kept: $S" >&2 || rm -rf "$S"; }
trap cleanup EXIT
trap 'exit 130' INT TERM
say() { echo "mutate.sh: $*" >&2; }

# The tracked and untracked files of the work tree as they are now (the
# mutations test the code in front of you), and a built copy of build/
# (without the apt and source caches). Timestamps are kept, so make sees
# everything up to date and recompiles only what a mutation touches.
mkdir -p "$S/tree" "$S/pristine"
git ls-files -z --cached --others --exclude-standard |
	grep -zv '^build/' | xargs -0 cp --parents -p -t "$S/tree" 2>/dev/null ||
	{ say "unable to copy the tree"; exit 111; }
mkdir -p "$S/pristine/build"
for d in bin obj gen test uapi seccomp libpysbx.a; do
	[[ -e $ROOT/build/$d ]] && cp -a "$ROOT/build/$d" "$S/pristine/build/"
done
# uapi/include holds absolute symlinks into /usr/include: still valid.
build() { (cd "$S/tree" && nice make -j"$JOBS" --no-print-directory -s all) >"$S/make.log" 2>&1; }
reset_build() { rm -rf "$S/tree/build" && cp -a "$S/pristine/build" "$S/tree/build"; }
reset_build
if ! build; then
	tail -n 20 "$S/make.log" >&2
	say "the unmutated tree does not build"
	exit 111
fi
# The copy is what each mutation starts from (now up to date in its place).
rm -rf "$S/pristine/build" && cp -a "$S/tree/build" "$S/pristine/build"

# runtests LOG FILTER...: test/run.sh in the scratch tree; 0 when all pass.
runtests() {
	local log=$1
	shift
	(cd "$S/tree" && nice test/run.sh "$@") >"$log" 2>&1
}

# The tests every selected mutation names, run once unmutated: a mutation
# only counts as killed by a test that passes without it.
all_tests=()
for r in "${RECS[@]}"; do
	IFS=$'\x1f' read -r name inv file tests _ <<<"$r"
	wanted "$name" || continue
	for t in $tests; do
		[[ " ${all_tests[*]} " == *" $t "* ]] || all_tests+=("$t")
	done
done
say "baseline: ${all_tests[*]}"
if ! runtests "$S/baseline.log" "${all_tests[@]}"; then
	grep -e 'FAILED' -e 'not ok' "$S/baseline.log" >&2
	say "the unmutated tests fail: fix that first"
	exit 111
fi

# --- the mutations -----------------------------------------------------------
rows=() bad=0 total=0 killed=0
t0=$SECONDS
for r in "${RECS[@]}"; do
	IFS=$'\x1f' read -r name inv file tests old new <<<"$r"
	wanted "$name" || continue
	total=$((total + 1))
	src=$S/tree/$file
	cp -p "$src" "$S/orig" 2>/dev/null
	if ! apply "$src" "$old" "$new"; then
		result="STALE"
		bad=$((bad + 1))
	else
		touch "$src"
		if ! build; then
			result="BUILD-FAILED: $(grep -m1 -e 'error' "$S/make.log")"
			bad=$((bad + 1))
		elif runtests "$S/run.log" $tests; then
			result="SURVIVED"
			bad=$((bad + 1))
		else
			first=$(grep -m1 -E '^[a-z_/]+: (not ok|FAILED)' "$S/run.log")
			result="killed: ${first:0:110}"
			killed=$((killed + 1))
		fi
		((VERBOSE)) && cat "$S/run.log" >&2
	fi
	cp -p "$S/orig" "$src"
	reset_build
	rows+=("$(printf '%-28s %s' "$name" "$result")")
	say "$(printf '%2d %-28s %s' "$total" "$name" "${result:0:100}")"
done

echo
echo "| mutation | result |"
echo "|---|---|"
for row in "${rows[@]}"; do
	printf '| %s | %s |\n' "${row%% *}" "$(echo "${row#* }" | sed 's/^ *//; s/|/\\|/g')"
done
echo
echo "$total mutations: $killed killed, $((total - killed)) not killed ($((SECONDS - t0)) s, $(git rev-parse --short HEAD)$(git diff --quiet HEAD || echo '+changes'))"
((bad == 0))
exit

# The mutations. Each: "@@ name:", "@@ invariant:" (DESIGN.md invariant N
# or a SECURITY.md promise, in words), "@@ file:", "@@ tests:" (test/run.sh
# filters), then the original lines, each prefixed "-", and the replacement
# lines, each prefixed "+" (none: the original is deleted). Keep each
# original short but unique in its file.

__MUTATIONS__
@@ name: fds-close-from-4
@@ invariant: DESIGN 5: the target starts with only the fds it was given (SECURITY: only the fds the policy names)
@@ file: pkg/proc/fds.c
@@ tests: security/escape integration/exec
-	unsigned lo = 3;
+	unsigned lo = 4;

@@ name: env-pass-prefix
@@ invariant: DESIGN 5: only the environment the policy names (env-pass NAME passes NAME, not NAMEFOO)
@@ file: pkg/proc/env.c
@@ tests: integration/exec security/escape
-		if (!strncmp(caller[i], name, n) && caller[i][n] == '=')
+		if (!strncmp(caller[i], name, n))

@@ name: trust-others-writable
@@ invariant: DESIGN 8: a policy writable by others is not trusted
@@ file: pkg/trust/trust.c
@@ tests: integration/policy_cli integration/check
-	if (!owner_ok(leaf->uid) || (leaf->mode & (S_IWGRP | S_IWOTH))) {
+	if (!owner_ok(leaf->uid) || (leaf->mode & S_IWGRP)) {

@@ name: rmtree-dotdot-unchecked
@@ invariant: DESIGN 7 / SECURITY Lifetime: the scratch removal never leaves the scratch dir (a rename race)
@@ file: pkg/guard/rmtree.c
@@ tests: integration/clean
-		if (next < 0 || fstat(next, &st) < 0 ||
-		    st.st_dev != w.stack[w.depth - 2].dev ||
-		    st.st_ino != w.stack[w.depth - 2].ino) {
+		if (next < 0 || fstat(next, &st) < 0) {

@@ name: preset-io-uring-no-setup
@@ invariant: DESIGN 6: the filter covers io_uring (@io-uring holds all three calls)
@@ file: pkg/scnames/scnames.c
@@ tests: unit/test_seccomp
-	"io_uring_setup", "io_uring_enter", "io_uring_register", NULL,
+	"io_uring_enter", "io_uring_register", NULL,

@@ name: securebits-unlocked
@@ invariant: DESIGN Who holds privileges: pysbx-mount locks securebits before the next step (SECURITY: locked securebits)
@@ file: pkg/mnt/caps.c
@@ tests: security/escape
-	if (prctl(PR_SET_SECUREBITS, SECBITS, 0, 0, 0) < 0)
+	if (prctl(PR_SET_SECUREBITS, 0, 0, 0, 0) < 0)

@@ name: bind-no-nosuid-nodev
@@ invariant: DESIGN 4: binds are nosuid,nodev (SECURITY: read-only binds are ro,nosuid,nodev)
@@ file: pkg/mnt/ops.c
@@ tests: integration/mount security/escape
-	unsigned long long attrs = MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV;
+	unsigned long long attrs = 0;

@@ name: lock-ns-without-mountns
@@ invariant: DESIGN Locked mounts: the locking user namespace has its own mount namespace
@@ file: pkg/mnt/userns.c
@@ tests: security/escape integration/mount
-	if (unshare(CLONE_NEWUSER | (mountns ? CLONE_NEWNS : 0)) < 0) {
+	if (unshare(CLONE_NEWUSER | (mountns ? 0 : 0)) < 0) {

@@ name: pid1-term-target-only
@@ invariant: DESIGN Signals: pid 1 signals every process in its namespace (TERM, then CONT)
@@ file: pkg/reaper/reaper.c
@@ tests: security/faults
-			kill_all(in_pidns, target, SIGTERM);
+			kill(target, SIGTERM);

@@ name: guard-term-child-only
@@ invariant: DESIGN 7 / GUARD: standalone, the guard's TERM goes to the whole process group
@@ file: pkg/guard/supervise.c
@@ tests: integration/clean
-	if (!s->reaped && !s->o->chain && kill(-s->child, sig) == 0 &&
+	if (!s->reaped && !s->o->chain && kill(s->child, sig) == 0 &&

@@ name: ro-bind-writable
@@ invariant: DESIGN 4: read-only means read-only
@@ file: pkg/mnt/ops.c
@@ tests: integration/mount security/escape
-		attrs |= MOUNT_ATTR_RDONLY;
+		attrs |= 0;

@@ name: ro-not-recursive
@@ invariant: DESIGN 4: ro binds are remounted ro recursively
@@ file: pkg/mnt/ops.c
@@ tests: integration/mount security/escape
-	if (attrs && sys_setattr(tree, attrs, 1) < 0) {
+	if (attrs && sys_setattr(tree, attrs, 0) < 0) {

@@ name: mnt-follow-symlinks
@@ invariant: DESIGN 3: sources and destinations are opened without following symlinks
@@ file: pkg/mnt/internal.h
@@ tests: integration/mount security/escape
-#define MNT_RESOLVE (RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | \
+#define MNT_RESOLVE (RESOLVE_BENEATH | \

@@ name: mask-writable
@@ invariant: SECURITY Read-only stays read-only: masks cannot be lifted or written
@@ file: pkg/mnt/ops.c
@@ tests: integration/mount security/escape
-#define MASK_ATTRS (MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | \
+#define MASK_ATTRS (MOUNT_ATTR_NOSUID | \

@@ name: protect-writable
@@ invariant: SECURITY What is not protected / A policy: protected names stay read-only
@@ file: pkg/mnt/protect.c
@@ tests: security/escape integration/protect
-			MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV : 0;
+			MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV : 0;

@@ name: dev-writable
@@ invariant: DESIGN 4 / MOUNT: nothing may be added to /dev
@@ file: pkg/mnt/ops.c
@@ tests: integration/mount security/escape
-	if (sys_setattr(dev, MOUNT_ATTR_RDONLY, 0) < 0) {
+	if (0) {

@@ name: nested-userns-allowed
@@ invariant: DESIGN 5: nested user namespaces disabled
@@ file: pkg/mnt/sandbox.c
@@ tests: security/escape integration/mount
-	if (!p->nested_userns && mnt_limit_userns(d, procfd) < 0)
+	if (0 && mnt_limit_userns(d, procfd) < 0)

@@ name: bounding-set-kept
@@ invariant: DESIGN Who holds privileges: pysbx-mount empties every set, bounding included
@@ file: pkg/mnt/caps.c
@@ tests: integration/mount security/escape
-	for (cap = 0; prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) == 0; cap++)
-		;
-	if (errno != EINVAL || cap < 32)
+	for (cap = 0; cap < 64; cap++)
+		;
+	if (0)

@@ name: caps-not-cleared
@@ invariant: DESIGN 5: the target starts with no capabilities (pysbx-mount's capset)
@@ file: pkg/mnt/caps.c
@@ tests: integration/mount security/escape integration/exec
-	memset(data, 0, sizeof(data));
-	if (sys_capset(data) < 0)
+	if (sys_capget(data) < 0)

@@ name: no-new-privs-skipped
@@ invariant: DESIGN 5: no_new_privs
@@ file: pkg/proc/creds.c
@@ tests: integration/exec
-	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
-		return diag_fail(d, EXIT_SYSCALL, errno,
-				 "unable to set no_new_privs");
-	if (prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) != 1)
+	if (prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) < 0)

@@ name: no-new-session
@@ invariant: DESIGN 5: a new session (no TIOCSTI into the caller's terminal)
@@ file: pkg/proc/session.c
@@ tests: integration/exec security/escape
-	if (setsid() >= 0)
-		return 0;
-	if (errno != EPERM)
+	if (1)
+		return 0;
+	if (errno != EPERM)

@@ name: no-pdeathsig
@@ invariant: DESIGN 5: a parent-death signal
@@ file: pkg/proc/session.c
@@ tests: integration/exec
-	if (prctl(PR_SET_PDEATHSIG, (unsigned long)sig, 0, 0, 0) < 0)
+	if (prctl(PR_SET_PDEATHSIG, 0UL, 0, 0, 0) < 0)

@@ name: exec-caps-drop-noop
@@ invariant: DESIGN: standalone under real root, pysbx-exec drops what it holds
@@ file: pkg/proc/apply.c
@@ tests: integration/exec
-	if (drop && proc_caps_drop(d) < 0)
+	if (0 && proc_caps_drop(d) < 0)

@@ name: exec-securebits-unlocked
@@ invariant: DESIGN Who holds privileges: securebits locked (pysbx-exec standalone as root)
@@ file: pkg/proc/creds.c
@@ tests: integration/exec
-	if (prctl(PR_SET_SECUREBITS, bits, 0, 0, 0) < 0)
+	if (prctl(PR_SET_SECUREBITS, 0, 0, 0, 0) < 0)

@@ name: keep-chain-fd
@@ invariant: DESIGN Chain conventions: nothing reaches the target but the fds the policy keeps (not the chain's own)
@@ file: pkg/proc/fds.c
@@ tests: integration/exec
-			if (extra[j] == fd)
-				return diag_fail(
+			if (extra[j] == fd && 0)
+				return diag_fail(

@@ name: stdin-null-any-file
@@ invariant: EXEC: stdin null is the null device, not whatever lies at /dev/null
@@ file: pkg/proc/fds.c
@@ tests: integration/exec
-	if (fstat(fd, &st) < 0 || !S_ISCHR(st.st_mode) ||
-	    major(st.st_rdev) != 1 || minor(st.st_rdev) != 3) {
+	if (fstat(fd, &st) < 0) {

@@ name: rlimit-fsize-skipped
@@ invariant: SECURITY Faults: limit fsize bounds a file
@@ file: pkg/proc/rlimits.c
@@ tests: integration/exec security/faults
-	if (setrlimit(op->resource, &want) == 0)
-		return 0;
+	if (op->resource == RLIMIT_FSIZE || setrlimit(op->resource, &want) == 0)
+		return 0;

@@ name: plan-unsealed-accepted
@@ invariant: DESIGN Parse once, pass the plan: a sealed memfd (no holder can change it)
@@ file: pkg/chain/chain.c
@@ tests: integration/exec unit/test_chain integration/harness
-	if ((seals & SEALS) != SEALS)
+	if ((seals & F_SEAL_SEAL) != F_SEAL_SEAL)

@@ name: plan-fd-to-any-program
@@ invariant: DESIGN Passing the plan: --plan-fd/--report-fd only to a later step (never to a target named like one)
@@ file: pkg/chain/chain.c
@@ tests: unit/test_chain integration/exec security/escape integration/harness
-	return step_rank(b + strlen("pysbx-")) > step_rank(stage);
+	return step_rank(b + strlen("pysbx-")) >= 0 || stage;

@@ name: plan-fd-inherited
@@ invariant: DESIGN Parse once, pass the plan: the final step closes the plan fd before the target runs (close-on-exec once read)
@@ file: pkg/chain/chain.c
@@ tests: security/escape integration/exec integration/seccomp
-	if (fcntl(fd, F_SETFD, FD_CLOEXEC) < 0 || fstat(fd, &st) < 0)
+	if (fstat(fd, &st) < 0)

@@ name: badarch-kills-thread
@@ invariant: DESIGN 6 / Kernel facts: a wrong-ABI syscall kills the process, not the thread
@@ file: pkg/seccomp/compile.c
@@ tests: integration/seccomp
-	if (set_attr(&k, SCMP_FLTATR_ACT_BADARCH, scmp_action(bad, bad_err),
+	if (set_attr(&k, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_THREAD,

@@ name: io-uring-route-dropped
@@ invariant: DESIGN 6: io_uring follows a socket deny (bypass route)
@@ file: pkg/seccomp/compile.c
@@ tests: integration/seccomp security/escape
-	r = denying_rule(p, "socket");
+	r = denying_rule(p, "socket") ? NULL : NULL;

@@ name: clone3-route-dropped
@@ invariant: DESIGN 6: clone3 is refused when clone's flags are filtered
@@ file: pkg/seccomp/compile.c
@@ tests: integration/seccomp security/escape
-	r = clone_filter_rule(p);
+	r = clone_filter_rule(p) ? NULL : NULL;

@@ name: tiocsti-high-bits
@@ invariant: DESIGN 6 / SECURITY: TIOCSTI denied however its int argument is spelled (high bits)
@@ file: pkg/scnames/scnames.c
@@ tests: integration/seccomp security/escape unit/test_seccomp
-	"ioctl arg1&0xffffffff==TIOCSTI",
+	"ioctl arg1==TIOCSTI",

@@ name: unix-sockets-high-bits
@@ invariant: DESIGN 6: @unix-sockets matches the int family in its low 32 bits
@@ file: pkg/scnames/scnames.c
@@ tests: integration/seccomp unit/test_seccomp
-	"socket arg0&0xffffffff==AF_UNIX",
+	"socket arg0==AF_UNIX",

@@ name: preset-namespaces-newuser
@@ invariant: DESIGN 5/6: @namespaces covers clone(CLONE_NEWUSER)
@@ file: pkg/scnames/scnames.c
@@ tests: unit/test_seccomp security/escape
-	"clone arg0&CLONE_NEWUSER==CLONE_NEWUSER",
-

@@ name: preset-mount-fsopen
@@ invariant: SECURITY escape 22: @mount covers the new mount API (fsopen)
@@ file: pkg/scnames/scnames.c
@@ tests: unit/test_seccomp security/escape
-	"mount", "umount", "umount2", "pivot_root", "chroot", "fsopen",
+	"mount", "umount", "umount2", "pivot_root", "chroot",

@@ name: seccomp-nnp-skipped
@@ invariant: DESIGN 5: no_new_privs (pysbx-seccomp standalone needs it to load the filter)
@@ file: pkg/seccomp/load.c
@@ tests: integration/seccomp
-	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
+	if (0)

@@ name: monitor-no-pdeathsig
@@ invariant: DESIGN 7: the guard's death kills every process in the sandbox (the monitor's parent-death signal)
@@ file: pkg/mnt/sandbox.c
@@ tests: integration/mount security/faults integration/clean
-		return MNT_EXEC;
-	if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0)
+		return MNT_EXEC;
+	if (0)

@@ name: guard-child-no-pdeathsig
@@ invariant: DESIGN 7: standalone, SIGKILL of the guard kills its child (parent-death signal)
@@ file: pkg/guard/spawn.c
@@ tests: integration/clean
-	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != s->guard)
+	if (getppid() != s->guard)

@@ name: guard-no-tree-kill
@@ invariant: DESIGN 7: the guard kills every process of the sandbox, setsid'd daemons included (not only its process group, as timeout(1) does)
@@ file: pkg/guard/kill.c
@@ tests: integration/clean
-		if (kill_children() <= 0)
-			break;	/* the rest are deeper: the /proc walk */
-		sched_yield();	/* let the killed ones exit */
-	}
-	for (int round = 0; round < KILL_ROUNDS; round++) {
-		reap(child, status, reaped);
-		if (no_children())
-			return 0;
-		/* The group id is safe to signal only while its leader is
-		 * unreaped: after that the number may be reused. */
-		int n = kill_descendants(*reaped ? 0 : pgid);
+		if (1 || kill_children() <= 0)
+			break;	/* the rest are deeper: the /proc walk */
+		sched_yield();	/* let the killed ones exit */
+	}
+	for (int round = 0; round < KILL_ROUNDS; round++) {
+		reap(child, status, reaped);
+		if (no_children())
+			return 0;
+		/* The group id is safe to signal only while its leader is
+		 * unreaped: after that the number may be reused. */
+		int n = *reaped ? 0 : kill(-pgid, SIGKILL) == 0;

@@ name: guard-no-kill-after-grace
@@ invariant: DESIGN 7 / GUARD: after the grace period the guard KILLs
@@ file: pkg/guard/supervise.c
@@ tests: integration/clean security/faults
-		if (s->phase == RUNNING)
-			stop(s, true);
-		else
-			kill_all(s);
+		if (s->phase == RUNNING)
+			stop(s, true);

@@ name: rmtree-follows-symlinks
@@ invariant: SECURITY Lifetime: the removal never follows a symlink the sandbox planted
@@ file: pkg/guard/rmtree.c
@@ tests: integration/clean security/escape
-		if (fstatat(cur, n, &st, AT_SYMLINK_NOFOLLOW) < 0) {
+		if (fstatat(cur, n, &st, 0) < 0) {

@@ name: rmtree-no-chmod-back
@@ invariant: SECURITY escape 60: a mode-0 dir the sandbox left is removed too
@@ file: pkg/guard/rmtree.c
@@ tests: integration/clean security/escape
-		if (child < 0 && errno == EACCES)
+		if (child < 0 && errno == EACCES && 0)

@@ name: trust-dir-others-writable
@@ invariant: DESIGN 8: a policy's parent directories are not writable by others (sticky excepted)
@@ file: pkg/trust/trust.c
@@ tests: integration/policy_cli integration/check
-		    ((st->mode & (S_IWGRP | S_IWOTH)) && !(st->mode & S_ISVTX)))
+		    ((st->mode & S_IWGRP) && !(st->mode & S_ISVTX)))

@@ name: trust-any-owner
@@ invariant: DESIGN 8: a policy owned by someone else (neither root nor the caller) is refused
@@ file: pkg/trust/trust.c
@@ tests: integration/exec integration/policy_cli
-	return uid == 0 || uid == getuid();
+	(void)uid;
+	return 1;

@@ name: trust-rw-bind-ignored
@@ invariant: DESIGN 8: a policy or binary under a read-write bind of its own sandbox is refused
@@ file: pkg/trust/trust.c
@@ tests: integration/policy_cli integration/check security/escape
-		if (!src || (!beneath(real, src) && by_inode != (long)i))
+		if (!src || (!beneath(real, src) && by_inode != (long)i) || 1)

@@ name: protect-hardlink-allowed
@@ invariant: SECURITY What is not protected / POLICY protect: a protected file with other hard links is refused (a write through the other name would change it)
@@ file: pkg/mnt/protect.c
@@ tests: integration/protect security/escape
-	if (S_ISREG(st->st_mode) && st->st_nlink > 1) {
+	if (0) {

@@ name: protect-symlink-skipped
@@ invariant: DESIGN mask/protect decision: protect resolves a matching symlink beneath its directory and protects the target
@@ file: pkg/mnt/protect.c
@@ tests: integration/protect security/escape
-	if (!S_ISLNK(st.st_mode))
-		return protect_ro(w, rel, &st);
+	if (!S_ISLNK(st.st_mode))
+		return protect_ro(w, rel, &st);
+	return 0;

@@ name: protect-not-pinned
@@ invariant: POLICY protect: every directory between DIR and a protected path is a mount point (no rename of a parent)
@@ file: pkg/mnt/protect.c
@@ tests: integration/protect security/escape
-	w->p->nro++;
-	if (pin_up(w, rel) < 0)
-		return -1;
+	w->p->nro++;
+	if (0)
+		return -1;

@@ name: protect-suffix-as-prefix
@@ invariant: POLICY protect: a *.ext pattern matches names ending in .ext
@@ file: pkg/mnt/protect.c
@@ tests: integration/protect security/escape
-		return bl >= pl && !strcmp(base + bl - pl, pat + 1);
+		return bl >= pl && !strncmp(base, pat + 1, pl);

@@ name: mask-symlink-itself
@@ invariant: DESIGN mask decision / SECURITY: a masked dotfile that is a symlink has its target masked (what the sandbox would read)
@@ file: pkg/mnt/ops.c
@@ tests: integration/mount security/escape integration/policies integration/protect
-	if (masked_before(real))
-		return 0;
+	if (masked_before(real))
+		return 0;
+	snprintf(real, sizeof(real), "%s", op->dst);

@@ name: layout-host-mountpoint-allowed
@@ invariant: DESIGN 3 / SECURITY Host files: a missing mount point is never made on the host through a read-write bind
@@ file: pkg/policy/layout.c
@@ tests: integration/newcomer
-	else if (op->kind != FS_MASK && host_missing(cur, op->dst))
+	else if (op->kind != FS_MASK && 0 && host_missing(cur, op->dst))

@@ name: session-result-any-id
@@ invariant: SECURITY (session's host side): a result is accepted only with its request's fresh id, so user code cannot forge one
@@ file: pkg/session/host.c
@@ tests: integration/session
-	if (!is(v, vl, nonce))
-		return *why = "a result for another request", -1;
+	if (0 && !is(v, vl, nonce))
+		return *why = "a result for another request", -1;

@@ name: session-result-any-field
@@ invariant: SECURITY (session's host side): a result frame with an unknown field is refused (nothing unchecked reaches the client)
@@ file: pkg/session/host.c
@@ tests: integration/session
-		if (k == sizeof(keys) / sizeof(keys[0]))
-			return *why = "a result has an unknown field", -1;
+		if (0 && k == sizeof(keys) / sizeof(keys[0]))
+			return *why = "a result has an unknown field", -1;

@@ name: protect-include-not-followed
@@ invariant: POLICY protect: core.hooksPath in a file the git config includes (at any level) is protected (red-team F4)
@@ file: pkg/mnt/protect.c
@@ tests: integration/protect
-	if (!hooks && S_ISREG(st.st_mode) && c->depth < INCLUDE_DEPTH) {
+	if (0) {

@@ name: protect-hookspath-first-worktree-only
@@ invariant: POLICY protect: a relative core.hooksPath is protected in every worktree that uses the git dir (red-team F3)
@@ file: pkg/mnt/protect.c
@@ tests: integration/protect
-		return wt ? git_worktree(w, g, wt, nest) : 0;
+		return 0;

@@ name: proxy-keeps-guard-fds
@@ invariant: SECURITY (network): the proxy process holds nothing of the guard's fds (scratch dir and lock, report pipe, the caller's)
@@ file: pkg/egress/start.c
@@ tests: integration/proxy
-	close_others(keep, 4);
+	(void)keep, (void)close_others;

@@ name: proxy-unconfined
@@ invariant: SECURITY (network): the proxy parses the sandbox's bytes under no_new_privs, Landlock and its own seccomp filter
@@ file: pkg/egress/start.c
@@ tests: integration/proxy
-	if (egress_confine(d) < 0)
+	if (0 && egress_confine(d) < 0)

@@ name: proxy-filter-allows-open
@@ invariant: SECURITY (network): the proxy's seccomp filter (compiled at build time) kills it on open, exec, fork and every socket but TCP/UDP
@@ file: pkg/egress/filter.h
@@ tests: integration/proxy_filter
-	"seccomp allow read write writev close poll ppoll recvfrom sendto " \
+	"seccomp allow read write writev close poll ppoll recvfrom sendto openat " \

@@ name: proxy-filter-not-loaded
@@ invariant: SECURITY (network): the proxy loads its precompiled seccomp program (Landlock alone would leave exec, fork and sockets)
@@ file: pkg/egress/confine.c
@@ tests: integration/proxy_filter
-	return sc_bpf_load(d, "of the network proxy", eg_filter_bpf,
+	return 0 && sc_bpf_load(d, "of the network proxy", eg_filter_bpf,

@@ name: proxy-unused-pin-accepted
@@ invariant: POLICY (network): a net-resolve pin no request can use is an error (a mistyped pin must not send the name to DNS silently)
@@ file: pkg/policy/net.c
@@ tests: integration/policy_net unit/test_proxy
-		if (pin_used(p, pin))
+		if (1 || pin_used(p, pin))

@@ name: proxy-outlives-guard
@@ invariant: DESIGN 7: nothing outlives the sandbox: the proxy dies with the guard, even a SIGKILLed one
@@ file: pkg/egress/start.c
@@ tests: integration/proxy
-	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != guard)
+	if (getppid() != guard)

@@ name: proxy-rebinding
@@ invariant: SECURITY (network): a name that resolves to loopback, private, link-local or the host's own address is refused unless a rule names the address
@@ file: pkg/egress/loop.c
@@ tests: integration/proxy
-		if (v == PXA_OK) {
+		if (1) {

@@ name: proxy-deny-ignored
@@ invariant: SECURITY (network): a request no rule allows, or one a net-deny matches, is refused with 403
@@ file: pkg/egress/loop.c
@@ tests: integration/proxy
-	if (!allow) {
+	if (0 && !allow) {

@@ name: proxy-unbounded-connections
@@ invariant: SECURITY (network): the proxy serves at most EG_MAX_CONN connections at once (a flood waits in the backlog)
@@ file: pkg/egress/egress.h
@@ tests: integration/proxy
-#define EG_MAX_CONN 64		/* connections at once; more wait in the
+#define EG_MAX_CONN 4096	/* connections at once; more wait in the

@@ name: proxy-no-head-timeout
@@ invariant: SECURITY (network): a client that never completes its request head is cut off (slowloris)
@@ file: pkg/egress/egress.h
@@ tests: integration/proxy
-#define EG_HEAD_MS 10000	/* accept to a complete request head */
+#define EG_HEAD_MS 600000	/* accept to a complete request head */

@@ name: proxy-client-udp
@@ invariant: SECURITY (network): @proxy-client refuses every socket but TCP (UDP here)
@@ file: pkg/scnames/scnames.c
@@ tests: integration/proxy
-	"socket arg1&0xf==2", "socket arg1&0xf==3", "socket arg1&0xf==4",
+	"socket arg1&0xf==3", "socket arg1&0xf==4",

@@ name: protect-pid1-dies-with-monitor
@@ invariant: SECURITY Protected paths: a SIGKILL of the front door (or its process group) does not skip the check after the run (red-team F1)
@@ file: pkg/mnt/sandbox.c
@@ tests: integration/protect
-	if (monitor_gone(sync_fd))
-		_exit(EXIT_SYSCALL);
+	if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0 || monitor_gone(sync_fd))
+		_exit(EXIT_SYSCALL);

@@ name: guard-kills-pid1-after-grace
@@ invariant: SECURITY Protected paths: the timeout's KILL ends the sandbox through pid 1, which still checks the tree (red-team F1)
@@ file: pkg/guard/supervise.c
@@ tests: integration/protect
-	if (s->phase < ENDING && s->o->wait_started && !s->reaped) {
+	if (0) {

@@ name: protect-leftovers-kept
@@ invariant: SECURITY Protected paths: a commondir or an unenabled config.worktree an earlier (killed) run left is moved aside at the start of every run (red-team F1)
@@ file: pkg/mnt/protect.c
@@ tests: integration/protect
-	git_leftovers(w, g);
+	if (0)
+		git_leftovers(w, g);

@@ name: protect-new-repo-kept
@@ invariant: SECURITY Protected paths: a repository made during the run (any depth) has its hooks and code-running config moved aside (red-team F2)
@@ file: pkg/mnt/protect.c
@@ tests: integration/protect
-	    (moved = git_defuse(w, real, 0)) <= 0)
+	    (moved = 0) <= 0)

@@ name: protect-git-depth-bounded
@@ invariant: SECURITY Protected paths: a .git is looked for at any depth, at start and after the run (red-team F2)
@@ file: pkg/mnt/protect.c
@@ tests: integration/protect
-		} else if ((level < w->p->op->inodes || w->p->git) &&
+		} else if ((level < w->p->op->inodes) &&

@@ name: protect-new-module-kept
@@ invariant: SECURITY Protected paths: a submodule git dir made during the run below a protected git dir is defused (red-team F2)
@@ file: pkg/mnt/protect.c
@@ tests: integration/protect
-		moved = git_defuse(w, sub, 0);
+		moved = 0;

@@ name: protect-killed-pid1-unchecked
@@ invariant: SECURITY Protected paths: a run whose pid 1 was SIGKILLed from outside (tree kill, cgroup kill) is checked at the next start on the workspace (its record)
@@ file: pkg/mnt/protect.c
@@ tests: integration/protect
-	mnt_protect_stale(recover_one, &rc);
+	(void)rc, (void)recover_one;

@@ name: protect-killed-pid1-monitor-skips
@@ invariant: SECURITY Protected paths: a SIGKILL of pid 1 alone while the target runs is checked at once by pysbx-mount outside the sandbox
@@ file: pkg/mnt/sandbox.c
@@ tests: integration/protect
-		mnt_protect_killed(d, p);
+		(void)0;

@@ name: protect-dir-entries-unchecked
@@ invariant: SECURITY Protected paths: a symlink in a protected directory has its target protected, and a file in it with a hard link elsewhere stops the run
@@ file: pkg/mnt/protect.c
@@ tests: integration/protect
-	return S_ISDIR(st->st_mode) ? protect_inside(w, rel, 0) : 0;
+	return S_ISDIR(st->st_mode) && 0 ? protect_inside(w, rel, 0) : 0;

@@ name: protect-loop-stops-runs
@@ invariant: SECURITY Protected paths: a planted symlink under a protected name (dangling, outward, a loop) never stops a later run
@@ file: pkg/mnt/protect.c
@@ tests: integration/protect
-		       "the directory to protect; left as it is", why);
-		return 0;
+		       "the directory to protect; left as it is", why);
+		return e == EXDEV || e == ENOENT ? 0 :
+			diag_fail(w->d, EXIT_SYSCALL, e, "unresolvable");

@@ name: protect-rebase-exec-kept
@@ invariant: SECURITY Protected paths: a rebase to-do list with exec lines written during the run is moved aside (the host's git rebase --continue would run them)
@@ file: pkg/mnt/protect.c
@@ tests: integration/protect
-	git_todos(w, g, false);
-}
+}

@@ name: protect-other-dir-record-skipped
@@ invariant: SECURITY Protected paths: a start on any workspace checks a killed run's record of another workspace at its host path
@@ file: pkg/mnt/protect.c
@@ tests: integration/protect
-		if (host[0] != '/' || !host[1] || w.hostfd < 0)
+		if (1)

@@ name: protect-live-record-checked
@@ invariant: SECURITY Protected paths: a record whose run's pid 1 lives (its lock held) is left alone by another start on the same workspace
@@ file: pkg/mnt/protrec.c
@@ tests: integration/protect
-		    flock(fd, LOCK_EX | LOCK_NB) < 0 || fstat(fd, &a) < 0 ||
+		    fstat(fd, &a) < 0 ||

@@ name: protect-record-any-dir
@@ invariant: SECURITY Protected paths: a killed run's record applies only to its own directory (device, inode, birth time), never to another one at the same path
@@ file: pkg/mnt/protect.c
@@ tests: integration/protect
-		 (long long)sx.stx_btime.tv_sec, sx.stx_btime.tv_nsec);
+		 (long long)sx.stx_btime.tv_sec, sx.stx_btime.tv_nsec);
+	key[16] = '\0';

@@ name: protect-state-dir-writable-inside
@@ invariant: SECURITY Protected paths: the state directory of the records lies below no source the plan binds read-write (the sandbox cannot forge or delete a record)
@@ file: pkg/mnt/protrec.c
@@ tests: integration/protect
-	if ((rw = bound_rw(p, real)) >= 0) {
+	if ((rw = bound_rw(p, real)) >= 0 && 0) {

@@ name: protect-state-dir-shared
@@ invariant: SECURITY Protected paths: the state directory of the records is the caller's and 0700
@@ file: pkg/mnt/protrec.c
@@ tests: integration/protect
-	if (st->st_mode & 077)
+	if (st->st_mode & 0)

@@ name: proxy-deny-not-first
@@ invariant: POLICY net-deny: a matching net-deny refuses a request whatever allows it (deny wins)
@@ file: pkg/policy/netmatch.c
@@ tests: unit/test_proxy
-		if (p->px[i].deny && port_match(&p->px[i], port) &&
+		if (0 && p->px[i].deny && port_match(&p->px[i], port) &&

@@ name: proxy-default-allow
@@ invariant: POLICY net-proxy: what no rule allows is refused (default deny)
@@ file: pkg/policy/netmatch.c
@@ tests: unit/test_proxy
-	*rule = -1;
-	return 0;
+	*rule = -1;
+	return 1;

@@ name: proxy-suffix-without-dot
@@ invariant: POLICY net-allow *.example.com matches names below example.com only, not badexample.com nor example.com
@@ file: pkg/policy/netmatch.c
@@ tests: unit/test_proxy
-		return hl > sl + 1 && h->name[hl - sl - 1] == '.' &&
+		return hl >= sl &&

@@ name: proxy-deny-address-ignored
@@ invariant: POLICY net-deny ADDRESS also refuses a name that resolves to that address
@@ file: pkg/policy/netmatch.c
@@ tests: unit/test_proxy
-		if (r->deny) {
+		if (0 && r->deny) {

@@ name: proxy-nonpublic-allowed
@@ invariant: SECURITY proxy: a name resolving to loopback, private, link-local... is refused unless a rule or pin names the address (DNS rebinding)
@@ file: pkg/policy/netmatch.c
@@ tests: unit/test_proxy
-	if (px_classify(a) != PX_PUBLIC)
-		return PXA_NONPUBLIC;
+	if (0 && px_classify(a) != PX_PUBLIC)
+		return PXA_NONPUBLIC;

@@ name: proxy-own-address-allowed
@@ invariant: SECURITY proxy: the host's own (even public) addresses are refused unless named
@@ file: pkg/policy/netmatch.c
@@ tests: unit/test_proxy
-		if (px_addr_same(&own[i], a))
+		if (0 && px_addr_same(&own[i], a))

@@ name: proxy-metadata-public
@@ invariant: SECURITY proxy: 169.254.0.0/16 (cloud metadata) is link-local, not public
@@ file: pkg/netaddr/addr.c
@@ tests: unit/test_proxy
-	if (in4(a, 169, 254, 0, 16))
+	if (in4(a, 169, 254, 0, 24))

@@ name: proxy-mapped-v6-distinct
@@ invariant: POLICY net rules: ::ffff:a.b.c.d is a.b.c.d for rules and checks (a deny or allow of one holds for the other)
@@ file: pkg/netaddr/addr.c
@@ tests: unit/test_proxy
-	if (a->family == 6 && !memcmp(a->a, mapped_prefix, 12)) {
+	if (0 && a->family == 6 && !memcmp(a->a, mapped_prefix, 12)) {

@@ name: proxy-host-any-byte
@@ invariant: SECURITY proxy: a host with '%', non-ASCII (no IDNA), NUL, CR, LF or space is refused
@@ file: pkg/netaddr/host.c
@@ tests: unit/test_proxy
-	       (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_';
+	       (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_' ||
+	       c == '%' || c >= 0x80;

@@ name: proxy-numeric-host-as-name
@@ invariant: SECURITY proxy: a numeric host that is not a dotted quad (2130706433, 0x7f.1) is refused, never resolved as a name
@@ file: pkg/netaddr/host.c
@@ tests: unit/test_proxy
-	if (numeric_label(s + last, n - last)) {
+	if (numeric_label(s + last, n - last) &&
+	    !px_addr_parse(s, n, &out->addr)) {

@@ name: proxy-bare-lf-accepted
@@ invariant: SECURITY proxy: a bare LF in a request head is a 400 (one reading of every line)
@@ file: pkg/proxy/request.c
@@ tests: unit/test_proxy
-		if (!i || b[i - 1] != '\r') {
+		if (!i) {

@@ name: proxy-connection-drops-length
@@ invariant: SECURITY proxy: Connection may not name Content-Length (the upstream would read the body as a second request)
@@ file: pkg/proxy/request.c
@@ tests: unit/test_proxy
-				if (ieq(tok.s, tok.n, "content-length") ||
-				    ieq(tok.s, tok.n, "host"))
+				if (ieq(tok.s, tok.n, "host"))

@@ name: proxy-credentials-forwarded
@@ invariant: SECURITY proxy: Proxy-Authorization and the other Proxy-* and hop-by-hop headers never reach the upstream
@@ file: pkg/proxy/request.c
@@ tests: unit/test_proxy
-	return iprefix(h->s, h->name, "proxy-");
+	return false;

@@ name: proxy-host-header-unchecked
@@ invariant: SECURITY proxy: a Host header naming another host than the request target is a 400
@@ file: pkg/proxy/request.c
@@ tests: unit/test_proxy
-		    hh.kind != r->host.kind || strcmp(hh.name, r->host.name) ||
+		    hh.kind != r->host.kind ||

@@ name: landlock-silent-downgrade
@@ invariant: LANDLOCK.md: a class the kernel's ABI lacks stops the run unless the policy marks it best-effort (never a silent downgrade)
@@ file: pkg/landlock/fit.c
@@ tests: integration/landlock unit/test_landlock
-		if (p->ll_best_effort & c->bit) {
+		if (1) {

@@ name: landlock-not-restricted
@@ invariant: LANDLOCK.md: pysbx-landlock restricts itself before the next program runs
@@ file: pkg/landlock/apply.c
@@ tests: integration/landlock
-	if (syscall(SYS_landlock_restrict_self, rfd, 0) < 0) {
+	if (0) {

@@ name: landlock-rule-follows-symlink
@@ invariant: LANDLOCK.md / DESIGN 3: a symlink on a rule's path is refused, never followed
@@ file: pkg/landlock/apply.c
@@ tests: integration/landlock
-		.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
+		.resolve = 0,

@@ name: landlock-tcp-not-handled
@@ invariant: LANDLOCK.md: with unshare net, TCP bind and connect are refused (ABI 4)
@@ file: pkg/landlock/map.c
@@ tests: integration/landlock
-		(p->ns & NS_NET) ? LL_NET_BIND_TCP | LL_NET_CONNECT_TCP : 0;
+		(p->ns & 0) ? LL_NET_BIND_TCP | LL_NET_CONNECT_TCP : 0;

@@ name: landlock-no-scopes
@@ invariant: LANDLOCK.md: signals and abstract unix sockets toward the outside are refused (ABI 6)
@@ file: pkg/landlock/map.c
@@ tests: integration/landlock
-	rs->scoped = LL_SCOPE_ABSTRACT_UNIX | LL_SCOPE_SIGNAL;
+	rs->scoped = 0;

@@ name: landlock-host-bind-elsewhere
@@ invariant: LANDLOCK.md: host paths: a bind's source must be its destination (else the rule would grant the wrong path)
@@ file: pkg/landlock/map.c
@@ tests: integration/landlock
-		if (host && strcmp(op->src, op->dst)) {
+		if (0) {

@@ name: landlock-host-mask-ignored
@@ invariant: LANDLOCK.md: host paths: a mask below a granted path is hidden, never silently unenforced
@@ file: pkg/landlock/map.c
@@ tests: integration/landlock unit/test_landlock
-				r = narrowing(rs, e, op, ~0ULL, false);
+				r = 0;

@@ name: landlock-ro-bind-writable
@@ invariant: LANDLOCK.md: a ro-bind path is read and execute only
@@ file: pkg/landlock/map.c
@@ tests: integration/landlock
-			   op->kind == FS_RO_BIND ? LL_R | LL_X :
+			   op->kind == FS_RO_BIND ? LL_R | LL_X | LL_W :

@@ name: landlock-host-tmpfs-any-dir
@@ invariant: LANDLOCK.md: host paths: a tmpfs maps to the host's directory only when it is sticky and world-writable (else hidden)
@@ file: pkg/landlock/apply.c
@@ tests: integration/landlock
-	return S_ISDIR(st->st_mode) && (st->st_mode & S_ISVTX) &&
+	return 1 || (st->st_mode & S_ISVTX) ||

@@ name: landlock-not-inserted
@@ invariant: LANDLOCK.md: pysbx run runs pysbx-landlock when the policy says landlock yes
@@ file: pkg/guard/resolve.c
@@ tests: integration/landlock
-	if (guard_landlock_if_asked && !p.landlock &&
+	if (guard_landlock_if_asked &&

@@ name: llmode-deny-runs-landlock-only
@@ invariant: SECURITY Landlock-only mode: a policy that does not permit it (landlock-only deny) never runs without pysbx-mount: it fails closed with the hint
@@ file: pkg/guard/mode.c
@@ tests: security/landlock_only
-	if (p->ll_only == LL_ONLY_DENY)
-		return 0;
+	if (p->ll_only == LL_ONLY_DENY && 0)
+		return 0;

@@ name: llmode-silent-downgrade
@@ invariant: SECURITY Landlock-only mode: never a silent downgrade: the mode is said on stderr
@@ file: pkg/guard/mode.c
@@ tests: security/landlock_only
-	fprintf(stderr, "%s: Landlock-only mode: %s; host paths under "
-		"Landlock, no namespaces (docs/SECURITY.md)\n", d->prog, why);
+	(void)why;

@@ name: llmode-unix-sockets-allowed
@@ invariant: SECURITY Landlock-only mode: AF_UNIX sockets but an anonymous pair are refused (no mount hides host daemons' sockets)
@@ file: pkg/guard/mode.c
@@ tests: security/landlock_only
-	if (asprintf(&o->wrap, "include %s\nseccomp deny @unix-sockets\n%s",
+	if (asprintf(&o->wrap, "include %s\n%s",

@@ name: llmode-nested-userns-allowed
@@ invariant: SECURITY Landlock-only mode: nested-userns deny holds without a user namespace (seccomp @namespaces)
@@ file: pkg/guard/mode.c
@@ tests: security/landlock_only
-		     "seccomp deny @namespaces\n") < 0 ||
+		     "") < 0 ||

@@ name: llmode-protect-dropped-silently
@@ invariant: SECURITY Landlock-only mode: agent-shell's protected names are never lost silently: a warning per protect line
@@ file: pkg/guard/mode.c
@@ tests: security/landlock_only
-		diag_warn(d, "Landlock-only mode: 'protect %s' (%s:%u) is not "
+		if (0) diag_warn(d, "Landlock-only mode: 'protect %s' (%s:%u) is not "

@@ name: llmode-no-tree-kill
@@ invariant: DESIGN 7 in Landlock-only mode: without a pid namespace the guard's tree kill takes every process of the run
@@ file: pkg/guard/supervise.c
@@ tests: security/landlock_only
-	if (!s.childless)
-		kill_tree(s.child, s.sfd, s.child, &s.status, &s.reaped);
+	if (0)
+		kill_tree(s.child, s.sfd, s.child, &s.status, &s.reaped);

@@ name: llmode-host-paths-unchecked
@@ invariant: SECURITY Landlock-only mode: a policy whose paths are not the host's fails before anything runs, with its positions
@@ file: pkg/guard/mode.c
@@ tests: security/landlock_only
-	if (ll_from_plan(p, LL_PATHS_HOST, rs, e) < 0) {
+	if (0) {

@@ name: proxy-dns-any-id
@@ invariant: SECURITY (network): the proxy's resolver takes only answers to its own queries (random id, same question): a forged datagram is ignored
@@ file: pkg/egress/dns.c
@@ tests: integration/proxy_dns
-	which = (m[0] << 8 | m[1]) == q->id[0] ? 0 :
+	which = 1 ? 0 :

@@ name: landlock-split-keeps-parent
@@ invariant: LANDLOCK.md Exclusions: host paths: a grant above a mask is split, never kept on the parent
@@ file: pkg/landlock/split.c
@@ tests: integration/landlock
-	if (!below || !S_ISDIR(st.st_mode))
+	if (!below || below)

@@ name: landlock-excl-not-realpath
@@ invariant: LANDLOCK.md Exclusions: an excluded path named through a symlink is hidden at its real path
@@ file: pkg/landlock/apply.c
@@ tests: integration/landlock
-		if (!realpath(path, real)) {
+		if (!realpath(path, real) || !strcpy(real, path)) {

@@ name: landlock-dev-link-skip-any
@@ invariant: LANDLOCK.md: a rule's path with a symlink is refused; only a host dev node that is itself a link is skipped (never granted)
@@ file: pkg/landlock/apply.c
@@ tests: integration/landlock
-	if (fd < 0 && errno == ELOOP && (r->flags & LL_RULE_LINK_SKIP) &&
+	if (fd < 0 && errno == ELOOP &&

@@ name: session-no-subreaper
@@ invariant: SECURITY (session's host side): a timeout, reset or death is answered only when every process of the sandbox is gone (the host is their child subreaper and waits for them)
@@ file: pkg/session/main.c
@@ tests: integration/session
-	if (prctl(PR_SET_CHILD_SUBREAPER, 1) < 0) {
+	if (0) {

@@ name: session-pyc-ignored
@@ invariant: docs/SESSION.md: the shipped worker runs from its build-time compiled code when that code matches its source
@@ file: pkg/session/sandbox.c
@@ tests: integration/session
-		{ s->worker_pyc, s->worker_pyc ? s->pyc_len : 0 },
+		{ s->worker_pyc, 0 },

@@ name: scratch-bind-by-path
@@ invariant: SECURITY Scratch: /scratch is the directory the guard made or adopted; a rename or replacement of its path before the bind is refused (issue 18, point 7)
@@ file: pkg/mnt/ops.c
@@ tests: security/scratch_swap
-	if (not_scratch(d, b, op, &st)) {
+	if (0 && not_scratch(d, b, op, &st)) {

@@ name: scratch-remove-by-name
@@ invariant: SECURITY Scratch: the guard removes only the directory it made, not one put at its name since
@@ file: pkg/guard/scratch.c
@@ tests: security/scratch_swap
-		r = moved_away(d, s);
+		r = 0 && moved_away(d, s);

@@ name: treekill-one-round
@@ invariant: GUARD tree kill (issue 18, point 4): the guard keeps killing while it has children, not only while its /proc walk finds a live descendant
@@ file: pkg/guard/kill.c
@@ tests: security/treekill
-	for (int round = 0; round < KILL_FAST; round++) {
+	for (int round = 0; round < 0; round++) {

@@ name: cgroup-kill-skipped
@@ invariant: GUARD tree kill (issue 18, point 4): in a delegated cgroup v2 the sandbox's own cgroup is killed with cgroup.kill, which no fork outruns
@@ file: pkg/guard/cgroup.c
@@ tests: security/treekill
-		cg_write("cgroup.kill", "1");
+		(void)0;

@@ name: show-largest-unit
@@ invariant: POLICY policy show (issue 19): sizes and durations are printed in the unit the policy wrote
@@ file: pkg/policy/format.c
@@ tests: integration/newcomer
-	if (u >= UW_K && u <= UW_T && v &&
+	if (0 && u >= UW_K && u <= UW_T && v &&

@@ name: llmode-shared-tmp-trusted
@@ invariant: DESIGN 8 in Landlock-only mode: a policy of the caller's under the shared /tmp (writable from inside) is refused
@@ file: pkg/guard/mode.c
@@ tests: security/landlock_only
-	if (r == 0 && !allow_untrusted)
+	if (r == 0 && !allow_untrusted && 0)

@@ name: protect-dirs-unbounded
@@ invariant: SECURITY Protected paths: the any-depth .git search is bounded (100,000 directories) and fails closed: exit 111 at start, 111 and an "unchecked" record after the run
@@ file: pkg/mnt/protect.c
@@ tests: integration/protect
-			if (++w->p->ndirs > DIRS_MAX)
+			if (0 && ++w->p->ndirs > DIRS_MAX)

@@ name: cgroup-kill-not-only-ours
@@ invariant: GUARD tree kill: cgroup.kill is used only when every process in the frozen cgroup is a descendant of the guard (a process moved in from outside is not killed)
@@ file: pkg/guard/cgroup.c
@@ tests: security/treekill
-	if (frozen() && only_ours())
+	if (frozen() && (only_ours() || 1))

@@ name: guard-kills-pid1-after-monitor
@@ invariant: SECURITY Protected paths: a SIGKILL of the monitor alone does not skip the check after the run (the guard gives pid 1 its time before the tree kill) (red-team F1)
@@ file: pkg/guard/supervise.c
@@ tests: integration/protect
-	if (o->wait_started)
-		wait_pid1(&s);
+	if (0)
+		wait_pid1(&s);

@@ name: session-worker-untrusted
@@ invariant: DESIGN 8 (trust): the session worker, which runs with every session's workspace and /scratch, is refused when others can change it, like a policy
@@ file: pkg/session/main.c
@@ tests: integration/session
-	if (!s.allow_untrusted && trust_path(&d, worker, "session worker") < 0)
+	if (0 && trust_path(&d, worker, "session worker") < 0)

@@ name: proxy-keeps-run-alive
@@ invariant: DESIGN 7 / SECURITY (network): the proxy never keeps a run alive: the guard stops it as soon as the sandbox's first process is gone
@@ file: pkg/guard/supervise.c
@@ tests: integration/proxy
-	if (s.proxy) {
-		egress_stop(s.proxy, s.sfd);
+	if (0 && s.proxy) {
+		egress_stop(s.proxy, s.sfd);

@@ name: proxy-mapped-not-same
@@ invariant: SECURITY (network): an IPv4-mapped or NAT64 form of an address is that address for net-deny rules and the host-address check (red team: an AAAA ::ffff:a.b.c.d got past both)
@@ file: pkg/netaddr/addr.c
@@ tests: unit/test_proxy
-	if (a->family != 6 || r->family != 4 ||
+	if (1 || a->family != 6 || r->family != 4 ||

@@ name: proxy-dns-mapped-kept
@@ invariant: SECURITY (network): an AAAA answer ::ffff:a.b.c.d is stored as a.b.c.d before the rules see it
@@ file: pkg/egress/dns.c
@@ tests: integration/proxy_dns
-			px_addr_unmap(&out[*n]);
+			(void)px_addr_unmap;

@@ name: proxy-unspecified-named
@@ invariant: SECURITY (network): the unspecified address (0.0.0.0, ::) is never a destination, named or not (a connect to it reaches this host)
@@ file: pkg/policy/netmatch.c
@@ tests: unit/test_proxy
-	if (px_classify(a) == PX_UNSPEC)
+	if (0 && px_classify(a) == PX_UNSPEC)

@@ name: proxy-own-overflow-open
@@ invariant: SECURITY (network): when the host has more addresses than the proxy holds, an address no rule names is refused as possibly the host's
@@ file: pkg/policy/netmatch.c
@@ tests: unit/test_proxy
-	if (!own && nown)
+	if (0 && !own && nown)

@@ name: sigsys-answer-continue
@@ invariant: SECCOMP Naming the killed syscall: pid 1 answers a kill's notification with an error, never "continue": the call never runs
@@ file: pkg/reaper/sigsys.c
@@ tests: integration/sigsys
-	resp.error = -EPERM;
+	resp.flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;

@@ name: sigsys-no-kill
@@ invariant: SECCOMP Naming the killed syscall: a `kill` still kills (pid 1 SIGKILLs the caller's process)
@@ file: pkg/reaper/sigsys.c
@@ tests: integration/sigsys
-	return syscall(SYS_pidfd_send_signal, pidfd, SIGKILL, NULL, 0) == 0 ||
+	return syscall(SYS_pidfd_send_signal, pidfd, 0, NULL, 0) == 0 ||

@@ name: sigsys-catchable-signal
@@ invariant: SECCOMP Naming the killed syscall: the kill is uncatchable (SIGKILL, not SIGSYS)
@@ file: pkg/reaper/sigsys.c
@@ tests: integration/sigsys
-	return syscall(SYS_pidfd_send_signal, pidfd, SIGKILL, NULL, 0) == 0 ||
+	return syscall(SYS_pidfd_send_signal, pidfd, SIGSYS, NULL, 0) == 0 ||

@@ name: sigsys-listener-leak
@@ invariant: SECCOMP Naming the killed syscall: the filter's listener never reaches the target (it could answer its own kills)
@@ file: pkg/seccomp/compile.c
@@ tests: integration/sigsys
-	if (send_fd(sock, fd, f) < 0)
+	if (fcntl(fd, F_SETFD, 0) < 0 || send_fd(sock, fd, f) < 0)

@@ name: sigsys-exit-137
@@ invariant: SECCOMP Naming the killed syscall: a target the filter killed still ends the run with 159 (128+SIGSYS), as the kernel's kill
@@ file: pkg/reaper/reaper.c
@@ tests: integration/sigsys
-					status = SIGSYS; /* as W_EXITCODE(0, SIGSYS) */
+					status = SIGKILL;

@@ name: denials-answer-allow
@@ invariant: DENIALS: pid 1 answers a reported call "continue", never a result of its own: the kernel decides every call
@@ file: pkg/reaper/denials.c
@@ tests: integration/denials
-	resp.flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
+	resp.val = 0;

@@ name: denials-host-unchecked
@@ invariant: DENIALS: a path missing from the view is said to exist on the host only when the caller could read it there (never reported from another view)
@@ file: pkg/guard/denials.c
@@ tests: integration/denials
-	    faccessat(AT_FDCWD, e.at, R_OK, AT_EACCESS) < 0)
+	    faccessat(AT_FDCWD, "/", R_OK, AT_EACCESS) < 0)

@@ name: denials-host-existence-only
@@ invariant: DENIALS: the host check is the caller's read permission, not mere existence (a file the caller cannot read is not named)
@@ file: pkg/guard/denials.c
@@ tests: integration/denials
-	    faccessat(AT_FDCWD, e.at, R_OK, AT_EACCESS) < 0)
+	    faccessat(AT_FDCWD, e.at, F_OK, AT_EACCESS) < 0)

@@ name: denials-flood-listed
@@ invariant: DENIALS: a flood cannot flood the caller's terminal: GUARD_DENIALS_LISTED paths are named, the rest counted
@@ file: pkg/guard/guard.h
@@ tests: integration/denials
-#define GUARD_DENIALS_LISTED 64
+#define GUARD_DENIALS_LISTED 256

@@ name: denials-flood-no-dedup
@@ invariant: DENIALS: each distinct path is examined and sent once, repeats are only counted (pid 1's table is bounded)
@@ file: pkg/reaper/denials.c
@@ tests: integration/denials
-		den.count[i]++;
-		return;
+		den.count[i]++;

@@ name: denials-kill-continued
@@ invariant: DENIALS: only calls the policy allows outright are reported; a notification for any other is a kill, never "continue"
@@ file: pkg/reaper/denials.c
@@ tests: integration/denials
-	       (s->report_set[nr / 64] >> (nr % 64) & 1);
+	       sc_report_call((int)nr);

@@ name: mcp-mounts-allowed
@@ invariant: MCP security model 2: the model never chooses mounts (the session's mounts action is refused by the python tool)
@@ file: pkg/mcp/tool.c
@@ tests: integration/mcp
-	if ((v = jv_get(j, args, "action")) >= 0 && !jv_is(j, v, "execute") &&
+	if ((v = jv_get(j, args, "action")) >= 0 && 0 && !jv_is(j, v, "execute") &&

@@ name: mcp-cancel-ignored
@@ invariant: MCP: notifications/cancelled interrupts the running execute (the session's cancel)
@@ file: pkg/mcp/child.c
@@ tests: integration/mcp
-	if (c->pid && kill(c->pid, SIGINT) == 0)
+	if (c->pid && kill(c->pid, 0) == 0)

@@ name: mcp-session-cap
@@ invariant: MCP: at most --max-sessions sessions (sandboxes) run at once
@@ file: pkg/mcp/server.c
@@ tests: integration/mcp
-	if (m->nch == m->max_sessions)
+	if (0 && m->nch == m->max_sessions)

@@ name: bridge-any-name
@@ invariant: SESSION Tool bridge: a call reaches the client only for a declared tool (a forged name is refused inside Python)
@@ file: pkg/session/bridge.c
@@ tests: integration/bridge
-		if (strlen(b->tools[i].name) == nl &&
-		    !memcmp(b->tools[i].name, name, nl))
+		if (1 || (strlen(b->tools[i].name) == nl &&
+		    !memcmp(b->tools[i].name, name, nl)))

@@ name: bridge-no-inflight-bound
@@ invariant: SESSION Tool bridge: at most 16 bridged calls in flight reach the client (a flood is refused inside Python)
@@ file: pkg/session/bridge.c
@@ tests: integration/bridge
-	if (b->nfly >= BR_INFLIGHT_MAX) {
+	if (b->nfly >= BR_SLOTS) {

@@ name: bridge-end-keeps-calls
@@ invariant: SESSION Tool bridge: the execute's deadline (and cancel) ends the calls in flight
@@ file: pkg/session/bridge.c
@@ tests: integration/bridge
-			finish(b, b->fly[i].rec, st, m, sizeof(m) - 1);
+			(void)st;
