#!/usr/bin/env bash
# pysbx mcp against clients nobody here wrote: the official TypeScript SDK
# (Client over StdioClientTransport) and the MCP Inspector's CLI, at the
# versions test/mcp/package-lock.json pins (installed by ./build.sh test
# into build/test/mcp-node). Skips, naming why, without node or them.
set -u
ROOT=${PYSBX_ROOT:?}
NM=$ROOT/build/test/mcp-node/node_modules
if ! command -v node >/dev/null; then
	echo "1..0 # SKIP node is not installed (./build.sh test installs it as root)"
	exit 0
fi
if [[ ! -d $NM/@modelcontextprotocol/sdk ]]; then
	echo "1..0 # SKIP the MCP clients are not installed (./build.sh test runs npm ci)"
	exit 0
fi
exec node "$ROOT/test/integration/mcp_sdk.cjs" "$NM"
