#!/usr/bin/env bash
# fuzz.sh - the libFuzzer targets (./build.sh fuzz) still build, and each
# runs its seed corpus once without a finding: a change elsewhere (a new
# link dependency, a parser that now crashes on a seed) must not break
# the fuzzing that docs/FUZZING.md describes. The fuzzing itself is
# scripts/fuzz.sh, not part of the suite.
. "$PYSBX_SRC/test/packaging/common.inc"

if ! command -v clang >/dev/null; then
	echo "1..0 # SKIP clang is not installed (apt-get install clang; ./build.sh test does it as root)"
	exit 0
fi
TARGETS=()
for f in "$SRC"/test/fuzz/fuzz_*.c; do
	t=${f##*/}
	TARGETS+=("${t%.c}")
done
echo "1..$((${#TARGETS[@]} + 1))"

out=$(make -C "$SRC" -s -j2 fuzz 2>&1)
is "$?" 0 "make fuzz builds every target" || printf '%s\n' "$out" | tail -5 | sed 's/^/# /'
for t in "${TARGETS[@]}"; do
	corpus=$SRC/test/fuzz/corpus/$t
	if [[ ! -x $SRC/build/fuzz/$t || ! -d $corpus ]]; then
		not_ok "$t runs its seeds" "no build/fuzz/$t or no corpus"
		continue
	fi
	# The targets write their include files to a fixed directory
	# (test/fuzz/fuzz_common.h: a crash file must reproduce anywhere);
	# if another user made it, they cannot run here.
	if [[ -e /tmp/pysbx-fuzz-inc && ! -w /tmp/pysbx-fuzz-inc ]]; then
		skip "$t runs its seeds: /tmp/pysbx-fuzz-inc belongs to another user (remove it to run them)"
		continue
	fi
	# -runs=0: every seed once, nothing mutated.
	out=$("$SRC/build/fuzz/$t" -runs=0 "$corpus" 2>&1)
	is "$?" 0 "$t runs its $(ls "$corpus" | wc -l) seeds without a finding" ||
		printf '%s\n' "$out" | tail -5 | sed 's/^/# /'
done
