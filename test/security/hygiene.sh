#!/usr/bin/env bash
# Sandbox hygiene (issue #18, points 1, 2, 5, 6, 8), through the real
# chain (`pysbx run`) as the unprivileged test uid, with
# test/probe/hygiene_probe inside: mounts the host makes after the start,
# pseudo-filesystems copied by recursive binds, kernel-wide resources
# (ptys, tmpfs inodes), the shipped policies' process bounds, and the
# process state and information the target starts with.
set -u

BIN=$PYSBX_BIN
PROBE=$PYSBX_PROBE
POL=$PYSBX_POLICIES
FIX=$PYSBX_TESTDIR/fixtures/hygiene
T=$(mktemp -d "$HOME/hygiene.XXXXXX") || exit 111
trap 'chmod -R u+w "$T" 2>/dev/null; rm -rf "$T"' EXIT

. "${PYSBX_TESTDIR:?}/lib.sh"


# --- 1, 2: the host's mounts ------------------------------------------------
# In a mount namespace of our own (a user namespace makes us its root),
# "/" is made shared, as systemd makes it on every host. Each policy's
# sandbox waits (the probe prints "ready") while this side, the host of
# that namespace, mounts a tmpfs inside the workspace; then the probe
# tries to read and write a file on that tmpfs. Then pseudo-filesystems
# mounted inside a tree that `ro-bind / /` copies.
cat >"$T/inner.sh" <<'EOF'
set -u
. "$PYSBX_TESTDIR/lib.sh"
mount --make-rshared / || exit 1
for pol in workspace-write read-only ci python; do
	ws=$T/late-$pol
	mkdir -p "$ws/late"
	cp "$PROBE/hygiene_probe" "$ws/"
	in=$ws extra=()
	# Here /tmp belongs to nobody: python.policy's scratch goes to $T.
	[[ $pol == python ]] && in=/workspace extra=(-D SCRATCH_DIR="$T")
	"$BIN/pysbx" run --allow-untrusted -p "$POL/$pol.policy" \
		-D WORKSPACE="$ws" -D TIMEOUT=30s "${extra[@]}" \
		-- "$in/hygiene_probe" \
		late "$in/go" "$in/late/secret" >"$ws.out" 2>&1 &
	pid=$!
	wait_for grep -qx ready "$ws.out"
	mount -t tmpfs -o size=1M late "$ws/late"
	echo secret >"$ws/late/secret"
	touch "$ws/go"
	wait "$pid"
	rc=$?
	echo "$pol: $(tr '\n' ' ' <"$ws.out")rc=$rc"
done
# Inside the workspace: the policies' private /tmp hides $T (under /tmp)
# from ro-bind / /; both that bind and the workspace's copy it.
c=$T/ws/chroot
mkdir -p "$c/proc" "$c/sys" "$c/cg" "$c/mq"
mount -t proc proc "$c/proc"
mount -t sysfs sysfs "$c/sys"
mount -t cgroup2 cgroup2 "$c/cg" 2>/dev/null || mount -t tmpfs none "$c/cg"
mount -t mqueue mqueue "$c/mq"
echo "copied: $("$BIN/pysbx" run --allow-untrusted \
	-p "$POL/workspace-write.policy" -D WORKSPACE="$T/ws" -- /bin/sh -c \
	"for d in $c/proc $c/sys $c/cg $c/mq /sys; do ls -A \$d | wc -l; done; \
	test -r /proc/1/status && echo own-proc" 2>&1 | tr '\n' ' ')"
echo "asked: $("$BIN/pysbx" run --allow-untrusted -p "$FIX/asked.policy" \
	-D CHROOT="$c" -- /bin/sh -c \
	'test -r /hostproc/1/status && echo hostproc; ls -A /chroot/proc | wc -l' \
	2>&1 | tr '\n' ' ')"
EOF
inner=$(T=$T BIN=$BIN PROBE=$PROBE POL=$POL FIX=$FIX \
	unshare -Urmnpfi --propagation unchanged --kill-child \
	bash "$T/inner.sh" 2>&1)
line() { grep "^$1: " <<<"$inner" || echo "(no line '$1:' in: $inner)"; }
for pol in workspace-write read-only ci python; do
	same "1: $pol.policy: a tmpfs the host mounts in the workspace after the start stays invisible" \
		"$pol: ready ENOENT ENOENT rc=0" "$(line "$pol")"
done
same "2: ro-bind / / masks a copied procfs, sysfs, cgroup2, mqueue and the host's /sys; the policy's /proc works" \
	"copied: 0 0 0 0 0 own-proc " "$(line copied)"
same "2: a procfs the policy names as a source stays; one copied along is masked" \
	"asked: hostproc 0 " "$(line asked)"

# --- 5: kernel-wide resources -------------------------------------------
WS=$T/ws5
mkdir -p "$WS"
cp "$PROBE/hygiene_probe" "$WS/"
py() {
	"$BIN/pysbx" run -p "$POL/python.policy" -D WORKSPACE="$WS" \
		-D TIMEOUT=60s -- /workspace/hygiene_probe "$@" 2>&1
}
fl() {
	"$BIN/pysbx" run -p "$FIX/floods.policy" -D PROBE="$PROBE" -- \
		/probe/hygiene_probe "$@" 2>&1
}
same "5: python.policy: a pty flood stops at 64 (devpts max=64)" \
	"64 ENOSPC" "$(py ptys)"
# files_bound DESC GOT: at most 8191 files (8192 inodes, the root's
# included), ENOSPC; the kernel may keep a few back.
files_bound() {
	local k=${2% *}
	if [[ $2 =~ ^[0-9]+\ ENOSPC$ ]] && ((k > 8000 && k <= 8191)); then
		ok "$1 ($2)"
	else
		not_ok "$1" "got:      $2" "expected: 8001-8191 ENOSPC"
	fi
}
files_bound "5: python.policy: /tmp (size=64M) takes at most 8191 files (8192 inodes, 128 per MiB)" \
	"$(py files /tmp)"
files_bound "5: python.policy: /dev/shm (64M) takes at most 8191 files" \
	"$(py files /dev/shm)"
same "5: dev ptys=8 bounds the ptys at 8" "8 ENOSPC" "$(fl ptys)"
same "5: tmpfs size=1M: 127 files (128 inodes)" "127 ENOSPC" "$(fl files /t)"
same "5: tmpfs inodes=10 overrides: 9 files" "9 ENOSPC" "$(fl files /u)"

# --- 6: every shipped policy bounds processes and dies with its caller ----
for f in "$POL"/*.policy; do
	name=${f##*/}
	got=
	if grep -q '^limit nproc [0-9]' "$f"; then
		got+="nproc "
	elif grep -q '^# Unbounded processes: ..' "$f"; then
		got+="nproc(reason) "
	fi
	if grep -qx 'die-with-parent' "$f"; then
		got+="die-with-parent"
	elif grep -q '^# Outlives its caller: ..' "$f"; then
		got+="die-with-parent(reason)"
	fi
	case $got in
	nproc*" "die-with-parent*) ok "6: $name bounds processes and dies with its caller ($got)" ;;
	*) not_ok "6: $name bounds processes and dies with its caller" \
		"found: '$got'" "want: 'limit nproc N' or '# Unbounded processes: WHY'," \
		"and 'die-with-parent' or '# Outlives its caller: WHY'" ;;
	esac
done

# --- 8: process state and information -----------------------------------
same "8: setarch -R sets ADDR_NO_RANDOMIZE outside (the next check means something)" \
	"00040000" "$(setarch -R "$PROBE/hygiene_probe" personality)"
got=$(setarch -R "$BIN/pysbx" run -p "$POL/python.policy" -D WORKSPACE="$WS" \
	-- /workspace/hygiene_probe personality 2>&1)
same "8: under setarch -R the target's personality is reset (ASLR on)" \
	"00000000" "$got"
a=$(setarch -R "$BIN/pysbx" run -p "$POL/python.policy" -D WORKSPACE="$WS" \
	-- /workspace/hygiene_probe addr 2>&1)
b=$(setarch -R "$BIN/pysbx" run -p "$POL/python.policy" -D WORKSPACE="$WS" \
	-- /workspace/hygiene_probe addr 2>&1)
if [[ -n $a && $a != "$b" ]]; then
	ok "8: under setarch -R two runs map the stack and mmap at different addresses"
else
	not_ok "8: under setarch -R two runs map the stack and mmap at different addresses" \
		"run 1: $a" "run 2: $b"
fi
same "8: /proc/1/cmdline is the bare name, no host path" \
	"pysbx-mount|" "$(py cmdline 1)"
same "8: prlimit on pid 1 is refused (EPERM)" "EPERM" "$(py getlimit 1)"
same "8: prlimit on itself (pid 0) works" "ok" "$(py getlimit 0)"
out=$(py cpulimit 1)
same "8: RLIMIT_CPU 0 on pid 1 is refused; the run ends 0, not 137" \
	"EPERM|0" "$out|$?"
same "8: python.policy denies modify_ldt and fanotify_init" \
	"EPERM EPERM" "$(py modify_ldt) $(py fanotify)"
got=$("$BIN/pysbx" run -p "$POL/workspace-write.policy" -D WORKSPACE="$WS" \
	-- "$WS/hygiene_probe" modify_ldt 2>&1)" "$("$BIN/pysbx" run \
	-p "$POL/workspace-write.policy" -D WORKSPACE="$WS" -- \
	"$WS/hygiene_probe" fanotify 2>&1)
same "8: workspace-write.policy denies modify_ldt and fanotify_init" \
	"EPERM EPERM" "$got"
max=$("$BIN/pysbx-seccomp" -p "$FIX/floods.policy" -D PROBE="$PROBE" --list |
	sed -n 's/^# x86_64 syscall numbers above \([0-9]*\) .*/\1/p')
nr=$((max + 2))
outside=$("$PROBE/hygiene_probe" syscall "$nr")
if [[ -z $max ]]; then
	not_ok "8: --list names the highest known syscall number" "got nothing"
elif [[ $outside == ENOSYS ]]; then
	skip "8: syscall $nr is unknown to this kernel too: nothing to tell apart"
else
	same "8: syscall $nr (above the build's $max; the kernel has it: $outside outside) answers ENOSYS" \
		"ENOSYS" "$(py syscall "$nr")"
fi

echo "1..$n"
