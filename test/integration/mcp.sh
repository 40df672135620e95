#!/usr/bin/env bash
# pysbx mcp: the MCP server on stdio, driven by a raw JSON-RPC client
# (test/integration/mcp_test.py): malformed input, the python tool, named
# sessions, cancel, stdin closing. Needs python3 and the chain.
set -u
ROOT=${PYSBX_ROOT:?}
if ! command -v python3 >/dev/null; then
	echo "1..0 # SKIP python3 is not installed"
	exit 0
fi
exec python3 -I "$ROOT/test/integration/mcp_test.py"
