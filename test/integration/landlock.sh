#!/usr/bin/env bash
# pysbx-landlock standalone (host paths): what the rules allow works,
# everything else fails with EACCES (checked on the host too), the rules
# hold across exec and in grandchildren, TCP, signals and abstract unix
# sockets toward the outside are refused, and each lower ABI (forced with
# --abi) either fails closed with the exact message or, where the policy
# marks the class best-effort, runs as documented (docs/LANDLOCK.md).
set -u

here=$(cd "$(dirname "$0")/../.." && pwd)
BIN=${PYSBX_BIN:-$here/build/bin}
PROBE_DIR=${PYSBX_PROBE:-$here/build/test/probe}
LL=$BIN/pysbx-landlock
PROBE=$PROBE_DIR/ll_probe

. "${PYSBX_TESTDIR:-$here/test}/lib.sh"

T=$(mktemp -d "${HOME:-/tmp}/pysbx-ll.XXXXXX") || exit 111
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
	rm -rf "$T"
}
trap cleanup EXIT
cd "$T" || exit 111
chmod 0755 "$T"

abi=$("$LL" --help >/dev/null 2>&1; python3 -c '
import ctypes
l = ctypes.CDLL(None, use_errno=True)
print(max(l.syscall(444, None, 0, 1), 0))' 2>/dev/null || echo 0)
if [[ $abi -lt 1 ]]; then
	echo "1..0 # SKIP the kernel has no Landlock"
	exit 0
fi
echo "1..59"

pol() {
	local f=$T/$1.policy
	shift
	printf '%s\n' "$@" >"$f"
	echo "$f"
}
run() {
	"$@" >"$T/out" 2>"$T/err"
	rc=$?
}
# the probe's answer line for ACTION in $T/out
said() { grep -F -- "$1=" "$T/out" | head -1; }

mkdir -p "$T/ro" "$T/rw" "$T/deny"
echo keep >"$T/ro/file"
echo secret >"$T/deny/secret"
base=(
	'unshare user mount pid ipc uts net'
	'ro-bind /usr /usr'
	"ro-bind $PROBE_DIR $PROBE_DIR"
	"ro-bind $T/ro $T/ro"
	"bind $T/rw $T/rw"
	'dev /dev'
)
P=$(pol base "${base[@]}")
L() { run "$LL" --partial -p "$@"; }

# ---------------------------------------------------------------- files
L "$P" -- "$PROBE" read:"$T/deny/secret" write:"$T/deny/new" \
	write:"$T/new" mkdir:"$T/newdir" ls:"$T" read:/etc/passwd
is "$(said read:"$T/deny/secret")" "read:$T/deny/secret=EACCES" "a file outside the rules cannot be read (EACCES)"
is "$(said write:"$T/deny/new")" "write:$T/deny/new=EACCES" "a file outside the rules cannot be created (EACCES)"
is "$(said mkdir:"$T/newdir")" "mkdir:$T/newdir=EACCES" "a directory outside the rules cannot be made (EACCES)"
is "$(said ls:"$T")" "ls:$T=EACCES" "a directory outside the rules cannot be listed"
is "$(said read:/etc/passwd)" "read:/etc/passwd=EACCES" "/etc (not in the policy) cannot be read"
check "on the host: nothing was created outside the rules" \
	test ! -e "$T/deny/new" -a ! -e "$T/new" -a ! -e "$T/newdir"

L "$P" -- "$PROBE" read:"$T/ro/file" write:"$T/ro/file" trunc:"$T/ro/file" \
	write:"$T/ro/new" write:"$T/rw/made" mkdir:"$T/rw/sub" read:/dev/null write:/dev/null
is "$(said read:"$T/ro/file")" "read:$T/ro/file=ok" "a ro-bind path can be read"
is "$(said write:"$T/ro/file")" "write:$T/ro/file=EACCES" "a ro-bind file cannot be written (EACCES)"
is "$(said trunc:"$T/ro/file")" "trunc:$T/ro/file=EACCES" "a ro-bind file cannot be truncated (ABI 3)"
is "$(said write:"$T/ro/new")" "write:$T/ro/new=EACCES" "nothing can be created in a ro-bind path"
is "$(cat "$T/ro/file")" "keep" "on the host: the ro-bind file is unchanged"
is "$(said write:"$T/rw/made")" "write:$T/rw/made=ok" "a bind path can be written"
is "$(cat "$T/rw/made" 2>&1)" "x" "on the host: the write landed in the bind path"
is "$(said mkdir:"$T/rw/sub")" "mkdir:$T/rw/sub=ok" "a directory can be made in a bind path"
is "$(said write:/dev/null)" "write:/dev/null=ok" "dev: /dev/null can be written"

# ------------------------------------------------- exec and grandchildren
L "$P" -- "$PROBE" exec:/bin/sh -c \
	"\"$PROBE\" read:\"$T/deny/secret\"; /bin/sh -c '\"$PROBE\" write:\"$T/deny/gc\" write:\"$T/rw/gc\"'"
is "$(said read:"$T/deny/secret")" "read:$T/deny/secret=EACCES" "after exec (a shell's child) the rules hold"
is "$(said write:"$T/deny/gc")" "write:$T/deny/gc=EACCES" "a grandchild is still refused"
is "$(said write:"$T/rw/gc")" "write:$T/rw/gc=ok" "a grandchild still has what the rules grant"
check "on the host: the grandchild wrote nothing outside" test ! -e "$T/deny/gc"

# ------------------------------------------------ network, signals, unix
listener() {	# a host TCP listener and an abstract unix one; prints ports
	python3 -c '
import socket, sys, time
t = socket.socket(); t.bind(("127.0.0.1", 0)); t.listen()
u = socket.socket(socket.AF_UNIX); u.bind("\0" + sys.argv[1]); u.listen()
f = socket.socket(); f.bind(("127.0.0.1", 0)); free = f.getsockname()[1]; f.close()
print(t.getsockname()[1], free, flush=True)
time.sleep(60)' "$1" &
}
uname=pysbx-ll-$$
listener "$uname" >"$T/ports"
pids+=($!)
wait_for test -s "$T/ports"
read -r port free <"$T/ports"
sleep 60 &
victim=$!
pids+=($victim)
run "$PROBE" connect:"$port" kill:"$victim" uconnect:"$uname"
if [[ $(cat "$T/out") != *"connect:$port=ok"*"kill:$victim=ok"*"uconnect:$uname=ok"* ]]; then
	not_ok "host baseline: the listener, the process and the socket are reachable" "$(cat "$T/out")"
else
	ok "host baseline: the listener, the process and the socket are reachable"
fi
L "$P" -- "$PROBE" connect:"$port" bind:"$free" kill:"$victim" uconnect:"$uname"
if ((abi >= 4)); then
	is "$(said connect:"$port")" "connect:$port=EACCES" "unshare net: TCP connect to a host loopback listener is refused (ABI 4)"
	is "$(said bind:"$free")" "bind:$free=EACCES" "unshare net: TCP bind is refused (ABI 4)"
else
	skip "TCP rules need ABI 4 (kernel: $abi)"
	skip "TCP rules need ABI 4 (kernel: $abi)"
fi
if ((abi >= 6)); then
	is "$(said kill:"$victim")" "kill:$victim=EPERM" "a signal to a process outside is refused (ABI 6)"
	is "$(said uconnect:"$uname")" "uconnect:$uname=EPERM" "an abstract unix socket made outside is refused (ABI 6)"
else
	skip "scoping needs ABI 6 (kernel: $abi)"
	skip "scoping needs ABI 6 (kernel: $abi)"
fi

if ((abi >= 4)); then
	Q=$(pol proxy "${base[@]}" "net-proxy port=$port")
	L "$Q" -- "$PROBE" connect:"$port" connect:"$free"
	is "$rc:$(said connect:"$port"):$(said connect:"$free")" "0:connect:$port=ok:connect:$free=EACCES" \
		"net-proxy: TCP connect to the proxy's port only"
else
	skip "TCP rules need ABI 4"
fi

# ------------------------------------------------------- forced ABIs
# Without best-effort: each ABI below what the policy needs fails closed.
want=(
	"pysbx-landlock: fatal: unable to enforce Landlock 'fs' (ruling the filesystem, for 'ro-bind' at $P:2): the Landlock ABI 0 (set by --abi or PYSBX_LANDLOCK_ABI); it needs ABI 1"
	"pysbx-landlock: fatal: unable to enforce Landlock 'truncate' (refusing truncate outside writable paths, for 'ro-bind' at $P:2): the Landlock ABI 1 (set by --abi or PYSBX_LANDLOCK_ABI); it needs ABI 3"
	"pysbx-landlock: fatal: unable to enforce Landlock 'truncate' (refusing truncate outside writable paths, for 'ro-bind' at $P:2): the Landlock ABI 2 (set by --abi or PYSBX_LANDLOCK_ABI); it needs ABI 3"
	"pysbx-landlock: fatal: unable to enforce Landlock 'tcp' (refusing TCP bind and connect, for 'unshare net' at $P:1): the Landlock ABI 3 (set by --abi or PYSBX_LANDLOCK_ABI); it needs ABI 4"
	"pysbx-landlock: fatal: unable to enforce Landlock 'ioctl-dev' (refusing device ioctls outside dev paths, for 'ro-bind' at $P:2): the Landlock ABI 4 (set by --abi or PYSBX_LANDLOCK_ABI); it needs ABI 5"
	"pysbx-landlock: fatal: unable to enforce Landlock 'scope-signal' (refusing signals to processes outside, for 'the policy' at $P:1): the Landlock ABI 5 (set by --abi or PYSBX_LANDLOCK_ABI); it needs ABI 6"
)
for a in 0 1 2 3 4 5; do
	if ((a >= abi)); then
		skip "ABI $a: the kernel's is not higher"
		continue
	fi
	L "$P" --abi "$a" -- "$PROBE" write:"$T/rw/abi$a"
	is "$rc:$(head -1 "$T/err"):$(cat "$T/out")" "111:${want[a]}:" \
		"ABI $a forced, nothing best-effort: exit 111 naming the class, the line and the ABI; the target never ran"
done
PYSBX_LANDLOCK_ABI=3 L "$P" -- "$PROBE" write:"$T/rw/env"
is "$rc:$(grep -c "'tcp'" "$T/err")" "111:1" "PYSBX_LANDLOCK_ABI=3 lowers the ABI as --abi does"
L "$P" --abi 7 -- "$PROBE" write:"$T/rw/abi7"
is "$rc:$(said write:"$T/rw/abi7")" "0:write:$T/rw/abi7=ok" "--abi $((abi > 7 ? 7 : abi))+: the kernel's ABI, nothing lowered"

# With best-effort classes the lower ABIs run, each without what it lacks.
B=$(pol best "${base[@]}" 'landlock-best-effort all')
if ((abi >= 4)); then
	L "$B" --abi 3 -- "$PROBE" connect:"$port" write:"$T/deny/b3" trunc:"$T/ro/file"
	is "$rc:$(said connect:"$port"):$(said write:"$T/deny/b3"):$(said trunc:"$T/ro/file")" \
		"0:connect:$port=ok:write:$T/deny/b3=EACCES:trunc:$T/ro/file=EACCES" \
		"ABI 3 forced, all best-effort: TCP connects, files and truncate still ruled"
	grep -q "pysbx-landlock: warning: not refusing TCP bind and connect ('tcp', best-effort)" "$T/err" &&
		ok "ABI 3 best-effort: a warning names the dropped class" ||
		not_ok "ABI 3 best-effort: a warning names the dropped class" "$(cat "$T/err")"
	echo keep >"$T/ro/file"
else
	skip "needs ABI 4"; skip "needs ABI 4"
fi
if ((abi >= 6)); then
	L "$B" --abi 5 -- "$PROBE" kill:"$victim" connect:"$port"
	is "$rc:$(said kill:"$victim"):$(said connect:"$port")" "0:kill:$victim=ok:connect:$port=EACCES" \
		"ABI 5 forced, all best-effort: signals reach outside, TCP still refused"
else
	skip "needs ABI 6"
fi
L "$B" --abi 2 -- "$PROBE" trunc:"$T/ro/file" write:"$T/ro/file"
is "$rc:$(said trunc:"$T/ro/file"):$(said write:"$T/ro/file")" "0:trunc:$T/ro/file=ok:write:$T/ro/file=EACCES" \
	"ABI 2 forced, all best-effort: truncate(2) is not ruled (as documented), writes still are"
echo keep >"$T/ro/file"
if ((abi >= 6)); then
	L "$P" --abi 6 -- "$PROBE" kill:"$victim" connect:"$port" trunc:"$T/ro/file"
	is "$rc:$(said kill:"$victim"):$(said connect:"$port"):$(said trunc:"$T/ro/file")" \
		"0:kill:$victim=EPERM:connect:$port=EACCES:trunc:$T/ro/file=EACCES" \
		"ABI 6 forced, nothing best-effort: every class enforced, the run goes on"
else
	skip "needs ABI 6"
fi
L "$B" --abi 1 -- "$PROBE" exec:/bin/sh -c "mv \"$T/rw/made\" \"$T/rw/sub/\" 2>&1; \"$PROBE\" read:\"$T/deny/secret\""
is "$rc:$(said read:"$T/deny/secret")" "0:read:$T/deny/secret=EACCES" "ABI 1 forced, all best-effort: files still ruled"
L "$B" --abi 0 -- "$PROBE" read:"$T/deny/secret"
is "$rc:$(said read:"$T/deny/secret")" "0:read:$T/deny/secret=ok" "ABI 0 forced with 'fs' best-effort: no Landlock at all, as documented"
grep -q "warning: not ruling the filesystem ('fs', best-effort)" "$T/err" &&
	ok "ABI 0 best-effort: the warning says the filesystem is not ruled" ||
	not_ok "ABI 0 best-effort: the warning says the filesystem is not ruled" "$(cat "$T/err")"

# ------------------------------------------- host-path mapping errors
M=$(pol map 'unshare user mount' "bind $T/rw /work" "ro-bind $T $T" "mask $T/deny" "file /pysbx-ll-file hello")
L "$M" -- /bin/true
is "$rc:$(grep -c ': error: ' "$T/err")" "100:2" "host paths: 2 positioned errors (a bind elsewhere, file), exit 100"
grep -qF "$M:2:1: error: 'bind $T/rw /work': without a mount namespace" "$T/err" &&
	ok "a bind to another path names its line" || not_ok "a bind to another path names its line" "$(cat "$T/err")"
grep -qF "$M:5:1: error: 'file /pysbx-ll-file': without a mount namespace" "$T/err" &&
	ok "file names its line" || not_ok "file names its line" "$(cat "$T/err")"

# Exclusions: the grant above is split around them.
ln -s "$T/deny" "$T/alias"
echo x >"$T/rw/keepme"
X=$(pol split 'unshare user mount' "ro-bind $PROBE_DIR $PROBE_DIR" "ro-bind $T $T" "mask $T/alias" "bind $T/rw $T/rw" "remount-ro $T/rw/sub")
L "$X" -- "$PROBE" read:"$T/deny/secret" read:"$T/ro/file" ls:"$T/ro" ls:"$T" write:"$T/new" \
	write:"$T/rw/keepme" write:"$T/rw/sub/x" write:"$T/rw/fresh"
is "$rc:$(said read:"$T/deny/secret"):$(said read:"$T/ro/file"):$(said ls:"$T/ro")" \
	"0:read:$T/deny/secret=EACCES:read:$T/ro/file=ok:ls:$T/ro=ok" \
	"host: a mask (named through a symlink) under a granted path is hidden; the rest of the grant stays"
is "$(said ls:"$T"):$(said write:"$T/new")" "ls:$T=EACCES:write:$T/new=EACCES" \
	"host: the directory above a mask is traversed, not listed"
is "$(said write:"$T/rw/keepme"):$(said write:"$T/rw/sub/x"):$(said write:"$T/rw/fresh")" \
	"write:$T/rw/keepme=ok:write:$T/rw/sub/x=EACCES:write:$T/rw/fresh=EACCES" \
	"host: remount-ro below a writable bind: read-only there; files beside it stay writable, none can be created beside it"
check "on the host: nothing was created under the remount-ro path" test ! -e "$T/rw/sub/x" -a ! -e "$T/rw/fresh"
ln -s "$T/deny" "$T/link"
S=$(pol sym 'unshare user mount' "ro-bind $T/link $T/link")
L "$S" -- /bin/true
is "$rc:$(head -1 "$T/err")" "111:pysbx-landlock: fatal: unable to open $T/link for its Landlock rule ('ro-bind' at $S:2) (a symlink is on its way): Symbolic link loop" \
	"a symlink in a rule's path is refused, never followed"

# host dev: a container's /dev/ptmx is a symlink to pts/ptmx: no rule
# for the link (access is checked at its target), no failure
mkdir -p "$T/fakedev/pts"
ln -s pts/ptmx "$T/fakedev/ptmx"
echo z >"$T/fakedev/null"
F=$(pol fakedev 'unshare user mount pid' "ro-bind $PROBE_DIR $PROBE_DIR" "dev $T/fakedev")
L "$F" -- "$PROBE" read:"$T/fakedev/null" write:"$T/fakedev/null"
is "$rc:$(said read:"$T/fakedev/null"):$(said write:"$T/fakedev/null")" "0:read:$T/fakedev/null=ok:write:$T/fakedev/null=ok" \
	"host dev: a node that is a symlink (ptmx -> pts/ptmx) is skipped, the others ruled"

# host tmpfs: the host's directory only when it is shared by design
H=$(pol htmp 'unshare user mount' "ro-bind $PROBE_DIR $PROBE_DIR" "ro-bind $T $T" "tmpfs $T/rw")
L "$H" -- "$PROBE" read:"$T/rw/keepme" read:"$T/ro/file"
is "$rc:$(said read:"$T/rw/keepme"):$(said read:"$T/ro/file")" "0:read:$T/rw/keepme=EACCES:read:$T/ro/file=ok" \
	"host: a tmpfs over a private directory hides it (no rule, the grant above split around it)"
H=$(pol htmp2 'unshare user mount' 'ro-bind /usr /usr' "ro-bind $PROBE_DIR $PROBE_DIR" 'tmpfs /tmp')
L "$H" -- "$PROBE" write:/tmp/pysbx-ll-$$ read:/etc/passwd
rm -f /tmp/pysbx-ll-$$
is "$rc:$(said write:/tmp/pysbx-ll-$$):$(said read:/etc/passwd)" "0:write:/tmp/pysbx-ll-$$=ok:read:/etc/passwd=EACCES" \
	"host: tmpfs /tmp is the host's shared /tmp (sticky, world-writable), nothing more"

# ------------------------------------- pysbx run: defence in depth
ns=(
	'unshare user mount pid ipc uts net'
	'tmpfs /tmp'
	'ro-bind /usr /usr'
	'symlink usr/bin /bin'
	'symlink usr/lib /lib'
	'symlink usr/lib64 /lib64'
	"ro-bind $PROBE_DIR $PROBE_DIR"
	"bind $T/rw $T/rw"
	'proc /proc'
	'dev /dev'
)
Y=$(pol nsyes "${ns[@]}" 'landlock yes')
N=$(pol nsno "${ns[@]}")
run "$BIN/pysbx" run -p "$Y" -- "$PROBE" ls:/ ls:/usr kill:1 write:"$T/rw/ns" write:/tmp/t exec:/bin/sh -c "\"$PROBE\" ls:/"
is "$rc:$(said ls:/):$(said ls:/usr):$(said kill:1)" "0:ls:/=EACCES:ls:/usr=ok:kill:1=EPERM" \
	"landlock yes: pysbx run adds the step: / (no rule) cannot be listed, /usr can, pid 1 (outside the domain) cannot be signalled"
is "$(said write:"$T/rw/ns"):$(said write:/tmp/t)" "write:$T/rw/ns=ok:write:/tmp/t=ok" \
	"landlock yes: the bind and the tmpfs stay writable (rules on the destinations)"
is "$(grep -c 'ls:/=EACCES' "$T/out")" "2" "landlock yes: the target's child is refused too"
run "$BIN/pysbx" run -p "$N" -- "$PROBE" ls:/ kill:1
is "$rc:$(said ls:/):$(said kill:1)" "0:ls:/=ok:kill:1=ok" \
	"without 'landlock yes' the chain has no Landlock step (same probes pass)"
run "$BIN/pysbx" run -p "$Y" -- /bin/sh -c 'cat /proc/self/status' 
is "$rc:$(grep -c '^NoNewPrivs:.1' "$T/out")" "0:1" "landlock yes: the target runs with no_new_privs"

# ------------------------------------- pysbx session: the same
PY_LL=$(pol pyll "$(cat "${PYSBX_POLICIES:-$here/policies}/python.policy")" 'landlock yes')
PY_NO=$(pol pyno "$(cat "${PYSBX_POLICIES:-$here/policies}/python.policy")")
mkdir -p "$T/pyws"
cp "${PYSBX_POLICIES:-$here/policies}"/*.inc "$T/"	# python.policy's includes
sess() {
	python3 - "$1" "${PYSBX_ROOT:-$here}/scripts" "$BIN/pysbx" "$T/pyws" <<'PY' 2>&1
import sys
sys.path.insert(0, sys.argv[2])
from session_client import Session
with Session(pysbx=sys.argv[3], policy=sys.argv[1], workspace=sys.argv[4]) as s:
    r = s.execute("import os\ntry:\n    os.listdir('/')\n    x = 'listed'\nexcept PermissionError:\n    x = 'denied'\nx")
    print(r.get("status"), r.get("value"))
PY
}
is "$(sess "$PY_LL" | tail -1)" "ok 'denied'" "pysbx session with 'landlock yes': the worker runs under Landlock"
is "$(sess "$PY_NO" | tail -1)" "ok 'listed'" "pysbx session without it: no Landlock step"
