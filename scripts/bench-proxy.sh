#!/usr/bin/env bash
# scripts/bench-proxy.sh - the egress proxy's costs, side by side in one
# run: throughput through the proxy against direct loopback, the latency
# it adds to a connect, the start-up of a net-proxy sandbox against the
# same sandbox without it, and the first connect of a fresh sandbox
# (scripts/bench/proxy.py). Writes its section of docs/BENCHMARKS.md
# ("## Egress proxy", replaced in place; the other sections are kept).
#
#   scripts/bench-proxy.sh [-o FILE | -p]
#
#   -o FILE   write the section into FILE instead of docs/BENCHMARKS.md
#   -p        print the section only
#
# Needs a build (./build.sh) and /usr/bin/python3. Started as root, it
# measures as uid/gid BENCH_UID (default 4244) with no groups and no
# capabilities, as pysbx is meant to run. Tuning: BENCH_TPUT_N (3),
# BENCH_LAT_N (300), BENCH_START_N (60), BENCH_FIRST_N (20). About a
# minute. Exit status: 0, 100 usage, 111 no build or a failed run.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 111
ROOT=$PWD
OUT=$ROOT/docs/BENCHMARKS.md PRINT=0
while (($#)); do
	case $1 in
	-o) [[ $# -ge 2 ]] || { echo "usage: scripts/bench-proxy.sh [-o FILE | -p]" >&2; exit 100; }
		OUT=$2; shift ;;
	-p) PRINT=1 ;;
	*) echo "usage: scripts/bench-proxy.sh [-o FILE | -p]" >&2; exit 100 ;;
	esac
	shift
done
[[ -x build/bin/pysbx ]] || { echo "bench-proxy.sh: fatal: no build (run ./build.sh)" >&2; exit 111; }
W=$(mktemp -d /tmp/pysbx-bench-proxy.XXXXXX) || exit 111
trap 'rm -rf "$W"' EXIT
mkdir "$W/bin" "$W/work"
cp build/bin/* "$W/bin/"
cp scripts/bench/proxy.py "$W/"
chmod -R a+rX "$W"
export BENCH_TPUT_N=${BENCH_TPUT_N:-3} BENCH_LAT_N=${BENCH_LAT_N:-300}
export BENCH_START_N=${BENCH_START_N:-60} BENCH_FIRST_N=${BENCH_FIRST_N:-20}
load() { cut -d' ' -f1-3 /proc/loadavg; }
L0=$(load)
if [[ $(id -u) == 0 ]]; then
	U=${BENCH_UID:-4244}
	chown "$U:$U" "$W/work"
	setpriv --reuid "$U" --regid "$U" --clear-groups --inh-caps=-all \
		env -i PATH=/usr/bin:/bin HOME="$W/work" \
		BENCH_TPUT_N="$BENCH_TPUT_N" BENCH_LAT_N="$BENCH_LAT_N" \
		BENCH_START_N="$BENCH_START_N" BENCH_FIRST_N="$BENCH_FIRST_N" \
		/usr/bin/python3 "$W/proxy.py" "$W/bin" "$W/work" >"$W/table"
else
	/usr/bin/python3 "$W/proxy.py" "$W/bin" "$W/work" >"$W/table"
fi || { echo "bench-proxy.sh: fatal: the measurement failed" >&2; exit 111; }
L1=$(load)

{
	fmt -w 72 <<EOF2
## Egress proxy (issue 23)

Written by \`scripts/bench-proxy.sh\` (BENCH_TPUT_N=$BENCH_TPUT_N
BENCH_LAT_N=$BENCH_LAT_N BENCH_START_N=$BENCH_START_N
BENCH_FIRST_N=$BENCH_FIRST_N) on $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc)
CPUs, load average $L0 before and $L1 after, as an unprivileged uid,
commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown). One
run, both sides alternating. The server is a Python process on the
host's 127.0.0.1 sending from memory; the client is the same Python code
reading into a 1 MiB buffer, on the host (direct) and inside a
\`net-proxy\` sandbox through a CONNECT tunnel (proxy). Start-up is
\`pysbx run -p P -- /bin/true\` for the same policy with and without
\`net-proxy\`.
EOF2
	echo
	cat "$W/table"
	cat <<'EOF2'

What a proxied run adds to the sandbox's own start: a socketpair and
the fork of the proxy (after the chain is spawned, so it overlaps the
sandbox's setup), pid 1's listener, and at the end the proxy's stop
(SIGTERM, its exit, the guard's wait through a pidfd). The proxy's own
start (reading the plan, /etc/hosts, /etc/resolv.conf and the host's
addresses, Landlock, loading its seccomp program, which is compiled at
build time) waits for the first connection: a run that never connects
does not pay it; one that does pays it at that connect (the last row,
against a fresh process's first connect on the host). On a loaded
machine the proxy is one more process waiting for a CPU at the start and
at the stop: the start-up difference grows with the load.
EOF2
} >"$W/section"

if ((PRINT)); then
	cat "$W/section"
	exit 0
fi
# Replace the section in place (from its heading to the next "## " or
# the end), or append it.
python3 - "$OUT" "$W/section" <<'EOF2' || { echo "bench-proxy.sh: fatal: unable to write $OUT" >&2; exit 111; }
import sys
path, sec = sys.argv[1], open(sys.argv[2]).read()
try:
    lines = open(path).read().splitlines(keepends=True)
except FileNotFoundError:
    lines = []
head = "## Egress proxy (issue 23)"
try:
    a = next(i for i, l in enumerate(lines) if l.rstrip("\n") == head)
    b = next((i for i in range(a + 1, len(lines)) if lines[i].startswith("## ")), len(lines))
    new = lines[:a] + [sec + ("\n" if b < len(lines) else "")] + lines[b:]
except StopIteration:
    new = lines + (["\n"] if lines else []) + [sec]
with open(path + ".tmp", "w") as f:
    f.write("".join(new))
import os
os.replace(path + ".tmp", path)
EOF2
echo "bench-proxy.sh: wrote the egress proxy section of ${OUT#"$ROOT"/}" >&2
