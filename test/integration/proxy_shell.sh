#!/usr/bin/env bash
# agent-shell.policy's network variable (-D NETWORK=none|npm|pypi|proxy,
# policies/agent-shell-net-*.inc, docs/NETWORK.md): the real policy, run
# unprivileged, its requests through the egress proxy to servers on this
# machine's 127.0.0.1, reached by a pinned name (net-resolve); what the
# rules refuse is refused, and the sockets around the proxy stay closed.
set -u

B=${PYSBX_BIN:?}
P=${PYSBX_POLICIES:?}
PY=/usr/bin/python3
if [[ ! -x /usr/bin/curl || ! -x $PY ]]; then
	echo "1..0 # SKIP needs /usr/bin/curl and /usr/bin/python3 (apt-get install curl)"
	exit 0
fi
T=$(mktemp -d "${HOME:-/tmp}/proxy-shell.XXXXXX") || exit 111
chmod 0755 "$T"
pids=()
cleanup() {
	local p
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT

mkdir -p "$T/www" "$T/ws"
echo hello >"$T/www/index.html"
PORT=$("$PY" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
(cd "$T/www" && exec "$PY" -m http.server --bind 127.0.0.1 "$PORT") >/dev/null 2>&1 &
pids+=($!)
up() { "$PY" -c 'import socket,sys; socket.create_connection(("127.0.0.1", int(sys.argv[1])), 1)' "$1" 2>/dev/null; }
for ((i = 0; i < 100; i++)); do up "$PORT" && break; sleep 0.1; done
. "${PYSBX_TESTDIR:?}/lib.sh"
up "$PORT" || { echo "Bail out! the test server did not start"; exit 1; }

printf 'net-resolve reg.test=127.0.0.1\nnet-allow reg.test:%s\n' "$PORT" >"$T/rules.inc"
chmod 0644 "$T/rules.inc"

# shell NETWORK CMD: agent-shell with that network; stdout in $out,
# stderr in $T/err, status records in $T/st, the exit code in $rc.
shell() {
	local net=(-D NETWORK="$1")
	[[ $1 == proxy ]] && net+=(-D NET_RULES="$T/rules.inc")
	shift
	out=$("$B/pysbx" run -p "$P/agent-shell.policy" -D WORKSPACE="$T/ws" \
		"${net[@]}" --status-fd 3 -- /bin/sh -c "$1" 2>"$T/err" 3>"$T/st")
	rc=$?
}
rec() {
	"$PY" -c '
import json, sys
r = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
e = [x for x in r if x.get("event") == "egress"]
print(eval(sys.argv[2]))' "$T/st" "$1" 2>&1
}
SOCKS="$PY -c '
import socket
for f, t in ((socket.AF_INET, socket.SOCK_DGRAM), (socket.AF_UNIX, socket.SOCK_STREAM)):
    try:
        socket.socket(f, t); print(\"made\")
    except OSError as e: print(e.errno)'"

shell proxy "curl -sS --max-time 20 http://reg.test:$PORT/; curl -sS --max-time 20 -w ' %{http_code}' http://other.test:$PORT/"
is "$rc:$out" "0:hello
pysbx-proxy: other.test:$PORT is not allowed: no rule allows it (default deny)
 403" "NETWORK=proxy: the host NET_RULES allows is reached through the proxy, another one gets 403"
is "$(rec '[(x["host"], x["verdict"]) for x in e]')" "[('reg.test', 'allow'), ('other.test', 'deny')]" \
	"... both logged"
check "... and the refusal is on stderr" grep -q "^pysbx-proxy: denied .* other.test:$PORT: no rule allows it (default deny)" "$T/err"

shell proxy "$PY -c '
import socket
try:
    socket.create_connection((\"127.0.0.1\", $PORT), 2); print(\"reached\")
except OSError as e: print(e.errno)'"
is "$out" 111 "... a direct connect to the host's server does not get out of the namespace (ECONNREFUSED)"
shell proxy "$SOCKS"
is "$(echo $out)" "1 1" "... UDP and unix sockets are refused (EPERM)"

shell npm "curl -sS --max-time 20 -o /dev/null https://registry.npmjs.org/; curl -sS --max-time 20 -o /dev/null https://reg.test:$PORT/"
is "$(rec '[(x["host"], (x["rule"] or x["reason"]).split(" (")[0]) for x in e]')" \
	"[('registry.npmjs.org', 'net-allow registry.npmjs.org:443'), ('reg.test', 'no rule allows it')]" \
	"NETWORK=npm: the registry is allowed by the preset's rule, another host is not (whatever this machine's DNS answers)"
check "... the rule named with its file" eval "rec 'e[0][\"rule\"]' | grep -q 'agent-shell-net-npm.inc:[0-9]*:[0-9]*)'"
shell npm "$SOCKS"
is "$(echo $out)" "1 1" "... UDP and unix sockets are refused there too"

shell pypi "curl -sS --max-time 20 -o /dev/null https://evil.test/"
is "$(rec '[(x["host"], x["verdict"]) for x in e]')" "[('evil.test', 'deny')]" "NETWORK=pypi: another host is refused"
check "... and the preset allows the index" eval "'$B/pysbx' policy show '$P/agent-shell.policy' -D WORKSPACE='$T/ws' -D NETWORK=pypi 2>/dev/null | grep -qx 'net-allow pypi.org:443'"

shell none "$PY -c '
import socket
try:
    socket.socket(); print(\"made\")
except OSError as e: print(e.errno)'"
is "$rc:$out" "0:1" "NETWORK=none (the default's file): no inet socket at all"
check "... and no proxy" eval "! grep -q egress '$T/st'"

shell all "true"
is "$rc:$(head -c 300 "$T/err" | grep -c 'agent-shell-net-all.inc')" "100:1" "an unknown NETWORK is an error naming the file it looked for; nothing runs"

echo "1..$n"
