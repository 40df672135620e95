#!/usr/bin/env bash
# A process the syscall filter kills is named: in a pid namespace the
# policy's `kill` reaches pid 1 as a seccomp notification; pid 1 kills
# the caller, the call never runs (checked on the host), and the run ends
# with one line naming the syscall, the policy line and the line to add,
# and the status record's "syscall". Without a pid namespace the kernel
# kills as before (docs/SECCOMP.md "Naming the killed syscall").
set -u
B=$PYSBX_BIN
T=$(mktemp -d "$HOME/sigsys.XXXXXX") || exit 111
trap 'rm -rf "$T"' EXIT
. "${PYSBX_TESTDIR:?}/lib.sh"

run() {
	"$@" >"$T/out" 2>"$T/err"
	rc=$?
}
out() { tr '\n' ' ' <"$T/out" | sed 's/ $//'; }
err() { cat "$T/err"; }
pol() {
	local f=$T/$1.policy
	shift
	printf '%s\n' "$@" >"$f"
	chmod 0644 "$f"
	echo "$f"
}
# the field KEY of the exit record in $T/st
field() { grep '"event":"exit"' "$T/st" | grep -o "\"$1\":[^,}]*" | head -n 1; }

mkdir -m 0755 "$T/host" "$T/probe"
cp "$PYSBX_PROBE/sigsys_probe" "$T/probe/"
base=('unshare user mount pid' 'ro-bind /usr /usr' 'symlink usr/bin /bin'
	'symlink usr/lib /lib' 'symlink usr/lib64 /lib64' 'proc /proc'
	"ro-bind $T/probe /probe" "bind $T/host /host")
p=$(pol kill "${base[@]}" 'seccomp kill mkdir' 'seccomp errno=EXDEV chmod fchmodat')
line="denied by $p:9 (seccomp kill mkdir); to allow it, add 'seccomp allow mkdir' to the policy"

# --- the target itself -------------------------------------------------------
run "$B/pysbx" run --status-fd 3 -p "$p" -- /probe/sigsys_probe plain /host/plain 3>"$T/st"
is "$rc:$(out):$(err)" "159::pysbx: the target was killed by the syscall filter: syscall mkdir (x86_64 nr 83) by pid 2 (sigsys_probe), $line" \
	"a killed mkdir: exit 159, nothing after it ran, one line naming mkdir, its policy line and the line to add"
check "... and the directory was not made on the host" test ! -e "$T/host/plain"
is "$(field syscall) $(field syscall_nr) $(field syscall_arch) $(field syscall_target) $(field signal)" \
	'"syscall":"mkdir" "syscall_nr":83 "syscall_arch":"x86_64" "syscall_target":true "signal":31' \
	"... the exit record names the syscall (and signal 31, as the kernel's kill)"
is "$(grep -c '"event":"sigsys","syscall":"mkdir","nr":83,"arch":"x86_64","pid":2,"comm":"sigsys_probe","target":true' "$T/st")" 1 \
	"... and a sigsys record was written as it happened"

run "$B/pysbx" run -p "$p" -- /probe/sigsys_probe thread /host/thread
is "$rc:$(out):$(err)" "159::pysbx: the target was killed by the syscall filter: syscall mkdir (x86_64 nr 83) by pid 3 (sigsys_probe), $line" \
	"from a second thread: the whole process dies (no 'joined'), the thread's pid is named"
check "... and the directory was not made on the host" test ! -e "$T/host/thread"

# --- a grandchild, several times: each is killed, none of the calls ran ----
run "$B/pysbx" run --status-fd 3 -p "$p" -- /probe/sigsys_probe grandchild /host/g1 /host/g2 /host/g3 /host/g4 /host/g5 /host/g6 3>"$T/st"
is "$rc:$(out)" "0:grandchild=killed:SIGKILL grandchild=killed:SIGKILL grandchild=killed:SIGKILL grandchild=killed:SIGKILL grandchild=killed:SIGKILL grandchild=killed:SIGKILL" \
	"a grandchild's mkdir: it dies by SIGKILL (pid 1's kill), the target goes on"
is "$(err)" "pysbx: a process of the target was killed by the syscall filter: syscall mkdir (x86_64 nr 83) by pid 4 (sigsys_probe), $line (6 kills in this run)" \
	"... one line names the first kill and counts them"
is "$(ls -A "$T/host")" "" "... and not one of the six directories was made on the host"
is "$(grep -c '"event":"sigsys"' "$T/st"):$(field syscall_target)" '6:"syscall_target":false' \
	"... six sigsys records; the exit record says the target itself was not the one killed"

# --- a foreign ABI: i386 through int 0x80 ------------------------------------
if [[ $("$PYSBX_PROBE/sigsys_probe" int80 "$T/x80" 2>&1; echo $?) == *139 ]]; then
	skip "this kernel has no IA32 emulation (int 0x80 dies of SIGSEGV)"
	skip "this kernel has no IA32 emulation"
else
	rmdir "$T/x80"
	run "$B/pysbx" run --status-fd 3 -p "$p" -- /probe/sigsys_probe int80 /host/int80 3>"$T/st"
	is "$rc:$(out):$(err)" "159::pysbx: the target was killed by the syscall filter: syscall nr 39 of i386 by pid 2 (sigsys_probe); a foreign ABI (i386) is always killed and cannot be allowed: run a 64-bit (x86_64) build" \
		"i386 mkdir (39) through int 0x80: killed, named by number and ABI"
	is "$(field syscall) $(field syscall_nr) $(field syscall_arch):$(ls -A "$T/host")" \
		'"syscall":null "syscall_nr":39 "syscall_arch":"i386":' "... the record has nr and arch, and nothing was made on the host"
fi

run "$B/pysbx" run -p "$p" -- /probe/sigsys_probe catch /host/catch
is "$rc:$(out):$(ls -A "$T/host")" "159::" \
	"a target that catches every signal it can still dies (SIGKILL), silently, before the call"

# --- the target attacks pid 1 first ------------------------------------------
run "$B/pysbx" run -p "$p" -- /probe/sigsys_probe pid1 /host/pid1
is "$rc:$(out)" "159:kill=sent stop=sent ptrace=Operation not permitted" \
	"kill -KILL and -STOP of pid 1 change nothing (init ignores them), ptrace is refused..."
is "$(err):$(ls -A "$T/host")" "pysbx: the target was killed by the syscall filter: syscall mkdir (x86_64 nr 83) by pid 2 (sigsys_probe), $line:" \
	"... and pid 1 still kills and names the mkdir that follows"

# --- the target cannot take the notifications for itself --------------------
run "$B/pysbx" run -p "$p" -- /probe/sigsys_probe listener
is "$rc:$(out)" "0:listener=Resource busy" \
	"seccomp(2) with SECCOMP_FILTER_FLAG_NEW_LISTENER fails EBUSY (the kernel allows one listener per filter chain: one of its own could answer 'continue')"
run "$B/pysbx" run -p "$p" -- /probe/sigsys_probe stacked /host/stacked
is "$rc:$(out):$(ls -A "$T/host")" "0:survived: Permission denied:" \
	"a filter the target stacks may refuse the call itself (its errno wins over a notification); the call still never runs"
run "$B/pysbx" run -p "$p" -- /probe/sigsys_probe fds
is "$rc:$(out)" "0:fds done" "the target holds neither the listener nor pid 1's socket"

# --- what the filter does not kill is unchanged -------------------------------
run "$B/pysbx" run -p "$p" -- /bin/sh -c 'touch /host/f && chmod 600 /host/f; echo $?'
is "$rc:$(out):$(err)" "0:1:chmod: changing permissions of '/host/f': Invalid cross-device link" \
	"an errno action (errno=EXDEV on chmod, fchmodat) is unchanged: no notification, no kill"
rm -f "$T/host/f"

# --- without a pid namespace: the kernel's kill, the candidates' line -------
q=$(pol nopid 'unshare user mount' 'ro-bind /usr /usr' 'symlink usr/bin /bin' \
	'symlink usr/lib /lib' 'symlink usr/lib64 /lib64' "ro-bind $T/probe /probe" \
	"bind $T/host /host" 'seccomp kill mkdir')
run "$B/pysbx" run --status-fd 3 -p "$q" -- /probe/sigsys_probe plain /host/nopid 3>"$T/st"
is "$rc:$(out):$(err)" "159::pysbx: the target was killed by the syscall filter (SIGSYS): the policy kills on mkdir; to see which call, add 'seccomp audit' to the policy (the kernel log names it) or run it under strace -f; to allow one, add 'seccomp allow NAME'" \
	"without a pid namespace the kernel kills (SIGSYS) and the line names the candidates"
is "$(field syscall):$(ls -A "$T/host")" ":" "... no syscall in the record, nothing made on the host"
q=$(pol nosend "${base[@]}" 'seccomp kill mkdir' 'seccomp errno=EPERM sendmsg')
run "$B/pysbx" run -p "$q" -- /probe/sigsys_probe plain /host/nosend
is "$rc:$(out):$(err):$(ls -A "$T/host")" "159::pysbx: the target was killed by the syscall filter (SIGSYS): the policy kills on mkdir; to see which call, add 'seccomp audit' to the policy (the kernel log names it) or run it under strace -f; to allow one, add 'seccomp allow NAME':" \
	"a policy that stops sendmsg (the listener's way to pid 1) keeps the kernel's kill"
run "$B/pysbx-seccomp" -p "$T/kill.policy" --partial -- "$T/probe/sigsys_probe" plain "$T/host/standalone"
is "$rc:$(out):$(err)" "159::" "pysbx-seccomp standalone: the kernel's kill, as before"

# --- pysbx-mount without the guard: pid 1 prints the line itself ------------
run "$B/pysbx-mount" -p "$p" -- "$B/pysbx-seccomp" -- /probe/sigsys_probe plain /host/mnt
is "$rc:$(out):$(err):$(ls -A "$T/host")" "159::pysbx-mount: the syscall filter killed pid 2 (sigsys_probe): syscall mkdir (x86_64 nr 83):" \
	"pysbx-mount alone: pid 1 names the call on stderr"

echo "1..$n"
