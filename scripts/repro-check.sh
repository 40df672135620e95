#!/usr/bin/env bash
# scripts/repro-check.sh - is a build reproducible? Run it twice inside
# policies/ci.policy and compare what it produced.
#
#   scripts/repro-check.sh [-s SRC] [-o PATH]... [-p POLICY] [-w SECONDS] [-k]
#                          [--] CMD [ARG]...
#
# SRC (default: the current directory) is copied to two scratch trees at
# different paths; CMD runs in each (its working directory) under
# `pysbx run -p POLICY -D WORKSPACE=TREE` (default policy: ci), the second
# run with a different caller environment (TZ, LANG, LC_ALL, USER, HOME,
# umask, extra variables; SOURCE_DATE_EPOCH is kept) and started at least
# SECONDS (default 2) later on the wall clock. Then every file under each
# PATH (relative to the tree; default: the whole tree) is compared by
# sha256; the first difference is named with its byte offset.
#
#   -k   keep the scratch trees (printed) instead of removing them
#
# pysbx is $PYSBX, else `pysbx` from PATH, else this tree's build/bin/pysbx.
#
# Exit status: 0 identical; 1 the outputs differ; 100 usage; 111 a run or
# a step of the check failed (the build's own status is printed).
set -uo pipefail

usage() {
	echo "usage: scripts/repro-check.sh [-s SRC] [-o PATH]... [-p POLICY] [-w SECONDS] [-k] [--] CMD [ARG]..." >&2
	exit 100
}
die() { echo "repro-check: fatal: $*" >&2; exit 111; }
say() { echo "repro-check: $*" >&2; }

HERE=$(cd "$(dirname "$0")/.." && pwd)
SRC=$PWD POLICY=ci WAIT=2 KEEP=0 OUTS=()
while getopts s:o:p:w:k o; do
	case $o in
	s) SRC=$OPTARG ;;
	o) OUTS+=("$OPTARG") ;;
	p) POLICY=$OPTARG ;;
	w) WAIT=$OPTARG ;;
	k) KEEP=1 ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
(($#)) || usage
[[ $WAIT =~ ^[0-9]+$ ]] || usage
for p in "${OUTS[@]}"; do
	[[ $p != /* && $p != *..* ]] ||
		{ echo "repro-check: -o takes a path inside the tree, not '$p'" >&2; exit 100; }
done
((${#OUTS[@]})) || OUTS=(.)
[[ -d $SRC ]] || { echo "repro-check: no directory $SRC" >&2; exit 100; }
SRC=$(cd "$SRC" && pwd)

PYSBX=${PYSBX:-$(command -v pysbx || echo "$HERE/build/bin/pysbx")}
[[ -x $PYSBX ]] || die "no pysbx (set PYSBX, or run ./build.sh in $HERE)"

D=$(mktemp -d "${TMPDIR:-/tmp}/repro.XXXXXX") || die "unable to make a scratch dir"
chmod 0755 "$D"
((KEEP)) || trap 'chmod -R u+w "$D" 2>/dev/null; rm -rf "$D"' EXIT
T1=$D/1/tree
T2=$D/second/run/tree-2
mkdir -p "$D/home-2"

# run TREE ENV...: one build, CMD in TREE inside the policy.
run() {
	local tree=$1 rc
	shift
	mkdir -p "$tree"
	cp -a "$SRC/." "$tree/" || die "unable to copy $SRC to $tree"
	say "build in $tree"
	env "$@" "$PYSBX" run -p "$POLICY" -D WORKSPACE="$tree" -- \
		"${CMDV[@]}" >"$tree.log" 2>&1
	rc=$?
	if ((rc)); then
		tail -n 20 "$tree.log" >&2
		die "the build in $tree exited $rc (log: $tree.log)"
	fi
}
CMDV=("$@")
run "$T1" TZ=UTC LANG=C.UTF-8 LC_ALL=C.UTF-8
sleep "$WAIT"
(umask 077 && run "$T2" TZ=Asia/Kathmandu LANG=de_DE.UTF-8 LC_ALL=tr_TR.UTF-8 \
	USER=someone-else HOME="$D/home-2" MAKEFLAGS=-j1 \
	CFLAGS=-O0 REPRO_NOISE="$RANDOM$RANDOM") || exit $?

# sums TREE: "sha256  path" for every file under the output paths; a
# symlink is its target, a missing path is "missing".
sums() {
	local p
	for p in "${OUTS[@]}"; do
		if [[ ! -e $1/$p && ! -L $1/$p ]]; then
			echo "missing  $p"
			continue
		fi
		(cd "$1" && find "$p" \( -type f -o -type l \) -print0 |
			LC_ALL=C sort -z |
			while IFS= read -r -d '' f; do
				if [[ -L $f ]]; then
					printf 'link:%s  %s\n' "$(readlink "$f")" "$f"
				else
					printf '%s  %s\n' "$(sha256sum <"$f" | cut -c1-64)" "$f"
				fi
			done)
	done
}
sums "$T1" >"$D/1.sums" || die "unable to hash $T1"
sums "$T2" >"$D/2.sums" || die "unable to hash $T2"
n=$(wc -l <"$D/1.sums")
if cmp -s "$D/1.sums" "$D/2.sums"; then
	say "identical: $n files under ${OUTS[*]} ($(sha256sum <"$D/1.sums" | cut -c1-16) over the list)"
	((KEEP)) && say "kept: $T1 $T2"
	exit 0
fi
first=$(diff "$D/1.sums" "$D/2.sums" | grep -m1 '^[<>]' | sed 's/^[<>] [^ ]*  //')
if [[ -f $T1/$first && -f $T2/$first ]]; then
	at=$(cmp "$T1/$first" "$T2/$first" | sed -n 's/.*differ: byte \([0-9]*\).*/\1/p')
	if [[ -n $at ]]; then
		say "differ: $first at byte offset $((at - 1)) (of $(stat -c %s "$T1/$first") and $(stat -c %s "$T2/$first") bytes)"
	else
		say "differ: $first: one is a prefix of the other ($(stat -c %s "$T1/$first") and $(stat -c %s "$T2/$first") bytes)"
	fi
else
	say "differ: $first exists in only one of the two builds (or is a symlink to another target)"
fi
say "$(diff "$D/1.sums" "$D/2.sums" | grep -c '^<') of $n files differ"
((KEEP)) && say "kept: $T1 $T2"
exit 1
