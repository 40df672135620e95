#!/usr/bin/env bash
# The guard's tree kill against a fork walker (test/probe/walker_probe:
# fork, the parent exits at once, the child setsids, again): standalone
# pysbx-clean, with no pid namespace to take the rest, must keep killing
# while it still has children (it is their subreaper) until none is
# left. The walker outran a guard that stopped after one round in which
# everything it listed had already exited (one run in five to one in two
# here, with the machine's load). The kill is a race: 20 runs; each
# survivor is named.
#
# The cgroup v2 path (freeze, then cgroup.kill) is not tested here: this
# machine's /sys/fs/cgroup is a hybrid v1 hierarchy with no cgroup v2
# delegated to the test uid, so this is the fallback's test.
set -u

CLEAN=${PYSBX_BIN:?}/pysbx-clean
WALKER=${PYSBX_PROBE:?}/walker_probe
U=$(id -u)
T=$(mktemp -d "${HOME:-/tmp}/treekill.XXXXXX") || exit 111
chmod 0700 "$T"
. "${PYSBX_TESTDIR:?}/lib.sh"

# Kill whatever survived (it stops by itself after GENS generations).
reap_walkers() {
	local r pid
	for ((r = 0; r < 50; r++)); do
		pid=$(others)
		[[ -z $pid ]] && return
		kill -KILL $pid 2>/dev/null
		sleep 0.02
	done
}
trap 'reap_walkers; rm -rf "$T"' EXIT
# walks FILE: FILE (missing: empty) grows during a pause.
walks() {
	local a
	a=$(size "$1")
	sleep 0.2
	[[ $(size "$1") != "$a" ]]
}

RUNS=20 GENS=20000 CHAINS=1
echo "1..3"

survived=() bad=()
for ((i = 0; i < RUNS; i++)); do
	f=$T/walk.$i
	"$CLEAN" -- "$WALKER" "$f" "$GENS" "$CHAINS"
	rc=$?
	[[ $rc == 0 ]] || bad+=("run $i: exit status $rc")
	# The walker appends its pid each generation: once the guard has
	# returned, nothing may append any more.
	walks "$f" && survived+=("run $i: $(wc -l <"$f") generations, still walking")
	reap_walkers
done
if ((${#survived[@]} == 0)); then
	ok "a fork walker never survives standalone pysbx-clean ($RUNS runs)"
else
	not_ok "a fork walker never survives standalone pysbx-clean ($RUNS runs)" "${survived[@]}"
fi
if ((${#bad[@]} == 0)); then
	ok "... and the guard reports the target's own exit status (0) each time"
else
	not_ok "... and the guard reports the target's own exit status (0) each time" "${bad[@]}"
fi

# The same under a timeout: the walker still walks when the guard stops it.
f=$T/walk.timeout
"$CLEAN" -t 300ms -- bash -c '"$0" "$1" "$2" & while :; do sleep 1; done' \
	"$WALKER" "$f" "$GENS"
check "a fork walker started beside the target dies with the timeout" \
	eval '! walks "$f"'
