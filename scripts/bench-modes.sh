#!/usr/bin/env bash
# scripts/bench-modes.sh - the start of agent-shell.policy in namespace
# mode and in Landlock-only mode, side by side in one hyperfine run,
# unprivileged; prints a markdown table for docs/BENCHMARKS.md.
#
#   scripts/bench-modes.sh
#
# Three commands, each `pysbx run -p agent-shell.policy -D WORKSPACE=WS
# ... -- WS/bench_true` (a static program that exits at once):
#   namespaces        the policy as shipped (landlock-only deny: no probe)
#   namespaces+probe  -D LANDLOCK_ONLY=allow where namespaces work: the
#                     guard's probe, then the namespace chain
#   landlock-only     -D LANDLOCK_ONLY=always: no pysbx-mount
# As root it copies the build and the policies into a fresh directory
# under /tmp and measures as uid BENCH_UID (default 4244) through setpriv,
# as scripts/bench.sh does. Tuning: BENCH_WARMUP (5), BENCH_RUNS (50).
# Exit: 0, 111 when hyperfine, python3 or the build is missing.
set -uo pipefail

cd "$(dirname "$0")/.." || exit 111
. scripts/bench/common.inc
bench_setup bench-modes.sh 4244
R="$W/build/bin/pysbx run -p $W/policies/agent-shell.policy -D WORKSPACE=$W/ws"
T="-- $W/ws/bench_true"
"${run[@]}" hyperfine -N --warmup "${BENCH_WARMUP:-5}" --runs "${BENCH_RUNS:-50}" \
	--export-json "$W/res/modes.json" \
	-n namespaces "$R $T" \
	-n namespaces+probe "$R -D LANDLOCK_ONLY=allow $T" \
	-n landlock-only "$R -D LANDLOCK_ONLY=always $T" >"$W/res/log" 2>&1 ||
	{ cat "$W/res/log" >&2; exit 111; }
python3 scripts/bench/table.py "$W/res/modes.json" "start of agent-shell.policy"
