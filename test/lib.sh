# test/lib.sh - TAP helpers shared by the integration and security scripts.
# Source it: . "$PYSBX_TESTDIR/lib.sh". Each assertion prints one TAP line
# and counts it in $n; the script prints its own "1..N" plan.

n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
# not_ok DESC [DETAIL...]: a failure, each detail on a "#" line.
not_ok() {
	n=$((n + 1))
	echo "not ok $n - $1"
	shift
	local l
	for l in "$@"; do echo "#   $l"; done
}
skip() { n=$((n + 1)); echo "ok $n # SKIP $1"; }
# is GOT WANT DESC: an exact comparison.
is() {
	if [[ $1 == "$2" ]]; then ok "$3"; else not_ok "$3" "got:      $1" "expected: $2"; fi
}
# okrc STATUS DESC: passes when STATUS (a command's $?) is 0.
okrc() { if [[ $1 == 0 ]]; then ok "$2"; else not_ok "$2" "exit status $1"; fi; }
# no_proof GOT WANT DESC REASON: an outcome that holds here with or
# without the layer under test (REASON says why), so it is no proof of
# that layer: a SKIP naming the reason when GOT is WANT, a failure
# otherwise.
no_proof() {
	if [[ $1 == "$2" ]]; then
		n=$((n + 1))
		echo "ok $n # SKIP not a proof here: $4 ($3)"
	else
		not_ok "$3" "got:      $1" "expected: $2"
	fi
}
# same DESC EXPECTED ACTUAL: an exact comparison, the difference shown.
same() {
	if [[ $2 == "$3" ]]; then
		ok "$1"
	else
		not_ok "$1"
		diff <(printf '%s\n' "$2") <(printf '%s\n' "$3") | sed 's/^/# /'
	fi
}
# check DESC COMMAND...: one assertion.
check() {
	local desc=$1
	shift
	if "$@"; then ok "$desc"; else not_ok "$desc" "failed: $*"; fi
}
# wait_for COMMAND...: poll (up to ~10 s) until COMMAND succeeds. No test
# asserts a duration: this only bounds how long a failure takes.
wait_for() {
	local i
	for ((i = 0; i < 200; i++)); do
		"$@" && return 0
		sleep 0.05
	done
	return 1
}
size() { stat -c %s "$1" 2>/dev/null || echo -1; }
# stopped_growing FILE [PAUSE]: FILE grew at all, then not during a pause
# (default 0.5 s).
stopped_growing() {
	local a b
	[[ -s $1 ]] || return 1
	a=$(size "$1")
	sleep "${2:-0.5}"
	b=$(size "$1")
	[[ $a == "$b" ]]
}
# others: the pids of uid $U other than this script and the subshell
# that lists them (pure bash: it starts no process of its own). The
# sandbox's processes keep the uid on the host (uid map), so anything
# listed once a run has ended is a leak.
others() {
	local st pid k r e _ me=$BASHPID
	for st in /proc/[0-9]*/status; do
		pid=${st#/proc/}
		pid=${pid%/status}
		[[ $pid == "$$" || $pid == "$me" ]] && continue
		[[ $LIB_BEFORE == *" $pid "* ]] && continue
		while read -r k r e _; do
			if [[ $k == Uid: ]]; then
				[[ $r == "$U" || $e == "$U" ]] && echo "$pid"
				break
			fi
		done 2>/dev/null <"$st"
	done
}
no_others() { [[ -z $(others) ]]; }

# The processes of this uid that were running before the script started:
# as root the suite runs each script as a uid of its own and this is empty;
# a normal user running it has the runner itself (run.sh, its pipeline,
# timeout, a login shell), which is no leftover of any sandbox.
LIB_BEFORE=" "
LIB_BEFORE=" $(U=$(id -u) others | tr '\n' ' ')"

