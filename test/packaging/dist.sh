#!/usr/bin/env bash
# dist.sh - ./build.sh dist is reproducible: the tree copied to two
# different directories (one a git checkout whose last commit gives the
# timestamp, one without git given SOURCE_DATE_EPOCH) yields byte-identical
# tarballs; entries sorted, owned 0/0, every mtime the epoch; no build path
# in the binaries; without SOURCE_DATE_EPOCH or git, a clear refusal.
. "$PYSBX_SRC/test/packaging/common.inc"

if [[ ! -f $SRC/build/seccomp/lib/libseccomp.a ]]; then
	echo "1..0 # SKIP run ./build.sh first (no build/seccomp)"
	exit 0
fi
echo "1..10"
EPOCH=1764547200	# 2025-12-01 00:00 UTC
VER=$(sed -n 's/^#define PYSBX_VERSION "\(.*\)"$/\1/p' "$SRC/pkg/chain/chain.h")
NAME=pysbx-$VER-x86_64-linux

scratch_dir T
# copy_tree DIR: the source files (what git tracks or would track, without
# build/), plus the built libseccomp, which the copies share: building it
# again would add a minute, and it holds no path (checked below).
copy_tree() {
	mkdir -p "$1/build"
	if git -C "$SRC" rev-parse --git-dir >/dev/null 2>&1; then
		git -C "$SRC" ls-files -z --cached --others --exclude-standard |
			(cd "$SRC" && xargs -0 sh -c 'for f; do [ -e "$f" ] && printf "%s\0" "$f"; done' sh) |
			tar -C "$SRC" --null -T - -cf - | tar -C "$1" -xf -
	else
		tar -C "$SRC" --exclude=./build -cf - . | tar -C "$1" -xf -
	fi
	cp -a "$SRC/build/seccomp" "$1/build/seccomp"
}
A=$T/a/first
B=$T/elsewhere/b/second-copy
copy_tree "$A"
copy_tree "$B"
# B: a git checkout whose last commit is at EPOCH; A has no .git.
(cd "$B" && git init -q && git add -A &&
	GIT_AUTHOR_DATE=@$EPOCH GIT_COMMITTER_DATE=@$EPOCH \
	git -c user.name=t -c user.email=t@t commit -q -m release) ||
	exit 111
rm -rf "$A/.git"

out=$(cd "$A" && env -u SOURCE_DATE_EPOCH ./build.sh dist 2>&1)
rc=$?
if [[ $rc == 111 && $out == *"SOURCE_DATE_EPOCH is not set and $A is not a git checkout"* && $out == *hint:* ]]; then
	ok "dist without SOURCE_DATE_EPOCH outside git: 111 and a hint"
else
	not_ok "dist without SOURCE_DATE_EPOCH outside git: 111 and a hint" "rc $rc: $out"
fi
out=$(cd "$A" && SOURCE_DATE_EPOCH=1e9 ./build.sh dist 2>&1)
is "$?" 100 "a SOURCE_DATE_EPOCH that is not a number: 100"

(cd "$A" && SOURCE_DATE_EPOCH=$EPOCH JOBS=2 ./build.sh dist) >"$T/a.log" 2>&1
okrc $? "dist in $A with SOURCE_DATE_EPOCH"
(cd "$B" && env -u SOURCE_DATE_EPOCH JOBS=2 ./build.sh dist) >"$T/b.log" 2>&1
okrc $? "dist in $B from the last commit's time"
TA=$A/build/dist/$NAME.tar.gz
TB=$B/build/dist/$NAME.tar.gz
ha=$(sha256sum <"$TA" | cut -c1-64)
hb=$(sha256sum <"$TB" | cut -c1-64)
if [[ -n $ha && $ha == "$hb" ]]; then
	ok "the two tarballs are identical (sha256 $ha)"
else
	not_ok "the two tarballs are identical" "$TA: $ha" "$TB: $hb"
	cmp "$TA" "$TB" | sed 's/^/# /'
fi

list=$(tar -tvzf "$TA" --numeric-owner --full-time)
bad=$(awk -v e="$(date -u -d @$EPOCH '+%F %T')" \
	'$2 != "0/0" || ($4 " " $5) != e' <<<"$list")
is "$bad" "" "every entry owned 0/0 with mtime $EPOCH"
names=$(tar -tzf "$TA")
same "entries sorted by name" "$(LC_ALL=C sort <<<"$names")" "$names"
want="$NAME/LICENSE $NAME/bin/pysbx $NAME/share/doc/pysbx/README.md $NAME/share/man/man5/pysbx.policy.5 $NAME/share/pysbx/policies/minimal.policy"
miss=""
for f in $want; do grep -qx "$f" <<<"$names" || miss+=" $f"; done
is "$miss" "" "holds the programs, policies, man pages, docs and LICENSE"

mkdir "$T/x" && tar -C "$T/x" -xzf "$TA"
paths=$(strings -a "$T/x/$NAME"/bin/* "$SRC/build/seccomp/lib/libseccomp.a" |
	grep -E "$T|$SRC|/build/" | sort -u)
is "$paths" "" "no build directory named in the binaries or libseccomp.a"
out=$(as_user "$T/x/$NAME/bin/pysbx" policy check ci -D WORKSPACE=/w 2>&1)
is "$out" "$T/x/$NAME/share/pysbx/policies/ci.policy: ok" \
	"the unpacked tree's pysbx finds its policies by name"
