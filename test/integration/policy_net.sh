#!/usr/bin/env bash
# The network proxy's directives from the command line: `pysbx policy
# check` reports every malformed rule with its position, `policy show`
# prints the rules canonically.
set -u
B=$PYSBX_BIN
T=$(mktemp -d "$HOME/policy_net.XXXXXX")
. "${PYSBX_TESTDIR:?}/lib.sh"

echo "1..10"

cat >"$T/bad.policy" <<'P'
unshare user net
net-proxy
net-allow Example.com *
net-allow a.*.b example.com:0 ::1
net-deny example.com.
allow pypi.org
net-resolve pypi.local=localhost
P
out=$("$B/pysbx" policy check "$T/bad.policy" 2>&1); rc=$?
is "$rc" 100 "malformed rules: exit 100"
is "$out" "$T/bad.policy:3:11: error: host 'Example.com' must be lower case (write 'example.com')
$T/bad.policy:3:23: error: rule '*': '*' (every host) is allowed only in net-deny; allow hosts by name ('*.example.com')
$T/bad.policy:4:11: error: rule 'a.*.b': '*' must be the whole host (net-deny *) or the whole first label ('*.example.com')
$T/bad.policy:4:17: error: rule 'example.com:0': port '0' is not a number from 1 to 65535
$T/bad.policy:4:31: error: rule '::1': an IPv6 address goes in brackets, e.g. '[::1]' or '[::1]:443'
$T/bad.policy:5:10: error: host 'example.com.' must not end with '.' (write 'example.com')
$T/bad.policy:6:1: error: unknown directive 'allow' (did you mean 'net-allow'?)
$T/bad.policy:7:13: error: net-resolve 'pypi.local=localhost': 'localhost' is not an IPv4 address (a.b.c.d) or an IPv6 address
pysbx: 8 errors in $T/bad.policy; nothing was started" "every malformed rule, positioned, and a summary"

printf 'unshare user mount\nnet-proxy\nnet-allow pypi.org:443\n' >"$T/nonet.policy"
out=$("$B/pysbx" policy check "$T/nonet.policy" 2>&1); rc=$?
is "$rc:$out" "100:$T/nonet.policy:2:1: error: 'net-proxy' needs a network namespace ('unshare net'): without one the sandbox has the host's network and no rule would hold
pysbx: 1 error in $T/nonet.policy; nothing was started" "net-proxy without a net namespace is refused"

cat >"$T/good.policy" <<'P'
unshare user net
net-proxy port=8080
net-allow pypi.org:443 files.pythonhosted.org:443 *.example.org [::ffff:10.0.0.1]:8080 mirror.internal
net-deny *:22 uploads.example.org
net-resolve mirror.internal=[0:0::1]
P
out=$("$B/pysbx" policy check "$T/good.policy" 2>&1); rc=$?
is "$rc:$out" "0:$T/good.policy: ok" "a proxied policy is valid"
out=$("$B/pysbx" policy show "$T/good.policy" 2>&1)
[[ $out == *"net-proxy port=8080
net-allow pypi.org:443
net-allow files.pythonhosted.org:443
net-allow *.example.org
net-allow 10.0.0.1:8080
net-allow mirror.internal
net-deny *:22
net-deny uploads.example.org
net-resolve mirror.internal=[::1]"* ]]
okrc $? "show: one rule a line, addresses canonical"
[[ $out == *"unshare user net"* ]]; okrc $? "show: the net namespace is there"
# A pin no request can use (a typo of the name here) is an error, in
# policy check and in run alike: the name would silently go to DNS.
cat >"$T/pin.policy" <<'P'
unshare user net
net-proxy
net-allow pypi.internal:443 *.example.org
net-deny uploads.example.org
net-resolve pypi.intenral=10.0.0.5 uploads.example.org=10.0.0.6 a.example.org=10.0.0.7
P
out=$("$B/pysbx" policy check "$T/pin.policy" 2>&1); rc=$?
want="$T/pin.policy:5:13: error: net-resolve pin 'pypi.intenral' is never used: no net-allow rule allows it (allow the name, or remove the pin)
$T/pin.policy:5:36: error: net-resolve pin 'uploads.example.org' is never used: net-deny rules refuse it on every port a net-allow rule allows (remove the pin)"
is "$rc:$out" "100:$want
pysbx: 2 errors in $T/pin.policy; nothing was started" "policy check: a pin no rule allows, and one a deny refuses, each positioned"
out=$("$B/pysbx" run -p "$T/pin.policy" -- /bin/echo started 2>&1); rc=$?
is "$rc:$out" "100:$want
pysbx: 2 errors in $T/pin.policy; nothing was started
pysbx: fatal: invalid policy $T/pin.policy" "run refuses it the same way, before anything starts"
sed -i 's/pypi.intenral/pypi.internal/; s/ uploads.example.org=10.0.0.6//' "$T/pin.policy"
out=$("$B/pysbx" policy check "$T/pin.policy" 2>&1); rc=$?
is "$rc:$out" "0:$T/pin.policy: ok" "... and accepts the pins once a rule can use them"
# 0.0.0.0 and [::] as a destination reach this host's own services.
cat >"$T/unspec.policy" <<'P'
unshare user net
net-proxy
net-allow 0.0.0.0 [::]:80 x.test
net-deny 0.0.0.0
net-resolve x.test=0.0.0.0
P
out=$("$B/pysbx" policy check "$T/unspec.policy" 2>&1); rc=$?
is "$rc:$out" "100:$T/unspec.policy:3:11: error: '0.0.0.0' is the unspecified address: a connect to it reaches this host; name the address you mean
$T/unspec.policy:3:19: error: '[::]' is the unspecified address: a connect to it reaches this host; name the address you mean
$T/unspec.policy:5:13: error: net-resolve 'x.test=0.0.0.0': '0.0.0.0' is the unspecified address: a connect to it reaches this host
pysbx: 3 errors in $T/unspec.policy; nothing was started" "the unspecified address is refused in net-allow and net-resolve (net-deny may name it)"
rm -rf "$T"
