#!/usr/bin/env bash
# 200 sandboxes started at once (`pysbx run` with the shipped
# python.policy, all its namespaces, a fresh scratch dir each) on a
# small machine, as the unprivileged test uid: every one runs to its
# end with the right status, in its own pid namespace, and afterwards
# nothing is left: no process of the uid, no scratch directory under
# the scratch parent, no mount in the host's mount table. No assertion
# is about time.
set -u

B=${PYSBX_BIN:?}
P=${PYSBX_POLICIES:?}
N=${PYSBX_CONCURRENT:-200}
U=$(id -u)
T=$(mktemp -d "${HOME:-/tmp}/concurrent.XXXXXX") || exit 111
chmod 0755 "$HOME" "$T"
trap 'chmod -R u+rwX "$T" 2>/dev/null; rm -rf "$T"' EXIT
WS=$T/ws SP=$T/sp
mkdir "$WS"
mkdir -m 0700 "$SP"

. "${PYSBX_TESTDIR:?}/lib.sh"
# The host's mounts these sandboxes could have left: under the test's
# directory (workspace, scratch) or at a sandbox's own mount points.
# Other users' mounts on a shared machine come and go: a whole-table
# count would flake with them.
ours() { awk -v t="$T" 'index($5, t) == 1 || $5 ~ "^/(workspace|scratch)(/|$)"' /proc/self/mountinfo; }

if ! unshare -Ur true 2>/dev/null; then
	echo "1..0 # SKIP unprivileged user namespaces are not available"
	exit 0
fi
echo "1..6"
M0=$(ours)

# Each sandbox prints its index, its pid inside its own pid namespace
# (pid 1 is the reaper: the target is 2) and its hostname, then its exit
# status; the target's own exit code is its index mod 7, so that every
# status is checked to reach the right caller.
one() {
	local i=$1 o rc
	o=$("$B/pysbx" run -p "$P/python.policy" -D WORKSPACE="$WS" -D SCRATCH_DIR="$SP" \
		-D TIMEOUT=120s -- /bin/sh -c 'read h </proc/sys/kernel/hostname; echo $$ $h; exit $(($1 % 7))' sh "$i" \
		2>"$T/err.$i")
	rc=$?
	echo "$i $o $rc"
}
export -f one
export B P WS SP T
seq 1 "$N" | xargs -P "$N" -I{} bash -c 'one {}' >"$T/results" 2>"$T/xargs.err"
xrc=$?

want=$(for ((i = 1; i <= N; i++)); do echo "$i 2 sandbox $((i % 7))"; done)
got=$(sort -n "$T/results")
if [[ $xrc == 0 && $got == "$want" ]]; then
	ok "$N concurrent sandboxes: each ran as pid 2 of its own pid namespace, host name sandbox, with its own exit code"
else
	bad=$(diff <(echo "$want") <(echo "$got") | grep '^>' | head -5)
	not_ok "$N concurrent sandboxes: each ran as pid 2 of its own pid namespace, host name sandbox, with its own exit code" \
		"xargs: $xrc, results: $(wc -l <"$T/results") lines" "unexpected: ${bad//$'\n'/; }" \
		"stderr: $(cat "$T"/err.* "$T/xargs.err" 2>/dev/null | sort | uniq -c | sort -rn | head -3 | tr '\n' ';')"
fi
is "$(cat "$T"/err.* "$T/xargs.err" 2>/dev/null | wc -c)" 0 "$N concurrent sandboxes: no diagnostics on stderr"

if wait_for no_others; then
	ok "afterwards: no process of the uid is left (/proc)"
else
	l=()
	for pid in $(others); do l+=("pid $pid: $(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null)"); done
	not_ok "afterwards: no process of the uid is left (/proc)" "${l[@]:0:5}" "(${#l[@]} in all)"
fi
is "$(ls -A "$SP" | wc -l)" 0 "afterwards: no scratch directory or lock is left under the scratch parent"
is "$(ours)" "$M0" "afterwards: the host's mount table holds no mount of the run's paths or of a sandbox"

# Still usable: the namespaces, pids and scratch names were all released.
o=$("$B/pysbx" run -p "$P/python.policy" -D WORKSPACE="$WS" -D SCRATCH_DIR="$SP" -- /bin/sh -c 'echo $$' 2>&1)
is "$?:$o:$(ls -A "$SP" | wc -l)" "0:2:0" "afterwards: one more sandbox runs and cleans up"
