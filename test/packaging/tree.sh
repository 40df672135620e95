#!/usr/bin/env bash
# tree.sh - the source tree itself: git tracks no editor or temporary
# files, and the pkg/ modules include each other without a cycle (the
# layering of docs/DESIGN.md: a module never reaches back up).
. "$PYSBX_SRC/test/packaging/common.inc"

echo "1..2"

if ! git -C "$SRC" rev-parse --git-dir >/dev/null 2>&1; then
	skip "no temporary files tracked: $SRC is not a git checkout"
else
	bad=$(git -C "$SRC" ls-files | grep -E '(^|/)\.[^/]*\.tmp$|\.tmp$|~$|\.orig$|\.rej$|\.swp$|(^|/)#[^/]*#$')
	is "$bad" "" "git tracks no editor or temporary file (.*.tmp, *~, *.orig, *.rej, *.swp)"
fi

# The module graph: pkg/A -> pkg/B when a file of pkg/A includes "B/...".
cycles=$(python3 "$SRC/scripts/include-cycles.py" "$SRC/pkg" 2>&1)
is "$cycles" "" "no include cycle between pkg/ modules"
