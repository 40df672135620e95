#!/usr/bin/env bash
# pysbx-exec standalone: the process state the target starts with matches
# the policy exactly (test/probe/exec_probe reports it), and bad values fail
# before the target runs, with the policy position.
#
# Run by test/run.sh as an unprivileged uid, and (when run.sh is root)
# once more as root, which runs only the root section instead: pysbx-exec
# dropping capabilities itself. By hand as root, PYSBX_BIN and PYSBX_PROBE
# default to this checkout's build/ and PYSBX_TEST_UID to 4242.
# pysbx-test: root-section
set -u

here=$(cd "$(dirname "$0")/../.." && pwd)
BIN=${PYSBX_BIN:-$here/build/bin}
PROBE_DIR=${PYSBX_PROBE:-$here/build/test/probe}
EXEC=$BIN/pysbx-exec
PROBE=$PROBE_DIR/exec_probe

. "${PYSBX_TESTDIR:-$here/test}/lib.sh"
# has DESC TEXT FILE: FILE contains the line fragment TEXT
has() {
	if grep -qF -- "$2" "$3"; then
		ok "$1"
	else
		not_ok "$1" "expected to find: $2"
		sed 's/^/# got: /' "$3"
	fi
}

# Policies must lie where only their owner can write (pysbx trusts no
# other): the test uid's HOME, or for root a directory of its own in /tmp.
if [[ $(id -u) == 0 ]]; then
	T=$(mktemp -d /tmp/pysbx-exec.XXXXXX) || exit 111
else
	T=$(mktemp -d "${HOME:-/tmp}/pysbx-exec.XXXXXX") || exit 111
fi
trap 'rm -rf "$T"' EXIT
cd "$T" || exit 111
# pol NAME LINE...: write policy NAME
pol() {
	local f=$T/$1.policy
	shift
	printf '%s\n' "$@" >"$f"
	echo "$f"
}
# run: stdout to $T/out, stderr to $T/err, exit status to $rc
run() {
	"$@" >"$T/out" 2>"$T/err"
	rc=$?
}
out() { cat "$T/out"; }

# The caller's hard limit of a resource, by its /proc/self/limits label.
hard_of() {
	awk -v l="$1" 'index($0, l) == 1 { s = substr($0, length(l) + 1);
		split(s, f, " "); print f[2] }' /proc/self/limits
}
# soft and hard of a label in a limits listing on stdin
limits_of() {
	awk -v l="$1" 'index($0, l) == 1 { s = substr($0, length(l) + 1);
		split(s, f, " "); print f[1], f[2] }'
}

nocaps=$(printf 'CapInh:\t%016x\nCapPrm:\t%016x\nCapEff:\t%016x\nCapBnd:\t%016x\nCapAmb:\t%016x' 0 0 0 0 0)

# ============================================================ root section
if [[ $(id -u) == 0 ]]; then
	U=${PYSBX_TEST_UID:-4242}
	echo "1..9"
	p=$(pol root 'env A=1')
	chmod 0755 "$T"
	chmod 0644 "$p"
	run "$EXEC" -p "$p" -- "$PROBE" status prctl
	if (( 0x$(awk '/^CapEff/ { print $2 }' /proc/self/status) & 1 << 8 )); then
		same "as root standalone: every capability set is empty afterwards" \
			"$nocaps" "$(grep ^Cap "$T/out")"
		has "as root standalone: securebits are locked (0xef)" \
			"securebits 0xef" "$T/out"
	else
		has "as root without cap_setpcap: fails closed (111), naming a capability" \
			"pysbx-exec: fatal: unable to run without privileges: cap_chown is in the effective set" "$T/err"
		has "... and what it would need" "needs cap_setpcap in the effective set" "$T/err"
	fi
	# The caller's hard limit may already be the kernel's maximum
	# (fs.nr_open): lower it first, then let pysbx-exec raise it back.
	H=$(hard_of 'Max open files')
	p=$(pol raise "limit nofile 64 $H")
	if (ulimit -n $((H - 1)) && ulimit -Hn "$H") 2>/dev/null; then
		(ulimit -n $((H - 1)) && run "$EXEC" -p "$p" -- "$PROBE" limits)
		same "as root standalone: a hard limit can be raised (before the drop)" \
			"64 $H" "$(limits_of 'Max open files' <"$T/out")"
	else
		skip "root here cannot raise a hard limit either (no CAP_SYS_RESOURCE: ulimit -Hn fails)"
	fi
	p=$(pol root2 'env A=1')
	chmod 0644 "$p"
	# A plan with a user namespace: pysbx-mount has emptied every set
	# before pysbx-exec, so any capability left stops the chain.
	pu=$(pol rootns 'unshare user' 'env A=1')
	chmod 0644 "$pu"
	run "$PROBE" seal "$pu" -- "$EXEC" -- "$PROBE" env
	has "as root in the chain (--plan-fd, plan with a user namespace): capabilities fail closed (111)" \
		"pysbx-exec: fatal: unable to run without privileges: cap_chown is in the effective set" \
		"$T/err"
	# Without one, no step before pysbx-exec dropped them: it does.
	run "$PROBE" seal "$p" -- "$EXEC" -- "$PROBE" status prctl
	same "as root in the chain with a plan without namespaces: pysbx-exec empties every set itself" \
		"0 $nocaps" "$rc $(grep ^Cap "$T/out")"
	run setpriv --reuid="$U" --regid="$U" --clear-groups --inh-caps=-all \
		"$EXEC" -- "$PROBE" status
	same "unprivileged standalone with a full bounding set: runs, no_new_privs set" \
		"0 $(printf 'NoNewPrivs:\t1')" "$rc $(grep ^NoNewPrivs "$T/out")"
	run setpriv --reuid="$U" --regid="$U" --clear-groups --inh-caps=-all \
		"$PROBE" seal "$pu" -- "$EXEC" -- "$PROBE" status
	same "unprivileged in the chain (plan with a user namespace) with a full bounding set: fails closed (111)" \
		"111 yes" "$rc $(grep -q 'cap_chown is in the bounding set' "$T/err" && echo yes)"
	# Trust (DESIGN.md invariant 8) by owner: only root can give a
	# file or directory to a third uid.
	p=$(pol owned 'env A=1')
	chown 65534:65534 "$p"
	run setpriv --reuid="$U" --regid="$U" --clear-groups --inh-caps=-all \
		"$EXEC" -p "$p" -- "$PROBE" env
	same "a policy owned by another user (neither the caller nor root) is refused (100)" \
		"100 yes" "$rc $(grep -q "refusing policy $p: it is owned by uid 65534 (neither you nor root)" "$T/err" && echo yes)"
	mkdir -m 0755 "$T/od"
	chown 65534:65534 "$T/od"
	printf 'env A=1\n' >"$T/od/p.policy"
	chmod 0644 "$T/od/p.policy"
	run setpriv --reuid="$U" --regid="$U" --clear-groups --inh-caps=-all \
		"$EXEC" -p "$T/od/p.policy" -- "$PROBE" env
	same "a root-owned policy in a directory another user owns is refused (100)" \
		"100 yes" "$rc $(grep -q "directory $T/od is owned by uid 65534" "$T/err" && echo yes)"
	exit 0
fi

# ============================================================ unprivileged
echo "1..74"

# --- rlimits ----------------------------------------------------------------
# name, label in /proc/self/limits, soft, hard (clamped to the caller's hard)
lims=(
	"cpu|Max cpu time|60|120"
	"fsize|Max file size|16777216|33554432"
	"data|Max data size|1073741824|2147483648"
	"stack|Max stack size|8388608|16777216"
	"core|Max core file size|0|0"
	"rss|Max resident set|1073741824|1073741824"
	"nproc|Max processes|500|1000"
	"nofile|Max open files|64|128"
	"memlock|Max locked memory|32768|65536"
	"as|Max address space|2147483648|4294967296"
	"locks|Max file locks|100|200"
	"sigpending|Max pending signals|100|200"
	"msgqueue|Max msgqueue size|8192|8192"
	"nice|Max nice priority|0|0"
	"rtprio|Max realtime priority|0|0"
	"rttime|Max realtime timeout|1000000|2000000"
)
lines=()
for e in "${lims[@]}"; do
	IFS='|' read -r name label soft hard <<<"$e"
	h=$(hard_of "$label")
	if [[ $h != unlimited ]] && ((hard > h)); then
		hard=$h
		((soft > hard)) && soft=$hard
	fi
	lines+=("limit $name $soft $hard")
done
p=$(pol limits "${lines[@]}")
run "$EXEC" -p "$p" -- "$PROBE" limits
i=0
for e in "${lims[@]}"; do
	IFS='|' read -r name label _ _ <<<"$e"
	read -r _ _ soft hard <<<"${lines[i]}"
	same "limit $name: soft $soft and hard $hard in /proc/self/limits" \
		"$soft $hard" "$(limits_of "$label" <"$T/out")"
	i=$((i + 1))
done

H=$(hard_of 'Max open files')
p=$(pol keep 'limit nofile hard keep' 'limit fsize 1M keep')
run "$EXEC" -p "$p" -- "$PROBE" limits
same "limit nofile hard keep: soft becomes the caller's hard limit $H" \
	"$H $H" "$(limits_of 'Max open files' <"$T/out")"
same "limit fsize 1M keep: soft 1M, hard left as it was" \
	"1048576 $(hard_of 'Max file size')" "$(limits_of 'Max file size' <"$T/out")"

p=$(pol above '# a hard limit above the caller'"'"'s' "limit nofile 64 $((H + 1))")
run "$EXEC" -p "$p" -- "$PROBE" env
same "a hard limit above the caller's fails with 111 before the target runs" \
	"111 " "$rc $(out)"
has "... naming the position, resource and values" \
	"pysbx-exec: fatal: $p:2:1: unable to set limit nofile to 64 (hard $((H + 1))): Operation not permitted" "$T/err"
has "... with a hint at the cause" \
	"pysbx-exec: hint: hard limit $((H + 1)) is above the current hard limit $H; an unprivileged process can only lower it" "$T/err"

p=$(pol abovekeep "limit nofile $((H + 1)) keep")
run "$EXEC" -p "$p" -- "$PROBE" env
has "a soft limit above the kept hard limit fails with 111, named" \
	"pysbx-exec: fatal: $p:1:1: unable to set limit nofile: soft limit $((H + 1)) is above the kept hard limit $H" "$T/err"

p=$(pol unknown 'env A=1' 'limit bogus 1')
run "$EXEC" -p "$p" -- "$PROBE" env
same "an unknown limit is a policy error (100) before the target runs" \
	"100 " "$rc $(out)"
has "... with its position" "$p:2:7: error: unknown limit 'bogus'" "$T/err"

# --- environment --------------------------------------------------------------
p=$(pol env 'env A=1 B=x=y' 'env-pass HOME NOTSET_IN_CALLER' 'env C=')
run env FOO=bar PYSBX_INTERNAL=1 "$EXEC" -p "$p" -- "$PROBE" env
same "the environment is exactly the policy's, in policy order" \
	"A=1
B=x=y
HOME=$HOME
C=" "$(out)"
run env FOO=bar "$EXEC" -- "$PROBE" env
same "without a policy the environment is empty" "0 " "$rc $(out)"
p=$(pol ldp 'env PATH=/usr/bin:/bin')
run env LD_PRELOAD=/nonexistent.so BASH_ENV=/x ENV=/y "$EXEC" -p "$p" -- "$PROBE" env
same "LD_PRELOAD, BASH_ENV and ENV from the caller do not reach the target" \
	"PATH=/usr/bin:/bin" "$(out)"
p=$(pol ldpass 'env-pass LD_PRELOAD')
run env LD_PRELOAD=/nonexistent.so "$EXEC" -p "$p" -- "$PROBE" env
same "env-pass LD_PRELOAD passes it when the policy says so" \
	"LD_PRELOAD=/nonexistent.so" "$(out)"
# Longer names that start with the passed one come first in the caller's
# environment: a prefix match would pass TERMINFO (a terminfo database
# the workspace controls) as if it were TERM.
p=$(pol termpass 'env-pass TERM')
run env -i TERMINFO=/workspace/evil TERM_PROGRAM=x TERM=xterm "$EXEC" -p "$p" -- "$PROBE" env
same "env-pass TERM passes TERM only, not TERMINFO or TERM_PROGRAM before it" \
	"TERM=xterm" "$(out)"

# --- exec ----------------------------------------------------------------------
mkdir "$T/bin"
ln -s "$PROBE" "$T/bin/myprobe"
p=$(pol path "env PATH=$T/bin")
run env PATH="/usr/bin:/bin" "$EXEC" -p "$p" -- myprobe exit 7
same "the program is found in the PATH of the new environment" "7" "$rc"
run env PATH="$T/bin:/usr/bin:/bin" "$EXEC" -- myprobe exit 7
same "the caller's PATH is not searched: 127" "127" "$rc"
has "... naming the PATH searched" \
	"pysbx-exec: fatal: unable to find myprobe in PATH=/usr/local/bin:/usr/bin:/bin: No such file or directory" "$T/err"
printf '#!/bin/sh\n' >"$T/noexec"
chmod 0644 "$T/noexec"
run "$EXEC" -- "$T/noexec"
same "a file that is not executable: 126" "126" "$rc"
run "$EXEC" --report-fd 9 -- "$T/missing" 9>"$T/report"
same "a missing program: 127, and one JSON line on the report fd" \
	"127 {\"stage\":\"exec\",\"error\":\"unable to find $T/missing: No such file or directory\",\"errno\":2,\"code\":127}" \
	"$rc $(cat "$T/report")"

# --- fds -----------------------------------------------------------------------
fds() { awk '$1 == "fd" { printf "%s ", $2 }' "$T/out"; }
p=$(pol keepfd 'keep-fd 7')
run "$EXEC" -p "$p" -- "$PROBE" fds 5<"$T/noexec" 7<"$T/noexec" 9<"$T/noexec" 100<"$T/noexec"
same "only 0, 1, 2 and the keep-fd reach the target" "0 1 2 7 " "$(fds)"
run "$EXEC" -- "$PROBE" fds 5<"$T/noexec" 100<"$T/noexec"
same "without keep-fd only 0, 1 and 2 reach the target" "0 1 2 " "$(fds)"
run "$PROBE" no-close-range 38 -- "$EXEC" -p "$p" -- "$PROBE" fds 5<"$T/noexec" 7<"$T/noexec" 100<"$T/noexec"
same "close_range refused with ENOSYS: the fallback closes the same fds" "0 1 2 7 " "$(fds)"
run "$PROBE" no-close-range 1 -- "$EXEC" -- "$PROBE" fds 5<"$T/noexec" 100<"$T/noexec"
same "close_range refused with EPERM (container seccomp): same result" "0 1 2 " "$(fds)"
run "$EXEC" -p "$p" -- "$PROBE" fds
same "a keep-fd that the caller did not open fails with 111" "111 " "$rc $(out)"
has "... naming the fd and position" \
	"pysbx-exec: fatal: $p:1:1: unable to keep fd 7: Bad file descriptor" "$T/err"
# The chain's own report fd is never the target's, even when a policy
# names it (the target could forge status records).
p=$(pol keepchain 'keep-fd 9')
run "$PROBE" seal "$p" -- "$EXEC" --report-fd 9 -- "$PROBE" fds 9>"$T/report"
same "a keep-fd naming the chain's report fd is refused (111), the target never runs" \
	"111 yes no" "$rc $(grep -q "$p:1:1: unable to keep fd 9: it is the chain's own fd" "$T/err" && echo yes) $([[ -s $T/out ]] && echo yes || echo no)"
echo data >"$T/in"
p=$(pol stdin 'stdin null')
run "$EXEC" -p "$p" -- "$PROBE" fds <"$T/in"
has "stdin null: fd 0 is /dev/null" "fd 0 /dev/null" "$T/out"
run "$EXEC" -- "$PROBE" fds <"$T/in"
has "without stdin null the caller's stdin is kept" "fd 0 $T/in" "$T/out"
# Inside a sandbox, /dev/null is whatever its policy put there: a
# regular file would hand the target its contents as stdin.
p=$(pol fakenull 'unshare user mount pid' 'ro-bind ${PROBE} /probe' \
	'file /dev/null "data for stdin\n"' 'stdin null')
run "$BIN/pysbx-mount" -p "$p" -D PROBE="$PROBE_DIR" "$EXEC" -- /probe/exec_probe fds
same "stdin null refuses a /dev/null that is not the null device (111), the target never runs" \
	"111 yes no" "$rc $(grep -q "unable to use /dev/null for stdin: it is not the null device (char 1:3)" "$T/err" && echo yes) $([[ -s $T/out ]] && echo yes || echo no)"

# --- process -------------------------------------------------------------------
ids() { awk '{ v[$1] = $2 } END { print (v["sid"] == v["pid"]) ? "sid=pid" : "sid!=pid",
	(v["pgid"] == v["pid"]) ? "pgid=pid" : "pgid!=pid" }' "$T/out"; }
run "$EXEC" -- "$PROBE" ids
same "a new session by default: sid and pgid equal the pid" "sid=pid pgid=pid" "$(ids)"
p=$(pol nosess 'new-session no')
read -r -a st </proc/$$/stat
run "$EXEC" -p "$p" -- "$PROBE" ids
same "new-session no keeps the caller's session" "sid ${st[5]}" "$(grep ^sid "$T/out")"

# With job control every job leads its own process group, so setsid()
# fails for pysbx-exec itself: it must fork, wait and relay.
(
	set -m
	"$EXEC" -- "$PROBE" ids >"$T/out" 2>"$T/err" &
	waiter=$!
	wait $waiter
	echo "$? $waiter" >"$T/jc"
)
read -r rc waiter <"$T/jc"
same "as a process-group leader it forks first: the target leads a new session" \
	"0 sid=pid pgid=pid" "$rc $(ids)"
same "... and its parent is the waiting pysbx-exec" "ppid $waiter" "$(grep ^ppid "$T/out")"
{ ( set -m; "$EXEC" -- "$PROBE" exit 7 ); rc=$?; } 2>/dev/null
same "... which relays the target's exit code" 7 "$rc"
# (bash's own "Terminated" note is dropped)
{ ( set -m; "$EXEC" -- "$PROBE" raise 15 ); rc=$?; } 2>/dev/null
same "... and its death by a signal (SIGTERM: 143)" 143 "$rc"
rm -f "$T/pid"
(
	set -m
	"$EXEC" -- "$PROBE" pause "$T/pid" &
	waiter=$!
	for _ in $(seq 200); do [[ -s $T/pid ]] && break; sleep 0.05; done
	kill -TERM "$waiter"
	wait "$waiter"
	echo $? >"$T/jc"
) 2>/dev/null
same "... and forwards a signal it receives to the target" 143 "$(cat "$T/jc")"

p=$(pol umask 'umask 027')
run "$EXEC" -p "$p" -- "$PROBE" status
has "umask 027: the target's umask is 0027" $'Umask:\t0027' "$T/out"
mkdir "$T/work dir"
p=$(pol cwd 'chdir ${DIR}')
run "$EXEC" -p "$p" -D DIR="$T/work dir" -- "$PROBE" cwd
same "chdir: the target starts in that directory" "cwd $T/work dir" "$(out)"
run "$EXEC" -- "$PROBE" cwd
same "without chdir the caller's directory is kept" "cwd $T" "$(out)"
p=$(pol nocwd 'umask 022' "chdir $T/nowhere")
run "$EXEC" -p "$p" -- "$PROBE" cwd
same "a missing chdir fails with 111 before the target runs" "111 " "$rc $(out)"
has "... naming the path and the position" \
	"pysbx-exec: fatal: $p:2:1: unable to change directory to $T/nowhere: No such file or directory" "$T/err"

# The caller's bounding set stays (a normal user cannot empty it, and with
# every other set empty and no_new_privs no execve can gain from it).
bnd=$(awk '/^CapBnd/ { print $2 }' /proc/self/status)
run "$EXEC" -- "$PROBE" status
same "every capability set is empty (the bounding set is the caller's)" \
	"${nocaps/CapBnd:	0000000000000000/CapBnd:	$bnd}" "$(grep ^Cap "$T/out")"
has "no_new_privs is set" $'NoNewPrivs:\t1' "$T/out"

zero=$(printf '%016x' 0)
run "$PROBE" dirty -- "$PROBE" status
check "(the dirty caller does ignore and block signals)" \
	test "$(grep -c -e "^SigBlk:	$zero" -e "^SigIgn:	$zero" "$T/out")" = 0
run "$PROBE" dirty -- "$EXEC" -- "$PROBE" status
same "signal mask and ignored set are empty although the caller's were not" \
	"SigBlk:	$zero
SigIgn:	$zero" "$(grep -e ^SigBlk -e ^SigIgn "$T/out")"

run "$EXEC" -- "$PROBE" prctl
has "the parent-death signal is SIGKILL by default" "pdeathsig 9" "$T/out"
p=$(pol diesig 'die-signal SIGTERM')
run "$EXEC" -p "$p" -- "$PROBE" prctl
has "die-signal SIGTERM sets it" "pdeathsig 15" "$T/out"
p=$(pol dienone 'die-signal none')
run "$EXEC" -p "$p" -- "$PROBE" prctl
has "die-signal none sets none" "pdeathsig 0" "$T/out"

rm -f "$T/pid"
bash -c '"$1" -- "$2" pause "$3" & for _ in $(seq 200); do [[ -s $3 ]] && break; sleep 0.05; done' \
	_ "$EXEC" "$PROBE" "$T/pid"
tpid=$(cat "$T/pid")
gone=no
for _ in $(seq 200); do
	state=$(awk '{ print $3 }' "/proc/$tpid/stat" 2>/dev/null)
	[[ -z $state || $state == Z || $state == X ]] && { gone=yes; break; }
	sleep 0.05
done
same "the target is killed when pysbx-exec's parent exits" yes "$gone"
[[ $gone == no ]] && kill -KILL "$tpid"

# --- in the chain: the plan arrives on a sealed memfd -------------------------
p=$(pol chain 'env A=1' 'umask 077')
run "$PROBE" seal "$p" -- "$EXEC" --report-fd 9 -- "$PROBE" env fds status 9>"$T/report"
same "with --plan-fd the plan is applied and neither chain fd reaches the target" \
	"A=1 0 1 2 " "$(grep -v -e ^fd -e : "$T/out") $(fds)"
has "... (umask from the plan)" $'Umask:\t0077' "$T/out"

# A plan's seccomp lines are pysbx-seccomp's: pysbx-exec leaves them unread
# only when pysbx-seccomp follows, which reads them all. Either way a
# malformed one stops the chain before the target runs.
printf 'pysbx-plan 1 t.policy\n@t.policy:1:1 seccomp frobnicate read\nend\n' >"$T/bad.plan"
run "$PROBE" seal-text "$T/bad.plan" -- "$EXEC" -- "$PROBE" env
same "a malformed seccomp line in a plan: refused when no pysbx-seccomp follows" \
	"100 yes no" "$rc $(grep -q "unknown seccomp action 'frobnicate'" "$T/err" && echo yes) $([[ -s $T/out ]] && echo yes || echo no)"
run "$PROBE" seal-text "$T/bad.plan" -- "$EXEC" -- "$BIN/pysbx-seccomp" -- "$PROBE" env
same "... and by pysbx-seccomp when it follows, before the target runs" \
	"100 yes no" "$rc $(grep -q "pysbx-seccomp: .*unknown seccomp action 'frobnicate'" "$T/err" && echo yes) $([[ -s $T/out ]] && echo yes || echo no)"
# Only a memfd sealed against writes is a plan: another holder of a
# writable one could change it between two steps' reads.
printf 'pysbx-plan 1 t.policy\n@t.policy:1:1 env A=1\nend\n' >"$T/weak.plan"
run "$PROBE" seal-weak "$T/weak.plan" -- "$EXEC" -- "$PROBE" env
same "a plan memfd not sealed against writes is refused (100), the target never runs" \
	"100 yes no" "$rc $(grep -q "is not sealed against writes" "$T/err" && echo yes) $([[ -s $T/out ]] && echo yes || echo no)"
run "$PROBE" seal-text "$T/weak.plan" -- "$EXEC" -- "$PROBE" env
same "... and the same plan sealed is accepted (the control)" "0 A=1" "$rc $(out)"

# --- root of a user namespace: pysbx-exec drops what it holds ----------------
# uid 0 with every capability of its namespace, CAP_SETPCAP included: the
# same path as real root standalone, testable without privileges.
if unshare -r true 2>/dev/null; then
	run unshare -r "$EXEC" -- "$PROBE" status prctl
	same "standalone as root of a user namespace: every set is emptied" \
		"$nocaps" "$(grep ^Cap "$T/out")"
	has "... and securebits are locked (noroot etc.: 0xef)" "securebits 0xef" "$T/out"
	# With a user namespace in the plan, pysbx-mount has emptied every
	# set: any capability left means it did not, and the chain stops.
	pu=$(pol chainns 'unshare user' 'env A=1')
	run unshare -r "$PROBE" seal "$pu" -- "$EXEC" -- "$PROBE" env
	same "in the chain (--plan-fd, plan with a user namespace) the same capabilities fail closed (111)" \
		"111 yes" "$rc $(grep -q 'cap_chown is in the effective set' "$T/err" && echo yes)"
	# Without one, nothing before pysbx-exec dropped them: it does.
	run unshare -r "$PROBE" seal "$p" -- "$EXEC" -- "$PROBE" status prctl
	same "in the chain with a plan without namespaces: pysbx-exec empties every set itself" \
		"$nocaps" "$(grep ^Cap "$T/out")"
else
	for _ in 1 2 3 4; do skip "unshare -r refused: no unprivileged user namespaces here"; done
fi
