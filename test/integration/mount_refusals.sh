#!/usr/bin/env bash
# pysbx-mount when the kernel (or a container's seccomp) refuses what it
# needs: it stops with 111 before running anything, and the hint names
# the usual cause and its fix. The refusal is simulated with a seccomp
# filter from pysbx-seccomp around pysbx-mount, as Docker's default
# profile would refuse it.
set -u
B=${PYSBX_BIN:?}
T=$(mktemp -d "$HOME/refuse.XXXXXX") || exit 111
trap 'rm -rf "$T"' EXIT
. "${PYSBX_TESTDIR:?}/lib.sh"
mkdir "$T/marker"
printf 'unshare user mount pid\ntmpfs /tmp\n' >"$T/sandbox.policy"
printf 'seccomp deny unshare\nseccomp deny clone if arg0&CLONE_NEWUSER==CLONE_NEWUSER\n' >"$T/nouserns.policy"
printf 'seccomp deny mount fsopen open_tree move_mount\n' >"$T/nomount.policy"

echo "1..6"

out=$("$B/pysbx-seccomp" -p "$T/nouserns.policy" -- "$B/pysbx-mount" -p "$T/sandbox.policy" -- /bin/mkdir "$T/marker/ran" 2>&1)
rc=$?
[[ $rc == 111 ]] && ok "a refused user namespace: exit 111" || not_ok "a refused user namespace: exit 111" "rc=$rc" "$out"
[[ $out == *"pysbx-mount: fatal: unable to "*"clone with CLONE_NEWUSER"*"Operation not permitted"* &&
	$out == *"pysbx-mount: hint: "*"seccomp profile blocking unshare/clone"* ]] &&
	ok "it names the failed call and hints at the container's seccomp profile" ||
	not_ok "it names the failed call and hints at the container's seccomp profile" "$out"
[[ ! -e $T/marker/ran ]] && ok "nothing was run" || not_ok "nothing was run"

out=$("$B/pysbx-seccomp" -p "$T/nomount.policy" -- "$B/pysbx-mount" -p "$T/sandbox.policy" -- /bin/mkdir "$T/marker/ran2" 2>&1)
rc=$?
[[ $rc == 111 ]] && ok "a refused first mount (AppArmor's way): exit 111" || not_ok "a refused first mount: exit 111" "rc=$rc" "$out"
[[ $out == *"pysbx-mount: hint: "*"refused"*"in a new user namespace"* ]] &&
	ok "the hint says the user namespace was created but the mount refused" ||
	not_ok "the hint says the user namespace was created but the mount refused" "$out"
[[ ! -e $T/marker/ran2 ]] && ok "nothing was run" || not_ok "nothing was run"
