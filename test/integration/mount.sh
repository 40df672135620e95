#!/usr/bin/env bash
# pysbx-mount standalone, unprivileged, with test/probe/mount_probe run
# inside the sandbox: the filesystem view, the namespaces, the capability
# drop, locked mounts, fail-closed mounts, the reaper and the report fd.
set -u

BIN=$PYSBX_BIN
PROBE=$PYSBX_PROBE
FIX=$PYSBX_TESTDIR/fixtures/mount
MNT=$BIN/pysbx-mount
P=/probe/mount_probe
T=$(mktemp -d "$HOME/mount.XXXXXX") || exit 111
trap 'chmod -R u+w "$T"; rm -rf "$T"' EXIT

. "${PYSBX_TESTDIR:?}/lib.sh"

# The host side of the ro-bind: a file that must not change.
mkdir -p "$T/host/sub"
echo original >"$T/host/file"
chmod -R a-w "$T/host"
BASIC=(-p "$FIX/basic.policy" -D PROBE="$PROBE" -D HOSTDIR="$T/host")
sbx() { "$MNT" "${BASIC[@]}" "$P" "$@" 2>&1; }

echo "1..42"

same "the root holds exactly what the policy made" \
	"$(printf '%s\n' data dev etc probe probe-link proc ro tmp)" "$(sbx ls /)"
same "/dev holds exactly the minimal set" \
	"$(printf '%s\n' fd full null ptmx pts random shm stderr stdin stdout tty urandom zero)" \
	"$(sbx ls /dev)"
same "dir made /data" "" "$(sbx ls /data)"
same "file wrote /etc/greeting" "hello" "$(sbx cat /etc/greeting)"
same "a tmpfs is writable" "ok" "$(sbx write /tmp/x)"
same "a ro-bind refuses writes with EROFS" "EROFS" "$(sbx write /ro/file)"
same "the host file behind the ro-bind is unchanged" "original" "$(cat "$T/host/file")"
same "the root itself is read-only" "EROFS" "$(sbx write /newfile)"
same "/dev refuses new files" "EROFS" "$(sbx write /dev/newfile)"
same "/dev/null is writable" "ok" "$(sbx write /dev/null)"
# Read-only is recursive: a host directory with a mount below it (the
# host's /dev/shm, a world-writable tmpfs) stays read-only all the way
# down; a bind that only changed its top mount would let this write
# land in the host's /dev/shm.
{ cat "$FIX/basic.policy"; echo "ro-bind /dev /hostdev"; } >"$T/rec.policy"
f=pysbx-rec-$$
got=$("$MNT" -p "$T/rec.policy" -D PROBE="$PROBE" -D HOSTDIR="$T/host" "$P" write "/hostdev/shm/$f" 2>&1)
same "a ro-bind is read-only recursively (the host's /dev/shm below a ro-bind of /dev)" "EROFS" "$got"
rm -f "/dev/shm/$f"
same "proc shows only the sandbox's pids (pid 1 and the target)" \
	"$(printf '%s\n' 1 2)" "$(sbx pids)"
same "the hostname is the policy's" "pysbx-test" "$(sbx hostname)"
same "identity map: the caller's uid and gid" \
	"uid=$(id -u) gid=$(id -g) euid=$(id -u) egid=$(id -g)" "$(sbx id)"
got=$("$MNT" -p "$FIX/uid0.policy" -D PROBE="$PROBE" "$P" id 2>&1)
same "uid 0 / gid 0 mapping" "uid=0 gid=0 euid=0 egid=0" "$got"
nocaps=$(printf 'Cap%s:\t0000000000000000\n' Inh Prm Eff Bnd Amb)
same "no capability in any set (identity map)" "$nocaps" "$(sbx caps)"
got=$("$MNT" -p "$FIX/uid0.policy" -D PROBE="$PROBE" "$P" caps 2>&1)
same "no capability in any set, even as uid 0 inside" "$nocaps" "$got"
same "a nested user namespace is refused (ENOSPC)" "ENOSPC" "$(sbx userns)"
got=$("$MNT" -p "$FIX/nested.policy" -D PROBE="$PROBE" "$P" userns 2>&1)
same "nested-userns allow permits one" "ok" "$got"
same "remounting a ro-bind read-write fails (EPERM)" "EPERM" "$(sbx remount /ro)"
same "unmounting a sandbox mount fails (EPERM)" "EPERM" "$(sbx umount /ro)"
same "the network namespace has only lo" "lo" "$(sbx net)"
mi=$(sbx mountinfo)
points=$(awk '{print $5}' <<<"$mi" | sort | tr '\n' ' ')
same "mountinfo lists only the sandbox's mounts, no old root" \
	"/ /dev /dev/full /dev/null /dev/pts /dev/random /dev/shm /dev/tty /dev/urandom /dev/zero /probe /proc /proc/bus /proc/irq /proc/sys /ro /tmp " \
	"$points"
same "pid 1 cannot be ptraced from inside" "EPERM" "$(sbx ptrace 1)"
same "pid 1's environment is unreadable from inside" "EACCES" "$(sbx cat /proc/1/environ)"

# Fail closed.
mkdir -p "$T/ws"
ln -s /etc "$T/ws/link"
out=$("$MNT" -p "$FIX/redirect.policy" -D PROBE="$PROBE" -D WS="$T/ws" "$P" id 2>&1)
rc=$?
same "a symlink in the workspace where a mount goes: exit 111, named" \
	"111|pysbx-mount: fatal: unable to ro-bind /ws/link/x: destination /ws/link is a symlink (at $FIX/redirect.policy:5)" \
	"$rc|$(head -n1 <<<"$out")"
ln -s "$T/host" "$T/hostlink"
out=$("$MNT" -p "$FIX/srclink.policy" -D PROBE="$PROBE" -D DIR="$T" "$P" id 2>&1)
rc=$?
same "a symlinked source: exit 111, named" \
	"111|pysbx-mount: fatal: unable to ro-bind /src: source $T/hostlink contains a symlink (at $FIX/srclink.policy:5)" \
	"$rc|$(head -n1 <<<"$out")"
out=$("$MNT" -p "$FIX/missing.policy" -D PROBE="$PROBE" "$P" id 2>&1)
rc=$?
same "a missing source: exit 111 naming line and path (-try skipped)" \
	"111|pysbx-mount: fatal: unable to ro-bind /b: source /nonexistent/pysbx-b cannot be opened (at $FIX/missing.policy:4): No such file or directory" \
	"$rc|$(head -n1 <<<"$out")"

# mask and protect
mkdir -p "$T/ws/secretdir" "$T/ws/a/.git/hooks" "$T/ws/b"
echo key >"$T/ws/secretdir/key"
echo secret >"$T/ws/secret.txt"
echo x >"$T/ws/.env"
echo x >"$T/ws/b/id.pem"
echo x >"$T/ws/a/.git/hooks/pre-commit"
rm -f "$T/ws/link"
M=(-p "$FIX/mask.policy" -D PROBE="$PROBE" -D WS="$T/ws")
got=$("$MNT" "${M[@]}" "$P" ls /ws/secretdir 2>&1)"|"$("$MNT" "${M[@]}" "$P" cat /ws/secret.txt 2>&1)
same "mask hides a directory and a file" "|" "$got"
got=$(for f in secretdir/new secret.txt; do "$MNT" "${M[@]}" "$P" write "/ws/$f" 2>&1; done | tr '\n' ' ')
same "a mask is read-only: nothing can be written into a masked directory or file (EROFS)" \
	"EROFS EROFS " "$got"
got=$(for f in .env b/id.pem a/.git/hooks/pre-commit b/new; do "$MNT" "${M[@]}" "$P" write "/ws/$f" 2>&1; done | tr '\n' ' ')
same "protect keeps .env, *.pem, .git/hooks read-only; the rest writable" \
	"EROFS EROFS EROFS ok " "$got"

# Processes and the report fd.
"$MNT" "${BASIC[@]}" "$P" daemon "pysbx-mark-$$" >/dev/null 2>&1
left=""
for f in /proc/[0-9]*/cmdline; do
	[[ $(tr '\0' ' ' 2>/dev/null <"$f") == *"daemon-sleep pysbx-mark-$$"* ]] && left+=" ${f#/proc/}"
done
same "a setsid daemon left by the target dies with it" "" "$left"
# The monitor runs while pid 1 lives in its memory (it forwards with raw
# system calls): a signal to it still reaches the target, and its death
# still ends the sandbox (pid 1's parent-death signal and alarm pipe).
# running MARK: pids of the processes whose command line holds MARK
# One grep over every command line (a tr per process took minutes at
# load 30); NULs separate the words there ("." matches one), and the
# bracket keeps grep's own command line from matching.
running() {
	local f out="" re=${1// /.}
	for f in $(LC_ALL=C grep -alsE -- "[${re:0:1}]${re:1}" /proc/[0-9]*/cmdline); do
		f=${f#/proc/}
		out+=" ${f%/cmdline}"
	done
	echo "$out"
}
up() { [[ -n $(running "daemon-sleep sig-$$") ]]; }
gone() { [[ -z $(running "daemon-sleep sig-$$") ]]; }
"$MNT" "${BASIC[@]}" "$P" daemon-sleep "sig-$$" >/dev/null 2>&1 &
mon=$!
wait_for up
kill -TERM "$mon"
wait "$mon"
same "SIGTERM to the monitor reaches the target (exit 128+15)" 143 "$?"
# pid 1 (the monitor's child, seen from the host) holds no capability
# and can gain none by an exec: its sets are empty and no_new_privs is
# set (pid 1 never execs: that is what the bounding set would be for).
"$MNT" "${BASIC[@]}" "$P" daemon-sleep "pid1-$$" >/dev/null 2>&1 &
mon=$!
pid1_caps() { # the monitor's only child is pid 1
	local c
	c=$(<"/proc/$mon/task/$mon/children") 2>/dev/null
	c=${c%% *}
	[[ -n $c ]] || return 1
	grep -E '^(CapInh|CapPrm|CapEff|CapAmb|NoNewPrivs):' "/proc/$c/status" 2>/dev/null
}
pid1_dropped() { [[ $(pid1_caps) == *"NoNewPrivs:	1"* ]]; }
wait_for pid1_dropped
same "pid 1 holds no capability and has no_new_privs (no exec can grant it one)" \
	"$(printf 'CapInh:\t0000000000000000\nCapPrm:\t0000000000000000\nCapEff:\t0000000000000000\nCapAmb:\t0000000000000000\nNoNewPrivs:\t1')" \
	"$(pid1_caps)"
kill -TERM "$mon"
wait "$mon" 2>/dev/null
"$MNT" "${BASIC[@]}" "$P" daemon-sleep "sig-$$" >/dev/null 2>&1 &
mon=$!
wait_for up
kill -KILL "$mon"
wait "$mon" 2>/dev/null
wait_for gone
same "SIGKILL of the monitor ends the whole sandbox" "" "$(running "daemon-sleep sig-$$")"
# Standalone, whatever started pysbx-mount may die: the monitor's own
# parent-death signal then ends it, and with it the sandbox.
bash -c '"$@" >/dev/null 2>&1 & wait' _ "$MNT" "${BASIC[@]}" "$P" daemon-sleep "sig-$$" &
par=$!
wait_for up
kill -KILL "$par"
wait "$par" 2>/dev/null
wait_for gone
same "SIGKILL of pysbx-mount's parent ends the whole sandbox (parent-death signal)" "" "$(running "daemon-sleep sig-$$")"
"$MNT" --report-fd 3 "${BASIC[@]}" "$P" exit 7 3>"$T/rep" >/dev/null 2>&1
rc=$?
got=$(sed 's/"pid":[0-9]*/"pid":N/' "$T/rep")
same "exit code and report records: started, then the target's status" \
	"7|{\"stage\":\"mount\",\"event\":\"started\",\"pid\":N}
{\"stage\":\"target\",\"status\":1792,\"exit\":7,\"signal\":0}" "$rc|$got"
"$MNT" --report-fd 3 -p "$FIX/missing.policy" -D PROBE="$PROBE" "$P" id 3>"$T/rep" >/dev/null 2>&1
got=$(sed -n 2p "$T/rep")
same "a setup failure is reported as a mount-stage error, no target record" \
	"{\"stage\":\"mount\",\"error\":\"unable to ro-bind /b: source /nonexistent/pysbx-b cannot be opened (at $FIX/missing.policy:4): No such file or directory\",\"errno\":2,\"code\":111}|2" \
	"$got|$(wc -l <"$T/rep")"
got=$("$MNT" --partial -p "$FIX/nons.policy" "$PROBE/mount_probe" id 2>&1)
same "a plan without namespaces only execs the program" \
	"uid=$(id -u) gid=$(id -g) euid=$(id -u) egid=$(id -g)" "$got"

# The next pysbx step runs after pivot_root through the fd opened on the
# host: its directory is not in the sandbox at all.
if [[ -x $BIN/pysbx-exec ]]; then
	got=$("$MNT" "${BASIC[@]}" "$BIN/pysbx-exec" "$P" write "$BIN/x" 2>&1)
	same "the next step runs inside; its directory is not there" "ENOENT" "$got"
else
	skip "pysbx-exec is not built"
fi

if command -v bwrap >/dev/null; then
	got=$(bwrap --unshare-user --dev-bind / / "$MNT" --allow-untrusted \
		"${BASIC[@]}" "$P" pids 2>&1)
	same "works nested inside bwrap (user namespaces allowed)" \
		"$(printf '%s\n' 1 2)" "$got"
	out=$(bwrap --unshare-user --disable-userns --dev-bind / / "$MNT" \
		--allow-untrusted "${BASIC[@]}" "$P" id 2>&1)
	rc=$?
	same "a refused user namespace: exit 111 with a hint naming the limit" \
		"111|pysbx-mount: hint: the user namespace limit is reached" \
		"$rc|$(sed -n 2p <<<"$out" | cut -c1-54)"
else
	skip "bwrap is not installed"
	skip "bwrap is not installed"
fi
