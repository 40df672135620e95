#!/usr/bin/env bash
# The scratch directory between the guard's mkdir and pysbx-mount's bind
# (issue 18, point 7), as an attacker with write access to the scratch
# parent does it (a process of the caller's, e.g. in another sandbox that
# binds that parent read-write): rename the new directory away and put
# another in its place. strace stretches the window (pysbx-mount's first
# open_tree waits 1.5 s); the host then checks which directory the
# sandbox wrote into. The bind must be refused, the decoy untouched.
set -u
BIN=${PYSBX_BIN:?}
T=$(mktemp -d "${HOME:-/tmp}/scratch-swap.XXXXXX") || exit 111
chmod 0700 "$T"
trap 'rm -rf "$T"' EXIT
. "${PYSBX_TESTDIR:?}/lib.sh"

if ! strace -f -o /dev/null true 2>/dev/null; then
	echo "1..0 # SKIP strace cannot trace here"
	exit 0
fi
echo "1..9"

R=$T/parent
mkdir -m 0700 "$R" "$T/decoy"
cat >"$T/p.policy" <<EOF
unshare user mount pid
ro-bind /usr /usr
symlink usr/bin /bin
symlink usr/lib /lib
symlink usr/lib64 /lib64
scratch create $R
bind \${SCRATCH} /scratch
EOF
chmod 0600 "$T/p.policy"

# run MODE: one sandbox under strace; MODE swap: the directory is moved
# aside and the decoy moved into its name during the window; MODE rename:
# it is only renamed (nothing at its name).
run() {
	strace -f -o /dev/null -e trace=open_tree \
		-e inject=open_tree:delay_enter=1500000:when=1 \
		"$BIN/pysbx" run -p "$T/p.policy" -- /bin/sh -c \
		'echo sandbox >/scratch/written' >"$T/out" 2>"$T/err" &
	local racer=$! dir
	wait_for compgen -G "$R/pysbx-*" >/dev/null
	dir=$(compgen -G "$R/pysbx-[0-9a-f]*" | grep -v '\.lock$' | head -1)
	mv "$dir" "$T/moved"
	[[ $1 == swap ]] && mv "$T/decoy" "$dir"
	wait "$racer"
	rc=$?
	swapped=$dir
}

run swap
is "$rc" 111 "scratch dir replaced between the guard's mkdir and the bind: refused (111)"
check "... the decoy put in its place was not written into" \
	test ! -e "$swapped/written"
check "... nor the guard's own directory, moved away" test ! -e "$T/moved/written"
msg="pysbx-mount: fatal: unable to bind /scratch: source $swapped is no longer the scratch directory the guard made (renamed or replaced since; at $T/p.policy:7)"
is "$(grep -c -F "$msg" "$T/err")" 1 "... and the message names the path and the policy line"
check "... the decoy is still there (the guard removes only what it made)" test -d "$swapped"
is "$(grep -c -F "pysbx: warning: unable to remove $swapped: it is no longer the scratch directory made for this run (moved or replaced since); left as it is" "$T/err")" 1 \
	"... and the guard says it left it"
mv "$swapped" "$T/decoy"
rm -rf "$T/moved"

run rename
check "scratch dir renamed away with nothing in its place: refused too" \
	test "$rc" != 0 -a ! -e "$T/moved/written"

# Unraced, under the same strace: the bind works (the check is by
# identity, and the identity is the one the guard passed).
strace -f -o /dev/null -e trace=open_tree \
	"$BIN/pysbx" run -p "$T/p.policy" -- /bin/sh -c \
	'echo sandbox >/scratch/written; cat /scratch/written' >"$T/out" 2>"$T/err"
is "$?:$(cat "$T/out")" "0:sandbox" "unraced: the scratch dir is bound and written"
rm -rf "$T/moved"
is "$(ls -A "$R")" "" "... and every scratch dir was removed"
