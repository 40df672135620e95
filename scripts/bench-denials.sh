#!/usr/bin/env bash
# scripts/bench-denials.sh - what report denials costs (docs/DENIALS.md):
# every reported call waits for pid 1. Prints markdown for
# docs/BENCHMARKS.md ("Reporting denials").
#
#   scripts/bench-denials.sh
#
# 1. `python3 -c 'import numpy, pandas'` under python.policy, with and
#    without --report-denials, side by side in one hyperfine run
#    (BENCH_RUNS, default 10, each; BENCH_WARMUP, default 2);
# 2. the per-call cost: build/test/probe/open_loop times 100,000 open()
#    of a missing path in-process, with and without reporting
#    (BENCH_LOOPS rounds each, default 3, alternating; the median).
# As root it copies the build and the policies into a fresh directory
# under /tmp and measures as uid BENCH_UID (default 4245) through
# setpriv, as scripts/bench.sh does. Exit: 0, 111 when a tool, numpy,
# pandas or the build is missing.
set -uo pipefail

cd "$(dirname "$0")/.." || exit 111
BENCH_UID=${BENCH_UID:-4245}
for tool in hyperfine python3 setpriv; do
	command -v "$tool" >/dev/null ||
		{ echo "bench-denials.sh: fatal: $tool is missing (apt-get install hyperfine python3 util-linux)" >&2; exit 111; }
done
/usr/bin/python3 -c 'import numpy, pandas' 2>/dev/null ||
	{ echo "bench-denials.sh: fatal: numpy or pandas is missing (apt-get install python3-numpy python3-pandas)" >&2; exit 111; }
[[ -x build/bin/pysbx && -x build/test/probe/open_loop ]] ||
	{ echo "bench-denials.sh: fatal: the build is missing: run ./build.sh" >&2; exit 111; }

W=$(mktemp -d /tmp/pysbx-bench-denials.XXXXXX) || exit 111
trap 'rm -rf "$W"' EXIT
chmod 0755 "$W"
mkdir -p "$W/build" "$W/ws" "$W/res"
cp -R build/bin "$W/build/bin"
cp -R policies "$W/policies"
cp build/test/probe/open_loop "$W/ws/"
chmod -R a+rX,go-w "$W"
run=(env)
if [[ $(id -u) == 0 ]]; then
	chown "$BENCH_UID:$BENCH_UID" "$W/ws" "$W/res"
	run=(setpriv --reuid="$BENCH_UID" --regid="$BENCH_UID" --clear-groups
		--inh-caps=-all --bounding-set=-all env -i PATH=/usr/bin:/bin
		HOME=/nonexistent LANG=C.UTF-8)
fi
S="$W/build/bin/pysbx run"
A="-p $W/policies/python.policy -D WORKSPACE=$W/ws --"
"${run[@]}" hyperfine -N --warmup "${BENCH_WARMUP:-2}" --runs "${BENCH_RUNS:-10}" \
	--export-json "$W/res/import.json" \
	-n "without reporting" "$S $A /usr/bin/python3 -c 'import numpy, pandas'" \
	-n "with --report-denials" "$S --report-denials $A /usr/bin/python3 -c 'import numpy, pandas'" \
	>"$W/res/log" 2>&1 || { cat "$W/res/log" >&2; exit 111; }
python3 scripts/bench/table.py "$W/res/import.json" "import numpy, pandas"
echo
for i in $(seq 1 "${BENCH_LOOPS:-3}"); do
	for f in off --report-denials; do
		o=; [[ $f == off ]] || o=$f
		"${run[@]}" $S $o $A /workspace/open_loop 100000 /home/nonexistent/x 2>/dev/null |
			sed -n "s/^100000 calls, \([0-9]*\) ns per call$/$f \1/p"
	done
done | python3 -c '
import statistics, sys
v = {}
for l in sys.stdin:
    k, n = l.split()
    v.setdefault(k, []).append(int(n))
off, on = statistics.median(v["off"]), statistics.median(v["--report-denials"])
print("| 100,000 open() of a missing path | ns per call (median of %d) |" % len(v["off"]))
print("|---|---|")
print("| without reporting | %d |" % off)
print("| --report-denials | %d |" % on)
print("| overhead per reported call | %d |" % (on - off))'
echo
echo "load: $(uptime | sed 's/.*load average: //')"
