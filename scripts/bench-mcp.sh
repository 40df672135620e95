#!/usr/bin/env bash
# scripts/bench-mcp.sh - pysbx mcp through the official MCP SDK: the warm
# tools/call of `pass` minus the client's own round trip (a trivial echo
# server, same run), and the RSS of the server with one session
# (scripts/bench/mcp.cjs). Prints one JSON line; docs/BENCHMARKS.md
# ("pysbx mcp") quotes it with the load it ran under.
#
#   scripts/bench-mcp.sh [N]      N timed calls each (default 300)
#
# Needs a build and the test clients (./build.sh test installs them into
# build/test/mcp-node). Exit 111 when either is missing.
set -euo pipefail
cd "$(dirname "$0")/.."
NM=$PWD/build/test/mcp-node/node_modules
[[ -x build/bin/pysbx ]] || { echo "bench-mcp.sh: fatal: no build (./build.sh)" >&2; exit 111; }
[[ -d $NM/@modelcontextprotocol/sdk ]] ||
	{ echo "bench-mcp.sh: fatal: no MCP SDK in $NM (./build.sh test installs it)" >&2; exit 111; }
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
node scripts/bench/mcp.cjs "$NM" "$PWD/build/bin/pysbx" "${1:-300}"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
