#!/usr/bin/env bash
# scripts/bench/derive.sh - the bench's two variants of python.policy.
#
#   derive.sh POLICY OUTDIR
#
# Writes OUTDIR/python-nonet.policy (POLICY without `net` in its unshare
# line: the "no net ns" rows) and OUTDIR/python-host.policy (POLICY with
# `chdir ${WORKSPACE}` instead of `chdir /workspace`, so that pysbx-exec
# can run it standalone on the host, where /workspace does not exist).
# They are derived at every run instead of kept as copies, because copies
# drift: each must differ from POLICY in exactly the one line named here,
# or nothing is written and this exits 111 with the line it looked for.

set -uo pipefail

(($# == 2)) || { echo "usage: derive.sh POLICY OUTDIR" >&2; exit 100; }
POLICY=$1
OUT=$2

derive() { # NAME FROM-LINE TO-LINE
	local tmp
	tmp=$(mktemp "$OUT/.$1.XXXXXX") || exit 111
	# awk compares whole lines as strings (no regex, no ${...} expansion)
	# and counts what it replaced: exit 3 unless exactly one line.
	if ! awk -v from="$2" -v to="$3" '$0 == from { print to; n++; next }
		{ print } END { exit n != 1 ? 3 : 0 }' "$POLICY" >"$tmp"; then
		rm -f "$tmp"
		echo "derive.sh: fatal: $POLICY has no line '$2' (or more than one):" \
			"cannot derive $1; update scripts/bench/derive.sh" >&2
		exit 111
	fi
	chmod 0644 "$tmp" && mv "$tmp" "$OUT/$1" || exit 111
}

derive python-nonet.policy 'unshare user mount pid ipc uts net' 'unshare user mount pid ipc uts'
derive python-host.policy 'chdir /workspace' 'chdir ${WORKSPACE}'
# python.policy includes its network part (network-${NETWORK}.inc) from
# its own directory: the variants need the files beside them.
for inc in "$(dirname "$POLICY")"/network-*.inc; do
	[[ -e $inc ]] || continue
	install -m 0644 "$inc" "$OUT/" || exit 111
done
