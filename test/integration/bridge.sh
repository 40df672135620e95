#!/usr/bin/env bash
# pysbx session's tool bridge: declared tools called from sandboxed
# Python through the client, and calls forged on the worker's channel,
# refused before the client sees them (test/integration/bridge_test.py).
set -u
ROOT=${PYSBX_ROOT:?}
if ! command -v python3 >/dev/null; then
	echo "1..0 # SKIP python3 is not installed"
	exit 0
fi
exec python3 -I "$ROOT/test/integration/bridge_test.py"
