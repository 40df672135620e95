#!/usr/bin/env bash
# scripts/bench/derive.sh: the bench's variants of python.policy are made
# from the shipped policy at each run, each differing from it in exactly
# one line, and a policy without that line is refused (no silent copy that
# would measure a different sandbox).
set -u
. "${PYSBX_TESTDIR:?}/lib.sh"
DERIVE=${PYSBX_ROOT:?}/scripts/bench/derive.sh
POLICY=$PYSBX_ROOT/policies/python.policy
echo "1..8"
W=$(mktemp -d "${TMPDIR:-/tmp}/bench-derive.XXXXXX") || exit 111
trap 'rm -rf "$W"' EXIT
mkdir "$W/out" "$W/bad"

"$DERIVE" "$POLICY" "$W/out" 2>"$W/err"
okrc $? "derive.sh makes the variants of the shipped python.policy"
same "python-nonet.policy is python.policy without net in unshare" \
	"$(printf '%s\n' '< unshare user mount pid ipc uts net' '---' '> unshare user mount pid ipc uts')" \
	"$(diff "$POLICY" "$W/out/python-nonet.policy" | sed 1d)"
same "python-host.policy is python.policy with chdir \${WORKSPACE}" \
	"$(printf '%s\n' '< chdir /workspace' '---' '> chdir ${WORKSPACE}')" \
	"$(diff "$POLICY" "$W/out/python-host.policy" | sed 1d)"

# The variants are valid policies to pysbx itself (the bench would only
# see a failed row otherwise).
for v in python-nonet python-host; do
	if [[ -x ${PYSBX_BIN:-}/pysbx ]]; then
		"$PYSBX_BIN/pysbx" policy check "$W/out/$v.policy" -D WORKSPACE=/tmp >/dev/null 2>"$W/err"
		okrc $? "pysbx policy check accepts $v.policy"
	else
		skip "no build/bin/pysbx"
	fi
done

# A policy whose net line changed: refused, nothing written.
sed 's/^unshare user mount pid ipc uts net$/unshare user mount pid ipc uts net cgroup/' \
	"$POLICY" >"$W/changed.policy"
"$DERIVE" "$W/changed.policy" "$W/bad" 2>"$W/err"
is $? 111 "a policy without the unshare line: exit 111"
is "$(cat "$W/err")" \
	"derive.sh: fatal: $W/changed.policy has no line 'unshare user mount pid ipc uts net' (or more than one): cannot derive python-nonet.policy; update scripts/bench/derive.sh" \
	"the error names the line it looked for"
is "$(ls -A "$W/bad")" "" "nothing is written for a refused policy"
