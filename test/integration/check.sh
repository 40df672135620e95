#!/usr/bin/env bash
# pysbx check: one aligned line per feature, exit 0 when everything the
# shipped policies need works (as on this machine), and when the kernel or
# an enclosing sandbox refuses, the line that says missing names the cause
# and the exit status is 111. Refusals are simulated without privilege:
# a seccomp filter that denies unshare (pysbx-seccomp), a sandbox that
# forbids nested user namespaces (bwrap --disable-userns), and a /proc with
# a mask over part of it, as container runtimes leave it (bwrap).
#
# Run by test/run.sh as an unprivileged uid; by hand, PYSBX_BIN defaults to
# this checkout's build/bin.
set -u

here=$(cd "$(dirname "$0")/../.." && pwd)
BIN=${PYSBX_BIN:-$here/build/bin}
PYSBX=$BIN/pysbx

. "${PYSBX_TESTDIR:-$here/test}/lib.sh"
# line_of FEATURE FILE: the output line of FEATURE
line_of() { grep -E "^(ok|missing) +$1 " "$2"; }
# says DESC FEATURE REGEX FILE: FEATURE's line matches the extended REGEX
says() {
	local l
	l=$(line_of "$2" "$4")
	if [[ $l =~ $3 ]]; then
		ok "$1"
	else
		not_ok "$1" "expected /$3/, got: ${l:-no line for $2}"
	fi
}

REQUIRED="user-ns mount-ns pid-ns ipc-ns uts-ns net-ns proc seccomp
seccomp-kill-process openat2 mount-api"
ALL="user-ns mount-ns pid-ns ipc-ns uts-ns net-ns cgroup-ns proc seccomp
seccomp-kill-process seccomp-log openat2 mount-api close-range landlock
cgroup2"

if [[ $(id -u) == 0 ]]; then
	T=$(mktemp -d /tmp/pysbx-check.XXXXXX) || exit 111
else
	T=$(mktemp -d "${HOME:-/tmp}/pysbx-check.XXXXXX") || exit 111
fi
trap 'rm -rf "$T"' EXIT

# --- this machine: everything needed works ---------------------------------

"$PYSBX" check >"$T/out" 2>"$T/err"
rc=$?
same "pysbx check exits 0 on this machine" 0 "$rc"
[[ $rc == 0 ]] || sed 's/^/# /' "$T/out"
same "pysbx check writes nothing to stderr" "" "$(cat "$T/err")"

# The feature lines: neither the policy lines nor the verdict.
features() { grep -v '^policy ' "$1" | sed '$d'; }
names=$(features "$T/out" | awk '{ print $2 }')
same "one line per feature, in order, then the summary" \
	"$(echo $ALL | tr ' ' '\n')" "$names"

bad=""
for f in $REQUIRED; do
	line_of "$f" "$T/out" | grep -q '^ok ' || bad+=" $f"
done
same "every required feature says ok" "" "$bad"

# Aligned: the status column is 8 wide, the name column as wide as the
# longest name (seccomp-kill-process) plus 2, then the detail.
misaligned=$(features "$T/out" |
	grep -vcE '^(ok      |missing )[a-z0-9-]+ +[^ ]' )
cols=$(features "$T/out" |
	awk 'match($0, /^[a-z]+ +[a-z0-9-]+ +/) { print RLENGTH + 1 }' | sort -u)
same "every feature line is 'ok|missing NAME detail'" 0 "$misaligned"
same "the detail column is aligned on every line" 31 "$cols"

POLICIES="agent-shell ci minimal python read-only workspace-write"
want=""
for p in $POLICIES; do
	want+=$(printf '%-8s%-21s %s' policy "$p" "namespaces: the namespaces and mounts it needs work here")$'\n'
done
same "then one line per shipped policy: the mode pysbx run picks here (namespaces), aligned" \
	"${want%$'\n'}" "$(grep '^policy ' "$T/out")"

same "the last line is the verdict" \
	"pysbx check: ok: everything the shipped policies need works" \
	"$(tail -n 1 "$T/out" | sed 's/ (optional, missing: .*)$//')"

says "user-ns names the maps and the mount it proved" user-ns \
	'^ok +user-ns +unshare\(CLONE_NEWUSER\), uid/gid maps, a tmpfs mounted' \
	"$T/out"
says "proc says the fresh procfs shows the new pid namespace" proc \
	'\(/proc/self is 1\)$' "$T/out"
says "landlock reports its ABI version or why it is missing" landlock \
	'^(ok +landlock +Landlock ABI version [0-9]+|missing +landlock .*\(optional: for Landlock-only mode and .landlock yes.\))$' \
	"$T/out"

# --json: wired only when cmd/pysbx/main.c passes the arguments on.
"$PYSBX" check --json >"$T/json" 2>&1
if head -n 1 "$T/json" | grep -q '^{'; then
	same "--json prints one object per feature, per shipped policy and a summary" \
		"$(echo $ALL | wc -w) 6 1" \
		"$(grep -c '^{"feature":"' "$T/json") $(grep -c '^{"policy":"[a-z-]*","mode":"namespaces","reason":"' "$T/json") $(grep -c '^{"summary":"ok"' "$T/json")"
	same "--json: the summary's keys (docs/TROUBLESHOOTING.md)" \
		'{"summary":"ok","missing_required":0,"missing_optional":N,"landlock_abi":N,"namespaces":true,"landlock_only":0}' \
		"$(tail -n 1 "$T/json" | sed 's/:[1-9][0-9]*,/:N,/g')"
	"$PYSBX" check --bogus >/dev/null 2>"$T/err"
	same "an unknown argument is a usage error (100)" 100 "$?"
else
	skip "--json: cmd/pysbx/main.c does not pass check's arguments yet"
	skip "unknown arguments: cmd/pysbx/main.c does not pass them yet"
fi

# --- a seccomp filter that denies unshare ------------------------------------

if [[ -x $BIN/pysbx-seccomp ]]; then
	printf 'seccomp deny unshare\n' >"$T/deny-unshare.policy"
	"$BIN/pysbx-seccomp" -p "$T/deny-unshare.policy" -- \
		"$PYSBX" check >"$T/out" 2>"$T/err"
	rc=$?
	same "under a filter denying unshare: exit 111" 111 "$rc"
	[[ $rc == 111 ]] || sed 's/^/# /' "$T/err"
	says "under a filter denying unshare: user-ns is missing, cause seccomp" \
		user-ns '^missing +user-ns +unshare\(CLONE_NEWUSER\) failed: Operation not permitted: this process runs under a seccomp filter \(Seccomp: 2' \
		"$T/out"
	says "under a filter denying unshare: the fix is a seccomp profile" \
		user-ns 'fix: run the container with a seccomp profile that allows unshare' \
		"$T/out"
	says "under a filter denying unshare: pid-ns is not probed" pid-ns \
		'^missing +pid-ns +not probed: needs a user namespace \(see user-ns\)$' \
		"$T/out"
	says "under a filter denying unshare: seccomp itself still works" \
		seccomp '^ok +seccomp +.*stacked on the filter' "$T/out"
	same "under a filter denying unshare: the verdict names what is missing" \
		"pysbx check: 8 features the shipped policies need are missing (user-ns, mount-ns, pid-ns, ipc-ns, uts-ns, net-ns, proc, mount-api): a policy that needs namespaces will not run (the 'policy' lines say which run in Landlock-only mode); apply the fixes above (docs/TROUBLESHOOTING.md)" \
		"$(tail -n 1 "$T/out")"
	same "under a filter denying unshare: workspace-write and read-only run Landlock-only, the others are refused" \
		"agent-shell refused ci refused minimal refused python refused read-only landlock-only workspace-write landlock-only" \
		"$(grep '^policy ' "$T/out" | awk '{ print $2, $3 }' | tr -d : | tr '\n' ' ' | sed 's/ $//')"
	check "and says why: the refused step, the policy's line, the ABI" \
		grep -qE "^policy +workspace-write +landlock-only: namespaces are refused here \(unshare\(CLONE_NEWUSER\|CLONE_NEWNS\): Operation not permitted\) and 'landlock-only allow' \(.*/workspace-write.policy:[0-9]+\): host paths under Landlock ABI [0-9]+$" "$T/out"
	check "or that the policy does not permit it" \
		grep -qE "^policy +python +refused: namespaces are refused here \(unshare\(CLONE_NEWUSER\|CLONE_NEWNS\): Operation not permitted\) and the policy does not permit Landlock-only mode$" "$T/out"
else
	for i in 1 2 3 4 5 6 7 8 9; do
		skip "seccomp refusal: $BIN/pysbx-seccomp is not built"
	done
fi

# --- bwrap: a sandbox forbidding nesting, a container-style masked /proc ---

BWRAP=$(command -v bwrap)
if [[ -n $BWRAP ]] && "$BWRAP" --unshare-user --ro-bind / / true 2>/dev/null; then
	if "$BWRAP" --help 2>&1 | grep -q -- --disable-userns; then
		"$BWRAP" --unshare-user --disable-userns --ro-bind / / \
			--proc /proc --dev /dev "$PYSBX" check >"$T/out" 2>&1
		same "inside bwrap --disable-userns: exit 111" 111 "$?"
		says "inside bwrap --disable-userns: user-ns names the enclosing sandbox" \
			user-ns '^missing +user-ns +unshare\(CLONE_NEWUSER\) failed: No space left on device: this process already runs in a user namespace whose creator forbids nesting \(as bwrap --disable-userns does\)' \
			"$T/out"
	else
		skip "bwrap $("$BWRAP" --version) has no --disable-userns"
		skip "bwrap has no --disable-userns"
	fi
	# Docker and podman leave a /proc with parts over-mounted
	# (/proc/sys read-only, /proc/kcore masked): the kernel then refuses
	# a fresh procfs in a new pid namespace (mount_too_revealing).
	"$BWRAP" --unshare-user --unshare-pid --ro-bind / / --proc /proc \
		--ro-bind /proc/sys /proc/sys --dev /dev \
		"$PYSBX" check >"$T/out" 2>&1
	same "with /proc/sys masked: exit 111" 111 "$?"
	says "with /proc/sys masked: user-ns still works" user-ns '^ok ' \
		"$T/out"
	says "with /proc/sys masked: proc is missing and names the mask" proc \
		'^missing +proc +mount proc on /proc in a new pid namespace failed: Operation not permitted: 1 mount masks parts of this /proc \(e\.g\. /proc/sys\)' \
		"$T/out"
	says "with /proc/sys masked: the fix unmasks /proc" proc \
		'fix: run the container with /proc unmasked \(docker: --security-opt systempaths=unconfined; podman: --security-opt unmask=ALL' \
		"$T/out"
else
	for i in 1 2 3 4 5 6 7 8 9; do
		skip "bwrap is not installed or cannot create a user namespace"
	done
fi

echo "1..$n"
