#!/usr/bin/env bash
# pysbx session: the persistent worker and its protocol, driven by a
# Python client as a tool drives it (test/integration/session_test.py,
# through scripts/session_client.py). Needs python3 and the chain.
set -u
ROOT=${PYSBX_ROOT:?}
if ! command -v python3 >/dev/null; then
	echo "1..0 # SKIP python3 is not installed"
	exit 0
fi
exec python3 -I "$ROOT/test/integration/session_test.py"
