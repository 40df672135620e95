#!/usr/bin/env bash
# man.sh - the man pages in docs/man: `mandoc -T lint` finds nothing at
# warning level or above, and every option each program's --help names
# appears in the DESCRIPTION of that program's rendered page.
. "$PYSBX_SRC/test/packaging/common.inc"

MAN=$SRC/docs/man
BIN=$SRC/build/bin
PAGES=(pysbx.1 pysbx-clean.1 pysbx-mount.1 pysbx-exec.1 pysbx-landlock.1 pysbx-seccomp.1
	pysbx.policy.5)
if ! command -v mandoc >/dev/null; then
	echo "1..0 # SKIP mandoc is not installed (apt-get install mandoc; ./build.sh test does it as root)"
	exit 0
fi
echo "1..$((${#PAGES[@]} + 6))"

for p in "${PAGES[@]}"; do
	if [[ ! -f $MAN/$p ]]; then
		not_ok "$p exists"
		continue
	fi
	# Cross-references to pages this system lacks are not warnings of
	# the page: -W warning, and the database note filtered out.
	out=$(mandoc -T lint -W warning "$MAN/$p" 2>&1 | grep -v 'outdated mandoc.db')
	is "$out" "" "mandoc -T lint -W warning $p: nothing"
done

# The options of a --help text: every word that starts with - or -- and a
# letter, where an option can stand (line start, blank, '[', '|', ',').
help_opts() {
	grep -oE '(^|[][ |,])--?[A-Za-z][A-Za-z-]*' | sed 's/^[][ |,]//' |
		sort -u
}
for prog in pysbx pysbx-clean pysbx-mount pysbx-exec pysbx-landlock pysbx-seccomp; do
	# Described, not only listed: searched in DESCRIPTION, not SYNOPSIS.
	text=$(mandoc -T ascii "$MAN/$prog.1" 2>/dev/null | sed 's/.\x08//g' |
		sed -n '/^DESCRIPTION/,/^[A-Z][A-Z ]*$/p')
	missing=()
	opts=$("$BIN/$prog" --help 2>&1 | help_opts)
	for o in $opts; do
		grep -qE -- "(^|[][ |,])$o([][ ,|='])|$o\$" <<<"$text" ||
			missing+=("$o")
	done
	if [[ -z $opts ]]; then
		not_ok "$prog --help names options" "no option found in --help"
	elif ((${#missing[@]})); then
		not_ok "every option of $prog --help is described in $prog(1)" \
			"missing: ${missing[*]}"
	else
		ok "every option of $prog --help is described in $prog(1) ($(echo $opts))"
	fi
done
