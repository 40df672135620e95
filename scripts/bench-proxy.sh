#!/usr/bin/env bash
# scripts/bench-proxy.sh - the egress proxy's costs, side by side in one
# run: throughput through the proxy against direct loopback, the latency
# it adds to a connect, the start-up of a net-proxy sandbox against the
# same sandbox without it (scripts/bench/proxy.py). Prints a Markdown
# table for docs/BENCHMARKS.md ("Egress proxy").
#
#   scripts/bench-proxy.sh
#
# Needs a build (./build.sh) and /usr/bin/python3. Started as root, it
# measures as uid/gid BENCH_UID (default 4244) with no groups and no
# capabilities, as pysbx is meant to run. Tuning: BENCH_TPUT_N (3),
# BENCH_LAT_N (300), BENCH_START_N (60). About a minute.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 111
[[ -x build/bin/pysbx ]] || { echo "bench-proxy.sh: fatal: no build (run ./build.sh)" >&2; exit 111; }
W=$(mktemp -d /tmp/pysbx-bench-proxy.XXXXXX) || exit 111
trap 'rm -rf "$W"' EXIT
mkdir "$W/bin" "$W/work"
cp build/bin/* "$W/bin/"
cp scripts/bench/proxy.py "$W/"
chmod -R a+rX "$W"
if [[ $(id -u) == 0 ]]; then
	U=${BENCH_UID:-4244}
	chown "$U:$U" "$W/work"
	exec setpriv --reuid "$U" --regid "$U" --clear-groups --inh-caps=-all \
		env -i PATH=/usr/bin:/bin HOME="$W/work" \
		BENCH_TPUT_N="${BENCH_TPUT_N:-3}" BENCH_LAT_N="${BENCH_LAT_N:-300}" \
		BENCH_START_N="${BENCH_START_N:-60}" \
		/usr/bin/python3 "$W/proxy.py" "$W/bin" "$W/work"
fi
/usr/bin/python3 "$W/proxy.py" "$W/bin" "$W/work"
