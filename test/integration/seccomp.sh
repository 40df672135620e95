#!/usr/bin/env bash
# pysbx-seccomp standalone: each denied syscall fails with the exact errno
# or kills with SIGSYS, the bypass routes are closed (x32, int 0x80, clone3,
# io_uring, ioctl and socket arguments with high bits set), allowed calls
# work, and the exported BPF does the same under bwrap.
set -u
B=$PYSBX_BIN
S=$B/pysbx-seccomp
PR=$PYSBX_PROBE/sc_probe
T=$(mktemp -d "$HOME/seccomp.XXXXXX")
. "${PYSBX_TESTDIR:?}/lib.sh"
# run POLICY CALL...: the probe's lines under the policy, space-separated
run() { local p=$1; shift; "$S" -p "$T/$p" -- "$PR" "$@" 2>&1 | tr '\n' ' ' | sed 's/ $//'; }

echo "1..46"

# Distinct errnos per group, so that each result names the rule that gave it.
cat >"$T/deny.policy" <<'EOF'
seccomp deny @python-tool
seccomp errno=EDQUOT @keyring
seccomp errno=EXDEV @namespaces
seccomp errno=EMLINK @tty-inject
EOF
printf 'seccomp deny @inet\n' >"$T/inet.policy"
printf 'seccomp errno=EACCES @unix-sockets\n' >"$T/unix.policy"
printf 'seccomp deny socket\nseccomp allow io_uring_setup\n' >"$T/uring-open.policy"
printf 'seccomp deny socket\nseccomp audit\n' >"$T/audit.policy"
printf 'seccomp default kill\nseccomp allow execve\n' >"$T/kill.policy"
printf 'seccomp deny fcntl if arg1>1 arg1<5\n' >"$T/bad-cond.policy"
printf 'seccomp deny @python-tool @keyring\n' >"$T/python.policy"

# --- the exact outcome of each denied call -----------------------------------
is "$(run deny.policy getpid clone_plain ioctl_fionread)" \
	"getpid=ok clone_plain=ok ioctl_fionread=ok" "allowed syscalls keep working"
is "$(run deny.policy socket_inet socket_unix socket_unix_hi)" \
	"socket_inet=EPERM socket_unix=EPERM socket_unix_hi=EPERM" "@python-tool: socket() of every family fails with EPERM"
is "$(run deny.policy socketpair socketpair_flags socketpair_seqpacket)" \
	"socketpair=ok socketpair_flags=ok socketpair_seqpacket=ok" \
	"@python-tool: an anonymous AF_UNIX stream or seqpacket pair works (asyncio, Pipe(), child stdio)"
is "$(run deny.policy socketpair_dgram socketpair_dgram_flags socketpair_raw socketpair_dgram_hi)" \
	"socketpair_dgram=EPERM socketpair_dgram_flags=EPERM socketpair_raw=EPERM socketpair_dgram_hi=EPERM" \
	"@python-tool: a datagram pair (sendto() reaches any path) fails, SOCK_RAW and high bits too"
is "$(run deny.policy socketpair_hi socketpair_inet)" \
	"socketpair_hi=EPERM socketpair_inet=EPERM" \
	"@python-tool: a pair of another family, or AF_UNIX with high bits set, fails closed"
is "$(run deny.policy ptrace bpf sys:userfaultfd sys:perf_event_open sys:process_vm_readv sys:kexec_load sys:open_by_handle_at sys:name_to_handle_at)" \
	"ptrace=EPERM bpf=EPERM sys:userfaultfd=EPERM sys:perf_event_open=EPERM sys:process_vm_readv=EPERM sys:kexec_load=EPERM sys:open_by_handle_at=EPERM sys:name_to_handle_at=EPERM" \
	"@python-tool: the rest of the seed set fails with EPERM"
is "$(run deny.policy keyctl add_key request_key)" \
	"keyctl=EDQUOT add_key=EDQUOT request_key=EDQUOT" "@keyring: keyctl on the session keyring, add_key, request_key get the policy's errno"
is "$(run deny.policy io_uring_setup)" "io_uring_setup=EPERM" "socket denied: io_uring_setup gets the same errno (added route)"
is "$(run deny.policy sys:io_uring_enter sys:io_uring_register)" \
	"sys:io_uring_enter=EPERM sys:io_uring_register=EPERM" "socket denied: io_uring_enter and _register too"
is "$(run deny.policy clone_newuser unshare_user)" \
	"clone_newuser=EXDEV unshare_user=EXDEV" "@namespaces: clone(CLONE_NEWUSER) and unshare get the policy's errno"
is "$(run deny.policy clone3 clone3_plain)" "clone3=ENOSYS clone3_plain=ENOSYS" \
	"clone's namespace flags filtered: clone3 fails with ENOSYS"
is "$(run deny.policy ioctl_tiocsti)" "ioctl_tiocsti=EMLINK" "@tty-inject: ioctl TIOCSTI is refused"
is "$(run deny.policy ioctl_tiocsti_hi)" "ioctl_tiocsti_hi=EMLINK" \
	"@tty-inject: TIOCSTI with high bits set in arg1 is refused too"

# --- foreign ABIs --------------------------------------------------------------
is "$(run deny.policy x32)" "x32=killed:SIGSYS" "x32 (nr|0x40000000) is killed by SIGSYS"
{ "$S" -p "$T/deny.policy" -- "$PR" -x x32 >/dev/null 2>&1; } 2>/dev/null
is $? 159 "x32: the shell sees 128+SIGSYS"
is "$(run deny.policy x32_thread)" "x32_thread=killed:SIGSYS" \
	"x32 from a second thread kills the whole process, not the thread"
is "$(run deny.policy getpid x32 getpid)" "getpid=ok x32=killed:SIGSYS getpid=ok" \
	"only the process that tried x32 dies"
unfiltered=$("$PR" int80)
if [[ $unfiltered == "int80=killed:SIGSEGV" ]]; then
	# No IA32 emulation in this kernel (SIGSEGV without any filter):
	# the route does not exist, so these runs prove nothing about the
	# filter; they still fail if int 0x80 ever returns.
	no_proof "$(run deny.policy int80)" "int80=killed:SIGSEGV" \
		"i386 int 0x80 under the filter never returns" \
		"this kernel has no IA32 emulation: SIGSEGV with or without the filter"
	{ "$S" -p "$T/deny.policy" -- "$PR" -x int80 >/dev/null 2>&1; } 2>/dev/null
	no_proof "$?" 139 "int 0x80: the shell sees the process killed" \
		"this kernel has no IA32 emulation: 128+SIGSEGV with or without the filter"
else
	is "$(run deny.policy int80)" "int80=killed:SIGSYS" "i386 int 0x80 is killed by SIGSYS"
	{ "$S" -p "$T/deny.policy" -- "$PR" -x int80 >/dev/null 2>&1; } 2>/dev/null
	is $? 159 "int 0x80: the shell sees 128+SIGSYS"
fi
is "$("$S" -- "$PR" x32 getpid 2>&1 | tr '\n' ' ')" "x32=killed:SIGSYS getpid=ok " \
	"with no seccomp rule at all, x32 is still killed"

# --- socket families -----------------------------------------------------------
is "$(run inet.policy socket_unix socket_inet socket_inet6)" \
	"socket_unix=ok socket_inet=EPERM socket_inet6=EPERM" "@inet: AF_UNIX works, AF_INET and AF_INET6 fail"
is "$(run inet.policy socket_unix_hi io_uring_setup)" \
	"socket_unix_hi=EPERM io_uring_setup=EPERM" "@inet: AF_UNIX with high bits fails closed; io_uring follows socket"
is "$(run unix.policy socket_unix socket_unix_hi socket_inet)" \
	"socket_unix=EACCES socket_unix_hi=EACCES socket_inet=ok" "@unix-sockets: AF_UNIX refused, also with high bits set; AF_INET works"
is "$(run unix.policy socketpair socketpair_seqpacket socketpair_dgram socketpair_raw)" \
	"socketpair=ok socketpair_seqpacket=ok socketpair_dgram=EACCES socketpair_raw=EACCES" \
	"@unix-sockets: an anonymous stream pair works, a datagram pair is refused"

# --- the policy has the last word; audit; default -----------------------------
is "$(run uring-open.policy io_uring_setup sys:io_uring_enter socket_inet)" \
	"io_uring_setup=ok sys:io_uring_enter=EPERM socket_inet=EPERM" "a rule for io_uring_setup overrides the added route (only for that call)"
out=$("$B/pysbx" policy check "$T/uring-open.policy" 2>&1)
is "$out" "$T/uring-open.policy:2:15: warning: 'io_uring_setup' is allowed while socket is denied at $T/uring-open.policy:1: io_uring creates sockets without calling socket(2); deny it too (@io-uring)
$T/uring-open.policy: ok" "policy check warns, positioned, about the open io_uring route"
"$B/pysbx" policy check --strict "$T/uring-open.policy" >/dev/null 2>&1
is $? 100 "policy check --strict: the warning is an error (exit 100)"
is "$(run audit.policy socket_inet x32)" "socket_inet=ok x32=ENOSYS" "seccomp audit: nothing is denied or killed (logged instead)"
is "$("$S" --log -p "$T/deny.policy" -- "$PR" keyctl clone3 2>&1 | tr '\n' ' ')" "keyctl=ok clone3=ok " \
	"--log forces audit mode"
{ "$S" -p "$T/kill.policy" -- "$PR" -x getpid >/dev/null 2>&1; } 2>/dev/null
is $? 159 "seccomp default kill: the first syscall not allowed kills (SIGSYS)"

# --- errors --------------------------------------------------------------------
out=$("$S" -p "$T/bad-cond.policy" -- "$PR" getpid 2>&1); rc=$?
is "$rc:$out" "100:pysbx-seccomp: fatal: $T/bad-cond.policy:1:14: libseccomp refused the rule 'ERRNO(EPERM) fcntl' with its conditions: Invalid argument
pysbx-seccomp: hint: libseccomp takes one condition per argument in a rule, and no range: split it into rules" \
	"a rule libseccomp rejects: exit 100 with its policy position"
out=$("$S" -p "$T/deny.policy" -- "$T/nonexistent" 2>&1); rc=$?
is "$rc:$out" "127:pysbx-seccomp: fatal: unable to find $T/nonexistent: No such file or directory" "a missing target: 127"

# --- what the target starts with -------------------------------------------------
is "$("$S" -p "$T/deny.policy" -- grep -E '^(NoNewPrivs|Seccomp):' /proc/self/status 2>&1 | tr '\t\n' '  ')" \
	"NoNewPrivs: 1 Seccomp: 2 " "the target runs with no_new_privs and a seccomp filter"
is "$("$S" --report-fd 5 -p "$T/deny.policy" -- /bin/sh -c 'if [ -e /proc/self/fd/5 ]; then echo open; else echo closed; fi' 5>"$T/report" 2>&1)" \
	"closed" "the report fd does not reach the target"
if [[ -x /usr/bin/python3 ]]; then
	out=$("$S" -p "$T/python.policy" -- /usr/bin/python3 -I -S -c 'print(1)' 2>&1); rc=$?
	is "$rc:$out" "0:1" "python3 -I -S runs under 'seccomp deny @python-tool @keyring'"
	out=$("$S" -p "$T/python.policy" -- /usr/bin/python3 -I -S -c 'import socket; socket.socket()' 2>&1); rc=$?
	[[ $rc == 1 && $out == *"PermissionError: [Errno 1] Operation not permitted"* ]]
	okrc $? "python3's socket.socket() raises PermissionError (EPERM)"
else
	skip "no /usr/bin/python3"
	skip "no /usr/bin/python3"
fi

# --- export, listing, precompiled filters -----------------------------------------
"$S" -p "$T/deny.policy" --export "$T/deny.bpf"; rc=$?
size=$(stat -c %s "$T/deny.bpf" 2>/dev/null || echo 0)
[[ $rc == 0 && $size -gt 0 && $((size % 8)) == 0 ]]; okrc $? "--export without a program writes the BPF ($size bytes) and exits 0"
out=$("$S" -p "$T/deny.policy" --list 2>&1)
[[ $out == *"# foreign ABIs (i386 int 0x80, x32 nr|0x40000000): KILL_PROCESS"* &&
	$out == *"# added: clone3: ERRNO(ENOSYS)"* && $out == *'if ($syscall == 250)'* &&
	$out == *'# filter for syscall "keyctl" (250)'* ]]
okrc $? "--list shows the foreign-ABI action, the added routes and the rules, named"
is "$("$S" --bpf "$T/deny.bpf" -- "$PR" socket_inet keyctl x32 getpid 2>&1 | tr '\n' ' ')" \
	"socket_inet=EPERM keyctl=EDQUOT x32=killed:SIGSYS getpid=ok " "--bpf loads the exported program"
: >"$T/empty.bpf"
out=$("$S" --bpf "$T/empty.bpf" -- "$PR" getpid 2>&1); rc=$?
is "$rc:$out" "100:pysbx-seccomp: fatal: the BPF program $T/empty.bpf is empty" "--bpf: an empty file is refused"
head -c 12 "$T/deny.bpf" >"$T/cut.bpf"
out=$("$S" --bpf "$T/cut.bpf" -- "$PR" getpid 2>&1); rc=$?
is "$rc:$out" "100:pysbx-seccomp: fatal: the BPF program $T/cut.bpf is 12 bytes, not a multiple of 8 (truncated?)" \
	"--bpf: a truncated instruction is refused"
head -c $((4097 * 8)) /dev/zero >"$T/big.bpf"
out=$("$S" --bpf "$T/big.bpf" -- "$PR" getpid 2>&1); rc=$?
is "$rc:$out" "100:pysbx-seccomp: fatal: the BPF program $T/big.bpf has more than 4096 instructions" \
	"--bpf: more than 4096 instructions is refused"
head -c 16 /dev/zero >"$T/junk.bpf"
out=$("$S" --bpf "$T/junk.bpf" -- "$PR" getpid 2>&1); rc=$?
[[ $rc == 100 && $out == "pysbx-seccomp: fatal: the kernel refused the BPF program $T/junk.bpf: Invalid argument"* ]]
okrc $? "--bpf: a program the kernel rejects is refused (exit 100)"

# --- the exported BPF under bubblewrap ------------------------------------------------
calls=(getpid socket_inet io_uring_setup clone3 keyctl ioctl_tiocsti_hi x32)
want="getpid=ok socket_inet=EPERM io_uring_setup=EPERM clone3=ENOSYS keyctl=EDQUOT ioctl_tiocsti_hi=EMLINK x32=killed:SIGSYS "
if ! command -v bwrap >/dev/null; then
	skip "bwrap is not installed"
	skip "bwrap is not installed"
elif ! bwrap --unshare-user --ro-bind / / true 2>/dev/null; then
	skip "bwrap cannot create a user namespace here ($(bwrap --unshare-user --ro-bind / / true 2>&1 | head -1))"
	skip "bwrap cannot create a user namespace here"
else
	is "$(bwrap --unshare-user --ro-bind / / "$PR" "${calls[@]}" 2>&1 | tr '\n' ' ')" \
		"getpid=ok socket_inet=ok io_uring_setup=ok clone3=ok keyctl=ok ioctl_tiocsti_hi=ENOTTY x32=ENOSYS " \
		"bwrap without --seccomp allows the calls (the control)"
	is "$(bwrap --unshare-user --ro-bind / / --seccomp 3 "$PR" "${calls[@]}" 3<"$T/deny.bpf" 2>&1 | tr '\n' ' ')" \
		"$want" "bwrap --seccomp with the exported BPF blocks the same calls"
fi
# --- the whole chain: the filter arrives through --plan-fd ---------------------------
out=$("$B/pysbx" run -p "$PYSBX_POLICIES/minimal.policy" -D PROG="$PR" -- /prog getpid socket_inet clone3 x32 ioctl_tiocsti_hi 2>&1)
# The chain runs wherever this suite does (the other scripts need it):
# a chain that fails to start is a failure here too, never a skip.
is "$(printf '%s' "$out" | tr '\n' ' ')" "getpid=ok socket_inet=EPERM clone3=ENOSYS x32=killed:SIGKILL ioctl_tiocsti_hi=EPERM pysbx: a process of the target was killed by the syscall filter: syscall nr 39 of x32 by pid 6 (prog); a foreign ABI (x32) is always killed and cannot be allowed: run a 64-bit (x86_64) build" \
	"pysbx run with minimal.policy: the plan's filter is in force in the target"
rm -rf "$T"
