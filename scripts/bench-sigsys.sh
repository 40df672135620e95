#!/usr/bin/env bash
# scripts/bench-sigsys.sh - what pid 1's supervision of the syscall
# filter's kills costs at start-up (docs/SECCOMP.md "Naming the killed
# syscall"): python.policy over a static true, side by side in one
# hyperfine run, unprivileged; prints a markdown table for
# docs/BENCHMARKS.md ("Naming the killed syscall").
#
#   scripts/bench-sigsys.sh [BASE_BIN]
#
# Commands, each `pysbx run -p POLICY -D WORKSPACE=WS -- /workspace/bench_true`:
#   supervised    python.policy as shipped: the kills go to pid 1
#   kernel kill   the same plus `seccomp errno=EPERM sendmsg`, which makes
#                 pysbx-seccomp keep the kernel's kill (pid 1 still makes
#                 its socketpair: only the load, the send and the
#                 receive are left out)
#   before        with BASE_BIN (the build/bin of a build without the
#                 supervisor), python.policy under that build
# As root it copies the builds and the policies into a fresh directory
# under /tmp and measures as uid BENCH_UID (default 4245) through
# setpriv, as scripts/bench.sh does. Tuning: BENCH_WARMUP (5),
# BENCH_RUNS (60). Exit: 0, 111 when hyperfine, python3 or the build is
# missing.
set -uo pipefail

cd "$(dirname "$0")/.." || exit 111
BASE=${1:-}
. scripts/bench/common.inc
bench_setup bench-sigsys.sh 4245
[[ -z $BASE || -x $BASE/pysbx ]] ||
	{ echo "bench-sigsys.sh: fatal: $BASE/pysbx is missing" >&2; exit 111; }
[[ -n $BASE ]] && cp -R "$BASE" "$W/base" && chmod -R a+rX,go-w "$W/base"
{ cat policies/python.policy; echo 'seccomp errno=EPERM sendmsg'; } >"$W/policies/kernel-kill.policy"
chmod 0644 "$W/policies/kernel-kill.policy"
A="-D WORKSPACE=$W/ws -- /workspace/bench_true"
cmds=(-n supervised "$W/build/bin/pysbx run -p $W/policies/python.policy $A"
	-n "kernel kill" "$W/build/bin/pysbx run -p $W/policies/kernel-kill.policy $A")
[[ -n $BASE ]] && cmds+=(-n before "$W/base/pysbx run -p $W/policies/python.policy $A")
"${run[@]}" hyperfine -N --warmup "${BENCH_WARMUP:-5}" --runs "${BENCH_RUNS:-60}" \
	--export-json "$W/res/sigsys.json" "${cmds[@]}" >"$W/res/log" 2>&1 ||
	{ cat "$W/res/log" >&2; exit 111; }
python3 scripts/bench/table.py "$W/res/sigsys.json" "start of python.policy"
echo
echo "load: $(uptime | sed 's/.*load average: //')"
