#!/usr/bin/env bash
# Landlock-only mode where namespaces are refused (docs/SECURITY.md). The
# refusal is simulated as container runtimes and Ubuntu do it: the front
# door runs under pysbx-seccomp with a filter that denies what they deny
# (mount and sethostname: unshare works, the first mount fails; or unshare
# and clone with namespace flags: the user namespace itself is refused).
# Checked on the host: writes outside the policy's paths fail (EACCES) and
# leave nothing, a TCP connect to a host loopback listener fails, a
# signal to a process outside fails and it lives on, nothing of the run
# survives it (normal exit and timeout), the mode is said on stderr and
# in the status records. A policy that does not permit the mode fails
# closed with the exact hint; one whose paths are not the host's fails
# before anything runs, with the policy's positions.
set -u

B=${PYSBX_BIN:?}
POL=${PYSBX_POLICIES:?}
U=$(id -u)
T=$(mktemp -d /tmp/llonly.XXXXXX) || exit 111
chmod 0755 "$T"
. "${PYSBX_TESTDIR:?}/lib.sh"
OUTSIDE=()
cleanup() {
	local p
	for p in "${OUTSIDE[@]}"; do kill -KILL "$p" 2>/dev/null; done
	rm -rf "$T"
}
trap cleanup EXIT
echo "1..29"

WS=$T/ws
OUT=$T/out
mkdir -p "$WS" "$OUT"
# What the runtimes' default profiles refuse.
printf 'seccomp deny @mount sethostname\n' >"$T/nomount.policy"
printf 'seccomp deny @namespaces\nseccomp errno=ENOSYS clone3\n' >"$T/nouserns.policy"
# A path-transparent policy of ours: no seccomp socket rule, so that
# Landlock alone answers the TCP connect.
cat >"$T/ll.policy" <<'EOF'
unshare user mount pid ipc uts net
landlock-only allow
ro-bind /usr /usr
symlink usr/bin /bin
symlink usr/lib /lib
symlink usr/lib64 /lib64
ro-bind /etc /etc
proc /proc
dev /dev
bind ${WORKSPACE} ${WORKSPACE}
chdir ${WORKSPACE}
env PATH=/usr/bin:/bin
EOF
sed 's/^landlock-only allow$/landlock-only always/' "$T/ll.policy" >"$T/always.policy"
{ grep -v '^landlock-only' "$T/ll.policy"; echo 'ro-bind /usr/share /elsewhere'; echo 'landlock-only allow'; } >"$T/moved.policy"
{ cat "$T/ll.policy"; echo 'limit nproc 1'; } >"$T/nproc.policy"
chmod 0644 "$T"/*.policy

# refused FILTER ARGS...: pysbx run ARGS under a filter that refuses
# namespaces the way FILTER says.
refused() {
	local f=$1
	shift
	"$B/pysbx-seccomp" -p "$T/$f.policy" -- "$B/pysbx" run "$@"
}
MODE_NOMOUNT="pysbx: Landlock-only mode: namespaces are refused here (make the mount namespace private: Operation not permitted); host paths under Landlock, no namespaces (docs/SECURITY.md)"
MODE_NOUSERNS="pysbx: Landlock-only mode: namespaces are refused here (unshare(CLONE_NEWUSER|CLONE_NEWNS): Operation not permitted); host paths under Landlock, no namespaces (docs/SECURITY.md)"

# --- the mode is chosen and said -------------------------------------
out=$(refused nomount --status-fd 3 -p "$T/ll.policy" -D WORKSPACE="$WS" \
	-- /bin/sh -c 'echo in >inside; echo ok' 3>"$T/st" 2>"$T/err")
is "$?:$out:$(cat "$T/err")" "0:ok:$MODE_NOMOUNT" \
	"mount refused (a container's profile): the run goes Landlock-only and says so once on stderr"
is "$(grep -c '"mode":"landlock-only"' "$T/st")" 2 \
	"the status records say mode landlock-only (the started and the exit record)"
is "$(cat "$WS/inside" 2>&1)" in "the workspace is the host's own directory (path-transparent), writable"
out=$(refused nouserns -p "$T/ll.policy" -D WORKSPACE="$WS" -- /bin/true 2>&1)
is "$?:$out" "0:$MODE_NOUSERNS" \
	"user namespaces refused (unshare denied): Landlock-only, the refused step named"
out=$("$B/pysbx" run --status-fd 3 -p "$T/ll.policy" -D WORKSPACE="$WS" -- /bin/true 2>&1 3>"$T/st")
is "$?:$out:$(grep -c '"mode":"namespaces"' "$T/st")" "0::2" \
	"where namespaces work the same policy runs in namespace mode, silently, and the status says so"
out=$("$B/pysbx" run -p "$T/always.policy" -D WORKSPACE="$WS" -- /bin/sh -c 'echo $PWD' 2>&1)
is "$?:$out" "0:pysbx: Landlock-only mode: the policy says 'landlock-only always' ($T/always.policy:2); host paths under Landlock, no namespaces (docs/SECURITY.md)
$WS" "'landlock-only always' runs Landlock-only even where namespaces work"

# --- the filesystem ----------------------------------------------------
out=$(refused nomount -p "$T/ll.policy" -D WORKSPACE="$WS" -- /bin/sh -c \
	"echo x >$OUT/planted; echo \$?; ln -s /etc $OUT/link; echo \$?; mkdir $OUT/d; echo \$?; cat $T/nomount.policy; echo \$?" 2>&1 | grep -v '^pysbx:')
is "$out" "/bin/sh: 1: cannot create $OUT/planted: Permission denied
2
ln: failed to create symbolic link '$OUT/link': Permission denied
1
mkdir: cannot create directory '$OUT/d': Permission denied
1
cat: $T/nomount.policy: Permission denied
1" "writes, links, directories and reads outside the policy's paths fail with EACCES"
is "$(ls -A "$OUT")" "" "and nothing was made outside (checked on the host)"

# --- the network: a host loopback listener -----------------------------
python3 - "$T/port" <<'EOF' &
import socket, sys, time
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen(8)
open(sys.argv[1] + ".tmp", "w").write(str(s.getsockname()[1]))
__import__("os").rename(sys.argv[1] + ".tmp", sys.argv[1])
time.sleep(60)
EOF
OUTSIDE+=($!)
wait_for test -s "$T/port"
PORT=$(cat "$T/port")
CONNECT="import socket
try:
    socket.create_connection(('127.0.0.1', $PORT), timeout=5)
    print('connected')
except OSError as e:
    print(e.errno)"
out=$(python3 -c "$CONNECT")
is "$out" connected "the listener on 127.0.0.1:$PORT accepts connections from the host"
out=$(refused nomount -p "$T/ll.policy" -D WORKSPACE="$WS" -- /usr/bin/python3 -c "$CONNECT" 2>/dev/null)
is "$out" 13 "TCP connect to it from Landlock-only mode fails: EACCES (Landlock's TCP rule, ABI >= 4)"
out=$(refused nomount -p "$POL/agent-shell.policy" -D LANDLOCK_ONLY=allow \
	-D WORKSPACE="$WS" -- /usr/bin/python3 -c "$CONNECT" 2>/dev/null)
is "$out" 1 "under agent-shell the seccomp filter refuses the socket first: EPERM"
out=$(refused nomount -p "$T/ll.policy" -D WORKSPACE="$WS" -- /usr/bin/python3 -c "
import socket
for fam, typ in ((socket.AF_UNIX, socket.SOCK_STREAM), (socket.AF_INET, socket.SOCK_DGRAM), (socket.AF_NETLINK, socket.SOCK_RAW), (socket.AF_PACKET, socket.SOCK_RAW)):
    try:
        socket.socket(fam, typ)
        print('made')
    except OSError as e:
        print(e.errno, end=' ')
a, b = socket.socketpair()
print('pair')" 2>/dev/null)
is "$out" "1 made
made
1 pair" "AF_UNIX sockets are refused (no mount hides host daemons' sockets); an anonymous pair works; UDP is not Landlock's (unshare net is TCP only) and netlink is allowed by this policy's filter"

out=$(refused nomount -p "$T/ll.policy" -D WORKSPACE="$WS" -- /usr/bin/unshare -U /bin/true 2>&1 | grep -v '^pysbx:')
is "$out" "unshare: unshare failed: Operation not permitted" \
	"no user namespace of its own: nested-userns deny holds (seccomp @namespaces, as no limit inside a namespace can)"

out=$(refused nomount -p "$T/nproc.policy" -D WORKSPACE="$WS" -- /usr/bin/python3 -c '
import os
try:
    os.fork() or os._exit(0)
    print("forked")
except OSError as e:
    print(e.errno)' 2>/dev/null)
is "$out" 11 "processes are bounded by the policy's rlimit (limit nproc 1: fork fails, EAGAIN; it counts the caller's processes host-wide)"

# --- signals ------------------------------------------------------------
sleep 60 &
VICTIM=$!
OUTSIDE+=("$VICTIM")
out=$(refused nomount -p "$T/ll.policy" -D WORKSPACE="$WS" -- /bin/sh -c "kill -TERM $VICTIM; echo \$?" 2>&1 | grep -v '^pysbx:')
is "$out" "/bin/sh: 1: kill: Operation not permitted

1" "a signal to a process outside the sandbox fails (Landlock's signal scope, ABI >= 6)"
check "and it is still alive (checked on the host)" kill -0 "$VICTIM"
out=$(refused nomount -p "$T/ll.policy" -D WORKSPACE="$WS" -- /bin/sh -c 'grep -c . /proc/1/environ' 2>&1 | grep -v '^pysbx:')
is "$out" "grep: /proc/1/environ: Permission denied" \
	"/proc shows host processes, but their environment is refused (Landlock's ptrace rule)"

# --- nothing survives -------------------------------------------------------
# left: this uid's processes but the two of the test's own outside.
left() {
	local p l me=$BASHPID
	l=$(others)
	for p in $l; do
		[[ " ${OUTSIDE[*]} $me " == *" $p "* ]] || echo "$p $(tr '\0' ' ' </proc/$p/cmdline 2>/dev/null)"
	done
}
refused nomount -p "$T/ll.policy" -D WORKSPACE="$WS" -- /bin/sh -c \
	'setsid sleep 300 </dev/null >/dev/null 2>&1 & (sleep 301 </dev/null >/dev/null 2>&1 &) ; echo started' >/dev/null 2>&1
rc=$?
is "$rc:$(left)" "0:" \
	"a setsid daemon and an orphan do not survive a normal exit (no pid namespace: the guard's tree kill)"
refused nomount -t 1s -p "$T/ll.policy" -D WORKSPACE="$WS" -- /bin/sh -c \
	'trap "" TERM; setsid sleep 300 </dev/null >/dev/null 2>&1 & sleep 302' >/dev/null 2>&1
rc=$?
is "$rc:$(left)" "124:" \
	"nor the timeout (TERM ignored: KILL after the grace)"

# Not through refused(): $! must be the guard (pysbx-seccomp execs it).
"$B/pysbx-seccomp" -p "$T/nomount.policy" -- "$B/pysbx" run -p "$T/ll.policy" \
	-D WORKSPACE="$WS" -- /bin/sh -c \
	'setsid sleep 300 </dev/null >/dev/null 2>&1 & echo up >started; sleep 303' >/dev/null 2>&1 &
G=$!
wait_for test -s "$WS/started"
kill -TERM "$G"
wait "$G"
rc=$?
rm -f "$WS/started"
is "$rc:$(left)" "143:" "nor a SIGTERM to the guard (the caller cancels the run)"

# --- refusals -----------------------------------------------------------------
out=$(refused nomount -p "$POL/minimal.policy" -D PROG=/bin/true -- /prog 2>&1)
is "$?:$(tail -n 1 <<<"$out")" "111:pysbx: hint: $POL/minimal.policy does not permit Landlock-only mode, the way to run where namespaces are refused: add 'landlock-only allow' to it (docs/SECURITY.md), or let pysbx-mount create namespaces (./build.sh install writes an AppArmor profile for it; docs/TROUBLESHOOTING.md)" \
	"a policy that does not permit it fails closed (111) with a hint naming the directive and the AppArmor route"
if [[ $out == *"pysbx-mount: fatal: unable to set the hostname minimal: Operation not permitted"* ]]; then
	ok "after pysbx-mount's own message"
else
	not_ok "after pysbx-mount's own message" "$out"
fi
out=$(refused nouserns -p "$POL/python.policy" -D WORKSPACE="$WS" -- /usr/bin/python3 -c 'print(1)' 2>&1)
is "$?:$(grep -c 'python.policy does not permit Landlock-only mode' <<<"$out")" "111:1" \
	"python.policy does not permit it (remapped /workspace and /scratch): refused, 111"
out=$(refused nomount -p "$T/moved.policy" -D WORKSPACE="$WS" -- /bin/true 2>&1)
is "$?:$(grep -v '^pysbx: Landlock-only' <<<"$out")" "100:$T/moved.policy:12:1: error: 'ro-bind /usr/share /elsewhere': without a mount namespace (Landlock-only) a path stays where it is on the host, so the source and destination must be the same path
pysbx: 1 error in $T/moved.policy; nothing was started
pysbx: fatal: $T/moved.policy cannot run in Landlock-only mode (namespaces are refused here (make the mount namespace private: Operation not permitted))" \
	"a bind to another place cannot be path-transparent: 100 with the policy's position, nothing run"

# A policy of the caller's under /tmp, which agent-shell's `tmpfs /tmp`
# makes the host's shared /tmp in this mode: the sandbox could rewrite it.
cp "$POL/agent-shell.policy" "$T/mine.policy"
cp "$POL"/agent-shell-net-*.inc "$T/"
out=$(refused nomount -p "$T/mine.policy" -D LANDLOCK_ONLY=allow -D WORKSPACE="$WS" -- /bin/true 2>&1)
is "$?:$(grep -v '^pysbx: \(Landlock-only mode\|warning\)' <<<"$out")" "100:pysbx: fatal: refusing $T/mine.policy in Landlock-only mode: it lies under /tmp, which 'tmpfs /tmp' ($T/mine.policy:$(grep -n '^tmpfs /tmp' "$T/mine.policy" | cut -d: -f1)) makes the host's shared directory, writable from inside, and it or its directory is yours: the sandbox could rewrite its next sandbox
pysbx: hint: keep policies and the pysbx programs outside /tmp and /dev/shm, or owned by root, to run Landlock-only (docs/SECURITY.md)" \
	"a policy of the caller's under the shared /tmp is refused (invariant 8: the sandbox could rewrite it), 100"

# --- agent-shell: the protected names need pysbx-mount -----------------------
mkdir -p "$WS/.git"
echo "[core]" >"$WS/.git/config"
out=$(refused nomount -p "$POL/agent-shell.policy" -D WORKSPACE="$WS" -- /bin/true 2>&1)
is "$?:$(grep -c 'agent-shell.policy does not permit Landlock-only mode' <<<"$out")" "111:1" \
	"agent-shell does not permit it by default: its protected names need mounts"
out=$(refused nomount -p "$POL/agent-shell.policy" -D LANDLOCK_ONLY=allow -D WORKSPACE="$WS" \
	-- /bin/sh -c 'echo "[alias]" >>.git/config; echo ok' 2>&1)
is "$?:$(grep -c "^pysbx: warning: Landlock-only mode: 'protect $WS' (.*agent-shell.policy:[0-9]*) is not applied: those names stay writable (docs/SECURITY.md)$" <<<"$out")" "0:1" \
	"-D LANDLOCK_ONLY=allow runs it, and a warning says that the protected names are not protected"
is "$(tail -n 1 "$WS/.git/config")" "[alias]" \
	"as the warning says: .git/config was writable (documented in docs/SECURITY.md)"
out=$(refused nomount -p "$POL/agent-shell.policy" -D LANDLOCK_ONLY=allow -D NETWORK=npm \
	-D WORKSPACE="$WS" -- /bin/sh -c 'echo ran' 2>&1)
is "$?:$(grep -v '^pysbx: \(Landlock-only mode\|warning\)' <<<"$out")" "100:pysbx: fatal: the policy's net-proxy needs pysbx-mount as the program after the guard (its network namespace holds the proxy's listener)" \
	"a proxied variant cannot run Landlock-only (no network namespace for the proxy's listener): refused, nothing ran"
