#!/usr/bin/env bash
# The anonymous AF_UNIX pair that python.policy and agent-shell allow
# (asyncio, multiprocessing.Pipe, Node's child stdio need one) reaches
# nothing on the host: a host daemon listening on a stream socket and one
# reading a datagram socket, both visible inside (a read root, the
# workspace), are attacked from inside with every route a pair offers
# (a datagram pair's sendto() and connect(), connect() and bind() on a
# stream pair, socket() of each family); the host side checks that nothing
# arrived.
set -u
B=${PYSBX_BIN:?}
P=${PYSBX_POLICIES:?}
PY=/usr/bin/python3
T=$(mktemp -d "$HOME/sp.XXXXXX") || exit 111
# Read roots must lie outside /tmp (the sandbox's own): use /var/tmp.
RR=$(mktemp -d /var/tmp/pysbx-sp.XXXXXX) || exit 111
chmod 0755 "$HOME" "$T" "$RR"
DAEMON=
cleanup() {
	[[ -n $DAEMON ]] && kill "$DAEMON" 2>/dev/null && wait "$DAEMON" 2>/dev/null
	rm -rf "$T" "$RR"
}
trap cleanup EXIT
. "${PYSBX_TESTDIR:?}/lib.sh"

if [[ ! -x $PY ]]; then echo "1..0 # SKIP $PY is missing"; exit 0; fi
echo "1..8"

# The host daemon: a datagram socket and a listening stream socket in the
# read root and in the workspace; it writes what reaches it to $T/got.
WS=$T/ws
mkdir "$WS"
cat >"$T/daemon.py" <<'EOF'
import os, select, socket, sys
out = open(sys.argv[1], "a", buffering=1)
socks = []
for d in sys.argv[2:]:
    g = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    g.bind(os.path.join(d, "dgram.sock"))
    socks.append(g)
    for kind, name in ((socket.SOCK_STREAM, "stream.sock"),
                       (socket.SOCK_SEQPACKET, "seq.sock")):
        s = socket.socket(socket.AF_UNIX, kind)
        s.bind(os.path.join(d, name))
        s.listen(8)
        socks.append(s)
open(sys.argv[1] + ".ready", "w").close()
while True:
    for s in select.select(socks, [], [])[0]:
        if s.type == socket.SOCK_DGRAM:
            out.write("datagram %r\n" % s.recv(100))
        else:
            s.accept()
            out.write("connection %d\n" % s.type)
EOF
: >"$T/got"
$PY -I -S "$T/daemon.py" "$T/got" "$RR" "$WS" &
DAEMON=$!
wait_for test -e "$T/got.ready" || { echo "Bail out! the host daemon did not start"; exit 1; }
# Proof that the daemon hears what reaches it (a failing attack below
# must mean the sandbox stopped it, not that the daemon was deaf).
$PY -I -S -c 'import socket, sys
g = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM); g.sendto(b"hello", sys.argv[1] + "/dgram.sock")
socket.socket(socket.AF_UNIX).connect(sys.argv[1] + "/stream.sock")
socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET).connect(sys.argv[1] + "/seq.sock")' "$RR"
wait_for grep -q "connection 5" "$T/got"
is "$(sort "$T/got")" "connection 1
connection 5
datagram b'hello'" "the host daemon hears a datagram and stream and seqpacket connections from the host"
: >"$T/got"

# The attack, run inside: each route, its outcome printed.
cat >"$WS/attack.py" <<'EOF'
import socket, sys
d = sys.argv[1]
def attempt(name, f):
    try:
        f(); print(name, "sent")
    except OSError as e:
        print(name, e.errno)
def dgram_sendto():
    a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)
    a.sendto(b"escape", d + "/dgram.sock")
def dgram_connect():
    a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)
    a.connect(d + "/dgram.sock"); a.send(b"escape")
def stream_connect():
    a, b = socket.socketpair()
    a.connect(d + "/stream.sock")
def stream_sendto():
    a, b = socket.socketpair()
    a.sendto(b"escape", d + "/dgram.sock")
def seqpacket_connect():
    a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    a.connect(d + "/seq.sock")
def unix_socket():
    socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM).sendto(b"escape", d + "/dgram.sock")
for name, f in [("dgram_sendto", dgram_sendto), ("dgram_connect", dgram_connect),
                ("stream_connect", stream_connect), ("stream_sendto", stream_sendto),
                ("seqpacket_connect", seqpacket_connect), ("unix_socket", unix_socket)]:
    attempt(name, f)
EOF
WANT="dgram_sendto 1 dgram_connect 1 stream_connect 106 stream_sendto 106 seqpacket_connect 106 unix_socket 1"

out=$("$B/pysbx" run -p "$P/python.policy" -D WORKSPACE="$WS" -D READ_ROOTS="$RR" -- \
	$PY -I -S /workspace/attack.py "$RR" 2>&1)
is "$(echo $out)" "$WANT" \
	"python.policy: a datagram pair is refused (EPERM); a stream or seqpacket pair cannot connect or send elsewhere (EISCONN)"
sleep 0.3
is "$(cat "$T/got")" "" "python.policy: nothing reached the host daemon in the read root"

out=$("$B/pysbx" run -p "$P/agent-shell.policy" -D WORKSPACE="$WS" -- \
	$PY -I -S "$WS/attack.py" "$WS" 2>&1)
is "$(echo $out)" "$WANT" \
	"agent-shell: the same routes to a daemon's sockets in the workspace all fail"
sleep 0.3
is "$(cat "$T/got")" "" "agent-shell: nothing reached the host daemon in the workspace"

# bind() gives a pair member a name in the (writable) workspace; a host
# client must not be able to reach the sandbox through it.
out=$("$B/pysbx" run -p "$P/agent-shell.policy" -D WORKSPACE="$WS" -- \
	$PY -I -S -c 'import socket
a, b = socket.socketpair()
try: a.bind("bound.sock"); print("bound")
except OSError as e: print(e.errno)
try: a.listen(1); print("listening")
except OSError as e: print(e.errno)' 2>&1)
is "$(echo $out)" "bound 22" "agent-shell: a pair member can be bound to a name but never listen (EINVAL)"
r=$($PY -I -S -c 'import socket, sys
try: socket.socket(socket.AF_UNIX).connect(sys.argv[1]); print("connected")
except OSError as e: print(e.errno)' "$WS/bound.sock" 2>&1)
is "$r" "111" "the host cannot connect to it (ECONNREFUSED)"

# Through the whole chain with the shipped policy: socket() of inet,
# unix and netlink stays denied while a pair works.
out=$("$B/pysbx" run -p "$P/python.policy" -D WORKSPACE="$WS" -- $PY -I -S -c 'import socket
for fam in (socket.AF_INET, socket.AF_INET6, socket.AF_UNIX, socket.AF_NETLINK):
    try: socket.socket(fam, socket.SOCK_DGRAM); print("open")
    except OSError as e: print(e.errno)
a, b = socket.socketpair(); a.send(b"pair"); print(b.recv(4).decode())' 2>&1)
is "$(echo $out)" "1 1 1 1 pair" "python.policy: socket() of inet, inet6, unix, netlink fails (EPERM); the anonymous pair works"
