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
BENCH_UID=${BENCH_UID:-4244}
for tool in hyperfine python3 setpriv; do
	command -v "$tool" >/dev/null ||
		{ echo "bench-modes.sh: fatal: $tool is missing (apt-get install hyperfine python3 util-linux)" >&2; exit 111; }
done
[[ -x build/bin/pysbx-landlock && -x build/test/probe/bench_true ]] ||
	{ echo "bench-modes.sh: fatal: the build is missing: run ./build.sh" >&2; exit 111; }

W=$(mktemp -d /tmp/pysbx-bench-modes.XXXXXX) || exit 111
trap 'rm -rf "$W"' EXIT
chmod 0755 "$W"
mkdir -p "$W/build" "$W/ws" "$W/res"
cp -R build/bin "$W/build/bin"
cp -R policies "$W/policies"
cp build/test/probe/bench_true "$W/ws/"
chmod -R a+rX,go-w "$W/build" "$W/policies" "$W/ws"
run=(env)
if [[ $(id -u) == 0 ]]; then
	chown "$BENCH_UID:$BENCH_UID" "$W/ws" "$W/res"
	run=(setpriv --reuid="$BENCH_UID" --regid="$BENCH_UID" --clear-groups
		--inh-caps=-all --bounding-set=-all env -i PATH=/usr/bin:/bin
		HOME=/nonexistent LANG=C.UTF-8)
fi
R="$W/build/bin/pysbx run -p $W/policies/agent-shell.policy -D WORKSPACE=$W/ws"
T="-- $W/ws/bench_true"
"${run[@]}" hyperfine -N --warmup "${BENCH_WARMUP:-5}" --runs "${BENCH_RUNS:-50}" \
	--export-json "$W/res/modes.json" \
	-n namespaces "$R $T" \
	-n namespaces+probe "$R -D LANDLOCK_ONLY=allow $T" \
	-n landlock-only "$R -D LANDLOCK_ONLY=always $T" >"$W/res/log" 2>&1 ||
	{ cat "$W/res/log" >&2; exit 111; }
python3 scripts/bench/table.py "$W/res/modes.json" "start of agent-shell.policy"
