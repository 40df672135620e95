#!/usr/bin/env bash
# The egress proxy's confinement (docs/NETWORK.md "The proxy process"):
# test/probe/egress_probe confines itself with the proxy's own function
# (egress_confine: no_new_privs, Landlock, the seccomp program compiled
# at build time from pkg/egress/filter.h), then makes one system call.
# What the proxy must never do kills it (SIGSYS, 159); what its loop
# needs goes through. That the proxy calls egress_confine before reading
# a byte of the sandbox is proxy.sh's (Seccomp:2 in its status, and the
# proxy-unconfined mutation).
set -u

P=${PYSBX_PROBE:?}/egress_probe
. "${PYSBX_TESTDIR:?}/lib.sh"

# try ACTION: "RC OUTPUT" of the probe.
try() {
	local out
	out=$("$P" "$1" 2>&1)
	echo "$? $out"
}

for a in open openat execve fork vfork clone ptrace kill x32-getpid \
	unix netlink raw packet mmap-exec mprotect-exec; do
	is "$(try "$a")" "159 " "the proxy's filter kills it on $a"
done
# clone3's flags are out of seccomp's reach: ENOSYS, as in every pysbx
# filter that filters clone (docs/SECCOMP.md), which leaves fork to
# clone, killed above.
is "$(try clone3)" "0 survived clone3 errno 38" "clone3 fails with ENOSYS"
for a in none tcp udp6 mmap; do
	is "$(try "$a")" "0 survived $a" "what the proxy's loop needs works: $a"
done
echo "1..$n"
