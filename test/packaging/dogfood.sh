#!/usr/bin/env bash
# dogfood.sh - the project's own unit tests, run again inside
# `pysbx run -p policies/ci.policy` (the CI use of pysbx, on pysbx): each
# passes there exactly as outside (same TAP plan, no failure). A test
# that passes outside but not inside is a hermeticity bug.
. "$PYSBX_SRC/test/packaging/common.inc"

units=()
for src in "$SRC"/test/unit/*.c; do
	t=$(basename "$src" .c)
	[[ -x $SRC/build/test/unit/$t ]] && units+=("$t")
done
if ((${#units[@]} == 0)); then
	echo "1..0 # SKIP no unit test is built (run ./build.sh)"
	exit 0
fi
echo "1..${#units[@]}"

# The workspace: a copy of what the unit tests read (test/, policies/,
# the binaries), writable by whoever runs them; ci.policy itself comes
# from the root-owned tree, outside the read-write workspace (a policy
# the sandbox could rewrite is refused).
scratch_dir T
W=$T/ws
mkdir -p "$W/build/test/unit"
cp -R "$SRC/test" "$SRC/policies" "$W/"
for t in "${units[@]}"; do cp "$SRC/build/test/unit/$t" "$W/build/test/unit/"; done
# A home of its own: ci.policy masks the credential stores under it.
mkdir -m 0700 "$T/home"
AS_HOME=$T/home
[[ -n $TUID ]] && chown -R "$TUID:$TUID" "$W" "$T/home"

for t in "${units[@]}"; do
	outside=$(cd "$SRC" && "$SRC/build/test/unit/$t" 2>/dev/null | grep -E '^1\.\.[0-9]+')
	out=$(as_user "$PYSBX_BIN/pysbx" run -p "$PYSBX_POLICIES/ci.policy" \
		-D WORKSPACE="$W" -- "$W/build/test/unit/$t" 2>&1)
	rc=$?
	plan=$(grep -E '^1\.\.[0-9]+' <<<"$out")
	fails=$(grep -E '^not ok' <<<"$out")
	oks=$(grep -cE '^ok' <<<"$out")
	if [[ $rc == 0 && -z $fails && -n $plan && $plan == "$outside" &&
		$plan == "1..$oks" ]]; then
		ok "unit/$t inside ci.policy: $plan, no failure"
	else
		not_ok "unit/$t inside ci.policy" "exit $rc, plan '$plan' (outside '$outside')" \
			"${fails:-$(tail -n 3 <<<"$out")}"
	fi
done
