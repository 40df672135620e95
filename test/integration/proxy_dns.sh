#!/usr/bin/env bash
# pysbx-test: root-section
# The egress proxy's own resolver (docs/NETWORK.md): names that no pin
# and no /etc/hosts entry give are asked of the name servers of
# /etc/resolv.conf over UDP. Root only: in a private mount namespace the
# test puts its own /etc/resolv.conf (nameserver 127.0.0.1) and answers
# on 127.0.0.1:53 itself; nothing leaves this machine. As the test uid it
# skips (its root section runs it).
set -u

if [[ $(id -u) != 0 ]]; then
	echo "1..0 # SKIP needs root (runs as this script's root section)"
	exit 0
fi
if [[ -z ${PROXY_DNS_INNER:-} ]]; then
	command -v unshare >/dev/null && [[ -x /usr/bin/curl ]] ||
		{ echo "1..0 # SKIP needs unshare and curl"; exit 0; }
	PROXY_DNS_INNER=1 exec unshare -m --propagation private "$0" "$@"
fi

B=${PYSBX_BIN:?}
PY=/usr/bin/python3
T=$(mktemp -d /tmp/proxy-dns.XXXXXX) || exit 111
chmod 0755 "$T"
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done; wait 2>/dev/null; rm -rf "$T"' EXIT

. "${PYSBX_TESTDIR:?}/lib.sh"

echo "nameserver 127.0.0.1" >"$T/resolv.conf"
mount --bind "$T/resolv.conf" /etc/resolv.conf || { echo "Bail out! cannot bind /etc/resolv.conf"; exit 1; }

mkdir "$T/www"
echo hello >"$T/www/index.html"
PORT=$("$PY" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
(cd "$T/www" && exec "$PY" -m http.server --bind 127.0.0.1 "$PORT") >/dev/null 2>&1 &
pids+=($!)

# The name server: A and AAAA answers from a table, compressed names in
# the answers, a foreign id first (which the proxy must ignore), NXDOMAIN
# for names it does not know; it logs each question to $T/dns.log.
cat >"$T/dns.py" <<'EOF'
import socket, struct, sys
table = {"dns.test": ["127.0.0.1"], "public.test": ["198.51.100.7"],
         "two.test": ["127.0.0.2", "127.0.0.1"], "mapped.test": []}
table6 = {"mapped.test": ["::ffff:127.0.0.1"]}
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("127.0.0.1", 53))
log = open(sys.argv[1], "a", buffering=1)
while True:
    q, peer = s.recvfrom(2048)
    qid = q[:2]
    i, labels = 12, []
    while q[i]:
        labels.append(q[i + 1:i + 1 + q[i]].decode()); i += 1 + q[i]
    name = ".".join(labels)
    qtype = struct.unpack(">H", q[i + 1:i + 3])[0]
    question = q[12:i + 5]
    log.write("%s %d\n" % (name, qtype))
    # first a forged answer with another id: to be ignored
    forged = bytes([qid[0] ^ 0xff, qid[1]]) + b"\x81\x80\x00\x01\x00\x01\x00\x00\x00\x00" + question + \
        b"\xc0\x0c\x00\x01\x00\x01\x00\x00\x00\x3c\x00\x04" + socket.inet_aton("203.0.113.66")
    if qtype == 1:
        s.sendto(forged, peer)
    addrs = table.get(name)
    if addrs is None:
        s.sendto(qid + b"\x81\x83\x00\x01\x00\x00\x00\x00\x00\x00" + question, peer)
        continue
    ans = b""
    n = 0
    if qtype == 1:
        for a in addrs:
            ans += b"\xc0\x0c\x00\x01\x00\x01\x00\x00\x00\x3c\x00\x04" + socket.inet_aton(a)
            n += 1
    if qtype == 28:
        for a in table6.get(name, []):
            ans += b"\xc0\x0c\x00\x1c\x00\x01\x00\x00\x00\x3c\x00\x10" + socket.inet_pton(socket.AF_INET6, a)
            n += 1
    s.sendto(qid + b"\x81\x80\x00\x01" + struct.pack(">H", n) + b"\x00\x00\x00\x00" + question + ans, peer)
EOF
"$PY" "$T/dns.py" "$T/dns.log" &
pids+=($!)
for ((i = 0; i < 100; i++)); do
	"$PY" -c 'import socket; socket.create_connection(("127.0.0.1", '"$PORT"'), 1)' 2>/dev/null && break
	sleep 0.1
done

cat >"$T/p.policy" <<EOF
unshare user mount pid ipc uts net
ro-bind /usr /usr
symlink usr/bin /bin
symlink usr/lib /lib
symlink usr/lib64 /lib64
proc /proc
dev /dev
tmpfs /tmp
env PATH=/usr/bin:/bin
net-proxy
net-allow dns.test two.test nx.test public.test mapped.test
net-allow 127.0.0.1:$PORT
EOF
chmod 0644 "$T/p.policy"
run() { out=$("$B/pysbx" run -p "$T/p.policy" --status-fd 3 -- "$@" 2>"$T/err" 3>"$T/st"); rc=$?; }

echo "1..7"

run curl -sS --max-time 20 "http://dns.test:$PORT/"
is "$rc:$out" "0:hello" "a name resolved by the proxy over DNS (the forged answer ignored)"
check "... asked as A and AAAA" grep -qx "dns.test 28" "$T/dns.log"
is "$(grep -o '"addr":"[^"]*"' "$T/st")" '"addr":"127.0.0.1"' "... connected to the address the name server gave"

run curl -sS --max-time 20 "http://two.test:$PORT/"
is "$rc:$out:$(grep -o '"addr":"[^"]*"' "$T/st")" '0:hello:"addr":"127.0.0.1"' \
	"of two loopback answers, only the one a rule names is used"

run curl -sS --max-time 20 "http://mapped.test:$PORT/"
is "$rc:$out:$(grep -o '"addr":"[^"]*"' "$T/st")" '0:hello:"addr":"127.0.0.1"' \
	"an AAAA answer ::ffff:127.0.0.1 is 127.0.0.1 for the rules (the one that names it allows it)"

run curl -sS --max-time 20 -w '%{http_code}' "http://nx.test:$PORT/"
is "$out" "pysbx-proxy: unable to resolve nx.test: no such name
502" "NXDOMAIN: 502 saying so"

run curl -sS --max-time 20 -o /dev/null -w '%{http_code}' "http://unlisted.test:$PORT/"
is "$out:$(grep -c '^unlisted.test' "$T/dns.log")" "403:0" "a name no rule allows is never looked up"
