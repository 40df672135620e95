#!/usr/bin/env bash
# The test harness itself: scripts run unprivileged, with the documented
# environment. If this fails, no sandbox test result can be trusted.
set -u

n=0
check() { # check DESCRIPTION COMMAND...
	local desc=$1
	shift
	n=$((n + 1))
	if "$@"; then
		echo "ok $n - $desc"
	else
		echo "not ok $n - $desc"
	fi
}

echo "1..6"
check "runs as a non-root uid (got $(id -u))" test "$(id -u)" != 0
check "holds no effective capability" \
	grep -qx 'CapEff:[[:space:]]*0*' /proc/self/status
check "PYSBX_BIN is a directory" test -d "${PYSBX_BIN:-}"
check "PYSBX_TESTDIR holds this script" test -r "${PYSBX_TESTDIR:-}/integration/harness.sh"
check "PYSBX_PROBE and PYSBX_POLICIES are set" \
	test -n "${PYSBX_PROBE:-}" -a -n "${PYSBX_POLICIES:-}"
check "HOME is writable" test -w "${HOME:-/nonexistent}"
