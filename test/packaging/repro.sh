#!/usr/bin/env bash
# repro.sh - scripts/repro-check.sh: pysbx's own build, run twice inside
# ci.policy (different trees, caller environments and clock), gives
# bit-identical programs, unit tests and probes; a build that is not
# reproducible is caught, the first differing file and byte offset named.
. "$PYSBX_SRC/test/packaging/common.inc"

if [[ ! -f $SRC/build/seccomp/lib/libseccomp.a ]]; then
	echo "1..0 # SKIP run ./build.sh first (no build/seccomp)"
	exit 0
fi
echo "1..4"
scratch_dir T
mkdir -m 0700 "$T/home" "$T/tmp"
AS_HOME=$T/home

# The source as a checkout has it, plus the built libseccomp (the check
# has no network to fetch its source; it holds no path, dist.sh checks).
S=$T/src
mkdir -p "$S/build"
if git -C "$SRC" rev-parse --git-dir >/dev/null 2>&1; then
	git -C "$SRC" ls-files -z --cached --others --exclude-standard |
		(cd "$SRC" && xargs -0 sh -c 'for f; do [ -e "$f" ] && printf "%s\0" "$f"; done' sh) |
		tar -C "$SRC" --null -T - -cf - | tar -C "$S" -xf -
else
	tar -C "$SRC" --exclude=./build -cf - . | tar -C "$S" -xf -
fi
cp -a "$SRC/build/seccomp" "$S/build/seccomp"
cp "$SRC/scripts/repro-check.sh" "$T/repro-check.sh"
[[ -n $TUID ]] && chown -R "$TUID:$TUID" "$T/src" "$T/home" "$T/tmp"

check_run() {
	as_user TMPDIR="$T/tmp" PYSBX="$PYSBX_BIN/pysbx" \
		bash "$T/repro-check.sh" -p "$PYSBX_POLICIES/ci.policy" "$@"
}

out=$(check_run -s "$S" -o build/bin -o build/test -w 1 -- ./build.sh 2>&1)
rc=$?
if [[ $rc == 0 && $out == *"identical: "*" files under build/bin build/test"* ]]; then
	ok "pysbx's build inside ci.policy, twice: bit-identical ($(grep identical <<<"$out" | sed 's/^repro-check: //'))"
else
	not_ok "pysbx's build inside ci.policy, twice: bit-identical" "rc $rc" "$out"
fi
count=$(grep -o 'identical: [0-9]*' <<<"$out" | grep -o '[0-9]*$')
is "$count" "$(($(ls "$SRC"/cmd | wc -l) + $(ls "$SRC"/test/unit/*.c "$SRC"/test/probe/*.c | wc -l)))" \
	"every program, unit test and probe was compared"

# A build that is not: out/b holds the build directory after 5 equal
# bytes ("same\n"): the trees' paths share their prefix up to the scratch
# directory, then differ.
B=$T/bad
mkdir -p "$B/out" && echo same >"$B/out/a"
[[ -n $TUID ]] && chown -R "$TUID:$TUID" "$B"
out=$(check_run -s "$B" -o out -w 0 -- /bin/sh -c 'printf "same\n%s\n" "$PWD" >out/b' 2>&1)
rc=$?
at=$(sed -n 's/.*differ: out\/b at byte offset \([0-9]*\) .*/\1/p' <<<"$out")
pre=$(sed -n 's/.*build in \(.*\/\)1\/tree$/\1/p' <<<"$out")
if [[ $rc == 1 && -n $pre && $at == $((5 + ${#pre})) && $out == *"1 of 2 files differ"* ]]; then
	ok "a build that is not reproducible: exit 1, the file and the byte offset named"
else
	not_ok "a build that is not reproducible: exit 1, the file and the byte offset named" "rc $rc" "$out"
fi
out=$(check_run -s "$B" -w 0 -- /bin/false 2>&1)
rc=$?
if [[ $rc == 111 && $out == *"exited 1"* ]]; then
	ok "a failing build: exit 111 with its status"
else
	not_ok "a failing build: exit 111 with its status" "rc $rc" "$out"
fi
