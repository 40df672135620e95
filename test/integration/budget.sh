#!/usr/bin/env bash
# Start-up has a budget, counted in system calls (deterministic, where
# times are not): one `pysbx run -p python.policy -- true` under
# strace -f, each step's calls counted apart (the front door with the
# guard in it, pysbx-mount with its monitor, pid 1 and the child it
# forks, pysbx-exec, pysbx-seccomp), and the guard once more as
# pysbx-clean. A count above its budget (the table below) fails.
#
# Raising a budget is a reviewed change, its reason in the commit
# message; lowering one after a cut keeps the cut.
#
# What is counted: every system call strace shows, once (an <unfinished>
# call and its <resumed> half are one), except
#   - the calls of the event loops, whose number depends on who runs
#     first, not on the code: wait4, waitid, poll, ppoll, read, recvmsg
#     (a read of a policy file is one of them: a few, always the same);
#   - a call interrupted and restarted (ERESTART*, EINTR): its retry is
#     the one counted.
# Each command runs three times; the least count of each step is the
# one compared (a stray retry only ever adds). The layout is fixed
# (copies under a fresh /tmp/pysbx-budget.XXXXXX: the trust checks walk
# each directory above the policy and the programs), the environment
# too (env -i). What still varies between machines lowers a count here
# or raises it a little: python.policy's ro-bind-try of host files that
# do not exist (a missing one costs one call, not eleven), a cgroup v2
# the caller owns (the guard then makes a cgroup of its own: about 15
# calls): hence the headroom below, about 5% of each count.
set -u

here=$(cd "$(dirname "$0")/../.." && pwd)
BIN=${PYSBX_BIN:-$here/build/bin}
PROBE=${PYSBX_PROBE:-$here/build/test/probe}
POL=${PYSBX_POLICIES:-$here/policies}

. "${PYSBX_TESTDIR:-$here/test}/lib.sh"

if ! command -v strace >/dev/null; then
	echo "1..0 # SKIP strace is missing (apt-get install strace)"
	exit 0
fi

# Budgets: measured on 2026-12-03 (Debian 12 VM, kernel 6.18) plus
# the headroom above. step NAME -> budget of its stable count.
declare -A BUDGET=(
	[run]=785          # the whole chain of pysbx run
	[pysbx]=125        # the front door and the guard in it
	[pysbx-mount]=585  # monitor, pid 1 (the root), its child
	[pysbx-exec]=55
	[pysbx-seccomp]=24
	[clean]=785        # the chain under pysbx-clean
	[pysbx-clean]=125
)

T=$(mktemp -d /tmp/pysbx-budget.XXXXXX) || exit 111
trap 'rm -rf "$T"' EXIT
mkdir -p "$T/bin" "$T/policies" "$T/ws" "$T/out"
cp "$BIN"/pysbx "$BIN"/pysbx-* "$T/bin/" &&
	cp -R "$POL"/. "$T/policies/" &&
	cp "$PROBE/bench_true" "$T/ws/" || exit 111
chmod -R go-w "$T"
chmod 0755 "$T" "$T/ws"

# count FILE: "STEP COUNT" per program (strace -Y: the comm, which an
# exec changes), stable calls only, and "all COUNT".
count() {
	awk '
	/^[0-9]+<[^>]*> / {
		split($1, a, "<"); comm = a[2]; sub(/>$/, "", comm)
		line = substr($0, length($1) + 2)
		if (line ~ /^<\.\.\. / || line ~ /^\+\+\+ / || line ~ /^--- /)
			next
		if (comm == "strace")
			next
		name = line; sub(/\(.*/, "", name)
		if (line ~ /= \? ERESTART|= -1 EINTR /)
			next
		if (name ~ /^(wait4|waitid|poll|ppoll|read|recvmsg)$/)
			next
		n[comm]++; all++
	}
	END {
		for (c in n) print c, n[c]
		print "all", all + 0
	}' "$1"
}

# least STEP FILE...: the least count of STEP over the runs.
least() {
	local step=$1 f c m=
	shift
	for f in "$@"; do
		c=$(awk -v s="$step" '$1 == s { print $2 }' "$f")
		c=${c:-0}
		[[ -z $m || $c -lt $m ]] && m=$c
	done
	echo "$m"
}

# within STEP COUNT: the count against its budget.
within() {
	local b=${BUDGET[$1]}
	if (($2 <= b)); then
		ok "$1: $2 system calls, within its budget of $b"
	else
		not_ok "$1: $2 system calls, over its budget of $b" \
			"per program: $(cat "$T/out/$3.1.n" | tr '\n' ' ')"
	fi
}

# trace NAME ARGV...: three runs under strace, counted.
trace() {
	local name=$1 i
	shift
	for i in 1 2 3; do
		if ! env -i PATH=/usr/bin:/bin HOME="$T" LANG=C.UTF-8 \
			strace -f -Y -qq -o "$T/out/$name.$i" "$@" \
			</dev/null >"$T/out/$name.$i.stdout" 2>"$T/out/$name.$i.err"; then
			return 1
		fi
		count "$T/out/$name.$i" >"$T/out/$name.$i.n"
	done
}

RUN=("$T/bin/pysbx" run -p "$T/policies/python.policy" -D WORKSPACE="$T/ws"
	-- /workspace/bench_true)
if ! trace run "${RUN[@]}"; then
	if grep -q "PTRACE\|ptrace" "$T/out/run.1.err" 2>/dev/null; then
		echo "1..0 # SKIP strace cannot trace here: $(head -1 "$T/out/run.1.err")"
		exit 0
	fi
	not_ok "pysbx run -p python.policy -- true runs under strace" \
		"$(head -5 "$T/out/run.1.err" 2>/dev/null)"
	echo "1..$n"
	exit 0
fi
ok "pysbx run -p python.policy -- true runs under strace"
n_run=(); for i in 1 2 3; do n_run+=("$T/out/run.$i.n"); done
for step in pysbx pysbx-mount pysbx-exec pysbx-seccomp; do
	within "$step" "$(least "$step" "${n_run[@]}")" run
done
within run "$(least all "${n_run[@]}")" run
# The target itself: a static true makes three calls; more would mean
# the count attributes a step's calls to it.
is "$(least bench_true "${n_run[@]}")" 3 "the target (a static true) makes its 3 calls, no more"

CLEAN=("$T/bin/pysbx-clean" -p "$T/policies/python.policy" -D WORKSPACE="$T/ws"
	-- "$T/bin/pysbx-mount" -- "$T/bin/pysbx-exec" -- "$T/bin/pysbx-seccomp"
	-- /workspace/bench_true)
if trace clean "${CLEAN[@]}"; then
	ok "pysbx-clean ... -- pysbx-mount -- pysbx-exec -- pysbx-seccomp -- true runs under strace"
	n_clean=(); for i in 1 2 3; do n_clean+=("$T/out/clean.$i.n"); done
	within pysbx-clean "$(least pysbx-clean "${n_clean[@]}")" clean
	within clean "$(least all "${n_clean[@]}")" clean
else
	not_ok "pysbx-clean ... -- pysbx-mount -- pysbx-exec -- pysbx-seccomp -- true runs under strace" \
		"$(head -5 "$T/out/clean.1.err")"
fi

# The counts, for the log (test/run.sh -v shows them).
for f in "$T/out/run.1.n" "$T/out/clean.1.n"; do
	[[ -f $f ]] && echo "# ${f##*/}: $(sort "$f" | tr '\n' ' ')"
done
echo "1..$n"
