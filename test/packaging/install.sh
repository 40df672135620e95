#!/usr/bin/env bash
# install.sh - ./build.sh install and uninstall: a staged root-owned
# install (DESTDIR) runs the chain and finds the shipped policies by name;
# the trust check refuses the same install once a directory of it is
# writable by others; a PREFIX the caller cannot write is refused with a
# message; uninstall removes every file.
. "$PYSBX_SRC/test/packaging/common.inc"

if ! is_root || [[ -z $TUID ]]; then
	echo "1..0 # SKIP needs root (a root-owned install, then a test uid)"
	exit 0
fi
echo "1..19"

scratch_dir T
D=$T/stage
P=/usr/local
I=$D$P
cp "$PYSBX_PROBE/bench_true" "$T/prog"
chmod 0755 "$T/prog"

out=$(DESTDIR=$D "$SRC/build.sh" install "$P" 2>&1)
okrc $? "DESTDIR=... ./build.sh install /usr/local"
want="pysbx pysbx-clean pysbx-exec pysbx-landlock pysbx-mount pysbx-seccomp"
same "the six programs in PREFIX/bin" "$want" "$(cd "$I/bin" && echo *)"
same "the shipped policies (and the worker's compiled code) in PREFIX/share/pysbx/policies" \
	"$( (cd "$SRC/policies" && ls; echo session_worker.pyc) | sort)" \
	"$(cd "$I/share/pysbx/policies" && ls)"
same "man pages in man1 and man5" \
	"pysbx-clean.1 pysbx-exec.1 pysbx-landlock.1 pysbx-mount.1 pysbx-seccomp.1 pysbx.1 pysbx.policy.5" \
	"$(cd "$I/share/man" && echo man1/* man5/* | sed 's|man[15]/||g')"
same "modes and owners: root, 0755 programs, 0644 policies" \
	"0:0:755 0:0:644" \
	"$(stat -c %u:%g:%a "$I/bin/pysbx-mount" "$I/share/pysbx/policies/ci.policy" | tr '\n' ' ' | sed 's/ $//')"

run() { as_user "$I/bin/pysbx" run "$@"; }
out=$(run -p minimal -D PROG="$T/prog" -- /prog 2>&1)
okrc $? "the installed front door runs the chain with 'minimal' by name ($out)"
out=$(as_user "$I/bin/pysbx" policy check minimal -D PROG=/x 2>&1)
is "$out" "$I/share/pysbx/policies/minimal.policy: ok" \
	"policy check resolves the name to PREFIX/share/pysbx/policies"
out=$(run -p nosuch -D PROG="$T/prog" -- /prog 2>&1)
rc=$?
is "$rc:$out" "100:pysbx: fatal: no shipped policy named 'nosuch' in $I/share/pysbx/policies
pysbx: hint: name a policy file with a '/' (./nosuch) or the suffix .policy; the shipped ones are listed in pysbx(1)" \
	"an unknown name: exit 100, the directory named"
out=$(run -p ../minimal -- /prog 2>&1)
is "$?" 100 "'../minimal' is a path (has a '/'), not a name: not found, 100"
out=$(run -p .minimal -- /prog 2>&1)
is "$?:$out" "100:pysbx: fatal: '.minimal' is not a shipped policy's name (a file needs a '/' or the suffix .policy)" \
	"a name starting with '.' is refused"

# The same install made writable by others: the trust check refuses the
# programs' directory, then a policy's.
chmod o+w "$I/bin"
out=$(run -p minimal -D PROG="$T/prog" -- /prog 2>&1)
rc=$?
if [[ $rc == 100 && $out == *"$I/bin"*"writable by others"* ]]; then
	ok "an install whose bin/ others can write is refused (100)"
else
	not_ok "an install whose bin/ others can write is refused (100)" "rc $rc: $out"
fi
chmod o-w "$I/bin"
chmod g+w "$I/share/pysbx/policies/minimal.policy"
out=$(run -p minimal -D PROG="$T/prog" -- /prog 2>&1)
rc=$?
if [[ $rc == 100 && $out == *minimal.policy*"writable by its group"* ]]; then
	ok "a shipped policy its group can write is refused (100)"
else
	not_ok "a shipped policy its group can write is refused (100)" "rc $rc: $out"
fi
chmod g-w "$I/share/pysbx/policies/minimal.policy"
out=$(run -p minimal -D PROG="$T/prog" -- /prog 2>&1)
okrc $? "the install runs again once fixed ($out)"

# A PREFIX the caller cannot write: refused before anything is built.
mkdir "$T/src" && cp "$SRC/build.sh" "$T/src/" && chmod -R a+rX "$T/src"
out=$(as_user bash "$T/src/build.sh" install /usr/local 2>&1)
rc=$?
if [[ $rc == 111 && $out == *"unable to install into /usr/local: /usr/local is not a directory"*"can write to"* && $out == *hint:*PREFIX* ]]; then
	ok "install into a PREFIX the caller cannot write: 111, the directory and a hint"
else
	not_ok "install into a PREFIX the caller cannot write: 111, the directory and a hint" "rc $rc: $out"
fi
out=$("$SRC/build.sh" install relative/dir 2>&1)
is "$?:$out" "100:build.sh: PREFIX must be an absolute path, not 'relative/dir'" \
	"a relative PREFIX is a usage error"

# An install under a directory others can write: install warns, run
# refuses.
mkdir -m 0777 "$T/open"
out=$(DESTDIR=$T/open "$SRC/build.sh" install /opt/pysbx 2>&1)
is "$?:$(grep warning <<<"$out")" \
	"0:build.sh: warning: $T/open is owned by uid 0 with mode 777: pysbx refuses to run from under it (docs/INSTALL.md)" \
	"install under a directory others can write: a warning naming it"
out=$(as_user "$T/open/opt/pysbx/bin/pysbx" run -p minimal -D PROG="$T/prog" -- /prog 2>&1)
rc=$?
if [[ $rc == 100 && $out == *"directory $T/open is writable by others"* ]]; then
	ok "and pysbx refuses to run from there (100)"
else
	not_ok "and pysbx refuses to run from there (100)" "rc $rc: $out"
fi

out=$(DESTDIR=$D "$SRC/build.sh" uninstall "$P" 2>&1)
okrc $? "./build.sh uninstall /usr/local"
left=$(find "$D" ! -type d)
is "$left" "" "uninstall leaves no file behind"
