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
# The race itself, made deterministic: strace delays every getdents64 of
# the guard (its /proc walk) by 200 ms on the way out, so that every
# walker process the walk lists has exited by the time the guard reads
# its state, while the walker's newest generation (born after the
# listing) lives on. A guard that stopped after such a round (nothing
# alive among what it listed) leaves the walker running every time.
#
# pysbx-test: cgroup
# Run once more inside a cgroup v2 delegated to the test uid (test/run.sh,
# PYSBX_CGROUP): there the sandbox gets a cgroup of its own and the tree
# kill is cgroup.kill, shown by blocking the kill loop (strace makes
# every kill(2) and pidfd_send_signal(2) of the guard fail); and in a
# cgroup the caller cannot write (not delegated), the kill loop alone.
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
# The deterministic race of the top, under strace: three runs.
slow_walk_race() {
	local i f
	slow_bad=()
	for ((i = 0; i < 3; i++)); do
		f=$T/slow.$i
		strace -o /dev/null -e trace=getdents64 \
			-e inject=getdents64:delay_exit=200000 \
			"$CLEAN" -- "$WALKER" "$f" 1000000 1
		walks "$f" && slow_bad+=("run $i: $(wc -l <"$f") generations, still walking")
		reap_walkers
	done
}

cgroup_tests() {
	local CG=$PYSBX_CGROUP mnt own f
	if [[ -z $CG ]]; then
		echo "1..0 # SKIP no cgroup v2 to delegate to the test uid here"
		return
	fi
	if ! strace -o /dev/null true 2>/dev/null; then
		echo "1..0 # SKIP strace cannot trace here"
		return
	fi
	echo "1..7"
	mnt=$(findmnt -n -t cgroup2 -o TARGET | head -1)
	own=${CG#"$mnt"}
	out=$("$CLEAN" -- /bin/sh -c 'echo $PPID; cat /proc/self/cgroup' 2>&1)
	guard=$(head -1 <<<"$out")
	is "$(grep '^0::' <<<"$out")" "0::$own/pysbx-$guard" \
		"in a delegated cgroup v2 the sandbox gets one of its own (pysbx-GUARDPID)"
	is "$(cd "$CG" && echo pysbx-*)" 'pysbx-*' "... removed when the run ends"
	f=$T/blocked
	strace -o /dev/null -e trace=kill,pidfd_send_signal \
		-e inject=kill,pidfd_send_signal:error=EPERM \
		"$CLEAN" -- "$WALKER" "$f" 1000000 1
	if walks "$f"; then
		not_ok "a fork walker dies by cgroup.kill when every kill(2) of the guard fails" \
			"$(wc -l <"$f") generations, still walking"
	else
		ok "a fork walker dies by cgroup.kill when every kill(2) of the guard fails"
	fi
	reap_walkers
	# A process that is not the sandbox's, moved into the sandbox's
	# cgroup by the target (it may write the caller's cgroup files
	# here: no namespaces): the kill must not take it with the rest.
	sleep 60 &
	victim=$!
	"$CLEAN" -- /bin/sh -c 'echo "$0" >"$1/pysbx-$PPID/cgroup.procs" && sleep 60 &' \
		"$victim" "$CG"
	if kill -0 "$victim" 2>/dev/null; then
		ok "a process moved into the sandbox's cgroup from outside survives its kill"
	else
		not_ok "a process moved into the sandbox's cgroup from outside survives its kill"
	fi
	kill -KILL "$victim" 2>/dev/null
	wait "$victim" 2>/dev/null
	# Not delegated: a cgroup whose cgroup.procs the caller cannot
	# write. The sandbox stays in it and the kill loop does the job.
	mkdir "$CG/nodeleg"
	# This shell itself moves there (the last tests: a subshell would
	# be taken for a walker by reap_walkers).
	echo "$$" >"$CG/nodeleg/cgroup.procs" && chmod 0444 "$CG/nodeleg/cgroup.procs"
	out=$("$CLEAN" -- cat /proc/self/cgroup 2>&1)
	is "$(grep '^0::' <<<"$out")" "0::$own/nodeleg" \
		"in a cgroup that is not delegated the sandbox gets none"
	slow_walk_race
	if ((${#slow_bad[@]} == 0)); then
		ok "... and the kill loop alone kills a fork walker (the deterministic race, 3 runs)"
	else
		not_ok "... and the kill loop alone kills a fork walker (the deterministic race, 3 runs)" "${slow_bad[@]}"
	fi
	is "$(cd "$CG/nodeleg" && echo pysbx-*)" 'pysbx-*' "... and no cgroup was made there"
}

# walks FILE: FILE (missing: empty) grows during a pause.
walks() {
	local a
	a=$(size "$1")
	sleep 0.2
	[[ $(size "$1") != "$a" ]]
}

RUNS=20 GENS=20000 CHAINS=1
if [[ -v PYSBX_CGROUP ]]; then
	cgroup_tests
	exit 0
fi
echo "1..4"

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

# The deterministic race (see the top). The walker is the guard's target
# and exits at once; its generations are the guard's to kill.
if strace -o /dev/null true 2>/dev/null; then
	slow_walk_race
	if ((${#slow_bad[@]} == 0)); then
		ok "a fork walker never survives a guard whose /proc walk is slow (3 runs)"
	else
		not_ok "a fork walker never survives a guard whose /proc walk is slow (3 runs)" "${slow_bad[@]}"
	fi
else
	skip "strace cannot trace here (the deterministic walker race)"
fi
