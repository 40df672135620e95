#!/usr/bin/env bash
# A newcomer's path: README's examples work as printed, a policy that
# asks for little gets exactly that, and a failure names its real cause.
set -u
B=$PYSBX_BIN
P=$PYSBX_POLICIES
R=$PYSBX_ROOT
T=$(mktemp -d "$HOME/newcomer.XXXXXX") || exit 111
trap 'rm -rf "$T"' EXIT
. "${PYSBX_TESTDIR:?}/lib.sh"

# run: stdout to $T/out, stderr to $T/err, exit status to $rc
run() {
	"$@" >"$T/out" 2>"$T/err"
	rc=$?
}
err() { cat "$T/err"; }
# pol NAME LINE...: write policy NAME (mode 0644)
pol() {
	local f=$T/$1.policy
	shift
	printf '%s\n' "$@" >"$f"
	chmod 0644 "$f"
	echo "$f"
}


# --- (a) a policy without `unshare` ------------------------------------
# No namespace is made: the target runs on the host's view with the
# chain's process state. The caller's bounding set stays (a normal user
# cannot empty it; no_new_privs makes it unreachable), every other set is
# empty.
p=$(pol empty)
: >"$p"
run "$B/pysbx" run -p "$p" -- /bin/sh -c 'exit 7'
is "$rc:$(err)" "7:" "an empty policy runs the target (its exit code, no message)"
p=$(pol timeout 'timeout 30s')
run "$B/pysbx" run -p "$p" -- /bin/sh -c 'grep -e ^CapEff -e ^CapPrm -e ^NoNewPrivs /proc/self/status'
same "a timeout-only policy runs the target without privileges" \
	"$(printf 'CapPrm:\t%016x\nCapEff:\t%016x\nNoNewPrivs:\t1' 0 0):" "$(cat "$T/out"):$(err)"
run "$B/pysbx" policy check "$p"
is "$rc" 0 "... and policy check agrees"

# --- (b) the README's own example policy, as printed ---------------------
# The policy block after "A policy is one directive per line".
awk '/^A policy is one directive per line/ { on = 1; next }
     on && /^    / { sub(/^    /, ""); print; got = 1; next }
     on && got { exit }' "$R/README.md" >"$T/my.policy"
chmod 0644 "$T/my.policy"
check "README has an example policy" test -s "$T/my.policy"
run "$B/pysbx" run -p "$T/my.policy" -D WORKSPACE="$T" -- /bin/sh -c 'echo hello'
is "$rc:$(cat "$T/out"):$(err)" "0:hello:" "README's example policy runs /bin/sh through pysbx run"
run "$B/pysbx" policy check "$T/my.policy" -D WORKSPACE="$T"
is "$rc" 0 "... and policy check accepts it"

# A policy that lacks the interpreter's directory: the message names the
# interpreter and the line to add, not the file that does exist.
p=$(pol nolib 'unshare user mount' 'ro-bind /usr /usr' 'symlink usr/bin /bin')
run "$B/pysbx" run -p "$p" -- /bin/sh -c true
interp=$(readelf -l /bin/sh 2>/dev/null | sed -n 's/.*interpreter: \(.*\)\]/\1/p')
[[ -n $interp ]] || interp=$(awk 'NR==1' <(strings -n 8 /bin/sh | grep '^/lib.*ld-'))
is "$rc" 127 "a missing ELF interpreter: exit 127"
grep -qF "its ELF interpreter $interp does not exist in the sandbox" "$T/err"
okrc $? "... naming the interpreter $interp"
top=/${interp#/}; top=${top%%/"${top#/*/}"}
grep -qF "hint: add a line that puts $top in the sandbox: 'symlink usr$top $top'" "$T/err"
okrc $? "... and the line to add"

printf '#!/opt/no-such/python3\nprint(1)\n' >"$T/tool.py"
chmod 0755 "$T/tool.py"
run "$B/pysbx-exec" -- "$T/tool.py"
is "$rc" 127 "a missing #! interpreter: exit 127"
grep -qF "unable to execute $T/tool.py: its #! interpreter /opt/no-such/python3 does not exist" "$T/err"
okrc $? "... naming the #! interpreter: $(err)"

printf '#!/bin/sh\r\necho hi\r\n' >"$T/crlf.sh"
chmod 0755 "$T/crlf.sh"
run "$B/pysbx-exec" -- "$T/crlf.sh"
grep -qF "its #! line ends in a carriage return" "$T/err" &&
	grep -qF "CRLF line ends" "$T/err"
okrc $? "a #! line with CRLF gets its own message and hint"

# --- (c) low memory limits ------------------------------------------------
# The chain's own steps run under the limits before the target: a static
# tool under `limit as 16M` (and data, and the lowest values accepted)
# runs; lower ones are policy errors, made by check too.
for l in "as 16M" "data 16M" "as 1M" "data 1M" "stack 32K"; do
	p=$(pol lim 'unshare user mount' "ro-bind $PYSBX_PROBE /probe" \
		"limit $l" 'seccomp deny ptrace @keyring')
	run "$B/pysbx" run -p "$p" -- /probe/bench_true
	is "$rc:$(err)" "0:" "limit $l: a static tool runs through the whole chain"
done
p=$(pol lim 'unshare user mount' 'limit as 512K' 'limit stack 8K')
run "$B/pysbx" policy check "$p"
same "limits below what the chain needs are positioned errors" \
	"100:$p:2:10: error: limit as 512K is below 1M, what pysbx's own last step needs to start the target under it
$p:3:13: error: limit stack 8K is below 32K, what pysbx's own last step needs to start the target under it
pysbx: 2 errors in $p; nothing was started" "$rc:$(err)"

# --- (k) did-you-mean for every kind of name -----------------------------
p=$(pol dym 'pid' 'unshare pdi' 'limit nofil 3' 'seccomp dney ptrace' \
	'seccomp deny ptrac @netwrok')
run "$B/pysbx" policy check "$p"
same "a mistyped name of any kind gets a did-you-mean" \
	"100:$p:1:1: error: unknown directive 'pid' (did you mean 'unshare pid'?)
$p:2:9: error: unknown namespace 'pdi' (did you mean 'pid'?) (use user, mount, pid, ipc, uts, net, cgroup or all)
$p:3:7: error: unknown limit 'nofil' (did you mean 'nofile'?) (use as, core, cpu, data, fsize, locks, memlock, msgqueue, nice, nofile, nproc, rss, rtprio, rttime, sigpending or stack)
$p:4:9: error: unknown seccomp action 'dney' (did you mean 'deny'?) (use allow, deny, errno=NAME, kill, log or trap; or default, audit)
$p:5:14: error: unknown syscall 'ptrac' (did you mean 'ptrace'?)
$p:5:20: error: unknown preset '@netwrok' (did you mean '@network'?) (see docs/POLICY.md for the list)
pysbx: 6 errors in $p; nothing was started" "$rc:$(err)"

# --- (g) a step alone never silently applies only its part ----------------
full=$(pol full 'unshare user mount' "ro-bind $PYSBX_PROBE /probe" 'limit nofile 64' \
	'seccomp deny ptrace' 'timeout 30s')
for s in clean mount exec seccomp; do
	run "$B/pysbx-$s" -p "$full" -- /bin/sh -c 'echo RAN'
	[[ $rc == 100 && ! -s $T/out ]] &&
		grep -qF "pysbx-$s: fatal: refusing policy $full: it has directives pysbx-$s does not apply and no later step of the chain would:" "$T/err" &&
		grep -qF "pysbx-$s: hint: run the whole chain with 'pysbx run -p $full', or pass --partial if the rest is applied elsewhere" "$T/err"
	okrc $? "pysbx-$s alone with a whole policy refuses (100), naming what it would skip"
done
run "$B/pysbx-exec" -p "$full" -- /bin/sh -c 'echo RAN'
same "... each skipped directive named with its line and step" \
	"pysbx-exec: fatal: refusing policy $full: it has directives pysbx-exec does not apply and no later step of the chain would: 'timeout' ($full:5, pysbx-clean's), 'unshare' ($full:1, pysbx-mount's), 'seccomp' ($full:4, pysbx-seccomp's)" \
	"$(head -n 1 "$T/err")"
run "$B/pysbx-exec" --partial -p "$full" -- /bin/sh -c 'ulimit -n'
is "$rc:$(cat "$T/out")" "0:64" "--partial: the step applies its part only, as asked"
run "$B/pysbx-clean" -p "$full" -- "$B/pysbx-mount" -- "$B/pysbx-exec" -- \
	"$B/pysbx-seccomp" -- /probe/bench_true
is "$rc:$(err)" "0:" "the whole chain spelled out by hand is accepted"
p=$(pol execonly 'limit nofile 64' 'env A=1')
run "$B/pysbx-exec" -p "$p" -- /bin/sh -c 'echo $A'
is "$rc:$(cat "$T/out")" "0:1" "a policy of one step's directives runs alone"
run "$B/pysbx" run --partial -p "$full" -- /usr/bin/true
is "$rc" 100 "pysbx run does not take --partial"

# --- README's sandboxed python, from a directory reached by a symlink -----
mkdir -p "$T/real/proj"
echo data >"$T/real/proj/f"
ln -s real/proj "$T/link"
out=$(cd "$R" && build/bin/pysbx run -p policies/python.policy -D WORKSPACE="$R" -- \
	/usr/bin/python3 -I -S -c 'print(42)' 2>&1)
is "$?:$out" "0:42" "README's sandboxed python3 runs as printed"
out=$(cd "$T/link" && "$B/pysbx" run -p "$P/python.policy" -D WORKSPACE="$PWD" -- \
	/bin/cat /workspace/f 2>&1)
is "$?:$out" "0:data" "-D WORKSPACE=\$PWD through a symlinked directory: resolved once by the caller"
out=$(cd "$T/link" && "$B/pysbx" policy show "$P/python.policy" -D WORKSPACE="$PWD" 2>&1)
[[ $out == *"ro-bind $T/real/proj /workspace"* ]]
okrc $? "... and policy show shows the real path"
p=$(pol symsrc 'unshare user mount' "ro-bind $T/link /w")
run "$B/pysbx" run -p "$p" -- /bin/true
[[ $rc == 111 ]] && grep -qF "source $T/link contains a symlink" "$T/err"
okrc $? "a symlink written in the policy itself is still refused while building"
# An earlier run plants proj -> the caller's home in its writable
# workspace; a later run is given -D WORKSPACE=<workspace>/proj (not the
# directory the caller stands in): the link is refused, nothing is written
# through it on the host.
mkdir -p "$T/ws" "$T/victim"
run "$B/pysbx" run -p "$P/agent-shell.policy" -D WORKSPACE="$T/ws" -- \
	/bin/sh -c "ln -s $T/victim proj"
run "$B/pysbx" run -p "$P/agent-shell.policy" -D WORKSPACE="$T/ws/proj" -- \
	/bin/sh -c 'echo planted >.gitconfig'
[[ $rc == 111 && ! -e $T/victim/.gitconfig ]] &&
	grep -qF "contains a symlink" "$T/err"
okrc $? "a link an earlier sandbox planted in its workspace never redirects a later run's -D path (host unchanged)"

# --- (h) -D and built-ins ---------------------------------------------------
p=$(pol timeoutvar 'timeout ${TIMEOUT:-none}')
run "$B/pysbx" run -p "$p" -D TIMOUT=1s -- /bin/sh -c 'echo RAN'
same "a mistyped -D is an error with did-you-mean, nothing runs" \
	"100::$p: error: -D TIMOUT is not used by the policy (did you mean -D TIMEOUT?)" \
	"$rc:$(cat "$T/out"):$(head -n 1 "$T/err")"
run "$B/pysbx" policy check "$p" -D TIMOUT=1s
is "$rc:$(head -n 1 "$T/err")" "100:$p: error: -D TIMOUT is not used by the policy (did you mean -D TIMEOUT?)" \
	"... and policy check says the same"
p=$(pol home 'unshare user mount' "ro-bind $PYSBX_PROBE /probe" 'file /h "${HOME}"')
run env HOME=/home/someone "$B/pysbx-mount" -p "$p" -- /probe/exec_probe cat /h
[[ $rc != 0 ]] && run env HOME=/home/someone "$B/pysbx-mount" -p "$p" -- /probe/mount_probe cat /h
is "$rc:$(cat "$T/out")" "0:/home/someone" "standalone pysbx-mount defines \${HOME} from the caller's environment"

# Debian's /usr/lib64/ld-linux-x86-64.so.2 is a link into /lib: a policy
# that binds /lib64 only is told about /lib.
if [[ -n $interp && -L /usr$interp ]] && [[ $(readlink "/usr$interp") == /lib/* ]]; then
	p=$(pol nolib2 'unshare user mount' 'ro-bind /usr /usr' 'symlink usr/bin /bin' "symlink usr$top $top")
	run "$B/pysbx" run -p "$p" -- /bin/sh -c true
	grep -qF "its ELF interpreter $interp is a symlink to $(readlink "/usr$interp"), which does not exist in the sandbox" "$T/err" &&
		grep -qF "hint: add a line that puts /lib in the sandbox: 'symlink usr/lib /lib'" "$T/err"
	okrc $? "an interpreter that is a dangling link inside: the link's end and its line are named"
else
	skip "the ELF interpreter is not a link into /lib here"
fi

# --- (i, j) check refuses what run refuses, with the same message ---------
mkdir -p "$T/rw"
both() {
	local desc=$1 p=$2 line
	shift 2
	"$B/pysbx" policy check "$p" "$@" >/dev/null 2>"$T/check.err"
	local crc=$?
	"$B/pysbx" run -p "$p" "$@" -- /bin/sh -c 'echo RAN' >"$T/out" 2>"$T/run.err"
	local rrc=$?
	local missing=""
	while IFS= read -r line; do
		grep -qxF -- "$line" "$T/run.err" || missing+="$line"$'\n'
	done <"$T/check.err"
	if [[ $crc == 100 && $rrc == 100 && ! -s $T/out && -s $T/check.err && -z $missing ]]; then
		ok "$desc: check and run both refuse (100), same message"
	else
		not_ok "$desc: check and run both refuse (100), same message" \
			"check $crc: $(cat "$T/check.err")" "run $rrc: $(cat "$T/run.err")" \
			"ran: $(cat "$T/out")"
	fi
}
p=$(pol gw 'timeout 5s')
chmod 0664 "$p"
both "a group-writable policy" "$p"
chmod 0644 "$p"
both "-D SCRATCH= with scratch create" "$(pol scr 'scratch create /tmp' 'env S=${SCRATCH}')" -D SCRATCH=/tmp
both "'file' twice on one path" "$(pol twice 'unshare user mount' 'file /a x' 'file /a y')"
both "a mount under the policy's own /bin symlink" \
	"$(pol underlink 'unshare user mount' 'ro-bind /usr /usr' 'symlink usr/bin /bin' 'tmpfs /bin/x')"
both "a file under a read-only bind" \
	"$(pol underro 'unshare user mount' 'ro-bind /usr /usr' 'file /usr/new x')"
both "limit as below what the chain needs" "$(pol lowas 'limit as 512K')"
both "a -D the policy does not use" "$(pol unused 'timeout 5s')" -D TIMOUT=1s
both "a file under a read-write bind (made on the host)" \
	"$(pol underrw 'unshare user mount' "bind $T/rw /rw" 'file /rw/f x')"
both "a mount point missing under a read-write bind" \
	"$(pol mpointrw 'unshare user mount' "bind $T/rw /rw" 'tmpfs /rw/t')"
same "nothing was made on the host" "" "$(ls -A "$T/rw")"
# A 'file' over an entry that already exists on the host, under a
# read-write bind: whatever the run does, the host file is not written.
echo host >"$T/rw/kept"
p=$(pol overrw 'unshare user mount' "bind $T/rw /rw" 'file /rw/kept x')
"$B/pysbx" run -p "$p" -- /bin/sh -c 'echo RAN' >"$T/out" 2>"$T/run.err"
same "a file under a read-write bind over an existing host file: the host file is unchanged" \
	"host" "$(cat "$T/rw/kept")"
rm -f "$T/rw/kept"
p=$(pol rwok 'unshare user mount' "ro-bind $PYSBX_PROBE /probe" "bind $T/rw /rw" 'tmpfs /rw' 'file /rw/f x')
run "$B/pysbx" run -p "$p" -- /probe/bench_true
is "$rc:$(err):$(ls -A "$T/rw")" "0::" "under a tmpfs over the bind, made in the sandbox only"

# --- (k) how a run ended, and pysbx run's own options ----------------------
p=$(pol plain 'env A=1')
run "$B/pysbx" run --timeout 500ms --status-fd 3 -p "$p" -- /bin/sleep 30 3>"$T/st"
is "$rc:$(err)" "124:pysbx: the target ran past the timeout of 500ms and was stopped (exit 124)" \
	"pysbx run --timeout: 124 and one line saying it was the timeout"
grep -q '"timeout":true' "$T/st"
okrc $? "pysbx run --status-fd: the guard's JSON exit record"
mkdir -m 0700 "$T/sp"
p=$(pol scratchp 'scratch create /nonexistent' 'env S=${SCRATCH}')
run "$B/pysbx" run --scratch-parent "$T/sp" -p "$p" -- /bin/sh -c 'case $S in '"$T"'/sp/*) test -d "$S" && echo in;; esac'
is "$rc:$(cat "$T/out")" "0:in" "pysbx run --scratch-parent: the scratch dir is made there"
run "$B/pysbx" run --timeout 1s --timeout 2s -p "$p" -- /bin/true
is "$rc:$(err)" "100:pysbx: fatal: --timeout is given twice" "a guard option given twice is refused"
for k in 'kill getppid' 'trap getppid'; do
	p=$(pol sigsys "seccomp $k")
	run "$B/pysbx" run -p "$p" -- /bin/sh -c 'echo $PPID'
	is "$rc:$(err)" "159:pysbx: the target was killed by the syscall filter (SIGSYS): the policy kills on getppid; to see which call, add 'seccomp audit' to the policy (the kernel log names it) or run it under strace -f; to allow one, add 'seccomp allow NAME'" \
		"seccomp $k: a SIGSYS gets one line naming what the policy kills on"
done
p=$(pol sigsysns 'unshare user mount pid' 'ro-bind /usr /usr' 'symlink usr/bin /bin' \
	'symlink usr/lib /lib' 'symlink usr/lib64 /lib64' 'seccomp kill getppid')
run "$B/pysbx" run -p "$p" -- /bin/sh -c 'echo $PPID'
is "$rc:$(err)" "159:pysbx: the target was killed by the syscall filter: syscall getppid (x86_64 nr 110) by pid 2 (sh), denied by $p:6 (seccomp kill getppid); to allow it, add 'seccomp allow getppid' to the policy" \
	"... inside a pid namespace, pid 1 names the exact call, the policy line and the line to add"

# --- (k) diagnostics a newcomer meets --------------------------------------
printf 'unshare user\r\n' >"$T/crlf.policy"
printf '\xef\xbb\xbfunshare user\n' >"$T/bom.policy"
chmod 0644 "$T/crlf.policy" "$T/bom.policy"
run "$B/pysbx" policy check "$T/crlf.policy"
is "$rc:$(head -n 1 "$T/err")" "100:$T/crlf.policy:1:13: error: the line ends in a carriage return: the file has CRLF (Windows) line ends; convert it with sed -i 's/\r\$//' FILE (or dos2unix)" \
	"CRLF line ends get their own message"
run "$B/pysbx" policy check "$T/bom.policy"
is "$rc:$(cat "$T/err")" "100:$T/bom.policy:1:1: error: the file starts with a UTF-8 byte order mark (EF BB BF): save it without one
pysbx: 1 error in $T/bom.policy; nothing was started" "a UTF-8 BOM gets its own message, and the rest still parses"
mkfifo "$T/fifo"
run timeout 10 "$B/pysbx" policy check "$T/fifo"
is "$rc:$(head -n 1 "$T/err")" "100:$T/fifo: error: policy '$T/fifo' is a FIFO, not a regular file" \
	"a FIFO as a policy: a clear message, no hang, no FILE:0:0"
run "$B/pysbx" policy check /dev/null
is "$rc:$(head -n 1 "$T/err")" "100:/dev/null: error: policy '/dev/null' is a character device, not a regular file" \
	"a device as a policy"
run "$B/pysbx" policy check /proc/self/status
is "$rc:$(head -n 1 "$T/err")" "100:/proc/self/status: error: policy '/proc/self/status' has no size of its own (a /proc or /sys file?): copy it to a regular file" \
	"a /proc file as a policy"
p=$(pol bigt 'timeout 18446744073709551615ms')
run "$B/pysbx" policy check "$p"
is "$rc:$(head -n 1 "$T/err")" "100:$p:1:9: error: timeout '18446744073709551615ms' is longer than a year (8760h): write none for no timeout" \
	"an absurd timeout is a policy error"
p=$(pol showme 'unshare user' 'limit as 512M' 'limit stack 8M unlimited' 'timeout 90s kill-after 1500ms')
run "$B/pysbx" policy show "$p"
same "policy show spells every default, in the units a user writes" \
"unshare user
nested-userns deny
limit as 512M 512M
limit stack 8M unlimited
# no env or env-pass: the target's environment is empty
# no chdir: the caller's directory
# no umask: the caller's
new-session yes
die-signal SIGKILL
stdin inherit
seccomp default allow
timeout 90s kill-after 1500ms
# no die-with-parent: the run goes on if its caller dies
# no scratch: no scratch directory" "$(cat "$T/out")"
"$B/pysbx" policy show "$p" >"$T/shown.policy"
chmod 0644 "$T/shown.policy"
run "$B/pysbx" policy check "$T/shown.policy"
is "$rc" 0 "... and what it shows is a valid policy"
p=$(pol units 'unshare user mount' 'tmpfs /tmp size=64M inodes=16K' \
	'limit fsize 16777216' 'limit stack 2048K 8M' 'limit cpu 2m 120s' \
	'limit rttime 500ms 2s' 'timeout 60m kill-after 2000ms')
run "$B/pysbx" policy show "$p"
same "policy show prints sizes and durations in the unit the policy wrote" \
"tmpfs /tmp size=64M inodes=16K
limit fsize 16777216 16777216
limit stack 2048K 8M
limit cpu 2m 120s
limit rttime 500ms 2s
timeout 60m kill-after 2000ms" "$(grep -E '^(tmpfs|limit|timeout)' "$T/out")"

# The target's own failure is labelled as the target's, not a step's.
p=$(pol target 'unshare user mount' "ro-bind $PYSBX_PROBE /probe")
run "$B/pysbx" run -p "$p" -- /probe/no-such-tool
is "$rc:$(err)" "127:pysbx: fatal: unable to find the target /probe/no-such-tool: No such file or directory" \
	"a missing target: 127, labelled as the target"

# Every --help exits 0; each describes the options its command takes.
for h in "pysbx --help" "pysbx run --help" "pysbx policy --help" \
	"pysbx policy check --help" "pysbx check --help" "pysbx-clean --help" \
	"pysbx-mount --help" "pysbx-exec --help" "pysbx-seccomp --help"; do
	set -- $h
	"$B/$1" "${@:2}" >"$T/out" 2>&1
	is "$?" 0 "$h exits 0"
done
"$B/pysbx" run --help >"$T/out"
miss=""
for o in --timeout --kill-after --status-fd --scratch-parent --die-with-parent --allow-untrusted; do
	grep -q -- "$o" "$T/out" || miss+=" $o"
done
grep -q -e --partial -e --plan-fd "$T/out" && miss+=" (lists a refused option)"
is "$miss" "" "pysbx run --help lists every option it takes and none it refuses"
"$B/pysbx-clean" --help >"$T/out"
miss=""
for o in --timeout --kill-after --status-fd --scratch-parent --die-with-parent --sweep --partial; do
	grep -q -- "$o" "$T/out" || miss+=" $o"
done
is "$miss" "" "pysbx-clean --help describes each of its options"
echo "1..$n"
