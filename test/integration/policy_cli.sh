#!/usr/bin/env bash
# pysbx policy check|show from the command line, and the policy trust
# checks every step applies before it starts anything.
set -u
B=$PYSBX_BIN
P=$PYSBX_POLICIES
T=$(mktemp -d "$HOME/policy.XXXXXX")
. "${PYSBX_TESTDIR:?}/lib.sh"

echo "1..20"

for f in "$P"/*.policy; do
	# Only the variables it uses: an unused -D is an error.
	defs=()
	# A workspace away from the policies: check refuses, as run does,
	# a policy that a read-write mount of its own sandbox would expose.
	grep -q '${WORKSPACE' "$f" && defs+=(-D WORKSPACE="$T")
	grep -q '${PROG' "$f" && defs+=(-D PROG=/bin/true)
	"$B/pysbx" policy check "$f" "${defs[@]}" >/dev/null 2>&1
	okrc $? "shipped $(basename "$f") is valid"
done | { mapfile -t lines; bad=0; for l in "${lines[@]}"; do [[ $l == ok* ]] || bad=1; echo "# ${l#* * - }"; done; exit $bad; }
okrc $? "every shipped policy passes 'pysbx policy check'"

printf 'limt nofile 1\nunshare mount\ntmpfs /tmp size=64Q\nseccomp deny sockett\n' >"$T/bad.policy"
out=$("$B/pysbx" policy check "$T/bad.policy" 2>&1); rc=$?
is "$rc" 100 "three mistakes: exit 100"
is "$out" "$T/bad.policy:1:1: error: unknown directive 'limt' (did you mean 'limit'?)
$T/bad.policy:3:12: error: tmpfs size '64Q' has an unknown suffix (use K, M or G)
$T/bad.policy:4:14: error: unknown syscall 'sockett' (did you mean 'socket'?)
pysbx: 3 errors in $T/bad.policy; nothing was started" "three mistakes: three positioned errors and a summary"

out=$("$B/pysbx" policy check "$P/python.policy" -D WORKSPACE=/srv 2>&1); rc=$?
is "$rc:$out" "0:$P/python.policy: ok" "a good policy: exit 0"

out=$("$B/pysbx" policy show "$P/python.policy" -D "WORKSPACE=/srv/a b#c" 2>&1)
[[ $out == *'ro-bind "/srv/a b#c" /workspace'* ]]; okrc $? "show: a -D value with a blank and # stays one word"

out=$("$B/pysbx" policy check "$P/python.policy" 2>&1); rc=$?
is "$rc" 100 "an undefined variable: exit 100"
[[ $out == *"python.policy:"*": error: undefined variable 'WORKSPACE' (define it with -D WORKSPACE=VALUE or give a default: \${WORKSPACE:-VALUE})"* ]]
okrc $? "an undefined variable is named with its position"

"$B/pysbx" policy check 2>/dev/null; is $? 100 "no file: exit 100"
"$B/pysbx" frob 2>/dev/null; is $? 100 "unknown command: exit 100"
out=$("$B/pysbx" run -p a -p b -- /bin/true 2>&1); rc=$?
is "$rc:$out" "100:pysbx: fatal: -p is given twice" "run: a usage error is printed, not an empty message"
out=$("$B/pysbx" run --report-fd 1 -p a -- /bin/true 2>&1)
[[ $out == "pysbx: fatal: pysbx run does not take the chain's own --plan-fd, --report-fd, --next-fd, --notify-fd, --scratch-id or --partial"* ]]; okrc $? "run: the chain's own --report-fd is refused"

# Trust: a policy others could change is refused by every step.
printf 'env A=1\n' >"$T/p.policy"
chmod 0664 "$T/p.policy"
out=$("$B/pysbx-exec" -p "$T/p.policy" -- /bin/true 2>&1); rc=$?
is "$rc" 100 "a group-writable policy is refused (exit 100)"
[[ $out == *"refusing policy $T/p.policy: it is writable by its group"* ]]; okrc $? "the refusal says why: $out"
"$B/pysbx-exec" --allow-untrusted -p "$T/p.policy" -- /bin/true
is $? 0 "--allow-untrusted accepts it"
# Others' write bit alone (the group's clear): a check of the group bit
# only would let it through.
chmod 0646 "$T/p.policy"
out=$("$B/pysbx-exec" -p "$T/p.policy" -- /bin/true 2>&1); rc=$?
is "$rc:${out%%$'\n'*}" "100:pysbx-exec: fatal: refusing policy $T/p.policy: it is writable by others" \
	"a policy writable by others but not by its group is refused (exit 100)"
chmod 0644 "$T/p.policy"
mkdir -m 0777 "$T/open"; chmod 0777 "$T/open"
cp "$T/p.policy" "$T/open/p.policy"
out=$("$B/pysbx-exec" -p "$T/open/p.policy" -- /bin/true 2>&1)
[[ $out == *"directory $T/open is writable by others, who could replace it"* ]]; okrc $? "a policy in a world-writable directory is refused"
mkdir -m 0757 "$T/oth"; chmod 0757 "$T/oth"
cp "$T/p.policy" "$T/oth/p.policy"
out=$("$B/pysbx-exec" -p "$T/oth/p.policy" -- /bin/true 2>&1); rc=$?
[[ $rc == 100 && $out == *"directory $T/oth is writable by others, who could replace it"* ]]
okrc $? "a policy in a directory writable by others but not by its group (nor sticky) is refused"
chmod 1757 "$T/oth"
"$B/pysbx-exec" -p "$T/oth/p.policy" -- /bin/true
is $? 0 "... and accepted once that directory is sticky (as /tmp), the policy being the caller's"
printf 'unshare mount\nbind %s /w\nenv A=1\n' "$T" >"$T/rw.policy"
out=$("$B/pysbx-exec" -p "$T/rw.policy" -- /bin/true 2>&1); rc=$?
[[ $rc == 100 && $out == *"refusing policy $T/rw.policy: it lies under $T, which $T/rw.policy:2 binds read-write into the sandbox"* ]]
okrc $? "a policy under a read-write bind of its own sandbox is refused"
printf 'include sub.inc\n' >"$T/inc.policy"; printf 'env B=2\n' >"$T/sub.inc"; chmod 0666 "$T/sub.inc"
out=$("$B/pysbx-exec" -p "$T/inc.policy" -- /bin/true 2>&1)
[[ $out == *"refusing policy $T/sub.inc"* ]]; okrc $? "an included file is checked too"
rm -rf "$T"
