#!/usr/bin/env bash
# The egress proxy (net-proxy, docs/NETWORK.md): requests from inside the
# sandbox through the proxy in the guard, checked against the rules; what
# is refused, what is logged; what a sandboxed program cannot reach
# around it; malformed and hostile clients; the proxy process itself
# (confinement, lifetime). Every server is on this machine's loopback,
# bound to 127.0.0.1 on the host side, and reached by an address or a
# pinned name (net-resolve): no test needs DNS or the internet.
set -u

B=${PYSBX_BIN:?}
PY=/usr/bin/python3
# The clients are real ones: curl and pip (./build.sh test installs them
# as root).
if [[ ! -x /usr/bin/curl || ! -x $PY ]] || ! "$PY" -m pip --version >/dev/null 2>&1; then
	echo "1..0 # SKIP needs /usr/bin/curl, /usr/bin/python3 and its pip (apt-get install curl python3-pip)"
	exit 0
fi
T=$(mktemp -d "${HOME:-/tmp}/proxy-test.XXXXXX") || exit 111
chmod 0755 "$T"
pids=()
cleanup() {
	local p
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT

free_port() {
	"$PY" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

# Host-side web servers on 127.0.0.1: $WWW holds index.html ("hello"), a
# 1 MiB file and the package index of the pip test.
WWW=$T/www
mkdir -p "$WWW"
echo hello >"$WWW/index.html"
head -c 1048576 /dev/zero | tr '\0' x >"$WWW/big"
P1=$(free_port)
P2=$(free_port)
for p in "$P1" "$P2"; do
	(cd "$WWW" && exec "$PY" -m http.server --bind 127.0.0.1 "$p") \
		>/dev/null 2>&1 &
	pids+=($!)
done
up() { "$PY" -c 'import socket,sys; socket.create_connection(("127.0.0.1", int(sys.argv[1])), 1)' "$1" 2>/dev/null; }
for ((i = 0; i < 100; i++)); do up "$P1" && up "$P2" && break; sleep 0.1; done
# lib.sh takes the servers (started above) for processes of this uid
# that were there before: no leftover of a sandbox.
. "${PYSBX_TESTDIR:?}/lib.sh"
U=$(id -u)
up "$P1" && up "$P2" || { echo "Bail out! test servers did not start"; exit 1; }

# pol NAME LINE...: a policy $T/NAME.policy: the sandbox of these tests
# (python3 and curl from /usr, a net namespace, net-proxy) plus LINEs.
pol() {
	local f=$T/$1.policy
	shift
	{
		cat <<-'EOF'
		unshare user mount pid ipc uts net
		ro-bind /usr /usr
		symlink usr/bin /bin
		symlink usr/lib /lib
		symlink usr/lib64 /lib64
		proc /proc
		dev /dev
		tmpfs /tmp
		file /etc/hosts "127.0.0.1 localhost\n"
		env PATH=/usr/bin:/bin HOME=/tmp LANG=C.UTF-8
		net-proxy
		EOF
		printf '%s\n' "$@"
	} >"$f"
	chmod 0644 "$f"
}
# run POLICY CMD...: the sandbox; stdout in $out, stderr in $T/err, the
# status records in $T/st, the exit code in $rc.
run() {
	local p=$T/$1.policy
	shift
	out=$("$B/pysbx" run -p "$p" --status-fd 3 -- "$@" 2>"$T/err" 3>"$T/st")
	rc=$?
}
# rec EXPR: evaluate a python expression over the status records (r:
# all of them, e: the egress ones, ex: the exit record).
rec() {
	"$PY" -c '
import json, sys
r = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
e = [x for x in r if x.get("event") == "egress"]
ex = ([x for x in r if x.get("event") == "exit"] or [{}])[-1]
print(eval(sys.argv[2]))' "$T/st" "$1" 2>&1
}
CURL=(curl -sS --max-time 20)

echo "1..48"

# --- allowed, through CONNECT and plain HTTP ----------------------------

pol allow "net-resolve ok.test=127.0.0.1" "net-allow ok.test"
run allow "${CURL[@]}" "http://ok.test:$P1/"
is "$rc:$out" "0:hello" "plain HTTP to an allowed, pinned name reaches the host's server"
is "$(rec '[(x["proto"], x["host"], x["port"], x["addr"], x["verdict"], x["status"]) for x in e]')" \
	"[('http', 'ok.test', $P1, '127.0.0.1', 'allow', 200)]" \
	"... one egress record: proto, host, port, resolved address, verdict, status"
check "... naming the rule that allowed it (file:line:col)" \
	grep -q "\"rule\":\"net-allow ok.test ($T/allow.policy:13:11)\"" "$T/st"
is "$(rec 'e[0]["bytes_down"] > 6 and e[0]["bytes_up"] > 20 and isinstance(e[0]["ms"], int)')" True \
	"... with the bytes each way and the duration"
is "$(rec '[x["event"] for x in r]')" "['started', 'egress', 'exit']" \
	"... written before the exit record"

run allow "${CURL[@]}" -p "http://ok.test:$P1/"
is "$rc:$out" "0:hello" "a CONNECT tunnel (curl -p) to an allowed name"
is "$(rec '[(x["proto"], x["verdict"], x["status"]) for x in e]')" "[('connect', 'allow', 200)]" \
	"... logged as connect, allow"

run allow "${CURL[@]}" -o /dev/null -w '%{size_download}' "http://ok.test:$P1/big"
is "$rc:$out:$(rec 'e[0]["bytes_down"] >= 1048576')" "0:1048576:True" \
	"1 MiB relayed whole; bytes_down counts it"

run allow sh -c 'echo "$http_proxy $https_proxy $HTTP_PROXY $HTTPS_PROXY $ALL_PROXY $NO_PROXY"'
is "$out" "http://127.0.0.1:3128 http://127.0.0.1:3128 http://127.0.0.1:3128 http://127.0.0.1:3128 http://127.0.0.1:3128 localhost,127.0.0.1,::1" \
	"the target gets the proxy variables"
pol envset "net-resolve ok.test=127.0.0.1" "net-allow ok.test" "env https_proxy=http://127.0.0.1:9"
run envset sh -c 'echo "$https_proxy $http_proxy"'
is "$out" "http://127.0.0.1:9 http://127.0.0.1:3128" "... and the policy's own value of one wins"

# --- refused ------------------------------------------------------------

run allow "${CURL[@]}" -w '%{http_code}' "http://evil.test:$P1/"
is "$out" "pysbx-proxy: evil.test:$P1 is not allowed: no rule allows it (default deny)
403" "a host no rule allows: 403, whose body names the host and the reason"
check "... and a line on stderr says the same" \
	grep -qx "pysbx-proxy: denied HTTP evil.test:$P1: no rule allows it (default deny)" "$T/err"
is "$(rec '[(x["host"], x["verdict"], x["status"], x["rule"], x["addr"]) for x in e]')" \
	"[('evil.test', 'deny', 403, None, None)]" "... logged: deny, no rule, never resolved"

run allow "${CURL[@]}" -p -o /dev/null -w '%{http_connect}' "http://evil.test:$P1/"
is "$out:$(rec 'e[0]["proto"], e[0]["status"]')" "403:('connect', 403)" "CONNECT to it: 403 too"

# A loop of refused requests: every one has its record, the caller's
# stderr gets at most 10 lines a second and then a count.
run allow sh -c "i=0; while [ \$i -lt 40 ]; do curl -sS -o /dev/null http://evil.test:$P1/; i=\$((i+1)); done; sleep 1.2; curl -sS -o /dev/null http://evil.test:$P1/"
n=$(grep -c '^pysbx-proxy: denied' "$T/err")
is "$(rec 'len(e)'):$((n >= 10 && n <= 31))" "41:1" "41 refusals: 41 egress records, at most 10 stderr lines a second ($n)"
check "... and a line counting the ones not shown" grep -q '^pysbx-proxy: [0-9]* more refusals in one second not shown here' "$T/err"

pol deny "net-resolve a.deny.test=127.0.0.1" \
	"net-allow *.deny.test" "net-deny b.deny.test" "net-allow b.deny.test"
run deny sh -c "curl -sS -o /dev/null -w '%{http_code} ' http://a.deny.test:$P1/; curl -sS -w '%{http_code}' http://b.deny.test:$P1/"
is "$out" "200 pysbx-proxy: b.deny.test:$P1 is not allowed: net-deny b.deny.test ($T/deny.policy:14:10)
403" "deny beats allow (a wildcard and an exact allow); the 403 names the deny rule"

pol wild "net-resolve a.wild.test=127.0.0.1 x.y.wild.test=127.0.0.1" \
	"net-allow *.wild.test"
run wild sh -c "for h in a.wild.test x.y.wild.test wild.test; do curl -sS -o /dev/null -w '%{http_code} ' http://\$h:$P1/; done"
is "$out" "200 200 403 " "*.wild.test allows names below it, not wild.test itself"

pol port "net-resolve port.test=127.0.0.1" "net-allow port.test:$P1"
run port sh -c "curl -sS -o /dev/null -w '%{http_code} ' http://port.test:$P1/; curl -sS -o /dev/null -w '%{http_code}' http://port.test:$P2/"
is "$out" "200 403" "a port rule allows that port only"

# An IP literal only when a rule names it.
pol lit "net-allow 127.0.0.1:$P1"
run lit sh -c "curl -sS --noproxy '' -o /dev/null -w '%{http_code} ' http://127.0.0.1:$P1/; curl -sS --noproxy '' -o /dev/null -w '%{http_code}' http://127.0.0.2:$P1/"
is "$out" "200 403" "an IP literal a rule names is allowed, another one is not"

# DNS rebinding: a name that resolves to loopback (here through the
# proxy's /etc/hosts) is refused unless a rule names the address.
pol rebind "net-allow localhost"
run rebind "${CURL[@]}" --noproxy '' -w '%{http_code}' "http://localhost:$P1/"
is "$out" "pysbx-proxy: localhost:$P1 is not allowed: it resolves to 127.0.0.1 (loopback), which no rule names (add net-allow 127.0.0.1, or a net-resolve pin, to allow it)
403" "an allowed name that resolves to 127.0.0.1: 403, saying where it resolves and how to allow it"
is "$(rec '(e[0]["verdict"], e[0]["addr"])')" "('deny', '127.0.0.1')" "... logged with the address"
pol rebind2 "net-allow localhost" "net-allow 127.0.0.1:$P1"
run rebind2 "${CURL[@]}" --noproxy '' "http://localhost:$P1/"
is "$rc:$out" "0:hello" "... and allowed once a rule names 127.0.0.1"

# --- around the proxy -----------------------------------------------------

HOSTIP=$(ip -4 -o addr show scope global 2>/dev/null | awk '{print $4}' | cut -d/ -f1 | head -1)
[[ -n $HOSTIP ]] || HOSTIP=192.0.2.1
# errno of each attempt, from inside
pol around "net-resolve ok.test=127.0.0.1" "net-allow ok.test"
cat >"$T/around.py" <<'EOF'
import errno, socket, sys
port, hostip = int(sys.argv[1]), sys.argv[2]
def tcp(addr):
    try:
        socket.create_connection(addr, 2).close(); return "connected"
    except OSError as e: return errno.errorcode.get(e.errno, str(e.errno))
def udp():
    try:
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    except OSError as e: return "socket:" + errno.errorcode[e.errno]
    try:
        s.sendto(b"x", (hostip, 53)); return "sent"
    except OSError as e: return errno.errorcode[e.errno]
def raw():
    try:
        socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP); return "raw"
    except OSError as e: return errno.errorcode[e.errno]
print(tcp(("127.0.0.1", port)), tcp((hostip, port)), udp(), raw())
EOF
chmod 0644 "$T/around.py"
cp "$T/around.py" "$WWW/around.py"
run around sh -c "cd /tmp && curl -sS -o around.py http://ok.test:$P1/around.py && $PY around.py $P1 $HOSTIP"
is "$out" "ECONNREFUSED ENETUNREACH ENETUNREACH EPERM" \
	"from inside: the host's 127.0.0.1 server is not there, the host's address is unreachable, UDP goes nowhere, raw sockets are refused"
pol aroundsc "net-resolve ok.test=127.0.0.1" "net-allow ok.test" "seccomp deny @proxy-client"
run aroundsc sh -c "cd /tmp && curl -sS -o around.py http://ok.test:$P1/around.py && $PY around.py $P1 $HOSTIP"
is "$out" "ECONNREFUSED ENETUNREACH socket:EPERM EPERM" "with @proxy-client: TCP still works, a UDP socket is refused"
run aroundsc "$PY" -c '
import socket
r = []
for f, t in ((socket.AF_UNIX, socket.SOCK_STREAM), (socket.AF_NETLINK, socket.SOCK_RAW), (socket.AF_PACKET, socket.SOCK_RAW), (socket.AF_INET6, socket.SOCK_DGRAM), (socket.AF_VSOCK, socket.SOCK_STREAM)):
    try:
        socket.socket(f, t); r.append("ok")
    except OSError as e: r.append(str(e.errno))
a, b = socket.socketpair()
r.append("pair")
print(" ".join(r))'
is "$out" "1 1 1 1 1 pair" "@proxy-client refuses unix, netlink, packet, UDP6, vsock sockets; socketpair() works"

# --- malformed and hostile clients ------------------------------------------

cat >"$WWW/hostile.py" <<'EOF'
import socket, sys, threading, time
port = int(sys.argv[1])
def ask(data, wait=5):
    s = socket.create_connection(("127.0.0.1", 3128), 5)
    s.settimeout(wait)
    try:
        s.sendall(data)
    except OSError:
        pass
    got = b""
    try:
        while True:
            b = s.recv(65536)
            if not b: break
            got += b
    except OSError:
        pass
    s.close()
    return got.split(b"\r\n")[0].decode("latin-1")
good = ("GET http://ok.test:%d/ HTTP/1.1\r\nHost: ok.test:%d\r\n\r\n" % (port, port)).encode()
what = sys.argv[2]
if what == "malformed":
    print(ask(b"GET http://ok.test:%d/ HTTP/1.1\r\nX: " % port + b"a" * 20000 + b"\r\n\r\n"))
    print(ask(good))
    print(ask(b"CONNECT ok\0.test:%d HTTP/1.1\r\n\r\n" % port))
    print(ask(good))
    print(ask(b"CONNECT ok.test\r\nX-Injected: 1:%d HTTP/1.1\r\n\r\n" % port))
    print(ask(good))
    print(ask(b"\x16\x03\x01\x00\x05hello"))
    print(ask(good))
elif what == "slowloris":
    # One client trickles a head byte by byte and never ends it; others
    # are served meanwhile; the trickler is cut off by the handshake
    # timeout.
    res = {}
    def slow():
        s = socket.create_connection(("127.0.0.1", 3128), 5)
        t0 = time.time()
        try:
            for ch in b"CONNECT ok.test:%d HTTP/1.1\r\nX-Slow: " % port + b"a" * 1000:
                s.send(bytes([ch])); time.sleep(0.1)
        except OSError:
            pass
        s.settimeout(30)
        got = b""
        try:
            while True:
                b = s.recv(4096)
                if not b: break
                got += b
        except OSError:
            pass
        lines = got.decode("latin-1").split("\r\n")
        res["slow"] = lines[0] + " / " + lines[-1].strip()
    t = threading.Thread(target=slow); t.start()
    time.sleep(0.5)
    print(ask(good), ask(good))
    t.join(40)
    print(res.get("slow"))
elif what == "flood":
    # The connection count is bounded: 64 silent clients hold every
    # slot; a 65th is not served until one of them goes.
    idle = [socket.create_connection(("127.0.0.1", 3128), 5) for _ in range(64)]
    time.sleep(0.3)
    s = socket.create_connection(("127.0.0.1", 3128), 5)
    s.sendall(good)
    s.settimeout(1.5)
    try:
        first = s.recv(100).split(b"\r\n")[0].decode() or "eof"
    except socket.timeout:
        first = "waiting"
    idle.pop().close()
    s.settimeout(10)
    rest = s.recv(100).split(b"\r\n")[0].decode() if first == "waiting" else first
    print(first, rest)
EOF
chmod 0644 "$WWW/hostile.py"
pol hostile "net-resolve ok.test=127.0.0.1" "net-allow ok.test"
hostile() { run hostile sh -c "cd /tmp && curl -sS -o h.py http://ok.test:$P1/hostile.py && $PY h.py $P1 $1"; }
hostile malformed
is "$out" "HTTP/1.1 431 Request Header Fields Too Large
HTTP/1.0 200 OK
HTTP/1.1 400 Bad Request
HTTP/1.0 200 OK
HTTP/1.1 400 Bad Request
HTTP/1.0 200 OK
HTTP/1.1 400 Bad Request
HTTP/1.0 200 OK" "huge header, NUL in the host, CRLF injection, garbage: each refused with a 4xx, and the next request served"
is "$(rec '[x["status"] for x in e if x["verdict"] == "error"]')" "[431, 400, 400, 400]" \
	"... each logged with its status"
hostile slowloris
is "$out" "HTTP/1.0 200 OK HTTP/1.0 200 OK
HTTP/1.1 408 Request Timeout / pysbx-proxy: no complete request head within 10 s" \
	"a slowloris client does not hold up others, and is cut off (408, naming the limit)"
hostile flood
is "$out" "waiting HTTP/1.0 200 OK" "64 connections at once: the 65th waits for a free slot, then is served"

# --- pip and a local package index ----------------------------------------

mkdir -p "$WWW/simple/pxdemo" "$WWW/files"
"$PY" - "$WWW/files" <<'EOF'
import base64, hashlib, sys, zipfile
d = sys.argv[1]
name = "pxdemo-1.0-py3-none-any.whl"
files = {
    "pxdemo/__init__.py": "VALUE = 42\n",
    "pxdemo-1.0.dist-info/METADATA": "Metadata-Version: 2.1\nName: pxdemo\nVersion: 1.0\n",
    "pxdemo-1.0.dist-info/WHEEL": "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
}
rec = []
for f, c in files.items():
    h = base64.urlsafe_b64encode(hashlib.sha256(c.encode()).digest()).rstrip(b"=").decode()
    rec.append("%s,sha256=%s,%d" % (f, h, len(c)))
rec.append("pxdemo-1.0.dist-info/RECORD,,")
files["pxdemo-1.0.dist-info/RECORD"] = "\n".join(rec) + "\n"
with zipfile.ZipFile(d + "/" + name, "w") as z:
    for f, c in files.items():
        z.writestr(f, c)
EOF
sum=$(sha256sum "$WWW/files/pxdemo-1.0-py3-none-any.whl" | cut -d' ' -f1)
printf '<a href="/files/pxdemo-1.0-py3-none-any.whl#sha256=%s">pxdemo-1.0-py3-none-any.whl</a>\n' "$sum" \
	>"$WWW/simple/pxdemo/index.html"
pol pip "net-resolve pypi.test=127.0.0.1" "net-allow pypi.test:$P1"
run pip sh -c "$PY -m pip install --quiet --disable-pip-version-check --no-cache-dir --index-url http://pypi.test:$P1/simple/ --trusted-host pypi.test --target /tmp/site pxdemo && PYTHONPATH=/tmp/site $PY -c 'import pxdemo; print(pxdemo.VALUE)'"
is "$rc:$out" "0:42" "pip install of a wheel from a package index through the proxy"
is "$(rec 'sorted(set((x["host"], x["verdict"]) for x in e))')" "[('pypi.test', 'allow')]" \
	"... every request of it logged, all allowed"

# --- the proxy process ------------------------------------------------------

pol life "net-resolve ok.test=127.0.0.1" "net-allow ok.test"
run life sh -c 'sleep 300 & exit 7'
is "$rc" 7 "with the proxy, the guard exits with the target's code"
# Not a speed check: the guard's wait for pid 1 after a killed monitor
# (up to 5 s, until it has no child) must not wait for the proxy.
is "$(rec 'ex["wall_ms"] < 4000')" True "... without waiting for the proxy as for a process of the sandbox"
check "... and nothing of the run is left (the proxy neither)" no_others

# The proxy's own confinement and fds, seen from the host, once it has
# started (at the first connection).
"$B/pysbx" run -p "$T/life.policy" -- sh -c "curl -s -o /dev/null http://ok.test:$P1/; exec sleep 60" 2>"$T/err2" &
g=$!
prx() { pgrep -u "$U" -x pysbx-proxy; }
wait_for prx >/dev/null
px=$(prx)
# Named early in its start: wait until it has confined itself.
wait_for grep -q '^Seccomp:[[:space:]]*2' "/proc/$px/status"
is "$(awk '/^(NoNewPrivs|Seccomp):/ {printf "%s%s ", $1, $2}' "/proc/$px/status" 2>/dev/null)" \
	"NoNewPrivs:1 Seccomp:2 " "the proxy runs under no_new_privs and a seccomp filter"
fds=$(for f in /proc/"$px"/fd/*; do readlink "$f"; done 2>/dev/null | sed 's/:\[[0-9]*\]//' | LC_ALL=C sort | tr '\n' ' ')
is "$fds" "/dev/null /dev/null $T/err2 anon_inode:[signalfd] socket " \
	"... holding only /dev/null, stderr, its signalfd and the listener (no scratch dir, no pipe of the chain)"
is "$(grep -c . "/proc/$px/mountinfo" 2>/dev/null) $(readlink "/proc/$px/ns/net")" \
	"$(grep -c . /proc/self/mountinfo) $(readlink /proc/self/ns/net)" "... in the host's mount and network namespaces"
{
	kill -KILL "$g"
	wait "$g"
} 2>/dev/null
check "SIGKILL of the guard: the proxy dies with it" wait_for eval '! prx >/dev/null'
check "... and the sandbox too" wait_for no_others

# The run ends while a tunnel is open: the proxy does not keep it alive,
# and the tunnel's record is still written.
run life "$PY" -c "
import socket, os
s = socket.create_connection(('127.0.0.1', 3128))
s.sendall(b'CONNECT ok.test:$P1 HTTP/1.1\r\n\r\n')
print(s.recv(100).split(b'\r\n')[0].decode(), flush=True)
os.system('sleep 300 &')
os._exit(3)"
is "$rc:$out" "3:HTTP/1.1 200 Connection established" "the target exits with a tunnel open: its code"
is "$(rec '[(x["proto"], x["verdict"]) for x in e] + [r[-1]["event"]]')" "[('connect', 'allow'), 'exit']" \
	"... the tunnel's record, then the exit record"
check "... nothing left" no_others

# A plan with net-proxy needs the guard and pysbx-mount.
"$B/pysbx-mount" --partial -p "$T/life.policy" -- true 2>"$T/err"
is "$?:$(cat "$T/err")" "100:pysbx-mount: fatal: the policy asks for the network proxy (net-proxy), which runs in the guard: start the chain with pysbx run or pysbx-clean" \
	"pysbx-mount alone refuses a net-proxy policy"
"$B/pysbx-clean" --partial -p "$T/life.policy" -- "$B/pysbx-exec" true 2>"$T/err"
is "$?" 100 "the guard refuses net-proxy when pysbx-mount does not come next"
check "... saying why" grep -q "net-proxy needs pysbx-mount" "$T/err"

# python.policy with the network variable
WS=$T/ws
mkdir -p "$WS"
printf 'net-resolve pypi.test=127.0.0.1\nnet-allow pypi.test:%s\n' "$P1" >"$T/rules.inc"
chmod 0644 "$T/rules.inc"
out=$("$B/pysbx" run -p "${PYSBX_POLICIES:?}/python.policy" -D WORKSPACE="$WS" -D NETWORK=proxy \
	-D NET_RULES="$T/rules.inc" --status-fd 3 -- \
	/usr/bin/python3 -c "
import urllib.request, socket
print(urllib.request.urlopen('http://pypi.test:$P1/simple/pxdemo/').status)
try:
    socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
except OSError as e: print(e.errno)" 2>"$T/err" 3>"$T/st")
is "$?:$out" "0:200
1" "python.policy -D NETWORK=proxy: the allowed index answers, UDP is refused"
out=$("$B/pysbx" run -p "$PYSBX_POLICIES/python.policy" -D WORKSPACE="$WS" -- \
	/usr/bin/python3 -c "
import socket
try:
    socket.socket(socket.AF_INET, socket.SOCK_STREAM)
except OSError as e: print(e.errno)" 2>&1)
is "$out" 1 "python.policy without it: no socket at all, as before"
