#!/usr/bin/env bash
# scripts/bench.sh - pysbx vs bubblewrap, side by side; writes
# docs/BENCHMARKS.md.
#
#   scripts/bench.sh [-o FILE] [-k]
#
#   -o FILE   write the report there instead of docs/BENCHMARKS.md
#   -k        keep the raw results (hyperfine JSON, strace output) and
#             print where they are
#
# Needs: a build (./build.sh), hyperfine, bwrap, python3, strace (for
# "where the time goes"; optional). Everything is measured as an
# unprivileged user, as pysbx is meant to run: started as root, this copies
# build/bin, the probes and the policies (plus two variants of
# python.policy made by scripts/bench/derive.sh) into a fresh directory
# under /tmp readable by all and runs the measurements through
# setpriv as uid/gid BENCH_UID (default 4243: outside test/run.sh's
# 42000-42999, so that a test run at the same time and this script never
# take each other's processes for leftovers) with no groups, no capabilities and a clean
# environment; otherwise it measures as the caller, from a copy as well (so
# both cases measure the same layout).
#
# The measurements are scripts/bench/measure.sh, the report
# scripts/bench/report.py. Tuning (environment): BENCH_WARMUP (3),
# BENCH_RUNS (30), BENCH_LOOP_N (1000000), BENCH_BATCH (100),
# BENCH_PARALLEL (4), BENCH_BATCH_RUNS (5), BENCH_LOOP_RUNS (5),
# BENCH_PHASE_RUNS (40), BENCH_UID (4243), BENCH_AB_PAIRS (40: the
# headline's pairs, scripts/bench/ab.py).
# About 4 minutes on a 2-vCPU machine.
#
# Exit: 0 when the report was written, 100 on bad usage, 111 when a tool
# or the build is missing or python.policy's variants cannot be derived
# (scripts/bench/derive.sh names the line it looked for).

set -uo pipefail

cd "$(dirname "$0")/.." || exit 111
ROOT=$PWD
OUT=$ROOT/docs/BENCHMARKS.md
KEEP=0
BENCH_UID=${BENCH_UID:-4243}

while getopts o:k opt; do
	case $opt in
	o) OUT=$OPTARG ;;
	k) KEEP=1 ;;
	*) echo "usage: scripts/bench.sh [-o FILE] [-k]" >&2; exit 100 ;;
	esac
done
shift $((OPTIND - 1))
(($#)) && { echo "usage: scripts/bench.sh [-o FILE] [-k]" >&2; exit 100; }
[[ $OUT == /* ]] || OUT=$ROOT/$OUT

for tool in hyperfine bwrap python3 setpriv; do
	command -v "$tool" >/dev/null || {
		echo "bench.sh: fatal: $tool is missing" >&2
		echo "bench.sh: hint: apt-get install hyperfine bubblewrap python3 util-linux strace" >&2
		exit 111
	}
done
if [[ ! -x build/bin/pysbx || ! -x build/test/probe/bench_true || ! -x build/test/probe/bench_loop ]]; then
	echo "bench.sh: fatal: the build is missing (build/bin/pysbx, build/test/probe/bench_*)" >&2
	echo "bench.sh: hint: run ./build.sh" >&2
	exit 111
fi

WORK=$(mktemp -d /tmp/pysbx-bench.XXXXXX) || exit 111
cleanup() {
	if ((KEEP)); then
		echo "bench.sh: raw results kept in $WORK/results" >&2
	else
		rm -rf "$WORK"
	fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# The tree the measurements run from. As root: owned by root, not writable
# by the bench uid (the policies must pass pysbx's trust check, and a
# benchmark must not be able to change what it measures).
chmod 0755 "$WORK"
mkdir -p "$WORK/build/test" "$WORK/derived" "$WORK/scripts" "$WORK/ws" "$WORK/home" "$WORK/results"
cp -R --preserve=mode,timestamps build/bin "$WORK/build/bin"
cp -R --preserve=mode,timestamps build/test/probe "$WORK/build/test/probe"
[[ -d build/policies ]] && cp -R --preserve=mode,timestamps build/policies "$WORK/build/policies"
cp -R --preserve=mode,timestamps policies "$WORK/policies"
cp -R --preserve=mode,timestamps scripts/bench "$WORK/scripts/bench"
# The no-net and host variants of python.policy, made from it now.
scripts/bench/derive.sh policies/python.policy "$WORK/derived" || exit 111
cp build/test/probe/bench_true build/test/probe/bench_loop "$WORK/ws/"
chmod -R a+rX,go-w "$WORK/build" "$WORK/derived" "$WORK/policies" "$WORK/scripts" "$WORK/ws"

if [[ $(id -u) == 0 ]]; then
	if ! [[ $BENCH_UID =~ ^[1-9][0-9]*$ ]]; then
		echo "bench.sh: BENCH_UID must be a non-zero uid, not '$BENCH_UID'" >&2
		exit 100
	fi
	chown "$BENCH_UID:$BENCH_UID" "$WORK/home" "$WORK/results"
	chmod 0700 "$WORK/home"
	run=(setpriv --reuid="$BENCH_UID" --regid="$BENCH_UID" --clear-groups
		--inh-caps=-all --bounding-set=-all
		env -i PATH=/usr/bin:/bin HOME="$WORK/home" LANG=C.UTF-8)
	USER_DESC="uid $BENCH_UID via setpriv (no groups, no capabilities, env -i)"
else
	run=(env)
	USER_DESC="uid $(id -u) ($(id -un 2>/dev/null || echo '?')), as invoked"
fi
pass=()
for v in BENCH_WARMUP BENCH_RUNS BENCH_LOOP_N BENCH_LOOP_RUNS BENCH_BATCH BENCH_PARALLEL BENCH_BATCH_RUNS BENCH_AB_PAIRS; do
	[[ -n ${!v:-} ]] && pass+=("$v=${!v}")
done

RES=$WORK/results
{
	printf 'nproc\t%s\n' "$(nproc)"
	printf 'cpu\t%s\n' "$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)"
	printf 'kernel\t%s\n' "$(uname -srm)"
	printf 'os\t%s\n' "$(. /etc/os-release && echo "$PRETTY_NAME")"
	printf 'bwrap\t%s\n' "$(bwrap --version)"
	printf 'hyperfine\t%s\n' "$(hyperfine --version)"
	printf 'python\t%s\n' "$(/usr/bin/python3 --version 2>&1)"
	printf 'user\t%s\n' "$USER_DESC"
	printf 'work\t%s\n' "$WORK"
	printf 'commit\t%s\n' "$(git rev-parse --short HEAD 2>/dev/null)$(git diff --quiet HEAD 2>/dev/null || echo ' (with uncommitted changes)')"
	printf 'date\t%s\n' "$(date -u '+%Y-%m-%d %H:%M UTC')"
	printf 'load_before\t%s\n' "$(cut -d' ' -f1-3 /proc/loadavg)"
} >"$WORK/machine.txt"

echo "bench.sh: measuring as $USER_DESC (a few minutes)" >&2
start=$SECONDS
"${run[@]}" "${pass[@]}" bash "$WORK/scripts/bench/measure.sh" "$WORK" "$RES"
rc=$?
{
	printf 'load_after\t%s\n' "$(cut -d' ' -f1-3 /proc/loadavg)"
	printf 'duration\t%s s\n' "$((SECONDS - start))"
} >>"$WORK/machine.txt"
if ((rc)); then
	echo "bench.sh: fatal: the measurements failed (exit $rc); see $RES/log.txt" >&2
	KEEP=1
	exit 111
fi

# Nothing of a sandbox may outlive it: with a dedicated uid this is checkable.
if [[ $(id -u) == 0 ]]; then
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		left=$(ps -u "$BENCH_UID" -o pid=,comm= 2>/dev/null)
		[[ -z $left ]] && break
		sleep 0.3
	done
	[[ -n $left ]] && printf 'leftover\t%s\n' "$(echo $left)" >>"$WORK/machine.txt"
fi

# Where the time goes, per phase: scheduler events (exec, fork, exit) of
# PHASE_RUNS starts of each side, recorded system-wide (root only: perf
# record -a), split per process tree by phases.py; the floor with the
# steps' duties as a third side (its first program: bench_guard).
phase_runs=${BENCH_PHASE_RUNS:-40}
if [[ $(id -u) == 0 ]] && command -v perf >/dev/null; then
	for side in pysbx bwrap bench_guard; do
		row="$side, net ns"
		[[ $side == bench_guard ]] && row="floor with the steps' duties, net ns"
		cmd=$(awk -F'\t' -v n="$row" '$1 == n { print $2 }' "$RES/startup.cmds")
		[[ -n $cmd ]] || continue
		perf record -q -o "$WORK/$side.perf" -e sched:sched_process_exec \
			-e sched:sched_process_fork -e sched:sched_process_exit -a -- \
			"${run[@]}" sh -c 'i=0; while [ $i -lt $1 ]; do sh -c "$2" >/dev/null 2>&1; i=$((i+1)); done' \
			_ "$phase_runs" "exec $cmd" 2>>"$RES/log.txt" &&
			perf script -i "$WORK/$side.perf" -F comm,pid,time,event,trace \
				>"$WORK/$side.sched" 2>>"$RES/log.txt" &&
			python3 scripts/bench/phases.py "$side" "$WORK/$side.sched" \
				>"$RES/phases-$side.md" 2>>"$RES/log.txt" &&
			python3 scripts/bench/phases.py --summary "$side" "$WORK/$side.sched" \
				>"$RES/phases-$side.tsv" 2>>"$RES/log.txt"
	done
fi

# The sections below the marker are written by the other bench scripts
# (bench-modes.sh, bench-proxy.sh): keep them as they are.
MARK='<!-- Sections below: from scripts/bench-modes.sh and scripts/bench-proxy.sh; scripts/bench.sh keeps them. -->'
python3 scripts/bench/report.py "$WORK" >"$OUT.tmp" &&
	{ [[ ! -f $OUT ]] || awk -v m="$MARK" '$0 == m { on = 1 } on' "$OUT" >>"$OUT.tmp"; } &&
	mv "$OUT.tmp" "$OUT" || {
	echo "bench.sh: fatal: the report failed; raw results in $RES" >&2
	KEEP=1
	exit 111
}
echo "bench.sh: wrote ${OUT#"$ROOT"/}" >&2
