#!/usr/bin/env bash
# scripts/bench-protect.sh - CPU cost of agent-shell's `protect` scans (the
# one at start and the check after the run) against the same run without
# them, on generated workspaces. Not a test: numbers for docs/MOUNT.md.
#
#   scripts/bench-protect.sh [RUNS]      (default 21; needs build/)
#   BASE=OTHER/build/bin scripts/bench-protect.sh   adds a column for
#                                        another build (before a change)
#
# Workspaces (made under a temporary directory, owned by the caller):
#   flat   25,000 files in 1,110 directories down to depth 4, plus a .git
#          with 256 object directories
#   deep   the same files with every leaf directory 4 levels deeper (5,110
#          directories, files at depth 8): the cost of looking for .git at
#          any depth
#   small  a repository with 10 files
# For each: CPU time (user+sys of every process of the run, from
# getrusage(RUSAGE_CHILDREN)) per `pysbx run -p agent-shell.policy ...
# /bin/true`, mean of RUNS, with protect and with the protect line
# removed from a copy of the policy. As root it runs as uid 42999.
set -euo pipefail
cd "$(dirname "$0")/.." || exit 111
ROOT=$PWD RUNS=${1:-21}
T=$(mktemp -d /tmp/bench-protect.XXXXXX)
trap 'rm -rf "$T"' EXIT
chmod 755 "$T"
AS=()
if [[ $(id -u) == 0 ]]; then
	AS=(setpriv --reuid=42999 --regid=42999 --clear-groups --inh-caps=-all)
fi
cp -r "$ROOT/build/bin" "$T/bin" && cp -r "$ROOT/policies" "$T/pol"
[[ -z ${BASE:-} ]] || cp -r "$BASE" "$T/base"
grep -v '^protect ' "$T/pol/agent-shell.policy" >"$T/pol/agent-shell-noprotect.policy"
mk() { # DIR EXTRA: 10x10x10 dirs, 25 files each, EXTRA more levels above the files
	local d=$1 extra=$2 a b c leaf
	mkdir -p "$d/.git/objects" && git init -q "$d" && for i in $(seq 0 255); do mkdir -p "$d/.git/objects/$(printf %02x "$i")"; done
	for a in 0 1 2 3 4 5 6 7 8 9; do for b in 0 1 2 3 4 5 6 7 8 9; do for c in 0 1 2 3 4 5 6 7 8 9; do
		leaf=$d/a$a/b$b/c$c
		((extra)) && leaf=$leaf/d/e/f/g
		mkdir -p "$leaf" && (cd "$leaf" && touch f{01..25}.py)
	done; done; done
}
mk "$T/flat" 0
mk "$T/deep" 1
mkdir -p "$T/small" && git init -q "$T/small" && touch "$T/small"/f{1..10}
# protect's records (docs/MOUNT.md): a state directory of the run's own.
mkdir -m 0700 "$T/state"
export PYSBX_STATE_DIR=$T/state
[[ ${#AS[@]} == 0 ]] || chown -R 42999:42999 "$T/flat" "$T/deep" "$T/small" "$T/state"
cpu() { # POLICY WS [BIN]: mean CPU ms per run
	"${AS[@]}" /usr/bin/python3 - "${3:-$T/bin}/pysbx" "$1" "$2" "$RUNS" <<'PY'
import os, resource, subprocess, sys
b, pol, ws, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
cmd = [b, "run", "-p", pol, "-D", "WORKSPACE=" + ws, "--", "/bin/true"]
subprocess.run(cmd, check=True)  # warm the caches
r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
for _ in range(n):
    subprocess.run(cmd, check=True, stderr=subprocess.DEVNULL)
r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
print("%.1f" % ((r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime) * 1000 / n))
PY
}
echo "| workspace | protect (ms CPU/run) |${BASE:+ protect, BASE build |} without protect |"
echo "|---|---|${BASE:+---|}---|"
for w in flat deep small; do
	b=
	[[ -z ${BASE:-} ]] || b=" $(cpu "$T/pol/agent-shell.policy" "$T/$w" "$T/base") |"
	echo "| $w | $(cpu "$T/pol/agent-shell.policy" "$T/$w") |$b $(cpu "$T/pol/agent-shell-noprotect.policy" "$T/$w") |"
done
echo "($RUNS runs each, $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg))"
