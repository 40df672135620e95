#!/usr/bin/env bash
# The chain's own programs (DESIGN.md "Chain conventions"): each step
# checks the next program it runs (owner root or the caller, not writable
# by group or others, nor any directory above it, nor under a read-write
# bind of the plan) and execs exactly the file it checked, through an fd
# (execveat), never its name again. pysbx-mount opens every later step on
# the host before pivot_root, so nothing of the toolkit is inside the
# sandbox: a root filesystem bound at / works, read-only or not, and is
# left as it was. Policies are trusted by inode: a second hard link is
# refused, and a read-write bind of a policy's directory under another
# name is caught by device and inode.
set -u

B=${PYSBX_BIN:?}
PROBE=${PYSBX_PROBE:?}
P=${PYSBX_POLICIES:?}
T=$(mktemp -d "${HOME:-/tmp}/chain-trust.XXXXXX") || exit 111
chmod 0700 "$T"
trap 'chmod -R u+rwX "$T" 2>/dev/null; rm -rf "$T"' EXIT
. "${PYSBX_TESTDIR:?}/lib.sh"

if ! unshare -Ur true 2>/dev/null; then
	echo "1..0 # SKIP unprivileged user namespaces are not available"
	exit 0
fi
echo "1..26"

# A toolkit of our own, to spoil one program at a time.
KIT=$T/kit
mkdir -m 0755 "$KIT"
cp "$B"/pysbx "$B"/pysbx-clean "$B"/pysbx-mount "$B"/pysbx-exec \
	"$B"/pysbx-seccomp "$KIT"/
chmod 0755 "$KIT"/*

# kit [ARGS...]: pysbx run with minimal.policy and exec_probe as /prog;
# exit status in $rc, stderr in $T/err.
kit() {
	out=$("$KIT/pysbx" run -p "$P/minimal.policy" -D PROG="$PROBE/exec_probe" \
		-- /prog "$@" 2>"$T/err")
	rc=$?
}

kit exit 7
is "$rc" 7 "the chain runs from a toolkit directory of our own (exit 7)"
kit fds
is "$(grep '^fd ' <<<"$out" | cut -d' ' -f2 | tr '\n' ' ')" "0 1 2 " \
	"the target has only fds 0, 1 and 2: no step's fd reaches it"

# spoiled PROG MODE WHO: PROG of the kit with MODE is refused by WHO
# (exit 100, before the target runs).
spoiled() {
	chmod "$2" "$KIT/$1"
	kit exit 7
	chmod 0755 "$KIT/$1"
	is "$rc" 100 "$1 mode $2 is refused (100), the target never runs"
	local want="$3: fatal: refusing pysbx program $KIT/$1: it is writable by $4"
	if grep -qxF "$want" "$T/err"; then
		ok "... by $3, naming it"
	else
		not_ok "... by $3, naming it" "expected: $want" "got: $(head -3 "$T/err")"
	fi
}
spoiled pysbx-seccomp 0777 pysbx-mount others
spoiled pysbx-seccomp 0775 pysbx-mount "its group"
spoiled pysbx-seccomp 0757 pysbx-mount others
spoiled pysbx-exec 0757 pysbx-mount others
spoiled pysbx-mount 0757 pysbx others   # the guard, in pysbx run

# Standalone, the step before pysbx-seccomp is pysbx-exec.
chmod 0757 "$KIT/pysbx-seccomp"
"$KIT/pysbx-exec" -- "$KIT/pysbx-seccomp" -- /bin/true 2>"$T/err"
is "$?" 100 "standalone pysbx-exec refuses an others-writable pysbx-seccomp (100)"
chmod 0755 "$KIT/pysbx-seccomp"

# A directory above a step writable by others (no sticky bit).
chmod 0757 "$KIT"
kit exit 7
chmod 0755 "$KIT"
is "$rc" 100 "a toolkit directory writable by others is refused (100)"

# Exactly what was checked runs: the step is exec'd through the fd it
# was given, whatever its name leads to afterwards.
mkdir -m 0755 "$T/swap"
cp "$B/pysbx-seccomp" "$T/swap/pysbx-seccomp"
exec 7<"$T/swap/pysbx-seccomp"
printf '#!/bin/sh\necho swapped\n' >"$T/swap/evil"
chmod 0755 "$T/swap/evil"
mv "$T/swap/evil" "$T/swap/pysbx-seccomp"
out=$("$KIT/pysbx-exec" --next-fd 7 -- "$T/swap/pysbx-seccomp" -- /bin/echo checked 2>&1)
exec 7<&-
is "$out" "checked" "a step swapped after the check is not what runs (the fd is)"

# --- policies by inode ----------------------------------------------------

mkdir -m 0700 "$T/pol" "$T/ws"
cat >"$T/pol/p.policy" <<'POL'
unshare user mount pid ipc uts net
ro-bind /usr /usr
symlink usr/bin /bin
symlink usr/lib /lib
ro-bind-try /usr/lib64 /lib64
proc /proc
dev /dev
bind ${WORKSPACE} /workspace
POL
chmod 0644 "$T/pol/p.policy"
"$B/pysbx" run -p "$T/pol/p.policy" -D WORKSPACE="$T/ws" -- /bin/true 2>"$T/err"
is "$?" 0 "a policy with one link and a separate workspace runs"

ln "$T/pol/p.policy" "$T/ws/p.policy"
"$B/pysbx" run -p "$T/pol/p.policy" -D WORKSPACE="$T/ws" -- /bin/true 2>"$T/err"
is "$?" 100 "a policy with a hard link inside the writable workspace is refused (100)"
check "... naming the links" grep -q "refusing policy $T/pol/p.policy: it has 2 hard links" "$T/err"
"$B/pysbx" run -p "$T/ws/p.policy" -D WORKSPACE="$T/ws" -- /bin/true 2>"$T/err"
is "$?" 100 "... and so is the link itself"
rm "$T/ws/p.policy"

# An include with a second link.
printf 'include inc.policy\n' >"$T/pol/top.policy"
cp "$T/pol/p.policy" "$T/pol/inc.policy"
ln "$T/pol/inc.policy" "$T/ws/inc.policy"
"$B/pysbx" run -p "$T/pol/top.policy" -D WORKSPACE="$T/ws" -- /bin/true 2>"$T/err"
is "$?" 100 "an include with a hard link in the workspace is refused (100)"
rm "$T/ws/inc.policy"

# The policy's directory bound read-write under another name: a bind
# mount of it, made in a user and mount namespace of our own, inside a
# tmpfs root that namespace owns (so that every directory above the
# policy is its root's, as the trust check wants): the names differ, the
# device and inode are the same.
mkdir -m 0700 "$T/root"
unshare -Urm sh -c 'mount -t tmpfs -o mode=0755 none "$1/root" && cd "$1/root" &&
	mkdir pol alias bin && cp "$2/pysbx-clean" bin/ &&
	printf "unshare user mount\nbind \${WORKSPACE} /workspace\n" >pol/p.policy &&
	mount --bind pol alias &&
	exec /usr/sbin/chroot . /bin/pysbx-clean -p /pol/p.policy -D WORKSPACE=/alias -- /bin/true' \
	x "$T" "$B" 2>"$T/err"
is "$?" 100 "a read-write bind of the policy's directory under another name is refused (100)"
check "... naming the bind" grep -q "refusing policy /pol/p.policy: it lies under /alias, which" "$T/err"

# --- nothing of the toolkit inside: a root filesystem at / -------------------

R=$T/rootfs
mkdir -m 0755 "$R"
cp "$PROBE/exec_probe" "$R/probe"
cat >"$T/pol/root.policy" <<'POL'
unshare user mount pid ipc uts net
ro-bind ${ROOTFS} /
seccomp deny @mount
POL
chmod 0644 "$T/pol/root.policy"
"$B/pysbx" run -p "$T/pol/root.policy" -D ROOTFS="$R" -- /probe exit 7 2>"$T/err"
is "$?" 7 "ro-bind ROOTFS / with only a static probe runs the probe (exit 7)"
out=$("$B/pysbx" run -p "$T/pol/root.policy" -D ROOTFS="$R" -- /probe cwd 2>&1)
is "$out" "cwd /" "... in the minimal root"

sed -i 's/^ro-bind /bind /' "$T/pol/root.policy"
before=$(cd "$R" && find . | sort)
"$B/pysbx" run -p "$T/pol/root.policy" -D ROOTFS="$R" -- /probe exit 7 2>"$T/err"
is "$?" 7 "bind ROOTFS / runs the probe (exit 7)"
same "... and leaves the host rootfs as it was (no directory made in it)" \
	"$before" "$(cd "$R" && find . | sort)"
