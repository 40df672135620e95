#!/usr/bin/env bash
# Scratch directories against another local user (issue 18, point 7):
# a scratch parent inside a directory another user owns is refused, as
# the trust check refuses a policy there (that user could rename the
# scratch dir away between the guard's mkdir and the mount step's bind
# and put their own in its place); and a NAME.lock another user plants
# next to the caller's stale scratch dir in a sticky parent such as /tmp
# does not keep --sweep from removing it.
#
# Another user's directories cannot be made by the test uid: test/run.sh
# makes them as root before it drops privileges ($PYSBX_ROOT/foreign,
# $PYSBX_ROOT/sweep). Run as a normal user, this script skips.
set -u

CLEAN=${PYSBX_BIN:?}/pysbx-clean
R=${PYSBX_ROOT:?}
T=$(mktemp -d "${HOME:-/tmp}/scratch-owner.XXXXXX") || exit 111
chmod 0700 "$T"
trap 'rm -rf "$T"' EXIT
. "${PYSBX_TESTDIR:?}/lib.sh"

if [[ ! -d $R/foreign/mine || ! -d $R/sweep ]]; then
	echo "1..0 # SKIP needs another user's directories (test/run.sh makes them as root)"
	exit 0
fi
echo "1..7"

M=$R/foreign/mine
"$CLEAN" --scratch-parent "$M" -- /bin/true 2>"$T/err"
is "$?" 100 "a scratch parent of ours inside another user's directory is refused (100)"
is "$(head -1 "$T/err")" \
	"pysbx-clean: fatal: unable to use scratch parent $M: $R/foreign is owned by another user" \
	"... naming the directory and its owner"
printf 'scratch create %s\n' "$M" >"$T/p.policy"
chmod 0600 "$T/p.policy"
"$CLEAN" -p "$T/p.policy" -- /bin/true 2>"$T/err"
is "$?" 100 "... and so is a policy's scratch create there"
is "$(ls -A "$M")" "" "... and nothing was made in it"

# The caller's stale scratch dir; another user's lock file beside it.
D=$R/sweep/pysbx-0123456789abcdef
mkdir -m 0700 "$D"
: >"$D/left-over"
check "(another user's NAME.lock is there)" test -O "$D" -a ! -O "$D.lock" -a -e "$D.lock"
out=$("$CLEAN" --sweep "$R/sweep" 2>&1)
is "$?:$out" "0:$D" "--sweep removes the caller's stale dir despite another user's NAME.lock"
check "... it is gone" test ! -e "$D"
